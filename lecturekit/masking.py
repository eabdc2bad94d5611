"""Attention masks: padding, causal, and how a mask enters the softmax.

Convention (the whole package): a mask is a ``bool`` tensor, ``True`` = *may attend*.
Applying a mask adds the slides' matrix ``M`` to the scores before the softmax:
``M = 0`` where the mask is True and ``M = -inf`` where it is False, so masked keys get
exactly zero weight.

Public API::

    causal_mask(T)                          # (T, T) bool, True on and below the diagonal
    padding_mask(lengths, max_len)          # (B, max_len) bool, True at real tokens
    key_padding_mask(pad)                   # (B, Tk) -> (B, 1, 1, Tk), ready for (B, H, Tq, Tk)
    decoder_mask(lengths, max_len)          # (B, 1, T, T): causal AND padding
    combine_masks(*masks)                   # logical AND with broadcasting
    additive_mask(mask)                     # bool -> float M of 0 / -inf
    masked_softmax(scores, mask=None)       # softmax(scores + M), fully masked rows -> 0

Fully masked rows (a query that may attend to nothing, e.g. a length-0 sequence) have no
defined softmax (every entry is ``exp(-inf) / 0``). lecturekit defines their weights as all
zeros, so the attention output of such a row is the zero vector; this is also what
``torch.nn.functional.scaled_dot_product_attention`` returns (``torch.nn.MultiheadAttention``
returns NaN instead).

Lecture 06 (masking); Vaswani et al. 2017, section 3.2.3.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from lecturekit.utils.checks import check_positive_int

__all__ = [
    "causal_mask",
    "padding_mask",
    "key_padding_mask",
    "decoder_mask",
    "combine_masks",
    "additive_mask",
    "masked_softmax",
    "check_mask",
]


def causal_mask(T: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Mask that lets position t attend to positions 0..t only.

    Args:
        T: sequence length (> 0).
        device: where to create the mask.

    Returns:
        (T, T) bool, True on and below the diagonal (row = query, column = key).

    Lecture 06; Vaswani et al. section 3.2.3 (decoder self-attention).
    """
    check_positive_int("T", T)
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(
    lengths: Sequence[int] | torch.Tensor, max_len: int, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """Mask of real (non-padding) tokens in a right-padded batch.

    Args:
        lengths: (B,) true length of each sequence, each in 0..max_len.
        max_len: padded length T (> 0).
        device: where to create the mask.

    Returns:
        (B, max_len) bool, True at real tokens, False at padding.

    Lecture 06.
    """
    check_positive_int("max_len", max_len)
    lengths_t = torch.as_tensor(lengths, device=device)
    if lengths_t.ndim != 1:
        raise ValueError(f"lengths must be 1-D (B,), got shape {tuple(lengths_t.shape)}")
    if lengths_t.is_floating_point() or lengths_t.dtype == torch.bool:
        raise ValueError(f"lengths must hold integers, got dtype {lengths_t.dtype}")
    if lengths_t.numel() and (lengths_t.min() < 0 or lengths_t.max() > max_len):
        raise ValueError(f"lengths must lie in 0..max_len={max_len}, got {lengths_t.tolist()}")
    positions = torch.arange(max_len, device=lengths_t.device)
    return positions[None, :] < lengths_t[:, None]  # (B,1) vs (1,T) -> (B, T)


def key_padding_mask(pad: torch.Tensor) -> torch.Tensor:
    """Reshape a (B, Tk) padding mask so it broadcasts against scores (B, H, Tq, Tk).

    Every query may attend to every real key; padded keys get zero weight.

    Lecture 06.
    """
    if pad.ndim != 2:
        raise ValueError(f"pad must be (B, Tk), got shape {tuple(pad.shape)}")
    return pad[:, None, None, :]  # (B, Tk) -> (B, 1, 1, Tk)


def combine_masks(*masks: torch.Tensor) -> torch.Tensor:
    """Logical AND of bool masks, with broadcasting: a key is allowed only if every mask allows it.

    Lecture 06 (the decoder combines the causal and the padding mask).
    """
    if not masks:
        raise ValueError("combine_masks needs at least one mask")
    for i, m in enumerate(masks):
        if m.dtype != torch.bool:
            raise ValueError(f"masks[{i}] must be bool (True = may attend), got dtype {m.dtype}")
    try:
        shape = torch.broadcast_shapes(*(m.shape for m in masks))
    except RuntimeError:
        shapes = ", ".join(str(tuple(m.shape)) for m in masks)
        raise ValueError(f"masks of shapes {shapes} cannot be broadcast together") from None
    out = torch.ones(shape, dtype=torch.bool, device=masks[0].device)
    for m in masks:
        out = out & m
    return out


def decoder_mask(
    lengths: Sequence[int] | torch.Tensor, max_len: int, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """Decoder self-attention mask: causal AND padding.

    Returns:
        (B, 1, T, T) bool with T = max_len; broadcasts over heads.

    Lecture 06.
    """
    pad = key_padding_mask(padding_mask(lengths, max_len, device=device))  # (B, 1, 1, T)
    return combine_masks(causal_mask(max_len, device=device), pad)  # -> (B, 1, T, T)


def check_mask(mask: torch.Tensor, scores_shape: torch.Size | tuple[int, ...]) -> None:
    """Raise ValueError unless ``mask`` is bool and broadcasts to ``scores_shape``.

    Lecture 06.
    """
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"mask must be a bool torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise ValueError(
            f"mask must be bool (True = may attend), got dtype {mask.dtype}; "
            "build it with causal_mask/padding_mask, or convert with mask.bool()"
        )
    target = tuple(scores_shape)
    try:
        shape = torch.broadcast_shapes(mask.shape, target)
    except RuntimeError:
        shape = None
    if shape != torch.Size(target):
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} is not broadcastable to the attention "
            f"scores' shape {target} (..., Tq, Tk)"
        )


def additive_mask(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The slides' M: 0 where the mask is True, -inf where it is False.

    Lecture 06; softmax((QK^T + M) / sqrt(d_k)).
    """
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool (True = may attend), got dtype {mask.dtype}")
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last dimension after adding M (0 / -inf) from ``mask``.

    Masked keys get exactly 0 weight. A row whose keys are all masked gets all-zero weights
    (not NaN); see the module docstring.

    Args:
        scores: (..., Tq, Tk) float scores.
        mask: bool, broadcastable to scores, True = may attend; None = no mask.

    Returns:
        (..., Tq, Tk) weights; each row sums to 1, or to 0 if it is fully masked.

    Lecture 06.
    """
    if mask is None:
        return torch.softmax(scores, dim=-1)
    check_mask(mask, scores.shape)
    scores = scores + additive_mask(mask, scores.dtype)  # the slides' QK^T + M
    # A fully masked row would be softmax([-inf, ..., -inf]) = 0/0 = NaN (and NaN gradients
    # for Q and K). Give such rows finite scores, then define their weights as zeros.
    empty = ~mask.any(dim=-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1)
    return weights.masked_fill(empty, 0.0)
