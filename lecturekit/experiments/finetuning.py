"""Lecture 13's measurement: one pre-trained BERT fine-tuned on four kinds of task, against the
same architecture trained from random initialisation and against frozen BERT features with the
same one output layer, at several labelled-set sizes.

The three regimes differ only in where the weights start and which of them train:

    "fine-tuned"       the shipped tiny BERT's encoder + a new head; every weight trains
    "from scratch"     the same architecture, every weight random (BERT's initialisation)
    "frozen features"  the shipped encoder, frozen; only the head trains (on features
                       computed once, in eval mode: the "feature-based" use of BERT)

Public API::

    REGIMES, KINDS                           # the three regimes; task kind -> head class
    FINETUNING                               # the recipe (optimizer, steps, learning rates)
    model = build_model(task, regime, pretrained, seed=0)    # a head model for the task
    result = run(task, regime, n_train, pretrained, tokenizer, seed=0)   # -> RunResult
    #   result.model, result.dev, result.test (the task's primary score), result.scores (all),
    #   result.losses (the training loss of every optimizer step)
    preds = predict(model, task, tokenizer, examples)     # labels / answer texts / tag lists
    scores = evaluate(model, task, tokenizer, examples)   # {"accuracy": ...} or EM/F1 or P/R/F1
    PRIMARY                                  # task kind -> the score a curve plots
    rows = sweep(tasks, pretrained, tokenizer, sizes=..., seeds=..., regimes=...)  # dicts
    table = curve_table(rows)                # (task, regime, n) -> (mean, min, max) over seeds
    head_parameters(model)                   # what the new output layer adds
    example = example_from_text(task, first, second="")   # typed text -> an example (no gold)
    fmt = input_format(task, tokenizer, example)   # tokens, segment ids and what the head is
    #   trained on at each position: lecturekit.viz.finetuning.plot_input_format(**fmt)
    p = probabilities(model, task, tokenizer, first, second="")   # what the model says, with
    #   probabilities: label probs; the span's start/end probs and its probability; tag probs
    GLUE_TABLE, SQUAD_TABLE, GPT_ABLATION    # the decks' tables as data, with their source

Lecture 13; Devlin et al. 2019 section 4 and 5.3 (fine-tuning vs feature-based).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.datasets.finetuning import (
    PairExample,
    SentenceExample,
    SpanExample,
    TaggedExample,
    Task,
    encode,
    split_words,
    tags_from_token_predictions,
    words_of_span,
)
from lecturekit.experiments.metrics import accuracy, entity_f1, entity_f1_by_seen, squad_scores
from lecturekit.models.bert import BertForPreTraining
from lecturekit.models.bert_tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertTaskConfig,
    best_span,
    span_scores,
)
from lecturekit.tokenization import WordPieceTokenizer
from lecturekit.training import fit
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_seed,
    check_str,
)

__all__ = [
    "REGIMES",
    "KINDS",
    "PRIMARY",
    "FINETUNING",
    "RunResult",
    "build_model",
    "train_steps",
    "run",
    "predict",
    "evaluate",
    "sweep",
    "curve_table",
    "head_parameters",
    "example_from_text",
    "input_format",
    "probabilities",
    "GLUE_TABLE",
    "SQUAD_TABLE",
    "GPT_ABLATION",
]

REGIMES = ("fine-tuned", "from scratch", "frozen features")
KINDS: dict[str, type[nn.Module]] = {
    "sequence": BertForSequenceClassification,
    "pair": BertForSequenceClassification,
    "token": BertForTokenClassification,
    "span": BertForQuestionAnswering,
}
PRIMARY = {"sequence": "accuracy", "pair": "accuracy", "token": "f1", "span": "f1"}

# The recipe: AdamW with linear warm-up (10 %) and linear decay, batch 16, at least
# ``min_steps`` steps (small sets get many epochs) and otherwise ``epochs`` passes. The learning
# rates were chosen per regime on the dev sets (see lecturekit.shipped.finetuning).
FINETUNING: dict[str, object] = {
    "batch_size": 16,
    "epochs": 3,
    "min_steps": 100,
    "lr": {"fine-tuned": 3e-3, "from scratch": 3e-3, "frozen features": 0.3},
    "weight_decay": 0.01,
    "warmup": 0.1,
    "max_answer_length": 10,
    "sizes": (50, 200, 1000, 4000),
    "seeds": (0, 1, 2),
}


@dataclass
class RunResult:
    """One fine-tuning run: where it started, how much it saw, what it scored."""

    task: str
    regime: str
    n_train: int
    seed: int
    dev: float  # the task's primary score (PRIMARY) on dev, 0..1
    test: float  # the same on test
    scores: dict[str, float]  # every test score
    steps: int
    seconds: float
    model: nn.Module
    losses: list[float] = field(default_factory=list)  # the training loss of every step

    def row(self) -> dict[str, object]:
        """The result without the model, JSON-ready (what a sweep ships)."""
        return {"task": self.task, "regime": self.regime, "n_train": self.n_train,
                "seed": self.seed, "dev": round(self.dev, 4), "test": round(self.test, 4),
                "scores": {k: round(v, 4) for k, v in self.scores.items()},
                "steps": self.steps}  # fmt: skip


def _check_task(task: object) -> Task:
    check_instance("task", task, Task)
    check_choice("task.kind", task.kind, sorted(KINDS))
    return task


def build_model(
    task: Task, regime: str, pretrained: BertForPreTraining, seed: int = 0
) -> nn.Module:
    """The head model of ``task``'s kind: the pre-trained encoder copied (fine-tuned, frozen
    features) or a random one of the same sizes (from scratch); the head initialised from
    ``seed``. In "frozen features" the encoder's weights have requires_grad False."""
    _check_task(task)
    check_choice("regime", regime, REGIMES)
    check_instance("pretrained", pretrained, BertForPreTraining)
    check_seed(seed)
    cls = KINDS[task.kind]
    num_labels = {} if task.kind == "span" else {"num_labels": len(task.labels)}
    if regime == "from scratch":
        config = BertTaskConfig(**pretrained.config.to_dict(), **num_labels)
        state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        model = cls(config)  # BERT's initialisation, every weight
        torch.random.set_rng_state(state)
        return model.train()
    model = cls.from_pretrained(pretrained, seed=seed, **num_labels)
    if regime == "frozen features":
        model.bert.requires_grad_(False)
    return model


def train_steps(n_train: int) -> int:
    """Optimizer steps for ``n_train`` labelled examples: ``epochs`` passes, at least
    ``min_steps``."""
    check_positive_int("n_train", n_train)
    per_epoch = math.ceil(n_train / FINETUNING["batch_size"])
    return max(FINETUNING["min_steps"], FINETUNING["epochs"] * per_epoch)


def _loss(model: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    args = (batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    if isinstance(model, BertForQuestionAnswering):
        out = model(*args, start_positions=batch["start_positions"],
                    end_positions=batch["end_positions"])  # fmt: skip
    else:
        out = model(*args, labels=batch["labels"])
    return out.loss


def _schedule(steps: int):
    warm = max(1, round(FINETUNING["warmup"] * steps))
    decay = max(1, steps - warm)  # a run all warm-up (1 step) decays over nothing: no 0 / 0

    def factor(step: int) -> float:
        return (step + 1) / warm if step < warm else max(0.0, (steps - step) / decay)

    return factor


def _batch_rows(batch: Mapping[str, torch.Tensor], rows: torch.Tensor) -> dict:
    return {k: v[rows] for k, v in batch.items()}


def _train_full(model: nn.Module, batch: dict, steps: int, lr: float, seed: int) -> list[float]:
    """AdamW over every trainable weight, ``steps`` shuffled mini-batches of the encoded set;
    returns every step's loss."""
    n, bs = len(batch["input_ids"]), FINETUNING["batch_size"]
    per_epoch = math.ceil(n / bs)
    epochs = math.ceil(steps / per_epoch)

    def make_batches(epoch: int, generator: torch.Generator):
        order = torch.randperm(n, generator=generator)
        for i in range(per_epoch):
            if epoch * per_epoch + i >= steps:
                return
            yield _batch_rows(batch, order[i * bs : (i + 1) * bs])

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=FINETUNING["weight_decay"])
    history = fit(model, make_batches, _loss, epochs=epochs, optimizer=optimizer,
                  schedule=_schedule(steps), seed=seed, progress=False)  # fmt: skip
    return history.step_loss


@torch.no_grad()
def _features(model: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """What the head reads, from the frozen encoder in eval mode: pooled [CLS] (B, D) for the
    classifiers, the last layer (B, T, D) for tagging and spans."""
    was = model.bert.training
    model.bert.eval()
    out = model.bert(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    model.bert.train(was)
    return out.pooled if isinstance(model, BertForSequenceClassification) else out.hidden


def _train_head(model: nn.Module, batch: dict, steps: int, lr: float, seed: int) -> list[float]:
    """Frozen features: the encoder runs once; only the output layer trains on its features
    (with the head's dropout), by the same optimizer and schedule; returns every step's loss."""
    features = _features(model, batch)
    torch.manual_seed(seed)  # the dropout masks
    head, n, bs = model.output_layer(), len(features), FINETUNING["batch_size"]
    dropout = nn.Dropout(model.config.dropout)
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr,
                                  weight_decay=FINETUNING["weight_decay"])  # fmt: skip
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(steps))
    generator = torch.Generator().manual_seed(seed)
    order, i, losses = torch.randperm(n, generator=generator), 0, []
    for _ in range(steps):
        if i >= n:
            order, i = torch.randperm(n, generator=generator), 0
        rows = order[i : i + bs]
        i += bs
        logits = head(dropout(features[rows]))  # (b, C) or (b, T, C)
        if isinstance(model, BertForQuestionAnswering):
            start, end = logits.unbind(-1)  # (b, T, 2) -> 2 x (b, T)
            loss = (F.cross_entropy(start, batch["start_positions"][rows])
                    + F.cross_entropy(end, batch["end_positions"][rows])) / 2  # fmt: skip
        else:
            labels = batch["labels"][rows]
            loss = F.cross_entropy(logits.flatten(0, -2), labels.flatten(), ignore_index=-100)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(head.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def _check_examples(task: Task, examples: object) -> Sequence:
    if isinstance(examples, str) or not isinstance(examples, Sequence) or not examples:
        raise ValueError(f"examples must be a non-empty list of {task.name} examples, got "
                         f"{type(examples).__name__}")  # fmt: skip
    return examples


@torch.no_grad()
def predict(
    model: nn.Module, task: Task, tokenizer: WordPieceTokenizer, examples: Sequence
) -> list:
    """The model's answers: a label name per example (sequence, pair), the answer text (span:
    the best valid span of the context, at most ``max_answer_length`` pieces), or a tag per word
    (token). Runs in eval mode, 64 examples at a time; the model's mode is restored."""
    _check_task(task)
    check_instance("model", model, KINDS[task.kind])
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    examples = _check_examples(task, examples)
    was, preds = model.training, []
    model.eval()
    for i in range(0, len(examples), 64):
        chunk = examples[i : i + 64]
        batch = encode(task, tokenizer, chunk)
        args = (batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
        out = model(*args)
        if task.kind in ("sequence", "pair"):
            preds += [task.labels[j] for j in out.logits.argmax(-1).tolist()]
        elif task.kind == "token":
            ids = out.logits.argmax(-1)  # (B, T, C) -> (B, T)
            for row in range(len(chunk)):
                preds.append(tags_from_token_predictions(batch["word_ids"][row], ids[row],
                                                         task.labels))  # fmt: skip
        else:
            start, end, _ = best_span(out.start_logits, out.end_logits,
                                      max_answer_length=FINETUNING["max_answer_length"],
                                      allowed=batch["context_mask"])  # fmt: skip
            for row, example in enumerate(chunk):
                preds.append(words_of_span(example, batch["word_ids"][row], int(start[row]),
                                           int(end[row])))  # fmt: skip
    model.train(was)
    return preds


def evaluate(
    model: nn.Module, task: Task, tokenizer: WordPieceTokenizer, examples: Sequence
) -> dict[str, float]:
    """The task's scores, each in 0..1: accuracy; exact_match and f1 (SQuAD's); precision,
    recall and f1 over entities (CoNLL's; with "seen f1" and "unseen f1" when the task holds
    entity words out of its training pool). The first key is the primary score."""
    preds = predict(model, task, tokenizer, examples)
    if task.kind in ("sequence", "pair"):
        return {"accuracy": accuracy(preds, [e.label for e in examples])}
    if task.kind == "token":
        gold = [list(e.tags) for e in examples]
        scores = entity_f1(preds, gold)
        out = {"f1": scores["f1"], "precision": scores["precision"], "recall": scores["recall"]}
        if task.info.get("unseen_words"):  # entities whose words no training sentence shows
            split = entity_f1_by_seen(preds, gold, [e.words for e in examples],
                                      task.info["unseen_words"])  # fmt: skip
            out.update({f"{group} f1": split[group]["f1"] for group in ("seen", "unseen")})
        return out
    scores = squad_scores(preds, [e.answer for e in examples])
    return {"f1": scores["f1"], "exact_match": scores["exact_match"]}


def run(
    task: Task,
    regime: str,
    n_train: int,
    pretrained: BertForPreTraining,
    tokenizer: WordPieceTokenizer,
    seed: int = 0,
    steps: int | None = None,
) -> RunResult:
    """Train ``task``'s head model in ``regime`` on ``task.subset(n_train, seed)`` and score it on
    dev and test. Deterministic for a seed (the subset, the head's initialisation, the batches).
    ``steps`` overrides ``train_steps(n_train)`` (tests use a few). ``result.losses`` holds
    every optimizer step's training loss (lecture 13 compares them with its written loop)."""
    _check_task(task)
    check_choice("regime", regime, REGIMES)
    check_positive_int("n_train", n_train)
    if n_train > len(task.train):
        raise ValueError(f"n_train={n_train} is more than the {len(task.train)} training "
                         f"examples of task {task.name!r}")  # fmt: skip
    steps = train_steps(n_train) if steps is None else check_positive_int("steps", steps)
    start = time.perf_counter()
    model = build_model(task, regime, pretrained, seed)
    batch = encode(task, tokenizer, task.subset(n_train, seed))
    lr = FINETUNING["lr"][regime]
    train = _train_head if regime == "frozen features" else _train_full
    losses = train(model, batch, steps, lr, seed)
    model.eval()
    primary = PRIMARY[task.kind]
    dev = evaluate(model, task, tokenizer, task.dev)[primary]
    scores = evaluate(model, task, tokenizer, task.test)
    seconds = time.perf_counter() - start
    return RunResult(task.name, regime, n_train, seed, dev, scores[primary], scores, steps,
                     seconds, model, losses)  # fmt: skip


def sweep(
    tasks: Iterable[Task],
    pretrained: BertForPreTraining,
    tokenizer: WordPieceTokenizer,
    sizes: Sequence[int] | None = None,
    seeds: Sequence[int] | None = None,
    regimes: Sequence[str] = REGIMES,
    steps: int | None = None,
) -> list[dict[str, object]]:
    """Every (task, regime, size, seed) run's ``RunResult.row()``, sizes above a task's pool
    skipped. Defaults: ``FINETUNING``'s sizes and seeds."""
    sizes = FINETUNING["sizes"] if sizes is None else sizes
    seeds = FINETUNING["seeds"] if seeds is None else seeds
    for regime in regimes:
        check_choice("regimes", regime, REGIMES)
    rows = []
    for task in tasks:
        for n in sizes:
            if n > len(task.train):
                continue
            for regime in regimes:
                for seed in seeds:
                    result = run(task, regime, n, pretrained, tokenizer, seed, steps)
                    rows.append(result.row())
    return rows


def curve_table(
    rows: Iterable[Mapping[str, object]], split: str = "test"
) -> dict[tuple[str, str, int], tuple[float, float, float]]:
    """(task, regime, n_train) -> (mean, min, max) of the ``split`` score over the seeds."""
    check_choice("split", split, ["dev", "test"])
    groups: dict[tuple[str, str, int], list[float]] = {}
    for row in rows:
        key = (str(row["task"]), str(row["regime"]), int(row["n_train"]))
        groups.setdefault(key, []).append(float(row[split]))
    return {k: (sum(v) / len(v), min(v), max(v)) for k, v in groups.items()}


def head_parameters(model: nn.Module) -> int:
    """Parameters of the one additional output layer (weight and bias)."""
    if not isinstance(model, tuple(KINDS.values())):
        raise ValueError(f"model must be a lecturekit BERT task model, got {type(model).__name__}")
    return sum(p.numel() for p in model.output_layer().parameters())


def example_from_text(task: Task, first: str, second: str = ""):
    """An example without gold from typed text (lower-cased, punctuation split off as the
    corpus writes it): ``first`` is the sentence, the premise or the question; ``second`` the
    hypothesis or the context (ignored by single-sentence tasks)."""
    _check_task(task)
    check_str("first", first, allow_empty=True)
    check_str("second", second, allow_empty=True)
    words, other = split_words(first), split_words(second)
    if not words:
        raise ValueError(f"first must hold at least one word, got {first!r}")
    if task.kind in ("pair", "span") and not other:
        what = "hypothesis" if task.kind == "pair" else "context"
        raise ValueError(f"second (the {what}) must hold at least one word, got {second!r}")
    if task.kind == "sequence":
        return SentenceExample(" ".join(words))
    if task.kind == "token":
        return TaggedExample(tuple(words))
    if task.kind == "pair":
        return PairExample(" ".join(words), " ".join(other))
    return SpanExample(" ".join(words), " ".join(other))


_FORMAT_TITLES = {
    "sequence": "(b) single sentence: the label from [CLS]",
    "pair": "(a) sentence pair: [CLS] A [SEP] B [SEP], the label from [CLS]",
    "span": "(c) question answering: [CLS] question [SEP] context [SEP], a start and an end",
    "token": "(d) tagging: a tag per word, on its first piece",
}


def input_format(task: Task, tokenizer: WordPieceTokenizer, example: object) -> dict[str, object]:
    """How ``example`` enters BERT for ``task``: its WordPiece ``tokens``, ``segment_ids``, and
    ``marks``: what the head is trained on at each position (the label at [CLS]; a tag on each
    word's first piece and -100 on the others; "start" / "end" at the answer), with a
    ``title`` naming the format as the slides do (Devlin et al. figure 4's letters). The keys
    are ``lecturekit.viz.finetuning.plot_input_format``'s arguments."""
    _check_task(task)
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    batch = encode(task, tokenizer, [example])
    tokens = tokenizer.convert_ids_to_tokens(batch["input_ids"][0].tolist())
    marks = [""] * len(tokens)
    if task.kind in ("sequence", "pair"):
        marks[0] = getattr(example, "label", None) or "label"
    elif task.kind == "token" and "labels" in batch:
        for i, label in enumerate(batch["labels"][0].tolist()):
            if batch["word_ids"][0, i] >= 0:
                marks[i] = task.labels[label] if label >= 0 else "-100"
    elif task.kind == "span" and "start_positions" in batch:
        marks[int(batch["start_positions"][0])] = "start"
        end = int(batch["end_positions"][0])
        marks[end] = "start/end" if marks[end] == "start" else "end"
    return {"tokens": tokens, "segment_ids": batch["segment_ids"][0].tolist(), "marks": marks,
            "marks_name": "trained on", "title": _FORMAT_TITLES[task.kind]}  # fmt: skip


@torch.no_grad()
def probabilities(
    model: nn.Module, task: Task, tokenizer: WordPieceTokenizer, first: str, second: str = ""
) -> dict[str, object]:
    """What ``model`` says about one typed input, with probabilities.

    Returns a dict with "answer" and: sequence / pair: "probs" (C,) over ``task.labels``; token:
    "words" and "probs" (W, C) (each word's first piece); span: "tokens" (the context pieces),
    "start_probs", "end_probs" (softmax over the context), "span" (first, last) into "tokens",
    "span_prob" (softmax over every valid span's start + end score).
    """
    _check_task(task)
    check_instance("model", model, KINDS[task.kind])
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    example = example_from_text(task, first, second)
    batch = encode(task, tokenizer, [example])
    was = model.training
    model.eval()
    out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    model.train(was)
    if task.kind in ("sequence", "pair"):
        probs = out.logits[0].softmax(-1)
        return {"answer": task.labels[int(probs.argmax())], "probs": probs}
    if task.kind == "token":
        first_piece = [i for i, w in enumerate(batch["word_ids"][0].tolist())
                       if w >= 0 and (i == 0 or batch["word_ids"][0, i - 1] != w)]  # fmt: skip
        probs = out.logits[0, first_piece].softmax(-1)  # (W, C)
        answer = tags_from_token_predictions(batch["word_ids"][0], out.logits[0].argmax(-1),
                                             task.labels)  # fmt: skip
        return {"answer": answer, "words": list(example.words), "probs": probs}
    allowed = batch["context_mask"][0]  # (T,)
    context = allowed.nonzero().flatten()
    start, end, _ = best_span(out.start_logits[0], out.end_logits[0],
                              max_answer_length=FINETUNING["max_answer_length"],
                              allowed=allowed)  # fmt: skip
    scores = span_scores(
        out.start_logits[0],
        out.end_logits[0],
        max_answer_length=FINETUNING["max_answer_length"],
        allowed=allowed,
    )
    span_prob = float(scores.flatten().softmax(-1)[start * scores.shape[-1] + end])
    first_pos = int(context[0])
    return {
        "answer": words_of_span(example, batch["word_ids"][0], start, end),
        "tokens": tokenizer.convert_ids_to_tokens(batch["input_ids"][0, context].tolist()),
        "start_probs": out.start_logits[0, context].softmax(-1),
        "end_probs": out.end_logits[0, context].softmax(-1),
        "span": (start - first_pos, end - first_pos),
        "span_prob": span_prob,
    }


# The decks' tables (Devlin et al. 2019 tables 1 and 2; Radford et al. 2018 table 5), as data.
GLUE_TABLE = {
    "source": "Devlin et al. 2019, table 1 (GLUE test); decks 000, 002, 004",
    "columns": ("MNLI-m", "MNLI-mm", "QQP", "QNLI", "SST-2", "CoLA", "STS-B", "MRPC", "RTE",
                "Average"),
    "train_size": {"MNLI-m": 392_000, "MNLI-mm": 392_000, "QQP": 363_000, "QNLI": 108_000,
                   "SST-2": 67_000, "CoLA": 8_500, "STS-B": 5_700, "MRPC": 3_500,
                   "RTE": 2_500},
    "rows": {
        "Pre-OpenAI SOTA": (80.6, 80.1, 66.1, 82.3, 93.2, 35.0, 81.0, 86.0, 61.7, 74.0),
        "BiLSTM+ELMo+Attn": (76.4, 76.1, 64.8, 79.8, 90.4, 36.0, 73.3, 84.9, 56.8, 71.0),
        "OpenAI GPT": (82.1, 81.4, 70.3, 87.4, 91.3, 45.4, 80.0, 82.3, 56.0, 75.1),
        "BERT-base": (84.6, 83.4, 71.2, 90.5, 93.5, 52.1, 85.8, 88.9, 66.4, 79.6),
        "BERT-large": (86.7, 85.9, 72.1, 92.7, 94.9, 60.5, 86.5, 89.3, 70.1, 82.1),
    },
}  # fmt: skip
SQUAD_TABLE = {
    "source": "Devlin et al. 2019, table 2 (SQuAD v1.1, EM / F1); deck 002",
    "columns": ("dev EM", "dev F1", "test EM", "test F1"),
    "rows": {
        "Human": (None, None, 82.3, 91.2),
        "#1 ensemble, nlnet (leaderboard)": (None, None, 86.0, 91.7),
        "#2 ensemble, QANet (leaderboard)": (None, None, 84.5, 90.5),
        "BiDAF+ELMo (single)": (None, 85.6, None, 85.8),
        "R.M. Reader (ensemble)": (81.2, 87.9, 82.3, 88.5),
        "BERT-base (single)": (80.8, 88.5, None, None),
        "BERT-large (single)": (84.1, 90.9, None, None),
        "BERT-large (ensemble)": (85.8, 91.8, None, None),
        "BERT-large (single + TriviaQA)": (84.2, 91.1, 85.1, 91.8),
        "BERT-large (ensemble + TriviaQA)": (86.2, 92.2, 87.4, 93.2),
    },
}
GPT_ABLATION = {
    "source": "Radford et al. 2018, table 5 (GPT ablations); deck 004",
    "columns": ("Avg.", "CoLA", "SST2", "MRPC", "STSB", "QQP", "MNLI", "QNLI", "RTE"),
    "rows": {
        "Transformer w/ aux LM (full)": (74.7, 45.4, 91.3, 82.3, 82.0, 70.3, 81.8, 88.1, 56.0),
        "Transformer w/o pre-training": (59.9, 18.9, 84.0, 79.4, 30.9, 65.5, 75.7, 71.2, 53.8),
        "Transformer w/o aux LM": (75.0, 47.9, 92.0, 84.9, 83.2, 69.8, 81.1, 86.9, 54.4),
        "LSTM w/ aux LM": (69.1, 30.3, 90.5, 83.2, 71.8, 68.1, 73.7, 81.1, 54.6),
    },
}
