"""Attention with convolutions: memory-compressed attention (a strided convolution shortens the
keys and values, Liu et al. 2018) and convolutional self-attention (a causal convolution makes
the queries and keys from a window of positions, so scores compare local shapes, Li et al.
2019).

Public API::

    compressed_length(n, stride, kernel=None)      # keys left after the strided convolution
    mca = MemoryCompressedAttention(d_model, stride, kernel=None)
    out, weights = mca(q, k, v)      # q (B, n, D), k, v (B, n, D) -> out (B, n, D),
    #   weights (B, n, m) with m = compressed_length(n, stride, kernel): cost n · m, about n² / s
    csa = ConvSelfAttention(d_model, kernel, num_heads=1)
    out, weights = csa(x)            # x (B, n, D) causal -> out (B, n, D), weights (B, H, n, n)
    q, k = csa.queries_keys(x)       # (B, n, D) each: the causal convolutions

``MemoryCompressedAttention`` convolves K and V with separate ``Conv1d(D, D, kernel,
stride)`` (no padding; kernel defaults to stride, as in Liu et al.'s stride 3, kernel 3); with
stride 1 and an identity kernel-1 convolution it is plain attention. ``ConvSelfAttention``
makes Q and K with a causal ``Conv1d(D, D, kernel)`` (left-padded by kernel − 1, so position i
sees i − kernel + 1 .. i), V with a linear map, and attends causally; kernel 1 is ordinary
(linear) multi-head causal self-attention.

Lecture 11b; Liu et al. 2018 section 4.2.2; Li et al. 2019 section 3.2.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.attention import merge_heads, scaled_dot_product_attention, split_heads
from lecturekit.masking import causal_mask
from lecturekit.utils.checks import check_choice, check_positive_int
from lecturekit.utils.contracts import contract

__all__ = ["compressed_length", "MemoryCompressedAttention", "ConvSelfAttention"]


def compressed_length(n: int, stride: int, kernel: int | None = None) -> int:
    """How many keys a ``Conv1d(kernel, stride)`` without padding leaves of n:
    floor((n − kernel) / stride) + 1 (0 if n < kernel).

    Lecture 11b; Liu et al. 2018 section 4.2.2.
    """
    check_positive_int("n", n)
    check_positive_int("stride", stride)
    kernel = stride if kernel is None else check_positive_int("kernel", kernel)
    return 0 if n < kernel else (n - kernel) // stride + 1


class MemoryCompressedAttention(nn.Module):
    """Attention over keys and values shortened by a strided convolution.

    Args:
        d_model: D, the width of q, k, v.
        stride: s >= 1; the keys shrink by about s.
        kernel: convolution width (default ``stride``).

    Lecture 11b; Liu et al. 2018 section 4.2.2 ("memory-compressed attention").
    """

    def __init__(self, d_model: int, stride: int, kernel: int | None = None):
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("stride", stride)
        kernel = stride if kernel is None else check_positive_int("kernel", kernel)
        self.d_model, self.stride, self.kernel = d_model, stride, kernel
        self.conv_k = nn.Conv1d(d_model, d_model, kernel, stride)
        self.conv_v = nn.Conv1d(d_model, d_model, kernel, stride)

    @contract(x="B n d_model")
    def compress(self, x: torch.Tensor, which: str = "k") -> torch.Tensor:
        """x (B, n, D) -> (B, m, D) through ``conv_k`` (which="k") or ``conv_v`` (which="v")."""
        check_choice("which", which, ("k", "v"))
        if x.shape[1] < self.kernel:
            raise ValueError(f"x must have at least kernel={self.kernel} positions, got "
                             f"{x.shape[1]}")  # fmt: skip
        conv = self.conv_k if which == "k" else self.conv_v
        # (B, n, D) -> (B, D, n) -> (B, D, m) -> (B, m, D)
        return conv(x.transpose(1, 2)).transpose(1, 2)  # (B, T, D) -> (B, D, T) -> (B, T, D)

    @contract(q="B Tq d_model", k="B n d_model", v="B n d_model")
    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """q (B, n, D), k and v (B, n, D) -> out (B, n, D), weights (B, n, m)."""
        if k.shape[1] < self.kernel:
            raise ValueError(f"k must have at least kernel={self.kernel} positions, got "
                             f"{k.shape[1]}")  # fmt: skip
        return scaled_dot_product_attention(q, self.compress(k, "k"), self.compress(v, "v"))


class ConvSelfAttention(nn.Module):
    """Causal self-attention whose queries and keys come from a causal convolution of width
    ``kernel`` over the inputs: a score compares the shapes of two windows, not two points.

    Args:
        d_model: D.
        kernel: k >= 1 (1 = ordinary linear Q/K).
        num_heads: H, dividing D.

    Lecture 11b; Li et al. 2019 section 3.2 (convolutional self-attention, Figure 1).
    """

    def __init__(self, d_model: int, kernel: int, num_heads: int = 1):
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("kernel", kernel)
        check_positive_int("num_heads", num_heads)
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.kernel, self.num_heads = d_model, kernel, num_heads
        self.conv_q = nn.Conv1d(d_model, d_model, kernel)
        self.conv_k = nn.Conv1d(d_model, d_model, kernel)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    @contract(x="B n d_model")
    def queries_keys(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, n, D) -> q, k (B, n, D): causal convolutions, position i sees i − k + 1 .. i."""
        h = F.pad(x.transpose(1, 2), (self.kernel - 1, 0))  # (B, n, D) -> (B, D, k - 1 + n)
        q = self.conv_q(h).transpose(1, 2)  # -> (B, D, n) -> (B, n, D)
        return q, self.conv_k(h).transpose(1, 2)  # -> (B, D, n) -> (B, n, D)

    @contract(x="B n d_model")
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, n, D) -> out (B, n, D), weights (B, H, n, n) (causal)."""
        q, k = self.queries_keys(x)
        q = split_heads(q, self.num_heads)  # (B, n, D) -> (B, H, n, Dh)
        k = split_heads(k, self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        out, weights = scaled_dot_product_attention(q, k, v, causal_mask(x.shape[1]))
        return self.w_o(merge_heads(out)), weights  # (B, H, n, Dh) -> (B, n, D)
