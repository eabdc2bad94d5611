"""Slide figures of lecture 10, the full Transformer translating (registered on import).

    10  transformer_architecture, transformer_cross_attention, label_smoothing
    10b transformer_vs_rnn_by_length; widget sign_test

From the shipped checkpoints only (data/transformer_nmt.safetensors and the RNN
seq2seq_dot.safetensors); nothing trains here.
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.figure import Figure

from lecturekit.viz.transformer import (
    plot_alignment,
    plot_architecture,
    plot_label_smoothing,
    plot_length_accuracy,
)
from lecturekit_publish.figures.helpers import at_least
from lecturekit_publish.figures.registry import register, register_widget

ALIGNMENT_SENTENCE = 306  # notebook 01's 23-word test sentence with four mirrored adjective pairs


@cache
def _data_and_transformer():
    from lecturekit.datasets.translation import default_data
    from lecturekit.shipped import load_shipped

    return default_data(), load_shipped("transformer_nmt")


@cache
def _models():
    from lecturekit.shipped import load_shipped

    return *_data_and_transformer(), load_shipped("seq2seq_dot")


@cache
def _by_length():
    from lecturekit.experiments.translation import exact_match_by_length

    data, transformer, rnn = _models()
    return {
        "Transformer": exact_match_by_length(transformer, data.test, data),
        "RNN + attention (dot)": exact_match_by_length(rnn, data.test, data),
    }


@register(
    "transformer_architecture",
    lecture="10",
    description="the encoder-decoder Transformer as boxes: embeddings + PE, N x layers, generator",
    takeaway="The Transformer keeps the encoder-decoder plan and replaces both recurrences by "
    "self-attention.",
)
def transformer_architecture() -> Figure:
    fig = Figure(figsize=(10.0, 7.5))
    plot_architecture(num_layers=2, ax=fig.add_subplot())
    fig.tight_layout()
    return at_least(fig)


@register(
    "transformer_vs_rnn_by_length",
    lecture="10b",
    description="exact match vs source length: the shipped Transformer vs the RNN + dot attention",
    takeaway="The Transformer gets every sentence under 55 words right; on the rare longest ones "
    "it falls behind the RNN.",
)
def transformer_vs_rnn_by_length() -> Figure:
    """Notebook 10b section 1: both shipped models on the 1,000 test sentences, greedy.

    Lecture 10.
    """
    data = _models()[0]
    results = _by_length()
    fig = Figure()
    ax = fig.add_subplot()
    plot_length_accuracy(results, ax, title=f"{len(data.test):,} test sentences, greedy decoding")
    ax.set_ylim(0.6, 1.02)
    ax.set_xlabel("source sentence length in words (number of test sentences)")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return at_least(fig)


@register(
    "transformer_cross_attention",
    lecture="10",
    description="decoder cross-attention (last layer, mean of heads) on a test sentence vs the "
    "true alignment",
    takeaway="The last decoder layer's cross-attention follows the true word alignment, mirrored "
    "adjectives included.",
)
def transformer_cross_attention() -> Figure:
    """Notebook 10 section 6: teacher-forced cross-attention of the shipped Transformer.

    Lecture 10.
    """
    from lecturekit.datasets.translation import collate

    data, transformer, _ = _models()
    pair = data.test[ALIGNMENT_SENTENCE]
    batch = collate([pair], data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        _, weights = transformer(batch.src, batch.tgt_in)
    n = len(pair.tgt)
    cross = weights.cross[-1][0].mean(0)[:n]  # (H, T, S) -> (T, S) -> the n target words
    fig = Figure()
    ax = fig.add_subplot()
    plot_alignment(cross, pair.src, pair.tgt, pair.align, ax,
                   title="Transformer cross-attention (last layer, mean of heads)")  # fmt: skip
    fig.tight_layout()
    return at_least(fig)


@register(
    "label_smoothing",
    lecture="10",
    description="label smoothing: the smoothed target of one position, and the loss by the "
    "probability of the right word, with and without smoothing",
    takeaway="With label smoothing the loss is lowest at p = 0.9, not at certainty: the model is "
    "never pushed to infinite confidence.",
)
def label_smoothing() -> Figure:
    """Notebook 10 section 4: ``plot_label_smoothing`` for the toy task's 68 target words.

    Lecture 10.
    """
    fig = Figure(figsize=(11.0, 4.2))
    plot_label_smoothing(vocab_size=68, eps=0.1, fig=fig)
    return at_least(fig)


# ----------------------------------------------------------- the notebooks' widgets, rebuilt

WIDGET_SENTENCES = (306, 5, 3, 9)  # notebook 10's widget: the test sentences it offers


@register_widget(
    "translation_attention_maps",
    lecture="10",
    index=0,
    description="every attention map of the shipped Transformer on test sentences: kind, layer, "
    "head",
)
def translation_attention_maps_rebuilt():
    """Notebook 10 section 6: ``translation_attention_widget`` on four test sentences,
    teacher-forced through the shipped Transformer.

    Lecture 10.
    """
    from lecturekit.datasets.translation import collate
    from lecturekit.viz.transformer import (
        translation_attention_widget,
        translation_attention_widget_grid,
    )

    data, transformer = _data_and_transformer()
    examples = {}
    for i in WIDGET_SENTENCES:
        pair = data.test[i]
        batch = collate([pair], data.src_vocab, data.tgt_vocab)
        with torch.no_grad():
            _, weights = transformer(batch.src, batch.tgt_in)
        examples[f"test {i} ({len(pair.src)} words)"] = (pair.src, pair.tgt, pair.align, weights)
    layers, heads = transformer.config.num_layers, transformer.config.num_heads
    return (
        translation_attention_widget(examples, num_layers=layers, num_heads=heads),
        translation_attention_widget_grid(examples, layers, heads),
    )


@register_widget(
    "sign_test",
    lecture="10b",
    index=0,
    description="the exact sign test on the 13 disagreements of the Transformer and the RNN: the "
    "split and the test set's size",
)
def sign_test_rebuilt():
    """Notebook 10b section 2: ``sign_test_widget(10, 3)``, the split of lecture 10's two models.

    Lecture 10b.
    """
    from lecturekit.viz.transformer import sign_test_widget, sign_test_widget_grid

    return sign_test_widget(10, 3), sign_test_widget_grid(10, 3)
