"""Lecture 08a's exercises: BERT's input representation and pre-training tasks.

08a.1 count the tokens of a sentence pair (hashed),
08a.2 the 80/10/10 replacement for given random draws (code: run against
      ``lecturekit.objectives.mask_tokens`` with the same draws),
08a.3 the parameters of BERT-base's embedding layer (hashed),
08a.4 untie the MLM decoder (the student's ``UntiedBert`` passed in: its extra parameters and the
      rows of the token table one backward pass reaches are measured here, on the lecture's
      batch ``small``, against lecturekit's tied ``BertForPreTraining``).
"""

from __future__ import annotations

import random

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("08a", "08a_bert_pretraining")

register(
    Exercise(
        "08a.1",
        "count the tokens",
        hints=(
            "BERT's input is [CLS] A [SEP] B [SEP]: three special tokens around the pieces of "
            "the two sentences.",
            "One word of sentence B is not in the vocabulary whole: tok.tokenize shows its pieces.",
        ),
        expected=Expected("int", ("34b1e8f744b93704a0bc",)),
        correct=(
            "{answer} tokens: [CLS], the pieces of both sentences (flightless is two), and two "
            "[SEP]"
        ),
    )
)


@exercise(
    "08a.2",
    "the 80/10/10 replacement, yourself",
    hints=(
        "A token is chosen when u_choose < 0.15 and it is not special (id >= "
        "len(SPECIAL_TOKENS)); labels hold its id where chosen and -100 elsewhere.",
        "Of the chosen: u_action < 0.8 becomes MASK_ID, 0.8 <= u_action < 0.9 becomes "
        "random_ids, the rest stays. torch.where does each rule in one line.",
    ),
)
def _mask(answer: object) -> str:
    from lecturekit.objectives import mask_tokens
    from lecturekit.tokenization import MASK_ID, SPECIAL_TOKENS

    vocab_size, counts = 450, torch.zeros(3)
    for seed, shape in [(0, (1, 12)), (1, (4, 64)), (2, (32, 128))]:
        input_ids = torch.randint(
            0, vocab_size, shape, generator=torch.Generator().manual_seed(seed)
        )
        g = torch.Generator().manual_seed(100 + seed)  # mask_tokens' own draws, in its order
        u_choose = torch.rand(shape, generator=g)
        u_action = torch.rand(shape, generator=g)
        random_ids = torch.randint(len(SPECIAL_TOKENS), vocab_size, shape, generator=g)
        want_masked, want_labels = mask_tokens(
            input_ids, vocab_size=vocab_size, generator=torch.Generator().manual_seed(100 + seed)
        )
        what = f"your function on input_ids of shape {shape}"
        got = run_student(
            answer, input_ids.clone(), u_choose, u_action, random_ids.clone(), what=what
        )
        if not isinstance(got, tuple) or len(got) != 2:
            raise NotYet(f"{what}: return two tensors, (masked_ids, labels)")
        same_values(got[0], want_masked, f"{what}: masked_ids")
        same_values(got[1], want_labels, f"{what}: labels")
        chosen = want_labels != -100
        counts += torch.tensor(
            [
                int((want_masked[chosen] == MASK_ID).sum()),
                int(((want_masked != input_ids) & (want_masked != MASK_ID))[chosen].sum()),
                int((want_masked == input_ids)[chosen].sum()),
            ],
            dtype=torch.float32,
        )
    mask, rand, same = (counts / counts.sum()).tolist()
    return (
        f"the same masks and labels as mask_tokens, given its draws; of the {int(counts.sum())} "
        f"chosen tokens {mask:.1%} became [MASK], {rand:.1%} a random token and {same:.1%} "
        "stayed"
    )


register(
    Exercise(
        "08a.3",
        "BERT-base's embedding layer",
        hints=(
            "Three tables of width 768: one row per token (30,522), per position (512) and per "
            "segment (2).",
            "Add the LayerNorm: a weight and a bias, each of width 768.",
        ),
        expected=Expected("int", ("3651f261c3cdbc844d09",)),
        correct=(
            "{answer} parameters, about a fifth of BERT-base's 110 M, nearly all of them in the "
            "token table"
        ),
    )
)


@exercise(
    "08a.4",
    "untie the decoder",
    hints=(
        "In __init__: super().__init__(config), then del self.mlm_bias and self.decoder = "
        "nn.Linear(config.hidden_size, config.vocab_size), initialised with init_bert_weights. "
        "In forward: Bert.forward's lines, with self.decoder(h) as the MLM logits.",
        "Parameters: sum(p.numel() for p in m.parameters()) for both models. Rows: "
        "(m.embeddings.token.weight.grad != 0).any(-1).sum() after "
        "pretraining_loss(*m(...), small).backward(), with m in eval() mode.",
    ),
)
def _untied(answer: object, *, model: object) -> str:
    if model is None:
        raise NotYet("pass your model too: check('08a.4', answer, model=untied)")
    if not isinstance(model, nn.Module):
        raise NotYet(f"model must be your UntiedBert(config), got {type(model).__name__}")
    try:
        extra, rows_tied, rows_untied = (_whole(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet(
            "give three whole numbers: answer = (extra_parameters, rows_tied, rows_untied)"
        ) from None
    table = _token_table(model)
    V, D = table.shape
    tied, small = _tied_reference(V, D)
    n_tied = sum(p.numel() for p in tied.parameters())
    added = sum(p.numel() for p in model.parameters()) - n_tied
    if added == 0:
        raise NotYet("your model has as many parameters as Bert(config): add the decoder")
    if added == V * D + V:
        raise NotYet(
            "your model has two output biases, mlm_bias and the decoder's: delete mlm_bias"
        )
    if added != V * D:
        raise NotYet("the decoder should be one nn.Linear(D, V), whose bias replaces mlm_bias")
    truth_tied = _rows_reached(tied, tied.bert.embeddings.token.weight, small, "lecturekit's")
    truth_untied = _rows_reached(model, table, small, "your model")
    if truth_untied == V:
        raise NotYet(
            "one step reaches every row of your UntiedBert's token table: its MLM logits still "
            "use the token embeddings; use self.decoder(h)"
        )
    if extra != added:
        raise NotYet(
            "extra_parameters is not what your UntiedBert adds to Bert(config): count what the "
            "decoder brings and what it replaces"
        )
    if (rows_tied, rows_untied) == (truth_untied, truth_tied):
        raise NotYet("rows_tied and rows_untied are swapped")
    if rows_tied != truth_tied:
        raise NotYet(
            "rows_tied is not right: count the rows of Bert(config)'s "
            "embeddings.token.weight.grad that are not all zero after backward() on small"
        )
    if rows_untied != truth_untied:
        raise NotYet(
            "rows_untied is not right: count the rows of your UntiedBert's "
            "embeddings.token.weight.grad that are not all zero after backward() on small "
            "(the batch as the model reads it, masks included)"
        )
    return (
        f"untying adds {extra:,} parameters ({extra / n_tied:.0%} more; in BERT-base 23.4 M). "
        f"Tied, one step reaches all {rows_tied} rows of the token table: the decoder scores "
        "every word at every masked position, so every word's vector is pushed towards or "
        f"away from what the context says, in the batch or not; untied, only the {rows_untied} "
        "tokens the batch shows get a gradient (and the decoder's rows learn the output side "
        "alone). Tying saves the parameters and trains rare words' vectors at every step"
    )


def _whole(value: object) -> int:
    number = float(value)  # TypeError / ValueError for what is not a number
    if isinstance(value, bool) or not number.is_integer():
        raise ValueError(value)
    return int(number)


def _token_table(model: nn.Module) -> torch.Tensor:
    """The token-embedding table of the student's model (``embeddings.token``, as in the
    lecture's ``Bert``; lecturekit's model has it under ``bert.``)."""
    for name, p in model.named_parameters():
        if name == "embeddings.token.weight" or name.endswith(".embeddings.token.weight"):
            if p.shape != (450, 64):
                raise NotYet("build it with the lecture's sizes: UntiedBert(config)")
            return p
    raise NotYet(
        "your model has no embeddings.token table: make UntiedBert a subclass of your Bert"
    )


def _tied_reference(V: int, D: int) -> tuple[nn.Module, dict[str, torch.Tensor]]:
    """lecturekit's tied BERT of the lecture's sizes, and the lecture's batch ``small``."""
    from lecturekit.datasets.pretraining import pretraining_batch
    from lecturekit.datasets.stories import default_data
    from lecturekit.models.bert import BertConfig, BertForPreTraining
    from lecturekit.objectives import make_nsp_pairs

    data = default_data()
    pairs = make_nsp_pairs(data.train[:2000], random.Random(0))  # the lecture's section 4
    small = pretraining_batch(pairs[:64], data.tokenizer, torch.Generator().manual_seed(0))
    with torch.random.fork_rng():
        torch.manual_seed(0)
        tied = BertForPreTraining(BertConfig.tiny(vocab_size=V, hidden_size=D))
    return tied, small


def _rows_reached(
    model: nn.Module, table: torch.Tensor, batch: dict[str, torch.Tensor], whose: str
) -> int:
    """How many rows of ``table`` get a non-zero gradient from the pre-training loss on
    ``batch`` (model in eval mode; the model's .grad are left alone)."""
    was_training = model.training
    model.eval()
    try:
        what = f"{whose} model(ids, segments, real)"
        out = run_student(
            model, batch["input_ids"], batch["segment_ids"], batch["attention_mask"], what=what
        )
        try:
            mlm_logits, nsp_logits = out[0], out[1]
        except (TypeError, IndexError, KeyError):
            raise NotYet(f"{what} should return (mlm_logits, nsp_logits)") from None
        B, T = batch["input_ids"].shape
        mlm_logits = as_tensor(mlm_logits, "the MLM logits", shape=(B, T, table.shape[0]),
                               dims="(B, T, V)")  # fmt: skip
        nsp_logits = as_tensor(nsp_logits, "the NSP logits", shape=(B, 2), dims="(B, 2)")
        loss = F.cross_entropy(mlm_logits.flatten(0, 1), batch["mlm_labels"].flatten())
        loss = loss + F.cross_entropy(nsp_logits, batch["nsp_labels"])
        if not loss.requires_grad:
            raise NotYet(f"{what}: the logits do not depend on the parameters (no_grad?)")
        (grad,) = torch.autograd.grad(loss, table, allow_unused=True)
    finally:
        model.train(was_training)
    return 0 if grad is None else int((grad != 0).any(-1).sum())
