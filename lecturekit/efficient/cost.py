"""What full, local and LSH attention and a recurrent layer cost: FLOPs, memory and time vs n.

Public API::

    f = count_flops(fn)               # FLOPs of fn(): f.total, f.pairwise (batched products)
    nbytes = peak_memory(fn)          # peak bytes held by the tensors fn() creates (exact)
    seconds = best_time(fn, repeats=3, min_seconds=0.05)
    c = attention_cost(ns, d=64, window=32, chunk_size=64)
    #   exact counts per variant (VARIANTS): c.flops[name], c.peak_bytes[name], one per n
    t = attention_times(ns, d=64, window=32, chunk_size=64, repeats=3)   # {name: seconds}
    c = variant_cost(ns, {name: fn(q, k, v)}, d=64)   # the same counts for any attention fns
    #   (lecture 11b: LogSparse, memory-compressed): c.flops[name], c.peak_bytes[name]

The variants, each on one sequence (1, n, d), single head, no gradients:
``full`` (``scaled_dot_product_attention``: the (n, n) weights), ``local (band mask)``
(``local_attention``: full attention with the band mask), ``local (chunked)``
(``chunked_local_attention``), ``LSH`` (``lsh_attention`` without the dense teaching
matrices, n / chunk_size buckets, one round) and ``GRU`` (``torch.nn.GRU(d, d)``).
FLOPs are counted by ``count_flops`` with ``torch.utils.flop_counter`` (matrix products only,
2 per multiply-add), the counter ``lecturekit.experiments.measurements`` also uses, so full
attention and the GRU get the ``attention_pairwise`` (4 n² d) and ``gru`` (12 n d²) of
lecture 04's ``attention_vs_recurrence_flops``.

``peak_memory`` watches every tensor operation (a ``TorchDispatchMode``): it adds the bytes of
each newly allocated result and subtracts them when the tensor is freed. The count is exact and
the same on every machine for one torch version (buffers a kernel uses internally and frees
before returning are not seen). Times are wall-clock and vary from run to run.

Lecture 11; Vaswani et al. 2017 Table 1; Kitaev et al. 2020 section 2 (memory and time).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import FlopCounterMode

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.efficient.local import chunked_local_attention, local_attention
from lecturekit.efficient.lsh import lsh_attention
from lecturekit.utils.checks import (
    check_callable,
    check_non_negative_int,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
)

__all__ = ["VARIANTS", "FlopCount", "count_flops", "peak_memory", "best_time", "AttentionCost",
           "attention_cost", "attention_times", "VariantCost", "variant_cost"]  # fmt: skip

VARIANTS = ("full", "local (band mask)", "local (chunked)", "LSH", "GRU")


class FlopCount(NamedTuple):
    """FLOPs of one call: all matrix products, and the batched ones among them (bmm)."""

    total: int
    pairwise: int  # batched matrix products: in attention, QKᵀ and AV (the n² part)


def count_flops(fn: Callable[[], object]) -> FlopCount:
    """Count the FLOPs of ``fn()`` (no gradients) with ``torch.utils.flop_counter``: the
    matrix products that actually run, 2 FLOPs per multiply-add (softmax and element-wise
    operations are not counted). Exact and the same on every machine.

    Lectures 04 and 11; Vaswani et al. 2017 Table 1.
    """
    check_callable("fn", fn)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        fn()
    per_op = counter.get_flop_counts().get("Global", {})
    pairwise = sum(v for op, v in per_op.items() if "bmm" in str(op) or "baddbmm" in str(op))
    return FlopCount(counter.get_total_flops(), pairwise)


class _MemoryWatcher(TorchDispatchMode):
    """Live bytes of the storages that operations return, and their maximum."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, list[int]] = {}  # storage address -> [tensors using it, bytes]
        self.refs: dict[int, weakref.ref] = {}  # one per tracked tensor: _release when freed
        self.current = 0
        self.peak = 0

    def _release(self, ref: weakref.ref, address: int) -> None:
        self.refs.pop(id(ref), None)
        entry = self.live.get(address)
        if entry is not None:
            entry[0] -= 1
            if entry[0] == 0:
                self.current -= entry[1]
                del self.live[address]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = {t.untyped_storage().data_ptr() for t in tree_flatten((args, kwargs))[0]
                  if isinstance(t, torch.Tensor)}  # fmt: skip
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            address = storage.data_ptr()
            if address == 0 or (address in inputs and address not in self.live):
                continue  # empty, or a view / in-place result of a tensor made before fn
            if address in self.live:
                self.live[address][0] += 1  # a view or an in-place result: no new memory
            else:
                self.live[address] = [1, storage.nbytes()]
                self.current += storage.nbytes()
                self.peak = max(self.peak, self.current)
            ref = weakref.ref(t, lambda r, a=address: self._release(r, a))
            self.refs[id(ref)] = ref
        return out


def peak_memory(fn: Callable[[], object]) -> int:
    """Run ``fn()`` without gradients and return the largest number of bytes that the tensors
    it created held at one time (tensors that existed before, like the inputs, do not count).

    Lecture 11.
    """
    check_callable("fn", fn)
    with torch.no_grad(), _MemoryWatcher() as watcher:
        result = fn()
        del result
    return watcher.peak


def best_time(fn: Callable[[], object], repeats: int = 3, min_seconds: float = 0.05) -> float:
    """The fastest run of ``fn()`` in seconds, after one warm-up run: at least ``repeats`` runs,
    and more (up to 100) until ``min_seconds`` have been spent, so that a short operation is
    timed often enough that a busy machine's hiccups do not decide the minimum.

    Lecture 11 (as notebook 04).
    """
    check_callable("fn", fn)
    check_positive_int("repeats", repeats)
    check_range("min_seconds", min_seconds, 0)
    with torch.no_grad():
        fn()
        times: list[float] = []
        while len(times) < repeats or (sum(times) < min_seconds and len(times) < 100):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return min(times)


def _check_lengths(ns: object, d: object, window: object, chunk_size: object, seed: object):
    """The arguments of ``attention_cost`` / ``attention_times``, checked before any work."""
    check_positive_int("d", d)
    check_positive_int("chunk_size", chunk_size)
    check_non_negative_int("window", window)
    check_seed(seed)
    for n in check_positive_ints("ns", ns):
        if n % chunk_size:
            raise ValueError(f"every n must be a multiple of chunk_size={chunk_size}, got n={n}")


def _layers(ns: Sequence[int], d: int, window: int, chunk_size: int, seed: int):
    """For each n: {variant: fn} on seeded inputs (1, n, d) (arguments: ``_check_lengths``)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        gru = nn.GRU(d, d, batch_first=True).eval()
    gen = torch.Generator().manual_seed(seed)
    for n in ns:
        q, k, v = (torch.randn(1, n, d, generator=gen) for _ in range(3))
        n_buckets = max(2, n // chunk_size)
        n_buckets += n_buckets % 2
        yield (
            n,
            {
                "full": lambda q=q, k=k, v=v: scaled_dot_product_attention(q, k, v),
                "local (band mask)": lambda q=q, k=k, v=v: local_attention(q, k, v, window),
                "local (chunked)": lambda q=q, k=k, v=v: chunked_local_attention(q, k, v, window),
                "LSH": lambda q=q, v=v, b=n_buckets: lsh_attention(
                    q, v, b, chunk_size, seed=seed, dense_weights=False
                ),
                "GRU": lambda q=q: gru(q),
            },
        )


@dataclass(frozen=True)
class AttentionCost:
    """Exact FLOPs and peak bytes of one layer per sequence length n, per variant."""

    ns: tuple[int, ...]
    d: int
    window: int  # local attention: |i - j| <= window
    chunk_size: int  # LSH chunk size (n / chunk_size buckets)
    flops: dict[str, tuple[int, ...]]
    peak_bytes: dict[str, tuple[int, ...]]


def attention_cost(
    ns: Sequence[int], d: int = 64, window: int = 32, chunk_size: int = 64, seed: int = 0
) -> AttentionCost:
    """Count FLOPs and measure the peak memory of each of ``VARIANTS`` for each length n.

    Args:
        ns: sequence lengths, multiples of chunk_size (a list or tuple, not empty).
        d: query/key/value width (= GRU hidden size).
        window: local attention's neighbours per side (r = 2 window + 1 keys).
        chunk_size: LSH chunk size (each query sees 2 chunk_size keys).
        seed: seeds the inputs and the GRU.

    Returns:
        AttentionCost(ns, d, window, chunk_size, flops, peak_bytes).

    Lecture 11; Vaswani et al. 2017 Table 1.
    """
    ns = tuple(ns) if isinstance(ns, Sequence) and not isinstance(ns, str) else ns
    _check_lengths(ns, d, window, chunk_size, seed)
    runs = list(_layers(ns, d, window, chunk_size, seed))
    flops: dict[str, list[int]] = {name: [] for name in VARIANTS}
    peak: dict[str, list[int]] = {name: [] for name in VARIANTS}
    for _, fns in runs:
        for name, fn in fns.items():
            flops[name].append(count_flops(fn).total)
            peak[name].append(peak_memory(fn))
    return AttentionCost(
        ns,
        d,
        window,
        chunk_size,
        {k: tuple(v) for k, v in flops.items()},
        {k: tuple(v) for k, v in peak.items()},
    )


def attention_times(
    ns: Sequence[int],
    d: int = 64,
    window: int = 32,
    chunk_size: int = 64,
    repeats: int = 3,
    seed: int = 0,
) -> dict[str, tuple[float, ...]]:
    """Wall-clock seconds (``best_time``) of each of ``VARIANTS`` for each length n, on the
    inputs of ``attention_cost``. Machine-dependent: compare slopes, not values.

    Lecture 11.
    """
    _check_lengths(ns, d, window, chunk_size, seed)
    check_positive_int("repeats", repeats)
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _, fns in _layers(ns, d, window, chunk_size, seed):
        for name, fn in fns.items():
            times[name].append(best_time(fn, repeats))
    return {k: tuple(v) for k, v in times.items()}


@dataclass(frozen=True)
class VariantCost:
    """Exact FLOPs and peak bytes per sequence length n of each given attention function."""

    ns: tuple[int, ...]
    d: int
    flops: dict[str, tuple[int, ...]]
    peak_bytes: dict[str, tuple[int, ...]]


def variant_cost(
    ns: Sequence[int],
    variants: Mapping[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], object]],
    d: int = 64,
    seed: int = 0,
) -> VariantCost:
    """``attention_cost``'s measurement for any attention functions: each ``fn(q, k, v)`` runs
    on seeded q, k, v (1, n, d) per n, its FLOPs counted (``count_flops``) and its peak memory
    measured (``peak_memory``).

    Args:
        ns: sequence lengths (positive ints).
        variants: {name: fn(q, k, v)}, e.g. ``lecturekit.efficient.logsparse.logsparse_attention``.
        d: query/key/value width.
        seed: seeds the inputs.

    Returns:
        VariantCost(ns, d, flops, peak_bytes), one value per n for each name.

    Lecture 11b; Li et al. 2019 section 3.3 (O(n log n)); Liu et al. 2018 section 4.2.2.
    """
    ns = check_positive_ints("ns", ns)
    check_positive_int("d", d)
    check_seed(seed)
    if not isinstance(variants, Mapping) or not variants:
        raise ValueError(f"variants must be a non-empty dict {{name: fn(q, k, v)}}, got "
                         f"{variants!r}")  # fmt: skip
    for name, fn in variants.items():
        check_callable(f"variants[{name!r}]", fn)
    flops: dict[str, list[int]] = {name: [] for name in variants}
    peak: dict[str, list[int]] = {name: [] for name in variants}
    gen = torch.Generator().manual_seed(seed)
    for n in ns:
        q, k, v = (torch.randn(1, n, d, generator=gen) for _ in range(3))
        for name, fn in variants.items():
            call = lambda fn=fn, q=q, k=k, v=v: fn(q, k, v)  # noqa: E731
            flops[name].append(count_flops(call).total)
            peak[name].append(peak_memory(call))
    return VariantCost(
        ns, d, {k: tuple(v) for k, v in flops.items()}, {k: tuple(v) for k, v in peak.items()}
    )
