"""Incremental decoding with a key/value cache: one new target position per step.

Generating token by token, position t's outputs depend only on positions <= t (the causal
mask), so nothing computed for earlier positions ever changes. Rerunning the decoder over the
whole prefix at every step (what ``Transformer.step_function`` does, simply) repeats that work:
O(T^2) positions for T tokens. Instead, each layer keeps the self-attention keys and values of
the earlier positions (the "KV cache"), the encoder output's cross-attention keys and values are
projected once, and every step computes the new position only. The outputs equal those of
``Decoder.forward`` on the whole prefix (tests/test_kv_cache.py).

The cache lives inside attention (``lecturekit.attention.KVCache``, as in torchtune): a step
is ``DecoderLayer.forward`` on the new position with a cache of the self-attention's keys and
values and a static cache of the memory's, so it computes exactly what the layer computes for
that position. GPT's blocks use the same cache (``lecturekit.models.gpt``).

Public API::

    memory_kv = project_memory(decoder, memory)     # per layer: keys, values (B, H, S, Dh)
    out_t, cache, cross_t = decoder_step(decoder, x_t, memory_kv, cache=None, memory_mask=None)
    #   x_t (B, 1, D): the decoder input (embedding + PE) at the new position t
    #   cache: per layer, the self-attention keys and values of positions 0..t, (B, H, t+1, Dh)
    #   out_t (B, 1, D); cross_t: per layer, the cross-attention weights (B, H, 1, S)
    out_t, kv, cross_t = layer_step(layer, x_t, memory_kv[i], cache[i], memory_mask)

Inputs are checked as in ``lecturekit.layers`` (floating, the weights' dtype, d_model wide);
``memory_kv`` and ``cache`` must be what ``project_memory`` / the previous step returned: a
pair (keys, values) per layer for ``layer_step``, a list of such pairs for ``decoder_step``.

Inference only (no dropout). Lecture 10; Vaswani et al. 2017 section 3.1 (auto-regressive
decoder).
"""

from __future__ import annotations

import torch

from lecturekit.attention import KVCache
from lecturekit.layers import Decoder, DecoderLayer
from lecturekit.masking import check_mask
from lecturekit.utils.checks import check_instance, shape_of
from lecturekit.utils.contracts import check_shapes

__all__ = ["KV", "project_memory", "layer_step", "decoder_step"]

KV = tuple[torch.Tensor, torch.Tensor]  # keys, values, each (B, H, T, Dh)


def project_memory(decoder: Decoder, memory: torch.Tensor) -> list[KV]:
    """Each layer's cross-attention keys and values of memory (B, S, D): (B, H, S, Dh) each,
    contiguous (so the matrix products of every later step need no copy).

    Lecture 10.
    """
    check_instance("decoder", decoder, Decoder)
    check_shapes({"memory": memory}, {"memory": "B S d_model"}, owner=decoder.layers[0])
    kvs = [layer.cross_attn.project_keys_values(memory, memory) for layer in decoder.layers]
    return [(k.contiguous(), v.contiguous()) for k, v in kvs]


def _check_kv(name: str, kv: object, layer: DecoderLayer, batch: int, broadcast: bool) -> None:
    """kv must be a pair (keys, values), each (batch, H, T, Dh) of the layer's dtype (batch 1
    too if ``broadcast``: the memory of one source for many hypotheses)."""
    H, Dh = layer.self_attn.num_heads, layer.self_attn.head_dim
    if not isinstance(kv, (tuple, list)) or len(kv) != 2:
        got = (
            f"a {type(kv).__name__} of {len(kv)}" if isinstance(kv, (tuple, list)) else shape_of(kv)
        )
        raise ValueError(f"{name} must be a pair (keys, values), got {got}")
    spec = f"B H={H} T Dh={Dh}"
    check_shapes(dict(zip((f"{name} keys", f"{name} values"), kv, strict=True)),
                 dict.fromkeys((f"{name} keys", f"{name} values"), spec), owner=layer)  # fmt: skip
    if kv[0].shape[0] not in ((batch, 1) if broadcast else (batch,)):
        raise ValueError(f"{name} keys must be (B={batch}{' or 1' if broadcast else ''}, H={H}, T, "
                         f"Dh={Dh}) as x_t's batch, got {tuple(kv[0].shape)}")  # fmt: skip


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
    if not isinstance(layer, DecoderLayer):
        raise ValueError(f"layer must be a DecoderLayer, got {type(layer).__name__}")
    check_shapes({"x_t": x_t}, {"x_t": "B 1 d_model"}, owner=layer)
    B = x_t.shape[0]
    _check_kv("memory_kv", memory_kv, layer, B, broadcast=True)
    if cache is not None:
        _check_kv("cache", cache, layer, B, broadcast=False)
    if memory_mask is not None:
        S = memory_kv[0].shape[2]
        check_mask(memory_mask, (B, layer.cross_attn.num_heads, 1, S), "memory_mask")
    self_cache = KVCache() if cache is None else KVCache(*cache)
    memory_cache = KVCache(*memory_kv, static=True)
    out, _, cross_weights = layer(x_t, None, None, memory_mask, self_cache, memory_cache)
    return out, (self_cache.keys, self_cache.values), cross_weights


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
    check_instance("decoder", decoder, Decoder)
    layers = len(decoder.layers)
    for name, value in (("memory_kv", memory_kv), ("cache", cache)):
        if value is None and name == "cache":
            continue
        if not isinstance(value, (list, tuple)) or (value and isinstance(value[0], torch.Tensor)):
            got = shape_of(value) if isinstance(value, torch.Tensor) else type(value).__name__
            if isinstance(value, (list, tuple)):
                got = "a pair of tensors (one layer's; layer_step takes those)"
            raise ValueError(
                f"{name} must be a list of (keys, values) pairs, one per layer ({layers}), got "
                f"{got}"
            )
    if len(memory_kv) != layers or (cache is not None and len(cache) != layers):
        raise ValueError(
            f"memory_kv and cache need one entry per layer ({len(decoder.layers)}), got "
            f"{len(memory_kv)} and {'None' if cache is None else len(cache)}"
        )
    new_cache, cross_weights = [], []
    for i, layer in enumerate(decoder.layers):
        x_t, kv, w = layer_step(layer, x_t, memory_kv[i], None if cache is None else cache[i],
                                memory_mask)  # fmt: skip
        new_cache.append(kv)
        cross_weights.append(w)
    if decoder.final_norm is not None:
        x_t = decoder.final_norm(x_t)
    return x_t, new_cache, cross_weights
