"""lecturekit.efficient.cost: exact FLOPs and bytes, timings."""

import time

import pytest
import torch

from lecturekit.efficient.cost import VARIANTS, attention_cost, best_time, peak_memory
from lecturekit.experiments.measurements import attention_vs_recurrence_flops


def test_peak_memory_counts_new_tensors_exactly():
    x = torch.randn(100, 100)
    assert peak_memory(lambda: torch.empty(1000)) == 4000
    assert peak_memory(lambda: x @ x) == 100 * 100 * 4
    assert peak_memory(lambda: x.view(-1)) == 0  # a view allocates nothing
    assert peak_memory(lambda: (x @ x) @ x) == 2 * 100 * 100 * 4  # two results alive at once
    with pytest.raises(ValueError, match="fn must be callable"):
        peak_memory(3)


def test_attention_cost_exact_counts():
    ns, d, window, chunk = (64, 128), 16, 4, 32
    c = attention_cost(ns, d=d, window=window, chunk_size=chunk)
    assert set(c.flops) == set(c.peak_bytes) == set(VARIANTS)
    ref = attention_vs_recurrence_flops(list(ns), d=d)
    assert c.flops["full"] == ref.attention_pairwise == tuple(4 * n * n * d for n in ns)
    assert c.flops["GRU"] == ref.gru
    assert c.flops["local (band mask)"] == c.flops["full"]  # masking saves no arithmetic
    assert c.flops["local (chunked)"] == tuple(4 * n * (window + 2 * window) * d for n in ns)
    assert c.flops["LSH"] == tuple(
        2 * n * d * (n // chunk // 2) + 4 * n * 2 * chunk * d for n in ns
    )
    full = c.peak_bytes["full"]
    assert full[1] / full[0] > 3.5  # the (n, n) scores and weights
    assert c.peak_bytes["local (chunked)"][1] / c.peak_bytes["local (chunked)"][0] < 2.2
    assert full[0] >= 2 * 4 * 64 * 64


def test_best_time_and_bad_lengths():
    assert best_time(lambda: torch.ones(3), repeats=2) >= 0
    calls = []
    best_time(lambda: calls.append(1), repeats=2, min_seconds=0.0)
    assert len(calls) == 1 + 2  # warm-up + repeats
    calls.clear()
    best_time(lambda: calls.append(time.sleep(0.002)), repeats=2, min_seconds=0.02)
    assert 1 + 5 <= len(calls) <= 1 + 100  # keeps timing until 0.02 s are spent
    with pytest.raises(ValueError, match=r"min_seconds must be a number in \[0, inf\], got -1"):
        best_time(lambda: None, min_seconds=-1)
    with pytest.raises(ValueError, match=r"every n must be a multiple of chunk_size=64, got n=100"):
        attention_cost([100])
    with pytest.raises(ValueError, match=r"ns must not be empty, got \(\)"):
        attention_cost([])
