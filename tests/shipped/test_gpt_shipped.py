"""lecturekit.shipped.gpt: the story batches, the two losses, training, the in-context
learning curve, the command line, and the shipped GPTs (lecture 14)."""

import pytest
import torch
import torch.nn.functional as F

from lecturekit.datasets.icl import IclConfig, collate, eval_set, make_icl_data, oracle_accuracy
from lecturekit.datasets.stories import (
    PretrainingData,
    default_data,
    make_corpus,
    story_batch,
    story_ids,
)
from lecturekit.experiments.generation import read_story, sample, story_is_valid
from lecturekit.generation import Strategy
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.shipped import gpt as sg
from lecturekit.shipped import load_shipped, load_tokenizer
from lecturekit.shipped.store import load_shipped as load_from
from lecturekit.shipped.store import shipped_info
from lecturekit.tokenization import PAD_ID

TINY_ICL_TRAINING = {**sg.ICL_TRAINING, "steps_per_epoch": 3, "epochs": 1, "batch_size": 8}
TINY_ICL_EVAL = {"n": 6, "seed": 1, "watch": 4}

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def icl_data():
    return make_icl_data(IclConfig())


def test_story_batch_pads_at_the_end(tok):
    docs = make_corpus(4, seed=3)
    ids = story_batch(docs, tok)["input_ids"]
    rows = [story_ids(d, tok) for d in docs]
    assert ids.shape == (4, max(map(len, rows))) and ids.dtype == torch.long
    for row, want in zip(ids.tolist(), rows, strict=True):
        assert row == want + [PAD_ID] * (len(row) - len(want))
    assert min(map(len, rows)) < ids.shape[1]  # some row is padded
    with pytest.raises(ValueError, match="documents must be a non-empty list"):
        story_batch([], tok)
    with pytest.raises(ValueError, match=r"documents\[1\]"):
        story_batch([docs[0], "my dog is cute"], tok)
    with pytest.raises(ValueError, match="tokenizer"):
        story_batch(docs, None)


@torch.no_grad()
def test_lm_loss_ignores_padding(gpt, tok):
    docs = make_corpus(3, seed=5)
    loss = sg.lm_loss(gpt, story_batch(docs, tok))
    total, count = 0.0, 0
    for doc in docs:  # each row alone, unpadded, weighted by its number of predicted tokens
        ids = torch.tensor([story_ids(doc, tok)])
        n = ids.shape[1] - 1
        total += float(sg.lm_loss(gpt, {"input_ids": ids})) * n
        count += n
    assert float(loss) == pytest.approx(total / count, rel=1e-5)
    ids = torch.tensor([story_ids(docs[0], tok)])
    by_hand = F.cross_entropy(gpt(ids).logits[0, :-1], ids[0, 1:])
    torch.testing.assert_close(sg.lm_loss(gpt, {"input_ids": ids}), by_hand)


def test_icl_loss_counts_only_the_labels(icl_data):
    torch.manual_seed(0)
    model = GPT(GPTConfig.tiny(vocab_size=len(icl_data.vocab), max_position=64)).eval()
    examples = eval_set(icl_data, 1, 2, seed=0) + eval_set(icl_data, 4, 2, seed=0)
    batch = collate(examples, icl_data.vocab)  # the k = 1 rows padded at the end
    loss = sg.icl_loss(model, batch)
    logits = model(batch["input_ids"]).logits  # (B, T, V)
    by_hand = F.cross_entropy(logits.flatten(0, 1), batch["targets"].flatten())  # -100 ignored
    torch.testing.assert_close(loss, by_hand)
    assert int((batch["targets"] != -100).sum()) == 2 * 2 + 2 * 5  # k + 1 labels per row
    # a target that is no label (here the padding after a short row's answer) does not count
    changed = dict(batch, input_ids=batch["input_ids"].clone())
    pad = changed["input_ids"] == icl_data.vocab.pad_id
    assert pad.any()
    changed["input_ids"][pad] = icl_data.vocab.item_ids[0]
    torch.testing.assert_close(sg.icl_loss(model, changed), loss)
    # ... while changing a label does
    label = batch["targets"][0] != -100
    changed = dict(batch, input_ids=batch["input_ids"].clone())
    position = int(label.nonzero()[0]) + 1
    old = int(changed["input_ids"][0, position])
    changed["input_ids"][0, position] = next(i for i in icl_data.vocab.label_ids if i != old)
    assert not torch.allclose(sg.icl_loss(model, changed), loss)


def test_train_story_gpt_runs(tok):
    docs = make_corpus(40)
    data = PretrainingData(docs[:36], docs[36:], tok)
    model, history = sg.train_story_gpt(data=data, epochs=1, progress=False)
    assert isinstance(model, GPT) and not model.training
    assert model.config == GPTConfig.tiny(vocab_size=len(tok))
    assert len(history.loss) == 1 and history.loss[0] > 0
    with pytest.raises(ValueError, match="data"):
        sg.train_story_gpt(data=docs, epochs=1, progress=False)
    with pytest.raises(ValueError, match="epochs"):
        sg.train_story_gpt(data=data, epochs=0, progress=False)


def test_train_story_gpt_max_steps_gives_the_first_steps_of_the_full_run(tok):
    docs = make_corpus(40)
    data = PretrainingData(docs[:36], docs[36:], tok)
    _, full = sg.train_story_gpt(data=data, epochs=2, batch_size=8, progress=False)
    assert len(full.step_loss) == 2 * 5  # 36 documents: 5 batches of at most 8 per epoch
    _, part = sg.train_story_gpt(data=data, epochs=2, batch_size=8, max_steps=7, progress=False)
    assert part.step_loss == full.step_loss[:7] and len(part.loss) == 2
    _, default = sg.train_story_gpt(data=data, epochs=1, max_steps=1, progress=False)
    assert len(default.step_loss) == 1 and default.step_loss[0] != full.step_loss[0]  # 64 docs
    with pytest.raises(ValueError, match="max_steps"):
        sg.train_story_gpt(data=data, max_steps=0, progress=False)
    with pytest.raises(ValueError, match="batch_size"):
        sg.train_story_gpt(data=data, batch_size=0, progress=False)


def test_train_icl_gpt_runs(icl_data, monkeypatch):
    monkeypatch.setattr(sg, "ICL_TRAINING", TINY_ICL_TRAINING)
    model, history = sg.train_icl_gpt(icl_data, progress=False)
    assert isinstance(model, GPT) and not model.training
    assert model.config.vocab_size == len(icl_data.vocab)
    assert model.config.max_position >= icl_data.max_length
    assert len(history.loss) == 1 and len(history.step_loss) == 3
    _, again = sg.train_icl_gpt(icl_data, progress=False)
    assert again.loss == history.loss  # deterministic for a seed


def test_measure_icl_curve(gpt, icl_data, monkeypatch):
    monkeypatch.setattr(sg, "ICL_EVAL", TINY_ICL_EVAL)
    torch.manual_seed(0)
    model = GPT(GPTConfig.tiny(vocab_size=len(icl_data.vocab), max_position=64)).eval()
    curve = sg.measure_icl_curve(model, icl_data)
    assert set(curve) == {"shots", "accuracy", "oracle", "chance", "n"}
    assert curve["shots"] == list(sg.ICL_SHOTS) == [0, 1, 2, 4, 8]
    assert len(curve["accuracy"]) == 5 and all(0 <= a <= 1 for a in curve["accuracy"])
    assert curve["oracle"] == [oracle_accuracy(eval_set(icl_data, k, 6, 1)) for k in sg.ICL_SHOTS]
    assert curve["chance"] == pytest.approx(1 / 6) and curve["n"] == 6
    with pytest.raises(ValueError, match="data"):
        sg.measure_icl_curve(model, "icl")


def test_cli_refuses_an_unknown_model(capsys):
    with pytest.raises(SystemExit) as exit_info:
        sg.main(["--models", "nope"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "error: --models: 'nope' is not one of ['gpt_tiny', 'gpt_tiny_icl']" in err
    assert "Traceback" not in err and err.strip().splitlines()[-1].count("error:") == 1


def test_main_writes_the_icl_checkpoint_with_its_curve(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sg, "ICL_TRAINING", TINY_ICL_TRAINING)
    monkeypatch.setattr(sg, "ICL_EVAL", TINY_ICL_EVAL)
    assert sg.main(["--models", "gpt_tiny_icl", "--data-dir", str(tmp_path)]) == 0
    assert (tmp_path / "gpt_tiny_icl.safetensors").is_file() and (tmp_path / "MANIFEST").is_file()
    model = load_from("gpt_tiny_icl", tmp_path)
    assert isinstance(model, GPT) and not model.training
    training = shipped_info("gpt_tiny_icl", tmp_path).training
    assert training["steps_per_epoch"] == 3 and training["epochs"] == 1
    curve = training["icl_curve"]
    assert curve["shots"] == [0, 1, 2, 4, 8] and curve["n"] == 6
    assert curve == sg.measure_icl_curve(model)  # the saved model gives the saved curve
    out = capsys.readouterr().out
    assert "gpt_tiny_icl.safetensors" in out and "k=0: " in out and "(oracle " in out


# --- the shipped checkpoints ----------------------------------------------------------------


def test_shipped_icl_curve():
    curve = sg.icl_curve()
    assert curve["shots"] == [0, 1, 2, 4, 8]
    assert len(curve["accuracy"]) == 5 and all(0 <= a <= 1 for a in curve["accuracy"])
    assert all(0 <= o <= 1 for o in curve["oracle"])
    assert curve["n"] == sg.ICL_EVAL["n"]
    assert isinstance(load_shipped("gpt_tiny_icl"), GPT)


def test_shipped_next_token_logits():
    logits, labels = sg.next_token_logits("my dog")
    V = len(load_tokenizer("gpt_tiny"))
    assert logits.shape == (V,) and len(labels) == V
    assert labels == load_tokenizer("gpt_tiny").vocab == default_data().tokenizer.vocab


def test_shipped_story_gpt_greedy_story_is_valid():
    model, tok = load_shipped("gpt_tiny"), load_tokenizer("gpt_tiny")
    assert model.config == GPTConfig.tiny(vocab_size=len(tok))
    ids = sample(model, tok, "my dog", Strategy.greedy(), max_new_tokens=60)
    story = read_story(ids[0], tok)
    assert story_is_valid(story), story


def test_shipped_icl_emergence_is_recorded_per_epoch():
    emergence = sg.icl_emergence()
    n = len(emergence["steps"])
    assert n == sg.ICL_TRAINING["epochs"] == len(emergence["accuracy"]) == len(emergence["loss"])
    assert emergence["steps"][0] == sg.ICL_TRAINING["steps_per_epoch"]
    assert all(0.0 <= a <= 1.0 for a in emergence["accuracy"])
    # the last epoch's watch accuracy is the shipped model's own accuracy on those prompts
    from lecturekit.datasets.icl import IclConfig, eval_set, make_icl_data
    from lecturekit.experiments.generation import icl_accuracy

    data = make_icl_data(IclConfig())
    watch = eval_set(data, data.config.max_shots, sg.ICL_EVAL["watch"], seed=sg.ICL_EVAL["seed"])
    assert icl_accuracy(load_shipped("gpt_tiny_icl"), watch) == pytest.approx(
        emergence["accuracy"][-1], abs=0.02
    )
