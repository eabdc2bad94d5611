"""Text drawn faster by Agg, with the same pixels: what a widget's redraw spends most on.

A widget's frame is mostly words (tick labels, translations, tokens, a beam tree's texts), and
matplotlib's Agg renderer lays each text out (HarfBuzz) and rasterises each of its glyphs
(FreeType) again on every draw: in lecture 01's translation widget that was a third of a
redraw (11,700 glyphs in 13 frames). ``TextCachingRenderer`` keeps both:

- the layout of a string (its glyphs and their offsets), per font, size, dpi, features and
  language, and its measures (width, height, descent: what the layout of a Figure asks for):
  the same string laid out again gives the same glyphs;
- the bitmap of a glyph, per font, size, dpi, transform and the glyph's position within a pixel
  (its sub-pixel phase, 1/64 px, as FreeType positions it): a glyph rasterised at a position
  shifted by whole pixels is the same bitmap shifted, so it is drawn from the cache at its
  place, with the same coverage values Agg would blend.

Every pixel is the one ``RendererAgg`` draws (tests/viz/test_text_cache.py compares the two on
every slide figure and widget frames). The glyph path uses matplotlib 3.11's own private steps
(``FT2Font._layout``, ``_set_transform``, ``_render_glyph``, the renderer's
``_draw_text_glyphs_and_boxes``); where a matplotlib lacks them, the renderer draws text as
``RendererAgg`` does. Used by ``lecturekit.viz.widgets`` (``render_png``, ``KeptCanvas``).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.ft2font import FT2Font, RenderMode

__all__ = ["TextCachingRenderer", "TextCachingCanvas", "clear_text_cache"]

# matplotlib 3.11's text steps this module repeats (private): without them, plain RendererAgg
SUPPORTED = all(hasattr(FT2Font, n) for n in ("_layout", "_set_transform", "_render_glyph")) and (
    hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
)
MAX_LAYOUTS = 20_000  # strings; a widget's frames hold a few hundred
MAX_GLYPHS = 20_000  # bitmaps of ~100-300 bytes each (a few MB at most)

_layouts: dict[tuple, tuple] = {}
_metrics: dict[tuple, tuple] = {}
_glyphs: dict[tuple, tuple] = {}


def clear_text_cache() -> None:
    """Forget every layout and glyph kept (they are kept for the process, across Figures)."""
    _layouts.clear()
    _metrics.clear()
    _glyphs.clear()


class TextCachingRenderer(RendererAgg):
    """``RendererAgg`` that lays out each string and rasterises each glyph once (see the
    module); every pixel the same."""

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath or not SUPPORTED:
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        font = self._prepare_font(prop)
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        size = prop.get_size_in_points()
        flags = get_hinting_flag()
        key = (id(font), size, self.dpi, s, flags,
               tuple(features) if features is not None else None, language)  # fmt: skip
        found = _layouts.get(key)
        if found is None:
            items = font._layout(s, flags=flags, features=features, language=language)
            found = font, tuple((i.ft_object, i.glyph_index, i.x, i.y) for i in items)
            if len(_layouts) >= MAX_LAYOUTS:
                _layouts.clear()
            _layouts[key] = found  # the font kept with it: its id is not reused meanwhile
        self._draw_text_glyphs_and_boxes(
            gc,
            x,
            y,
            angle,
            ((obj, size, index, 0, 1, gx, gy) for obj, index, gx, gy in found[1]),
            [],
        )

    def get_text_width_height_descent(self, s, prop, ismath):
        if ismath or not SUPPORTED:
            return super().get_text_width_height_descent(s, prop, ismath)
        font = self._prepare_font(prop)
        key = (id(font), prop.get_size_in_points(), self.dpi, s, get_hinting_flag())
        found = _metrics.get(key)
        if found is None:
            found = super().get_text_width_height_descent(s, prop, ismath), font
            if len(_metrics) >= MAX_LAYOUTS:
                _metrics.clear()
            _metrics[key] = found
        return found[0]

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        if not SUPPORTED:
            return super()._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)
        # as RendererAgg's (matplotlib 3.11), each glyph's bitmap from the cache
        cos = math.cos(math.radians(angle))
        sin = math.sin(math.radians(angle))
        load_flags = get_hinting_flag()
        antialiased = gc.get_antialiased()
        mode = RenderMode.NORMAL if antialiased else RenderMode.MONO
        matrices: dict[tuple, np.ndarray] = {}
        height = self.height
        for font, size, glyph_index, slant, extend, dx, dy in glyphs:  # dy is upwards
            matrix = matrices.get((slant, extend))
            if matrix is None:
                matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]])
                          @ [[extend, extend * slant], [0, 1]]).round().astype(int)  # fmt: skip
                matrices[(slant, extend)] = matrix
            # the glyph's origin in FreeType's 1/64 px, y upwards
            ox = round(0x40 * (x + dx * cos - dy * sin))
            oy = round(0x40 * (height - y + dx * sin + dy * cos))
            key = (id(font), size, self.dpi, glyph_index, matrix.tobytes(), ox & 63, oy & 63,
                   load_flags, antialiased)  # fmt: skip
            found = _glyphs.get(key)
            if found is None:
                font.set_size(size, self.dpi)
                font._set_transform(matrix, [ox & 63, oy & 63])  # the phase within a pixel
                bitmap = font._render_glyph(glyph_index, load_flags, mode)
                buffer = np.array(bitmap.buffer)  # a copy: FreeType reuses its own
                if not antialiased:
                    buffer *= 0xFF
                found = buffer, bitmap.left, bitmap.top, font
                if len(_glyphs) >= MAX_GLYPHS:
                    _glyphs.clear()
                _glyphs[key] = found
            buffer, left, top, _ = found
            # shifted by the whole pixels of the origin; draw_text_image's y is downwards and
            # the bitmap's bottom side
            self._renderer.draw_text_image(
                buffer, left + (ox >> 6), int(height) - (top + (oy >> 6)) + buffer.shape[0], 0, gc
            )
        if boxes:
            super()._draw_text_glyphs_and_boxes(gc, x, y, angle, (), boxes)


class TextCachingCanvas(FigureCanvasAgg):
    """``FigureCanvasAgg`` drawing with a ``TextCachingRenderer``."""

    def get_renderer(self):
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = TextCachingRenderer(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer
