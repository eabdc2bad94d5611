"""Lecture 11b's plots and widgets draw, and refuse bad input with a ValueError naming it; the
forecaster experiment is seeded and deterministic."""

import matplotlib

matplotlib.use("Agg")

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.datasets.variants import pointer_chains
from lecturekit.efficient.logsparse import layers_to_reach_all
from lecturekit.efficient.universal import UniversalConfig, UniversalTransformer
from lecturekit.experiments.variants import (
    ShapeForecaster,
    forecast_mse,
    heldout_series,
    train_forecaster,
)
from lecturekit.viz.variants import (
    act_widget,
    act_widget_grid,
    compressed_widget,
    compressed_widget_grid,
    logsparse_widget,
    logsparse_widget_grid,
    plot_act_tokens,
    plot_compressed_weights,
    plot_depth_table,
    plot_series_attention,
)


def test_plots_draw():
    ax = Figure().subplots()
    table = {"depth": [0, 1], "steps": [1.0, 2.0], "accuracy": [1.0, 0.9]}
    plot_depth_table({"a": table, "b": table}, ax)
    plot_act_tokens(["v1", "→0"], [1.0, 2.0], [0, 1], Figure().subplots())
    plot_compressed_weights(torch.rand(6, 3), 2, Figure().subplots())
    plot_series_attention(torch.randn(10), torch.rand(10), 4, Figure().subplots())


def test_widgets_build():
    model = UniversalTransformer(UniversalConfig.tiny(18, 8, max_steps=2)).eval()
    batch = pointer_chains(3)
    for widget in (
        logsparse_widget(8),
        compressed_widget(12),
        act_widget(model, batch.ids, batch.depth),
    ):
        assert widget.children


def _controls(widget):
    """name -> control of a ``figure_widget`` (its first child holds the controls)."""
    return {c.description: c for c in widget.children[0].children}


def test_every_grid_value_is_a_setting_of_the_widget_and_redraws_it():
    pytest.importorskip("ipywidgets")
    model = UniversalTransformer(UniversalConfig.tiny(18, 8, max_steps=2)).eval()
    batch = pointer_chains(3)
    cases = [
        (logsparse_widget(32), logsparse_widget_grid()),
        (compressed_widget(12), compressed_widget_grid(12)),
        (act_widget(model, batch.ids, batch.depth), act_widget_grid(3)),
    ]
    for widget, grid in cases:
        controls, image = _controls(widget), widget.children[1]
        assert set(grid) == set(controls)
        for name, values in grid.items():
            control, seen = controls[name], set()
            for value in values:
                assert control.min <= value <= control.max, (name, value)
                control.value = value
                seen.add(bytes(image.value))
            assert len(seen) == len(values), f"{name}: some settings draw the same image"
    assert compressed_widget_grid(3) == {"stride": [1, 2, 3]}
    grid = logsparse_widget_grid()  # notebook 11b starts at n=32, local=0, layers=2
    assert 32 in grid["n"] and 0 in grid["local"] and 2 in grid["layers"]
    for n in grid["n"]:  # the first number of layers that reaches everything, and the one before
        all_reach = layers_to_reach_all(n)
        assert {all_reach - 1, all_reach} <= set(grid["layers"])
    with pytest.raises(ValueError, match="n_sequences"):
        act_widget_grid(0)


def test_forecaster_is_seeded():
    a, losses_a = train_forecaster(2, steps=3, seed=1)
    b, losses_b = train_forecaster(2, steps=3, seed=1)
    assert losses_a == losses_b and len(losses_a) == 3
    series = heldout_series(4)
    assert forecast_mse(a, series) == forecast_mse(b, series)
    pred, weights = ShapeForecaster(3)(series)
    assert pred.shape == series.shape and weights.shape == (4, 2, 48, 48)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: plot_depth_table({}), "tables"),
        (lambda: plot_act_tokens(["a"], [1.0, 2.0], [0, 1]), "labels"),
        (lambda: plot_compressed_weights(torch.rand(4, 2), 0), "stride"),
        (lambda: plot_series_attention(torch.randn(5), torch.rand(4), 1), "weights"),
        (lambda: plot_series_attention(torch.randn(5), torch.rand(5), 7), "query"),
        (lambda: logsparse_widget(n=200), "n"),
        (lambda: compressed_widget(n=0), "n"),
        (lambda: train_forecaster(0), "kernel"),
        (lambda: ShapeForecaster(2)(torch.randn(2, 5, dtype=torch.float64)), "x"),
        (lambda: forecast_mse(ShapeForecaster(2), torch.randn(5)), "x"),
    ],
)
def test_bad_inputs_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()
