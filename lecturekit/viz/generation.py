"""Lecture 14 plots and widget: how a decoder-only language model picks the next token, the
three architecture families' attention masks, in-context learning, the KV cache, and
diversity against quality.

Public API::

    plot_next_token(probs, kept, labels, ax=None, top=12, title=None, indices=None)
    #   bars of the most probable next tokens; kept ones (top-k / top-p) in the accent colour,
    #   dropped ones grey; the kept count and mass in the title
    shown_distribution(logits, strategy, previous_ids=None) -> (probs, kept)
    #   what the plots draw for a strategy: the model's distribution at its temperature (after
    #   the repetition penalty, before top-k / top-p) and the set the strategy may pick from
    sampling_distributions_figure(logits, labels, settings=None, previous_ids=None, top=8)
    #   one panel per strategy (greedy, T = 0.5 / 1 / 1.5, top-k = 3, top-p = 0.9), one scale
    family_masks_figure(source_tokens=None, target_tokens=None, tokens=None)
    #   encoder (BERT), decoder (GPT), encoder-decoder (Transformer) masks side by side
    plot_icl_curve(shots, accuracy, oracle=None, chance=None, ax=None, label="GPT (tiny)",
                   std=None)        # accuracy vs in-prompt examples (error bars over seeds)
    plot_cache_speedup(prefix_lengths, seconds_full, seconds_cached, ax=None)
    plot_diversity_quality(table, ax=None)   # distinct-2 (x) vs grammatical share (y)
    generation_widget(model, tokenizer, prompt="my dog", ...)   # prompt + strategy sliders
    generation_widget_grid(prompts=None, temperatures=..., top_ks=..., top_ps=...,
                           penalties=...)    # control name -> the values a static page offers

Lecture 14; Holtzman et al. 2020 (nucleus sampling), Radford et al. 2018 / 2019, Brown et al.
2020 (in-context learning).
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import NullLocator

from lecturekit.generation import Strategy, generate, next_token_distribution
from lecturekit.masking import causal_mask
from lecturekit.tokenization import CLS_ID
from lecturekit.utils.checks import (
    check_index,
    check_positive_int,
    check_seed,
    check_str,
    check_strings,
)
from lecturekit.viz.alt import figure_alt_text
from lecturekit.viz.helpers import (
    check_list,
    check_mapping,
    check_rows,
    get_axes,
    require_ipywidgets,
    slider_values,
    to_numpy,
)
from lecturekit.viz.plots import plot_mask
from lecturekit.viz.style import ACCENT, GUIDE, palette
from lecturekit.viz.style import theme as theme_context
from lecturekit.viz.widgets import (
    ALT_ATTR,
    DRAW_AHEAD,
    KeptCanvas,
    ahead_job,
    attach_controls,
    module_state,
    nearby_values,
    render_png,
    settings_nearby,
)

__all__ = [
    "plot_next_token",
    "shown_distribution",
    "sampling_distributions_figure",
    "default_settings",
    "family_masks_figure",
    "plot_icl_curve",
    "plot_cache_speedup",
    "plot_diversity_quality",
    "generation_widget",
    "generation_widget_grid",
    "FAMILY_TOKENS",
    "FAMILY_SOURCE",
    "FAMILY_TARGET",
]

DROPPED = "0.62"  # grey: readable on the light and the dark background
FAMILY_TOKENS = ("my", "dog", "is", "cute")  # the story corpus' slide sentence
# a pair of the toy translation language (lecturekit.datasets.translation); the decoder reads
# <bos> and the target words (teacher forcing)
FAMILY_SOURCE = ("the", "cat", "sees", "a", "dog")
FAMILY_TARGET = ("<bos>", "le", "chat", "voit", "un", "chien")


# ---------------------------------------------------------------- the next-token distribution


def _check_distribution(probs: object, kept: object, labels: object) -> tuple:
    p = to_numpy("probs", probs, 1, numeric=True, wanted="(V,)")
    if (p < 0).any():
        raise ValueError(f"probs must be probabilities (>= 0), got a minimum of {p.min():g}")
    k = to_numpy("kept", kept, 1, wanted="(V,)")
    if k.dtype != bool:
        raise ValueError(f"kept must be bool (True = the strategy may pick it), got dtype "
                         f"{k.dtype}")  # fmt: skip
    labels = check_strings("labels", labels)
    if not len(p) == len(k) == len(labels):
        raise ValueError(f"probs ({len(p)}), kept ({len(k)}) and labels ({len(labels)}) must "
                         f"have one entry per vocabulary token")  # fmt: skip
    return p, k, labels


def _kept_text(p: np.ndarray, k: np.ndarray) -> str:
    n = int(k.sum())
    return f"kept: {n} token{'' if n == 1 else 's'}, {p[k].sum():.2f} of the mass"


def plot_next_token(
    probs: object,
    kept: object,
    labels: Sequence[str],
    ax: Axes | None = None,
    top: int = 12,
    title: str | None = None,
    *,
    indices: Sequence[int] | None = None,
    annotate: bool = True,
) -> Axes:
    """The ``top`` most probable next tokens as horizontal bars (most probable at the top):
    the tokens the strategy keeps in the accent colour, the dropped ones grey, each bar's
    probability written next to it; the title ends with the kept count and mass ("kept: 3
    tokens, 0.91 of the mass", over the whole vocabulary).

    Args:
        probs: (V,) the next-token probabilities (e.g. ``shown_distribution(...)[0]``).
        kept: (V,) bool, True for the tokens the strategy may pick (top-k / top-p).
        labels: the V token strings (``tokenizer.convert_ids_to_tokens(range(V))``).
        top: how many bars (at most V).
        title: a first title line (None: only the kept line).
        indices: draw exactly these token ids, in this order, instead of the ``top`` most
            probable (panels that compare strategies on the same tokens).
        annotate: write the probabilities next to the bars.

    Returns:
        The Axes: one bar patch per token drawn, ``kept[i]`` ones in ``ACCENT``.

    Lecture 14; Holtzman et al. 2020 (top-p), Fan et al. 2018 (top-k).
    """
    p, k, labels = _check_distribution(probs, kept, labels)
    check_positive_int("top", top)
    if indices is None:
        order = np.argsort(-p, kind="stable")[: min(top, len(p))]
    else:
        indices = check_list("indices", indices, "token ids")
        order = np.array([check_index(f"indices[{i}]", j, len(p)) for i, j in enumerate(indices)])
    ax = get_axes(ax, (5.0, 0.32 * len(order) + 1.0))
    y = np.arange(len(order))[::-1]
    colours = [ACCENT if k[i] else DROPPED for i in order]
    ax.barh(y, p[order], color=colours, height=0.75)
    if annotate:
        for yi, i in zip(y, order, strict=True):
            ax.text(p[i] + 0.01, yi, f"{p[i]:.2f}", va="center", fontsize="small")
    ax.set_yticks(y, [labels[i] for i in order])
    ax.set_xlim(0, max(1.0, float(p[order].max()) + 0.15) if annotate else 1.0)
    ax.set_xlabel("probability")
    line = _kept_text(p, k)
    ax.set_title(f"{title}\n{line}" if title else line, fontsize="medium")
    return ax


def shown_distribution(
    logits: object, strategy: object, previous_ids: object = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """What the plots draw for ``strategy``: the model's next-token distribution at the
    strategy's temperature, after its repetition penalty and before top-k / top-p (so the
    dropped tokens keep their bars), and the kept set: the tokens top-k / top-p keep when
    sampling, the arg max for greedy, the ``beam_size`` best for beam search.

    Args:
        logits: (V,) next-token logits.
        strategy: a ``lecturekit.generation.Strategy`` (or one of its kind names).
        previous_ids: (T,) the ids generated so far (for the repetition penalty) or None.

    Returns:
        probs (V,) float summing to 1, kept (V,) bool.

    Lecture 14.
    """
    if isinstance(strategy, str):
        strategy = Strategy(kind=strategy)
    if not isinstance(strategy, Strategy):
        raise ValueError(f"strategy must be a Strategy, got {type(strategy).__name__}")
    if isinstance(logits, torch.Tensor):
        z = logits.detach().float()
    else:
        z = torch.as_tensor(to_numpy("logits", logits, 1, numeric=True), dtype=torch.float32)
    if z.ndim != 1:
        raise ValueError(f"logits must be 1-D (V,), got shape {tuple(z.shape)}")
    if previous_ids is not None and not isinstance(previous_ids, torch.Tensor):
        previous_ids = torch.as_tensor(to_numpy("previous_ids", previous_ids, 1)).long()
    if strategy.kind != "sample":  # softmax(logits); the arg max (greedy) or beam_size best
        return tuple(next_token_distribution(z, strategy, previous_ids))
    unfiltered = dataclasses.replace(strategy, top_k=None, top_p=None)
    probs = next_token_distribution(z, unfiltered, previous_ids).probs
    kept = next_token_distribution(z, strategy, previous_ids).kept
    return probs, kept


def default_settings() -> dict[str, object]:
    """The strategies ``sampling_distributions_figure`` compares: name -> Strategy."""
    return {
        "greedy": Strategy.greedy(),
        "T = 0.5": Strategy.sample(temperature=0.5),
        "T = 1": Strategy.sample(temperature=1.0),
        "T = 1.5": Strategy.sample(temperature=1.5),
        "top-k = 3": Strategy.sample(top_k=3),
        "top-p = 0.9": Strategy.sample(top_p=0.9),
    }


def sampling_distributions_figure(
    logits: object,
    labels: Sequence[str],
    settings: Mapping[str, object] | None = None,
    previous_ids: object = None,
    top: int = 8,
) -> Figure:
    """One panel per strategy setting, side by side, on one probability scale and the same
    ``top`` tokens (the most probable at T = 1): temperature sharpens (T < 1) or flattens
    (T > 1) the distribution, top-k and top-p cut its tail (grey bars: dropped).

    Args:
        logits: (V,) next-token logits of one prompt.
        labels: the V token strings.
        settings: panel title -> ``Strategy``; None for ``default_settings()`` (greedy,
            T = 0.5, 1, 1.5, top-k = 3, top-p = 0.9).
        previous_ids: (T,) the prompt's ids, for strategies with a repetition penalty.
        top: how many tokens each panel draws.

    Lecture 14; Holtzman et al. 2020 figure 5 (top-k vs top-p).
    """
    settings = default_settings() if settings is None else settings
    check_mapping("settings", settings, "panel title -> Strategy")
    labels = check_strings("labels", labels)
    check_positive_int("top", top)
    shown = {name: shown_distribution(logits, s, previous_ids) for name, s in settings.items()}
    reference = shown_distribution(logits, "greedy")[0]  # softmax(logits), T = 1
    if len(labels) != len(reference):
        raise ValueError(f"labels has {len(labels)} entries but logits has {len(reference)}")
    order = torch.argsort(-reference, stable=True)[: min(top, len(labels))].tolist()
    n = len(shown)
    fig = Figure(figsize=(max(6.0, 2.35 * n + 1.2), 0.42 * len(order) + 2.0))
    axes = np.atleast_1d(fig.subplots(1, n, sharey=True, sharex=True))
    high = max(float(p[order].max()) for p, _ in shown.values())
    for i, (ax, (name, (p, k))) in enumerate(zip(axes, shown.items(), strict=True)):
        plot_next_token(p, k, labels, ax, title=name, indices=order)
        kept_n, mass = int(k.sum()), float(p[k].sum())
        ax.set_title(f"{name}\n{kept_n} kept, {mass:.2f} mass", fontsize="medium")
        ax.set_xlim(0, min(1.0, high + 0.25))
        ax.set_xticks([0, 0.5] if high + 0.25 < 1 else [0, 0.5, 1])
        if i:
            ax.tick_params(axis="y", left=False)
            ax.set_xlabel("")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------- the three families' masks


def _family_panel(ax: Axes, mask: torch.Tensor, labels: list[str], title: str) -> None:
    plot_mask(mask, labels, ax, title=title, show="none")
    ax.set_xticks(range(len(labels)), labels, rotation=90, ha="center")
    ax.set_aspect("equal")
    edges = np.arange(len(labels) + 1) - 0.5  # thin lines between the cells
    ax.hlines(edges, -0.5, len(labels) - 0.5, color=GUIDE, lw=0.6)
    ax.vlines(edges, -0.5, len(labels) - 0.5, color=GUIDE, lw=0.6)
    ax.title.set_fontsize("medium")


def _outline(ax: Axes, row: int, col: int, rows: int, cols: int, text: str) -> None:
    ax.add_patch(Rectangle((col - 0.5, row - 0.5), cols, rows, fill=False, ec=ACCENT, lw=2.5))
    box = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": ACCENT, "alpha": 0.9}
    ax.text(col + cols / 2 - 0.5, row + rows / 2 - 0.5, text, ha="center", va="center",
            fontsize="small", color="black", bbox=box)  # fmt: skip


def family_masks_figure(
    source_tokens: Sequence[str] | None = None,
    target_tokens: Sequence[str] | None = None,
    tokens: Sequence[str] | None = None,
) -> Figure:
    """Three attention masks side by side (white = may attend, row = query, column = key):

    - encoder (BERT): bidirectional, every token sees every token: fills a blank from both
      sides, cannot generate;
    - decoder (GPT): causal, each token sees itself and the past: generates left to right;
    - encoder-decoder (Transformer): one (S + T) x (S + T) matrix over source and target,
      the blocks outlined: the encoder's full self-attention, nothing from the source to the
      target, the decoder's full cross-attention to the source and causal self-attention.

    Args:
        source_tokens, target_tokens: the encoder-decoder's S source tokens and the T tokens
            the decoder reads (default: a toy translation pair, <bos> first).
        tokens: the encoder's and decoder's tokens (default "my dog is cute").

    Lecture 14; Devlin et al. 2019 figure 3, Raffel et al. 2020 figure 3.
    """
    tokens = check_strings("tokens", FAMILY_TOKENS if tokens is None else tokens)
    src = check_strings("source_tokens", FAMILY_SOURCE if source_tokens is None else source_tokens)
    tgt = check_strings("target_tokens", FAMILY_TARGET if target_tokens is None else target_tokens)
    n, S, T = len(tokens), len(src), len(tgt)
    joint = torch.zeros(S + T, S + T, dtype=torch.bool)
    joint[:S, :S] = True  # encoder self-attention: full
    joint[S:, :S] = True  # decoder -> source (cross-attention): full
    joint[S:, S:] = causal_mask(T)  # decoder self-attention: causal
    fig = Figure(figsize=(14.0, 5.8))
    axes = fig.subplots(1, 3, width_ratios=[n + 1.5, n + 1.5, S + T])
    _family_panel(axes[0], torch.ones(n, n, dtype=torch.bool), tokens,
                  "encoder (BERT)\nsees both sides:\nfills a blank")  # fmt: skip
    _family_panel(axes[1], causal_mask(n), tokens,
                  "decoder (GPT)\nsees the past only:\ngenerates")  # fmt: skip
    _family_panel(axes[2], joint, [*src, *tgt],
                  "encoder-decoder (Transformer)\nsource: all of it; target: the past\n"
                  "generates, conditioned on a source")  # fmt: skip
    _outline(axes[2], 0, 0, S, S, "encoder\nself")
    _outline(axes[2], 0, S, S, T, "none")
    _outline(axes[2], S, 0, T, S, "cross")
    _outline(axes[2], S, S, T, T, "decoder\nself (causal)")
    for ax in axes[1:]:
        ax.set_ylabel("")
    fig.text(0.01, 0.01, "white: may attend, grey: masked (row = query, column = key)",
             fontsize="small", color=GUIDE)  # fmt: skip
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


# ------------------------------------------------------------- in-context learning, cache, table


def _seed_values(name: str, values: object, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """accuracy as (n,) -> (mean, None) or per-seed (seeds, n) / {seed: (n,)} -> (mean, std)."""
    if isinstance(values, Mapping):
        check_mapping(name, values, "seed -> accuracies per shot count")
        rows = [to_numpy(f"{name}[{s!r}]", v, 1, numeric=True) for s, v in values.items()]
        if any(len(r) != n for r in rows):
            raise ValueError(f"{name}: every seed needs {n} values (one per shot count), got "
                             f"{[len(r) for r in rows]}")  # fmt: skip
        arr = np.stack(rows)
    else:
        arr = to_numpy(name, values, numeric=True)
    if arr.ndim == 1:
        if len(arr) != n:
            raise ValueError(f"{name} has {len(arr)} values but shots has {n}")
        return arr, None
    if arr.ndim != 2 or arr.shape[1] != n:
        raise ValueError(f"{name} must be ({n},) or (seeds, {n}), got shape {arr.shape}")
    return arr.mean(0), arr.std(0) if len(arr) > 1 else None


def plot_icl_curve(
    shots: Sequence[int],
    accuracy: object,
    oracle: object = None,
    chance: float | None = None,
    ax: Axes | None = None,
    label: str = "GPT (tiny)",
    std: object = None,
) -> Axes:
    """Accuracy against the number of input -> output examples in the prompt (no gradient
    step): one line with markers at ``shots`` (a symmetric-log x axis, so 0, 1, 2, 4, 8 are
    evenly spaced), error bars over seeds, the oracle's ceiling and the chance level dashed.

    Args:
        shots: the example counts, e.g. [0, 1, 2, 4, 8] (non-negative, increasing).
        accuracy: (n,) accuracies, or per seed: (seeds, n) / a dict seed -> (n,) values (then
            the line is the mean, the bars one standard deviation).
        oracle: the ceiling: one number, or (n,) values (e.g. a model told the task).
        chance: the accuracy of guessing.
        std: (n,) error bars for a 1-D ``accuracy``.
        label: the legend name of the line.

    Lecture 14; Brown et al. 2020 figure 1.2 (accuracy vs in-context examples).
    """
    x = to_numpy("shots", shots, 1, numeric=True)
    if (x < 0).any() or (np.diff(x) <= 0).any() or (x != np.round(x)).any():
        raise ValueError(f"shots must be increasing non-negative integers, got {x.tolist()}")
    mean, spread = _seed_values("accuracy", accuracy, len(x))
    if std is not None:
        if spread is not None:
            raise ValueError("std is given but accuracy already has one row per seed")
        spread = to_numpy("std", std, 1, numeric=True)
        if len(spread) != len(x):
            raise ValueError(f"std has {len(spread)} values but shots has {len(x)}")
    check_str("label", label)
    ax = get_axes(ax, (5.0, 3.6))
    colours = palette()
    ax.errorbar(x, mean, yerr=spread, marker="o", color=colours[0], capsize=4, label=label)
    if oracle is not None:
        o = to_numpy("oracle", oracle, numeric=True)
        if o.ndim == 0:
            ax.axhline(float(o), color=colours[2], ls="--", label="oracle")
        elif o.shape == x.shape:
            ax.plot(x, o, color=colours[2], ls="--", marker=".", label="oracle")
        else:
            raise ValueError(f"oracle must be one number or {len(x)} values, got shape {o.shape}")
    if chance is not None:
        c = to_numpy("chance", chance, 0, numeric=True)
        ax.axhline(float(c), color=GUIDE, ls=":", label="chance")
    if x.max() >= 4:
        ax.set_xscale("symlog", base=2, linthresh=1, linscale=0.6)
    ax.set_xticks(x.tolist(), [f"{int(v)}" for v in x])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(0, 1.05)
    ax.set(xlabel="examples in the prompt", ylabel="accuracy")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_cache_speedup(
    prefix_lengths: Sequence[int],
    seconds_full: object,
    seconds_cached: object,
    ax: Axes | None = None,
) -> Axes:
    """Time per generated token against the prefix length: recomputing the whole prefix at
    every step vs reusing the keys and values of the past (KV cache); the speed-up (full /
    cached) written above each prefix length.

    Args:
        prefix_lengths: (n,) prefix lengths (tokens).
        seconds_full, seconds_cached: (n,) seconds per generated token, > 0.

    Lecture 14 (and 10: the KV-cached greedy decoder).
    """
    x = to_numpy("prefix_lengths", prefix_lengths, 1, numeric=True)
    full = to_numpy("seconds_full", seconds_full, 1, numeric=True)
    cached = to_numpy("seconds_cached", seconds_cached, 1, numeric=True)
    if not len(x) == len(full) == len(cached):
        raise ValueError(f"prefix_lengths ({len(x)}), seconds_full ({len(full)}) and "
                         f"seconds_cached ({len(cached)}) must have the same length")  # fmt: skip
    if (full <= 0).any() or (cached <= 0).any():
        raise ValueError("seconds_full and seconds_cached must be positive times")
    ax = get_axes(ax, (5.0, 3.6))
    colours = palette()
    ax.plot(x, 1e3 * full, marker="o", color=colours[1], label="recompute the prefix")
    ax.plot(x, 1e3 * cached, marker="s", color=colours[0], label="KV cache")
    for xi, f, c in zip(x, full, cached, strict=True):
        ax.annotate(f"×{f / c:.1f}", (xi, 1e3 * f), textcoords="offset points", xytext=(0, 7),
                    ha="center", fontsize="small")  # fmt: skip
    ax.set_ylim(0, 1e3 * full.max() * 1.2)
    ax.set(xlabel="prefix length (tokens)", ylabel="ms per generated token",
           title="KV cache: speed-up (×) vs prefix length")  # fmt: skip
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_diversity_quality(table: Sequence[Mapping[str, object]], ax: Axes | None = None) -> Axes:
    """One labelled point per strategy: diversity (distinct-2, the share of distinct word
    pairs among the samples) on x, quality (the share of samples the toy grammar accepts) on
    y; the model's perplexity of its own samples in the label if the rows have it.

    Args:
        table: rows {"strategy": str, "distinct_2": float, "valid": float, optionally
            "perplexity": float}, both shares in [0, 1].

    Lecture 14; Holtzman et al. 2020 table 1.
    """
    table = check_rows("table", table, ("strategy", "distinct_2", "valid"), "strategy rows")
    rows = []
    for i, row in enumerate(table):
        name = check_str(f"table[{i}]['strategy']", row["strategy"])
        d = float(to_numpy(f"table[{i}]['distinct_2']", row["distinct_2"], 0, numeric=True))
        v = float(to_numpy(f"table[{i}]['valid']", row["valid"], 0, numeric=True))
        for key, value in (("distinct_2", d), ("valid", v)):
            if not 0 <= value <= 1:
                raise ValueError(f"table[{i}][{key!r}] must be a share in [0, 1], got {value}")
        ppl = row.get("perplexity")
        if ppl is not None:
            ppl = float(to_numpy(f"table[{i}]['perplexity']", ppl, 0, numeric=True))
            name = f"{name} (ppl {ppl:.1f})"
        rows.append((name, d, v))
    ax = get_axes(ax, (5.5, 4.2))
    colours = palette()
    for i, (name, d, v) in enumerate(rows):
        colour = colours[i % (len(colours) - 1)]  # yellow (last) is weak on white
        ax.scatter([d], [v], s=60, color=colour, zorder=3)
        ax.annotate(name, (d, v), textcoords="offset points", xytext=(6, 6), fontsize="small")
    ax.set_xlim(0, 1.05)
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.4)
    ax.set(xlabel="diversity: distinct-2", ylabel="quality: share grammatical")
    return ax


# ------------------------------------------------------------------------------- the widget

_STRATEGIES = ("greedy", "sample", "beam")
_CONTROLS = {  # name -> (min, max, step) of each slider
    "temperature": (0.1, 2.0, 0.1),
    "top_k": (0, 20, 1),
    "top_p": (0.05, 1.0, 0.05),
    "repetition_penalty": (1.0, 2.0, 0.1),
}


def generation_widget_grid(
    prompts: Sequence[str] | None = None,
    *,
    temperatures: Sequence[float] = (0.5, 1.0, 1.5),
    top_ks: Sequence[int] = (0, 3, 10),
    top_ps: Sequence[float] = (0.5, 0.9, 1.0),
    penalties: Sequence[float] = (1.0, 1.5),
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``generation_widget``:
    control name -> values, each one its controls offer (top_k = 0 and top_p = 1.0 mean off).
    Every strategy (greedy, sample, beam) is in it; the sliders' values can be narrowed (a page
    pre-renders every combination: 3 x 3 x 3 x 3 x 2 = 162 by default).

    Args:
        prompts: prepared prompts for the free-text prompt box (its "prompt" entry); None: no
            "prompt" entry (the box keeps its text).
        temperatures, top_ks, top_ps, penalties: the values of the temperature, top-k, top-p
            and repetition-penalty sliders (each within the slider's range, on its step).

    Returns:
        {"prompt" (if prompts are given), "strategy", "temperature", "top_k", "top_p",
        "repetition_penalty": values}.

    Lecture 14.
    """
    grid: dict[str, list[object]] = {}
    if prompts is not None:
        grid["prompt"] = check_strings("prompts", prompts)
    grid.update({
        "strategy": list(_STRATEGIES),
        "temperature": slider_values("temperatures", temperatures, *_CONTROLS["temperature"]),
        "top_k": slider_values("top_ks", top_ks, *_CONTROLS["top_k"]),
        "top_p": slider_values("top_ps", top_ps, *_CONTROLS["top_p"]),
        "repetition_penalty": slider_values(
            "penalties", penalties, *_CONTROLS["repetition_penalty"]
        ),
    })  # fmt: skip
    return grid


def _strategy(kind: str, temperature: float, top_k: int, top_p: float, penalty: float):
    if kind == "sample":
        return Strategy.sample(temperature=temperature, top_k=top_k or None,
                               top_p=top_p if top_p < 1.0 else None,
                               repetition_penalty=penalty)  # fmt: skip
    return Strategy(kind=kind, repetition_penalty=penalty)


_DRAWN = 128  # settings generation_widget remembers (a PNG of ~30 kB each)


def _logits_of(output: object) -> torch.Tensor:
    return output.logits if hasattr(output, "logits") else output


def generation_widget(
    model: torch.nn.Module,
    tokenizer: object,
    prompt: str = "my dog",
    n_samples: int = 3,
    max_new_tokens: int = 30,
    eos_id: int | None = None,
    seed: int = 0,
    bos_id: int | None = CLS_ID,
):
    """Type a prompt, pick a strategy, move the sliders: the model's continuations and its
    next-token distribution after the prompt, the kept set highlighted.

    Sampling uses a ``torch.Generator`` seeded with ``seed`` for every redraw, so a setting
    always shows the same ``n_samples`` samples; greedy and beam search show their one
    continuation. An empty prompt, or one the model cannot read, shows a message. The widget
    remembers the last 128 settings it drew and shows them again without recomputing (until
    the model's weights or mode change; a model in training mode is run every time).

    Args:
        model: a decoder-only LM (``lecturekit.models.gpt.GPT``): ``model(ids)`` returns
            (B, T, V) logits (or an output with ``.logits``).
        tokenizer: a ``WordPieceTokenizer`` (``encode``, ``decode``,
            ``convert_ids_to_tokens``).
        prompt: the text to start from.
        n_samples: continuations shown when sampling.
        max_new_tokens: tokens generated after the prompt.
        eos_id: stop a continuation at this id (None: never).
        seed: the sampling generator's seed.
        bos_id: the start-of-text id put before the prompt ([CLS], as the GPT is trained;
            None for none).

    Returns:
        An ipywidgets VBox: the prompt box and strategy, the sliders, the continuations (an
        HTML widget) and the next-token picture (an Image, its alt text kept as
        ``ALT_ATTR``); its controls by name (``widget_controls``): prompt, strategy,
        temperature, top_k, top_p, repetition_penalty (``generation_widget_grid``).

    Lecture 14.
    """
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"model must be a torch.nn.Module (a GPT), got {type(model).__name__}")
    for method in ("encode", "decode", "convert_ids_to_tokens"):
        if not callable(getattr(tokenizer, method, None)):
            raise ValueError(f"tokenizer must be a WordPieceTokenizer (it has no {method}), got "
                             f"{type(tokenizer).__name__}")  # fmt: skip
    check_str("prompt", prompt, allow_empty=True)
    check_positive_int("n_samples", n_samples)
    check_positive_int("max_new_tokens", max_new_tokens)
    check_seed(seed)
    vocab = len(tokenizer)
    if eos_id is not None:
        check_index("eos_id", eos_id, vocab)
    if bos_id is not None:
        check_index("bos_id", bos_id, vocab)
    w = require_ipywidgets()

    def labels_for(V: int) -> list[str]:
        known = tokenizer.convert_ids_to_tokens(list(range(min(V, vocab))))
        return known + [f"#{i}" for i in range(vocab, V)]

    def continuation(ids: list[int]) -> str:
        if eos_id is not None and eos_id in ids:
            ids = ids[: ids.index(eos_id)]
        return tokenizer.decode(ids) or "(nothing)"

    def message(text: str) -> tuple[str, tuple]:
        return f"<i>{html.escape(text)}</i>", ("message", text)

    def render(prompt, strategy, temperature, top_k, top_p, repetition_penalty):
        """(the continuations as HTML, what the picture shows: a message or the bars)."""
        if not prompt.strip():
            return message("type a prompt (a few words of the story corpus)")
        ids = tokenizer.encode(prompt)
        tokens = tokenizer.convert_ids_to_tokens(ids)
        if "[UNK]" in tokens:
            words = [t for t in prompt.split() if "[UNK]" in tokenizer.tokenize(t)]
            return message(f"unknown word(s) for this vocabulary: {' '.join(words) or prompt}")
        ids = ([] if bos_id is None else [bos_id]) + ids
        try:
            s = _strategy(strategy, temperature, top_k, top_p, repetition_penalty)
            prompt_ids = torch.tensor([ids])  # (1, T)
            with torch.no_grad():
                logits = _logits_of(model(prompt_ids))[0, -1]  # (1, T, V) -> (V,)
            probs, kept = shown_distribution(logits, s, prompt_ids[0])
            n = n_samples if strategy == "sample" else 1
            g = torch.Generator().manual_seed(seed)
            with torch.no_grad():
                out = generate(model, prompt_ids.repeat(n, 1), max_new_tokens, s, generator=g,
                               eos_id=eos_id)  # fmt: skip
        except ValueError as err:  # e.g. a prompt longer than the context: a message
            return message(f"cannot generate: {err}")
        texts = [continuation(row[len(ids) :].tolist()) for row in out]
        shown = html.escape(prompt.strip())
        items = "".join(f"<li><b>{shown}</b> {html.escape(t)}</li>" for t in texts)
        p, k = probs.numpy(), kept.numpy()
        return f"<ol>{items}</ol>", ("bars", prompt.strip(), p.dtype.str, p.tobytes(), k.tobytes())

    bars: dict[str, object] = {}  # the bars' Figure (built by the first picture of bars)

    def picture(shows: tuple) -> Figure:
        if shows[0] == "message":
            fig = Figure(figsize=(6.5, 1.2))
            ax = fig.add_subplot()
            ax.text(0.5, 0.5, shows[1], ha="center", va="center", wrap=True)
            ax.axis("off")
            return fig
        _, text, dtype, probs, kept = shows
        probs, kept = np.frombuffer(probs, dtype=dtype), np.frombuffer(kept, dtype=bool)
        labels, title = labels_for(len(probs)), f"next token after {text!r}"
        order = np.argsort(-probs, kind="stable")[:12]  # plot_next_token's bars
        tokens = [labels[i] for i in order]
        if bars.get("V") != len(probs):  # the first bars (or another vocabulary)
            fig = Figure(figsize=(6.5, 4.2))
            KeptCanvas(fig)
            ax = fig.add_subplot()
            font = ax.yaxis.get_majorticklabels()[0].get_fontproperties()
            probe = Text(0, 0, "", fontproperties=font, figure=fig)  # measures a token
            bars.update(V=len(probs), fig=fig, probe=probe)
        else:  # the bars drawn anew on the same Axes, as on a new one
            fig = bars["fig"]
            ax = fig.axes[0]
            for artist in [*ax.containers, *ax.texts]:
                artist.remove()
            ax.ignore_existing_data_limits = True
        plot_next_token(probs, kept, labels, ax, top=12, title=title)
        # the bars, their numbers and the title change, and the spines are drawn over the
        # bars; the axes stay (their limits and the tokens name the background: the tokens
        # stay as a slider moves but for the repetition penalty)
        for artist in [*ax.patches, *ax.texts, ax.title, *ax.spines.values()]:
            artist.set_animated(True)
        # What sticks out of the Axes: the tokens left of it (the widest), the x axis' tick
        # labels (its limits) and the title (tight_layout takes its height only).
        canvas, probe = fig.canvas, bars["probe"]
        renderer = canvas.get_renderer()
        widths = []
        for token in tokens:
            probe.set_text(token)
            widths.append(probe.get_window_extent(renderer).width)
        canvas.background = ax.get_xlim(), tuple(tokens)
        canvas.layout((ax.get_xlim(), max(widths), ax.title.get_window_extent(renderer).height))
        return fig

    def slider(name: str, value: float, description: str):
        lo, hi, step = _CONTROLS[name]
        kind = w.IntSlider if isinstance(step, int) else w.FloatSlider
        return kind(value=value, min=lo, max=hi, step=step, description=description)

    controls = {  # in the order they are shown
        "prompt": w.Text(value=prompt, description="prompt", continuous_update=False),
        "strategy": w.Dropdown(options=list(_STRATEGIES), value="sample", description="strategy"),
        "repetition_penalty": slider("repetition_penalty", 1.0, "rep. penalty"),
        "temperature": slider("temperature", 1.0, "temperature"),
        "top_k": slider("top_k", 0, "top-k (0 off)"),
        "top_p": slider("top_p", 1.0, "top-p (1 off)"),
    }
    samples = w.HTML()
    image = w.Image(format="png")
    # Drawing is pure in the setting (sampling reseeds every time), so a setting drawn before
    # is shown again as it was (greedy and beam ignore the disabled sliders), and a picture
    # drawn before (settings that keep the same tokens) is not drawn again. The memory is
    # emptied when the model's weights or mode change, and not used in training mode.
    drawn: dict[tuple, tuple[str, tuple]] = {}  # setting -> (html, what the picture shows)
    pictures: dict[tuple, tuple[bytes, str]] = {}  # what it shows -> (png, alt)
    state = [module_state(model)]

    def key_of(values: Mapping[str, object]) -> tuple:
        sampling = values["strategy"] == "sample"
        return (values["prompt"], values["strategy"], values["repetition_penalty"],
                *((values["temperature"], values["top_k"], values["top_p"]) if sampling
                  else ()))  # fmt: skip

    def fill(values: Mapping[str, object]) -> tuple[str, bytes, str]:
        """Draw the setting (or find it drawn): the continuations' HTML, the PNG, its alt."""
        key = key_of(values)
        if key not in drawn:
            drawn[key] = render(**values)
        text, shows = drawn[key]
        if shows not in pictures:
            with theme_context("light"):
                fig = picture(shows)
                alt = shows[1] if shows[0] == "message" else figure_alt_text(fig)
                pictures[shows] = (render_png(fig), alt)
        for memory in (drawn, pictures):
            while len(memory) > _DRAWN:
                memory.pop(next(iter(memory)))  # the oldest first
        return (text, *pictures[shows])

    ahead: list[dict[str, object]] = []  # settings to draw while the kernel is idle

    # (in training mode, or once the weights changed, nothing drawn now would be shown again)
    draw_next = ahead_job(
        ahead,
        lambda v: key_of(v) in drawn,
        fill,
        valid=lambda: not model.training and module_state(model) == state[0],
    )

    def update(_change: object = None) -> None:
        values = {k: c.value for k, c in controls.items()}
        sampling = values["strategy"] == "sample"
        for name in ("temperature", "top_k", "top_p"):
            controls[name].disabled = not sampling
        now = module_state(model)
        if now != state[0] or model.training:  # (dropout: nothing is drawn the same twice)
            drawn.clear()
            pictures.clear()
            state[0] = now
        if key_of(values) in drawn:
            text, png, alt = fill(values)
        else:
            with DRAW_AHEAD.live():
                text, png, alt = fill(values)
        image.value = png
        setattr(image, ALT_ATTR, alt)
        samples.value = text
        nearby = {name: nearby_values(c) for name, c in controls.items()}
        ahead[:] = settings_nearby(controls, values, nearby)
        DRAW_AHEAD.moved(draw_next)

    update()
    for control in controls.values():
        control.observe(update, names="value")
    c = list(controls.values())
    rows = [w.HBox(c[:3]), w.HBox(c[3:])]
    return attach_controls(w.VBox([*rows, samples, image]), controls)
