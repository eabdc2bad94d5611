"""What every viz module shares: turning tensors into arrays, checking labels, an Axes to draw
on, ipywidgets on demand.

Public API::

    arr = to_numpy(name, x, ndim=None, numeric=False)   # tensor / array / lists -> np.ndarray
    check_labels(name, labels, n)                        # None or n labels (not a string)
    ax = get_axes(ax=None, figsize=None)                 # the given Axes, or a new figure's
    widgets = require_ipywidgets()                       # the module, or a clear ImportError
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

__all__ = ["to_numpy", "check_labels", "get_axes", "require_ipywidgets"]


def to_numpy(name: str, x: object, ndim: int | None = None, *, numeric: bool = False) -> np.ndarray:
    """``x`` (a tensor, array or nested lists) as a numpy array with ``ndim`` dims.

    ``numeric=True`` also requires finite float values and at least one entry (data to plot
    as numbers); otherwise the dtype is kept (e.g. a bool mask).
    """
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    try:
        arr = np.asarray(x, dtype=np.float64 if numeric else None)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {type(x).__name__}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if numeric and arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if numeric and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (mask by leaving keys out), got {arr}")
    return arr


def check_labels(name: str, labels: Sequence[str] | None, n: int) -> None:
    """Raise ValueError unless ``labels`` is None or a sequence of ``n`` labels."""
    if labels is not None and (isinstance(labels, str) or len(labels) != n):
        count = "a string" if isinstance(labels, str) else f"{len(labels)} labels"
        raise ValueError(f"{name} has {count} but the data has {n} entries")


def get_axes(ax: Axes | None = None, figsize: tuple[float, float] | None = None) -> Axes:
    """``ax`` if given, otherwise the Axes of a new pyplot figure of size ``figsize``."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize)
    return ax


def require_ipywidgets():
    """The ipywidgets module (imported lazily: lecturekit works without it)."""
    try:
        import ipywidgets
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("lecturekit widgets need ipywidgets: pip install ipywidgets") from err
    return ipywidgets
