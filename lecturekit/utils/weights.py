"""Copying weights from a reference implementation (torch.nn, Hugging Face) into lecturekit's.

Public API::

    check_parameters([(ours, theirs), ...])  # Linear / LayerNorm / Embedding pairs: the same
                                             # kind of module, weight and bias shapes (and a
                                             # LayerNorm's eps), else ValueError
    copy_parameters([(ours, theirs), ...])   # weight and bias of each pair; every pair is
                                             # checked first, so a mismatch changes nothing

This is how the tests and notebooks show that the from-scratch modules are the real thing:
load the reference's weights, compare the outputs (atol 1e-5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from torch import nn

__all__ = ["check_parameters", "copy_parameters"]

# Kinds of module whose weights mean different things: a pair must be of the same kind (a
# Linear(2, 5) weight has the shape of an Embedding(5, 2) weight, but not its meaning).
_KINDS = (nn.Linear, nn.LayerNorm, nn.Embedding)


def _tensors(module: nn.Module) -> dict[str, torch.Tensor | None]:
    return {"weight": module.weight, "bias": getattr(module, "bias", None)}


def _check_pairs(pairs: object) -> list[tuple[nn.Module, nn.Module]]:
    """A list of (ours, theirs) pairs of modules with a weight tensor, as a list (a generator
    is read once: check and copy then see the same pairs)."""
    want = "pairs must be a list of (ours, theirs) module pairs"
    if isinstance(pairs, (str, bytes, nn.Module)) or not isinstance(pairs, (Sequence, Iterable)):
        raise ValueError(f"{want}, got {type(pairs).__name__}")
    pairs = list(pairs)
    if len(pairs) == 2 and all(isinstance(m, nn.Module) for m in pairs):
        raise ValueError(f"{want}, got a single pair (wrap it: [(ours, theirs)])")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            got = f"{len(pair)} items" if isinstance(pair, (tuple, list)) else type(pair).__name__
            raise ValueError(f"pairs[{i}] must be an (ours, theirs) pair of modules, got {got}")
        for side, module in zip(("ours", "theirs"), pair, strict=True):
            if not isinstance(getattr(module, "weight", None), torch.Tensor):
                raise ValueError(
                    f"pairs[{i}] ({side}) must be a module with a weight tensor (Linear, "
                    f"LayerNorm, Embedding), got {type(module).__name__}"
                )
    return pairs


def check_parameters(pairs: Sequence[tuple[nn.Module, nn.Module]]) -> None:
    """Raise ValueError unless every (ours, theirs) pair is of the same kind (Linear,
    LayerNorm, Embedding), has the same weight and bias shapes (and the same biases present)
    and, for LayerNorms, the same eps (it changes the function); names the first pair that
    does not match."""
    for i, (mine, theirs) in enumerate(_check_pairs(pairs)):
        a, b = _tensors(mine), _tensors(theirs)
        what = f"pair {i} ({type(mine).__name__} <- {type(theirs).__name__})"
        for kind in _KINDS:
            if isinstance(mine, kind) != isinstance(theirs, kind):
                raise ValueError(f"{what}: ours and the reference must both be {kind.__name__}s")
        if isinstance(mine, nn.LayerNorm) and mine.eps != theirs.eps:
            raise ValueError(
                f"{what}: eps differs: ours {mine.eps:g} vs the reference's {theirs.eps:g} "
                "(build ours with the reference's layer_norm_eps)"
            )
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
    pairs = _check_pairs(pairs)
    check_parameters(pairs)
    for mine, theirs in pairs:
        for kind, tensor in _tensors(mine).items():
            if tensor is not None:
                tensor.copy_(_tensors(theirs)[kind])
