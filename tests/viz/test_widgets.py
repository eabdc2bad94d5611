"""lecturekit.viz.widgets: the lectures' widgets redraw when a control changes; bad input."""

import pytest
import torch

from lecturekit.viz import widgets


@pytest.mark.parametrize(
    "make, control_index, new_value",
    [
        (lambda: widgets.softmax_temperature_widget([112, 96], ["T", "M"]), 0, 1.0),
        (lambda: widgets.scaling_widget(), 0, 1024),
        (
            lambda: widgets.head_widget(torch.softmax(torch.randn(2, 3, 4, 4), -1), list("abcd")),
            1,
            3,
        ),
        (lambda: widgets.positional_encoding_widget(), 1, 50),
        (lambda: widgets.mask_widget(), 0, "padding"),
    ],
)
def test_widgets_rerender_on_change(make, control_index, new_value):
    pytest.importorskip("ipywidgets")
    box = make()
    controls, image = box.children
    before = bytes(image.value)
    assert before.startswith(b"\x89PNG")
    controls.children[control_index].value = new_value
    after = bytes(image.value)
    assert after != before and after.startswith(b"\x89PNG")


def test_widgets_reject_bad_input():
    with pytest.raises(ValueError, match="scores must be 1-D"):
        widgets.softmax_temperature_widget([1.0])
    with pytest.raises(ValueError, match=r"weights must be \(H, T, T\) or \(L, H, T, T\)"):
        widgets.head_widget(torch.rand(4, 4), list("abcd"))


def _offers(box, grid):
    """Every value of ``grid`` is one the box's control of that name takes and keeps."""
    controls = widgets.widget_controls(box)
    assert set(grid) <= set(controls)
    for name, values in grid.items():
        for value in values:
            controls[name].value = value
            assert controls[name].value == value, f"{name} did not keep {value!r}"


@pytest.mark.parametrize(
    "make, make_grid",
    [
        (widgets.positional_encoding_widget, widgets.positional_encoding_widget_grid),
        (widgets.mask_widget, widgets.mask_widget_grid),
    ],
)
def test_widget_grids_hold_values_the_controls_offer(make, make_grid):
    pytest.importorskip("ipywidgets")
    box, grid = make(), make_grid()
    controls = widgets.widget_controls(box)
    for name, values in grid.items():  # each grid starts where the widget does
        assert controls[name].value in values
    _offers(box, grid)
    assert all(len(v) == len(set(v)) for v in grid.values())


def test_positional_encoding_grid_keeps_what_the_notebook_asks_for():
    grid = widgets.positional_encoding_widget_grid()
    assert 16 in grid["d_model"] and grid["dims"] == [(4, 7)]  # "d_model = 16", "dims 4-7"
    assert grid["d_model"] == [16, 32, 64, 128, 256, 512]
