"""lecturekit.experiments.objectives: lecture 15's measuring functions, on tiny budgets (seconds)."""

import math

import pytest
import torch

from lecturekit.datasets import pretraining as pt
from lecturekit.datasets.stories import PretrainingData, default_data
from lecturekit.experiments import objectives as ob
from lecturekit.experiments.bert import mlm_accuracy, nsp_accuracy
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.electra import Electra, ElectraConfig
from lecturekit.models.size import parameter_count
from lecturekit.objectives import IN_ORDER, SWAPPED
from lecturekit.shipped import load_shipped


@pytest.fixture(scope="module")
def data():
    return default_data()


@pytest.fixture(scope="module")
def small(data):
    """A corpus small enough for a training pass in well under a second (the same tokenizer)."""
    return PretrainingData(data.train[:60], data.test[:12], data.tokenizer)


@pytest.fixture(scope="module")
def bert():
    return load_shipped("bert_tiny")


def test_heldout_masks_are_lecture_08s(small, bert):
    assert ob.heldout_mlm_accuracy(bert, small) == mlm_accuracy(bert, small)
    assert ob.pair_accuracy(bert, small, "nsp")["accuracy"] == pytest.approx(
        nsp_accuracy(bert, small)
    )
    batches = pt.heldout_batches(small, "nsp")
    assert batches is pt.heldout_batches(small, "nsp")  # cached: fixed for every model
    share = sum(int(b["chosen"].sum()) for b in batches) / sum(
        int((b["original_ids"] >= 5).sum()) for b in batches
    )
    assert share == pytest.approx(0.15, abs=0.03)  # 12 documents: a small sample
    sop = pt.heldout_pairs(small, "sop")
    assert {label for *_, label in sop} == {IN_ORDER, SWAPPED}
    assert len(sop) == sum(int(b["nsp_labels"].numel()) for b in pt.heldout_batches(small, "sop"))


def test_pair_accuracy_reports_each_label(small, bert):
    result = ob.pair_accuracy(bert, small, "sop")
    assert set(result) == {"accuracy", "in order", "swapped", "n"}
    labels = torch.tensor([label for *_, label in pt.heldout_pairs(small, "sop")])
    preds = ob.pair_predictions(bert, small, "sop")
    assert result["n"] == len(labels) == len(preds)
    assert result["swapped"] == pytest.approx(float((preds[labels == 1] == 1).float().mean()))
    with pytest.raises(ValueError, match="kind"):
        ob.pair_accuracy(bert, small, "order")


def test_training_flops_are_counted_and_electra_costs_more(data):
    make = pt.pair_batches(data.train, data.tokenizer, "text", 0.15, 16, 1)
    batch = next(iter(make(0, torch.Generator().manual_seed(0))))
    torch.manual_seed(0)
    mlm = BertForPreTraining(BertConfig.tiny(vocab_size=len(data.tokenizer)))
    electra = Electra(ElectraConfig.tiny(vocab_size=len(data.tokenizer)))
    f_mlm = ob.step_flops(mlm, ob.mlm_loss, batch)
    f_electra = ob.step_flops(electra, ob.electra_loss_fn(torch.Generator(), 50.0), batch)
    assert f_electra > f_mlm > 0
    assert all(p.grad is None for p in mlm.parameters())  # the gradients are cleared
    # forward + backward: about three forward passes of the matrix products
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        ob.mlm_loss(mlm, batch)
    assert 2.5 * counter.get_total_flops() <= f_mlm <= 3.0 * counter.get_total_flops()
    assert ob.step_flops(mlm, ob.mlm_loss, batch) == f_mlm  # counted, not timed: exact


def test_equal_flop_steps():
    assert ob.equal_flop_steps([10, 20, 40], 3) == [3, 7, 13]
    assert ob.equal_flop_steps([1.0], 100) == [1]  # at least one step
    budgets = [100 * 7, 200 * 7]
    assert ob.equal_flop_steps(budgets, 9) < ob.equal_flop_steps(budgets, 7) == [100, 200]


@pytest.mark.parametrize("budgets", [[0], [-5.0], [math.inf], [], "100", [True]])
def test_budgets_must_be_positive(budgets):
    with pytest.raises(ValueError, match="budgets"):
        ob.equal_flop_steps(budgets, 10)


@pytest.mark.parametrize("rate", [0, 1, 1.0, -0.1, 1.5, math.nan])
def test_rates_outside_the_open_interval(rate, small):
    with pytest.raises(ValueError, match="rate"):
        ob.train_mlm(rate, (1,), small)
    with pytest.raises(ValueError, match=r"rates\[1\]"):
        ob.masking_rate_sweep([0.15, rate], (1,), small)
    with pytest.raises(ValueError, match="rate"):
        pt.pair_batches(small.train, small.tokenizer, "text", rate)


def test_train_mlm_records_accuracy_and_snapshots(small):
    run = ob.train_mlm(0.25, (2, 5), small, keep=True)
    assert run.steps == [2, 5] and len(run.accuracy) == 2 and len(run.loss) == 2
    assert set(run.snapshots) == {2, 5}
    assert ob.heldout_mlm_accuracy(run.snapshots[5], small) == run.accuracy[-1]
    assert ob.heldout_mlm_accuracy(run.snapshots[2], small) == run.accuracy[0]
    again = ob.train_mlm(0.25, (2, 5), small)
    assert again.accuracy == run.accuracy and again.loss == run.loss  # deterministic
    assert not again.snapshots
    with pytest.raises(ValueError, match="eval_steps"):
        ob.train_mlm(0.25, (5, 2), small)
    with pytest.raises(ValueError, match="eval_steps"):
        ob.train_mlm(0.25, (0, 2), small)


def test_masking_rate_sweep_structure(small):
    curve, runs = ob.masking_rate_sweep((0.1, 0.5), (1, 3), small, keep=(0.1,))
    assert curve["rates"] == [0.1, 0.5] and curve["steps"] == [1, 3]
    assert [len(a) for a in curve["accuracy"]] == [2, 2]
    assert curve["final"] == [a[-1] for a in curve["accuracy"]]
    assert all(0 <= a <= 1 for row in curve["accuracy"] for a in row)
    assert curve["eval_rate"] == 0.15
    assert set(runs) == {0.1, 0.5} and set(runs[0.1].snapshots) == {1, 3}
    assert not runs[0.5].snapshots


def test_electra_vs_mlm_structure(small):
    mlm_run = ob.train_mlm(0.15, (2, 4), small, keep=True)
    curve, electra = ob.electra_vs_mlm((2, 4), small, mlm_run, tasks=("topic",), seeds=(0, 1),
                                       finetune_steps=2)  # fmt: skip
    assert isinstance(electra, Electra) and not electra.training
    f = curve["flops_per_step"]
    assert f["electra"] > f["mlm"] > 0
    assert curve["budget_flops"] == [2 * f["mlm"], 4 * f["mlm"]]
    assert curve["electra_steps"] == ob.equal_flop_steps(curve["budget_flops"], f["electra"])
    assert curve["electra_steps"][-1] < 4  # the more expensive step: fewer steps
    for model in ("mlm", "electra"):
        scores = curve["scores"][model]["topic"]
        assert [len(r) for r in scores["runs"]] == [2, 2]
        assert scores["mean"] == [round(sum(r) / 2, 4) for r in scores["runs"]]
        assert scores["min"] == [min(r) for r in scores["runs"]]
    assert len(curve["scratch"]["topic"]["runs"]) == 1
    assert curve["mlm_accuracy"] == [round(a, 4) for a in mlm_run.accuracy]
    assert curve["primary"] == {"topic": "accuracy"}


def test_electra_vs_mlm_refuses_bad_input_before_training(small):
    with pytest.raises(ValueError, match="task"):
        ob.electra_vs_mlm((2,), small, tasks=("sentiment",))
    with pytest.raises(ValueError, match="budget_steps"):
        ob.electra_vs_mlm((0, 2), small)
    with pytest.raises(ValueError, match="budget_steps"):
        ob.electra_vs_mlm((), small)
    run = ob.train_mlm(0.15, (2,), small, keep=True)
    with pytest.raises(ValueError, match="mlm_run"):
        ob.electra_vs_mlm((2, 4), small, run)
    with pytest.raises(ValueError, match="seeds"):
        ob.electra_vs_mlm((2,), small, seeds=())


def test_order_table_and_topics(small, bert):
    torch.manual_seed(0)
    random_bert = BertForPreTraining(BertConfig.tiny(vocab_size=len(small.tokenizer))).eval()
    table = ob.order_table({"bert_tiny": bert, "random": random_bert}, small)
    row = table["rows"]["bert_tiny"]
    assert row["nsp"] == pytest.approx(nsp_accuracy(bert, small), abs=1e-4)
    assert row["mlm"] == round(mlm_accuracy(bert, small), 4)
    assert row["sop"] == round(ob.pair_accuracy(bert, small, "sop")["accuracy"], 4)
    pairs = table["pairs"]
    negatives = sum(1 for *_, label in pt.heldout_pairs(small, "nsp") if label == 1)
    assert pairs["nsp NotNext other topic"] + pairs["nsp NotNext same topic"] == negatives
    assert pairs["nsp"] == len(pt.heldout_pairs(small, "nsp"))
    assert set(table["rows"]) == {"bert_tiny", "random"}
    with pytest.raises(ValueError, match="models"):
        ob.order_table({}, small)
    with pytest.raises(ValueError, match="model"):
        ob.order_table({"x": torch.nn.Linear(2, 2)}, small)


def test_sharing_table_structure(small):
    table, models = ob.sharing_table(small, steps=2)
    assert table["kinds"] == ["ALBERT shared", "ALBERT not shared", "BERT"]
    shared, separate = models["ALBERT shared"], models["ALBERT not shared"]
    assert isinstance(shared, AlbertForPreTraining) and shared.config.share_layers
    assert shared.config == AlbertConfig.tiny(vocab_size=len(small.tokenizer))
    assert not separate.config.share_layers and separate.config.num_layers == 4
    assert models["BERT"].config.num_layers == 4
    one_layer = sum(p.numel() for p in shared.layer(0).parameters())
    assert table["parameters"][1] - table["parameters"][0] == 3 * one_layer
    assert table["parameters"] == [parameter_count(models[k]) for k in table["kinds"]]
    assert table["mlm"][0] == round(ob.heldout_mlm_accuracy(shared, small), 4)
    with pytest.raises(ValueError, match="kinds"):
        ob.sharing_table(small, steps=2, kinds=("XLNet",))
    with pytest.raises(ValueError, match="steps"):
        ob.sharing_table(small, steps=0)


def test_replaced_token_detection_counts(small):
    torch.manual_seed(0)
    electra = Electra(ElectraConfig.tiny(vocab_size=len(small.tokenizer)))
    stats = ob.replaced_token_detection(electra, small)
    assert 0 < stats["replaced share"] < 0.15  # chosen at 15 %, a few samples equal the original
    assert stats["always original"] == pytest.approx(1 - stats["replaced share"], abs=1e-4)
    assert 0 <= stats["recall"] <= 1 and 0 <= stats["generator accuracy"] < 0.2  # untrained
    assert stats == ob.replaced_token_detection(electra, small)  # seeded
    with pytest.raises(ValueError, match="model"):
        ob.replaced_token_detection(load_shipped("bert_tiny"), small)


def test_sentence_vector_probe(bert):
    scores = ob.sentence_vector_probe(bert.bert, "topic", n_train=300)
    assert set(scores) == {"[CLS]", "mean"} and all(0.5 < v <= 1 for v in scores.values())
    torch.manual_seed(0)
    random_bert = BertForPreTraining(BertConfig.tiny(vocab_size=450)).bert
    assert ob.sentence_vector_probe(random_bert, "topic", n_train=300)["[CLS]"] < scores["[CLS]"]
    with pytest.raises(ValueError, match="task"):
        ob.sentence_vector_probe(bert.bert, "qa")
    with pytest.raises(ValueError, match="encoder"):
        ob.sentence_vector_probe(bert, "topic")
