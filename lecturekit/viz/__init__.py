"""Plots and widgets for the lectures: one look (light/dark), pure plot functions, thin widgets.

Lecture-independent; core modules never import this package.
"""

from lecturekit.viz.plots import (
    plot_attention,
    plot_bars,
    plot_heads,
    plot_heatmap,
    plot_lines,
    plot_mask,
)
from lecturekit.viz.style import ATTENTION_CMAP, DIVERGING_CMAP, palette, rc, theme
from lecturekit.viz.trees import beam_tree_figure, beam_widget, plot_beam_tree

__all__ = [
    "plot_attention",
    "plot_bars",
    "plot_heads",
    "plot_heatmap",
    "plot_lines",
    "plot_mask",
    "plot_beam_tree",
    "beam_tree_figure",
    "beam_widget",
    "ATTENTION_CMAP",
    "DIVERGING_CMAP",
    "palette",
    "rc",
    "theme",
]
