"""Lecture 09a's shipped captioners: the attention captioner and its baseline without attention,
trained on the synthetic two-digit scenes.

Public API::

    TRAINING                                   # the recipe both share (data, budget, optimiser)
    MODELS                                     # name -> CaptionerConfig.tiny() overrides
    loss = caption_loss(model, (images, tgt_in, targets))   # cross-entropy, <pad> ignored
    model, history = train_captioner("captioner_scenes", data=None, epochs=None, device="cpu")
    recipe(name)                               # what the checkpoint records
    model = load_shipped("captioner_scenes")   # lecturekit.shipped (hash-checked)

The shipped models (``data/<name>.safetensors``; notebook 09a loads them, ``RERUN = True``
there retrains them):

    captioner_scenes         CNN (8 x 8 map of 32-d cells) + GRU decoder with additive attention
    captioner_scenes_pooled  the same CNN, the decoder reads only the mean-pooled features

Command line (regenerates them and their MANIFEST lines; about 3.5 and 2 minutes on one
CPU thread)::

    python -m lecturekit.shipped.captioning [--models captioner_scenes captioner_scenes_pooled]
                                            [--epochs 12] [--threads 1] [--device cpu]

Lecture 09a; Xu et al. 2015 (Show, attend and tell).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.datasets.scenes import PAD, SceneData, default_data, encode_captions
from lecturekit.experiments.captioning import caption_scenes, caption_scores
from lecturekit.models.captioning import Captioner, CaptionerConfig, teacher_inputs
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_device,
    check_instance,
    check_positive_int,
    check_tensor,
    did_you_mean,
)

__all__ = ["TRAINING", "MODELS", "caption_loss", "train_captioner", "recipe", "main"]

TRAINING: dict[str, object] = {
    "data": "lecturekit.datasets.scenes.default_data(n_train=20000, n_test=1000, seed=0)",
    "n_train": 20000,
    "epochs": 12,
    "batch_size": 64,
    "optimizer": "Adam",
    "lr": 3e-3,
    "lr_decay": 0.8,
    "clip": 1.0,
    "seed": 0,
}
MODELS: dict[str, dict[str, object]] = {
    "captioner_scenes": {"attention": True},
    "captioner_scenes_pooled": {"attention": False},
}


def _check_name(name: object) -> str:
    if not isinstance(name, str) or name not in MODELS:
        raise ValueError(f"name={name!r} is not one of {list(MODELS)}{did_you_mean(name, MODELS)}")
    return name


def caption_loss(model: nn.Module, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """Teacher-forced cross-entropy over every caption word and <eos> (<pad> ignored).

    Args:
        model: a ``Captioner``.
        batch: images (B, 1, S, S), tgt_in (B, T) (<bos> + the words shifted right), targets
            (B, T) (the words and <eos>, <pad> after).

    Returns:
        The mean loss per target token (a scalar).

    Lecture 09a.
    """
    check_instance("model", model, Captioner)
    if not isinstance(batch, (tuple, list)) or len(batch) != 3:
        raise ValueError("batch must be (images, tgt_in, targets)")
    images, tgt_in, targets = batch
    check_tensor("targets", targets, 2, wanted=f"{tuple(tgt_in.shape)}", integer=True)
    if targets.shape != tgt_in.shape:
        raise ValueError(f"targets must have tgt_in's shape {tuple(tgt_in.shape)}, got "
                         f"{tuple(targets.shape)}")  # fmt: skip
    logits, _ = model(images, tgt_in)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten().long(), ignore_index=PAD)


def train_captioner(
    name: str = "captioner_scenes",
    data: SceneData | None = None,
    *,
    epochs: int | None = None,
    progress: bool = False,
    device: torch.device | str = "cpu",
) -> tuple[Captioner, History]:
    """Train shipped captioner ``name`` with ``TRAINING`` (seeded; one CPU thread gives the
    shipped weights on the machine that made them).

    Args:
        name: one of ``MODELS``.
        data: the scenes (default ``default_data(n_train=20000)``).
        epochs: passes over the training scenes (default ``TRAINING["epochs"]``).
        progress: show a progress bar.
        device: where the optimizer steps run (the model is returned on the CPU).

    Returns:
        The model (eval mode) and the training History (test exact match after the last
        epoch, on ``data.test``).

    Lecture 09a.
    """
    _check_name(name)
    if data is None:
        data = default_data(n_train=TRAINING["n_train"])
    check_instance("data", data, SceneData)
    epochs = TRAINING["epochs"] if epochs is None else check_positive_int("epochs", epochs)
    check_device("device", device)
    torch.manual_seed(TRAINING["seed"])
    model = Captioner(CaptionerConfig.tiny(**MODELS[name]))
    targets = encode_captions(list(data.train.captions))  # (N, T)
    tgt_in = teacher_inputs(targets)
    size = TRAINING["batch_size"]

    def make_batches(epoch: int, generator: torch.Generator):
        order = torch.randperm(len(targets), generator=generator)
        for start in range(0, len(order), size):
            i = order[start : start + size]
            yield data.train.images[i], tgt_in[i], targets[i]

    def evaluate(m: nn.Module) -> float:
        return caption_scores(caption_scenes(m, data.test).ids, data.test).exact_match

    history = fit(model, make_batches, caption_loss, epochs=epochs, lr=TRAINING["lr"],
                  lr_decay=TRAINING["lr_decay"], clip=TRAINING["clip"], seed=TRAINING["seed"],
                  eval_fn=evaluate, eval_every_epoch=False, progress=progress, desc=name,
                  device=device)  # fmt: skip
    return model.eval(), history


def recipe(name: str) -> dict[str, object]:
    """The recipe shipped captioner ``name`` records in its checkpoint.

    Lecture 09a.
    """
    return {**TRAINING, **MODELS[_check_name(name)]}


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the shipped captioners (minutes on one CPU thread)."""
    args = parse_args("lecturekit.shipped.captioning", "Train lecture 09a's captioners.", argv,
                      models=MODELS, epochs=TRAINING["epochs"])  # fmt: skip
    data = default_data(n_train=TRAINING["n_train"])
    for name in args.models:
        model, history = train_captioner(name, data, epochs=args.epochs, device=args.device)
        training = recipe(name) | {"epochs": args.epochs}
        path = save_shipped(model, name, training=training, data_dir=args.data_dir)
        print(f"{name}: {history.seconds:.1f} s, held-out exact match {history.eval[-1]:.3f} "
              f"({len(data.test)} scenes) -> {path.name}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
