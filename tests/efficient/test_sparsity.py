"""lecturekit.efficient.sparsity: sparse toy data and the attention mass an approximation keeps."""

import math

import pytest
import torch

from lecturekit.efficient.lsh import shared_qk_attention
from lecturekit.efficient.sparsity import clustered_sequence, topk_mass_captured


def test_topk_mass_captured_by_hand():
    full = torch.tensor([[0.5, 0.3, 0.2, 0.0], [0.1, 0.1, 0.4, 0.4]])
    support = torch.tensor([[True, False, True, False], [False, False, True, False]])
    torch.testing.assert_close(topk_mass_captured(full, support, 2), torch.tensor([0.5 / 0.8, 0.5]))
    torch.testing.assert_close(topk_mass_captured(full, support), torch.tensor([0.7, 0.4]))
    weights = support.float() * 0.5  # float weights: support is where they are > 0
    torch.testing.assert_close(topk_mass_captured(full, weights, 1), torch.tensor([1.0, 1.0]))
    assert topk_mass_captured(full, torch.ones(2, 4, dtype=torch.bool), 3).eq(1).all()


def test_topk_mass_captured_bad_inputs():
    full = torch.softmax(torch.randn(3, 4), -1)
    with pytest.raises(
        ValueError,
        match=r"approx must be \(\.\.\., Tq, Tk\) with Tk=4 as in full_weights \(3, 4\), got \(3, 5\)",
    ):
        topk_mass_captured(full, torch.ones(3, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"k=5 is larger than the number of keys Tk=4"):
        topk_mass_captured(full, full > 0, 5)


def test_clustered_sequence():
    x, labels = clustered_sequence(40, 16, 4, seed=2)
    assert x.shape == (40, 16) and labels.shape == (40,) and labels.max() < 4
    torch.testing.assert_close(x.norm(dim=-1), torch.full((40,), 8 * math.sqrt(16)))
    assert torch.equal(x, clustered_sequence(40, 16, 4, seed=2)[0])
    _, w = shared_qk_attention(x, x)
    same = labels[:, None] == labels[None, :]
    assert (w * same).sum(-1).mean() > 0.9  # attention stays in the cluster: sparse
