"""lecturekit.viz.plots and style: pure plot functions, the look applied only in context."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from lecturekit.masking import causal_mask
from lecturekit.viz import (
    palette,
    plot_attention,
    plot_bars,
    plot_heads,
    plot_heatmap,
    plot_lines,
    plot_mask,
    rc,
    theme,
)


def test_plot_attention_draws_the_weights():
    w = torch.softmax(torch.randn(3, 4), -1)
    ax = plot_attention(w, ["a", "b", "c"], ["w", "x", "y", "z"])
    image = ax.get_images()[0]
    np.testing.assert_allclose(image.get_array(), w.numpy(), rtol=1e-6)
    assert image.get_clim() == (0.0, 1.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert len(ax.texts) == 12  # annotated: small map


def test_plot_mask_writes_M():
    ax = plot_mask(causal_mask(3), ["a", "b", "c"])
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("0") == 6 and texts.count("\u2212\u221e") == 3


def test_other_plots_return_axes_or_figure():
    fig, ax = plt.subplots()
    assert plot_heatmap(torch.randn(4, 6), ax, diverging=True) is ax
    lo, hi = ax.get_images()[0].get_clim()
    assert lo == -hi
    ax = plot_lines([1, 2, 3], {"a": [1, 2, 3], "b": [3, 2, 1]})
    assert len(ax.get_lines()) == 2
    ax = plot_bars([0.88, 0.12], ["Thinking", "Machines"])
    assert [t.get_text() for t in ax.texts] == ["0.88", "0.12"]
    fig = plot_heads(torch.softmax(torch.randn(3, 4, 4), -1), list("abcd"), ncols=2)
    assert len([a for a in fig.axes if a.get_images()]) == 3


def test_plots_reject_bad_input():
    with pytest.raises(ValueError, match=r"weights must be 2-D \(Tq, Tk\), got shape \(2, 3, 4\)"):
        plot_attention(torch.rand(2, 3, 4))
    with pytest.raises(ValueError, match="row_labels has 2 labels but the data has 3"):
        plot_attention(torch.rand(3, 3), ["a", "b"])
    with pytest.raises(ValueError, match="mask must be bool"):
        plot_mask(torch.ones(2, 2))
    with pytest.raises(ValueError, match=r"ys\['a'\] has shape \(2,\) but x has shape \(3,\)"):
        plot_lines([1, 2, 3], {"a": [1, 2]})
    with pytest.raises(ValueError, match="theme='blue' is not one of"):
        rc("blue")


def test_style_is_applied_only_in_context():
    before = dict(plt.rcParams)
    with theme("dark"):
        assert plt.rcParams["axes.facecolor"] == rc("dark")["axes.facecolor"]
    assert dict(plt.rcParams) == before
    assert len(palette()) >= 6
