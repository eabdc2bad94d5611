"""lecturekit.shipped.finetuning: the shipped fine-tuned models, their sweep, the command line."""

import pytest

from lecturekit.datasets.finetuning import default_tasks
from lecturekit.experiments import finetuning as ft
from lecturekit.shipped import load_shipped, shipped_info
from lecturekit.shipped.finetuning import MODELS, learning_curves, main
from lecturekit.shipped.store import load_shipped as load_from


@pytest.mark.parametrize("task", list(MODELS))
def test_shipped_model_and_its_learning_curve(task):
    info = shipped_info(MODELS[task])
    assert info.training["regime"] == "fine-tuned" and info.training["seed"] == 0
    model = load_shipped(MODELS[task])
    assert type(model) is ft.KINDS[default_tasks()[task].kind]
    rows = learning_curves(task)
    cells = {(r["regime"], r["n_train"]) for r in rows}
    sizes = {n for _, n in cells}
    assert cells == {(regime, n) for regime in ft.REGIMES for n in sizes}
    assert len(rows) == len(cells) * len(ft.FINETUNING["seeds"])
    assert max(sizes) == info.training["n_train"]


def test_learning_curves_of_every_task():
    assert {r["task"] for r in learning_curves()} == set(MODELS)
    with pytest.raises(ValueError, match="task"):
        learning_curves("sentiment")


def test_main_writes_a_checkpoint_with_its_sweep(tmp_path, monkeypatch, capsys):
    recipe = {**ft.FINETUNING, "sizes": (20,), "seeds": (0,), "min_steps": 2, "epochs": 1}
    monkeypatch.setattr(ft, "FINETUNING", recipe)
    monkeypatch.setattr("lecturekit.shipped.finetuning.FINETUNING", recipe)
    assert main(["--models", "bert_tiny_topic", "--data-dir", str(tmp_path)]) == 0
    model = load_from("bert_tiny_topic", tmp_path)
    assert type(model) is ft.KINDS["sequence"]
    out = capsys.readouterr().out
    assert "topic    fine-tuned       n=   20" in out and "bert_tiny_topic.safetensors" in out


def test_cli_refuses_an_unknown_model(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--models", "bert_tiny_sst2"])
    assert exit_info.value.code == 2
    assert "--models: 'bert_tiny_sst2' is not one of" in capsys.readouterr().err
