"""Copying weights from a reference implementation (torch.nn, Hugging Face) into lecturekit's.

Public API::

    check_parameters([(ours, theirs), ...])  # Linear / LayerNorm / Embedding pairs: the same
                                             # weight and bias shapes, else ValueError
    copy_parameters([(ours, theirs), ...])   # weight and bias of each pair; every pair is
                                             # checked first, so a mismatch changes nothing

This is how the tests and notebooks show that the from-scratch modules are the real thing:
load the reference's weights, compare the outputs (atol 1e-5).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["check_parameters", "copy_parameters"]


def _tensors(module: nn.Module) -> dict[str, torch.Tensor | None]:
    return {"weight": module.weight, "bias": getattr(module, "bias", None)}


def check_parameters(pairs: Sequence[tuple[nn.Module, nn.Module]]) -> None:
    """Raise ValueError unless every (ours, theirs) pair has the same weight and bias shapes
    (and the same biases present), naming the first pair that does not match."""
    for i, (mine, theirs) in enumerate(pairs):
        a, b = _tensors(mine), _tensors(theirs)
        what = f"pair {i} ({type(mine).__name__} <- {type(theirs).__name__})"
        for kind in ("weight", "bias"):
            if (a[kind] is None) != (b[kind] is None):
                ours = "has a" if a[kind] is not None else "has no"
                ref = "has a" if b[kind] is not None else "has no"
                raise ValueError(f"{what}: ours {ours} {kind}, the reference {ref} {kind}")
            if a[kind] is not None and a[kind].shape != b[kind].shape:
                raise ValueError(
                    f"{what}: {kind} shape mismatch: ours {tuple(a[kind].shape)} vs the "
                    f"reference's {tuple(b[kind].shape)}"
                )


@torch.no_grad()
def copy_parameters(pairs: Sequence[tuple[nn.Module, nn.Module]]) -> None:
    """Copy ``weight`` and ``bias`` of every (ours, theirs) pair of modules, after checking all
    of them (``check_parameters``): a mismatch raises ValueError and copies nothing."""
    check_parameters(pairs)
    for mine, theirs in pairs:
        for kind, tensor in _tensors(mine).items():
            if tensor is not None:
                tensor.copy_(_tensors(theirs)[kind])
