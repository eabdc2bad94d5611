"""Lecture 08's measurements of the tiny BERT and the left-to-right LM: masked-token and
next-sentence accuracy on the held-out documents, and the fill-in-the-blank test that only the
right context resolves (BERT sees both sides, the left-to-right LM only the words before).

Public API::

    mlm_accuracy(bert, data)                     # top-1 on the masked tokens of held-out pairs
    nsp_accuracy(bert, data)                     # IsNext / NotNext on held-out pairs
    blank_predictions(model, tokenizer, blanks)  # each model's word for each blank
    blank_accuracy(model, tokenizer, blanks)     # the share filled with the right word

The models: ``lecturekit.shipped.load_shipped("bert_tiny")`` / ``("causal_lm_tiny")``; the
corpus and its blanks: ``lecturekit.datasets.stories`` (``default_data``,
``right_context_blanks``).

Lecture 08; Devlin et al. 2019 section 3.1; Radford et al. 2018 (left-to-right LM).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from lecturekit.datasets.pretraining import heldout_batches
from lecturekit.datasets.stories import Blank, PretrainingData
from lecturekit.models.bert import BertForPreTraining
from lecturekit.models.causal_lm import CausalLM
from lecturekit.tokenization import MASK_ID, WordPieceTokenizer
from lecturekit.utils.checks import check_instance

__all__ = ["mlm_accuracy", "nsp_accuracy", "blank_predictions", "blank_accuracy"]


def _check_eval(model: object, data: object) -> None:
    check_instance("model", model, BertForPreTraining)
    if data is not None:
        check_instance("data", data, PretrainingData)


@torch.no_grad()
def mlm_accuracy(model: BertForPreTraining, data: PretrainingData | None = None) -> float:
    """Top-1 accuracy on the masked-out tokens of the held-out documents (fixed masks:
    ``lecturekit.datasets.pretraining.heldout_batches(data, "nsp")``)."""
    _check_eval(model, data)
    right = total = 0
    for batch in heldout_batches(data, "nsp"):
        out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
        chosen = batch["mlm_labels"] != -100
        right += int((out.mlm_logits.argmax(-1) == batch["mlm_labels"])[chosen].sum())
        total += int(chosen.sum())
    return right / total


@torch.no_grad()
def nsp_accuracy(model: BertForPreTraining, data: PretrainingData | None = None) -> float:
    """IsNext/NotNext accuracy on held-out pairs (the inputs unmasked, as at use time)."""
    _check_eval(model, data)
    right = total = 0
    for batch in heldout_batches(data, "nsp"):
        out = model(batch["original_ids"], batch["segment_ids"], batch["attention_mask"])
        right += int((out.nsp_logits.argmax(-1) == batch["nsp_labels"]).sum())
        total += len(batch["nsp_labels"])
    return right / total


@torch.no_grad()
def blank_predictions(
    model: BertForPreTraining | CausalLM, tokenizer: WordPieceTokenizer, blanks: Sequence[Blank]
) -> list[str]:
    """Each model's guess for each blank: BERT sees the whole sentence with [MASK] in the
    blank; the left-to-right LM sees only the words before it and predicts the next token."""
    if not isinstance(model, (BertForPreTraining, CausalLM)):
        raise ValueError(f"model must be a BertForPreTraining or a CausalLM, got "
                         f"{type(model).__name__}")  # fmt: skip
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    if not isinstance(blanks, Sequence) or isinstance(blanks, str):
        raise ValueError(f"blanks must be a list of Blank, got {type(blanks).__name__}")
    for i, blank in enumerate(blanks):
        check_instance(f"blanks[{i}]", blank, Blank)
    guesses = []
    for blank in blanks:
        left = " ".join(blank.words[: blank.index])
        right = " ".join(blank.words[blank.index + 1 :])
        if isinstance(model, CausalLM):
            ids, _ = tokenizer.encode_pair(left)
            logits, _ = model(torch.tensor([ids[:-1]]))  # drop the final [SEP]
            guess = int(logits[0, -1].argmax())
        else:
            ids, _ = tokenizer.encode_pair(f"{left} [MASK] {right}")
            out = model(torch.tensor([ids]))
            guess = int(out.mlm_logits[0, ids.index(MASK_ID)].argmax())
        guesses.append(tokenizer.vocab[guess])
    return guesses


def blank_accuracy(
    model: BertForPreTraining | CausalLM, tokenizer: WordPieceTokenizer, blanks: Sequence[Blank]
) -> float:
    """Fraction of right-context blanks filled with the right word (``blanks`` non-empty)."""
    if isinstance(blanks, Sequence) and not blanks:
        raise ValueError("blanks must hold at least one Blank, got none")
    guesses = blank_predictions(model, tokenizer, blanks)
    return sum(g == b.answer for g, b in zip(guesses, blanks, strict=True)) / len(blanks)
