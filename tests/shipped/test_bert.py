"""lecturekit.shipped.bert: training, the shipped checkpoints, the slides' examples, the command line."""

import pytest

from lecturekit.datasets.stories import PretrainingData, default_data
from lecturekit.models.bert import BertConfig, fill_mask, nsp_probability
from lecturekit.shipped import load_shipped, load_tokenizer, shipped_info
from lecturekit.shipped.bert import MODELS, PRETRAINING, main, train_bert


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
