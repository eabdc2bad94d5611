"""lecturekit.viz.word_vectors and lecturekit.viz.recurrence: lecture 00's plots and widgets
(headless, Agg)."""

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.experiments.recurrence import (
    gradient_vs_distance,
    rnn_jacobian_decay,
    vaswani_table,
)
from lecturekit.experiments.word_vectors import SPECIALS, SenseSeparation, WordVocab
from lecturekit.viz import recurrence as vr
from lecturekit.viz import word_vectors as vw


@pytest.fixture(scope="module")
def curves():
    return gradient_vs_distance(length=8, dim=8, seeds=2)


@pytest.fixture(scope="module")
def decay():
    return rnn_jacobian_decay((0.5, 2.0), length=8, dim=8, seeds=2, fit_to=4)


@pytest.fixture(scope="module")
def vocab():
    words = (*SPECIALS, "dog", "cat", "bird", "tom")
    return WordVocab(words, torch.tensor([0, 0, 0, 3, 2, 2, 1]))


def test_neighbour_and_sense_plots():
    ax = vw.plot_neighbours([("cat", 0.9), ("bird", 0.5)], "dog", Figure().add_subplot())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["bird", "cat"]
    results = {"one": SenseSeparation(1.0, 1.0, 0.5), "two": SenseSeparation(0.9, 0.2, 1.0)}
    ax = vw.plot_sense_separation(results, Figure().add_subplot())
    assert len(ax.patches) == 4 and "acc 0.50" in [t.get_text() for t in ax.texts]


def test_recurrence_plots(curves, decay):
    ax = vr.plot_gradient_vs_distance(curves, Figure().add_subplot(), kinds=["RNN", "LSTM"])
    assert len(ax.lines) == 2 and ax.get_yscale() == "log"
    ax = vr.plot_jacobian_decay(decay, Figure().add_subplot())
    assert len(ax.lines) == 3
    rows = vaswani_table(ns=(16, 32), ds=(4, 8), n_path=(8,))
    assert vr.plot_path_lengths(rows, Figure().add_subplot()).lines
    ax = vr.plot_recurrence_table(rows, Figure().add_subplot())
    texts = [c.get_text().get_text() for c in ax.tables[0].get_celld().values()]
    assert "recurrent" in texts and "7 (O(n))" in texts


def test_widgets_update(vocab, curves, decay):
    pytest.importorskip("ipywidgets")
    vectors = torch.randn(len(vocab), 4, generator=torch.Generator().manual_seed(0))
    box = vw.neighbour_widget(vectors, vocab, ["dog", "tom"], k=3)
    image, first = box.children[1], bytes(box.children[1].value)
    for value in vw.neighbour_widget_grid(["dog", "tom"])["word"]:
        box.children[0].children[0].value = value
    assert bytes(image.value) != first
    box = vr.gradient_widget(curves, decay)
    sigma, gated = box.children[0].children
    image, first = box.children[1], bytes(box.children[1].value)
    grid = vr.gradient_widget_grid(decay)
    for value in grid["sigma"]:
        sigma.value = value
    gated.value = False
    assert bytes(image.value) != first


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: vw.plot_neighbours([], "dog"), "neighbours"),
        (lambda: vw.plot_neighbours([("a",)], "dog"), "neighbours"),
        (lambda: vw.plot_sense_separation({"a": 1}), "results"),
        (lambda: vr.plot_gradient_vs_distance("curves"), "curves"),
        (lambda: vr.plot_jacobian_decay(None), "decay"),
        (lambda: vr.plot_recurrence_table([{"layer": "x"}]), "rows"),
        (lambda: vr.plot_path_lengths("rows"), "rows"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_plot_gradient_refuses_an_unknown_kind(curves):
    with pytest.raises(ValueError, match="kinds"):
        vr.plot_gradient_vs_distance(curves, kinds=["CNN"])
