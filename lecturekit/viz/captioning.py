"""Lecture 09a plots and widget: scenes with their captions, one attention map per written
word over the image (the slides' picture of "Show, attend and tell"), where the words look.

Public API::

    plot_scenes(images, captions, boxes=None, ncols=4, fig=None)   # a grid of captioned scenes
    plot_word_maps(image, words, weights, boxes=None, cells=None, fig=None)
    #   one panel per word: its weights a_t (N cells) over the image, the digits' boxes, the
    #   cell it read (a marker: hard attention's sample)
    plot_localisation(rates, labels, chance, ax=None)              # hit rates against chance
    plot_mass_by_word(table, ax=None)                              # mass_by_word as stacked bars
    captioning_widget(images, results, boxes=None)                 # scene, word, soft / hard
    captioning_widget_grid(n_scenes)                               # the values a static page offers

Every map is drawn with lecture 09's ``plot_cls_attention`` (the image's ink outlined in white
over the map's colours).

Lecture 09a; Xu et al. 2015 Figures 1-3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from lecturekit.utils.checks import check_positive_int, check_range, check_strings, shape_of
from lecturekit.viz.helpers import check_figure, get_axes, require_ipywidgets, to_numpy
from lecturekit.viz.plots import plot_bars
from lecturekit.viz.style import ACCENT, GUIDE
from lecturekit.viz.vit import plot_cls_attention, plot_ink_outline
from lecturekit.viz.widgets import figure_widget

__all__ = [
    "plot_scenes",
    "plot_word_maps",
    "plot_localisation",
    "plot_mass_by_word",
    "captioning_widget",
    "captioning_widget_grid",
]

_BOX_COLOURS = ("#E69F00", "#56B4E9")  # Okabe-Ito orange (named first), sky blue (second)
_MODES = ("soft", "hard")


def _images(images: object) -> np.ndarray:
    arr = to_numpy("images", images, 4)  # (B, 1, H, W)
    if arr.shape[1] != 1:
        raise ValueError(f"images must be (B, 1, H, W) grey scenes, got {arr.shape}")
    return arr[:, 0]


def _draw_boxes(ax: Axes, boxes: np.ndarray | None) -> None:
    if boxes is None:
        return
    for (top, left, bottom, right), colour in zip(boxes.tolist(), _BOX_COLOURS, strict=False):
        ax.add_patch(Rectangle((left - 0.5, top - 0.5), right - left, bottom - top, fill=False,
                               ec=colour, lw=1.6, ls="--"))  # fmt: skip


def _draw_cross(ax: Axes, cell: int, g: int, stride: float) -> None:
    """The cell hard attention sampled, as a cross (nothing for -1)."""
    if cell >= 0:
        r, c = divmod(int(cell), g)
        ax.plot((c + 0.5) * stride - 0.5, (r + 0.5) * stride - 0.5, marker="x", ms=9, mew=2.5,
                color=ACCENT)  # fmt: skip


def _boxes(boxes: object, n: int) -> np.ndarray | None:
    if boxes is None:
        return None
    arr = to_numpy("boxes", boxes, 3)
    if arr.shape[0] != n or arr.shape[2] != 4:
        raise ValueError(f"boxes must be ({n}, objects, 4), got {arr.shape}")
    return arr


def plot_scenes(
    images: object,
    captions: Sequence[str],
    boxes: object = None,
    ncols: int = 4,
    fig: Figure | None = None,
) -> Figure:
    """Scenes in a grid, each titled with its caption (and its objects' boxes if given).

    Args:
        images: (B, 1, H, W) in [0, 1].
        captions: B strings.
        boxes: (B, objects, 4) (top, left, bottom, right) or None.
        ncols: panels per row.

    Lecture 09a.
    """
    imgs = _images(images)
    captions = check_strings("captions", captions)
    if len(captions) != len(imgs):
        raise ValueError(f"captions must have one entry per image ({len(imgs)}), got "
                         f"{len(captions)}")  # fmt: skip
    check_positive_int("ncols", ncols)
    check_figure("fig", fig)
    box = _boxes(boxes, len(imgs))
    ncols = min(ncols, len(imgs))
    nrows = -(-len(imgs) // ncols)
    fig = fig or Figure(figsize=(2.4 * ncols, 2.6 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for k, ax in enumerate(axes):
        ax.set_axis_off()
        if k >= len(imgs):
            continue
        ax.imshow(imgs[k], cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
        _draw_boxes(ax, None if box is None else box[k])
        ax.set_title(captions[k], fontsize="medium")
    return fig


def plot_word_maps(
    image: object,
    words: Sequence[str],
    weights: object,
    boxes: object = None,
    cells: object = None,
    fig: Figure | None = None,
    *,
    ncols: int | None = None,
) -> Figure:
    """One panel per word: the weights a_t that word was written with, over the image.

    Args:
        image: (1, H, W) or (H, W), one scene.
        words: the L words written (e.g. ``caption.split() + ["<eos>"]``).
        weights: (L, N) the weights of each word over the N = g x g cells (row-major).
        boxes: (objects, 4) boxes drawn dashed (orange: the object named first), or None.
        cells: (L,) the cell each step read (hard attention's sample), marked with a cross,
            or None.
        ncols: panels per row (default all in one row).

    Lecture 09a; Xu et al. 2015 Figures 2-3.
    """
    words = check_strings("words", words)
    w = to_numpy("weights", weights, 2).astype(float)
    if w.shape[0] != len(words):
        raise ValueError(f"weights must be (L={len(words)}, N), one row per word, got {w.shape}")
    g = round(w.shape[1] ** 0.5)
    if g * g != w.shape[1]:
        raise ValueError(f"weights must cover a square grid of cells, got N={w.shape[1]}")
    img = to_numpy("image", image)
    if img.ndim == 3:
        img = img[0]
    if img.ndim != 2:
        raise ValueError(f"image must be (1, H, W) or (H, W), got {shape_of(image)}")
    box = None if boxes is None else _boxes(np.asarray(to_numpy("boxes", boxes, 2))[None], 1)[0]
    cell = None if cells is None else to_numpy("cells", cells, 1)
    if cell is not None and len(cell) != len(words):
        raise ValueError(f"cells must be (L={len(words)},), got {cell.shape}")
    check_figure("fig", fig)
    ncols = len(words) if ncols is None else check_positive_int("ncols", ncols)
    nrows = -(-len(words) // ncols)
    fig = fig or Figure(figsize=(1.9 * ncols, 2.1 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    stride = img.shape[0] / g
    for k, ax in enumerate(axes):
        if k >= len(words):
            ax.set_axis_off()
            continue
        plot_cls_attention(img, w[k].reshape(g, g), ax, title=words[k], vmax=1.0)
        _draw_boxes(ax, box)
        if cell is not None:
            _draw_cross(ax, cell[k], g, stride)
    return fig


def plot_localisation(
    rates: Sequence[float], labels: Sequence[str], chance: float, ax: Axes | None = None
) -> Axes:
    """Hit rates (attended cell inside the named object's box) as bars, with the chance rate
    (the box's share of the cells) as a dashed line.

    Lecture 09a.
    """
    labels = check_strings("labels", labels)
    check_range("chance", chance, 0, 1)
    ax = plot_bars(rates, labels, get_axes(ax, (6, 3.5)), ylabel="share of digit words",
                   title="attended cell inside the named digit's box")  # fmt: skip
    ax.axhline(chance, color=GUIDE, ls="--", lw=1.5)
    ax.text(len(labels) - 0.5, chance, f"chance {chance:.2%}", ha="right", va="bottom",
            color=GUIDE, fontsize="small")  # fmt: skip
    return ax


def plot_mass_by_word(table: Mapping[str, Sequence[float]], ax: Axes | None = None) -> Axes:
    """``mass_by_word``'s table as stacked bars: for each word slot, the weight on the object
    named first, on the second object and on everything else.

    Lecture 09a.
    """
    if not isinstance(table, Mapping) or not table:
        raise ValueError(f"table must be a non-empty mapping slot -> (first, second, rest), "
                         f"got {type(table).__name__}")  # fmt: skip
    slots = list(table)
    values = to_numpy("table", [list(table[s]) for s in slots], 2)
    if values.shape[1] != 3:
        raise ValueError(f"table's rows must be (first, second, rest), got {values.shape}")
    ax = get_axes(ax, (7, 3.5))
    bottom = np.zeros(len(slots))
    names = ("object named first", "object named second", "elsewhere")
    for j, (name, colour) in enumerate(zip(names, (*_BOX_COLOURS, GUIDE), strict=True)):
        ax.bar(range(len(slots)), values[:, j], bottom=bottom, color=colour, label=name)
        bottom += values[:, j]
    ax.set_xticks(range(len(slots)))
    ax.set_xticklabels(slots)
    ax.set(ylim=(0, 1), ylabel="attention weight", title="where each word of the caption looks")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


def captioning_widget_grid(n_scenes: int) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``captioning_widget``
    over ``n_scenes`` scenes: control name -> values its controls offer.

    Lecture 09a.
    """
    check_positive_int("n_scenes", n_scenes)
    return {"scene": list(range(n_scenes)), "attention": list(_MODES)}


def captioning_widget(
    images: torch.Tensor,
    results: Mapping[str, tuple[Sequence[Sequence[str]], torch.Tensor, torch.Tensor]],
    boxes: torch.Tensor | None = None,
):
    """Pick a scene and soft or hard attention: every word the captioner wrote, each with its
    map (hard: the sampled cell marked), from precomputed results.

    Args:
        images: (B, 1, H, W) the scenes.
        results: "soft" and "hard" -> (words: B lists of the words written, weights (B, L, N),
            cells (B, L)), e.g. from ``caption_scenes`` on the same scenes.
        boxes: (B, objects, 4) or None.

    Returns:
        An ipywidgets VBox: the controls (scene, attention) and the image.

    Lecture 09a.
    """
    imgs = _images(images)
    if not isinstance(results, Mapping) or sorted(results) != sorted(_MODES):
        got = sorted(results) if isinstance(results, Mapping) else type(results).__name__
        raise ValueError(f"results must map {list(_MODES)} to (words, weights, cells), got {got}")
    for mode, (words, weights, cells) in results.items():
        if len(words) != len(imgs) or len(weights) != len(imgs) or len(cells) != len(imgs):
            raise ValueError(f"results[{mode!r}] must hold one entry per scene ({len(imgs)})")
    box = _boxes(boxes, len(imgs))
    w = require_ipywidgets()
    controls = {
        "scene": w.IntSlider(value=0, min=0, max=len(imgs) - 1, description="scene"),
        "attention": w.ToggleButtons(options=list(_MODES), value="soft", description="attention"),
    }

    kept: dict[int, Figure] = {}  # number of words -> its Figure, built on its first visit

    def render(scene: int, attention: str) -> Figure:
        words, weights, cells = results[attention]
        L = len(words[scene])
        scene_boxes = None if box is None else box[scene]
        cell = cells[scene][:L] if attention == "hard" else None
        title = f"{attention} attention: " + " ".join(words[scene])
        if L not in kept:
            kept[L] = plot_word_maps(imgs[scene], words[scene], weights[scene][:L], scene_boxes,
                                     cell)  # fmt: skip
            kept[L].suptitle(title)
            return kept[L]
        # The same panels, redrawn in place as plot_word_maps draws them on new Axes: the map,
        # the outline of the ink, the boxes, the cross, the word; each Axes put back where a
        # new Figure's layout starts from (the draw runs the constrained layout).
        fig = kept[L]
        img = (imgs[scene] / 255.0 if imgs.dtype == np.uint8 else imgs[scene]).astype(float)
        w = to_numpy("weights", weights[scene][:L], 2).astype(float)
        g = round(w.shape[1] ** 0.5)
        stride = img.shape[0] / g
        for k, ax in enumerate(fig.axes):
            for artist in [*ax.collections, *ax.patches, *ax.lines]:
                artist.remove()
            ax.images[-1].set_data(w[k].reshape(g, g))
            plot_ink_outline(ax, img)
            _draw_boxes(ax, scene_boxes)
            if cell is not None:
                _draw_cross(ax, cell[k], g, stride)
            ax.set_title(words[scene][k])
            ax.set_position(ax.get_subplotspec().get_position(fig))
            ax.set_in_layout(True)  # (set_position takes it out)
        fig.suptitle(title)
        return fig

    return figure_widget(render, controls)
