"""Plots and widgets, one look in light and dark. Nothing below viz imports it: models and
blocks never plot.

- ``style``: the theme (``theme``, ``rc``, ``palette``, the colour maps); ``alt``: alt text
- ``plots``: the pure plot functions every lecture uses (heatmaps, attention, heads, lines, bars)
- ``widgets``: thin widgets over pure plot functions, drawing text through ``text_cache`` (the
  same pixels, faster); ``helpers``: what the plot modules share
- ``diagram`` (boxes and arrows) and ``diagrams`` (each lecture's picture before its formula)
- one module per lecture topic: ``word_vectors``, ``recurrence``, ``scoring``, ``transformer``,
  ``trees`` (beam search), ``bert``, ``vit``, ``captioning``, ``efficient``, ``variants``,
  ``tokenization``, ``finetuning``, ``generation``, ``objectives``
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
