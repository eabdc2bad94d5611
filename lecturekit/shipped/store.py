"""The checkpoint store: the shipped models in data/, each listed with its sha256 in data/MANIFEST.

Where they are (``DATA_DIR``, found with ``importlib.resources``): the repository keeps them in
its top-level data/, which setup.py installs as the package ``lecturekit._data``. So in a wheel
(``pip install .``, ``pip install "lecturekit @ git+<url>"``) they are package data inside the
installed lecturekit, in an editable install (``pip install -e .``) ``lecturekit._data`` is the
repository's data/ itself, and in a clone that is only on sys.path (not installed) the data/
folder beside lecturekit/ is used. ``REPOSITORY_DATA_DIR`` is that data/ when lecturekit runs
from a clone (where ``python -m lecturekit.shipped.<module>`` writes by default), None when it
is installed from a wheel (site-packages is not the place to write: give ``--data-dir``).

Public API::

    shipped_names()                      # every shipped model, e.g. "seq2seq_dot", "bert_tiny"
    model = load_shipped("bert_tiny")    # the model, in eval mode (sha256 checked)
    tok = load_tokenizer("bert_tiny")    # its WordPiece tokenizer (models that have one)
    info = shipped_info("bert_tiny")     # ShippedInfo(name, model, config, training, file)
    save_shipped(model, name, training=recipe, vocab=None, data_dir=None)  # + MANIFEST; None: data/
    sha256_of(path), read_manifest(data_dir)

One metadata layout for every checkpoint (safetensors metadata, strings):

    "format"    "lecturekit-checkpoint/1"
    "model"     the class in lecturekit.models: Seq2Seq, Transformer, BertForPreTraining,
                CausalLM, ViT, GPT, Electra, AlbertForPreTraining, or a fine-tuned
                BertForSequenceClassification, BertForTokenClassification or
                BertForQuestionAnswering
    "config"    JSON of ``model.config.to_dict()``
    "training"  JSON of the recipe that trained it (data, budget, optimiser, seed)
    "vocab"     JSON list of the tokenizer's vocabulary (only models that read WordPiece ids)

The tensors are the model's ``state_dict()``. Loading refuses a file whose hash differs from
the MANIFEST, or that the MANIFEST does not list, or that holds another class than the shipped
model of its name (``SHIPPED_CLASSES``: e.g. bert_tiny's weights saved as gpt_tiny.safetensors,
in any data_dir), with a ValueError that says how to regenerate it; an unknown name gets the
shipped names and the close matches of a typo; a malformed MANIFEST line (e.g. a merge-conflict
marker) is named by file and line number. Nothing is ever downloaded. The modules next to
this one train, save and evaluate each shipped model (``python -m lecturekit.shipped.<module>``
regenerates them).

Lectures 01, 02, 07-10, 13 (the models they load).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from torch import nn

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
from lecturekit.tokenization import WordPieceTokenizer
from lecturekit.utils.checks import check_strings, check_writable_dir, did_you_mean

__all__ = [
    "DATA_DIR",
    "REPOSITORY_DATA_DIR",
    "FORMAT",
    "MODEL_CLASSES",
    "SHIPPED_CLASSES",
    "ShippedInfo",
    "sha256_of",
    "read_manifest",
    "shipped_names",
    "shipped_info",
    "load_shipped",
    "load_tokenizer",
    "save_shipped",
]


def _find_data_dir() -> Path:
    """The folder of the shipped checkpoints: the package ``lecturekit._data`` (package data of
    a wheel, or the repository's data/ in an editable install), else, in a clone that is only on
    sys.path, the data/ folder beside lecturekit/."""
    try:
        found = resources.files("lecturekit._data")
    except ModuleNotFoundError:  # not installed: setup.py's mapping of data/ does not apply
        found = resources.files("lecturekit").joinpath(os.pardir, "data")
    return Path(str(found)).resolve()


def _repository_data_dir(data_dir: Path) -> Path | None:
    """``data_dir`` if it is a repository's top-level data/ (a clone, editable or not)."""
    is_repository = data_dir.name == "data" and (data_dir.parent / "pyproject.toml").is_file()
    return data_dir if is_repository else None


DATA_DIR = _find_data_dir()
REPOSITORY_DATA_DIR = _repository_data_dir(DATA_DIR)
FORMAT = "lecturekit-checkpoint/1"
SUFFIX = ".safetensors"
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
# class name in the metadata -> (model class, its config class)
MODEL_CLASSES: dict[str, tuple[type[nn.Module], type]] = {
    "Seq2Seq": (Seq2Seq, Seq2SeqConfig),
    "Transformer": (Transformer, TransformerConfig),
    "BertForPreTraining": (BertForPreTraining, BertConfig),
    "CausalLM": (CausalLM, BertConfig),
    "ViT": (ViT, ViTConfig),
    "GPT": (GPT, GPTConfig),
    "Electra": (Electra, ElectraConfig),
    "AlbertForPreTraining": (AlbertForPreTraining, AlbertConfig),
    "BertForSequenceClassification": (BertForSequenceClassification, BertTaskConfig),
    "BertForTokenClassification": (BertForTokenClassification, BertTaskConfig),
    "BertForQuestionAnswering": (BertForQuestionAnswering, BertTaskConfig),
    "Captioner": (Captioner, CaptionerConfig),
    "UniversalTransformer": (UniversalTransformer, UniversalConfig),
}
# each shipped name -> the class its checkpoint holds: a file saved under a shipped name must hold
# that model, whatever data_dir it is in (the hash only says the file is the one the MANIFEST lists)
SHIPPED_CLASSES: dict[str, str] = {
    **dict.fromkeys(["seq2seq_none", "seq2seq_additive", "seq2seq_general"], "Seq2Seq"),
    **dict.fromkeys(["seq2seq_dot", "seq2seq_bahdanau"], "Seq2Seq"),
    **dict.fromkeys(["bert_tiny", "bert_tiny_sop"], "BertForPreTraining"),
    **dict.fromkeys(["bert_tiny_topic", "bert_tiny_nli"], "BertForSequenceClassification"),
    "bert_tiny_qa": "BertForQuestionAnswering",
    "bert_tiny_tagging": "BertForTokenClassification",
    "causal_lm_tiny": "CausalLM",
    **dict.fromkeys(["gpt_tiny", "gpt_tiny_icl"], "GPT"),
    **dict.fromkeys(["vit_digits", "vit_digits_moved"], "ViT"),
    **dict.fromkeys(["captioner_scenes", "captioner_scenes_pooled"], "Captioner"),
    "transformer_nmt": "Transformer",
    "electra_tiny": "Electra",
    "albert_tiny": "AlbertForPreTraining",
    **dict.fromkeys(["ut_act_pointers", "ut_fixed_pointers"], "UniversalTransformer"),
}


@dataclass(frozen=True)
class ShippedInfo:
    """What a shipped checkpoint says about itself (its metadata), without the weights."""

    name: str
    model: str  # class name, a key of MODEL_CLASSES
    config: dict[str, object]
    training: dict[str, object]
    has_tokenizer: bool
    file: Path


def sha256_of(path: Path | str) -> str:
    """The sha256 hex digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _data_dir(data_dir: object) -> Path:
    """``data_dir`` as a Path: an existing directory."""
    if not isinstance(data_dir, (str, os.PathLike)):
        raise ValueError(f"data_dir must be a path (str or Path), got {type(data_dir).__name__}")
    path = Path(data_dir)
    if not path.exists():
        raise ValueError(f"data_dir={str(path)!r} does not exist")
    if not path.is_dir():
        raise ValueError(f"data_dir={str(path)!r} is not a directory")
    return path


def read_manifest(data_dir: Path | str = DATA_DIR) -> dict[str, str]:
    """{file name: sha256} from data_dir/MANIFEST (lines "sha256  name"; # comments and blank
    lines skipped). A data_dir without a MANIFEST lists nothing ({}).

    A line that is not "<64 hex digits>  <file name>" (e.g. a git merge-conflict marker), or a
    file listed twice, raises a ValueError naming the file and the line number.
    """
    path = _data_dir(data_dir) / "MANIFEST"
    entries: dict[str, str] = {}
    lines: dict[str, int] = {}
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path}, line {number}"
        if line.startswith(("<<<<<<<", "=======", ">>>>>>>", "|||||||")):
            raise ValueError(
                f"{where}: {line!r} is a git merge-conflict marker; resolve the "
                "conflict (keep one line per file), or restore the file from git"
            )
        fields = line.split(maxsplit=1)
        if len(fields) != 2 or not _SHA256.fullmatch(fields[0]):
            raise ValueError(
                f"{where}: expected '<sha256 (64 hex digits)>  <file name>', got {line!r}"
            )
        digest, name = fields[0].lower(), fields[1]
        if name in entries:
            raise ValueError(f"{where}: {name!r} is listed twice (also on line {lines[name]})")
        entries[name], lines[name] = digest, number
    return entries


def _write_manifest(entries: dict[str, str], data_dir: Path) -> None:
    lines = ["# sha256  path (relative to data/) -- one line per shipped artefact"]
    lines += [f"{digest}  {name}" for name, digest in sorted(entries.items())]
    (data_dir / "MANIFEST").write_text("\n".join(lines) + "\n")


def shipped_names(data_dir: Path | str = DATA_DIR) -> list[str]:
    """The names of the shipped models: the checkpoints data/MANIFEST lists, without suffix."""
    return sorted(f[: -len(SUFFIX)] for f in read_manifest(data_dir) if f.endswith(SUFFIX))


def _check_name(name: object, data_dir: Path | str) -> tuple[Path, str]:
    """The data directory and the checkpoint file of shipped model ``name``."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a string like 'bert_tiny', got {type(name).__name__}")
    path = _data_dir(data_dir)
    if not (path / "MANIFEST").exists():
        raise ValueError(f"data_dir={str(path)!r} has no MANIFEST: it holds no shipped models")
    names = shipped_names(path)
    if name not in names:
        stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
        hint = (f"; give the name without {SUFFIX!r}: {stem!r}" if stem in names
                else did_you_mean(name, names))  # fmt: skip
        raise ValueError(f"name={name!r} is not a shipped model; choose from {names}{hint}")
    return path, f"{name}{SUFFIX}"


def _restore(data_dir: Path) -> str:
    """How to get a good copy back: git in a clone, a reinstall for the package's own data."""
    if data_dir.resolve() == DATA_DIR and REPOSITORY_DATA_DIR is None:
        return "reinstall lecturekit (pip install --force-reinstall lecturekit)"
    return "restore it from git, or regenerate it with its command in data/README.md"


def _path(name: object, data_dir: Path | str) -> Path:
    """The verified checkpoint file of shipped model ``name``."""
    data_dir, file = _check_name(name, data_dir)
    path = data_dir / file
    if not path.exists():
        raise ValueError(f"checkpoint {file!r} is missing from {data_dir.name}/ (the MANIFEST "
                         f"lists it): {_restore(data_dir)}")  # fmt: skip
    expected, actual = read_manifest(data_dir)[file], sha256_of(path)
    if actual != expected:
        raise ValueError(
            f"checkpoint {file!r} has sha256 {actual[:12]}..., but MANIFEST says "
            f"{expected[:12]}...: the file is corrupt or was changed; {_restore(data_dir)}"
        )
    return path


def _read(name: str, data_dir: Path | str, tensors: bool) -> tuple[dict, dict[str, str], Path]:
    from safetensors import SafetensorError, safe_open

    path = _path(name, data_dir)
    regenerate = "regenerate it with its command in data/README.md"
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            state = {k: f.get_tensor(k) for k in f.keys()} if tensors else {}  # noqa: SIM118
    except SafetensorError as err:
        raise ValueError(f"checkpoint {path.name!r} is not a safetensors file ({err}); "
                         f"{regenerate}") from None  # fmt: skip
    if meta.get("format") != FORMAT or meta.get("model") not in MODEL_CLASSES:
        raise ValueError(
            f"checkpoint {path.name!r} does not have the metadata layout {FORMAT!r} (see "
            f"lecturekit.shipped.store); {regenerate}"
        )
    for key in ("config", "training", *(("vocab",) if "vocab" in meta else ())):
        try:
            json.loads(meta[key])
        except (KeyError, ValueError):
            raise ValueError(f"checkpoint {path.name!r} has no valid {key!r} in its metadata "
                             f"(JSON, layout {FORMAT!r}); {regenerate}") from None  # fmt: skip
    _check_class(name, meta["model"], path)
    return state, meta, path


def _check_class(name: str, kind: str, path: Path) -> None:
    """Refuse a checkpoint whose content is another model than its name says: shipped model
    ``name`` is a SHIPPED_CLASSES[name], whatever file (and MANIFEST hash) is under its name."""
    wanted = SHIPPED_CLASSES.get(name)
    if wanted is None or kind == wanted:
        return
    alike = [n for n, k in SHIPPED_CLASSES.items() if k == kind]
    like = f" (like {', '.join(alike)})" if alike else ""
    raise ValueError(
        f"checkpoint {str(path)!r} holds a {kind}{like}, but name={name!r} asks for a {wanted}: "
        f"the file is another model's saved under that name; {_restore(path.parent)}"
    )


def shipped_info(name: str, data_dir: Path | str = DATA_DIR) -> ShippedInfo:
    """The metadata of shipped model ``name`` (hash-checked, weights not loaded)."""
    _, meta, path = _read(name, data_dir, tensors=False)
    return ShippedInfo(name, meta["model"], json.loads(meta["config"]),
                       json.loads(meta["training"]), "vocab" in meta, path)  # fmt: skip


def load_shipped(name: str, data_dir: Path | str = DATA_DIR) -> nn.Module:
    """Shipped model ``name`` (see ``shipped_names()``), its sha256 checked, in eval mode.

    Lectures 01, 02, 07-10, 13.
    """
    state, meta, path = _read(name, data_dir, tensors=True)
    model_class, config_class = MODEL_CLASSES[meta["model"]]
    try:
        model = model_class(config_class.from_dict(json.loads(meta["config"])))
    except ValueError as err:  # a config of another version
        raise ValueError(f"checkpoint {path.name!r} has a config lecturekit cannot build ({err}); "
                         "regenerate it with its command in data/README.md") from None  # fmt: skip
    wanted = model.state_dict()
    problems = [f"missing {k}" for k in wanted if k not in state]
    problems += [f"unexpected {k}" for k in state if k not in wanted]
    for k, v in wanted.items():
        if k in state and state[k].shape != v.shape:
            problems.append(f"{k} has shape {tuple(state[k].shape)}, not {tuple(v.shape)}")
    if problems:
        more = f" and {len(problems) - 3} more" if len(problems) > 3 else ""
        raise ValueError(
            f"checkpoint {path.name!r} does not fit a {meta['model']} of its config "
            f"({'; '.join(problems[:3])}{more}); regenerate it with its command in data/README.md"
        )
    model.load_state_dict(state)
    return model.eval()


def load_tokenizer(name: str, data_dir: Path | str = DATA_DIR) -> WordPieceTokenizer:
    """The WordPiece tokenizer shipped model ``name`` reads its ids with.

    Lecture 08.
    """
    _, meta, _ = _read(name, data_dir, tensors=False)
    if "vocab" not in meta:
        with_vocab = [n for n in shipped_names(data_dir) if shipped_info(n, data_dir).has_tokenizer]
        raise ValueError(f"shipped model {name!r} has no tokenizer; these do: {with_vocab}")
    return WordPieceTokenizer(json.loads(meta["vocab"]))


def save_shipped(
    model: nn.Module,
    name: str,
    *,
    training: dict[str, object],
    vocab: list[str] | None = None,
    data_dir: Path | str | None = None,
) -> Path:
    """Write ``model`` as data_dir/<name>.safetensors in the one metadata layout and record its
    sha256 in data_dir/MANIFEST. ``training`` is the recipe (JSON-ready); ``vocab`` the
    tokenizer's vocabulary, for models that read WordPiece ids. ``data_dir`` defaults to the
    repository's data/ in a clone; an installed lecturekit needs it given (its package data
    is not a place to write)."""
    from safetensors.torch import save_file

    kind = type(model).__name__
    if kind not in MODEL_CLASSES or type(model) is not MODEL_CLASSES[kind][0]:
        raise ValueError(f"model must be one of {sorted(MODEL_CLASSES)}, got {kind}")
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.endswith(SUFFIX):
        raise ValueError(f"name must be a plain file stem like 'bert_tiny' (letters, digits, "
                         f"'_', '-', '.'), got {name!r}")  # fmt: skip
    if not isinstance(training, Mapping):
        raise ValueError(f"training must be a dict (the recipe), got {type(training).__name__}")
    try:
        training_json = json.dumps(training, sort_keys=True)
    except (TypeError, ValueError) as err:
        raise ValueError(f"training must be JSON-ready (numbers, strings, lists, dicts): {err}"
                         ) from None  # fmt: skip
    if SHIPPED_CLASSES.get(name, kind) != kind:  # load_shipped(name) would refuse it
        own = f"{name}_{kind.lower()}"
        raise ValueError(f"name={name!r} is the name of a shipped {SHIPPED_CLASSES[name]}, and "
                         f"model is a {kind}: give it a name of its own, e.g. {own!r}")  # fmt: skip
    if vocab is not None:
        vocab = check_strings("vocab", vocab)
    if data_dir is None:
        if REPOSITORY_DATA_DIR is None:
            raise ValueError(
                "data_dir is required: lecturekit is installed as a package, and its checkpoints "
                f"in {DATA_DIR} are not a place to write; give data_dir=DIR, then "
                "load_shipped(name, DIR) reads what it wrote"
            )
        data_dir = REPOSITORY_DATA_DIR
    data_dir = check_writable_dir("data_dir", data_dir)
    read_manifest(data_dir)  # a malformed MANIFEST is refused before anything is written
    path = data_dir / f"{name}{SUFFIX}"
    metadata = {
        "format": FORMAT,
        "model": kind,
        "config": json.dumps(model.config.to_dict(), sort_keys=True),
        "training": training_json,
    }
    if vocab is not None:
        metadata["vocab"] = json.dumps(vocab)
    tensors = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
    save_file(tensors, str(path), metadata=metadata)
    entries = read_manifest(data_dir)
    entries[path.name] = sha256_of(path)
    _write_manifest(entries, data_dir)
    return path
