"""lecturekit.verify: the self-check for a new machine (``python -m lecturekit.verify``)."""

import io
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lecturekit import verify
from lecturekit.shipped import shipped_names

ROOT = Path(__file__).resolve().parents[1]
COMPONENT_ROWS = [name for name, _ in verify.COMPONENT_CHECKS]
OFFLINE_ROWS = ["offline: Hugging Face offline flags", "offline: no network access by any check"]


def _rows(out: str) -> dict[str, list[str]]:
    """{check name: [result, max |diff|, tolerance, detail]} from the printed table."""
    rows = {}
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 5 and cells[0] not in ("check",) and not cells[0].startswith("---"):
            rows[cells[0]] = cells[1:]
    return rows


@pytest.fixture
def few_checkpoints(monkeypatch):
    """Only one shipped checkpoint is loaded (the tests that break something stay fast)."""
    monkeypatch.setattr(verify, "shipped_names", lambda: ["vit_digits"])


def test_main_prints_one_row_per_check_and_exits_0(capsys):
    rng, threads = torch.random.get_rng_state(), torch.get_num_threads()
    status = verify.main([])
    out = capsys.readouterr().out
    assert status == 0, out
    rows = _rows(out)
    expected = COMPONENT_ROWS + [f"checkpoint {n}" for n in shipped_names()] + OFFLINE_ROWS
    assert list(rows) == expected
    assert len(shipped_names()) == 23
    for name in expected:
        assert rows[name][0] == "✓", f"{name}: {rows[name]}"
    for name in COMPONENT_ROWS:  # every reference comparison: a difference within 1e-5
        _, diff, tol, detail = rows[name]
        assert tol == "1e-05" and float(diff) <= 1e-5 and detail
    for name in shipped_names():
        assert re.search(
            r"sha256 [0-9a-f]{12} = MANIFEST; \w+ forward: logits \(", rows[f"checkpoint {name}"][3]
        )
    assert out.startswith("lecturekit ") and "1 thread)" in out.splitlines()[0]
    assert (
        out.rstrip()
        .splitlines()[-1]
        .startswith(f"{len(expected)} checks: {len(expected)} passed, 0 failed, 0 skipped in ")
    )
    # the caller's random state and thread count are left as they were
    assert torch.equal(torch.random.get_rng_state(), rng) and torch.get_num_threads() == threads


def test_python_m_lecturekit_verify_in_a_fresh_process():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run(
        [sys.executable, "-m", "lecturekit.verify", "--threads", "1"],
        capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    rows = _rows(run.stdout)
    assert len(rows) == len(COMPONENT_ROWS) + len(shipped_names()) + 2
    assert {r[0] for r in rows.values()} == {"✓"}
    assert "0 failed" in run.stdout.splitlines()[-1]


def test_a_broken_component_is_a_cross_and_exit_1(monkeypatch, capsys, few_checkpoints):
    right = verify.scaled_dot_product_attention

    def off_by_a_little(q, k, v, mask=None):
        out, weights = right(q, k, v, mask)
        return out + 1e-3, weights

    monkeypatch.setattr(verify, "scaled_dot_product_attention", off_by_a_little)
    assert verify.main([]) == 1
    rows = _rows(capsys.readouterr().out)
    result, diff, tol, _ = rows["scaled_dot_product_attention vs torch SDPA"]
    assert result == "✗" and float(diff) == pytest.approx(1e-3, rel=0.01) and tol == "1e-05"
    assert all(r[0] == "✓" for name, r in rows.items() if not name.startswith("scaled_dot"))

    assert verify.main(["--quiet"]) == 1  # --quiet: the failed rows and the summary only
    out = capsys.readouterr().out
    assert list(_rows(out)) == ["scaled_dot_product_attention vs torch SDPA"]
    assert out.rstrip().splitlines()[-1].endswith("FAILED")


def test_a_checkpoint_whose_hash_differs_is_a_cross(monkeypatch, capsys, few_checkpoints):
    monkeypatch.setattr(verify, "COMPONENT_CHECKS", [])
    monkeypatch.setattr(verify, "sha256_of", lambda path: "0" * 64)
    assert verify.main([]) == 1
    result, _, _, detail = _rows(capsys.readouterr().out)["checkpoint vit_digits"]
    assert result == "✗" and re.search(
        r"sha256 000000000000\.\.\. but the MANIFEST lists [0-9a-f]{12}", detail
    )


def _checkpoint_rows(monkeypatch, capsys, tmp_path, models):
    """verify's rows for ``models`` ({name: module}) saved as the only shipped checkpoints of
    ``tmp_path`` (no component checks); verify must pass."""
    from lecturekit.shipped import store

    for name, model in models.items():
        store.save_shipped(model, name, training={}, data_dir=tmp_path)
    monkeypatch.setattr(verify, "COMPONENT_CHECKS", [])
    monkeypatch.setattr(verify, "shipped_names", lambda: store.shipped_names(tmp_path))
    monkeypatch.setattr(verify, "shipped_info", lambda n: store.shipped_info(n, tmp_path))
    monkeypatch.setattr(verify, "load_shipped", lambda n: store.load_shipped(n, tmp_path))
    monkeypatch.setattr(verify, "read_manifest", lambda: store.read_manifest(tmp_path))
    assert verify.main([]) == 0
    return _rows(capsys.readouterr().out)


def test_fine_tuned_bert_checkpoints_get_a_forward_pass(monkeypatch, capsys, tmp_path):
    """Checkpoints of the three fine-tuning heads (lecture 13), once shipped: logits of the
    head's shape (per sequence, per position, start logits)."""
    from lecturekit.models.bert_tasks import (
        BertForQuestionAnswering,
        BertForSequenceClassification,
        BertForTokenClassification,
        BertTaskConfig,
    )

    config = BertTaskConfig.tiny(vocab_size=30, hidden_size=8, intermediate_size=16, num_labels=3)
    models = {
        "seq": BertForSequenceClassification(config),
        "tok": BertForTokenClassification(config),
        "qa": BertForQuestionAnswering(config.replace(num_labels=2)),
    }
    rows = _checkpoint_rows(monkeypatch, capsys, tmp_path, models)
    for name, shape in (("qa", "(2, 12)"), ("seq", "(2, 3)"), ("tok", "(2, 12, 3)")):
        assert rows[f"checkpoint {name}"][0] == "✓"
        assert f"forward: logits {shape}, finite" in rows[f"checkpoint {name}"][3]


def test_lecture_15_checkpoints_get_a_forward_pass(monkeypatch, capsys, tmp_path):
    """ELECTRA and ALBERT checkpoints (lecture 15), once shipped: the discriminator's (B, T)
    logits and ALBERT's MLM logits."""
    from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
    from lecturekit.models.electra import Electra, ElectraConfig

    electra = Electra(ElectraConfig.tiny(vocab_size=30, hidden_size=8, intermediate_size=16,
                                         generator_hidden_size=4, generator_num_heads=1,
                                         generator_intermediate_size=8))  # fmt: skip
    albert = AlbertForPreTraining(AlbertConfig.tiny(vocab_size=30, embedding_size=4,
                                                    hidden_size=8, intermediate_size=16))  # fmt: skip
    rows = _checkpoint_rows(monkeypatch, capsys, tmp_path, {"electra": electra, "albert": albert})
    for name, shape in (("electra", "(2, 12)"), ("albert", "(2, 12, 30)")):
        assert rows[f"checkpoint {name}"][0] == "✓"
        assert f"forward: logits {shape}, finite" in rows[f"checkpoint {name}"][3]


def test_lecture_09a_and_11b_checkpoints_get_a_forward_pass(monkeypatch, capsys, tmp_path):
    """The captioner (lecture 09a: images and the caption so far -> word logits) and the
    Universal Transformer (lecture 11b: token ids -> a class per token), once shipped."""
    from lecturekit.efficient.universal import UniversalConfig, UniversalTransformer
    from lecturekit.models.captioning import Captioner, CaptionerConfig

    captioner = Captioner(CaptionerConfig.tiny())
    universal = UniversalTransformer(UniversalConfig.tiny(15, 4, d_model=8, num_heads=2,
                                                          d_ff=16, max_steps=2))  # fmt: skip
    models = {"captioner": captioner, "universal": universal}
    rows = _checkpoint_rows(monkeypatch, capsys, tmp_path, models)
    vocab = CaptionerConfig.tiny().vocab_size
    for name, shape in (("captioner", f"(2, 7, {vocab})"), ("universal", "(2, 12, 4)")):
        assert rows[f"checkpoint {name}"][0] == "✓", rows[f"checkpoint {name}"]
        assert f"forward: logits {shape}, finite" in rows[f"checkpoint {name}"][3]


def test_missing_checkpoints_are_one_cross(monkeypatch, capsys):
    """An installed copy without its data/ (the bug of issue 16) is one clear failed row."""

    def no_data():
        raise ValueError("data_dir='/site-packages/data' does not exist")

    monkeypatch.setattr(verify, "COMPONENT_CHECKS", [])
    monkeypatch.setattr(verify, "shipped_names", no_data)
    assert verify.main([]) == 1
    rows = _rows(capsys.readouterr().out)
    assert list(rows) == ["shipped checkpoints", *OFFLINE_ROWS]
    assert rows["shipped checkpoints"] == [
        "✗", "-", "-", "ValueError: data_dir='/site-packages/data' does not exist"
    ]  # fmt: skip


def test_without_transformers_the_hugging_face_rows_are_skipped(
    monkeypatch, capsys, few_checkpoints
):
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if not installed
    assert verify.main([]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    hugging_face_rows = (
        "BertForPreTraining vs HF BertForPreTraining",
        "BertForSequenceClassification vs HF",
        "BertForTokenClassification vs HF",
        "BertForQuestionAnswering vs HF",
        "ViT vs HF ViTForImageClassification",
        "GPT vs HF GPT2LMHeadModel",
        "Electra vs HF ElectraForPreTraining/MaskedLM",
        "AlbertForPreTraining vs HF AlbertForPreTraining",
    )
    for name in hugging_face_rows:
        assert rows[name][0] == "skipped" and rows[name][1] == "-"
        assert rows[name][3] == "transformers is not installed (pip install transformers)"
    assert rows["MultiHeadAttention vs nn.MultiheadAttention"][0] == "✓"
    assert ", 0 failed, 8 skipped in " in out


def test_a_network_attempt_is_refused_and_reported(monkeypatch, capsys, few_checkpoints):
    def looks_up_a_name():
        socket.getaddrinfo("example.invalid", 80)

    def connects():
        with socket.socket() as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: refused before any packet is sent

    monkeypatch.setattr(
        verify, "COMPONENT_CHECKS", [("looks up", looks_up_a_name), ("connects", connects)]
    )
    guarded = socket.getaddrinfo, socket.socket.connect
    assert verify.main([]) == 1
    rows = _rows(capsys.readouterr().out)
    assert rows["looks up"][0] == rows["connects"][0] == "✗"
    assert (
        "OSError: lecturekit.verify: refused getaddrinfo to example.invalid" in rows["looks up"][3]
    )
    result, _, _, detail = rows["offline: no network access by any check"]
    assert result == "✗"
    assert detail == "refused: getaddrinfo example.invalid (name look-up); connect 192.0.2.1:9"
    assert (socket.getaddrinfo, socket.socket.connect) == guarded  # put back afterwards


def test_offline_flags_that_are_off_are_a_cross(monkeypatch, capsys, few_checkpoints):
    monkeypatch.setattr(verify, "COMPONENT_CHECKS", [])
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("HF_DATASETS_OFFLINE")
    assert verify.main(["--quiet"]) == 1
    result, _, _, detail = _rows(capsys.readouterr().out)["offline: Hugging Face offline flags"]
    assert result == "✗"
    assert detail.startswith(
        "not offline: HF_HUB_OFFLINE='0', HF_DATASETS_OFFLINE unset; import lecturekit sets them to 1"
    )


def test_a_console_that_cannot_print_check_marks_gets_words(monkeypatch, few_checkpoints):
    monkeypatch.setattr(verify, "COMPONENT_CHECKS", verify.COMPONENT_CHECKS[:1])
    console = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    monkeypatch.setattr(sys, "stdout", console)
    assert verify.main(["--threads", "2"]) == 0
    console.flush()
    out = console.buffer.getvalue().decode("cp1252")
    assert _rows(out)["checkpoint vit_digits"][0] == "ok" and "2 threads)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--threads", "0"], "--threads must be in 1..1024, got 0"),
        (["--threads", "two"], "argument --threads: invalid int value: 'two'"),
        (["--fast"], "unrecognized arguments: --fast"),
    ],
)
def test_a_bad_command_line_is_one_error_line_and_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(verify, "run_checks", lambda: pytest.fail("ran before checking argv"))
    with pytest.raises(SystemExit) as exit_:
        verify.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert errors == [f"python -m lecturekit.verify: error: {message}"] and "Traceback" not in err
