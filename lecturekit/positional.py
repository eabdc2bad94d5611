"""Positional encodings: the fixed sinusoidal table of Vaswani et al., and a learned alternative.

Public API::

    P = sinusoidal_encoding(max_len, d_model)   # (max_len, d_model); even dims sin, odd dims cos
    M = shift_matrix(k, d_model)                # (d_model, d_model) with P[t + k] = M @ P[t]
    shift_residual(k, max_len, d_model)         # max |M_k P[t] - P[t + k]| over every t (~1e-15)
    SinusoidalPositionalEncoding(d_model, max_len=5000)(x)   # x (B, T, D) -> x + P[:T]
    LearnedPositionalEmbedding(max_len, d_model)(x)          # x (B, T, D) -> x + E[:T]

Odd d_model is rejected with ValueError: the encoding is made of (sin, cos) pairs, one pair per
frequency, and the shift property P[t+k] = M_k P[t] needs every pair complete. ``base`` must be
a finite number > 0 (0 or a negative base gives inf / NaN frequencies); ``dropout`` in [0, 1).

Dtypes: ``SinusoidalPositionalEncoding`` adds its table in the dtype of x (any floating dtype);
``LearnedPositionalEmbedding`` has weights, so x must have their dtype (float32 unless the
module was converted). An integer x is rejected ("convert with x.float()"): the sum would be
rounded to integers. T = 0 (an empty sequence) is legitimate: the output is empty.

Lecture 05; Vaswani et al. 2017 section 3.5.
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.utils.checks import (
    check_input,
    check_positive_int,
    check_range,
    check_tensor,
)

__all__ = [
    "sinusoidal_encoding",
    "frequencies",
    "shift_matrix",
    "shift_residual",
    "SinusoidalPositionalEncoding",
    "LearnedPositionalEmbedding",
]


def _check_sizes(max_len: int | None, d_model: int) -> None:
    if max_len is not None:
        check_positive_int("max_len", max_len)
    check_positive_int("d_model", d_model)
    if d_model % 2:
        raise ValueError(
            f"d_model={d_model} must be even: the sinusoidal encoding is made of (sin, cos) pairs"
        )


def _check_base(base: float) -> None:
    check_range("base", base, 0, torch.inf, low_open=True, high_open=True)


def frequencies(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """Angular frequencies w_i = 1 / base^(2i / d_model), i = 0 .. d_model/2 - 1.

    Lecture 05.
    """
    _check_sizes(None, d_model)
    _check_base(base)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # 2i = 0, 2, 4, ...
    return base ** (-two_i / d_model)  # (d_model/2,)


def sinusoidal_encoding(
    max_len: int, d_model: int, base: float = 10000.0, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / base^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / base^(2i/d_model)).

    Computed in float64 and cast to ``dtype``.

    Args:
        max_len: number of positions (> 0).
        d_model: width (> 0, even).
        base: the wavelength scale (> 0, finite; the paper's 10000).
        dtype: a floating-point dtype.

    Returns:
        (max_len, d_model): row = position, column = dimension.

    Lecture 05; Vaswani et al. 2017 section 3.5.
    """
    _check_sizes(max_len, d_model)
    _check_base(base)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (T, 1)
    angles = pos * frequencies(d_model, base)[None, :]  # (T, 1) * (1, D/2) -> (T, D/2)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe.to(dtype)


def shift_matrix(k: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The linear map M_k with PE[t + k] = M_k @ PE[t] for every t: block-diagonal, one 2x2
    rotation by angle w_i k per (sin, cos) pair. It depends on k only, not on t.

    sin(w(t+k)) =  cos(wk) sin(wt) + sin(wk) cos(wt)
    cos(w(t+k)) = -sin(wk) sin(wt) + cos(wk) cos(wt)

    Returns:
        (d_model, d_model) float64.

    Lecture 05; Vaswani et al. 2017 section 3.5 ("PE_{pos+k} is a linear function of PE_pos").
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"k must be an integer offset, got {k!r}")
    w = frequencies(d_model, base)  # (D/2,)
    c, s = torch.cos(w * k), torch.sin(w * k)
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)  # (D/2, 2, 2)
    return torch.block_diag(*blocks)


def shift_residual(k: int, max_len: int, d_model: int, base: float = 10000.0) -> float:
    """How far the shift property PE[t + k] = M_k PE[t] is from holding in a table of
    ``max_len`` rows: the largest entry of |M_k PE[t] - PE[t + k]| over every t with t and
    t + k in 0..max_len-1, in float64 (rounding error only, ~1e-15, when the property holds).

    Args:
        k: the offset (any integer with |k| < max_len; negative shifts backwards).
        max_len: rows of the table (> 0).
        d_model: width (> 0, even).
        base: the wavelength scale (the paper's 10000).

    Returns:
        the largest absolute difference, a float.

    Lecture 05; Vaswani et al. 2017 section 3.5.
    """
    _check_sizes(max_len, d_model)
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"k must be an integer offset, got {k!r}")
    if abs(k) >= max_len:
        raise ValueError(
            f"|k| must be < max_len={max_len} (no t has t and t + k in the table), got k={k}"
        )
    P = sinusoidal_encoding(max_len, d_model, base, dtype=torch.float64)  # (T, D)
    t = torch.arange(max(0, -k), max_len - max(0, k))  # every t with t + k inside the table
    shifted = P[t] @ shift_matrix(k, d_model, base).T  # rows: (M_k PE_t)^T = PE_t^T M_k^T
    return float((shifted - P[t + k]).abs().max())


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to token embeddings: x + PE[:T].

    The table is a non-persistent buffer (not a parameter, not saved in state_dict).

    Lecture 05; Vaswani et al. 2017 section 3.5.
    """

    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        check_range("dropout", dropout, 0, 1, high_open=True)
        self.register_buffer("pe", sinusoidal_encoding(max_len, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, D), any floating dtype -> (B, T, D)."""
        _check_input(x, *self.pe.shape)
        check_tensor("x", x, floating=True, wanted="(B, T, D)")
        return self.dropout(x + self.pe[: x.shape[1]].to(x.dtype))  # (B,T,D) + (T,D)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned vector per position (as in BERT and ViT): x + E[:T].

    Lecture 05.
    """

    def __init__(self, max_len: int, d_model: int, dropout: float = 0.0):
        super().__init__()
        check_positive_int("max_len", max_len)
        check_positive_int("d_model", d_model)
        check_range("dropout", dropout, 0, 1, high_open=True)
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, D) of the weights' dtype -> (B, T, D)."""
        _check_input(x, *self.embedding.weight.shape)
        check_input("x", x, self, wanted="(B, T, D)")
        return self.dropout(x + self.embedding.weight[: x.shape[1]])  # (B,T,D) + (T,D)


def _check_input(x: object, max_len: int, d_model: int) -> None:
    check_tensor("x", x, wanted=f"(B, T, d_model={d_model})")
    if x.ndim != 3 or x.shape[-1] != d_model:
        hint = ""
        if x.ndim == 2 and not x.is_floating_point():
            hint = " (token ids? embed them first: the encoding is added to embeddings)"
        raise ValueError(f"x must be (B, T, d_model={d_model}), got {tuple(x.shape)}{hint}")
    if x.shape[1] > max_len:
        raise ValueError(f"sequence length T={x.shape[1]} exceeds max_len={max_len}")
