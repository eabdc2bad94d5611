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
    plot_length_accuracy,
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
