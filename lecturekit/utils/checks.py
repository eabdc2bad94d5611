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
    check_tensor(name, x, ndim=None, min_ndim=None, wanted=None, floating=False, integer=False,
                 dtype=None, nonempty=False)
    check_ids(name, ids, size, ndim=None, wanted=None, size_name=None)  # ints in 0..size-1
    check_input(name, x, module, ndim=None, wanted=None) # float tensor of the module's dtype
    module_dtype(module)                     # the dtype of a module's first parameter
    check_instance(name, value, cls)         # e.g. config must be a BertConfig (a dict gets a
                                             # hint: BertConfig(**d) / BertConfig.from_dict(d))
    check_str(name, value, allow_empty=False)
    check_strings(name, values, allow_empty=False)  # a list of str (a bare str is rejected)
    check_callable(name, value)
    check_bool(name, value)
    check_writable_dir(name, path)           # a directory that exists or can be made, writable
    check_same_dtype(name, x, ref_name, ref) # x has ref's dtype (v and q of one attention)
    check_padding_mask(name, mask, shape)    # (B, T) True/1 = real token -> bool; additive
                                             # 0/-inf masks rejected with how to convert
    check_lengths(name, lengths, batch, max_len, minimum=0)  # (B,) integer lengths in range
    as_token_ids(name, ids, size)            # one sequence: 1-D int tensor or list -> (T,) long
    check_word_counts(name, word_counts)     # non-empty mapping word (no spaces) -> count > 0
    did_you_mean(value, choices)             # "; did you mean 'bert_tiny'?" or ""
    check_device(name, device)               # cpu / cuda / cuda:N / mps, present here
    as_pair(name, value)                     # int or (h, w) of positive ints -> (h, w)

Every message has the form "<name> must be <what is wanted>, got <what was given>", so a
student sees which argument to fix and how. DESIGN.md: no bare ``assert`` for user input.
"""

from __future__ import annotations

import difflib
import itertools
import math
import numbers
import operator
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

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
    "check_ids",
    "check_input",
    "module_dtype",
    "check_str",
    "check_strings",
    "check_callable",
    "check_bool",
    "check_writable_dir",
    "check_same_dtype",
    "check_padding_mask",
    "check_lengths",
    "as_token_ids",
    "check_word_counts",
    "did_you_mean",
    "check_device",
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
    integer: bool = False,
    dtype: torch.dtype | None = None,
    nonempty: bool = False,
) -> torch.Tensor:
    """Raise ValueError unless ``x`` is a torch.Tensor with ``ndim`` dims (or at least
    ``min_ndim``); return it.

    ``floating``: a float dtype (an integer tensor, e.g. the slides' integer vectors typed in,
    gets "convert with x.float()"); ``integer``: an integer dtype, not bool (token ids);
    ``dtype``: exactly this dtype; ``nonempty``: no dimension of size 0.
    ``wanted`` describes the expected shape in the message, e.g. "(B, T, D)".
    """
    if ndim is not None:
        want = wanted or f"{ndim}-D"
    elif min_ndim is not None:
        want = wanted or f"at least {min_ndim}-D"
    else:
        want = wanted or "any"
    if not isinstance(x, torch.Tensor):
        hint = " (convert with torch.as_tensor)" if isinstance(x, (list, tuple)) else ""
        if type(x).__module__ == "numpy":  # a shape alone would look right: say what it is
            hint = f" (a numpy {type(x).__name__}: convert with torch.from_numpy)"
        raise ValueError(f"{name} must be a torch.Tensor of shape {want}, got {shape_of(x)}{hint}")
    if (ndim is not None and x.ndim != ndim) or (min_ndim is not None and x.ndim < min_ndim):
        raise ValueError(f"{name} must have shape {want}, got {tuple(x.shape)}")
    if nonempty and 0 in x.shape:
        raise ValueError(f"{name} must not have a dimension of size 0, got {tuple(x.shape)}")
    if floating and not x.is_floating_point():
        raise ValueError(
            f"{name} must be a floating-point tensor of shape {want}, got dtype {x.dtype} "
            f"(convert with {name}.float())"
        )
    if integer and (x.is_floating_point() or x.is_complex() or x.dtype == torch.bool):
        raise ValueError(
            f"{name} must be an integer tensor of shape {want}, got dtype {x.dtype} "
            f"(convert with {name}.long())"
        )
    if dtype is not None and x.dtype != dtype:
        raise ValueError(f"{name} must have dtype {dtype}, got {x.dtype}")
    return x


def check_ids(
    name: str,
    ids: object,
    size: int,
    ndim: int | None = None,
    *,
    wanted: str | None = None,
    size_name: str | None = None,
) -> torch.Tensor:
    """Raise ValueError unless ``ids`` is an integer tensor whose values lie in 0..size-1
    (token ids of a vocabulary of ``size``, segment ids, labels); return it. ``size_name``
    names the size in the message ("type_vocab_size")."""
    check_tensor(name, ids, ndim, wanted=wanted, integer=True)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= size):
        of = f"{size_name}={size}" if size_name else f"a vocabulary of {size}"
        raise ValueError(
            f"{name} must hold ids in 0..{size - 1} ({of}), got values from "
            f"{int(ids.min())} to {int(ids.max())}"
        )
    return ids


def module_dtype(module: torch.nn.Module) -> torch.dtype:
    """The dtype of a module's (first) parameter or buffer; float32 if it has neither."""
    for tensor in itertools.chain(module.parameters(), module.buffers()):
        if tensor.is_floating_point():
            return tensor.dtype
    return torch.float32


def check_input(
    name: str,
    x: object,
    module: torch.nn.Module,
    ndim: int | None = None,
    *,
    wanted: str | None = None,
) -> torch.Tensor:
    """Raise ValueError unless ``x`` is a floating-point tensor (``ndim`` dims) of the same
    dtype as ``module``'s weights: a float64 array from numpy meets float32 weights with
    "mat1 and mat2 must have the same dtype" otherwise. Returns ``x``."""
    check_tensor(name, x, ndim, wanted=wanted, floating=True)
    want = module_dtype(module)
    if x.dtype != want:
        short = {torch.float32: "float", torch.float64: "double", torch.float16: "half"}
        conv = f"{name}.{short[want]}()" if want in short else f"{name}.to({want})"
        raise ValueError(
            f"{name} has dtype {x.dtype} but {type(module).__name__}'s weights are {want}: "
            f"pass {conv} (or convert the module with .to({x.dtype}))"
        )
    return x


def check_instance(name: str, value: object, cls: type) -> object:
    """Raise ValueError unless ``value`` is an instance of ``cls`` (e.g. a config class). A
    mapping given for a config class (one with ``from_dict``) gets the way to build one."""
    if not isinstance(value, cls):
        hint = ""
        if isinstance(value, Mapping) and hasattr(cls, "from_dict"):
            hint = f" (build one with {cls.__name__}.from_dict(d) or {cls.__name__}(**d))"
        raise ValueError(f"{name} must be a {cls.__name__}, got {type(value).__name__}{hint}")
    return value


def check_str(name: str, value: object, *, allow_empty: bool = False) -> str:
    """Raise ValueError unless ``value`` is a str (non-empty unless ``allow_empty``)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty, got {value!r}")
    return value


def check_strings(name: str, values: object, *, allow_empty: bool = False) -> list[str]:
    """Raise ValueError unless ``values`` is a list/tuple (any sequence) of str, non-empty
    unless ``allow_empty``. A bare str is rejected: iterating it would give its characters."""
    if isinstance(values, str):
        raise ValueError(f"{name} must be a list of strings, got a single string {values!r} "
                         f"(wrap it: [{values!r}])")  # fmt: skip
    if not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a list of strings, got {type(values).__name__}")
    if not values and not allow_empty:
        raise ValueError(f"{name} must not be empty, got {values!r}")
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise ValueError(f"{name}[{i}] must be a string, got {type(v).__name__} {v!r}")
    return list(values)


def check_callable(name: str, value: object) -> object:
    """Raise ValueError unless ``value`` can be called."""
    if not callable(value):
        raise ValueError(f"{name} must be callable, got {type(value).__name__}")
    return value


def check_bool(name: str, value: object) -> bool:
    """Raise ValueError unless ``value`` is True or False (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def check_writable_dir(name: str, path: object) -> Path:
    """Raise ValueError unless ``path`` is a directory that exists, or can be created, and can
    be written to: checked before a long job, not when it tries to save. Returns it as a Path
    (created if it did not exist)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{name} must be a path, got {type(path).__name__}")
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{name}={str(path)!r} is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise ValueError(f"{name}={str(path)!r} cannot be written to ({e.strerror})") from None
    return path


def check_same_dtype(name: str, x: torch.Tensor, ref_name: str, ref: torch.Tensor) -> torch.Tensor:
    """Raise ValueError unless tensor ``x`` has the dtype of tensor ``ref`` (e.g. v and q of
    one attention call: a float64 array from numpy next to float32 tensors fails with
    "expected scalar type Float but found Double" otherwise). Returns ``x``."""
    if x.dtype != ref.dtype:
        short = {torch.float32: "float", torch.float64: "double", torch.float16: "half"}
        conv = f"{name}.{short[ref.dtype]}()" if ref.dtype in short else f"{name}.to({ref.dtype})"
        raise ValueError(
            f"{name} must have the dtype of {ref_name} ({ref.dtype}), got {x.dtype} (pass {conv})"
        )
    return x


def check_padding_mask(name: str, mask: object, shape: Sequence[int]) -> torch.Tensor:
    """A padding mask of ``shape`` (that of the ids it goes with), True at real tokens: bool,
    or numbers 1 (real) / 0 (padding) as Hugging Face's ``attention_mask``; returned as bool.

    Anything else is rejected, with how to convert: an additive float mask (0 = attend,
    -inf = blocked, as torch's ``src_key_padding_mask`` floats) would be read inverted by
    ``mask.bool()``; it converts with ``mask == 0``. A numeric row of all 0s (no real token:
    an additive mask without padding) is rejected for the same reason.
    """
    wanted = str(tuple(shape))
    check_tensor(name, mask, len(shape), wanted=wanted)
    if tuple(mask.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {wanted} (as the ids), got {tuple(mask.shape)}")
    if mask.dtype == torch.bool:
        return mask
    how = (f"pass {name} == 0 for an additive mask (0 = attend, -inf = blocked), {name} != 0 "
           "for 1/0 (1 = real token)")  # fmt: skip
    if mask.is_complex():
        raise ValueError(f"{name} must be bool (True = real token), got dtype {mask.dtype}")
    odd = (mask != 0) & (mask != 1)
    if odd.any():
        raise ValueError(
            f"{name} must be bool (True = real token) or hold 1 at real tokens and 0 at "
            f"padding, got the value {mask[odd][0].item()} ({how})"
        )
    real = mask != 0
    if mask.numel() and not real.any(-1).all():
        raise ValueError(
            f"{name} must mark at least one real token (1) in every row, got a row of all 0s "
            f"({how})"
        )
    return real


def check_lengths(
    name: str, lengths: object, batch: int, max_len: int, *, minimum: int = 0
) -> torch.Tensor:
    """Raise ValueError unless ``lengths`` is a (batch,) integer tensor of sequence lengths,
    each in minimum..max_len (the true lengths of a right-padded (batch, max_len) batch; a
    list gets "convert with torch.as_tensor"). Returns it."""
    check_tensor(name, lengths, 1, wanted=f"({batch},)", integer=True)
    if tuple(lengths.shape) != (batch,):
        raise ValueError(f"{name} must have shape ({batch},), got {tuple(lengths.shape)}")
    if lengths.numel() and (int(lengths.min()) < minimum or int(lengths.max()) > max_len):
        raise ValueError(f"{name} must lie in {minimum}..{max_len}, got {lengths.tolist()}")
    return lengths


def as_token_ids(name: str, ids: object, size: int, *, allow_empty: bool = False) -> torch.Tensor:
    """One sequence of token ids, a 1-D integer tensor or a list (any iterable) of ints, each
    in 0..size-1, non-empty unless ``allow_empty``; returned as a (T,) long tensor."""
    if not isinstance(ids, (torch.Tensor, str, bytes, Mapping)) and isinstance(ids, Iterable):
        ids, values = list(ids), []
        for i in ids:  # ints, numpy ints and 0-d integer tensors
            try:
                values.append(operator.index(i) if not isinstance(i, bool) else None)
            except TypeError:
                values.append(None)
            if values[-1] is None:
                raise ValueError(f"{name} must be a list of integer token ids, got {ids!r:.80}")
        ids = torch.tensor(values, dtype=torch.long)
    check_ids(name, ids, size, 1, wanted="(T,) (one sequence; a list of ints also works)")
    if not ids.numel() and not allow_empty:
        raise ValueError(f"{name} must hold at least one token id, got none")
    return ids.long()


def did_you_mean(value: object, choices: Iterable[object]) -> str:
    """The end of a message for a name that is not one of ``choices``: "; did you mean 'x'?"
    naming the close matches of a mistyped string (difflib), or "" when none is close."""
    if not isinstance(value, str) or not value.strip():
        return ""
    names = [c for c in choices if isinstance(c, str)]
    close = difflib.get_close_matches(value, names, n=3, cutoff=0.6)
    close = close or [c for c in names if value.lower() in c.lower()][:3]
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def check_word_counts(name: str, word_counts: object) -> Mapping[str, int]:
    """Raise ValueError unless ``word_counts`` is a non-empty mapping word -> count (a dict or
    Counter), each word a non-empty str without white space and each count an int > 0. A list
    of words gets "count them with collections.Counter(words)". Returns it."""
    if not isinstance(word_counts, Mapping):
        hint = ""
        if isinstance(word_counts, (list, tuple, str)):
            hint = " (count them first: collections.Counter(words) or count_words(sentences))"
        raise ValueError(
            f"{name} must be a mapping word -> count, got {type(word_counts).__name__}{hint}"
        )
    if not word_counts:
        raise ValueError(f"{name} must not be empty (no words to learn from)")
    for word, count in word_counts.items():
        if not isinstance(word, str) or not word or any(c.isspace() for c in word):
            raise ValueError(
                f"{name} has a key {word!r} that is not a word (a non-empty str without spaces)"
            )
        check_positive_int(f"{name}[{word!r}]", count)
    return word_counts


DEVICE_TYPES = ("cpu", "cuda", "mps")


def _device_label(name: str, device: object) -> str:
    """``--device cuda`` for a command-line option, ``device='cuda'`` for an argument."""
    plain = isinstance(device, str) and re.fullmatch(r"[\w:.-]+", device)
    return f"{name} {device}" if name.startswith("--") and plain else f"{name}={device!r}"


def check_device(name: str, device: object) -> torch.device:
    """The ``torch.device`` to train on, or a ValueError naming ``name``: ``device`` must be
    cpu, cuda, cuda:N or mps (a str or a torch.device), and present on this machine.

    Used by ``lecturekit.training.fit`` and the training command lines.
    """
    label = _device_label(name, device)
    if isinstance(device, torch.device):
        parsed = device
    elif isinstance(device, str) and re.fullmatch(r"[A-Za-z]+(:\d+)?", device):
        kind = device.split(":")[0]
        if kind not in DEVICE_TYPES:
            hint = ("; for a GPU use cuda (NVIDIA) or mps (Apple)" if kind.lower() == "gpu"
                    else did_you_mean(kind, DEVICE_TYPES))  # fmt: skip
            raise ValueError(f"{label} is not a device this package trains on: use cpu, cuda, "
                             f"cuda:N or mps{hint}")  # fmt: skip
        parsed = torch.device(device)
    else:
        types = "" if name.startswith("--") else " (a str or a torch.device)"
        raise ValueError(f"{label} is not a device: use cpu, cuda, cuda:N or mps{types}")
    if parsed.type not in DEVICE_TYPES:
        raise ValueError(f"{label} is not a device this package trains on: use cpu, cuda, "
                         "cuda:N or mps")  # fmt: skip
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{label} is not available on this machine "
                             "(torch.cuda.is_available() is False)")  # fmt: skip
        count = torch.cuda.device_count()
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(f"{label} is not available on this machine: it has {count} CUDA "
                             f"device(s), cuda:0 to cuda:{count - 1}")  # fmt: skip
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"{label} is not available on this machine "
                         "(torch.backends.mps.is_available() is False)")  # fmt: skip
    return parsed


def as_pair(name: str, value: object) -> tuple[int, int]:
    """An int ``n`` (meaning ``(n, n)``) or a pair of positive ints, as ``(height, width)``."""
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair (height, width), got {value!r}")
    return check_positive_int(name, pair[0]), check_positive_int(name, pair[1])
