"""Lecture 09 plots and widget: patches, position-embedding similarity, [CLS] attention maps.

Public API::

    plot_patch_grid(image, patch_size, ax=None)          # the image cut into numbered patches
    plot_patch_sequence(image, patch_size, ax=None)      # [CLS] + the patches as a token row
    plot_position_similarity(pos_embed, grid, fig=None)  # ViT paper Figure 7 (centre)
    plot_cls_attention(image, attention_map, ax=None)    # a (gh, gw) map over the image
    attention_overview(images, weights, grid)            # images x (layers + rollout) -> Figure
    vit_attention_widget(images, weights, grid, labels=None, predictions=None)
    #   pick an image, a layer (or rollout) and a head (or the mean): the overlay redraws
    vit_attention_widget_grid(num_layers, images=(0, 1, 3, 5))  # what a static page offers

``image`` is (C, H, W) or (H, W); one channel is drawn in grey (ink dark), three as RGB. Pixel
values are floats in [0, 1], or uint8 in 0..255 (divided by 255: images straight from a file
or numpy work too).
Patches and tokens are numbered as in the paper's Figure 1: token 0 is [CLS], token 1 + i is
patch i in row-major order.

Lecture 09; Dosovitskiy et al. 2021 Figures 1, 6 and 7; Abnar & Zuidema 2020.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from lecturekit.models.vit import attention_rollout
from lecturekit.patches import cls_attention, position_similarity
from lecturekit.utils.checks import (
    as_pair,
    check_non_negative_int,
    check_positive_int,
    shape_of,
)
from lecturekit.utils.contracts import check_shapes
from lecturekit.viz.helpers import (
    check_figure,
    check_labels,
    check_list,
    check_numbers,
    get_axes,
    require_ipywidgets,
    to_numpy,
)
from lecturekit.viz.style import ACCENT, ATTENTION_CMAP, DIVERGING_CMAP, rc
from lecturekit.viz.widgets import KeptCanvas, figure_widget

__all__ = [
    "plot_patch_grid",
    "plot_patch_sequence",
    "plot_position_similarity",
    "plot_cls_attention",
    "plot_ink_outline",
    "attention_overview",
    "vit_attention_widget",
    "vit_attention_widget_grid",
]

_GRID_COLOUR = ACCENT  # visible on grey digits and on viridis


def _image(image: object) -> np.ndarray:
    """(C, H, W) or (H, W) -> (H, W) for grey or (H, W, 3) for RGB, as numpy floats (uint8
    pixels 0..255 scaled to [0, 1])."""
    arr = check_numbers("image", to_numpy("image", image))
    if arr.dtype == np.uint8:
        arr = arr / 255.0
    if arr.ndim == 3 and arr.shape[0] in (1, 3):
        arr = arr[0] if arr.shape[0] == 1 else arr.transpose(1, 2, 0)  # (3, H, W) -> (H, W, 3)
    elif arr.ndim != 2:
        raise ValueError(f"image must be (1, H, W), (3, H, W) or (H, W), got shape {arr.shape}")
    return arr.astype(float)


def _show(ax: Axes, img: np.ndarray, extent: tuple[float, float, float, float] | None = None):
    if img.ndim == 3:
        return ax.imshow(np.clip(img, 0, 1), extent=extent, interpolation="nearest")
    return ax.imshow(img, cmap="gray_r", extent=extent, interpolation="nearest", vmin=0)


def _patch_size(img: np.ndarray, patch_size: object) -> tuple[int, int]:
    ph, pw = as_pair("patch_size", patch_size)
    H, W = img.shape[:2]
    if H % ph or W % pw:
        raise ValueError(f"image size {H}x{W} is not divisible by patch_size {ph}x{pw}")
    return ph, pw


def plot_patch_grid(
    image: object,
    patch_size: int | tuple[int, int],
    ax: Axes | None = None,
    *,
    numbers: bool = True,
    title: str | None = None,
) -> Axes:
    """The image with the patch boundaries drawn and each patch numbered 1..N (row-major).

    Lecture 09; Dosovitskiy et al. 2021 Figure 1 (left).
    """
    img = _image(image)
    ph, pw = _patch_size(img, patch_size)
    H, W = img.shape[:2]
    ax = get_axes(ax)
    _show(ax, img)
    for y in np.arange(0, H + 1, ph) - 0.5:
        ax.axhline(y, color=_GRID_COLOUR, lw=2)
    for x in np.arange(0, W + 1, pw) - 0.5:
        ax.axvline(x, color=_GRID_COLOUR, lw=2)
    if numbers:
        for k in range((H // ph) * (W // pw)):
            row, col = divmod(k, W // pw)
            box = {"boxstyle": "square,pad=0.1", "fc": _GRID_COLOUR, "ec": "none"}
            ax.text(col * pw - 0.35, row * ph - 0.35, str(k + 1), ha="left", va="top",
                    fontsize="small", color="white", bbox=box)  # fmt: skip
    ax.set(xticks=[], yticks=[], title=title)
    return ax


def plot_patch_sequence(
    image: object,
    patch_size: int | tuple[int, int],
    ax: Axes | None = None,
    *,
    cls: bool = True,
    title: str | None = None,
) -> Axes:
    """The patches laid out as the token sequence the Transformer reads: [CLS] (position 0,
    learned, no pixels), then patch 1..N, each labelled with its position.

    Lecture 09; Dosovitskiy et al. 2021 Figure 1 (bottom row).
    """
    img = _image(image)
    ph, pw = _patch_size(img, patch_size)
    H, W = img.shape[:2]
    gap, step = 0.25, 1.25
    ax = get_axes(ax, figsize=(10, 1.8))
    offset = 0
    if cls:
        ax.add_patch(Rectangle((0, 0), 1, 1, fc="#E69F00", ec="black", lw=1))
        ax.text(0.5, 0.5, "[CLS]", ha="center", va="center", fontsize="small")
        ax.text(0.5, -0.15, "0*", ha="center", va="top", fontsize="small")
        offset = 1
    vmax = img.max() if img.max() > 0 else 1.0
    for k in range((H // ph) * (W // pw)):
        row, col = divmod(k, W // pw)
        tile = img[row * ph : (row + 1) * ph, col * pw : (col + 1) * pw]
        x0 = (offset + k) * step
        if tile.ndim == 3:
            ax.imshow(np.clip(tile, 0, 1), extent=(x0, x0 + 1, 0, 1), interpolation="nearest")
        else:
            ax.imshow(tile, cmap="gray_r", vmin=0, vmax=vmax, extent=(x0, x0 + 1, 0, 1),
                      interpolation="nearest")  # fmt: skip
        ax.add_patch(Rectangle((x0, 0), 1, 1, fill=False, ec=_GRID_COLOUR, lw=1))
        ax.text(x0 + 0.5, -0.15, str(k + 1), ha="center", va="top", fontsize="small")
    n = offset + (H // ph) * (W // pw)
    ax.set(xlim=(-gap, n * step - gap), ylim=(-0.6, 1.1), aspect="equal", title=title)
    ax.axis("off")
    return ax


def plot_position_similarity(
    pos_embed: torch.Tensor,
    grid: tuple[int, int],
    fig: Figure | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """For every patch (i, j), a small map of the cosine similarity between its position
    embedding and those of all patches (like the ViT paper's Figure 7, centre).

    Args:
        pos_embed: (1, 1+N, D), (1+N, D) with [CLS] first, or (N, D).
        grid: (gh, gw), the patch grid.

    Lecture 09; Dosovitskiy et al. 2021 Figure 7 (centre).
    """
    check_figure("fig", fig)
    sim = position_similarity(pos_embed, grid).numpy()  # (gh, gw, gh, gw)
    gh, gw = sim.shape[:2]
    if fig is None:
        fig = plt.figure(figsize=(1.1 * gw + 1.4, 1.1 * gh + 0.8))
    axes = fig.subplots(gh, gw, squeeze=False)
    for (i, j), ax in np.ndenumerate(np.array(axes, dtype=object)):
        image = ax.imshow(sim[i, j], cmap=DIVERGING_CMAP, vmin=-1, vmax=1, interpolation="nearest")
        ax.set(xticks=[], yticks=[])
        if j == 0:
            ax.set_ylabel(str(i + 1), rotation=0, ha="right", va="center")
        if i == gh - 1:
            ax.set_xlabel(str(j + 1))
    fig.supylabel("input patch row")
    fig.supxlabel("input patch column")
    if title:
        fig.suptitle(title)
    fig.colorbar(image, ax=axes, shrink=0.8, label="cosine similarity")
    return fig


def plot_ink_outline(ax: Axes, img: np.ndarray, level: float = 0.4) -> None:
    """Draw the outline of the ink (grey image > level * max) in white edged with black, as
    ``plot_cls_attention`` does over a grey image's map."""
    up = torch.nn.functional.interpolate(
        torch.as_tensor(img, dtype=torch.float32)[None, None], scale_factor=4, mode="bilinear"
    )[0, 0]  # (H, W) -> (4H, 4W): a smoother line than the pixel grid
    up = np.pad(up.numpy(), 1)  # zeros around: outlines close at the border
    ys = (np.arange(up.shape[0]) - 0.5) / 4 - 0.5  # centres of the upsampled pixels
    xs = (np.arange(up.shape[1]) - 0.5) / 4 - 0.5
    if img.max() > 0:
        lines = ax.contour(xs, ys, up, levels=[level * img.max()], colors="white", linewidths=1.8)
        lines.set(path_effects=[patheffects.Stroke(linewidth=3.2, foreground="black"),
                                patheffects.Normal()])  # fmt: skip


def plot_cls_attention(
    image: object,
    attention_map: object,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    colorbar: bool = False,
    vmax: float | None = None,
    alpha: float = 0.6,
) -> Axes:
    """An attention map over the patches of an image: each patch one block of colour (0 to
    ``vmax``, default the map's maximum). A grey image is drawn as the white outline of its
    ink on top of the map; an RGB image under the map (with transparency ``alpha``).

    Args:
        image: (C, H, W) or (H, W).
        attention_map: (gh, gw), e.g. ``cls_attention(weights, grid)[b]``.

    Lecture 09; Dosovitskiy et al. 2021 Figure 6.
    """
    img = _image(image)
    amap = to_numpy("attention_map", attention_map, 2).astype(float)
    H, W = img.shape[:2]
    if H % amap.shape[0] or W % amap.shape[1]:
        raise ValueError(f"attention_map {amap.shape} does not tile an image of size {H}x{W}")
    ax = get_axes(ax)
    extent = (-0.5, W - 0.5, H - 0.5, -0.5)
    top = vmax if vmax is not None else max(float(amap.max()), 1e-12)
    if img.ndim == 3:
        _show(ax, img, extent)
    shown = ax.imshow(amap, cmap=ATTENTION_CMAP, vmin=0, vmax=top, extent=extent,
                      alpha=alpha if img.ndim == 3 else None, interpolation="nearest")  # fmt: skip
    if img.ndim == 2:
        plot_ink_outline(ax, img)
    if colorbar:
        ax.figure.colorbar(shown, ax=ax, shrink=0.8, label="attention")
    ax.set(xticks=[], yticks=[], xlim=(-0.5, W - 0.5), ylim=(H - 0.5, -0.5), title=title)
    return ax


def _stack(weights: object) -> torch.Tensor:
    if isinstance(weights, (list, tuple)) and weights:
        layers = [torch.as_tensor(w) for w in weights]
        for i, w in enumerate(layers[1:], start=1):
            if w.shape != layers[0].shape:
                raise ValueError(
                    f"weights[{i}] has shape {tuple(w.shape)} but weights[0] has "
                    f"{tuple(layers[0].shape)}: every layer's weights must be (B, H, T, T) alike"
                )
        weights = torch.stack(layers)  # -> (L, B, H, T, T)
    if not isinstance(weights, torch.Tensor) or weights.ndim != 5:
        raise ValueError(
            f"weights must be a list of (B, H, T, T) or (L, B, H, T, T), got {shape_of(weights)}"
        )
    return weights.detach().float()


def _check_batch(images: object, w: torch.Tensor, grid: tuple[int, int]) -> torch.Tensor:
    imgs = torch.as_tensor(images).detach()
    check_shapes(
        {"weights": w, "images": imgs}, {"weights": "L B heads T T", "images": "any: B C H W"}
    )
    gh, gw = as_pair("grid", grid)
    if w.shape[-1] != 1 + gh * gw:
        raise ValueError(
            f"weights have T = {w.shape[-1]} tokens; grid {gh}x{gw} needs {1 + gh * gw}"
        )
    return imgs


def _caption(b: int, labels: Sequence[object] | None, predictions: Sequence[object] | None) -> str:
    parts = [f"#{b}"]
    if labels is not None:
        parts.append(f"label {labels[b]}")
    if predictions is not None:
        parts.append(f"pred {predictions[b]}")
    return ", ".join(parts)


def attention_overview(
    images: object,
    weights: list[torch.Tensor] | torch.Tensor,
    grid: tuple[int, int],
    *,
    labels: Sequence[object] | None = None,
    predictions: Sequence[object] | None = None,
    fig: Figure | None = None,
) -> Figure:
    """One row per image: the image, then [CLS]'s attention to the patches in every layer
    (mean over heads), then the attention rollout across all layers.

    Args:
        images: (B, C, H, W); weights: a list of L tensors (B, H, 1+N, 1+N) or (L, B, H, ...).

    Lecture 09; Dosovitskiy et al. 2021 Figure 6; Abnar & Zuidema 2020.
    """
    w = _stack(weights)
    imgs = _check_batch(images, w, grid)
    L, B = w.shape[:2]
    check_labels("labels", labels, B)
    check_labels("predictions", predictions, B)
    check_figure("fig", fig)
    maps = [cls_attention(w[layer].mean(1), grid) for layer in range(L)]  # L x (B, gh, gw)
    maps.append(cls_attention(attention_rollout(w), grid))
    titles = [f"layer {layer + 1}" for layer in range(L)] + ["rollout"]
    if fig is None:
        fig = plt.figure(figsize=(1.6 * (L + 2), 1.7 * B + 0.3))
    axes = fig.subplots(B, L + 2, squeeze=False)
    for b in range(B):
        plot_patch_grid(imgs[b], _patch_of(imgs, grid), axes[b, 0], numbers=False)
        axes[b, 0].set_ylabel(_caption(b, labels, predictions), fontsize="small")
        for k, m in enumerate(maps):
            plot_cls_attention(imgs[b], m[b], axes[b, k + 1], title=titles[k] if b == 0 else None)
    fig.tight_layout()
    return fig


def _patch_of(imgs: torch.Tensor, grid: tuple[int, int]) -> tuple[int, int]:
    gh, gw = as_pair("grid", grid)
    return imgs.shape[-2] // gh, imgs.shape[-1] // gw


def vit_attention_widget(
    images: object,
    weights: list[torch.Tensor] | torch.Tensor,
    grid: tuple[int, int],
    *,
    labels: Sequence[object] | None = None,
    predictions: Sequence[object] | None = None,
    theme: str = "light",
):
    """Pick an image, a layer (or "rollout") and a head (or "mean"): the image with its patch
    grid and [CLS]'s attention over it redraw. Everything is precomputed from ``weights``.

    Args:
        images: (B, C, H, W); weights: a list of L tensors (B, H, 1+N, 1+N) or (L, B, H, ...).
        grid: (gh, gw); labels, predictions: optional, one per image, shown in the title.

    Returns:
        An ipywidgets.VBox: the controls above the image.

    Lecture 09.
    """
    w = _stack(weights)
    imgs = _check_batch(images, w, grid)
    L, B, H = w.shape[:3]
    check_labels("labels", labels, B)
    check_labels("predictions", predictions, B)
    rc(theme)  # an unknown theme is refused before the maps are computed
    rollout = cls_attention(attention_rollout(w), grid)  # (B, gh, gw)
    per_head = cls_attention(w, grid)  # (L, B, H, gh, gw)
    patch = _patch_of(imgs, grid)

    kept: dict[str, object] = {}  # the Figure (built by the first render) and its image

    def render(image: int, layer: object, head: object) -> Figure:
        if layer == "rollout":
            amap, what = rollout[image], "rollout over all layers (heads averaged)"
        elif head == "mean":
            amap, what = per_head[layer - 1, image].mean(0), f"layer {layer}, mean of {H} heads"
        else:
            amap, what = per_head[layer - 1, image, head - 1], f"layer {layer}, head {head}"
        caption, title = _caption(image, labels, predictions), f"[CLS] attention\n{what}"
        if not kept:
            fig = Figure(figsize=(7.2, 3.4))
            KeptCanvas(fig)
            ax1, ax2 = fig.subplots(1, 2)
            plot_patch_grid(imgs[image], patch, ax1, title=caption)
            plot_cls_attention(imgs[image], amap, ax2, title=title, colorbar=True)
            for ax in fig.axes[1:]:  # the map and its colour bar change with every control
                ax.set_animated(True)
            kept.update(fig=fig, image=image)
        fig = kept["fig"]
        ax1, ax2, cax = fig.axes
        top = max(float(amap.max()), 1e-12)  # as plot_cls_attention scales the map
        ax2.images[-1].set_data(amap.numpy().astype(float))
        ax2.images[-1].set_clim(0, top)  # and the colour bar follows
        ax2.set_title(title)
        if kept["image"] != image:  # another image: under the grid and under (or round) the map
            img = _image(imgs[image])
            for shown in (ax1.images[0], *ax2.images[:-1]):
                shown.set_data(np.clip(img, 0, 1) if img.ndim == 3 else img)
            if img.ndim == 2:
                ax1.images[0].set_clim(0, img.max())  # as imshow scales a grey image
                for outline in ax2.collections:
                    outline.remove()
                plot_ink_outline(ax2, img)
            ax1.set_title(caption)
            kept["image"] = image
        # The layout depends on the titles' heights (tight_layout narrows a title to one pixel)
        # and on the colour bar's ticks and labels, measured where a new Figure measures them.
        canvas = fig.canvas
        canvas.reset_layout()
        renderer = canvas.get_renderer()
        heights = tuple(ax.title.get_window_extent(renderer).height for ax in (ax1, ax2))
        canvas.layout((heights, cax.get_tightbbox(renderer, for_layout_only=True).bounds))
        canvas.background = image  # the image with its patch grid
        return fig

    ipw = require_ipywidgets()
    controls = {
        "image": ipw.IntSlider(value=0, min=0, max=B - 1, description="image"),
        "layer": ipw.Dropdown(options=[*range(1, L + 1), "rollout"], value=L, description="layer"),
        "head": ipw.Dropdown(options=["mean", *range(1, H + 1)], value="mean", description="head"),
    }
    return figure_widget(render, controls, theme=theme)


def vit_attention_widget_grid(
    num_layers: int, images: Sequence[int] = (0, 1, 3, 5)
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for
    ``vit_attention_widget(...)`` over a ViT of ``num_layers`` layers: control name -> values
    its controls offer. The images at the positions ``images`` (lecture 09: its first test
    digits 5, 9, 4 and 7, the ones its text discusses), every layer and the rollout, with the
    heads averaged (each head on its own multiplies the frames by the number of heads; the
    notebook shows them).

    Lecture 09; Abnar & Zuidema 2020 (rollout).
    """
    check_positive_int("num_layers", num_layers)
    for i in check_list("images", images, "image positions"):
        check_non_negative_int("each of images", i)
    return {
        "image": list(dict.fromkeys(images)),
        "layer": [*range(1, num_layers + 1), "rollout"],
        "head": ["mean"],
    }
