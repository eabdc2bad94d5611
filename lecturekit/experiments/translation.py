"""Evaluating a translation model on the toy task: greedy translations, exact match, and exact
match by sentence length (the bottleneck curve).

Any model with ``greedy_decode(src, src_len, max_len) -> (ids, weights)`` works: the RNN
encoder-decoders (``lecturekit.models.seq2seq``) and the Transformer
(``lecturekit.models.transformer``) are measured by the same code.

Public API::

    hyps = translate(model, sources, data)              # list of word lists (greedy, batched)
    ok = exact_match(model, pairs, data)                # (N,) bool: whole sentence right
    e = exact_match_by_length(model, pairs, data, bin_starts=range(5, 60, 5))
    #   e.labels ("5-9", ..., "55+"), e.counts, e.exact_match per source-length bin
    err = classify_errors(hyps, pairs, reference_log_probs, data)  # hyps: decoding.Hypothesis
    #   err.correct, err.search_error, err.model_error (N,) bool; err.exact_match,
    #   err.num_search_errors, err.num_model_errors
    cmp = paired_comparison(ok_a, ok_b, num_resamples=10_000, seed=0)  # same items, (N,) bool
    #   cmp.only_a, cmp.only_b, cmp.difference, cmp.interval (paired bootstrap), cmp.p_value
    p = sign_test(only_a, only_b)                       # exact two-sided sign test (McNemar)
    al = alignment_accuracy(model, pairs, data)         # teacher-forced cross-attention vs the
    #   true alignment: al.accuracy (L, H + 1) per layer, head and mean of heads; al.offsets
    #   (L, H, 11) counts of argmax - true source position; al.words

Lectures 01, 02, 07 and 10; Bahdanau et al. 2015 Figure 2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import torch
from torch import nn

from lecturekit.datasets.translation import Pair, TranslationData, collate
from lecturekit.decoding import Hypothesis
from lecturekit.utils.checks import (
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
    check_strings,
    check_tensor,
)

__all__ = [
    "translate",
    "exact_match",
    "LengthAccuracy",
    "exact_match_by_length",
    "SearchErrors",
    "classify_errors",
    "PairedComparison",
    "sign_test",
    "paired_comparison",
    "AlignmentAccuracy",
    "alignment_accuracy",
]


def _check_model(model: object, data: object) -> None:
    """A translation model (with ``greedy_decode``) and the ``TranslationData`` of its task:
    a model built for other vocabularies would read the ids as other words."""
    if not callable(getattr(model, "greedy_decode", None)):
        raise ValueError(
            f"model must be a translation model with a greedy_decode method (Seq2Seq, "
            f"Transformer), got {type(model).__name__}"
        )
    check_instance("data", data, TranslationData)
    config = getattr(model, "config", None)
    for side in ("src", "tgt"):
        size = getattr(config, f"{side}_vocab_size", None)
        vocab = len(getattr(data, f"{side}_vocab"))
        if isinstance(size, int) and size != vocab:
            raise ValueError(
                f"model has {side}_vocab_size={size} but data.{side}_vocab has {vocab} words: "
                "model and data belong to different tasks (for the toy task build the model "
                "with its config's tiny())"
            )


def _check_pairs(pairs: object) -> list[Pair]:
    if isinstance(pairs, Pair):
        raise ValueError("pairs must be a list of Pair, got a single Pair (wrap it: [pair])")
    if isinstance(pairs, str) or not isinstance(pairs, Sequence):
        raise ValueError(f"pairs must be a list of Pair, got {type(pairs).__name__}")
    for i, p in enumerate(pairs):
        if not isinstance(p, Pair):
            raise ValueError(f"pairs[{i}] must be a Pair, got {type(p).__name__}")
    return list(pairs)


@torch.no_grad()
def translate(
    model: nn.Module,
    sources: Sequence[Sequence[str]],
    data: TranslationData,
    batch_size: int = 250,
    extra_len: int = 10,
) -> list[list[str]]:
    """Greedy translations of tokenised source sentences (batched; the model is put in eval
    mode). Each may be up to ``extra_len`` tokens longer than the longest source in its batch.

    Args:
        model: a translation model with ``greedy_decode`` (``Seq2Seq``, ``Transformer``)
            for the vocabularies of ``data``.
        sources: a list of sentences, each a list of words (``"a sentence".split()``).
            Words not in ``data.src_vocab`` are read as <unk>; no sources give ``[]``.
        data: the ``TranslationData`` holding the vocabularies.
        batch_size: sentences per batch; extra_len: see above.

    Lecture 01.
    """
    _check_model(model, data)
    want = "sources must be a list of sentences, each a list of words"
    if isinstance(sources, str):
        raise ValueError(f"{want}, got a single string {sources!r} (use [text.split()])")
    if not isinstance(sources, Sequence):
        raise ValueError(f"{want}, got {type(sources).__name__}")
    for i, source in enumerate(sources):
        if isinstance(source, str):
            raise ValueError(
                f"sources[{i}] must be a list of words, got a single string {source!r} "
                f"(split it: {source!r}.split())"
            )
        check_strings(f"sources[{i}]", source)
    check_positive_int("batch_size", batch_size)
    check_positive_int("extra_len", extra_len)
    model.eval()
    out: list[list[str]] = []
    for i in range(0, len(sources), batch_size):
        chunk = [Pair(tuple(s), (), ()) for s in sources[i : i + batch_size]]
        batch = collate(chunk, data.src_vocab, data.tgt_vocab)
        ids, _ = model.greedy_decode(batch.src, batch.src_len, batch.src.shape[1] + extra_len)
        out += [data.tgt_vocab.decode(row) for row in ids]
    return out


def exact_match(model: nn.Module, pairs: Sequence[Pair], data: TranslationData) -> torch.Tensor:
    """(N,) bool: the greedy translation equals the reference word for word (no pairs: an
    empty (0,) tensor).

    Lecture 01.
    """
    pairs = _check_pairs(pairs)
    hyps = translate(model, [p.src for p in pairs], data)
    ok = [tuple(h) == p.tgt for h, p in zip(hyps, pairs, strict=True)]
    return torch.tensor(ok, dtype=torch.bool)


@dataclass(frozen=True)
class LengthAccuracy:
    """Exact match of a translation model per source-length bin."""

    labels: tuple[str, ...]  # "5-9", "10-14", ..., "55+"
    bin_starts: tuple[int, ...]
    counts: tuple[int, ...]  # sentences per bin
    exact_match: tuple[float, ...]  # fraction translated exactly (nan for an empty bin)
    # (N,) bool in the order of the pairs, what ``exact_match`` returns (None: not kept)
    correct: torch.Tensor | None = None


def exact_match_by_length(
    model, pairs: Sequence, data, bin_starts: Sequence[int] = range(5, 60, 5)
) -> LengthAccuracy:
    """Greedy exact match of ``model`` on ``pairs``, grouped by source length.

    Bin b holds the sentences with bin_starts[b] <= length < bin_starts[b + 1]; the last bin
    holds every sentence of at least bin_starts[-1] words. Sentences are translated in order of
    length (less padding, faster; the same translations as ``exact_match``).

    Args:
        model: a translation model with ``greedy_decode`` (``Seq2Seq``, ``Transformer``).
        pairs: ``Pair`` s, e.g. ``default_data().test``; none shorter than bin_starts[0].
        data: the ``TranslationData`` holding the vocabularies.
        bin_starts: increasing first lengths of the bins.

    Returns:
        LengthAccuracy(labels, bin_starts, counts, exact_match, correct): ``correct`` is
        ``exact_match(model, pairs, data)``, computed once with the bins.

    Lecture 01; the bottleneck curve of Bahdanau et al. 2015 Figure 2.
    """
    _check_model(model, data)
    pairs = _check_pairs(pairs)
    starts = check_positive_ints("bin_starts", bin_starts)
    if any(a >= b for a, b in pairwise(starts)):
        raise ValueError(f"bin_starts must be increasing, got {list(starts)}")
    if not pairs:
        raise ValueError("pairs is empty: expected at least one sentence pair")
    lengths = [len(p.src) for p in pairs]
    if min(lengths) < starts[0]:
        raise ValueError(
            f"a sentence has {min(lengths)} words, shorter than bin_starts[0]={starts[0]}"
        )
    order = sorted(range(len(pairs)), key=lambda i: (lengths[i], i))
    correct_sorted = exact_match(model, [pairs[i] for i in order], data)  # (N,) bool
    correct = torch.empty_like(correct_sorted)
    correct[torch.tensor(order)] = correct_sorted  # back to the order of ``pairs``
    bin_of = torch.tensor([sum(n >= s for s in starts) - 1 for n in lengths])  # (N,)
    labels = (
        *(f"{lo}-{hi - 1}" if hi - 1 > lo else f"{lo}" for lo, hi in pairwise(starts)),
        f"{starts[-1]}+",
    )
    counts = tuple(int((bin_of == b).sum()) for b in range(len(starts)))
    accuracy = tuple(
        correct[bin_of == b].float().mean().item() if counts[b] else math.nan
        for b in range(len(starts))
    )
    return LengthAccuracy(labels, starts, counts, accuracy, correct)


@dataclass(frozen=True)
class SearchErrors:
    """Whose fault each wrong translation is: the search's or the model's.

    Attributes:
        correct: (N,) bool: the returned hypothesis is the reference (finished, word for word).
        search_error: (N,) bool: wrong, and the model gives the reference a higher log P than
            the returned hypothesis: the model prefers the right answer, the search missed it.
        model_error: (N,) bool: wrong, and the reference's log P is not higher: the model
            itself prefers a wrong translation, which no search can fix.

    Lecture 07.
    """

    correct: torch.Tensor
    search_error: torch.Tensor
    model_error: torch.Tensor

    @property
    def exact_match(self) -> float:
        """The fraction of right translations (nan for no sentences)."""
        return self.correct.float().mean().item() if len(self.correct) else math.nan

    @property
    def num_search_errors(self) -> int:
        """How many wrong translations are search errors."""
        return int(self.search_error.sum())

    @property
    def num_model_errors(self) -> int:
        """How many wrong translations are model errors."""
        return int(self.model_error.sum())


def classify_errors(
    hyps: Sequence[Hypothesis],
    pairs: Sequence[Pair],
    reference_log_probs: torch.Tensor,
    data: TranslationData,
) -> SearchErrors:
    """Split the wrong translations of a search into search errors and model errors.

    A returned translation that is not the reference is a *search error* when the model
    gives the reference a higher log-probability, log P(reference | x) > log P(returned | x),
    and a *model error* otherwise.

    Args:
        hyps: the returned ``Hypothesis`` of each pair (``greedy_search(...)`` or
            ``beam_search(...)[0]``), tokens in the target vocabulary.
        pairs: the translated ``Pair`` s, in the same order.
        reference_log_probs: (N,) log P(reference + eos | source) of each pair under the same
            model (teacher forcing).
        data: the ``TranslationData`` whose target vocabulary reads the hypotheses.

    Returns:
        SearchErrors(correct, search_error, model_error), each (N,) bool; every sentence is
        exactly one of the three.

    Lecture 07 (search errors vs model errors).
    """
    pairs = _check_pairs(pairs)
    check_instance("data", data, TranslationData)
    if isinstance(hyps, Hypothesis) or not isinstance(hyps, Sequence):
        raise ValueError(f"hyps must be a list of Hypothesis, got {type(hyps).__name__}")
    for i, hyp in enumerate(hyps):
        if not isinstance(hyp, Hypothesis):
            raise ValueError(
                f"hyps[{i}] must be a Hypothesis (one per pair; for beam_search take [0]), "
                f"got {type(hyp).__name__}"
            )
    check_tensor("reference_log_probs", reference_log_probs, 1, wanted="(N,)", floating=True)
    if not len(hyps) == len(pairs) == len(reference_log_probs):
        raise ValueError(
            f"hyps, pairs and reference_log_probs must have one entry per sentence, got "
            f"{len(hyps)}, {len(pairs)} and {len(reference_log_probs)}"
        )
    correct = torch.tensor(
        [
            hyp.finished and tuple(data.tgt_vocab.decode(hyp.tokens)) == pair.tgt
            for hyp, pair in zip(hyps, pairs, strict=True)
        ],
        dtype=torch.bool,
    )
    scores = torch.tensor([hyp.score for hyp in hyps], dtype=torch.float64)  # (N,)
    search_error = ~correct & (reference_log_probs.double() > scores)
    return SearchErrors(correct, search_error, ~correct & ~search_error)


@dataclass(frozen=True)
class PairedComparison:
    """Two systems judged right or wrong on the same N items (two translation models' exact
    match on the same test sentences), compared item by item.

    Attributes:
        n: the number of items.
        both, only_a, only_b, neither: how many items both systems, only a, only b, neither
            get right (the four add up to n).
        difference: accuracy of a minus accuracy of b, (only_a - only_b) / n: only the items
            where the two disagree move it.
        interval: (low, high), the paired-bootstrap percentile interval of ``difference`` at
            level ``confidence``: how much the difference could change with another test set of
            the same size drawn from the same distribution. It says nothing about another
            training run (another seed) of either system.
        confidence: the level of ``interval`` (0.95).
        p_value: the exact two-sided sign test on the items where they disagree (McNemar's
            exact test): how likely a split of the disagreements at least this uneven is if
            both systems were equally good.

    Lecture 10.
    """

    n: int
    both: int
    only_a: int
    only_b: int
    neither: int
    difference: float
    interval: tuple[float, float]
    confidence: float
    p_value: float


def sign_test(only_a: int, only_b: int) -> float:
    """The exact two-sided sign test (McNemar's exact test) for two systems that disagree on
    ``only_a + only_b`` items, ``only_a`` of them won by system a: the probability, if each
    disagreement were a fair coin, of a split at least this uneven, either way:
    min(1, 2 * sum_{k <= min(only_a, only_b)} C(d, k) / 2^d); 1.0 when they never disagree.

    Lecture 10b.
    """
    check_non_negative_int("only_a", only_a)
    check_non_negative_int("only_b", only_b)
    disagree, fewer = only_a + only_b, min(only_a, only_b)
    if not disagree:
        return 1.0
    tail = sum(math.comb(disagree, k) for k in range(fewer + 1)) / 2**disagree
    return min(1.0, 2 * tail)


def paired_comparison(
    correct_a: torch.Tensor,
    correct_b: torch.Tensor,
    *,
    num_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedComparison:
    """Compare two systems scored on the same items: who gets which right, and how uncertain
    the difference in accuracy is from the test set's sampling alone.

    The paired bootstrap draws ``num_resamples`` test sets of n items with replacement from the
    n items (both systems' results move together, item by item), computes the difference in
    accuracy on each, and reports the central ``confidence`` share of those differences
    (percentiles, seeded: the same numbers on every run).

    Args:
        correct_a: (N,) bool, system a got item i right (``exact_match(model_a, pairs, data)``).
        correct_b: (N,) bool, system b on the same items in the same order.
        num_resamples: bootstrap test sets to draw.
        confidence: the level of the interval, in (0, 1).
        seed: the bootstrap's random seed.

    Returns:
        PairedComparison(n, both, only_a, only_b, neither, difference, interval, confidence,
        p_value).

    Lecture 10 (is the Transformer better than the RNN, or is it the test set?).
    """
    for name, value in (("correct_a", correct_a), ("correct_b", correct_b)):
        check_tensor(name, value, 1, wanted="(N,)", dtype=torch.bool, nonempty=True)
    if correct_a.shape != correct_b.shape:
        raise ValueError(
            f"correct_a and correct_b must score the same items, got shapes "
            f"{tuple(correct_a.shape)} and {tuple(correct_b.shape)}"
        )
    check_positive_int("num_resamples", num_resamples)
    confidence = check_range("confidence", confidence, 0, 1, low_open=True, high_open=True)
    generator = torch.Generator().manual_seed(check_seed(seed))
    a, b = correct_a.cpu(), correct_b.cpu()
    n = len(a)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    both, neither = int((a & b).sum()), int((~a & ~b).sum())
    per_item = a.long() - b.long()  # (N,): +1 only a right, -1 only b right, 0 otherwise
    sums = []
    for start in range(0, num_resamples, 1000):  # 1000 test sets at a time: (1000, N) indices
        rows = min(1000, num_resamples - start)
        draws = torch.randint(n, (rows, n), generator=generator)  # (rows, N) item indices
        sums.append(per_item[draws].sum(dim=1))  # (rows, N) -> (rows,)
    differences = torch.cat(sums).double() / n  # (num_resamples,)
    tails = torch.tensor([(1 - confidence) / 2, (1 + confidence) / 2], dtype=torch.float64)
    low, high = torch.quantile(differences, tails).tolist()
    p_value = sign_test(only_a, only_b)
    difference = (only_a - only_b) / n
    return PairedComparison(n, both, only_a, only_b, neither, difference, (low, high),
                            confidence, p_value)  # fmt: skip


@dataclass(frozen=True)
class AlignmentAccuracy:
    """How often a model's cross-attention puts its largest weight on the true source word.

    Attributes:
        accuracy: (L, H + 1): for each layer, each head and then the mean of the heads, the
            share of target words whose most attended source word is the one they translate.
            An RNN has one map: (1, 2), its map twice.
        offsets: (L, H, 2 * max_offset + 1) counts of (most attended - true source position),
            clamped to -max_offset .. max_offset: where a head looks instead.
        words: the number of target words counted (those with a true source word).

    Lecture 10.
    """

    accuracy: torch.Tensor
    offsets: torch.Tensor
    words: int


def alignment_accuracy(
    model: nn.Module,
    pairs: Sequence[Pair],
    data: TranslationData,
    *,
    batch_size: int = 100,
    max_offset: int = 5,
) -> AlignmentAccuracy:
    """Teacher-forced cross-attention of ``model`` on ``pairs``, against the true alignment.

    Args:
        model: the Transformer (every decoder layer's cross-attention, every head) or an RNN
            encoder-decoder with attention (``Seq2Seq``: its one map); put in eval mode.
        pairs: ``Pair`` s with their alignments (``p.align``: the source position each target
            word translates, -1 for none), e.g. ``default_data().test[:500]``.
        data: the ``TranslationData`` holding the vocabularies.
        batch_size: pairs per forward pass; max_offset: the clamp of ``offsets``.

    Returns:
        AlignmentAccuracy(accuracy, offsets, words).

    Lecture 10 (and 01: the RNN's alignment).
    """
    from lecturekit.models.transformer import Transformer

    _check_model(model, data)
    pairs = _check_pairs(pairs)
    if not pairs:
        raise ValueError("pairs is empty: expected at least one sentence pair")
    check_positive_int("batch_size", batch_size)
    check_positive_int("max_offset", max_offset)
    model.eval()
    hits = offsets = None
    words = 0
    for start in range(0, len(pairs), batch_size):  # in chunks: all maps at once are large
        chunk = pairs[start : start + batch_size]
        batch = collate(chunk, data.src_vocab, data.tgt_vocab)
        gold = torch.full(batch.tgt_in.shape, -1)  # (B, T): the true source word, -1 = none
        for i, p in enumerate(chunk):
            gold[i, : len(p.align)] = torch.tensor(p.align, dtype=torch.long)
        is_word = gold >= 0
        with torch.no_grad():
            if isinstance(model, Transformer):
                maps = model(batch.src, batch.tgt_in)[1].cross  # L x (B, H, T, S)
            else:
                weights = model(batch.src, batch.src_len, batch.tgt_in)[1]  # (B, T, S)
                if weights is None:
                    raise ValueError("model has no attention (a bottleneck decoder): nothing "
                                     "to compare with the alignment")  # fmt: skip
                maps = [weights[:, None]]  # one layer of one head: (B, 1, T, S)
        if hits is None:
            L, H = len(maps), maps[0].shape[1]
            hits = torch.zeros(L, H + 1)
            offsets = torch.zeros(L, H, 2 * max_offset + 1, dtype=torch.long)
        for layer, cross in enumerate(maps):
            both = torch.cat([cross, cross.mean(1, keepdim=True)], dim=1)  # (B, H + 1, T, S)
            right = (both.argmax(-1) == gold[:, None]) & is_word[:, None]  # (B, H + 1, T)
            hits[layer] += right.sum((0, 2))
            shift = (cross.argmax(-1) - gold[:, None]).clamp(-max_offset, max_offset)  # (B, H, T)
            for head in range(cross.shape[1]):
                counts = torch.bincount(shift[:, head][is_word] + max_offset,
                                        minlength=2 * max_offset + 1)  # fmt: skip
                offsets[layer, head] += counts
        words += int(is_word.sum())
    return AlignmentAccuracy(hits / max(words, 1), offsets, words)
