"""--device for the four training commands (issue 16): each trains end to end with --device cpu
on a tiny run, passes the device through to ``fit`` and saves CPU weights; a device this machine
lacks is one ``error:`` line and exit status 2 before any work (the bad-input rows are in
test_bad_inputs.py's CLI table; fit's device handling: tests/test_training.py)."""

import subprocess
import sys

import pytest
import torch

from lecturekit.datasets.digits import DigitsData, load_digits_data
from lecturekit.datasets.stories import PretrainingData
from lecturekit.datasets.translation import make_translation_data
from lecturekit.shipped import bert, seq2seq, transformer, vit
from lecturekit.shipped.store import load_shipped, shipped_names
from lecturekit.tokenization import SPECIAL_TOKENS, WordPieceTokenizer

_WORDS = ["the", "cat", "dog", "sat", "ran", "on", "mat", "a", "big", "small"]
_DOCS = [
    ["the cat sat on a big mat", "the dog ran on a small mat"],
    ["a big dog sat on the mat"],
    ["the small cat ran", "a dog sat on the big mat"],
    ["the mat", "a cat ran on a mat"],
]


def _tiny_stories() -> PretrainingData:
    return PretrainingData(_DOCS, _DOCS, WordPieceTokenizer([*SPECIAL_TOKENS, *_WORDS]))


def _tiny_digits() -> DigitsData:
    d = load_digits_data()
    return DigitsData(d.train_images[:256], d.train_labels[:256], d.test_images[:64],
                      d.test_labels[:64])  # fmt: skip


# module, the data function its main calls, tiny data for it, the argv that keeps the run short
CASES = {
    "seq2seq": (seq2seq, "default_data",
                lambda: make_translation_data(n_train=64, n_valid=8, n_test=8),
                ["--models", "seq2seq_dot", "--epochs", "1"]),
    "transformer": (transformer, "default_data",
                    lambda: make_translation_data(n_train=64, n_valid=8, n_test=8),
                    ["--epochs", "1"]),
    "bert": (bert, "default_data", _tiny_stories, ["--models", "bert_tiny", "--epochs", "1"]),
    "vit": (vit, "load_digits_data", _tiny_digits, ["--models", "vit_digits_moved"]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_device_cpu_trains_end_to_end_and_saves_cpu_weights(name, tmp_path, monkeypatch, capsys):
    module, data_fn, tiny, argv = CASES[name]
    monkeypatch.setattr(module, data_fn, tiny)
    devices, saved = [], []
    real_fit, real_save = module.fit, module.save_shipped

    def fit(*args, **kwargs):
        devices.append(kwargs.get("device"))
        return real_fit(*args, **{**kwargs, "progress": False})

    def save_shipped(model, *args, **kwargs):
        saved.append({t.device.type for t in model.state_dict().values()})
        return real_save(model, *args, **kwargs)

    monkeypatch.setattr(module, "fit", fit)
    monkeypatch.setattr(module, "save_shipped", save_shipped)
    threads = torch.get_num_threads()
    try:
        # cpu:0, not the default "cpu": what fit gets came from the command line
        assert module.main([*argv, "--device", "cpu:0", "--data-dir", str(tmp_path)]) == 0
    finally:
        torch.set_num_threads(threads)
    assert devices and all(d == "cpu:0" for d in devices), devices
    assert saved == [{"cpu"}]
    (shipped,) = shipped_names(tmp_path)
    assert next(load_shipped(shipped, tmp_path).parameters()).device.type == "cpu"
    assert f"-> {shipped}.safetensors" in capsys.readouterr().out


def test_a_bad_device_is_refused_before_the_data_dir_is_made(tmp_path, capsys):
    new = tmp_path / "new"
    with pytest.raises(SystemExit) as info:
        vit.main(["--device", "cuda:99", "--data-dir", str(new)])
    assert info.value.code == 2
    assert "--device cuda:99 is not available on this machine" in capsys.readouterr().err
    assert not new.exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_device_cuda_without_a_gpu_is_one_error_line_in_a_subprocess(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "lecturekit.shipped.seq2seq", "--device", "cuda", "--data-dir",
         str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    assert errors == [
        "python -m lecturekit.shipped.seq2seq: error: --device cuda is not available on this "
        "machine (torch.cuda.is_available() is False)"
    ], run.stderr
    assert "Traceback" not in run.stderr + run.stdout and not (tmp_path / "out").exists()
