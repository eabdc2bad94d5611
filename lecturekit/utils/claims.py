"""Claims a lecture makes, checked and printed as sentences.

A notebook cell that shows a result ends by checking the lecture's claim about it. Written as
bare ``assert`` lines those checks drown the teaching; written with ``claim`` they read as the
sentence the lecture says, print as a line of a ✓ table, and still stop the run (and nbval) when
the claim is false::

    from lecturekit.utils.claims import claim, close, increasing

    claim("q1 . k1 = 112 and q1 . k2 = 96, as on the slides", (score_11, score_12) == (112, 96))
    claim("the weights match the exact softmax", close(weights, exact))
    claim("unscaled, the largest weight grows towards one-hot with d_k",
          increasing(sat.max_weight_raw))

prints::

    ✓ q1 . k1 = 112 and q1 . k2 = 96, as on the slides
    ✓ the weights match the exact softmax
    ✓ unscaled, the largest weight grows towards one-hot with d_k

and a false claim raises ``ClaimFailed`` (an ``AssertionError``): "✗ <the sentence>", followed
by what the predicate saw (``close`` reports the largest difference, ``increasing`` the first
pair out of order).

The predicates (``close``, ``increasing``, ``decreasing``, ``all_true``) return a ``Verdict``:
truthy or falsy like a bool, and carrying the reason a claim failed.

Used by every lecture's notebook and by ``lecturekit.exercises``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch

from lecturekit.utils.checks import check_str

__all__ = ["ClaimFailed", "Verdict", "all_true", "claim", "close", "decreasing", "increasing"]


class ClaimFailed(AssertionError):
    """A lecture's claim did not hold (an AssertionError, so nbval and pytest fail the cell)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of a predicate: ``ok`` and, when it failed, ``reason`` (what was seen)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


def _as_bool(name: str, holds: object) -> Verdict:
    if isinstance(holds, Verdict):
        return holds
    if isinstance(holds, torch.Tensor):
        if holds.dtype != torch.bool:
            raise ValueError(
                f"{name} must be a bool, a bool tensor or a Verdict, got a {holds.dtype} tensor "
                "(compare it: x > 0, or use close(a, b))"
            )
        bad = int((~holds).sum())
        return Verdict(bad == 0, f"{bad} of {holds.numel()} entries are False" if bad else "")
    if isinstance(holds, (bool, np.bool_)):
        return Verdict(bool(holds))
    raise ValueError(
        f"{name} must be a bool, a bool tensor or a Verdict, got {type(holds).__name__} "
        "(write the comparison, e.g. x == 112, or use close / increasing / decreasing)"
    )


def claim(statement: str, holds: object) -> None:
    """Check one claim of the lecture and print it as a line of a ✓ table.

    Args:
        statement: the claim, as the lecture says it ("the weights sum to 1 in every row").
        holds: whether it holds: a bool, a bool tensor (every entry must be True) or a
            ``Verdict`` from ``close`` / ``increasing`` / ``decreasing`` / ``all_true``.

    Prints ``✓ statement`` when it holds; raises ``ClaimFailed`` (an AssertionError)
    "✗ statement (reason)" otherwise. Bad arguments raise ValueError.

    Lecture: every notebook, where a cell checks what it teaches.
    """
    check_str("statement", statement)
    verdict = _as_bool("holds", holds)
    if not verdict.ok:
        reason = f" ({verdict.reason})" if verdict.reason else ""
        raise ClaimFailed(f"✗ {statement}{reason}")
    print(f"✓ {statement}")


def _as_tensor(name: str, x: object) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().double()
    try:
        return torch.as_tensor(x, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(
            f"{name} must be a number, a sequence of numbers or a tensor, got {type(x).__name__}"
        ) from err


def close(actual: object, expected: object, *, atol: float = 1e-5, rtol: float = 1.3e-6) -> Verdict:
    """Whether ``actual`` equals ``expected`` within ``atol + rtol * |expected|`` everywhere
    (numbers, sequences or tensors of the same shape; compared in float64). NaN equals NaN.
    The default tolerances are torch.testing.assert_close's for float32.

    The reason of a failure names the largest absolute difference and where it is.
    """
    a, e = _as_tensor("actual", actual), _as_tensor("expected", expected)
    if a.shape != e.shape:
        return Verdict(False, f"shape {tuple(a.shape)} vs expected {tuple(e.shape)}")
    if a.numel() == 0:
        return Verdict(True)
    both_nan = a.isnan() & e.isnan()
    diff = (a - e).abs().masked_fill(both_nan, 0.0)
    bad = (diff > atol + rtol * e.abs()) | (a.isnan() ^ e.isnan())
    if not bool(bad.any()):
        return Verdict(True)
    worst = int(diff.nan_to_num(math.inf).flatten().argmax())
    index = [int(i) for i in torch.unravel_index(torch.tensor(worst), a.shape)]
    where = f" at {index}" if index else ""
    return Verdict(
        False,
        f"largest difference {float(diff.flatten()[worst]):.3g}{where}, "
        f"allowed {atol:g} + {rtol:g} * |expected|",
    )


def _monotone(values: object, strict: bool, sign: int, word: str) -> Verdict:
    seq = _as_tensor("values", values).flatten().tolist()
    for i, (a, b) in enumerate(itertools.pairwise(seq)):
        step = (b - a) * sign
        if step < 0 or (strict and step == 0):
            return Verdict(False, f"not {word}: {a:.4g} then {b:.4g} at positions {i}, {i + 1}")
    return Verdict(True)


def increasing(values: Iterable[float] | torch.Tensor, *, strict: bool = True) -> Verdict:
    """Whether ``values`` increase (strictly, unless ``strict=False``) from first to last."""
    return _monotone(values, strict, 1, "increasing" if strict else "non-decreasing")


def decreasing(values: Iterable[float] | torch.Tensor, *, strict: bool = True) -> Verdict:
    """Whether ``values`` decrease (strictly, unless ``strict=False``) from first to last."""
    return _monotone(values, strict, -1, "decreasing" if strict else "non-increasing")


def all_true(conditions: Iterable[object], labels: Iterable[str] | None = None) -> Verdict:
    """Whether every condition (bools or Verdicts) holds; the reason names the first that
    does not (by its label, or its position)."""
    conditions = list(conditions)
    labels = list(labels) if labels is not None else [f"#{i}" for i in range(len(conditions))]
    if len(labels) != len(conditions):
        raise ValueError(
            f"labels must name every condition: got {len(labels)} labels for "
            f"{len(conditions)} conditions"
        )
    for label, cond in zip(labels, conditions, strict=True):
        verdict = _as_bool("conditions", cond)
        if not verdict.ok:
            reason = f": {verdict.reason}" if verdict.reason else ""
            return Verdict(False, f"fails for {label}{reason}")
    return Verdict(True)
