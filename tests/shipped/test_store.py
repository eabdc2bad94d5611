"""lecturekit.shipped.store: the checkpoint store, its one metadata layout and load_shipped."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from lecturekit.efficient.universal import UniversalConfig, UniversalTransformer
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.bert_tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertTaskConfig,
)
from lecturekit.models.captioning import Captioner, CaptionerConfig
from lecturekit.models.causal_lm import CausalLM
from lecturekit.models.electra import Electra, ElectraConfig
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.shipped import (
    bert,
    captioning,
    cli,
    finetuning,
    gpt,
    objectives,
    seq2seq,
    store,
    transformer,
    universal,
    vit,
)
from lecturekit.shipped.store import (
    DATA_DIR,
    FORMAT,
    MODEL_CLASSES,
    load_shipped,
    load_tokenizer,
    read_manifest,
    save_shipped,
    sha256_of,
    shipped_info,
    shipped_names,
)
from lecturekit.tokenization import SPECIAL_TOKENS, WordPieceTokenizer

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = shipped_names()


def test_from_the_repository_the_checkpoints_are_its_data_folder():
    """In the clone (editable install, or on sys.path) the store reads and writes data/ itself;
    an installed wheel reads its package data (tests/test_wheel.py)."""
    assert DATA_DIR == store.REPOSITORY_DATA_DIR == ROOT / "data"
    spec = importlib.util.find_spec("lecturekit._data")
    if spec is not None:  # the editable install maps lecturekit._data to data/ (setup.py)
        assert Path(spec.origin).parent == ROOT / "data"


def test_a_clone_that_is_only_on_sys_path_reads_its_data_folder(tmp_path):
    """Not installed: lecturekit._data does not exist, the data/ folder beside lecturekit/ is
    used (here the editable install's finder is taken off sys.meta_path first)."""
    code = (
        "import sys\n"
        "sys.meta_path = [f for f in sys.meta_path\n"
        "                 if not getattr(f, '__module__', '').startswith('__editable__')]\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('lecturekit._data') is None\n"
        "from lecturekit.shipped import store\n"
        "print(store.DATA_DIR, store.REPOSITORY_DATA_DIR, len(store.shipped_names()))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(ROOT / "data"), str(ROOT / "data"), str(len(SHIPPED))]


def test_training_commands_default_to_data_only_in_a_clone(monkeypatch, capsys, tmp_path):
    """--data-dir defaults to the repository's data/; with lecturekit installed from a wheel
    (no repository) it is required, with one error: line, before any work."""
    threads = ["--threads", str(torch.get_num_threads())]  # leave torch's setting as it is
    monkeypatch.setattr(store, "REPOSITORY_DATA_DIR", tmp_path)
    assert cli.parse_args("m", "d", threads).data_dir == str(tmp_path)
    assert cli.parse_args("m", "d", [*threads, "--data-dir", str(tmp_path / "x")]).data_dir == str(
        tmp_path / "x"
    )
    monkeypatch.setattr(store, "REPOSITORY_DATA_DIR", None)
    assert cli.parse_args("m", "d", [*threads, "--data-dir", str(tmp_path)]).data_dir == str(
        tmp_path
    )
    with pytest.raises(SystemExit) as exit_:
        cli.parse_args("m", "d", threads)
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert exit_.value.code == 2 and len(errors) == 1
    assert "--data-dir is required: lecturekit is installed as a package" in errors[0]


def test_every_shipped_model_has_a_module_that_regenerates_it():
    regenerated = {
        *seq2seq.MODELS,
        transformer.NAME,
        *bert.MODELS,
        *vit.MODELS,
        *finetuning.MODELS.values(),
        *gpt.MODELS,
        *objectives.MODELS,
        *captioning.MODELS,
        *universal.MODELS,
    }
    assert set(SHIPPED) == regenerated
    assert len(SHIPPED) == 23
    assert all(f"{name}.safetensors" in read_manifest(DATA_DIR) for name in SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_model_loads_in_the_one_layout(name):
    info = shipped_info(name)
    model = load_shipped(name)
    assert type(model).__name__ == info.model and not model.training
    assert model.config.to_dict() == type(model.config).from_dict(info.config).to_dict()
    assert info.training["seed"] == 0 and "data" in info.training  # the recipe is recorded
    assert info.file.name == f"{name}.safetensors"
    assert sha256_of(info.file) == read_manifest(DATA_DIR)[info.file.name]


def test_configs_are_the_lectures_tiny_ones():
    assert load_shipped("seq2seq_dot").config == Seq2SeqConfig.tiny(attention="dot")
    assert load_shipped("seq2seq_none").config == Seq2SeqConfig.tiny(attention=None)
    assert load_shipped("transformer_nmt").config == TransformerConfig.tiny()
    assert load_shipped("bert_tiny").config == BertConfig.tiny()
    assert load_shipped("vit_digits").config == ViTConfig.tiny()


def test_tokenizers_ship_with_the_models_that_read_wordpiece():
    tok = load_tokenizer("bert_tiny")
    assert isinstance(tok, WordPieceTokenizer) and len(tok) == 450
    assert tok.vocab == load_tokenizer("causal_lm_tiny").vocab
    with pytest.raises(ValueError, match=r"'vit_digits' has no tokenizer; these do: "
                       r"\['albert_tiny', 'bert_tiny', 'bert_tiny_nli', 'bert_tiny_qa', "
                       r"'bert_tiny_sop', 'bert_tiny_tagging', 'bert_tiny_topic', "
                       r"'causal_lm_tiny', 'electra_tiny', 'gpt_tiny'\]"):  # fmt: skip
        load_tokenizer("vit_digits")


def test_unknown_names_list_the_shipped_ones():
    with pytest.raises(ValueError, match=r"name='bert' is not a shipped model; choose from "
                       r"\['albert_tiny', 'bert_tiny', 'bert_tiny_nli', 'bert_tiny_qa'"):  # fmt: skip
        load_shipped("bert")
    with pytest.raises(ValueError, match="not a shipped model"):
        shipped_info("vit_digits.safetensors")


def _tiny_models():
    vocab = [*SPECIAL_TOKENS, *"abcdefghij"]
    small = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16}
    task = BertTaskConfig.tiny(vocab_size=15, hidden_size=8, intermediate_size=16, num_labels=3)
    return {
        "Seq2Seq": (Seq2Seq(Seq2SeqConfig.tiny(emb_dim=4, hidden_dim=6)), None),
        "Transformer": (Transformer(TransformerConfig.tiny(**small)), None),
        "BertForPreTraining": (BertForPreTraining(BertConfig.tiny(vocab_size=15, hidden_size=8,
                                                                  intermediate_size=16)), vocab),
        "CausalLM": (CausalLM(BertConfig.tiny(vocab_size=15, hidden_size=8)), vocab),
        "ViT": (ViT(ViTConfig.tiny(**small)), None),
        "GPT": (GPT(GPTConfig.tiny(vocab_size=15, hidden_size=8, intermediate_size=16,
                                  max_position=16)), None),
        "Electra": (Electra(ElectraConfig.tiny(vocab_size=15, hidden_size=8, intermediate_size=16,
                                               generator_hidden_size=4, generator_num_heads=1,
                                               generator_intermediate_size=8)), vocab),
        "AlbertForPreTraining": (AlbertForPreTraining(AlbertConfig.tiny(
            vocab_size=15, embedding_size=4, hidden_size=8, intermediate_size=16)), vocab),
        "Captioner": (Captioner(CaptionerConfig.tiny()), None),
        "UniversalTransformer": (UniversalTransformer(UniversalConfig.tiny(
            15, 4, d_model=8, num_heads=2, d_ff=16, max_steps=2)), None),
        "BertForSequenceClassification": (BertForSequenceClassification(task), vocab),
        "BertForTokenClassification": (BertForTokenClassification(task), vocab),
        "BertForQuestionAnswering": (BertForQuestionAnswering(task.replace(num_labels=2)), vocab),
    }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(MODEL_CLASSES))
def test_save_and_load_round_trip_for_every_model_class(tmp_path, kind):
    model, vocab = _tiny_models()[kind]
    path = save_shipped(model, "toy", training={"epochs": 1, "seed": 0}, vocab=vocab,
                        data_dir=tmp_path)  # fmt: skip
    assert read_manifest(tmp_path) == {"toy.safetensors": sha256_of(path)}
    loaded = load_shipped("toy", tmp_path)
    assert type(loaded) is type(model) and loaded.config == model.config
    mine, theirs = model.state_dict(), loaded.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)
    info = shipped_info("toy", tmp_path)
    assert (info.model, info.training, info.has_tokenizer) == (kind, {"epochs": 1, "seed": 0},
                                                               vocab is not None)  # fmt: skip
    if vocab is not None:
        assert load_tokenizer("toy", tmp_path).vocab == vocab


def test_a_changed_file_or_another_layout_is_refused(tmp_path):
    model, _ = _tiny_models()["ViT"]
    path = save_shipped(model, "toy", training={"seed": 0}, data_dir=tmp_path)
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ValueError, match=r"has sha256 .* but MANIFEST says .*regenerate it"):
        load_shipped("toy", tmp_path)
    (tmp_path / "toy.safetensors").unlink()
    with pytest.raises(ValueError, match=r"'toy\.safetensors' is missing"):
        load_shipped("toy", tmp_path)
    # the layout before lecturekit-checkpoint/1: the config alone under "config"
    old = tmp_path / "old.safetensors"
    save_file({"w": torch.zeros(2)}, str(old), metadata={"config": json.dumps({"d_model": 8})})
    (tmp_path / "MANIFEST").write_text(f"{sha256_of(old)}  old.safetensors\n")
    with pytest.raises(ValueError, match=f"does not have the metadata layout '{FORMAT}'"):
        load_shipped("old", tmp_path)


@pytest.mark.parametrize(
    ("model", "name", "match"),
    [
        (torch.nn.Linear(2, 2), "toy", "model must be one of"),
        (None, "toy.safetensors", "name must be a plain file stem"),
        (None, "", "name must be a plain file stem"),
    ],
)
def test_save_rejects_what_it_cannot_store(tmp_path, model, name, match):
    model = model if model is not None else _tiny_models()["ViT"][0]
    with pytest.raises(ValueError, match=match):
        save_shipped(model, name, training={}, data_dir=tmp_path)


def test_an_installed_package_is_not_a_place_to_write(monkeypatch, tmp_path):
    """Installed from a wheel, save_shipped needs data_dir; a broken package file says to
    reinstall, not to restore it from git."""
    from lecturekit.models.vit import ViT, ViTConfig
    from lecturekit.shipped import store

    monkeypatch.setattr(store, "REPOSITORY_DATA_DIR", None)
    model = ViT(ViTConfig.tiny())
    with pytest.raises(ValueError, match="data_dir is required: lecturekit is installed"):
        store.save_shipped(model, "toy", training={})
    path = store.save_shipped(model, "toy", training={}, data_dir=tmp_path)
    assert path.parent == tmp_path and "toy.safetensors" in store.read_manifest(tmp_path)
    assert "reinstall lecturekit" in store._restore(store.DATA_DIR)
    assert "restore it from git" in store._restore(tmp_path)


def test_data_readme_has_a_row_for_every_checkpoint_with_its_command():
    """data/README.md's table: one row per shipped checkpoint (no more), each with the command
    that regenerates it and the vocabulary row naming exactly the checkpoints that carry one."""
    import re

    text = (ROOT / "data" / "README.md").read_text()
    rows = re.findall(r"^\| `([a-z0-9_]+)` \| (.+) \| `python -m (lecturekit\.shipped\.\w+)"
                      r"(?: --models ([a-z0-9_ ]+))?` \|$", text, re.M)  # fmt: skip
    named = [name for name, *_ in rows]
    assert sorted(named) == sorted(SHIPPED), "a row per checkpoint in data/README.md"
    for name, _, module, models in rows:  # no --models: the module makes that one model
        assert not models or name in models.split(), f"{name}: its command makes another model"
        assert importlib.util.find_spec(module) is not None, f"{name}: no module {module}"
    vocab_row = re.search(r"^\| `vocab` \| (.+) \|$", text, re.M).group(1)
    listed = set(re.findall(r"`([a-z0-9_]+)(\*?)`", vocab_row))
    with_vocab = {n for n in SHIPPED if shipped_info(n).has_tokenizer}
    covered = {
        n for n in SHIPPED if any(n == s or (star and n.startswith(s)) for s, star in listed)
    }
    assert covered == with_vocab, "the vocab row names the checkpoints with a tokenizer"
