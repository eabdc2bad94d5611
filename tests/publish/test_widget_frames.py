"""Every widget of every notebook is registered (lecturekit_publish.figures.register_widget) and its
rebuild starts on the very picture the notebook stored."""

from __future__ import annotations

import math
import time

import pytest
from notebook_links import ROOT  # tests/support

from lecturekit.viz.widgets import widget_controls
from lecturekit_publish import figures
from lecturekit_publish.frames import Image, derive_grid, render_frames
from lecturekit_publish.notebook import (
    lecture_notebooks,
    read_notebook,
    same_picture,
    stored_images,
    widget_outputs,
)

NOTEBOOKS = lecture_notebooks(ROOT / "notebooks")

pytestmark = pytest.mark.usefixtures("one_thread")  # as the site renders them (tests/conftest.py)

SECONDS_PER_WIDGET = 15.0  # rebuild + first frame, wall time on a shared CI core
MAX_FRAMES = 300  # settings of one widget's grid (render_frames' default limit)


@pytest.mark.parametrize("lecture", list(NOTEBOOKS))
def test_every_widget_of_the_notebook_is_registered_in_order(lecture):
    path = NOTEBOOKS[lecture]
    outputs = widget_outputs(read_notebook(path))
    indices = sorted(figures.widget_spec(n).index for n in figures.widget_names(lecture))
    assert indices == list(range(len(outputs))), (
        f"{path.name} has {len(outputs)} widget outputs; registered widget indices: {indices}"
    )


@pytest.mark.parametrize("name", figures.widget_names())
def test_the_rebuilt_widget_starts_on_the_notebooks_picture(name):
    """The widget rebuilt starts where the notebook's does: its first frame is the picture the
    notebook stored (mean pixel difference <= 0.01), with alt text; its grid has at most 300
    settings, each a value its controls offer (derive_grid). That every control changes what the
    page shows is checked on the built site (tests/test_site.py), which renders every frame."""
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
    static = render_frames(widget, {k: [c.value] for k, c in controls.items()})
    seconds = time.perf_counter() - start
    assert seconds <= SECONDS_PER_WIDGET, f"{name}: {seconds:.1f} s"
    (first,) = static.frames.values()
    shown = [v for v in first if isinstance(v, Image)]
    assert all(v.alt.strip() for v in shown), f"{name}: an image without alt text"
    stored = stored_images(nb, outputs[spec.index].model_id)
    assert len(shown) == len(stored), f"{name}: {len(shown)} images vs {len(stored)} stored"
    for mine, saved in zip(shown, stored, strict=True):
        assert same_picture(mine.png, saved), f"{name}: first frame differs from the notebook's"
