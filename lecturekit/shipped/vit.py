"""The shipped image classifiers of lecture 09, and the small-data recipe that trains them.

Public API::

    history = train_classifier(model, data, epochs=40, ...)   # AdamW, warm-up + cosine, augment
    accuracy(model, images, labels)                           # share of correct predictions
    model, history = train_vit("vit_digits", data=None)       # a shipped model's recipe, seeded
    #   both take max_steps=N: the first N optimizer steps of the full run, then stop
    history = shipped_history("vit_digits")                   # what training it measured
    #   both take device="cpu" (cuda, cuda:N, mps: trained there, the model left on the CPU)
    model = load_shipped("vit_digits")                        # lecturekit.shipped (hash-checked)
    MODELS                                                    # name -> train_classifier settings

The shipped models (``data/<name>.safetensors``; notebook 09 trains the same recipes):

    vit_digits        ViTConfig.tiny(), the recipe of notebook 09 section 5 (centred digits)
    vit_digits_moved  the same ViT trained 15 epochs on digits all moved by up to 2 pixels
                      (notebook 09 section 6: its position embeddings show the 2-D layout)

Each checkpoint records its recipe and what its training measured: the mean loss and the test
accuracy after every epoch, the seconds it took, and the thread count (``shipped_history``), so
notebook 09 can draw the training curves of the model it loads.

Command line (regenerates them and their MANIFEST lines)::

    python -m lecturekit.shipped.vit [--models vit_digits vit_digits_moved] [--threads 1]
                                     [--device cpu|cuda|cuda:N|mps]

Lecture 09; Touvron et al. 2021 (DeiT) section 6; Loshchilov & Hutter 2019 (AdamW).
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.datasets.digits import (
    DigitsData,
    batches,
    load_digits_data,
    random_affine,
    random_shift,
)
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped, shipped_info
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_device,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_seed,
    check_tensor,
    did_you_mean,
)

__all__ = [
    "accuracy",
    "train_classifier",
    "MODELS",
    "train_vit",
    "recipe",
    "shipped_history",
    "main",
]

# name -> the train_classifier settings of a shipped model (the rest are its defaults)
MODELS: dict[str, dict[str, object]] = {
    "vit_digits": {"epochs": 40, "seed": 0},
    "vit_digits_moved": {"epochs": 15, "seed": 0, "max_shift": 2, "rotation": 0.0, "scale": 0.0,
                         "augment_prob": 1.0},
}  # fmt: skip


def _check_model(model: object) -> None:
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch nn.Module (an image classifier), got "
                         f"{type(model).__name__}")  # fmt: skip


def _check_name(name: object) -> None:
    """A shipped ViT's name; a typo gets the close matches."""
    if not isinstance(name, str) or name not in MODELS:
        raise ValueError(f"name={name!r} is not one of {list(MODELS)}{did_you_mean(name, MODELS)}")


def _logits(model: nn.Module, images: torch.Tensor) -> torch.Tensor:
    out = model(images)
    return out[0] if isinstance(out, tuple) else out  # a ViT returns (logits, weights)


@torch.no_grad()
def accuracy(
    model: nn.Module, images: torch.Tensor, labels: torch.Tensor, batch_size: int = 512
) -> float:
    """Share of images whose arg-max logit is the label (model in eval mode, restored after).

    ``model(images)`` may return logits (B, classes) or a tuple whose first entry is the logits.
    ``images`` (B, ...) go to the model as they are (it checks their dtype); ``labels`` are
    (B,) integer class ids.

    Lecture 09.
    """
    _check_model(model)
    check_tensor("images", images, min_ndim=1, wanted="(B, C, H, W)")
    check_tensor("labels", labels, 1, wanted=f"({len(images)},)", integer=True)
    if len(labels) != len(images):
        raise ValueError(f"labels must have one entry per image: images has {len(images)}, "
                         f"labels has shape {tuple(labels.shape)}")  # fmt: skip
    check_positive_int("batch_size", batch_size)
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
    device: torch.device | str = "cpu",
    max_steps: int | None = None,
) -> History:
    """Train any image classifier on the digits: the small-data recipe of DeiT, scaled down.

    AdamW (weight decay on weight matrices, not on biases, norms, [CLS] or positions), linear
    warm-up for ``warmup_epochs`` then a cosine decay to 0 (per step), label smoothing, and
    augmentation: a random rotation (up to ``rotation`` degrees) and zoom (up to ``scale``) on an
    ``augment_prob`` share of each batch, then a random shift (up to ``max_shift`` pixels) on an
    independent ``augment_prob`` share (``rotation=scale=0`` skips the first step).
    Deterministic for a given seed and thread count. The batches are made (and augmented) on
    the CPU and the optimizer steps run on ``device`` (cpu, cuda, cuda:N, mps); evaluation runs,
    and the model is left, on the CPU. ``max_steps=N`` stops after N optimizer steps: they are
    exactly the first N steps of the full run (the schedule still spans ``epochs``).

    Returns:
        History: mean training loss per epoch, test accuracy after each epoch (only after the
        last one if ``eval_every_epoch=False``; reported, never used to pick a model), and the
        wall time.

    Every setting is checked before training starts.

    Lecture 09; Touvron et al. 2021 (DeiT) section 6, Loshchilov & Hutter 2019 (AdamW).
    """
    _check_model(model)
    check_instance("data", data, DigitsData)
    check_positive_int("epochs", epochs)
    check_positive_int("batch_size", batch_size)
    check_range("lr", lr, 0, low_open=True)
    check_range("weight_decay", weight_decay, 0)
    check_non_negative_int("warmup_epochs", warmup_epochs)
    check_range("label_smoothing", label_smoothing, 0, 1, high_open=True)
    check_non_negative_int("max_shift", max_shift)
    check_range("rotation", rotation, 0)
    check_range("scale", scale, 0, 1, high_open=True)
    check_range("augment_prob", augment_prob, 0, 1)
    check_seed(seed)
    check_device("device", device)
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
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

    def augmented_batches(epoch: int, generator: torch.Generator):
        for x, y in batches(data.train_images, data.train_labels, batch_size, generator):
            if rotation or scale:
                x = random_affine(x, rotation, scale, generator, prob=augment_prob)
            yield random_shift(x, max_shift, generator, prob=augment_prob), y

    def loss_fn(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        x, y = batch
        return F.cross_entropy(_logits(model, x), y, label_smoothing=label_smoothing)

    return fit(
        model,
        augmented_batches,
        loss_fn,
        epochs=epochs,
        optimizer=optimizer,
        schedule=schedule,
        clip=None,
        seed=seed,
        eval_fn=lambda m: accuracy(m, data.test_images, data.test_labels),
        eval_every_epoch=eval_every_epoch,
        progress=progress,
        desc=desc,
        device=device,
        max_steps=max_steps,
    )


def train_vit(
    name: str = "vit_digits",
    data: DigitsData | None = None,
    *,
    progress: bool = False,
    device: torch.device | str = "cpu",
    max_steps: int | None = None,
) -> tuple[ViT, History]:
    """Train ``ViTConfig.tiny()`` with the recipe of shipped model ``name`` (seeded; one thread
    on the CPU gives the shipped weights on the machine that made them; on ``device`` cuda,
    cuda:N or mps the steps run there and the model is returned on the CPU).

    ``max_steps=N`` stops after the first N optimizer steps of that run (notebook 09 compares
    them with the training loop written in the notebook).

    Lecture 09.
    """
    _check_name(name)
    if data is not None:
        check_instance("data", data, DigitsData)
    check_device("device", device)
    data = data or load_digits_data()
    settings = MODELS[name]
    torch.manual_seed(settings["seed"])
    model = ViT(ViTConfig.tiny())
    # evaluated after every epoch (the checkpoint records the curve; training is unchanged)
    history = train_classifier(model, data, progress=progress, desc=name, device=device,
                               max_steps=max_steps, **settings)  # fmt: skip
    return model, history


def recipe(name: str) -> dict[str, object]:
    """Every ``train_classifier`` setting of shipped model ``name`` (what its checkpoint
    records).

    Lecture 09.
    """
    _check_name(name)
    defaults = {k: p.default for k, p in inspect.signature(train_classifier).parameters.items()
                if p.default is not inspect.Parameter.empty and k not in
                ("eval_every_epoch", "progress", "desc", "device", "max_steps")}  # fmt: skip
    return {"data": "lecturekit.datasets.digits.load_digits_data()", "optimizer": "AdamW",
            **defaults, **MODELS[name]}  # fmt: skip


def shipped_history(name: str) -> History:
    """What the training of shipped model ``name`` measured (recorded in its checkpoint): the
    mean loss and the test accuracy after every epoch, and its seconds (``step_loss`` is not
    kept).

    Lecture 09.
    """
    _check_name(name)
    recorded = shipped_info(name).training["history"]
    return History(loss=list(recorded["loss"]), eval=list(recorded["test_accuracy"]),
                   seconds=float(recorded["seconds"]))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the shipped ViT checkpoints (seconds each on one CPU thread)."""
    args = parse_args("lecturekit.shipped.vit", "Train lecture 09's ViTs.", argv, models=MODELS)
    data = load_digits_data()
    for name in args.models:
        model, history = train_vit(name, data, device=args.device)
        measured = {"loss": history.loss, "test_accuracy": history.eval,
                    "seconds": round(history.seconds, 1), "threads": torch.get_num_threads(),
                    "device": str(args.device)}  # fmt: skip
        training = {**recipe(name), "history": measured}
        path = save_shipped(model, name, training=training, data_dir=args.data_dir)
        print(f"{name}: {history.seconds:.1f} s, test accuracy {history.eval[-1]:.4f} "
              f"({len(data.test_labels)} digits) -> {path.name}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
