"""Bad inputs to the website's builder, frames and registry of rebuilt widgets: a clear
ValueError naming the argument, or one ``error:`` line and a non-zero exit before any work."""

import ipywidgets as w
import pytest
from bad_inputs import Bad, BadCli, assert_clear_error, assert_cli_error, bad_rows
from matplotlib.figure import Figure

from lecturekit.viz.alt import describe_figures, figure_alt_text
from lecturekit.viz.widgets import attach_controls, figure_widget, widget_controls
from lecturekit_publish import cli, figures
from lecturekit_publish.frames import derive_grid, render_frames
from lecturekit_publish.notebook import lecture_notebooks, read_notebook


def _widget(n=5):
    slider = w.IntSlider(value=1, min=0, max=n - 1, description="n")

    def render(n):
        fig = Figure(figsize=(1, 1))
        fig.add_subplot().set_title(str(n))
        return fig

    return figure_widget(render, {"n": slider}, dpi=20)


ROWS = [
    Bad("derive_grid: a name that is not a control", "model",
        lambda: derive_grid({"n": w.IntSlider()}, {"m": [1]}), ["grid names", "'m'", "'n'"]),
    Bad("derive_grid: a value the slider does not offer", "range",
        lambda: derive_grid({"n": w.IntSlider(max=3)}, {"n": [7]}), ["grid['n']", "7"]),
    Bad("derive_grid: no values", "size", lambda: derive_grid({"n": w.IntSlider()}, {"n": []}),
        "grid['n']"),
    Bad("derive_grid: a list for the grid", "type",
        lambda: derive_grid({"n": w.IntSlider()}, [1, 2]), ["grid", "list"]),
    Bad("render_frames: max_frames 0", "size", lambda: render_frames(_widget(), max_frames=0),
        "max_frames"),
    Bad("render_frames: more settings than max_frames", "size",
        lambda: render_frames(_widget(5), max_frames=3), ["5 settings", "max_frames=3"]),
    Bad("render_frames: a box without named controls", "model",
        lambda: render_frames(w.VBox([w.IntSlider()])), ["box", "attach_controls"]),
    Bad("attach_controls: no controls", "size", lambda: attach_controls(w.VBox(), {}),
        "controls"),
    Bad("attach_controls: a slider for the box", "type",
        lambda: attach_controls(w.IntSlider(), {"n": w.IntSlider()}), ["box", "IntSlider"]),
    Bad("widget_controls: a plain VBox", "model", lambda: widget_controls(w.VBox()),
        ["box", "VBox"]),
    Bad("register_widget: a negative index", "range",
        lambda: figures.register_widget("x_new", lecture="05", index=-1, description="d"),
        "index"),
    Bad("register_widget: an index already taken", "model",
        lambda: figures.register_widget("x_new", lecture="03", index=0, description="d")(
            lambda: None), ["lecture 03", "widget 0", "softmax_temperature"]),
    Bad("register_widget: a name that is not an identifier", "type",
        lambda: figures.register_widget("x-new", lecture="05", index=9, description="d"),
        ["name", "'x-new'"]),
    Bad("widget_spec: a typo'd name", "model", lambda: figures.widget_spec("softmax_temprature"),
        ["unknown widget", "softmax_temperature"]),
    Bad("lecture_notebooks: a folder without notebooks", "data",
        lambda: lecture_notebooks("/nonexistent-lecturekit-dir"), ["folder", "NN_topic"]),
    Bad("read_notebook: a missing file", "data",
        lambda: read_notebook("/nonexistent-lecturekit-dir/x.ipynb"), ["path", "x.ipynb"]),
    Bad("figure_alt_text: an Axes for the figure", "type",
        lambda: figure_alt_text(Figure().add_subplot()), ["fig", "Axes"]),
    Bad("describe_figures: something that is not a shell", "type",
        lambda: describe_figures(object()), ["shell", "object"]),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


@pytest.fixture
def no_building(monkeypatch):
    import lecturekit_publish.site as site

    def started(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(site, "build_site", started)


CLI_ROWS = [
    BadCli("publish.main: no command", cli.main, [], "command"),
    BadCli("publish.main: an unknown command", cli.main, ["deploy"], "deploy"),
    BadCli("publish.main: a folder that is not a clone", cli.main,
           ["site", "--root", "/nonexistent-lecturekit-dir"], ["--root", "not a clone"]),
    BadCli("publish.main: --jobs 0", cli.main, ["site", "--jobs", "0"], "--jobs"),
    BadCli("publish.main: --out the clone itself", cli.main, ["site", "--out", "."], "--out"),
]  # fmt: skip


@pytest.mark.usefixtures("no_building")
@bad_rows(CLI_ROWS)
def test_bad_command_line(bad, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the clone, for --root's default
    assert_cli_error(bad)
