"""A left-to-right Transformer language model of BERT's size: lecture 08's baseline.

Public API::

    lm = CausalLM(BertConfig.tiny())
    logits, attentions = lm(input_ids, segment_ids=None, attention_mask=None)
    #   logits (B, T, V): position t predicts token t + 1; attentions: per layer (B, H, T, T)
    loss = causal_lm_loss(lm, batch)    # batch as made by lecturekit.shipped.bert

Lecture 08; Radford et al. 2018 (GPT); Devlin et al. 2019 figure 3 (OpenAI GPT).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.masking import causal_mask, combine_masks, key_padding_mask
from lecturekit.models.bert import BertConfig, BertEmbeddings, bert_encoder, init_bert_weights
from lecturekit.tokenization import PAD_ID
from lecturekit.utils.checks import check_instance, check_padding_mask

__all__ = ["CausalLM", "causal_lm_loss"]


class CausalLM(nn.Module):
    """A left-to-right Transformer LM of BERT's size: the same embeddings and encoder layers,
    but each position may attend only to itself and the positions before it.

    forward(input_ids (B, T), segment_ids=None, attention_mask=None) -> (logits (B, T, V)
    predicting the NEXT token, attentions list of (B, H, T, T)).

    Lecture 08 (the left-to-right baseline); Radford et al. 2018.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        check_instance("config", config, BertConfig)
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = bert_encoder(config)
        D = config.hidden_size
        self.head_dense, self.head_norm = (
            nn.Linear(D, D),
            nn.LayerNorm(D, eps=config.layer_norm_eps),
        )
        self.head_bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.apply(init_bert_weights)

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """input_ids (B, T) and segment_ids (B, T) as ``BertModel``'s (any integer dtype);
        attention_mask (B, T) True (or 1) at real tokens, False (or 0) at padding."""
        x = self.embeddings(input_ids, segment_ids)  # (B, T) -> (B, T, D); checks the ids
        mask = causal_mask(input_ids.shape[1], device=input_ids.device)  # (T, T)
        if attention_mask is not None:
            attention_mask = check_padding_mask("attention_mask", attention_mask, input_ids.shape)
            mask = combine_masks(mask, key_padding_mask(attention_mask))  # (B, 1, T, T)
        x, attentions = self.encoder(x, mask)
        h = self.head_norm(F.gelu(self.head_dense(x)))
        return h @ self.embeddings.token.weight.T + self.head_bias, attentions  # (B, T, V)


def causal_lm_loss(model: CausalLM, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Next-token cross-entropy on the unmasked ``[CLS] A [SEP] B [SEP]`` sequences.

    ``batch``: a dict with original_ids, segment_ids and attention_mask (B, T), as
    ``lecturekit.datasets.pretraining.pretraining_batch`` makes.
    """
    check_instance("model", model, CausalLM)
    needed = ("original_ids", "segment_ids", "attention_mask")
    if not isinstance(batch, Mapping) or any(key not in batch for key in needed):
        got = sorted(batch) if isinstance(batch, Mapping) else type(batch).__name__
        raise ValueError(f"batch must be a dict with keys {list(needed)}, got {got}")
    ids = batch["original_ids"]
    logits, _ = model(ids, batch["segment_ids"], batch["attention_mask"])
    targets = ids[:, 1:].masked_fill(ids[:, 1:] == PAD_ID, -100)
    if not (targets != -100).any():
        raise ValueError(
            f"batch['original_ids'] must hold a next token that is not padding (T >= 2), got "
            f"shape {tuple(ids.shape)} with none: the mean cross-entropy would be 0/0"
        )
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), targets.flatten())
