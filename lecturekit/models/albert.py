"""ALBERT: BERT with a factorised embedding (V x E, then E -> D) and one encoder layer shared
by every depth, pre-trained with masked LM and sentence-order prediction (SOP).

Built from lecturekit's BERT pieces: ``BertEmbeddings`` (of width E), the post-norm GELU
``EncoderLayer`` of ``bert_encoder`` (one layer applied ``num_layers`` times, or, with
``share_layers=False``, ``num_layers`` separate layers: the equal-depth comparison), BERT's
[CLS] pooler and MLM head (here D -> E, the decoder tied to the E-wide token embeddings).
Weights are interchangeable with Hugging Face's ``transformers.AlbertForPreTraining``:
``AlbertForPreTraining.from_hf`` copies them and the MLM and SOP logits agree
(tests/models/test_albert.py). ``lecturekit.models.size.parameter_count(AlbertConfig())``
counts the shared layer once.

Public API::

    config = AlbertConfig.tiny()          # lecture 15's; AlbertConfig() is ALBERT-base
    model = AlbertForPreTraining(config)
    out = model(input_ids, segment_ids=None, attention_mask=None)
    #   input_ids (B, T); segment_ids (B, T) 0/1; attention_mask (B, T) True (or 1) = real
    #   out.mlm_logits (B, T, V), out.sop_logits (B, 2) [0 = in order, 1 = swapped, as HF's
    #   and lecturekit.objectives.IN_ORDER / SWAPPED], out.hidden_states: list of (B, T, D),
    #   the projected embeddings then each layer's output, out.attentions: (B, H, T, T) each
    model.layer(i)                        # the EncoderLayer used at depth i (one if shared)
    model = AlbertForPreTraining.from_hf(hf_model)   # any transformers.AlbertForPreTraining
    #   with hidden_act="gelu", one layer per group and 1 or num_hidden_layers groups

Lecture 15; Lan et al. 2020 (ALBERT) section 3.1 (factorised embedding, cross-layer sharing,
sentence-order prediction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.layers import EncoderLayer
from lecturekit.masking import key_padding_mask
from lecturekit.models.bert import (
    BertConfig,
    BertEmbeddings,
    bert_encoder,
    check_hf_layer_norms,
    init_bert_weights,
)
from lecturekit.utils.checks import (
    check_bool,
    check_index,
    check_instance,
    check_padding_mask,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.weights import HF_MAPS, load_mapped

__all__ = ["AlbertConfig", "AlbertOutput", "AlbertForPreTraining"]


@dataclass(frozen=True)
class AlbertConfig(ModelConfig):
    """Sizes of an ALBERT model (Hugging Face names in brackets where they differ).

    The defaults are ALBERT-base (Lan et al. 2020 table 1): a 30,000-entry vocabulary,
    embeddings of width E = 128 projected to D = 768, 12 layers of 12 heads sharing one set of
    weights, feed-forward 3072, 512 positions, no dropout (11.7 M parameters with the heads,
    against BERT-base's 110 M). ``tiny()`` is lecture 15's: BERT tiny's sizes (vocabulary 450,
    64 wide, 4 heads, feed-forward 256, 64 positions) with E = 32 and 4 layers (the depth at
    which sharing saves three layers' weights), dropout 0.1 as BERT tiny's. ``share_layers``
    False gives ``num_layers`` separate layers (BERT's encoder on a factorised embedding).

    lecturekit's ALBERT uses exact GELU (BERT's); the released ALBERT uses tanh-approximated
    GELU ("gelu_new"), which ``from_hf`` refuses.

    Lecture 15; Lan et al. 2020 section 3.1 and table 1.
    """

    TINY: ClassVar[dict[str, object]] = {**BertConfig.TINY, "embedding_size": 32,
                                         "num_layers": 4, "dropout": 0.1}  # fmt: skip

    vocab_size: int = 30000
    embedding_size: int = 128  # E
    hidden_size: int = 768  # D
    num_layers: int = 12  # [num_hidden_layers]
    num_heads: int = 12  # [num_attention_heads]
    intermediate_size: int = 3072
    max_position: int = 512  # [max_position_embeddings]
    type_vocab_size: int = 2
    dropout: float = 0.0  # [hidden_dropout_prob = attention_probs_dropout_prob]
    layer_norm_eps: float = 1e-12
    pad_id: int = 0  # [pad_token_id]
    share_layers: bool = True  # [num_hidden_groups = 1 (True) or num_hidden_layers (False)]

    def __post_init__(self) -> None:
        self.check_positive("vocab_size", "embedding_size", "hidden_size", "num_layers",
                            "num_heads", "intermediate_size", "max_position",
                            "type_vocab_size")  # fmt: skip
        self.check_attention("hidden_size")
        check_index("pad_id", self.pad_id, self.vocab_size)
        check_bool("share_layers", self.share_layers)

    def embedding_config(self) -> BertConfig:
        """The BertConfig of the E-wide embeddings (``BertEmbeddings`` reads its vocabulary,
        positions, segment types, width, eps and dropout).

        Lecture 15; Lan et al. 2020 section 3.1 (factorised embedding parameterisation).
        """
        return self.encoder_config().replace(hidden_size=self.embedding_size, num_heads=1)

    def encoder_config(self) -> BertConfig:
        """The BertConfig of the D-wide encoder (one layer when the layers are shared).

        Lecture 15; Lan et al. 2020 section 3.1 (cross-layer parameter sharing).
        """
        return BertConfig(
            vocab_size=self.vocab_size,
            hidden_size=self.hidden_size,
            num_layers=1 if self.share_layers else self.num_layers,
            num_heads=self.num_heads,
            intermediate_size=self.intermediate_size,
            max_position=self.max_position,
            type_vocab_size=self.type_vocab_size,
            dropout=self.dropout,
            layer_norm_eps=self.layer_norm_eps,
            pad_id=self.pad_id,
        )


class AlbertOutput(NamedTuple):
    mlm_logits: torch.Tensor  # (B, T, V)
    sop_logits: torch.Tensor  # (B, 2): 0 = in order, 1 = swapped
    hidden_states: list[torch.Tensor]  # the projected embeddings + each layer, (B, T, D)
    attentions: list[torch.Tensor]  # per layer (B, H, T, T)


class AlbertForPreTraining(nn.Module):
    """ALBERT with its masked-LM head (D -> E, decoder tied to the token embeddings) and its
    sentence-order head on the pooled [CLS].

    Lecture 15; Lan et al. 2020 section 3.1.
    """

    def __init__(self, config: AlbertConfig):
        super().__init__()
        check_instance("config", config, AlbertConfig)
        self.config = config
        E, D = config.embedding_size, config.hidden_size
        self.embeddings = BertEmbeddings(config.embedding_config())
        self.embedding_project = nn.Linear(E, D)  # E -> D [embedding_hidden_mapping_in]
        self.encoder = bert_encoder(config.encoder_config())  # 1 layer, or num_layers
        self.pooler = nn.Linear(D, D)
        self.mlm_dense = nn.Linear(D, E)
        self.mlm_norm = nn.LayerNorm(E, eps=config.layer_norm_eps)
        self.mlm_bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.sop_dropout = nn.Dropout(config.dropout)
        self.sop = nn.Linear(D, 2)
        self.apply(init_bert_weights)

    def layer(self, i: int) -> EncoderLayer:
        """The encoder layer applied at depth ``i`` (0-based): the one shared layer, or the
        i-th.

        Lecture 15; Lan et al. 2020 section 3.1.
        """
        check_index("i", i, self.config.num_layers)
        return self.encoder.layers[0 if self.config.share_layers else i]

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> AlbertOutput:
        """input_ids (B, T) integer ids, T <= max_position; segment_ids (B, T) 0/1;
        attention_mask (B, T) True (or 1) at real tokens (default: all) -> AlbertOutput.

        Lecture 15; Lan et al. 2020 section 3.1.
        """
        x = self.embedding_project(self.embeddings(input_ids, segment_ids))  # (B,T,E)->(B,T,D)
        mask = None
        if attention_mask is not None:
            attention_mask = check_padding_mask("attention_mask", attention_mask, input_ids.shape)
            mask = key_padding_mask(attention_mask)  # (B, T) -> (B, 1, 1, T)
        hidden_states, attentions = [x], []
        for i in range(self.config.num_layers):
            x, weights = self.layer(i)(x, mask)
            hidden_states.append(x)
            attentions.append(weights)
        pooled = torch.tanh(self.pooler(x[:, 0]))  # (B, T, D) -> (B, D): the [CLS] position
        h = self.mlm_norm(F.gelu(self.mlm_dense(x)))  # (B, T, D) -> (B, T, E)
        mlm_logits = h @ self.embeddings.token.weight.T + self.mlm_bias  # (B, T, E) -> (B, T, V)
        sop_logits = self.sop(self.sop_dropout(pooled))  # (B, D) -> (B, 2)
        return AlbertOutput(mlm_logits, sop_logits, hidden_states, attentions)

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> AlbertForPreTraining:
        """Build the same model from a ``transformers.AlbertForPreTraining`` and copy its
        weights.

        Refused (copying would change the function): an activation other than exact GELU,
        more than one layer per group (inner_group_num), a number of groups other than 1
        (shared) or num_hidden_layers (separate), a decoder untied from the embeddings, and
        LayerNorms whose eps differs from the config's.

        Lecture 15; Lan et al. 2020 section 3.1.
        """
        if type(hf_model).__name__ != "AlbertForPreTraining":
            got = type(hf_model).__name__
            raise ValueError(f"hf_model must be a transformers.AlbertForPreTraining, got {got}")
        c = hf_model.config
        groups, layers = c.num_hidden_groups, c.num_hidden_layers
        unsupported = {
            "hidden_act": (c.hidden_act, "gelu"),
            "inner_group_num": (c.inner_group_num, 1),
            "tie_word_embeddings": (getattr(c, "tie_word_embeddings", True), True),
            "position_embedding_type": (
                getattr(c, "position_embedding_type", None) or "absolute",
                "absolute",
            ),
        }
        if groups not in (1, layers):
            unsupported["num_hidden_groups"] = (groups, f"1 or num_hidden_layers={layers}")
        for name, (seen, wanted) in unsupported.items():
            if seen != wanted:
                raise ValueError(
                    f"hf_model.config.{name}={seen!r} is not supported: lecturekit's ALBERT has "
                    f"{name}={wanted!r} (copying would change the function); nothing was copied"
                )
        config = AlbertConfig(
            vocab_size=c.vocab_size,
            embedding_size=c.embedding_size,
            hidden_size=c.hidden_size,
            num_layers=layers,
            num_heads=c.num_attention_heads,
            intermediate_size=c.intermediate_size,
            max_position=c.max_position_embeddings,
            type_vocab_size=c.type_vocab_size,
            dropout=c.hidden_dropout_prob,
            layer_norm_eps=c.layer_norm_eps,
            pad_id=c.pad_token_id if c.pad_token_id is not None else 0,
            share_layers=groups == 1,
        )
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        model = load_mapped(cls(config), hf_model, HF_MAPS["AlbertForPreTraining"])
        return model.train(hf_model.training)
