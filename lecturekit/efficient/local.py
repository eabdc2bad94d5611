"""Restricted (local) self-attention: a band around the diagonal, as a mask and chunk by chunk.

Public API::

    band_mask(T, window, causal=False)                    # (T, T) bool: |i - j| <= window
    out, weights = local_attention(q, k, v, window)       # full attention with the band mask
    #   q, k (..., T, Dk), v (..., T, Dv); weights (..., T, T), O(T²) memory like full attention
    out, band = chunked_local_attention(q, k, v, window, chunk_size=None)
    #   the same output computed chunk by chunk in O(T · (chunk_size + 2 window)) memory;
    #   band (..., T, 2 window + 1): band[..., i, o] = weight of key i - window + o
    band_to_dense(band, window, causal=False)             # (..., T, W) -> (..., T, T)

Query i attends to the keys j with ``i - window <= j <= i + window`` (``causal=True``: with
``i - window <= j <= i``), a neighbourhood of r = 2 window + 1 (causal: window + 1) keys, the
"self-attention (restricted)" row of Vaswani et al. 2017 Table 1: O(r·n·d) per layer.

Lecture 11; Vaswani et al. 2017 Table 1 and section 4.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.masking import masked_softmax
from lecturekit.utils.checks import check_bool, check_non_negative_int, check_positive_int, shape_of
from lecturekit.utils.contracts import contract

__all__ = ["band_mask", "local_attention", "chunked_local_attention", "band_to_dense"]


def band_mask(
    T: int, window: int, causal: bool = False, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """The mask of restricted self-attention: query i may attend to key j iff
    ``i - window <= j <= i + window`` (``causal``: ``i - window <= j <= i``).

    Args:
        T: sequence length (T = 0, an empty sequence, gives an empty (0, 0) mask).
        window: how many neighbours on each side (0 = only the token itself; a window of
            T - 1 or more allows every key: full attention).
        causal: look only backwards.
        device: where to create the mask.

    Returns:
        (T, T) bool, True = may attend (a band around the diagonal).

    Lecture 11; Vaswani et al. 2017 Table 1 (restricted self-attention).
    """
    check_non_negative_int("T", T)
    check_non_negative_int("window", window)
    check_bool("causal", causal)
    i = torch.arange(T, device=device)[:, None]  # (T, 1) query positions
    j = torch.arange(T, device=device)[None, :]  # (1, T) key positions
    return (j >= i - window) & (j <= i + (0 if causal else window))  # (T, T)


@contract(q="... T Dk", k="... T Dk", v="... T Dv", dtype="same")
def local_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int, causal: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Restricted self-attention as full attention with a band mask: easy, but it still builds
    the whole (T, T) score matrix, so time and memory stay O(T²).

    Args:
        q: (..., T, Dk) queries; k: (..., T, Dk) keys; v: (..., T, Dv) values; floating
            point, all of one dtype (float32 or float64).
        window: neighbours on each side (see ``band_mask``); a window of T - 1 or more is
            full attention.
        causal: look only backwards.

    Returns:
        out (..., T, Dv) and weights (..., T, T), zero outside the band. An empty sequence
        (T = 0) gives empty results: out (..., 0, Dv), weights (..., 0, 0).

    Lecture 11; Vaswani et al. 2017 Table 1.
    """
    check_non_negative_int("window", window)
    check_bool("causal", causal)
    return scaled_dot_product_attention(q, k, v, band_mask(q.shape[-2], window, causal))


@contract(q="... T Dk", k="... T Dk", v="... T Dv", dtype="same")
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
        q: (..., T, Dk) queries; k: (..., T, Dk) keys; v: (..., T, Dv) values; floating
            point, all of one dtype.
        window: neighbours on each side (a window of T - 1 or more is full attention).
        causal: look only backwards.
        chunk_size: queries per chunk; default ``max(window, 1)``; need not divide T (the
            last chunk is padded), and may exceed it.

    Returns:
        out (..., T, Dv) and band (..., T, W) with W = 2 window + 1 (causal: window + 1):
        ``band[..., i, o]`` is the weight of key ``i - window + o`` (0 outside the sequence).
        ``band_to_dense`` turns it into the (..., T, T) matrix. An empty sequence (T = 0)
        gives out (..., 0, Dv) and band (..., 0, W).

    Lecture 11; Vaswani et al. 2017 Table 1 (O(r·n·d)).
    """
    check_non_negative_int("window", window)
    check_bool("causal", causal)
    c = max(window, 1) if chunk_size is None else chunk_size
    check_positive_int("chunk_size", c)
    T, Dk = q.shape[-2], q.shape[-1]
    left, right = window, 0 if causal else window
    if T == 0:  # an empty sequence: nothing to attend, empty results
        batch = q.shape[:-2]
        return v.new_zeros(*batch, 0, v.shape[-1]), q.new_zeros(*batch, 0, left + right + 1)
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
        band: (..., T, W) tensor as returned by ``chunked_local_attention``; W = 2 window + 1
            (causal: window + 1).
        window: the window it was computed with.
        causal: whether it was causal.

    Returns:
        (..., T, T) with ``dense[..., i, i - window + o] = band[..., i, o]``.

    Lecture 11.
    """
    check_non_negative_int("window", window)
    check_bool("causal", causal)
    width = window + 1 + (0 if causal else window)
    if not isinstance(band, torch.Tensor) or band.ndim < 2 or band.shape[-1] != width:
        hint = " (convert with torch.as_tensor)" if isinstance(band, (list, tuple)) else ""
        raise ValueError(
            f"band must be (..., T, {width}) for window={window}, got {shape_of(band)}{hint}"
        )
    T = band.shape[-2]
    padded = band.new_zeros(*band.shape[:-1], T + width - 1)  # (..., T, window + T + right)
    idx = torch.arange(T)[:, None] + torch.arange(width)[None, :]  # (T, W): padded column
    padded.scatter_(-1, idx.expand(band.shape), band)
    return padded[..., window : window + T]  # (..., T, T + W - 1) -> (..., T, T)
