"""lecturekit.shipped.objectives: lecture 15's checkpoints, their stored results, the command line."""

import random

import pytest
import torch

from lecturekit.datasets.stories import PretrainingData, default_data
from lecturekit.experiments import objectives as ob
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.electra import Electra, ElectraConfig
from lecturekit.objectives import sentence_order_pairs
from lecturekit.shipped import load_shipped, load_tokenizer, shipped_info
from lecturekit.shipped import objectives as so
from lecturekit.shipped.store import load_shipped as load_from


@pytest.fixture(scope="module")
def data():
    return default_data()


# --- the shipped checkpoints ----------------------------------------------------------------


@pytest.mark.parametrize("name", list(so.MODELS))
def test_checkpoints_are_small_and_carry_their_recipe(name, data):
    info = shipped_info(name)
    assert info.file.stat().st_size < 1_000_000
    assert info.training["seed"] == 0 and info.training["data"] == so.DATA
    assert info.training["seconds"] > 0
    assert load_tokenizer(name).vocab == data.tokenizer.vocab


def test_shipped_models_are_the_lectures_tiny_ones(data):
    V = len(data.tokenizer)
    electra = load_shipped("electra_tiny")
    assert isinstance(electra, Electra) and electra.config == ElectraConfig.tiny(vocab_size=V)
    sop = load_shipped("bert_tiny_sop")
    assert isinstance(sop, BertForPreTraining) and sop.config == BertConfig.tiny(vocab_size=V)
    albert = load_shipped("albert_tiny")
    assert isinstance(albert, AlbertForPreTraining)
    assert albert.config == AlbertConfig.tiny(vocab_size=V) and albert.config.share_layers
    assert albert.layer(0) is albert.layer(3)  # one layer, applied at every depth


def test_masking_rate_curve():
    curve = so.masking_rate_curve()
    assert curve["rates"] == list(so.SWEEP["rates"]) and curve["steps"] == list(
        so.SWEEP["eval_steps"]
    )
    assert [len(row) for row in curve["accuracy"]] == [len(curve["steps"])] * len(curve["rates"])
    assert curve["final"] == [row[-1] for row in curve["accuracy"]]
    assert all(0 < a < 1 for row in curve["accuracy"] for a in row)
    # the sweep's 15 % run is the MLM that ELECTRA is compared with
    electra = so.electra_vs_mlm_curve()
    at_15 = curve["accuracy"][curve["rates"].index(0.15)]
    assert electra["mlm_accuracy"] == [at_15[curve["steps"].index(s)] for s in electra["mlm_steps"]]


def test_electra_vs_mlm_curve_spends_equal_flops():
    curve = so.electra_vs_mlm_curve()
    f = curve["flops_per_step"]
    assert f["electra"] > f["mlm"] > 0
    assert curve["mlm_steps"] == list(so.ELECTRA_VS_MLM["budget_steps"])
    assert curve["budget_flops"] == [s * f["mlm"] for s in curve["mlm_steps"]]
    for budget, steps in zip(curve["budget_flops"], curve["electra_steps"], strict=True):
        assert abs(steps * f["electra"] - budget) <= f["electra"] / 2
    n = len(curve["mlm_steps"])
    for model in ("mlm", "electra"):
        for task in so.ELECTRA_VS_MLM["tasks"]:
            scores = curve["scores"][model][task]
            assert len(scores["mean"]) == n and all(len(r) == 3 for r in scores["runs"])
            assert all(lo <= m <= hi for lo, m, hi in zip(scores["min"], scores["mean"],
                                                          scores["max"], strict=True))  # fmt: skip


def test_order_table_is_recomputed_from_the_shipped_models(data):
    table = so.order_accuracy_table()
    rows = table["rows"]
    assert set(rows) == {"bert_tiny", "bert_tiny_sop", "nsp other topic"}
    sop = load_shipped("bert_tiny_sop")
    assert ob.pair_accuracy(sop, data, "sop")["accuracy"] == pytest.approx(
        rows["bert_tiny_sop"]["sop"], abs=2e-3
    )
    bert = load_shipped("bert_tiny")
    assert ob.pair_accuracy(bert, data, "nsp")["accuracy"] == pytest.approx(
        rows["bert_tiny"]["nsp"], abs=2e-3
    )
    assert ob.heldout_mlm_accuracy(sop, data) == pytest.approx(rows["bert_tiny_sop"]["mlm"],
                                                               abs=2e-3)  # fmt: skip


def test_sharing_table_is_recomputed_from_the_shipped_albert(data):
    table = so.layer_sharing_table()
    assert table["kinds"] == list(so.SHARING["kinds"]) and table["steps"] == so.SHARING["steps"]
    shared, separate, bert = table["parameters"]
    assert shared < separate < bert
    albert = load_shipped("albert_tiny")
    assert sum(p.numel() for p in albert.parameters()) == shared
    assert ob.heldout_mlm_accuracy(albert, data) == pytest.approx(table["mlm"][0], abs=2e-3)
    assert ob.pair_accuracy(albert, data, "sop")["accuracy"] == pytest.approx(
        table["sop"][0], abs=2e-3
    )


# --- bert_tiny_sop's training -----------------------------------------------------------------


@pytest.fixture(scope="module")
def small(data):
    """A corpus small enough for a training pass in well under a second (the same tokenizer)."""
    return PretrainingData(data.train[:60], data.test[:12], data.tokenizer)


def test_train_sop_bert_learns_from_sop_pairs(small):
    model, history = so.train_sop_bert(small, epochs=1)
    assert isinstance(model, BertForPreTraining) and not model.training
    steps = -(-len(sentence_order_pairs(small.train, random.Random(0))) // 64)
    assert len(history.step_loss) == steps
    again, _ = so.train_sop_bert(small, epochs=1)
    assert torch.equal(model.nsp.weight, again.nsp.weight)  # deterministic


def test_train_sop_bert_takes_the_pair_kind(small):
    model, _ = so.train_sop_bert(small, epochs=1, pairs="nsp other topic")
    sop, _ = so.train_sop_bert(small, epochs=1)
    assert not torch.equal(model.nsp.weight, sop.nsp.weight)
    with pytest.raises(ValueError, match="pairs"):
        so.train_sop_bert(small, epochs=1, pairs="order")


# --- the command line -----------------------------------------------------------------------


def test_cli_refuses_an_unknown_model(capsys):
    with pytest.raises(SystemExit) as exit_info:
        so.main(["--models", "xlnet_tiny"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--models: 'xlnet_tiny' is not one of" in err and "Traceback" not in err


def test_main_writes_every_checkpoint_with_its_results(tmp_path, monkeypatch, capsys):
    full = default_data()
    small = PretrainingData(full.train[:40], full.test[:10], full.tokenizer)
    monkeypatch.setattr(so, "default_data", lambda: small)
    monkeypatch.setattr(so, "SWEEP", {**so.SWEEP, "rates": (0.15, 0.5), "eval_steps": (1, 2)})
    monkeypatch.setattr(so, "ELECTRA_VS_MLM", {**so.ELECTRA_VS_MLM, "budget_steps": (1, 2),
                        "tasks": ("topic",), "seeds": (0,), "finetune_steps": 2})  # fmt: skip
    monkeypatch.setattr(so, "SHARING", {**so.SHARING, "steps": 1})
    assert so.main(["--data-dir", str(tmp_path), "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    for name in so.MODELS:
        assert f"{name}.safetensors" in out
    assert isinstance(load_from("electra_tiny", tmp_path), Electra)
    assert so.masking_rate_curve(tmp_path)["rates"] == [0.15, 0.5]
    assert so.electra_vs_mlm_curve(tmp_path)["mlm_steps"] == [1, 2]
    assert so.layer_sharing_table(tmp_path)["steps"] == 1
    sop = load_from("bert_tiny_sop", tmp_path)
    stored = so.order_accuracy_table(tmp_path)["rows"]["bert_tiny_sop"]["sop"]
    assert round(ob.pair_accuracy(sop, small, "sop")["accuracy"], 4) == stored
    assert shipped_info("bert_tiny_sop", tmp_path).training["epochs"] == 1
    albert = load_from("albert_tiny", tmp_path)
    assert isinstance(albert, AlbertForPreTraining) and albert.config.share_layers
    torch.testing.assert_close(
        torch.tensor(so.layer_sharing_table(tmp_path)["mlm"][0]),
        torch.tensor(round(ob.heldout_mlm_accuracy(albert, small), 4)),
    )
