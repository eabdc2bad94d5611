"""lecturekit.experiments.examples: the slides' worked examples come out exactly."""

import torch

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.experiments.examples import thinking_machines


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


def test_pie_example_greedy_misses_what_beam_search_finds():
    import math

    from lecturekit.decoding import beam_search, greedy_search
    from lecturekit.experiments.examples import PIE_TABLE, pie_example

    vocab, step = pie_example()
    for row in PIE_TABLE.values():
        assert math.isclose(sum(row.values()), 1.0)
    greedy = greedy_search(step, 0, 1, max_len=10)
    best = beam_search(step, 0, 1, beam_size=2, max_len=10)[0]
    words = lambda hyp: " ".join(vocab[t] for t in hyp.tokens)  # noqa: E731
    assert words(greedy) == "I was hit with a pie </s>"
    assert words(best) == "he hit me with a pie </s>" and best.score > greedy.score
