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


# ---------------------------------------------------------------- drawing once, drawing ahead


def _counting_widget(**kwargs):
    """A figure_widget over a slider (0..6) and a checkbox whose render counts its calls."""
    w = pytest.importorskip("ipywidgets")
    from matplotlib.figure import Figure

    calls = []

    def render(n, flag):
        calls.append((n, flag))
        fig = Figure(figsize=(2, 1.5))
        fig.add_subplot().bar(range(n + 1), range(n + 1), color="C1" if flag else "C0")
        return fig

    controls = {"n": w.IntSlider(value=3, min=0, max=6), "flag": w.Checkbox(value=False)}
    return widgets.figure_widget(render, controls, **kwargs), controls, calls


def test_render_png_gives_the_pixels_savefig_gives():
    import io

    import numpy as np
    from matplotlib.figure import Figure
    from PIL import Image

    from lecturekit.viz.style import theme

    with theme("dark"):
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        ax.plot([0, 1, 3], label="a line")
        ax.set_title("a title")
        ax.legend()
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80)
        png = widgets.render_png(fig, dpi=80)
    old, new = (np.asarray(Image.open(io.BytesIO(b))) for b in (buf.getvalue(), png))
    assert old.shape == new.shape == (160, 240, 4)
    assert (old == new).all()
    assert fig.dpi == 100  # the figure is left as it was


def test_a_setting_drawn_before_is_shown_without_drawing_again():
    box, controls, calls = _counting_widget()
    image = box.children[1]
    first = bytes(image.value)
    controls["n"].value = 5
    controls["n"].value = 3
    assert bytes(image.value) == first
    controls["flag"].value = True
    controls["n"].value = 5
    assert calls == [(3, False), (5, False), (3, True), (5, True)]


def test_a_changed_state_draws_everything_anew():
    version = [0]
    _, controls, calls = _counting_widget(state=lambda: version[0])
    controls["n"].value = 4
    controls["n"].value = 3
    assert len(calls) == 2
    version[0] = 1  # e.g. the model took an optimizer step
    controls["n"].value = 4
    assert calls[-1] == (4, False) and len(calls) == 3
    with pytest.raises(ValueError, match="state must be callable"):
        _counting_widget(state=42)


def test_settings_one_move_away_are_drawn_while_idle(monkeypatch):
    import time

    monkeypatch.setattr(widgets, "IDLE_SECONDS", 0.05)
    widgets.draw_ahead(True)
    try:
        _, controls, calls = _counting_widget()
        deadline = time.monotonic() + 30
        wanted = {(2, False), (4, False), (3, True), (0, False), (6, False)}
        while not wanted <= set(calls) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert wanted <= set(calls), calls
        assert calls[1:3] == [(2, False), (3, True)]  # one step of every control comes first
        widgets.draw_ahead(False)
        time.sleep(0.3)  # the frame being drawn, if any, ends
        drawn = len(calls)
        controls["n"].value = 4
        controls["n"].value = 6
        assert len(calls) == drawn  # both were drawn ahead: nothing drawn now
    finally:
        widgets.draw_ahead(False)


def test_nearby_values_start_next_to_the_current_one():
    w = pytest.importorskip("ipywidgets")
    assert widgets.nearby_values(w.IntSlider(value=2, min=0, max=5)) == [1, 3, 0, 4, 5]
    assert widgets.nearby_values(w.Dropdown(options=["a", "b", "c"], value="b")) == ["a", "c"]
    assert widgets.nearby_values(w.SelectionSlider(options=[1, 2, 4], value=1)) == [2, 4]
    assert widgets.nearby_values(w.Checkbox(value=True)) == [False]
    log = w.FloatLogSlider(value=8.0, base=2, min=-2, max=7, step=0.5)
    assert widgets.nearby_values(log)[:2] == [2**2.5, 2**3.5]
    assert widgets.nearby_values(w.Text(value="hi")) == []
    assert widgets.nearby_values(w.IntRangeSlider(value=(1, 2), min=0, max=4)) == []
    assert widgets.nearby_values(w.IntSlider(value=1, min=0, max=3, disabled=True)) == []
    hidden = w.Dropdown(options=[1, 2], value=1)
    hidden.layout.display = "none"
    assert widgets.nearby_values(hidden) == []
    controls = {"a": w.IntSlider(value=0, max=3), "b": w.Checkbox(value=False)}
    near = {k: widgets.nearby_values(c) for k, c in controls.items()}
    got = widgets.settings_nearby(controls, {"a": 0, "b": False}, near, limit=3)
    assert got == [{"a": 1, "b": False}, {"a": 0, "b": True}, {"a": 2, "b": False}]


def test_draw_ahead_takes_a_bool():
    with pytest.raises(ValueError, match="enabled must be True or False, got 'yes'"):
        widgets.draw_ahead("yes")


def test_a_frame_drawn_ahead_gives_way_to_a_redraw_the_student_waits_for(monkeypatch):
    import threading

    w = pytest.importorskip("ipywidgets")
    from matplotlib.figure import Figure

    monkeypatch.setattr(widgets, "IDLE_SECONDS", 0.05)
    started, release = threading.Event(), threading.Event()
    pngs = []
    original = widgets.render_png
    monkeypatch.setattr(widgets, "render_png",
                        lambda fig, dpi=100: pngs.append(fig.n) or original(fig, dpi))  # fmt: skip

    def render(n):
        if threading.current_thread().name == "lecturekit-draw-ahead" and not release.is_set():
            started.set()
            release.wait(10)  # the first frame drawn ahead is stuck here, the lock held
        fig = Figure(figsize=(1, 1))
        fig.n = n
        return fig

    slider = w.IntSlider(value=3, min=0, max=6)
    widgets.draw_ahead(True)
    try:
        widgets.figure_widget(render, {"n": slider})
        assert started.wait(10)  # drawing n=2 ahead
        moved = threading.Thread(target=lambda: setattr(slider, "value", 6))
        moved.start()  # the student's move waits for the lock
        while widgets.DRAW_AHEAD.wanted == 0 and moved.is_alive():
            moved.join(0.01)
        release.set()
        moved.join(10)
        assert not moved.is_alive() and widgets.DRAW_AHEAD.wanted == 0
        assert pngs[:2] == [3, 6]  # n=2 gave way before its PNG; the student's n=6 came next
    finally:
        release.set()
        widgets.draw_ahead(False)


def test_ahead_job_draws_the_first_setting_not_drawn_and_stops_when_invalid():
    drawn, ok = [{"n": 1}], [True]
    pending = [{"n": 1}, {"n": 2}, {"n": 3}]
    job = widgets.ahead_job(pending, lambda v: v in drawn, drawn.append, valid=lambda: ok[0])
    assert job() is True and drawn == [{"n": 1}, {"n": 2}]  # n=1 was drawn already: skipped
    ok[0] = False
    assert job() is False and pending == [{"n": 3}]  # the model changed: nothing more drawn

    def give_way(_values):
        raise widgets.GiveWay

    again = [{"n": 4}]
    assert widgets.ahead_job(again, lambda v: False, give_way)() is True
    assert again == [{"n": 4}]  # put back first, drawn later
