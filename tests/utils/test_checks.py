"""lecturekit.utils.checks: one home for input checks, each naming the argument and what it got."""

import numpy as np
import pytest
import torch

from lecturekit.utils.checks import (
    as_pair,
    check_choice,
    check_index,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
    check_tensor,
    shape_of,
)


def test_shape_of_describes_what_was_given():
    assert shape_of(torch.zeros(2, 3)) == (2, 3)
    assert shape_of(np.zeros((4,))) == (4,)
    assert shape_of([1, 2]) == "list"


def test_integers():
    assert check_positive_int("n", 3) == 3 and check_positive_int("n", np.int64(3)) == 3
    assert check_non_negative_int("window", 0) == 0 and check_seed(7) == 7
    for bad in (0, -1, 1.0, True, "3"):
        with pytest.raises(ValueError, match=rf"n must be a positive integer, got {bad!r}"):
            check_positive_int("n", bad)
    with pytest.raises(ValueError, match="window must be a non-negative integer, got -1"):
        check_non_negative_int("window", -1)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer, got 1\.5"):
        check_seed(1.5)
    assert check_positive_ints("dims", [4, 16]) == (4, 16)
    assert check_positive_ints("ns", range(1, 3)) == (1, 2)
    with pytest.raises(ValueError, match=r"dims\[1\] must be a positive integer, got 0"):
        check_positive_ints("dims", [4, 0])
    with pytest.raises(ValueError, match="dims must be a sequence of positive integers"):
        check_positive_ints("dims", "64")
    with pytest.raises(ValueError, match=r"dims must not be empty, got \[\]"):
        check_positive_ints("dims", [])


def test_choice_range_instance_and_pair():
    assert check_choice("kind", "a", ["a", "b"]) == "a"
    with pytest.raises(ValueError, match=r"kind='c' is not one of \['a', 'b'\]"):
        check_choice("kind", "c", ["a", "b"])
    assert check_range("p", 0, 0, 1, high_open=True) == 0.0
    for bad, interval in ((1.0, r"\[0, 1\)"), (float("nan"), r"\[0, 1\)"), ("0.5", r"\[0, 1\)")):
        with pytest.raises(ValueError, match=rf"p must be a number in {interval}, got"):
            check_range("p", bad, 0, 1, high_open=True)
    with pytest.raises(ValueError, match=r"lr must be a number in \(0, inf\], got 0"):
        check_range("lr", 0, 0, low_open=True)
    assert check_instance("config", 3, int) == 3
    with pytest.raises(ValueError, match="config must be a dict, got list"):
        check_instance("config", [], dict)
    assert as_pair("patch_size", 2) == (2, 2) and as_pair("patch_size", [2, 3]) == (2, 3)
    with pytest.raises(ValueError, match=r"an int or a pair \(height, width\), got \(1, 2, 3\)"):
        as_pair("patch_size", (1, 2, 3))
    with pytest.raises(ValueError, match="patch_size must be a positive integer, got 0"):
        as_pair("patch_size", (2, 0))


def test_tensors():
    x = torch.zeros(2, 3)
    assert check_tensor("x", x, 2) is x and check_tensor("x", x, min_ndim=1) is x
    with pytest.raises(
        ValueError, match=r"x must be a torch.Tensor of shape \(B, T, D\), got list"
    ):
        check_tensor("x", [1], 3, wanted="(B, T, D)")
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, D\), got \(2, 3\)"):
        check_tensor("x", x, 3, wanted="(B, T, D)")
    with pytest.raises(ValueError, match=r"x must have shape at least 3-D, got \(2, 3\)"):
        check_tensor("x", x, min_ndim=3)
    with pytest.raises(
        ValueError, match="x must be a floating-point tensor of shape 2-D, got dtype"
    ):
        check_tensor("x", torch.zeros(2, 3, dtype=torch.long), 2, floating=True)


def test_index():
    assert check_index("pad_id", 0, 46) == 0 and check_index("token", np.int64(45), 46) == 45
    for bad in (46, -1, 1.0, True):
        with pytest.raises(ValueError, match=rf"pad_id must be an integer in 0\.\.45, got {bad!r}"):
            check_index("pad_id", bad, 46)
