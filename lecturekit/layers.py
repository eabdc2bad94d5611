"""Transformer layers: the position-wise feed-forward network, the encoder and decoder layers with
their "Add & Norm" sublayers, and the encoder and decoder stacks.

Public API::

    ffn = PositionwiseFeedForward(d_model, d_ff, dropout=0.0, activation="relu")
    layer = EncoderLayer(d_model, num_heads, d_ff, dropout=0.0, activation="relu",
                         norm_first=False, layer_norm_eps=1e-5)
    out, weights = layer(x, mask=None)          # x (B, T, D); weights (B, H, T, T)
    layer = DecoderLayer(d_model, num_heads, d_ff, ...)            # the same arguments
    out, self_weights, cross_weights = layer(x, memory, self_mask=None, memory_mask=None)
    #   x (B, T, D) target states, memory (B, S, D) encoder output
    #   self_mask bool broadcastable to (B, H, T, T) (e.g. lecturekit.masking.decoder_mask)
    #   memory_mask bool broadcastable to (B, H, T, S) (e.g. key_padding_mask(src_pad))
    #   out (B, T, D), self_weights (B, H, T, T), cross_weights (B, H, T, S)
    out, aux = layer.sublayer(i, x, fn)         # Add & Norm around fn, with the i-th norm
    encoder = Encoder(num_layers, d_model, num_heads, d_ff, final_norm=None, ...)
    out, all_weights = encoder(x, mask=None)    # all_weights: list of (B, H, T, T), one per layer
    decoder = Decoder(num_layers, d_model, num_heads, d_ff, final_norm=None, ...)
    out, self_weights, cross_weights = decoder(x, memory, self_mask, memory_mask)
    #   lists of (B, H, T, T) / (B, H, T, S), one per layer
    layer.load_from_torch(torch_layer)          # torch.nn.TransformerEncoderLayer / DecoderLayer
    encoder.load_from_torch(torch_encoder)      # torch.nn.TransformerEncoder / TransformerDecoder

Post-norm (the paper, ``norm_first=False``): h = LayerNorm(x + Sublayer(x)).
Pre-norm (``norm_first=True``, ViT): h = x + Sublayer(LayerNorm(x)).
The decoder's cross-attention takes its queries from the decoder and its keys and values from
the encoder output ("memory"), so every target position can look at every source position.
Generating token by token without recomputing the prefix: ``lecturekit.kv_cache``.

Inputs: x and memory are floating tensors (B, T, d_model) of the layers' weight dtype (float32
unless the module was converted: a float64 array from numpy gets "pass x.float()"); T = 0 is
legitimate (an empty output). Masks follow ``lecturekit.masking`` (bool, True = may attend).
Sizes must be positive, dropout in [0, 1), layer_norm_eps > 0.
``load_from_torch`` compares every field that changes the function (d_model, nhead,
dim_feedforward, activation, norm_first, layer_norm_eps, bias, batch_first=True) and copies
nothing on a mismatch; dropout is not compared (it does nothing in eval mode).

Lectures 04, 06 and 10; Vaswani et al. 2017 sections 3.1, 3.2.3 and 3.3.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.attention import KVCache, MultiHeadAttention, check_torch_mha
from lecturekit.masking import check_mask
from lecturekit.utils.checks import (
    check_bool,
    check_callable,
    check_choice,
    check_positive_int,
    check_range,
    shape_of,
)
from lecturekit.utils.contracts import contract
from lecturekit.utils.weights import TORCH_MAPS, load_mapped

__all__ = [
    "PositionwiseFeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "Encoder",
    "Decoder",
]

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),  # GPT's (Hugging Face's "gelu_new")
}


class PositionwiseFeedForward(nn.Module):
    """FFN(x) = act(x W1 + b1) W2 + b2, applied to each position separately.

    ``activation``: "relu" (the paper), "gelu" (BERT, ViT) or "gelu_tanh" (GPT). ``dropout``
    acts on the hidden layer (torch's layers do this; GPT and BERT do not: ``hidden_dropout``).

    Lecture 04; Vaswani et al. 2017 eq. 2.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu",
                 *, hidden_dropout: bool = True):  # fmt: skip
        super().__init__()
        check_bool("hidden_dropout", hidden_dropout)
        check_choice("activation", activation, sorted(ACTIVATIONS))
        check_positive_int("d_model", d_model)
        check_positive_int("d_ff", d_ff)
        check_range("dropout", dropout, 0, 1, high_open=True)
        self.d_model = d_model
        self.linear1 = nn.Linear(d_model, d_ff)  # (B, T, D) -> (B, T, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)  # (B, T, d_ff) -> (B, T, D)
        self.activation = activation
        self.dropout = nn.Dropout(dropout if hidden_dropout else 0.0)

    @contract(x="... d_model")
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, D) -> (B, T, D) (any leading dims (..., D): position-wise)."""
        return self.linear2(self.dropout(ACTIVATIONS[self.activation](self.linear1(x))))


def _activation_name(fn: object) -> str | None:
    """Our name ("relu" or "gelu") of a torch layer's activation, None if we have none equal."""
    if fn is F.relu or isinstance(fn, nn.ReLU):
        return "relu"
    if fn is F.gelu or (isinstance(fn, nn.GELU) and fn.approximate == "none"):
        return "gelu"
    return None


class _Sublayers(nn.Module):
    """What encoder and decoder layers share: residual "Add & Norm" wrappers, each with its own
    LayerNorm (``norm1``, ``norm2``, ...) and dropout (``dropout1``, ...)."""

    def _add_sublayers(self, d_model: int, count: int, dropout: float, norm_first: bool,
                       layer_norm_eps: float) -> None:  # fmt: skip
        """Create the norms, then the dropouts (after the sublayers themselves, so parameters
        come in the order attention, feed-forward, norms)."""
        check_bool("norm_first", norm_first)
        check_range("layer_norm_eps", layer_norm_eps, 0, torch.inf, low_open=True, high_open=True)
        for i in range(1, count + 1):
            setattr(self, f"norm{i}", nn.LayerNorm(d_model, eps=layer_norm_eps))
        for i in range(1, count + 1):
            setattr(self, f"dropout{i}", nn.Dropout(dropout))
        self.d_model = d_model
        self.norm_first = norm_first
        self.num_sublayers = count

    @contract(x="B T d_model")
    def sublayer(
        self, i: int, x: torch.Tensor, fn: Callable[[torch.Tensor], tuple[torch.Tensor, object]]
    ) -> tuple[torch.Tensor, object]:
        """Sublayer ``i`` (1, 2, ...) wrapped in a residual connection and LayerNorm:
        post-norm norm_i(x + dropout_i(out)), pre-norm x + dropout_i(out) with out computed from
        norm_i(x). ``fn(h) -> (out (B, T, D), aux)`` with out of h's shape; returns (the new x,
        aux), aux being e.g. the attention weights.

        Lecture 06 (Add & Norm); Vaswani et al. 2017 section 3.1.
        """
        if isinstance(i, bool) or not isinstance(i, int) or not 1 <= i <= self.num_sublayers:
            raise ValueError(f"i must be a sublayer number in 1..{self.num_sublayers}, got {i!r}")
        check_callable("fn", fn)
        norm, dropout = getattr(self, f"norm{i}"), getattr(self, f"dropout{i}")
        if self.norm_first:
            out, aux = _sublayer_output(fn, norm(x), x)
            return x + dropout(out), aux
        out, aux = _sublayer_output(fn, x, x)
        return norm(x + dropout(out)), aux  # Add & Norm

    # Copying a torch layer: every field that changes the function is compared first.

    torch_class: type[nn.Module]

    def _attention_pairs(self, torch_layer: nn.Module) -> list[tuple[str, MultiHeadAttention]]:
        """(torch's attribute name, our MultiHeadAttention) of each attention sublayer."""
        raise NotImplementedError  # pragma: no cover

    def _check_torch(self, torch_layer: object) -> None:
        """Raise ValueError, naming the field and both values, unless ``torch_layer`` computes
        the same function as this layer."""
        expected = self.torch_class
        if not isinstance(torch_layer, expected):
            raise ValueError(
                f"torch_layer must be a torch.nn.{expected.__name__}, got "
                f"{type(torch_layer).__name__}"
            )
        t = torch_layer

        def differ(field: str, theirs: object, ours: object, our_field: str = "") -> None:
            if theirs != ours:
                raise ValueError(
                    f"torch_layer has {field}={theirs!r}, this layer has "
                    f"{our_field or field}={ours!r}"
                )

        differ("norm_first", t.norm_first, self.norm_first)
        differ("d_model", t.self_attn.embed_dim, self.d_model)
        differ("nhead", t.self_attn.num_heads, self.self_attn.num_heads, "num_heads")
        d_ff, ours = t.linear1.out_features, self.ffn.linear1.out_features
        if d_ff != ours:
            raise ValueError(
                f"torch_layer has dim_feedforward={d_ff}, this layer has d_ff={ours} (a weight "
                "shape mismatch)"
            )
        activation = _activation_name(t.activation)
        if activation != self.ffn.activation:
            theirs = repr(activation) if activation else repr(t.activation)
            lacks = "" if activation else " (lecturekit has 'relu' and the exact 'gelu' only)"
            raise ValueError(
                f"torch_layer has activation={theirs}, this layer has "
                f"activation={self.ffn.activation!r}{lacks}"
            )
        for i in range(1, self.num_sublayers + 1):
            eps = getattr(t, f"norm{i}").eps
            differ("layer_norm_eps", eps, getattr(self, f"norm{i}").eps)
        differ("bias", t.linear1.bias is not None, True)
        if not t.self_attn.batch_first:
            raise ValueError(
                "torch_layer has batch_first=False (inputs (T, B, D)), this layer is "
                "batch-first (B, T, D): build the torch layer with batch_first=True"
            )
        for name, mha in self._attention_pairs(t):
            check_torch_mha(mha, getattr(t, name), f"torch_layer.{name}")

    @torch.no_grad()
    def load_from_torch(self, torch_layer: nn.Module) -> _Sublayers:
        """Copy the weights of a torch layer of the same configuration (``torch_class``): a
        field that changes the function (d_model, nhead, dim_feedforward, activation,
        norm_first, layer_norm_eps, bias, batch_first) differs -> ValueError, nothing copied."""
        self._check_torch(torch_layer)
        return load_mapped(self, torch_layer, TORCH_MAPS[self.torch_class], "torch_layer")


def _sublayer_output(
    fn: Callable[[torch.Tensor], tuple[torch.Tensor, object]], h: torch.Tensor, x: torch.Tensor
) -> tuple[torch.Tensor, object]:
    """fn(h), checked to be (out, aux) with out of x's shape (else the residual sum would
    broadcast or fail)."""
    result = fn(h)
    if not (isinstance(result, tuple) and len(result) == 2):
        got = shape_of(result) if isinstance(result, torch.Tensor) else type(result).__name__
        raise ValueError(f"fn must return a pair (out (B, T, D), aux), got {got}")
    out = result[0]
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        raise ValueError(
            f"fn must return out of x's shape {tuple(x.shape)} in (out, aux), got {shape_of(out)}"
        )
    return result


class EncoderLayer(_Sublayers):
    """Self-attention and feed-forward, each wrapped in a residual connection and LayerNorm.

    Args:
        d_model, num_heads: as in MultiHeadAttention.
        d_ff: hidden width of the feed-forward network.
        dropout: on attention weights, sublayer outputs and the FFN hidden layer (training only).
        activation: "relu" (the paper), "gelu" (BERT, ViT) or "gelu_tanh" (GPT).
        norm_first: False = post-norm as in the paper (and GPT-1); True = pre-norm (ViT, GPT-2).
        layer_norm_eps: LayerNorm epsilon.
        hidden_dropout: dropout on the feed-forward's hidden layer too (torch's; GPT has none).

    With a causal mask this is also GPT's decoder block (``lecturekit.models.gpt``): a
    decoder-only model has no cross-attention.

    Lecture 06 (Add & Norm); Vaswani et al. 2017 section 3.1; Radford et al. 2018 eq. 2.
    """

    torch_class = nn.TransformerEncoderLayer

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        activation: str = "relu",
        norm_first: bool = False,
        layer_norm_eps: float = 1e-5,
        *,
        hidden_dropout: bool = True,
    ):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout, activation,
                                           hidden_dropout=hidden_dropout)  # fmt: skip
        self._add_sublayers(d_model, 2, dropout, norm_first, layer_norm_eps)

    @contract(x="B T d_model")
    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, cache: KVCache | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, D), mask bool broadcastable to (B, H, T, T_past + T); ``cache``: the
        self-attention keys and values of T_past earlier positions, extended by these T.

        Returns out (B, T, D) and weights (B, H, T, T_past + T).
        """
        x, weights = self.sublayer(1, x, lambda h: self.self_attn(h, h, h, mask, cache))
        x, _ = self.sublayer(2, x, lambda h: (self.ffn(h), None))
        return x, weights

    def _attention_pairs(self, torch_layer: nn.Module) -> list[tuple[str, MultiHeadAttention]]:
        return [("self_attn", self.self_attn)]


class DecoderLayer(_Sublayers):
    """Masked self-attention, cross-attention over the encoder output, feed-forward; each with a
    residual connection and LayerNorm.

    Args: as ``EncoderLayer`` (both attentions have ``num_heads`` heads).

    Lecture 10; Vaswani et al. 2017 section 3.1 ("a third sub-layer, which performs multi-head
    attention over the output of the encoder stack").
    """

    torch_class = nn.TransformerDecoderLayer

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
        self._add_sublayers(d_model, 3, dropout, norm_first, layer_norm_eps)

    @contract(x="B T d_model", memory="B S d_model")
    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor | None,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
        cache: KVCache | None = None,
        memory_cache: KVCache | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Args:
            x: (B, T, D) target-side states.
            memory: (B, S, D) the encoder's output (None if ``memory_cache`` holds its keys
                and values).
            self_mask: bool broadcastable to (B, H, T, T), True = may attend; the causal mask
                (and target padding) so position t sees only positions <= t.
            memory_mask: bool broadcastable to (B, H, T, S); usually the source padding mask
                as (B, 1, 1, S) (``lecturekit.masking.key_padding_mask``).
            cache: the self-attention keys and values of earlier positions (decoding step by
                step, ``lecturekit.kv_cache``); memory_cache: a static cache of the memory's.

        Returns:
            out (B, T, D), self-attention weights (B, H, T, T), cross-attention weights
            (B, H, T, S).
        """
        if memory is not None:
            (B, T, _), S, H = x.shape, memory.shape[1], self.self_attn.num_heads
            if self_mask is not None:
                check_mask(self_mask, (B, H, T, T), "self_mask")
            if memory_mask is not None:
                check_mask(memory_mask, (B, H, T, S), "memory_mask")
        x, self_weights = self.sublayer(1, x, lambda h: self.self_attn(h, h, h, self_mask, cache))
        x, cross_weights = self.sublayer(
            2, x, lambda h: self.cross_attn(h, memory, memory, memory_mask, memory_cache)
        )
        x, _ = self.sublayer(3, x, lambda h: (self.ffn(h), None))
        return x, self_weights, cross_weights

    def _attention_pairs(self, torch_layer: nn.Module) -> list[tuple[str, MultiHeadAttention]]:
        # torch names the cross-attention ``multihead_attn``; everything else maps one to one
        return [("self_attn", self.self_attn), ("multihead_attn", self.cross_attn)]


class _Stack(nn.Module):
    """A stack of ``num_layers`` layers, then optionally a final LayerNorm.

    ``final_norm=None`` (the default) adds the final LayerNorm exactly when the layers are
    pre-norm (``norm_first=True``); True/False force it on/off (``torch.nn.Transformer`` always
    has one, also after post-norm layers).
    """

    layer_class: type[nn.Module]
    torch_class: type[nn.Module]

    def __init__(self, num_layers: int, d_model: int, num_heads: int, d_ff: int, *,
                 final_norm: bool | None = None, **layer_kwargs):  # fmt: skip
        super().__init__()
        check_positive_int("num_layers", num_layers)
        if final_norm is not None:
            check_bool("final_norm", final_norm)
        self.d_model = d_model
        self.layers = nn.ModuleList(
            self.layer_class(d_model, num_heads, d_ff, **layer_kwargs) for _ in range(num_layers)
        )
        if final_norm is None:
            final_norm = bool(layer_kwargs.get("norm_first"))
        eps = layer_kwargs.get("layer_norm_eps", 1e-5)
        self.final_norm = nn.LayerNorm(d_model, eps=eps) if final_norm else None

    @torch.no_grad()
    def load_from_torch(self, torch_stack: nn.Module) -> _Stack:
        """Copy a torch stack (same number of layers; a final norm exactly when it has one,
        with the same eps; every layer as in the layers' ``load_from_torch``). Everything is
        checked before anything is copied."""
        self._check_torch(torch_stack)
        return load_mapped(self, torch_stack, TORCH_MAPS[self.torch_class], "torch_stack")

    def _check_torch(self, torch_stack: object) -> None:
        """Raise ValueError unless ``torch_stack`` computes the same function as this stack."""
        name = self.torch_class.__name__
        if not isinstance(torch_stack, self.torch_class):
            raise ValueError(
                f"torch_stack must be a torch.nn.{name}, got {type(torch_stack).__name__}"
            )
        if len(self.layers) != len(torch_stack.layers):
            raise ValueError(
                f"the torch.nn.{name} has {len(torch_stack.layers)} layers, this stack has "
                f"{len(self.layers)}"
            )
        if (torch_stack.norm is None) != (self.final_norm is None):
            raise ValueError(
                f"the torch.nn.{name} {'has no' if torch_stack.norm is None else 'has a'} final "
                f"LayerNorm, this stack {'has one' if self.final_norm is not None else 'has none'}"
                " (set final_norm)"
            )
        if self.final_norm is not None:
            eps, ours = getattr(torch_stack.norm, "eps", None), self.final_norm.eps
            if eps != ours:
                raise ValueError(
                    f"the torch.nn.{name}'s final norm has eps={eps!r}, this stack's final_norm "
                    f"has eps={ours!r} (layer_norm_eps)"
                )
        for i, (layer, torch_layer) in enumerate(zip(self.layers, torch_stack.layers, strict=True)):
            try:
                layer._check_torch(torch_layer)
            except ValueError as e:
                raise ValueError(f"layer {i}: {e}") from None

    def _final(self, x: torch.Tensor) -> torch.Tensor:
        return x if self.final_norm is None else self.final_norm(x)


class Encoder(_Stack):
    """A stack of ``num_layers`` EncoderLayers, then optionally a final LayerNorm (see
    ``final_norm``: by default exactly when the layers are pre-norm).

    ``load_from_torch(torch_encoder)`` copies a ``torch.nn.TransformerEncoder``.

    Lecture 06; Vaswani et al. 2017 section 3.1.
    """

    layer_class = EncoderLayer
    torch_class = nn.TransformerEncoder

    @contract(x="B T d_model")
    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """x (B, T, D) -> out (B, T, D) and a list of per-layer weights (B, H, T, T)."""
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask)
            all_weights.append(weights)
        return self._final(x), all_weights


class Decoder(_Stack):
    """A stack of ``num_layers`` DecoderLayers, then optionally a final LayerNorm (as
    ``Encoder``).

    ``load_from_torch(torch_decoder)`` copies a ``torch.nn.TransformerDecoder``.

    Lecture 10; Vaswani et al. 2017 section 3.1.
    """

    layer_class = DecoderLayer
    torch_class = nn.TransformerDecoder

    @contract(x="B T d_model", memory="B S d_model")
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
        return self._final(x), self_weights, cross_weights
