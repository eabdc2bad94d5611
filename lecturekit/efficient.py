"""Restricted (local) self-attention; how well a sparse pattern approximates full attention.

Public API::

    band_mask(T, window, causal=False)                    # (T, T) bool: |i - j| <= window
    out, weights = local_attention(q, k, v, window)       # full attention with the band mask
    #   q, k (..., T, Dk), v (..., T, Dv); weights (..., T, T), O(T²) memory like full attention
    out, band = chunked_local_attention(q, k, v, window, chunk_size=None)
    #   the same output computed chunk by chunk in O(T · (chunk_size + 2 window)) memory;
    #   band (..., T, 2 window + 1): band[..., i, o] = weight of key i - window + o
    band_to_dense(band, window, causal=False)             # (..., T, W) -> (..., T, T)
    topk_mass_captured(full_weights, approx, k=None)      # (..., Tq): share of the k largest
    #   full-attention weights of each query that fall on keys the approximation attends to
    x, labels = clustered_sequence(n, dim, n_clusters, seed=0)  # toy data with sparse attention

Query i attends to the keys j with ``i - window <= j <= i + window`` (``causal=True``: with
``i - window <= j <= i``), a neighbourhood of r = 2 window + 1 (causal: window + 1) keys, the
"self-attention (restricted)" row of Vaswani et al. 2017 Table 1: O(r·n·d) per layer.

Lecture 11; Vaswani et al. 2017 Table 1 and section 4.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lecturekit._checks import check_positive_int
from lecturekit.attention import scaled_dot_product_attention
from lecturekit.masking import masked_softmax

__all__ = [
    "band_mask",
    "local_attention",
    "chunked_local_attention",
    "band_to_dense",
    "topk_mass_captured",
    "clustered_sequence",
]


def _check_window(window: object) -> int:
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ValueError(f"window must be a non-negative integer, got {window!r}")
    return window


def _check_qkv(q: object, k: object, v: object) -> None:
    """q, k (..., T, Dk) and v (..., T, Dv) of one sequence (self-attention: one T)."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, torch.Tensor) or x.ndim < 2:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"{name} must be a tensor of shape (..., T, D), got {shape}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(
            "q and k must have the same shape (..., T, Dk): "
            f"q {tuple(q.shape)} vs k {tuple(k.shape)}"
        )
    if v.shape[:-1] != k.shape[:-1]:
        raise ValueError(
            f"v must be (..., T, Dv) with the batch dims and T of k: k {tuple(k.shape)} vs "
            f"v {tuple(v.shape)}"
        )


def band_mask(
    T: int, window: int, causal: bool = False, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """The mask of restricted self-attention: query i may attend to key j iff
    ``i - window <= j <= i + window`` (``causal``: ``i - window <= j <= i``).

    Args:
        T: sequence length.
        window: how many neighbours on each side (0 = only the token itself).
        causal: look only backwards.
        device: where to create the mask.

    Returns:
        (T, T) bool, True = may attend (a band around the diagonal).

    Lecture 11; Vaswani et al. 2017 Table 1 (restricted self-attention).
    """
    check_positive_int("T", T)
    _check_window(window)
    i = torch.arange(T, device=device)[:, None]  # (T, 1) query positions
    j = torch.arange(T, device=device)[None, :]  # (1, T) key positions
    return (j >= i - window) & (j <= i + (0 if causal else window))  # (T, T)


def local_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int, causal: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Restricted self-attention as full attention with a band mask: easy, but it still builds
    the whole (T, T) score matrix, so time and memory stay O(T²).

    Args:
        q: (..., T, Dk) queries; k: (..., T, Dk) keys; v: (..., T, Dv) values.
        window: neighbours on each side (see ``band_mask``).
        causal: look only backwards.

    Returns:
        out (..., T, Dv) and weights (..., T, T), zero outside the band.

    Lecture 11; Vaswani et al. 2017 Table 1.
    """
    _check_qkv(q, k, v)
    _check_window(window)
    return scaled_dot_product_attention(q, k, v, band_mask(q.shape[-2], window, causal))


def chunked_local_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    window: int,
    causal: bool = False,
    chunk_size: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Restricted self-attention without the (T, T) matrix: the queries are cut into chunks of
    ``chunk_size``; a chunk needs only the keys from ``window`` before its first query to
    ``window`` after its last one (``chunk_size + 2 window`` keys), so the scores take
    O(T · (chunk_size + 2 window)) memory and time instead of O(T²). The result equals
    ``local_attention`` (up to float rounding).

    Args:
        q: (..., T, Dk) queries; k: (..., T, Dk) keys; v: (..., T, Dv) values.
        window: neighbours on each side.
        causal: look only backwards.
        chunk_size: queries per chunk; default ``max(window, 1)``.

    Returns:
        out (..., T, Dv) and band (..., T, W) with W = 2 window + 1 (causal: window + 1):
        ``band[..., i, o]`` is the weight of key ``i - window + o`` (0 outside the sequence).
        ``band_to_dense`` turns it into the (..., T, T) matrix.

    Lecture 11; Vaswani et al. 2017 Table 1 (O(r·n·d)).
    """
    _check_qkv(q, k, v)
    _check_window(window)
    c = max(window, 1) if chunk_size is None else chunk_size
    check_positive_int("chunk_size", c)
    T, Dk = q.shape[-2], q.shape[-1]
    left, right = window, 0 if causal else window
    n_chunks = math.ceil(T / c)
    pad = n_chunks * c - T
    span = c + left + right  # keys one chunk of queries can see
    qc = F.pad(q, (0, 0, 0, pad)).unflatten(-2, (n_chunks, c))  # (..., T, Dk) -> (..., N, c, Dk)
    k_pad = F.pad(k, (0, 0, left, pad + right))  # (..., left + N c + right, Dk)
    v_pad = F.pad(v, (0, 0, left, pad + right))
    kc = k_pad.unfold(-2, span, c).transpose(-1, -2)  # -> (..., N, Dk, span) -> (..., N, span, Dk)
    vc = v_pad.unfold(-2, span, c).transpose(-1, -2)  # -> (..., N, span, Dv)
    scores = qc @ kc.transpose(-1, -2) / math.sqrt(Dk)  # (..., N, c, Dk) @ (..., N, Dk, span)
    # Query a * c + i sees key a * c - left + j: allowed if the offset j - left - i is in the
    # window and the key is inside the sequence (not padding).
    i = torch.arange(c)[:, None]
    j = torch.arange(span)[None, :]
    offset = j - left - i  # (c, span)
    key_pos = torch.arange(n_chunks)[:, None, None] * c - left + j  # (N, 1, span)
    mask = (offset >= -left) & (offset <= right) & (key_pos >= 0) & (key_pos < T)  # (N, c, span)
    weights = masked_softmax(scores, mask)  # (..., N, c, span)
    out = (weights @ vc).flatten(-3, -2)[..., :T, :]  # (..., N, c, Dv) -> (..., N c, Dv) -> T
    # The band of query i starts at key i - left, which is column i in its chunk's span.
    idx = torch.arange(c)[:, None] + torch.arange(left + right + 1)[None, :]  # (c, W)
    band = weights.gather(-1, idx.expand(*weights.shape[:-1], left + right + 1))  # (..., N, c, W)
    return out, band.flatten(-3, -2)[..., :T, :]  # (..., N, c, W) -> (..., T, W)


def band_to_dense(band: torch.Tensor, window: int, causal: bool = False) -> torch.Tensor:
    """Put band weights (..., T, W) back into a dense (..., T, T) matrix (for plots and tests).

    Args:
        band: (..., T, W) as returned by ``chunked_local_attention``; W = 2 window + 1
            (causal: window + 1).
        window: the window it was computed with.
        causal: whether it was causal.

    Returns:
        (..., T, T) with ``dense[..., i, i - window + o] = band[..., i, o]``.

    Lecture 11.
    """
    _check_window(window)
    width = window + 1 + (0 if causal else window)
    if not isinstance(band, torch.Tensor) or band.ndim < 2 or band.shape[-1] != width:
        shape = tuple(band.shape) if isinstance(band, torch.Tensor) else type(band).__name__
        raise ValueError(f"band must be (..., T, {width}) for window={window}, got {shape}")
    T = band.shape[-2]
    padded = band.new_zeros(*band.shape[:-1], T + width - 1)  # (..., T, window + T + right)
    idx = torch.arange(T)[:, None] + torch.arange(width)[None, :]  # (T, W): padded column
    padded.scatter_(-1, idx.expand(band.shape), band)
    return padded[..., window : window + T]  # (..., T, T + W - 1) -> (..., T, T)


def topk_mass_captured(
    full_weights: torch.Tensor, approx: torch.Tensor, k: int | None = None
) -> torch.Tensor:
    """For each query: of the full-attention weight on its ``k`` largest keys, the share that
    lands on keys the approximation attends to.

    1.0 means the approximation keeps every one of the query's k most important keys; with
    ``k=None`` every key counts, i.e. the full-attention mass inside the approximation's
    support (an approximation that attends to a fraction f of random keys keeps about f).

    Args:
        full_weights: (..., Tq, Tk) full attention weights (rows sum to 1).
        approx: (..., Tq, Tk) bool support (True = attended), or weights (support = ``> 0``).
        k: keys per query to count, 1 <= k <= Tk; None = all.

    Returns:
        (..., Tq) values in [0, 1].

    Lecture 11; the quality measure for Kitaev et al. 2020 section 2 (LSH attention).
    """
    for name, x in (("full_weights", full_weights), ("approx", approx)):
        if not isinstance(x, torch.Tensor) or x.ndim < 2:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"{name} must be a tensor of shape (..., Tq, Tk), got {shape}")
    if approx.shape != full_weights.shape:
        raise ValueError(
            f"approx must have the shape of full_weights {tuple(full_weights.shape)}, got "
            f"{tuple(approx.shape)}"
        )
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
        n_clusters: number of directions.
        noise: noise scale relative to the (unit) cluster direction.
        norm: length of every vector; default 8 √dim (a query then puts most of its
            attention on its own cluster).
        seed: seed of the generator.

    Returns:
        x (n, dim) float32 and labels (n,) int64 (the cluster of each position).

    Lecture 11.
    """
    check_positive_int("n", n)
    check_positive_int("dim", dim)
    check_positive_int("n_clusters", n_clusters)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    gen = torch.Generator().manual_seed(seed)
    centres = F.normalize(torch.randn(n_clusters, dim, generator=gen), dim=-1)
    labels = torch.randint(n_clusters, (n,), generator=gen)
    x = centres[labels] + noise * torch.randn(n, dim, generator=gen) / math.sqrt(dim)
    norm = 8 * math.sqrt(dim) if norm is None else norm
    return F.normalize(x, dim=-1) * norm, labels  # (n, dim), (n,)
