"""Measurements the lectures make on seeded random data and on the shipped models.

Notebooks and slide figures call the same functions, so they show the same numbers.

Public API::

    J = softmax_jacobian(a)                      # a (..., n) -> J = diag(a) - a aᵀ (..., n, n)
    v = dot_product_variance(dims, num_samples=10_000, seed=0)
    #   v.raw[i] = Var(q·k), v.scaled[i] = Var(q·k / √d_k) for d_k = dims[i]
    s = softmax_saturation(dims, num_keys=8, num_draws=2_000, seed=1)
    #   s.max_weight_raw / _scaled: mean largest softmax weight; s.jacobian_raw / _scaled: mean
    #   ‖J‖_F; s.jacobian_raw_median: median ‖J‖_F, unscaled
    f = attention_vs_recurrence_flops(ns, d=64)
    #   FLOPs of one layer (torch.utils.flop_counter): f.attention (MultiHeadAttention),
    #   f.attention_pairwise (its QKᵀ and AV part), f.gru, f.rnn (torch.nn.GRU / RNN)

Every function seeds its own generator and leaves the global random state alone.

The translation models' measurements (exact match by sentence length) are in
``lecturekit.experiments.translation``.

Lectures 03, 04; Vaswani et al. 2017 section 3.2.1 (footnote 4) and Table 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.efficient.cost import count_flops
from lecturekit.utils.checks import (
    check_positive_int,
    check_positive_ints,
    check_seed,
    check_tensor,
)

__all__ = [
    "softmax_jacobian",
    "DotProductVariance",
    "dot_product_variance",
    "SoftmaxSaturation",
    "softmax_saturation",
    "LayerFlops",
    "attention_vs_recurrence_flops",
]


def softmax_jacobian(a: torch.Tensor) -> torch.Tensor:
    """The Jacobian of the softmax at its output a: J[i, j] = ∂a_i/∂s_j = a_i (δ_ij − a_j).

    Args:
        a: (..., n) floating-point softmax outputs (each row a distribution); any number of
            leading dims: a (B, n) batch of distributions gives (B, n, n).

    Returns:
        J = diag(a) − a aᵀ, shape (..., n, n).

    Lecture 03; the softmax gradient behind Vaswani et al. 2017 section 3.2.1.
    """
    check_tensor("a", a, min_ndim=1, wanted="(..., n)", floating=True)
    return torch.diag_embed(a) - a[..., :, None] * a[..., None, :]  # (..., n) -> (..., n, n)


@dataclass(frozen=True)
class DotProductVariance:
    """Measured variances of q·k for random q, k with N(0, 1) entries, one entry per d_k."""

    dims: tuple[int, ...]
    raw: tuple[float, ...]  # Var(q·k), theory d_k
    scaled: tuple[float, ...]  # Var(q·k / √d_k), theory 1


def dot_product_variance(
    dims: Sequence[int], num_samples: int = 10_000, seed: int = 0
) -> DotProductVariance:
    """Var(q·k) and Var(q·k / √d_k) over ``num_samples`` random pairs for each d_k in ``dims``.

    q and k have independent N(0, 1) entries (float64, one generator seeded with ``seed``,
    drawn q then k for each d_k in order), so Var(q·k) = d_k in theory.

    Args:
        dims: the sizes d_k to measure, e.g. [4, 16, 64, 256, 1024].
        num_samples: pairs (q, k) per d_k (at least 2).
        seed: seed of the generator.

    Returns:
        DotProductVariance(dims, raw, scaled), one value per d_k.

    Lecture 03; Vaswani et al. 2017 section 3.2.1, footnote 4.
    """
    dims = check_positive_ints("dims", dims)
    check_positive_int("num_samples", num_samples)
    if num_samples < 2:
        raise ValueError(f"num_samples must be at least 2 for a variance, got {num_samples}")
    check_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    raw, scaled = [], []
    for d in dims:
        q = torch.randn(num_samples, d, generator=gen, dtype=torch.float64)
        k = torch.randn(num_samples, d, generator=gen, dtype=torch.float64)
        dots = torch.einsum("nd,nd->n", q, k)  # (N, d), (N, d) -> (N,) one dot product per pair
        raw.append(dots.var().item())
        scaled.append((dots / math.sqrt(d)).var().item())
    return DotProductVariance(dims, tuple(raw), tuple(scaled))


@dataclass(frozen=True)
class SoftmaxSaturation:
    """How one-hot the softmax of q·k gets as d_k grows, unscaled and scaled by 1/√d_k."""

    dims: tuple[int, ...]
    num_keys: int
    max_weight_raw: tuple[float, ...]  # mean largest weight of softmax(q·k)
    max_weight_scaled: tuple[float, ...]  # ... of softmax(q·k / √d_k)
    jacobian_raw: tuple[float, ...]  # mean ‖J‖_F of the softmax Jacobian, unscaled
    jacobian_scaled: tuple[float, ...]  # mean ‖J‖_F, scaled
    jacobian_raw_median: tuple[float, ...]  # median ‖J‖_F, unscaled (the typical draw)


def softmax_saturation(
    dims: Sequence[int], num_keys: int = 8, num_draws: int = 2_000, seed: int = 1
) -> SoftmaxSaturation:
    """Softmax of one query against ``num_keys`` keys, all N(0, 1), for each d_k in ``dims``.

    For each d_k, ``num_draws`` independent draws of a query (1, d_k) and keys (num_keys, d_k)
    (float64, one generator seeded with ``seed``, query then keys for each d_k in order). The
    scores q·k_j go through a softmax unscaled and divided by √d_k; reported are the mean
    largest weight (1 = one-hot, 1/num_keys = uniform) and the mean (and, unscaled, median)
    Frobenius norm of the softmax Jacobian J = diag(a) − a aᵀ: near 0, no gradient flows.

    Args:
        dims: the sizes d_k to measure.
        num_keys: keys per query (at least 2).
        num_draws: random draws per d_k.
        seed: seed of the generator.

    Returns:
        SoftmaxSaturation, one value per d_k in each field.

    Lecture 03; Vaswani et al. 2017 section 3.2.1.
    """
    dims = check_positive_ints("dims", dims)
    check_positive_int("num_keys", num_keys)
    if num_keys < 2:
        raise ValueError(f"num_keys must be at least 2 (one key is always one-hot), got {num_keys}")
    check_positive_int("num_draws", num_draws)
    check_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    out: dict[str, list[float]] = {k: [] for k in ("max_raw", "max_scaled", "J_raw", "J_scaled")}
    median: list[float] = []
    for d in dims:
        q = torch.randn(num_draws, 1, d, generator=gen, dtype=torch.float64)  # a query per draw
        K = torch.randn(num_draws, num_keys, d, generator=gen, dtype=torch.float64)
        s = (K @ q.transpose(1, 2)).squeeze(-1)  # (N, n, d) @ (N, d, 1) -> (N, n, 1) -> (N, n)
        for tag, a in (
            ("raw", torch.softmax(s, dim=-1)),
            ("scaled", torch.softmax(s / math.sqrt(d), dim=-1)),
        ):
            J_norm = softmax_jacobian(a).flatten(1).norm(dim=-1)  # (N, n, n) -> (N, n*n) -> (N,)
            out[f"max_{tag}"].append(a.max(dim=-1).values.mean().item())
            out[f"J_{tag}"].append(J_norm.mean().item())
            if tag == "raw":
                median.append(J_norm.median().item())
    return SoftmaxSaturation(
        dims,
        num_keys,
        tuple(out["max_raw"]),
        tuple(out["max_scaled"]),
        tuple(out["J_raw"]),
        tuple(out["J_scaled"]),
        tuple(median),
    )


@dataclass(frozen=True)
class LayerFlops:
    """FLOPs (2 per multiply-add, matrix products only) of one layer on one sequence."""

    ns: tuple[int, ...]
    d: int
    attention: tuple[int, ...]  # MultiHeadAttention(d, num_heads): 8 n d² + 4 n² d
    attention_pairwise: tuple[int, ...]  # its QKᵀ and AV products: 4 n² d
    gru: tuple[int, ...]  # torch.nn.GRU(d, d): 12 n d²
    rnn: tuple[int, ...]  # torch.nn.RNN(d, d) (tanh): 4 n d²


def attention_vs_recurrence_flops(
    ns: Sequence[int], d: int = 64, num_heads: int = 1, seed: int = 0
) -> LayerFlops:
    """Count the FLOPs of one self-attention layer and one recurrent layer for each length n.

    Runs ``lecturekit.attention.MultiHeadAttention(d, num_heads)`` (self-attention, with its
    four projections), ``torch.nn.GRU(d, d)`` and ``torch.nn.RNN(d, d)`` on one sequence
    (1, n, d) under ``torch.utils.flop_counter.FlopCounterMode``, which counts the matrix
    products that actually run (2 FLOPs per multiply-add; softmax and element-wise operations
    are not counted). Unlike timings, the counts are exact and the same on every machine.
    Self-attention costs 8nd² (projections) + 4n²d (QKᵀ and AV), the GRU 12nd² (three gates),
    so the two cross at n = d; the pairwise part 4n²d crosses the RNN's 4nd² at n = d too.

    Args:
        ns: sequence lengths n.
        d: model width (d_model = GRU hidden size).
        num_heads: heads of the attention layer (must divide d; does not change the count).
        seed: seeds the layers' initial weights and the input (the global RNG is untouched).

    Returns:
        LayerFlops(ns, d, attention, attention_pairwise, gru, rnn), one count per n.

    Lecture 04; Vaswani et al. 2017 Table 1 (complexity per layer).
    """
    ns = check_positive_ints("ns", ns)
    check_positive_int("d", d)
    check_positive_int("num_heads", num_heads)
    if d % num_heads:
        raise ValueError(f"d={d} is not divisible by num_heads={num_heads}")
    check_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attention = MultiHeadAttention(d, num_heads).eval()
        gru = nn.GRU(d, d, batch_first=True).eval()
        rnn = nn.RNN(d, d, batch_first=True).eval()
    gen = torch.Generator().manual_seed(seed)
    counts: dict[str, list[int]] = {"attention": [], "pairwise": [], "gru": [], "rnn": []}
    for n in ns:
        x = torch.randn(1, n, d, generator=gen)  # (B, T, D) with B = 1
        total, pairwise = count_flops(lambda x=x: attention(x, x, x))
        counts["attention"].append(total)
        counts["pairwise"].append(pairwise)
        counts["gru"].append(count_flops(lambda x=x: gru(x)).total)
        counts["rnn"].append(count_flops(lambda x=x: rnn(x)).total)
    return LayerFlops(
        ns,
        d,
        tuple(counts["attention"]),
        tuple(counts["pairwise"]),
        tuple(counts["gru"]),
        tuple(counts["rnn"]),
    )
