"""claim prints a ✓ line when the claim holds and raises ClaimFailed (an AssertionError) with
what was seen when it does not; the predicates say why."""

import numpy as np
import pytest
import torch

from lecturekit.utils.claims import ClaimFailed, all_true, claim, close, decreasing, increasing


def test_a_true_claim_prints_one_tick_line(capsys):
    claim("the weights sum to 1", True)
    claim("every entry is positive", torch.ones(3) > 0)
    claim("numpy bools count", np.bool_(True))
    assert capsys.readouterr().out == (
        "✓ the weights sum to 1\n✓ every entry is positive\n✓ numpy bools count\n"
    )


def test_a_false_claim_fails_the_cell_with_the_reason(capsys):
    with pytest.raises(ClaimFailed, match=r"✗ close enough \(largest difference 0.5 at \[1\]"):
        claim("close enough", close([1.0, 2.5], [1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"2 of 3 entries are False"):
        claim("all positive", torch.tensor([1.0, -1.0, -2.0]) > 0)
    assert capsys.readouterr().out == ""


def test_close_follows_torch_testing_tolerances():
    assert close(1.0, 1.0 + 9e-6) and not close(1.0, 1.0 + 2e-5)
    assert close(torch.tensor([1e6]), torch.tensor([1e6 + 1.0]))  # relative tolerance
    assert close(float("nan"), float("nan")) and not close(float("nan"), 1.0)
    assert close([], []) and close(torch.ones(2, 3, dtype=torch.float64), np.ones((2, 3)))
    verdict = close(torch.ones(2, 2), torch.ones(3))
    assert not verdict and "shape (2, 2) vs expected (3,)" in verdict.reason
    assert not close(1.0, 1.1, atol=0.05) and close(1.0, 1.1, atol=0.2)


def test_monotone_predicates_name_the_first_pair_out_of_order():
    assert increasing([1, 2, 3]) and decreasing(torch.tensor([3.0, 2.0, 1.0]))
    assert not increasing([1, 2, 2]) and increasing([1, 2, 2], strict=False)
    verdict = decreasing([3, 1, 2])
    assert not verdict and "1 then 2 at positions 1, 2" in verdict.reason
    assert increasing([5]) and increasing([])


def test_all_true_names_the_first_failure():
    assert all_true([True, torch.tensor(True)])
    verdict = all_true([True, close(1, 2)], labels=["d=4", "d=16"])
    assert not verdict and verdict.reason.startswith("fails for d=16: largest difference")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: claim("x", 1), r"holds must be a bool, a bool tensor or a Verdict, got int"),
        (lambda: claim("x", torch.ones(2)), r"got a torch.float32 tensor \(compare it"),
        (lambda: claim("", True), r"statement must not be empty"),
        (lambda: claim(3, True), r"statement must be a string, got int"),
        (lambda: close("a", 1.0), r"actual must be a number, a sequence of numbers or a tensor"),
        (lambda: all_true([True], labels=["a", "b"]), r"labels must name every condition"),
    ],
)
def test_bad_arguments_get_a_clear_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
