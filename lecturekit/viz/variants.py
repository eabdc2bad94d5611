"""Lecture 11b plots and widgets: the LogSparse mask and how far information travels through
stacked layers, ACT's steps per token, memory-compressed attention's shortened keys, and which
inputs a convolutional attention score compares.

Public API::

    logsparse_widget(n=32, local=0, layers=1)             # n, local, layers sliders: mask, reach
    logsparse_widget_grid()                               # the values a static page pre-renders
    plot_depth_table(tables, ax=None, key="steps")        # {label: depth_table} bars per depth
    plot_act_tokens(labels, steps, depth, ax=None)        # one sequence: steps per token
    act_widget(model, ids, depth)                         # a sequence picker: steps per token
    act_widget_grid(n_sequences)
    plot_compressed_weights(weights, stride, ax=None)     # (n, m) weights of compressed keys
    compressed_widget(n=24, d=8, seed=0)                  # a stride slider: the (n, m) weights
    compressed_widget_grid(n=24)
    plot_series_attention(x, weights, query, ax=None)     # a series, one query's weights as bars

Lecture 11b; Li et al. 2019 Figures 1 and 3; Dehghani et al. 2019; Liu et al. 2018.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from lecturekit.efficient.conv_attention import MemoryCompressedAttention
from lecturekit.efficient.logsparse import logsparse_mask, reachable
from lecturekit.efficient.universal import UniversalTransformer
from lecturekit.utils.checks import (
    check_index,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_seed,
)
from lecturekit.utils.contracts import check_shapes
from lecturekit.viz.helpers import check_mapping, get_axes, require_ipywidgets, to_numpy
from lecturekit.viz.plots import plot_mask
from lecturekit.viz.style import palette
from lecturekit.viz.widgets import KeptCanvas, figure_widget

__all__ = [
    "logsparse_widget",
    "logsparse_widget_grid",
    "act_widget_grid",
    "compressed_widget_grid",
    "plot_depth_table",
    "plot_act_tokens",
    "act_widget",
    "plot_compressed_weights",
    "compressed_widget",
    "plot_series_attention",
]


def _logsparse_panels(n: int, local: int, layers: int) -> list[tuple[torch.Tensor, str]]:
    """The two panels of ``logsparse_widget``: the LogSparse mask and what that many layers
    reach, each with its title."""
    mask = logsparse_mask(n, local)
    reach = reachable(mask, layers)
    full = bool(reach.sum() == n * (n + 1) // 2)
    return [
        (mask, f"one layer: {int(mask.sum())} pairs (causal: {n * (n + 1) // 2})"),
        (reach, f"{layers} layer(s): {int(reach.sum())} pairs reach" + (" (all)" if full else "")),
    ]


def logsparse_widget_grid() -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``logsparse_widget``:
    control name -> values (24 settings inside the sliders' ranges: n 16 and 32 (the
    notebook's); local 0 and 3 (a window of 1, 2 or 4 adds nothing: those offsets are powers
    of 2 already); layers 1 to 6, so for each n the page shows that ⌈log2 n⌉ layers (4 for
    n = 16, 5 for n = 32) connect every position to every earlier one and one layer fewer
    does not).

    Lecture 11b.
    """
    return {"n": [16, 32], "local": [0, 3], "layers": [1, 2, 3, 4, 5, 6]}


def logsparse_widget(n: int = 32, local: int = 0, layers: int = 1):
    """Sliders for n, the local window and the number of stacked layers: the LogSparse mask
    and which earlier positions reach each query through that many layers.

    Lecture 11b; Li et al. 2019 Figure 3.
    """
    check_positive_int("n", n)
    check_non_negative_int("local", local)
    check_positive_int("layers", layers)
    if not (4 <= n <= 64 and local <= 8 and layers <= 8):
        raise ValueError(f"the sliders offer n in 4..64, local in 0..8, layers in 1..8, got "
                         f"n={n}, local={local}, layers={layers}")  # fmt: skip
    w = require_ipywidgets()
    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place

    def render(n: int, local: int, layers: int) -> Figure:
        panels = _logsparse_panels(n, local, layers)
        if not kept:
            fig = Figure(figsize=(9, 4.2))
            KeptCanvas(fig)
            for ax, (matrix, title) in zip(fig.subplots(1, 2), panels, strict=True):
                plot_mask(matrix, ax=ax, show="none", title=title)
                # what the controls change, and the spines drawn over the mask
                for artist in (ax.images[0], ax.title, *ax.spines.values()):
                    artist.set_animated(True)
            kept.append(fig)
        fig = kept[0]
        for ax, (matrix, title) in zip(fig.axes, panels, strict=True):
            image = ax.images[0]
            image.set_data(matrix.numpy().astype(float))  # as plot_mask draws it
            image.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))  # imshow's: the limits follow
            ax.set_title(title)
        # The layout depends on the words around the panels: the ticks (n) and the titles, by
        # how far they rise above their panels.
        canvas = fig.canvas
        canvas.reset_layout()
        renderer = canvas.get_renderer()
        canvas.layout((n, *(KeptCanvas.title_rise(ax, renderer) for ax in fig.axes)))
        canvas.background = n  # the ticks
        return fig

    return figure_widget(
        render,
        {
            "n": w.IntSlider(value=n, min=4, max=64, description="n"),
            "local": w.IntSlider(value=local, min=0, max=8, description="local"),
            "layers": w.IntSlider(value=layers, min=1, max=8, description="layers"),
        },
    )


def plot_depth_table(
    tables: Mapping[str, Mapping[str, Sequence[float]]],
    ax: Axes | None = None,
    *,
    key: str = "steps",
    ylabel: str | None = None,
    title: str | None = None,
) -> Axes:
    """Bars per chain depth, one colour per model: ``tables[label][key]`` against
    ``tables[label]["depth"]`` (the output of ``lecturekit.experiments.variants.depth_table``).

    Lecture 11b.
    """
    check_mapping("tables", tables, "label -> depth table")
    ax = get_axes(ax)
    width = 0.8 / len(tables)
    for i, (label, table) in enumerate(tables.items()):
        if key not in table or "depth" not in table:
            raise ValueError(f"tables[{label!r}] must have 'depth' and {key!r}")
        x = np.asarray(table["depth"], dtype=float) + (i - (len(tables) - 1) / 2) * width
        ax.bar(x, table[key], width, label=label, color=palette()[i % len(palette())])
    ax.set_xticks(next(iter(tables.values()))["depth"])
    ax.set(xlabel="chain depth (look-ups needed)", ylabel=ylabel or key, title=title)
    ax.legend(frameon=False)
    return ax


def plot_act_tokens(
    labels: Sequence[str],
    steps: Sequence[float] | torch.Tensor,
    depth: Sequence[int] | torch.Tensor,
    ax: Axes | None = None,
    *,
    title: str | None = None,
) -> Axes:
    """One sequence: a bar per token, its ACT steps, coloured by its chain depth.

    Lecture 11b; Dehghani et al. 2019 Figure 4 (ponder time per position).
    """
    s = to_numpy("steps", steps, 1, numeric=True)
    dp = to_numpy("depth", depth, 1, numeric=True).astype(int)
    if len(labels) != len(s) or len(dp) != len(s):
        raise ValueError(f"labels, steps and depth must have one length, got {len(labels)}, "
                         f"{len(s)}, {len(dp)}")  # fmt: skip
    ax = get_axes(ax)
    colours = palette()
    ax.bar(range(len(s)), s, color=[colours[d % len(colours)] for d in dp])
    for i, d in enumerate(dp):
        ax.text(i, s[i] + 0.05, f"d{d}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(s)), list(labels))
    ax.set(xlabel="token (v = value, → = pointer to position)", ylabel="ACT steps", title=title,
           ylim=(0, max(s.max(), 1) + 0.8))  # fmt: skip
    return ax


def _redraw_act_tokens(
    ax: Axes,
    labels: Sequence[str],
    steps: Sequence[float] | torch.Tensor,
    depth: Sequence[int] | torch.Tensor,
    title: str,
) -> None:
    """``plot_act_tokens`` again on the Axes it drew a sequence of as many tokens on: the bars,
    their words, the tokens, the limits and the title set in place, as it sets them."""
    s = to_numpy("steps", steps, 1, numeric=True)
    dp = to_numpy("depth", depth, 1, numeric=True).astype(int)
    colours = palette()
    for i, (bar, text) in enumerate(zip(ax.patches, ax.texts, strict=True)):
        bar.set_height(s[i])
        bar.set_facecolor(colours[dp[i] % len(colours)])
        text.set(position=(i, s[i] + 0.05), text=f"d{dp[i]}")
    ax.set_xticks(range(len(s)), list(labels))
    ax.set(title=title, ylim=(0, max(s.max(), 1) + 0.8))


def _token_labels(ids: torch.Tensor, n_values: int) -> list[str]:
    return [f"v{int(t)}" if t < n_values else f"→{int(t) - n_values}" for t in ids]


def act_widget(model: UniversalTransformer, ids: torch.Tensor, depth: torch.Tensor):
    """A sequence picker over ``ids`` (N, T): each token's ACT steps, coloured by chain depth.

    Lecture 11b.
    """
    check_instance("model", model, UniversalTransformer)
    ids = torch.as_tensor(ids)
    check_shapes(
        {"ids": ids, "depth": torch.as_tensor(depth)}, {"ids": "int: N T", "depth": "any: N T"}
    )
    with torch.no_grad():
        steps = model.eval()(ids).steps
    n_values = model.config.num_classes
    w = require_ipywidgets()

    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place

    def render(sequence: int) -> Figure:
        labels = _token_labels(ids[sequence], n_values)
        title = f"sequence {sequence}"
        if not kept:
            fig = Figure(figsize=(8, 3))
            KeptCanvas(fig)
            ax = fig.subplots()
            plot_act_tokens(labels, steps[sequence], depth[sequence], ax, title=title)
            # what the sequence changes: the bars, their words, the tokens under them (the x
            # axis) and the title; and the spines, drawn over the bars
            for artist in (*ax.patches, *ax.texts, ax.xaxis, ax.title, *ax.spines.values()):
                artist.set_animated(True)
            kept.append(fig)
        else:
            _redraw_act_tokens(kept[0].axes[0], labels, steps[sequence], depth[sequence], title)
        fig = kept[0]
        (ax,) = fig.axes
        # The layout depends on the words around the panel: the steps' ticks (the limits) and
        # the tokens under it, measured where a new Figure's panel is (the title, one line as
        # high in every sequence, and the labels stay; the bars and their words lie inside).
        canvas = fig.canvas
        canvas.reset_layout()
        below = ax.xaxis.get_tightbbox(canvas.get_renderer(), for_layout_only=True)
        canvas.layout((ax.get_ylim(), below.bounds))
        canvas.background = ax.get_ylim()  # the steps' ticks
        return fig

    slider = w.IntSlider(value=0, min=0, max=ids.shape[0] - 1, description="sequence")
    return figure_widget(render, {"sequence": slider})


def act_widget_grid(n_sequences: int) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``act_widget`` over ``n_sequences``
    sequences: every sequence.

    Lecture 11b.
    """
    check_positive_int("n_sequences", n_sequences)
    return {"sequence": list(range(n_sequences))}


def plot_compressed_weights(
    weights: torch.Tensor, stride: int, ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """The (n, m) weights of memory-compressed attention: each column is one compressed key
    made of ``stride`` original positions.

    Lecture 11b; Liu et al. 2018 section 4.2.2.
    """
    check_positive_int("stride", stride)
    arr = to_numpy("weights", weights, 2, wanted="(n, m)", numeric=True)
    ax = get_axes(ax)
    ax.imshow(arr, cmap="Blues", aspect="auto", interpolation="nearest", vmin=0)
    n, m = arr.shape
    ax.set(xlabel=f"compressed key (covers {stride} positions)", ylabel="query i",
           title=title or f"{n} × {m} = {n * m} scores (full: {n * n})")  # fmt: skip
    return ax


def compressed_widget(n: int = 24, d: int = 8, seed: int = 0):
    """A stride slider: the weights of a random memory-compressed attention on n seeded tokens
    (stride 1 keeps all n keys).

    Lecture 11b; Liu et al. 2018 section 4.2.2.
    """
    check_positive_int("n", n)
    check_positive_int("d", d)
    check_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(1, n, d, generator=gen)
    w = require_ipywidgets()

    def render(stride: int) -> Figure:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            mca = MemoryCompressedAttention(d, stride)
        with torch.no_grad():
            _, weights = mca(x, x, x)
        fig = Figure(figsize=(6, 4))
        plot_compressed_weights(weights[0], stride, fig.subplots())
        fig.tight_layout()
        return fig

    return figure_widget(render, {"stride": w.IntSlider(value=1, min=1, max=min(8, n),
                                                        description="stride")})  # fmt: skip


def compressed_widget_grid(n: int = 24) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``compressed_widget(n)``: every stride its
    slider offers (1 to min(8, n)).

    Lecture 11b.
    """
    check_positive_int("n", n)
    return {"stride": list(range(1, min(8, n) + 1))}


def plot_series_attention(
    x: torch.Tensor,
    weights: torch.Tensor,
    query: int,
    ax: Axes | None = None,
    *,
    title: str | None = None,
) -> Axes:
    """A series x (n,) as a line and the weights (n,) of one query as bars below it.

    Lecture 11b; Li et al. 2019 Figure 1.
    """
    xs = to_numpy("x", x, 1, numeric=True)
    ws = to_numpy("weights", weights, 1, numeric=True)
    if ws.shape != xs.shape:
        raise ValueError(f"weights must have the shape of x {xs.shape}, got {ws.shape}")
    check_index("query", query, len(xs))
    ax = get_axes(ax)
    ax.plot(range(len(xs)), xs, color=palette()[0], marker=".", label="series")
    ax.plot([query], [xs[query]], "o", color=palette()[1], ms=9, label=f"query t={query}")
    low = float(xs.min()) - 0.1
    scale = 0.8 * (float(xs.max()) - low) / max(float(ws.max()), 1e-9)
    ax.bar(range(len(ws)), ws * scale, bottom=low - 0.8 * (float(xs.max()) - low),
           color=palette()[2], alpha=0.8, label="attention weight")  # fmt: skip
    ax.set(xlabel="time t", yticks=[], title=title)
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    return ax
