"""lecturekit.models.word2vec: skip-gram pairs, the noise distribution, the SGNS loss."""

import pytest
import torch
import torch.nn.functional as F

from lecturekit.models.word2vec import (
    SkipGram,
    noise_distribution,
    sample_negatives,
    sgns_loss,
    skipgram_pairs,
)


def brute_force_pairs(ids, window):
    return [(ids[i], ids[j]) for i in range(len(ids)) for j in range(len(ids))
            if i != j and abs(i - j) <= window]  # fmt: skip


@pytest.mark.parametrize("T", [1, 2, 5, 9])
@pytest.mark.parametrize("window", [1, 2, 4])
def test_pairs_are_every_neighbour_inside_the_window(T, window):
    ids = list(range(10, 10 + T))
    pairs = skipgram_pairs(ids, window)
    assert pairs.tolist() == [list(p) for p in brute_force_pairs(ids, window)]
    if 2 * window + 1 <= T:
        assert len(pairs) == 2 * window * T - window * (window + 1)


def test_pairs_accept_a_tensor_and_give_an_empty_result_for_one_word():
    assert skipgram_pairs(torch.tensor([3, 4]), 2).tolist() == [[3, 4], [4, 3]]
    assert skipgram_pairs([7], 2).shape == (0, 2)


def test_noise_distribution_is_the_three_quarter_power():
    counts = torch.tensor([0.0, 1.0, 16.0, 81.0])
    p = noise_distribution(counts)
    want = torch.tensor([0.0, 1.0, 8.0, 27.0]) / 36
    torch.testing.assert_close(p, want)
    torch.testing.assert_close(noise_distribution(counts, 1.0), counts / counts.sum())
    # rare words gain: their share under 3/4 is above their frequency
    assert p[1] > counts[1] / counts.sum()


def test_negatives_follow_the_noise_distribution():
    noise = torch.tensor([0.0, 0.25, 0.75])
    draws = sample_negatives(noise, (2000, 5), torch.Generator().manual_seed(0))
    assert draws.shape == (2000, 5) and (draws != 0).all()
    assert abs((draws == 2).float().mean().item() - 0.75) < 0.02


def test_sgns_loss_is_the_papers_formula():
    g = torch.Generator().manual_seed(0)
    v, u, neg = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g), torch.randn(
        4, 5, 3, generator=g)  # fmt: skip
    want = torch.stack([
        -F.logsigmoid(u[b] @ v[b]) - sum(F.logsigmoid(-neg[b, k] @ v[b]) for k in range(5))
        for b in range(4)
    ]).mean()  # fmt: skip
    torch.testing.assert_close(sgns_loss(v, u, neg), want)


def test_skipgram_uses_nn_embedding_tables_and_word2vec_init():
    model = SkipGram(10, 4)
    assert isinstance(model.centre, torch.nn.Embedding) and isinstance(
        model.context, torch.nn.Embedding
    )
    assert (model.context.weight == 0).all() and model.centre.weight.abs().max() <= 0.5 / 4
    centre, context = torch.tensor([1, 2]), torch.tensor([3, 4])
    negatives = torch.tensor([[5, 6], [7, 8]])
    loss = model(centre, context, negatives)
    want = sgns_loss(model.centre.weight[centre], model.context.weight[context],
                     model.context.weight[negatives])  # fmt: skip
    torch.testing.assert_close(loss, want)
    torch.testing.assert_close(loss, torch.tensor(3 * 0.6931471805599453))  # u = 0: 3 log 2


def test_training_pulls_a_pair_together():
    torch.manual_seed(0)
    model = SkipGram(6, 8)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(100):
        opt.zero_grad()
        model(torch.tensor([0]), torch.tensor([1]), torch.tensor([[2, 3, 4, 5]])).backward()
        opt.step()
    v, u = model.centre.weight.detach(), model.context.weight.detach()
    assert u[1] @ v[0] > 2 and (u[2:] @ v[0] < -1).all()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: skipgram_pairs("abc", 2), "ids"),
        (lambda: skipgram_pairs([1, 2], 0), "window"),
        (lambda: skipgram_pairs(torch.tensor([[1, 2]]), 1), "ids"),
        (lambda: skipgram_pairs(torch.tensor([1.0, 2.0]), 1), "ids"),
        (lambda: noise_distribution(torch.tensor([0.0, 0.0])), "counts"),
        (lambda: noise_distribution(torch.tensor([-1.0, 2.0])), "counts"),
        (lambda: noise_distribution(torch.tensor([1.0]), 2.0), "power"),
        (lambda: sample_negatives(torch.tensor([0.5, 0.5]), (2,)), "shape"),
        (lambda: sgns_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 4, 2)), "agree"),
        (lambda: SkipGram(0, 4), "vocab_size"),
        (
            lambda: SkipGram(5, 2)(torch.tensor([5]), torch.tensor([0]), torch.tensor([[1]])),
            "centre",
        ),
        (
            lambda: SkipGram(5, 2)(torch.tensor([1, 2]), torch.tensor([0]), torch.tensor([[1]])),
            "batch size",
        ),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
