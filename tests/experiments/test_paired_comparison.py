"""lecturekit.experiments.translation.paired_comparison: two systems on the same items."""

import math

import pytest
import torch

from lecturekit.experiments.translation import paired_comparison


def _bools(*values):
    return torch.tensor(values, dtype=torch.bool)


def test_counts_difference_and_exact_sign_test():
    a = _bools(1, 1, 1, 0, 0, 1)
    b = _bools(1, 0, 0, 0, 1, 1)
    cmp = paired_comparison(a, b, num_resamples=2000)
    assert (cmp.n, cmp.both, cmp.only_a, cmp.only_b, cmp.neither) == (6, 2, 2, 1, 1)
    assert cmp.difference == pytest.approx(a.float().mean() - b.float().mean())
    # 3 disagreements split 2 : 1; P(a split at least as uneven | fair coin) = 2 * (1 + 3) / 8
    assert cmp.p_value == 1.0
    lopsided = paired_comparison(_bools(*[1] * 10, *[0] * 3), _bools(*[0] * 10, *[1] * 3))
    assert lopsided.p_value == pytest.approx(2 * sum(math.comb(13, k) for k in range(4)) / 2**13)


def test_identical_systems_have_no_uncertainty():
    a = _bools(1, 0, 1, 1)
    cmp = paired_comparison(a, a.clone())
    assert cmp.difference == 0 and cmp.interval == (0.0, 0.0) and cmp.p_value == 1.0


def test_the_interval_is_seeded_and_about_as_wide_as_the_normal_approximation():
    n, only_a, only_b = 1000, 10, 3
    a = torch.zeros(n, dtype=torch.bool)
    b = torch.zeros(n, dtype=torch.bool)
    a[:only_a] = True
    b[only_a : only_a + only_b] = True
    a[100:900] = b[100:900] = True  # right in both
    cmp = paired_comparison(a, b, num_resamples=4000, seed=1)
    assert cmp == paired_comparison(a, b, num_resamples=4000, seed=1)
    low, high = cmp.interval
    assert cmp.difference == pytest.approx(0.007) and low <= cmp.difference <= high
    sd = math.sqrt(((only_a + only_b) / n - cmp.difference**2) / n)  # of the mean difference
    assert (high - low) == pytest.approx(2 * 1.96 * sd, rel=0.25)
    narrower = paired_comparison(a, b, num_resamples=4000, seed=1, confidence=0.5).interval
    assert low <= narrower[0] <= narrower[1] <= high


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"correct_a": torch.ones(3)}, "correct_a must have dtype torch.bool"),
        ({"correct_b": _bools(1, 0)}, "must score the same items"),
        ({"correct_a": torch.ones(0, dtype=torch.bool)}, "must not have a dimension of size 0"),
        ({"confidence": 1.0}, r"confidence must be a number in \(0, 1\)"),
        ({"num_resamples": 0}, "num_resamples must be a positive integer"),
        ({"seed": -1}, "seed must be a non-negative integer"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"correct_a": _bools(1, 0, 1), "correct_b": _bools(0, 0, 1), **kwargs}
    a, b = args.pop("correct_a"), args.pop("correct_b")
    with pytest.raises(ValueError, match=match):
        paired_comparison(a, b, **args)
