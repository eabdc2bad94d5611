"""Input checks shared by every module: a clear ValueError naming the argument."""

from __future__ import annotations


def check_positive_int(name: str, value: object) -> None:
    """Raise ValueError unless ``value`` is an int > 0 (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
