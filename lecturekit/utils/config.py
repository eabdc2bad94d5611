"""The one convention of every full model's config (``lecturekit.models``).

Public API::

    @dataclass(frozen=True)
    class MyConfig(ModelConfig):
        TINY: ClassVar[dict] = {"d_model": 64}   # the lecture's sizes
        d_model: int = 768                        # defaults: the paper's model

    MyConfig()                   # the paper's model
    MyConfig.tiny(**overrides)   # the lecture's model (TINY, then the overrides)
    config.to_dict()             # plain dict (JSON-ready: checkpoints store it)
    MyConfig.from_dict(d)        # the inverse (lists back to tuples); unknown keys -> ValueError
    config.replace(**changes)    # a copy with some fields changed

    # in a subclass's __post_init__, the checks every attention model shares:
    self.check_positive("vocab_size", "d_model", ...)   # each field an int > 0
    self.check_attention("d_model")   # width divisible by num_heads, dropout in [0, 1),
                                      # layer_norm_eps > 0

Unknown field names (in ``tiny``, ``from_dict`` or ``replace``) raise a ValueError that lists
the valid ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar, TypeVar

from lecturekit.utils.checks import check_positive_int, check_range

__all__ = ["ModelConfig"]

C = TypeVar("C", bound="ModelConfig")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Base class of the frozen config dataclasses: ``tiny``, ``to_dict``, ``from_dict``."""

    TINY: ClassVar[dict[str, object]] = {}

    @classmethod
    def _check_fields(cls, values: Mapping[str, object], where: str) -> None:
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(values) - set(names), key=repr)  # keys need not all be str
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {unknown} for {cls.__name__}; its "
                             f"fields are {names}")  # fmt: skip

    @classmethod
    def _check_no_positional(cls, args: tuple[object, ...], where: str) -> None:
        """``tiny`` and ``replace`` take field=value keywords; a dict given positionally gets
        the way to pass it."""
        if args:
            raise ValueError(
                f"{where} takes field=value keywords, got {len(args)} positional argument(s) "
                f"({type(args[0]).__name__}); pass a dict d as **d"
            )

    @classmethod
    def tiny(cls: type[C], *args: object, **overrides: object) -> C:
        """The lecture's model: the paper's defaults with ``TINY``'s sizes, then ``overrides``."""
        cls._check_no_positional(args, f"{cls.__name__}.tiny")
        cls._check_fields(overrides, f"{cls.__name__}.tiny")
        return cls(**{**cls.TINY, **overrides})

    def to_dict(self) -> dict[str, object]:
        """Every field, as a plain dict (what a checkpoint stores as JSON)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls: type[C], values: Mapping[str, object]) -> C:
        """The config ``to_dict`` gave (JSON lists become tuples again); missing fields take
        their defaults."""
        if not isinstance(values, Mapping):
            hint = " (it is a config already)" if isinstance(values, ModelConfig) else ""
            raise ValueError(
                f"values must be a mapping of {cls.__name__} fields, got "
                f"{type(values).__name__}{hint}"
            )
        cls._check_fields(values, f"{cls.__name__}.from_dict")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})

    def replace(self: C, *args: object, **changes: object) -> C:
        """A copy with ``changes`` applied (checked like a new config)."""
        self._check_no_positional(args, f"{type(self).__name__}.replace")
        self._check_fields(changes, f"{type(self).__name__}.replace")
        return dataclasses.replace(self, **changes)

    def check_positive(self, *names: str) -> None:
        """Raise ValueError unless each named field is an int > 0 (for ``__post_init__``)."""
        for name in names:
            check_positive_int(name, getattr(self, name))

    def check_attention(self, width: str) -> None:
        """The fields every attention model has (for ``__post_init__``): ``width`` divisible by
        ``num_heads``, ``dropout`` in [0, 1), ``layer_norm_eps`` > 0. Sizes checked first."""
        self.check_positive(width, "num_heads")
        d, h = getattr(self, width), self.num_heads
        if d % h:
            raise ValueError(f"{width}={d} is not divisible by num_heads={h}")
        check_range("dropout", self.dropout, 0, 1, high_open=True)
        check_range("layer_norm_eps", self.layer_norm_eps, 0, low_open=True)
