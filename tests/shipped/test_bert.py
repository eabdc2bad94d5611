"""lecturekit.shipped.bert: NSP pairs, batches, training, the shipped BERT's targets, the command line."""

import random
from itertools import pairwise

import pytest
import torch

from lecturekit.datasets.stories import PretrainingData, default_data, right_context_blanks
from lecturekit.models.bert import BertConfig, fill_mask, nsp_probability
from lecturekit.shipped import load_shipped, load_tokenizer, shipped_info
from lecturekit.shipped.bert import (
    IS_NEXT,
    MODELS,
    NOT_NEXT,
    PRETRAINING,
    blank_accuracy,
    main,
    make_nsp_pairs,
    mlm_accuracy,
    nsp_accuracy,
    pretraining_batch,
    train_bert,
)
from lecturekit.tokenization import CLS_ID, PAD_ID, SEP_ID


def test_nsp_pairs_are_half_next_and_half_from_other_documents():
    docs = default_data().train[:600]
    pairs = make_nsp_pairs(docs, random.Random(0))
    assert len(pairs) == sum(len(d) - 1 for d in docs)
    is_next = [p for p in pairs if p[2] == IS_NEXT]
    assert abs(len(is_next) / len(pairs) - 0.5) < 0.03
    consecutive = {(a, b) for d in docs for a, b in pairwise(d)}
    assert all((a, b) in consecutive for a, b, _ in is_next)
    # NotNext: B never follows A anywhere in the corpus
    assert not any((a, b) in consecutive for a, b, label in pairs if label == NOT_NEXT)
    with pytest.raises(ValueError, match="docs must hold at least 2 documents"):
        make_nsp_pairs(docs[:1], random.Random(0))


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


def test_training_is_deterministic_and_lowers_the_loss():
    full = default_data()
    small = PretrainingData(full.train[:120], full.test[:20], full.tokenizer)
    (_, h1), (_, h2) = (train_bert(small, epochs=2, progress=False) for _ in range(2))
    assert h1.loss == h2.loss and h1.loss[1] < h1.loss[0]


def test_max_steps_gives_the_first_steps_of_the_full_run():
    full = default_data()
    small = PretrainingData(full.train[:60], full.test[:20], full.tokenizer)
    _, whole = train_bert(small, epochs=2, progress=False)
    _, part = train_bert(small, epochs=2, progress=False, max_steps=5)
    assert len(whole.step_loss) > 5 and part.step_loss == whole.step_loss[:5]
    with pytest.raises(ValueError, match="max_steps"):
        train_bert(small, max_steps=0)


@pytest.mark.parametrize("name", MODELS)
def test_shipped_models_load_with_the_corpus_vocabulary(name):
    model, tok = load_shipped(name), load_tokenizer(name)
    assert tok.vocab == default_data().tokenizer.vocab  # trained on the same vocabulary
    assert model.config == BertConfig.tiny(vocab_size=len(tok))
    assert {k: shipped_info(name).training[k] for k in PRETRAINING} == PRETRAINING


def test_shipped_bert_meets_the_lectures_targets():
    """The claims lecture 08 makes about the shipped models, on held-out documents."""
    data = default_data()
    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    lm = load_shipped("causal_lm_tiny")
    assert nsp_accuracy(bert, data) >= 0.95
    assert mlm_accuracy(bert, data) >= 0.80
    blanks = right_context_blanks(400, seed=1)
    bidirectional, left_to_right = (
        blank_accuracy(bert, tok, blanks),
        blank_accuracy(lm, tok, blanks),
    )
    assert bidirectional >= 0.95 and left_to_right <= 0.5


def test_the_slides_examples():
    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    assert fill_mask(bert, tok, "i think teddy [MASK] is a great president")[0][0][0] == "roosevelt"
    assert (
        fill_mask(bert, tok, "i think teddy [MASK] make great presents for kids")[0][0][0]
        == "bears"
    )
    assert (
        nsp_probability(bert, tok, "the man went to the store", "he bought a gallon of milk") > 0.9
    )
    assert (
        nsp_probability(bert, tok, "the man went to the store", "penguins are flightless birds")
        < 0.1
    )
    with pytest.raises(ValueError, match="has no \\[MASK\\] token"):
        fill_mask(bert, tok, "no blank here")
    with pytest.raises(ValueError, match=r"k=451 is larger than the vocabulary \(450 tokens\)"):
        fill_mask(bert, tok, "i think teddy [MASK] is great", k=451)


def test_cli_errors_are_messages_not_tracebacks(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--epochs", "0"])
    assert exit_info.value.code == 2
    assert "--epochs must be >= 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--models", "bert"])
    assert "--models: 'bert' is not one of ['bert_tiny', 'causal_lm_tiny']" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["--models", "gpt"])
    assert exit_info.value.code == 2 and "--models: 'gpt' is not one of" in capsys.readouterr().err
