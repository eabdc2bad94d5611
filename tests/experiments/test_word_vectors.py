"""lecturekit.experiments.word_vectors: vocabulary, SGNS training, neighbours, analogies, the
senses of "teddy" and how vectors separate them."""

import pytest
import torch

from lecturekit.datasets.stories import make_corpus
from lecturekit.experiments import word_vectors as wv

DOCS = make_corpus(200, seed=3)


@pytest.fixture(scope="module")
def sentences():
    return wv.story_sentences(DOCS)


@pytest.fixture(scope="module")
def vocab(sentences):
    return wv.word_vocab(sentences)


def test_vocab_puts_specials_first_then_by_count(vocab, sentences):
    assert vocab.words[:3] == wv.SPECIALS
    assert vocab.counts[3] >= vocab.counts[4] and vocab.counts[:3].sum() == 0
    assert int(vocab.counts.sum()) == sum(len(s.split()) for s in sentences)
    assert vocab.encode("the dog") == [vocab.id("the"), vocab.id("dog")]
    with pytest.raises(ValueError, match="teddi"):
        vocab.id("teddi")


def test_sgns_trains_and_neighbours_make_sense(sentences, vocab):
    model, history = wv.train_sgns(sentences, vocab, epochs=3, batch_size=512, lr=0.02)
    assert history.step_loss[-1] < history.step_loss[0] - 1.0
    near = wv.nearest_words(model.vectors, vocab, "tom", k=5)
    assert len(near) == 5 and all(w != "tom" and w not in wv.SPECIALS for w, _ in near)
    names = {"jack", "sam", "ben", "max", "leo", "anna", "lucy", "emma", "mia", "sara", "kate"}
    assert sum(w in names for w, _ in near) >= 3
    a = wv.analogy(model.vectors, vocab, "he", "his", "she", target="her")
    assert a.rank >= 1 and a.top[0][0] == a.best and "she" not in dict(a.top)


def test_analogy_rank_counts_the_words_above_the_target():
    vocab = wv.WordVocab(
        (*wv.SPECIALS, "a", "b", "c", "d", "e"), torch.tensor([0, 0, 0, 1, 1, 1, 1, 1])
    )
    vectors = torch.zeros(8, 2)
    vectors[3:] = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.2, 1.0], [0.0, 2.0]])
    # b - a + c = (0, 2): e (0, 2) has cosine 1, d (0.2, 1) a little less
    result = wv.analogy(vectors, vocab, "a", "b", "c", target="d")
    assert result.best == "e" and result.rank == 2


def test_teddy_occurrences_have_their_sense():
    occ = wv.sense_occurrences(DOCS)
    assert occ and {o.sense for o in occ} == {"president", "toy"}
    for o in occ:
        assert o.words[o.index] == "teddy"
        assert ("roosevelt" in o.words) == (o.sense == "president")
    with pytest.raises(ValueError, match="not decided"):
        wv.sense_occurrences([["teddy is here"]])


def test_sense_separation_one_vector_is_a_coin_flip_and_separated_vectors_score_one():
    senses = ["a", "a", "b", "b", "b"]
    same = wv.sense_separation(torch.ones(5, 3), senses)
    assert same.within == pytest.approx(1.0) and same.across == pytest.approx(1.0)
    assert same.accuracy == pytest.approx(0.5)
    apart = torch.tensor([[1.0, 0.1], [1.0, -0.1], [0.1, 1.0], [-0.1, 1.0], [0.0, 1.0]])
    s = wv.sense_separation(apart, senses)
    assert s.within > 0.9 and abs(s.across) < 0.2 and s.accuracy == 1.0
    with pytest.raises(ValueError, match="two occurrences"):
        wv.sense_separation(torch.ones(3, 2), ["a", "b", "b"])


def test_bilm_trains_and_forward_states_cannot_tell_the_same_left_context(sentences, vocab):
    lm, history = wv.train_bilm(sentences, vocab, steps=30, batch_size=16)
    assert history.step_loss[-1] < history.step_loss[0]
    fwd, bwd = wv.bilm_nll(lm, vocab, sentences[:50])
    assert 0 < fwd < 6 and 0 < bwd < 6
    pair = [wv.Occurrence(tuple(["i", "think", "teddy", "roosevelt", "is", "a", "great", "president"]), 2,
                          "president"),
            wv.Occurrence(tuple(["i", "think", "teddy", "bears", "make", "great", "presents", "for", "kids"]), 2,
                          "toy")]  # fmt: skip
    f = wv.bilm_vectors(lm, vocab, pair, "forward")
    b = wv.bilm_vectors(lm, vocab, pair, "backward")
    assert torch.equal(f[0], f[1]) and not torch.allclose(b[0], b[1])
    assert wv.bilm_vectors(lm, vocab, pair).shape == (2, 2 * 64)


def test_bert_vectors_one_per_layer_at_the_word():
    from lecturekit.shipped import load_shipped, load_tokenizer

    model, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    occ = wv.sense_occurrences(DOCS)[:6]
    layers = wv.bert_vectors(model, tok, occ)
    assert len(layers) == model.config.num_layers + 1
    assert all(v.shape == (6, model.config.hidden_size) for v in layers)
    ids, _ = tok.encode_pair(" ".join(occ[0].words))
    out = model.bert(torch.tensor([ids]))
    pos = 1 + occ[0].index  # every word before "teddy" is one piece here
    assert tok.tokenize(" ".join(occ[0].words[: occ[0].index + 1]))[-1] == "teddy"
    torch.testing.assert_close(layers[-1][0], out.hidden[0, pos])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: wv.word_vocab([]), "sentences"),
        (lambda: wv.word_vocab([" "]), "at least one word"),
        (lambda: wv.story_sentences("abc"), "documents"),
        (lambda: wv.train_sgns(["a b"], "vocab"), "vocab"),
        (lambda: wv.train_sgns(["a b"], wv.word_vocab(["a b"]), window=0), "window"),
        (lambda: wv.train_bilm(["a b"], wv.word_vocab(["a b"]), lr=0), "lr"),
        (lambda: wv.nearest_words(torch.zeros(2, 2), wv.word_vocab(["a b"]), "a"), "vectors"),
        (lambda: wv.sense_occurrences(DOCS, senses={"one": ("roosevelt",)}), "senses"),
        (lambda: wv.sense_separation(torch.zeros(2, 2), ["a"]), "senses"),
        (lambda: wv.bilm_vectors(None, None, []), "model"),
        (lambda: wv.bert_vectors(torch.nn.Linear(2, 2), None, []), "model"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
