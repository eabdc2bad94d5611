"""What every viz module shares: turning tensors into arrays, checking labels, an Axes or a
Figure to draw on, ipywidgets on demand.

Public API::

    arr = to_numpy(name, x, ndim=None, numeric=False, wanted=None)  # tensor / array / lists
    check_numbers(name, arr)                             # numbers (bool/int/float), not empty
    check_labels(name, labels, n)                        # None or n labels (not a string)
    check_mapping(name, value, what)                     # a non-empty mapping (a dict)
    check_list(name, value, what) -> list                # a non-empty list (not a string)
    check_rows(name, rows, keys, what) -> list           # a non-empty list of dicts with keys
    slider_values(name, values, lo, hi, step) -> list    # values a widget's slider offers
    ax = get_axes(ax=None, figsize=None)                 # the given Axes, or a new figure's
    check_figure(name, fig)                              # None or a matplotlib Figure
    widgets = require_ipywidgets()                       # the module, or a clear ImportError

What plot functions accept as data (documented once, here): a torch tensor (one that requires
grad is detached first), a numpy array, or nested lists of numbers (converted with
``np.asarray``). NaN and +-inf are drawn as empty cells by the heatmaps (masked scores, for
instance); functions that need finite numbers (softmax of scores) say so and refuse them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import FigureBase

__all__ = [
    "to_numpy",
    "check_numbers",
    "check_labels",
    "check_mapping",
    "check_list",
    "check_rows",
    "slider_values",
    "get_axes",
    "check_figure",
    "require_ipywidgets",
]


def to_numpy(
    name: str,
    x: object,
    ndim: int | None = None,
    *,
    numeric: bool = False,
    wanted: str | None = None,
) -> np.ndarray:
    """``x`` (a tensor, array or nested lists) as a numpy array with ``ndim`` dims.

    A tensor that requires grad is detached; nested lists are converted (ragged ones are
    refused). ``numeric=True`` also requires finite float values and at least one entry (data
    to plot as numbers); otherwise the dtype is kept (e.g. a bool mask) and NaN passes.
    ``wanted`` describes the shape in the message, e.g. "(Tq, Tk)".
    """
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    try:
        arr = np.asarray(x, dtype=np.float64 if numeric else None)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {type(x).__name__}") from None
    if ndim is not None and arr.ndim != ndim:
        want = f"{ndim}-D {wanted}" if wanted else f"{ndim}-D"
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if numeric and arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if numeric and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (mask by leaving keys out), got {arr}")
    return arr


def check_numbers(name: str, arr: np.ndarray) -> np.ndarray:
    """Raise ValueError unless the array holds numbers (bool, int or float; NaN allowed) and
    at least one of them; return it."""
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numbers, got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    return arr


def check_labels(name: str, labels: Sequence[str] | None, n: int) -> None:
    """Raise ValueError unless ``labels`` is None or a sequence of ``n`` labels."""
    if labels is None:
        return
    if not isinstance(labels, str) and not hasattr(labels, "__len__"):
        raise ValueError(f"{name} must be a list of {n} labels, got {type(labels).__name__}")
    if isinstance(labels, str) or len(labels) != n:
        count = "a string" if isinstance(labels, str) else f"{len(labels)} labels"
        raise ValueError(f"{name} has {count} but the data has {n} entries")


def check_mapping(name: str, value: object, what: str) -> Mapping:
    """Raise ValueError unless ``value`` is a non-empty mapping (``what`` says of what, e.g.
    "label -> y values"); return it."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping {what} (a dict), got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} is empty: expected {what}")
    return value


def check_list(name: str, value: object, what: str) -> list:
    """``value`` as a list; ValueError unless a non-empty sequence (not a str or dict)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence) or not value:
        got = repr(value) if len(repr(value)) <= 60 else type(value).__name__
        raise ValueError(f"{name} must be a non-empty list of {what}, got {got}")
    return list(value)


def check_rows(name: str, rows: object, keys: Sequence[str], what: str) -> list[Mapping]:
    """``rows`` as a list; ValueError unless a non-empty list of dicts with all of ``keys``."""
    rows = check_list(name, rows, what)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(f"{name}[{i}] must be a dict with keys {', '.join(keys)}, got "
                             f"{type(row).__name__}")  # fmt: skip
        missing = [k for k in keys if k not in row]
        if missing:
            raise ValueError(f"{name}[{i}] has no {', '.join(missing)} (keys: {', '.join(keys)})")
    return rows


def slider_values(name: str, values: object, lo: float, hi: float, step: float) -> list:
    """``values`` if a slider lo..hi in steps of ``step`` offers them all (int step: as ints)."""
    whole = isinstance(step, int)
    values = check_list(name, values, "integers" if whole else "numbers")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (whole and v != int(v)):
            raise ValueError(f"{name} must hold {'integers' if whole else 'numbers'}, got {v!r} "
                             f"in {values}")  # fmt: skip
        steps = (v - lo) / step
        if not lo - 1e-9 <= v <= hi + 1e-9 or abs(steps - round(steps)) > 1e-6:
            raise ValueError(f"{name}: {v!r} is not a value the control offers ({lo}..{hi} in "
                             f"steps of {step})")  # fmt: skip
    return [int(v) if whole else float(v) for v in values]


def get_axes(ax: Axes | None = None, figsize: tuple[float, float] | None = None) -> Axes:
    """``ax`` if given, otherwise the Axes of a new pyplot figure of size ``figsize``."""
    if ax is not None:
        if not isinstance(ax, Axes):
            raise ValueError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
        return ax
    _, ax = plt.subplots(figsize=figsize)
    return ax


def check_figure(name: str, fig: object) -> None:
    """Raise ValueError unless ``fig`` is None or a matplotlib Figure or SubFigure (not an
    Axes)."""
    if fig is not None and not isinstance(fig, FigureBase):
        raise ValueError(f"{name} must be a matplotlib Figure or None, got {type(fig).__name__}")


def require_ipywidgets():
    """The ipywidgets module (imported lazily: lecturekit works without it)."""
    try:
        import ipywidgets
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("lecturekit widgets need ipywidgets: pip install ipywidgets") from err
    return ipywidgets
