"""Transformer building blocks: position-wise feed-forward, encoder layer ("Add & Norm"), encoder.

Public API::

    ffn = PositionwiseFeedForward(d_model, d_ff, dropout=0.0, activation="relu")
    layer = EncoderLayer(d_model, num_heads, d_ff, dropout=0.0, activation="relu",
                         norm_first=False, layer_norm_eps=1e-5)
    out, weights = layer(x, mask=None)          # x (B, T, D); weights (B, H, T, T)
    layer.load_from_torch(torch_layer)          # copy a torch.nn.TransformerEncoderLayer
    encoder = Encoder(num_layers, d_model, num_heads, d_ff, final_norm=None, ...)
    out, all_weights = encoder(x, mask=None)    # all_weights: list of (B, H, T, T), one per layer

    # The decoder and the full encoder-decoder (lecture 10) live in lecturekit.transformer_decoder
    # and lecturekit.encoder_decoder; they are importable from here too:
    from lecturekit.transformer import DecoderLayer, Decoder, Transformer, TransformerConfig

Post-norm (the paper, ``norm_first=False``): h = LayerNorm(x + Sublayer(x)).
Pre-norm (``norm_first=True``): h = x + Sublayer(LayerNorm(x)).

Lectures 04, 06 and 10; Vaswani et al. 2017 sections 3.1 and 3.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit._checks import check_positive_int
from lecturekit.attention import MultiHeadAttention

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__ below
    from lecturekit.encoder_decoder import AttentionWeights, Transformer, TransformerConfig
    from lecturekit.transformer_decoder import Decoder, DecoderLayer

__all__ = [
    "PositionwiseFeedForward",
    "EncoderLayer",
    "Encoder",
    "DecoderLayer",
    "Decoder",
    "TransformerConfig",
    "Transformer",
    "AttentionWeights",
]

# Re-exported lazily (PEP 562 module __getattr__, at the end of this file): those modules
# import this one, so importing them here at the top would be an import cycle.
_LAZY = {
    "DecoderLayer": "lecturekit.transformer_decoder",
    "Decoder": "lecturekit.transformer_decoder",
    "TransformerConfig": "lecturekit.encoder_decoder",
    "Transformer": "lecturekit.encoder_decoder",
    "AttentionWeights": "lecturekit.encoder_decoder",
}

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


class PositionwiseFeedForward(nn.Module):
    """FFN(x) = act(x W1 + b1) W2 + b2, applied to each position separately.

    Lecture 04; Vaswani et al. 2017 eq. 2.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu"):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation={activation!r} is not one of {sorted(_ACTIVATIONS)}")
        self.linear1 = nn.Linear(d_model, d_ff)  # (B, T, D) -> (B, T, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)  # (B, T, d_ff) -> (B, T, D)
        self.activation = activation
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(_ACTIVATIONS[self.activation](self.linear1(x))))


def _check_torch_layer(torch_layer: object, expected: type, norm_first: bool) -> None:
    """The layer to copy from must be a torch ``expected`` with the same norm placement."""
    if not isinstance(torch_layer, expected):
        raise ValueError(
            f"torch_layer must be a torch.nn.{expected.__name__}, got {type(torch_layer).__name__}"
        )
    if torch_layer.norm_first != norm_first:
        raise ValueError(
            f"torch_layer has norm_first={torch_layer.norm_first}, this layer {norm_first}"
        )


def _check_shapes(pairs: list[tuple[nn.Module, nn.Module]]) -> None:
    for mine, theirs in pairs:
        if mine.weight.shape != theirs.weight.shape:
            raise ValueError(
                f"shape mismatch: {tuple(mine.weight.shape)} vs {tuple(theirs.weight.shape)}"
            )


def _copy_linear_and_norms(pairs: list[tuple[nn.Module, nn.Module]]) -> None:
    """Copy weight and bias of each (ours, torch's) Linear or LayerNorm, shapes checked first."""
    _check_shapes(pairs)
    for mine, theirs in pairs:
        mine.weight.copy_(theirs.weight)
        mine.bias.copy_(theirs.bias)


def _final_norm(d_model: int, final_norm: bool | None, layer_kwargs: dict) -> nn.LayerNorm | None:
    """The LayerNorm after a stack: by default exactly when its layers are pre-norm."""
    if final_norm is None:
        final_norm = bool(layer_kwargs.get("norm_first"))
    eps = layer_kwargs.get("layer_norm_eps", 1e-5)
    return nn.LayerNorm(d_model, eps=eps) if final_norm else None


class EncoderLayer(nn.Module):
    """Self-attention and feed-forward, each wrapped in a residual connection and LayerNorm.

    Args:
        d_model, num_heads: as in MultiHeadAttention.
        d_ff: hidden width of the feed-forward network.
        dropout: on attention weights, sublayer outputs and the FFN hidden layer (training only).
        activation: "relu" (the paper) or "gelu" (BERT, ViT).
        norm_first: False = post-norm as in the paper; True = pre-norm (ViT).
        layer_norm_eps: LayerNorm epsilon.

    Lecture 06 (Add & Norm); Vaswani et al. 2017 section 3.1.
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
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, D), mask bool broadcastable to (B, H, T, T).

        Returns out (B, T, D) and weights (B, H, T, T).
        """
        if self.norm_first:
            h = self.norm1(x)
            attn, weights = self.self_attn(h, h, h, mask)
            x = x + self.dropout1(attn)
            x = x + self.dropout2(self.ffn(self.norm2(x)))
        else:
            attn, weights = self.self_attn(x, x, x, mask)
            x = self.norm1(x + self.dropout1(attn))  # Add & Norm
            x = self.norm2(x + self.dropout2(self.ffn(x)))  # Add & Norm
        return x, weights

    @torch.no_grad()
    def load_from_torch(self, torch_layer: nn.TransformerEncoderLayer) -> EncoderLayer:
        """Copy the weights of a ``torch.nn.TransformerEncoderLayer`` of the same sizes."""
        _check_torch_layer(torch_layer, nn.TransformerEncoderLayer, self.norm_first)
        pairs = [
            (self.ffn.linear1, torch_layer.linear1),
            (self.ffn.linear2, torch_layer.linear2),
            (self.norm1, torch_layer.norm1),
            (self.norm2, torch_layer.norm2),
        ]
        _check_shapes(pairs)  # before anything is copied
        self.self_attn.load_from_torch(torch_layer.self_attn)
        _copy_linear_and_norms(pairs)
        return self


class Encoder(nn.Module):
    """A stack of ``num_layers`` EncoderLayers, then optionally a final LayerNorm.

    ``final_norm=None`` (the default) adds the final LayerNorm exactly when the layers are
    pre-norm (``norm_first=True``); True/False force it on/off (``torch.nn.Transformer`` always
    has one, also after post-norm layers).

    Lecture 06; Vaswani et al. 2017 section 3.1.
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
            EncoderLayer(d_model, num_heads, d_ff, **layer_kwargs) for _ in range(num_layers)
        )
        self.final_norm = _final_norm(d_model, final_norm, layer_kwargs)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """x (B, T, D) -> out (B, T, D) and a list of per-layer weights (B, H, T, T)."""
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask)
            all_weights.append(weights)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return x, all_weights


def __getattr__(name: str):
    """The lecture 10 classes, imported on first use (see ``_LAZY``)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
