"""The Thinking Machines numbers of lecture 03 come out exactly."""

import torch

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.examples import thinking_machines


def test_thinking_machines_slide_numbers():
    ex = thinking_machines()
    assert ex.x.shape == (2, 512) and ex.W_q.shape == ex.W_k.shape == ex.W_v.shape == (512, 64)
    q, k, v = ex.x @ ex.W_q, ex.x @ ex.W_k, ex.x @ ex.W_v
    assert (q[0] @ k[0]).item() == 112 and (q[0] @ k[1]).item() == 96
    assert ((q[0] @ k.T) / 8).tolist() == [14.0, 12.0]
    weights = torch.softmax(q[0] @ k.T / 8, 0)
    assert [round(w, 2) for w in weights.tolist()] == [0.88, 0.12]
    out, w = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(w[0], weights)
    torch.testing.assert_close(out[0], weights[0] * v[0] + weights[1] * v[1])


def test_deterministic():
    a, b = thinking_machines(), thinking_machines()
    assert torch.equal(a.x, b.x) and torch.equal(a.W_v, b.W_v)
