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
from lecturekit.utils.checks import (
    check_instance,
    check_positive_int,
    check_positive_ints,
    check_strings,
)

__all__ = ["translate", "exact_match", "LengthAccuracy", "exact_match_by_length"]


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
        LengthAccuracy(labels, bin_starts, counts, exact_match).

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
    return LengthAccuracy(labels, starts, counts, accuracy)
