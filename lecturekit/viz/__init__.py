"""Plots and widgets: one look in light and dark (``style``), pure plot functions (``plots``),
thin widgets (``widgets``, drawing text through ``text_cache``: the same pixels, faster), shared
helpers (``helpers``) and one module per lecture topic.

Nothing below viz imports it: models and blocks never plot.
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
