"""Lecture 15 plots and widgets: what each pre-training objective after BERT makes of one
sentence (inputs, targets, which tokens are masked, replaced or turned into sentinels), XLNet's
content- and query-stream masks for a factorisation order, and the two widgets over them.

Public API::

    OBJECTIVES                                   # the names shown, in teaching order
    T5_SENTENCE                                  # the slide's sentence, as words
    T5_SPANS                                     # the slide's spans: "for inviting", "last"
    view = objective_view(objective, words, seed=0, tokenizer=None, rate=0.15, spans=None,
                          sampler=None)
    #   dict: objective, tokens, inputs, input_marks, targets, target_marks, chosen,
    #   signal (tokens that give a training signal) and, for XLNet, order / content / query
    ax = plot_objective_table(rows, ax=None)     # one row per view: input and target boxes
    fig = plot_permutation_masks(words, order, axes=None, step=None)   # content | query
    objective_widget(sentences, tokenizer=None)  # objective, sentence, seed, rate
    permutation_widget(words)                    # seed of the order, step k
    objective_widget_grid(n_sentences=1, sentences=None, seeds=(0, 1, 2), rates=(0.15, 0.3, 0.5))
    #   control name -> values a static page offers
    permutation_widget_grid(n_words)
    fig = masking_rate_figure(sweep)             # shipped.objectives.masking_rate_curve()
    fig = electra_vs_mlm_figure(curve)           # shipped.objectives.electra_vs_mlm_curve()

Lecture 15; Raffel et al. 2020 figure 2 (the T5 sentence), Clark et al. 2020 figure 1,
Yang et al. 2019 figure 1 (two-stream attention).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import NullFormatter

from lecturekit.objectives import (
    SPANBERT_P,
    corrupt_chosen,
    permutation_masks,
    sample_order,
    span_corruption,
    span_mask,
    whole_word_mask,
    word_ids,
)
from lecturekit.tokenization import MASK_ID, SPECIAL_TOKENS
from lecturekit.utils.checks import (
    check_callable,
    check_positive_int,
    check_range,
    check_seed,
    check_strings,
    did_you_mean,
)
from lecturekit.viz.helpers import (
    check_list,
    check_rows,
    get_axes,
    require_ipywidgets,
    slider_values,
)
from lecturekit.viz.plots import plot_mask
from lecturekit.viz.style import ACCENT, GUIDE, palette
from lecturekit.viz.widgets import FigureArtistStandIn, KeptCanvas, figure_widget

__all__ = [
    "OBJECTIVES",
    "T5_SENTENCE",
    "T5_SPANS",
    "MARK_COLOURS",
    "objective_view",
    "plot_objective_table",
    "plot_permutation_masks",
    "objective_widget",
    "objective_widget_grid",
    "permutation_widget",
    "permutation_widget_grid",
    "masking_rate_figure",
    "electra_vs_mlm_figure",
]

OBJECTIVES = (
    "BERT MLM",
    "whole-word MLM",
    "span MLM (SpanBERT)",
    "T5 span corruption",
    "ELECTRA",
    "XLNet permutation",
)
T5_SENTENCE = ("thank", "you", "for", "inviting", "me", "to", "your", "party", "last", "week", ".")
T5_SPANS = ((2, 4), (8, 9))  # "for inviting", "last": Raffel et al. 2020 figure 2
_SENTINELS = ("<X>", "<Y>", "<Z>")  # the slide's names; then <extra_id_3>, ...
_OK = palette()
# What a token box's colour says (None: a plain box).
MARK_COLOURS = {
    "": None,
    "mask": ACCENT,  # [MASK] in the input / a predicted token in the target
    "random": _OK[0],  # BERT's 10 %: a random token
    "kept": _OK[2],  # BERT's 10 %: chosen but unchanged
    "sentinel": _OK[1],  # T5's sentinels
    "replaced": _OK[3],  # ELECTRA: the generator's sample differs from the original
}
_MARK_NAMES = {
    "mask": "[MASK] / predicted",
    "random": "random token",
    "kept": "chosen, kept",
    "sentinel": "sentinel",
    "replaced": "replaced",
}

Sampler = Callable[[list[str], list[int], torch.Generator], list[str]]


def _sentinel(k: int) -> str:
    return _SENTINELS[k] if k < len(_SENTINELS) else f"<extra_id_{k}>"


def _as_words(name: str, words: object) -> list[str]:
    if isinstance(words, str):
        words = words.split()
    return check_strings(name, words)


def _default_sampler(tokens: list[str], chosen: list[int], g: torch.Generator) -> list[str]:
    """A stand-in for ELECTRA's generator: each chosen token is replaced by a token drawn
    uniformly from the sentence's other positions (it may be the same word: then it counts as
    original)."""
    out = []
    for i in chosen:
        others = [t for j, t in enumerate(tokens) if j != i] or tokens
        out.append(others[int(torch.randint(len(others), (1,), generator=g))])
    return out


def _check_view_spans(spans: object, T: int) -> list[tuple[int, int]]:
    """The same rules as span_corruption's (sorted, disjoint, inside 0..T)."""
    n = len(spans) + 1 if isinstance(spans, Sequence) else 1
    return span_corruption(torch.zeros(T, dtype=torch.long), list(range(1, n + 1)), spans).spans


def objective_view(
    objective: str,
    words: Sequence[str] | str,
    seed: int = 0,
    tokenizer: object | None = None,
    *,
    rate: float = 0.15,
    spans: Sequence[tuple[int, int]] | None = None,
    sampler: Sampler | None = None,
) -> dict[str, object]:
    """What one objective makes of one sentence, as token strings (a table row, the widget).

    The choice of tokens is seeded (``torch.Generator().manual_seed(seed)``). BERT-style
    objectives corrupt the chosen tokens 80/10/10 (``corrupt_chosen``) and predict them; T5
    replaces each span by a sentinel and predicts the spans; ELECTRA replaces the chosen
    tokens by samples and labels every token original / replaced; XLNet keeps the tokens and
    predicts all of them in a sampled factorisation order.

    Args:
        objective: one of ``OBJECTIVES``.
        words: the sentence, a list of words (or a string, split at spaces).
        seed: seeds every draw.
        tokenizer: a ``WordPieceTokenizer`` (tokens are then its pieces and random tokens come
            from its vocabulary), or None: every word is one token.
        rate: the share of tokens chosen (the T5 noise density), in (0, 1). BERT MLM, ELECTRA
            choose ``max(1, round(rate * T))`` tokens; whole-word and span masking whole
            words (SpanBERT's p = 0.2, at most 10 words).
        spans: [start, end) token spans to choose instead of drawing (e.g. ``T5_SPANS``, the
            slide's), for every objective but XLNet.
        sampler: ELECTRA's generator: ``sampler(tokens, positions, generator)`` returns one
            token per chosen position (default: a seeded draw from the sentence's other
            tokens, so the view needs no trained model).

    Returns:
        A dict: ``objective``; ``tokens`` (T,) the original tokens; ``inputs`` and
        ``input_marks`` (what the encoder reads; marks "", "mask", "random", "kept",
        "sentinel", "replaced"); ``targets`` and ``target_marks`` (what the loss predicts);
        ``chosen`` (T,) bools; ``signal`` (how many tokens give a training signal); for XLNet
        also ``order``, ``content``, ``query`` (``permutation_masks``).

    Lecture 15; Devlin et al. 2019, Joshi et al. 2020, Raffel et al. 2020, Clark et al. 2020,
    Yang et al. 2019.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r} is not one of {list(OBJECTIVES)}"
                         f"{did_you_mean(objective, OBJECTIVES)}")  # fmt: skip
    words = _as_words("words", words)
    check_seed(seed)
    check_range("rate", rate, 0, 1, low_open=True, high_open=True)
    if sampler is not None:
        check_callable("sampler", sampler)
    if tokenizer is not None:
        for method in ("tokenize", "convert_tokens_to_ids"):
            if not callable(getattr(tokenizer, method, None)):
                raise ValueError(f"tokenizer must be a WordPieceTokenizer (it has no {method}), "
                                 f"got {type(tokenizer).__name__}")  # fmt: skip
        tokens = tokenizer.tokenize(" ".join(words))
        vocab = list(tokenizer.vocab)
    else:
        tokens = list(words)
        vocab = [*SPECIAL_TOKENS, *dict.fromkeys(t for t in tokens if t not in SPECIAL_TOKENS)]
    T = len(tokens)
    if spans is not None:
        spans = _check_view_spans(spans, T)
    g = torch.Generator().manual_seed(seed)
    index = {t: i for i, t in enumerate(vocab)}
    ids = torch.tensor([index.get(t, 1) for t in tokens], dtype=torch.long)  # 1 = [UNK]
    wids = word_ids(tokens)
    view: dict[str, object] = {"objective": objective, "tokens": tokens}

    if spans is not None:
        chosen = torch.zeros(T, dtype=torch.bool)
        for s, e in spans:
            chosen[s:e] = True
    elif objective in ("BERT MLM", "ELECTRA"):
        chosen = whole_word_mask(list(range(T)), rate, g)  # every token its own "word"
    elif objective == "whole-word MLM":
        chosen = whole_word_mask(wids, rate, g)
    elif objective == "span MLM (SpanBERT)":
        chosen = span_mask(wids, rate, generator=g, p=SPANBERT_P)
    else:
        chosen = torch.zeros(T, dtype=torch.bool)

    if objective in ("BERT MLM", "whole-word MLM", "span MLM (SpanBERT)"):
        inputs, _ = corrupt_chosen(ids, chosen, vocab_size=len(vocab), generator=g)
        marks = []
        for i in range(T):
            if not chosen[i]:
                marks.append("")
            elif inputs[i] == MASK_ID:
                marks.append("mask")
            else:
                marks.append("kept" if inputs[i] == ids[i] else "random")
        shown = [tokens[i] if inputs[i] == ids[i] else vocab[int(inputs[i])] for i in range(T)]
        targets = [tokens[i] for i in range(T) if chosen[i]]
        view.update(inputs=shown, input_marks=marks, targets=targets,
                    target_marks=["mask"] * len(targets), signal=len(targets))  # fmt: skip
    elif objective == "T5 span corruption":
        n_sent = T + 1
        sentinel_ids = list(range(len(vocab), len(vocab) + n_sent))
        if spans is None and T < 2:
            raise ValueError(f"words must give at least 2 tokens for T5's random spans, got {T}")
        out = span_corruption(ids, sentinel_ids, spans, noise_density=rate, generator=g)

        def name(i: int) -> tuple[str, str]:
            if i >= len(vocab):
                return _sentinel(i - len(vocab)), "sentinel"
            return vocab[i], ""

        # the original tokens (an [UNK] word keeps its text) at their positions
        kept = [t for k, t in enumerate(tokens) if not any(s <= k < e for s, e in out.spans)]
        inputs, input_marks, k = [], [], 0
        for i in out.inputs.tolist():
            text, mark = name(i)
            if mark != "sentinel":
                text, k = kept[k], k + 1
            inputs.append(text)
            input_marks.append(mark)
        targets, target_marks = [], []
        for n, (s, e) in enumerate(out.spans):
            targets += [_sentinel(n), *tokens[s:e]]
            target_marks += ["sentinel", *["mask"] * (e - s)]
        targets.append(_sentinel(len(out.spans)))
        target_marks.append("sentinel")
        for s, e in out.spans:
            chosen[s:e] = True
        view.update(inputs=inputs, input_marks=input_marks, targets=targets,
                    target_marks=target_marks, signal=len(targets), spans=out.spans)  # fmt: skip
    elif objective == "ELECTRA":
        positions = chosen.nonzero().flatten().tolist()
        sampled = (sampler or _default_sampler)(list(tokens), positions, g)
        if isinstance(sampled, str) or not isinstance(sampled, Sequence):
            raise ValueError(f"sampler must return a list of tokens, got {type(sampled).__name__}")
        if len(sampled) != len(positions):
            raise ValueError(f"sampler must return one token per chosen position "
                             f"({len(positions)}), got {len(sampled)}")  # fmt: skip
        inputs = list(tokens)
        for i, t in zip(positions, sampled, strict=True):
            inputs[i] = str(t)
        replaced = [inputs[i] != tokens[i] for i in range(T)]
        view.update(inputs=inputs, input_marks=["replaced" if r else "" for r in replaced],
                    targets=["replaced" if r else "original" for r in replaced],
                    short_targets=["r" if r else "o" for r in replaced],
                    target_marks=["replaced" if r else "" for r in replaced],
                    signal=T)  # fmt: skip
    else:  # XLNet
        order = sample_order(T, g)
        masks = permutation_masks(order)
        view.update(inputs=list(tokens), input_marks=[""] * T,
                    targets=[tokens[i] for i in order.tolist()], target_marks=["mask"] * T,
                    signal=T, order=order.tolist(), content=masks.content,
                    query=masks.query)  # fmt: skip
        chosen = torch.ones(T, dtype=torch.bool)
    view["chosen"] = chosen.tolist()
    return view


_KEYS = ("objective", "inputs", "input_marks", "targets", "target_marks")


def _check_rows(rows: object) -> list[dict]:
    rows = check_rows("rows", [rows] if isinstance(rows, dict) else rows, _KEYS,
                      "objective_view(...) dicts")  # fmt: skip
    for r, row in enumerate(rows):
        for a, b in (("inputs", "input_marks"), ("targets", "target_marks")):
            if len(row[a]) != len(row[b]):
                raise ValueError(f"rows[{r}] has {len(row[a])} {a} but {len(row[b])} {b}")
    return rows


_CHAR = 0.0752  # inches per character of DejaVu Sans Mono at 9 points (0.602 em)
_GAP = 1.8  # characters from one box's text to the next (the box pads take 1)


def _draw_boxes(ax: Axes, x0: float, y: float, texts: Sequence[str], marks: Sequence[str]) -> float:
    x = x0
    for text, mark in zip(texts, marks, strict=True):
        colour = MARK_COLOURS.get(mark)
        box = {"boxstyle": "round,pad=0.3", "fc": colour or "white",
               "ec": colour or GUIDE, "lw": 0.8}  # fmt: skip
        ax.text(x + len(text) / 2, y, text, ha="center", va="center", family="monospace",
                fontsize=9, color="white" if colour else "black", bbox=box)  # fmt: skip
        x += len(text) + _GAP
    return x


def plot_objective_table(rows: Sequence[dict] | dict, ax: Axes | None = None) -> Axes:
    """The objectives side by side on one sentence: one row per ``objective_view``, the
    columns "input" (what the encoder reads) and "target" (what the loss predicts), as token
    boxes; masked / predicted, random, kept, sentinel and replaced tokens in colour (a legend
    below). ELECTRA's per-token labels are shortened to o (original) / r (replaced).

    Args:
        rows: ``objective_view`` dicts (one dict is one row).
        ax: the Axes to draw on, or None for a new figure sized to the rows.

    Returns:
        The Axes.

    Lecture 15; Raffel et al. 2020 figure 2 ("Thank you <X> me to your party <Y> week.").
    """
    rows = _check_rows(rows)
    width_in = max(sum(len(t) + _GAP for t in r["inputs"]) for r in rows) + 3
    width_out = max(sum(len(t) + _GAP for t in r.get("short_targets", r["targets"])) for r in rows)
    total = width_in + width_out
    if ax is None:
        margin = 0.09 * max(len(r["objective"]) for r in rows) + 0.6  # the row labels
        fig = Figure(figsize=(total * _CHAR + margin, 0.45 * len(rows) + 1.2))
        ax = fig.add_subplot()
        made = True
    else:
        ax, made = get_axes(ax), False
    for y, row in enumerate(rows):
        _draw_boxes(ax, 0, y, row["inputs"], row["input_marks"])
        targets = row.get("short_targets", row["targets"])
        _draw_boxes(ax, width_in, y, targets, row["target_marks"])
    ax.set_ylim(len(rows) - 0.4, -1.0)
    ax.set_yticks(range(len(rows)), [r["objective"] for r in rows])
    ax.tick_params(left=False, bottom=False)
    ax.set_xticks([])
    for side in ("left", "bottom", "top", "right"):
        ax.spines[side].set_visible(False)
    ax.text(0, -0.8, "input", fontweight="bold", va="center")
    ax.text(width_in, -0.8, "target", fontweight="bold", va="center")
    ax.axvline(width_in - 2, color=GUIDE, lw=0.6)
    used = sorted({m for r in rows for m in (*r["input_marks"], *r["target_marks"]) if m},
                  key=list(_MARK_NAMES).index)  # fmt: skip
    if used:
        handles = [Rectangle((0, 0), 1, 1, fc=MARK_COLOURS[m]) for m in used]
        ax.legend(handles, [_MARK_NAMES[m] for m in used], loc="upper center",
                  bbox_to_anchor=(0.5, 0.0), ncol=len(used), fontsize="small")  # fmt: skip
    ax.set_xlim(-1, total)
    if made:
        ax.figure.tight_layout()
    # x is in characters: scale it so that the boxes fit the monospace text at 9 points
    inches = ax.get_position().width * ax.figure.get_figwidth()
    ax.set_xlim(-1, max(total, inches / _CHAR - 1))
    return ax


def plot_permutation_masks(
    words: Sequence[str] | str,
    order: Sequence[int] | torch.Tensor,
    axes: Sequence[Axes] | None = None,
    *,
    step: int | None = None,
) -> Figure:
    """XLNet's two attention masks for one factorisation order, side by side: the content
    stream (a token sees itself and the tokens before it in the order) and the query stream
    (only the tokens before it: it must predict its own). Rows = the position predicting,
    columns = the position attended to, white = may attend; the order in the title as
    positions 1..T ("3 → 1 → 4 → 2").

    Args:
        words: the T tokens (a list, or a string split at spaces).
        order: a permutation of 0..T-1 (``sample_order``).
        axes: two Axes to draw on, or None for a new figure.
        step: 1..T: outline the row of the step-th predicted token (what it may see).

    Returns:
        The Figure.

    Lecture 15; Yang et al. 2019 (XLNet) figure 1 and section 2.3.
    """
    words = _as_words("words", words)
    masks = permutation_masks(order)
    T = len(words)
    if masks.order.numel() != T:
        raise ValueError(f"order must hold one position per word ({T}), got {masks.order.numel()}")
    if step is not None:
        check_positive_int("step", step)
        if step > T:
            raise ValueError(f"step must be in 1..{T} (the number of words), got {step}")
    if axes is None:
        fig = Figure(figsize=(max(7.0, 1.1 * T + 3), max(3.6, 0.5 * T + 1.6)))
        axes = fig.subplots(1, 2)
    else:
        if isinstance(axes, Axes) or not isinstance(axes, Sequence) or len(axes) != 2:
            raise ValueError(f"axes must be two matplotlib Axes or None, got "
                             f"{type(axes).__name__}")  # fmt: skip
        if not all(isinstance(a, Axes) for a in axes):
            raise ValueError("axes must be two matplotlib Axes or None")
        fig = axes[0].figure
    labels = [f"{i + 1} {w}" for i, w in enumerate(words)]
    titles = ("content stream: sees itself", "query stream: not its own token")
    for ax, mask, title in zip(axes, (masks.content, masks.query), titles, strict=True):
        plot_mask(mask, labels, ax, title=title, show="none")
        ax.set_xticks(range(T), labels, rotation=90)
        ax.set(xlabel="attended position", ylabel="predicting position")
        edges = np.arange(T + 1) - 0.5
        ax.hlines(edges, -0.5, T - 0.5, color=GUIDE, lw=0.5)
        ax.vlines(edges, -0.5, T - 0.5, color=GUIDE, lw=0.5)
        for i in range(T):  # the rank of each row: the step at which it is predicted
            ax.text(T - 0.5 + 0.15, i, f"#{int(masks.rank[i]) + 1}", va="center",
                    fontsize="x-small", color=GUIDE)  # fmt: skip
        if step is not None:
            row = int(masks.order[step - 1])
            ax.add_patch(Rectangle((-0.5, row - 0.5), T, 1, fill=False, ec=ACCENT, lw=2.5))
    axes[1].set_ylabel("")
    fig.suptitle(_permutation_note(words, masks.order, step), fontsize="medium")
    if isinstance(fig, Figure):
        fig.tight_layout()
    return fig


def _permutation_note(words: list[str], order: torch.Tensor, step: int | None) -> str:
    """``plot_permutation_masks``' suptitle: the order as positions 1..T, and what the step-th
    predicted token sees."""
    note = "order: " + " \u2192 ".join(str(i + 1) for i in order.tolist())
    if step is not None:
        row = int(order[step - 1])
        seen = [words[j] for j in order[: step - 1].tolist()]
        note += (f"\nstep {step}: predicting {words[row]!r} (position {row + 1}) from "
                 f"{', '.join(seen) if seen else 'nothing (the first in the order)'}")  # fmt: skip
    return note


# ------------------------------------------------------------------------------- the widgets

_SEEDS = (0, 19)
_RATES = (0.05, 0.5, 0.05)


def objective_widget_grid(
    n_sentences: int = 1,
    *,
    sentences: Sequence[int] | None = None,
    seeds: Sequence[int] = (0, 1, 2),
    rates: Sequence[float] = (0.15, 0.3, 0.5),
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``objective_widget``:
    control name -> values its controls offer (sentence = index into the sentences). A page
    pre-renders every combination (6 objectives x sentences x seeds x rates), so a narrower
    grid can be asked for.

    Args:
        n_sentences: how many sentences the widget was given.
        sentences: the indices (into them) to pre-render; None: all.
        seeds: values of the seed slider (0..19).
        rates: values of the rate slider (0.05..0.5 in steps of 0.05).

    Lecture 15.
    """
    check_positive_int("n_sentences", n_sentences)
    if sentences is None:
        sentences = list(range(n_sentences))
    sentences = slider_values("sentences", sentences, 0, n_sentences - 1, 1)
    return {
        "objective": list(OBJECTIVES),
        "sentence": sentences,
        "seed": slider_values("seeds", seeds, *_SEEDS, 1),
        "rate": slider_values("rates", rates, *_RATES),
    }


def permutation_widget_grid(n_words: int) -> dict[str, list[object]]:
    """The settings a static page pre-renders for ``permutation_widget(words)`` with
    ``n_words`` words: the first seeds, every step.

    Lecture 15.
    """
    check_positive_int("n_words", n_words)
    return {"seed": [0, 1, 2, 3], "step": list(range(1, n_words + 1))}


def objective_widget(sentences: Sequence[str] | Sequence[Sequence[str]], tokenizer: object = None):
    """Pick an objective and a sentence, move the seed and the rate: the input / target table
    row of ``objective_view`` for that choice (a PNG, through ``figure_widget``).

    Args:
        sentences: sentences as strings (split at spaces) or word lists; the first is shown.
        tokenizer: a ``WordPieceTokenizer`` (WordPiece tokens, whole words visible) or None.

    Returns:
        An ipywidgets VBox: the controls (objective, sentence, seed, rate) and the image.

    Lecture 15.
    """
    sentences = check_list("sentences", sentences, "sentences (strings or word lists)")
    texts = [_as_words(f"sentences[{i}]", s) for i, s in enumerate(sentences)]
    for i, words in enumerate(texts):  # every sentence must make a view
        objective_view("BERT MLM", words, tokenizer=tokenizer)
        if len(words) < 2:
            raise ValueError(f"sentences[{i}] must have at least 2 words, got {words!r}")
    w = require_ipywidgets()
    options = [(" ".join(words)[:60], i) for i, words in enumerate(texts)]
    lo, hi, step = _RATES
    controls = {
        "objective": w.Dropdown(
            options=list(OBJECTIVES), value=OBJECTIVES[0], description="objective"
        ),
        "sentence": w.Dropdown(options=options, value=0, description="sentence"),
        "seed": w.IntSlider(value=0, min=_SEEDS[0], max=_SEEDS[1], description="seed"),
        "rate": w.FloatSlider(value=0.15, min=lo, max=hi, step=step, description="rate"),
    }

    def render(objective: str, sentence: int, seed: int, rate: float) -> Figure:
        view = objective_view(objective, texts[sentence], seed, tokenizer, rate=rate)
        return plot_objective_table([view]).figure

    return figure_widget(render, controls)


def permutation_widget(words: Sequence[str] | str):
    """XLNet's masks for sampled factorisation orders: a slider over the seed of the order and
    a slider "step k": the k-th predicted token's row is outlined and the tokens it may see
    are named (``plot_permutation_masks``).

    Args:
        words: the tokens (a list, or a string split at spaces), at least 2.

    Returns:
        An ipywidgets VBox: the two sliders and the image.

    Lecture 15; Yang et al. 2019 (XLNet) section 2.3.
    """
    words = _as_words("words", words)
    if len(words) < 2:
        raise ValueError(f"words must hold at least 2 words, got {words!r}")
    w = require_ipywidgets()
    controls = {
        "seed": w.IntSlider(value=0, min=_SEEDS[0], max=_SEEDS[1], description="order seed"),
        "step": w.IntSlider(value=1, min=1, max=len(words), description="step k"),
    }

    T = len(words)
    kept: dict[str, object] = {}  # the Figure (built by the first render) and its suptitle

    def render(seed: int, step: int) -> Figure:
        order = sample_order(T, torch.Generator().manual_seed(seed))
        if not kept:
            fig = Figure(figsize=(max(7.0, 1.1 * T + 3), max(3.6, 0.5 * T + 1.6)))
            KeptCanvas(fig)
            plot_permutation_masks(words, order, list(fig.subplots(1, 2)), step=step)
            suptitle = fig.suptitle(fig.get_suptitle(), fontsize="medium")  # the same Text
            fig.axes[1].add_artist(FigureArtistStandIn(suptitle, zorder=10.0))
            # the cells, the lines and the outline over them, the spines drawn over them and the
            # ranks right of them change with the order; the ticks, labels and titles stay
            for ax in fig.axes:
                for artist in [*ax.images, *ax.collections, *ax.patches, *ax.texts,
                               *ax.spines.values()]:  # fmt: skip
                    artist.set_animated(True)
            fig.canvas.background = "the panels' ticks, labels and titles"
            kept.update(fig=fig, suptitle=suptitle)
        else:  # another order or step: what plot_permutation_masks draws for it, in place
            fig = kept["fig"]
            masks = permutation_masks(order)
            row = int(masks.order[step - 1])
            for ax, mask in zip(fig.axes, (masks.content, masks.query), strict=True):
                ax.images[0].set_data(mask.numpy().astype(float))
                for text, rank in zip(ax.texts, masks.rank.tolist(), strict=True):
                    text.set_text(f"#{int(rank) + 1}")
                ax.patches[0].set_xy((-0.5, row - 0.5))
            kept["suptitle"].set_text(_permutation_note(words, masks.order, step))
        # What sticks out of the panels is the same in every setting but the suptitle (two
        # lines; tight_layout takes its height only).
        canvas = fig.canvas
        canvas.layout(kept["suptitle"].get_window_extent(canvas.get_renderer()).height)
        return fig

    return figure_widget(render, controls)


# ---------------------------------------------------------------------------------------------
# the measured curves (lecturekit.shipped.objectives' results)


def _check_result(name: str, result: object, keys: Sequence[str]) -> dict:
    if not isinstance(result, dict) or any(k not in result for k in keys):
        raise ValueError(f"{name} must be the dict lecturekit.shipped.objectives returns, with "
                         f"the keys {list(keys)}; got {result!r:.80}")  # fmt: skip
    return result


def masking_rate_figure(sweep: dict) -> Figure:
    """The masking-rate sweep in two panels: held-out MLM accuracy (at fixed 15 % masks)
    against training steps, one curve per rate ("too little masking: takes a long time to
    train"), and against the rate at an early and at the last step ("too much masking: not
    enough context").

    Args:
        sweep: ``lecturekit.shipped.objectives.masking_rate_curve()`` (or
            ``masking_rate_sweep``'s first result): "rates", "steps", "accuracy" (one list
            per rate, one value per step), "eval_rate".

    Returns:
        The Figure.

    Lecture 15 (Yao and Wu: "too little masking / too much masking").
    """
    sweep = _check_result("sweep", sweep, ("rates", "steps", "accuracy"))
    rates, steps = list(sweep["rates"]), list(sweep["steps"])
    acc = np.asarray(sweep["accuracy"], dtype=float)  # (rates, steps)
    if acc.shape != (len(rates), len(steps)):
        raise ValueError(f"sweep['accuracy'] must be {len(rates)} rates x {len(steps)} steps, "
                         f"got shape {acc.shape}")  # fmt: skip
    fig = Figure(figsize=(10, 3.8))
    left, right = fig.subplots(1, 2)
    colours = palette()
    for i, rate in enumerate(rates):
        left.plot(steps, acc[i], marker="o", ms=3, color=colours[i % len(colours)],
                  label=f"{rate:.0%}")  # fmt: skip
    left.set_xscale("log")
    left.set_xticks(steps, [f"{s:,}" for s in steps])
    left.xaxis.set_minor_formatter(NullFormatter())
    left.set(xlabel="training steps", ylabel="held-out MLM accuracy",
             title="accuracy during training,\nper masking rate")  # fmt: skip
    left.legend(title="masking rate", fontsize=8)
    early = min(range(len(steps)), key=lambda k: abs(steps[k] - steps[-1] / 4))
    for k, style in ((early, "--"), (len(steps) - 1, "-")):
        right.plot([r * 100 for r in rates], acc[:, k], style, marker="o",
                   color=ACCENT if k == len(steps) - 1 else GUIDE,
                   label=f"after {steps[k]:,} steps")  # fmt: skip
    best = int(acc[:, -1].argmax())
    right.annotate(
        f"best: {rates[best]:.0%}",
        (rates[best] * 100, acc[best, -1]),
        xytext=(0, -14),
        textcoords="offset points",
        ha="center",
        fontsize=8,
    )
    right.set(
        xlabel="masking rate (%)",
        ylabel="held-out MLM accuracy",
        title=f"accuracy against the rate\n(evaluated at {sweep.get('eval_rate', 0.15):.0%})",
    )
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig


def electra_vs_mlm_figure(curve: dict) -> Figure:
    """ELECTRA against the same-size masked LM at equal counted FLOPs: one panel per
    downstream task, the fine-tuned score (mean over seeds, the band from min to max) against
    the pre-training FLOPs, with the same model fine-tuned from scratch as a dashed line.

    Args:
        curve: ``lecturekit.shipped.objectives.electra_vs_mlm_curve()``: "budget_flops",
            "tasks", "primary", "scores" ({"mlm" | "electra": {task: {"mean", "min", "max"}}})
            and optionally "scratch" ({task: {"mean"}}).

    Returns:
        The Figure.

    Lecture 15; Clark et al. 2020 figure 1 (GLUE score against pre-training FLOPs).
    """
    curve = _check_result("curve", curve, ("budget_flops", "tasks", "scores"))
    flops = np.asarray(curve["budget_flops"], dtype=float)
    tasks = list(curve["tasks"])
    fig = Figure(figsize=(5 * len(tasks), 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(tasks)))
    colours = {"mlm": palette()[0], "electra": ACCENT}
    names = {"mlm": "masked LM (15 %)", "electra": "ELECTRA"}
    for ax, task in zip(axes, tasks, strict=True):
        for model in ("mlm", "electra"):
            s = curve["scores"][model][task]
            ax.plot(flops, s["mean"], marker="o", color=colours[model], label=names[model])
            ax.fill_between(flops, s["min"], s["max"], color=colours[model], alpha=0.15,
                            linewidth=0)  # fmt: skip
        scratch = curve.get("scratch", {}).get(task)
        if scratch:
            ax.axhline(scratch["mean"][0], ls="--", color=GUIDE, label="from scratch")
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        metric = curve.get("primary", {}).get(task, "score")
        ax.set(xlabel="pre-training FLOPs (counted)", ylabel=f"fine-tuned {metric}",
               title=f"{task}: {curve.get('n_train', '')} labelled examples")  # fmt: skip
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
