"""lecturekit.models.seq2seq: the previous-state (Bahdanau) decoder, attention_query="previous".

Bahdanau et al. 2015 and the CMU deck score s_{t-1} against the encoder states and feed the
context into the recurrence; the Luong decoder (the default, "current") scores s_t."""

import pytest
import torch

from lecturekit.attention import SCORE_FUNCTIONS
from lecturekit.datasets.translation import BOS, EOS, collate, make_translation_data
from lecturekit.decoding import beam_search, greedy_search
from lecturekit.models.seq2seq import (
    ATTENTION_QUERIES,
    AttentionDecoder,
    BahdanauDecoder,
    Seq2Seq,
    Seq2SeqConfig,
)


@pytest.fixture(scope="module")
def data():
    return make_translation_data(n_train=64, n_valid=8, n_test=8, seed=1)


def model_for(data, attention, query="previous"):
    torch.manual_seed(0)
    config = Seq2SeqConfig(len(data.src_vocab), len(data.tgt_vocab), attention=attention,
                           attention_query=query, emb_dim=16, hidden_dim=32)  # fmt: skip
    return Seq2Seq(config).eval()


def test_the_option_picks_the_decoder_and_defaults_to_luong():
    assert ATTENTION_QUERIES == ("current", "previous")
    assert Seq2SeqConfig().attention_query == "current"
    assert Seq2SeqConfig.tiny().attention_query == "current"
    config = Seq2SeqConfig.tiny(attention="dot", emb_dim=8, hidden_dim=8)
    assert type(Seq2Seq(config).decoder) is AttentionDecoder
    previous = config.replace(attention_query="previous")
    assert type(Seq2Seq(previous).decoder) is BahdanauDecoder
    assert Seq2SeqConfig.from_dict(previous.to_dict()) == previous
    old = {k: v for k, v in config.to_dict().items() if k != "attention_query"}
    assert Seq2SeqConfig.from_dict(old) == config  # checkpoints saved before the option


def test_bad_choices_name_the_field():
    with pytest.raises(ValueError, match=r"attention_query='next' is not one of \['current'"):
        Seq2SeqConfig.tiny(attention="dot", attention_query="next")
    with pytest.raises(ValueError, match=r"attention_query='previous' needs attention"):
        Seq2SeqConfig.tiny(attention=None, attention_query="previous")
    with pytest.raises(ValueError, match="score='bilinear' is not one of"):
        BahdanauDecoder(12, 8, 8, "bilinear")


@pytest.mark.parametrize("attention", sorted(SCORE_FUNCTIONS))
def test_step_by_step_decoding_equals_teacher_forcing(data, attention):
    """With every score: weights (B, T, S) that sum to 1 and are 0 at padding; the step
    function's log-probs after each prefix are the teacher-forced forward's on that prefix;
    greedy_decode, greedy_search over the step function and beam search with k = 1 agree."""
    model = model_for(data, attention)
    batch = collate(data.train[:6], data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        logits, weights = model(batch.src, batch.src_len, batch.tgt_in)
    B, T = batch.tgt_in.shape
    assert logits.shape == (B, T, len(data.tgt_vocab))
    assert weights.shape == (B, T, batch.src.shape[1])
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, T))
    pad = (batch.src == 0)[:, None, :].expand_as(weights)
    assert torch.all(weights.masked_select(pad) == 0)

    step = model.step_function(batch.src[0, : batch.src_len[0]])
    for t in range(1, 8):
        expected = torch.log_softmax(logits[0, t - 1], dim=-1)  # after <bos> y_1 .. y_{t-1}
        torch.testing.assert_close(step(batch.tgt_in[:1, :t])[0], expected)

    ids, greedy_weights = model.greedy_decode(batch.src, batch.src_len, 12)
    hyp = greedy_search(step, BOS, EOS, 12)
    assert list(hyp.tokens) == ids[0, : len(hyp.tokens)].tolist()
    assert beam_search(step, BOS, EOS, 1, 12)[0].tokens == hyp.tokens
    n, S0 = len(hyp.tokens), batch.src_len[0]  # greedy's weights: teacher forcing's on its output
    prefix = torch.tensor([[BOS, *hyp.tokens[:-1]]])
    with torch.no_grad():
        _, forced = model(batch.src[:1, :S0], batch.src_len[:1], prefix)  # (1, n, S0)
    torch.testing.assert_close(greedy_weights[0, :n, :S0], forced[0])
    assert torch.all(greedy_weights[0, n:] == 0) and torch.all(greedy_weights[0, :, S0:] == 0)


def test_the_weights_of_step_t_come_before_its_input_token(data):
    """Row t of the weights is computed from s_{t-1}, before tgt_in[:, t] is read: changing
    tgt_in[:, k] leaves rows 0..k unchanged (row 0 depends on no target token at all) and
    changes row k + 1. In the Luong decoder, row k already reads tgt_in[:, k]."""
    batch = collate(data.train[:4], data.src_vocab, data.tgt_vocab)
    k = 3
    changed = batch.tgt_in.clone()
    changed[:, k] = (changed[:, k] + 1 - 3) % (len(data.tgt_vocab) - 3) + 3  # another word
    previous, current = model_for(data, "general"), model_for(data, "general", "current")
    with torch.no_grad():
        _, w = previous(batch.src, batch.src_len, batch.tgt_in)
        _, w2 = previous(batch.src, batch.src_len, changed)
        _, lw = current(batch.src, batch.src_len, batch.tgt_in)
        _, lw2 = current(batch.src, batch.src_len, changed)
    assert torch.equal(w[:, : k + 1], w2[:, : k + 1])
    assert not torch.allclose(w[:, k + 1], w2[:, k + 1])
    assert torch.equal(lw[:, :k], lw2[:, :k])
    assert not torch.allclose(lw[:, k], lw2[:, k])


def test_a_hand_set_decoder_scores_s0_first():
    """H = 2, dot score, all GRU weights 0: then r = z = sigmoid(0) = 1/2, n = tanh(0) = 0 and
    s_t = s_{t-1} / 2 = s_0 / 2^t. So the weights of step t are softmax_i(h_i . s_0 / 2^(t-1))
    (the previous state) for Bahdanau, and softmax_i(h_i . s_0 / 2^t) for Luong."""
    h = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])  # (B=1, S=3, H=2)
    s0 = torch.tensor([[2.0, 0.0]])  # (B=1, H=2)
    mask = torch.ones(1, 3, dtype=torch.bool)
    tgt_in = torch.tensor([[BOS, 4, 5]])  # (B=1, T=3)
    decoders = {"previous": BahdanauDecoder(6, 2, 2, "dot"),
                "current": AttentionDecoder(6, 2, 2, "dot")}  # fmt: skip
    with torch.no_grad():
        for decoder in decoders.values():
            for p in decoder.rnn.parameters():
                p.zero_()
        logits, weights = decoders["previous"](tgt_in, h, s0, mask)
        _, luong = decoders["current"](tgt_in, h, s0, mask)
    # step 1 scores s_0 itself: e = (h_i . s_0)_i = (2, 0, 2)
    e = torch.tensor([2.0, 0.0, 2.0])
    torch.testing.assert_close(weights[0, 0], torch.exp(e) / torch.exp(e).sum())
    for t in range(3):
        torch.testing.assert_close(weights[0, t], torch.softmax(e / 2**t, dim=-1))
        torch.testing.assert_close(luong[0, t], torch.softmax(e / 2 ** (t + 1), dim=-1))
    # the output of step 1, by hand: c_1 = sum_i a_1i h_i, s_1 = s_0 / 2, W_o tanh(W_c [c_1; s_1])
    decoder = decoders["previous"]
    c1 = weights[0, 0] @ h[0]  # (S,) @ (S, H) -> (H,)
    hidden = torch.tanh(decoder.combine.weight @ torch.cat([c1, s0[0] / 2]) + decoder.combine.bias)
    torch.testing.assert_close(logits[0, 0], decoder.out.weight @ hidden + decoder.out.bias)


def test_the_first_step_of_a_model_scores_the_encoders_final_vector(data):
    """In a whole Seq2Seq (dot score), step 1's weights are softmax_i(h_i . s_0) with s_0 the
    encoder's final vector (through the bridge): the initial state, not a GRU output."""
    model = model_for(data, "dot")
    batch = collate(data.train[:3], data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        _, weights = model(batch.src, batch.src_len, batch.tgt_in)
        states, final = model.encoder(batch.src, batch.src_len)
    scores = (states @ final[:, :, None])[:, :, 0]  # (B, S, H) @ (B, H, 1) -> (B, S)
    scores = scores.masked_fill(batch.src == 0, float("-inf"))
    torch.testing.assert_close(weights[:, 0], torch.softmax(scores, dim=-1))


def test_the_previous_state_decoder_learns(data):
    """A few Adam steps on one batch lower the loss: gradients reach every parameter."""
    model = model_for(data, "additive").train()
    batch = collate(data.train[:16], data.src_vocab, data.tgt_vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(5):
        logits, _ = model(batch.src, batch.src_len, batch.tgt_in)
        loss = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=0
        )  # (B, T, V) -> (B T, V)
        optimizer.zero_grad()
        loss.backward()
        if not losses:
            assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_an_empty_target_gives_empty_outputs(data):
    model = model_for(data, "dot")
    batch = collate(data.train[:2], data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        logits, weights = model(batch.src, batch.src_len, batch.tgt_in[:, :0])
    assert logits.shape == (2, 0, len(data.tgt_vocab))
    assert weights.shape == (2, 0, batch.src.shape[1])
