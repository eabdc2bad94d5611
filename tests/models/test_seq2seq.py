"""lecturekit.models.seq2seq: the bottleneck and attention decoders."""

import pytest
import torch

from lecturekit.datasets.translation import BOS, EOS, collate, make_translation_data
from lecturekit.models.seq2seq import AttentionDecoder, BottleneckDecoder, Seq2Seq, Seq2SeqConfig


@pytest.fixture(scope="module")
def data():
    return make_translation_data(n_train=64, n_valid=8, n_test=8, seed=1)


def model_for(data, attention):
    torch.manual_seed(0)
    config = Seq2SeqConfig(
        len(data.src_vocab), len(data.tgt_vocab), attention=attention, emb_dim=16, hidden_dim=32
    )
    return Seq2Seq(config).eval()


def test_bottleneck_decoder_sees_only_the_final_state(data):
    """Perturb every encoder state except the final vector: the bottleneck decoder's output
    cannot change; the attention decoder's does."""
    batch = collate(data.train[:4], data.src_vocab, data.tgt_vocab)
    for attention, should_change in ((None, False), ("additive", True)):
        model = model_for(data, attention)
        states, final = model.encoder(batch.src, batch.src_len)
        mask = batch.src != 0
        logits, _ = model.decoder(batch.tgt_in, states, final, mask)
        noisy = states + torch.randn_like(states)
        logits2, _ = model.decoder(batch.tgt_in, noisy, final, mask)
        assert (not torch.equal(logits, logits2)) == should_change
        logits3, _ = model.decoder(batch.tgt_in, states, final + 0.5, mask)
        assert not torch.equal(logits, logits3)  # the final state does matter for both


@pytest.mark.parametrize(
    "attention", [None, "dot", "scaled_dot", "general", "additive", "cosine", "location"]
)
def test_shapes_weights_and_greedy_consistency(data, attention):
    model = model_for(data, attention)
    batch = collate(data.train[:6], data.src_vocab, data.tgt_vocab)
    logits, weights = model(batch.src, batch.src_len, batch.tgt_in)
    B, T = batch.tgt_in.shape
    assert logits.shape == (B, T, len(data.tgt_vocab))
    if attention is None:
        assert weights is None
    else:
        assert weights.shape == (B, T, batch.src.shape[1])
        torch.testing.assert_close(weights.sum(-1), torch.ones(B, T))
        pad = batch.src == 0
        assert torch.all(weights.masked_select(pad[:, None, :].expand_as(weights)) == 0)
    ids, _ = model.greedy_decode(batch.src, batch.src_len, 12)
    step = model.step_function(batch.src[0, : batch.src_len[0]])
    prefix = torch.tensor([[BOS]])
    for t in range(12):  # the step function's greedy path equals the batched decoder's
        token = step(prefix).argmax(-1)
        assert token.item() == ids[0, t].item()
        if token.item() == EOS:
            break
        prefix = torch.cat([prefix, token[:, None]], dim=1)


def test_padding_does_not_change_a_translation(data):
    model = model_for(data, "general")
    one = collate(data.train[:1], data.src_vocab, data.tgt_vocab)
    many = collate(data.train[:8], data.src_vocab, data.tgt_vocab)  # row 0 padded further
    ids1, _ = model.greedy_decode(one.src, one.src_len, 15)
    ids8, _ = model.greedy_decode(many.src, many.src_len, 15)
    assert torch.equal(ids1[0], ids8[0])


def test_bad_inputs(data):
    with pytest.raises(ValueError, match="attention='bilinear' is not None or one of"):
        Seq2SeqConfig(10, 10, attention="bilinear")
    with pytest.raises(ValueError, match="hidden_dim=33 must be even"):
        Seq2SeqConfig(10, 10, hidden_dim=33)
    model = model_for(data, None)
    src = torch.ones(2, 5, dtype=torch.long)
    with pytest.raises(ValueError, match=r"src_len must have shape \(2,\), got \(1,\)"):
        model(src, torch.tensor([5]), src)
    with pytest.raises(ValueError, match=r"src_len must lie in 1\.\.5, got \[5, 0\]"):
        model(src, torch.tensor([5, 0]), src)
    with pytest.raises(
        ValueError, match=r"src must be an integer tensor of shape \(B, S\).*src\.long\(\)"
    ):
        model(src.float(), torch.tensor([5, 5]), src)
    with pytest.raises(ValueError, match=r"tgt_in must be \(B=2, T\)"):
        model(src, torch.tensor([5, 5]), src[:1])
    assert isinstance(model.decoder, BottleneckDecoder)
    assert isinstance(model_for(data, "dot").decoder, AttentionDecoder)
