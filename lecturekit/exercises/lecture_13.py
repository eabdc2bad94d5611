"""Lecture 13's exercises: fine-tuning BERT on four kinds of task.

13.1 the labels of a tagged sentence, piece by piece (code: run against ``encode`` on tagging
sentences), 13.2 the best valid answer span (code: run against ``best_span`` on random logits),
13.3 SQuAD's exact match and F1 by hand (hashed), 13.4 token accuracy vs entity F1 (hashed),
13.5 what one output layer costs (hashed), 13.6 only the output layer, on tagging (the two
models the student fine-tuned with the notebook's loop passed in: compared with what
``lecturekit.experiments.finetuning.run`` trains from the same seed, and the answer with their
entity F1 measured here).
"""

from __future__ import annotations

import contextlib
import functools
import random

import numpy as np
import torch
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


# ------------------------------------------------------------------ 13.6 only the output layer

_STEPS, _N_TRAIN, _SEED = 100, 50, 0  # the recipe at 50 examples (FINETUNING: 100 steps)


@contextlib.contextmanager
def _rng_kept():
    """Training here seeds torch, random and numpy: leave the student's random state as it was."""
    state, numpy_state = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        yield
    random.setstate(state)
    np.random.set_state(numpy_state)


@functools.cache
def _tagging_reference() -> dict[str, object]:
    """What lecturekit trains on the tagging task from seed 0 with 50 examples, in both
    regimes, and the data encoded once (the student's random state left as it was)."""
    from lecturekit.datasets.finetuning import default_tasks, encode
    from lecturekit.experiments.finetuning import run
    from lecturekit.shipped import load_shipped, load_tokenizer

    with _rng_kept():
        bert, tokenizer = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
        task = default_tasks()["tagging"]
        models = {regime: run(task, regime, _N_TRAIN, bert, tokenizer, seed=_SEED).model.eval()
                  for regime in ("fine-tuned", "frozen features")}  # fmt: skip
    return {"bert": bert, "task": task, "models": models,
            "train": encode(task, tokenizer, task.subset(_N_TRAIN, _SEED)),
            "test": encode(task, tokenizer, task.test),
            "dev": encode(task, tokenizer, task.dev)}  # fmt: skip


def _inputs(batch: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return batch["input_ids"], batch["segment_ids"], batch["attention_mask"]


def _logits(model: nn.Module, batch: dict, name: str) -> torch.Tensor:
    """The student's model on ``batch`` in eval mode: (B, T, C) tag logits."""
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = run_student(model, *_inputs(batch), what=f"{name}(ids, segments, real)")
    finally:
        model.train(was)
    logits = as_tensor(getattr(out, "logits", out), f"{name}(ids, segments, real)")
    B, T = batch["input_ids"].shape
    if logits.ndim != 3 or tuple(logits.shape[:2]) != (B, T):
        raise NotYet(
            f"{name}(ids, segments, real) should give a score per tag at every position, "
            f"(B, T, C) = ({B}, {T}, C), got {tuple(logits.shape)}: a TokenClassifier"
        )
    return logits


def _scores(logits: torch.Tensor, batch: dict, task: object) -> tuple[float, float]:
    """CoNLL entity F1 and the share of words tagged right, from per-piece logits."""
    from lecturekit.datasets.finetuning import tags_from_token_predictions
    from lecturekit.experiments.metrics import entity_f1

    ids = logits.argmax(-1)
    pred = [tags_from_token_predictions(batch["word_ids"][b], ids[b], task.labels)
            for b in range(len(ids))]  # fmt: skip
    scored = batch["labels"] != -100  # each word's first piece
    gold = [[task.labels[i] for i in row[keep].tolist()]
            for row, keep in zip(batch["labels"], scored, strict=True)]  # fmt: skip
    words = sum(len(g) for g in gold)
    right = sum(
        p == g for ps, gs in zip(pred, gold, strict=True) for p, g in zip(ps, gs, strict=True)
    )
    return entity_f1(pred, gold)["f1"], right / words


def _frozen_variant(lr: float, encoder_dropout: bool) -> nn.Module:
    """The head-only run done another way (a near miss to name): the section 5 loop with this
    learning rate, the frozen encoder in train mode (dropout on) if ``encoder_dropout``."""
    from lecturekit.experiments.finetuning import FINETUNING, build_model

    ref = _tagging_reference()
    model = build_model(ref["task"], "frozen features", ref["bert"], seed=_SEED)
    batch, n, size = ref["train"], len(ref["train"]["input_ids"]), FINETUNING["batch_size"]
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=FINETUNING["weight_decay"])
    warm = round(FINETUNING["warmup"] * _STEPS)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warm if s < warm else (_STEPS - s) / (_STEPS - warm)
    )
    torch.manual_seed(_SEED)
    order, step = torch.Generator().manual_seed(_SEED), 0
    model.train()
    model.bert.train(encoder_dropout)
    while step < _STEPS:
        shuffled = torch.randperm(n, generator=order)
        for i in range(0, n, size):
            rows = shuffled[i : i + size]
            out = model(*(x[rows] for x in _inputs(batch)), labels=batch["labels"][rows])
            optimizer.zero_grad()
            out.loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step == _STEPS:
                break
    return model.eval()


def _encoder_moved(model: nn.Module, pretrained: nn.Module) -> bool:
    state = pretrained.bert.state_dict()
    return any(not torch.equal(v, state[k]) for k, v in model.bert.state_dict().items())


_FROZEN_NEAR_MISSES = (  # (lr, dropout in the frozen encoder, what the message says)
    (3e-3, False, "trained with the small learning rate of full fine-tuning: an output layer "
     "alone on frozen features takes the recipe's large one"),
    (0.3, True, "trained with dropout on inside the frozen encoder: a frozen feature extractor "
     "runs in eval mode, as freeze_encoder=True makes it"),
)  # fmt: skip
_RECIPE = ("100 steps of your finetune on encode(tagging, tokenizer, tagging.subset(50, seed=0)), "
           "starting from pretrained(TokenClassifier(bert.config, 7))")  # fmt: skip


@exercise(
    "13.6",
    "only the output layer, on tagging",
    hints=(
        "Two separate models, each pretrained(TokenClassifier(bert.config, 7)); "
        "finetune(full, data, steps=100, lr=3e-3) and finetune(frozen, data, steps=100, lr=0.3, "
        "freeze_encoder=True), data = encode(tagging, tokenizer, tagging.subset(50, seed=0)).",
        "To score one: model = BertForTokenClassification.from_pretrained(bert, num_labels=7) "
        "(from lecturekit.models.bert_tasks), model.load_state_dict(yours.state_dict()) (the "
        "names are the same), then evaluate(model, tagging, tokenizer, tagging.test)['f1'] "
        "(from lecturekit.experiments.finetuning).",
    ),
)
def _head_only(answer: object, *, full: object, frozen: object) -> str:
    if full is None or frozen is None:
        raise NotYet("pass your two trained models too: check('13.6', answer, full=..., "
                     "frozen=...)")  # fmt: skip
    for name, model in (("full", full), ("frozen", frozen)):
        if not isinstance(model, nn.Module) or not isinstance(getattr(model, "bert", None),
                                                              nn.Module):  # fmt: skip
            raise NotYet(f"{name} should be your trained TokenClassifier (a module with the "
                         f"encoder as .bert), got {type(model).__name__}")  # fmt: skip
    if full is frozen:
        raise NotYet("full and frozen are the same model: build one for each run")
    try:
        f1_full, f1_frozen = (float(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet("give a pair of numbers: answer = (f1_full, f1_frozen)") from None
    ref = _tagging_reference()
    try:
        frozen_moved = _encoder_moved(frozen, ref["bert"])
        full_moved = _encoder_moved(full, ref["bert"])
    except (KeyError, RuntimeError):
        raise NotYet("your models' .bert should be the lecture's encoder (BertModel(config), "
                     "bert.config as in section 5)") from None  # fmt: skip
    if frozen_moved:
        raise NotYet("in frozen the encoder's weights changed: with the encoder frozen only the "
                     "output layer may train")  # fmt: skip
    if not full_moved:
        raise NotYet("in full the encoder's weights are still the pre-trained ones: there every "
                     "weight trains")  # fmt: skip
    test, task = ref["test"], ref["task"]
    logits = {"full": _logits(full, test, "full"), "frozen": _logits(frozen, test, "frozen")}
    with torch.no_grad():
        want = {
            name: ref["models"][regime](*_inputs(test)).logits
            for name, regime in (("full", "fine-tuned"), ("frozen", "frozen features"))
        }
    for name in ("full", "frozen"):
        if tuple(logits[name].shape) != tuple(want[name].shape):
            raise NotYet(f"{name} gives {tuple(logits[name].shape)[-1]} scores per position; the "
                         f"tagging task has {want[name].shape[-1]} tags")  # fmt: skip
    if not torch.allclose(logits["frozen"], want["frozen"], atol=1e-3, rtol=0):
        for lr, dropout, why in _FROZEN_NEAR_MISSES:
            with _rng_kept():
                variant = _frozen_variant(lr, dropout)
            with torch.no_grad():
                if torch.allclose(logits["frozen"], variant(*_inputs(test)).logits, atol=1e-3,
                                  rtol=0):  # fmt: skip
                    raise NotYet(f"frozen looks {why}")
        raise NotYet(f"frozen is not the model the recipe gives ({_RECIPE}, lr 0.3, "
                     "freeze_encoder=True)")  # fmt: skip
    if not torch.allclose(logits["full"], want["full"], atol=1e-3, rtol=0):
        raise NotYet(f"full is not the model the recipe gives ({_RECIPE}, lr 3e-3, every "
                     "weight trained)")  # fmt: skip
    scores = {name: _scores(logits[name], test, task) for name in logits}
    truth = (scores["full"][0], scores["frozen"][0])
    if f1_full > 1 or f1_frozen > 1:
        raise NotYet("give the F1 scores as fractions between 0 and 1, not percentages")

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= 0.01

    if near(f1_full, truth[0]) and near(f1_frozen, truth[1]):
        gap = truth[0] - truth[1]
        return (
            f"entity F1 {truth[0]:.2f} with every weight trained, {truth[1]:.2f} with only the "
            f"output layer: {gap:.2f} apart, where topic lost far more with its encoder frozen "
            "(section 5). Masked-LM pre-training made every position's vector say which word is "
            "there and what surrounds it, so one linear layer per token can read the tags off "
            "frozen vectors; the pooled [CLS] was trained for next-sentence prediction only, "
            "and a linear layer on it cannot find the topic. What frozen features are worth "
            "depends on whether the task reads what pre-training trained"
        )
    if near(f1_full, truth[1]) and near(f1_frozen, truth[0]):
        raise NotYet("the two numbers are swapped: (f1_full, f1_frozen)")
    words = (scores["full"][1], scores["frozen"][1])
    if near(f1_full, words[0]) or near(f1_frozen, words[1]):
        raise NotYet("that is the share of words tagged right; CoNLL's score is the F1 over "
                     "whole entities (section 4)")  # fmt: skip
    dev = tuple(_scores(_logits(m, ref["dev"], n), ref["dev"], task)[0]
                for n, m in (("full", full), ("frozen", frozen)))  # fmt: skip
    if near(f1_full, dev[0]) and near(f1_frozen, dev[1]):
        raise NotYet("those are the dev set's scores: measure on tagging.test")
    which = [name for name, got, want in (("f1_full", f1_full, truth[0]),
                                         ("f1_frozen", f1_frozen, truth[1]))
             if not near(got, want)]  # fmt: skip
    verb = "are" if len(which) == 2 else "is"
    raise NotYet(f"the models are right, but {' and '.join(which)} {verb} not their entity F1 "
                 "on tagging.test")  # fmt: skip
