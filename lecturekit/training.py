"""The one training loop every lecture and every shipped model uses: seeded, with a progress bar.

Public API::

    set_seed(seed)                                    # torch, random, numpy
    history = fit(model, make_batches, loss_fn, epochs=5, optimizer=None, lr=1e-3,
                  schedule=None, lr_decay=1.0, clip=1.0, seed=0, generator=None,
                  eval_fn=None, eval_every_epoch=True, progress=True, device=None,
                  max_steps=None)
    #   make_batches(epoch, generator) -> iterable of batches (shuffled with the generator)
    #   loss_fn(model, batch) -> scalar loss tensor;  eval_fn(model) -> float
    history.loss       # mean training loss per epoch (mean over its batches)
    history.step_loss  # the loss of every optimizer step
    history.eval       # eval_fn after each epoch (or after the last one)
    history.seconds    # wall time
    # max_steps=N stops after N optimizer steps in all (the epoch in progress ends there)
    batch = to_device(batch, device)                  # tensors in dicts, tuples, dataclasses

With ``device`` (cpu, cuda, cuda:N or mps; ``lecturekit.utils.checks.check_device`` checks
it exists on this machine) the optimizer steps
run there; evaluation and the returned model stay on the CPU, where the package's evaluation
code and ``save_shipped`` work.

One step: zero the gradients, loss = loss_fn(model, batch), backward, clip the gradient norm,
optimizer step, then the per-step learning-rate schedule. The recipes differ only in what they
pass: Adam with a per-epoch decay (lectures 01, 02, 08), Adam with the Transformer's warm-up
(lecture 10), AdamW with warm-up and cosine decay and augmenting batches (lecture 09), fresh
random batches with a linear decay (lecture 04).

Lecture 01 (the loop), and every lecture that trains.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from lecturekit.utils.checks import (
    check_bool,
    check_callable,
    check_device,
    check_positive_int,
    check_range,
    check_seed,
    check_str,
)

__all__ = ["set_seed", "History", "fit", "to_device"]


def set_seed(seed: int) -> None:
    """Seed torch, Python's random and numpy."""
    check_seed(seed)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def to_device(batch: object, device: torch.device | str) -> object:
    """``batch`` with every tensor moved to ``device``: a tensor, or tensors inside dicts,
    lists, tuples (named ones too) and dataclasses, however nested; anything else unchanged.

    Lecture 01 (the training loop).
    """
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, Mapping):
        moved = {k: to_device(v, device) for k, v in batch.items()}
        try:
            return type(batch)(moved)
        except TypeError:  # a mapping type that cannot be built from a dict
            return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple
        return type(batch)(*(to_device(v, device) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    if dataclasses.is_dataclass(batch) and not isinstance(batch, type):
        changes = {f.name: to_device(getattr(batch, f.name), device)
                   for f in dataclasses.fields(batch) if f.init}  # fmt: skip
        return dataclasses.replace(batch, **changes)
    return batch


@dataclass
class History:
    """What ``fit`` measured: per-epoch mean loss, every step's loss, the evaluations, the wall
    time."""

    loss: list[float] = field(default_factory=list)
    step_loss: list[float] = field(default_factory=list)
    eval: list[float] = field(default_factory=list)
    seconds: float = 0.0


def fit(
    model: nn.Module,
    make_batches: Callable[[int, torch.Generator], Iterable],
    loss_fn: Callable[[nn.Module, object], torch.Tensor],
    *,
    epochs: int,
    optimizer: torch.optim.Optimizer | None = None,
    lr: float = 1e-3,
    schedule: Callable[[int], float] | None = None,
    lr_decay: float = 1.0,
    clip: float | None = 1.0,
    seed: int | None = 0,
    generator: torch.Generator | None = None,
    eval_fn: Callable[[nn.Module], float] | None = None,
    eval_every_epoch: bool = True,
    progress: bool = True,
    desc: str = "training",
    device: torch.device | str | None = None,
    max_steps: int | None = None,
) -> History:
    """Train ``model`` for ``epochs`` passes over ``make_batches``; deterministic for a given seed
    and thread count.

    Args:
        model: the module to train (left in eval mode).
        make_batches: ``(epoch, generator) -> iterable of batches``; draw every random choice
            (shuffling, masking, augmentation) from ``generator``.
        loss_fn: ``(model, batch) -> scalar loss``.
        epochs: passes over ``make_batches``.
        optimizer: default ``torch.optim.Adam(model.parameters(), lr)``.
        lr: the default optimizer's learning rate (ignored when ``optimizer`` is given).
        schedule: ``step -> factor``: the learning rate of optimizer step ``step`` (0, 1, ...)
            is the initial one times ``schedule(step)`` (``LambdaLR``), e.g. a warm-up.
        lr_decay: multiply the learning rate by this after every epoch (1.0 = constant); not
            together with ``schedule``.
        clip: clip the gradient norm to this (None = no clipping).
        seed: seed torch, random and numpy (``set_seed``) before training; None leaves their
            state as it is (e.g. right after the model was initialised from the same seed).
        generator: the generator ``make_batches`` gets; default a new one seeded with ``seed``
            (0 if ``seed`` is None).
        eval_fn: ``model -> float``, called (in eval mode) after each epoch, or only after the
            last one if ``eval_every_epoch=False``.
        progress: show a progress bar (``tqdm.auto``) with the last loss and evaluation.
        desc: the progress bar's label.
        device: where the optimizer steps run (cpu, cuda, cuda:N or mps; ``check_device``):
            the model and every batch (``to_device``) are moved there; ``eval_fn`` gets the
            model on the CPU, and the model is returned on the CPU. None: nothing is moved.
        max_steps: stop after this many optimizer steps in all (None: every batch of every
            epoch). The epoch in progress ends there: its loss is the mean of its steps, and it
            is evaluated (if ``eval_fn``) as the last epoch. The first ``max_steps`` steps are
            exactly those of the full run (lecture 10 compares them with a loop written in the
            notebook).

    Returns:
        History(loss, step_loss, eval, seconds).

    Every argument is checked before training starts (ValueError naming it); what the
    callables return is checked when they return: ``make_batches`` an iterable, ``loss_fn`` a
    tensor of one element that depends on the parameters, ``eval_fn`` a number. An epoch
    with no batches is legitimate: its loss is recorded as 0.0.

    Lecture 01.
    """
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    check_positive_int("epochs", epochs)
    check_callable("make_batches", make_batches)
    check_callable("loss_fn", loss_fn)
    if eval_fn is not None:
        check_callable("eval_fn", eval_fn)
    check_bool("eval_every_epoch", eval_every_epoch)
    check_bool("progress", progress)
    check_str("desc", desc, allow_empty=True)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(
            f"generator must be a torch.Generator (e.g. torch.Generator().manual_seed(0)) or "
            f"None, got {type(generator).__name__}"
        )
    if optimizer is None:
        check_range("lr", lr, 0, low_open=True)
        if not any(True for _ in model.parameters()):
            raise ValueError(
                f"model must have parameters to train, got a {type(model).__name__} with none"
            )
    elif not isinstance(optimizer, torch.optim.Optimizer):
        got = type(optimizer).__name__
        raise ValueError(f"optimizer must be a torch.optim.Optimizer, got {got}")
    check_range("lr_decay", lr_decay, 0, 1, low_open=True)
    if schedule is not None and lr_decay != 1.0:
        raise ValueError("give a per-step schedule or a per-epoch lr_decay, not both")
    if schedule is not None and not callable(schedule):
        raise ValueError(f"schedule must be callable (step -> factor), got {schedule!r}")
    if clip is not None:
        check_range("clip", clip, 0, low_open=True)
    if device is not None:
        device = check_device("device", device)
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
    if seed is not None:
        set_seed(seed)
    if generator is None:
        generator = torch.Generator().manual_seed(0 if seed is None else seed)
    if optimizer is None:
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    per_step = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule) if schedule else None
    per_epoch = (
        torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=lr_decay) if lr_decay != 1.0
        else None
    )  # fmt: skip
    history = History()
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, desc=desc)
    cpu = torch.device("cpu")

    def done(history: History) -> bool:  # max_steps optimizer steps taken
        return max_steps is not None and len(history.step_loss) >= max_steps

    for epoch in range(epochs):
        if done(history):
            break
        if device is not None:
            model.to(device)  # in place: the optimizer keeps the same parameters
        model.train()
        first = len(history.step_loss)
        for batch in _batches(make_batches, epoch, generator):
            if device is not None:
                batch = to_device(batch, device)
            optimizer.zero_grad()
            loss = _check_loss(loss_fn(model, batch))
            loss.backward()
            if clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            if per_step is not None:
                per_step.step()
            history.step_loss.append(loss.item())
            if done(history):
                break
        steps = history.step_loss[first:]
        last = epoch == epochs - 1 or done(history)
        history.loss.append(sum(steps) / max(len(steps), 1))
        if per_epoch is not None:
            per_epoch.step()
        model.eval()
        if eval_fn is not None and (eval_every_epoch or last):
            if device is not None:
                model.to(cpu)  # the package's evaluation code makes its tensors on the CPU
            history.eval.append(_check_eval(eval_fn(model)))
        if bar is not None:
            info = {"loss": f"{history.loss[-1]:.4f}"}
            if history.eval:
                info["eval"] = f"{history.eval[-1]:.4f}"
            bar.set_postfix(info)
            bar.update(1)
    if bar is not None:
        bar.close()
    if device is not None:
        model.to(cpu)  # what save_shipped and the notebooks expect
    history.seconds = time.perf_counter() - start
    return history


def _batches(make_batches: Callable, epoch: int, generator: torch.Generator) -> Iterable:
    batches = make_batches(epoch, generator)
    try:
        return iter(batches)
    except TypeError:
        raise ValueError(
            "make_batches must return an iterable of batches (a list, a generator), got "
            f"{type(batches).__name__}"
        ) from None


def _check_loss(loss: object) -> torch.Tensor:
    if not isinstance(loss, torch.Tensor):
        raise ValueError(
            f"loss_fn must return a scalar loss tensor, got {type(loss).__name__} (return the "
            "tensor, not loss.item())"
        )
    if loss.numel() != 1:
        raise ValueError(
            f"loss_fn must return a scalar loss tensor, got shape {tuple(loss.shape)} (reduce "
            "it, e.g. with .mean())"
        )
    if not loss.requires_grad:
        raise ValueError(
            "loss_fn must return a loss computed from the model's parameters (requires_grad), "
            "got one that does not require grad (detached, or built under torch.no_grad)"
        )
    return loss


def _check_eval(value: object) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"eval_fn must return a number, got {type(value).__name__}") from None
