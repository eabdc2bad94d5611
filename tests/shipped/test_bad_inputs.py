"""Bad inputs to the checkpoint store, the shipped models' training helpers and their four
command lines (issue 15): each gets a clear ValueError naming the argument, or (command lines)
one ``error:`` line and exit status 2, before any training starts."""

import functools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from bad_inputs import Bad, BadCli, assert_clear_error, assert_cli_error, bad_rows
from torch import nn

from lecturekit.datasets.digits import DigitsData
from lecturekit.datasets.pretraining import pretraining_batch
from lecturekit.datasets.stories import PretrainingData
from lecturekit.datasets.translation import collate, make_translation_data
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.causal_lm import CausalLM
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.shipped import bert, captioning, seq2seq, transformer, universal, vit
from lecturekit.shipped.store import (
    load_shipped,
    load_tokenizer,
    read_manifest,
    save_shipped,
    sha256_of,
    shipped_info,
    shipped_names,
)
from lecturekit.tokenization import SPECIAL_TOKENS, WordPieceTokenizer

_TMP = tempfile.TemporaryDirectory(prefix="lecturekit-bad-store-")
_SMALL = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16}


@functools.cache
def _store() -> Path:
    """A valid store with one tiny checkpoint ("toy", a ViT), made once."""
    root = Path(_TMP.name) / "good"
    save_shipped(ViT(ViTConfig.tiny(**_SMALL)), "toy", training={"seed": 0}, data_dir=root)
    return root


def _copy(name: str, manifest: str | None = None, edit=None) -> Path:
    """A copy of the valid store, its MANIFEST replaced by ``manifest`` ("{sha}" is the toy's
    hash), then ``edit(dir)`` applied."""
    target = Path(_TMP.name) / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(_store(), target)
    if manifest is not None:
        sha = sha256_of(target / "toy.safetensors")
        (target / "MANIFEST").write_text(manifest.replace("{sha}", sha))
    if edit is not None:
        edit(target)
    return target


def _corrupt(d: Path) -> None:
    path = d / "toy.safetensors"
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")


def _not_safetensors(d: Path) -> None:
    (d / "toy.safetensors").write_bytes(b"not a checkpoint")
    (d / "MANIFEST").write_text(f"{sha256_of(d / 'toy.safetensors')}  toy.safetensors\n")


def _other_layout(d: Path) -> None:
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(d / "toy.safetensors"), metadata={"format": "v0"})
    (d / "MANIFEST").write_text(f"{sha256_of(d / 'toy.safetensors')}  toy.safetensors\n")


def _no_config(d: Path) -> None:
    from safetensors.torch import save_file

    meta = {"format": "lecturekit-checkpoint/1", "model": "ViT", "training": "{}"}
    save_file({"w": torch.zeros(2)}, str(d / "toy.safetensors"), metadata=meta)
    (d / "MANIFEST").write_text(f"{sha256_of(d / 'toy.safetensors')}  toy.safetensors\n")


def _wrong_tensors(d: Path) -> None:
    from safetensors.torch import save_file

    meta = {"format": "lecturekit-checkpoint/1", "model": "ViT", "training": "{}",
            "config": json.dumps(ViTConfig.tiny(**_SMALL).to_dict())}  # fmt: skip
    save_file({"w": torch.zeros(2)}, str(d / "toy.safetensors"), metadata=meta)
    (d / "MANIFEST").write_text(f"{sha256_of(d / 'toy.safetensors')}  toy.safetensors\n")


def _a_file(name: str) -> Path:
    path = Path(_TMP.name) / name
    path.write_text("a regular file")
    return path


CONFLICT = "<<<<<<< HEAD\n{sha}  toy.safetensors\n=======\n{sha}  toy.safetensors\n>>>>>>> b\n"

# tiny models and inputs of the training helpers (built once, no training)
PAIRS = make_translation_data(n_train=4, n_valid=1, n_test=1).train
DATA = make_translation_data(n_train=4, n_valid=1, n_test=1)
BATCH = collate(PAIRS, DATA.src_vocab, DATA.tgt_vocab)
S2S = Seq2Seq(Seq2SeqConfig.tiny(emb_dim=4, hidden_dim=6))
TRANSFORMER = Transformer(TransformerConfig.tiny(**_SMALL))
VOCAB = [*SPECIAL_TOKENS, "the", "cat", "sat", "dog", "ran"]
TOK = WordPieceTokenizer(VOCAB)
BERT = BertForPreTraining(BertConfig.tiny(vocab_size=len(VOCAB), hidden_size=8,
                                          intermediate_size=16))  # fmt: skip
LM = CausalLM(BertConfig.tiny(vocab_size=len(VOCAB), hidden_size=8, intermediate_size=16))
DOCS = [["the cat sat", "the dog ran"], ["the dog sat", "the cat ran"]]
NSP = [("the cat sat", "the dog ran", 0), ("the dog sat", "the cat", 1)]
STORIES = PretrainingData(DOCS, DOCS, TOK)
DIGITS = DigitsData(torch.rand(4, 1, 8, 8), torch.arange(4), torch.rand(2, 1, 8, 8),
                    torch.arange(2))  # fmt: skip
VIT = ViT(ViTConfig.tiny(**_SMALL))
IMAGES, LABELS = torch.rand(4, 1, 8, 8), torch.tensor([0, 1, 2, 3])

S, T, B, V = "store", "seq2seq", "bert", "vit"
ROWS = [
    # --- the store: names
    Bad(f"{S}.load_shipped: a typo'd name", "model", lambda: load_shipped("bert_tiy"),
        ["name='bert_tiy'", "not a shipped model", "did you mean 'bert_tiny'"]),
    Bad(f"{S}.load_tokenizer: a typo'd name", "model", lambda: load_tokenizer("bert_tini"),
        ["name='bert_tini'", "bert_tiny"]),
    Bad(f"{S}.shipped_info: a typo'd name", "model", lambda: shipped_info("vit_digit"),
        ["name='vit_digit'", "vit_digits"]),
    Bad(f"{S}.load_shipped: the file name", "model",
        lambda: load_shipped("vit_digits.safetensors"), ["name=", "vit_digits"]),
    Bad(f"{S}.load_shipped: an int name", "type", lambda: load_shipped(3), ["name", "int"]),
    Bad(f"{S}.load_shipped: a model given as the name", "type", lambda: load_shipped(VIT),
        ["name", "ViT"]),
    Bad(f"{S}.load_tokenizer: a model without one", "model",
        lambda: load_tokenizer("vit_digits"), ["'vit_digits' has no tokenizer", "bert_tiny"]),
    # --- the store: data files and directories
    Bad(f"{S}.load_shipped: MANIFEST with merge-conflict markers", "data",
        lambda: load_shipped("toy", _copy("conflict", CONFLICT)), ["MANIFEST", "line 1"]),
    Bad(f"{S}.read_manifest: a line with one field", "data",
        lambda: read_manifest(_copy("one_field", "# header\n{sha}\n")), ["MANIFEST", "line 2"]),
    Bad(f"{S}.shipped_names: a bad sha256", "data",
        lambda: shipped_names(_copy("bad_sha", "abc123  toy.safetensors\n")),
        ["MANIFEST", "line 1", "sha256"]),
    Bad(f"{S}.load_shipped: a file listed twice", "data",
        lambda: load_shipped("toy", _copy("twice", "{sha}  toy.safetensors\n" + "0" * 64
                                          + "  toy.safetensors\n")),
        ["MANIFEST", "line 2", "toy.safetensors"]),
    Bad(f"{S}.load_shipped: a changed checkpoint", "data",
        lambda: load_shipped("toy", _copy("corrupt", edit=_corrupt)),
        ["toy.safetensors", "sha256", "MANIFEST"]),
    Bad(f"{S}.load_shipped: a checkpoint missing", "data",
        lambda: load_shipped("toy", _copy("missing", edit=lambda d: (d / "toy.safetensors")
                                          .unlink())), "'toy.safetensors' is missing"),
    Bad(f"{S}.load_shipped: not a safetensors file", "data",
        lambda: load_shipped("toy", _copy("garbage", edit=_not_safetensors)),
        ["toy.safetensors", "safetensors"]),
    Bad(f"{S}.load_shipped: metadata of another format", "data",
        lambda: load_shipped("toy", _copy("layout", edit=_other_layout)),
        ["toy.safetensors", "lecturekit-checkpoint/1"]),
    Bad(f"{S}.shipped_info: metadata without a config", "data",
        lambda: shipped_info("toy", _copy("no_config", edit=_no_config)),
        ["toy.safetensors", "config"]),
    Bad(f"{S}.load_shipped: tensors that do not fit the config", "data",
        lambda: load_shipped("toy", _copy("wrong_tensors", edit=_wrong_tensors)),
        ["toy.safetensors", "does not fit a ViT"]),
    Bad(f"{S}.load_shipped: data_dir does not exist", "data",
        lambda: load_shipped("toy", Path(_TMP.name) / "nowhere"), ["data_dir", "does not exist"]),
    Bad(f"{S}.load_shipped: data_dir without a MANIFEST", "data",
        lambda: load_shipped("toy", _copy("no_manifest", edit=lambda d: (d / "MANIFEST")
                                          .unlink())), ["data_dir", "MANIFEST"]),
    Bad(f"{S}.shipped_names: data_dir is a file", "data",
        lambda: shipped_names(_a_file("data_dir_file")), ["data_dir", "not a directory"]),
    Bad(f"{S}.load_shipped: data_dir an int", "type", lambda: load_shipped("toy", 3),
        ["data_dir", "int"]),
    # --- save_shipped
    Bad(f"{S}.save_shipped: a model it cannot save", "model",
        lambda: save_shipped(nn.Linear(2, 2), "toy", training={}, data_dir=_TMP.name),
        ["model", "Linear"]),
    Bad(f"{S}.save_shipped: a name with a slash", "type",
        lambda: save_shipped(VIT, "../toy", training={}, data_dir=_TMP.name), ["name", "'../toy'"]),
    Bad(f"{S}.save_shipped: an int name", "type",
        lambda: save_shipped(VIT, 3, training={}, data_dir=_TMP.name), ["name", "3"]),
    Bad(f"{S}.save_shipped: data_dir cannot be written", "data",
        lambda: save_shipped(VIT, "toy", training={},
                             data_dir=_a_file("save_blocker") / "out"), "data_dir"),
    Bad(f"{S}.save_shipped: training not JSON", "type",
        lambda: save_shipped(VIT, "toy", training={"x": torch.zeros(1)}, data_dir=_TMP.name),
        ["training", "JSON"]),
    Bad(f"{S}.save_shipped: training a list", "type",
        lambda: save_shipped(VIT, "toy", training=[1], data_dir=_TMP.name), ["training", "dict"]),
    Bad(f"{S}.save_shipped: vocab a string", "type",
        lambda: save_shipped(VIT, "toy", training={}, vocab="abc", data_dir=_TMP.name), "vocab"),
    # --- seq2seq
    Bad(f"{T}.seq2seq_loss: a Transformer", "model", lambda: seq2seq.seq2seq_loss(TRANSFORMER,
                                                                                   BATCH),
        ["model", "Seq2Seq", "Transformer"]),
    Bad(f"{T}.seq2seq_loss: a dict for the batch", "type",
        lambda: seq2seq.seq2seq_loss(S2S, {"src": BATCH.src}), ["batch", "Batch"]),
    Bad(f"{T}.train_seq2seq: an unknown attention", "range",
        lambda: seq2seq.train_seq2seq("dott", DATA), ["attention='dott'", "dot"]),
    Bad(f"{T}.train_seq2seq: an unknown attention_query", "range",
        lambda: seq2seq.train_seq2seq("dot", DATA, attention_query="next"),
        ["attention_query='next'", "previous"]),
    Bad(f"{T}.train_seq2seq: attention_query 'previous' without attention", "range",
        lambda: seq2seq.train_seq2seq("none", DATA, attention_query="previous"),
        ["attention_query", "attention=None"]),
    Bad(f"{T}.train_seq2seq: epochs 0", "size", lambda: seq2seq.train_seq2seq(epochs=0),
        "epochs"),
    Bad(f"{T}.train_seq2seq: batch_size 0", "size", lambda: seq2seq.train_seq2seq(batch_size=0),
        "batch_size"),
    Bad(f"{T}.train_seq2seq: lr 0", "size", lambda: seq2seq.train_seq2seq(lr=0.0), "lr"),
    Bad(f"{T}.train_seq2seq: lr_decay 2", "range", lambda: seq2seq.train_seq2seq(lr_decay=2.0),
        "lr_decay"),
    Bad(f"{T}.train_seq2seq: a negative seed", "range", lambda: seq2seq.train_seq2seq(seed=-1),
        "seed"),
    Bad(f"{T}.train_seq2seq: data a list of pairs", "type",
        lambda: seq2seq.train_seq2seq(data=PAIRS), ["data", "TranslationData"]),
    Bad(f"{T}.train_seq2seq: eval_pairs a Pair", "type",
        lambda: seq2seq.train_seq2seq(data=DATA, eval_pairs=PAIRS[0]), ["eval_pairs"]),
    Bad(f"{T}.train_seq2seq: device nonsense", "range",
        lambda: seq2seq.train_seq2seq(data=DATA, device="nonsense"), ["device='nonsense'", "cuda"]),
    Bad(f"{T}.train_seq2seq: a GPU that is not there", "range",
        lambda: seq2seq.train_seq2seq(data=DATA, device="cuda:99"),
        ["device='cuda:99'", "not available"]),
    # --- transformer
    Bad("transformer.transformer_loss: a Seq2Seq", "model",
        lambda: transformer.transformer_loss(S2S, BATCH), ["model", "Transformer", "Seq2Seq"]),
    Bad("transformer.transformer_loss: label_smoothing 1.5", "range",
        lambda: transformer.transformer_loss(TRANSFORMER, BATCH, 1.5), "label_smoothing"),
    Bad("transformer.learning_rate: step 0", "range", lambda: transformer.learning_rate(0, 1e-3,
                                                                                        10),
        "step"),
    Bad("transformer.learning_rate: warmup 0", "size",
        lambda: transformer.learning_rate(1, 1e-3, 0), "warmup"),
    Bad("transformer.learning_rate: peak_lr 0", "size",
        lambda: transformer.learning_rate(1, 0.0, 10), "peak_lr"),
    Bad("transformer.train_transformer: epochs 0", "size",
        lambda: transformer.train_transformer(epochs=0), "epochs"),
    Bad("transformer.train_transformer: batch_size 0", "size",
        lambda: transformer.train_transformer(batch_size=0), "batch_size"),
    Bad("transformer.train_transformer: warmup 0", "size",
        lambda: transformer.train_transformer(warmup=0), "warmup"),
    Bad("transformer.train_transformer: lr negative", "size",
        lambda: transformer.train_transformer(lr=-1e-3), "lr"),
    Bad("transformer.train_transformer: a dict config", "type",
        lambda: transformer.train_transformer(config={"d_model": 8}),
        ["config", "TransformerConfig", "from_dict"]),
    Bad("transformer.train_transformer: vocabularies smaller than the data's", "model",
        lambda: transformer.train_transformer(DATA, TransformerConfig.tiny(**_SMALL,
                                                                             src_vocab_size=10)),
        ["config", "src_vocab_size"]),
    Bad("transformer.train_transformer: device an int", "type",
        lambda: transformer.train_transformer(DATA, device=0), ["device=0", "torch.device"]),
    # --- bert
    Bad(f"{B}.bert_loss: the causal LM", "model",
        lambda: bert.bert_loss(LM, pretraining_batch(NSP, TOK)),
        ["model", "BertForPreTraining", "CausalLM"]),
    Bad(f"{B}.bert_loss: a batch without its labels", "type",
        lambda: bert.bert_loss(BERT, {"input_ids": torch.zeros(1, 3, dtype=torch.long)}),
        ["batch", "mlm_labels"]),
    Bad(f"{B}.train_bert: epochs 0", "size", lambda: bert.train_bert(epochs=0), "epochs"),
    Bad(f"{B}.train_bert: a dict config", "type", lambda: bert.train_bert(config={}),
        ["config", "BertConfig"]),
    Bad(f"{B}.train_bert: a config with a smaller vocabulary", "model",
        lambda: bert.train_bert(STORIES, config=BertConfig.tiny(vocab_size=5)),
        ["config", "vocab_size"]),
    Bad(f"{B}.train_causal_lm: epochs -1", "size", lambda: bert.train_causal_lm(epochs=-1),
        "epochs"),
    Bad(f"{B}.train_causal_lm: data a list of documents", "type",
        lambda: bert.train_causal_lm(DOCS), ["data", "PretrainingData"]),
    Bad(f"{B}.train_bert: device gpu", "range", lambda: bert.train_bert(STORIES, device="gpu"),
        ["device='gpu'", "cuda"]),
    Bad(f"{B}.train_causal_lm: device meta", "range",
        lambda: bert.train_causal_lm(STORIES, device=torch.device("meta")), ["device=", "meta"]),
    # --- vit
    Bad(f"{V}.accuracy: labels of another length", "shape",
        lambda: vit.accuracy(VIT, IMAGES, LABELS[:3]), ["labels", "images", "(3,)"]),
    Bad(f"{V}.accuracy: float labels", "dtype",
        lambda: vit.accuracy(VIT, IMAGES, LABELS.float()), ["labels", ".long()"]),
    Bad(f"{V}.accuracy: a list of images", "type",
        lambda: vit.accuracy(VIT, IMAGES.tolist(), LABELS), ["images", "list"]),
    Bad(f"{V}.accuracy: batch_size 0", "size", lambda: vit.accuracy(VIT, IMAGES, LABELS, 0),
        "batch_size"),
    Bad(f"{V}.accuracy: not a model", "type", lambda: vit.accuracy(None, IMAGES, LABELS),
        ["model", "nn.Module"]),
    Bad(f"{V}.train_classifier: data a tuple", "type",
        lambda: vit.train_classifier(VIT, (IMAGES, LABELS)), ["data", "DigitsData"]),
    Bad(f"{V}.train_classifier: a state dict for the model", "type",
        lambda: vit.train_classifier(VIT.state_dict(), DIGITS), ["model", "nn.Module"]),
    Bad(f"{V}.train_classifier: batch_size 0", "size",
        lambda: vit.train_classifier(VIT, DIGITS, batch_size=0), "batch_size"),
    Bad(f"{V}.train_classifier: label_smoothing 1", "range",
        lambda: vit.train_classifier(VIT, DIGITS, label_smoothing=1.0), "label_smoothing"),
    Bad(f"{V}.train_classifier: augment_prob 2", "range",
        lambda: vit.train_classifier(VIT, DIGITS, augment_prob=2.0), "augment_prob"),
    Bad(f"{V}.train_classifier: max_shift -1", "size",
        lambda: vit.train_classifier(VIT, DIGITS, max_shift=-1), "max_shift"),
    Bad(f"{V}.train_classifier: weight_decay -0.1", "range",
        lambda: vit.train_classifier(VIT, DIGITS, weight_decay=-0.1), "weight_decay"),
    Bad(f"{V}.train_classifier: lr a string", "type",
        lambda: vit.train_classifier(VIT, DIGITS, lr="2e-3"), "lr"),
    Bad(f"{V}.train_classifier: device cdua", "range",
        lambda: vit.train_classifier(VIT, DIGITS, device="cdua"), ["device='cdua'", "'cuda'"]),
    Bad(f"{V}.train_vit: device a list", "type", lambda: vit.train_vit(device=["cpu"]),
        ["device=['cpu']", "cpu, cuda"]),
    Bad(f"{V}.train_vit: a typo'd name", "model", lambda: vit.train_vit("vit_digit"),
        ["name='vit_digit'", "did you mean 'vit_digits'"]),
    Bad(f"{V}.train_vit: data a tuple", "type", lambda: vit.train_vit(data=(IMAGES, LABELS)),
        ["data", "DigitsData"]),
    Bad(f"{V}.recipe: an unknown name", "model", lambda: vit.recipe("vit_base"),
        ["name='vit_base'", "vit_digits"]),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad, monkeypatch):
    _no_work(monkeypatch)
    assert_clear_error(bad)


def _started(*args, **kwargs):
    raise AssertionError("work started")


def _no_work(monkeypatch):
    """Training, data loading and fitting raise: a row passes only if it fails before them."""
    for module, names in (
        (seq2seq, ("default_data", "fit")),
        (transformer, ("default_data", "fit")),
        (bert, ("default_data", "fit")),
        (vit, ("load_digits_data", "fit")),
    ):
        for name in names:
            monkeypatch.setattr(module, name, _started)


@pytest.fixture
def no_training(monkeypatch):
    _no_work(monkeypatch)
    for module, names in (
        (seq2seq, ("train_seq2seq",)),
        (transformer, ("train_transformer",)),
        (bert, ("train_bert", "train_causal_lm")),
        (vit, ("train_vit",)),
    ):
        for name in names:
            monkeypatch.setattr(module, name, _started)


def _unwritable() -> str:
    return str(_a_file("cli_blocker") / "out")


MAINS = {"seq2seq": seq2seq.main, "transformer": transformer.main, "bert": bert.main,
         "vit": vit.main, "captioning": captioning.main, "universal": universal.main}  # fmt: skip
CLI_ROWS = []
for _cli, _main in MAINS.items():
    CLI_ROWS += [
        BadCli(f"{_cli}.main: --threads 0", _main, ["--threads", "0"], "--threads"),
        BadCli(f"{_cli}.main: --threads -1", _main, ["--threads", "-1"], "--threads"),
        BadCli(f"{_cli}.main: --threads two", _main, ["--threads", "two"], "--threads"),
        BadCli(
            f"{_cli}.main: an unwritable --data-dir",
            _main,
            ["--data-dir", "UNWRITABLE"],
            ["--data-dir", "out"],
        ),
        BadCli(
            f"{_cli}.main: --data-dir a file",
            _main,
            ["--data-dir", "A_FILE"],
            ["--data-dir", "not a directory"],
        ),
        BadCli(f"{_cli}.main: an unknown option", _main, ["--lr", "0.1"], "--lr"),
        BadCli(f"{_cli}.main: --device cuda:99 (no such GPU)", _main, ["--device", "cuda:99"],
               ["--device cuda:99", "not available on this machine"]),
        BadCli(f"{_cli}.main: --device nonsense", _main, ["--device", "nonsense"],
               ["--device nonsense", "cpu, cuda, cuda:N or mps"]),
        BadCli(f"{_cli}.main: --device gpu", _main, ["--device", "gpu"],
               ["--device gpu", "use cuda"]),
        BadCli(f"{_cli}.main: --device without a value", _main, ["--device"], "--device"),
    ]  # fmt: skip
    if not torch.cuda.is_available():  # the rows a machine without that device must refuse
        CLI_ROWS.append(
            BadCli(
                f"{_cli}.main: --device cuda without a GPU",
                _main,
                ["--device", "cuda"],
                ["--device cuda", "not available", "torch.cuda.is_available() is False"],
            )
        )
    if not torch.backends.mps.is_available():
        CLI_ROWS.append(
            BadCli(
                f"{_cli}.main: --device mps off a Mac",
                _main,
                ["--device", "mps"],
                ["--device mps", "torch.backends.mps.is_available() is False"],
            )
        )
    if _cli != "vit":
        CLI_ROWS += [
            BadCli(f"{_cli}.main: --epochs 0", _main, ["--epochs", "0"], "--epochs"),
            BadCli(f"{_cli}.main: --epochs 1.5", _main, ["--epochs", "1.5"], "--epochs"),
        ]
    if _cli != "transformer":
        CLI_ROWS += [
            BadCli(
                f"{_cli}.main: an unknown --models name",
                _main,
                ["--models", "gpt"],
                ["--models", "'gpt'"],
            ),
            BadCli(f"{_cli}.main: --models without a name", _main, ["--models"], "--models"),
        ]
CLI_ROWS.append(BadCli("vit.main: --epochs (vit has none)", vit.main, ["--epochs", "3"],
                       "--epochs"))  # fmt: skip


@pytest.mark.parametrize("bad", CLI_ROWS, ids=[r.id for r in CLI_ROWS])
def test_bad_command_line(bad, no_training):
    argv = [_unwritable() if a == "UNWRITABLE" else str(_a_file("cli_file")) if a == "A_FILE"
            else a for a in bad.argv]  # fmt: skip
    threads = torch.get_num_threads()
    assert_cli_error(BadCli(bad.id, bad.main, argv, bad.names))
    assert torch.get_num_threads() == threads  # nothing was set


@pytest.mark.parametrize("module", sorted(MAINS))
def test_command_line_in_a_subprocess_is_one_error_line(module, tmp_path):
    """The real command line: exit status 2, one ``error:`` line, no traceback, and the data
    directory (a path under a regular file) refused before the data is even made."""
    blocker = tmp_path / "file.txt"
    blocker.write_text("a regular file")
    run = subprocess.run(
        [sys.executable, "-m", f"lecturekit.shipped.{module}", "--data-dir",
         str(blocker / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "--data-dir" in errors[0], run.stderr
    assert "Traceback" not in run.stderr + run.stdout


# --- legitimate inputs: accepted, documented


def test_a_path_given_as_a_string_works(tmp_path):
    """``data_dir`` may be a str or a Path; ``save_shipped`` creates a new directory."""
    path = save_shipped(VIT, "toy", training={"seed": 0}, data_dir=str(tmp_path / "new"))
    assert shipped_names(str(tmp_path / "new")) == ["toy"] and path.exists()


def test_manifest_comments_and_blank_lines_are_skipped():
    d = _copy("comments", "# a comment\n\n   \n{sha}  toy.safetensors\n# another\n")
    assert shipped_names(d) == ["toy"]
    assert isinstance(load_shipped("toy", d), ViT)


def test_the_data_directory_is_created_and_kept_when_valid(tmp_path, no_training):
    """A --data-dir that does not exist yet is made (and checked) before training starts."""
    threads = torch.get_num_threads()
    try:
        with pytest.raises(AssertionError, match="work started"):
            vit.main(["--data-dir", str(tmp_path / "new" / "dir")])
    finally:
        torch.set_num_threads(threads)
    assert (tmp_path / "new" / "dir").is_dir()
