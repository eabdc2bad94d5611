"""Lecture 11b's shipped Universal Transformers: they load, meet the notebook's claims on the
held-out pointer chains (ACT: more steps on deeper tokens, fewer than the fixed depth, >= 98 %
at every depth; its saved depth table is what the model gives), and the command line writes a
checkpoint with its recipe."""

import pytest
import torch

import lecturekit.shipped.universal as su
from lecturekit.datasets.variants import pointer_test_set
from lecturekit.efficient.universal import UniversalTransformer
from lecturekit.experiments.variants import depth_table
from lecturekit.shipped.store import load_shipped, shipped_info


@pytest.fixture(scope="module")
def test_set():
    return pointer_test_set()


def test_shipped_act_model_spends_more_steps_on_deeper_tokens(test_set):
    model = load_shipped("ut_act_pointers")
    assert isinstance(model, UniversalTransformer) and model.config.act
    table = depth_table(model, test_set)
    assert table["depth"] == [0, 1, 2, 3, 4]
    assert all(a < b for a, b in zip(table["steps"], table["steps"][1:], strict=False))
    assert min(table["accuracy"]) >= 0.98
    mean = sum(s * n for s, n in zip(table["steps"], table["tokens"], strict=True)) / sum(
        table["tokens"]
    )
    assert mean < 6
    saved = shipped_info("ut_act_pointers").training
    assert saved["seed"] == 0 and "pointer_chains" in saved["data"]
    assert saved["depth_table"]["tokens"] == table["tokens"]
    torch.testing.assert_close(
        torch.tensor(saved["depth_table"]["steps"]), torch.tensor(table["steps"]), atol=0.02, rtol=0
    )


def test_shipped_fixed_model_always_takes_six_steps(test_set):
    model = load_shipped("ut_fixed_pointers")
    assert not model.config.act
    table = depth_table(model, test_set)
    assert table["steps"] == [6.0] * 5 and min(table["accuracy"]) >= 0.98


def test_main_writes_a_checkpoint(tmp_path, monkeypatch, capsys):
    short = {name: {**r, "steps": 3} for name, r in su.RECIPES.items()}
    monkeypatch.setattr(su, "RECIPES", short)
    assert su.main(["--models", "ut_act_pointers", "--data-dir", str(tmp_path)]) == 0
    assert (tmp_path / "ut_act_pointers.safetensors").is_file()
    info = shipped_info("ut_act_pointers", tmp_path)
    assert info.training["steps"] == 3 and info.training["seed"] == 0
    assert "ut_act_pointers.safetensors" in capsys.readouterr().out


def test_cli_refuses_an_unknown_model(capsys):
    with pytest.raises(SystemExit) as exit_info:
        su.main(["--models", "nope"])
    assert exit_info.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="name"):
        su.train_pointer_model("nope")
    with pytest.raises(ValueError, match="steps"):
        su.train_pointer_model("ut_act_pointers", steps=0)
    with pytest.raises(ValueError, match="model"):
        depth_table("not a model", pointer_test_set(2))
