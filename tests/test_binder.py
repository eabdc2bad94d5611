"""Binder configuration (binder/): consistent with the top-level pins, and buildable.

The fast tests check the files. ``test_binder_environment_runs_first_notebook`` (markers
``binder`` and ``network``) does what repo2docker does as far as this machine allows: a fresh
venv (Python 3.11, as runtime.txt says), ``pip install -r binder/requirements.txt`` from the
repository root, then runs notebooks/01 in it with the offline guard on. When PyTorch's CPU
index cannot be reached, the ``--extra-index-url`` line is dropped and ``torch==X+cpu`` is taken
from a local wheel (the one pip's own configuration finds, e.g. a find-links folder); without
either it skips, unless LECTUREKIT_REQUIRE_BINDER=1 (set by .ci/run), which fails instead.
pip's network use here is the only exemption from the offline guard (marker ``network``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import lk_offline_guard as guard  # tests/offline, put on sys.path by the root conftest.py
import pytest
from fresh_venv import (  # tests/support: shared with test_wheel.py
    CPU_INDEX,
    cpu_index_reachable,
    emptied_tmp_path,
    local_torch_wheel,
    unavailable,
)
from fresh_venv import pins as _requirements

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
FIRST_NOTEBOOK = ROOT / "notebooks" / "01_seq2seq_bottleneck.ipynb"


def _unavailable(reason: str) -> None:
    unavailable(reason, "LECTUREKIT_REQUIRE_BINDER")


def test_binder_folder_has_what_repo2docker_reads():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    lines = [ln.strip() for ln in (BINDER / "requirements.txt").read_text().splitlines()]
    assert f"--extra-index-url {CPU_INDEX}" in lines
    assert "-e ." in lines, "lecturekit must be installed from the repository root"
    # repo2docker runs these only if present; none is needed (JupyterLab 4 + ipywidgets 8 are in
    # its base environment). If one is added it must be executable, and start must exec "$@".
    for name in ("postBuild", "start"):
        path = BINDER / name
        if path.exists():
            assert os.access(path, os.X_OK), f"binder/{name} must be executable"
    if (BINDER / "start").exists():
        assert 'exec "$@"' in (BINDER / "start").read_text()


def test_binder_pins_match_the_top_level_requirements():
    binder, top = (
        _requirements(BINDER / "requirements.txt"),
        _requirements(ROOT / "requirements.txt"),
    )
    assert binder["torch"] == f"{top['torch']}+cpu", (
        "Binder must get the CPU build of the same torch"
    )
    student = {k: v for k, v in top.items() if k not in ("torch",)}
    tools = {"jupyterlab", "ipykernel", "nbconvert", "nbval", "pytest", "playwright"}
    for name, version in binder.items():
        if name != "torch":
            assert student.get(name) == version, (
                f"binder pins {name}=={version}, top level {student.get(name)}"
            )
    missing = set(student) - set(binder) - tools
    assert not missing, f"notebook dependencies missing from binder/requirements.txt: {missing}"


def _python311() -> str | None:
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    return shutil.which("python3.11")


build_dir = pytest.fixture(emptied_tmp_path)


@pytest.mark.binder
@pytest.mark.network  # pip install from PyPI (and PyTorch's CPU index when reachable)
def test_binder_environment_runs_first_notebook(build_dir, online_env):
    tmp_path = build_dir
    python = _python311()
    if python is None:
        _unavailable("binder/runtime.txt asks for Python 3.11: no python3.11 on this machine")
    requirements = (BINDER / "requirements.txt").read_text()
    torch_pin = _requirements(BINDER / "requirements.txt")["torch"]
    how = "as written"
    if not cpu_index_reachable(online_env):
        wheel = local_torch_wheel(torch_pin, tmp_path / "wheels", online_env)
        if wheel is None:
            _unavailable(
                f"{CPU_INDEX} is unreachable and pip finds no local torch=={torch_pin} wheel"
            )
        requirements = requirements.replace(f"--extra-index-url {CPU_INDEX}\n", "")
        requirements = requirements.replace(f"torch=={torch_pin}\n", f"{wheel}\n")
        assert CPU_INDEX not in requirements and str(wheel) in requirements
        how = f"{CPU_INDEX} unreachable: torch from {wheel.name}"
    req_file = tmp_path / "requirements.txt"
    req_file.write_text(requirements)

    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    # repo2docker: `pip install --no-cache-dir -r binder/requirements.txt` in the repo root.
    # Its base environment's kernel and notebook runner are added with the top-level pins.
    # --no-compile: the modules a kernel imports compile on first import; byte-compiling all of
    # torch and transformers at install took half of the install's ~2 minutes.
    top = _requirements(ROOT / "requirements.txt")
    base_env = [f"ipykernel=={top['ipykernel']}", f"nbconvert=={top['nbconvert']}"]
    install = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-compile", "-r", str(req_file), *base_env],
        cwd=ROOT, env=online_env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert install.returncode == 0, f"pip install failed ({how}):\n{install.stderr[-3000:]}"

    offline = guard.child_env()
    check = subprocess.run(
        [py, "-c", "import torch, lecturekit, ipywidgets, bertviz, sys;"
                   "print(torch.__version__, lecturekit.__file__, ipywidgets.__version__)"],
        env=offline, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    torch_version, lk_file, widgets_version = check.stdout.split()
    assert torch_version == torch_pin, f"Binder environment has torch {torch_version}"
    assert Path(lk_file).resolve().is_relative_to(ROOT), "lecturekit must be the editable install"
    assert widgets_version == top["ipywidgets"]

    out = tmp_path / "01.ipynb"
    run = subprocess.run(
        [py, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", str(FIRST_NOTEBOOK),
         "--output", str(out), "--ExecutePreprocessor.timeout=600"],
        cwd=tmp_path, env=offline, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, (
        f"notebook 01 failed in the Binder environment:\n{run.stderr[-3000:]}"
    )
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    widgets = [
        o for c in nb["cells"] for o in c.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]  # fmt: skip
    assert widgets, "notebook 01's widget did not display"
    print(f"Binder environment built ({how}); notebook 01 ran")
