"""Word2vec's skip-gram with negative sampling (SGNS): one vector per word, learned from windows.

Skip-gram takes the middle word of a window and predicts each word around it. With negative
sampling the softmax over the whole vocabulary is replaced by k logistic regressions: the true
(centre, context) pair against k "noise" words drawn from the unigram distribution raised to
the power 3/4. Every word has two vectors, an input one (``v``, the word vector we keep) and an
output one (``u``, used when the word is a context); both are ``torch.nn.Embedding`` tables.

Public API::

    pairs = skipgram_pairs(ids, window=2)          # ids (T,) -> (N, 2) (centre, context) rows
    noise = noise_distribution(counts, power=0.75) # counts (V,) -> probabilities (V,)
    negatives = sample_negatives(noise, (B, k), generator)   # (B, k) word ids
    model = SkipGram(vocab_size, dim)              # .centre (V, D), .context (V, D) embeddings
    loss = model(centre, context, negatives)       # (B,), (B,), (B, k) -> scalar SGNS loss
    loss = sgns_loss(v_c, u_o, u_neg)              # the same from vectors (B, D), (B, D), (B, k, D)
    model.vectors                                  # (V, D): the word vectors (input embeddings)

Lecture 00; Mikolov et al. 2013 ("Distributed representations of words and phrases"), eq. 4.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.utils.checks import (
    check_instance,
    check_positive_int,
    check_range,
    check_tensor,
)

__all__ = ["skipgram_pairs", "noise_distribution", "sample_negatives", "sgns_loss", "SkipGram"]


def skipgram_pairs(ids: Sequence[int] | torch.Tensor, window: int = 2) -> torch.Tensor:
    """The (centre, context) pairs of one sentence: every word with every other word at most
    ``window`` positions away, centre by centre from the left, contexts left to right.

    Args:
        ids: (T,) word ids of one sentence (a list of ints or an integer tensor).
        window: how many words on each side count as context (>= 1).

    Returns:
        (N, 2) long tensor, rows (centre id, context id); N = sum over positions of the
        neighbours inside the sentence (for T >= 2 window + 1: 2 window T - window (window + 1)).

    Lecture 00; Mikolov et al. 2013a section 3.1 (skip-gram).
    """
    if not isinstance(ids, torch.Tensor):
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
            raise ValueError(f"ids must be a sequence of word ids (T,), got {type(ids).__name__}")
        ids = list(ids)
        bad = [i for i in ids if isinstance(i, bool) or not isinstance(i, numbers.Integral)]
        if bad:
            raise ValueError(f"ids must be integer word ids, got {bad[0]!r} "
                             f"({type(bad[0]).__name__}) in {ids!r:.60}")  # fmt: skip
        ids = torch.as_tensor(ids, dtype=torch.long)
    check_tensor("ids", ids, 1, wanted="(T,)", integer=ids.numel() > 0)
    if ids.numel() and int(ids.min()) < 0:
        raise ValueError(f"ids must be word ids >= 0, got {int(ids.min())}")
    check_positive_int("window", window)
    ids = ids.long()
    T = len(ids)
    rows = [(i, j) for i in range(T) for j in range(max(0, i - window), min(T, i + window + 1))
            if j != i]  # fmt: skip
    if not rows:
        return torch.empty(0, 2, dtype=torch.long)
    index = torch.tensor(rows)  # (N, 2) positions
    return ids[index]  # (N, 2) ids


def noise_distribution(counts: torch.Tensor, power: float = 0.75) -> torch.Tensor:
    """Word2vec's noise distribution P_n(w) ∝ count(w)^power (3/4 in the paper: rare words are
    drawn more often than their frequency, frequent ones less).

    Args:
        counts: (V,) non-negative word counts, not all zero.
        power: the exponent (0 = uniform over the words seen, 1 = the unigram distribution).

    Returns:
        (V,) probabilities summing to 1 (zero for words never seen).

    Lecture 00; Mikolov et al. 2013b section 2.2.
    """
    check_tensor("counts", counts, 1, wanted="(V,)", nonempty=True)
    check_range("power", power, 0, 1)
    counts = counts.double()
    if not torch.isfinite(counts).all() or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError("counts must be finite, non-negative and not all zero, got "
                         f"min {counts.min().item():g}, sum {counts.sum().item():g}")  # fmt: skip
    weights = torch.where(counts > 0, counts.pow(power), torch.zeros_like(counts))
    return (weights / weights.sum()).float()


def sample_negatives(
    noise: torch.Tensor, shape: tuple[int, int], generator: torch.Generator | None = None
) -> torch.Tensor:
    """Draw noise words: a (B, k) long tensor of ids from ``noise`` (V,), with replacement.

    Lecture 00; Mikolov et al. 2013b section 2.2.
    """
    check_tensor("noise", noise, 1, wanted="(V,)", floating=True, nonempty=True)
    if not torch.isfinite(noise).all() or (noise < 0).any() or noise.sum() <= 0:
        raise ValueError("noise must hold finite weights >= 0, not all zero (e.g. "
                         "noise_distribution(counts)), got min "
                         f"{noise.min().item():g}, sum {noise.sum().item():g}")  # fmt: skip
    if not (isinstance(shape, tuple) and len(shape) == 2):
        raise ValueError(f"shape must be a pair (B, k), got {shape!r}")
    B, k = (check_positive_int(f"shape[{i}]", s) for i, s in enumerate(shape))
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    draws = torch.multinomial(noise, B * k, replacement=True, generator=generator)
    return draws.view(B, k)  # (B * k,) -> (B, k)


def sgns_loss(centre: torch.Tensor, context: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
    """The negative-sampling loss, averaged over the batch:
    -log σ(u_o · v_c) - Σ_k log σ(-u_k · v_c).

    Args:
        centre: (B, D) input vectors v_c of the centre words.
        context: (B, D) output vectors u_o of the true context words.
        negatives: (B, k, D) output vectors u_k of the noise words.

    Returns:
        A scalar tensor.

    Lecture 00; Mikolov et al. 2013b eq. 4.
    """
    check_tensor("centre", centre, 2, wanted="(B, D)", floating=True)
    check_tensor("context", context, 2, wanted="(B, D)", floating=True)
    check_tensor("negatives", negatives, 3, wanted="(B, k, D)", floating=True)
    if context.shape != centre.shape or negatives.shape[::2] != centre.shape:
        raise ValueError(f"centre (B, D), context (B, D) and negatives (B, k, D) must agree, got "
                         f"{tuple(centre.shape)}, {tuple(context.shape)}, "
                         f"{tuple(negatives.shape)}")  # fmt: skip
    if len(centre) == 0:
        raise ValueError("centre, context and negatives must hold at least one pair (B >= 1): "
                         "the mean over B = 0 pairs is 0/0, got B = 0")  # fmt: skip
    positive = (centre * context).sum(-1)  # (B, D) -> (B,)
    negative = torch.einsum("bkd,bd->bk", negatives, centre)  # (B, k, D), (B, D) -> (B, k)
    loss = -F.logsigmoid(positive) - F.logsigmoid(-negative).sum(-1)  # (B,)
    return loss.mean()


class SkipGram(nn.Module):
    """Two embedding tables: ``centre`` (the word vectors v) and ``context`` (the output
    vectors u). Initialised as word2vec does: v uniform in ±0.5/D, u zero.

    Lecture 00; Mikolov et al. 2013b.
    """

    def __init__(self, vocab_size: int, dim: int):
        super().__init__()
        check_positive_int("vocab_size", vocab_size)
        check_positive_int("dim", dim)
        self.centre = nn.Embedding(vocab_size, dim)
        self.context = nn.Embedding(vocab_size, dim)
        with torch.no_grad():
            self.centre.weight.uniform_(-0.5 / dim, 0.5 / dim)
            self.context.weight.zero_()

    @property
    def vectors(self) -> torch.Tensor:
        """(V, D) the word vectors (the input embeddings), detached."""
        return self.centre.weight.detach()

    def forward(
        self, centre: torch.Tensor, context: torch.Tensor, negatives: torch.Tensor
    ) -> torch.Tensor:
        """centre (B,), context (B,) and negatives (B, k) word ids -> the scalar SGNS loss."""
        V = self.centre.num_embeddings
        for name, ids, ndim, want in (("centre", centre, 1, "(B,)"),
                                      ("context", context, 1, "(B,)"),
                                      ("negatives", negatives, 2, "(B, k)")):  # fmt: skip
            check_tensor(name, ids, ndim, wanted=want, integer=True)
            if ids.numel() and (ids.min() < 0 or ids.max() >= V):
                raise ValueError(f"{name} must hold word ids in 0..{V - 1}, got "
                                 f"{int(ids.min())}..{int(ids.max())}")  # fmt: skip
        if len(context) != len(centre) or len(negatives) != len(centre):
            raise ValueError(f"centre, context and negatives must have the same batch size, got "
                             f"{len(centre)}, {len(context)}, {len(negatives)}")  # fmt: skip
        return sgns_loss(self.centre(centre), self.context(context), self.context(negatives))
