"""A widget's frames: what it shows at every setting of a grid, for a page without a kernel.

The widget is driven exactly as a student drives it: each control is set to each value of the
grid (``widget.children`` controls, found by name with ``widget_controls``) and whatever the
widget then shows (its images with their alt text, its HTML and text outputs) is kept. So a
frame is, by construction, what the notebook's widget draws for that setting.

Public API::

    grid = derive_grid(controls, grid=None)     # name -> values; missing names from the control
    static = render_frames(widget, grid=None, max_frames=300)
    static.controls    # [StaticControl(name, label, kind, values, labels, initial, hidden)]
    static.outputs     # ["image", "html", ...] in the widget's order
    static.frames      # {(i, j, ...): (output value, ...)} indices into each control's values;
                       # an image output is an Image(png, alt)
    static.seconds     # time taken

Lecture-independent (the course website, issue 22).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lecturekit.utils.checks import check_positive_int
from lecturekit.viz.helpers import require_ipywidgets
from lecturekit.viz.widgets import ALT_ATTR, widget_controls

__all__ = ["Image", "StaticControl", "StaticWidget", "derive_grid", "render_frames"]

MAX_DERIVED = 12  # values taken from a slider when the grid does not say


@dataclass(frozen=True)
class Image:
    png: bytes
    alt: str


@dataclass(frozen=True)
class StaticControl:
    name: str
    label: str  # the control's description (what the notebook shows next to it)
    kind: str  # "slider", "dropdown", "checkbox" or "choice" (a text box's prepared inputs)
    values: tuple[object, ...]
    labels: tuple[str, ...]  # each value as the control would show it
    initial: int  # index of the value the notebook's widget starts at
    hidden: bool


@dataclass
class StaticWidget:
    controls: list[StaticControl]
    outputs: list[str]
    frames: dict[tuple[int, ...], tuple[object, ...]] = field(default_factory=dict)
    seconds: float = 0.0


def _kind(control: object) -> str:
    w = require_ipywidgets()
    if isinstance(control, (w.Checkbox, w.ToggleButton)):
        return "checkbox"
    if isinstance(control, (w.Text, w.Textarea)):
        return "choice"
    if isinstance(control, (w.Dropdown, w.Select, w.RadioButtons, w.ToggleButtons)):
        return "dropdown"
    if isinstance(control, (w.SelectionSlider, w.SelectionRangeSlider)):
        return "slider"
    if hasattr(control, "min") and hasattr(control, "max"):
        return "slider"
    raise ValueError(f"control {type(control).__name__} is not one a static page can offer "
                     "(slider, dropdown, checkbox, text)")  # fmt: skip


def _options(control: object) -> tuple[list[object], list[str]]:
    """(values, labels) of a selection control."""
    opts = list(control.options)
    if opts and all(isinstance(o, tuple) and len(o) == 2 for o in opts):
        return [v for _, v in opts], [str(lab) for lab, _ in opts]
    return opts, [str(o) for o in opts]


def _numeric_values(control: object) -> list[object]:
    w = require_ipywidgets()
    if isinstance(control, w.FloatLogSlider):
        lo, hi, step = control.min, control.max, control.step
        n = round((hi - lo) / step) + 1
        return [control.base ** (lo + i * step) for i in range(n)]
    if isinstance(control, (w.IntRangeSlider, w.FloatRangeSlider)):
        return [control.value]
    lo, hi, step = control.min, control.max, control.step or 1
    n = math.floor((hi - lo) / step + 1e-9) + 1
    values = [lo + i * step for i in range(n)]
    if isinstance(control, w.FloatSlider):
        digits = max(0, -math.floor(math.log10(step))) + 2 if step < 1 else 6
        values = [round(v, digits) for v in values]
    return values


def _spread(values: list[object], keep: object, limit: int) -> list[object]:
    """At most ``limit`` of ``values``, evenly spread, the ends and ``keep`` included."""
    if len(values) <= limit:
        return values
    picks = {round(i * (len(values) - 1) / (limit - 1)) for i in range(limit)}
    chosen = [values[i] for i in sorted(picks)]
    if keep in values and keep not in chosen:
        chosen = sorted([*chosen, keep], key=values.index)
    return chosen


def _all_values(control: object) -> list[object] | None:
    """Every value the control offers (None for a free-text box)."""
    kind = _kind(control)
    if kind == "checkbox":
        return [False, True]
    if kind == "choice":
        return None
    if hasattr(control, "options"):
        return _options(control)[0]
    return _numeric_values(control)


def derive_grid(
    controls: Mapping[str, object], grid: Mapping[str, Sequence[object]] | None = None
) -> dict[str, list[object]]:
    """The values to pre-render for each control: ``grid[name]`` where given (each must be a
    value the control offers), else every value of a dropdown or checkbox and up to 12 evenly
    spread values of a slider; a text box keeps its value. The control's current value is
    always included (the page starts where the notebook does)."""
    if grid is None:
        grid = {}
    if not isinstance(grid, Mapping):
        raise ValueError(f"grid must be a mapping control name -> values, got "
                         f"{type(grid).__name__}")  # fmt: skip
    unknown = sorted(set(grid) - set(controls))
    if unknown:
        raise ValueError(f"grid names {unknown} are not controls of the widget "
                         f"(its controls: {sorted(controls)})")  # fmt: skip
    out = {}
    for name, control in controls.items():
        offered = _all_values(control)
        if name in grid:
            values = list(grid[name])
            if not values:
                raise ValueError(f"grid[{name!r}] is empty")
            if offered is not None:
                bad = [v for v in values if v not in offered]
                if bad:
                    raise ValueError(f"grid[{name!r}] has values the control does not offer: "
                                     f"{bad[:5]} (it offers {offered[:12]}...)")  # fmt: skip
        elif offered is None:
            values = [control.value]
        else:
            values = _spread(offered, control.value, MAX_DERIVED)
        if control.value not in values:
            values = [control.value, *values]
            if offered is not None:
                values.sort(key=offered.index)
        out[name] = list(dict.fromkeys(values))  # no repeats, order kept
    return out


def _label(control: object, value: object) -> str:
    w = require_ipywidgets()
    if hasattr(control, "options"):
        values, labels = _options(control)
        return labels[values.index(value)]
    if isinstance(control, (w.Checkbox, w.ToggleButton)):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return "–".join(str(v) for v in value)
    if isinstance(value, float):
        fmt = getattr(control, "readout_format", ".3g") or ".3g"
        try:
            return format(value, fmt)
        except ValueError:
            return f"{value:g}"
    return str(value)


def _leaves(widget: object, controls: set[int]) -> list[object]:
    """The widget's output leaves (not its controls), in display order."""
    found = []
    for child in getattr(widget, "children", ()):
        if id(child) in controls:
            continue
        if hasattr(child, "children"):
            found += _leaves(child, controls)
        else:
            found.append(child)
    return found


def _snapshot(outputs: list[object]) -> tuple[object, ...]:
    w = require_ipywidgets()
    values = []
    for leaf in outputs:
        if isinstance(leaf, w.Image):
            values.append(Image(bytes(leaf.value), getattr(leaf, ALT_ATTR, "") or ""))
        else:
            values.append(str(leaf.value))
    return tuple(values)


def _snake(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every index combination, ordered so that consecutive ones differ in one control only
    (a boustrophedon walk): each frame then costs the widget one redraw."""
    if not sizes:
        return [()]
    rest = _snake(sizes[1:])
    order = []
    for i in range(sizes[0]):
        order += [(i, *r) for r in (rest if i % 2 == 0 else reversed(rest))]
    return order


def render_frames(
    widget: object, grid: Mapping[str, Sequence[object]] | None = None, max_frames: int = 300
) -> StaticWidget:
    """Set the widget's controls to every combination of ``derive_grid(controls, grid)`` and
    keep what its outputs show: images (PNG and alt text), HTML and text. More than
    ``max_frames`` combinations raise a ValueError (give a smaller grid). A control that does
    not take a value (another control limits it) raises a ValueError naming it. The widget is
    left at its first setting.
    """
    check_positive_int("max_frames", max_frames)
    w = require_ipywidgets()
    start = time.perf_counter()
    controls = widget_controls(widget)
    values = derive_grid(controls, grid)
    total = math.prod(len(v) for v in values.values())
    if total > max_frames:
        sizes = {k: len(v) for k, v in values.items()}
        raise ValueError(f"the grid has {total} settings ({sizes}), more than max_frames="
                         f"{max_frames}: give the widget a smaller grid")  # fmt: skip
    initial = {k: c.value for k, c in controls.items()}
    leaves = _leaves(widget, {id(c) for c in controls.values()})
    outputs = []
    for leaf in leaves:
        if isinstance(leaf, w.Image):
            outputs.append("image")
        elif isinstance(leaf, (w.HTML, w.HTMLMath)):
            outputs.append("html")
        elif hasattr(leaf, "value") and isinstance(leaf.value, str):
            outputs.append("text")
        else:
            outputs.append(None)
    kept = [leaf for leaf, kind in zip(leaves, outputs, strict=True) if kind is not None]
    if not kept:
        raise ValueError("the widget shows nothing a static page can keep (no Image, HTML or "
                         "text output)")  # fmt: skip
    static_controls = [
        StaticControl(
            name=name,
            label=str(getattr(c, "description", "") or name),
            kind=_kind(c),
            values=tuple(values[name]),
            labels=tuple(_label(c, v) for v in values[name]),
            initial=values[name].index(initial[name]),
            hidden=getattr(c.layout, "display", None) == "none",
        )
        for name, c in controls.items()
    ]
    static = StaticWidget(static_controls, [k for k in outputs if k is not None])
    names = list(controls)
    for combo in _snake(tuple(len(values[n]) for n in names)):
        for name, i in zip(names, combo, strict=True):
            want = values[name][i]
            if controls[name].value != want:
                controls[name].value = want
        for name, i in zip(
            names, combo, strict=True
        ):  # a control another one limits may not keep it
            got, want = controls[name].value, values[name][i]
            if got != want:
                setting = {n: values[n][j] for n, j in zip(names, combo, strict=True)}
                raise ValueError(f"control {name!r} shows {got!r} after being set to {want!r} "
                                 f"(setting {setting}): leave that setting out of the "
                                 "grid")  # fmt: skip
        static.frames[combo] = _snapshot(kept)
    for name, value in initial.items():
        if controls[name].value != value:
            controls[name].value = value
    static.seconds = time.perf_counter() - start
    return static
