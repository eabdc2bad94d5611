"""lecturekit.experiments.finetuning: the three regimes, prediction, scores, the decks' tables."""

import pytest
import torch

from lecturekit.datasets.finetuning import default_tasks
from lecturekit.experiments import finetuning as ft
from lecturekit.models.bert_tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from lecturekit.shipped import load_shipped, load_tokenizer


@pytest.fixture(scope="module")
def bert():
    return load_shipped("bert_tiny")


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer("bert_tiny")


@pytest.fixture(scope="module")
def tasks():
    return default_tasks()


TASKS = ["topic", "nli", "qa", "tagging"]


def _encoder(model):
    return {k: v.clone() for k, v in model.bert.state_dict().items()}


@pytest.mark.parametrize("name", TASKS)
def test_build_model_regimes(bert, tasks, name):
    task = tasks[name]
    want = {
        "sequence": BertForSequenceClassification,
        "pair": BertForSequenceClassification,
        "token": BertForTokenClassification,
        "span": BertForQuestionAnswering,
    }[task.kind]
    pre = bert.bert.state_dict()
    tuned = ft.build_model(task, "fine-tuned", bert, seed=0)
    frozen = ft.build_model(task, "frozen features", bert, seed=0)
    scratch = ft.build_model(task, "from scratch", bert, seed=0)
    for model in (tuned, frozen, scratch):
        assert type(model) is want
    assert all(torch.equal(v, pre[k]) for k, v in tuned.bert.state_dict().items())
    assert not any(p.requires_grad for p in frozen.bert.parameters())
    assert all(p.requires_grad for p in tuned.parameters())
    emb = "embeddings.token.weight"
    assert not torch.equal(scratch.bert.state_dict()[emb], pre[emb])
    state = torch.random.get_rng_state()
    again = ft.build_model(task, "from scratch", bert, seed=0)
    assert torch.equal(torch.random.get_rng_state(), state)  # global RNG untouched
    assert torch.equal(again.bert.state_dict()[emb], scratch.bert.state_dict()[emb])


@pytest.mark.parametrize("name", TASKS)
def test_run_trains_the_right_weights_and_scores(bert, tokenizer, tasks, name):
    task = tasks[name]
    before = _encoder(bert)
    frozen = ft.run(task, "frozen features", 20, bert, tokenizer, seed=1, steps=3)
    assert all(torch.equal(v, before[k]) for k, v in frozen.model.bert.state_dict().items())
    tuned = ft.run(task, "fine-tuned", 20, bert, tokenizer, seed=1, steps=3)
    changed = [k for k, v in tuned.model.bert.state_dict().items() if not torch.equal(v, before[k])]
    assert changed  # every weight trains
    assert all(torch.equal(v, before[k]) for k, v in bert.bert.state_dict().items())  # a copy
    for result in (frozen, tuned):
        assert 0.0 <= result.dev <= 1.0 and 0.0 <= result.test <= 1.0
        assert result.steps == 3 and result.n_train == 20 and result.task == name
        assert result.test == result.scores[ft.PRIMARY[task.kind]]
        row = result.row()
        assert set(row) == {"task", "regime", "n_train", "seed", "dev", "test", "scores", "steps"}
    again = ft.run(task, "fine-tuned", 20, bert, tokenizer, seed=1, steps=3)
    assert again.test == tuned.test and again.dev == tuned.dev  # deterministic


@pytest.mark.parametrize("steps", [1, 2, 10, 100])
def test_schedule_warms_up_then_decays_to_zero(steps):
    factor = ft._schedule(steps)
    values = [factor(step) for step in range(steps + 1)]  # LambdaLR also asks after the last step
    peak = values.index(max(values))
    assert max(values) == 1.0 and values[-1] == 0.0
    assert values[: peak + 1] == sorted(values[: peak + 1])  # up during warm-up
    assert values[peak:] == sorted(values[peak:], reverse=True)  # then down


@pytest.mark.parametrize("regime", ft.REGIMES)
def test_run_records_every_steps_loss(bert, tokenizer, tasks, regime):
    """result.losses: one training loss per optimizer step, the same for the same seed (lecture
    13 compares them with its written loop); the row a sweep ships leaves them out."""
    task = tasks["tagging"]
    result = ft.run(task, regime, 20, bert, tokenizer, seed=1, steps=6)
    assert len(result.losses) == 6 and all(isinstance(x, float) for x in result.losses)
    assert all(0.0 < x < 10.0 for x in result.losses)
    again = ft.run(task, regime, 20, bert, tokenizer, seed=1, steps=6)
    assert again.losses == result.losses
    assert "losses" not in result.row()


def test_a_one_step_run_trains(bert, tokenizer, tasks):
    result = ft.run(tasks["topic"], "fine-tuned", 20, bert, tokenizer, seed=1, steps=1)
    assert result.steps == 1 and 0.0 <= result.test <= 1.0


def test_train_steps():
    assert ft.train_steps(50) == ft.FINETUNING["min_steps"]
    assert ft.train_steps(4000) == ft.FINETUNING["epochs"] * 250


def test_predict_and_evaluate_shapes(bert, tokenizer, tasks):
    models = {name: ft.build_model(tasks[name], "fine-tuned", bert) for name in TASKS}
    for name, model in models.items():
        task = tasks[name]
        examples = list(task.test[:5])
        preds = ft.predict(model, task, tokenizer, examples)
        assert len(preds) == 5
        if task.kind in ("sequence", "pair"):
            assert all(p in task.labels for p in preds)
        elif task.kind == "token":
            assert [len(p) for p in preds] == [len(e.words) for e in examples]
        else:
            for p, e in zip(preds, examples, strict=True):
                assert p == "" or p in e.context  # a span of the context
        scores = ft.evaluate(model, task, tokenizer, examples)
        assert next(iter(scores)) == ft.PRIMARY[task.kind]
        assert all(0.0 <= v <= 1.0 for v in scores.values())
        assert model.training  # the mode is restored


def test_probabilities_of_typed_text(bert, tokenizer, tasks):
    model = ft.build_model(tasks["qa"], "fine-tuned", bert)
    p = ft.probabilities(
        model,
        tasks["qa"],
        tokenizer,
        "Where did Anna go?",
        "anna went to the park . she played football .",
    )
    assert len(p["tokens"]) == len(p["start_probs"]) == len(p["end_probs"])
    assert abs(float(p["start_probs"].sum()) - 1) < 1e-5
    first, last = p["span"]
    assert 0 <= first <= last < len(p["tokens"]) and last - first < 10
    assert 0.0 < p["span_prob"] <= 1.0
    tag = ft.build_model(tasks["tagging"], "fine-tuned", bert)
    p = ft.probabilities(tag, tasks["tagging"], tokenizer, "Tom went to the park.")
    assert p["words"] == ["tom", "went", "to", "the", "park", "."]
    assert len(p["answer"]) == 6 and p["probs"].shape == (6, len(tasks["tagging"].labels))
    cls = ft.build_model(tasks["nli"], "fine-tuned", bert)
    p = ft.probabilities(cls, tasks["nli"], tokenizer, "it was cold", "she wore a coat")
    assert p["answer"] in tasks["nli"].labels and abs(float(p["probs"].sum()) - 1) < 1e-5


def test_input_format_marks(tokenizer, tasks):
    qa = tasks["qa"].test[0]
    fmt = ft.input_format(tasks["qa"], tokenizer, qa)
    assert fmt["tokens"][0] == "[CLS]" and fmt["tokens"][-1] == "[SEP]"
    assert "start" in "".join(fmt["marks"]) and "end" in "".join(fmt["marks"])
    assert len(fmt["tokens"]) == len(fmt["segment_ids"]) == len(fmt["marks"])
    tag = tasks["tagging"].test[0]
    fmt = ft.input_format(tasks["tagging"], tokenizer, tag)
    assert [m for m in fmt["marks"] if m and m != "-100"] == list(tag.tags)
    pair = tasks["nli"].test[0]
    fmt = ft.input_format(tasks["nli"], tokenizer, pair)
    assert fmt["marks"][0] == pair.label and set(fmt["segment_ids"]) == {0, 1}


def test_curve_table_mean_min_max():
    rows = [
        {"task": "t", "regime": "fine-tuned", "n_train": 50, "seed": s, "dev": 0.0, "test": v}
        for s, v in enumerate([0.5, 0.7, 0.9])
    ]
    assert ft.curve_table(rows) == {("t", "fine-tuned", 50): (pytest.approx(0.7), 0.5, 0.9)}


def test_head_parameters(bert, tasks):
    model = ft.build_model(tasks["topic"], "fine-tuned", bert)
    assert ft.head_parameters(model) == 64 * 9 + 9
    model = ft.build_model(tasks["qa"], "fine-tuned", bert)
    assert ft.head_parameters(model) == 64 * 2 + 2


def test_tables_are_rectangular():
    for table in (ft.GLUE_TABLE, ft.SQUAD_TABLE, ft.GPT_ABLATION):
        assert all(len(row) == len(table["columns"]) for row in table["rows"].values())
        assert table["source"]
    assert ft.GLUE_TABLE["rows"]["BERT-base"][-1] == 79.6  # the decks' average column


def test_bad_inputs(bert, tokenizer, tasks):
    task = tasks["topic"]
    with pytest.raises(ValueError, match="regime"):
        ft.build_model(task, "pre-trained", bert)
    with pytest.raises(ValueError, match="pretrained"):
        ft.build_model(task, "fine-tuned", "bert_tiny")
    with pytest.raises(ValueError, match="n_train=99999"):
        ft.run(task, "fine-tuned", 99999, bert, tokenizer)
    with pytest.raises(ValueError, match="task"):
        ft.run("topic", "fine-tuned", 10, bert, tokenizer)
    model = ft.build_model(task, "fine-tuned", bert)
    with pytest.raises(ValueError, match="examples"):
        ft.predict(model, task, tokenizer, [])
    with pytest.raises(ValueError, match="model"):
        ft.predict(model, tasks["qa"], tokenizer, list(tasks["qa"].test[:2]))
    with pytest.raises(ValueError, match="second"):
        ft.probabilities(
            ft.build_model(tasks["qa"], "fine-tuned", bert),
            tasks["qa"],
            tokenizer,
            "where did tom go ?",
        )
    with pytest.raises(ValueError, match="first"):
        ft.example_from_text(task, "  ")
    with pytest.raises(ValueError, match="first"):
        ft.example_from_text(task, 42)
    with pytest.raises(ValueError, match="split"):
        ft.curve_table([], split="train")
    with pytest.raises(ValueError, match="model"):
        ft.head_parameters(bert)
