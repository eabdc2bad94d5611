"""Slide figures of lecture 00, from word vectors to context and why recurrence struggles
(registered on import).

    00   sense_similarity, rnn_gradient_vs_distance
    00b  rnn_jacobian_decay, recurrence_table (and the rnn_gradient widget)

No figure trains: the sense figure reads the shipped tiny BERT (and one word vector per
word, identical for every occurrence by construction); the others are measured on seeded
random layers (gradients by autograd, FLOPs counted, path lengths from exact zeros).

The notebook's widgets, rebuilt for the website (``register_widget``): word_neighbours (on the
skip-gram vectors the notebook trains, trained here the same way: seeded, about a second) and
rnn_gradient.
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from lecturekit.datasets.stories import default_data
from lecturekit.experiments.recurrence import (
    gradient_vs_distance,
    rnn_jacobian_decay,
    vaswani_table,
)
from lecturekit.experiments.word_vectors import (
    bert_vectors,
    sense_occurrences,
    sense_separation,
)
from lecturekit.shipped import load_shipped, load_tokenizer
from lecturekit.viz.recurrence import (
    plot_gradient_vs_distance,
    plot_jacobian_decay,
    plot_recurrence_table,
)
from lecturekit.viz.word_vectors import plot_sense_separation
from lecturekit_publish.figures.helpers import at_least, one_thread
from lecturekit_publish.figures.registry import register, register_widget


def _axes() -> Axes:
    return Figure(layout="constrained").add_subplot()


SIGMAS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)  # the notebook's spectral norms


@register(
    "sense_similarity",
    lecture="00",
    description="'teddy' (president vs toy): cosine within vs across senses, one word vector "
    "vs the tiny BERT's layers",
    takeaway="One vector per word cannot tell the two senses of 'teddy' apart; after one "
    "self-attention layer, BERT can.",
)
def sense_similarity() -> Figure:
    """Notebook 00 section 2: the held-out occurrences of "teddy" in lecture 08's corpus.

    Lecture 00; Devlin et al. 2019.
    """
    occurrences = sense_occurrences(default_data().test)
    senses = [o.sense for o in occurrences]
    layers = bert_vectors(load_shipped("bert_tiny"), load_tokenizer("bert_tiny"), occurrences)
    one_vector = torch.ones(len(occurrences), 4)  # every occurrence gets the same vector
    results = {"one vector\nper word": sense_separation(one_vector, senses)}
    for i, vectors in enumerate(layers):
        name = "BERT\nembeddings" if i == 0 else f"BERT\nlayer {i}"
        results[name] = sense_separation(vectors, senses)
    ax = plot_sense_separation(results, _axes())
    ax.set_title("'teddy': roosevelt (president) vs bear (toy)")
    return at_least(ax.figure)


@register(
    "rnn_gradient_vs_distance",
    lecture="00",
    description="gradient norm of the last position's loss w.r.t. the input d steps back: "
    "RNN, GRU, LSTM, Transformer layer",
    takeaway="Recurrent gradients shrink geometrically with distance (GRU, LSTM more slowly); a "
    "Transformer's stay flat.",
)
def rnn_gradient_vs_distance() -> Figure:
    """Notebook 00 section 3: torch's default initialisation, median over 5 seeds.

    Lecture 00; Bengio et al. 1994.
    """
    return at_least(plot_gradient_vs_distance(gradient_vs_distance(), _axes()).figure)


@register(
    "rnn_jacobian_decay",
    lecture="00b",
    description="vanilla RNN: measured gradient factor per step vs the spectral norm of W_hh",
    takeaway="The gradient factor per step never exceeds σ, the spectral norm of W_hh; tanh keeps "
    "it below 1 even at σ = 2.",
)
def rnn_jacobian_decay_figure() -> Figure:
    """Notebook 00 section 3: the per-step factor is at most σ.

    Lecture 00; Pascanu et al. 2013.
    """
    return at_least(plot_jacobian_decay(rnn_jacobian_decay(SIGMAS), _axes()).figure)


@register(
    "recurrence_table",
    lecture="00b",
    description="Vaswani et al.'s Table 1 filled from measurements: FLOPs exponents, "
    "sequential operations, path lengths",
    takeaway="Table 1, measured: attention FLOPs grow as n²d, recurrent as nd², but recurrence "
    "needs n sequential steps.",
)
def recurrence_table() -> Figure:
    """Notebook 00 section 5.

    Lecture 00; Vaswani et al. 2017 Table 1.
    """
    ax = Figure(figsize=(11, 2.8), layout="constrained").add_subplot()
    return at_least(plot_recurrence_table(vaswani_table(), ax).figure)


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


# the words of notebook 00 cell 14's dropdown, in its order
NEIGHBOUR_WORDS = ("teddy", "tom", "dog", "penguins", "milk", "cold", "fish", "president",
                   "bear", "happy")  # fmt: skip


@cache
def _skipgram_vectors() -> tuple[torch.Tensor, object]:
    """Notebook 00 section 1: the skip-gram vectors it trains (``SGNS``, seeded; ~1 s) and the
    vocabulary of the training sentences."""
    from lecturekit.experiments.word_vectors import SGNS, story_sentences, train_sgns, word_vocab

    sentences = story_sentences(default_data().train)
    vocab = word_vocab(sentences)
    with one_thread():
        model, _ = train_sgns(sentences, vocab, **SGNS)
    return model.vectors, vocab


@register_widget(
    "word_neighbours",
    lecture="00",
    index=0,
    description="pick a word: its 8 nearest neighbours by cosine in the trained skip-gram space",
)
def word_neighbours_rebuilt() -> tuple[object, dict[str, list[object]] | None]:
    """Notebook 00 cell 14: ``neighbour_widget`` on the skip-gram vectors the notebook trains.

    Lecture 00.
    """
    from lecturekit.viz.word_vectors import neighbour_widget, neighbour_widget_grid

    vectors, vocab = _skipgram_vectors()
    words = list(NEIGHBOUR_WORDS)
    return neighbour_widget(vectors, vocab, words, k=8), neighbour_widget_grid(words)


@register_widget(
    "rnn_gradient",
    lecture="00b",
    index=0,
    description="the vanilla RNN's gradient vs distance for each spectral norm of W_hh, "
    "with or without the gated and Transformer curves",
)
def rnn_gradient_rebuilt() -> tuple[object, dict[str, list[object]] | None]:
    """Notebook 00b: ``gradient_widget(curves, decay)`` on the notebook's measurements
    (torch's initialisation, and W_hh rescaled to each σ; median over 5 seeds).

    Lecture 00.
    """
    from lecturekit.experiments.recurrence import KINDS
    from lecturekit.viz.recurrence import gradient_widget, gradient_widget_grid

    with one_thread():
        curves = gradient_vs_distance(KINDS, length=48, dim=32, seeds=5)
        decay = rnn_jacobian_decay(SIGMAS, length=48, dim=32, seeds=5)
    return gradient_widget(curves, decay), gradient_widget_grid(decay)
