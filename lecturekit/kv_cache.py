"""Incremental decoding with a key/value cache: one new target position per step.

Generating token by token, position t's outputs depend only on positions <= t (the causal
mask), so nothing computed for earlier positions ever changes. Rerunning the decoder over the
whole prefix at every step (what ``Transformer.step_function`` does, simply) repeats that work:
O(T^2) positions for T tokens. Instead, each layer keeps the self-attention keys and values of
the earlier positions (the "KV cache"), the encoder output's cross-attention keys and values are
projected once, and every step computes the new position only. The outputs equal those of
``Decoder.forward`` on the whole prefix (tests/test_transformer_decoder.py).

Public API::

    memory_kv = project_memory(decoder, memory)     # per layer: keys, values (B, H, S, Dh)
    out_t, cache, cross_t = decoder_step(decoder, x_t, memory_kv, cache=None, memory_mask=None)
    #   x_t (B, 1, D): the decoder input (embedding + PE) at the new position t
    #   cache: per layer, the self-attention keys and values of positions 0..t, (B, H, t+1, Dh)
    #   out_t (B, 1, D); cross_t: per layer, the cross-attention weights (B, H, 1, S)
    out_t, kv, cross_t = layer_step(layer, x_t, memory_kv[i], cache[i], memory_mask)

Inference only (no dropout). Lecture 10; Vaswani et al. 2017 section 3.1 (auto-regressive
decoder).
"""

from __future__ import annotations

import torch

from lecturekit.attention import MultiHeadAttention, merge_heads, split_heads
from lecturekit.masking import masked_softmax
from lecturekit.transformer_decoder import Decoder, DecoderLayer

__all__ = ["KV", "project_memory", "layer_step", "decoder_step"]

KV = tuple[torch.Tensor, torch.Tensor]  # keys, values, each (B, H, T, Dh)


def _project_kv(mha: MultiHeadAttention, x: torch.Tensor) -> KV:
    """The keys and values ``mha`` computes from x (B, T, D), each (B, H, T, Dh), contiguous
    (so the matrix products of every later step need no copy)."""
    k = split_heads(mha.w_k(x), mha.num_heads).contiguous()  # (B, T, D) -> (B, H, T, Dh)
    return k, split_heads(mha.w_v(x), mha.num_heads).contiguous()


def _attend(
    mha: MultiHeadAttention, query: torch.Tensor, kv: KV, mask: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """``mha(query, key, value, mask)`` with the keys and values already projected."""
    k, v = kv
    q = split_heads(mha.w_q(query), mha.num_heads)  # (B, Tq, D) -> (B, H, Tq, Dh)
    weights = masked_softmax(q @ k.transpose(-2, -1) / mha.head_dim**0.5, mask)  # (B,H,Tq,Tk)
    return mha.w_o(merge_heads(weights @ v)), weights  # (B, H, Tq, Dh) -> (B, Tq, D)


def project_memory(decoder: Decoder, memory: torch.Tensor) -> list[KV]:
    """Each layer's cross-attention keys and values of memory (B, S, D): (B, H, S, Dh) each.

    Lecture 10.
    """
    return [_project_kv(layer.cross_attn, memory) for layer in decoder.layers]


def layer_step(
    layer: DecoderLayer,
    x_t: torch.Tensor,
    memory_kv: KV,
    cache: KV | None = None,
    memory_mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, KV, torch.Tensor]:
    """One new position through one decoder layer: x_t attends to the cached keys and values of
    the earlier positions and to itself (no mask needed: there is no future), then to memory.

    Args:
        layer: a ``DecoderLayer`` (post- or pre-norm).
        x_t: (B, 1, D) the layer's input at the new position.
        memory_kv: the layer's cross-attention keys and values of the memory.
        cache: the self-attention keys and values of the earlier positions, (B, H, t, Dh).
        memory_mask: bool broadcastable to (B, H, 1, S), e.g. the source padding (B, 1, 1, S).

    Returns:
        out (B, 1, D), the cache extended by the new position, cross weights (B, H, 1, S).

    Lecture 10.
    """
    if x_t.ndim != 3 or x_t.shape[1] != 1 or x_t.shape[-1] != layer.d_model:
        raise ValueError(f"x_t must be (B, 1, d_model={layer.d_model}), got {tuple(x_t.shape)}")
    h = layer.norm1(x_t) if layer.norm_first else x_t  # what self-attention reads
    k, v = _project_kv(layer.self_attn, h)  # (B, 1, D) -> (B, H, 1, Dh) each
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)  # -> (B,H,t+1,Dh)
    attn, _ = _attend(layer.self_attn, h, (k, v), None)
    if layer.norm_first:
        x = x_t + attn
        attn, cross_weights = _attend(layer.cross_attn, layer.norm2(x), memory_kv, memory_mask)
        x = x + attn
        x = x + layer.ffn(layer.norm3(x))
    else:
        x = layer.norm1(x_t + attn)  # Add & Norm
        attn, cross_weights = _attend(layer.cross_attn, x, memory_kv, memory_mask)
        x = layer.norm2(x + attn)
        x = layer.norm3(x + layer.ffn(x))
    return x, (k, v), cross_weights


def decoder_step(
    decoder: Decoder,
    x_t: torch.Tensor,
    memory_kv: list[KV],
    cache: list[KV] | None = None,
    memory_mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, list[KV], list[torch.Tensor]]:
    """One new position through every layer (``layer_step``) and the final norm, if any:
    x_t (B, 1, D) -> out (B, 1, D), the extended caches, per-layer cross weights (B, H, 1, S).

    Lecture 10.
    """
    new_cache, cross_weights = [], []
    for i, layer in enumerate(decoder.layers):
        x_t, kv, w = layer_step(layer, x_t, memory_kv[i], None if cache is None else cache[i],
                                memory_mask)  # fmt: skip
        new_cache.append(kv)
        cross_weights.append(w)
    if decoder.final_norm is not None:
        x_t = decoder.final_norm(x_t)
    return x_t, new_cache, cross_weights
