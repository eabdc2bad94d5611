"""GPT: a decoder-only Transformer language model (GPT-1, GPT-2, GPT-3), with a KV cache.

Token + learned position embeddings, a stack of causal self-attention blocks, and an output
layer tied to the token embedding: position t's logits predict token t + 1. GPT-1 puts the
LayerNorm after each residual sum (post-norm, as the original Transformer); GPT-2 and GPT-3 put
it before each sub-layer (pre-norm) and add a final LayerNorm. Weights are interchangeable with
Hugging Face's ``transformers.GPT2LMHeadModel`` (and ``OpenAIGPTLMHeadModel``, GPT-1):
``GPT.from_hf`` copies them and the logits agree (tests/models/test_gpt.py).

Public API::

    config = GPTConfig.tiny()            # lecture 14's; GPTConfig() is GPT-1 (Radford et al. 2018)
    GPTConfig.gpt1(), GPTConfig.gpt2(size="small" | "medium" | "large" | "xl"), GPTConfig.gpt3()
    model = GPT(config, generator=None)  # GPT-2's initialisation (optionally from a generator)
    out = model(input_ids, attention_mask=None, cache=None, use_cache=False)
    #   input_ids (B, T) integer ids; positions T_past .. T_past + T - 1 (T_past = cache length)
    #   attention_mask (B, T_past + T) bool (or HF's 1/0), True at real tokens
    #   cache: what a previous call with use_cache=True returned (the keys and values of the
    #       positions before these T), or None
    #   out.logits (B, T, V): position t predicts token t + 1
    #   out.attentions: per layer (B, H, T, T_past + T)
    #   out.cache: per layer (keys, values), each (B, H, T_past + T, Dh), if use_cache
    model = GPT.from_hf(hf_model)        # transformers.GPT2LMHeadModel / OpenAIGPTLMHeadModel
    init_gpt_weights(model, generator=None)   # N(0, 0.02), residual projections / sqrt(2 L)

Feeding the tokens one at a time with the returned cache gives the same logits as one call on
the whole sequence: each new position computes only its own query, key and value and attends
to the cached keys and values of the positions before it (lecture 10's KV cache).

Lecture 14; Radford et al. 2018 (GPT) section 3.1, Radford et al. 2019 (GPT-2) section 2.3,
Brown et al. 2020 (GPT-3) table 2.1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import torch
from torch import nn

from lecturekit.attention import KVCache
from lecturekit.layers import EncoderLayer
from lecturekit.masking import causal_mask, combine_masks, key_padding_mask
from lecturekit.models.bert import check_hf_layer_norms
from lecturekit.utils.checks import (
    check_bool,
    check_ids,
    check_instance,
    check_padding_mask,
    did_you_mean,
    shape_of,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.contracts import check_shapes
from lecturekit.utils.weights import HF_MAPS, load_mapped

__all__ = ["GPT2_SIZES", "GPTConfig", "GPTOutput", "gpt_block", "GPT", "init_gpt_weights"]

# GPT-2's four models (Radford et al. 2019 table 2): layers, width, heads
GPT2_SIZES: dict[str, tuple[int, int, int]] = {
    "small": (12, 768, 12),
    "medium": (24, 1024, 16),
    "large": (36, 1280, 20),
    "xl": (48, 1600, 25),
}
KV = tuple[torch.Tensor, torch.Tensor]  # keys, values, each (B, H, T, Dh)


@dataclass(frozen=True)
class GPTConfig(ModelConfig):
    """Sizes of a GPT (Hugging Face's GPT2Config names in brackets).

    The defaults are GPT-1 (Radford et al. 2018): a BPE vocabulary of 40,000 merges (40,478
    tokens), 512 positions, 12 post-norm layers of width 768 with 12 heads, feed-forward 3072,
    dropout 0.1 (about 117 M parameters). ``gpt2(size)`` and ``gpt3()`` are the later models
    (pre-norm with a final LayerNorm); ``tiny()`` is lecture 14's: a 450-entry vocabulary, 128
    positions, width 64, 2 pre-norm layers of 4 heads, feed-forward 256.

    Lecture 14; Radford et al. 2018 section 4.1; Radford et al. 2019 table 2; Brown et al.
    2020 table 2.1.
    """

    TINY: ClassVar[dict[str, object]] = {"vocab_size": 450, "max_position": 128,
                                         "hidden_size": 64, "num_layers": 2, "num_heads": 4,
                                         "intermediate_size": 256, "pre_norm": True}  # fmt: skip

    vocab_size: int = 40478
    max_position: int = 512  # [n_positions]
    hidden_size: int = 768  # [n_embd]
    num_layers: int = 12  # [n_layer]
    num_heads: int = 12  # [n_head]
    intermediate_size: int = 3072  # [n_inner, None = 4 * n_embd]
    dropout: float = 0.1  # [resid_pdrop = embd_pdrop = attn_pdrop]
    layer_norm_eps: float = 1e-5  # [layer_norm_epsilon]
    pre_norm: bool = False  # GPT-1 post-norm; GPT-2/3 pre-norm + a final LayerNorm

    def __post_init__(self) -> None:
        self.check_positive("vocab_size", "max_position", "hidden_size", "num_layers",
                            "intermediate_size")  # fmt: skip
        self.check_attention("hidden_size")
        check_bool("pre_norm", self.pre_norm)

    @classmethod
    def gpt1(cls) -> GPTConfig:
        """GPT-1 (the defaults): 12 post-norm layers, width 768, 12 heads, feed-forward 3072,
        512 positions, 40,478 tokens (about 117 M parameters).

        Lecture 14; Radford et al. 2018 section 4.1.
        """
        return cls()

    @classmethod
    def gpt2(cls, size: str = "xl") -> GPTConfig:
        """GPT-2 of ``size`` (GPT2_SIZES): small 12 layers x 768 (12 heads), medium 24 x 1024
        (16), large 36 x 1280 (20), xl 48 x 1600 (25, the 1.5 B model); pre-norm,
        feed-forward 4 x width, 1,024 positions, 50,257 tokens.

        Lecture 14; Radford et al. 2019 table 2 and section 2.3.
        """
        if size not in GPT2_SIZES:
            raise ValueError(
                f"size={size!r} is not a GPT-2 size: one of {list(GPT2_SIZES)}"
                f"{did_you_mean(size, GPT2_SIZES)}"
            )
        layers, width, heads = GPT2_SIZES[size]
        return cls(vocab_size=50257, max_position=1024, hidden_size=width, num_layers=layers,
                   num_heads=heads, intermediate_size=4 * width, pre_norm=True)  # fmt: skip

    @classmethod
    def gpt3(cls) -> GPTConfig:
        """GPT-3 175B: 96 pre-norm layers, width 12,288, 96 heads (of 128), feed-forward
        49,152, 2,048 positions, 50,257 tokens. (GPT-3 alternates dense and locally banded
        sparse attention layers; that changes no parameter count, lecturekit's are all dense.)

        Lecture 14; Brown et al. 2020 table 2.1.
        """
        return cls(vocab_size=50257, max_position=2048, hidden_size=12288, num_layers=96,
                   num_heads=96, intermediate_size=49152, pre_norm=True)  # fmt: skip


class GPTOutput(NamedTuple):
    logits: torch.Tensor  # (B, T, V): position t predicts token t + 1
    attentions: list[torch.Tensor]  # per layer (B, H, T, T_past + T)
    cache: list[KV] | None  # per layer (keys, values), each (B, H, T_past + T, Dh)


def gpt_block(config: GPTConfig) -> EncoderLayer:
    """One decoder block: masked multi-head self-attention and a feed-forward (GELU, tanh
    approximation: GPT's and Hugging Face's ``gelu_new``), each with a residual connection and a
    LayerNorm. It is the encoder-decoder's layer without cross-attention, run with a causal mask:
    lecturekit's one Transformer block (``lecturekit.layers.EncoderLayer``).

    Pre-norm (GPT-2/3): x = x + attn(norm1(x)); x = x + ffn(norm2(x)).
    Post-norm (GPT-1): x = norm1(x + attn(x)); x = norm2(x + ffn(x)).
    Dropout on the attention weights and on each sub-layer's output, none inside the
    feed-forward (Hugging Face's GPT2MLP).

    Lecture 14; Radford et al. 2018 eq. 2; Radford et al. 2019 section 2.3.
    """
    check_instance("config", config, GPTConfig)
    return EncoderLayer(config.hidden_size, config.num_heads, config.intermediate_size,
                        config.dropout, "gelu_tanh", config.pre_norm, config.layer_norm_eps,
                        hidden_dropout=False)  # fmt: skip


@torch.no_grad()
def init_gpt_weights(model: GPT, generator: torch.Generator | None = None) -> None:
    """GPT-2's initialisation: N(0, 0.02) weights of every Linear and Embedding, zero biases,
    LayerNorms 1 and 0, and the two residual projections of each block (attention output W^O
    and the feed-forward's second layer) N(0, 0.02 / sqrt(2 L)) for L blocks.

    ``generator``: a ``torch.Generator`` to draw from (the global random state is left alone),
    or None for torch's global one.

    Lecture 14; Radford et al. 2019 section 2.3 ("scale the weights of residual layers at
    initialization by a factor of 1/sqrt(N)").
    """
    check_instance("model", model, GPT)
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    for module in model.modules():
        if isinstance(module, nn.Linear | nn.Embedding):
            module.weight.normal_(0.0, 0.02, generator=generator)
        if isinstance(module, nn.Linear) and module.bias is not None:
            module.bias.zero_()
        if isinstance(module, nn.LayerNorm):
            module.weight.fill_(1.0), module.bias.zero_()
    std = 0.02 / math.sqrt(2 * len(model.blocks))
    for block in model.blocks:
        block.self_attn.w_o.weight.normal_(0.0, std, generator=generator)
        block.ffn.linear2.weight.normal_(0.0, std, generator=generator)


class GPT(nn.Module):
    """A decoder-only Transformer language model; the output layer is the token embedding
    (tied, no bias): logits = h E^T.

    Args:
        config: a GPTConfig.
        generator: a ``torch.Generator`` for the initial weights (``init_gpt_weights``), or None.

    Lecture 14; Radford et al. 2018 eq. 2 (h_0 = U W_e + W_p; h_l = block(h_{l-1});
    P(u) = softmax(h_n W_e^T)); Radford et al. 2019 section 2.3.
    """

    def __init__(self, config: GPTConfig, *, generator: torch.Generator | None = None):
        super().__init__()
        check_instance("config", config, GPTConfig)
        self.config = config
        D = config.hidden_size
        self.token_embedding = nn.Embedding(config.vocab_size, D)  # W_e
        self.position_embedding = nn.Embedding(config.max_position, D)  # W_p
        self.dropout = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(gpt_block(config) for _ in range(config.num_layers))
        self.final_norm = nn.LayerNorm(D, eps=config.layer_norm_eps) if config.pre_norm else None
        init_gpt_weights(self, generator)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        cache: Sequence[KV] | None = None,
        use_cache: bool = False,
    ) -> GPTOutput:
        """Next-token logits of every position.

        Args:
            input_ids: (B, T) integer ids in 0..vocab_size-1, T >= 1; they sit at positions
                T_past .. T_past + T - 1, and T_past + T <= max_position.
            attention_mask: (B, T_past + T) bool, True at real tokens (or Hugging Face's 1/0),
                covering the cached positions too; None = all real.
            cache: per layer (keys, values), each (B, H, T_past, Dh): the ``cache`` of an
                earlier call with ``use_cache=True``; None = no earlier positions (T_past = 0).
            use_cache: whether to return the keys and values of all T_past + T positions.

        Returns:
            GPTOutput(logits (B, T, V), attentions per layer (B, H, T, T_past + T), cache per
            layer (keys, values) each (B, H, T_past + T, Dh), or None unless ``use_cache``).

        Lecture 14; Radford et al. 2018 eq. 2.
        """
        T_past, real = self._check_inputs(input_ids, attention_mask, cache, use_cache)
        T, device = input_ids.shape[1], input_ids.device
        mask = causal_mask(T_past + T, device=device)[T_past:]  # (T, T_past + T): t sees <= t
        if real is not None:
            mask = combine_masks(mask, key_padding_mask(real))  # -> (B, 1, T, T_past + T)
        positions = torch.arange(T_past, T_past + T, device=device)  # (T,)
        x = self.token_embedding(input_ids.long()) + self.position_embedding(positions)  # (B,T,D)
        x = self.dropout(x)
        caches = [KVCache(*kv) for kv in cache] if cache else [KVCache() for _ in self.blocks]
        attentions = []
        for block, kv in zip(self.blocks, caches, strict=True):
            x, weights = block(x, mask, kv)  # kv: extended by these T positions
            attentions.append(weights)
        if self.final_norm is not None:
            x = self.final_norm(x)
        logits = x @ self.token_embedding.weight.T  # (B, T, D) @ (D, V) -> (B, T, V)
        new_cache = [(kv.keys, kv.values) for kv in caches] if use_cache else None
        return GPTOutput(logits, attentions, new_cache)

    def _check_inputs(self, input_ids: object, attention_mask: object, cache: object,
                      use_cache: object) -> tuple[int, torch.Tensor | None]:  # fmt: skip
        """forward's arguments checked: T_past (the cache's length) and the (B, T_past + T)
        bool padding mask (None if not given)."""
        check_bool("use_cache", use_cache)
        c = self.config
        check_ids("input_ids", input_ids, c.vocab_size, 2, wanted="(B, T)")
        B, T = input_ids.shape
        if T == 0:
            raise ValueError(f"input_ids must hold at least one position (B, T >= 1), got "
                             f"{tuple(input_ids.shape)}")  # fmt: skip
        T_past = self._check_cache(cache, B)
        if T_past + T > c.max_position:
            raise ValueError(
                f"the prompt is longer than the context: input_ids has T={T} positions after "
                f"T_past={T_past} cached ones, T_past + T = {T_past + T} > max_position="
                f"{c.max_position}"
            )
        if attention_mask is None:
            return T_past, None
        return T_past, check_padding_mask("attention_mask", attention_mask, (B, T_past + T))

    def _check_cache(self, cache: object, batch: int) -> int:
        """T_past: the length of a valid cache (0 for None). A cache is a list with one
        (keys, values) pair per layer, each (batch, H, T_past, Dh) of the model's dtype, one
        T_past for all."""
        if cache is None:
            return 0
        L, H = len(self.blocks), self.config.num_heads
        Dh = self.config.hidden_size // H
        wanted = f"a list of {L} (keys, values) pairs, each (B={batch}, H={H}, T_past, Dh={Dh})"
        if not isinstance(cache, (list, tuple)) or len(cache) != L:
            got = (f"a {type(cache).__name__} of {len(cache)}" if isinstance(cache, (list, tuple))
                   else str(shape_of(cache)))  # fmt: skip
            raise ValueError(f"cache must be {wanted} (out.cache of a call with use_cache=True), "
                             f"got {got}")  # fmt: skip
        for i, pair in enumerate(cache):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                got = shape_of(pair) if not isinstance(pair, (list, tuple)) else len(pair)
                raise ValueError(f"cache[{i}] must be a pair (keys, values), got {got}")
        tensors = {f"cache[{i}] {name}": t for i, kv in enumerate(cache)
                   for name, t in zip(("keys", "values"), kv, strict=True)}  # fmt: skip
        spec = f"B={batch} H={H} T_past Dh={Dh}"
        check_shapes(tensors, dict.fromkeys(tensors, spec), owner=self)
        T_past = cache[0][0].shape[2]
        return int(T_past)

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> GPT:
        """The same model as a ``transformers.GPT2LMHeadModel`` (GPT-2, pre-norm) or
        ``OpenAIGPTLMHeadModel`` (GPT-1, post-norm), weights copied; in eval mode the logits
        and attention weights agree (atol 1e-5).

        Hugging Face keeps GPT's projections as ``Conv1D`` layers with weights (in, out), and
        W^Q, W^K, W^V side by side in one ``c_attn`` (D, 3D): ours are Linear layers, so each
        is a transposed slice. Options lecturekit's GPT does not have raise a ValueError
        naming them and copy nothing: an activation other than the tanh-approximated GELU,
        unscaled attention, ``scale_attn_by_inverse_layer_idx``, ``reorder_and_upcast_attn``,
        cross-attention, an output layer not tied to the token embedding. Dropout is
        ``resid_pdrop`` (lecturekit's one rate).

        Lecture 14.
        """
        kind = type(hf_model).__name__
        if kind not in ("GPT2LMHeadModel", "OpenAIGPTLMHeadModel"):
            raise ValueError(
                "hf_model must be a transformers.GPT2LMHeadModel (or OpenAIGPTLMHeadModel), got "
                f"{kind}"
            )
        gpt2 = kind == "GPT2LMHeadModel"
        config = _config_from_hf(hf_model.config, gpt2)
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        tr = hf_model.transformer
        token = tr.wte if gpt2 else tr.tokens_embed
        head = hf_model.lm_head
        if getattr(head, "bias", None) is not None or not torch.equal(head.weight, token.weight):
            raise ValueError(
                "hf_model.lm_head is not the token embedding (tied, no bias): lecturekit's GPT "
                "ties its output layer to the token embedding; nothing was copied"
            )
        model = load_mapped(cls(config), hf_model, HF_MAPS[kind])
        return model.train(hf_model.training)


def _config_from_hf(c: object, gpt2: bool) -> GPTConfig:
    """lecturekit's GPTConfig of a Hugging Face GPT2Config (``gpt2``) or OpenAIGPTConfig;
    options lecturekit's GPT does not have raise a ValueError naming them."""
    if gpt2:
        unsupported = {
            "activation_function": (c.activation_function, ("gelu_new", "gelu_pytorch_tanh")),
            "scale_attn_weights": (c.scale_attn_weights, (True,)),
            "scale_attn_by_inverse_layer_idx": (c.scale_attn_by_inverse_layer_idx, (False,)),
            "reorder_and_upcast_attn": (c.reorder_and_upcast_attn, (False,)),
            "add_cross_attention": (getattr(c, "add_cross_attention", False), (False,)),
        }
    else:  # OpenAI GPT: afn "gelu" is gelu_new there
        unsupported = {"afn": (c.afn, ("gelu",))}
    unsupported["tie_word_embeddings"] = (getattr(c, "tie_word_embeddings", True), (True,))
    for name, (seen, wanted) in unsupported.items():
        if seen not in wanted:
            ours = " or ".join(repr(w) for w in wanted)
            raise ValueError(
                f"hf_model.config.{name}={seen!r} is not supported: lecturekit's GPT has "
                f"{name}={ours} (copying would change the function); nothing was copied"
            )
    inner = getattr(c, "n_inner", None) if gpt2 else None
    return GPTConfig(
        vocab_size=c.vocab_size,
        max_position=c.n_positions,
        hidden_size=c.n_embd,
        num_layers=c.n_layer,
        num_heads=c.n_head,
        intermediate_size=inner if inner is not None else 4 * c.n_embd,
        dropout=float(c.resid_pdrop),
        layer_norm_eps=c.layer_norm_epsilon,
        pre_norm=gpt2,
    )
