"""The beam-search tree, drawn like the lecture slide (beam size k = 2, "he hit me with a pie").

Public API::

    hyps, tree = beam_search(step, bos, eos, beam_size, max_len, trace=True)
    plot_beam_tree(tree, vocab, ax=None, *, title=None, show_pruned=True) -> Axes
    beam_tree_figure(tree, vocab, *, title=None, show_pruned=True) -> Figure  # + the ranking
    beam_widget(step, vocab, bos, eos, max_len, beam_sizes=(1, 2, 3, 4),
                length_penalties=(0.0, 0.5, 1.0, 2.0))  # sliders k and alpha; tree redraws
    beam_widget_grid(beam_sizes, length_penalties)  # the values a static page pre-renders

One column per time step; each node shows its token and, in blue, the cumulative log-prob
score(y_1..y_t). Kept hypotheses are drawn strongly, pruned ones faded, finished ones (eos)
filled green, and the path of the best final hypothesis is highlighted.

Lecture 07.
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from lecturekit.decoding import BeamTrace, Hypothesis, StepFn, TraceNode, beam_search
from lecturekit.utils.checks import check_bool, check_positive_int
from lecturekit.viz.helpers import check_list, require_ipywidgets
from lecturekit.viz.style import ACCENT
from lecturekit.viz.widgets import KeptCanvas, figure_widget

__all__ = ["plot_beam_tree", "beam_tree_figure", "beam_widget", "beam_widget_grid"]

_BLUE = ("#0072B2", "#56B4E9")  # Okabe-Ito blue / sky blue: scores on light / dark backgrounds
_GREEN = "#009E73"  # finished (eos)
_BEST = ACCENT  # the best hypothesis
_FADED = 0.35  # alpha of pruned nodes and edges
# Edges leave and enter the boxes horizontally (arms in points): they never cross the score
# written above a node. armA is at the child's end.
_EDGE_STYLE = "arc,angleA=180,armA=20,angleB=0,armB=10,rad=4"


_KEPT_TREES = 6  # Figures beam_widget keeps (each a few MB of pixels), most recent first


def _labeller(vocab: object, trace: BeamTrace) -> Callable[[int], str]:
    if isinstance(vocab, str) or not (callable(vocab) or isinstance(vocab, Sequence)):
        raise ValueError(
            "vocab must be a sequence of token strings or a callable id -> str, "
            f"got {type(vocab).__name__}"
        )
    if callable(vocab):
        return lambda token: str(vocab(token))
    top = max(node.token for node in trace.nodes)
    if top >= len(vocab):
        raise ValueError(f"vocab has {len(vocab)} entries but the trace uses token id {top}")
    return lambda token: str(vocab[token])


def _layout(nodes: list[TraceNode]) -> dict[int, float]:
    """Row (y, top = 0, downwards negative) of every node: a compact tidy tree.

    Bottom-up, each parent stacks its children's subtrees (best child on top) as close as
    their contours allow (at least one row apart at every depth they share), then sits
    halfway between its first and last child. Columns keep depth-first order, so no edges
    cross and no nodes overlap (Reingold & Tilford 1981, simplified).
    """
    children: dict[int, list[TraceNode]] = {node.id: [] for node in nodes}
    for node in nodes[1:]:
        children[node.parent].append(node)  # nodes are best first within a step
    offset: dict[int, float] = {}  # node id -> y relative to its parent
    contour: dict[int, list[tuple[float, float]]] = {}  # per depth below: (top, bottom)
    for node in sorted(nodes, key=lambda n: -n.step):  # deepest first: children are done
        outline: list[tuple[float, float]] = []  # of the children stacked so far
        for kid in children[node.id]:
            kid_outline = contour.pop(kid.id)
            shared = range(min(len(outline), len(kid_outline)))
            shift = min((outline[d][1] - 1 - kid_outline[d][0] for d in shared), default=0.0)
            offset[kid.id] = shift
            for d, (top, bottom) in enumerate(kid_outline):
                if d < len(outline):
                    outline[d] = (outline[d][0], bottom + shift)
                else:
                    outline.append((top + shift, bottom + shift))
        kids = children[node.id]
        mid = (offset[kids[0].id] + offset[kids[-1].id]) / 2 if kids else 0.0
        for kid in kids:
            offset[kid.id] -= mid
        contour[node.id] = [(0.0, 0.0), *((top - mid, bot - mid) for top, bot in outline)]
    y = {nodes[0].id: 0.0}
    for node in nodes[1:]:  # top-down: parents come first
        y[node.id] = y[node.parent] + offset[node.id]
    top = max(y.values())
    return {node_id: row - top for node_id, row in y.items()}


def _tree_size(trace: BeamTrace, y: dict[int, float]) -> tuple[float, float]:
    """Figure size (inches) that keeps the tree with rows ``y`` readable."""
    rows = 1 - min(y.values())
    return max(4.5, 1.45 * (trace.num_steps + 1) + 0.6), max(2.8, 0.62 * rows + 1.4)


def plot_beam_tree(
    trace: BeamTrace,
    vocab: Sequence[str] | Callable[[int], str],
    ax: Axes | None = None,
    *,
    title: str | None = None,
    show_pruned: bool = True,
) -> Axes:
    """Draw the tree a beam search explored (``beam_search(..., trace=True)``).

    Args:
        trace: the BeamTrace.
        vocab: token strings indexed by id, or a callable id -> str.
        ax: the Axes to draw on (None: a new figure sized to the tree).
        title: the title (default "Beam search, k = {beam_size}").
        show_pruned: also draw the candidates that fell out of the beam (faded).

    Returns:
        The Axes; ``ax.texts`` holds the token of every node, then the score of every node but
        the root (formatted "-0.70").

    Lecture 07; beam search decoding (the k = 2 example of the slides).
    """
    if not isinstance(trace, BeamTrace):
        raise ValueError(f"trace must be a BeamTrace (beam_search(..., trace=True)), got {trace!r}")
    if not trace.nodes or trace.nodes[0].parent != -1:
        raise ValueError("trace must start with its root node (step 0, parent -1)")
    check_bool("show_pruned", show_pruned)
    if ax is not None and not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    label = _labeller(vocab, trace)
    nodes = [node for node in trace.nodes if node.kept or show_pruned]
    y = _layout(nodes)
    steps = trace.num_steps
    if ax is None:
        _, ax = plt.subplots(figsize=_tree_size(trace, y), layout="constrained")

    fg, bg = to_rgb(plt.rcParams["text.color"]), to_rgb(ax.get_facecolor())
    dark = np.dot(bg, [0.2126, 0.7152, 0.0722]) < 0.5
    blue = _BLUE[int(dark)]
    green_fill = tuple(0.78 * np.array(bg) + 0.22 * np.array(to_rgb(_GREEN)))
    best = {node.id for node in trace.path(trace.results[0])} if trace.results else set()

    boxes: dict[int, Text] = {}  # node id -> its token Text
    for node in nodes:  # each token in a box, joined to its parent's box by an arrowless edge
        on_best, alpha = node.id in best, 1.0 if node.kept else _FADED
        edge = _BEST if on_best else (_GREEN if node.finished and node.kept else fg)
        style = {
            "ha": "center",
            "va": "center",
            "fontsize": 12,
            "fontweight": "bold" if on_best else "normal",
            "color": fg,
            "alpha": alpha,
            "zorder": 3.2 if on_best else (3.1 if node.kept else 3.0),
            "bbox": {
                "boxstyle": "round,pad=0.3",
                "fc": green_fill if node.finished else bg,
                "ec": edge,
                "lw": 2.2 if on_best or (node.finished and node.kept) else 1.0,
                "ls": "-" if node.kept else "--",
            },
        }
        xy = (node.step, y[node.id])
        if node.parent < 0:
            boxes[node.id] = ax.text(*xy, label(node.token), **style)
            continue
        boxes[node.id] = ax.annotate(  # the edge starts at the left of this box
            label(node.token),
            xy=(1, 0.5),  # ... and ends at the right middle of the parent's token: the text
            xycoords=partial(Text.get_window_extent, boxes[node.parent]),  # alone, not its edge
            xytext=xy,
            textcoords="data",
            arrowprops={
                "arrowstyle": "-",
                "connectionstyle": _EDGE_STYLE,
                "relpos": (0, 0.5),
                "shrinkA": 0,  # the edge is clipped at this box already
                "shrinkB": 4,  # ~ the box's pad: meet the parent's box
                "color": _BEST if on_best else fg,
                "lw": 2.5 if on_best else (1.3 if node.kept else 1.0),
                "ls": "-" if node.kept else "--",
                "alpha": alpha,
            },
            **style,
        )
        boxes[node.id].set_transform(ax.transData)  # as at draw time; its children need it now
    for node in nodes[1:]:  # the cumulative score, in blue above the token
        ax.annotate(
            f"{node.score:.2f}",
            (node.step, y[node.id]),
            xytext=(0, 12),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=10,
            color=blue,
            alpha=1.0 if node.kept else _FADED,
            zorder=3,
        )

    ax.set_xlim(-0.5, steps + 0.5)
    ax.set_ylim(min(y.values()) - 0.6, 0.8)
    ax.set_xticks(range(steps + 1), ["start", *(f"t = {t}" for t in range(1, steps + 1))])
    ax.xaxis.set_ticks_position("top")
    ax.tick_params(axis="x", length=0, labelsize=11)
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title if title is not None else f"Beam search, k = {trace.beam_size}")
    handles = [
        Line2D([], [], color=_BEST, lw=2.5, label="best hypothesis"),
        Line2D([], [], color=fg, lw=1.3, label="kept in the beam"),
        Line2D([], [], color=blue, marker="$-0.7$", ls="none", ms=18, label="log-prob score"),
    ]
    if any(node.finished for node in nodes):
        eos = Line2D([], [], marker="s", ls="none", mfc=green_fill, mec=_GREEN, ms=10, label="eos")
        handles.insert(2, eos)
    if not all(node.kept for node in nodes):
        handles.insert(2, Line2D([], [], color=fg, ls="--", alpha=_FADED, label="pruned"))
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=len(handles),
        fontsize=9,
        frameon=False,
        handlelength=1.6,
        columnspacing=1.0,
    )
    return ax


def _result(trace: BeamTrace, node_id: int) -> Hypothesis:
    """The returned hypothesis that ends at ``node_id`` (tokens after bos, score, finished)."""
    path = trace.path(node_id)
    return Hypothesis(tuple(node.token for node in path[1:]), path[-1].score, path[-1].finished)


def _ranking(trace: BeamTrace, label: Callable[[int], str]) -> list[str]:
    """The lines of the final ranking: each returned hypothesis, best first, with its raw
    score and (alpha not 0) its normalised score."""
    alpha = trace.length_penalty
    hyps = [_result(trace, node_id) for node_id in trace.results]
    words = [" ".join(label(token) for token in hyp.tokens) for hyp in hyps]
    width = max((len(w) for w in words), default=0)
    lines = []
    for rank, (hyp, text) in enumerate(zip(hyps, words, strict=True), start=1):
        line = f"{rank}. {text:<{width}}  log P = {hyp.score:6.2f}"
        if alpha != 0:
            line += f"   log P / |Y|^{alpha:g} = {hyp.normalized_score(alpha):6.2f}"
        lines.append(line + ("" if hyp.finished else "  (unfinished)"))
    return lines


def _ranking_header(trace: BeamTrace) -> str:
    by = "log P / |Y|^α" if trace.length_penalty != 0 else "log P (sum of the log-probs)"
    return f"returned, best first by {by}:"


def _title(trace: BeamTrace) -> str:
    return f"Beam search, k = {trace.beam_size}, α = {trace.length_penalty:g}"


def _figure_size(
    trace: BeamTrace, lines: Sequence[str], show_pruned: bool
) -> tuple[float, float, float]:
    """The heights (inches) of the tree and of the ranking, and the width of the figure."""
    y = _layout([node for node in trace.nodes if node.kept or show_pruned])
    tree_w, tree_h = _tree_size(trace, y)
    rank_h = 0.3 + 0.24 * (len(lines) + 1)
    chars = max((len(line) for line in lines), default=0)
    return tree_h, rank_h, max(tree_w, 0.085 * chars + 0.6)


def beam_tree_figure(
    trace: BeamTrace,
    vocab: Sequence[str] | Callable[[int], str],
    *,
    title: str | None = None,
    show_pruned: bool = True,
) -> Figure:
    """The search tree (``plot_beam_tree``) above the final ranking of the returned hypotheses:
    each with its raw score log P and, when the trace's length_penalty alpha is not 0, the
    normalised score log P / |Y|^alpha that ranked it (|Y| counts eos). Built without pyplot.

    Args:
        trace: the BeamTrace (``beam_search(..., trace=True)``).
        vocab: token strings indexed by id, or a callable id -> str.
        title: the tree's title (default "Beam search, k = {k}, alpha = {alpha}").
        show_pruned: also draw the candidates that fell out of the beam (faded).

    Returns:
        A ``matplotlib.figure.Figure``: axes[0] the tree, axes[1] the ranking (one text per
        hypothesis, best first, after a header text).

    Lecture 07; Wu et al. 2016 section 7 (length normalisation).
    """
    if not isinstance(trace, BeamTrace):
        raise ValueError(f"trace must be a BeamTrace (beam_search(..., trace=True)), got {trace!r}")
    check_bool("show_pruned", show_pruned)
    lines = _ranking(trace, _labeller(vocab, trace))
    tree_h, rank_h, width = _figure_size(trace, lines, show_pruned)
    fig = Figure(figsize=(width, tree_h + rank_h), layout="constrained")
    ax_tree, ax_rank = fig.subplots(2, 1, height_ratios=[tree_h, rank_h])
    if title is None:
        title = _title(trace)
    plot_beam_tree(trace, vocab, ax_tree, title=title, show_pruned=show_pruned)

    ax_rank.set_axis_off()
    step_y = 1 / (len(lines) + 1)
    ax_rank.text(0, 1, _ranking_header(trace), va="top", fontsize=10)
    for i, line in enumerate(lines, start=1):
        ax_rank.text(
            0,
            1 - i * step_y,
            line,
            va="top",
            family="monospace",
            fontsize=10,
            color=_BEST if i == 1 else None,
            fontweight="bold" if i == 1 else "normal",
        )
    return fig


def _check_options(name: str, values: object, check: Callable[[str, object], None]) -> tuple:
    for value in check_list(name, values, "values"):
        check(name, value)
    if len(set(values)) != len(values):
        raise ValueError(f"{name} must not repeat a value, got {list(values)}")
    return tuple(values)


def _check_alpha(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must hold finite numbers, got {value!r}")


def _check_size(name: str, value: object) -> None:
    check_positive_int(f"each of {name}", value)


def beam_widget(
    step: StepFn,
    vocab: Sequence[str] | Callable[[int], str],
    bos: int,
    eos: int,
    max_len: int,
    beam_sizes: Sequence[int] = (1, 2, 3, 4),
    length_penalties: Sequence[float] = (0.0, 0.5, 1.0, 2.0),
    *,
    beam_size: int | None = None,
    length_penalty: float | None = None,
):
    """Sliders for the beam size k and the length penalty alpha; the search tree and the final
    ranking (``beam_tree_figure``) redraw. Every search runs once, when the widget is built,
    so bad input (a step function that breaks, a vocab too short) raises here.

    Args:
        step: prefix_ids (N, t) -> log_probs (N, V), as for ``beam_search``.
        vocab: token strings indexed by id, or a callable id -> str.
        bos, eos, max_len: as for ``beam_search``.
        beam_sizes: the choices of k (positive ints).
        length_penalties: the choices of alpha (finite numbers; 0 = raw sum of log-probs).
        beam_size, length_penalty: the first values shown (default: k = 2 if offered, else the
            first choice; the first alpha).

    Returns:
        An ipywidgets.VBox: the controls (k, alpha, show pruned) above the image.

    Lecture 07.
    """
    sizes = _check_options("beam_sizes", beam_sizes, _check_size)
    alphas = _check_options("length_penalties", length_penalties, _check_alpha)
    if beam_size is None:
        beam_size = 2 if 2 in sizes else sizes[0]
    if length_penalty is None:
        length_penalty = alphas[0]
    if beam_size not in sizes:
        raise ValueError(f"beam_size={beam_size!r} is not one of beam_sizes={list(sizes)}")
    if length_penalty not in alphas:
        raise ValueError(
            f"length_penalty={length_penalty!r} is not one of length_penalties={list(alphas)}"
        )
    traces = {}  # (k, alpha) -> BeamTrace, all computed now
    for k in sizes:
        for alpha in alphas:
            _, traces[k, alpha] = beam_search(
                step, bos, eos, k, max_len, length_penalty=alpha, trace=True
            )
            _labeller(vocab, traces[k, alpha])  # a vocab too short raises now, not on a click

    label = _labeller(vocab, traces[sizes[0], alphas[0]])
    # One Figure per tree drawn (k, show pruned, its nodes, best path, size), made on its first
    # visit and kept (KeptCanvas): the tree stays as pixels, only the title and the ranking
    # change with alpha. Its layout is the constrained one a new Figure gets, recomputed on
    # every redraw from where a new Figure starts; the tree's boxes lie inside its panel (they
    # never stick out: they do not move the layout) and are left out of it, so it measures
    # only the texts around the panels.
    kept: OrderedDict[tuple, tuple[Figure, object]] = OrderedDict()  # the last _KEPT_TREES

    def render(beam_size: int, length_penalty: float, show_pruned: bool) -> Figure:
        trace = traces[beam_size, length_penalty]
        lines = _ranking(trace, label)
        tree = tuple((n.id, n.parent, n.token, n.score, n.kept, n.finished) for n in trace.nodes)
        best = trace.results[0] if trace.results else None
        key = (beam_size, show_pruned, tree, best, _figure_size(trace, lines, show_pruned))
        if key not in kept:
            fig = beam_tree_figure(trace, vocab, show_pruned=show_pruned)
            KeptCanvas(fig)
            engine = fig.get_layout_engine()
            fig.set_layout_engine("none")  # the layout is run by render, not by the draw
            ax_tree, ax_rank = fig.axes
            for text in ax_tree.texts:  # the nodes and their scores
                text.set_in_layout(False)
            ax_tree.title.set_animated(True)
            for text in ax_rank.texts:
                text.set_animated(True)
            kept[key] = fig, engine
            while len(kept) > _KEPT_TREES:
                kept.popitem(last=False)
        kept.move_to_end(key)
        fig, engine = kept[key]
        ax_tree, ax_rank = fig.axes
        ax_tree.set_title(_title(trace))
        for text, line in zip(ax_rank.texts, [_ranking_header(trace), *lines], strict=True):
            text.set_text(line)
        fig.canvas.reset_positions()  # where a new Figure's layout starts from
        engine.execute(fig)
        ax_tree.get_tightbbox(fig.canvas.get_renderer(), bbox_extra_artists=[])  # title place
        positions = tuple(tuple(ax.get_position().bounds) for ax in fig.axes)
        fig.canvas.background = positions, ax_tree.title.get_position()
        return fig

    w = require_ipywidgets()
    controls = {
        "beam_size": w.SelectionSlider(
            options=list(sizes), value=beam_size, description="beam size k"
        ),
        "length_penalty": w.SelectionSlider(
            options=list(alphas), value=length_penalty, description="alpha"
        ),
        "show_pruned": w.Checkbox(value=True, description="show pruned"),
    }
    return figure_widget(render, controls)


def beam_widget_grid(
    beam_sizes: Sequence[int] = (1, 2, 3, 4),
    length_penalties: Sequence[float] = (0.0, 0.5, 1.0, 2.0),
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``beam_widget(...,
    beam_sizes, length_penalties)``: control name -> values its controls offer. Every beam
    size; the first, the middle and the last alpha (lecture 07: 0 = the raw sum of
    log-probs, where k = 3 returns "he hit me </s>", then 0.2 and 1 = per word, where the full
    sentence is back); the pruned hypotheses shown.

    Lecture 07.
    """
    sizes = _check_options("beam_sizes", beam_sizes, _check_size)
    alphas = _check_options("length_penalties", length_penalties, _check_alpha)
    picked = [alphas[0], alphas[len(alphas) // 2], alphas[-1]]
    return {
        "beam_size": list(sizes),
        "length_penalty": list(dict.fromkeys(picked)),
        "show_pruned": [True],
    }
