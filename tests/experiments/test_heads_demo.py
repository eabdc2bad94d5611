"""lecturekit.experiments.heads_demo: the toy task's targets, the model's shapes, seeded training, bad input."""

import pytest
import torch

from lecturekit.experiments.heads_demo import (
    RELATIONS,
    SENTENCE,
    VOCAB,
    HeadsDemoModel,
    encode,
    make_batch,
    relation_positions,
    relation_weights,
    train_heads_demo,
)


def test_relation_positions_wrap_around():
    pos = relation_positions(5)
    assert pos.shape == (len(RELATIONS), 5)
    assert pos.tolist() == [[4, 0, 1, 2, 3], [1, 2, 3, 4, 0], [0] * 5, [4] * 5]


def test_make_batch_targets_follow_the_relations():
    tokens, targets = make_batch(3, 7, 10, torch.Generator().manual_seed(0))
    assert tokens.shape == (3, 7) and targets.shape == (3, len(RELATIONS), 7)
    assert tokens.dtype == targets.dtype == torch.long
    assert torch.equal(targets[:, 0, 1:], tokens[:, :-1])  # previous
    assert torch.equal(targets[:, 1, :-1], tokens[:, 1:])  # next
    assert (targets[:, 2] == tokens[:, :1]).all() and (targets[:, 3] == tokens[:, -1:]).all()
    again, _ = make_batch(3, 7, 10, torch.Generator().manual_seed(0))
    assert torch.equal(tokens, again)


def test_encode_the_example_sentence():
    ids = encode(SENTENCE.split())
    assert ids.shape == (11,) and len(set(VOCAB)) == len(VOCAB)
    assert ids[0] == ids[4] == VOCAB.index("the")  # "The" and "the": one word


@pytest.mark.parametrize("positions", ["learned", "sinusoidal"])
def test_model_shapes(positions):
    torch.manual_seed(0)
    model = HeadsDemoModel(12, d_model=16, num_heads=4, max_len=9, positions=positions)
    logits, weights = model(torch.randint(12, (2, 9)))
    assert logits.shape == (2, len(RELATIONS), 9, 12)
    assert weights.shape == (2, 4, 9, 9)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 9))


def test_training_is_seeded_and_learns():
    def run():
        torch.manual_seed(0)
        model = HeadsDemoModel(8, d_model=16, num_heads=4, max_len=6)
        history = train_heads_demo(
            model, steps=40, batch_size=16, seq_len=6, decay_steps=10, eval_size=50
        )
        return model, history

    (m1, h1), (m2, h2) = run(), run()
    assert h1["loss"] == h2["loss"] and h1["accuracy"] == h2["accuracy"]
    for p1, p2 in zip(m1.parameters(), m2.parameters(), strict=True):
        assert torch.equal(p1, p2)
    assert len(h1["loss"]) == 40 and h1["loss"][-1] < h1["loss"][0]
    assert 0.0 <= h1["accuracy"] <= 1.0


def test_relation_weights_of_ideal_heads():
    T = 6
    pos = relation_positions(T)  # (R, T)
    ideal = torch.zeros(len(RELATIONS), T, T)
    ideal[torch.arange(len(RELATIONS))[:, None], torch.arange(T), pos] = 1.0  # head r follows r
    scores = relation_weights(ideal)
    assert scores.shape == (len(RELATIONS), len(RELATIONS))
    torch.testing.assert_close(scores.diagonal(), torch.ones(len(RELATIONS)))
    torch.testing.assert_close(relation_weights(ideal[None].expand(3, -1, -1, -1)), scores)


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match=r"words must be in VOCAB, got unknown words \[.zebra.\]"):
        encode(["The", "zebra"])
    with pytest.raises(ValueError, match="seq_len"):
        relation_positions(0)
    with pytest.raises(ValueError, match="batch_size"):
        make_batch(0, 5, 10)
    with pytest.raises(ValueError, match="positions"):
        HeadsDemoModel(10, positions="rotary")
    with pytest.raises(ValueError, match="divisible"):
        HeadsDemoModel(10, d_model=10, num_heads=4)
    model = HeadsDemoModel(10, d_model=16, num_heads=4, max_len=8)
    with pytest.raises(ValueError, match=r"tokens must be an integer tensor of shape \(B, T\)"):
        model(torch.zeros(2, 5))
    with pytest.raises(ValueError, match=r"tokens must hold ids in 0\.\.9 \(a vocabulary of 10\)"):
        model(torch.full((1, 5), 10))
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="decay_steps"):
        train_heads_demo(model, steps=5, decay_steps=6)
    with pytest.raises(ValueError, match=r"\(H, T, T\)"):
        relation_weights(torch.zeros(4, 5, 6))
