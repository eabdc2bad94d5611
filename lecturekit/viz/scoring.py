"""Plots and widgets for lectures 01-02: scoring functions side by side, trained alignments, and
one sentence's translations with the attention that produced them.

Public API::

    plot_scores(scores, key_labels=None, fig=None, *, target=None, title=None) -> Figure
    #   scores {name: (Tk,)}: one query scored against Tk keys by each scoring function; top
    #   row the scores, bottom row the weights softmax(scores), one column per function
    plot_score_weights(scores, key_labels=None, axes=None, *, target=None, name=None)
    #   -> (Axes, Axes): one function's scores (Tk,) and its weights, as bars
    plot_alignments(weights, src_labels, tgt_labels, fig=None, *, align=None, titles=None,
                    ncols=None)
    #   -> Figure: weights {name: (Tq, Tk)}, one heatmap per model; align[j] (the true source
    #   index of target word j) is outlined
    plot_grouped_bars(values, ax=None, *, ylabel=None, title=None, ylim=(0, 1)) -> Axes
    #   values {group: {series: value}}, e.g. {model: {"all": 0.97, ">= 30 tokens": 0.95}}
    scoring_widget(scores, query_labels=None, key_labels=None, *, targets=None,
                   query_name="query", score=None, query=0)
    #   scores {name: (Tq, Tk)}: a dropdown picks the function, a slider the query; the scores
    #   and weights of that query redraw, next to the whole weight matrix
    scoring_widget_grid(scores, *, query=0, max_queries=12)
    #   the settings a static page pre-renders for scoring_widget
    plot_translation(source, reference, translations, weights, fig=None) -> Figure
    #   lecture 01: the sentence, the reference and each model's output (✓ / ✗ first wrong
    #   word) above the last model's attention weights (n, S)
    translation_widget(pairs, translations, weights, *, sentence=1)
    #   lecture 01: a slider over the pairs, plot_translation of the chosen one

Scores must be finite (no masking here); weights are softmax(scores) over the keys, computed in
float64. Nothing is shown or saved; functions draw on what they are given and return it.

Lectures 01-02.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from lecturekit.datasets.translation import Pair
from lecturekit.utils.checks import (
    check_index,
    check_instance,
    check_positive_int,
    check_strings,
)
from lecturekit.viz.helpers import (
    check_figure,
    check_labels,
    check_list,
    check_mapping,
    get_axes,
    require_ipywidgets,
    to_numpy,
)
from lecturekit.viz.plots import plot_attention
from lecturekit.viz.style import ACCENT, palette

__all__ = [
    "plot_scores",
    "plot_score_weights",
    "plot_alignments",
    "plot_grouped_bars",
    "scoring_widget",
    "scoring_widget_grid",
    "plot_translation",
    "translation_widget",
]

ArrayLike = object  # torch.Tensor, np.ndarray or nested lists

_TARGET = ACCENT  # the correct key (true alignment)


def _mapping(name: str, values: object, ndim: int) -> dict[str, np.ndarray]:
    """{label: array}, all of the same shape."""
    check_mapping(name, values, "name -> array")
    arrays = {str(k): to_numpy(f"{name}[{k!r}]", v, ndim, numeric=True) for k, v in values.items()}
    shapes = {a.shape for a in arrays.values()}
    if len(shapes) > 1:
        seen = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
        raise ValueError(f"every entry of {name} must have the same shape, got {seen}")
    return arrays


def _softmax(scores: np.ndarray) -> np.ndarray:
    z = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def _bar_marks(
    ax: Axes,
    bars: BarContainer,
    values: np.ndarray,
    target: int | None,
    fmt: str,
    annotate: bool,
) -> None:
    """The target key's bar outlined (the others not); the values written when few."""
    for i, bar in enumerate(bars):
        outlined = i == target
        bar.set(edgecolor=_TARGET if outlined else None, linewidth=2.2 if outlined else None)
    if annotate:
        ax.bar_label(bars, labels=[format(v, fmt) for v in values], padding=1, fontsize=7)


def _bars(
    ax: Axes,
    values: np.ndarray,
    labels: Sequence[str] | None,
    target: int | None,
    fmt: str,
    annotate: bool,
    color: str,
) -> None:
    """Bars over the keys (``_bar_marks``: the target's outlined, values written when few)."""
    n = len(values)
    bars = ax.bar(range(n), values, color=color, width=0.75)
    _bar_marks(ax, bars, values, target, fmt, annotate)
    ax.set_xticks(range(n))
    if labels is None:
        labels = [f"h{i + 1}" for i in range(n)]
    rotation = 0 if n <= 6 and max(len(s) for s in labels) <= 4 else 90
    ax.set_xticklabels(labels, rotation=rotation, fontsize=8 if n <= 12 else 7)
    ax.set_xlim(-0.6, n - 0.4)


def plot_score_weights(
    scores: ArrayLike,
    key_labels: Sequence[str] | None = None,
    axes: tuple[Axes, Axes] | None = None,
    *,
    target: int | None = None,
    name: str | None = None,
    color: str | None = None,
) -> tuple[Axes, Axes]:
    """One scoring function for one query: its scores (Tk,) and weights softmax(scores).

    Args:
        scores: (Tk,) score of the query against each key.
        key_labels: Tk labels (default h1..hTk).
        axes: (scores Axes, weights Axes); None makes a new figure with two rows.
        target: index of the correct key (e.g. the true alignment), outlined in both panels.
        name: the scoring function's name, used in the titles.
        color: bar colour (default the first palette colour).

    Returns:
        (scores Axes, weights Axes).

    Lecture 02.
    """
    arr = to_numpy("scores", scores, 1, numeric=True)
    check_labels("key_labels", key_labels, len(arr))
    if target is not None:
        check_index("target", target, len(arr))
    pair = isinstance(axes, (tuple, list, np.ndarray)) and len(axes) == 2
    if axes is not None and not (pair and all(isinstance(a, Axes) for a in axes)):
        raise ValueError(f"axes must be None or a pair of Axes (scores, weights), got "
                         f"{type(axes).__name__}")  # fmt: skip
    if axes is None:
        _, axes = plt.subplots(2, 1, figsize=(max(4.0, 0.3 * len(arr) + 1.5), 4.6))
    ax_s, ax_w = axes
    color = color or palette()[0]
    annotate = len(arr) <= 12
    _bars(ax_s, arr, key_labels, target, ".2f", annotate, color)
    ax_s.axhline(0, color=plt.rcParams["axes.edgecolor"], linewidth=0.8)
    ax_s.margins(y=0.18)
    ax_s.set(title=f"{name}: scores" if name else "scores", ylabel="score")
    _bars(ax_w, _softmax(arr), key_labels, target, ".2f", annotate, color)
    ax_w.set_ylim(0, 1.12)
    ax_w.set(title=f"{name}: weights" if name else "weights = softmax(scores)", ylabel="weight")
    return ax_s, ax_w


def plot_scores(
    scores: Mapping[str, ArrayLike],
    key_labels: Sequence[str] | None = None,
    fig: Figure | None = None,
    *,
    target: int | None = None,
    title: str | None = None,
) -> Figure:
    """The same query scored by several functions, side by side: one column per function,
    scores on top, weights softmax(scores) below (on a shared 0..1 scale).

    Args:
        scores: {function name: (Tk,) scores}, all of the same length Tk.
        key_labels: Tk labels for the keys (default h1..hTk).
        fig: the Figure to draw on (None: a new pyplot figure sized to the columns).
        target: index of a key to outline in every panel (e.g. the correct one).
        title: a title over the whole figure.

    Returns:
        The Figure (2 x K axes).

    Lecture 02; Luong et al. 2015 eq. 8-9, Bahdanau et al. 2015, Graves et al. 2014,
    Vaswani et al. 2017 eq. 1.
    """
    arrays = _mapping("scores", scores, 1)
    check_figure("fig", fig)
    n = len(next(iter(arrays.values())))
    check_labels("key_labels", key_labels, n)
    if target is not None:
        check_index("target", target, n)
    K = len(arrays)
    if fig is None:
        fig = plt.figure(figsize=(2.25 * K + 0.5, 4.8))
    axes = fig.subplots(2, K, squeeze=False)
    colours = palette()
    for k, (name, arr) in enumerate(arrays.items()):
        ax_s, ax_w = plot_score_weights(
            arr,
            key_labels,
            (axes[0, k], axes[1, k]),
            target=target,
            color=colours[k % len(colours)],
        )
        ax_s.set_title(name, fontsize=11)
        ax_w.set_title(None)
        if k:
            ax_s.set_ylabel(None)
            ax_w.set_ylabel(None)
            ax_w.set_yticklabels([])
    axes[0, 0].set_ylabel("score s(q, h)")
    axes[1, 0].set_ylabel("weight = softmax")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _reach_left(ax: Axes, renderer: object) -> float:
    """How far an Axes' value ticks and y label reach left of the panel, in pixels."""
    return ax.get_window_extent(renderer).x0 - ax.yaxis.get_tightbbox(renderer).x0


def _mark_alignment(ax: Axes, align: Sequence[int]) -> None:
    for j, i in enumerate(align):
        ax.add_patch(
            Rectangle((i - 0.5, j - 0.5), 1, 1, fill=False, edgecolor=_TARGET, linewidth=1.2)
        )


def plot_alignments(
    weights: Mapping[str, ArrayLike],
    src_labels: Sequence[str],
    tgt_labels: Sequence[str],
    fig: Figure | None = None,
    *,
    align: Sequence[int] | None = None,
    titles: Sequence[str] | None = None,
    ncols: int | None = None,
) -> Figure:
    """Attention heatmaps of several models on one sentence pair, one panel per model:
    row j = target word j (the query), column i = source word i (the key).

    Args:
        weights: {model name: (Tq, Tk) attention weights}, all of the same shape.
        src_labels: Tk source words (columns); tgt_labels: Tq target words (rows).
        fig: the Figure to draw on (None: a new pyplot figure).
        align: align[j] = index of the source word that target word j translates; outlined.
        titles: one title per panel (default the model names).
        ncols: panels per row (default all in one row).

    Returns:
        The Figure.

    Lecture 02; Bahdanau et al. 2015 figure 3.
    """
    arrays = _mapping("weights", weights, 2)
    check_figure("fig", fig)
    Tq, Tk = next(iter(arrays.values())).shape
    check_labels("src_labels", src_labels, Tk)
    check_labels("tgt_labels", tgt_labels, Tq)
    check_labels("titles", titles, len(arrays))
    if align is not None:
        check_labels("align", align, Tq)
        for j, i in enumerate(align):
            check_index(f"align[{j}]", i, Tk)
    K = len(arrays)
    if ncols is None:
        ncols = K
    check_positive_int("ncols", ncols)
    ncols = min(ncols, K)
    nrows = -(-K // ncols)
    if fig is None:
        side = min(6.0, max(3.2, 0.17 * max(Tq, Tk) + 1.3))
        fig = plt.figure(figsize=(side * ncols + 0.3, (side + 0.4) * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False).flatten()
    for ax in axes[K:]:
        ax.axis("off")
    for k, (name, arr) in enumerate(arrays.items()):
        ax = axes[k]
        plot_attention(
            arr,
            list(tgt_labels),
            list(src_labels),
            ax,
            title=titles[k] if titles else name,
            annotate=max(Tq, Tk) <= 8,
        )
        ax.set_xticks(range(Tk), list(src_labels), rotation=90, ha="center")
        size = 8 if max(Tq, Tk) <= 20 else 7
        ax.tick_params(labelsize=size)
        first_col = k % ncols == 0
        ax.set(xlabel="source word (key)", ylabel="target word (query)" if first_col else None)
        if align is not None:
            _mark_alignment(ax, align)
    fig.tight_layout()
    return fig


def plot_grouped_bars(
    values: Mapping[str, Mapping[str, float]],
    ax: Axes | None = None,
    *,
    ylabel: str | None = None,
    title: str | None = None,
    ylim: tuple[float, float] | None = (0.0, 1.0),
    fmt: str = ".3f",
) -> Axes:
    """Grouped bars, e.g. exact match per model (groups) on several test subsets (series).

    Args:
        values: {group: {series: value}}; every group has the same series, in the same order.
        ax: the Axes (None: a new figure).
        ylabel, title: labels.
        ylim: y range (the top gets room for the printed values); None = automatic.
        fmt: format of the value written above each bar.

    Returns:
        The Axes.

    Lecture 02.
    """
    check_mapping("values", values, "group -> {series: value}")
    groups = list(values)
    for g in groups:
        if not isinstance(values[g], Mapping) or not values[g]:
            raise ValueError(f"values[{g!r}] must be a non-empty mapping series -> value")
    series = list(values[groups[0]])
    for g in groups:
        if list(values[g]) != series:
            raise ValueError(f"values[{g!r}] has series {list(values[g])}, expected {series}")
    ax = get_axes(ax)
    width = 0.8 / len(series)
    colours = palette()
    x = np.arange(len(groups))
    for k, name in enumerate(series):
        heights = [float(values[g][name]) for g in groups]
        bars = ax.bar(
            x + (k - (len(series) - 1) / 2) * width,
            heights,
            width,
            label=name,
            color=colours[k % len(colours)],
        )
        ax.bar_label(bars, labels=[format(h, fmt) for h in heights], padding=2, fontsize=8)
    ax.set_xticks(x, groups)
    if ylim is not None:
        ax.set_ylim(ylim[0], ylim[1] * 1.12)
    ax.set(ylabel=ylabel, title=title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def scoring_widget(
    scores: Mapping[str, ArrayLike],
    query_labels: Sequence[str] | None = None,
    key_labels: Sequence[str] | None = None,
    *,
    targets: Sequence[int] | None = None,
    query_name: str = "query",
    score: str | None = None,
    query: int = 0,
):
    """Pick a scoring function (dropdown) and a query (slider): that query's scores and
    weights redraw as bars, beside the whole weight matrix with the query's row outlined.

    Args:
        scores: {function or model name: (Tq, Tk) scores}, all of the same shape, precomputed.
        query_labels: Tq labels for the queries (e.g. target words); key_labels: Tk labels.
        targets: targets[j] = the correct key of query j (e.g. ``Pair.align``), outlined.
        query_name: the slider's description ("query", "target step", ...).
        score: the function shown first (default the first in ``scores``).
        query: the query shown first.

    Returns:
        An ipywidgets.VBox (controls above an image).

    Lecture 02.
    """
    from lecturekit.viz.widgets import KeptCanvas, figure_widget

    arrays = _mapping("scores", scores, 2)
    Tq, Tk = next(iter(arrays.values())).shape
    check_labels("query_labels", query_labels, Tq)
    check_labels("key_labels", key_labels, Tk)
    if targets is not None:
        check_labels("targets", targets, Tq)
        for j, i in enumerate(targets):
            check_index(f"targets[{j}]", i, Tk)
    if not isinstance(query_name, str):
        raise ValueError(f"query_name must be a str, got {query_name!r}")
    if score is not None and score not in arrays:
        raise ValueError(f"score={score!r} is not one of {list(arrays)}")
    check_index("query", query, Tq)
    try:
        import ipywidgets as w
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("lecturekit widgets need ipywidgets: pip install ipywidgets") from err
    names = list(arrays)
    q_labels = list(query_labels) if query_labels is not None else [f"q{j + 1}" for j in range(Tq)]
    k_labels = list(key_labels) if key_labels is not None else [f"h{i + 1}" for i in range(Tk)]

    heatmaps = {name: _softmax(arr) for name, arr in arrays.items()}  # every query's weights
    annotated = max(Tq, Tk) <= 12  # plot_attention writes the weights in the cells
    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place
    reaches: list[float] = []  # how far the weights' ticks reach left (read once)

    def draw_heatmap(ax_h: Axes, score: str) -> None:
        """The score's weights, all queries (in place of the heatmap drawn before)."""
        for artist in [*ax_h.images, *ax_h.texts]:
            artist.remove()
        plot_attention(heatmaps[score], q_labels, k_labels, ax_h, title=f"{score}: all weights")
        ax_h.set_xticks(range(Tk), k_labels, rotation=90, ha="center")
        ax_h.tick_params(labelsize=8 if max(Tq, Tk) <= 20 else 6)
        for artist in [*ax_h.images, *ax_h.texts]:
            artist.set_animated(True)

    def cell_words(image: object, score: str) -> list[tuple[str, str]]:
        """plot_heatmap's words on the cells of the score's weights: each value (``fmt``) in
        black on a light cell, white on a dark one."""
        arr = heatmaps[score]
        rgba = image.cmap(image.norm(arr))
        light = 0.2126 * rgba[..., 0] + 0.7152 * rgba[..., 1] + 0.0722 * rgba[..., 2] > 0.5
        return [(format(v, ".2f"), "black" if lit else "white")
                for v, lit in zip(arr.flat, light.flat, strict=True)]  # fmt: skip

    def build(score: str, query: int) -> Figure:
        """The Figure with its panels; the artists the controls change are marked animated."""
        fig = Figure(figsize=(11.0, 4.6))
        KeptCanvas(fig)
        grid = fig.add_gridspec(2, 2, width_ratios=[1.5, 1.0])
        ax_s, ax_w = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0])
        plot_score_weights(arrays[score][query], k_labels, (ax_s, ax_w))  # render colours them
        ax_w.set_title("weights = softmax(scores)", fontsize=11)
        ax_h = fig.add_subplot(grid[:, 1])
        draw_heatmap(ax_h, score)
        ax_h.add_patch(
            Rectangle((-0.5, query - 0.5), Tk, 1, fill=False, edgecolor=_TARGET, linewidth=2)
        )
        # the bars, the scores' line at 0 and value ticks, the titles, the query's row, and
        # the spines drawn over the bars and the heatmap
        for artist in (*ax_s.patches, *ax_w.patches, ax_s.lines[0], ax_s.yaxis, ax_s.title,
                       ax_h.title, ax_h.patches[0],
                       *(s for ax in fig.axes for s in ax.spines.values())):  # fmt: skip
            artist.set_animated(True)
        return fig

    def render(score: str, query: int) -> Figure:
        if not kept:
            kept.append(build(score, query))
        fig = kept[0]
        ax_s, ax_w, ax_h = fig.axes
        values = arrays[score][query]
        target = None if targets is None else int(targets[query])
        colour = palette()[names.index(score) % len(palette())]
        for ax, heights in ((ax_s, values), (ax_w, _softmax(values))):
            bars = ax.containers[0]
            for bar, height in zip(bars, heights, strict=True):
                bar.set_height(height)
                bar.set_facecolor(colour)
            bars.datavalues = heights  # (bar_label reads which side of 0 each bar is on)
            for text in [*ax.texts]:  # the values written for the previous setting
                text.remove()
            _bar_marks(ax, bars, heights, target, ".2f", Tk <= 12)  # as plot_score_weights
            for text in ax.texts:
                text.set_animated(True)
        # the scores' limits as autoscaling finds them from the bars (0 to each score) and the
        # line at 0; relim would measure every bar's outline for the same numbers
        ax_s.dataLim.intervaly = min(0.0, values.min()), max(0.0, values.max())
        ax_s.autoscale_view()
        ax_s.set_title(f"{score}, {query_name} {query} ({q_labels[query]}): scores", fontsize=11)
        image = ax_h.images[0]
        image.set_data(heatmaps[score])
        if annotated:  # the numbers in the cells, as plot_heatmap writes them
            for text, (value, colour) in zip(ax_h.texts, cell_words(image, score), strict=True):
                text.set(text=value, color=colour)
        ax_h.set_title(f"{score}: all weights")
        ax_h.patches[0].set_y(query - 0.5)
        # The layout depends on the words around the panels; the keys' and queries' labels and
        # the weights' ticks stay. The scores' value ticks (read as a new Figure has them,
        # before its layout) move it only when they reach further left than the weights' below
        # them; the titles by how far they rise above their panels.
        canvas = fig.canvas
        canvas.reset_layout()
        renderer = canvas.get_renderer()
        reach = _reach_left(ax_s, renderer)
        if not reaches:  # the weights' (0..1, the same in every setting), read once
            reaches.append(_reach_left(ax_w, renderer))
        below = reaches[0]
        canvas.layout((reach if reach > below else None, KeptCanvas.title_rise(ax_s, renderer),
                       KeptCanvas.title_rise(ax_h, renderer)))  # fmt: skip
        canvas.background = "the keys and queries"  # the same in every setting
        return fig

    controls = {
        "score": w.Dropdown(options=names, value=score or names[0], description="score"),
        "query": w.IntSlider(value=int(query), min=0, max=Tq - 1, description=query_name),
    }
    return figure_widget(render, controls)


def _verdict(output: Sequence[str], reference: Sequence[str]) -> str:
    """A check mark for an exact match, else "✗ (first wrong word: k)" (k counted from 1; a
    translation that stops early or runs on is wrong at the first word past the shorter)."""
    if tuple(output) == tuple(reference):
        return "✓"
    wrong = next((j for j, (a, b) in enumerate(zip(output, reference, strict=False)) if a != b),
                 min(len(output), len(reference)))  # fmt: skip
    return f"✗ (first wrong word: {wrong + 1})"


def _check_translation(
    source: object, reference: object, translations: object, weights: object, where: str = ""
) -> tuple[list[str], list[str], dict[str, list[str]], np.ndarray]:
    """plot_translation's inputs checked: (source, reference, {label: words}, weights array)."""
    source = check_strings(f"source{where}", source)
    reference = check_strings(f"reference{where}", reference)
    check_mapping("translations", translations, "label -> output words")
    outputs = {str(k): check_strings(f"translations[{k!r}]{where}", v)
               for k, v in translations.items()}  # fmt: skip
    n, s = len(list(outputs.values())[-1]), len(source)
    arr = to_numpy(f"weights{where}", weights, 2, wanted="(n, S)")
    if arr.shape[0] < n or arr.shape[1] < s:
        raise ValueError(f"weights{where} must cover the last translation's {n} words x {s} "
                         f"source words, got shape {arr.shape}")  # fmt: skip
    return source, reference, outputs, arr


def plot_translation(
    source: Sequence[str],
    reference: Sequence[str],
    translations: Mapping[str, Sequence[str]],
    weights: ArrayLike,
    fig: Figure | None = None,
) -> Figure:
    """One test sentence as text (the source, the reference and each model's translation, with
    ✓ for an exact match or ✗ and its first wrong word) above the attention weights of the
    **last** translation while it was produced (row = output word, column = source word).

    Args:
        source: the S source words; reference: the reference translation's words.
        translations: {label: output words}, e.g. {"no attention": [...], "attention": [...]};
            labels of at most 12 characters line up. The last one's weights are drawn.
        weights: (n', S') attention weights of the last translation, at least (n, S) for its n
            words (e.g. a row of ``Seq2Seq.greedy_decode``'s padded weights); the rest is
            padding and left out.
        fig: the Figure to draw on (None: a new 10 x 10 inch ``Figure``, not pyplot's).

    Returns:
        The Figure.

    Lecture 01; Bahdanau et al. 2015 figure 3.
    """
    source, reference, outputs, arr = _check_translation(source, reference, translations, weights)
    check_figure("fig", fig)
    hyp = list(outputs.values())[-1]
    n, s = len(hyp), len(source)
    if fig is None:
        fig = Figure(figsize=(10, 10))
    fig.text(0.02, 0.985, _translation_text(source, reference, outputs), **_TEXT_STYLE)
    ax = fig.add_axes((0.13, 0.08, 0.8, 0.6))  # fixed place below the text
    plot_attention(arr[:n, :s], hyp, source, ax, annotate=False, colorbar=True,
                   title=f"attention while translating ({s} source words)")  # fmt: skip
    ax.tick_params(labelsize=_tick_size(s))
    ax.set(xlabel="source word", ylabel="output word")
    return fig


_TEXT_STYLE = {"va": "top", "ha": "left", "fontsize": 8.5, "family": "monospace"}


def _tick_size(s: int) -> int:
    """plot_translation's tick labels' size for ``s`` source words."""
    return 6 if s > 45 else 7 if s > 25 else 9


def _translation_text(
    source: Sequence[str], reference: Sequence[str], outputs: Mapping[str, Sequence[str]]
) -> str:
    """plot_translation's text: the source, the reference and each output with its verdict."""
    lines = []
    rows = [("source", source, False), ("reference", reference, False)]
    rows += [(label, words, True) for label, words in outputs.items()]
    for label, words, judged in rows:
        mark = "  " + _verdict(words, reference) if judged else ""
        lines.append(textwrap.fill(f"{label:>12s}: " + " ".join(words) + mark, 124,
                                   subsequent_indent=" " * 14))  # fmt: skip
    return "\n".join(lines)


def translation_widget(
    pairs: Sequence[Pair],
    translations: Mapping[str, Sequence[Sequence[str]]],
    weights: ArrayLike | Sequence[ArrayLike],
    *,
    sentence: int = 1,
):
    """A slider over test sentences (counted from 1): ``plot_translation`` of the chosen one,
    i.e. source, reference and every model's translation (✓ / ✗), above the attention weights
    of the last model while it translated.

    Args:
        pairs: the sentence pairs (``lecturekit.datasets.translation.Pair``).
        translations: {label: one output (a list of words) per pair}, the model whose weights
            are drawn last (e.g. {"no attention": ..., "attention": ...}).
        weights: the last model's attention weights, one (n', S') map per pair: a (N, L, S)
            tensor (``greedy_decode``'s, padded) or a list of 2-D maps.
        sentence: the sentence shown first, 1..len(pairs).

    Returns:
        An ipywidgets.VBox (the slider above the image).

    Lecture 01.
    """
    from lecturekit.viz.widgets import KeptCanvas, figure_widget

    for i, pair in enumerate(check_list("pairs", pairs, "Pair")):
        check_instance(f"pairs[{i}]", pair, Pair)
    check_mapping("translations", translations, "label -> outputs (one per pair)")
    for label, outputs in translations.items():
        check_labels(f"translations[{label!r}]", outputs, len(pairs))
    maps = list(weights) if hasattr(weights, "ndim") and weights.ndim == 3 else weights
    if isinstance(maps, str) or not isinstance(maps, Sequence):
        raise ValueError(f"weights must be a (N, L, S) tensor or a list of N 2-D maps, got "
                         f"{type(weights).__name__}")  # fmt: skip
    check_labels("weights", maps, len(pairs))
    if isinstance(sentence, bool) or not isinstance(sentence, int):
        raise ValueError(f"sentence must be an int in 1..{len(pairs)}, got {sentence!r}")
    check_index("sentence - 1", sentence - 1, len(pairs))
    for r, pair in enumerate(pairs):  # every setting must draw: check them all first
        _check_translation(pair.src, pair.tgt, {k: v[r] for k, v in translations.items()},
                           maps[r], f" (pair {r})")  # fmt: skip
    w = require_ipywidgets()
    kept: list = []  # the Figure (built by the first render) and its tick labels' size

    def build(r: int) -> Figure:
        """plot_translation's Figure with its text drawn by the heatmap's Axes (where it can be
        animated; it meets no other artist, so the pixels are the same); what a sentence
        changes is marked animated. The colour bar (0..1) and the panel's place stay."""
        outputs = {label: list(v[r]) for label, v in translations.items()}
        fig = plot_translation(list(pairs[r].src), list(pairs[r].tgt), outputs, maps[r],
                               Figure(figsize=(10, 10)))  # fmt: skip
        KeptCanvas(fig)
        text = fig.texts[0]
        text.remove()
        ax = fig.axes[0]
        ax.text(*text.get_position(), text.get_text(), transform=fig.transFigure, clip_on=False,
                **_TEXT_STYLE)  # fmt: skip
        longest = max(len(p.src) for p in pairs), max(len(v[i]) for v in translations.values()
                                                      for i in range(len(pairs)))  # fmt: skip
        ax.xaxis.get_major_ticks(longest[0])  # made now, not when a sentence first grows
        ax.yaxis.get_major_ticks(longest[1])
        for artist in (*ax.images, *ax.texts, ax.title, ax.xaxis, ax.yaxis,
                       *ax.spines.values()):  # fmt: skip
            artist.set_animated(True)
        return fig

    def render(sentence: int) -> Figure:
        r = sentence - 1
        if not kept:
            kept[:] = build(r), _tick_size(len(pairs[r].src))
        fig = kept[0]
        ax = fig.axes[0]
        source, reference = list(pairs[r].src), list(pairs[r].tgt)
        outputs = {label: list(v[r]) for label, v in translations.items()}
        hyp = list(outputs.values())[-1]
        n, s = len(hyp), len(source)
        ax.texts[0].set_text(_translation_text(source, reference, outputs))
        # as plot_translation (plot_attention, plot_heatmap) draws a new one
        image = ax.images[0]
        image.set_data(to_numpy("weights", maps[r], 2)[:n, :s].astype(float))
        ax.ignore_existing_data_limits = True  # the limits: this sentence's only
        image.set_extent((-0.5, s - 0.5, n - 0.5, -0.5))
        ax.set_xticks(range(s))
        ax.set_xticklabels(source, rotation=45, ha="right")
        ax.set_yticks(range(n))
        ax.set_yticklabels(hyp, rotation=0, ha="right")
        ax.set_title(f"attention while translating ({s} source words)")
        if _tick_size(s) != kept[1]:  # (it sets every tick's labels, the unused ones too)
            ax.tick_params(labelsize=_tick_size(s))
            kept[1] = _tick_size(s)
        fig.canvas.background = "the colour bar"  # the same in every sentence
        return fig

    slider = w.IntSlider(value=sentence, min=1, max=len(pairs), description="sentence")
    return figure_widget(render, {"sentence": slider})


def scoring_widget_grid(
    scores: Mapping[str, ArrayLike], *, query: int = 0, max_queries: int = 12
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``scoring_widget`` on
    ``scores``: every scoring function, and ``max_queries`` consecutive queries from ``query``
    (where the widget starts) on, as a reader steps forward from there; near the end the window
    moves back so it stays full (all queries when there are no more).

    Lecture 02.
    """
    arrays = _mapping("scores", scores, 2)
    Tq = next(iter(arrays.values())).shape[0]
    check_index("query", query, Tq)
    check_positive_int("max_queries", max_queries)
    start = max(0, min(int(query), Tq - max_queries))
    return {"score": list(arrays), "query": list(range(start, min(Tq, start + max_queries)))}
