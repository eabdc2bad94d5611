"""Slide figures of lecture 12, subword tokenization (registered on import)."""

from __future__ import annotations

from matplotlib.figure import Figure

from lecturekit.bpe import SLIDES_DICTIONARY, BPETokenizer, learn_bpe, split_word
from lecturekit.viz.tokenization import plot_merge_table, plot_segmentations
from lecturekit_publish.figures.registry import register, register_widget

VOCAB_SIZE = 450  # as lecture 08's WordPiece vocabulary
_WORDS = ("playing", "flightless", "doghouse", "unhappy", "zebra")


@register(
    "bpe_merge_steps",
    lecture="12",
    description="BPE step by step on low 5, lower 2, newest 6, widest 3: es, est, lo, low, ...",
    takeaway="Each step merges the most frequent adjacent pair; the first merges, es, est, lo, are "
    "the slides' own.",
)
def bpe_merge_steps() -> Figure:
    _, trace = learn_bpe(SLIDES_DICTIONARY, 10)
    fig = Figure()
    ax = fig.add_subplot()
    step0 = {w: split_word(w) for w in SLIDES_DICTIONARY}
    plot_merge_table(trace, ax, step0=step0, word_counts=SLIDES_DICTIONARY)
    ax.set_title("BPE merges: the most frequent pair, ties to the older symbols", loc="left")
    fig.tight_layout()
    return fig


@register(
    "bpe_vs_wordpiece",
    lecture="12",
    description="the same words cut by BPE and by WordPiece, both learned on the toy corpus",
    takeaway="Both spell new words from known pieces; an unseen letter costs BPE one [UNK], "
    "WordPiece the whole word.",
)
def bpe_vs_wordpiece() -> Figure:
    from lecturekit.datasets.stories import default_data
    from lecturekit.tokenization import WordPieceTokenizer, count_words, train_hf_wordpiece

    counts = count_words(s for doc in default_data().train for s in doc)
    alphabet = {c for word in counts for c in word}
    bpe = BPETokenizer.train(counts, VOCAB_SIZE - 1 - len(alphabet))  # [UNK] + alphabet + merges
    wordpiece = WordPieceTokenizer(train_hf_wordpiece(counts, VOCAB_SIZE))
    rows = {}
    for word in _WORDS:
        rows[f"{word} · BPE"] = bpe.tokenize(word)
        rows[f"{word} · WordPiece"] = wordpiece.tokenize(word)
    fig = Figure()
    ax = fig.add_subplot()
    plot_segmentations(rows, ax)
    ax.set_title(f"BPE vs WordPiece: {VOCAB_SIZE} entries each, learned on the toy corpus")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "bpe_merges",
    lecture="12",
    index=0,
    description="BPE on the slides' dictionary, merge by merge: the vocabulary and the words cut",
)
def bpe_merges_rebuilt():
    """Notebook 12 section 4: ``bpe_merges_widget`` over 12 merges, every merge pre-rendered
    (0..12: 13 settings, one more than a slider's derived grid keeps).

    Lecture 12.
    """
    from lecturekit.viz.tokenization import bpe_merges_widget
    from lecturekit.viz.widgets import widget_controls

    examples = ["low", "lower", "newest", "widest", "lowest", "newer", "wider"]
    widget = bpe_merges_widget(SLIDES_DICTIONARY, examples, max_merges=12)
    slider = widget_controls(widget)["merges_done"]
    return widget, {"merges_done": list(range(slider.min, slider.max + 1))}


@register_widget(
    "tokenizers_compared",
    lecture="12",
    index=1,
    description="one text cut by five tokenizers (BPE, WordPiece x 2, lecture 08's, byte-level "
    "BPE), prepared texts",
)
def tokenizers_compared_rebuilt():
    """Notebook 12 section 8: ``tokenizer_widget`` over the notebook's five tokenizers; the
    text box becomes the notebook's text and five prepared ones.

    Lecture 12.
    """
    from lecturekit.viz.tokenization import (
        compared_tokenizers,
        tokenizer_widget,
        tokenizer_widget_grid,
    )

    text = "he likes playing in the doghouse"
    return tokenizer_widget(compared_tokenizers(), text), tokenizer_widget_grid(text)
