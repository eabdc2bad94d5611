"""lecturekit.positional: the sinusoidal table, its shift property, the modules."""

import math

import pytest
import torch

from lecturekit.attention import MultiHeadAttention
from lecturekit.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    frequencies,
    shift_matrix,
    shift_residual,
    sinusoidal_encoding,
)


def test_values_against_the_formula():
    P = sinusoidal_encoding(50, 16)
    assert P.shape == (50, 16) and P.dtype == torch.float32
    for pos in (0, 1, 7, 49):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert P[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert P[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)
    assert torch.equal(P[0], torch.tensor([0.0, 1.0] * 8))


def test_shift_matrix_moves_every_position_by_k():
    P = sinusoidal_encoding(64, 32, dtype=torch.float64)
    for k in (1, 5, -3):
        M = shift_matrix(k, 32)
        for t in range(max(0, -k), 64 - max(k, 0)):
            torch.testing.assert_close(M @ P[t], P[t + k])
        torch.testing.assert_close(M.T @ M, torch.eye(32, dtype=torch.float64))  # a rotation
    torch.testing.assert_close(shift_matrix(2, 8) @ shift_matrix(3, 8), shift_matrix(5, 8))


def test_shift_residual_is_rounding_error_for_every_offset():
    for k in (0, 1, 5, -3, 63, -63):
        assert shift_residual(k, 64, 32) < 1e-12
    assert shift_residual(0, 1, 2) == 0.0
    # the residual sees a wrong table: shifting by k with another base's rotations
    P = sinusoidal_encoding(64, 32, dtype=torch.float64)
    wrong = (P[:-1] @ shift_matrix(1, 32, base=100.0).T - P[1:]).abs().max()
    assert wrong > 0.1


def test_dot_product_depends_only_on_distance():
    P = sinusoidal_encoding(40, 64, dtype=torch.float64)
    w = frequencies(64)
    for t in (0, 10, 20):
        for k in (1, 4, 9):
            assert (P[t] @ P[t + k]).item() == pytest.approx(torch.cos(w * k).sum().item())


def test_modules_add_the_table():
    x = torch.randn(2, 10, 8)
    fixed = SinusoidalPositionalEncoding(8, max_len=20)
    torch.testing.assert_close(fixed(x), x + sinusoidal_encoding(10, 8))
    assert len(list(fixed.parameters())) == 0 and "pe" not in fixed.state_dict()
    learned = LearnedPositionalEmbedding(20, 8)
    torch.testing.assert_close(learned(x), x + learned.embedding.weight[:10])
    assert sum(p.numel() for p in learned.parameters()) == 160


def test_positions_break_permutation_equivariance():
    torch.manual_seed(0)
    mha, pe = MultiHeadAttention(8, 2), SinusoidalPositionalEncoding(8, 10)
    x = torch.randn(1, 6, 8)
    perm = torch.tensor([3, 0, 5, 1, 4, 2])
    out, _ = mha(x, x, x)
    out_p, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_p, out[:, perm])  # no positions: a bag of words
    xp, xpp = pe(x), pe(x[:, perm])
    out, _ = mha(xp, xp, xp)
    out_p, _ = mha(xpp, xpp, xpp)
    assert (out_p - out[:, perm]).abs().max() > 1e-2  # with positions: order matters


def test_bad_inputs():
    with pytest.raises(ValueError, match="max_len must be a positive integer, got 0"):
        sinusoidal_encoding(0, 8)
    with pytest.raises(ValueError, match="d_model must be a positive integer, got -2"):
        sinusoidal_encoding(4, -2)
    with pytest.raises(ValueError, match="d_model=7 must be even"):
        sinusoidal_encoding(4, 7)
    with pytest.raises(ValueError, match="d_model=5 must be even"):
        shift_matrix(1, 5)
    with pytest.raises(ValueError, match="k must be an integer offset"):
        shift_matrix(1.5, 8)
    with pytest.raises(ValueError, match="k must be an integer offset"):
        shift_residual(True, 8, 8)
    with pytest.raises(ValueError, match=r"\|k\| must be < max_len=8 .*got k=-8"):
        shift_residual(-8, 8, 8)
    with pytest.raises(ValueError, match="d_model=5 must be even"):
        shift_residual(1, 8, 5)
    with pytest.raises(ValueError, match=r"sequence length T=12 exceeds max_len=10"):
        SinusoidalPositionalEncoding(8, 10)(torch.randn(1, 12, 8))
    with pytest.raises(ValueError, match=r"x must be \(B, T, d_model=8\), got \(1, 4, 6\)"):
        LearnedPositionalEmbedding(10, 8)(torch.randn(1, 4, 6))
    with pytest.raises(ValueError, match="max_len must be a positive integer"):
        LearnedPositionalEmbedding(0, 8)


def test_legitimate_odd_inputs():
    """The sinusoidal table is added in x's dtype (float64 too); a float64 learned embedding
    takes float64 input; an empty sequence (T = 0) gives an empty output."""
    x64 = torch.zeros(1, 4, 8, dtype=torch.float64)
    out = SinusoidalPositionalEncoding(8, 10)(x64)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out[0], sinusoidal_encoding(4, 8, dtype=torch.float64))
    assert LearnedPositionalEmbedding(10, 8).double()(x64).dtype == torch.float64
    assert SinusoidalPositionalEncoding(8, 10)(torch.zeros(2, 0, 8)).shape == (2, 0, 8)
    assert torch.isfinite(frequencies(8, base=0.5)).all()  # any finite base > 0
