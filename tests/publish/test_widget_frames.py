"""Every widget of every notebook is registered (lecturekit.figures.register_widget) and its
rebuild, driven through its grid, starts on the very picture the notebook stored, changes with
every control and renders within the website's time budget."""

from __future__ import annotations

import math
import time

import pytest
from notebook_links import ROOT  # tests/support

from lecturekit import figures
from lecturekit.publish.frames import Image, derive_grid, render_frames
from lecturekit.publish.notebook import (
    lecture_notebooks,
    read_notebook,
    same_picture,
    stored_images,
    widget_outputs,
)
from lecturekit.viz.widgets import widget_controls

NOTEBOOKS = lecture_notebooks(ROOT / "notebooks")

pytestmark = pytest.mark.usefixtures("one_thread")  # as the site renders them (tests/conftest.py)

SECONDS_PER_WIDGET = 15.0  # build + the frames around the start, wall time on a shared CI core
MAX_FRAMES = 300  # settings of one widget's grid (render_frames' default limit)


@pytest.mark.parametrize("lecture", list(NOTEBOOKS))
def test_every_widget_of_the_notebook_is_registered_in_order(lecture):
    path = NOTEBOOKS[lecture]
    outputs = widget_outputs(read_notebook(path))
    indices = sorted(figures.widget_spec(n).index for n in figures.widget_names(lecture))
    assert indices == list(range(len(outputs))), (
        f"{path.name} has {len(outputs)} widget outputs; registered widget indices: {indices}"
    )


def _acts_somewhere(widget, grid, k: int) -> bool:
    """Whether control ``k`` changes what the widget shows at some setting of the others."""
    static = render_frames(widget, grid)
    by_rest: dict[tuple, set] = {}
    for key, frame in static.frames.items():
        by_rest.setdefault(key[:k] + key[k + 1 :], set()).add(frame)
    return any(len(frames) > 1 for frames in by_rest.values())


@pytest.mark.parametrize("name", figures.widget_names())
def test_frames_start_where_the_notebook_does_and_every_control_acts(name):
    """The widget rebuilt, at its grid's settings around its start (each control through its
    values, the others where the notebook starts them; the site renders every combination, and
    tests/test_site.py times that): the first frame is the notebook's stored picture, each
    control changes what is shown, every image has alt text."""
    spec = figures.widget_spec(name)
    nb = read_notebook(NOTEBOOKS[spec.lecture])
    outputs = widget_outputs(nb)
    assert spec.index < len(outputs), f"{name}: the notebook has {len(outputs)} widgets"
    start = time.perf_counter()
    widget, grid = spec.func()
    controls = widget_controls(widget)
    full = derive_grid(controls, grid)
    settings = math.prod(len(v) for v in full.values())
    assert settings <= MAX_FRAMES, f"{name}: {settings} settings in its grid"
    initial = {k: c.value for k, c in controls.items()}
    first = None
    for name_k, values in full.items():
        star = {k: (values if k == name_k else [initial[k]]) for k in full}
        static = render_frames(widget, star)
        frames = list(static.frames.values())
        if first is None:
            first = static.frames[tuple(c.initial for c in static.controls)]
        for frame in frames:
            for v in frame:
                if isinstance(v, Image):
                    assert v.alt.strip(), f"{name}: a frame without alt text"
        if len(values) > 1 and len(set(frames)) == 1:  # it may act only with other settings
            assert _acts_somewhere(widget, grid, list(full).index(name_k)), (
                f"{name}: moving {name_k!r} never changes what it shows"
            )
    seconds = time.perf_counter() - start
    assert seconds <= SECONDS_PER_WIDGET, f"{name}: {seconds:.1f} s"

    shown = [v for v in first if isinstance(v, Image)]
    stored = stored_images(nb, outputs[spec.index].model_id)
    assert len(shown) == len(stored), f"{name}: {len(shown)} images vs {len(stored)} stored"
    for mine, saved in zip(shown, stored, strict=True):
        assert same_picture(mine.png, saved), f"{name}: first frame differs from the notebook's"
