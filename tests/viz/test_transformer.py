"""lecturekit.viz.transformer: architecture, alignment, accuracy by length, attention widget."""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.experiments.translation import LengthAccuracy
from lecturekit.models.transformer import AttentionWeights
from lecturekit.viz.transformer import (
    ATTENTION_KINDS,
    plot_alignment,
    plot_architecture,
    plot_label_smoothing,
    plot_length_accuracy,
    plot_sign_test,
    plot_translation_masks,
    sign_test_widget_grid,
    translation_attention_widget,
    translation_attention_widget_grid,
)


def test_architecture_has_every_sublayer():
    ax = Figure().add_subplot()
    plot_architecture(3, ax)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("Add & Norm") == 2 + 3  # encoder 2, decoder 3 per layer
    assert "multi-head\ncross-attention" in texts and texts.count("3 ×") == 2


def test_alignment_boxes_the_true_source_words():
    ax = Figure().add_subplot()
    w = torch.softmax(torch.randn(3, 4), -1)
    plot_alignment(w, ["a", "b", "c", "d"], ["x", "y", "z"], [0, 2, 1], ax)
    offsets = ax.collections[0].get_offsets()
    assert np.array_equal(np.asarray(offsets), [[0, 0], [2, 1], [1, 2]])
    with pytest.raises(ValueError, match="align has 2 entries for 3 target words"):
        plot_alignment(w, ["a", "b", "c", "d"], ["x", "y", "z"], [0, 1], Figure().add_subplot())


def test_label_smoothing_panels_show_the_floor_at_p_0_9():
    fig = plot_label_smoothing(68, 0.1, Figure())
    target, loss = fig.axes
    assert len(target.patches) == 2 * 12 and target.get_yscale() == "log"
    smoothed = [p.get_height() for p in target.patches[12:]]
    assert smoothed[5] == pytest.approx(0.9 + 0.1 / 68) and smoothed[0] == pytest.approx(0.1 / 68)
    p, curve = loss.lines[1].get_data()
    assert p[curve.argmin()] == pytest.approx(0.9 + 0.1 / 68, abs=0.005)
    floor = loss.lines[2].get_ydata()[0]
    assert curve.min() == pytest.approx(floor, abs=1e-4)  # the minimum is H(q)


def test_translation_masks_are_the_three_masks():
    src_real, tgt_real = torch.tensor([True, True, False]), torch.tensor([True, True, True, False])
    fig = plot_translation_masks(src_real, tgt_real, ["a", "b"], ["<bos>", "x", "y"], Figure())
    enc, dec, cross = (ax.images[0].get_array() for ax in fig.axes)
    assert enc.shape == (3, 3) and dec.shape == (4, 4) and cross.shape == (4, 3)
    assert (np.asarray(enc)[:, 2] < 0.5).all() and (np.asarray(enc)[:, :2] == 1).all()
    assert np.asarray(dec)[1].tolist() == [1, 1, 0, 0] and np.asarray(dec)[3].tolist() == [
        1,
        1,
        1,
        0,
    ]
    assert [t.get_text() for t in fig.axes[2].get_xticklabels()] == ["a", "b", "<pad>"]


def test_sign_test_highlights_the_splits_at_least_as_uneven():
    ax = plot_sign_test(10, 3, Figure().add_subplot())
    everything, tails = (p.get_data().values for p in ax.patches)  # two StepPatches
    assert len(everything) == 14 and everything.sum() == pytest.approx(1.0)
    highlighted = [i for i, v in enumerate(tails) if v > 0]
    assert highlighted == [0, 1, 2, 3, 10, 11, 12, 13]  # <= 3 or >= 10 wins: either way
    assert tails.sum() == pytest.approx(0.0923, abs=1e-4) and "p = 0.0923" in ax.get_title()
    assert sign_test_widget_grid(10, 3) == {"won": list(range(14)), "scale": [1, 2, 4, 8]}


def test_length_accuracy_lines_and_bins():
    a = LengthAccuracy(("5-9", "10+"), (5, 10), (3, 4), (1.0, 0.5))
    ax = plot_length_accuracy({"m1": a, "m2": a}, Figure().add_subplot())
    assert len(ax.lines) == 2 and ax.get_xticklabels()[0].get_text() == "5-9\n(3)"
    b = LengthAccuracy(("5+",), (5,), (7,), (1.0,))
    with pytest.raises(ValueError, match="has bins"):
        plot_length_accuracy({"m1": a, "m2": b}, Figure().add_subplot())
    with pytest.raises(ValueError, match="results is empty"):
        plot_length_accuracy({})


def test_widget_redraws_for_every_kind():
    src, tgt = ("the", "cat", "sees"), ("le", "chat", "voit")
    S, T = len(src), len(tgt) + 1
    maps = lambda q, k: [torch.softmax(torch.randn(1, 2, q, k), -1) for _ in range(2)]  # noqa: E731
    weights = AttentionWeights(maps(S, S), maps(T, T), maps(T, S))
    widget = translation_attention_widget({"one": (src, tgt, (0, 1, 2), weights)}, 2, 2)
    controls = widget.children[0].children
    image = widget.children[1]
    before = image.value
    for kind in ATTENTION_KINDS:
        controls[1].value = kind
        controls[3].value = "2"
    assert image.value != before


def test_widget_grid_values_are_settings_of_the_widget_and_redraw_it():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    src, tgt = ("the", "cat", "sees"), ("le", "chat", "voit")
    S, T = len(src), len(tgt) + 1
    torch.manual_seed(0)
    maps = lambda q, k: [torch.softmax(torch.randn(1, 4, q, k), -1) for _ in range(2)]  # noqa: E731
    examples = {
        label: (src, tgt, (0, 1, 2), AttentionWeights(maps(S, S), maps(T, T), maps(T, S)))
        for label in ("a", "b", "c")
    }
    widget = translation_attention_widget(examples, 2, 4)
    controls, image = widget_controls(widget), widget.children[1]
    grid = translation_attention_widget_grid(examples, 2, 4)
    assert grid == {"sentence": ["a", "b"], "kind": list(ATTENTION_KINDS), "layer": [1, 2],
                    "head": ["mean", "3"]}  # fmt: skip
    for name, values in grid.items():
        control, seen = controls[name], set()
        start = control.value
        for value in values:
            assert value in control.options, (name, value)
            control.value = value
            seen.add(bytes(image.value))
        assert len(seen) == len(values), f"{name}: some settings draw the same image"
        control.value = start
    assert translation_attention_widget_grid(examples, 1, 1)["head"] == ["mean"]
    with pytest.raises(ValueError, match="num_heads"):
        translation_attention_widget_grid(examples, 2, 0)
    with pytest.raises(ValueError, match="examples"):
        translation_attention_widget_grid({"a": (src, tgt)}, 2, 4)
