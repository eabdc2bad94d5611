"""lecturekit.experiments.measurements: Var(q.k), softmax saturation, FLOPs of attention vs recurrence."""

import re
from itertools import pairwise

import pytest
import torch

from lecturekit.experiments.measurements import (
    attention_vs_recurrence_flops,
    dot_product_variance,
    softmax_jacobian,
    softmax_saturation,
)

DIMS = [4, 16, 64, 256]


def test_softmax_jacobian_matches_autograd():
    s = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    J = softmax_jacobian(torch.softmax(s, dim=-1))  # (3, 5, 5)
    for b in range(3):
        expected = torch.autograd.functional.jacobian(lambda t: torch.softmax(t, 0), s[b])
        torch.testing.assert_close(J[b], expected)
    torch.testing.assert_close(J.sum(-1), torch.zeros(3, 5, dtype=torch.float64))


def test_softmax_jacobian_vanishes_when_one_hot():
    assert softmax_jacobian(torch.tensor([0.0, 1.0, 0.0])).abs().max() == 0


def test_dot_product_variance_is_d_k_and_one_when_scaled():
    v = dot_product_variance(DIMS, num_samples=20_000, seed=3)
    assert v.dims == tuple(DIMS) and len(v.raw) == len(v.scaled) == len(DIMS)
    for d, raw, scaled in zip(DIMS, v.raw, v.scaled, strict=True):
        assert raw == pytest.approx(d, rel=0.08)
        assert scaled == pytest.approx(raw / d, rel=1e-9)  # dividing by sqrt(d) divides Var by d
        assert scaled == pytest.approx(1.0, rel=0.08)


def test_dot_product_variance_is_seeded_and_keeps_global_rng():
    state = torch.get_rng_state()
    a = dot_product_variance([8, 32], num_samples=500, seed=1)
    assert torch.equal(torch.get_rng_state(), state)
    assert a == dot_product_variance([8, 32], num_samples=500, seed=1)
    assert a != dot_product_variance([8, 32], num_samples=500, seed=2)


def test_dot_product_variance_first_dim_matches_inline_draws():
    gen = torch.Generator().manual_seed(5)
    q = torch.randn(300, 16, generator=gen, dtype=torch.float64)
    k = torch.randn(300, 16, generator=gen, dtype=torch.float64)
    v = dot_product_variance([16], num_samples=300, seed=5)
    assert v.raw[0] == pytest.approx((q * k).sum(-1).var().item(), rel=1e-12)


def test_softmax_saturation_unscaled_saturates_scaled_stays_flat():
    s = softmax_saturation(DIMS, num_keys=8, num_draws=1_000, seed=0)
    assert all(1 / 8 <= w <= 1 for w in s.max_weight_raw + s.max_weight_scaled)
    assert all(a < b for a, b in pairwise(s.max_weight_raw))
    assert all(a > b for a, b in pairwise(s.jacobian_raw))
    assert s.jacobian_raw_median[-1] < 0.1 * s.jacobian_raw[-1]  # the typical draw: ~no gradient
    assert max(s.max_weight_scaled) - min(s.max_weight_scaled) < 0.05
    assert max(s.jacobian_scaled) - min(s.jacobian_scaled) < 0.05
    assert s.jacobian_raw[-1] < 0.5 * s.jacobian_scaled[-1]


def test_softmax_saturation_jacobian_norm_agrees_with_definition():
    gen = torch.Generator().manual_seed(4)
    q = torch.randn(50, 1, 6, generator=gen, dtype=torch.float64)
    K = torch.randn(50, 3, 6, generator=gen, dtype=torch.float64)
    a = torch.softmax((K @ q.transpose(1, 2)).squeeze(-1), dim=-1)  # (50, 3)
    norms = [torch.linalg.matrix_norm(torch.diag(r) - torch.outer(r, r)).item() for r in a]
    s = softmax_saturation([6], num_keys=3, num_draws=50, seed=4)
    assert s.jacobian_raw[0] == pytest.approx(sum(norms) / len(norms), rel=1e-12)
    assert s.max_weight_raw[0] == pytest.approx(a.max(-1).values.mean().item(), rel=1e-12)


def test_flops_follow_table_1_and_cross_at_n_equal_d():
    d, ns = 16, [4, 8, 16, 32, 64]
    f = attention_vs_recurrence_flops(ns, d=d)
    assert f.ns == tuple(ns) and f.d == d
    for n, attn, pairs, gru, rnn in zip(
        ns, f.attention, f.attention_pairwise, f.gru, f.rnn, strict=True
    ):
        assert pairs == 4 * n * n * d  # QK^T and AV: 2 n^2 d multiply-adds
        assert attn == 8 * n * d * d + pairs  # + four d x d projections per position
        assert gru == 12 * n * d * d  # three gates, input and hidden matrices
        assert rnn == 4 * n * d * d
    ratio = [a / g for a, g in zip(f.attention, f.gru, strict=True)]
    assert all(r1 < r2 for r1, r2 in pairwise(ratio))  # attention/GRU grows with n
    for n, a, g in zip(ns, f.attention, f.gru, strict=True):
        assert (a > g) == (n > d) and (a == g) == (n == d)


def test_flops_do_not_depend_on_heads_and_keep_global_rng():
    state = torch.get_rng_state()
    one = attention_vs_recurrence_flops([8, 24], d=16, num_heads=1)
    four = attention_vs_recurrence_flops([8, 24], d=16, num_heads=4)
    assert torch.equal(torch.get_rng_state(), state)
    assert one.attention == four.attention and one.gru == four.gru


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dot_product_variance([]), "dims must not be empty"),
        (lambda: dot_product_variance([4, 0]), "dims[1] must be a positive integer, got 0"),
        (lambda: dot_product_variance("64"), "dims must be a sequence of positive integers"),
        (lambda: dot_product_variance([4.0]), "dims[0] must be a positive integer, got 4.0"),
        (lambda: dot_product_variance([4], num_samples=1), "num_samples must be at least 2"),
        (lambda: dot_product_variance([4], seed=-1), "seed must be a non-negative integer"),
        (lambda: softmax_saturation([4], num_keys=1), "num_keys must be at least 2"),
        (lambda: softmax_saturation([4], num_draws=0), "num_draws must be a positive integer"),
        (lambda: attention_vs_recurrence_flops([], d=8), "ns must not be empty"),
        (lambda: attention_vs_recurrence_flops([8], d=0), "d must be a positive integer"),
        (
            lambda: attention_vs_recurrence_flops([8], d=10, num_heads=4),
            "d=10 is not divisible by num_heads=4",
        ),
        (
            lambda: softmax_jacobian([0.5, 0.5]),
            "a must be a torch.Tensor of shape (..., n), got list",
        ),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
