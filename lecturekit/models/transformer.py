"""The Transformer of "Attention Is All You Need": the whole encoder-decoder for translation.

Public API::

    config = TransformerConfig.tiny()              # the lecture's; TransformerConfig() the paper's
    model = Transformer(config)
    logits, weights = model(src, tgt_in)           # src (B, S), tgt_in (B, T) ids; logits (B, T, V)
    #   ids: integer tensors of any integer dtype (used as long), each in the vocabulary
    #   padding (id config.pad_id) is masked automatically; or pass src_pad (B, S) /
    #   tgt_pad (B, T) bool, True = real token (1/0 numbers too; an additive 0/-inf mask is
    #   rejected with how to convert it)
    #   weights.encoder / .decoder_self / .cross: lists (one per layer) of (B, H, S, S) /
    #   (B, H, T, T) / (B, H, T, S)
    memory, enc_weights = model.encode(src, src_pad=None)
    logits, self_w, cross_w = model.decode(tgt_in, memory, src_pad, tgt_pad=None)
    ids, cross = model.greedy_decode(src, src_len, max_len)   # as Seq2Seq.greedy_decode
    #   KV-cached: each step computes the new position only (lecturekit.kv_cache)
    step = model.step_function(src_ids)            # for lecturekit.decoding: (N, t) -> (N, V)
    model.load_from_torch(torch_transformer)       # copy a torch.nn.Transformer(batch_first=True)

Masks: source padding in the encoder and in cross-attention; causal AND target padding in the
decoder's self-attention. ``torch.nn.Transformer`` has no embeddings or output layer and always
ends both stacks with a LayerNorm (the paper's post-norm model has none): ``load_from_torch``
needs ``final_norm=True`` and copies everything but our embeddings and generator.

Lecture 10; Vaswani et al. 2017 section 3 and Figure 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import torch
from torch import nn

from lecturekit.datasets.translation import BOS, EOS, PAD
from lecturekit.kv_cache import decoder_step, project_memory
from lecturekit.layers import Decoder, Encoder
from lecturekit.masking import causal_mask, combine_masks, key_padding_mask, padding_mask
from lecturekit.positional import SinusoidalPositionalEncoding
from lecturekit.utils.checks import (
    as_token_ids,
    check_bool,
    check_ids,
    check_index,
    check_instance,
    check_lengths,
    check_padding_mask,
    check_positive_int,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.contracts import contract
from lecturekit.utils.weights import TORCH_MAPS, load_mapped

__all__ = ["TransformerConfig", "AttentionWeights", "Transformer"]


@dataclass(frozen=True)
class TransformerConfig(ModelConfig):
    """Sizes of an encoder-decoder Transformer (``torch.nn.Transformer`` names in brackets).

    The defaults are the paper's base model (d_model 512, 8 heads, d_ff 2048, N = 6, dropout
    0.1, a shared English-German vocabulary of about 37,000 tokens); ``tiny()`` is lecture 10's:
    width 96, 4 heads, 2 + 2 layers, d_ff 192, the toy translation task's vocabularies (46 and
    68 words; ``lecturekit.datasets.translation``), about 0.39 M parameters.

    Lecture 10; Vaswani et al. 2017 Table 3 and section 5.1.
    """

    TINY: ClassVar[dict[str, object]] = {"src_vocab_size": 46, "tgt_vocab_size": 68,
                                         "d_model": 96, "num_heads": 4, "num_layers": 2,
                                         "d_ff": 192}  # fmt: skip

    src_vocab_size: int = 37000
    tgt_vocab_size: int = 37000
    d_model: int = 512
    num_heads: int = 8  # [nhead]
    num_layers: int = 6  # N: encoder layers = decoder layers
    d_ff: int = 2048  # [dim_feedforward]
    dropout: float = 0.1
    max_len: int = 128  # rows of the positional-encoding table
    norm_first: bool = False  # the paper: post-norm
    final_norm: bool | None = None  # None: only with pre-norm; torch.nn.Transformer: True
    layer_norm_eps: float = 1e-5
    pad_id: int = PAD  # the special tokens of both vocabularies: by default those of
    bos_id: int = BOS  # lecturekit.datasets.translation's vocabularies
    eos_id: int = EOS

    def __post_init__(self) -> None:
        self.check_positive("src_vocab_size", "tgt_vocab_size", "d_model", "num_heads",
                            "num_layers", "d_ff", "max_len")  # fmt: skip
        self.check_attention("d_model")
        if self.d_model % 2:
            raise ValueError(f"d_model={self.d_model} must be even (sinusoidal encoding)")
        check_bool("norm_first", self.norm_first)
        if self.final_norm is not None:
            check_bool("final_norm", self.final_norm)
        for name in ("pad_id", "bos_id", "eos_id"):  # ids in both vocabularies
            check_index(name, getattr(self, name), min(self.src_vocab_size, self.tgt_vocab_size))


class AttentionWeights(NamedTuple):
    """Every attention map of one forward pass, one (B, H, Tq, Tk) tensor per layer.

    Lecture 10.
    """

    encoder: list[torch.Tensor]  # (B, H, S, S) source self-attention
    decoder_self: list[torch.Tensor]  # (B, H, T, T) masked target self-attention
    cross: list[torch.Tensor]  # (B, H, T, S) target positions over source positions


class Transformer(nn.Module):
    """Embeddings + positional encoding, N encoder and N decoder layers, a linear generator.

    Lecture 10; Vaswani et al. 2017 section 3, Figure 1.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_instance("config", config, TransformerConfig)
        self.config = c = config
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model, padding_idx=c.pad_id)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.d_model, padding_idx=c.pad_id)
        self.positional = SinusoidalPositionalEncoding(c.d_model, c.max_len, c.dropout)
        layer_kwargs = {"dropout": c.dropout, "norm_first": c.norm_first,
                        "layer_norm_eps": c.layer_norm_eps, "final_norm": c.final_norm}  # fmt: skip
        self.encoder = Encoder(c.num_layers, c.d_model, c.num_heads, c.d_ff, **layer_kwargs)
        self.decoder = Decoder(c.num_layers, c.d_model, c.num_heads, c.d_ff, **layer_kwargs)
        self.generator = nn.Linear(c.d_model, c.tgt_vocab_size)  # pre-softmax linear map
        self._reset_parameters()

    @torch.no_grad()
    def _reset_parameters(self) -> None:
        """Xavier-uniform weight matrices (as torch.nn.Transformer); embeddings N(0, 1/d_model),
        so that sqrt(d_model) * embedding has unit-variance entries, like the positional code."""
        for name, p in self.named_parameters():
            if p.dim() > 1 and "embed" not in name:
                nn.init.xavier_uniform_(p)
        for embedding in (self.src_embed, self.tgt_embed):
            nn.init.normal_(embedding.weight, std=self.config.d_model**-0.5)
            embedding.weight[self.config.pad_id].zero_()

    def _ids(self, name: str, ids: object, vocab_size: int) -> torch.Tensor:
        """Check (B, T) integer token ids (any integer dtype; returned as long): length <=
        max_len, ids in the vocabulary."""
        check_ids(name, ids, vocab_size, 2, wanted="(B, T)")
        if ids.shape[1] == 0:
            raise ValueError(f"{name} must hold at least one token per row (T >= 1), got shape "
                             f"{tuple(ids.shape)}")  # fmt: skip
        if ids.shape[1] > self.config.max_len:
            raise ValueError(f"{name} has length {ids.shape[1]} > max_len={self.config.max_len}")
        return ids.long()

    def _pad(self, name: str, pad: object, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) bool, True at real tokens: given (bool, or 1/0), or wherever ids != pad_id."""
        if pad is None:
            return ids != self.config.pad_id
        return check_padding_mask(name, pad, ids.shape)

    def embed_src(self, src: torch.Tensor) -> torch.Tensor:
        """(B, S) ids -> (B, S, D) = sqrt(D) * E[src] + PE[:S] (section 3.4 and 3.5)."""
        src = self._ids("src", src, self.config.src_vocab_size)
        return self.positional(self.src_embed(src) * math.sqrt(self.config.d_model))

    def embed_tgt(self, tgt: torch.Tensor) -> torch.Tensor:
        """(B, T) ids -> (B, T, D) = sqrt(D) * E[tgt] + PE[:T]."""
        tgt = self._ids("tgt", tgt, self.config.tgt_vocab_size)
        return self.positional(self.tgt_embed(tgt) * math.sqrt(self.config.d_model))

    def encode(
        self, src: torch.Tensor, src_pad: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """src (B, S) -> memory (B, S, D) and the encoder weights, (B, H, S, S) per layer.

        Source padding is masked as keys: (B, S) -> (B, 1, 1, S).
        """
        src = self._ids("src", src, self.config.src_vocab_size)
        src_pad = self._pad("src_pad", src_pad, src)
        return self.encoder(self.embed_src(src), key_padding_mask(src_pad))

    @contract(tgt_in="int: B T", memory="B S d_model=config.d_model")
    def decode(
        self,
        tgt_in: torch.Tensor,
        memory: torch.Tensor,
        src_pad: torch.Tensor,
        tgt_pad: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """tgt_in (B, T), memory (B, S, D), src_pad (B, S) -> logits (B, T, V), decoder
        self-attention weights (B, H, T, T) and cross-attention weights (B, H, T, S) per layer.

        Self-attention mask: causal AND target padding, (T, T) & (B, 1, 1, T) -> (B, 1, T, T);
        cross-attention mask: source padding, (B, 1, 1, S).
        """
        tgt_in = self._ids("tgt_in", tgt_in, self.config.tgt_vocab_size)
        src_pad = check_padding_mask("src_pad", src_pad, memory.shape[:2])
        tgt_pad = self._pad("tgt_pad", tgt_pad, tgt_in)
        T = tgt_in.shape[1]
        self_mask = combine_masks(causal_mask(T, device=tgt_in.device), key_padding_mask(tgt_pad))
        out, self_w, cross_w = self.decoder(
            self.embed_tgt(tgt_in), memory, self_mask, key_padding_mask(src_pad)
        )
        return self.generator(out), self_w, cross_w  # (B, T, D) -> (B, T, V)

    def forward(
        self,
        src: torch.Tensor,
        tgt_in: torch.Tensor,
        src_pad: torch.Tensor | None = None,
        tgt_pad: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, AttentionWeights]:
        """Teacher forcing: src (B, S), tgt_in (B, T) = <bos> y_1 .. y_{T-1}.

        Args:
            src, tgt_in: long token ids.
            src_pad, tgt_pad: (B, S) / (B, T) bool, True = real token; default ids != pad_id.

        Returns:
            logits (B, T, V) for y_1 .. y_T (log_softmax gives the log-probabilities) and
            AttentionWeights(encoder, decoder_self, cross).
        """
        src = self._ids("src", src, self.config.src_vocab_size)
        src_pad = self._pad("src_pad", src_pad, src)
        tgt_in = self._ids("tgt_in", tgt_in, self.config.tgt_vocab_size)
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must be (B={src.shape[0]}, T), got {tuple(tgt_in.shape)}")
        memory, enc_w = self.encode(src, src_pad)
        logits, self_w, cross_w = self.decode(tgt_in, memory, src_pad, tgt_pad)
        return logits, AttentionWeights(enc_w, self_w, cross_w)

    @torch.no_grad()
    def greedy_decode(
        self, src: torch.Tensor, src_len: torch.Tensor, max_len: int
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Batched greedy decoding, one position at a time with a key/value cache
        (``lecturekit.kv_cache``): each step computes only the new position.

        Args:
            src: (B, S) ids; src_len: (B,) integer tensor of true lengths, each in 0..S;
            max_len: tokens to generate at most.

        Returns:
            ids (B, max_len) (PAD after each <eos>; the same tokens as
            ``lecturekit.decoding.greedy_search`` with ``step_function``) and the
            cross-attention weights, one (B, H, max_len, S) per layer (zero rows after <eos>).
        """
        check_positive_int("max_len", max_len)
        src = self._ids("src", src, self.config.src_vocab_size)
        if max_len > self.config.max_len:
            raise ValueError(f"max_len={max_len} exceeds config.max_len={self.config.max_len}")
        check_lengths("src_len", src_len, *src.shape)
        src_pad = padding_mask(src_len, src.shape[1], device=src.device)
        was_training = self.training
        self.eval()
        memory, _ = self.encode(src, src_pad)
        memory_kv, memory_mask = project_memory(self.decoder, memory), key_padding_mask(src_pad)
        B, scale, pe = src.shape[0], math.sqrt(self.config.d_model), self.positional.pe
        token = torch.full((B, 1), self.config.bos_id, dtype=torch.long, device=src.device)
        done = torch.zeros(B, dtype=torch.bool, device=src.device)
        out = torch.full((B, max_len), self.config.pad_id, dtype=torch.long, device=src.device)
        weights = [memory.new_zeros(B, self.config.num_heads, max_len, src.shape[1])
                   for _ in self.decoder.layers]  # fmt: skip
        cache = None
        for t in range(max_len):
            x_t = self.tgt_embed(token) * scale + pe[t]  # (B, 1, D): the token at position t
            h, cache, cross = decoder_step(self.decoder, x_t, memory_kv, cache, memory_mask)
            for w, w_t in zip(weights, cross, strict=True):
                w[:, :, t] = w_t[:, :, 0] * ~done[:, None, None]  # (B, H, S); 0 after <eos>
            token = self.generator(h).argmax(-1)  # (B, 1, D) -> (B, 1, V) -> (B, 1)
            token[done] = self.config.pad_id
            out[:, t] = token[:, 0]
            done |= token[:, 0] == self.config.eos_id
            if done.all():
                break
        self.train(was_training)
        return out, weights

    @torch.no_grad()
    def step_function(
        self, src_ids: torch.Tensor | list[int]
    ) -> Callable[[torch.Tensor], torch.Tensor]:
        """A step function for ``lecturekit.decoding`` that translates one source sentence.

        ``step(prefix_ids (N, t)) -> log_probs (N, V)``: the log-probabilities of the next
        target token after each of N prefixes (each starts with <bos>). The encoder runs once;
        each call reruns the decoder over the prefixes, as ``Seq2Seq.step_function`` does.
        ``src_ids``: a list of ints or an (S,) or (1, S) integer tensor, S > 0.
        """
        if isinstance(src_ids, torch.Tensor) and src_ids.ndim == 2 and len(src_ids) == 1:
            src_ids = src_ids[0]  # a batch of one sentence, (1, S)
        src_ids = as_token_ids("src_ids", src_ids, self.config.src_vocab_size)
        src = self._ids("src_ids", src_ids[None], self.config.src_vocab_size)  # (1, S)
        was_training = self.training
        self.eval()
        src_pad = torch.ones_like(src, dtype=torch.bool)  # (1, S): one sentence, no padding
        memory, _ = self.encode(src, src_pad)
        self.train(was_training)

        @torch.no_grad()
        def step(prefix_ids: torch.Tensor) -> torch.Tensor:
            prefix_ids = self._ids("prefix_ids", prefix_ids, self.config.tgt_vocab_size)
            N = prefix_ids.shape[0]
            was_training = self.training
            self.eval()
            every = torch.ones_like(prefix_ids, dtype=torch.bool)  # generated ids are all real
            logits, _, _ = self.decode(prefix_ids, memory.expand(N, -1, -1),
                                       src_pad.expand(N, -1), every)  # fmt: skip
            self.train(was_training)
            return torch.log_softmax(logits[:, -1], dim=-1)  # (N, t, V) -> (N, V)

        return step

    @torch.no_grad()
    def load_from_torch(self, torch_transformer: nn.Transformer) -> Transformer:
        """Copy the encoder and decoder of a ``torch.nn.Transformer`` with the same sizes.

        torch's model has no embeddings and no generator: ours stay as they are. It always
        ends both stacks with a LayerNorm, so this model needs ``config.final_norm=True``.

        Every setting that changes the function is compared first (batch_first, d_model,
        nhead, dim_feedforward, the numbers of layers, activation, norm_first, layer_norm_eps,
        bias, the final LayerNorms); a difference raises a ValueError naming the setting and
        both values, and nothing is copied. Dropout is not compared (it acts in training only).
        """
        if not isinstance(torch_transformer, nn.Transformer):
            raise ValueError(
                "torch_transformer must be a torch.nn.Transformer, got "
                f"{type(torch_transformer).__name__}"
            )
        self._check_torch_settings(torch_transformer)
        self.encoder._check_torch(torch_transformer.encoder)
        self.decoder._check_torch(torch_transformer.decoder)
        return load_mapped(self, torch_transformer, TORCH_MAPS[nn.Transformer], "torch_transformer")

    def _check_torch_settings(self, t: nn.Transformer) -> None:
        """Raise ValueError at the first setting of ``t`` (its first layer's) that differs
        from this model's."""
        c = self.config
        final = c.final_norm if c.final_norm is not None else c.norm_first
        for part, cls in (("encoder", nn.TransformerEncoder), ("decoder", nn.TransformerDecoder)):
            if not isinstance(getattr(t, part), cls):
                raise ValueError(
                    f"torch_transformer.{part} must be a torch.nn.{cls.__name__} (a custom "
                    f"{part} cannot be copied), got {type(getattr(t, part)).__name__}"
                )
        enc, dec = t.encoder.layers, t.decoder.layers
        first = next(iter([*enc, *dec]), None)  # every other layer: the stacks' checks
        settings = [  # (name, torch's value, ours)
            ("batch_first", bool(getattr(t, "batch_first", False)), True),
            ("d_model", t.d_model, c.d_model),
            ("nhead", t.nhead, c.num_heads),
            ("num_encoder_layers", len(enc), c.num_layers),
            ("num_decoder_layers", len(dec), c.num_layers),
        ]
        if first is not None:
            settings += [
                ("dim_feedforward", first.linear1.out_features, c.d_ff),
                ("activation", _activation_name(first.activation), "relu"),
                ("norm_first", first.norm_first, c.norm_first),
                ("layer_norm_eps", first.norm1.eps, c.layer_norm_eps),
                ("bias", first.linear1.bias is not None, True),
            ]
        for name, seen, ours in settings:
            if seen != ours:
                raise ValueError(
                    f"torch_transformer has {name}={seen!r}, this Transformer {name}={ours!r}: "
                    "copying would change the function (build a TransformerConfig with the "
                    "same settings)"
                )
        torch_final = (t.encoder.norm is not None, t.decoder.norm is not None)
        if torch_final != (final, final):
            raise ValueError(
                f"torch_transformer's encoder and decoder have final LayerNorms {torch_final}, "
                f"this Transformer has final_norm={final}: copying would change the function "
                f"(build the config with final_norm={torch_final[0]})"
            )


def _activation_name(activation: object) -> str:
    """The name ("relu", "gelu") of a torch activation (function or module), else a description."""
    if activation is torch.nn.functional.relu or isinstance(activation, nn.ReLU):
        return "relu"
    if activation is torch.nn.functional.gelu or (
        isinstance(activation, nn.GELU) and activation.approximate == "none"
    ):
        return "gelu"
    return getattr(activation, "__name__", None) or repr(activation)
