"""lecturekit.datasets.pretraining: BERT's pair batches, the pair streams, the held-out pairs."""

import itertools
import random

import pytest
import torch

from lecturekit.datasets import pretraining as pt
from lecturekit.datasets.pretraining import pretraining_batch
from lecturekit.datasets.stories import default_data
from lecturekit.objectives import IGNORE, IS_NEXT, NOT_NEXT
from lecturekit.tokenization import CLS_ID, PAD_ID, SEP_ID


@pytest.fixture(scope="module")
def data():
    return default_data()


def test_pretraining_batch_layout():
    data = default_data()
    pairs = [
        ("my dog is cute", "he likes playing", IS_NEXT),
        ("he was born in new york", "they live in old trees", NOT_NEXT),
    ]
    batch = pretraining_batch(pairs, data.tokenizer, torch.Generator().manual_seed(0))
    ids = batch["original_ids"]
    assert ids.shape == batch["input_ids"].shape == batch["segment_ids"].shape
    assert ids[0].tolist()[:1] == [CLS_ID] and ids[0].tolist()[5] == SEP_ID
    assert batch["segment_ids"][0].tolist() == [0] * 6 + [1] * 5 + [0] * (ids.shape[1] - 11)
    assert torch.equal(batch["attention_mask"], ids != PAD_ID)
    assert batch["nsp_labels"].tolist() == [IS_NEXT, NOT_NEXT]


def test_consecutive_pairs_are_the_documents_in_order(data):
    pairs = pt.consecutive_pairs(data.train[:5])
    expected = [(a, b, 0) for doc in data.train[:5] for a, b in itertools.pairwise(doc)]
    assert pairs == expected
    with pytest.raises(ValueError, match="docs"):
        pt.consecutive_pairs("a story")
    with pytest.raises(ValueError, match="two or more sentences"):
        pt.consecutive_pairs([["only one sentence"]])


@pytest.mark.parametrize("kind", pt.PAIR_KINDS)
def test_pair_batches_stream_fixed_step_counts(data, kind):
    make = pt.pair_batches(data.train[:40], data.tokenizer, kind, 0.3, 8, (3, 2))
    g = torch.Generator().manual_seed(0)
    first, second = list(make(0, g)), list(make(1, g))
    assert len(first) == 3 and len(second) == 2
    for batch in first + second:
        assert batch["input_ids"].shape == batch["chosen"].shape
        assert torch.equal(batch["chosen"], batch["mlm_labels"] != IGNORE)
        assert torch.equal(batch["mlm_labels"][batch["chosen"]],
                           batch["original_ids"][batch["chosen"]])  # fmt: skip
        assert len(batch["nsp_labels"]) == 8
        if kind == "text":
            assert batch["nsp_labels"].eq(0).all()
    again = list(pt.pair_batches(data.train[:40], data.tokenizer, kind, 0.3, 8, (3, 2))(
        0, torch.Generator().manual_seed(0)))  # fmt: skip
    assert all(
        torch.equal(a["input_ids"], b["input_ids"]) for a, b in zip(first, again, strict=True)
    )


def test_the_masking_rate_sets_the_share_of_chosen_tokens(data):
    for rate in (0.05, 0.5):
        make = pt.pair_batches(data.train, data.tokenizer, "text", rate, 64, 5)
        batches = list(make(0, torch.Generator().manual_seed(0)))
        chosen = sum(int(b["chosen"].sum()) for b in batches)
        real = sum(int((b["original_ids"] >= 5).sum()) for b in batches)
        assert chosen / real == pytest.approx(rate, abs=0.02)


def test_same_topic():
    assert pt.same_topic("my bird is cute", "he likes eating in the garden")
    assert pt.same_topic("he likes eating in the garden", "my bird is cute")
    assert not pt.same_topic("penguins are flightless birds", "he bought a gallon of milk")
    assert not pt.same_topic("not a sentence of the world", "my dog is cute")


def test_other_topic_nsp_pairs_never_share_the_topic(data):
    docs = data.train[:60]
    pairs = pt.other_topic_nsp_pairs(docs, random.Random(0))
    negatives = [(a, b) for a, b, label in pairs if label == 1]
    assert negatives and len(pairs) == len(pt.consecutive_pairs(docs))
    assert not any(pt.same_topic(a, b) for a, b in negatives)
    follows = {(a, b) for doc in docs for a, b in itertools.pairwise(doc)}
    assert all((a, b) in follows for a, b, label in pairs if label == 0)
    with pytest.raises(ValueError, match="rng"):
        pt.other_topic_nsp_pairs(docs, 0)
