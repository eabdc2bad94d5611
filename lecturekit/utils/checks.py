"""Input checks every module shares: a clear ValueError naming the argument, what was given and
what is wanted.

Public API::

    shape_of(x)                              # (2, 3) for a tensor/array, else the type's name
    check_positive_int(name, value)          # int > 0 (bools rejected); returns it
    check_non_negative_int(name, value)      # int >= 0
    check_seed(seed)                         # a seed: int >= 0
    check_index(name, value, size)           # an int in 0..size-1 (a token id, a position)
    check_positive_ints(name, values)        # a non-empty sequence of ints > 0 -> tuple
    check_choice(name, value, choices)       # value in choices
    check_range(name, value, low, high, low_open=False, high_open=False)   # a real number
    check_tensor(name, x, ndim=None, min_ndim=None, wanted=None, floating=False)
    check_instance(name, value, cls)         # e.g. config must be a BertConfig
    as_pair(name, value)                     # int or (h, w) of positive ints -> (h, w)

Every message has the form "<name> must be <what is wanted>, got <what was given>", so a
student sees which argument to fix and how. DESIGN.md: no bare ``assert`` for user input.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

import torch

__all__ = [
    "shape_of",
    "check_positive_int",
    "check_non_negative_int",
    "check_seed",
    "check_index",
    "check_positive_ints",
    "check_choice",
    "check_range",
    "check_tensor",
    "check_instance",
    "as_pair",
]


def shape_of(x: object) -> object:
    """What to print for a value that should have been a tensor: its shape if it has one
    (``(2, 3)``), otherwise the name of its type (``list``)."""
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else type(x).__name__


def check_positive_int(name: str, value: object) -> int:
    """Raise ValueError unless ``value`` is an int > 0 (bools are rejected); return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_non_negative_int(name: str, value: object) -> int:
    """Raise ValueError unless ``value`` is an int >= 0 (bools are rejected); return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_seed(seed: object) -> int:
    """A seed for ``torch.Generator().manual_seed``: an int >= 0."""
    return check_non_negative_int("seed", seed)


def check_index(name: str, value: object, size: int) -> int:
    """Raise ValueError unless ``value`` is an int in 0..size-1 (e.g. a token id in a
    vocabulary of ``size``); return it."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or not 0 <= value < size):  # fmt: skip
        raise ValueError(f"{name} must be an integer in 0..{size - 1}, got {value!r}")
    return int(value)


def check_positive_ints(name: str, values: object) -> tuple[int, ...]:
    """A non-empty sequence of positive ints (e.g. sequence lengths), as a tuple."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of positive integers, got {values!r}")
    if not values:
        raise ValueError(f"{name} must not be empty, got {values!r}")
    return tuple(check_positive_int(f"{name}[{i}]", v) for i, v in enumerate(values))


def check_choice(name: str, value: object, choices: Iterable[object]) -> object:
    """Raise ValueError unless ``value`` is one of ``choices``; return it."""
    choices = list(choices)
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not one of {choices}")
    return value


def check_range(
    name: str,
    value: object,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Raise ValueError unless ``value`` is a real number in the interval from ``low`` to
    ``high`` (closed ends unless ``low_open`` / ``high_open``); return it as a float.

    ``check_range("dropout", p, 0, 1, high_open=True)`` accepts 0 <= p < 1.
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value < high if high_open else value <= high
        )
    if not ok:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")
    return float(value)


def check_tensor(
    name: str,
    x: object,
    ndim: int | None = None,
    *,
    min_ndim: int | None = None,
    wanted: str | None = None,
    floating: bool = False,
) -> torch.Tensor:
    """Raise ValueError unless ``x`` is a torch.Tensor with ``ndim`` dims (or at least
    ``min_ndim``), floating point if ``floating``; return it.

    ``wanted`` describes the expected shape in the message, e.g. "(B, T, D)".
    """
    want = wanted or (f"{ndim}-D" if ndim is not None else f"at least {min_ndim}-D")
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape {want}, got {shape_of(x)}")
    if (ndim is not None and x.ndim != ndim) or (min_ndim is not None and x.ndim < min_ndim):
        raise ValueError(f"{name} must have shape {want}, got {tuple(x.shape)}")
    if floating and not x.is_floating_point():
        raise ValueError(
            f"{name} must be a floating-point tensor of shape {want}, got dtype {x.dtype}"
        )
    return x


def check_instance(name: str, value: object, cls: type) -> object:
    """Raise ValueError unless ``value`` is an instance of ``cls`` (e.g. a config class)."""
    if not isinstance(value, cls):
        raise ValueError(f"{name} must be a {cls.__name__}, got {type(value).__name__}")
    return value


def as_pair(name: str, value: object) -> tuple[int, int]:
    """An int ``n`` (meaning ``(n, n)``) or a pair of positive ints, as ``(height, width)``."""
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair (height, width), got {value!r}")
    return check_positive_int(name, pair[0]), check_positive_int(name, pair[1])
