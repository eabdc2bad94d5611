"""lecturekit.viz.captioning: scenes, per-word maps (soft and hard), the localisation and
mass plots and the widget (headless, Agg), on an untrained captioner (nothing to load)."""

import matplotlib
import pytest
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from lecturekit.datasets.digits import load_digits_data
from lecturekit.datasets.scenes import decode_caption, make_scenes
from lecturekit.experiments.captioning import caption_scenes
from lecturekit.models.captioning import Captioner, CaptionerConfig
from lecturekit.viz import captioning as vc

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def scenes():
    digits = load_digits_data()
    return make_scenes(4, digits.test_images, digits.test_labels, seed=2)


@pytest.fixture(scope="module")
def results(scenes):
    torch.manual_seed(0)
    model = Captioner(CaptionerConfig.tiny())
    out = {}
    for mode, gen in (("soft", None), ("hard", torch.Generator().manual_seed(0))):
        r = caption_scenes(model, scenes, mode, gen, max_len=4)
        words = [[*decode_caption(ids).split(), "<eos>"][:4] for ids in r.ids]
        out[mode] = (words, r.weights, r.cells)
    return out


def test_scene_grid_and_word_maps(scenes, results):
    fig = vc.plot_scenes(scenes.images, scenes.captions, scenes.boxes, ncols=3)
    assert isinstance(fig, Figure) and len(fig.axes) == 6
    assert [ax.get_title() for ax in fig.axes[:4]] == list(scenes.captions)
    words, weights, cells = results["hard"]
    fig = vc.plot_word_maps(scenes.images[0], words[0], weights[0, : len(words[0])],
                            scenes.boxes[0], cells[0, : len(words[0])])  # fmt: skip
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == words[0]
    assert len(fig.axes[0].patches) == 2  # the two boxes
    assert len(fig.axes[0].lines) == 1  # the sampled cell


def test_localisation_and_mass_plots():
    ax = vc.plot_localisation([0.9, 0.8], ["first", "second"], 0.0625)
    assert isinstance(ax, Axes) and any("6.25%" in t.get_text() for t in ax.texts)
    table = {"digit 1": (0.8, 0.1, 0.1), "relation": (0.0, 0.0, 1.0)}
    ax = vc.plot_mass_by_word(table)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["digit 1", "relation"]
    assert len(ax.patches) == 6


def test_widget_updates(scenes, results):
    pytest.importorskip("ipywidgets")
    box = vc.captioning_widget(scenes.images, results, scenes.boxes)
    scene, mode = box.children[0].children
    image = box.children[1]
    first = bytes(image.value)
    assert first.startswith(b"\x89PNG")
    grid = vc.captioning_widget_grid(4)
    for value in grid["scene"]:
        scene.value = value
    for value in grid["attention"]:
        mode.value = value
    assert bytes(image.value) != first


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s, r: vc.plot_scenes(s.images, s.captions[:2]), "captions"),
        (lambda s, r: vc.plot_scenes(s.images[:, 0], s.captions), "images"),
        (lambda s, r: vc.plot_word_maps(s.images[0], ["a"], torch.rand(2, 64)), "weights"),
        (lambda s, r: vc.plot_word_maps(s.images[0], ["a"], torch.rand(1, 63)), "square"),
        (lambda s, r: vc.plot_localisation([0.5], ["x"], 2.0), "chance"),
        (lambda s, r: vc.plot_mass_by_word({}), "table"),
        (lambda s, r: vc.captioning_widget(s.images, {"soft": r["soft"]}), "results"),
        (lambda s, r: vc.captioning_widget_grid(0), "n_scenes"),
    ],
)
def test_bad_inputs(scenes, results, call, match):
    with pytest.raises(ValueError, match=match):
        call(scenes, results)
