"""Alt text: what a figure says (titles, marks, axes, legend), and IPython storing it with every
figure a notebook shows."""

import matplotlib

matplotlib.use("Agg")

import torch
from IPython.core.formatters import DisplayFormatter
from matplotlib.figure import Figure

from lecturekit.viz.alt import describe_figures, figure_alt_text
from lecturekit.viz.plots import plot_attention, plot_bars


def test_one_panel_names_its_title_marks_and_axes():
    fig = Figure()
    plot_bars(torch.tensor([0.88, 0.12]), ["Thinking", "Machines"], fig.add_subplot(),
              title="softmax(s / 8)", ylabel="weight")  # fmt: skip
    assert figure_alt_text(fig) == "Plot: 'softmax(s / 8)'; 2 bars; axis: weight."


def test_panels_suptitle_heatmap_curves_legend_and_mathtext():
    fig = Figure()
    a1, a2 = fig.subplots(1, 2)
    plot_attention(torch.rand(3, 3), list("abc"), list("xyz"), a1, title="head 1", colorbar=True)
    a2.plot(range(5), range(5), label="measured")
    a2.legend()
    a2.set_xlabel("$d_k$")
    fig.suptitle("Two panels")
    text = figure_alt_text(fig)
    assert text.startswith("Figure: Two panels. 2 panels.")  # the colour bar is not a panel
    assert "Panel 1: 'head 1'; a heatmap" in text
    assert "Panel 2: 1 curve; axis: d_k; legend: measured." in text


def test_long_descriptions_are_cut_and_an_empty_figure_is_said():
    fig = Figure()
    for i in range(30):
        fig.add_subplot(6, 5, i + 1).set_title(f"a rather long panel title number {i}")
    text = figure_alt_text(fig)
    assert len(text) <= 600 and text.endswith("...")
    assert figure_alt_text(Figure()) == "A figure without axes."


def _shell():
    class Shell:
        display_formatter = DisplayFormatter()

    return Shell()


def test_describe_figures_adds_alt_metadata_to_every_figure_output():
    shell = _shell()
    png = shell.display_formatter.formatters["image/png"]
    png.for_type(Figure, lambda fig: b"PNG")  # what the inline backend registers
    describe_figures(shell)
    describe_figures(shell)  # twice: harmless
    fig = Figure()
    fig.add_subplot().set_title("T")
    data, md = shell.display_formatter.format(fig)
    assert data["image/png"] == b"PNG"
    assert md == {"image/png": {"alt": "Plot: 'T'."}}
    # the backend registering its printer again (first plt.show) keeps the description
    png.for_type(Figure, lambda fig: b"PNG2")
    data, md = shell.display_formatter.format(fig)
    assert data["image/png"] == b"PNG2" and md["image/png"]["alt"] == "Plot: 'T'."
    assert shell.display_formatter.format(3)[1] == {}  # not a figure: nothing added


def test_describe_figures_outside_ipython_does_nothing():
    assert describe_figures() is None
