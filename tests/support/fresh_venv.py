"""Helpers for the tests that build a fresh venv and run notebooks in it (test_binder.py,
test_wheel.py): the pins of a requirements file, where pip gets the CPU build of torch, and a
build folder that is emptied afterwards.

PyPI's torch for Linux bundles CUDA (several GB); these tests install the CPU build of the
pinned version instead: from PyTorch's CPU index when it can be reached, else from a local wheel
that pip's own configuration finds (e.g. a find-links folder). Without either the test skips,
unless its ``LECTUREKIT_REQUIRE_*`` variable is 1 (CI), which fails it instead.

Use the build folder as a fixture with ``build_dir = pytest.fixture(emptied_tmp_path)``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def pins(path: Path, python: tuple[int, int] = (3, 11)) -> dict[str, str]:
    """name -> exact version for the ``name==version`` lines of a requirements file that apply
    to ``python`` (markers ``python_version >= / < "3.11"`` only)."""
    found = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;]+)\s*(?:;\s*(.*))?$", line)
        if not m:
            continue
        name, version, marker = m.groups()
        if marker:
            ok = re.match(r'python_version\s*(>=|<)\s*"(\d+)\.(\d+)"', marker)
            assert ok, f"unexpected marker in {path.name}: {marker}"
            bound = (int(ok.group(2)), int(ok.group(3)))
            if (python >= bound) != (ok.group(1) == ">="):
                continue
        found[name.lower()] = version
    return found


def unavailable(reason: str, variable: str) -> None:
    """Skip the test, or fail it when the environment variable ``variable`` is 1 (set by
    .ci/run: there the test must run)."""
    if os.environ.get(variable) == "1":
        pytest.fail(f"{reason} ({variable}=1: this test must run here)")
    pytest.skip(reason)


def cpu_index_reachable(env: dict[str, str]) -> bool:
    """Can PyTorch's CPU wheel index be read (with the network that ``env`` allows)?"""
    probe = (
        f"import urllib.request\nurllib.request.urlopen('{CPU_INDEX}/torch/', timeout=10).read(1)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, timeout=60)
    return done.returncode == 0


def local_torch_wheel(version: str, dest: Path, env: dict[str, str]) -> Path | None:
    """``torch==version`` (e.g. 2.13.0+cpu) as a wheel file that pip's configuration finds without
    an index (find-links), copied to ``dest``; None if there is none."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", f"torch=={version}", "--no-deps", "--no-index",
         "--only-binary=:all:", "-d", str(dest), "-q"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    wheels = sorted(dest.glob(f"torch-{version}-*.whl"))
    return wheels[0] if done.returncode == 0 and wheels else None


def emptied_tmp_path(tmp_path: Path) -> Iterator[Path]:
    """tmp_path, emptied afterwards (a venv with torch is about 1.5 GB; pytest keeps old tmp
    dirs). A fixture body: ``build_dir = pytest.fixture(emptied_tmp_path)``."""
    yield tmp_path
    for child in tmp_path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink()
