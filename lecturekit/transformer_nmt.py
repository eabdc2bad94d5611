"""Train, load and run the Transformer translator of lecture 10 on the toy translation task.

The same 20,000 sentence pairs as the RNN models of lectures 01, 02 and 07
(``lecturekit.nmt.default_data()``). ``lecturekit.nmt.translate`` / ``exact_match`` and
``lecturekit.measurements.exact_match_by_length`` accept this model too (it has the same
``greedy_decode``), so both are measured by the same code.

Public API::

    model, history = train_transformer(data=None, config=None, epochs=..., seed=0)
    model = load_transformer()                      # data/transformer_nmt.safetensors
    config = default_config(data)                   # TransformerConfig.tiny with the vocabularies
    loss = transformer_loss(model, batch, label_smoothing=0.0)   # padding ignored
    lr = learning_rate(step, peak_lr, warmup)       # linear warm-up, then ~ 1/sqrt(step)

Command line (regenerates the shipped checkpoint and its MANIFEST line)::

    python -m lecturekit.transformer_nmt [--epochs N] [--threads 1]

Lecture 10; Vaswani et al. 2017 section 5.3 (Adam, warm-up), 5.4 (label smoothing).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.checkpoints import DATA_DIR, load_checkpoint, save_checkpoint
from lecturekit.datasets.translation import PAD, Batch, Pair, TranslationData, batches
from lecturekit.encoder_decoder import Transformer, TransformerConfig
from lecturekit.nmt import default_data, exact_match
from lecturekit.training import History, set_seed

__all__ = [
    "CHECKPOINT",
    "TRAINING",
    "default_config",
    "transformer_loss",
    "learning_rate",
    "train_transformer",
    "load_transformer",
    "main",
]

CHECKPOINT = "transformer_nmt.safetensors"
# The shipped model's budget. Adam with the paper's betas (0.9, 0.98) and eps 1e-9; the
# learning rate rises linearly to `lr` over `warmup` steps, then falls as 1/sqrt(step).
TRAINING = {"epochs": 10, "batch_size": 64, "lr": 2e-3, "warmup": 800, "label_smoothing": 0.1,
            "seed": 0}  # fmt: skip


def default_config(data: TranslationData | None = None, **overrides: object) -> TransformerConfig:
    """``TransformerConfig.tiny`` sized for the vocabularies of ``data`` (default: the lectures').

    Lecture 10.
    """
    data = data or default_data()
    return TransformerConfig.tiny(len(data.src_vocab), len(data.tgt_vocab), **overrides)


def transformer_loss(
    model: Transformer, batch: Batch, label_smoothing: float = 0.0
) -> torch.Tensor:
    """Mean cross-entropy of the next target token under teacher forcing, padding ignored;
    with ``label_smoothing`` = eps the target puts 1 - eps on the right token and spreads eps.

    Lecture 10; Vaswani et al. 2017 section 5.4 (eps = 0.1).
    """
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
    if step < 1 or warmup < 1:
        raise ValueError(f"step and warmup must be >= 1, got step={step}, warmup={warmup}")
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
) -> tuple[Transformer, History]:
    """Train a Transformer on ``data.train`` (deterministic for a seed and thread count).

    ``history.loss`` is the mean training loss per epoch (with label smoothing, so it does not
    go to 0); ``history.eval`` the greedy exact match on ``eval_pairs`` (default: the
    validation split) after each epoch.

    Lecture 10.
    """
    data = data or default_data()
    config = config or default_config(data)
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if not 0 <= label_smoothing < 1:
        raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}")
    set_seed(seed)
    model = Transformer(config)
    eval_pairs = data.valid if eval_pairs is None else eval_pairs
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda i: learning_rate(i + 1, lr, warmup) / lr
    )
    history = History()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, desc="transformer")
    start = time.perf_counter()
    for _ in range(epochs):
        model.train()
        total, count = 0.0, 0
        for batch in batches(data.train, data.src_vocab, data.tgt_vocab, batch_size, generator):
            optimizer.zero_grad()
            loss = transformer_loss(model, batch, label_smoothing)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            total, count = total + loss.item(), count + 1
        history.loss.append(total / count)
        history.eval.append(exact_match(model, eval_pairs, data).float().mean().item())
        if bar is not None:
            bar.set_postfix({"loss": f"{history.loss[-1]:.4f}", "eval": f"{history.eval[-1]:.4f}"})
            bar.update(1)
    if bar is not None:
        bar.close()
    history.seconds = time.perf_counter() - start
    return model.eval(), history


def load_transformer(data_dir=DATA_DIR) -> Transformer:
    """Load the shipped Transformer translator (hash-checked), in eval mode.

    Lecture 10.
    """
    state, config = load_checkpoint(CHECKPOINT, data_dir)
    model = Transformer(TransformerConfig(**config))
    model.load_state_dict(state)
    return model.eval()


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate data/transformer_nmt.safetensors (about 10 minutes on one laptop CPU core)."""
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit.transformer_nmt",
        description="Train the lecture 10 Transformer translator.",
    )
    parser.add_argument("--epochs", type=int, default=TRAINING["epochs"])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    torch.set_num_threads(args.threads)
    data = default_data()
    model, history = train_transformer(data, epochs=args.epochs)
    long_test = [p for p in data.test if len(p.src) >= 30]
    em_long = exact_match(model, long_test, data).float().mean().item()
    em_all = exact_match(model, data.test, data).float().mean().item()
    path = save_checkpoint(model.state_dict(), model.config.to_dict(), CHECKPOINT, DATA_DIR)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"transformer ({n_params:,} parameters): {history.seconds:.0f} s, final loss "
        f"{history.loss[-1]:.4f}, test exact match {em_all:.4f} (>= 30 tokens: {em_long:.4f}) "
        f"-> {path.name}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
