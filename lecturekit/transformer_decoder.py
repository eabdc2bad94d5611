"""The Transformer decoder: masked self-attention, cross-attention over the encoder, feed-forward.

Public API::

    layer = DecoderLayer(d_model, num_heads, d_ff, dropout=0.0, activation="relu",
                         norm_first=False, layer_norm_eps=1e-5)
    out, self_weights, cross_weights = layer(x, memory, self_mask=None, memory_mask=None)
    #   x (B, T, D) target states, memory (B, S, D) encoder output
    #   self_mask bool broadcastable to (B, H, T, T) (e.g. lecturekit.masking.decoder_mask)
    #   memory_mask bool broadcastable to (B, H, T, S) (e.g. key_padding_mask(src_pad))
    #   out (B, T, D), self_weights (B, H, T, T), cross_weights (B, H, T, S)
    layer.load_from_torch(torch_layer)          # copy a torch.nn.TransformerDecoderLayer
    decoder = Decoder(num_layers, d_model, num_heads, d_ff, final_norm=None, ...)
    out, self_weights, cross_weights = decoder(x, memory, self_mask, memory_mask)
    #   self_weights / cross_weights: lists of (B, H, T, T) / (B, H, T, S), one per layer
    decoder.load_from_torch(torch_decoder)      # copy a torch.nn.TransformerDecoder

Each of the three sublayers is wrapped in a residual connection and LayerNorm ("Add & Norm"):
post-norm (the paper) h = LayerNorm(x + Sublayer(x)); pre-norm h = x + Sublayer(LayerNorm(x)).
The queries of the cross-attention come from the decoder, its keys and values from the encoder
output ("memory"), so every target position can look at every source position.

Generating token by token without recomputing the prefix: ``lecturekit.kv_cache``.

Lecture 10; Vaswani et al. 2017 section 3.1 (decoder) and 3.2.3.
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit._checks import check_positive_int
from lecturekit.attention import MultiHeadAttention
from lecturekit.transformer import (
    PositionwiseFeedForward,
    _check_shapes,
    _check_torch_layer,
    _copy_linear_and_norms,
    _final_norm,
)

__all__ = ["DecoderLayer", "Decoder"]


def _check_states(name: str, x: object, d_model: int) -> None:
    if not isinstance(x, torch.Tensor) or x.ndim != 3 or x.shape[-1] != d_model:
        shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"{name} must be (B, T, d_model={d_model}), got {shape}")


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, feed-forward; each with a
    residual connection and LayerNorm.

    Args:
        d_model, num_heads: as in MultiHeadAttention (both attentions).
        d_ff: hidden width of the feed-forward network.
        dropout: on attention weights, sublayer outputs and the FFN hidden layer (training only).
        activation: "relu" (the paper) or "gelu".
        norm_first: False = post-norm as in the paper; True = pre-norm.
        layer_norm_eps: LayerNorm epsilon.

    Lecture 10; Vaswani et al. 2017 section 3.1 ("a third sub-layer, which performs multi-head
    attention over the output of the encoder stack").
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        activation: str = "relu",
        norm_first: bool = False,
        layer_norm_eps: float = 1e-5,
    ):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)  # after / before self-attention
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)  # ... cross-attention
        self.norm3 = nn.LayerNorm(d_model, eps=layer_norm_eps)  # ... feed-forward
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.d_model = d_model
        self.norm_first = norm_first

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Args:
            x: (B, T, D) target-side states.
            memory: (B, S, D) the encoder's output.
            self_mask: bool broadcastable to (B, H, T, T), True = may attend; the causal mask
                (and target padding) so position t sees only positions <= t.
            memory_mask: bool broadcastable to (B, H, T, S); usually the source padding mask
                as (B, 1, 1, S) (``lecturekit.masking.key_padding_mask``).

        Returns:
            out (B, T, D), self-attention weights (B, H, T, T), cross-attention weights
            (B, H, T, S).
        """
        _check_states("x", x, self.d_model)
        _check_states("memory", memory, self.d_model)
        if memory.shape[0] != x.shape[0]:
            raise ValueError(
                f"x and memory must share the batch size: x {tuple(x.shape)}, "
                f"memory {tuple(memory.shape)}"
            )
        if self.norm_first:
            h = self.norm1(x)
            attn, self_weights = self.self_attn(h, h, h, self_mask)
            x = x + self.dropout1(attn)
            attn, cross_weights = self.cross_attn(self.norm2(x), memory, memory, memory_mask)
            x = x + self.dropout2(attn)
            x = x + self.dropout3(self.ffn(self.norm3(x)))
        else:
            attn, self_weights = self.self_attn(x, x, x, self_mask)
            x = self.norm1(x + self.dropout1(attn))  # Add & Norm
            attn, cross_weights = self.cross_attn(x, memory, memory, memory_mask)
            x = self.norm2(x + self.dropout2(attn))  # Add & Norm
            x = self.norm3(x + self.dropout3(self.ffn(x)))  # Add & Norm
        return x, self_weights, cross_weights

    @torch.no_grad()
    def load_from_torch(self, torch_layer: nn.TransformerDecoderLayer) -> DecoderLayer:
        """Copy the weights of a ``torch.nn.TransformerDecoderLayer`` of the same sizes.

        torch names the cross-attention ``multihead_attn``; everything else maps one to one.
        """
        _check_torch_layer(torch_layer, nn.TransformerDecoderLayer, self.norm_first)
        pairs = [
            (self.ffn.linear1, torch_layer.linear1),
            (self.ffn.linear2, torch_layer.linear2),
            (self.norm1, torch_layer.norm1),
            (self.norm2, torch_layer.norm2),
            (self.norm3, torch_layer.norm3),
        ]
        _check_shapes(pairs)  # before anything is copied
        self.self_attn.load_from_torch(torch_layer.self_attn)
        self.cross_attn.load_from_torch(torch_layer.multihead_attn)
        _copy_linear_and_norms(pairs)
        return self


class Decoder(nn.Module):
    """A stack of ``num_layers`` DecoderLayers, then optionally a final LayerNorm.

    ``final_norm=None`` adds it exactly when the layers are pre-norm, as
    ``lecturekit.transformer.Encoder`` does.

    Lecture 10; Vaswani et al. 2017 section 3.1.
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        *,
        final_norm: bool | None = None,
        **layer_kwargs,
    ):
        super().__init__()
        check_positive_int("num_layers", num_layers)
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, **layer_kwargs) for _ in range(num_layers)
        )
        self.final_norm = _final_norm(d_model, final_norm, layer_kwargs)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """x (B, T, D), memory (B, S, D) -> out (B, T, D), per-layer self-attention weights
        (B, H, T, T) and per-layer cross-attention weights (B, H, T, S)."""
        self_weights, cross_weights = [], []
        for layer in self.layers:
            x, w_self, w_cross = layer(x, memory, self_mask, memory_mask)
            self_weights.append(w_self)
            cross_weights.append(w_cross)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return x, self_weights, cross_weights

    @torch.no_grad()
    def load_from_torch(self, torch_decoder: nn.TransformerDecoder) -> Decoder:
        """Copy a ``torch.nn.TransformerDecoder`` (same number of layers; a final norm exactly
        when it has one)."""
        if not isinstance(torch_decoder, nn.TransformerDecoder):
            raise ValueError(
                "torch_decoder must be a torch.nn.TransformerDecoder, got "
                f"{type(torch_decoder).__name__}"
            )
        _load_stack(self, torch_decoder, "torch_decoder")
        return self


def _load_stack(mine: nn.Module, theirs: nn.Module, name: str) -> None:
    """Copy a torch.nn.TransformerEncoder/Decoder into our Encoder/Decoder: layers, final norm."""
    if len(mine.layers) != len(theirs.layers):
        raise ValueError(
            f"{name} has {len(theirs.layers)} layers, this stack has {len(mine.layers)}"
        )
    if (theirs.norm is None) != (mine.final_norm is None):
        raise ValueError(
            f"{name} {'has no' if theirs.norm is None else 'has a'} final LayerNorm, this stack "
            f"{'has one' if mine.final_norm is not None else 'has none'} (set final_norm)"
        )
    for layer, torch_layer in zip(mine.layers, theirs.layers, strict=True):
        layer.load_from_torch(torch_layer)
    if mine.final_norm is not None:
        _copy_linear_and_norms([(mine.final_norm, theirs.norm)])
