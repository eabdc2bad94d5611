"""lecturekit.viz.scoring: the scoring-function plots and widget."""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from lecturekit.viz.scoring import (
    plot_alignments,
    plot_grouped_bars,
    plot_score_weights,
    plot_scores,
    plot_translation,
    scoring_widget,
    scoring_widget_grid,
    translation_widget,
)


def _bar_heights(ax):
    return np.array([p.get_height() for p in ax.patches])


def test_plot_scores_draws_scores_and_softmax_weights():
    scores = {"dot": torch.tensor([1.0, -2.0, 0.5]), "cosine": torch.tensor([0.1, 0.2, -0.3])}
    fig = plot_scores(scores, ["a", "b", "c"], target=1, title="t")
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    top, bottom = fig.axes[0], fig.axes[2]  # row-major: (scores dot, scores cosine, weights ...)
    np.testing.assert_allclose(_bar_heights(top), [1.0, -2.0, 0.5])
    np.testing.assert_allclose(_bar_heights(bottom), torch.softmax(scores["dot"], 0), rtol=1e-6)
    assert top.get_title() == "dot" and fig.axes[1].get_title() == "cosine"
    assert [t.get_text() for t in bottom.get_xticklabels()] == ["a", "b", "c"]
    assert top.patches[1].get_linewidth() > top.patches[0].get_linewidth()  # target outlined


def test_plot_score_weights_returns_both_axes_on_given_figure():
    fig = Figure()
    axes = (fig.add_subplot(211), fig.add_subplot(212))
    ax_s, ax_w = plot_score_weights([3.0, 1.0], axes=axes, name="general")
    assert (ax_s, ax_w) == axes
    assert ax_s.get_title() == "general: scores"
    np.testing.assert_allclose(_bar_heights(ax_w).sum(), 1.0)
    assert [t.get_text() for t in ax_s.texts] == ["3.00", "1.00"]


def test_plot_alignments_marks_true_alignment_and_fills_grid():
    w = torch.softmax(torch.randn(4, 5), -1)
    fig = plot_alignments(
        {"dot": w, "general": w, "additive": w},
        list("abcde"),
        list("wxyz"),
        align=[0, 2, 1, 4],
        ncols=2,
    )
    axes = fig.axes
    assert len(axes) == 4 and not axes[3].axison  # 3 panels on a 2 x 2 grid, one blank
    np.testing.assert_allclose(axes[0].get_images()[0].get_array(), w.numpy(), rtol=1e-6)
    boxes = [p for p in axes[0].patches if isinstance(p, Rectangle)]
    assert sorted((round(b.get_x() + 0.5), round(b.get_y() + 0.5)) for b in boxes) == [
        (0, 0),
        (1, 2),
        (2, 1),
        (4, 3),
    ]


def test_plot_grouped_bars_writes_values():
    ax = plot_grouped_bars({"dot": {"all": 0.95, "long": 0.9}, "none": {"all": 0.1, "long": 0.0}})
    assert [t.get_text() for t in ax.texts] == ["0.950", "0.100", "0.900", "0.000"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["dot", "none"]


def test_plots_reject_bad_input():
    with pytest.raises(ValueError, match="scores is empty: expected name -> array"):
        plot_scores({})
    with pytest.raises(ValueError, match=r"scores\['dot'\] must be 1-D, got shape \(2, 3\)"):
        plot_scores({"dot": torch.zeros(2, 3)})
    with pytest.raises(ValueError, match="every entry of scores must have the same shape"):
        plot_scores({"dot": [1.0, 2.0], "general": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="key_labels has 1 labels but the data has 2 entries"):
        plot_scores({"dot": [1.0, 2.0]}, ["a"])
    with pytest.raises(ValueError, match=r"target must be an integer in 0\.\.1, got 2"):
        plot_scores({"dot": [1.0, 2.0]}, target=2)
    with pytest.raises(ValueError, match="scores must be finite"):
        plot_score_weights([1.0, float("-inf")])
    with pytest.raises(ValueError, match=r"align\[1\] must be an integer in 0\.\.2, got 3"):
        plot_alignments({"dot": torch.rand(2, 3)}, list("abc"), list("xy"), align=[0, 3])
    with pytest.raises(ValueError, match="tgt_labels has 3 labels but the data has 2 entries"):
        plot_alignments({"dot": torch.rand(2, 3)}, list("abc"), list("xyz"))
    with pytest.raises(ValueError, match="ncols must be a positive integer, got 0"):
        plot_alignments({"dot": torch.rand(2, 3)}, list("abc"), list("xy"), ncols=0)
    with pytest.raises(
        ValueError, match=r"values\['b'\] has series \['x'\], expected \['x', 'y'\]"
    ):
        plot_grouped_bars({"a": {"x": 1.0, "y": 0.5}, "b": {"x": 1.0}})


def test_scoring_widget_rerenders_on_change():
    pytest.importorskip("ipywidgets")
    scores = {"dot": torch.randn(3, 4), "additive": torch.randn(3, 4)}
    box = scoring_widget(scores, ["x", "y", "z"], list("abcd"), targets=[0, 1, 3], query=1)
    controls, image = box.children
    score, query = controls.children
    assert list(score.options) == ["dot", "additive"] and (query.min, query.max) == (0, 2)
    assert (score.value, query.value) == ("dot", 1)
    first = bytes(image.value)
    assert first.startswith(b"\x89PNG")
    query.value = 2
    second = bytes(image.value)
    score.value = "additive"
    third = bytes(image.value)
    assert len({first, second, third}) == 3 and third.startswith(b"\x89PNG")


def test_scoring_widget_rejects_bad_input():
    with pytest.raises(ValueError, match=r"scores\['dot'\] must be 2-D, got shape \(4,\)"):
        scoring_widget({"dot": torch.randn(4)})
    with pytest.raises(ValueError, match="query_labels has 2 labels but the data has 3 entries"):
        scoring_widget({"dot": torch.randn(3, 4)}, ["x", "y"])
    with pytest.raises(ValueError, match=r"targets\[0\] must be an integer in 0\.\.3, got -1"):
        scoring_widget({"dot": torch.randn(3, 4)}, targets=[-1, 0, 0])
    with pytest.raises(ValueError, match=r"score='cosine' is not one of \['dot'\]"):
        scoring_widget({"dot": torch.randn(3, 4)}, score="cosine")
    with pytest.raises(ValueError, match=r"query must be an integer in 0\.\.2, got 3"):
        scoring_widget({"dot": torch.randn(3, 4)}, query=3)


def test_scoring_widget_grid_offers_values_of_the_widgets_controls():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    scores = {"dot": torch.randn(6, 4), "additive": torch.randn(6, 4)}
    box = scoring_widget(scores, query=3)
    controls = widget_controls(box)
    for query, wanted in ((3, [3, 4]), (5, [4, 5]), (0, [0, 1])):
        grid = scoring_widget_grid(scores, query=query, max_queries=2)
        assert grid == {"score": ["dot", "additive"], "query": wanted}
        assert set(grid) == set(controls)
        assert all(v in controls["score"].options for v in grid["score"])
        assert all(controls["query"].min <= v <= controls["query"].max for v in grid["query"])
    assert scoring_widget_grid(scores)["query"] == list(range(6))  # 12 >= 6: all of them
    with pytest.raises(ValueError, match=r"query must be an integer in 0\.\.5, got 6"):
        scoring_widget_grid(scores, query=6)
    with pytest.raises(ValueError, match="max_queries"):
        scoring_widget_grid(scores, max_queries=0)


def _pairs():
    from lecturekit.datasets.translation import Pair

    return [Pair(("the", "black", "cat"), ("le", "chat", "noir"), (0, 2, 1)),
            Pair(("a", "dog"), ("un", "chien"), (0, 1))]  # fmt: skip


def test_plot_translation_writes_verdicts_above_the_weights_of_the_last_model():
    pair = _pairs()[0]
    outputs = {"no attention": ["le", "chien"], "attention": ["le", "chat", "noir"]}
    weights = torch.rand(5, 4)  # padded beyond (3 output words, 3 source words)
    fig = plot_translation(pair.src, pair.tgt, outputs, weights)
    assert isinstance(fig, Figure)
    text = fig.texts[0].get_text()
    assert "no attention: le chien  ✗ (first wrong word: 2)" in text
    assert "attention: le chat noir  ✓" in text and "source: the black cat" in text
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.images[0].get_array(), weights[:3, :3].numpy())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["le", "chat", "noir"]
    assert "3 source words" in ax.get_title()
    short = plot_translation(pair.src, pair.tgt, {"m": ["le", "chat"]}, weights)
    assert "✗ (first wrong word: 3)" in short.texts[0].get_text()  # stopped early


def test_translation_widget_rerenders_on_change():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import ALT_ATTR, widget_controls

    pairs = _pairs()
    outputs = {"none": [["le", "chien"], ["un", "chat"]],
               "attention": [["le", "chat", "noir"], ["un", "chien"]]}  # fmt: skip
    box = translation_widget(pairs, outputs, torch.rand(2, 4, 3), sentence=2)
    slider = widget_controls(box)["sentence"]
    image = box.children[1]
    assert (slider.min, slider.max, slider.value) == (1, 2, 2)
    second = bytes(image.value)
    slider.value = 1
    assert bytes(image.value) != second and getattr(image, ALT_ATTR)
    maps = [torch.rand(3, 3), torch.rand(2, 2)]  # a list of maps works too
    assert translation_widget(pairs, outputs, maps).children


def test_translation_plots_reject_bad_input():
    pairs = _pairs()
    outputs = {"attention": [["le", "chat", "noir"], ["un", "chien"]]}
    with pytest.raises(ValueError, match=r"weights must cover the last translation's 3 words x "
                                         r"3 source words, got shape \(2, 3\)"):  # fmt: skip
        plot_translation(pairs[0].src, pairs[0].tgt, {"a": ["le", "chat", "noir"]},
                         torch.rand(2, 3))  # fmt: skip
    with pytest.raises(ValueError, match="translations is empty: expected label -> output words"):
        plot_translation(pairs[0].src, pairs[0].tgt, {}, torch.rand(3, 3))
    pytest.importorskip("ipywidgets")
    with pytest.raises(ValueError, match=r"pairs\[1\] must be"):
        translation_widget([pairs[0], "a dog"], outputs, torch.rand(2, 3, 3))
    with pytest.raises(ValueError, match=r"translations\['attention'\] has 1 labels but the "
                                         "data has 2 entries"):  # fmt: skip
        translation_widget(pairs, {"attention": [["le"]]}, torch.rand(2, 3, 3))
    with pytest.raises(ValueError, match=r"weights \(pair 1\) must cover"):
        translation_widget(pairs, outputs, [torch.rand(3, 3), torch.rand(1, 1)])
    with pytest.raises(ValueError, match=r"sentence - 1 must be an integer in 0\.\.1, got 2"):
        translation_widget(pairs, outputs, torch.rand(2, 3, 3), sentence=3)
