"""Toy data for the Transformer variants of lecture 11b: pointer chains, where some tokens need
more steps of computation than others (for the Universal Transformer's adaptive halting), and a
seeded time series whose next value depends on the local shape of the series (for
convolutional self-attention).

Public API::

    batch = pointer_chains(batch_size, T=10, n_values=8, max_depth=4, generator=None)
    #   batch.ids (B, T): a value 0..n_values-1 or a pointer n_values + j to position j
    #   batch.targets (B, T): the value at the end of each token's chain; batch.depth (B, T)
    POINTERS                                   # lecture 11b's task: T, n_values, max_depth
    test = pointer_test_set(batch_size=1000)   # its fixed held-out batch (seed TEST_SEED = 1234)
    x = shape_series(batch_size, T=48, noise=0.02, generator=None)   # (B, T) sine waves

Lecture 11b; Dehghani et al. 2019 section 3 (algorithmic tasks); Li et al. 2019 section 3.2.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from lecturekit.utils.checks import (
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
)

__all__ = ["PointerBatch", "pointer_chains", "POINTERS", "TEST_SEED", "pointer_test_set",
           "shape_series"]  # fmt: skip


class PointerBatch(NamedTuple):
    """ids (B, T), targets (B, T) and the chain depth of every token (B, T)."""

    ids: torch.Tensor
    targets: torch.Tensor
    depth: torch.Tensor


def _generator(generator: object) -> torch.Generator:
    if generator is None:
        return torch.Generator().manual_seed(0)
    return check_instance("generator", generator, torch.Generator)


def pointer_chains(
    batch_size: int,
    T: int = 10,
    n_values: int = 8,
    max_depth: int = 4,
    generator: torch.Generator | None = None,
) -> PointerBatch:
    """Sequences of values and pointers. A value token's target is itself (depth 0); a pointer
    to position j has the target of position j and depth one more than j's. Depths 0..max_depth
    are about equally frequent; chains point anywhere in the sequence (forward or backward), so
    a token of depth k needs k look-ups.

    Args:
        batch_size: B.
        T: sequence length (> max_depth).
        n_values: how many value tokens (the classes); the vocabulary is n_values + T.
        max_depth: longest chain.
        generator: a seeded torch.Generator (default: seed 0).

    Returns:
        PointerBatch(ids (B, T) long, targets (B, T) long in 0..n_values-1, depth (B, T) long).

    Lecture 11b; "more iterations on more ambiguous tokens" (Dehghani et al. 2019).
    """
    check_positive_int("batch_size", batch_size)
    check_positive_int("n_values", n_values)
    check_non_negative_int("max_depth", max_depth)
    check_positive_int("T", T)
    if max_depth >= T:
        raise ValueError(f"T must be larger than max_depth={max_depth}, got T={T}")
    gen = _generator(generator)
    ids = torch.empty(batch_size, T, dtype=torch.long)
    targets = torch.empty(batch_size, T, dtype=torch.long)
    depth = torch.empty(batch_size, T, dtype=torch.long)
    for b in range(batch_size):
        order = torch.randperm(T, generator=gen).tolist()  # the order positions are filled in
        # depths in fill order: one chain 0, 1, ..., max_depth first, then random depths whose
        # chain already exists (a token of depth d points at one of depth d - 1)
        wanted = list(range(max_depth + 1))
        wanted += torch.randint(max_depth + 1, (T - len(wanted),), generator=gen).tolist()
        at_depth: dict[int, list[int]] = {}
        for pos, d in zip(order, wanted, strict=True):
            while d > 0 and d - 1 not in at_depth:
                d -= 1
            if d == 0:
                value = int(torch.randint(n_values, (1,), generator=gen))
                ids[b, pos], targets[b, pos] = value, value
            else:
                options = at_depth[d - 1]
                j = options[int(torch.randint(len(options), (1,), generator=gen))]
                ids[b, pos], targets[b, pos] = n_values + j, targets[b, j]
            depth[b, pos] = d
            at_depth.setdefault(d, []).append(pos)
    return PointerBatch(ids, targets, depth)


POINTERS = {"T": 10, "n_values": 8, "max_depth": 4}  # lecture 11b's task (the shipped models')
TEST_SEED = 1234


def pointer_test_set(batch_size: int = 1000) -> PointerBatch:
    """The held-out pointer chains every measurement uses (seed 1234).

    Lecture 11b.
    """
    check_positive_int("batch_size", batch_size)
    return pointer_chains(batch_size, generator=torch.Generator().manual_seed(TEST_SEED),
                          **POINTERS)  # fmt: skip


def shape_series(
    batch_size: int,
    T: int = 48,
    noise: float = 0.02,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Noisy sine waves, each with its own amplitude (0.5 to 1.5), period (about 10 to 25
    steps) and phase. Every value occurs once on the way up and once on the way down, so the
    next value depends on which way the series is going (the local shape), not on the current
    value alone.

    Args:
        batch_size: B.
        T: length of each series.
        noise: standard deviation of added Gaussian noise (>= 0).
        generator: a seeded torch.Generator (default: seed 0).

    Returns:
        (B, T) float32.

    Lecture 11b; the locality argument of Li et al. 2019 section 3.2 (Figure 1).
    """
    check_positive_int("batch_size", batch_size)
    check_positive_int("T", T)
    check_range("noise", noise, 0)
    gen = _generator(generator)
    amplitude = 0.5 + torch.rand(batch_size, 1, generator=gen)
    omega = 0.25 + 0.35 * torch.rand(batch_size, 1, generator=gen)  # radians per step
    phase = 2 * math.pi * torch.rand(batch_size, 1, generator=gen)
    t = torch.arange(T, dtype=torch.float32)[None, :]  # (1, T)
    x = amplitude * torch.sin(omega * t + phase)  # (B, T)
    return x + noise * torch.randn(batch_size, T, generator=gen)
