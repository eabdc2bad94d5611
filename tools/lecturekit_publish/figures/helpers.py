"""What the slide-figure modules share: slide-sized fonts and plain log-axis ticks.

Public API::

    MIN_FONT                       # points: the smallest text on a 10-inch-wide slide figure
    at_least(fig, size=MIN_FONT)   # raise every smaller text of fig to size; returns fig
    plain_ticks(ax, values)        # x ticks at values, written as plain numbers on a log axis
    with one_thread(): ...         # torch on one thread (as the notebooks run), restored after

The colours (``ACCENT``, ``GUIDE``) are the notebooks' too: ``lecturekit.viz.style``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["MIN_FONT", "at_least", "plain_ticks", "one_thread"]

MIN_FONT = 11.0


def at_least(fig: Figure, size: float = MIN_FONT) -> Figure:
    """Raise every text of ``fig`` smaller than ``size`` points to ``size`` (plot functions
    made for notebooks use small fonts for dense annotations)."""
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "set_fontsize")):
        if text.get_fontsize() < size:
            text.set_fontsize(size)
    return fig


def plain_ticks(ax: Axes, values: Sequence[float]) -> None:
    """Ticks at ``values`` written as plain numbers (not 2^k) on a log-2 axis."""
    ax.set_xticks(list(values), [str(v) for v in values])
    ax.xaxis.set_minor_locator(plt.NullLocator())


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one thread, as the notebooks run (the same arithmetic, and the fastest for these
    tiny computations beside other jobs); the thread count is restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
