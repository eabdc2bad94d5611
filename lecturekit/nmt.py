"""Train, load, run and evaluate the toy translation models of lectures 01, 02 and 07.

Public API::

    data = default_data()                               # the splits every lecture uses (seed 0)
    model, history = train_translation_model(attention="additive", data=data, epochs=..., seed=0)
    model = load_translation_model("additive")         # from data/seq2seq_additive.safetensors
    hyps = translate(model, sources, data)              # list of word lists (greedy, batched)
    ok = exact_match(model, pairs, data)                # (N,) bool: whole sentence right
    loss = seq2seq_loss(model, batch)                   # token cross-entropy (padding ignored)

Command line (regenerates the shipped checkpoints and their MANIFEST lines)::

    python -m lecturekit.nmt [--models none additive general dot] [--epochs N]

Lecture 01; Sutskever et al. 2014; Bahdanau et al. 2015; Luong et al. 2015.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lecturekit.checkpoints import DATA_DIR, load_checkpoint, save_checkpoint
from lecturekit.datasets.translation import (
    PAD,
    Batch,
    Pair,
    TranslationData,
    batches,
    collate,
    make_translation_data,
)
from lecturekit.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.training import History, fit

__all__ = [
    "MODELS",
    "TRAINING",
    "default_data",
    "checkpoint_name",
    "seq2seq_loss",
    "translate",
    "exact_match",
    "train_translation_model",
    "load_translation_model",
    "main",
]

MODELS = ("none", "additive", "general", "dot")  # shipped: no attention + three scores
TRAINING = {"epochs": 10, "batch_size": 64, "lr": 2e-3, "lr_decay": 0.75, "seed": 0}  # shipped


@functools.lru_cache(maxsize=1)
def default_data() -> TranslationData:
    """The toy translation splits every lecture uses (seed 0; ~2 s to generate)."""
    return make_translation_data(n_train=20000, n_valid=500, n_test=1000, seed=0)


def checkpoint_name(attention: str | None) -> str:
    return f"seq2seq_{attention or 'none'}.safetensors"


def seq2seq_loss(model: Seq2Seq, batch: Batch) -> torch.Tensor:
    """Mean cross-entropy of the next target token under teacher forcing, padding ignored.

    Lecture 01.
    """
    logits, _ = model(batch.src, batch.src_len, batch.tgt_in)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)


@torch.no_grad()
def translate(
    model: Seq2Seq,
    sources: Sequence[Sequence[str]],
    data: TranslationData,
    batch_size: int = 250,
    extra_len: int = 10,
) -> list[list[str]]:
    """Greedy translations of tokenised source sentences (batched).

    Lecture 01.
    """
    model.eval()
    out: list[list[str]] = []
    for i in range(0, len(sources), batch_size):
        chunk = [Pair(tuple(s), (), ()) for s in sources[i : i + batch_size]]
        batch = collate(chunk, data.src_vocab, data.tgt_vocab)
        ids, _ = model.greedy_decode(batch.src, batch.src_len, batch.src.shape[1] + extra_len)
        out += [data.tgt_vocab.decode(row) for row in ids]
    return out


def exact_match(model: Seq2Seq, pairs: Sequence[Pair], data: TranslationData) -> torch.Tensor:
    """(N,) bool: the greedy translation equals the reference word for word.

    Lecture 01.
    """
    hyps = translate(model, [p.src for p in pairs], data)
    return torch.tensor([tuple(h) == p.tgt for h, p in zip(hyps, pairs, strict=True)])


def train_translation_model(
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
) -> tuple[Seq2Seq, History]:
    """Train a Seq2Seq (``attention=None`` or "none": the bottleneck) on ``data.train``.

    ``history.eval`` holds exact match on ``eval_pairs`` (default: the validation split) after
    each epoch.

    Lecture 01.
    """
    data = data or default_data()
    attention = None if attention in (None, "none") else attention
    torch.manual_seed(seed)
    config = Seq2SeqConfig(len(data.src_vocab), len(data.tgt_vocab), attention=attention)
    model = Seq2Seq(config)
    eval_pairs = data.valid if eval_pairs is None else eval_pairs

    def make_batches(epoch: int, generator: torch.Generator):
        return batches(data.train, data.src_vocab, data.tgt_vocab, batch_size, generator)

    history = fit(
        model,
        make_batches,
        seq2seq_loss,
        epochs=epochs,
        lr=lr,
        lr_decay=lr_decay,
        seed=seed,
        eval_fn=lambda m: exact_match(m, eval_pairs, data).float().mean().item(),
        progress=progress,
        desc=f"seq2seq ({attention or 'no attention'})",
    )
    return model, history


def load_translation_model(attention: str | None, data_dir=DATA_DIR) -> Seq2Seq:
    """Load a shipped model ("none", "additive", "general" or "dot"), hash-checked.

    Lecture 01.
    """
    state, config = load_checkpoint(checkpoint_name(attention), data_dir)
    model = Seq2Seq(Seq2SeqConfig(**config))
    model.load_state_dict(state)
    return model.eval()


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the shipped translation checkpoints (minutes on a laptop CPU)."""
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit.nmt", description="Train the toy translation models."
    )
    parser.add_argument("--models", nargs="+", default=list(MODELS), metavar="NAME")
    parser.add_argument("--epochs", type=int, default=TRAINING["epochs"])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    torch.set_num_threads(args.threads)
    data = default_data()
    for name in args.models:
        model, history = train_translation_model(name, data, epochs=args.epochs)
        long_test = [p for p in data.test if len(p.src) >= 30]
        em_long = exact_match(model, long_test, data).float().mean().item()
        em_all = exact_match(model, data.test, data).float().mean().item()
        path = save_checkpoint(
            model.state_dict(), model.config.to_dict(), checkpoint_name(name), DATA_DIR
        )
        print(
            f"{name}: {history.seconds:.0f} s, final loss {history.loss[-1]:.4f}, test exact "
            f"match {em_all:.4f} (>= 30 tokens: {em_long:.4f}) -> {path.name}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
