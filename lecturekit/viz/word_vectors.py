"""Lecture 00's word-vector plots: nearest neighbours, and how well vectors separate two senses.

Public API::

    plot_neighbours(neighbours, word, ax=None)     # [(word, cosine)] as horizontal bars
    plot_sense_separation(results, ax=None)        # {model: SenseSeparation}: within vs across
    neighbour_widget(vectors, vocab, words, k=8)   # pick a word: its nearest neighbours
    neighbour_widget_grid(words)                   # the values a static page pre-renders

Lecture 00; Mikolov et al. 2013; Peters et al. 2018.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from lecturekit.experiments.word_vectors import WordVocab, nearest_words
from lecturekit.utils.checks import check_instance, check_positive_int, check_str, check_strings
from lecturekit.viz.helpers import check_list, check_mapping, get_axes, require_ipywidgets
from lecturekit.viz.style import ACCENT, GUIDE
from lecturekit.viz.widgets import figure_widget

__all__ = ["plot_neighbours", "plot_sense_separation", "neighbour_widget",
           "neighbour_widget_grid"]  # fmt: skip


def _check_neighbours(neighbours: object) -> list[tuple[str, float]]:
    out = []
    for i, pair in enumerate(check_list("neighbours", neighbours, "(word, cosine) pairs")):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], str)):
            raise ValueError(f"neighbours[{i}] must be a (word, cosine) pair, got {pair!r}")
        out.append((pair[0], float(pair[1])))
    return out


def plot_neighbours(
    neighbours: Sequence[tuple[str, float]], word: str, ax: Axes | None = None
) -> Axes:
    """The nearest neighbours of ``word`` as horizontal bars of cosine similarity, the most
    similar on top.

    Lecture 00.
    """
    pairs = _check_neighbours(neighbours)
    check_str("word", word)
    ax = get_axes(ax, figsize=(5, 0.35 * len(pairs) + 1))
    labels = [w for w, _ in pairs][::-1]
    values = [c for _, c in pairs][::-1]
    bars = ax.barh(range(len(pairs)), values)
    ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], padding=2, fontsize="small")
    ax.set_yticks(range(len(pairs)), labels)
    ax.set_xlim(min(0.0, min(values)), 1.15)
    ax.set(xlabel="cosine similarity", title=f"nearest to '{word}'")
    return ax


def plot_sense_separation(results: Mapping[str, object], ax: Axes | None = None) -> Axes:
    """For each model (``results``: name -> an object with ``within``, ``across`` and
    ``accuracy``, e.g. a ``SenseSeparation``), the mean cosine within a sense and across senses
    side by side, the nearest-sense accuracy written above.

    Lecture 00.
    """
    check_mapping("results", results, "model -> SenseSeparation")
    for name, r in results.items():
        if not all(hasattr(r, a) for a in ("within", "across", "accuracy")):
            raise ValueError(f"results[{name!r}] needs within, across and accuracy, got "
                             f"{type(r).__name__}")  # fmt: skip
    names = list(results)
    x = np.arange(len(names))
    ax = get_axes(ax, figsize=(1.6 * len(names) + 2, 4))
    within = [results[n].within for n in names]
    across = [results[n].across for n in names]
    ax.bar(x - 0.2, within, 0.4, label="within a sense")
    ax.bar(x + 0.2, across, 0.4, label="across senses", color=ACCENT)
    for i, n in enumerate(names):
        ax.text(i, max(within[i], across[i]) + 0.03, f"acc {results[n].accuracy:.2f}",
                ha="center", fontsize="small")  # fmt: skip
    ax.axhline(1.0, color=GUIDE, ls=":", lw=1)
    low = min(0.0, *within, *across)
    ax.set_ylim(low, 1.35)
    ax.set_xticks(x, names)
    ax.set(ylabel="mean cosine similarity")
    ax.legend(loc="upper right", ncols=2, fontsize="small")
    return ax


def neighbour_widget_grid(words: Sequence[str]) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``neighbour_widget``: every word offered.

    Lecture 00.
    """
    return {"word": check_strings("words", words)}


def neighbour_widget(vectors: torch.Tensor, vocab: WordVocab, words: Sequence[str], k: int = 8):
    """Pick a word from ``words``: its ``k`` nearest neighbours by cosine (``nearest_words``).

    Returns:
        An ipywidgets VBox: a dropdown and the image.

    Lecture 00.
    """
    check_instance("vocab", vocab, WordVocab)
    words = check_strings("words", words)
    check_positive_int("k", k)
    # every choice must draw: each word's neighbours, found once
    neighbours = {w: _check_neighbours(nearest_words(vectors, vocab, w, k)) for w in words}
    widgets = require_ipywidgets()
    controls = {"word": widgets.Dropdown(options=words, value=words[0], description="word")}
    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place

    def render(word: str) -> Figure:
        pairs = neighbours[word]
        if not kept:
            fig = Figure(figsize=(5, 0.35 * k + 1), layout="constrained")
            plot_neighbours(pairs, word, fig.add_subplot())
            kept.append(fig)
            return fig
        fig = kept[0]  # the same drawn again, as plot_neighbours draws it (its layout too)
        ax = fig.axes[0]
        labels = [w for w, _ in pairs][::-1]
        values = [c for _, c in pairs][::-1]
        bars = ax.containers[0]
        for bar, value in zip(bars, values, strict=True):
            bar.set_width(value)
        bars.datavalues = np.asarray(values, dtype=float)  # (bar_label reads their signs)
        for text in [*ax.texts]:  # the previous word's values
            text.remove()
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], padding=2, fontsize="small")
        ax.set_yticks(range(len(pairs)), labels)
        ax.set_xlim(min(0.0, min(values)), 1.15)
        ax.set(title=f"nearest to '{word}'")
        return fig

    return figure_widget(render, controls)
