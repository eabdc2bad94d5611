"""Issue 41, the checkpoint store and the output folders of the command lines: a checkpoint is
judged by what it holds, not by its file name (bert_tiny's weights saved as gpt_tiny.safetensors
are refused, though the MANIFEST hash matches), and every CLI checks its output folder before
any work starts (one ``error:`` line naming the option, exit status 2, within a second)."""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from pathlib import Path

import pytest

from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.shipped import cli as shipped_cli
from lecturekit.shipped import store
from lecturekit_publish import cli as publish_cli
from lecturekit_publish import figures, release, site, slides, vendor
from lecturekit_publish.figures import cli as figures_cli

DATA = Path(store.DATA_DIR)
ROOT = Path(__file__).resolve().parents[1]


def _data_dir(tmp: Path, files: dict[str, str]) -> Path:
    """A data_dir holding copies of shipped checkpoints under other names ({name: shipped name})
    and a MANIFEST whose hashes match them."""
    tmp.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, source in files.items():
        shutil.copy(DATA / f"{source}.safetensors", tmp / f"{name}.safetensors")
        lines.append(f"{store.sha256_of(tmp / f'{name}.safetensors')}  {name}.safetensors")
    (tmp / "MANIFEST").write_text("\n".join(lines) + "\n")
    return tmp


# kind 1: a checkpoint holds another model than its name says
# (description, call(tmp_path), expected exception or None for a valid input, regex)
CONTENT_ROWS = [
    ("load_shipped: bert_tiny's file as gpt_tiny",
     lambda t: store.load_shipped("gpt_tiny", _data_dir(t, {"gpt_tiny": "bert_tiny"})),
     ValueError, r"gpt_tiny\.safetensors' holds a BertForPreTraining.*name='gpt_tiny' asks for a GPT"),
    ("shipped_info: a ViT's file as seq2seq_dot",
     lambda t: store.shipped_info("seq2seq_dot", _data_dir(t, {"seq2seq_dot": "vit_digits"})),
     ValueError, r"seq2seq_dot\.safetensors' holds a ViT.*name='seq2seq_dot' asks for a Seq2Seq"),
    ("load_tokenizer: gpt_tiny's file as bert_tiny",
     lambda t: store.load_tokenizer("bert_tiny", _data_dir(t, {"bert_tiny": "gpt_tiny"})),
     ValueError, r"holds a GPT \(like gpt_tiny, gpt_tiny_icl\).*name='bert_tiny' asks for a "
     r"BertForPreTraining"),
    ("load_shipped: a fine-tuned head's file as another head's name",
     lambda t: store.load_shipped("bert_tiny_qa", _data_dir(t, {"bert_tiny_qa": "bert_tiny_nli"})),
     ValueError, r"holds a BertForSequenceClassification.*asks for a BertForQuestionAnswering"),
    ("save_shipped: a ViT under the shipped GPT's name",
     lambda t: store.save_shipped(ViT(ViTConfig.tiny()), "gpt_tiny", training={}, data_dir=t),
     ValueError, r"name='gpt_tiny' is the name of a shipped GPT, and model is a ViT.*'gpt_tiny_vit'"),
    # valid inputs around the fix
    ("load_shipped: a true copy of gpt_tiny", lambda t: store.load_shipped(
        "gpt_tiny", _data_dir(t, {"gpt_tiny": "gpt_tiny"})), None, ""),
    ("load_shipped: gpt_tiny_icl's file as gpt_tiny (the same class)", lambda t: store.load_shipped(
        "gpt_tiny", _data_dir(t, {"gpt_tiny": "gpt_tiny_icl"})), None, ""),
    ("load_shipped: a name of one's own holds any model", lambda t: store.load_shipped(
        "my_bert", _data_dir(t, {"my_bert": "bert_tiny"})), None, ""),
    ("save_shipped: a GPT under gpt_tiny", lambda t: store.save_shipped(
        GPT(GPTConfig.tiny()), "gpt_tiny", training={}, data_dir=t), None, ""),
    ("save_shipped: a ViT under a name of its own", lambda t: store.save_shipped(
        ViT(ViTConfig.tiny()), "gpt_tiny_vit", training={}, data_dir=t), None, ""),
]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error", "pattern"), CONTENT_ROWS,
                         ids=[r[0] for r in CONTENT_ROWS])  # fmt: skip
def test_a_checkpoint_is_judged_by_its_content(tmp_path, what, call, error, pattern):
    if error is None:
        call(tmp_path / "data")
        return
    with pytest.raises(error, match=pattern):
        call(tmp_path / "data")


def test_the_shipped_classes_match_the_shipped_checkpoints():
    assert sorted(store.SHIPPED_CLASSES) == store.shipped_names()
    for name in store.shipped_names():
        assert store.shipped_info(name).model == store.SHIPPED_CLASSES[name], name


# kind 2: an output folder (or an input one) that is a file or cannot be written to, refused
# before any work starts. "file" and "under a file" are paths made in tmp_path; root ignores
# permissions, so the unwritable folder is one under a file.
class _Started(Exception):
    """Raised by the stubbed builders: the command went past its checks."""


def _start(*args, **kwargs):
    raise _Started


@pytest.fixture
def no_builds(monkeypatch):
    """Every builder replaced by one that raises _Started (a test never builds)."""
    monkeypatch.setattr(site, "build_site", _start)
    monkeypatch.setattr(slides, "build_slides", _start)
    monkeypatch.setattr(release, "build_student_release", _start)
    monkeypatch.setattr(vendor, "fetch", _start)
    monkeypatch.setattr(figures_cli, "_build_some", _start)


def _figure() -> str:
    return figures.names()[0]


# (description, main, argv with {out} for the path, the option the message names)
CLI_ROWS = [
    ("site --out", publish_cli.main, ["site", "--root", str(ROOT), "--out", "{out}"], "--out"),
    ("slides --out", publish_cli.main, ["slides", "--root", str(ROOT), "--out", "{out}",
                                        "--no-pdf"], "--out"),
    ("student-release --out", publish_cli.main,
     ["student-release", "--root", str(ROOT), "--out", "{out}"], "--out"),
    ("vendor --cache", publish_cli.main, ["vendor", "--cache", "{out}"], "--cache"),
    ("figures build --out", figures_cli.main,
     ["build", "NAME", "--jobs", "1", "--out", "{out}"], "--out"),
    ("shipped --data-dir", lambda argv: shipped_cli.parse_args("lecturekit.shipped.vit", "x", argv),
     ["--data-dir", "{out}"], "--data-dir"),
]  # fmt: skip
BAD_PATHS = {"a file": "file", "a folder under a file": "file/sub"}


def _argv(argv: list[str], out: Path) -> list[str]:
    return [a.replace("{out}", str(out)).replace("NAME", _figure()) for a in argv]


@pytest.mark.parametrize("where", list(BAD_PATHS))
@pytest.mark.parametrize(("what", "main", "argv", "option"), CLI_ROWS,
                         ids=[r[0] for r in CLI_ROWS])  # fmt: skip
def test_a_cli_checks_its_output_folder_first(
    no_builds, tmp_path, capsys, where, what, main, argv, option
):
    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / BAD_PATHS[where]
    start = time.perf_counter()
    with pytest.raises(SystemExit) as stop:
        main(_argv(argv, out))
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert time.perf_counter() - start < 2
    assert re.search(rf"error: {option}='{re.escape(str(out))}' (is a file|cannot be written)", err)
    assert "Traceback" not in err


@pytest.mark.parametrize(("what", "main", "argv", "option"), CLI_ROWS,
                         ids=[r[0] for r in CLI_ROWS])  # fmt: skip
def test_a_cli_accepts_a_new_output_folder(no_builds, tmp_path, what, main, argv, option):
    out = tmp_path / "new" / "folder"
    with contextlib.suppress(_Started):  # the stubbed build started: the checks passed
        main(_argv(argv, out))
    assert out.is_dir()
