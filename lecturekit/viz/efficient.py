"""Lecture 11 plots and widget: LSH attention's four panels, cost curves, Transformer-XL reach.

Public API::

    plot_lsh_panels(q, k, n_buckets, chunk_size, seed=0, fig=None) -> Figure
    #   Kitaev et al. 2020 Figure 2 from real hashes: (a) pairs in the same bucket, Q ≠ K;
    #   (b) sorted by bucket; (c) Q = K, sorted, cut into equal chunks; (d) chunked attention
    lsh_panel_example(T=24, dim=16, n_clusters=4, seed=0) -> (q, k)   # the figure's toy data
    lsh_widget(q, k)                  # n_buckets, chunk size and hash seed redraw the panels
    lsh_widget_grid(T=24)             # the settings a static page pre-renders
    plot_cost_curves(ns, ys, ax=None, ylabel=..., title=...)           # log-log + n, n² guides
    plot_dependency(matrix, segment_len, ax=None, title=None)          # (T, T) bool, segments

Lecture 11; Kitaev et al. 2020 Figure 2; Dai et al. 2019 Figure 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from lecturekit.efficient.lsh import lsh_attention, lsh_hash, random_rotations
from lecturekit.efficient.sparsity import clustered_sequence
from lecturekit.utils.checks import check_choice, check_positive_int, check_seed
from lecturekit.utils.contracts import contract
from lecturekit.viz.helpers import check_figure, get_axes, require_ipywidgets, to_numpy
from lecturekit.viz.style import GUIDE, palette
from lecturekit.viz.widgets import FigureArtistStandIn, KeptCanvas, figure_widget

__all__ = [
    "lsh_panel_example",
    "plot_lsh_panels",
    "lsh_widget",
    "lsh_widget_grid",
    "plot_cost_curves",
    "plot_dependency",
]

_BUCKETS = (2, 4, 6, 8, 16)  # the choices of lsh_widget


def lsh_panel_example(
    T: int = 24, dim: int = 16, n_clusters: int = 4, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries and keys for the four panels: noisy copies of one clustered sequence
    (``clustered_sequence``), so q_i and k_i are related but not equal.

    Returns:
        q (T, dim) and k (T, dim).

    Lecture 11.
    """
    for name, value in (("T", T), ("dim", dim), ("n_clusters", n_clusters)):
        check_positive_int(name, value)
    check_seed(seed)
    x, _ = clustered_sequence(T, dim, n_clusters, noise=0.3, seed=seed)
    gen = torch.Generator().manual_seed(seed + 1)
    noise = x.norm(dim=-1, keepdim=True) / dim**0.5  # entries of x are about this large
    q = x + 0.4 * noise * torch.randn(T, dim, generator=gen)
    k = x + 0.4 * noise * torch.randn(T, dim, generator=gen)
    return q, k


def _bucket_colours(n_buckets: int) -> list[tuple[float, float, float, float]]:
    """One colour per bucket, Okabe-Ito repeated (neighbouring buckets always differ)."""
    colours = palette()
    return [to_rgba(colours[b % len(colours)]) for b in range(n_buckets)]


def _rgba(buckets: np.ndarray, colours) -> np.ndarray:
    """A (T, T) matrix of bucket ids (-1 = empty) as colours (empty: transparent), in bytes:
    those matplotlib makes of float colours (c * 255, truncated), so the pixels are the same;
    bytes are drawn 3x faster."""
    rgba = np.zeros((*buckets.shape, 4), dtype=np.uint8)
    for b, colour in enumerate(colours):
        rgba[buckets == b] = (np.asarray(colour) * 255).astype(np.uint8)
    return rgba


def _cells(ax: Axes, buckets: np.ndarray, colours, title: str) -> None:
    """Draw a (T, T) matrix of bucket ids (-1 = empty) as coloured cells, row 0 on top."""
    T = buckets.shape[0]
    ax.imshow(_rgba(buckets, colours), interpolation="nearest",
              extent=(-0.5, buckets.shape[1] - 0.5, T - 0.5, -0.5))  # fmt: skip
    ax.set(xticks=[], yticks=[], title=title)
    for spine in ax.spines.values():
        spine.set_visible(True)


def _chunk_grid(ax: Axes, T: int, chunk_size: int) -> None:
    for c in range(chunk_size, T, chunk_size):
        ax.axhline(c - 0.5, color=GUIDE, lw=0.8, ls="--")
        ax.axvline(c - 0.5, color=GUIDE, lw=0.8, ls="--")


def _chunks(ax_c: Axes, ax_d: Axes, T: int, chunk_size: int) -> None:
    """The chunk boundaries on panels (c) and (d), and in (d) the keys each chunk of queries
    scores (its own chunk and the previous one, wrapping)."""
    _chunk_grid(ax_c, T, chunk_size)
    _chunk_grid(ax_d, T, chunk_size)
    n_chunks = T // chunk_size
    for c in range(n_chunks):
        for start in {c * chunk_size, ((c - 1) % n_chunks) * chunk_size}:
            ax_d.add_patch(Rectangle((start - 0.5, c * chunk_size - 0.5), chunk_size,
                                     chunk_size, fill=False, ec=GUIDE, lw=1.6))  # fmt: skip


def _lsh_cells(
    q: torch.Tensor, k: torch.Tensor, n_buckets: int, chunk_size: int, seed: int
) -> tuple[list[np.ndarray], list[int]]:
    """What the four panels of ``plot_lsh_panels`` show: their (T, T) matrices of bucket ids
    (-1 = empty), and the buckets that occur."""
    T = q.shape[0]
    R = random_rotations(q.shape[1], n_buckets, 1, seed)
    hq, hk = lsh_hash(q, n_buckets, rotations=R)[0], lsh_hash(k, n_buckets, rotations=R)[0]
    result = lsh_attention(q, q, n_buckets, chunk_size, rotations=R)
    h, order = result.buckets[0], result.order[0]
    same = torch.where(hq[:, None] == hk[None, :], hq[:, None].expand(T, T), -1)  # (T, T)
    q_order = (hq * T + torch.arange(T)).argsort()
    k_order = (hk * T + torch.arange(T)).argsort()
    shared = torch.where(h[:, None] == h[None, :], h[:, None].expand(T, T), -1)[order][:, order]
    attended = result.allowed[order][:, order]  # (T, T) in sorted order
    chunked = torch.where(attended, h[order][:, None].expand(T, T), -1)
    cells = [same, same[q_order][:, k_order], shared, chunked]
    used = sorted(set(hq.tolist()) | set(hk.tolist()) | set(h.tolist()))
    return [c.numpy() for c in cells], used


def _lsh_titles(chunk_size: int) -> tuple[str, str, str, str]:
    """The four panels' titles."""
    return ("(a) same bucket, Q ≠ K", "(b) sorted by bucket", f"(c) Q = K, chunks of {chunk_size}",
            "(d) own + previous chunk")  # fmt: skip


def _bucket_legend(fig: Figure, used: Sequence[int], colours) -> None:
    """A colour patch for each bucket that occurs, below the panels."""
    handles = [Patch(color=colours[b], label=f"bucket {b}") for b in used]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(used), 8), frameon=False)


def plot_lsh_panels(
    q: torch.Tensor,
    k: torch.Tensor,
    n_buckets: int,
    chunk_size: int,
    seed: int = 0,
    fig: Figure | None = None,
    *,
    ncols: int = 4,
) -> Figure:
    """The four steps of LSH attention (Kitaev et al. 2020 Figure 2), from real hashes.

    Cell (i, j) is coloured with the bucket of query i when i may attend to key j:
    (a) the pairs with h(q_i) = h(k_j), in the original order; (b) rows sorted by the query's
    bucket, columns by the key's: blocks of uneven size, off the diagonal; (c) with shared
    Q = K (Reformer), sorted by (bucket, position): square blocks on the diagonal, cut into
    equal chunks; (d) what ``lsh_attention`` attends to: within the own and the previous chunk,
    in the own bucket, never to itself (the empty diagonal).

    Args:
        q, k: (T, D) queries and keys for (a) and (b); (c) and (d) use q as the shared vectors.
        n_buckets, chunk_size, seed: as in ``lsh_attention`` (one hash round).
        fig: draw into this figure (default: a new 12 x 3.6 in figure).
        ncols: 4 (one row) or 2 (a 2 x 2 grid).

    Lecture 11; Kitaev et al. 2020 Figure 2.
    """
    check_choice("ncols", ncols, (2, 4))
    check_figure("fig", fig)
    q = to_numpy("q", q, 2, numeric=True, wanted="(T, D)")
    k = to_numpy("k", k, 2, numeric=True, wanted="(T, D)")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape (T, D), got {q.shape} and {k.shape}")
    q, k = torch.as_tensor(q, dtype=torch.float32), torch.as_tensor(k, dtype=torch.float32)
    T = q.shape[0]
    cells, used = _lsh_cells(q, k, n_buckets, chunk_size, seed)
    colours = _bucket_colours(n_buckets)
    if fig is None:
        fig = plt.figure(figsize=(12, 3.6) if ncols == 4 else (7.5, 7.5))
    axes = fig.subplots(4 // ncols, ncols).flatten()
    for ax, buckets, title in zip(axes, cells, _lsh_titles(chunk_size), strict=True):
        _cells(ax, buckets, colours, title)
    axes[1].plot([-0.5, T - 0.5], [-0.5, T - 0.5], color=GUIDE, lw=0.8)  # blocks miss it
    _chunks(axes[2], axes[3], T, chunk_size)
    for ax in axes[:2]:
        ax.set(xlabel="keys", ylabel="queries")
    for ax in axes[2:]:
        ax.set(xlabel="keys (sorted)", ylabel="queries (sorted)")
    _bucket_legend(fig, used, colours)
    fig.tight_layout(rect=(0, 0.1 if ncols == 4 else 0.06, 1, 1))
    return fig


def _chunk_sizes(T: int) -> list[int]:
    """The chunk sizes ``lsh_widget`` offers for T tokens: those of 2..12 that divide T."""
    return [c for c in (2, 3, 4, 6, 8, 12) if T % c == 0 and c < T]


def lsh_widget_grid(T: int = 24) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``lsh_widget`` on T
    tokens: control name -> values (24 settings for T = 24: buckets 2, 4, 8, 16, so the
    blocks shrink; chunks of 2, 4 and 12 (those of them that divide T, else every size the
    widget offers), so fewer pairs are cut off (with 12 of 24, none); hash seeds 0 and 1, two
    random rotations of the same vectors).

    Lecture 11.
    """
    check_positive_int("T", T)
    offered = _chunk_sizes(T)
    if not offered:
        raise ValueError(f"T={T} has no chunk size lsh_widget offers (2..12 dividing T)")
    chunks = [c for c in offered if c in (2, 4, 12)] or offered
    return {"n_buckets": [2, 4, 8, 16], "chunk_size": chunks, "seed": [0, 1]}


@contract(q="T D", k="T D")
def lsh_widget(
    q: torch.Tensor, k: torch.Tensor, n_buckets: int = 4, chunk_size: int = 4, seed: int = 0
):
    """Sliders for the number of buckets, the chunk size and the hash seed; the four panels
    redraw (every seed is a different random rotation R).

    The first values must be ones the controls offer: ``n_buckets`` one of 2, 4, 6, 8, 16,
    ``seed`` in 0..9.

    Lecture 11.
    """
    check_choice("n_buckets", n_buckets, _BUCKETS)
    check_choice("seed", seed, range(10))
    w = require_ipywidgets()
    T = q.shape[0]
    chunk_sizes = _chunk_sizes(T)
    if chunk_size not in chunk_sizes:
        raise ValueError(f"chunk_size={chunk_size} must divide T={T}, one of {chunk_sizes}")

    # q and k as plot_lsh_panels takes them
    q32, k32 = (torch.as_tensor(to_numpy(name, x, 2, numeric=True), dtype=torch.float32)
                for name, x in (("q", q), ("k", k)))  # fmt: skip
    kept: dict[str, object] = {}  # the Figure (built by the first render), what it shows now

    def render(n_buckets: int, chunk_size: int, seed: int) -> Figure:
        cells, used = _lsh_cells(q32, k32, n_buckets, chunk_size, seed)
        colours = _bucket_colours(n_buckets)
        if not kept:
            fig = Figure(figsize=(12, 3.6))
            KeptCanvas(fig)
            plot_lsh_panels(q, k, n_buckets, chunk_size, seed, fig=fig)
            legend = fig.axes[3].add_artist(FigureArtistStandIn(fig.legends[0]))
            # the cells, the lines and boxes over them, and the spines drawn over them; of the
            # words, the chunk size's title and the legend (the others never change)
            for ax in fig.axes:
                for artist in [*ax.images, *ax.lines, *ax.patches, *ax.spines.values()]:
                    artist.set_animated(True)
            fig.axes[2].title.set_animated(True)
            # The layout stays plot_lsh_panels': the words around the panels are the same in
            # every setting but panel (c)'s title, one line as high as the others' (and
            # tight_layout takes a title as one pixel wide).
            fig.canvas.background = "the panels' titles and labels"
            kept.update(fig=fig, legend=legend, chunk_size=chunk_size, used=used)
            return fig
        fig = kept["fig"]
        axes = fig.axes
        for ax, buckets in zip(axes, cells, strict=True):
            ax.images[0].set_data(_rgba(buckets, colours))
        if chunk_size != kept["chunk_size"]:
            for artist in [*axes[2].lines, *axes[3].lines, *axes[3].patches]:
                artist.remove()  # the previous chunks
            _chunks(axes[2], axes[3], T, chunk_size)
            for artist in [*axes[2].lines, *axes[3].lines, *axes[3].patches]:
                artist.set_animated(True)
            axes[2].set_title(_lsh_titles(chunk_size)[2])
            kept["chunk_size"] = chunk_size
        if used != kept["used"]:  # (a bucket's colour does not depend on n_buckets)
            fig.legends[0].remove()
            _bucket_legend(fig, used, colours)
            kept["legend"].set_artist(fig.legends[0])
            kept["used"] = used
        return fig

    return figure_widget(
        render,
        {
            "n_buckets": w.Dropdown(options=list(_BUCKETS), value=n_buckets,
                                    description="buckets"),
            "chunk_size": w.Dropdown(options=chunk_sizes, value=chunk_size, description="chunk"),
            "seed": w.IntSlider(value=seed, min=0, max=9, description="hash seed"),
        },
    )  # fmt: skip


def plot_cost_curves(
    ns: Sequence[int],
    ys: Mapping[str, Sequence[float]],
    ax: Axes | None = None,
    *,
    ylabel: str | None = None,
    title: str | None = None,
    guides: bool = True,
    styles: Mapping[str, Mapping[str, object]] | None = None,
) -> Axes:
    """Cost per variant over n on log-log axes, with dotted guides of slope 1 (∝ n) and 2
    (∝ n²) through the first point of the lowest curve. ``styles`` maps a label to extra
    ``Axes.plot`` keywords (e.g. ``{"local (band mask)": {"ls": "--"}}`` for a curve that
    lies on another one).

    Lecture 11.
    """
    x = to_numpy("ns", ns, 1, numeric=True)
    if not isinstance(ys, Mapping):
        raise ValueError(f"ys must be a mapping label -> costs (a dict), got {type(ys).__name__}")
    ax = get_axes(ax)
    for label, y in ys.items():
        y = np.asarray(y, dtype=float)
        if y.shape != x.shape:
            raise ValueError(f"ys[{label!r}] has {y.shape[0]} values but there are {len(x)} ns")
        ax.plot(x, y, marker="o", label=label, **dict((styles or {}).get(label, {})))
    if guides and ys:
        y0 = min(float(np.asarray(y, dtype=float)[0]) for y in ys.values())
        ax.plot(x, y0 * x / x[0], ls=":", color=GUIDE, label="∝ n")
        ax.plot(x, y0 * (x / x[0]) ** 2, ls="--", color=GUIDE, label="∝ n²")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(x), [str(int(n)) for n in x])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set(xlabel="sequence length n", ylabel=ylabel, title=title)
    return ax


def plot_dependency(
    matrix: torch.Tensor, segment_len: int, ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """A (T, T) bool matrix (output t depends on input p) with the segment boundaries (a
    numeric matrix is read as nonzero = depends).

    Lecture 11; Dai et al. 2019 Figure 2.
    """
    check_positive_int("segment_len", segment_len)
    arr = to_numpy("matrix", matrix, 2, wanted="(T, T)").astype(bool)
    T = arr.shape[0]
    ax = get_axes(ax)
    rgba = np.zeros((*arr.shape, 4))
    rgba[arr] = to_rgba(palette()[0])  # dependent: blue; independent: the background
    ax.imshow(rgba, interpolation="nearest")
    for spine in ax.spines.values():
        spine.set_visible(True)
    for s in range(segment_len, T, segment_len):
        ax.axhline(s - 0.5, color=GUIDE, lw=1)
        ax.axvline(s - 0.5, color=GUIDE, lw=1)
    ticks = list(range(0, T, segment_len))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set(xlabel="input position p", ylabel="output position t", title=title)
    return ax
