"""lecturekit's wheel installed in a fresh venv as the Colab set-up cell installs it, built once
per test run and shared by the tests that use it (the ``wheel_venv`` fixture of
tests/conftest.py): test_wheel.py checks the package there, and test_browser.py runs the
notebooks' JupyterLab kernels there, from a folder outside the repository.

Building it (about a minute and a half on the 2-core machine):

1. the repository's files as a fresh clone has them (``git ls-files``: tracked, and new files
   not ignored), so a stale build/ or egg-info cannot leak into the wheel, and the wheel built
   there with ``pip wheel --no-deps`` (what ``pip install .`` and
   ``pip install "lecturekit @ git+<url>"`` build);
2. a fresh venv with ``lecturekit[notebooks]``: the wheel's declared dependencies and its extra
   ``notebooks``, nothing else of requirements.txt (whose pins only constrain the versions, so
   the stored outputs hold), plus ipykernel and the test runner (pytest, nbval, pytest-xdist),
   which no notebook imports; torch as its CPU build (from PyTorch's CPU index, or a local wheel
   pip's configuration finds; otherwise unavailable: a skip, or a failure with
   LECTUREKIT_REQUIRE_WHEEL=1);

Not byte-compiled up front: the root conftest.py has the run's processes write the bytecode of
what they import (the first kernel that imports torch writes its .pyc files; the others read
them), where the CI machine's PYTHONDONTWRITEBYTECODE would have every process compile them.

Shared between pytest-xdist's workers: the first test to ask builds it in the run's base folder
(the parent of the workers' own temporary folders) under a file lock; the others wait on the lock
and read what happened from ``result.json`` (the venv, or why it was skipped or failed). The
root conftest.py removes it when the run ends (``remove``). pip (building and installing) is the
only step with the network (``online_env``); pip's cache is reused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import lk_offline_guard as guard  # tests/offline, put on sys.path by the root conftest.py
import pytest
from filelock import FileLock
from fresh_venv import CPU_INDEX, cpu_index_reachable, local_torch_wheel, pins, unavailable

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "wheel-venv"  # in the run's base folder
# what running the notebooks needs beyond the wheel and its extra (a kernel, and the test tools,
# which the notebooks never import); requirements.txt's pins constrain them
RUNNER = ["ipykernel", "pytest", "nbval", "pytest-xdist==3.8.0"]
IGNORED = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__",
                                 ".ipynb_checkpoints", "test-output", "figures-out")  # fmt: skip


@dataclass
class WheelVenv:
    venv: Path
    python: Path
    wheel: Path  # the built wheel
    src: Path  # the copy of the repository it was built from
    how: str  # where torch came from
    took: dict[str, float]  # seconds: build, install


def run_folder(tmp_path_factory) -> Path:
    """The run's base folder: shared by pytest-xdist's workers (each has a subfolder of it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def offline_env() -> dict[str, str]:
    """The guarded environment for the venv's processes, with no path into the repository on
    PYTHONPATH but the offline guard's own folder."""
    env = guard.child_env()
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
             if p == guard.HERE or not Path(p).resolve().is_relative_to(ROOT)]  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("VIRTUAL_ENV", None)
    return env


def copy_source(dest: Path) -> Path:
    """The repository's files as a clone has them (plus new files not yet committed)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, timeout=60,
    )  # fmt: skip
    if listed.returncode != 0:  # not a git checkout (e.g. an unpacked archive): copy the tree
        shutil.copytree(ROOT, dest, ignore=IGNORED)
        return dest
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        path = ROOT / name
        if path.is_file():  # (a file deleted but not yet committed is listed too)
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest / name)
    return dest


def _torch_source(requirements: Path, dest: Path, env: dict[str, str]) -> tuple[list[str], str]:
    """Extra pip arguments that make requirements.txt's torch pin the CPU build."""
    pin = pins(requirements, sys.version_info[:2])["torch"]
    if cpu_index_reachable(env):
        return ["--extra-index-url", CPU_INDEX], f"torch {pin} from {CPU_INDEX}"
    wheel = local_torch_wheel(f"{pin}+cpu", dest, env)
    if wheel is None:
        unavailable(f"{CPU_INDEX} is unreachable and pip finds no local torch=={pin}+cpu wheel",
                    "LECTUREKIT_REQUIRE_WHEEL")  # fmt: skip
    return [str(wheel)], f"{CPU_INDEX} unreachable: torch from {wheel.name}"


def build(folder: Path, online_env: dict[str, str]) -> WheelVenv:
    """Build the wheel from a copy of the repository in ``folder`` and install it in a fresh
    venv there (see the module)."""
    took: dict[str, float] = {}
    start = time.perf_counter()
    src = copy_source(folder / "src")
    dist = folder / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        cwd=folder, env=online_env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert built.returncode == 0, f"pip wheel failed:\n{built.stderr[-3000:]}"
    (wheel,) = dist.glob("lecturekit-*.whl")
    took["build"] = time.perf_counter() - start

    requirements = src / "requirements.txt"
    torch_args, how = _torch_source(requirements, folder / "torch", online_env)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # exactly what the Colab set-up cell installs (the wheel with its extra "notebooks"), at the
    # pinned versions (-c: constraints, not requirements), plus what runs notebooks;
    # --no-compile: pip compiles one file at a time (half of the install's time), and most of
    # it is never imported (see the module)
    install = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-compile", "-c", str(requirements), *torch_args,
         f"{wheel}[notebooks]", *RUNNER],
        cwd=folder, env=online_env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert install.returncode == 0, f"pip install failed ({how}):\n{install.stderr[-3000:]}"
    took["install"] = time.perf_counter() - start - took["build"]
    return WheelVenv(venv, py, wheel, src, how, took)


def shared(folder: Path, online_env: dict[str, str]) -> WheelVenv:
    """The wheel venv in ``folder`` (the run's: ``run_folder(...) / FOLDER``): built by the
    first caller (of any process), read by the others; a skip or failure of the build is the
    same for every caller."""
    folder.mkdir(exist_ok=True)
    result = folder / "result.json"
    with FileLock(str(folder) + ".lock"):
        if not result.exists():
            try:
                built = build(folder, online_env)
            except pytest.skip.Exception as err:
                result.write_text(json.dumps({"skipped": str(err.msg)}))
                raise
            except BaseException as err:  # a failed build fails every test that needs it
                result.write_text(json.dumps({"failed": f"{type(err).__name__}: {err}"}))
                raise
            record = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(built).items()}
            result.write_text(json.dumps({"built": record}))
            return built
    found = json.loads(result.read_text())
    if "skipped" in found:
        pytest.skip(found["skipped"])
    if "failed" in found:
        pytest.fail(f"building the wheel's venv failed (in another test): {found['failed']}")
    record = found["built"]
    return WheelVenv(**{k: Path(v) if k in ("venv", "python", "wheel", "src") else v
                        for k, v in record.items()})  # fmt: skip


LAB_TEST = "test_notebook_in_jupyterlab"  # tests/test_browser.py


def lab_runs_the_notebooks(items) -> bool:
    """Does this run open every notebook of notebooks/ in JupyterLab (test_browser.py), where
    the kernels run this wheel's venv when it can be built, and each notebook's stored outputs
    are checked by nbval's rules (tests/support/nbval_outputs.py)? Then that is the notebooks'
    one strict run: the root conftest.py leaves out the session's own nbval items of notebooks/
    and test_wheel.py does not run them again. True when every such test is selected and
    Chromium can run them (or must: LECTUREKIT_REQUIRE_BROWSER=1, where a missing browser fails)."""
    wanted = {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")}
    selected = {
        item.callspec.params["path"].name
        for item in items
        if getattr(item, "originalname", "") == LAB_TEST
    }
    if not wanted or not wanted <= selected:
        return False
    # only now: chromium.py imports the site builder (tools/), which a run of lecturekit's own
    # tests does not need installed
    from chromium import CHROMIUM, STRICT  # tests/support

    if STRICT:
        return True
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return os.path.exists(CHROMIUM)


def remove(config) -> None:
    """At the end of the run (the process that is not a pytest-xdist worker): delete the venv
    (about 1.5 GB), if one was built."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    factory = getattr(config, "_tmp_path_factory", None)
    base = getattr(factory, "_basetemp", None)  # only if this run made its base folder
    if base is not None and (Path(base) / FOLDER).exists():
        shutil.rmtree(Path(base) / FOLDER, ignore_errors=True)
