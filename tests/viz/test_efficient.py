"""lecturekit.viz.efficient: the LSH panels, cost curves, dependency plots, widget."""

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.viz.efficient import (
    lsh_panel_example,
    lsh_widget,
    lsh_widget_grid,
    plot_cost_curves,
    plot_dependency,
    plot_lsh_panels,
)

pytestmark = pytest.mark.usefixtures("one_thread")


def test_plots_and_widget():
    q, k = lsh_panel_example()
    fig = plot_lsh_panels(q, k, 4, 4, seed=1, fig=Figure())
    assert len([a for a in fig.axes if a.images]) == 4
    assert len(plot_lsh_panels(q, k, 4, 4, fig=Figure(), ncols=2).axes) == 4
    with pytest.raises(ValueError, match=r"q and k must have the same shape \(T, D\)"):
        plot_lsh_panels(q, k[:5], 4, 4)
    ax = Figure().add_subplot()
    plot_cost_curves([1, 2, 4], {"a": [1, 2, 4]}, ax)
    assert len(ax.lines) == 3  # the curve and the two guides
    with pytest.raises(ValueError, match=r"ys\['a'\] has 2 values but there are 3 ns"):
        plot_cost_curves([1, 2, 4], {"a": [1, 2]}, Figure().add_subplot())
    plot_dependency(torch.ones(8, 8, dtype=torch.bool).tril(), 4, Figure().add_subplot())
    widget = lsh_widget(q, k)
    assert widget.children[1].value[:4] == b"\x89PNG"
    widget.children[0].children[2].value = 3  # the hash seed: redraws
    with pytest.raises(ValueError, match=r"chunk_size=5 must divide T=24"):
        lsh_widget(q, k, chunk_size=5)


def test_lsh_grid_values_are_settings_of_the_widget_and_redraw_it():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    q, k = lsh_panel_example()
    widget = lsh_widget(q, k, n_buckets=4, chunk_size=4, seed=1)  # notebook 11's start
    controls, image = widget_controls(widget), widget.children[1]
    grid = lsh_widget_grid(24)
    assert set(grid) == set(controls)
    assert grid["n_buckets"] == [2, 4, 8, 16] and grid["chunk_size"] == [2, 4, 12]
    for name, values in grid.items():
        control, seen = controls[name], set()
        if hasattr(control, "options"):
            offered = list(control.options)
        else:
            offered = list(range(control.min, control.max + 1))
        start = control.value
        for value in values:
            assert value in offered, (name, value)
            control.value = value
            seen.add(bytes(image.value))
        assert len(seen) == len(values), f"{name}: some settings draw the same image"
        control.value = start
    assert lsh_widget_grid(12)["chunk_size"] == [2, 4]
    with pytest.raises(ValueError, match="T=7"):
        lsh_widget_grid(7)
    with pytest.raises(ValueError, match="T"):
        lsh_widget_grid(0)
