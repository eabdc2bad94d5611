"""Pre-training objectives as data: each one turns token ids into (inputs, targets, masks), with
no model. BERT's masking (``mask_tokens``: 80/10/10 corruption of chosen positions) and its
next-sentence pairs (``make_nsp_pairs``), then the objectives after BERT: whole-word and span
(SpanBERT) masking, T5's span corruption with sentinels, ELECTRA's replaced-token labels,
XLNet's permutation factorisation (content- and query-stream attention masks) and the sentence
tasks that replaced next-sentence prediction (ALBERT's sentence order, StructBERT's three-way
sentence relation).

Public API::

    IGNORE                                       # -100: the label F.cross_entropy ignores
    check_rate(name, rate)                       # a rate in (0, 1) open, else ValueError
    inputs, labels = corrupt_chosen(ids, chosen, vocab_size=V, generator=g)
    #   BERT's 80 % [MASK] / 10 % random / 10 % kept on the chosen positions; labels = the
    #   original id at chosen positions, IGNORE elsewhere (any shape; mask_tokens uses it)
    masked_ids, labels = mask_tokens(input_ids, vocab_size=V, prob=0.15, generator=g)
    #   BERT's masking (lecture 08): prob of the non-special tokens chosen, then corrupt_chosen
    word_ids(tokens)                             # WordPiece tokens -> word index per token
    #   ("##" pieces join the word before; [CLS] [SEP] [PAD] [MASK] -> None; [UNK] is a word)
    whole_word_mask(word_ids, rate, generator=None)      # (T,) bool: whole words chosen
    span_length_distribution(mean_span_length=3.0, max_span_length=10, p=None)  # (max,)
    sample_spans(words, rate, ...) -> list of [start, end) token spans (SpanBERT)
    span_mask(words, rate, mean_span_length=3.0, max_span_length=10, generator=None, p=None)
    #   (T,) bool; words: a length T (every token a word) or word_ids
    out = span_corruption(ids, sentinel_ids, spans=None, noise_density=0.15,
                          mean_span_length=3.0, generator=None)
    #   SpanCorruption(inputs (T_in,), targets (T_out,), spans [(start, end), ...]) (T5)
    random_spans(T, noise_density=0.15, mean_span_length=3.0, generator=None)  # T5's spans
    reconstruct(inputs, targets, sentinel_ids)   # the original ids back (what a T5 output means)
    electra_example(ids, chosen, sampled)        # ElectraExample(inputs, labels 1 = replaced)
    order = sample_order(T, generator=None)      # (T,) a random factorisation order (XLNet)
    masks = permutation_masks(order)             # PermutationMasks(order, rank, content, query)
    #   content[i, j] = rank[j] <= rank[i]; query[i, j] = rank[j] < rank[i] (True = may attend)
    IS_NEXT, NOT_NEXT                            # 0, 1: next-sentence labels (BERT, as HF)
    make_nsp_pairs(docs, rng, accept=None)       # [(a, b, IS_NEXT or NOT_NEXT), ...] (lecture 08)
    IN_ORDER, SWAPPED                            # 0, 1: sentence-order labels (ALBERT, as HF)
    sentence_order_pairs(docs, rng)              # [(a, b, IN_ORDER or SWAPPED), ...]
    FOLLOWS, PRECEDES, UNRELATED                 # 0, 1, 2: StructBERT's sentence relations
    sentence_relation_triples(docs, rng)         # [(s1, s2, label), ...]

Lectures 08 and 15; Devlin et al. 2019 section 3.1, Joshi et al. 2020 (SpanBERT) section 3.1,
Raffel et al. 2020 (T5) section 3.1.4, Clark et al. 2020 (ELECTRA) section 2, Yang et al. 2019
(XLNet) section 2, Lan et al. 2020 (ALBERT) section 3.1, Wang et al. 2020 (StructBERT) 3.2.
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import NamedTuple

import torch

from lecturekit.tokenization import MASK_ID, SPECIAL_TOKENS
from lecturekit.utils.checks import (
    check_ids,
    check_index,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_strings,
    check_tensor,
    shape_of,
)

__all__ = [
    "IGNORE",
    "IS_NEXT",
    "NOT_NEXT",
    "IN_ORDER",
    "SWAPPED",
    "FOLLOWS",
    "PRECEDES",
    "UNRELATED",
    "SPANBERT_P",
    "check_rate",
    "corrupt_chosen",
    "mask_tokens",
    "word_ids",
    "whole_word_mask",
    "span_length_distribution",
    "sample_spans",
    "span_mask",
    "SpanCorruption",
    "random_spans",
    "span_corruption",
    "reconstruct",
    "ElectraExample",
    "electra_example",
    "PermutationMasks",
    "sample_order",
    "permutation_masks",
    "make_nsp_pairs",
    "sentence_order_pairs",
    "sentence_relation_triples",
]

IGNORE = -100  # the label F.cross_entropy ignores (ignore_index)
IS_NEXT, NOT_NEXT = 0, 1  # next-sentence labels, as Hugging Face's
IN_ORDER, SWAPPED = 0, 1  # sentence-order prediction labels (Hugging Face ALBERT's convention)
FOLLOWS, PRECEDES, UNRELATED = 0, 1, 2  # StructBERT: s2 follows s1, s2 precedes s1, random s2
SPANBERT_P = 0.2  # SpanBERT's geometric p; clipped at 10 words, the mean span is 3.8 words
# The tokens that are not words: [CLS], [SEP], [PAD] and [MASK] ([UNK] stands for a word).
_NOT_WORDS = frozenset(SPECIAL_TOKENS) - {"[UNK]"}


def check_rate(name: str, rate: object) -> float:
    """A rate (masking rate, noise density) in the open interval (0, 1); returns it as a float.

    0 would train on nothing and 1 leaves no context; nan, bools and non-numbers are refused
    too, with a ValueError naming ``name``.

    Lecture 15 (Wu's slide: "too little masking ... too much masking").
    """
    return check_range(name, rate, 0, 1, low_open=True, high_open=True)


def _check_generator(generator: object) -> torch.Generator | None:
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    return generator


def _as_ids(name: str, ids: object, *, min_length: int = 1) -> torch.Tensor:
    """One sequence of non-negative integer ids: a 1-D integer tensor or a list of ints."""
    if isinstance(ids, (list, tuple)):
        if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in ids):
            raise ValueError(f"{name} must be a list of integer ids, got {list(ids)!r:.80}")
        ids = torch.tensor(list(ids), dtype=torch.long)
    check_tensor(name, ids, 1, wanted="(T,) (one sequence; a list of ints also works)",
                 integer=True)  # fmt: skip
    if ids.numel() < min_length:
        raise ValueError(f"{name} must hold at least {min_length} id(s), got {ids.numel()}")
    if ids.numel() and int(ids.min()) < 0:
        raise ValueError(f"{name} must hold ids >= 0, got {int(ids.min())}")
    return ids.long()


def corrupt_chosen(
    ids: torch.Tensor,
    chosen: torch.Tensor,
    *,
    vocab_size: int,
    mask_id: int = MASK_ID,
    num_special: int = len(SPECIAL_TOKENS),
    generator: torch.Generator | None = None,
    mask_share: float = 0.8,
    random_share: float = 0.1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's corruption of the chosen positions: ``mask_share`` of them -> [MASK],
    ``random_share`` -> a random non-special token, the rest kept unchanged.

    The random draws are, in this order, one uniform number per position (which action) and one
    random id per position, both over the whole shape: ``mask_tokens`` draws its choice first and
    then calls this, so its masks are unchanged by the refactoring.

    Args:
        ids: integer token ids of any shape, e.g. (T,) or (B, T), each in 0..V-1.
        chosen: bool, the shape of ``ids``: True at the positions to predict.
        vocab_size: V; random replacements are drawn from [num_special, V).
        mask_id: the id of [MASK]; num_special: the ids below it are special (< V).
        generator: a ``torch.Generator`` for reproducible draws, or None.
        mask_share, random_share: the shares of the chosen positions that become [MASK] and a
            random token, each in [0, 1] with a sum <= 1.

    Returns:
        inputs (the shape of ids, long): the corrupted ids; labels (long): the original id at
        chosen positions, ``IGNORE`` (-100) elsewhere.

    Lecture 15 (and 08); Devlin et al. 2019 section 3.1 and appendix C.2.
    """
    check_positive_int("vocab_size", vocab_size)
    ids = check_tensor("ids", ids, min_ndim=1, wanted="(T,) or (B, T)", integer=True)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        raise ValueError(f"ids must hold ids in 0..{vocab_size - 1} (vocab_size={vocab_size}), "
                         f"got values from {int(ids.min())} to {int(ids.max())}")  # fmt: skip
    check_tensor("chosen", chosen, ids.ndim, wanted=str(tuple(ids.shape)), dtype=torch.bool)
    if chosen.shape != ids.shape:
        raise ValueError(f"chosen must have the shape of ids {tuple(ids.shape)}, "
                         f"got {tuple(chosen.shape)}")  # fmt: skip
    check_index("mask_id", mask_id, vocab_size)
    check_non_negative_int("num_special", num_special)
    if vocab_size <= num_special:
        raise ValueError(f"vocab_size={vocab_size} must exceed num_special={num_special}")
    check_range("mask_share", mask_share, 0, 1)
    check_range("random_share", random_share, 0, 1)
    if mask_share + random_share > 1 + 1e-12:
        raise ValueError(f"mask_share + random_share must be <= 1, got {mask_share} + "
                         f"{random_share}")  # fmt: skip
    _check_generator(generator)
    ids = ids.long()
    labels = torch.where(chosen, ids, torch.full_like(ids, IGNORE))
    action = torch.rand(ids.shape, generator=generator)  # < mask: [MASK], < +random: random
    random_ids = torch.randint(num_special, vocab_size, ids.shape, generator=generator)
    keep_from = mask_share + random_share
    inputs = torch.where(chosen & (action < mask_share), torch.full_like(ids, mask_id), ids)
    inputs = torch.where(chosen & (action >= mask_share) & (action < keep_from), random_ids, inputs)
    return inputs, labels


def mask_tokens(
    input_ids: torch.Tensor,
    *,
    vocab_size: int,
    prob: float = 0.15,
    mask_id: int = MASK_ID,
    num_special: int = len(SPECIAL_TOKENS),
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking: choose ``prob`` of the non-special tokens; of those 80 % -> [MASK],
    10 % -> a random (non-special) token, 10 % unchanged.

    Args:
        input_ids: (B, T) long. Ids below ``num_special`` ([PAD], [CLS], [SEP], ...) are never
            chosen.
        vocab_size: V; random replacements are drawn from [num_special, V).

        prob: the share of tokens chosen, in (0, 1].
        mask_id: the id of [MASK], in 0..V-1; num_special: >= 0 and < V.
        generator: a ``torch.Generator`` for reproducible masks, or None.

    Returns:
        masked_ids (B, T), and labels (B, T) (long): the original id at chosen positions, -100
        elsewhere (the value ``F.cross_entropy`` ignores).

    Lecture 08; Devlin et al. 2019 section 3.1 ("Task #1: Masked LM").
    """
    check_positive_int("vocab_size", vocab_size)
    input_ids = check_ids("input_ids", input_ids, vocab_size, 2, wanted="(B, T)").long()
    check_range("prob", prob, 0, 1, low_open=True)
    check_index("mask_id", mask_id, vocab_size)
    check_non_negative_int("num_special", num_special)
    if vocab_size <= num_special:
        raise ValueError(f"vocab_size={vocab_size} must exceed num_special={num_special}")
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    chosen = (torch.rand(input_ids.shape, generator=generator) < prob) & (input_ids >= num_special)
    # 80 % [MASK], 10 % random, 10 % kept: the same draws as before (lecture 15's refactoring)
    return corrupt_chosen(
        input_ids,
        chosen,
        vocab_size=vocab_size,
        mask_id=mask_id,
        num_special=num_special,
        generator=generator,
    )


def word_ids(tokens: Sequence[str]) -> list[int | None]:
    """The word each WordPiece token belongs to: a "##" piece joins the word before it.

    [CLS], [SEP], [PAD] and [MASK] belong to no word (None); [UNK] is a word of its own. A
    "##" piece with no word before it (first token, or after a special token) starts a word.

    Args:
        tokens: a list of T token strings (``tokenizer.tokenize(text)`` or
            ``convert_ids_to_tokens(ids)``).

    Returns:
        A list of T word indices (0, 1, ... in order) or None.

    Lecture 15; Devlin et al. 2019 (whole word masking, the BERT repository's README).
    """
    check_strings("tokens", tokens, allow_empty=True)
    out: list[int | None] = []
    word = -1
    for t in tokens:
        if t in _NOT_WORDS:
            out.append(None)
            continue
        if not (t.startswith("##") and out and out[-1] is not None):
            word += 1
        out.append(word)
    return out


def _words(name: str, words: object) -> tuple[int, list[tuple[int, int]]]:
    """Sequence length T and the [start, end) token range of each word, in order, from a
    length (every token is a word) or a list of word ids (None = not a word)."""
    if isinstance(words, numbers.Integral) and not isinstance(words, bool):
        T = check_positive_int(name, words)
        return T, [(t, t + 1) for t in range(T)]
    if isinstance(words, torch.Tensor):
        words = words.tolist()
    if isinstance(words, (str, bytes)) or not isinstance(words, Sequence):
        raise ValueError(f"{name} must be a list of word ids (ints or None) or a length, got "
                         f"{shape_of(words)}")  # fmt: skip
    ranges: dict[int, tuple[int, int]] = {}
    for t, w in enumerate(words):
        if w is None:
            continue
        if isinstance(w, bool) or not isinstance(w, numbers.Integral) or w < 0:
            raise ValueError(f"{name}[{t}] must be a word index (int >= 0) or None, got {w!r}")
        if w in ranges and ranges[w][1] != t:
            raise ValueError(
                f"{name}: the tokens of word {w} must be consecutive, got word {w} at "
                f"positions {ranges[w][0]} and {t} with others between"
            )
        ranges[w] = (ranges[w][0] if w in ranges else t, t + 1)
    return len(words), sorted(ranges.values())


def whole_word_mask(
    word_ids: Sequence[int | None], rate: float, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Whole word masking: choose whole words, never some pieces of a word.

    As the BERT repository's ``create_masked_lm_predictions`` (whole-word mode): the budget is
    ``max(1, round(rate * n))`` tokens, n = the tokens that belong to words; the words are taken
    in a random order, each one if it still fits in the budget.

    Args:
        word_ids: T word indices (``word_ids(tokens)``), None for tokens of no word.
        rate: the share of word tokens to choose, in (0, 1).
        generator: a ``torch.Generator`` for reproducible draws, or None.

    Returns:
        (T,) bool, True at the tokens of the chosen words (pass it to ``corrupt_chosen``).

    Lecture 15; Devlin et al. 2019 (whole word masking, BERT's README, 2019).
    """
    rate = check_rate("rate", rate)
    _check_generator(generator)
    T, ranges = _words("word_ids", word_ids)
    chosen = torch.zeros(T, dtype=torch.bool)
    n = sum(e - s for s, e in ranges)
    if not n:
        return chosen
    budget, covered = max(1, round(rate * n)), 0
    for w in torch.randperm(len(ranges), generator=generator).tolist():
        s, e = ranges[w]
        if covered + (e - s) <= budget:
            chosen[s:e] = True
            covered += e - s
        if covered >= budget:
            break
    return chosen


def span_length_distribution(
    mean_span_length: float = 3.0, max_span_length: int = 10, *, p: float | None = None
) -> torch.Tensor:
    """SpanBERT's span lengths (in words): a geometric distribution Geo(p) over 1, 2, ...,
    truncated at ``max_span_length`` and renormalised (as SpanBERT's code does).

    With ``p`` given that is the distribution (SpanBERT: p = 0.2, max 10 -> mean 3.797 words).
    Otherwise ``p`` is solved for (bisection) so that the truncated mean is ``mean_span_length``
    exactly (1 <= mean < (max + 1) / 2, the mean of the uniform p -> 0 limit).

    Returns:
        (max_span_length,) float64 probabilities of the lengths 1..max_span_length.

    Lecture 15; Joshi et al. 2020 (SpanBERT) section 3.1.
    """
    L = check_positive_int("max_span_length", max_span_length)
    lengths = torch.arange(1, L + 1, dtype=torch.float64)

    def probs(q: float) -> torch.Tensor:
        w = q * (1 - q) ** (lengths - 1)
        return w / w.sum()

    if p is not None:
        return probs(check_range("p", p, 0, 1, low_open=True))
    mean = check_range("mean_span_length", mean_span_length, 1, (L + 1) / 2, high_open=True)
    if L == 1 or mean == 1:
        return probs(1.0)
    low, high = 1e-12, 1.0  # the truncated mean falls from (L + 1) / 2 to 1 as p goes 0 -> 1
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if float((probs(mid) * lengths).sum()) > mean else (low, mid)
    return probs((low + high) / 2)


def sample_spans(
    words: int | Sequence[int | None],
    rate: float,
    mean_span_length: float = 3.0,
    max_span_length: int = 10,
    generator: torch.Generator | None = None,
    *,
    p: float | None = None,
) -> list[tuple[int, int]]:
    """SpanBERT's spans: contiguous runs of whole words, their lengths (in words) drawn from
    ``span_length_distribution``, until ``round(rate * n)`` tokens are chosen (n = word tokens).

    Each span starts at a uniformly drawn word not yet chosen and covers up to its drawn length
    in words; it ends early at the end of the sequence or at a token of no word ([SEP]), and
    the last one ends once the budget is reached (the word in progress is finished, so the
    chosen share can pass ``rate`` by less than one word). A span may run into an earlier one.

    Args:
        words: a length T (every token a word) or T word ids (``word_ids(tokens)``).
        rate: the share of word tokens to choose, in (0, 1).
        mean_span_length, max_span_length, p: see ``span_length_distribution``.
        generator: a ``torch.Generator`` for reproducible draws, or None.

    Returns:
        The spans as [start, end) token positions, in the order drawn.

    Lecture 15; Joshi et al. 2020 (SpanBERT) section 3.1.
    """
    rate = check_rate("rate", rate)
    _check_generator(generator)
    _, ranges = _words("words", words)
    dist = span_length_distribution(mean_span_length, max_span_length, p=p)
    n = sum(e - s for s, e in ranges)
    if not n:
        return []
    budget, covered = max(1, round(rate * n)), 0
    taken = [False] * len(ranges)
    spans = []
    while covered < budget:
        length = int(torch.multinomial(dist, 1, generator=generator)) + 1
        free = [w for w, t in enumerate(taken) if not t]
        w = free[int(torch.randint(len(free), (1,), generator=generator))]
        first = w
        for k in range(length):
            if w + k >= len(ranges) or (k and ranges[w + k][0] != ranges[w + k - 1][1]):
                break  # the end of the sequence, or a token of no word between
            s, e = ranges[w + k]
            if not taken[w + k]:
                taken[w + k] = True
                covered += e - s
            last = w + k
            if covered >= budget:
                break
        spans.append((ranges[first][0], ranges[last][1]))
    return spans


def span_mask(
    words: int | Sequence[int | None],
    rate: float,
    mean_span_length: float = 3.0,
    max_span_length: int = 10,
    generator: torch.Generator | None = None,
    *,
    p: float | None = None,
) -> torch.Tensor:
    """SpanBERT's span masking: whole-word spans of geometric length (``sample_spans``).

    SpanBERT itself: ``span_mask(word_ids, 0.15, p=SPANBERT_P)`` (max 10 words, mean 3.8).

    Returns:
        (T,) bool, True at the chosen tokens (pass it to ``corrupt_chosen``).

    Lecture 15; Joshi et al. 2020 (SpanBERT) section 3.1.
    """
    spans = sample_spans(words, rate, mean_span_length, max_span_length, generator, p=p)
    T, _ = _words("words", words)
    chosen = torch.zeros(T, dtype=torch.bool)
    for s, e in spans:
        chosen[s:e] = True
    return chosen


class SpanCorruption(NamedTuple):
    """T5's span corruption of one sequence.

    inputs (T_in,): the ids with each span replaced by one sentinel; targets (T_out,): each
    span's sentinel followed by its ids, then one final sentinel; spans: the [start, end)
    token positions of the spans in the original ids."""

    inputs: torch.Tensor
    targets: torch.Tensor
    spans: list[tuple[int, int]]


def _segmentation(n_items: int, n_segments: int, generator: torch.Generator | None) -> list[int]:
    """A uniformly random split of n_items into n_segments positive lengths (T5's
    ``_random_segmentation``)."""
    if n_segments == 1:
        return [n_items]
    cuts = sorted((torch.randperm(n_items - 1, generator=generator)[: n_segments - 1] + 1).tolist())
    return [b - a for a, b in pairwise([0, *cuts, n_items])]


def random_spans(
    T: int,
    noise_density: float = 0.15,
    mean_span_length: float = 3.0,
    generator: torch.Generator | None = None,
) -> list[tuple[int, int]]:
    """T5's ``random_spans_noise_mask`` as spans: ``round(T * noise_density)`` noise tokens
    (at least 1, at most T - 1) in ``round(noise / mean_span_length)`` spans (at least 1),
    the noise and the non-noise each split uniformly at random into that many runs, which
    alternate starting with non-noise (so the first token is never noise and the last is).

    One deviation: T5 would need as many non-noise tokens as spans; when there are fewer
    (only at densities above 1 / 2) the number of spans is cut to the non-noise count.

    Args:
        T: the sequence length, >= 2.
        noise_density: the share of noise tokens, in (0, 1).
        mean_span_length: the mean span length, >= 1.
        generator: a ``torch.Generator`` for reproducible draws, or None.

    Returns:
        The spans as sorted, disjoint [start, end) positions.

    Lecture 15; Raffel et al. 2020 (T5) section 3.1.4 and 3.3.4.
    """
    check_positive_int("T", T)
    if T < 2:
        raise ValueError(f"T must be at least 2 (one noise and one kept token), got {T}")
    density = check_rate("noise_density", noise_density)
    mean = check_range("mean_span_length", mean_span_length, 1)
    _check_generator(generator)
    noise = min(max(round(T * density), 1), T - 1)
    n_spans = min(max(round(noise / mean), 1), T - noise)
    noise_lengths = _segmentation(noise, n_spans, generator)
    keep_lengths = _segmentation(T - noise, n_spans, generator)
    spans, t = [], 0
    for keep, length in zip(keep_lengths, noise_lengths, strict=True):
        t += keep
        spans.append((t, t + length))
        t += length
    return spans


def _check_spans(spans: object, T: int) -> list[tuple[int, int]]:
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence):
        raise ValueError(f"spans must be a list of (start, end) pairs, got {shape_of(spans)}")
    out = []
    for k, span in enumerate(spans):
        ok = isinstance(span, (tuple, list)) and len(span) == 2 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in span)  # fmt: skip
        if not ok:
            raise ValueError(f"spans[{k}] must be a pair (start, end) of ints, got {span!r}")
        s, e = int(span[0]), int(span[1])
        if e - s > T:
            raise ValueError(f"spans[{k}]={span!r} is longer ({e - s} tokens) than the "
                             f"sequence (T={T})")  # fmt: skip
        if not 0 <= s < e <= T:
            raise ValueError(f"spans[{k}]={span!r} must satisfy 0 <= start < end <= T={T} "
                             "(a non-empty span inside the sequence)")  # fmt: skip
        if out and s < out[-1][1]:
            raise ValueError(f"spans must be sorted and must not overlap, got spans[{k - 1}]="
                             f"{out[-1]} then spans[{k}]={(s, e)}")  # fmt: skip
        out.append((s, e))
    return out


def _check_sentinels(sentinels: list[int], ids: list[int]) -> None:
    """Sentinels must be distinct and must not occur in ids, or ``reconstruct`` cannot tell a
    sentinel from a word."""
    repeated = sorted({s for s in sentinels if sentinels.count(s) > 1})
    if repeated:
        raise ValueError(f"sentinel_ids must be distinct ids, got {repeated} more than once")
    collide = sorted(set(sentinels) & set(ids))
    if collide:
        raise ValueError(
            f"sentinel_ids must not occur in ids, got {collide} in both; pick ids outside the "
            f"text's vocabulary (T5 uses the last ids, <extra_id_0> = vocab_size - 1, ...)"
        )


def span_corruption(
    ids: torch.Tensor | Sequence[int],
    sentinel_ids: torch.Tensor | Sequence[int],
    spans: Sequence[tuple[int, int]] | None = None,
    *,
    noise_density: float = 0.15,
    mean_span_length: float = 3.0,
    generator: torch.Generator | None = None,
) -> SpanCorruption:
    """T5's span corruption: each span becomes one sentinel in the input; the target lists
    each sentinel followed by the span it replaced, then a final sentinel.

    "Thank you <X> me to your party <Y> week ." -> "<X> for inviting <Y> last <Z>": the ids of
    the sentence's 11 words with ``spans=[(2, 4), (8, 9)]`` and sentinels <X>, <Y>, <Z>.

    Args:
        ids: (T,) integer ids (a list of ints also works), T >= 1 (>= 2 for random spans).
        sentinel_ids: the sentinel ids in order (T5: <extra_id_0>, <extra_id_1>, ...), at least
            one per span plus the final one, distinct and not in ids (a ValueError otherwise).
        spans: sorted, disjoint [start, end) token positions inside 0..T; None draws T5's
            random spans (``random_spans``).
        noise_density, mean_span_length, generator: for random spans only.

    Returns:
        SpanCorruption(inputs (T_in,), targets (T_out,), spans), T_in = T - noise + n_spans,
        T_out = noise + n_spans + 1.

    Lecture 15; Raffel et al. 2020 (T5) section 3.1.4 and figure 2.
    """
    ids = _as_ids("ids", ids)
    sentinels = _as_ids("sentinel_ids", sentinel_ids).tolist()
    T = ids.numel()
    if spans is None:
        if T < 2:
            raise ValueError(f"ids must hold at least 2 ids for random spans (one noise and one "
                             f"kept), got {T}; pass spans= for a single token")  # fmt: skip
        spans = random_spans(T, noise_density, mean_span_length, generator)
    else:
        spans = _check_spans(spans, T)
    if len(sentinels) < len(spans) + 1:
        raise ValueError(f"sentinel_ids must hold at least {len(spans) + 1} ids (one per span "
                         f"and a final one), got {len(sentinels)}")  # fmt: skip
    _check_sentinels(sentinels, ids.tolist())
    inputs, targets, t = [], [], 0
    for k, (s, e) in enumerate(spans):
        inputs += [*ids[t:s].tolist(), sentinels[k]]
        targets += [sentinels[k], *ids[s:e].tolist()]
        t = e
    inputs += ids[t:].tolist()
    targets.append(sentinels[len(spans)])
    as_tensor = lambda x: torch.tensor(x, dtype=torch.long)  # noqa: E731
    return SpanCorruption(as_tensor(inputs), as_tensor(targets), list(spans))


def reconstruct(
    inputs: torch.Tensor | Sequence[int],
    targets: torch.Tensor | Sequence[int],
    sentinel_ids: torch.Tensor | Sequence[int],
) -> torch.Tensor:
    """The original sequence from a span-corrupted input and its target: what a T5 decoder's
    output means (each sentinel in the input is replaced by what follows it in the target).

    Args:
        inputs: (T_in,) ids with sentinels; targets: (T_out,) sentinel, span, sentinel, ...
        sentinel_ids: the sentinels ``span_corruption`` was given.

    Returns:
        (T,) long: the original ids.

    Lecture 15; Raffel et al. 2020 (T5) section 3.1.4.
    """
    inputs = _as_ids("inputs", inputs, min_length=0).tolist()
    targets = _as_ids("targets", targets, min_length=0).tolist()
    sentinels = set(_as_ids("sentinel_ids", sentinel_ids).tolist())
    filled: dict[int, list[int]] = {}
    current: list[int] | None = None
    for t in targets:
        if t in sentinels:
            current = filled.setdefault(t, [])
        elif current is None:
            raise ValueError(f"targets must start with a sentinel, got {targets[:3]!r}")
        else:
            current.append(t)
    out = []
    for t in inputs:
        if t in sentinels:
            if t not in filled:
                raise ValueError(f"inputs hold the sentinel {t} that targets do not")
            out += filled[t]
        else:
            out.append(t)
    return torch.tensor(out, dtype=torch.long)


class ElectraExample(NamedTuple):
    """What ELECTRA's discriminator sees: inputs (the generator's samples at the chosen
    positions) and labels (long, 1 = replaced, 0 = original), both the shape of the ids."""

    inputs: torch.Tensor
    labels: torch.Tensor


def electra_example(
    ids: torch.Tensor, chosen: torch.Tensor, sampled: torch.Tensor
) -> ElectraExample:
    """ELECTRA's replaced-token detection example: the chosen positions take the generator's
    samples, every position gets a label.

    A sample that happens to be the original token is labelled original (0), as in Clark et
    al. 2020 ("if the generator happens to generate the correct token, that token is considered
    real instead of fake").

    Args:
        ids: (T,) or (B, T) integer: the original ids.
        chosen: bool, the shape of ids: the positions the generator filled.
        sampled: integer, the shape of ids: the generator's samples (read at chosen only).

    Returns:
        ElectraExample(inputs, labels), each the shape of ids, long.

    Lecture 15; Clark et al. 2020 (ELECTRA) section 2.
    """
    ids = check_tensor("ids", ids, min_ndim=1, wanted="(T,) or (B, T)", integer=True)
    want = str(tuple(ids.shape))
    check_tensor("chosen", chosen, ids.ndim, wanted=want, dtype=torch.bool)
    check_tensor("sampled", sampled, ids.ndim, wanted=want, integer=True)
    for name, x in (("chosen", chosen), ("sampled", sampled)):
        if x.shape != ids.shape:
            raise ValueError(f"{name} must have the shape of ids {want}, got {tuple(x.shape)}")
    for name, x in (("ids", ids), ("sampled", sampled)):
        if x.numel() and int(x.min()) < 0:
            raise ValueError(f"{name} must hold token ids >= 0, got {int(x.min())}")
    inputs = torch.where(chosen, sampled.long(), ids.long())
    return ElectraExample(inputs, (inputs != ids).long())


class PermutationMasks(NamedTuple):
    """XLNet's two attention masks for one factorisation order (True = may attend).

    order (T,): the positions in the order they are predicted; rank (T,): rank[i] = the step
    at which position i is predicted; content (T, T): [i, j] = rank[j] <= rank[i] (the content
    stream sees itself); query (T, T): [i, j] = rank[j] < rank[i] (the query stream sees the
    earlier positions only, not its own token)."""

    order: torch.Tensor
    rank: torch.Tensor
    content: torch.Tensor
    query: torch.Tensor


def sample_order(T: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """A factorisation order drawn uniformly from the T! permutations of 0..T-1.

    Returns:
        (T,) long: the positions in the order they are predicted.

    Lecture 15; Yang et al. 2019 (XLNet) section 2.2, eq. 3.
    """
    check_positive_int("T", T)
    _check_generator(generator)
    return torch.randperm(T, generator=generator)


def permutation_masks(order: torch.Tensor | Sequence[int]) -> PermutationMasks:
    """The content- and query-stream masks of a factorisation order.

    The product over the order of p(x_{z_t} | x_{z_<t}) is the chain rule of the joint for that
    order: position z_t is predicted from exactly the positions its query row sees. With the
    identity order content = the causal mask and query = the strictly causal mask.

    Args:
        order: (T,) a permutation of 0..T-1 (a list of ints also works).

    Returns:
        PermutationMasks(order, rank, content (T, T), query (T, T)), rows = the position that
        attends (predicts), columns = the position attended to.

    Lecture 15; Yang et al. 2019 (XLNet) section 2.3 and figure 1.
    """
    order = _as_ids("order", order)
    T = order.numel()
    if not torch.equal(order.sort().values, torch.arange(T)):
        raise ValueError(f"order must be a permutation of 0..{T - 1}, got {order.tolist()}")
    rank = torch.empty_like(order)
    rank[order] = torch.arange(T)
    content = rank[None, :] <= rank[:, None]  # (1, T) vs (T, 1) -> (T, T)
    query = rank[None, :] < rank[:, None]
    return PermutationMasks(order, rank, content, query)


def _check_docs(docs: object, rng: object) -> None:
    if isinstance(docs, str) or not isinstance(docs, Sequence):
        raise ValueError(f"docs must be a list of documents (lists of sentences), got "
                         f"{shape_of(docs)}")  # fmt: skip
    for i, doc in enumerate(docs):
        check_strings(f"docs[{i}]", doc, allow_empty=True)
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random (e.g. random.Random(0)), got {rng!r}")


def make_nsp_pairs(
    docs: Sequence[Sequence[str]],
    rng: random.Random,
    accept: Callable[[str, str], bool] | None = None,
) -> list[tuple[str, str, int]]:
    """One pair per consecutive sentence pair of every document: with probability 1/2 the true
    next sentence (IsNext = 0), otherwise a random sentence of another document (NotNext = 1).

    Toy documents repeat sentences, so a random sentence could happen to be one that does
    follow A somewhere; such draws are redrawn, so that every NotNext label is true.
    ``accept(a, b)``, if given, must also hold for a NotNext sentence b (it is redrawn until it
    does; lecture 15 asks for other-topic negatives only); None leaves the draws as they were.

    Lecture 08; Devlin et al. 2019 section 3.1 ("Task #2: Next Sentence Prediction").
    """
    if isinstance(docs, str) or not isinstance(docs, Sequence):
        raise ValueError(f"docs must be a list of documents (lists of sentences), got {docs!r:.60}")
    for i, doc in enumerate(docs):
        check_strings(f"docs[{i}]", doc, allow_empty=True)
    if len(docs) < 2:
        raise ValueError(
            f"docs must hold at least 2 documents (NotNext sentences come from another one), "
            f"got {len(docs)}"
        )
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random (e.g. random.Random(0)), got {rng!r}")
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    pairs = []
    for d, doc in enumerate(docs):
        for a, b in pairwise(doc):
            if rng.random() < 0.5:
                pairs.append((a, b, IS_NEXT))
                continue
            for _ in range(100):
                other = rng.randrange(len(docs) - 1)
                other += other >= d  # any document but this one
                b = rng.choice(docs[other])
                if (a, b) not in follows and (accept is None or accept(a, b)):
                    break
            else:
                if accept is not None:
                    raise ValueError(f"no sentence of another document is accepted after {a!r}")
            pairs.append((a, b, NOT_NEXT))
    return pairs


def sentence_order_pairs(
    docs: Sequence[Sequence[str]], rng: random.Random
) -> list[tuple[str, str, int]]:
    """ALBERT's sentence-order prediction: every consecutive sentence pair (a, b) of a
    document, kept (a, b, IN_ORDER) or swapped (b, a, SWAPPED) with probability 1/2.

    Both sentences always come from the same document, so the topic cannot give the answer
    (as it does for next-sentence prediction). Pairs whose label the sentences cannot decide
    are skipped: two equal sentences, and pairs that occur in both orders in ``docs`` (the toy
    documents repeat sentences).

    Args:
        docs: documents, each a list of sentences.
        rng: a ``random.Random`` (one draw per pair kept).

    Returns:
        [(first, second, label), ...], label IN_ORDER (0) or SWAPPED (1).

    Lecture 15; Lan et al. 2020 (ALBERT) section 3.1 ("inter-sentence coherence loss").
    """
    _check_docs(docs, rng)
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    pairs = []
    for doc in docs:
        for a, b in pairwise(doc):
            if a == b or (b, a) in follows:
                continue
            pairs.append((b, a, SWAPPED) if rng.random() < 0.5 else (a, b, IN_ORDER))
    return pairs


def sentence_relation_triples(
    docs: Sequence[Sequence[str]], rng: random.Random
) -> list[tuple[str, str, int]]:
    """StructBERT's sentence-structural objective: for every consecutive pair (a, b) of a
    document, one of three examples with probability 1/3 each: (a, b, FOLLOWS) (the second
    sentence is the next one), (b, a, PRECEDES) (the second is the previous one) or (a, c,
    UNRELATED) with c a random sentence of another document.

    As in ``sentence_order_pairs``, pairs the sentences cannot decide are skipped (equal
    sentences, pairs occurring in both orders), and a random c that happens to be next to a
    somewhere in ``docs`` is redrawn (up to 100 times).

    Args:
        docs: documents, each a list of sentences; at least 2 documents.
        rng: a ``random.Random``.

    Returns:
        [(s1, s2, label), ...], label FOLLOWS (0), PRECEDES (1) or UNRELATED (2).

    Lecture 15; Wang et al. 2020 (StructBERT) section 3.2 (sentence structural objective).
    """
    _check_docs(docs, rng)
    others = [d for d, doc in enumerate(docs) if doc]
    if len(others) < 2:
        raise ValueError(
            "docs must hold at least 2 non-empty documents (UNRELATED sentences come from "
            f"another one), got {len(others)}"
        )
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    triples = []
    for d, doc in enumerate(docs):
        elsewhere = [o for o in others if o != d]
        for a, b in pairwise(doc):
            if a == b or (b, a) in follows:
                continue
            kind = rng.randrange(3)
            if kind == FOLLOWS:
                triples.append((a, b, FOLLOWS))
            elif kind == PRECEDES:
                triples.append((b, a, PRECEDES))
            else:
                for _ in range(100):
                    other = rng.choice(elsewhere)
                    c = rng.choice(docs[other])
                    if (a, c) not in follows and (c, a) not in follows and c != a:
                        break
                triples.append((a, c, UNRELATED))
    return triples
