"""lecturekit.experiments.examples: the slides' worked examples come out exactly."""

import pytest
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


def test_poor_example_greedy_goes_wrong_and_a_beam_of_2_finds_the_target():
    import math

    from lecturekit.decoding import beam_search, greedy_search
    from lecturekit.experiments.examples import POOR_TABLE, poor_example

    vocab, step = poor_example()
    for row in POOR_TABLE.values():
        assert math.isclose(sum(row.values()), 1.0)
    words = lambda hyp: " ".join(vocab[t] for t in hyp.tokens)  # noqa: E731
    greedy = greedy_search(step, 0, 1, max_len=12)
    assert words(greedy) == "the poor are poor </s>"
    assert beam_search(step, 0, 1, beam_size=1, max_len=12, n_best=1) == [greedy]  # k = t = 1
    (best,) = beam_search(step, 0, 1, beam_size=2, max_len=12, n_best=1)  # k = 2, t = 1
    assert words(best) == "the poor don't have any money </s>" and best.score > greedy.score
    two = beam_search(step, 0, 1, beam_size=2, max_len=12)  # k = t = 2: the 2-best list
    assert [words(h) for h in two] == [words(best), words(greedy)]
    path = (0.6, 0.9, 0.4, 0.95, 0.6, 0.9, 0.95)  # the, poor, don't, have, any, money, </s>
    assert best.score == pytest.approx(sum(math.log(p) for p in path), abs=1e-12)


def test_next_word_step_reads_its_table():
    import math

    from lecturekit.experiments.examples import next_word_step

    table = {(): {"a": 0.75, "</s>": 0.25}, ("a",): {"</s>": 1.0}}
    step = next_word_step(table, ["<s>", "</s>", "a"])
    out = step(torch.tensor([[0], [0]]))
    assert out.shape == (2, 3) and out.dtype == torch.float64
    assert out[0].exp().tolist() == pytest.approx([0.0, 0.25, 0.75])
    assert step(torch.tensor([[0, 2]]))[0].exp().tolist() == pytest.approx([0, 1, 0])
    unknown = step(torch.tensor([[0, 1]]))[0].exp()  # a prefix not in the table: uniform
    assert unknown.tolist() == pytest.approx([0, 0.5, 0.5]) and unknown[0] == 0
    assert math.isinf(float(out[0, 0]))


@pytest.mark.parametrize(
    ("table", "vocab", "match"),
    [
        ({(): {"a": 0.5}}, ["<s>", "</s>", "a"], "must sum to 1"),
        ({(): {"b": 1.0}}, ["<s>", "</s>", "a"], "next word must be in vocab"),
        ({(): {"<s>": 1.0}}, ["<s>", "</s>", "a"], "not the start token"),
        ({("b",): {"a": 1.0}}, ["<s>", "</s>", "a"], "tuples of words of vocab"),
        ({"a": {"a": 1.0}}, ["<s>", "</s>", "a"], "tuples of words of vocab"),
        ({(): {"a": 1.5, "</s>": -0.5}}, ["<s>", "</s>", "a"], r"must be in \(0, 1\]"),
        ({(): {}}, ["<s>", "</s>", "a"], "non-empty dict"),
        ([], ["<s>", "</s>", "a"], "table must be a dict"),
        ({}, ["<s>", "<s>"], "2 distinct words"),
        ({}, "abc", "vocab"),
    ],
)
def test_next_word_step_bad_tables(table, vocab, match):
    from lecturekit.experiments.examples import next_word_step

    with pytest.raises(ValueError, match=match):
        next_word_step(table, vocab)
