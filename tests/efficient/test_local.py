"""lecturekit.efficient.local: restricted attention as a band mask and chunk by chunk."""

import pytest
import torch
from random_tensors import random_qkv

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.efficient.local import (
    band_mask,
    band_to_dense,
    chunked_local_attention,
    local_attention,
)


def test_band_mask_values():
    assert band_mask(5, 1).int().tolist() == [
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 1, 1, 1],
        [0, 0, 0, 1, 1],
    ]
    assert band_mask(4, 1, causal=True).int().tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]  # fmt: skip
    assert band_mask(4, 0).equal(torch.eye(4, dtype=torch.bool))
    assert band_mask(6, 9).all()  # a window longer than the sequence is full attention


def test_local_attention_is_masked_full_attention():
    q, k, v = random_qkv(2, T=10)
    out, w = local_attention(q, k, v, 2)
    ref_out, ref_w = scaled_dot_product_attention(q, k, v, band_mask(10, 2))
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(w, ref_w)
    assert (w[..., ~band_mask(10, 2)] == 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 10))


@pytest.mark.parametrize(
    ("T", "window", "causal", "chunk_size"),
    [(10, 2, False, None), (10, 2, True, 3), (7, 0, False, None), (13, 4, False, 5),
     (5, 10, False, None), (16, 3, True, None), (1, 1, False, None), (9, 2, False, 9)],
)  # fmt: skip
def test_chunked_local_attention_equals_banded_full_attention(T, window, causal, chunk_size):
    q, k, v = random_qkv(2, 3, T=T)
    out, w = local_attention(q, k, v, window, causal)
    out_c, band = chunked_local_attention(q, k, v, window, causal, chunk_size)
    assert band.shape == (2, 3, T, window + 1 + (0 if causal else window))
    torch.testing.assert_close(out_c, out, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(band_to_dense(band, window, causal), w, atol=1e-6, rtol=1e-5)


def test_chunked_with_a_long_window_is_full_attention():
    q, k, v = random_qkv(T=9)
    out, _ = chunked_local_attention(q, k, v, 9)
    torch.testing.assert_close(out, scaled_dot_product_attention(q, k, v)[0])


def test_band_to_dense_places_offsets():
    band = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])  # window 1
    assert band_to_dense(band, 1).tolist() == [[2.0, 3.0, 0.0], [4.0, 5.0, 6.0], [0.0, 7.0, 8.0]]


def test_local_attention_bad_inputs():
    q, k, v = random_qkv(T=6)
    with pytest.raises(ValueError, match=r"window must be a non-negative integer, got -1"):
        local_attention(q, k, v, -1)
    with pytest.raises(
        ValueError, match=r"k must be \(\.\.\., T, Dk\) with T=6 as in q \(6, 8\), got \(5, 8\)"
    ):
        chunked_local_attention(q, k[:5], v, 1)
    with pytest.raises(ValueError, match=r"v must be \(\.\.\., T, Dv\)"):
        local_attention(q, k, v[:4], 1)
    with pytest.raises(ValueError, match=r"chunk_size must be a positive integer, got 0"):
        chunked_local_attention(q, k, v, 1, chunk_size=0)
    with pytest.raises(
        ValueError, match=r"band must be \(\.\.\., T, 3\) for window=1, got \(6, 5\)"
    ):
        band_to_dense(torch.zeros(6, 5), 1)
