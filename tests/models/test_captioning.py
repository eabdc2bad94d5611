"""lecturekit.models.captioning: the shapes of Show, attend and tell, the weights over the cells
sum to 1, the decoder is lecture 01's BahdanauDecoder (its soft step reproduced by hand and by
the captioner's own greedy step), and hard attention reads one cell."""

import pytest
import torch

from lecturekit.datasets.scenes import BOS, EOS, PAD, VOCAB, encode_captions
from lecturekit.models.captioning import Captioner, CaptionerConfig, teacher_inputs
from lecturekit.models.seq2seq import BahdanauDecoder, BottleneckDecoder


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return Captioner(CaptionerConfig.tiny()).eval()


def test_config_sizes():
    tiny, paper = CaptionerConfig.tiny(), CaptionerConfig()
    assert (tiny.grid, tiny.num_cells, tiny.feature_dim) == (8, 64, 32)
    assert (paper.grid, paper.num_cells, paper.feature_dim) == (14, 196, 512)  # Xu et al.
    assert CaptionerConfig.from_dict(tiny.to_dict()) == tiny
    with pytest.raises(ValueError, match="divisible"):
        CaptionerConfig.tiny(image_size=30)
    with pytest.raises(ValueError, match="attention"):
        CaptionerConfig.tiny(attention="yes")


def test_shapes_and_weights_sum_to_one(model):
    images = torch.rand(3, 1, 32, 32)
    features = model.encode(images)
    assert features.shape == (3, 64, 32) and model.initial_state(features).shape == (3, 32)
    ids = encode_captions(["a 3 left of a 7", "a 1 above a 2", "a 0 below a 9"])
    logits, weights = model(images, teacher_inputs(ids))
    assert logits.shape == (3, 7, len(VOCAB)) and weights.shape == (3, 7, 64)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 7))
    assert teacher_inputs(ids)[:, 0].eq(BOS).all()
    assert torch.equal(teacher_inputs(ids)[:, 1:], ids[:, :-1])


def test_the_decoder_is_lecture_01s_and_the_step_is_its_equations(model):
    assert isinstance(model.decoder, BahdanauDecoder)
    images = torch.rand(2, 1, 32, 32)
    tgt_in = teacher_inputs(encode_captions(["a 3 left of a 7", "a 1 above a 2"]))
    logits, weights = model(images, tgt_in)
    h = model.encode(images)
    s = model.initial_state(h)
    dec = model.decoder
    W_s, W_h = dec.score.W.weight.split([32, 32], dim=1)
    for t in range(tgt_in.shape[1]):
        e = dec.score.v(torch.tanh(s[:, None] @ W_s.T + h @ W_h.T)).squeeze(-1)  # (B, N)
        a = torch.softmax(e, -1)
        c = (a[:, :, None] * h).sum(1)  # no 1/N: the weights sum to 1
        s = torch.nn.GRUCell.forward(dec.rnn, torch.cat([dec.embedding(tgt_in[:, t]), c], -1), s)
        out = dec.out(torch.tanh(dec.combine(torch.cat([c, s], -1))))
        torch.testing.assert_close(a, weights[:, t])
        torch.testing.assert_close(out, logits[:, t])


def test_greedy_caption_follows_the_teacher_forced_model(model):
    images = torch.rand(4, 1, 32, 32)
    result = model.caption(images, max_len=6)
    assert result.ids.shape == (4, 6) and result.weights.shape == (4, 6, 64)
    tgt_in = teacher_inputs(result.ids)
    logits, weights = model(images, tgt_in)
    for b in range(4):
        L = int((result.ids[b] != PAD).sum())
        assert torch.equal(logits[b, :L].argmax(-1), result.ids[b, :L])
        torch.testing.assert_close(weights[b, :L], result.weights[b, :L])
        ended = (result.ids[b] == EOS).nonzero()
        if len(ended):
            assert result.ids[b, int(ended[0]) + 1 :].eq(PAD).all()


def test_hard_and_argmax_read_one_cell(model):
    images = torch.rand(3, 1, 32, 32)
    soft = model.caption(images, max_len=4)
    argmax = model.caption(images, max_len=4, attention="argmax")
    assert torch.equal(argmax.weights[:, 0], soft.weights[:, 0])  # step 1: same s_0
    assert torch.equal(argmax.cells[:, 0], soft.weights[:, 0].argmax(-1))
    a = model.caption(images, 4, "hard", torch.Generator().manual_seed(1))
    b = model.caption(images, 4, "hard", torch.Generator().manual_seed(1))
    assert torch.equal(a.ids, b.ids) and torch.equal(a.cells, b.cells)
    many = images[:1].expand(2000, -1, -1, -1)
    draws = model.caption(many, 1, "hard", torch.Generator().manual_seed(0)).cells[:, 0]
    share = torch.bincount(draws, minlength=64) / 2000.0
    # the sampled cells follow a_1: their frequencies are near the weights
    assert (share - soft.weights[0, 0]).abs().max() < 0.05


def test_pooled_baseline_has_no_attention():
    torch.manual_seed(0)
    model = Captioner(CaptionerConfig.tiny(attention=False))
    assert isinstance(model.decoder, BottleneckDecoder)
    logits, weights = model(torch.rand(2, 1, 32, 32), torch.ones(2, 3, dtype=torch.long))
    assert logits.shape == (2, 3, len(VOCAB)) and weights is None
    result = model.caption(torch.rand(2, 1, 32, 32), 5)
    assert result.weights is None and result.ids.shape == (2, 5)
    with pytest.raises(ValueError, match="attention"):
        model.caption(torch.rand(2, 1, 32, 32), 5, attention="hard")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.encode(torch.rand(2, 1, 16, 16)), "images"),
        (lambda m: m.encode(torch.rand(2, 32, 32)), "images"),
        (lambda m: m(torch.rand(2, 1, 32, 32), torch.ones(3, 2, dtype=torch.long)), "tgt_in"),
        (lambda m: m(torch.rand(2, 1, 32, 32), torch.full((2, 2), 99)), "tgt_in"),
        (lambda m: m.caption(torch.rand(1, 1, 32, 32), 0), "max_len"),
        (lambda m: m.caption(torch.rand(1, 1, 32, 32), 3, "stochastic"), "attention"),
        (lambda m: m.caption(torch.rand(1, 1, 32, 32), 3, "hard", generator=1), "generator"),
        (lambda m: Captioner({"image_size": 32}), "config"),
    ],
)
def test_bad_inputs(model, call, match):
    with pytest.raises(ValueError, match=match):
        call(model)
