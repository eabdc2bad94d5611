"""The registry of slide figures: named, documented, seeded functions returning a Figure.

Public API::

    @register("pe_heatmap", lecture="05", description="...", takeaway="...")
    def pe_heatmap() -> Figure: ...             # draws with the current rcParams
    names(lecture=None) -> list[str]            # registered names, in lecture order
    spec(name) -> FigureSpec                    # ValueError naming close matches if unknown
    fig = build(name, theme="light")            # seeded, slide style (16:9 fonts), theme
    save(fig, path, fmt="png", dpi=150)         # byte-identical for identical figures
    slide_rc(theme) -> dict                     # the rcParams figures are built with

    @register_widget("softmax_temperature", lecture="03", index=0, description="...")
    def softmax_temperature(): return widget, grid  # the notebook's widget, rebuilt; grid or None
    widget_names(lecture=None) -> list[str]     # registered widgets, by lecture then index
    widget_spec(name) -> WidgetSpec             # .lecture, .index, .description, .func

A registered widget is a notebook's widget rebuilt outside the notebook: ``func()`` returns the
same ``*_widget(...)`` call on the same inputs (shipped checkpoints, data made in code) and the
settings to pre-render (``{control name: values}``, the widget's ``*_widget_grid``; None or a
missing control: values derived from the control). ``index`` is its place among the notebook's
widget outputs (0 = the first). The course website renders every setting to a frame, so the
lecture's page plays without a kernel (``lecturekit_publish``, in tools/).

Figure functions never train: figures that need a trained model load the shipped
checkpoints in data/. The registry is filled by importing ``lecturekit_publish.figures``.
"""

from __future__ import annotations

import difflib
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from lecturekit.utils.checks import check_callable, check_instance, check_positive_int, check_str
from lecturekit.viz.style import rc

__all__ = ["FigureSpec", "FORMATS", "register", "names", "spec", "build", "save", "slide_rc",
           "WidgetSpec", "register_widget", "widget_names", "widget_spec"]  # fmt: skip

FORMATS = ("png", "svg", "pdf")
_LECTURE = re.compile(r"\d\d[a-z]?")  # "05", or "09a" for a lecture between two
# Metadata that would change from build to build (dates) or machine to machine (versions).
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
}


@dataclass(frozen=True)
class FigureSpec:
    name: str
    lecture: str
    description: str
    func: Callable[[], Figure]
    takeaway: str = ""  # the claim the figure proves, one line (the slide decks show it)


_REGISTRY: dict[str, FigureSpec] = {}


@dataclass(frozen=True)
class WidgetSpec:
    name: str
    lecture: str
    index: int
    description: str
    func: Callable[[], tuple[object, dict[str, list[object]] | None]]


_WIDGETS: dict[str, WidgetSpec] = {}


def _check_lecture(lecture: object) -> str:
    if not isinstance(lecture, str) or not _LECTURE.fullmatch(lecture):
        raise ValueError(
            f"lecture must be two digits and an optional letter like '05' or '09a', got {lecture!r}"
        )
    return lecture


def register(name: str, *, lecture: str, description: str, takeaway: str = "") -> Callable:
    """Decorator: add a figure function to the registry under ``name`` (an identifier) for
    ``lecture`` (two digits and an optional letter, "05" or "09a") with a one-line
    ``description`` (what it shows: the alt text) and ``takeaway`` (what it proves: the line
    under it on its slide)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier like 'pe_heatmap', got {name!r}")
    _check_lecture(lecture)
    check_str("description", description)
    if not isinstance(takeaway, str) or "\n" in takeaway:
        raise ValueError(f"takeaway must be one line of text, got {takeaway!r}")

    def wrap(func: Callable[[], Figure]) -> Callable[[], Figure]:
        check_callable("func", func)
        if name in _REGISTRY:
            raise ValueError(f"figure {name!r} is registered twice")
        _REGISTRY[name] = FigureSpec(name, lecture, description, func, takeaway.strip())
        return func

    return wrap


def names(lecture: str | None = None) -> list[str]:
    """Registered figure names, sorted by lecture then name; only those of ``lecture`` (two
    digits, "05") if given (none for a lecture without figures)."""
    if lecture is not None:
        _check_lecture(lecture)
    specs = sorted(_REGISTRY.values(), key=lambda s: (s.lecture, s.name))
    return [s.name for s in specs if lecture is None or s.lecture == lecture]


def close_matches(name: str) -> list[str]:
    """Registered names that look like ``name`` (for error messages)."""
    if not isinstance(name, str) or not name.strip():
        return []
    found = difflib.get_close_matches(name, list(_REGISTRY), n=4, cutoff=0.5)
    return found or [n for n in names() if name.lower() in n.lower()][:4]


def spec(name: str) -> FigureSpec:
    """The registered figure ``name``; an unknown name raises a ValueError with the close
    matches."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a figure name (a string), got {type(name).__name__}")
    if not name.strip():
        raise ValueError(f"name must be a figure name, got {name!r} (see names())")
    if name not in _REGISTRY:
        matches = close_matches(name)
        hint = f"; did you mean {', '.join(matches)}?" if matches else ""
        raise ValueError(f"unknown figure {name!r}{hint}")
    return _REGISTRY[name]


def slide_rc(theme: str = "light") -> dict[str, object]:
    """The lecture look with fonts for 16:9 slides (readable at 1280 × 720)."""
    params = rc(theme)
    params.update(
        {
            "figure.figsize": (10.0, 5.625),  # 16:9
            "font.size": 15,
            "axes.titlesize": 17,
            "axes.labelsize": 15,
            "xtick.labelsize": 13,
            "ytick.labelsize": 13,
            "legend.fontsize": 13,
            "lines.linewidth": 2.2,
        }
    )
    return params


def build(name: str, theme: str = "light") -> Figure:
    """Draw figure ``name`` in ``theme`` with every random generator seeded (0)."""
    figure_spec = spec(name)
    params = slide_rc(theme)  # an unknown theme is refused before anything is drawn
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    torch.set_num_threads(1)  # the same arithmetic on every machine size
    try:
        with plt.rc_context(params):
            fig = figure_spec.func()
    finally:
        torch.set_num_threads(threads)
    if not isinstance(fig, Figure):
        raise TypeError(f"figure function {name!r} returned {type(fig).__name__}, not a Figure")
    return fig


def save(fig: Figure, path: Path | str, fmt: str = "png", dpi: int = 150) -> Path:
    """Write ``fig`` as ``fmt`` without dates or version strings, so equal figures give equal
    bytes. The directory of ``path`` must exist."""
    check_instance("fig", fig, Figure)
    if fmt not in FORMATS:
        raise ValueError(f"fmt={fmt!r} is not one of {list(FORMATS)}")
    check_positive_int("dpi", dpi)
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"path={str(path)!r}: the directory {str(path.parent)!r} does not exist")
    if fmt == "png":  # the pixels savefig gives, drawn once (savefig lays out twice)
        from lecturekit.viz.widgets import render_png

        path.write_bytes(render_png(fig, dpi))
        return path
    # SVG element ids are hashes salted with svg.hashsalt (random when unset): fix it
    with plt.rc_context({"svg.hashsalt": "lecturekit"}):
        fig.savefig(path, format=fmt, dpi=dpi, metadata=_METADATA[fmt])
    return path


def register_widget(name: str, *, lecture: str, index: int, description: str) -> Callable:
    """Decorator: add a notebook widget's rebuild to the registry under ``name`` (an
    identifier) for ``lecture`` ("05", "09a") as the notebook's widget number ``index`` (0 =
    its first widget output) with a one-line ``description``. The function returns
    ``(widget, grid)``: see the module docstring."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier like 'softmax_temperature', got {name!r}")
    _check_lecture(lecture)
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"index must be a non-negative integer (0 = the notebook's first "
                         f"widget), got {index!r}")  # fmt: skip
    check_str("description", description)

    def wrap(func: Callable) -> Callable:
        check_callable("func", func)
        if name in _WIDGETS:
            raise ValueError(f"widget {name!r} is registered twice")
        taken = [s.name for s in _WIDGETS.values() if (s.lecture, s.index) == (lecture, index)]
        if taken:
            raise ValueError(f"lecture {lecture}'s widget {index} is already {taken[0]!r}")
        _WIDGETS[name] = WidgetSpec(name, lecture, index, description, func)
        return func

    return wrap


def widget_names(lecture: str | None = None) -> list[str]:
    """Registered widget names, sorted by lecture then index; only those of ``lecture`` if
    given."""
    if lecture is not None:
        _check_lecture(lecture)
    specs = sorted(_WIDGETS.values(), key=lambda s: (s.lecture, s.index))
    return [s.name for s in specs if lecture is None or s.lecture == lecture]


def widget_spec(name: str) -> WidgetSpec:
    """The registered widget ``name``; an unknown name raises a ValueError with close
    matches."""
    if not isinstance(name, str) or name not in _WIDGETS:
        found = difflib.get_close_matches(str(name), list(_WIDGETS), n=4, cutoff=0.5)
        hint = f"; did you mean {', '.join(found)}?" if found else ""
        raise ValueError(f"unknown widget {name!r}{hint}")
    return _WIDGETS[name]
