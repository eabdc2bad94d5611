"""lecturekit.viz.vit: patch grids, position similarity, [CLS] attention, the widget."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.patches import position_similarity
from lecturekit.viz.vit import (
    attention_overview,
    plot_cls_attention,
    plot_patch_grid,
    plot_patch_sequence,
    plot_position_similarity,
    vit_attention_widget,
    vit_attention_widget_grid,
)


def _digit():
    g = torch.Generator().manual_seed(0)
    return torch.rand(1, 8, 8, generator=g)


def _weights(L=2, B=3, H=4, T=17, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(B, H, T, T, generator=g) * 2, -1) for _ in range(L)]


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_patch_grid_numbers_every_patch_and_draws_the_boundaries():
    ax = plot_patch_grid(_digit(), 2, title="patches")
    assert _texts(ax) == [str(k) for k in range(1, 17)]
    assert len(ax.lines) == 5 + 5  # 4 x 4 patches: 5 horizontal and 5 vertical lines
    assert ax.get_title() == "patches"
    np.testing.assert_array_equal(ax.images[0].get_array(), _digit()[0].numpy())
    ax = plot_patch_grid(torch.rand(3, 8, 12), (4, 3), numbers=False)
    assert _texts(ax) == [] and ax.images[0].get_array().shape == (8, 12, 3)  # RGB


@pytest.mark.parametrize(
    "image, patch, match",
    [
        (torch.rand(1, 8, 8), 3, r"image size 8x8 is not divisible by patch_size 3x3"),
        (torch.rand(2, 8, 8), 2, r"image must be \(1, H, W\), \(3, H, W\) or \(H, W\)"),
        (torch.rand(8), 2, r"image must be"),
    ],
)
def test_patch_plots_reject_bad_input(image, patch, match):
    with pytest.raises(ValueError, match=match):
        plot_patch_grid(image, patch)
    with pytest.raises(ValueError, match=match):
        plot_patch_sequence(image, patch)


def test_patch_sequence_is_cls_then_the_patches_in_order():
    image = torch.arange(64.0).reshape(1, 8, 8) / 63
    ax = plot_patch_sequence(image, 2)
    assert _texts(ax) == ["[CLS]", "0*"] + [str(k) for k in range(1, 17)]
    assert len(ax.images) == 16
    np.testing.assert_allclose(ax.images[5].get_array(), image[0, 2:4, 2:4].numpy())  # patch 6
    ax = plot_patch_sequence(image, 4, cls=False)
    assert _texts(ax) == ["1", "2", "3", "4"]


def test_position_similarity_figure_shows_one_map_per_patch():
    torch.manual_seed(0)
    pos = torch.randn(1, 17, 16)
    fig = plot_position_similarity(pos, (4, 4), title="learned positions")
    maps = [ax for ax in fig.axes if ax.images and ax.get_label() != "<colorbar>"]
    assert len(maps) == 16 and len(fig.axes) == 17  # + the colour bar
    sim = position_similarity(pos, (4, 4)).numpy()
    np.testing.assert_allclose(maps[6].images[0].get_array(), sim[1, 2])  # patch (row 2, col 3)
    assert maps[0].images[0].get_clim() == (-1, 1)
    assert fig._suptitle.get_text() == "learned positions"
    with pytest.raises(ValueError, match=r"pos_embed must be"):
        plot_position_similarity(pos, (3, 3))


def test_cls_attention_overlay():
    amap = torch.zeros(4, 4)
    amap[1, 2] = 0.5
    ax = plot_cls_attention(_digit(), amap, colorbar=True, title="[CLS]")
    assert len(ax.images) == 1 and ax.images[0].get_clim() == (0, 0.5)
    assert ax.collections, "the digit's outline is drawn as a contour"
    assert len(ax.figure.axes) == 2  # + colour bar
    ax = plot_cls_attention(torch.rand(3, 8, 8), amap, vmax=1.0)
    assert len(ax.images) == 2 and ax.images[1].get_alpha() == 0.6  # RGB below, map above
    assert ax.images[1].get_clim() == (0, 1.0)
    with pytest.raises(
        ValueError, match=r"attention_map \(3, 3\) does not tile an image of size 8x8"
    ):
        plot_cls_attention(_digit(), torch.zeros(3, 3))
    with pytest.raises(ValueError, match=r"attention_map must be 2-D"):
        plot_cls_attention(_digit(), torch.zeros(16))


def test_plots_draw_into_a_given_axes():
    _, (a, b) = plt.subplots(1, 2)
    assert plot_patch_grid(_digit(), 2, a) is a
    assert plot_cls_attention(_digit(), torch.rand(4, 4), b) is b


def test_attention_overview_has_a_row_per_image_and_a_column_per_layer_plus_rollout():
    images = torch.rand(3, 1, 8, 8)
    fig = attention_overview(images, _weights(), (4, 4), labels=[1, 2, 3], predictions=[1, 2, 4])
    assert isinstance(fig, Figure) and len(fig.axes) == 3 * 4
    assert [ax.get_title() for ax in fig.axes[:4]] == ["", "layer 1", "layer 2", "rollout"]
    assert fig.axes[8].get_ylabel() == "#2, label 3, pred 4"
    layer1 = fig.axes[1].images[0].get_array()
    np.testing.assert_allclose(layer1, _weights()[0][0].mean(0)[0, 1:].reshape(4, 4), rtol=1e-6)
    with pytest.raises(
        ValueError,
        match=r"images must be \(B, C, H, W\) with B=3 as in weights \(2, 3, 4, 17, 17\), "
        r"got \(2, 1, 8, 8\)",
    ):
        attention_overview(images[:2], _weights(), (4, 4))
    with pytest.raises(ValueError, match=r"weights have T = 17 tokens; grid 3x3 needs 10"):
        attention_overview(images, _weights(), (3, 3))
    with pytest.raises(ValueError, match=r"weights must be a list of \(B, H, T, T\)"):
        attention_overview(images, torch.zeros(3, 4, 17, 17), (4, 4))


def test_widget_redraws_for_image_layer_head_and_rollout():
    pytest.importorskip("ipywidgets")
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny()).eval()
    images = torch.rand(4, 1, 8, 8)
    with torch.no_grad():
        logits, weights = model(images)
    widget = vit_attention_widget(images, weights, (4, 4), labels=[0, 1, 2, 3],
                                  predictions=logits.argmax(1).tolist())  # fmt: skip
    controls = {c.description: c for c in widget.children[0].children}
    assert set(controls) == {"image", "layer", "head"}
    assert controls["layer"].options == (1, 2, "rollout") and controls["layer"].value == 2
    assert controls["head"].options == ("mean", 1, 2, 3, 4)
    image = widget.children[1]
    seen = {image.value}
    for name, value in (("image", 3), ("head", 2), ("layer", 1), ("layer", "rollout")):
        controls[name].value = value
        assert image.value not in seen, f"changing {name} to {value!r} did not redraw"
        seen.add(image.value)
    with pytest.raises(ValueError, match=r"weights have T = 17 tokens"):
        vit_attention_widget(images, weights, (2, 2))


def test_widget_grid_values_are_settings_of_the_widget():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    images, weights = torch.rand(6, 1, 8, 8), _weights(B=6)
    box = vit_attention_widget(images, weights, (4, 4))
    grid = vit_attention_widget_grid(2)
    assert grid == {"image": [0, 1, 3, 5], "layer": [1, 2, "rollout"], "head": ["mean"]}
    controls = widget_controls(box)
    for name, values in grid.items():
        assert controls[name].value in values  # the grid starts where the widget does
        for value in values:
            controls[name].value = value
            assert controls[name].value == value
    assert vit_attention_widget_grid(1, images=(2, 2))["image"] == [2]
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        vit_attention_widget_grid(0)
    with pytest.raises(ValueError, match="images must be a non-empty list"):
        vit_attention_widget_grid(2, images=())
    with pytest.raises(ValueError, match="each of images must be a non-negative integer"):
        vit_attention_widget_grid(2, images=(0, -1))
