"""One look for every lecture plot, in a light and a dark theme.

Public API::

    rc(theme="light") -> dict           # rcParams: plt.style.use(rc("dark")) in a notebook
    with theme("dark"): ...             # the same, temporarily (plt.rc_context)
    palette(theme="light") -> list[str] # colour-blind-safe line colours (Okabe-Ito)
    ATTENTION_CMAP, DIVERGING_CMAP      # sequential (weights) and diverging (signed values) maps
    ACCENT, GUIDE                       # the highlight colour, and theory / guide lines

Nothing here changes global settings by itself: the caller applies ``rc`` or uses ``theme``.
"""

from __future__ import annotations

import contextlib

import matplotlib.pyplot as plt
from cycler import cycler

from lecturekit.utils.checks import did_you_mean

__all__ = ["rc", "theme", "palette", "ATTENTION_CMAP", "DIVERGING_CMAP", "ACCENT", "GUIDE",
           "THEMES"]  # fmt: skip

ATTENTION_CMAP = "viridis"  # perceptually uniform, colour-blind safe, readable in grey
DIVERGING_CMAP = "RdBu_r"  # colour-blind safe diverging map for signed values (PE, M)
ACCENT = "#D55E00"  # Okabe-Ito vermillion: readable on viridis and on both backgrounds
GUIDE = "grey"  # theory and guide lines, visible on both backgrounds

# Okabe & Ito (2008) colour-blind-safe palette; black/white swapped per theme.
_OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]

THEMES = {
    "light": {"fg": "#1a1a1a", "bg": "#ffffff", "grid": "#d9d9d9"},
    "dark": {"fg": "#e6e6e6", "bg": "#1e1e1e", "grid": "#444444"},
}


def _check_theme(name: object) -> dict[str, str]:
    if not isinstance(name, str) or name not in THEMES:
        raise ValueError(f"theme={name!r} is not one of {sorted(THEMES)}"
                         f"{did_you_mean(str(name).lower(), THEMES)}")  # fmt: skip
    return THEMES[name]


def palette(theme: str = "light") -> list[str]:
    """Colour-blind-safe line colours for ``theme`` (yellow last: weak on white)."""
    _check_theme(theme)
    return list(_OKABE_ITO)


def rc(theme: str = "light") -> dict[str, object]:
    """matplotlib rcParams for the lecture look in ``theme`` ("light" or "dark")."""
    t = _check_theme(theme)
    return {
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "figure.facecolor": t["bg"],
        "savefig.facecolor": t["bg"],
        "axes.facecolor": t["bg"],
        "axes.edgecolor": t["fg"],
        "axes.labelcolor": t["fg"],
        "axes.titlecolor": t["fg"],
        "axes.titlesize": 12,
        "axes.labelsize": 11,
        "axes.grid": False,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=palette(theme)),
        "grid.color": t["grid"],
        "text.color": t["fg"],
        "xtick.color": t["fg"],
        "ytick.color": t["fg"],
        "xtick.labelsize": 10,
        "ytick.labelsize": 10,
        "legend.frameon": False,
        "legend.fontsize": 10,
        "font.size": 11,
        "image.cmap": ATTENTION_CMAP,
        "svg.hashsalt": "lecturekit",
    }


def theme(name: str = "light") -> contextlib.AbstractContextManager:
    """Temporarily apply the lecture look: ``with theme("dark"): fig = plot_...``. An unknown
    name raises when ``theme`` is called, not only on entering the ``with``."""
    return plt.rc_context(rc(name))
