"""Argument contracts of the public entry points, declared once, above the code they guard.

Public API::

    @contract(query="B Tq d_model", key="B Tk d_model", value="B Tk d_model")
    def forward(self, query, key, value, mask=None): ...   # the body reads like the equation

    @contract(q="... Tq Dk>0", k="... Tk Dk", v="... Tk Dv>0", dtype="same")
    def scaled_dot_product_attention(q, k, v, mask=None): ...

    check_shapes({"q": q, "k": k}, {"q": "... Tq Dk", "k": "... Tk Dk"})  # the same, inline

A shape spec names each dimension of a tensor, separated by spaces:
- ``...`` (first only): any number of leading dimensions; the leading dimensions of all the
  tensors of one call must broadcast together.
- a symbol (``B``, ``Tq``, ``Dk``): any size, bound where it first appears; every later
  appearance must have the same size ("k must be (..., Tk, Dk) with Dk=8 as in q (5, 8), got
  (7, 4)"). A symbol ending in ``>0`` must not be 0.
- the name of an attribute of the module (``d_model``, ``num_heads``, ``config.d_model``):
  exactly that size; a symbol can name it, ``H=num_heads``, to print as ``H=4``.
- an integer: exactly that size; ``4*H``: four times the size of H (an LSTM's stacked gates).
A spec may start with the kind of values wanted: ``float:`` (the default: floating point),
``int:`` (token ids; bool rejected) or ``any:`` (a pure reshape). Floating tensors must have the
module's weight dtype (a method of an ``nn.Module`` with parameters) or, with
``dtype="same"`` or no weights, the first tensor's dtype. A ``None`` argument is skipped
(optional inputs).

Where the checks run: when an entry point is called from outside lecturekit (a notebook, a
student's module, a test). Calls from lecturekit's own code are trusted: its caller checked the
inputs at its own boundary, so ``forward`` can call ``project_queries`` and ``attend`` without
checking twice. Every message names the argument, what it got and what it wants (the
``lecturekit.utils.checks`` form). DESIGN.md: check at the public boundary, declared once.
"""

from __future__ import annotations

import functools
import inspect
import operator
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import torch
from torch import nn

from lecturekit.utils.checks import check_input, check_same_dtype, check_tensor, module_dtype

__all__ = ["contract", "check_shapes"]

F = TypeVar("F", bound=Callable[..., Any])
_TOKEN = re.compile(r"^(?:(\w+)=)?(?:(\d+)\*)?(\w+(?:\.\w+)*)(>0)?$")
_KINDS = ("float", "int", "any")


def _parse(spec: str) -> tuple[str, bool, list[tuple[str, str, bool, int]]]:
    """Parse "int: B 4*H" -> ("int", False, [("B", "B", False, 1), ("4*H", "H", False, 4)]): the
    kind, whether the spec starts with "...", and per dimension (label, name or size, must be
    > 0, factor)."""
    kind, _, dims = spec.rpartition(":")
    kind = kind.strip() or "float"
    if kind not in _KINDS:
        raise ValueError(f"shape spec {spec!r}: the kind must be one of {_KINDS}, got {kind!r}")
    tokens = dims.split()
    leading = bool(tokens) and tokens[0] == "..."
    parsed = []
    for token in tokens[leading:]:
        match = _TOKEN.match(token)
        if match is None:
            raise ValueError(f"shape spec {spec!r}: cannot read dimension {token!r}")
        label, factor, name, positive = match.groups()
        label = label or (f"{factor}*{name}" if factor else name)
        parsed.append((label, name, bool(positive), int(factor or 1)))
    return kind, leading, parsed


class _Shapes:
    """The sizes bound so far in one call, and the tensors that bound them."""

    def __init__(self, owner: object):
        self.owner, self.sizes, self.where = owner, {}, {}

    def size(self, name: str) -> int | None:
        """An attribute of the module, an integer literal, or None (a symbol)."""
        if name.isdigit():
            return int(name)
        try:
            value = operator.attrgetter(name)(self.owner)
        except AttributeError:
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def wanted(self, leading: bool, dims: list[tuple[str, str, bool]]) -> str:
        parts = ["..."] if leading else []
        for label, name, _, factor in dims:
            fixed = self.size(name)
            if fixed is not None and (not name.isdigit() or label != name):
                label = f"{label}={fixed * factor}"
            parts.append(label)
        return f"({', '.join(parts)})" if len(parts) != 1 else f"({parts[0]},)"

    def check(self, arg: str, x: object, spec: str, ref: tuple[str, torch.Tensor] | None) -> None:
        kind, leading, dims = _parse(spec)
        wanted = self.wanted(leading, dims)
        check_tensor(arg, x, wanted=wanted)
        if x.ndim < len(dims) or (x.ndim > len(dims) and not leading):
            raise ValueError(f"{arg} must be {wanted}, got {tuple(x.shape)}")
        check_tensor(arg, x, wanted=wanted, floating=kind == "float", integer=kind == "int")
        if kind == "float":
            if isinstance(self.owner, nn.Module) and any(True for _ in self.owner.parameters()):
                if x.dtype != module_dtype(self.owner):
                    check_input(arg, x, self.owner, wanted=wanted)
            elif ref is not None:
                check_same_dtype(arg, x, *ref)
        shape = tuple(x.shape)
        for (label, name, positive, factor), got in zip(dims, shape[x.ndim - len(dims) :],
                                                        strict=True):  # fmt: skip
            fixed = self.size(name)
            if fixed is not None and got != fixed * factor:
                raise ValueError(f"{arg} must be {wanted}, got {shape}")
            if positive and got == 0:
                raise ValueError(f"{arg} must be {wanted} with {label} > 0, got {shape}")
            if fixed is None and name in self.sizes and self.sizes[name] * factor != got:
                other, other_shape = self.where[name]
                raise ValueError(
                    f"{arg} must be {wanted} with {name}={self.sizes[name]} as in {other} "
                    f"{other_shape}, got {shape}"
                )
            if fixed is None and name not in self.sizes:
                if got % factor:
                    raise ValueError(f"{arg} must be {wanted}: {label} a multiple of {factor}, "
                                     f"got {shape}")  # fmt: skip
                self.sizes[name], self.where[name] = got // factor, (arg, shape)


def check_shapes(tensors: Mapping[str, object], specs: Mapping[str, str], *, owner: object = None,
                 dtype: str = "weights") -> None:  # fmt: skip
    """Check named tensors against shape specs (the module docstring's language), in order;
    raise ValueError naming the first argument that does not fit. ``owner``: the module whose
    attributes and weight dtype the specs refer to. Floating tensors share the first one's
    dtype when ``dtype="same"`` or when there are no weights to compare them with."""
    shapes, ref, batch = _Shapes(owner), None, []
    weights = isinstance(owner, nn.Module) and any(True for _ in owner.parameters())
    for arg, spec in specs.items():
        x = tensors[arg]
        if x is None:
            continue
        shapes.check(arg, x, spec, ref if dtype == "same" or not weights else None)
        kind, leading, dims = _parse(spec)
        if ref is None and kind == "float":
            ref = (arg, x)
        if leading:
            batch.append((arg, x.shape[: x.ndim - len(dims)]))
    if len(batch) > 1:
        try:
            torch.broadcast_shapes(*(b for _, b in batch))
        except RuntimeError:
            shown = ", ".join(f"{a} {tuple(tensors[a].shape)}" for a, _ in batch)
            raise ValueError(f"batch dimensions do not broadcast: {shown}") from None


def _called_from_lecturekit(depth: int) -> bool:
    """Whether the caller (``depth`` frames up, past torch's Module.__call__) is lecturekit."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("torch."):
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__", "").startswith("lecturekit.")


def contract(*, dtype: str = "weights", **specs: str) -> Callable[[F], F]:
    """Declare the shapes of a function's (or method's) tensor arguments; checked on calls from
    outside lecturekit (see the module docstring)."""
    if dtype not in ("weights", "same"):
        raise ValueError(f"dtype must be 'weights' or 'same', got {dtype!r}")
    for spec in specs.values():
        _parse(spec)  # a typo in a spec fails at import, not at the first call

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        unknown = set(specs) - set(signature.parameters)
        if unknown:
            raise ValueError(f"contract of {fn.__qualname__} names no argument {sorted(unknown)}")
        is_method = next(iter(signature.parameters), None) == "self"

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if not _called_from_lecturekit(2):
                bound = signature.bind(*args, **kwargs)
                owner = args[0] if is_method and args else None
                check_shapes({k: bound.arguments.get(k) for k in specs}, specs, owner=owner,
                             dtype=dtype)  # fmt: skip
            return fn(*args, **kwargs)

        checked.__contract__ = dict(specs)  # read by the docs and the tests
        return checked  # type: ignore[return-value]

    return decorate
