"""Lecture 00's recurrence plots: gradient against distance, the Jacobian bound, Table 1 measured.

Public API::

    plot_gradient_vs_distance(curves, ax=None, kinds=None)   # GradientCurves, log scale
    plot_jacobian_decay(decay, ax=None)            # JacobianDecay: measured factor vs σ ≤ σ
    plot_path_lengths(rows, ax=None)               # vaswani_table rows: path length vs n
    plot_recurrence_table(rows, ax=None)           # vaswani_table rows as the slide's table
    gradient_widget(curves, decay)                 # pick σ of W_hh and the kinds shown
    gradient_widget_grid(decay)                    # the values a static page pre-renders

Lecture 00; Vaswani et al. 2017 Table 1; Pascanu et al. 2013.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

from lecturekit.experiments.recurrence import KINDS, GradientCurves, JacobianDecay
from lecturekit.utils.checks import check_choice, check_instance
from lecturekit.viz.helpers import check_rows, get_axes, require_ipywidgets
from lecturekit.viz.style import GUIDE
from lecturekit.viz.widgets import KeptCanvas, figure_widget

__all__ = ["plot_gradient_vs_distance", "plot_jacobian_decay", "plot_path_lengths",
           "plot_recurrence_table", "gradient_widget", "gradient_widget_grid"]  # fmt: skip

_DEFAULT = "default init"


class _KeptConstrainedLayout(ConstrainedLayoutEngine):
    """Constrained layout for ``gradient_widget``'s one Axes, worked out once per size of its
    value tick labels and reused after (it measured every tick label twice: half of a redraw).
    Around the widget's log axis, whose title, x axis and axis labels never change, only the
    widest (and tallest) y tick label moves the layout: the labels sit right-aligned left of
    the Axes, inside its height. They are measured where a new Figure's Axes starts (which ticks
    show depends on the Axes' height) and again where the kept layout puts it (where the layout
    measures them a second time, to within a pixel), so a reuse puts the Axes where a new Figure
    does; the rendered frames are pixel-identical.
    """

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[tuple, tuple[object, tuple]] = {}  # size at start -> position, size there

    @staticmethod
    def _label_size(ax: Axes) -> tuple[float, float]:
        """The width and height of the widest and tallest y tick label in view, in pixels. The
        ticks as drawing sets them (each at its value, its words from its formatter, major then
        minor); in view: at a value within the limits, to 1e-10 of their span on the axis'
        scale."""
        renderer = ax.get_figure(root=True).canvas.get_renderer()
        axis = ax.yaxis
        scale = axis.get_transform()
        low, high = sorted(scale.transform(axis.get_view_interval()))
        close = 1e-10 * (high - low)
        boxes = []
        for locs, formatter, get_ticks in (
            (axis.get_majorticklocs(), axis.get_major_formatter(), axis.get_major_ticks),
            (axis.get_minorticklocs(), axis.get_minor_formatter(), axis.get_minor_ticks),
        ):
            words_of = formatter.format_ticks(locs)
            for tick, loc, words in zip(get_ticks(len(locs)), locs, words_of, strict=True):
                tick.update_position(loc)
                tick.label1.set_text(words)
                if words and low - close <= scale.transform(loc) <= high + close:
                    boxes.append(tick.label1.get_window_extent(renderer))
        return max((b.width for b in boxes), default=0.0), max((b.height for b in boxes),
                                                               default=0.0)  # fmt: skip

    @staticmethod
    def _place(ax: Axes, position: object) -> None:
        """Put the Axes at ``position`` and keep it in the layout (``set_position`` alone takes
        it out)."""
        ax.set_position(position)
        ax.set_in_layout(True)

    def execute(self, fig: Figure) -> None:
        (ax,) = fig.axes
        start = ax.get_subplotspec().get_position(fig)  # where a new Figure's Axes is
        self._place(ax, start)
        size = self._label_size(ax)
        kept = self._kept.get(size)
        if kept is not None:
            self._place(ax, kept[0])
            if self._label_size(ax) == kept[1]:
                return
            self._place(ax, start)
        super().execute(fig)
        self._kept[size] = ax.get_position(), self._label_size(ax)


def plot_gradient_vs_distance(
    curves: GradientCurves, ax: Axes | None = None, kinds: Sequence[str] | None = None
) -> Axes:
    """‖∂L/∂x_{T-1-d}‖ (median over seeds) against the distance d, log scale, one line per
    kind (``kinds``: a subset of ``curves.norms``; default all).

    Lecture 00.
    """
    check_instance("curves", curves, GradientCurves)
    kinds = list(curves.norms) if kinds is None else list(kinds)
    for k in kinds:
        check_choice("kinds", k, list(curves.norms))
    ax = get_axes(ax, figsize=(7, 4))
    d = curves.distances.numpy()
    for k in kinds:
        ax.plot(d, curves.norms[k].numpy(), label=k, marker="o", ms=3)
    ax.set_yscale("log")
    ax.set(
        xlabel="distance d from the last position",
        ylabel="gradient norm ‖∂L/∂x(T-1-d)‖",
        title="Gradient against distance, at init",
    )
    ax.legend(fontsize="small")
    return ax


def plot_jacobian_decay(decay: JacobianDecay, ax: Axes | None = None) -> Axes:
    """The vanilla RNN's measured decay factor per step against the spectral norm σ of W_hh,
    with the bound (factor ≤ σ) and the line factor = 1 (above it, gradients grow).

    Lecture 00; Pascanu et al. 2013.
    """
    check_instance("decay", decay, JacobianDecay)
    ax = get_axes(ax, figsize=(5.5, 4))
    s = np.array(decay.spectral_norms)
    ax.plot(s, decay.factors, marker="o", label="measured factor per step")
    ax.plot(s, s, ls="--", color=GUIDE, label="bound: σ")
    ax.axhline(1.0, ls=":", color=GUIDE, label="1: no decay")
    ax.set(
        xlabel="spectral norm σ of W_hh",
        ylabel="gradient factor per step",
        title="Product of Jacobians diag(1 - h²) W_hh",
    )
    ax.legend(fontsize="small")
    return ax


_ROW_KEYS = ("layer", "n_exponent", "d_exponent", "sequential", "path", "paper")


def plot_path_lengths(rows: Sequence[dict], ax: Axes | None = None) -> Axes:
    """The measured maximum path length against n, one line per layer type (the contiguous
    convolution dashed when the row has it).

    Lecture 00; Vaswani et al. 2017 Table 1.
    """
    rows = check_rows("rows", rows, _ROW_KEYS, "vaswani_table rows")
    ax = get_axes(ax, figsize=(6, 4))
    for r in rows:
        ns = sorted(r["path"])
        ax.plot(ns, [r["path"][n] for n in ns], marker="o", label=r["layer"])
        if "path_contiguous" in r:
            ax.plot(ns, [r["path_contiguous"][n] for n in ns], marker="o", ls="--",
                    label=f"{r['layer']} (contiguous)")  # fmt: skip
    ax.set(xlabel="sequence length n", ylabel="maximum path length (measured)")
    ax.legend(fontsize="small")
    return ax


def plot_recurrence_table(rows: Sequence[dict], ax: Axes | None = None) -> Axes:
    """Table 1 of Vaswani et al. with the measured values beside the paper's: FLOPs
    exponents of n and d, sequential operations, path lengths.

    Lecture 00; Vaswani et al. 2017 Table 1.
    """
    rows = check_rows("rows", rows, _ROW_KEYS, "vaswani_table rows")
    ax = get_axes(ax, figsize=(11, 2.6))
    ax.axis("off")
    ns = sorted(rows[0]["path"])
    header = ["layer type", "per layer (paper)", "FLOPs ∝ (measured)", "sequential ops",
              f"path length at n = {', '.join(map(str, ns))}"]  # fmt: skip
    cells = []
    for r in rows:
        paths = ", ".join(str(r["path"][n]) for n in ns)
        cells.append([
            r["layer"],
            r["paper"][0],
            f"n^{r['n_exponent']:.2f} · d^{r['d_exponent']:.2f}",
            f"{r['sequential']} ({r['paper'][1]})",
            f"{paths} ({r['paper'][2]})",
        ])  # fmt: skip
    table = ax.table(cellText=cells, colLabels=header, loc="center", cellLoc="left")
    table.auto_set_font_size(False)
    table.set_fontsize(10)
    table.auto_set_column_width(list(range(len(header))))
    table.scale(1, 1.6)
    return ax


def gradient_widget_grid(decay: JacobianDecay) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``gradient_widget``.

    Lecture 00.
    """
    check_instance("decay", decay, JacobianDecay)
    return {"sigma": [_DEFAULT, *decay.spectral_norms], "gated": [True, False]}


def gradient_widget(curves: GradientCurves, decay: JacobianDecay):
    """The vanilla RNN's gradient against distance with W_hh at its default initialisation or
    rescaled to a chosen spectral norm σ (a dropdown), next to the GRU, LSTM and Transformer
    curves at initialisation (a checkbox hides them).

    Returns:
        An ipywidgets VBox: the controls and the image.

    Lecture 00.
    """
    check_instance("curves", curves, GradientCurves)
    check_instance("decay", decay, JacobianDecay)
    if "RNN" not in curves.norms:
        raise ValueError(f"curves must include the RNN, got {list(curves.norms)}")
    w = require_ipywidgets()
    controls = {
        "sigma": w.Dropdown(options=[_DEFAULT, *decay.spectral_norms], value=_DEFAULT,
                            description="σ(W_hh)"),
        "gated": w.Checkbox(value=True, description="GRU, LSTM, Transformer"),
    }  # fmt: skip
    others = [k for k in KINDS if k != "RNN" and k in curves.norms]

    kept: list[Figure] = []  # the Figure, built by the first render and redrawn in place

    def render(sigma: object, gated: bool) -> Figure:
        norms = {"RNN" if sigma == _DEFAULT else f"RNN, σ = {sigma}":
                 curves.norms["RNN"] if sigma == _DEFAULT else decay.curves[sigma]}  # fmt: skip
        if gated:
            norms.update({k: curves.norms[k] for k in others})
        if not kept:
            kept.append(Figure(figsize=(7, 4), layout=_KeptConstrainedLayout()))
            KeptCanvas(kept[0])  # one renderer: it keeps the sizes of the words it measured
            kept[0].add_subplot()
        fig = kept[0]
        ax = fig.axes[0]
        # The kept Axes keeps its tick objects (many on a log axis over dozens of decades):
        # most of building a new Figure. The curves and legend are drawn anew, limits and
        # colours from scratch; the layout starts where a new Figure's does.
        for line in list(ax.lines):
            line.remove()
        ax.relim()
        ax.set_prop_cycle(None)
        shown = GradientCurves(curves.distances, norms, {})
        plot_gradient_vs_distance(shown, ax)
        return fig

    return figure_widget(render, controls)
