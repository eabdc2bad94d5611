"""The shipped translation models of lectures 01, 02 and 07: train, save, regenerate.

Five RNN encoder-decoders (``Seq2SeqConfig.tiny()``) trained on the toy task's 20,000 pairs
(``lecturekit.datasets.translation.default_data()``) with one budget (``TRAINING``):
``seq2seq_none`` (no attention: the bottleneck) and ``seq2seq_dot``, ``seq2seq_general``,
``seq2seq_additive`` (attention with three scoring functions, queried with the current state
s_t as in Luong et al.), and ``seq2seq_bahdanau`` (the dot score queried with the previous
state s_{t-1} as in Bahdanau et al.: ``attention_query="previous"``; compare it with
``seq2seq_dot``).

Public API::

    MODELS                                              # shipped name -> attention score
    QUERIES                                             # shipped name -> attention_query
    TRAINING                                            # the shipped models' budget
    model = load_shipped("seq2seq_dot")                 # lecturekit.shipped (hash-checked)
    model, history = train_seq2seq(attention="additive", data=None, epochs=..., seed=0,
                                   device="cpu",    # cuda / mps: trained there, returned on CPU
                                   attention_query="current",   # or "previous" (Bahdanau)
                                   max_steps=None)  # N: the full run's first N steps only
    loss = seq2seq_loss(model, batch)                   # token cross-entropy (padding ignored)

Evaluation (``translate``, ``exact_match``) is in ``lecturekit.experiments.translation``.

Command line (regenerates the shipped checkpoints and their MANIFEST lines)::

    python -m lecturekit.shipped.seq2seq [--models seq2seq_none ...] [--epochs N] [--threads 1]
                                         [--device cpu|cuda|cuda:N|mps]

Lecture 01; Sutskever et al. 2014; Bahdanau et al. 2015; Luong et al. 2015.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lecturekit.attention import SCORE_FUNCTIONS
from lecturekit.datasets.translation import PAD, Batch, Pair, TranslationData, batches, default_data
from lecturekit.experiments.translation import exact_match
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_choice,
    check_device,
    check_instance,
    check_positive_int,
    check_range,
    check_seed,
)

__all__ = ["MODELS", "QUERIES", "TRAINING", "RECIPE", "seq2seq_loss", "train_seq2seq", "main"]

MODELS = {"seq2seq_none": None, "seq2seq_additive": "additive", "seq2seq_general": "general",
          "seq2seq_dot": "dot", "seq2seq_bahdanau": "dot"}  # fmt: skip
# Seq2SeqConfig.attention_query of each shipped model: s_t ("current", Luong) or s_{t-1}
# ("previous", Bahdanau); seq2seq_bahdanau differs from seq2seq_dot in this alone
QUERIES = {name: "current" for name in MODELS} | {"seq2seq_bahdanau": "previous"}
TRAINING = {"epochs": 10, "batch_size": 64, "lr": 2e-3, "lr_decay": 0.75, "seed": 0}
# what a checkpoint records besides TRAINING
RECIPE = {"data": "lecturekit.datasets.translation.default_data()", "optimizer": "Adam",
          "clip": 1.0}  # fmt: skip


def seq2seq_loss(model: Seq2Seq, batch: Batch) -> torch.Tensor:
    """Mean cross-entropy of the next target token under teacher forcing, padding ignored.

    Lecture 01.
    """
    check_instance("model", model, Seq2Seq)
    check_instance("batch", batch, Batch)
    logits, _ = model(batch.src, batch.src_len, batch.tgt_in)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)


def _check_pairs(name: str, pairs: object) -> None:
    """A list of translation Pairs (one Pair alone is refused: it would iterate its fields)."""
    if isinstance(pairs, Pair) or not isinstance(pairs, Sequence):
        raise ValueError(f"{name} must be a list of Pair, got {type(pairs).__name__}")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, Pair):
            raise ValueError(f"{name}[{i}] must be a Pair, got {type(pair).__name__}")


def train_seq2seq(
    attention: str | None = "additive",
    data: TranslationData | None = None,
    *,
    epochs: int = TRAINING["epochs"],
    batch_size: int = TRAINING["batch_size"],
    lr: float = TRAINING["lr"],
    lr_decay: float = TRAINING["lr_decay"],
    seed: int = TRAINING["seed"],
    progress: bool = True,
    eval_pairs: Sequence[Pair] | None = None,
    device: torch.device | str = "cpu",
    attention_query: str = "current",
    max_steps: int | None = None,
) -> tuple[Seq2Seq, History]:
    """Train ``Seq2SeqConfig.tiny(attention=..., attention_query=...)`` (attention None or
    "none": the bottleneck) on ``data.train`` with ``lecturekit.training.fit`` (Adam,
    per-epoch decay, clipping at 1). ``attention_query``: "current" (s_t, Luong) or
    "previous" (s_{t-1}, Bahdanau), with attention only.

    ``history.eval`` holds exact match on ``eval_pairs`` (default: the validation split) after
    each epoch (``eval_pairs=[]``: no evaluation). ``device``: where the optimizer steps run
    (cpu, cuda, cuda:N, mps); the evaluation runs, and the model is returned, on the CPU.
    ``max_steps``: stop after that many optimizer steps (the first steps of the full run,
    unchanged: lecture 01 compares them with the loop written in the notebook). Every argument
    is checked before the data is made and training starts.

    One step is the loop of lecture 01: teacher-forced forward pass, ``seq2seq_loss``
    (cross-entropy over the real target tokens), backward, gradient clipping at norm 1, Adam
    step; the learning rate is multiplied by ``lr_decay`` after every epoch.

    Lecture 01.
    """
    check_choice("attention", attention, [None, "none", *SCORE_FUNCTIONS])
    check_positive_int("epochs", epochs)
    check_positive_int("batch_size", batch_size)
    check_range("lr", lr, 0, low_open=True)
    check_range("lr_decay", lr_decay, 0, 1, low_open=True)
    check_seed(seed)
    if data is not None:
        check_instance("data", data, TranslationData)
    if eval_pairs is not None:
        _check_pairs("eval_pairs", eval_pairs)
    check_device("device", device)
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
    attention = None if attention in (None, "none") else attention
    Seq2SeqConfig.tiny(attention=attention, attention_query=attention_query)  # checks the pair
    data = data or default_data()
    torch.manual_seed(seed)
    vocab_sizes = {"src_vocab_size": len(data.src_vocab), "tgt_vocab_size": len(data.tgt_vocab)}
    config = Seq2SeqConfig.tiny(**vocab_sizes, attention=attention, attention_query=attention_query)
    model = Seq2Seq(config)
    eval_pairs = data.valid if eval_pairs is None else eval_pairs

    query = ", query s_(t-1)" if attention_query == "previous" else ""

    def evaluate(m: Seq2Seq) -> float:
        return exact_match(m, eval_pairs, data).float().mean().item()

    def make_batches(epoch: int, generator: torch.Generator):
        return batches(data.train, data.src_vocab, data.tgt_vocab, batch_size, generator)

    history = fit(
        model,
        make_batches,
        seq2seq_loss,
        epochs=epochs,
        lr=lr,
        lr_decay=lr_decay,
        clip=RECIPE["clip"],
        seed=seed,
        eval_fn=evaluate if len(eval_pairs) else None,
        progress=progress,
        desc=f"seq2seq ({attention or 'no attention'}{query})",
        device=device,
        max_steps=max_steps,
    )
    return model, history


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the shipped translation checkpoints (minutes each on a laptop CPU)."""
    description = "Train the toy translation models of lectures 01, 02 and 07."
    args = parse_args("lecturekit.shipped.seq2seq", description, argv, models=MODELS,
                      epochs=TRAINING["epochs"])  # fmt: skip
    data = default_data()
    long_test = [p for p in data.test if len(p.src) >= 30]
    for name in args.models:
        model, history = train_seq2seq(MODELS[name], data, epochs=args.epochs, device=args.device,
                                       attention_query=QUERIES[name])  # fmt: skip
        em_long = exact_match(model, long_test, data).float().mean().item()
        em_all = exact_match(model, data.test, data).float().mean().item()
        recipe = {**RECIPE, **TRAINING, "epochs": args.epochs}
        path = save_shipped(model, name, training=recipe, data_dir=args.data_dir)
        print(
            f"{name}: {history.seconds:.0f} s, final loss {history.loss[-1]:.4f}, test exact "
            f"match {em_all:.4f} (>= 30 tokens: {em_long:.4f}) -> {path.name}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
