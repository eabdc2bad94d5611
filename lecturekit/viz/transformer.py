"""Lecture 10 plots and widget: the encoder-decoder diagram, cross-attention against the true
alignment, exact match by length, and a widget over every attention map of a translation.

Public API::

    plot_architecture(num_layers=2, ax=None)                  # Vaswani et al. Figure 1, in boxes
    plot_alignment(weights, src_words, tgt_words, align=None, ax=None, title=None)
    #   weights (T, S): rows = target words, columns = source words; true alignment boxed
    plot_length_accuracy(results, ax=None, title=None)         # {name: LengthAccuracy}
    plot_label_smoothing(vocab_size=68, eps=0.1, fig=None)     # the target, the loss by confidence
    plot_sign_test(only_a, only_b, ax=None)   # the fair-coin distribution, the tails, p
    sign_test_widget(only_a=10, only_b=3)     # slide the split, grow the test set (10b)
    sign_test_widget_grid(only_a=10, only_b=3)
    plot_translation_masks(src_real, tgt_real, src_words, tgt_words, fig=None)
    #   the three masks of one padded pair: encoder self, decoder self (causal AND padding),
    #   cross-attention; src_real (S,) / tgt_real (T,) bool, True at real tokens
    translation_attention_widget(examples, num_layers, num_heads)
    #   examples: {label: (src_words, tgt_words, align, AttentionWeights of one sentence)}
    #   pick sentence, attention (encoder self / decoder self / cross), layer, head or mean
    translation_attention_widget_grid(examples, num_layers, num_heads)  # a static page's settings

Lecture 10; Vaswani et al. 2017 Figure 1 and Figures 3-5 (attention visualisations).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from lecturekit.utils.checks import check_index, check_non_negative_int, check_positive_int
from lecturekit.viz.helpers import check_mapping, get_axes, require_ipywidgets
from lecturekit.viz.plots import plot_attention, plot_lines, plot_mask
from lecturekit.viz.style import ACCENT, GUIDE, palette
from lecturekit.viz.widgets import KeptCanvas, figure_widget

__all__ = [
    "plot_architecture",
    "plot_alignment",
    "plot_length_accuracy",
    "plot_label_smoothing",
    "plot_translation_masks",
    "plot_sign_test",
    "sign_test_widget",
    "sign_test_widget_grid",
    "translation_attention_widget",
    "translation_attention_widget_grid",
    "ATTENTION_KINDS",
]

ATTENTION_KINDS = {  # widget label -> AttentionWeights field
    "encoder self-attention": "encoder",
    "decoder masked self-attention": "decoder_self",
    "decoder cross-attention": "cross",
}


def _box(ax: Axes, x: float, y: float, w: float, h: float, text: str, colour: str) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.12",
            fc=colour,
            ec=plt.rcParams["text.color"],
            lw=1.0,
            alpha=0.9,
        )
    )
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize="small",
            color="black")  # fmt: skip


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float], **kw) -> None:
    style = {"arrowstyle": "-|>", "color": plt.rcParams["text.color"], "lw": 1.2, **kw}
    ax.annotate("", xy=end, xytext=start, arrowprops=style)


def plot_architecture(num_layers: int = 2, ax: Axes | None = None) -> Axes:
    """The encoder-decoder as boxes and arrows (the paper's Figure 1, with our N).

    Lecture 10; Vaswani et al. 2017 Figure 1.
    """
    check_positive_int("num_layers", num_layers)
    ax = get_axes(ax, figsize=(8, 7))
    blue, orange, green, pink, sky = (palette()[i] for i in (0, 1, 2, 3, 4))
    attn, norm, ffn, emb = sky, "#F0E442", pink, orange
    w, h, gap = 3.2, 0.55, 0.25
    columns = {  # x, sublayers from bottom to top
        "enc": (0.0, [("multi-head self-attention", attn), ("Add & Norm", norm),
                      ("feed-forward", ffn), ("Add & Norm", norm)]),
        "dec": (4.2, [("masked multi-head\nself-attention", attn), ("Add & Norm", norm),
                      ("multi-head\ncross-attention", attn), ("Add & Norm", norm),
                      ("feed-forward", ffn), ("Add & Norm", norm)]),
    }  # fmt: skip
    tops = {}
    for key, (x, sublayers) in columns.items():
        inputs = (
            "source tokens x" if key == "enc" else "target tokens, shifted right\n<bos> y1 y2 ..."
        )
        ax.text(x + w / 2, -0.35, inputs, ha="center", va="top", fontsize="small")
        _box(ax, x, 0.0, w, h, "embedding × √d_model", emb)
        _box(ax, x, h + gap, w, h, "+ positional encoding", emb)
        _arrow(ax, (x + w / 2, h), (x + w / 2, h + gap))
        y0 = 2 * (h + gap) + 0.15
        stack = FancyBboxPatch((x - 0.2, y0 - 0.15), w + 0.4, len(sublayers) * (h + gap) + 0.1,
                               boxstyle="round,pad=0.02,rounding_size=0.2", fc="none",
                               ec=blue, lw=2.0)  # fmt: skip
        ax.add_patch(stack)
        ax.text(x - 0.35 if key == "enc" else x + w + 0.35, y0 + len(sublayers) * (h + gap) / 2,
                f"{num_layers} ×", ha="right" if key == "enc" else "left", va="center",
                fontsize="large", color=blue)  # fmt: skip
        _arrow(ax, (x + w / 2, 2 * h + gap), (x + w / 2, y0))
        for i, (text, colour) in enumerate(sublayers):
            y = y0 + i * (h + gap)
            _box(ax, x, y, w, h, text, colour)
            if i:
                _arrow(ax, (x + w / 2, y - gap), (x + w / 2, y))
        tops[key] = (x, y0, y0 + len(sublayers) * (h + gap) - gap)
    x_enc, _, top_enc = tops["enc"]
    x_dec, y0_dec, top_dec = tops["dec"]
    # the encoder's output (memory) goes up, across, and into every cross-attention
    cross_y = y0_dec + 2 * (h + gap) + h / 2
    x_mid, y_up = x_enc + w / 2, top_enc + 0.7
    x_turn = (x_enc + w + x_dec) / 2
    ax.plot([x_mid, x_mid, x_turn, x_turn], [top_enc + 0.05, y_up, y_up, cross_y],
            color=ACCENT, lw=2.0)  # fmt: skip
    _arrow(ax, (x_turn, cross_y), (x_dec, cross_y), color=ACCENT, lw=2.0)
    ax.text(x_mid, y_up + 0.12, "encoder output (memory):\nkeys and values of the\ncross-attention",
            color=ACCENT, fontsize="small", ha="center", va="bottom")  # fmt: skip
    y = top_dec + gap + 0.15
    for i, text in enumerate(("linear: d_model → V", "softmax")):
        _box(ax, x_dec, y + i * (h + gap), w, h, text, green)
        _arrow(ax, (x_dec + w / 2, y + i * (h + gap) - gap - (0.15 if i == 0 else 0)),
               (x_dec + w / 2, y + i * (h + gap)))  # fmt: skip
    ax.text(x_dec + w / 2, y + 2 * (h + gap) - 0.1, "P(y_t | y_<t, x)", ha="center",
            va="bottom", fontsize="small")  # fmt: skip
    ax.text(x_enc + w / 2, -1.25, "encoder", ha="center", va="top", fontsize="large")
    ax.text(x_dec + w / 2, -1.25, "decoder", ha="center", va="top", fontsize="large")
    ax.set(xlim=(-0.9, x_dec + w + 0.9), ylim=(-1.8, y + 2 * (h + gap) + 0.4), aspect="equal")
    ax.axis("off")
    return ax


def _check_align(align: Sequence[int], src_words: Sequence[str], tgt_words: Sequence[str]) -> None:
    if len(align) != len(tgt_words):
        raise ValueError(f"align has {len(align)} entries for {len(tgt_words)} target words")
    for j, i in enumerate(align):
        check_index(f"align[{j}]", i, len(src_words))


def _draw_alignment(ax: Axes, align: Sequence[int]) -> None:
    """The true alignment as boxes, and its legend (below the diagonal: no weights there)."""
    ax.scatter(list(align), range(len(align)), marker="s", s=60, facecolors="none",
               edgecolors=ACCENT, linewidths=1.5, label="true alignment")  # fmt: skip
    ax.legend(loc="lower left", frameon=True)


def plot_alignment(
    weights: torch.Tensor | np.ndarray,
    src_words: Sequence[str],
    tgt_words: Sequence[str],
    align: Sequence[int] | None = None,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    colorbar: bool = True,
) -> Axes:
    """Attention of target words (rows) over source words (columns), the true alignment (the
    source word each target word translates) boxed.

    ``align[j]``: the index of the source word target word j translates (in 0..S-1).

    Lecture 10 (and 01); Bahdanau et al. 2015 Figure 3.
    """
    if align is not None:
        _check_align(align, src_words, tgt_words)
    ax = plot_attention(weights, list(tgt_words), list(src_words), ax, annotate=False,
                        colorbar=colorbar)  # fmt: skip
    ax.set_title(title)
    if align is not None:
        _draw_alignment(ax, align)
    ax.set_xticks(range(len(src_words)), list(src_words), rotation=90, ha="center")
    ax.set(xlabel="source word (attended to)", ylabel="target word (produced)")
    return ax


def plot_length_accuracy(
    results: Mapping[str, object], ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """Exact match per source-length bin, one line per model ({name: LengthAccuracy}, from
    ``lecturekit.experiments.translation.exact_match_by_length``; all with the same bins).

    Lecture 10 (and 01).
    """
    check_mapping("results", results, "model name -> LengthAccuracy")
    for name, r in results.items():
        if not all(hasattr(r, field) for field in ("labels", "counts", "exact_match")):
            raise ValueError(f"results[{name!r}] must be a LengthAccuracy (from "
                             f"exact_match_by_length), got {type(r).__name__}")  # fmt: skip
    labels = next(iter(results.values())).labels
    for name, r in results.items():
        if r.labels != labels:
            raise ValueError(f"results[{name!r}] has bins {r.labels}, expected {labels}")
    counts = next(iter(results.values())).counts
    ax = plot_lines(np.arange(len(labels)), {k: np.array(r.exact_match) for k, r in
                                              results.items()}, get_axes(ax), marker="o",
                    xlabel="source sentence length (words)",
                    ylabel="exact match (whole sentence)", title=title)  # fmt: skip
    ax.set_xticks(range(len(labels)), [f"{lab}\n({n})" for lab, n in zip(labels, counts,
                                                                         strict=True)])  # fmt: skip
    ax.grid(True, alpha=0.5)
    return ax


def plot_sign_test(only_a: int, only_b: int, ax: Axes | None = None) -> Axes:
    """The exact sign test as a picture: if two equally good systems disagree on d = only_a +
    only_b items, the items won by a follow Binomial(d, 1/2) (bars); the splits at least as
    uneven as the one seen, either way, are the p-value (highlighted bars), printed in the title.

    Lecture 10b (McNemar's exact test on the sentences two translators disagree on).
    """
    from lecturekit.experiments.translation import sign_test

    p_value = sign_test(only_a, only_b)  # checks both counts
    d, fewer = only_a + only_b, min(only_a, only_b)
    ax = get_axes(ax)
    wins = np.arange(d + 1)
    pmf = np.array([math.comb(d, k) for k in wins], dtype=float) / 2.0**d
    tail = (wins <= fewer) | (wins >= d - fewer)
    edges = np.arange(d + 2) - 0.5  # one step per number of wins (two polygons draw fast)
    ax.stairs(pmf, edges, fill=True, color=palette()[0], label="fair coin")
    ax.stairs(np.where(tail, pmf, 0.0), edges, fill=True, color=ACCENT,
              label="at least as uneven")  # fmt: skip
    ax.axvline(only_a, color=GUIDE, ls="--", lw=1, label=f"seen: {only_a} to {only_b}")
    ax.set(xlabel=f"disagreements won by system a (of {d})", ylabel="probability, fair coin",
           title=f"sign test: p = {p_value:.3g}")  # fmt: skip
    ax.legend(loc="upper right")
    return ax


SIGN_TEST_SCALES = (1, 2, 4, 8)  # the widget's test sets: the same split, k times the sentences


def sign_test_widget(only_a: int = 10, only_b: int = 3):
    """Move the split of ``only_a + only_b`` disagreements (the slider: how many system a won)
    and the size of the test set (the same split on 1, 2, 4 or 8 times as many disagreements):
    the sign test's distribution, tails and p-value (``plot_sign_test``).

    Lecture 10b.
    """
    check_non_negative_int("only_a", only_a)
    check_non_negative_int("only_b", only_b)
    d = only_a + only_b
    if d == 0:
        raise ValueError("only_a + only_b must be at least 1 (the systems must disagree somewhere)")
    w = require_ipywidgets()

    def render(won: int, scale: int) -> Figure:
        fig = Figure(figsize=(7, 3.4))
        fig.subplots_adjust(left=0.1, right=0.98, bottom=0.15, top=0.9)  # fixed: fast redraws
        plot_sign_test(won * scale, (d - won) * scale, fig.subplots())
        return fig

    controls = {
        "won": w.IntSlider(value=only_a, min=0, max=d, description="won by a"),
        "scale": w.Dropdown(options=[(f"{k} × the sentences", k) for k in SIGN_TEST_SCALES],
                            value=1, description="test set"),
    }  # fmt: skip
    return figure_widget(render, controls)


def sign_test_widget_grid(only_a: int = 10, only_b: int = 3) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``sign_test_widget``: every split its slider
    offers, at every test-set size.

    Lecture 10b.
    """
    check_non_negative_int("only_a", only_a)
    check_non_negative_int("only_b", only_b)
    return {"won": list(range(only_a + only_b + 1)), "scale": list(SIGN_TEST_SCALES)}


def plot_translation_masks(
    src_real: torch.Tensor,
    tgt_real: torch.Tensor,
    src_words: Sequence[str],
    tgt_words: Sequence[str],
    fig: Figure | None = None,
) -> Figure:
    """The three masks an encoder-decoder needs for one padded sentence pair, side by side
    (white = may attend, dark = masked): the encoder's self-attention (source padding), the
    decoder's self-attention (causal AND target padding), cross-attention (target positions
    over the source, source padding).

    Args:
        src_real: (S,) bool, True at the real source tokens (the rest is padding).
        tgt_real: (T,) bool, True at the real decoder inputs (<bos> y1 .. yn).
        src_words, tgt_words: the real tokens' labels (len = the number of True); the padding
            is labelled <pad>.

    Lecture 10; Vaswani et al. 2017 section 3.2.3.
    """
    from lecturekit.masking import causal_mask

    for name, real in (("src_real", src_real), ("tgt_real", tgt_real)):
        if not isinstance(real, torch.Tensor) or real.dtype != torch.bool or real.ndim != 1:
            got = tuple(real.shape) if isinstance(real, torch.Tensor) else type(real).__name__
            raise ValueError(f"{name} must be a (length,) bool tensor, got {got}")
    for name, words, real in (("src_words", src_words, src_real),
                              ("tgt_words", tgt_words, tgt_real)):  # fmt: skip
        if len(words) != int(real.sum()):
            raise ValueError(f"{name} must label the {int(real.sum())} real tokens, got "
                             f"{len(words)} words")  # fmt: skip
    S, T = len(src_real), len(tgt_real)
    src_labels = [*src_words, *["<pad>"] * (S - len(src_words))]
    tgt_labels = [*tgt_words, *["<pad>"] * (T - len(tgt_words))]
    if fig is None:
        fig = plt.figure(figsize=(13, 4.4))
    axes = fig.subplots(1, 3, width_ratios=[S, T, S])
    plot_mask(src_real.expand(S, S), src_labels, axes[0], title="encoder self-attention",
              show="none")  # fmt: skip
    plot_mask(causal_mask(T) & tgt_real, tgt_labels, axes[1],
              title="decoder masked self-attention", show="none")  # fmt: skip
    plot_mask(src_real.expand(T, S), tgt_labels, axes[2], title="cross-attention", show="none")
    axes[2].set_xticks(range(S), src_labels, rotation=90)
    fig.suptitle("white = may attend, dark = masked (M = −∞)")
    fig.tight_layout()
    return fig


def plot_label_smoothing(
    vocab_size: int = 68,
    eps: float = 0.1,
    fig: Figure | None = None,
    *,
    right: int = 5,
    shown: int = 12,
) -> Figure:
    """What label smoothing does, in two panels. Left: the target distribution of one position
    (the right word ``right``; the first ``shown`` word ids), one-hot and smoothed,
    q = (1 - eps) [y = right] + eps / V, on a log scale. Right: the loss as a function of the
    probability p the model gives the right word (the rest spread evenly): -log p without
    smoothing, falling towards 0; with it, the cross-entropy against q, lowest at
    p = 1 - eps + eps / V, where it equals H(q), and rising for a more confident model.

    Lecture 10; Vaswani et al. 2017 section 5.4 (Szegedy et al. 2016).
    """
    check_positive_int("vocab_size", vocab_size)
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be at least 2, got {vocab_size}")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not 0 < eps < 1:
        raise ValueError(f"eps must be a number in (0, 1), got {eps!r}")
    check_index("right", right, vocab_size)
    check_positive_int("shown", shown)
    shown = min(shown, vocab_size)
    if fig is None:
        fig = plt.figure(figsize=(11, 3.4))
    ax0, ax1 = fig.subplots(1, 2)
    words = np.arange(shown)
    q = np.full(vocab_size, eps / vocab_size)
    q[right] += 1 - eps
    one_hot = (np.arange(vocab_size) == right).astype(float)
    ax0.bar(words - 0.2, one_hot[:shown], width=0.4, label="one-hot (ε = 0)")
    ax0.bar(words + 0.2, q[:shown], width=0.4, label=f"smoothed (ε = {eps:g})")
    ax0.set(xlabel=f"target word id ({shown} of the {vocab_size})", ylabel="target probability q",
            yscale="log", ylim=(eps / vocab_size / 10, 2),
            title="The target (log scale: one-hot is 0 off the right word)")  # fmt: skip
    ax0.legend(loc="center right")
    p = np.linspace(0.05, 0.999, 400)
    other = (1 - p) / (vocab_size - 1)  # every other word gets the same share
    plain = -np.log(p)
    smooth = -(q[right] * np.log(p) + (vocab_size - 1) * eps / vocab_size * np.log(other))
    floor = -(q * np.log(q)).sum()
    ax1.plot(p, plain, label="ε = 0: falls towards 0")
    ax1.plot(p, smooth, label=f"ε = {eps:g}: lowest at p = {p[smooth.argmin()]:.2f}")
    ax1.axhline(floor, color=GUIDE, ls=":", lw=0.8, label=f"H(q) = {floor:.2f}")
    ax1.set(xlabel="probability the model gives the right word", ylabel="loss", ylim=(0, 4),
            title="The loss, by confidence")  # fmt: skip
    ax1.legend()
    fig.tight_layout()
    return fig


def _check_widget_args(examples: Mapping[str, tuple], num_layers: int, num_heads: int) -> None:
    check_positive_int("num_layers", num_layers)
    check_positive_int("num_heads", num_heads)
    check_mapping("examples", examples, "label -> (src_words, tgt_words, align, weights)")
    for label, example in examples.items():
        if not isinstance(example, (tuple, list)) or len(example) != 4:
            raise ValueError(f"examples[{label!r}] must be (src_words, tgt_words, align, "
                             f"weights), got {example!r:.80}")  # fmt: skip
        _check_align(example[2], example[0], example[1])


def translation_attention_widget_grid(
    examples: Mapping[str, tuple], num_layers: int, num_heads: int
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for
    ``translation_attention_widget(examples, num_layers, num_heads)``: control name -> values.
    Every attention kind and layer, but only the first two sentences and, of the heads, their
    mean and head 3 (if there is one): the head with lecture 10's most visible jobs (in the
    first cross-attention it looks a few words ahead, at the noun the determiner depends on; in
    the encoder's layer 2 it looks from a determiner to its noun). For lecture 10's four
    sentences, 2 layers and 4 heads that is 24 settings instead of 120.

    Lecture 10.
    """
    _check_widget_args(examples, num_layers, num_heads)
    return {
        "sentence": list(examples)[:2],
        "kind": list(ATTENTION_KINDS),
        "layer": list(range(1, num_layers + 1)),
        "head": ["mean", "3"] if num_heads >= 3 else ["mean"],
    }


def translation_attention_widget(examples: Mapping[str, tuple], num_layers: int, num_heads: int):
    """Pick a sentence, an attention (encoder self / decoder masked self / cross), a layer and
    a head (or the mean over heads); the map redraws. Cross-attention shows the true alignment.

    Args:
        examples: label -> (src_words, tgt_words, align, weights) where weights is the
            ``AttentionWeights`` of a teacher-forced pass over that one sentence (batch 1,
            no padding; the decoder's rows are <bos> y_1 .. y_n, predicting y_1 .. <eos>).

    Lecture 10.
    """
    _check_widget_args(examples, num_layers, num_heads)
    w = require_ipywidgets()

    kept: dict[str, object] = {}  # the Figure (built by the first render) and its tick labels

    def render(sentence: str, kind: str, layer: int, head: str) -> Figure:
        src, tgt, align, weights = examples[sentence]
        maps = getattr(weights, ATTENTION_KINDS[kind])[layer - 1][0]  # (H, Tq, Tk)
        m = maps.mean(0) if head == "mean" else maps[int(head) - 1]
        tgt_in = ["<bos>", *tgt]  # decoder positions: the word read -> the word produced
        rows = {"encoder": list(src), "decoder_self": tgt_in, "cross": list(tgt)}
        cols = {"encoder": list(src), "decoder_self": tgt_in, "cross": list(src)}
        key = ATTENTION_KINDS[kind]
        title = f"{kind}, layer {layer}, {'mean of heads' if head == 'mean' else 'head ' + head}"
        if key == "cross":  # the rows that produce the target words (not the final <eos>)
            m = m[: len(tgt)]
        if not kept:  # drawn as a new Figure would be, then updated in place
            fig = Figure(figsize=(7.5, 6.6))
            KeptCanvas(fig)
            ax = fig.add_subplot()
            plot_attention(m, rows[key], cols[key], ax, annotate=False, colorbar=True)
            ax.tick_params(labelsize=8)
            for artist in (ax.images[0], *ax.spines.values(), ax.title):
                artist.set_animated(True)  # what a head or layer changes; the spines over it
            kept.update(fig=fig, ticks=None)
        fig = kept["fig"]
        ax = fig.axes[0]
        for artist in [*ax.collections, *([ax.legend_] if ax.legend_ else [])]:
            artist.remove()  # the true alignment (cross-attention only)
        image = ax.images[0]
        arr = np.asarray(m.detach() if isinstance(m, torch.Tensor) else m, dtype=float)
        image.set_data(arr)
        image.set_extent((-0.5, arr.shape[1] - 0.5, arr.shape[0] - 0.5, -0.5))  # as imshow
        ax.relim()  # the data limits of the new map only, as on a new Axes
        if kept["ticks"] != (key, sentence):  # as plot_attention sets them
            ax.set_xticks(range(len(cols[key])))
            ax.set_xticklabels(cols[key], rotation=45, ha="right")
            ax.set_yticks(range(len(rows[key])))
            ax.set_yticklabels(rows[key], rotation=0, ha="right")
            ax.set_xticks(range(len(cols[key])), cols[key], rotation=90, ha="center")
            kept["ticks"] = key, sentence
        if key == "cross":  # as plot_alignment draws it
            _draw_alignment(ax, align)
            for artist in (ax.collections[0], ax.legend_):
                artist.set_animated(True)  # over the map
            ax.set(xlabel="source word (attended to)", ylabel="target word (produced)")
        else:
            ax.set(xlabel="key (attended to)", ylabel="query")
        ax.set_title(title)
        # The layout depends on the tick labels (sentence and kind), the axis labels (kind)
        # and the title's height, measured where a new Figure measures them.
        canvas = fig.canvas
        canvas.reset_layout()
        height = ax.title.get_window_extent(canvas.get_renderer()).height
        canvas.layout((key, sentence, height))
        canvas.background = key, sentence  # the tick labels, axis labels and colour bar
        return fig

    controls = {
        "sentence": w.Dropdown(options=list(examples), description="sentence"),
        "kind": w.Dropdown(
            options=list(ATTENTION_KINDS), value="decoder cross-attention", description="attention"
        ),
        "layer": w.Dropdown(
            options=list(range(1, num_layers + 1)), value=num_layers, description="layer"
        ),
        "head": w.Dropdown(
            options=["mean", *(str(h) for h in range(1, num_heads + 1))],
            value="mean",
            description="head",
        ),
    }
    return figure_widget(render, controls)
