"""Slide figures of lecture 09, the Vision Transformer (registered on import).

    09  vit_patches, vit_cls_attention
    09b vit_position_similarity (notebook 09b, the ViT's inductive bias)

The digits come from scikit-learn (bundled, no download); the trained ViTs are the shipped
checkpoints ``data/vit_digits*.safetensors`` (``lecturekit.shipped.vit``): nothing trains here.

The notebook's widgets, rebuilt for the website (``register_widget``)::

    09  vit_attention_maps (1): the shipped ``vit_digits`` is the ViT notebook 09 trains
        (same recipe and seed). Widget output 0 of the notebook is the progress bar of that
        training (tqdm), not a lecturekit widget: nothing to rebuild.
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.figure import Figure

from lecturekit.viz.vit import (
    attention_overview,
    plot_patch_grid,
    plot_patch_sequence,
    plot_position_similarity,
)
from lecturekit_publish.figures.helpers import at_least
from lecturekit_publish.figures.registry import register, register_widget

_DIGIT = 12  # notebook 09's example: a test "0"
_ATTENTION_DIGITS = (1, 3, 5)  # a 9, a 4 and a 7 of the test set, as in notebook 09 section 7


@cache
def _digits():
    from lecturekit.datasets.digits import load_digits_data

    return load_digits_data()


@register(
    "vit_patches",
    lecture="09",
    description="an 8 x 8 digit cut into 16 patches of 2 x 2, and the token sequence [CLS], 1..16",
    takeaway="A ViT reads an image as a sequence: [CLS], then its patches row by row, each "
    "flattened into one token.",
)
def vit_patches() -> Figure:
    data = _digits()
    image, label = data.test_images[_DIGIT], data.test_labels[_DIGIT].item()
    fig = Figure(figsize=(14, 4.2), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[1, 3.6])
    plot_patch_grid(image, 2, ax1, title=f"a {label}: 8 × 8 pixels,\n16 patches of 2 × 2")
    plot_patch_sequence(image, 2, ax2, title="the sequence the Transformer reads")
    return at_least(fig)


@register(
    "vit_position_similarity",
    lecture="09b",
    description="cosine similarity of learned position embeddings (centred vs moved digits)",
    takeaway="Position embeddings learn the 2-D layout only when the data make it matter: moved "
    "digits, not centred ones.",
)
def vit_position_similarity() -> Figure:
    from lecturekit.shipped import load_shipped

    fig = Figure(figsize=(13, 6.2))
    left, right = fig.subfigures(1, 2, wspace=0.06)
    for sub, name, title in (
        (left, "vit_digits", "trained on centred digits"),
        (right, "vit_digits_moved", "trained on digits moved ±2 pixels"),
    ):
        model = load_shipped(name)
        plot_position_similarity(model.pos_embed, model.config.grid, sub, title=title)
    return fig


@register(
    "vit_cls_attention",
    lecture="09",
    description="[CLS] attention to the patches per layer and attention rollout, shipped ViT",
    takeaway="[CLS] puts most of its weight on a few stroke patches; rollout combines the layers "
    "into one map.",
)
def vit_cls_attention() -> Figure:
    from lecturekit.shipped import load_shipped

    data, model = _digits(), load_shipped("vit_digits")
    index = torch.tensor(_ATTENTION_DIGITS)
    images, labels = data.test_images[index], data.test_labels[index].tolist()
    with torch.no_grad():
        logits, weights = model(images)
    fig = Figure(figsize=(8.5, 6.4))
    attention_overview(images, weights, model.config.grid, labels=labels,
                       predictions=logits.argmax(1).tolist(), fig=fig)  # fmt: skip
    at_least(fig)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "vit_attention_maps",
    lecture="09",
    index=0,
    description="where [CLS] looks: one test digit, a layer or the rollout, a head or their mean",
)
def vit_attention_maps_rebuilt():
    from lecturekit.shipped import load_shipped
    from lecturekit.viz.vit import vit_attention_widget, vit_attention_widget_grid

    # notebook 09 trains this very recipe and seed in section 5; the shipped checkpoint is it
    data, vit = _digits(), load_shipped("vit_digits")
    sample = data.test_images[:12]
    with torch.no_grad():
        logits, weights = vit(sample)  # 2 layers of (12, 4, 17, 17)
    widget = vit_attention_widget(sample, weights, vit.config.grid,
                                  labels=data.test_labels[:12].tolist(),
                                  predictions=logits.argmax(1).tolist())  # fmt: skip
    return widget, vit_attention_widget_grid(vit.config.num_layers)
