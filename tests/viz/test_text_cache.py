"""lecturekit.viz.text_cache: text drawn from cached layouts and glyph bitmaps gives every pixel
plain Agg gives, first draw and redraw, for the kinds of text the course's figures hold (sizes,
weights, rotations, fractional positions, mathtext with its rules, arrows and
symbols, text without antialiasing, two dpis), and for a text-heavy widget's frames. Every slide
figure is compared too, in tests/figures/test_figures.py."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lecturekit.viz import text_cache
from lecturekit.viz.text_cache import TextCachingCanvas, clear_text_cache


def _pixels(fig: Figure, canvas_class) -> np.ndarray:
    canvas = canvas_class(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def _texty(dpi: float) -> Figure:
    fig = Figure(figsize=(4, 3), dpi=dpi)
    ax = fig.add_subplot()
    words = ["attention", "is", "all", "you", "need", ",", "café", "ĳ", "Ω", "→", "√", "≤",
             "play", "##ing"]  # fmt: skip
    for i, word in enumerate(words):
        ax.text(0.013 + 0.0371 * i, 0.05 + 0.061 * i, word, fontsize=6 + i % 7,
                rotation=(0, 45, 90, 30)[i % 4], weight=("normal", "bold")[i % 2],
                style=("normal", "italic")[i % 3 == 0], family=("sans-serif", "monospace")[i % 5 == 0])  # fmt: skip
    ax.text(0.5, 0.9, r"$\mathrm{softmax}(QK^\top/\sqrt{d_k})V$", fontsize=11)
    ax.text(0.1, 0.8, "no antialiasing", antialiased=False, fontsize=9)
    ax.set_title("the same words, again: the same words")
    ax.set_xticks(np.linspace(0, 1, 7), [f"x{i}" for i in range(7)], rotation=45)
    fig.tight_layout()
    return fig


@pytest.mark.parametrize("dpi", [72, 100.5])
def test_cached_text_gives_the_pixels_agg_gives(dpi):
    clear_text_cache()
    fig = _texty(dpi)
    plain = _pixels(fig, FigureCanvasAgg)
    first = _pixels(fig, TextCachingCanvas)  # fills the caches
    assert text_cache._glyphs and text_cache._layouts
    again = _pixels(fig, TextCachingCanvas)  # from the caches
    assert (first == plain).all() and (again == plain).all()


def test_a_glyph_drawn_at_another_sub_pixel_phase_is_rasterised_for_it():
    clear_text_cache()
    fig = Figure(figsize=(3, 1), dpi=100)
    for k in range(16):  # the same letter at 16 positions within a pixel and across pixels
        fig.text(0.01 + k * 0.0613, 0.5, "a", fontsize=10)
    assert (_pixels(fig, TextCachingCanvas) == _pixels(fig, FigureCanvasAgg)).all()
    phases = {key[5:7] for key in text_cache._glyphs}
    assert len(phases) > 1, "every position fell on one phase: the test does not test"


def test_without_matplotlibs_private_steps_text_is_drawn_as_agg_draws_it(monkeypatch):
    monkeypatch.setattr(text_cache, "SUPPORTED", False)
    clear_text_cache()
    fig = _texty(80)
    assert (_pixels(fig, TextCachingCanvas) == _pixels(fig, FigureCanvasAgg)).all()
    assert not text_cache._glyphs and not text_cache._layouts


def _frames(name: str, control: str, values: list) -> list[np.ndarray]:
    import io

    from PIL import Image

    from lecturekit.viz.widgets import widget_controls
    from lecturekit_publish import figures

    widget, _ = figures.widget_spec(name).func()
    slider, image = widget_controls(widget)[control], widget.children[-1]
    out = []
    for value in values:
        slider.value = value
        out.append(np.asarray(Image.open(io.BytesIO(bytes(image.value)))))
    return out


@pytest.mark.parametrize(
    "name, control, values",
    [
        ("translation_by_length", "sentence", [20, 1, 20, 7, 13]),
        ("beam_size_and_alpha", "beam_size", [3, 1, 2]),
    ],
)
def test_a_text_heavy_widgets_frames_are_the_same_with_the_cache(name, control, values,
                                                                 one_thread, monkeypatch):  # fmt: skip
    """Lecture 01's translation widget (up to 2,000 glyphs a frame) and lecture 07's beam tree,
    on their kept canvases: every frame the same with the caches as without."""
    clear_text_cache()
    cached = _frames(name, control, values)
    monkeypatch.setattr(text_cache, "SUPPORTED", False)
    plain = _frames(name, control, values)
    assert len(cached) == len(plain) == len(values)
    for value, a, b in zip(values, cached, plain, strict=True):
        assert a.shape == b.shape and (a == b).all(), f"{name}: {control}={value}"
