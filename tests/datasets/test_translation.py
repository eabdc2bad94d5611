"""lecturekit.datasets.translation: the toy English -> French-like task."""

import random

import pytest
import torch

from lecturekit.datasets.translation import (
    ADJECTIVES,
    BOS,
    EOS,
    NOUNS,
    PAD,
    batches,
    collate,
    make_translation_data,
    sample_pair,
)


@pytest.fixture(scope="module")
def data():
    return make_translation_data(n_train=600, n_valid=50, n_test=100, seed=3)


def test_deterministic_and_disjoint(data):
    again = make_translation_data(n_train=600, n_valid=50, n_test=100, seed=3)
    assert data.train == again.train and data.test == again.test
    srcs = [set(p.src for p in split) for split in (data.train, data.valid, data.test)]
    assert not (srcs[0] & srcs[1]) and not (srcs[0] & srcs[2]) and not (srcs[1] & srcs[2])
    assert make_translation_data(n_train=600, n_valid=50, n_test=100, seed=4).train != data.train


def test_lengths_cover_short_and_long(data):
    lengths = [len(p.src) for p in data.train]
    assert min(lengths) <= 6 and max(lengths) >= 40
    assert sum(n >= 30 for n in lengths) > 0.2 * len(lengths)


def test_alignment_and_french_rules(data):
    fr_nouns = {
        v[k]: (v[3], k == 2) for v in NOUNS.values() for k in (1, 2)
    }  # word -> (gender, plural)
    for p in data.train:
        assert len(p.src) == len(p.tgt) == len(p.align)
        assert sorted(p.align) == list(range(len(p.src)))  # a permutation: one word per word
        for j, word in enumerate(p.tgt):
            if word in fr_nouns:  # the noun's adjectives follow it and agree with it
                gender, plural = fr_nouns[word]
                form = (gender == "f") + 2 * plural
                k = j + 1
                while k < len(p.tgt) and any(
                    p.tgt[k] == ADJECTIVES[a][f] for a in ADJECTIVES for f in range(4)
                ):
                    assert p.tgt[k] == ADJECTIVES[p.src[p.align[k]]][form]
                    assert p.align[k] < p.align[j]  # English puts it before the noun
                    k += 1


def test_reordering_example():
    rng = random.Random(0)
    pairs = [sample_pair(rng, n_clauses=2) for _ in range(300)]
    # "the old black cats" -> "les chats noirs anciens": alignment 0, 3, 2, 1 (noun, adj2, adj1)
    a = [p.align for p in pairs]
    mirrored = [x for x in a if any(x[j] > x[j + 1] > x[j + 2] for j in range(len(x) - 2))]
    assert mirrored, "two adjectives before a noun must come out in mirrored order"


def test_collate_and_batches(data):
    batch = collate(data.train[:5], data.src_vocab, data.tgt_vocab)
    for b, p in enumerate(data.train[:5]):
        n = len(p.tgt)
        assert batch.tgt_in[b, 0] == BOS and batch.tgt_out[b, n] == EOS
        assert data.tgt_vocab.decode(batch.tgt_out[b]) == list(p.tgt)
        assert torch.all(batch.src[b, len(p.src) :] == PAD)
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    b1 = [b.src for b in batches(data.train, data.src_vocab, data.tgt_vocab, 32, g1)]
    b2 = [b.src for b in batches(data.train, data.src_vocab, data.tgt_vocab, 32, g2)]
    assert all(torch.equal(x, y) for x, y in zip(b1, b2, strict=True))
    assert sum(x.shape[0] for x in b1) == len(data.train)


def test_bad_inputs(data):
    with pytest.raises(ValueError, match="n_train must be a positive integer"):
        make_translation_data(n_train=0)
    with pytest.raises(ValueError, match="pairs must not be empty"):
        collate([], data.src_vocab, data.tgt_vocab)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        next(batches(data.train, data.src_vocab, data.tgt_vocab, 0))
