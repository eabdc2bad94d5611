"""lecturekit.utils.weights: copying from a reference checks every shape before copying anything."""

import pytest
import torch
from torch import nn

from lecturekit.utils.weights import check_parameters, copy_parameters


def test_copies_weights_and_biases():
    torch.manual_seed(0)
    pairs = [(nn.Linear(3, 2), nn.Linear(3, 2)), (nn.LayerNorm(4), nn.LayerNorm(4)),
             (nn.Embedding(5, 2), nn.Embedding(5, 2))]  # fmt: skip
    for _, theirs in pairs:
        nn.init.normal_(theirs.weight)
    copy_parameters(pairs)
    for mine, theirs in pairs:
        assert torch.equal(mine.weight, theirs.weight)
        if isinstance(mine, nn.Linear | nn.LayerNorm):
            assert torch.equal(mine.bias, theirs.bias)


def test_a_mismatch_copies_nothing():
    good, bad = (nn.Linear(3, 2), nn.Linear(3, 2)), (nn.Linear(3, 2), nn.Linear(4, 2))
    before = good[0].weight.detach().clone()
    with pytest.raises(ValueError, match=r"pair 1 \(Linear <- Linear\): weight shape mismatch: "
                       r"ours \(2, 3\) vs the reference's \(2, 4\)"):  # fmt: skip
        copy_parameters([good, bad])
    assert torch.equal(good[0].weight, before)  # the first pair was not copied either
    with pytest.raises(ValueError, match=r"ours has a bias, the reference has no bias"):
        check_parameters([(nn.Linear(3, 2), nn.Linear(3, 2, bias=False))])
