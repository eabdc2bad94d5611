"""lecturekit.experiments.recurrence: gradients against distance, the Jacobian bound, FLOPs,
sequential steps and path lengths (Vaswani et al.'s Table 1)."""

import math

import pytest
import torch

from lecturekit.experiments import recurrence as rec


@pytest.fixture(scope="module")
def curves():
    return rec.gradient_vs_distance(length=24, dim=16, seeds=3)


def test_gradients_vanish_for_recurrent_layers_and_not_for_attention(curves):
    assert set(curves.norms) == set(rec.KINDS) and curves.runs["RNN"].shape == (3, 24)
    for kind in ("RNN", "GRU", "LSTM"):
        assert curves.norms[kind][-1] < 1e-4 * curves.norms[kind][1]
    t = curves.norms["Transformer"][1:]
    assert t.max() / t.min() < 3  # flat: every earlier position is one step away


def test_gradient_norms_are_autograd_of_the_readout():
    torch.manual_seed(0)
    layer = torch.nn.RNN(3, 3, batch_first=True).double()
    x = torch.randn(1, 5, 3, dtype=torch.float64, requires_grad=True)
    y = layer(x)[0][0, -1].sum()
    (g,) = torch.autograd.grad(y, x)
    # the last position's own input has the direct path; earlier inputs shrink
    assert g[0, -1].norm() > 0 and g[0, 0].norm() < g[0, -1].norm()


def test_jacobian_decay_is_bounded_by_the_spectral_norm():
    decay = rec.rnn_jacobian_decay((0.5, 1.0, 2.0), length=24, dim=16, seeds=3, fit_to=12)
    assert all(f <= s for f, s in zip(decay.factors, decay.spectral_norms, strict=True))
    assert decay.factors[0] < decay.factors[1] < decay.factors[2]
    assert decay.factors[0] < 0.5 and set(decay.curves) == {0.5, 1.0, 2.0}


def test_cell_flops_count_the_gate_matrices():
    flops = rec.cell_flops(16)
    assert flops == {"RNN": 4 * 16**2, "GRU": 12 * 16**2, "LSTM": 16 * 16**2}


def test_sequential_steps_and_times():
    s = rec.sequential_steps(n=10, dim=4)
    assert (s.recurrent, s.attention) == (10, 1)
    times = rec.sequential_vs_parallel_times((8, 16), dim=8, repeats=1)
    assert set(times) == {"recurrent", "self-attention"} and all(
        len(v) == 2 and min(v) > 0 for v in times.values())  # fmt: skip


@pytest.mark.parametrize("n", [8, 13])
def test_path_lengths_match_the_formulas(n):
    assert rec.path_length("self-attention", n) == 1
    assert rec.path_length("recurrent", n) == n - 1
    assert rec.path_length("self-attention (restricted)", n, window=3) == math.ceil((n - 1) / 3)
    assert rec.path_length("convolutional", n, kernel=3) == math.ceil((n - 1) / 2)
    assert rec.path_length("convolutional (dilated)", n, kernel=2) == math.ceil(math.log2(n))


def test_vaswani_table_rows():
    rows = rec.vaswani_table(ns=(32, 64), ds=(8, 16), n_path=(8,), kernel=3, window=2)
    by = {r["layer"]: r for r in rows}
    assert list(by) == list(rec.LAYER_TYPES)
    assert by["self-attention"]["n_exponent"] == pytest.approx(2.0)
    assert by["self-attention"]["d_exponent"] == pytest.approx(1.0)
    assert by["recurrent"]["n_exponent"] == pytest.approx(1.0)
    assert by["recurrent"]["d_exponent"] == pytest.approx(2.0)
    assert by["recurrent"]["sequential"] == 64 and by["convolutional"]["sequential"] == 1
    assert by["self-attention (restricted)"]["n_exponent"] == pytest.approx(1.0, abs=0.05)
    assert by["convolutional"]["path"] == {8: 2} and by["convolutional"]["path_contiguous"] == {
        8: 4
    }
    assert by["recurrent"]["path"] == {8: 7}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rec.gradient_vs_distance(["CNN"]), "kinds"),
        (lambda: rec.gradient_vs_distance("RNN"), "kinds"),
        (lambda: rec.gradient_vs_distance(length=1), "length"),
        (lambda: rec.rnn_jacobian_decay((0.0,)), "spectral_norms"),
        (lambda: rec.rnn_jacobian_decay((1.0,), length=10, fit_to=10), "fit_to"),
        (lambda: rec.cell_flops(0), "dim"),
        (lambda: rec.path_length("lstm", 8), "kind"),
        (lambda: rec.path_length("convolutional", 8, kernel=1), "kernel"),
        (lambda: rec.vaswani_table(ns=(8,)), "two values"),
        (lambda: rec.sequential_vs_parallel_times(()), "ns"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_large_forget_bias_keeps_the_lstm_gradient():
    default = rec.gradient_vs_distance(["LSTM"], length=24, dim=16, seeds=3)
    open_gate = rec.gradient_vs_distance(["LSTM"], length=24, dim=16, seeds=3, lstm_forget_bias=3.0)
    assert open_gate.norms["LSTM"][-1] > 1e3 * default.norms["LSTM"][-1]
    unchanged = rec.gradient_vs_distance(["RNN"], length=8, dim=8, seeds=2, lstm_forget_bias=3.0)
    same = rec.gradient_vs_distance(["RNN"], length=8, dim=8, seeds=2)
    assert torch.equal(unchanged.norms["RNN"], same.norms["RNN"])
