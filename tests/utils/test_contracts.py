"""lecturekit.utils.contracts: shape specs declared once at an entry point, checked on calls from
outside lecturekit and trusted on lecturekit's own calls."""

from __future__ import annotations

import types

import pytest
import torch
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.utils.contracts import check_shapes, contract


class Toy(nn.Module):
    def __init__(self):
        super().__init__()
        self.d_model, self.num_heads = 6, 2
        self.w = nn.Linear(6, 6)

    @contract(x="B T d_model", ids="int: B T", heads="B H=num_heads T Dh>0")
    def forward(self, x, ids=None, heads=None):
        return x


def test_a_spec_binds_symbols_and_reads_module_sizes():
    toy = Toy()
    x = torch.zeros(2, 3, 6)
    assert toy(x, torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, 2, 3, 1)) is x
    with pytest.raises(ValueError, match=r"x must be \(B, T, d_model=6\), got \(2, 3, 5\)"):
        toy(torch.zeros(2, 3, 5))
    with pytest.raises(
        ValueError, match=r"ids must be \(B, T\) with T=3 as in x \(2, 3, 6\), got \(2, 4\)"
    ):
        toy(x, torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"ids must be an integer tensor .*\(convert with ids.long\(\)\)"
    ):
        toy(x, torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"heads must be \(B, H=2, T, Dh\), got \(2, 3, 3, 1\)"):
        toy(x, None, torch.zeros(2, 3, 3, 1))
    with pytest.raises(
        ValueError, match=r"heads must be \(B, H=2, T, Dh\) with Dh > 0, got \(2, 2, 3, 0\)"
    ):
        toy(x, None, torch.zeros(2, 2, 3, 0))


def test_floating_inputs_must_have_the_weights_dtype_and_non_tensors_are_named():
    toy = Toy()
    with pytest.raises(ValueError, match=r"x has dtype torch.float64 .*pass x.float\(\)"):
        toy(torch.zeros(2, 3, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"x must be a floating-point tensor .*x.float\(\)"):
        toy(torch.zeros(2, 3, 6, dtype=torch.long))
    with pytest.raises(ValueError, match=r"x must be a torch.Tensor .*got list"):
        toy([[0.0] * 6])


def test_leading_dims_must_broadcast_and_same_dtype_is_enforced():
    specs = {"q": "... Tq Dk", "k": "... Tk Dk"}
    check_shapes({"q": torch.zeros(4, 1, 2, 3), "k": torch.zeros(5, 7, 3)}, specs, dtype="same")
    with pytest.raises(
        ValueError, match=r"batch dimensions do not broadcast: q \(2, 2, 3\), k \(3, 7, 3\)"
    ):
        check_shapes({"q": torch.zeros(2, 2, 3), "k": torch.zeros(3, 7, 3)}, specs)
    with pytest.raises(ValueError, match=r"k .*float64"):
        check_shapes({"q": torch.zeros(2, 3), "k": torch.zeros(7, 3, dtype=torch.float64)}, specs,
                     dtype="same")  # fmt: skip


def test_bad_specs_fail_when_declared():
    with pytest.raises(ValueError, match=r"cannot read dimension 'T-1'"):
        contract(x="B T-1")
    with pytest.raises(ValueError, match=r"the kind must be one of"):
        contract(x="long: B T")
    with pytest.raises(ValueError, match=r"names no argument \['y'\]"):
        contract(y="B T")(lambda x: x)


def _run_as(module_name: str, source: str, **names):
    """Run ``source`` as if it were the code of module ``module_name``; return its ``result``."""
    namespace = {"__name__": module_name, **names}
    exec(compile(source, f"<{module_name}>", "exec"), namespace)
    return namespace["result"]


def test_calls_from_lecturekit_are_trusted_and_calls_from_outside_are_checked():
    mha, bad = MultiHeadAttention(8, 2), torch.zeros(2, 3, 7)
    source = "try:\n    result = mha.project_queries(bad)\nexcept Exception as e:\n    result = e\n"
    outside = _run_as("student_notebook", source, mha=mha, bad=bad)
    inside = _run_as("lecturekit.some_module", source, mha=mha, bad=bad)
    assert isinstance(outside, ValueError) and "query must be (B, Tq, d_model=8)" in str(outside)
    # lecturekit's own call is not re-checked: torch itself refuses the product
    assert isinstance(inside, RuntimeError), inside


def test_a_contract_records_its_specs():
    assert MultiHeadAttention.forward.__contract__["query"] == "B Tq d_model"
    assert isinstance(MultiHeadAttention.forward, types.FunctionType)
