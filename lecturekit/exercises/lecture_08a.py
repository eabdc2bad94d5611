"""Lecture 08a's exercises: BERT's input representation and pre-training tasks.

08a.1 count the tokens of a sentence pair (hashed),
08a.2 the 80/10/10 replacement for given random draws (code: run against
      ``lecturekit.models.bert.mask_tokens`` with the same draws),
08a.3 the parameters of BERT-base's embedding layer (hashed),
08a.4 the loss an untrained BERT-base starts from (hashed).
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
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
    from lecturekit.models.bert import mask_tokens
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

register(
    Exercise(
        "08a.4",
        "the loss of an untrained BERT-base",
        hints=(
            "An untrained model guesses uniformly: a uniform guess over V classes has "
            "cross-entropy ln V.",
            "The loss is the sum of the two tasks': the masked token (which vocabulary?) and "
            "IsNext / NotNext.",
        ),
        expected=Expected("float", ("cf917aee00373e1bf455",), 2),
        correct=(
            "{answer} nats = ln 30522 + ln 2: a freshly initialised BERT-base should start "
            "near it, as the tiny one started near ln 450 + ln 2"
        ),
    )
)
