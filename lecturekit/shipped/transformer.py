"""The shipped Transformer translator of lecture 10: train, save, regenerate.

The same 20,000 sentence pairs as the RNN models of lectures 01, 02 and 07
(``lecturekit.datasets.translation.default_data()``); ``lecturekit.experiments.translation``
measures both kinds of model with the same code (they share ``greedy_decode``).

Public API::

    model = load_shipped("transformer_nmt")         # lecturekit.shipped (hash-checked)
    model, history = train_transformer(data=None, config=None, epochs=..., seed=0,
                                       device="cpu")  # cuda / mps: trained there, returned on CPU
    #   max_steps=N: only the first N optimizer steps; eval_pairs=[]: no evaluation
    config = default_config(data)                   # TransformerConfig.tiny with the vocabularies
    loss = transformer_loss(model, batch, label_smoothing=0.0)   # padding ignored
    lr = learning_rate(step, peak_lr, warmup)       # linear warm-up, then ~ 1/sqrt(step)

Command line (regenerates the shipped checkpoint and its MANIFEST line)::

    python -m lecturekit.shipped.transformer [--epochs N] [--threads 1]
                                             [--device cpu|cuda|cuda:N|mps]

Lecture 10; Vaswani et al. 2017 section 5.3 (Adam, warm-up), 5.4 (label smoothing).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lecturekit.datasets.translation import PAD, Batch, Pair, TranslationData, batches, default_data
from lecturekit.experiments.translation import exact_match
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.training import History, fit, set_seed
from lecturekit.utils.checks import (
    check_device,
    check_instance,
    check_positive_int,
    check_range,
    check_seed,
)

__all__ = [
    "NAME",
    "TRAINING",
    "RECIPE",
    "default_config",
    "transformer_loss",
    "learning_rate",
    "train_transformer",
    "main",
]

NAME = "transformer_nmt"
# The shipped model's budget. Adam with the paper's betas (0.9, 0.98) and eps 1e-9; the
# learning rate rises linearly to `lr` over `warmup` steps, then falls as 1/sqrt(step).
TRAINING = {"epochs": 10, "batch_size": 64, "lr": 2e-3, "warmup": 800, "label_smoothing": 0.1,
            "seed": 0}  # fmt: skip
# what the checkpoint records besides TRAINING
RECIPE = {"data": "lecturekit.datasets.translation.default_data()", "optimizer": "Adam",
          "betas": [0.9, 0.98], "eps": 1e-9, "clip": 1.0}  # fmt: skip


def default_config(data: TranslationData | None = None, **overrides: object) -> TransformerConfig:
    """``TransformerConfig.tiny`` sized for the vocabularies of ``data`` (default: the lectures').

    Lecture 10.
    """
    data = data or default_data()
    return TransformerConfig.tiny(src_vocab_size=len(data.src_vocab),
                                  tgt_vocab_size=len(data.tgt_vocab), **overrides)  # fmt: skip


def transformer_loss(
    model: Transformer, batch: Batch, label_smoothing: float = 0.0
) -> torch.Tensor:
    """Mean cross-entropy of the next target token under teacher forcing, padding ignored;
    with ``label_smoothing`` = eps the target puts 1 - eps on the right token and spreads eps.

    Lecture 10; Vaswani et al. 2017 section 5.4 (eps = 0.1).
    """
    check_instance("model", model, Transformer)
    check_instance("batch", batch, Batch)
    check_range("label_smoothing", label_smoothing, 0, 1, high_open=True)
    logits, _ = model(batch.src, batch.tgt_in)  # (B, T, V)
    return F.cross_entropy(
        logits.flatten(0, 1),  # (B, T, V) -> (B*T, V)
        batch.tgt_out.flatten(),
        ignore_index=PAD,
        label_smoothing=label_smoothing,
    )


def learning_rate(step: int, peak_lr: float, warmup: int) -> float:
    """lr(step) = peak_lr * min(step / warmup, sqrt(warmup / step)) for step >= 1.

    The paper's schedule d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), rescaled so that
    its peak (at step = warmup) is ``peak_lr``.

    Lecture 10; Vaswani et al. 2017 eq. 3.
    """
    check_positive_int("step", step)
    check_positive_int("warmup", warmup)
    check_range("peak_lr", peak_lr, 0, low_open=True)
    return peak_lr * min(step / warmup, math.sqrt(warmup / step))


def train_transformer(
    data: TranslationData | None = None,
    config: TransformerConfig | None = None,
    *,
    epochs: int = TRAINING["epochs"],
    batch_size: int = TRAINING["batch_size"],
    lr: float = TRAINING["lr"],
    warmup: int = TRAINING["warmup"],
    label_smoothing: float = TRAINING["label_smoothing"],
    seed: int = TRAINING["seed"],
    progress: bool = True,
    eval_pairs: Sequence[Pair] | None = None,
    device: torch.device | str = "cpu",
    max_steps: int | None = None,
) -> tuple[Transformer, History]:
    """Train a Transformer on ``data.train`` with ``lecturekit.training.fit`` (deterministic for a
    seed and thread count): Adam with the paper's betas, warm-up, clipping at 1.

    The model is initialised from ``seed`` and trained on from that random state (dropout draws
    continue after the initialisation; only the batch order gets a fresh generator).
    ``history.loss`` is the mean training loss per epoch (with label smoothing, so it does not
    go to 0); ``history.eval`` the greedy exact match on ``eval_pairs`` (default: the
    validation split) after each epoch (``eval_pairs=[]``: no evaluation). ``device``: where the
    optimizer steps run (cpu, cuda, cuda:N, mps); the evaluation runs, and the model is
    returned, on the CPU. ``max_steps``: stop after that many optimizer steps (the first steps
    of the full run, unchanged: lecture 10 compares them with the loop written in the
    notebook). Every argument is checked before the data is made and training starts.

    One step is the loop of lecture 10: teacher-forced forward pass, ``transformer_loss``
    (cross-entropy with label smoothing, padding ignored), backward, gradient clipping at norm 1,
    Adam step, then the learning rate of the next step from ``learning_rate`` (eq. 3).

    Lecture 10.
    """
    check_positive_int("epochs", epochs)
    check_positive_int("batch_size", batch_size)
    check_range("lr", lr, 0, low_open=True)
    check_positive_int("warmup", warmup)
    check_range("label_smoothing", label_smoothing, 0, 1, high_open=True)
    check_seed(seed)
    if data is not None:
        check_instance("data", data, TranslationData)
    if config is not None:
        check_instance("config", config, TransformerConfig)
    if eval_pairs is not None:
        is_list = isinstance(eval_pairs, Sequence) and not isinstance(eval_pairs, Pair)
        if not is_list or not all(isinstance(p, Pair) for p in eval_pairs):
            raise ValueError(f"eval_pairs must be a list of Pair, got {eval_pairs!r:.60}")
    check_device("device", device)
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
    data = data or default_data()
    config = config or default_config(data)
    for side, vocab in (("src", data.src_vocab), ("tgt", data.tgt_vocab)):
        size = getattr(config, f"{side}_vocab_size")
        if size < len(vocab):
            raise ValueError(
                f"config.{side}_vocab_size={size} is smaller than the data's {side} vocabulary "
                f"({len(vocab)} words): use default_config(data)"
            )
    set_seed(seed)
    model = Transformer(config)
    eval_pairs = data.valid if eval_pairs is None else eval_pairs
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=tuple(RECIPE["betas"]),
                                 eps=RECIPE["eps"])  # fmt: skip

    def evaluate(m: Transformer) -> float:
        return exact_match(m, eval_pairs, data).float().mean().item()

    def make_batches(epoch: int, generator: torch.Generator):
        return batches(data.train, data.src_vocab, data.tgt_vocab, batch_size, generator)

    history = fit(
        model,
        make_batches,
        lambda m, batch: transformer_loss(m, batch, label_smoothing),
        epochs=epochs,
        optimizer=optimizer,
        schedule=lambda i: learning_rate(i + 1, lr, warmup) / lr,
        clip=RECIPE["clip"],
        seed=None,  # keep the random state the initialisation left
        generator=torch.Generator().manual_seed(seed),
        eval_fn=evaluate if len(eval_pairs) else None,
        progress=progress,
        desc="transformer",
        device=device,
        max_steps=max_steps,
    )
    return model.eval(), history


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate data/transformer_nmt.safetensors (about 10 minutes on one laptop CPU core)."""
    args = parse_args("lecturekit.shipped.transformer", "Train the lecture 10 Transformer "
                      "translator.", argv, epochs=TRAINING["epochs"])  # fmt: skip
    data = default_data()
    model, history = train_transformer(data, epochs=args.epochs, device=args.device)
    long_test = [p for p in data.test if len(p.src) >= 30]
    em_long = exact_match(model, long_test, data).float().mean().item()
    em_all = exact_match(model, data.test, data).float().mean().item()
    recipe = {**RECIPE, **TRAINING, "epochs": args.epochs}
    path = save_shipped(model, NAME, training=recipe, data_dir=args.data_dir)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"transformer ({n_params:,} parameters): {history.seconds:.0f} s, final loss "
        f"{history.loss[-1]:.4f}, test exact match {em_all:.4f} (>= 30 tokens: {em_long:.4f}) "
        f"-> {path.name}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
