"""lecturekit.models.recurrent: the cells equal torch's, run_cell, and the ELMo-style BiLM."""

import pytest
import torch

from lecturekit.models.recurrent import (
    GATES,
    BiLM,
    bilm_loss,
    gru_cell,
    lstm_cell,
    reverse_padded,
    rnn_cell,
    run_cell,
)


def weights(cell):
    return cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh


@pytest.mark.parametrize(("B", "D", "H"), [(1, 3, 2), (4, 5, 7), (2, 8, 8)])
def test_cells_equal_torch_with_the_same_weights(B, D, H):
    torch.manual_seed(B * D * H)
    x, h, c = torch.randn(B, D), torch.randn(B, H), torch.randn(B, H)
    rnn, gru, lstm = torch.nn.RNNCell(D, H), torch.nn.GRUCell(D, H), torch.nn.LSTMCell(D, H)
    torch.testing.assert_close(rnn_cell(x, h, *weights(rnn)), rnn(x, h))
    torch.testing.assert_close(gru_cell(x, h, *weights(gru)), gru(x, h))
    for ours, ref in zip(lstm_cell(x, (h, c), *weights(lstm)), lstm(x, (h, c)), strict=True):
        torch.testing.assert_close(ours, ref)
    assert GATES == {"RNN": 1, "GRU": 3, "LSTM": 4}
    assert [len(c.weight_ih) // H for c in (rnn, gru, lstm)] == list(GATES.values())


def test_cells_without_biases():
    torch.manual_seed(0)
    ref = torch.nn.GRUCell(3, 4, bias=False)
    x, h = torch.randn(2, 3), torch.randn(2, 4)
    torch.testing.assert_close(gru_cell(x, h, ref.weight_ih, ref.weight_hh), ref(x, h))


@pytest.mark.parametrize(("cell_cls", "layer_cls"),
                         [(torch.nn.RNNCell, torch.nn.RNN), (torch.nn.GRUCell, torch.nn.GRU),
                          (torch.nn.LSTMCell, torch.nn.LSTM)])  # fmt: skip
def test_run_cell_equals_torchs_layer(cell_cls, layer_cls):
    torch.manual_seed(1)
    layer = layer_cls(3, 5, batch_first=True)
    cell = cell_cls(3, 5)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(layer, f"{name}_l0"))
    x = torch.randn(2, 6, 3)
    torch.testing.assert_close(run_cell(cell, x), layer(x)[0])


def test_run_cell_calls_the_cell_once_per_position():
    calls = []
    w = weights(torch.nn.RNNCell(2, 2))

    def cell(x_t, h):
        calls.append(1)
        return rnn_cell(x_t, h, *w)

    out = run_cell(cell, torch.randn(1, 7, 2), torch.zeros(1, 2))
    assert len(calls) == 7 and out.shape == (1, 7, 2)


def test_reverse_padded_reverses_only_the_real_steps():
    x = torch.arange(10).view(2, 5)
    got = reverse_padded(x, torch.tensor([5, 3]))
    assert got.tolist() == [[4, 3, 2, 1, 0], [7, 6, 5, 8, 9]]
    assert torch.equal(reverse_padded(got, torch.tensor([5, 3])), x)


@pytest.fixture(scope="module")
def lm():
    torch.manual_seed(0)
    return BiLM(12, dim=6, hidden=8).eval()


def test_bilm_states_ignore_padding_and_directions_see_one_side(lm):
    ids = torch.tensor([[1, 4, 5, 6, 2], [1, 7, 2, 0, 0]])
    lengths = torch.tensor([5, 3])
    fwd, bwd = lm.states(ids, lengths)
    alone_f, alone_b = lm.states(ids[1:, :3])
    torch.testing.assert_close(fwd[1, :3], alone_f[0])
    torch.testing.assert_close(bwd[1, :3], alone_b[0])
    changed = ids.clone()
    changed[0, 3] = 9  # a later word: forward states before it are identical, backward not
    fwd2, bwd2 = lm.states(changed, lengths)
    assert torch.equal(fwd2[0, :3], fwd[0, :3]) and not torch.allclose(bwd2[0, :3], bwd[0, :3])
    assert lm.contextual(ids, lengths).shape == (2, 5, 16)


def test_bilm_loss_is_next_and_previous_word_cross_entropy(lm):
    ids = torch.tensor([[1, 4, 5, 2]])
    fwd_logits, bwd_logits = lm(ids)
    want_f = torch.nn.functional.cross_entropy(fwd_logits[0, :-1], ids[0, 1:])
    want_b = torch.nn.functional.cross_entropy(bwd_logits[0, 1:], ids[0, :-1])
    fwd, bwd = bilm_loss(lm, ids)
    torch.testing.assert_close(fwd, want_f)
    torch.testing.assert_close(bwd, want_b)


def test_bilm_shares_embedding_and_softmax(lm):
    names = {n for n, _ in lm.named_parameters()}
    assert any(n.startswith("forward_lstm") for n in names)
    assert any(n.startswith("backward_lstm") for n in names)
    assert sum(n.startswith("embedding") for n in names) == 1
    assert sum(n.startswith("softmax") for n in names) == 2  # weight and bias, once


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: rnn_cell(
                torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(4, 3), torch.zeros(4, 5)
            ),
            r"w_hh must be \(H, H\) with H=4 as in h \(2, 4\), got \(4, 5\)",
        ),
        (
            lambda: gru_cell(
                torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(4, 3), torch.zeros(4, 4)
            ),
            "w_ih",
        ),
        (
            lambda: lstm_cell(
                torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(16, 3), torch.zeros(16, 4)
            ),
            "state",
        ),
        (
            lambda: rnn_cell(
                torch.zeros(2, 3), torch.zeros(1, 4), torch.zeros(4, 3), torch.zeros(4, 4)
            ),
            r"h must be \(B, H\) with B=2 as in x \(2, 3\), got \(1, 4\)",
        ),
        (
            lambda: rnn_cell(
                torch.zeros(2, 3, dtype=torch.long),
                torch.zeros(2, 4),
                torch.zeros(4, 3),
                torch.zeros(4, 4),
            ),
            "x",
        ),
        (
            lambda: rnn_cell(
                torch.zeros(2, 3),
                torch.zeros(2, 4, dtype=torch.float64),
                torch.zeros(4, 3),
                torch.zeros(4, 4),
            ),
            r"h must have the dtype of x \(torch.float32\), got torch.float64",
        ),
        (
            lambda: lstm_cell(
                torch.zeros(2, 3),
                (torch.zeros(2, 4), torch.zeros(2, 5)),
                torch.zeros(16, 3),
                torch.zeros(16, 4),
            ),
            r"c must be \(B, H\) with H=4 as in h \(2, 4\), got \(2, 5\)",
        ),
        (
            lambda: gru_cell(
                torch.zeros(2, 3),
                torch.zeros(2, 4),
                torch.zeros(12, 3),
                torch.zeros(12, 4),
                torch.zeros(11),
            ),
            r"b_ih must be \(3\*H,\) with H=4 as in h \(2, 4\), got \(11,\)",
        ),
        (lambda: run_cell(lambda x, h: h, torch.zeros(1, 2, 3)), "h0"),
        (lambda: run_cell(3, torch.zeros(1, 2, 3)), "cell"),
        (lambda: BiLM(0), "vocab_size"),
        (lambda: BiLM(5).states(torch.tensor([[1, 9]])), "ids"),
        (lambda: BiLM(5).states(torch.tensor([[1, 2]]), torch.tensor([3])), "lengths"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
