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
