"""lecturekit.masking: the masks and how they enter the softmax."""

import numpy as np
import pytest
import torch

from lecturekit.masking import (
    additive_mask,
    causal_mask,
    combine_masks,
    decoder_mask,
    key_padding_mask,
    masked_softmax,
    padding_mask,
    past_unchanged,
)


def test_causal_mask_is_lower_triangular():
    m = causal_mask(4)
    assert m.dtype == torch.bool and m.shape == (4, 4)
    expected = torch.tensor(
        [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool
    )
    assert torch.equal(m, expected)
    assert causal_mask(7).sum().item() == 7 * 8 // 2


def test_padding_mask_marks_real_tokens():
    m = padding_mask([3, 1, 0], 4)
    expected = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=torch.bool)
    assert torch.equal(m, expected)
    assert torch.equal(padding_mask(torch.tensor([2]), 2), torch.ones(1, 2, dtype=torch.bool))


def test_additive_mask_is_zero_or_minus_infinity():
    M = additive_mask(causal_mask(3))
    assert torch.equal(M.isinf(), ~causal_mask(3))
    assert torch.all(M[causal_mask(3)] == 0) and torch.all(M[~causal_mask(3)] < 0)


def test_decoder_mask_combines_causal_and_padding():
    m = decoder_mask([3, 2], 3)
    assert m.shape == (2, 1, 3, 3)
    assert torch.equal(m[0, 0], causal_mask(3))
    assert torch.equal(m[1, 0], causal_mask(3) & torch.tensor([True, True, False]))
    assert torch.equal(combine_masks(causal_mask(3), key_padding_mask(padding_mask([3, 2], 3))), m)


def test_masked_softmax_zero_weight_and_rows_sum_to_one():
    scores = torch.randn(2, 5, 5)
    mask = combine_masks(causal_mask(5), key_padding_mask(padding_mask([5, 3], 5))[:, 0])
    w = masked_softmax(scores, mask)
    assert torch.all(w[~mask] == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 5))
    # identical to "add M, then softmax" where no row is fully masked
    torch.testing.assert_close(w, torch.softmax(scores + additive_mask(mask), -1))


def test_fully_masked_row_gives_zero_weights_not_nan():
    scores = torch.randn(3, 4, requires_grad=True)
    mask = torch.tensor([[1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=torch.bool)
    w = masked_softmax(scores, mask)
    assert torch.equal(w[1], torch.zeros(4))
    torch.testing.assert_close(w[[0, 2]].sum(-1), torch.ones(2))
    (w * torch.randn(3, 4)).sum().backward()
    assert torch.isfinite(scores.grad).all() and torch.all(scores.grad[1] == 0)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="T must be a positive integer, got 0"):
        causal_mask(0)
    with pytest.raises(ValueError, match="max_len must be a positive integer, got -1"):
        padding_mask([1], -1)
    with pytest.raises(ValueError, match=r"lengths must lie in 0..max_len=3, got \[4, 1\]"):
        padding_mask([4, 1], 3)
    with pytest.raises(ValueError, match=r"lengths must be 1-D \(B,\), got shape \(1, 2\)"):
        padding_mask([[1, 2]], 3)
    with pytest.raises(ValueError, match="lengths must hold integers"):
        padding_mask([1.5], 3)
    with pytest.raises(ValueError, match="masks\\[1\\] must be bool"):
        combine_masks(causal_mask(2), torch.ones(2, 2))
    with pytest.raises(ValueError, match=r"cannot be broadcast together"):
        combine_masks(causal_mask(2), causal_mask(3))
    with pytest.raises(ValueError, match=r"mask must be bool .*got dtype torch.int64"):
        masked_softmax(torch.randn(2, 2), torch.ones(2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match=r"mask of shape \(3,\) is not broadcastable .*\(2, 2\)"):
        masked_softmax(torch.randn(2, 2), torch.ones(3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"pad must be \(B, Tk\)"):
        key_padding_mask(torch.ones(3, dtype=torch.bool))


def test_how_the_float_mask_hint_converts_each_convention():
    """The error for a non-bool mask names the conversion of each convention; each one gives
    lecturekit's mask (True = may attend)."""
    want = causal_mask(3)
    additive = torch.zeros(3, 3).masked_fill(~want, float("-inf"))  # torch's float attn_mask
    keep01 = want.long()  # 1 = keep
    torch_bool = ~want  # torch.nn.MultiheadAttention: True = may NOT attend
    with pytest.raises(ValueError, match=r"0 and -inf: an additive mask.*mask == 0") as e:
        masked_softmax(torch.zeros(3, 3), additive)
    assert "mask.bool()" in str(e.value) and "~mask" in str(e.value)
    assert torch.equal(additive == 0, want) and not torch.equal(additive.bool(), want)
    assert torch.equal(keep01.bool(), want) and torch.equal(~torch_bool, want)
    with pytest.raises(ValueError, match=r"holds 0 and 1.*pad\.bool\(\)"):
        key_padding_mask(padding_mask([2, 1], 2).float())


def test_legitimate_odd_inputs():
    """A length-0 sequence in a batch (its row is fully masked), lengths as a numpy array,
    empty scores, and NaN scores (NaN weights in that row, as torch.softmax)."""
    assert torch.equal(padding_mask(np.array([2, 0]), 2), torch.tensor([[1, 1], [0, 0]]).bool())
    assert masked_softmax(torch.zeros(2, 0, 3)).shape == (2, 0, 3)
    assert masked_softmax(torch.zeros(2, 3, 0), torch.ones(3, 0, dtype=torch.bool)).shape == (
        2, 3, 0,
    )  # fmt: skip
    w = masked_softmax(torch.tensor([[0.0, float("nan")], [0.0, 0.0]]))
    assert torch.isnan(w[0]).all() and torch.equal(w[1], torch.tensor([0.5, 0.5]))


def test_past_unchanged_tells_a_causal_layer_from_one_that_looks_ahead():
    from lecturekit.attention import MultiHeadAttention

    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).eval()
    x, other = torch.randn(2, 5, 8), torch.randn(2, 5, 8)
    causal = past_unchanged(lambda h: mha(h, h, h, causal_mask(5))[0], x, other)
    assert causal.dtype == torch.bool and causal.tolist() == [True] * 5
    peeking = past_unchanged(lambda h: mha(h, h, h)[0], x, other)
    assert peeking.tolist() == [False, False, False, False, True]  # t = T-1 replaces nothing
    # token ids through an embedding: positions along dimension 1, any trailing shape
    emb = torch.nn.Embedding(10, 8)
    ids, new_ids = torch.randint(10, (1, 4)), torch.randint(10, (1, 4))
    assert past_unchanged(lambda i: emb(i).cumsum(1), ids, new_ids).all()  # a running sum


def test_past_unchanged_bad_inputs():
    x = torch.randn(1, 3, 4)
    with pytest.raises(ValueError, match="fn must be callable"):
        past_unchanged("model", x, x)
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, ...\)"):
        past_unchanged(lambda h: h, torch.randn(3), torch.randn(3))
    with pytest.raises(ValueError, match=r"other must be a tensor of x's shape \(1, 3, 4\)"):
        past_unchanged(lambda h: h, x, torch.randn(1, 4, 4))
    with pytest.raises(ValueError, match=r"dtype torch\.float32, got"):
        past_unchanged(lambda h: h, x, x.double())
    with pytest.raises(ValueError, match=r"fn must return a tensor \(B, T=3, ...\)"):
        past_unchanged(lambda h: h.sum(1), x, x)
