"""Train, load and evaluate lecture 09's image classifiers on the digits.

Public API::

    history = train_classifier(model, data, epochs=40, ...)   # AdamW, warm-up + cosine, augment
    accuracy(model, images, labels)                           # share of correct predictions
    model, history = train_vit("vit_digits", data=None)       # a shipped model's recipe, seeded
    model = load_vit("vit_digits")                            # from data/, hash-checked
    MODELS                                                    # name -> train_classifier settings

The shipped models (``data/<name>.safetensors``; notebook 09 trains the same recipes):

    vit_digits        ViTConfig.tiny(), the recipe of notebook 09 section 5 (centred digits)
    vit_digits_moved  the same ViT trained 15 epochs on digits all moved by up to 2 pixels
                      (notebook 09 section 6: its position embeddings show the 2-D layout)

Command line (regenerates them and their MANIFEST lines)::

    python -m lecturekit.vit_digits [--models vit_digits vit_digits_moved] [--threads 1]

Lecture 09; Touvron et al. 2021 (DeiT) section 6; Loshchilov & Hutter 2019 (AdamW).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit._checks import check_positive_int
from lecturekit.checkpoints import DATA_DIR, load_checkpoint, save_checkpoint
from lecturekit.datasets.digits import (
    DigitsData,
    batches,
    load_digits_data,
    random_affine,
    random_shift,
)
from lecturekit.training import History, set_seed
from lecturekit.vit import ViT, ViTConfig

__all__ = ["accuracy", "train_classifier", "MODELS", "train_vit", "load_vit", "main"]

# name -> the train_classifier settings of a shipped model (the rest are its defaults)
MODELS: dict[str, dict[str, object]] = {
    "vit_digits": {"epochs": 40, "seed": 0},
    "vit_digits_moved": {"epochs": 15, "seed": 0, "max_shift": 2, "rotation": 0.0, "scale": 0.0,
                         "augment_prob": 1.0},
}  # fmt: skip


def _logits(model: nn.Module, images: torch.Tensor) -> torch.Tensor:
    out = model(images)
    return out[0] if isinstance(out, tuple) else out  # a ViT returns (logits, weights)


@torch.no_grad()
def accuracy(
    model: nn.Module, images: torch.Tensor, labels: torch.Tensor, batch_size: int = 512
) -> float:
    """Share of images whose arg-max logit is the label (model in eval mode, restored after).

    ``model(images)`` may return logits (B, classes) or a tuple whose first entry is the logits.

    Lecture 09.
    """
    was_training, correct = model.training, 0
    model.eval()
    for x, y in batches(images, labels, batch_size):
        correct += (_logits(model, x).argmax(-1) == y).sum().item()
    model.train(was_training)
    return correct / len(labels)


def train_classifier(
    model: nn.Module,
    data: DigitsData,
    *,
    epochs: int = 40,
    batch_size: int = 64,
    lr: float = 2e-3,
    weight_decay: float = 0.05,
    warmup_epochs: int = 3,
    label_smoothing: float = 0.1,
    max_shift: int = 1,
    rotation: float = 15.0,
    scale: float = 0.1,
    augment_prob: float = 0.5,
    seed: int = 0,
    eval_every_epoch: bool = True,
    progress: bool = False,
    desc: str = "training",
) -> History:
    """Train any image classifier on the digits: the small-data recipe of DeiT, scaled down.

    AdamW (weight decay on weight matrices, not on biases, norms, [CLS] or positions), linear
    warm-up for ``warmup_epochs`` then a cosine decay to 0 (per step), label smoothing, and
    augmentation: a random rotation (up to ``rotation`` degrees) and zoom (up to ``scale``) on an
    ``augment_prob`` share of each batch, then a random shift (up to ``max_shift`` pixels) on an
    independent ``augment_prob`` share (``rotation=scale=0`` skips the first step).
    Deterministic for a given seed and thread count.

    Returns:
        History: mean training loss per epoch, test accuracy after each epoch (only after the
        last one if ``eval_every_epoch=False``; reported, never used to pick a model), and the
        wall time.

    Lecture 09; Touvron et al. 2021 (DeiT) section 6, Loshchilov & Hutter 2019 (AdamW).
    """
    check_positive_int("epochs", epochs)
    check_positive_int("batch_size", batch_size)
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    if isinstance(warmup_epochs, bool) or not isinstance(warmup_epochs, int) or warmup_epochs < 0:
        raise ValueError(f"warmup_epochs must be a non-negative integer, got {warmup_epochs!r}")
    set_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    no_decay = ("bias", "cls_token", "pos_embed")
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {"params": [p for n, p in params if p.ndim >= 2 and not n.endswith(no_decay)]},
        {"params": [p for n, p in params if p.ndim < 2 or n.endswith(no_decay)], "weight_decay": 0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
    steps = epochs * math.ceil(len(data.train_labels) / batch_size)
    warmup = min(warmup_epochs * math.ceil(len(data.train_labels) / batch_size), steps - 1)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    history, start, bar = History(), time.perf_counter(), None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, desc=desc)
    for epoch in range(epochs):
        model.train()
        total, count = 0.0, 0
        for x, y in batches(data.train_images, data.train_labels, batch_size, generator):
            if rotation or scale:
                x = random_affine(x, rotation, scale, generator, prob=augment_prob)
            x = random_shift(x, max_shift, generator, prob=augment_prob)
            loss = F.cross_entropy(_logits(model, x), y, label_smoothing=label_smoothing)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total, count = total + loss.item() * len(y), count + len(y)
        history.loss.append(total / count)
        if eval_every_epoch or epoch == epochs - 1:
            history.eval.append(accuracy(model, data.test_images, data.test_labels))
        if bar is not None:
            bar.set_postfix(loss=f"{history.loss[-1]:.3f}", test_acc=f"{history.eval[-1]:.3f}"
                            if history.eval else "-")  # fmt: skip
            bar.update(1)
    if bar is not None:
        bar.close()
    model.eval()
    history.seconds = time.perf_counter() - start
    return history


def _check_name(name: str) -> None:
    if name not in MODELS:
        raise ValueError(f"name={name!r} is not a shipped ViT; choose from {list(MODELS)}")


def train_vit(
    name: str = "vit_digits", data: DigitsData | None = None, *, progress: bool = False
) -> tuple[ViT, History]:
    """Train ``ViTConfig.tiny()`` with the recipe of shipped model ``name`` (seeded; one thread
    gives the shipped weights on the machine that made them).

    Lecture 09.
    """
    _check_name(name)
    data = data or load_digits_data()
    settings = MODELS[name]
    torch.manual_seed(settings["seed"])
    model = ViT(ViTConfig.tiny())
    history = train_classifier(model, data, eval_every_epoch=False, progress=progress, desc=name,
                               **settings)  # fmt: skip
    return model, history


def load_vit(name: str = "vit_digits", data_dir=DATA_DIR) -> ViT:
    """Load shipped model ``name`` from data/ (its sha256 checked against data/MANIFEST).

    Lecture 09.
    """
    _check_name(name)
    state, config = load_checkpoint(f"{name}.safetensors", data_dir)
    config = {k: tuple(v) if isinstance(v, list) else v for k, v in config.items()}
    model = ViT(ViTConfig(**config))
    model.load_state_dict(state)
    return model.eval()


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the shipped ViT checkpoints (seconds each on one CPU thread)."""
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit.vit_digits", description="Train lecture 09's ViTs."
    )
    parser.add_argument("--models", nargs="+", default=list(MODELS), metavar="NAME")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    torch.set_num_threads(args.threads)
    data = load_digits_data()
    for name in args.models:
        model, history = train_vit(name, data)
        path = save_checkpoint(model.state_dict(), asdict(model.config), f"{name}.safetensors")
        print(f"{name}: {history.seconds:.1f} s, test accuracy {history.eval[-1]:.4f} "
              f"({len(data.test_labels)} digits) -> {path.name}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
