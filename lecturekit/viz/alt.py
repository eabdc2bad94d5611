"""Text descriptions (alt text) of figures, made from what the figure itself says: its titles,
axis labels, legend entries and what kind of marks each panel holds.

Screen readers read them, the course website puts them on every image, and a notebook that
calls ``describe_figures()`` (the set-up cell does) stores one with every figure it shows.

Public API::

    figure_alt_text(fig) -> str      # "Figure with 2 panels. Panel 1: 'softmax(s / 8)', bars; ..."
    describe_figures(shell=None)     # IPython: each figure output carries metadata {"alt": ...}

Lecture-independent (accessibility of every lecture's figures).
"""

from __future__ import annotations

import re

from matplotlib.axes import Axes
from matplotlib.collections import PathCollection, PolyCollection, QuadMesh
from matplotlib.figure import Figure, SubFigure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

__all__ = ["figure_alt_text", "describe_figures"]

_MAX_CHARS = 600  # longer descriptions stop being useful to a screen reader
_WRAPPED = "_lecturekit_alt"  # marks the IPython formatter describe_figures installed


def _clean(text: str) -> str:
    text = re.sub(r"\$([^$]*)\$", r"\1", text)  # mathtext: read the formula's letters
    text = text.replace("\\", "")
    return " ".join(text.split())


def _marks(ax: Axes) -> list[str]:
    kinds = []
    if any(isinstance(a, (AxesImage, QuadMesh)) for a in ax.get_children()):
        kinds.append("a heatmap" if not ax.get_images() or ax.get_images()[0].get_array().ndim == 2
                     else "an image")  # fmt: skip
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    if len(bars) >= 2:
        kinds.append(f"{len(bars)} bars")
    lines = [ln for ln in ax.get_lines() if isinstance(ln, Line2D) and len(ln.get_xdata()) > 2]
    if lines:
        kinds.append(f"{len(lines)} curve{'s' if len(lines) > 1 else ''}")
    if any(isinstance(c, PathCollection) for c in ax.collections):
        kinds.append("points")
    if any(isinstance(c, PolyCollection) for c in ax.collections):
        kinds.append("shaded areas")
    texts = [t for t in ax.texts if t.get_text().strip()]
    if not kinds and texts:
        kinds.append("text")
    return kinds


def _panel(ax: Axes) -> str:
    parts = []
    title = _clean(" ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right"))
                            if t))  # fmt: skip
    if title:
        parts.append(f"'{title}'")
    marks = _marks(ax)
    if marks:
        parts.append(", ".join(marks))
    x, y = _clean(ax.get_xlabel()), _clean(ax.get_ylabel())
    if x or y:
        parts.append(" vs ".join(f"{a}" for a in (y, x) if a) + " on the axes"
                     if x and y else f"axis: {x or y}")  # fmt: skip
    legend = ax.get_legend()
    if legend is not None:
        entries = [_clean(t.get_text()) for t in legend.get_texts() if t.get_text().strip()]
        if entries:
            parts.append("legend: " + ", ".join(entries[:8]) + (" ..." if len(entries) > 8 else ""))
    return "; ".join(parts) if parts else "a panel"


def figure_alt_text(fig: Figure | SubFigure) -> str:
    """A one-paragraph description of ``fig``: its title, then for each panel (Axes that are
    not colour bars) the panel's title, the kind of marks (heatmap, bars, curves, points, text),
    the axis labels and the legend entries. At most 600 characters.

    Lecture-independent (accessibility).
    """
    if not isinstance(fig, (Figure, SubFigure)):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    axes = [ax for ax in fig.get_axes()
            if ax.get_visible() and ax.get_label() != "<colorbar>"]  # fmt: skip
    head = []
    title = _clean(fig.get_suptitle())
    if title:
        head.append(f"Figure: {title}.")
    if not axes:
        head.append("A figure without axes.")
        return " ".join(head)[:_MAX_CHARS]
    if len(axes) == 1:
        head.append(("Plot: " if not title else "") + _panel(axes[0]) + ".")
    else:
        head.append(f"{len(axes)} panels.")
        head += [f"Panel {i}: {_panel(ax)}." for i, ax in enumerate(axes, 1)]
    text = " ".join(head)
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 3].rstrip() + "..."


def describe_figures(shell: object = None) -> None:
    """In IPython / Jupyter: from now on every matplotlib figure a cell shows is stored with
    ``{"alt": figure_alt_text(fig)}`` in its image output's metadata (what the course website
    and screen readers read). Outside IPython it does nothing. Calling it twice is harmless.

    The inline backend (re)registers its PNG printer for figures when it is first used, so the
    description is added by the PNG formatter itself (its class gains one step), whichever
    printer it holds.

    Lecture-independent (accessibility).
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - IPython is installed with Jupyter
            return
        shell = get_ipython()
        if shell is None:
            return
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", None)
    if not isinstance(formatters, dict):
        raise ValueError(f"shell must be an IPython shell, got {type(shell).__name__}")
    png = formatters.get("image/png")
    if png is None or getattr(png, _WRAPPED, False):
        return
    base = type(png)

    class DescribedPNGFormatter(base):  # type: ignore[misc, valid-type]
        def __call__(self, obj: object) -> object:
            data = super().__call__(obj)
            if data is None or isinstance(data, tuple) or not isinstance(obj, (Figure, SubFigure)):
                return data
            return data, {"alt": figure_alt_text(obj)}

    setattr(DescribedPNGFormatter, _WRAPPED, True)
    png.__class__ = DescribedPNGFormatter
