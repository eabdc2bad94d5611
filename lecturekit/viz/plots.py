"""Pure plot functions: each takes data (tensor or array) and ``ax=None``, draws, returns the Axes
(or the Figure for multi-panel plots). They never show, save or change global settings.

Data may be a tensor (detached if it requires grad), a numpy array or nested lists of numbers.
NaN and +-inf cells of a heatmap are drawn empty (e.g. masked scores), not refused; bad input
(wrong rank, labels of the wrong length, strings, an ``ax`` that is not an Axes) raises a
ValueError naming the argument before anything is drawn.

Public API::

    plot_attention(weights, row_labels=None, col_labels=None, ax=None, ...)   # (Tq, Tk) heatmap
    plot_heads(weights, labels=None, fig=None, ncols=4, ...) -> Figure        # (H, Tq, Tk) grid
    plot_heatmap(matrix, ax=None, ...)                                        # any 2-D values
    plot_lines(x, ys, ax=None, ...)                                           # {label: y}
    plot_bars(values, labels=None, ax=None, ...)                              # e.g. softmax output
    plot_mask(mask, labels=None, ax=None, ...)                                # M of 0 / -inf
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from lecturekit.utils.checks import check_choice, check_positive_int
from lecturekit.viz.helpers import check_figure, check_labels, check_numbers, get_axes, to_numpy
from lecturekit.viz.style import ATTENTION_CMAP, DIVERGING_CMAP

__all__ = ["plot_attention", "plot_heads", "plot_heatmap", "plot_lines", "plot_bars", "plot_mask"]


def _annotate(ax: Axes, arr: np.ndarray, texts: np.ndarray, image) -> None:
    """Write texts[i, j] on each cell in black or white, whichever reads on the cell colour."""
    rgba = image.cmap(image.norm(arr))
    luminance = 0.2126 * rgba[..., 0] + 0.7152 * rgba[..., 1] + 0.0722 * rgba[..., 2]
    for (i, j), text in np.ndenumerate(texts):
        colour = "black" if luminance[i, j] > 0.5 else "white"
        ax.text(j, i, text, ha="center", va="center", color=colour, fontsize="small")


def plot_heatmap(
    matrix: object,
    ax: Axes | None = None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    cmap: str | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    diverging: bool = False,
    colorbar: bool = True,
    annotate: bool = False,
    fmt: str = ".2f",
    interpolation: str = "nearest",
) -> Axes:
    """Heatmap of a 2-D matrix, row 0 at the top. ``diverging=True`` centres the colour map on
    0 (for signed values such as positional encodings). Use ``interpolation="antialiased"`` for
    matrices with more columns than the axes has pixels (e.g. 512 dims), which otherwise show
    false stripes (aliasing). NaN and +-inf cells are drawn empty (the colour scale ignores
    them)."""
    arr = check_numbers("matrix", to_numpy("matrix", matrix, 2)).astype(float)
    check_labels("yticklabels", yticklabels, arr.shape[0])
    check_labels("xticklabels", xticklabels, arr.shape[1])
    ax = get_axes(ax)
    if diverging and vmin is None and vmax is None:
        finite = np.abs(arr[np.isfinite(arr)])
        vmax = float(finite.max()) if finite.size else 1.0
        vmin = -vmax
    image = ax.imshow(
        arr,
        cmap=cmap or (DIVERGING_CMAP if diverging else ATTENTION_CMAP),
        vmin=vmin,
        vmax=vmax,
        aspect="auto",
        interpolation=interpolation,
    )
    for labels, set_ticks, set_labels, rotation in (
        (xticklabels, ax.set_xticks, ax.set_xticklabels, 45),
        (yticklabels, ax.set_yticks, ax.set_yticklabels, 0),
    ):
        if labels is not None:
            set_ticks(range(len(labels)))
            set_labels(labels, rotation=rotation, ha="right")
    if xticklabels is None:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if yticklabels is None:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if annotate:
        texts = np.vectorize(lambda v: format(v, fmt))(arr)
        _annotate(ax, arr, texts, image)
    if colorbar:
        ax.figure.colorbar(image, ax=ax)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    return ax


def plot_attention(
    weights: object,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    annotate: bool | None = None,
    colorbar: bool = False,
    cmap: str | None = None,
) -> Axes:
    """Attention weights (Tq, Tk) as a heatmap: row = query (attends from), column = key.

    Colour scale fixed to [0, 1] so different maps compare. ``annotate=None`` writes the
    weights in the cells when the map is small (<= 12 x 12).
    """
    arr = check_numbers("weights", to_numpy("weights", weights, 2, wanted="(Tq, Tk)"))
    check_labels("row_labels", row_labels, arr.shape[0])
    check_labels("col_labels", col_labels, arr.shape[1])
    if annotate is None:
        annotate = max(arr.shape) <= 12
    ax = plot_heatmap(
        arr,
        ax,
        xticklabels=col_labels,
        yticklabels=row_labels,
        cmap=cmap,
        vmin=0.0,
        vmax=1.0,
        colorbar=colorbar,
        annotate=annotate,
        title=title,
        xlabel="key (attended to)",
        ylabel="query",
    )
    return ax


def plot_heads(
    weights: object,
    labels: Sequence[str] | None = None,
    fig: Figure | None = None,
    *,
    ncols: int = 4,
    titles: Sequence[str] | None = None,
    annotate: bool = False,
) -> Figure:
    """One attention map per head: weights (H, Tq, Tk) -> a grid of ``plot_attention``.

    ``labels`` label both axes (self-attention).
    """
    arr = check_numbers("weights", to_numpy("weights", weights, 3, wanted="(H, Tq, Tk)"))
    H = arr.shape[0]
    check_labels("titles", titles, H)
    if labels is not None:
        if arr.shape[1] != arr.shape[2]:
            raise ValueError(f"labels label both axes (self-attention), but the maps are "
                             f"{arr.shape[1]} x {arr.shape[2]}")  # fmt: skip
        check_labels("labels", labels, arr.shape[1])
    check_positive_int("ncols", ncols)
    check_figure("fig", fig)
    ncols = min(ncols, H)
    nrows = math.ceil(H / ncols)
    if fig is None:
        fig = plt.figure(figsize=(3.2 * ncols, 3.0 * nrows + 0.3))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for h, ax in enumerate(axes.flat):
        if h >= H:
            ax.axis("off")
            continue
        plot_attention(
            arr[h],
            labels,
            labels,
            ax,
            annotate=annotate,
            title=titles[h] if titles else f"head {h + 1}",
        )
        if h % ncols:
            ax.set_ylabel(None)
        if h < H - ncols:
            ax.set_xlabel(None)
    fig.tight_layout()
    return fig


def plot_lines(
    x: object,
    ys: Mapping[str, object],
    ax: Axes | None = None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    marker: str | None = None,
    legend: bool = True,
) -> Axes:
    """Several curves over one x: ``ys`` maps a legend label to y values (same length as x)."""
    if not isinstance(ys, Mapping):
        raise ValueError(f"ys must be a mapping label -> y values (a dict), got "
                         f"{type(ys).__name__}")  # fmt: skip
    xs = to_numpy("x", x, 1)
    ax = get_axes(ax)
    for label, y in ys.items():
        ya = to_numpy(f"ys[{label!r}]", y, 1)
        if ya.shape != xs.shape:
            raise ValueError(f"ys[{label!r}] has shape {ya.shape} but x has shape {xs.shape}")
        ax.plot(xs, ya, marker=marker, label=label)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    if legend and ys:
        ax.legend()
    return ax


def plot_bars(
    values: object,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    ylabel: str | None = None,
    ylim: tuple[float, float] | None = (0.0, 1.0),
    fmt: str = ".2f",
) -> Axes:
    """Bar chart with the value written above each bar (e.g. softmax probabilities)."""
    arr = check_numbers("values", to_numpy("values", values, 1))
    check_labels("labels", labels, arr.shape[0])
    pair = isinstance(ylim, (tuple, list)) and len(ylim) == 2
    if ylim is not None and not (pair and all(isinstance(v, numbers.Real) for v in ylim)):
        raise ValueError(f"ylim must be None or (low, high), got {ylim!r}")
    ax = get_axes(ax)
    bars = ax.bar(range(len(arr)), arr)
    ax.bar_label(bars, labels=[format(v, fmt) for v in arr], padding=2, fontsize="small")
    ax.set_xticks(range(len(arr)))
    if labels is not None:
        ax.set_xticklabels(labels)
    if ylim is not None:
        ax.set_ylim(ylim[0], ylim[1] * 1.12)
    ax.set(title=title, ylabel=ylabel)
    return ax


def plot_mask(
    mask: object,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    show: str = "M",
) -> Axes:
    """A bool mask (Tq, Tk), True = may attend. ``show="M"`` writes the slides' additive matrix
    (0 where allowed, -inf where masked); ``show="bool"`` writes 1/0; ``show="none"`` nothing."""
    check_choice("show", show, ("M", "bool", "none"))
    arr = to_numpy("mask", mask, 2)
    if arr.dtype != bool:
        raise ValueError(f"mask must be bool (True = may attend), got dtype {arr.dtype}")
    check_labels("labels", labels, arr.shape[0])
    ax = plot_heatmap(
        arr.astype(float),
        ax,
        xticklabels=labels if labels is None or len(labels) == arr.shape[1] else None,
        yticklabels=labels,
        cmap="Greys_r",
        vmin=-0.4,
        vmax=1.0,
        colorbar=False,
        title=title,
        xlabel="key",
        ylabel="query",
    )
    if show != "none":
        texts = np.where(arr, "0", "\u2212\u221e") if show == "M" else np.where(arr, "1", "0")
        for (i, j), text in np.ndenumerate(texts):
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize="small",
                color="black" if arr[i, j] else "white",
            )
    return ax
