"""Shipped checkpoints: safetensors files in data/, each listed with its sha256 in data/MANIFEST.

Public API::

    save_checkpoint(state_dict, config: dict, name, data_dir=DATA_DIR)  # writes + updates MANIFEST
    state_dict, config = load_checkpoint(name, data_dir=DATA_DIR)       # verifies the sha256
    sha256_of(path) -> str

Loading refuses a file whose hash differs from the MANIFEST, or that the MANIFEST does not list,
with a ValueError that says how to regenerate it. Nothing is ever downloaded.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

__all__ = ["DATA_DIR", "sha256_of", "save_checkpoint", "load_checkpoint", "read_manifest"]

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def sha256_of(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(data_dir: Path | str = DATA_DIR) -> dict[str, str]:
    """{file name: sha256} from data_dir/MANIFEST (lines "sha256  name"; # comments)."""
    path = Path(data_dir) / "MANIFEST"
    entries: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                digest, name = line.split(maxsplit=1)
                entries[name] = digest
    return entries


def _write_manifest(entries: dict[str, str], data_dir: Path) -> None:
    lines = ["# sha256  path (relative to data/) -- one line per shipped artefact"]
    lines += [f"{digest}  {name}" for name, digest in sorted(entries.items())]
    (data_dir / "MANIFEST").write_text("\n".join(lines) + "\n")


def save_checkpoint(
    state_dict: dict[str, torch.Tensor],
    config: dict,
    name: str,
    data_dir: Path | str = DATA_DIR,
) -> Path:
    """Write ``name`` (a .safetensors file) with ``config`` as JSON metadata; record its sha256."""
    from safetensors.torch import save_file

    if not name.endswith(".safetensors"):
        raise ValueError(f"name must end with .safetensors, got {name!r}")
    data_dir = Path(data_dir)
    path = data_dir / name
    tensors = {k: v.detach().contiguous().cpu() for k, v in state_dict.items()}
    save_file(tensors, str(path), metadata={"config": json.dumps(config, sort_keys=True)})
    entries = read_manifest(data_dir)
    entries[name] = sha256_of(path)
    _write_manifest(entries, data_dir)
    return path


def load_checkpoint(
    name: str, data_dir: Path | str = DATA_DIR
) -> tuple[dict[str, torch.Tensor], dict]:
    """Load a shipped checkpoint after checking its sha256 against data/MANIFEST."""
    from safetensors import safe_open

    data_dir = Path(data_dir)
    path = data_dir / name
    expected = read_manifest(data_dir).get(name)
    if expected is None:
        raise ValueError(f"{name!r} is not listed in {data_dir.name}/MANIFEST")
    if not path.exists():
        raise ValueError(f"checkpoint {name!r} is missing from {data_dir.name}/")
    actual = sha256_of(path)
    if actual != expected:
        raise ValueError(
            f"checkpoint {name!r} has sha256 {actual[:12]}..., but MANIFEST says "
            f"{expected[:12]}...: the file is corrupt or was changed; restore it from git, "
            "or regenerate it with its command in data/README.md"
        )
    with safe_open(str(path), framework="pt") as f:
        config = json.loads(f.metadata()["config"])
        state = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (safe_open has no iter)
    return state, config
