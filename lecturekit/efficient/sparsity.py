"""How sparse attention is, and how much of it an approximation keeps.

Public API::

    x, labels = clustered_sequence(n, dim, n_clusters, seed=0)  # toy data with sparse attention
    topk_mass_captured(full_weights, approx, k=None)      # (..., Tq): share of the k largest
    #   full-attention weights of each query that fall on keys the approximation attends to

Trained models' attention is sparse: each query puts most of its weight on a few keys. That is
what makes local and LSH attention (``lecturekit.efficient.local`` / ``.lsh``) good
approximations; ``clustered_sequence`` makes such data in code, ``topk_mass_captured`` measures
what an approximation keeps of it.

Lecture 11; Kitaev et al. 2020 section 2 (LSH attention).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lecturekit.utils.checks import check_positive_int, check_range, check_seed
from lecturekit.utils.contracts import contract

__all__ = ["clustered_sequence", "topk_mass_captured"]


@contract(full_weights="... Tq Tk", approx="any: ... Tq Tk")
def topk_mass_captured(
    full_weights: torch.Tensor, approx: torch.Tensor, k: int | None = None
) -> torch.Tensor:
    """For each query: of the full-attention weight on its ``k`` largest keys, the share that
    lands on keys the approximation attends to.

    1.0 means the approximation keeps every one of the query's k most important keys; with
    ``k=None`` every key counts, i.e. the full-attention mass inside the approximation's
    support (an approximation that attends to a fraction f of random keys keeps about f).

    Args:
        full_weights: (..., Tq, Tk) floating-point full attention weights (rows sum to 1).
        approx: (..., Tq, Tk) bool support (True = attended), or weights of any dtype
            (support = ``> 0``).
        k: keys per query to count, 1 <= k <= Tk; None = all.

    Returns:
        (..., Tq) values in [0, 1].

    Lecture 11; the quality measure for Kitaev et al. 2020 section 2 (LSH attention).
    """
    if approx.shape != full_weights.shape:  # gather below does not broadcast
        raise ValueError(f"approx must have the shape of full_weights {tuple(full_weights.shape)}, "
                         f"got {tuple(approx.shape)}")  # fmt: skip
    Tk = full_weights.shape[-1]
    if k is None:
        k = Tk
    check_positive_int("k", k)
    if k > Tk:
        raise ValueError(f"k={k} is larger than the number of keys Tk={Tk}")
    support = approx if approx.dtype == torch.bool else approx > 0
    top, idx = full_weights.topk(k, dim=-1)  # (..., Tq, k) the k largest weights per query
    kept = (top * support.gather(-1, idx)).sum(-1)  # (..., Tq)
    return kept / top.sum(-1).clamp_min(torch.finfo(top.dtype).tiny)


def clustered_sequence(
    n: int, dim: int, n_clusters: int, noise: float = 0.5, norm: float | None = None, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """A toy sequence whose attention is sparse, as in trained models: every position belongs
    to one of ``n_clusters`` random directions (uniformly at random, so related tokens are
    scattered over the sequence), plus noise; all vectors have length ``norm``.

    Args:
        n: sequence length.
        dim: vector dimension.
        n_clusters: number of directions; more than n is allowed (some clusters then have
            no position).
        noise: noise scale relative to the (unit) cluster direction (>= 0).
        norm: length of every vector (> 0); default 8 √dim (a query then puts most of its
            attention on its own cluster).
        seed: seed of the generator.

    Returns:
        x (n, dim) float32 and labels (n,) int64 (the cluster of each position).

    Lecture 11.
    """
    check_positive_int("n", n)
    check_positive_int("dim", dim)
    check_positive_int("n_clusters", n_clusters)
    check_seed(seed)
    check_range("noise", noise, 0)
    if norm is not None:
        check_range("norm", norm, 0, low_open=True)
    gen = torch.Generator().manual_seed(seed)
    centres = F.normalize(torch.randn(n_clusters, dim, generator=gen), dim=-1)
    labels = torch.randint(n_clusters, (n,), generator=gen)
    x = centres[labels] + noise * torch.randn(n, dim, generator=gen) / math.sqrt(dim)
    norm = 8 * math.sqrt(dim) if norm is None else norm
    return F.normalize(x, dim=-1) * norm, labels  # (n, dim), (n,)
