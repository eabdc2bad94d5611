"""Lecture 12 plots and widgets: BPE merges step by step, words cut into coloured pieces.

Public API::

    plot_merge_table(trace, ax=None, words=None, step0=None, word_counts=None)
    #   the merge loop as a table: step | merge | count | tied with | each word's symbols
    plot_segmentations(rows, ax=None, unk_token="[UNK]")       # label -> tokens, drawn as boxes
    bpe_merges_widget(word_counts, words, max_merges=10, **learn_bpe_options)
    #   slider over the number of merges: the vocabulary so far and how ``words`` are cut
    tokenizer_widget(tokenizers, text)                          # a text box; a row per tokenizer
    tokenizer_widget_grid(text)            # text + PREPARED_TEXTS: what a static page pre-renders
    compared_tokenizers()                  # notebook 12's five: BPE, WordPiece (frequency and
    #   likelihood), lecture 08's, byte-level BPE, learned offline with COMPARED_VOCAB_SIZE = 450

Lecture 12; Sennrich et al. 2016 Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from lecturekit.bpe import MergeStep, apply_bpe, learn_bpe, split_word
from lecturekit.utils.checks import check_callable, check_instance, check_str, check_strings
from lecturekit.viz.helpers import check_list, check_mapping, get_axes, require_ipywidgets
from lecturekit.viz.style import palette
from lecturekit.viz.widgets import ALT_ATTR, KeptCanvas, figure_widget

__all__ = [
    "plot_merge_table",
    "plot_segmentations",
    "bpe_merges_widget",
    "tokenizer_widget",
    "tokenizer_widget_grid",
    "compared_tokenizers",
    "PREPARED_TEXTS",
    "COMPARED_VOCAB_SIZE",
]

_CHAR_WIDTH = 0.62  # box width per character, in the units of one box height
_ALT_CHARS = 600  # as lecturekit.viz.alt: longer alt text stops being useful


def _describe(box: object, control: object, alt: Callable[[object], str]) -> object:
    """Give the widget's image the written alt text ``alt(control.value)`` (the text these
    figures draw is what a screen reader should read, not just "text"), now and after every
    redraw (this observer runs after figure_widget's). Returns ``box``."""
    image = box.children[1]

    def clip(text: str) -> str:
        return text if len(text) <= _ALT_CHARS else text[: _ALT_CHARS - 3].rstrip() + "..."

    setattr(image, ALT_ATTR, clip(alt(control.value)))
    control.observe(lambda change: setattr(image, ALT_ATTR, clip(alt(change["new"]))),
                    names="value")  # fmt: skip
    return box


def _symbols(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def plot_merge_table(
    trace: Sequence[MergeStep],
    ax: Axes | None = None,
    words: Sequence[str] | None = None,
    step0: Mapping[str, Sequence[str]] | None = None,
    word_counts: Mapping[str, int] | None = None,
) -> Axes:
    """The merge loop as a table: one row per step with the merged pair, its count, the pairs
    it tied with, and each word's symbols after the merge (``words``: which columns, by default
    all). ``step0``: the initial segmentation, shown as row 0; ``word_counts``: shown in the
    column headers ("low ×5").

    Lecture 12; Sennrich et al. 2016 Algorithm 1.
    """
    for i, step in enumerate(check_list("trace", trace, "MergeStep (learn_bpe's trace)")):
        check_instance(f"trace[{i}]", step, MergeStep)
    if words is not None:
        check_strings("words", words)
    words = list(words if words is not None else trace[0].segmentation)
    unknown = [w for w in words if w not in trace[0].segmentation]
    if unknown:
        raise ValueError(f"words {unknown} are not in the trace's segmentation")
    counts = word_counts or {}
    header = ["step", "merge", "count", "tied with",
              *(f"{w} ×{counts[w]}" if w in counts else w for w in words)]  # fmt: skip
    rows = []
    if step0 is not None:
        rows.append(["0", "", "", "", *(_symbols(step0[w]) for w in words)])
    for s in trace:
        others = ", ".join(f"{a} {b}" for a, b in s.tied if (a, b) != s.pair)
        rows.append(
            [str(s.step), f"{s.pair[0]} + {s.pair[1]} → {s.merged}", str(s.count), others or "–",
             *(_symbols(s.segmentation[w]) for w in words)]
        )  # fmt: skip
    ax = get_axes(ax, (2.2 + 1.4 * len(header), 0.4 * (len(rows) + 1)))
    table = ax.table(cellText=rows, colLabels=header, loc="upper left", cellLoc="left",
                     colLoc="left", edges="open")  # fmt: skip
    table.auto_set_font_size(False)
    table.auto_set_column_width(list(range(len(header))))
    for (i, j), cell in table.get_celld().items():
        cell.set_height(1 / (len(rows) + 1))
        cell.set_facecolor("none")
        cell.get_text().set_fontsize(0.9 * plt.rcParams["font.size"])
        if i == 0:
            cell.visible_edges = "B"
            cell.set_edgecolor(palette()[0])
        if i == 0 or j == 1:
            cell.get_text().set_fontweight("bold")
    ax.axis("off")
    return ax


def plot_segmentations(
    rows: Mapping[str, Sequence[str]],
    ax: Axes | None = None,
    unk_token: str = "[UNK]",
) -> Axes:
    """Each row: a label, then its tokens as boxes (alternating colours, ``unk_token`` in
    orange-red), box width growing with the token's length.

    ``rows``: label -> list of tokens (an empty list draws an empty row).

    Lecture 12.
    """
    return _plot_segmentations(rows, ax, unk_token)


def _plot_segmentations(
    rows: Mapping[str, Sequence[str]],
    ax: Axes | None = None,
    unk_token: str = "[UNK]",
    *,
    redraw: bool = False,
) -> Axes:
    """``plot_segmentations``; with ``redraw=True`` it draws the rows again on an ``ax`` it drew
    on before: the boxes and tokens there are moved, recoloured and relabelled rather than made
    anew (more are made if needed, those left over removed)."""
    check_mapping("rows", rows, "label -> list of tokens")
    for label, tokens in rows.items():
        check_strings(f"rows[{label!r}]", tokens, allow_empty=True)
    colors = palette()
    width = lambda token: max(len(token), 1) * _CHAR_WIDTH + 0.5  # noqa: E731
    longest = max(sum(width(t) + 0.15 for t in tokens) for tokens in rows.values())
    ax = get_axes(ax, (max(5.0, 0.5 * longest + 2.5), 0.55 * len(rows) + 0.4))
    boxes, pieces = (list(ax.patches), list(ax.texts)) if redraw else ([], [])
    n = 0  # tokens drawn so far
    for i, tokens in enumerate(rows.values()):
        y, x = -i, 0.0
        for k, token in enumerate(tokens):
            w = width(token)
            color = colors[5] if token == unk_token else colors[0] if k % 2 == 0 else colors[2]
            if n < len(boxes):
                boxes[n].set_bounds(x, y - 0.34, w, 0.68)
                boxes[n].set(facecolor=color, edgecolor=color)
                pieces[n].set(text=token, position=(x + w / 2, y))
            else:
                # add_artist, not add_patch: the limits are set below, so measuring each box
                # for autoscaling (most of this function's time) is not needed
                ax.add_artist(
                    FancyBboxPatch((x, y - 0.34), w, 0.68, boxstyle="round,pad=0.02", fc=color,
                                   ec=color, alpha=0.3, lw=1.2)
                )  # fmt: skip
                ax.text(x + w / 2, y, token, ha="center", va="center", family="monospace")
            n += 1
            x += w + 0.15
    for artist in boxes[n:] + pieces[n:]:
        artist.remove()
    ax.set_xlim(-0.2, max(longest, 20.0) + 0.2)
    ax.set_ylim(-len(rows) + 0.4, 0.6)
    ax.set_yticks([-i for i in range(len(rows))], list(rows), fontsize="medium")
    ax.tick_params(axis="y", length=0)
    ax.set_xticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return ax


def bpe_merges_widget(
    word_counts: Mapping[str, int],
    words: Sequence[str],
    max_merges: int = 10,
    **options,
):
    """A slider over the number of merges (0..max_merges): the merge just made, the vocabulary
    so far, and how ``words`` (seen or new) are cut. ``options`` go to ``learn_bpe``.

    Lecture 12; Sennrich et al. 2016 Algorithm 1.
    """
    words = check_strings("words", words)
    w = require_ipywidgets()
    merges, trace = learn_bpe(word_counts, max_merges, **options)
    split = {k: v for k, v in options.items() if k in ("end_of_word", "prefix")}
    alphabet = sorted({s for word in word_counts for s in split_word(word, **split)})

    def state(merges_done: int) -> tuple[str, str, dict[str, list[str]]]:
        made = [s.merged for s in trace[:merges_done]]
        last = trace[merges_done - 1] if merges_done else None
        title = (
            f"merge {merges_done}: {last.pair[0]} + {last.pair[1]} → {last.merged} "
            f"(count {last.count})"
            if last
            else "no merges yet: characters only"
        )
        vocab = " ".join(alphabet) + ("  |  " + " ".join(made) if made else "")
        vocab = f"vocabulary ({len(alphabet) + len(made)}): {vocab}"
        rows = {
            f"{word} ×{word_counts[word]}" if word in word_counts else f"{word} (new)": apply_bpe(
                word, merges[:merges_done], **split
            )
            for word in words
        }
        return title, vocab, rows

    kept: list[Figure] = []  # the Figure, built by the first render and then drawn on again

    def render(merges_done: int) -> Figure:
        title, vocab, rows = state(merges_done)
        if not kept:
            fig = Figure(figsize=(10, 0.5 * len(words) + 1.9))
            KeptCanvas(fig)
            top, bottom = fig.subplots(2, 1, height_ratios=[1.1, 0.5 * len(words)])
            top.text(0, 0.75, title, fontweight="bold", va="center")
            top.text(0, 0.2, vocab, va="center", wrap=True)
            top.axis("off")
            plot_segmentations(rows, bottom)
            fig.subplots_adjust(left=0.16, right=0.98, top=0.97, bottom=0.03, hspace=0.1)
            # the same layout and words' labels in every setting: the background
            fig.canvas.background = "the words' labels"
            kept.append(fig)
        else:
            top, bottom = kept[0].axes
            for text, words_now in zip(top.texts, (title, vocab), strict=True):
                text.set_text(words_now)
            _plot_segmentations(rows, bottom, redraw=True)
        # what the merges change: the two lines on top, the pieces and their boxes
        for artist in (*top.texts, *bottom.patches, *bottom.texts):
            artist.set_animated(True)
        return kept[0]

    def alt(merges_done: int) -> str:
        title, vocab, rows = state(merges_done)
        cut = "; ".join(f"{label}: {' '.join(tokens)}" for label, tokens in rows.items())
        return f"BPE, {title}. The {vocab.replace('  |  ', ', then merged: ')}. Words cut: {cut}."

    slider = w.IntSlider(value=min(3, len(merges)), min=0, max=len(merges), description="merges")
    return _describe(figure_widget(render, {"merges_done": slider}), slider, alt)


def tokenizer_widget(tokenizers: Mapping[str, Callable[[str], list[str]]], text: str):
    """A text box; below it, the text as each tokenizer cuts it (one row per tokenizer, with the
    number of tokens). ``tokenizers``: name -> function text -> tokens.

    Lecture 12.
    """
    check_mapping("tokenizers", tokenizers, "name -> function text -> tokens")
    for name, tokenize in tokenizers.items():
        check_callable(f"tokenizers[{name!r}]", tokenize)
    check_str("text", text, allow_empty=True)
    w = require_ipywidgets()

    def cut(text: str) -> dict[str, list[str]]:
        rows = {}
        for name, tokenize in tokenizers.items():
            tokens = tokenize(text) if text.strip() else []
            rows[f"{name} ({len(tokens)})"] = tokens
        return rows

    kept: list[Figure] = []  # the Figure, built by the first render and then drawn on again

    def render(text: str) -> Figure:
        rows = cut(text)
        if not kept:
            kept.append(Figure(figsize=(10, 0.6 * len(rows) + 0.5)))
            KeptCanvas(kept[0])
            kept[0].add_subplot()
        fig = kept[0]
        ax = _plot_segmentations(rows, fig.axes[0], redraw=True)
        # The layout depends on the words around the panel: how far the row labels reach left
        # of it, and how far any token's text sticks out of it (a long text's pieces can be
        # wider than their boxes); the rows lie within its height.
        canvas = fig.canvas
        canvas.reset_layout()
        renderer = canvas.get_renderer()
        panel = ax.get_window_extent(renderer)
        reach = panel.x0 - ax.yaxis.get_tightbbox(renderer).x0
        extents = [piece.get_window_extent(renderer) for piece in ax.texts]
        left = min((box.x0 - panel.x0 for box in extents), default=0.0)
        right = max((box.x1 - panel.x1 for box in extents), default=0.0)
        canvas.layout((reach, min(left, 0.0), max(right, 0.0)))
        return fig

    def alt(text: str) -> str:
        rows = "; ".join(f"{name}: {' '.join(tokens)}" for name, tokens in cut(text).items())
        return (
            f"The text {text!r} as each tokenizer cuts it (number of tokens in brackets). {rows}."
        )

    box = w.Text(value=text, description="text", continuous_update=False,
                 layout={"width": "460px"})  # fmt: skip
    return _describe(figure_widget(render, {"text": box}), box, alt)


# A static page (no kernel) cannot take typed text: these inputs show the lecture's points.
PREPARED_TEXTS = (
    "my dog is cute and he likes playing",  # BERT's example: play ##ing, a word in pieces
    "the flightless dog is unhappy",  # rare words spelled from known pieces
    "he likes playing with the zebra at the café 🙂",  # unknown characters: [UNK] vs bytes
    "the lowest doghouses are the newest",  # new words: longer pieces of seen ones
    "Playing in the DOGHOUSE!",  # capitals and punctuation: each tokenizer's normalisation
)


def tokenizer_widget_grid(
    text: str = "he likes playing in the doghouse",
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``tokenizer_widget``: its
    text box cannot be typed into there, so ``text`` (the widget's first text) and then the
    ``PREPARED_TEXTS``: BERT's example sentence, rare words, characters no vocabulary has seen,
    new compound words, capitals and punctuation (6 inputs in all, no repeats).

    Lecture 12.
    """
    check_str("text", text, allow_empty=True)
    return {"text": list(dict.fromkeys([text, *PREPARED_TEXTS]))}


COMPARED_VOCAB_SIZE = 450  # lecture 08's WordPiece vocabulary size, used for every tokenizer


def compared_tokenizers() -> dict[str, Callable[[str], list[str]]]:
    """Notebook 12's five tokenizers, name -> function text -> tokens, each learned offline on
    the training documents of the toy story corpus (``lecturekit.datasets.stories``) with 450
    entries, as in the notebook: "BPE" (``BPETokenizer``), "WordPiece" (``tokenizers``'
    trainer, ids pinned), "WordPiece (likelihood)" (``learn_bpe`` with the likelihood score and
    the ``##`` prefix, as many merges as the frequency WordPiece), "lecture 08" (the corpus's
    own WordPiece tokenizer) and "byte-level BPE" (``tokenizers``' BpeTrainer on UTF-8 bytes,
    GPT-2's ``ByteLevel`` pre-tokenizer). For ``tokenizer_widget``; deterministic, about a
    second.

    Lecture 12.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from lecturekit.bpe import BPETokenizer
    from lecturekit.datasets.stories import default_data
    from lecturekit.tokenization import (
        SPECIAL_TOKENS,
        WordPieceTokenizer,
        count_words,
        train_hf_wordpiece,
    )

    size = COMPARED_VOCAB_SIZE
    data = default_data()
    sentences = [s for doc in data.train for s in doc]
    counts = count_words(sentences)  # word -> count, as BERT splits text
    alphabet = sorted({c for word in counts for c in word})
    bpe = BPETokenizer.train(counts, size - 1 - len(alphabet))  # [UNK], characters, merges
    vocab_wp = train_hf_wordpiece(counts, size)
    initial = set(alphabet) | {f"##{c}" for w in counts for c in w[1:]}  # letters, ## letters
    n_merges = sum(t not in initial and t not in SPECIAL_TOKENS for t in vocab_wp)
    _, trace = learn_bpe(counts, n_merges, prefix="##", criterion="likelihood")
    vocab_lik = [*SPECIAL_TOKENS, *sorted(initial), *dict.fromkeys(s.merged for s in trace)]
    byte_bpe = Tokenizer(models.BPE())
    byte_bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    byte_bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=size, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())  # fmt: skip
    byte_bpe.train_from_iterator(sentences, trainer)
    return {
        "BPE": bpe.tokenize,
        "WordPiece": WordPieceTokenizer(vocab_wp).tokenize,
        "WordPiece (likelihood)": WordPieceTokenizer(vocab_lik).tokenize,
        "lecture 08": data.tokenizer.tokenize,
        "byte-level BPE": lambda text: byte_bpe.encode(text).tokens,
    }
