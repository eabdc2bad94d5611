"""BERT: input embeddings, a bidirectional Transformer encoder, the MLM and NSP heads.

Built from lecturekit's own ``EncoderLayer`` (post-norm, GELU). Weights are interchangeable
with Hugging Face's ``transformers.BertForPreTraining``: ``BertForPreTraining.from_hf`` copies
them and the outputs agree (tests/models/test_bert.py).

Public API::

    config = BertConfig.tiny()                        # lecture 08's; BertConfig() is BERT-base
    model = BertForPreTraining(config)
    out = model(input_ids, segment_ids=None, attention_mask=None)
    #   input_ids (B, T) integer ids (any integer dtype); segment_ids (B, T) 0/1;
    #   attention_mask (B, T) bool, True = real (or HF's 1 = real, 0 = padding)
    #   out.mlm_logits (B, T, V), out.nsp_logits (B, 2)  [0 = IsNext, 1 = NotNext, as HF
    #   and lecturekit.objectives.IS_NEXT / NOT_NEXT],
    #   out.hidden_states: list of (B, T, D), the embeddings then each layer's output,
    #   out.attentions: list of (B, H, T, T), one per layer
    model = BertForPreTraining.from_hf(hf_model)      # any transformers.BertForPreTraining
    # what every from_hf of a BERT model shares (also lecturekit.models.bert_tasks'):
    config = bert_config_from_hf(hf_config, config_cls=BertConfig, tied_decoder=False, **extra)
    #   lecturekit's config of the HF config's sizes (+ extra fields of a subclass); refuses
    #   options lecturekit's BERT does not have (tied_decoder: also an untied MLM decoder)
    check_hf_layer_norms(hf_model, config.layer_norm_eps)   # every LayerNorm as built agrees
    init_bert_weights(module, generator=None)         # N(0, 0.02), zero biases (model.apply)
    encoder = bert_encoder(config)                    # the post-norm GELU encoder stack
    fill_mask(model, tokenizer, "i think [MASK] is great", k=5)   # top-k per [MASK]
    nsp_probability(model, tokenizer, a, b)           # P(IsNext | [CLS] a [SEP] b [SEP])

Lecture 08; Devlin et al. 2019 (BERT), sections 3.1 (MLM, NSP) and figure 2 (input).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.layers import Encoder
from lecturekit.masking import key_padding_mask
from lecturekit.objectives import IS_NEXT
from lecturekit.tokenization import MASK_ID, WordPieceTokenizer
from lecturekit.utils.checks import (
    check_ids,
    check_index,
    check_instance,
    check_padding_mask,
    check_positive_int,
    check_str,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.weights import HF_MAPS, load_mapped

__all__ = [
    "BertConfig",
    "BertEmbeddings",
    "BertModel",
    "BertOutput",
    "BertForPreTraining",
    "PreTrainingOutput",
    "bert_encoder",
    "init_bert_weights",
    "bert_config_from_hf",
    "check_hf_layer_norms",
    "fill_mask",
    "nsp_probability",
]


@dataclass(frozen=True)
class BertConfig(ModelConfig):
    """Sizes of a BERT model (Hugging Face names in brackets where they differ).

    The defaults are BERT-base (a 30,522-entry WordPiece vocabulary, 768 wide, 12 layers of 12
    heads, feed-forward 3072, 512 positions, about 110 M parameters); ``tiny()`` is lecture 08's:
    a 450-entry vocabulary, 64 wide, 2 layers of 4 heads, feed-forward 256, 64 positions
    (142,148 parameters with the heads).

    Lecture 08; Devlin et al. 2019 section 3 (BERT-base).
    """

    TINY: ClassVar[dict[str, object]] = {"vocab_size": 450, "hidden_size": 64, "num_layers": 2,
                                         "num_heads": 4, "intermediate_size": 256,
                                         "max_position": 64}  # fmt: skip

    vocab_size: int = 30522
    hidden_size: int = 768
    num_layers: int = 12  # [num_hidden_layers]
    num_heads: int = 12  # [num_attention_heads]
    intermediate_size: int = 3072
    max_position: int = 512  # [max_position_embeddings]
    type_vocab_size: int = 2
    dropout: float = 0.1  # [hidden_dropout_prob = attention_probs_dropout_prob]
    layer_norm_eps: float = 1e-12
    pad_id: int = 0  # [pad_token_id]

    def __post_init__(self) -> None:
        self.check_positive("vocab_size", "hidden_size", "num_layers", "num_heads",
                            "intermediate_size", "max_position", "type_vocab_size")  # fmt: skip
        self.check_attention("hidden_size")
        check_index("pad_id", self.pad_id, self.vocab_size)

    @classmethod
    def large(cls) -> BertConfig:
        """BERT-large: 24 layers, width 1024, 16 heads, feed-forward 4096 (about 335 M
        parameters); ``BertConfig()`` is BERT-base.

        Lecture 08; Devlin et al. 2019 section 3 (BERT-large).
        """
        return cls(hidden_size=1024, num_layers=24, num_heads=16, intermediate_size=4096)


def bert_encoder(config: BertConfig) -> Encoder:
    """The encoder stack of ``config``'s sizes: post-norm GELU layers (BERT's, and the
    left-to-right baseline's of ``lecturekit.models.causal_lm``).

    Lecture 08; Devlin et al. 2019 section 3.
    """
    check_instance("config", config, BertConfig)
    return Encoder(config.num_layers, config.hidden_size, config.num_heads,
                   config.intermediate_size, dropout=config.dropout, activation="gelu",
                   layer_norm_eps=config.layer_norm_eps)  # fmt: skip


@torch.no_grad()
def init_bert_weights(module: nn.Module, generator: torch.Generator | None = None) -> None:
    """BERT's initialisation, for ``model.apply``: N(0, 0.02) weights of Linear and Embedding
    layers, zero biases, a zero row for the padding id (LayerNorms keep 1 and 0).

    ``generator``: a ``torch.Generator`` to draw from (``model.apply(functools.partial(
    init_bert_weights, generator=g))`` leaves the global random state alone), or None for
    torch's global one.

    Lecture 08; Devlin et al. 2019 (the released code's initializer_range = 0.02).
    """
    check_instance("module", module, nn.Module)
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    if isinstance(module, nn.Linear | nn.Embedding):
        module.weight.normal_(0.0, 0.02, generator=generator)  # = nn.init.normal_(std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)
    if isinstance(module, nn.Embedding) and module.padding_idx is not None:
        nn.init.zeros_(module.weight[module.padding_idx])


class BertEmbeddings(nn.Module):
    """E = LayerNorm(token embedding + segment embedding + position embedding).

    Lecture 08; Devlin et al. 2019 figure 2.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        check_instance("config", config, BertConfig)
        D = config.hidden_size
        self.token = nn.Embedding(config.vocab_size, D, padding_idx=config.pad_id)
        self.segment = nn.Embedding(config.type_vocab_size, D)
        self.position = nn.Embedding(config.max_position, D)
        self.norm = nn.LayerNorm(D, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)
        self.config = config

    def parts(
        self, input_ids: torch.Tensor, segment_ids: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The three embeddings that are summed, each (B, T, D).

        input_ids: (B, T) integer ids in 0..vocab_size-1, T <= max_position; segment_ids:
        (B, T) integer ids in 0..type_vocab_size-1 (default all 0). Any integer dtype.
        """
        input_ids, segment_ids = _check_ids(input_ids, segment_ids, self.config)
        if segment_ids is None:
            segment_ids = torch.zeros_like(input_ids)
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # (T,)
        return self.token(input_ids), self.segment(segment_ids), self.position(positions)[None]

    def forward(
        self, input_ids: torch.Tensor, segment_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        """input_ids (B, T), segment_ids (B, T) -> (B, T, D)."""
        token, segment, position = self.parts(input_ids, segment_ids)
        return self.dropout(self.norm(token + segment + position))


def _check_ids(
    input_ids: object, segment_ids: object, config: BertConfig
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(B, T) token ids and segment ids of ``config``'s sizes, as long tensors."""
    check_ids("input_ids", input_ids, config.vocab_size, 2, wanted="(B, T)")
    if input_ids.shape[1] == 0:
        raise ValueError(
            f"input_ids must hold at least one token per row (T >= 1; [CLS] is position 0), "
            f"got shape {tuple(input_ids.shape)}"
        )
    if input_ids.shape[1] > config.max_position:
        raise ValueError(
            f"input_ids has length {input_ids.shape[1]} > max_position={config.max_position}"
        )
    if segment_ids is not None:
        check_ids(
            "segment_ids",
            segment_ids,
            config.type_vocab_size,
            2,
            wanted="(B, T)",
            size_name="type_vocab_size",
        )
        if segment_ids.shape != input_ids.shape:
            raise ValueError(
                f"segment_ids has shape {tuple(segment_ids.shape)}, input_ids "
                f"{tuple(input_ids.shape)}; they must match"
            )
        segment_ids = segment_ids.long()
    return input_ids.long(), segment_ids


class BertOutput(NamedTuple):
    hidden: torch.Tensor  # (B, T, D) last layer
    pooled: torch.Tensor  # (B, D) tanh(W h_[CLS] + b)
    hidden_states: list[torch.Tensor]  # embeddings + each layer, (B, T, D)
    attentions: list[torch.Tensor]  # per layer (B, H, T, T)


class BertModel(nn.Module):
    """Embeddings, a stack of post-norm GELU encoder layers, and the [CLS] pooler.

    Lecture 08; Devlin et al. 2019 section 3.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        check_instance("config", config, BertConfig)
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = bert_encoder(config)
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> BertOutput:
        """input_ids (B, T); attention_mask (B, T) True at real tokens (default: all).

        attention_mask may also hold numbers, 1 at real tokens and 0 at padding (Hugging Face's
        convention); other values (a torch-style additive 0/-inf mask) raise a ValueError that
        says how to convert.
        """
        x = self.embeddings(input_ids, segment_ids)  # (B, T) -> (B, T, D)
        mask = None
        if attention_mask is not None:
            attention_mask = check_padding_mask("attention_mask", attention_mask, input_ids.shape)
            mask = key_padding_mask(attention_mask)  # (B, T) -> (B, 1, 1, T)
        hidden_states, attentions = [x], []
        for layer in self.encoder.layers:
            x, weights = layer(x, mask)
            hidden_states.append(x)
            attentions.append(weights)
        pooled = torch.tanh(self.pooler(x[:, 0]))  # (B, T, D) -> (B, D): the [CLS] position
        return BertOutput(x, pooled, hidden_states, attentions)


class PreTrainingOutput(NamedTuple):
    mlm_logits: torch.Tensor  # (B, T, V)
    nsp_logits: torch.Tensor  # (B, 2): 0 = IsNext, 1 = NotNext
    hidden_states: list[torch.Tensor]
    attentions: list[torch.Tensor]


class BertForPreTraining(nn.Module):
    """BERT with the masked-LM head (decoder tied to the token embeddings) and the NSP head.

    Lecture 08; Devlin et al. 2019 section 3.1 and appendix A.2.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        check_instance("config", config, BertConfig)
        self.config = config
        self.bert = BertModel(config)
        D = config.hidden_size
        self.mlm_dense = nn.Linear(D, D)
        self.mlm_norm = nn.LayerNorm(D, eps=config.layer_norm_eps)
        self.mlm_bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.nsp = nn.Linear(D, 2)
        self.apply(init_bert_weights)

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> PreTrainingOutput:
        out = self.bert(input_ids, segment_ids, attention_mask)
        h = self.mlm_norm(F.gelu(self.mlm_dense(out.hidden)))  # (B, T, D)
        # the decoder shares its weights with the token embeddings: (B, T, D) -> (B, T, V)
        mlm_logits = h @ self.bert.embeddings.token.weight.T + self.mlm_bias
        return PreTrainingOutput(
            mlm_logits, self.nsp(out.pooled), out.hidden_states, out.attentions
        )

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> BertForPreTraining:
        """Build the same model from a ``transformers.BertForPreTraining`` and copy its weights."""
        if type(hf_model).__name__ != "BertForPreTraining":
            raise ValueError(
                f"hf_model must be a transformers.BertForPreTraining, got {type(hf_model).__name__}"
            )
        config = bert_config_from_hf(hf_model.config, BertConfig, tied_decoder=True)
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        model = load_mapped(cls(config), hf_model, HF_MAPS["BertForPreTraining"])
        return model.train(hf_model.training)


def bert_config_from_hf(
    hf_config: object,
    config_cls: type[BertConfig] = BertConfig,
    *,
    tied_decoder: bool = False,
    **extra: object,
) -> BertConfig:
    """The ``config_cls`` (BertConfig or a subclass) of a Hugging Face ``BertConfig``'s sizes,
    with ``extra`` fields of the subclass (e.g. ``num_labels=hf_config.num_labels``).

    Options lecturekit's BERT does not have raise a ValueError naming them (the function would
    change): an activation other than exact GELU, relative position embeddings, a decoder
    (causal) BERT and, with ``tied_decoder`` (a masked-LM head), an output layer not tied to
    the token embeddings. Dropout is ``hidden_dropout_prob`` (lecturekit's one dropout rate).

    Lecture 08; shared by every ``from_hf`` of a BERT model (lectures 08, 13).
    """
    if not isinstance(config_cls, type) or not issubclass(config_cls, BertConfig):
        raise ValueError(f"config_cls must be BertConfig or a subclass, got {config_cls!r}")
    c, abs_ = hf_config, "absolute"
    unsupported = {
        "hidden_act": (c.hidden_act, "gelu"),
        "position_embedding_type": (getattr(c, "position_embedding_type", 0) or abs_, abs_),
    }
    if tied_decoder:
        unsupported["tie_word_embeddings"] = (getattr(c, "tie_word_embeddings", True), True)
    unsupported["is_decoder"] = (c.is_decoder, False)
    for name, (seen, wanted) in unsupported.items():
        if seen != wanted:
            raise ValueError(
                f"hf_model.config.{name}={seen!r} is not supported: lecturekit's BERT has "
                f"{name}={wanted!r} (copying would change the function); nothing was copied"
            )
    return config_cls(
        vocab_size=c.vocab_size,
        hidden_size=c.hidden_size,
        num_layers=c.num_hidden_layers,
        num_heads=c.num_attention_heads,
        intermediate_size=c.intermediate_size,
        max_position=c.max_position_embeddings,
        type_vocab_size=c.type_vocab_size,
        dropout=c.hidden_dropout_prob,
        layer_norm_eps=c.layer_norm_eps,
        pad_id=c.pad_token_id if c.pad_token_id is not None else 0,
        **extra,
    )


def check_hf_layer_norms(hf_model: nn.Module, layer_norm_eps: float) -> None:
    """Raise ValueError unless every LayerNorm of ``hf_model``, as built, has eps =
    ``layer_norm_eps`` (its config's: a config edited after building no longer describes the
    modules, and copying would change the function).

    Lecture 08; shared by every ``from_hf`` of a BERT model (lectures 08, 13).
    """
    for name, module in hf_model.named_modules():  # the modules, as built, must agree
        if isinstance(module, nn.LayerNorm) and module.eps != layer_norm_eps:
            raise ValueError(
                f"hf_model's {name} has eps={module.eps:g} but hf_model.config.layer_norm_eps"
                f"={layer_norm_eps:g}: copying would change the function"
            )


@torch.no_grad()
def fill_mask(
    model: BertForPreTraining, tokenizer: WordPieceTokenizer, text: str, k: int = 5
) -> list[list[tuple[str, float]]]:
    """Top-k (token, probability) for every [MASK] in ``text`` (one or two sentences: a
    " [SEP] " in the text separates sentence A from sentence B).

    ``model`` must be a BertForPreTraining and ``tokenizer`` the WordPieceTokenizer of its
    vocabulary; ``text`` must hold at least one [MASK]; 1 <= k <= the vocabulary size.

    Lecture 08; Devlin et al. 2019 section 3.1 (masked LM at use time).
    """
    _check_model_and_tokenizer(model, tokenizer, "fill_mask")
    check_str("text", text)
    check_positive_int("k", k)
    if k > len(tokenizer):
        raise ValueError(f"k={k} is larger than the vocabulary ({len(tokenizer)} tokens)")
    a, _, b = text.partition("[SEP]")
    ids, segments = tokenizer.encode_pair(a, b.strip() or None)
    if MASK_ID not in ids:
        raise ValueError(f"text has no [MASK] token: {text!r}")
    _check_length("text", ids, model.config)
    out = model(torch.tensor([ids]), torch.tensor([segments]))
    probs = out.mlm_logits[0].softmax(-1)  # (T, V)
    result = []
    for pos in [i for i, t in enumerate(ids) if t == MASK_ID]:
        top = probs[pos].topk(k)
        tokens = tokenizer.convert_ids_to_tokens(top.indices.tolist())
        result.append([(t, float(p)) for t, p in zip(tokens, top.values, strict=True)])
    return result


@torch.no_grad()
def nsp_probability(
    model: BertForPreTraining, tokenizer: WordPieceTokenizer, a: str, b: str
) -> float:
    """P(IsNext | [CLS] a [SEP] b [SEP]).

    ``model`` must be a BertForPreTraining and ``tokenizer`` the WordPieceTokenizer of its
    vocabulary. An empty ``a`` or ``b`` is legitimate: it is encoded as no tokens at all.

    Lecture 08; Devlin et al. 2019 section 3.1 ("Task #2: Next Sentence Prediction").
    """
    _check_model_and_tokenizer(model, tokenizer, "nsp_probability")
    check_str("a", a, allow_empty=True)
    check_str("b", b, allow_empty=True)
    ids, segments = tokenizer.encode_pair(a, b)
    _check_length("a and b", ids, model.config)
    out = model(torch.tensor([ids]), torch.tensor([segments]))
    return float(out.nsp_logits[0].softmax(-1)[IS_NEXT])


def _check_model_and_tokenizer(model: object, tokenizer: object, caller: str) -> None:
    """A BertForPreTraining (the causal LM and BertModel have no pre-training heads) and the
    WordPieceTokenizer of its vocabulary."""
    if not isinstance(model, BertForPreTraining):
        hint = ""
        if type(model).__name__ == "CausalLM":
            hint = " (the left-to-right baseline has no masked-LM or next-sentence head)"
        elif isinstance(model, BertModel):
            hint = " (a BertModel has no pre-training heads)"
        raise ValueError(
            f"model must be a BertForPreTraining for {caller}, got {type(model).__name__}{hint}"
        )
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    if len(tokenizer) != model.config.vocab_size:
        raise ValueError(
            f"tokenizer has {len(tokenizer)} tokens but the model's vocab_size is "
            f"{model.config.vocab_size}: pass the tokenizer the model was trained with"
        )


def _check_length(name: str, ids: list[int], config: BertConfig) -> None:
    if len(ids) > config.max_position:
        raise ValueError(
            f"{name} is too long: {len(ids)} tokens with [CLS] and [SEP], more than the "
            f"model's max_position={config.max_position}"
        )
