"""Thin ipywidgets over the pure plot functions and precomputed tensors.

Each widget re-renders a matplotlib Figure to PNG into an ``ipywidgets.Image``. Unlike
``ipywidgets.interactive`` (whose Output widget captures display messages), this keeps the
notebook cell's own outputs to the widget's stable repr, which nbval can compare.
ipywidgets is imported lazily, so lecturekit works without it.

Public API (each returns an ipywidgets.VBox)::

    figure_widget(render, controls, state=None)          # generic: render(**values) -> Figure
    render_png(fig, dpi=100) -> bytes                    # what savefig gives, a third faster
    KeptCanvas(fig)                                      # a Figure a widget updates in place
    FigureArtistStandIn(artist)                          # a legend / suptitle redrawn over it
    module_state(*modules) -> tuple                      # changes when weights or mode change
    draw_ahead(enabled)                                  # settings one move away, drawn while idle
    attach_controls(box, controls) / widget_controls(box) # name -> control, for static frames
    softmax_temperature_widget(scores, labels=None)      # lecture 03: softmax(s / tau)
    scaling_widget(num_keys=8, seed=0)                   # lecture 03: why divide by sqrt(d_k)
    head_widget(weights, labels)                         # lecture 04: pick layer / head
    positional_encoding_widget()                         # lecture 05: d_model, max_len, dims
    mask_widget(seed=0)                                  # lecture 06: mask type and lengths
    positional_encoding_widget_grid()                    # the values a static page pre-renders
    mask_widget_grid()                                   # the values a static page pre-renders
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import struct
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import torch
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure

from lecturekit.masking import causal_mask, combine_masks, masked_softmax, padding_mask
from lecturekit.positional import sinusoidal_encoding
from lecturekit.utils.checks import (
    check_callable,
    check_choice,
    check_instance,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
)
from lecturekit.viz.alt import figure_alt_text
from lecturekit.viz.helpers import check_labels, check_numbers, require_ipywidgets, to_numpy
from lecturekit.viz.plots import plot_attention, plot_bars, plot_heatmap, plot_lines, plot_mask
from lecturekit.viz.style import rc
from lecturekit.viz.style import theme as theme_context
from lecturekit.viz.text_cache import TextCachingCanvas

__all__ = [
    "attach_controls",
    "widget_controls",
    "figure_widget",
    "render_png",
    "KeptCanvas",
    "FigureArtistStandIn",
    "module_state",
    "draw_ahead",
    "DRAW_AHEAD",
    "GiveWay",
    "nearby_values",
    "settings_nearby",
    "ahead_job",
    "softmax_temperature_widget",
    "scaling_widget",
    "head_widget",
    "positional_encoding_widget",
    "mask_widget",
    "positional_encoding_widget_grid",
    "mask_widget_grid",
]

_D_MODELS = (16, 32, 64, 128, 256, 512)  # the choices of positional_encoding_widget


def render_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a Figure to PNG bytes in memory (no file is written): the pixels
    ``fig.savefig(format="png", dpi=dpi)`` gives, drawn once by Agg (savefig's extra layout
    pass made every widget redraw a third slower) and encoded by ``_png``. A Figure with a
    ``KeptCanvas`` is drawn by it (its layout, text sizes and unchanged artists kept)."""
    check_instance("fig", fig, Figure)
    check_positive_int("dpi", dpi)
    from matplotlib import rcParams

    face = rcParams["savefig.facecolor"]
    old = fig.dpi, fig.get_facecolor(), fig.canvas
    try:
        fig.dpi = dpi
        if not (isinstance(face, str) and face == "auto"):
            fig.set_facecolor(face)
        canvas = fig.canvas if isinstance(fig.canvas, KeptCanvas) else TextCachingCanvas(fig)
        canvas.draw()
        return _png(np.asarray(canvas.buffer_rgba()), dpi)
    finally:
        fig.dpi = old[0]
        fig.set_facecolor(old[1])
        fig.set_canvas(old[2])


def _png(rgba: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of an (H, W, 4) uint8 RGBA image: every row filtered "up" (its difference to
    the row above: zeros where a figure is plain) and deflated at zlib level 3. Pillow tries
    five filters per row and compresses harder: 2-3x slower, for files a few per cent smaller.
    """
    height, width = rgba.shape[:2]
    rows = rgba.reshape(height, 4 * width)
    data = np.empty((height, 1 + 4 * width), np.uint8)
    data[:, 0] = 2  # the row's filter: "up"
    data[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=data[1:, 1:])  # modulo 256, as PNG wants

    def chunk(kind: bytes, body: bytes) -> bytes:  # length, kind, body, checksum
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    per_metre = round(dpi / 0.0254)
    return b"".join([
        b"\x89PNG\r\n\x1a\n",
        chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)),  # 8-bit RGBA
        chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),  # the dpi, per metre
        chunk(b"IDAT", zlib.compress(data.tobytes(), 3)),
        chunk(b"IEND", b""),
    ])  # fmt: skip


_SUBPLOT_PARAMS = ("left", "right", "bottom", "top", "wspace", "hspace")


class KeptCanvas(TextCachingCanvas):
    """The Agg canvas of a Figure a widget builds once and then updates in place: its
    ``render`` (``figure_widget``) changes the artists a control moves (``set_data``,
    ``set_text``, ...) and returns the same Figure. ``KeptCanvas(fig)``, right after
    ``Figure(...)``, attaches it. What a new Figure would do again on every move of a control is
    then done once:

    - the layout: ``layout(key)`` runs ``tight_layout`` as on a new Figure (from the subplot
      parameters the Figure was made with) the first time it meets ``key`` and reuses the
      result after; ``key`` names everything the layout depends on (what sticks out of the
      panels: tick labels, legends; titles only by their height, as ``tight_layout`` narrows
      them to a pixel), so the layout is the one a new Figure gets;
    - the artists that stay: the artists a control changes are marked animated
      (``artist.set_animated(True)``); ``background`` names what all the others show. The
      others are drawn once per background (and layout) and kept as pixels (the last
      ``BACKGROUNDS``); each redraw puts those back and draws the animated artists over them,
      in the order ``Figure.draw`` draws them. Mark animated too what a full redraw draws
      over an animated artist where they meet (the spines over a heatmap or curves, words on
      its cells, ticks that reach the spines' corners), so that every pixel is the one a new
      Figure gets. With ``background`` None everything is drawn;
    - the animated artists that show what they showed in the last frame, when the render names
      them as cells (``keep_cells``): they keep that frame's pixels (e.g. the words on the cells
      of a heatmap that did not change).

    A render that moves the limits of an Axes (``relim``) calls ``autoscale_view`` itself.
    """

    BACKGROUNDS = 4

    def __init__(self, figure: Figure) -> None:
        check_instance("figure", figure, Figure)
        super().__init__(figure)
        self.background: object = None
        self._cells: tuple[list, float] = ([], figure.dpi)  # (rect, content, artists), dpi
        self._made_with = {k: getattr(figure.subplotpars, k) for k in _SUBPLOT_PARAMS}
        self._layouts: dict[object, dict[str, float]] = {}
        self._backgrounds: OrderedDict[tuple, object] = OrderedDict()
        self._last: tuple[tuple, dict, np.ndarray] | None = None  # key, cells, pixels drawn

    def reset_layout(self) -> None:
        """The subplot parameters the Figure was made with (where ``tight_layout`` measures
        from), e.g. to read the ticks a layout key names as a new Figure has them."""
        self.figure.subplots_adjust(**self._made_with)

    def layout(self, key: object) -> None:
        """``tight_layout`` as on a new Figure, run the first time ``key`` comes."""
        params = self._layouts.get(key)
        if params is None:
            self.reset_layout()
            self.figure.tight_layout()
            params = {k: getattr(self.figure.subplotpars, k) for k in _SUBPLOT_PARAMS}
            self._layouts[key] = params
        self.figure.subplots_adjust(**params)

    def reset_positions(self) -> None:
        """Every Axes where a new Figure's layout engine starts from (its subplot position), and
        in the layout again (``set_position`` takes an Axes out): for a render that runs a
        constrained layout on a kept Figure."""
        for ax in self.figure.axes:
            spec = ax.get_subplotspec()
            if spec is not None:
                ax.set_position(spec.get_position(self.figure))
                ax.set_in_layout(True)

    @staticmethod
    def title_rise(ax: Axes, renderer: object) -> float:
        """How far an Axes' title rises above its panel, in pixels: all of the title that
        ``tight_layout`` measures (it takes a title as one pixel wide), so a part of a layout
        key where a title's height can change."""
        return ax.title.get_window_extent(renderer).y1 - ax.get_window_extent(renderer).y1

    def keep_cells(
        self, cells: Sequence[tuple[tuple[int, int, int, int], object, Sequence[Artist]]]
    ) -> None:
        """The cells of the next frame: ``(rect, content, artists)``, a rectangle of pixels
        ``(x0, y0, x1, y1)`` (from the top left at the Figure's dpi, x1 and y1 excluded) whose
        pixels ``content`` (any comparable value) decides, drawn by ``artists`` (animated, and
        drawing nowhere else)."""
        self._cells = list(cells), self.figure.dpi

    def _animated(self) -> list[Artist]:
        """The animated artists, in the order Figure.draw would draw them: Axes by Axes,
        each Axes' children by zorder."""
        out: list[Artist] = []
        for ax in sorted(self.figure.axes, key=lambda a: a.get_zorder()):
            if ax.get_animated():
                out.append(ax)
                continue
            children = [a for a in ax.get_children() if a is not ax.patch]
            out += [a for a in sorted(children, key=lambda a: a.get_zorder()) if a.get_animated()]
        return out

    def draw(self) -> None:
        renderer = self.get_renderer()
        fig = self.figure
        key = (self.background, tuple(getattr(fig.subplotpars, k) for k in _SUBPLOT_PARAMS),
               renderer.width, renderer.height, fig.dpi, fig.get_facecolor())  # fmt: skip
        kept = self._backgrounds.get(key) if self.background is not None else None
        if kept is None:
            super().draw()  # Figure.draw leaves the animated artists out
            if self.background is not None:
                self._backgrounds[key] = self.copy_from_bbox(fig.bbox)
                while len(self._backgrounds) > self.BACKGROUNDS:
                    self._backgrounds.popitem(last=False)
        else:
            self._backgrounds.move_to_end(key)
            self.restore_region(kept)
            for ax in fig.axes:  # as Figure.draw does first: each Axes' box (aspect, locator)
                locator = ax.get_axes_locator()
                ax.apply_aspect(locator(ax, renderer) if locator else None)
        cells = self._cells[0] if self._cells[1] == fig.dpi else []
        same = []  # the cells that show what they showed in the last frame
        if self._last is not None and self._last[0] == key:
            shown = self._last[1]
            same = [(r, a) for r, content, a in cells if r in shown and shown[r] == content]
        skipped = {id(artist) for _, artists in same for artist in artists}
        for artist in self._animated():
            if id(artist) not in skipped:
                artist.draw(renderer)
        pixels = np.asarray(self.buffer_rgba())
        for (x0, y0, x1, y1), _ in same:
            pixels[y0:y1, x0:x1] = self._last[2][y0:y1, x0:x1]
        self._last = None
        if cells and self.background is not None:
            self._last = key, {rect: content for rect, content, _ in cells}, pixels.copy()


class FigureArtistStandIn(Artist):
    """Draws a Figure's own artist (a legend, a suptitle) among the animated artists of an
    Axes, so that one that changes can be drawn over a ``KeptCanvas``' kept pixels (which holds
    the animated artists of Axes only). The artist is marked animated (``Figure.draw`` leaves it
    out); added to the last Axes (``ax.add_artist``) with the artist's zorder (or ``zorder``),
    the stand-in draws it after every panel, as ``Figure.draw`` does. It takes no room in the
    layout (the artist keeps its own place there)."""

    def __init__(self, artist: Artist, zorder: float | None = None) -> None:
        super().__init__()
        self.set_in_layout(False)
        self.set_animated(True)
        self.set_artist(artist, zorder)

    def set_artist(self, artist: Artist, zorder: float | None = None) -> None:
        """Stand in for ``artist`` from now on (e.g. a legend made anew)."""
        check_instance("artist", artist, Artist)
        artist.set_animated(True)
        self.set_zorder(artist.get_zorder() if zorder is None else zorder)
        self.artist = artist

    def draw(self, renderer: object) -> None:
        self.artist.draw(renderer)


def module_state(*modules: object) -> tuple:
    """Changes whenever a module's weights change in place (an optimizer step, a loaded state
    dict) or its mode (train / eval) does: what a widget over a model keys its drawn frames on
    (anything without parameters counts by its identity)."""
    state: list[object] = []
    for module in modules:
        params = getattr(module, "parameters", None)
        tensors = [*params(), *module.buffers()] if callable(params) else []
        state += [getattr(module, "training", None), id(module), *(id(t) for t in tensors),
                  *(t._version for t in tensors)]  # fmt: skip
    return tuple(state)


# ----------------------------------------------------------------- drawing ahead, when idle
# A redraw costs 50-500 ms on one core (matplotlib lays out and rasterises the whole figure).
# While the student looks at a picture, the kernel is idle: a background thread then draws the
# settings one move away (every control's nearest values first) into the widget's frames, so
# the next move shows a frame already drawn. It draws only when no cell has run and no control
# has moved for IDLE_SECONDS, one frame at a time under LOCK, which a cell about to run and a
# redraw of a setting not yet drawn take first; it never touches a widget (only the frames).

IDLE_SECONDS = 0.5
AHEAD_FRAMES = 24  # settings drawn ahead from one setting, nearest first
FRAME_BYTES = 16 * 2**20  # the frames a widget keeps, at most (oldest dropped first)


class GiveWay(Exception):
    """A frame being drawn ahead is abandoned: a student's redraw waits for the lock."""


class _Ahead:
    """The kernel's one drawing-ahead thread and its jobs (most recently moved widget first)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.busy = False
        self.last = time.monotonic()
        self.jobs: list[Callable[[], bool]] = []  # each draws one frame; False when done
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        self.enabled: bool | None = None  # None: decide on first use (in a kernel or not)
        self.wanted = 0  # live redraws waiting for the lock: a frame drawn ahead gives way

    @contextlib.contextmanager
    def live(self) -> Iterator[None]:
        """Hold the lock for a redraw a student waits for; a frame being drawn ahead is
        abandoned at its next check (``give_way``) rather than finished first."""
        self.wanted += 1
        try:
            self.lock.acquire()
        finally:
            self.wanted -= 1
        try:
            yield
        finally:
            self.lock.release()

    def give_way(self) -> None:
        """Called between the steps of a frame drawn ahead: raises GiveWay if a live redraw
        waits."""
        if self.wanted:
            raise GiveWay

    def _pre_run(self, *_: object) -> None:
        self.busy = True
        self.last = time.monotonic()
        with self.lock:  # a frame being drawn ahead finishes before the cell starts
            pass

    def _post_run(self, *_: object) -> None:
        self.busy = False
        self.last = time.monotonic()

    def on(self) -> bool:
        if self.enabled is None:
            shell = _kernel_shell()
            self.enabled = shell is not None and os.environ.get("LECTUREKIT_DRAW_AHEAD") != "0"
            if self.enabled:
                shell.events.register("pre_run_cell", self._pre_run)
                shell.events.register("post_run_cell", self._post_run)
        return self.enabled

    def moved(self, job: Callable[[], bool] | None = None) -> None:
        """A control moved (or a widget was built): restart the idle clock, put ``job`` first."""
        self.last = time.monotonic()
        if job is None or not self.on():
            return
        if job in self.jobs:
            self.jobs.remove(job)
        self.jobs.insert(0, job)
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="lecturekit-draw-ahead",
                                           daemon=True)  # fmt: skip
            self.thread.start()
            atexit.register(self._stop)
        self.wake.set()

    def _stop(self) -> None:
        """At exit: no new frame, and the one being drawn finished (a thread stopped inside
        torch or Agg by the interpreter's exit aborts the process)."""
        self.enabled = False
        with self.lock:
            self.jobs.clear()

    def _run(self) -> None:
        while True:
            self.wake.wait()
            idle = time.monotonic() - self.last
            if self.busy or idle < IDLE_SECONDS:
                time.sleep(IDLE_SECONDS - idle if not self.busy and idle < IDLE_SECONDS else 0.1)
                continue
            if not self.jobs or not self.enabled:
                self.jobs.clear()
                self.wake.clear()
                continue
            job = self.jobs[0]
            with self.lock:
                if self.busy or time.monotonic() - self.last < IDLE_SECONDS:
                    continue
                try:
                    more = job()
                except Exception:  # a live redraw of that setting shows the error
                    more = False
            if not more and job in self.jobs:
                self.jobs.remove(job)


DRAW_AHEAD = _Ahead()  # the widgets' shared drawing-ahead thread (``.lock``, ``.moved(job)``)


def _kernel_shell() -> object:
    """The IPython shell when running in a Jupyter kernel, else None."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


def draw_ahead(enabled: bool) -> None:
    """Turn drawing ahead on or off for this process (on by default in a Jupyter kernel, off
    elsewhere; ``LECTUREKIT_DRAW_AHEAD=0`` turns it off in a kernel). Outside a kernel nothing
    tells it that a cell runs: it draws whenever no control moved for ``IDLE_SECONDS``."""
    if not isinstance(enabled, bool):
        raise ValueError(f"enabled must be True or False, got {enabled!r}")
    DRAW_AHEAD.on()
    DRAW_AHEAD.enabled = enabled


def ahead_job(
    pending: list[dict[str, object]],
    is_drawn: Callable[[dict[str, object]], bool],
    draw: Callable[[dict[str, object]], None],
    valid: Callable[[], bool] | None = None,
) -> Callable[[], bool]:
    """A widget's job for ``DRAW_AHEAD.moved(job)``: each call draws the first setting of
    ``pending`` (which the widget refills after every move) that ``is_drawn`` says is not drawn
    yet, and returns whether more are left; a ``draw`` that raises ``GiveWay`` puts its setting
    back first. ``valid()`` false (the model changed) ends the job."""

    def job() -> bool:
        if valid is not None and not valid():
            return False
        while pending:
            values = pending.pop(0)
            if not is_drawn(values):
                try:
                    draw(values)
                except GiveWay:
                    pending.insert(0, values)
                    return True
                return bool(pending)
        return False

    return job


def _frozen(value: object) -> object:
    if isinstance(value, float):
        return float(f"{value:.9g}")  # a slider's value as the browser sends it back
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def nearby_values(control: object) -> list[object]:
    """The values of ``control`` a student moves to next, nearest first (none for a hidden or
    disabled control, a free-text box or a range)."""
    if getattr(control, "disabled", False) or getattr(control.layout, "display", None) == "none":
        return []
    value = control.value
    if isinstance(value, bool):
        return [not value]
    offered = getattr(control, "_options_values", None)
    if offered is not None:
        values = list(offered)
    elif isinstance(value, (int, float)) and hasattr(control, "max"):
        lo, hi, step = control.min, control.max, control.step or 1
        n = round((hi - lo) / step) + 1
        if n > 400:
            return []
        base = getattr(control, "base", None)  # a log slider: value = base ** exponent
        values = [lo + i * step for i in range(n)]
        if isinstance(value, int) and not isinstance(step, float):
            values = [int(v) for v in values]
        if base is not None:
            values = [base**v for v in values]
    else:
        return []
    if value in values:
        here = values.index(value)
    else:  # between two values the slider offers: start from the closest
        here = min(range(len(values)), key=lambda i: abs(values[i] - value))
    order = sorted(range(len(values)), key=lambda i: (abs(i - here), i))
    return [values[i] for i in order if i != here]


def settings_nearby(
    controls: Mapping[str, object],
    values: Mapping[str, object],
    nearby: Mapping[str, Sequence[object]],
    limit: int = AHEAD_FRAMES,
) -> list[dict[str, object]]:
    """The settings one move away from ``values``: each control moved to its ``nearby`` values
    (``nearby_values``), the nearest moves of every control first; at most ``limit``."""
    out: list[dict[str, object]] = []
    for distance in range(1, limit + 1):
        for name in controls:
            near = nearby.get(name) or []
            if distance <= len(near):
                out.append({**values, name: near[distance - 1]})
        if len(out) >= limit or all(distance >= len(nearby.get(n) or []) for n in controls):
            break
    return out[:limit]


_CONTROLS_ATTR = "lecturekit_controls"  # where a widget keeps its named controls
ALT_ATTR = "lecturekit_alt"  # where an Image widget keeps the alt text of what it shows


def attach_controls(box: object, controls: Mapping[str, object]) -> object:
    """Record on ``box`` (the widget a ``*_widget`` function returns) its controls by name, the
    names its ``*_widget_grid`` uses; ``widget_controls(box)`` gives them back. The course
    website (``lecturekit_publish``) sets them to each value of the grid and keeps what the
    widget's outputs show, so its pages play without a kernel. Returns ``box``.
    """
    if not isinstance(controls, Mapping) or not controls:
        raise ValueError("controls must be a non-empty mapping name -> ipywidgets control, got "
                         f"{controls!r}")  # fmt: skip
    if not hasattr(box, "children"):
        raise ValueError(f"box must be an ipywidgets container (VBox, HBox), got "
                         f"{type(box).__name__}")  # fmt: skip
    setattr(box, _CONTROLS_ATTR, dict(controls))
    return box


def widget_controls(box: object) -> dict[str, object]:
    """The named controls ``attach_controls`` recorded on ``box`` (every lecturekit widget has
    them); a widget without them raises a ValueError."""
    controls = getattr(box, _CONTROLS_ATTR, None)
    if controls is None:
        raise ValueError(f"box ({type(box).__name__}) has no named controls: build it with "
                         "figure_widget or call attach_controls(box, controls)")  # fmt: skip
    return dict(controls)


def figure_widget(
    render: Callable[..., Figure],
    controls: Mapping[str, object],
    *,
    theme: str = "light",
    dpi: int = 100,
    state: Callable[[], object] | None = None,
):
    """Controls above an image; ``render(**{name: control.value})`` draws the image again
    whenever a control changes. ``render`` must be pure in the controls' values: each setting
    is drawn once and kept (up to 16 MB of PNGs), and while the kernel is idle the settings one
    move away are drawn ahead (``draw_ahead``), so moving a control shows its picture at once.

    Args:
        render: returns a ``matplotlib.figure.Figure`` (build it with ``Figure()``, not pyplot,
            so nothing is displayed by the notebook's inline backend); a new one each time, or
            the same one updated in place (``KeptCanvas``: a redraw a few times faster).
        controls: name -> ipywidgets value widget (slider, dropdown, checkbox, ...).
        theme: "light" or "dark"; dpi: the image's resolution.
        state: for a render that reads something that can change (a model's weights): returns
            a value that changes with it (``module_state(model)``); the kept frames are dropped
            when it does.

    Everything is checked before the first drawing.
    """
    check_callable("render", render)
    if not isinstance(controls, Mapping):
        raise ValueError(f"controls must be a mapping name -> ipywidgets control (a dict), got "
                         f"{type(controls).__name__}")  # fmt: skip
    for name, control in controls.items():
        if not hasattr(control, "value") or not callable(getattr(control, "observe", None)):
            raise ValueError(f"controls[{name!r}] must be an ipywidgets value widget (slider, "
                             f"dropdown, ...), got {type(control).__name__}")  # fmt: skip
    rc(theme)  # an unknown theme is refused here
    check_positive_int("dpi", dpi)
    if state is not None:
        check_callable("state", state)
    w = require_ipywidgets()

    frames: OrderedDict[tuple, tuple[bytes, str]] = OrderedDict()  # setting -> (png, alt)
    kept = [0, state() if state is not None else None]  # bytes held, the state drawn in

    def key_of(values: Mapping[str, object]) -> tuple:
        return tuple(_frozen(values[k]) for k in controls)

    def draw(values: Mapping[str, object], ahead: bool = False) -> None:
        with theme_context(theme):
            fig = render(**values)
            if not isinstance(fig, Figure):
                raise ValueError(f"render must return a matplotlib Figure, got "
                                 f"{type(fig).__name__}")  # fmt: skip
            if ahead:
                DRAW_AHEAD.give_way()  # (about half of a frame's time is still to come)
            frame = render_png(fig, dpi), figure_alt_text(fig)
        frames[key_of(values)] = frame
        kept[0] += len(frame[0])
        while kept[0] > FRAME_BYTES and len(frames) > 1:
            kept[0] -= len(frames.popitem(last=False)[1][0])  # the oldest first

    ahead: list[dict[str, object]] = []  # settings to draw while idle, nearest first

    draw_next = ahead_job(ahead, lambda v: key_of(v) in frames, lambda v: draw(v, ahead=True))

    def show() -> tuple[bytes, str]:
        if state is not None and state() != kept[1]:  # the model changed: draw everything anew
            frames.clear()
            kept[:] = [0, state()]
        values = {k: c.value for k, c in controls.items()}
        key = key_of(values)
        if key not in frames:
            with DRAW_AHEAD.live():
                if key not in frames:
                    draw(values)
        frames.move_to_end(key)
        ahead[:] = settings_nearby(controls, values, nearby)
        DRAW_AHEAD.moved(draw_next)
        return frames[key]

    nearby: dict[str, list[object]] = {}

    def update(_change: object = None) -> None:
        nearby.update({name: nearby_values(c) for name, c in controls.items()})
        image.value, alt = show()
        setattr(image, ALT_ATTR, alt)

    image = w.Image(format="png")
    update()
    for control in controls.values():
        control.observe(update, names="value")
    return attach_controls(w.VBox([w.HBox(list(controls.values())), image]), controls)


def softmax_temperature_widget(
    scores: Sequence[float] | torch.Tensor, labels: Sequence[str] | None = None, tau: float = 8.0
):
    """softmax(scores / tau) as bars, tau on a log slider: small tau sharpens towards one-hot,
    large tau flattens towards uniform. With the Thinking Machines scores (112, 96), tau = 8 =
    sqrt(64) gives 0.88 / 0.12.

    ``scores`` must be finite numbers; ``tau`` is where the slider starts, in [0.25, 128] (its
    range).

    Lecture 03.
    """
    w = require_ipywidgets()
    if isinstance(scores, str):
        raise ValueError(f"scores must be numbers (a list or a 1-D tensor), got str {scores!r}")
    s = torch.as_tensor(to_numpy("scores", scores, numeric=True), dtype=torch.float64)
    if s.ndim != 1 or s.numel() < 2:
        raise ValueError(f"scores must be 1-D with at least 2 entries, got shape {tuple(s.shape)}")
    check_labels("labels", labels, len(s))
    check_range("tau", tau, 2.0**-2, 2.0**7)

    def render(tau: float) -> Figure:
        fig = Figure(figsize=(5.5, 3.2))
        plot_bars(
            torch.softmax(s / tau, 0),
            labels,
            fig.add_subplot(),
            title=f"softmax(scores / {tau:g})",
            ylabel="weight",
        )
        fig.tight_layout()
        return fig

    slider = w.FloatLogSlider(value=tau, base=2, min=-2, max=7, step=0.5, description="tau")
    return figure_widget(render, {"tau": slider})


def scaling_widget(
    num_keys: int = 8, dims: Sequence[int] = (1, 4, 16, 64, 256, 1024), seed: int = 0
):
    """Random q and k_1..k_n with N(0, 1) entries: the softmax of q.k (unscaled) saturates as
    d_k grows, while q.k / sqrt(d_k) keeps the same spread.

    Lecture 03; Vaswani et al. 2017 footnote 4.
    """
    check_positive_int("num_keys", num_keys)
    dims = check_positive_ints("dims", dims)
    check_seed(seed)
    w = require_ipywidgets()
    g = torch.Generator().manual_seed(seed)
    pairs = {d: (torch.randn(d, generator=g), torch.randn(num_keys, d, generator=g)) for d in dims}
    labels = [f"k{i + 1}" for i in range(num_keys)]

    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place

    def render(d_k: int, scaled: bool) -> Figure:
        q, K = pairs[d_k]
        scores = K @ q / (math.sqrt(d_k) if scaled else 1.0)  # (n, d) @ (d,) -> (n,)
        title = f"d_k = {d_k}: softmax(q·k{' / √d_k' if scaled else ''})"
        weights = torch.softmax(scores, 0)
        if not kept:
            fig = Figure(figsize=(5.5, 3.2))
            KeptCanvas(fig)
            ax = plot_bars(weights, labels, fig.add_subplot(), title=title, ylabel="weight")
            # the bars and their values, the title, and the spines drawn over the bars
            for artist in (*ax.patches, ax.title, *ax.spines.values()):
                artist.set_animated(True)
            kept.append(fig)
        fig = kept[0]
        ax = fig.axes[0]
        _set_bars(ax, weights, ".2f")
        ax.set_title(title)
        # The layout: the keys' labels and the weights' ticks (0..1) stay and the values stay
        # inside the panel; the title counts by its height, which its "√" raises.
        fig.canvas.layout(scaled)
        fig.canvas.background = "the keys and weights"
        return fig

    return figure_widget(
        render,
        {
            "d_k": w.SelectionSlider(options=list(dims), value=dims[0], description="d_k"),
            "scaled": w.Checkbox(value=False, description="divide by √d_k"),
        },
    )


def _set_bars(ax: Axes, values: object, fmt: str) -> None:
    """The bars ``plot_bars`` drew on ``ax`` set to ``values`` (as it draws them: the heights,
    the values written above them), the values' texts marked animated."""
    arr = check_numbers("values", to_numpy("values", values, 1))
    bars = ax.containers[0]
    for bar, height in zip(bars, arr, strict=True):
        bar.set_height(height)
    bars.datavalues = arr  # (bar_label reads which side of 0 each bar is on)
    for text in [*ax.texts]:  # the values written for the previous setting
        text.remove()
    ax.bar_label(bars, labels=[format(v, fmt) for v in arr], padding=2, fontsize="small")
    for text in ax.texts:
        text.set_animated(True)


def head_widget(weights: torch.Tensor, labels: Sequence[str]):
    """Pick a head (and a layer, for (L, H, T, T) weights) and see its attention map;
    ``labels``: the T tokens (both axes; None for no labels, then maps may be Tq x Tk).

    Lecture 04.
    """
    w = require_ipywidgets()
    if isinstance(weights, torch.Tensor):
        arr = weights.detach()
    else:
        arr = torch.as_tensor(check_numbers("weights", to_numpy("weights", weights)))
    shape = tuple(arr.shape)
    if arr.ndim == 3:
        arr = arr[None]  # (H, T, T) -> (1, H, T, T)
    square = arr.ndim == 4 and arr.shape[-1] == arr.shape[-2]
    if arr.ndim != 4 or (labels is not None and not square):
        raise ValueError(f"weights must be (H, T, T) or (L, H, T, T), got {shape}")
    check_labels("labels", labels, arr.shape[-1])
    L, H = arr.shape[:2]

    annotate = arr.shape[-1] <= 8  # numbers overlap beyond ~8 columns at this size
    kept: list[Figure] = []  # the Figure (unless annotated), built by the first render

    def render(layer: int, head: int) -> Figure:
        title = f"head {head}" if L == 1 else f"layer {layer}, head {head}"
        if annotate or not kept:  # (numbers on the cells: a new Figure for every map)
            fig = Figure(figsize=(5.2, 4.4))
            if not annotate:
                KeptCanvas(fig)
            ax = fig.add_subplot()
            plot_attention(arr[layer - 1, head - 1], labels, labels, ax, title=title,
                           colorbar=True, annotate=annotate)  # fmt: skip
            if annotate:
                fig.tight_layout()
                return fig
            # the map, its title, and the spines drawn over the map
            for artist in (*ax.images, ax.title, *ax.spines.values()):
                artist.set_animated(True)
            kept.append(fig)
        fig = kept[0]
        ax = fig.axes[0]
        ax.images[0].set_data(to_numpy("weights", arr[layer - 1, head - 1], 2).astype(float))
        ax.set_title(title)  # (as plot_heatmap draws the map: in float64)
        # The layout: the tokens' labels and the colour bar (0..1) stay, and the title counts
        # by its height, the same in every setting.
        fig.canvas.layout(None)
        fig.canvas.background = "the tokens and the colour bar"
        return fig

    controls = {
        "layer": w.Dropdown(options=list(range(1, L + 1)), value=1, description="layer"),
        "head": w.Dropdown(options=list(range(1, H + 1)), value=1, description="head"),
    }
    if L == 1:
        controls["layer"].layout.display = "none"
    return figure_widget(render, controls)


def positional_encoding_widget(
    max_len: int = 20, d_model: int = 512, dims: tuple[int, int] = (4, 7)
):
    """The sinusoidal table as a heatmap (positions x dimensions) and a few of its columns as
    curves over position; sliders for d_model, max_len and which dimensions to draw. The
    first values must be ones the sliders offer: ``d_model`` one of 16, 32, ..., 512,
    ``max_len`` in 5..100, ``dims`` a pair lo <= hi in 0..d_model-1.

    Lecture 05.
    """
    check_choice("d_model", d_model, _D_MODELS)
    if isinstance(max_len, bool) or not isinstance(max_len, int) or not 5 <= max_len <= 100:
        raise ValueError(f"max_len must be an integer in 5..100 (the slider's range), got "
                         f"{max_len!r}")  # fmt: skip
    pair = isinstance(dims, (tuple, list)) and len(dims) == 2
    if (
        not pair
        or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims)
        or not (0 <= dims[0] <= dims[1] < d_model)
    ):
        raise ValueError(f"dims must be a pair (lo, hi) with 0 <= lo <= hi <= {d_model - 1}, "
                         f"got {dims!r}")  # fmt: skip
    w = require_ipywidgets()

    kept: dict[str, object] = {}  # the Figure (built by the first render) and its curves' dims

    def render(d_model: int, max_len: int, dims: tuple[int, int]) -> Figure:
        pe = sinusoidal_encoding(max_len, d_model).numpy()
        lo, hi = min(dims[0], d_model - 1), min(dims[1], d_model - 1)
        hi = min(hi, lo + 7)  # at most 8 curves stay readable
        table = pe.astype(float)
        vmax = float(np.abs(table).max())
        if not kept:
            fig = Figure(figsize=(10, 3.6))
            KeptCanvas(fig)
            ax1, ax2 = fig.subplots(1, 2, width_ratios=[1.3, 1])
            plot_heatmap(pe, ax1, diverging=True, xlabel="dimension (column)", ylabel="position")
            # What d_model changes, and what a full redraw draws over it: the table, its title,
            # column ticks, spines and row ticks (which can meet the spines at a corner); the
            # curves (below), their value ticks and spines (their position ticks keep off the
            # corners, where a tick and a spine drawn in either order give the same pixels).
            for artist in (ax1.images[0], *ax1.spines.values(), ax1.xaxis, ax1.yaxis, ax1.title,
                           *ax2.spines.values(), ax2.yaxis):  # fmt: skip
                artist.set_animated(True)
            kept.update(fig=fig, dims=None)
        fig = kept["fig"]
        ax1, ax2 = fig.axes[:2]
        image = ax1.images[0]
        image.set_data(table)
        image.set_clim(-vmax, vmax)
        image.set_interpolation("antialiased" if d_model > 128 else "nearest")
        image.set_extent((-0.5, d_model - 0.5, max_len - 0.5, -0.5))  # the Axes' limits follow
        ax1.set_title(f"PE, {max_len} x {d_model}")
        positions = np.arange(max_len)
        ys = {f"dim {i}": pe[:, i] for i in range(lo, hi + 1)}
        if kept["dims"] != (lo, hi):  # other curves: drawn anew, colours from the first again
            for line in list(ax2.lines):
                line.remove()
            ax2.set_prop_cycle(None)
            plot_lines(positions, ys, ax2, xlabel="position", ylabel="PE value",
                       title=f"dimensions {lo}..{hi}", marker=".", legend=False)  # fmt: skip
            ax2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
            for line in ax2.lines:
                line.set_animated(True)
            kept["dims"] = lo, hi
        else:
            for line, y in zip(ax2.lines, ys.values(), strict=True):
                line.set_data(positions, y)
        ax2.relim()
        ax2.autoscale_view()
        # The layout depends on the words around the panels: the position ticks (max_len), the
        # legend (dims), the colour bar (vmax) and the curves' value ticks and their offset
        # ("+9.99e-1" over a flat curve), read where a new Figure reads them. The dimension
        # ticks (d_model) are digits of one height that stay within the table's width, and
        # titles count only by their height: neither moves it.
        canvas = fig.canvas
        canvas.reset_layout()
        ticks = tuple(label.get_text() for label in ax2.get_yticklabels())
        offset = ax2.yaxis.get_offset_text().get_text()  # (it lifts the curves' title)
        canvas.layout((max_len, lo, hi, vmax, ticks, offset))
        canvas.background = max_len, lo, hi, vmax, offset  # colour bar, legend, x ticks, title
        canvas.keep_cells(_row_ticks(ax1, canvas.get_renderer(), max_len))
        return fig

    controls = {
        "d_model": w.Dropdown(options=list(_D_MODELS), value=d_model, description="d_model"),
        "max_len": w.IntSlider(value=max_len, min=5, max=100, description="max_len"),
        "dims": w.IntRangeSlider(value=dims, min=0, max=d_model - 1, description="dims"),
    }

    def follow_d_model(change: dict) -> None:  # registered first: runs before the redraw
        controls["dims"].max = change["new"] - 1

    controls["d_model"].observe(follow_d_model, names="value")
    return figure_widget(
        render,
        controls,
    )


def mask_widget(seed: int = 0, max_len: int = 10):
    """Choose the mask (padding, causal, both) and the lengths; see M and the resulting
    attention weights for fixed random scores: masked keys get exactly zero weight.
    ``max_len`` (>= 2) is the longest T the slider offers.

    Lecture 06.
    """
    check_seed(seed)
    check_positive_int("max_len", max_len)
    if max_len < 2:
        raise ValueError(f"max_len must be at least 2, got {max_len}")
    w = require_ipywidgets()
    scores = torch.randn(max_len, max_len, generator=torch.Generator().manual_seed(seed))

    kept: dict[str, object] = {}  # the Figure (built by the first render) and its tick labels
    sizes: dict[str, tuple[float, float]] = {}  # a word on a cell -> its width and height

    def render(kind: str, T: int, length: int) -> Figure:
        length = min(length, T)
        masks = {
            "none": torch.ones(T, T, dtype=torch.bool),
            "padding": padding_mask([length], T)[0].expand(T, T),
            "causal": causal_mask(T),
            "causal + padding": combine_masks(causal_mask(T), padding_mask([length], T)[0]),
        }
        mask = masks[kind]
        weights = masked_softmax(scores[:T, :T], mask)
        labels = [f"t{i}" if i < length else "pad" for i in range(T)]
        if not kept:
            fig = Figure(figsize=(10, 4.4))
            KeptCanvas(fig)
            for ax in fig.subplots(1, 2):
                for axis in (ax.xaxis, ax.yaxis):
                    axis.get_major_ticks(max_len)  # made now, not when T first grows
            kept.update(fig=fig, labels=None)
        fig = kept["fig"]
        ax1, ax2 = fig.axes
        if kept["labels"] != labels:  # other cells: drawn anew, by the plot functions
            for artist in [*ax1.images, *ax1.texts, *ax2.images, *ax2.texts]:
                artist.remove()  # (the ticks and titles stay)
            plot_mask(mask, labels, ax1, title="M (added to the scores)")
            plot_attention(weights, labels, labels, ax2, title="softmax(scores + M)",
                           annotate=T <= 8)  # fmt: skip
            # The cells change with the mask, and the spines are drawn over them. (The ticks, at
            # the cells' centres, meet the spines away from their corners, where a tick and a
            # spine drawn in either order give the same pixels: they stay in the background.)
            for ax in (ax1, ax2):
                for artist in [*ax.images, *ax.texts, *ax.spines.values()]:
                    artist.set_animated(True)
                for text in ax.texts:
                    text.set_in_layout(False)  # inside its cell: it cannot move the layout
            kept["labels"] = labels
        else:  # the same cells, another mask: new colours and words, set as the plot functions do
            allowed = mask.numpy()
            ax1.images[0].set_data(allowed.astype(float))
            for text, ok in zip(ax1.texts, allowed.flat, strict=True):  # plot_mask's M
                text.set(text="0" if ok else "\u2212\u221e", color="black" if ok else "white")
            values = weights.numpy().astype(float)
            image = ax2.images[0]
            image.set_data(values)
            rgba = image.cmap(image.norm(values))  # plot_heatmap's annotate: black on light cells
            light = 0.2126 * rgba[..., 0] + 0.7152 * rgba[..., 1] + 0.0722 * rgba[..., 2] > 0.5
            for text, value, lit in zip(ax2.texts, values.flat, light.flat, strict=False):
                # (no words in the cells when T > 8)
                text.set(text=format(value, ".2f"), color="black" if lit else "white")
        # The layout depends on which words label the ticks (how wide they are), not on how
        # many ticks there are; the background shows the ticks and their labels.
        canvas = fig.canvas
        canvas.layout(frozenset(labels))
        canvas.background = tuple(labels)
        renderer = canvas.get_renderer()
        canvas.keep_cells(  # the cells whose colour and word did not change
            _worded_cells(ax1, mask.numpy().astype(float), renderer, sizes)
            + _worded_cells(ax2, weights.numpy().astype(float), renderer, sizes)
        )
        return fig

    return figure_widget(
        render,
        {
            "kind": w.Dropdown(
                options=["none", "padding", "causal", "causal + padding"],
                value="causal",
                description="mask",
            ),
            "T": w.IntSlider(value=6, min=2, max=max_len, description="T"),
            "length": w.IntSlider(value=4, min=1, max=max_len, description="real length"),
        },
    )


def _row_ticks(ax: Axes, renderer: RendererAgg, content: object) -> list[tuple]:
    """``KeptCanvas.keep_cells`` for the y axis of ``ax`` (its ticks, tick labels and label,
    which ``content`` names): the pixels left of the left spine's middle column (where lines
    snap) and above the bottom spine's middle row, where the only other artists are the spines
    (the same in every frame). No cell if a tick label reaches that row (near the x ticks)."""
    box, height = ax.bbox, renderer.height  # the box in pixels from the bottom left
    spine_col, bottom_row = math.floor(box.x0 + 0.5), math.floor(height - box.y0 + 0.5)
    labels = ax.yaxis.get_tightbbox(renderer)  # its tick labels and label
    if labels is None or math.ceil(height - labels.y0) + 2 > bottom_row:
        return []
    top = max(math.floor(height - labels.y1) - 2, 0)
    return [((0, top, spine_col, bottom_row), content, [ax.yaxis])]


def _worded_cells(
    ax: Axes, values: np.ndarray, renderer: RendererAgg, sizes: dict[str, tuple[float, float]]
) -> list[tuple[tuple[int, int, int, int], object, list[Artist]]]:
    """``KeptCanvas.keep_cells`` for a heatmap (``plot_heatmap``, nearest-pixel) with a word on
    every cell (``ax.texts``, row by row): each cell's inside, 2 pixels in from its edges, whose
    pixels its value and word decide, where the word fits. ``sizes`` caches the words' sizes."""
    rows, cols = values.shape
    to_pixels = ax.transData.transform
    xs = to_pixels(np.c_[np.arange(cols + 1) - 0.5, np.zeros(cols + 1)])[:, 0]
    ys = renderer.height - to_pixels(np.c_[np.zeros(rows + 1), np.arange(rows + 1) - 0.5])[:, 1]
    cells = []
    for (i, j), text in zip(np.ndindex(rows, cols), ax.texts, strict=False):
        word = text.get_text()
        if word not in sizes:
            extent = text.get_window_extent(renderer)
            sizes[word] = extent.width, extent.height
        (x0, x1), (y0, y1) = sorted(xs[j : j + 2]), sorted(ys[i : i + 2])
        rect = math.ceil(x0 + 2), math.ceil(y0 + 2), math.floor(x1 - 2), math.floor(y1 - 2)
        half_w, half_h = sizes[word][0] / 2 + 2, sizes[word][1] / 2 + 2  # 2 pixels for the ink
        centre = (x0 + x1) / 2, (y0 + y1) / 2  # where the word is (ha, va "center")
        if (rect[0] <= centre[0] - half_w and centre[0] + half_w <= rect[2]
                and rect[1] <= centre[1] - half_h and centre[1] + half_h <= rect[3]):  # fmt: skip
            cells.append((rect, (values[i, j], word, text.get_color()), [text]))
    return cells


def positional_encoding_widget_grid() -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for
    ``positional_encoding_widget()``: control name -> values its controls offer. Every
    d_model (16 shows the frequencies dropping fast from column to column), 20 positions (where
    the widget starts) and 100 (the slowest columns start to turn), and the starting dimensions
    4..7 (two sin/cos pairs, a quarter period apart).

    Lecture 05.
    """
    return {"d_model": list(_D_MODELS), "max_len": [20, 100], "dims": [(4, 7)]}


def mask_widget_grid() -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``mask_widget()``:
    control name -> values its controls offer. Every mask; T = 4, 6 (where the widget starts)
    and 10 with the starting real length 4, so no, two or six pad keys (and at T = 10 the
    weights without their numbers).

    Lecture 06.
    """
    return {"kind": ["none", "padding", "causal", "causal + padding"], "T": [4, 6, 10],
            "length": [4]}  # fmt: skip
