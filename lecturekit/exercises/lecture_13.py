"""Lecture 13's exercises: fine-tuning BERT on four kinds of task.

13.1 the labels of a tagged sentence, piece by piece (code: run against ``encode`` on tagging
sentences), 13.2 the best valid answer span (code: run against ``best_span`` on random logits),
13.3 SQuAD's exact match and F1 by hand (hashed), 13.4 token accuracy vs entity F1 (hashed),
13.5 what one output layer costs (hashed).
"""

from __future__ import annotations

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("13", "13_bert_finetuning")


@exercise(
    "13.1",
    "labels piece by piece",
    hints=(
        "The model sees [CLS], then every piece of every word, then [SEP]: your list has one "
        "entry per position, so len = 2 + the total number of pieces.",
        "A word's tag id goes on its FIRST piece only; later pieces (##...), [CLS] and [SEP] "
        "get -100, the value the loss ignores.",
    ),
)
def _labels(answer: object) -> str:
    from lecturekit.datasets.finetuning import default_tasks, encode
    from lecturekit.shipped import load_tokenizer

    tokenizer = load_tokenizer("bert_tiny")
    task = default_tasks()["tagging"]
    tag_ids = {tag: i for i, tag in enumerate(task.labels)}
    split = [e for e in task.test if any(len(tokenizer.tokenize(w)) > 1 for w in e.words)]
    examples = split[:4] + list(task.test[:4])
    for example in examples:
        pieces = [tokenizer.tokenize(w) for w in example.words]
        shown = " ".join(" ".join(p) for p in pieces)
        got = run_student(answer, pieces, list(example.tags), dict(tag_ids),
                          what=f"your function on {shown!r}")  # fmt: skip
        want = encode(task, tokenizer, [example])["labels"][0].tolist()
        try:
            got = [int(v) for v in got]
        except (TypeError, ValueError):
            raise NotYet("return a list of integers (tag ids and -100)") from None
        if len(got) != len(want):
            raise NotYet(f"on {shown!r} your list has {len(got)} entries; the input has "
                         f"{len(want)} positions ([CLS], the pieces, [SEP])")  # fmt: skip
        wrong = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
        if wrong:
            raise NotYet(f"on {shown!r} position {wrong[0]} is not right yet")
    return (
        f"your labels equal lecturekit's encode on {len(examples)} sentences, split words "
        "included: the loss sees each word once, on its first piece"
    )


@exercise(
    "13.2",
    "the best valid span",
    hints=(
        "Try every pair (i, j) with i <= j and j - i + 1 <= max_answer_length; the score of a "
        "span is start_logits[i] + end_logits[j].",
        "Return the pair with the highest score as two ints (i, j); the best start and the "
        "best end taken separately can give j < i.",
    ),
)
def _span(answer: object) -> str:
    import torch

    from lecturekit.models.bert_tasks import best_span

    generator = torch.Generator().manual_seed(13)
    cases = 0
    for T, max_len in [(6, 6), (12, 3), (12, 1), (20, 5), (9, 2)]:
        for _ in range(4):
            start = torch.randn(T, generator=generator)
            end = torch.randn(T, generator=generator)
            got = run_student(
                answer,
                start.clone(),
                end.clone(),
                max_len,
                what=f"your function on T={T}, max_answer_length={max_len}",
            )
            try:
                i, j = (int(v) for v in got)
            except (TypeError, ValueError):
                raise NotYet("return two integers: (start, end)") from None
            want = best_span(start, end, max_answer_length=max_len)[:2]
            if (i, j) != want:
                why = (
                    " (end before start)"
                    if j < i
                    else (" (longer than max_answer_length)" if j - i + 1 > max_len else "")
                )
                raise NotYet(f"on T={T}, max_answer_length={max_len} your span ({i}, {j}) is "
                             f"not the best valid one{why}")  # fmt: skip
            cases += 1
    return (
        f"your search equals best_span on {cases} random cases: every valid (start, end) "
        "pair scored by start + end logit, the best kept"
    )


register(
    Exercise(
        "13.3",
        "SQuAD's exact match and F1 by hand",
        hints=(
            "Normalise both answers first: lower case, no punctuation, no articles (a, an, "
            "the), single spaces.",
            "F1 compares the two bags of words: precision = shared / predicted words, recall = "
            "shared / gold words.",
        ),
        expected=Expected("floats", ("08ea630745af3954ca5b", "e6b876317f3d26f61cd4"), 2),
        correct="{answer}: one extra word costs the whole exact match but only a little F1, "
        "which is why SQuAD reports both",
    )
)

register(
    Exercise(
        "13.4",
        "token accuracy vs entity F1",
        hints=(
            "Token accuracy counts the words whose tag is right, over all words.",
            "CoNLL counts entities: an entity is right only if its type AND both its ends are "
            "right. List the gold entities and the predicted ones first.",
        ),
        expected=Expected("floats", ("dc08baa548f2e55ff32e", "862d70b0b2c60488f095"), 2),
        correct="{answer}: one wrong I- tag breaks a whole entity and also makes a wrong one, "
        "so entity F1 punishes it twice while token accuracy hardly moves",
    )
)

register(
    Exercise(
        "13.5",
        "what one output layer costs",
        hints=(
            "A Linear(D, C) layer has D x C weights and C biases.",
            "A question-answering head predicts two numbers per token (start, end), whatever "
            "the number of answers; BERT-base has D = 768.",
        ),
        expected=Expected("floats", ("a9608aa054b826d1fe99", "db5b43f6713189354c6f"), 0),
        correct="{answer}: a few hundred new weights on top of 137,280 (or 110 M) pre-trained "
        "ones: fine-tuning adapts what is there rather than learning from nothing",
    )
)
