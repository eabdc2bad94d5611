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
    check_mask(mask, scores_shape, name="mask")  # bool, broadcastable, else ValueError
    past_unchanged(fn, x, other)            # (T,) bool: outputs at 0..t kept when x[t+1:] changes

Fully masked rows (a query that may attend to nothing, e.g. a length-0 sequence) have no
defined softmax (every entry is ``exp(-inf) / 0``). lecturekit defines their weights as all
zeros, so the attention output of such a row is the zero vector; this is also what
``torch.nn.functional.scaled_dot_product_attention`` returns (``torch.nn.MultiheadAttention``
returns NaN instead).

Other conventions, and how to convert them to lecturekit's (every function taking a mask
rejects a non-bool one with these hints):

- an additive float mask of 0 (attend) / -inf (blocked), as torch's float ``attn_mask``:
  ``mask == 0`` (``mask.bool()`` would invert it: -inf is nonzero, so True);
- a 0/1 float or int mask with 1 = keep (Hugging Face's ``attention_mask``): ``mask.bool()``
  (or ``mask == 1``);
- torch.nn.MultiheadAttention's bool ``attn_mask`` / ``key_padding_mask`` mean the opposite,
  True = may NOT attend: ``~mask``. (A bool mask cannot tell which convention it follows:
  this one is up to you.)

Sizes: the builders need T >= 1, but a sequence of length 0 inside a batch is legitimate
(``padding_mask([3, 0], 3)``: its row is fully masked). Empty scores (Tq = 0 or Tk = 0) are
legitimate too: ``masked_softmax`` returns empty weights.

Lecture 06 (masking); Vaswani et al. 2017, section 3.2.3.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from lecturekit.utils.checks import check_callable, check_positive_int, check_tensor, shape_of
from lecturekit.utils.contracts import contract

__all__ = [
    "causal_mask",
    "padding_mask",
    "key_padding_mask",
    "decoder_mask",
    "combine_masks",
    "additive_mask",
    "masked_softmax",
    "check_mask",
    "past_unchanged",
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
        lengths: (B,) true length of each sequence, each in 0..max_len: a list of ints, a 1-D
            integer tensor or numpy array. A length of 0 is legitimate (an all-False row).
        max_len: padded length T (> 0).
        device: where to create the mask.

    Returns:
        (B, max_len) bool, True at real tokens, False at padding.

    Lecture 06.
    """
    check_positive_int("max_len", max_len)
    if isinstance(lengths, (str, bytes)):
        raise ValueError(f"lengths must be a list or 1-D tensor of ints, got {lengths!r}")
    try:
        lengths_t = torch.as_tensor(lengths, device=device)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(
            f"lengths must be a list or 1-D tensor of ints, got {type(lengths).__name__}"
        ) from None
    if lengths_t.ndim != 1:
        raise ValueError(f"lengths must be 1-D (B,), got shape {tuple(lengths_t.shape)}")
    if lengths_t.is_floating_point() or lengths_t.dtype == torch.bool:
        raise ValueError(f"lengths must hold integers, got dtype {lengths_t.dtype}")
    if lengths_t.numel() and (lengths_t.min() < 0 or lengths_t.max() > max_len):
        raise ValueError(f"lengths must lie in 0..max_len={max_len}, got {lengths_t.tolist()}")
    positions = torch.arange(max_len, device=lengths_t.device)
    return positions[None, :] < lengths_t[:, None]  # (B,1) vs (1,T) -> (B, T)


@contract(pad="any: B Tk")
def key_padding_mask(pad: torch.Tensor) -> torch.Tensor:
    """Reshape a (B, Tk) padding mask so it broadcasts against scores (B, H, Tq, Tk).

    Every query may attend to every real key; padded keys get zero weight.

    Args:
        pad: (B, Tk) bool, True at real keys (``padding_mask``); torch's key_padding_mask
            (True = padding) converts with ``~pad``.

    Lecture 06.
    """
    _check_bool_mask("pad", pad)
    return pad[:, None, None, :]  # (B, Tk) -> (B, 1, 1, Tk)


def combine_masks(*masks: torch.Tensor) -> torch.Tensor:
    """Logical AND of bool masks, with broadcasting: a key is allowed only if every mask allows it.

    Lecture 06 (the decoder combines the causal and the padding mask).
    """
    if not masks:
        raise ValueError("combine_masks needs at least one mask")
    for i, m in enumerate(masks):
        _check_bool_mask(f"masks[{i}]", m)
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


def _describe_values(mask: torch.Tensor) -> str:
    """What a non-bool mask looks like (only called on the error path)."""
    if mask.is_complex() or not mask.numel():
        return ""
    values = mask.detach().double()
    if bool(((values == 0) | (values == -math.inf)).all()) and bool((values != 0).any()):
        return "; it holds 0 and -inf: an additive mask"
    if bool(((values == 0) | (values == 1)).all()):
        return "; it holds 0 and 1"
    return ""


def _check_bool_mask(name: str, mask: object) -> torch.Tensor:
    """Raise ValueError unless ``mask`` is a bool tensor; the message says how to convert each
    common convention (see the module docstring)."""
    if not isinstance(mask, torch.Tensor):
        hint = " (convert with torch.as_tensor)" if isinstance(mask, (list, tuple)) else ""
        if type(mask).__module__ == "numpy":
            hint = " (convert with torch.from_numpy)"
        raise ValueError(
            f"{name} must be a bool torch.Tensor (True = may attend), got "
            f"{type(mask).__name__}{hint}"
        )
    if mask.dtype != torch.bool:
        raise ValueError(
            f"{name} must be bool (True = may attend), got dtype {mask.dtype}"
            f"{_describe_values(mask)}. Convert by its convention: an additive mask of 0 / -inf "
            f"-> {name} == 0 (not {name}.bool(), which inverts it); a 0/1 mask with 1 = keep -> "
            f"{name}.bool(); torch.nn.MultiheadAttention's bool masks (True = may NOT attend) "
            f"-> ~{name}. Or build it with causal_mask / padding_mask"
        )
    return mask


def check_mask(
    mask: torch.Tensor, scores_shape: torch.Size | tuple[int, ...], name: str = "mask"
) -> None:
    """Raise ValueError unless ``mask`` is a bool tensor that broadcasts to ``scores_shape``;
    ``name`` is the argument the message names (e.g. "memory_mask").

    Lecture 06.
    """
    if not (isinstance(mask, torch.Tensor) and mask.dtype == torch.bool):
        _check_bool_mask(name, mask)
    target = tuple(scores_shape)
    shape = mask.shape
    # broadcastable to target: no more dims, and each dim (from the right) is 1 or target's
    fits = len(shape) <= len(target) and all(
        s == 1 or s == t for s, t in zip(reversed(shape), reversed(target), strict=False)
    )
    if not fits:
        raise ValueError(
            f"{name} of shape {tuple(mask.shape)} is not broadcastable to the attention "
            f"scores' shape {target} (..., Tq, Tk)"
        )


def additive_mask(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The slides' M: 0 where the mask is True, -inf where it is False.

    Lecture 06; softmax((QK^T + M) / sqrt(d_k)).
    """
    _check_bool_mask("mask", mask)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))


@contract(scores="... Tk")
def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last dimension after adding M (0 / -inf) from ``mask``.

    Masked keys get exactly 0 weight. A row whose keys are all masked gets all-zero weights
    (not NaN); see the module docstring.

    Args:
        scores: (..., Tq, Tk) float scores (an integer tensor is rejected: softmax needs
            floats).
        mask: bool, broadcastable to scores, True = may attend; None = no mask.

    Returns:
        (..., Tq, Tk) weights; each row sums to 1, or to 0 if it is fully masked. NaN scores
        give NaN weights in their row (as torch.softmax).

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


def past_unchanged(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, other: torch.Tensor
) -> torch.Tensor:
    """The perturbation test of causality: for every cut t, replace the inputs after t by
    ``other``'s and see whether the outputs at positions 0..t stay bit-for-bit the same.

    Args:
        fn: the model under test, (B, T, ...) -> (B, T, ...), position along dimension 1 (e.g.
            token ids (B, T) -> states (B, T, D)); run without gradients.
        x: (B, T, ...) the input, T >= 1.
        other: the replacement inputs, same shape and dtype as ``x``.

    Returns:
        (T,) bool: entry t is True when fn's outputs at positions 0..t are identical
        (``torch.equal``) after positions t+1..T-1 of x were replaced by other's. A causal fn
        gives all True; where a later input reaches back, the entry is False. (At t = T-1
        nothing is replaced, so that entry is True for any deterministic fn.)

    Lecture 06 (proof by perturbation: the future cannot leak into the past; Vaswani et al.
    section 3.2.3).
    """
    check_callable("fn", fn)
    check_tensor("x", x, min_ndim=2, wanted="(B, T, ...)", nonempty=True)
    if not isinstance(other, torch.Tensor) or other.shape != x.shape or other.dtype != x.dtype:
        raise ValueError(
            f"other must be a tensor of x's shape {tuple(x.shape)} and dtype {x.dtype}, got "
            f"{shape_of(other)}" + (f" {other.dtype}" if isinstance(other, torch.Tensor) else "")
        )
    T = x.shape[1]
    with torch.no_grad():
        reference = fn(x)
        if not isinstance(reference, torch.Tensor) or reference.ndim < 2 or reference.shape[1] != T:
            raise ValueError(
                f"fn must return a tensor (B, T={T}, ...) with positions along dimension 1, "
                f"got {shape_of(reference)}"
            )
        unchanged = []
        for t in range(T):
            mixed = torch.cat([x[:, : t + 1], other[:, t + 1 :]], dim=1)  # x up to t, then other
            out = fn(mixed)
            unchanged.append(torch.equal(out[:, : t + 1], reference[:, : t + 1]))
    return torch.tensor(unchanged)
