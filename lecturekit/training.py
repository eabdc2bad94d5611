"""A small, seeded training loop with a progress bar.

Public API::

    set_seed(seed)                                    # torch, random, numpy
    history = fit(model, make_batches, loss_fn, epochs=5, lr=1e-3, lr_decay=1.0, seed=0,
                  eval_fn=None, clip=1.0, progress=True)
    #   make_batches(epoch, generator) -> iterable of batches (shuffled with the generator)
    #   loss_fn(model, batch) -> scalar loss tensor;  eval_fn(model) -> float (after each epoch)
    history.loss     # mean training loss per epoch
    history.eval     # eval_fn after each epoch
    history.seconds  # wall time

Lecture 01.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from lecturekit._checks import check_positive_int

__all__ = ["set_seed", "History", "fit"]


def set_seed(seed: int) -> None:
    """Seed torch, Python's random and numpy."""
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


@dataclass
class History:
    """What ``fit`` measured: per-epoch mean loss, per-epoch evaluation, wall time."""

    loss: list[float] = field(default_factory=list)
    eval: list[float] = field(default_factory=list)
    seconds: float = 0.0


def fit(
    model: nn.Module,
    make_batches: Callable[[int, torch.Generator], Iterable],
    loss_fn: Callable[[nn.Module, object], torch.Tensor],
    *,
    epochs: int,
    lr: float = 1e-3,
    lr_decay: float = 1.0,
    seed: int = 0,
    eval_fn: Callable[[nn.Module], float] | None = None,
    clip: float | None = 1.0,
    progress: bool = True,
    desc: str = "training",
) -> History:
    """Train with Adam for ``epochs`` epochs; deterministic for a given seed and thread count.

    The learning rate is multiplied by ``lr_decay`` after each epoch (1.0 = constant).

    Lecture 01.
    """
    check_positive_int("epochs", epochs)
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    if not 0 < lr_decay <= 1:
        raise ValueError(f"lr_decay must be in (0, 1], got {lr_decay}")
    set_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=lr_decay)
    history = History()
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, desc=desc)
    for epoch in range(epochs):
        model.train()
        total, count = 0.0, 0
        for batch in make_batches(epoch, generator):
            optimizer.zero_grad()
            loss = loss_fn(model, batch)
            loss.backward()
            if clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            total, count = total + loss.item(), count + 1
        history.loss.append(total / max(count, 1))
        scheduler.step()
        model.eval()
        if eval_fn is not None:
            history.eval.append(float(eval_fn(model)))
        if bar is not None:
            info = {"loss": f"{history.loss[-1]:.4f}"}
            if history.eval:
                info["eval"] = f"{history.eval[-1]:.4f}"
            bar.set_postfix(info)
            bar.update(1)
    if bar is not None:
        bar.close()
    history.seconds = time.perf_counter() - start
    return history
