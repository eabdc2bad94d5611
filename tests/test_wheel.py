"""lecturekit as a real package: the wheel carries every subpackage and the shipped checkpoints,
and an installed copy runs every notebook from a folder outside the repository, with exactly the
packages the Colab set-up cell installs (a simulated Colab).

The fast test checks setup.py: every package of lecturekit/ found, data/ installed as the
package ``lecturekit._data`` with MANIFEST and every checkpoint it lists as package data.

``test_installed_wheel_runs_notebooks_outside_the_repository`` (markers ``wheel`` and
``network``; skip it with ``-m 'not wheel'``):

1. copies the repository's files as a fresh clone has them (``git ls-files``: tracked, and new
   files not ignored), so a stale build/ or egg-info cannot leak into the wheel, and builds the
   wheel there with ``pip wheel --no-deps`` (what ``pip install .`` and
   ``pip install "lecturekit @ git+<url>"`` build);
2. checks the wheel: every file of lecturekit/ (so every subpackage), ``lecturekit/_data/`` with
   MANIFEST and every checkpoint it lists (with its sha256), pyproject's console scripts, and
   nothing else at the top level;
3. installs it into a fresh venv as the Colab set-up cell does, ``lecturekit[notebooks]``: the
   wheel's declared dependencies and its extra ``notebooks``, nothing else of requirements.txt
   (whose pins only constrain the versions, so the stored outputs hold), plus ipykernel and
   the test runner (pytest, nbval, pytest-xdist), which no notebook imports; torch as its CPU build (from
   PyTorch's CPU index, or a local wheel pip's configuration finds; otherwise the test skips,
   or fails with LECTUREKIT_REQUIRE_WHEEL=1);
4. offline from here on: checks that lecturekit is imported from the venv and finds, verifies
   and loads every checkpoint there, and that a training command without --data-dir is refused
   with one ``error:`` line (site-packages is not the place to write);
5. copies notebooks/ into an empty folder outside the repository and runs every notebook there
   under nbval (with a copy of tests/nbval_sanitize.cfg, two at a time) with the venv's python:
   a package a notebook imports that the extra lacks fails it (bertviz for 08b did, before the
   extra existed).

pip (building and installing) is the only step with the network (the ``online_env`` fixture);
pip's cache is reused.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import runpy
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import lk_offline_guard as guard  # tests/offline, put on sys.path by the root conftest.py
import pytest
from fresh_venv import (  # tests/support: shared with test_binder.py
    CPU_INDEX,
    cpu_index_reachable,
    emptied_tmp_path,
    local_torch_wheel,
    pins,
    unavailable,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
# what running the notebooks under nbval needs beyond the wheel and its extra (a kernel, and the
# test tools, which the notebooks never import); requirements.txt's pins constrain them
RUNNER = ["ipykernel", "pytest", "nbval", "pytest-xdist==3.8.0"]
DATA_PACKAGE = "lecturekit/_data"
IGNORED = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__",
                                 ".ipynb_checkpoints", "test-output", "figures-out")  # fmt: skip

build_dir = pytest.fixture(emptied_tmp_path)


def _scripts(pyproject: Path) -> dict[str, str]:
    """pyproject.toml's [project.scripts]: console script -> entry point."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pip's copy of tomli (tomllib's origin)
        from pip._vendor import tomli as tomllib
    return tomllib.loads(pyproject.read_text())["project"].get("scripts", {})


def _manifest(data_dir: Path) -> dict[str, str]:
    """{file: sha256} of data_dir/MANIFEST (the format lecturekit.shipped.store reads)."""
    lines = (data_dir / "MANIFEST").read_text().splitlines()
    pairs = [ln.split(maxsplit=1) for ln in lines if ln.strip() and not ln.startswith("#")]
    return {name: digest for digest, name in pairs}


def _source_files(src: Path) -> set[str]:
    """Every file under src/lecturekit (posix paths relative to src), caches left out."""
    return {
        p.relative_to(src).as_posix()
        for p in (src / "lecturekit").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    }


def test_setup_finds_every_package_and_ships_the_checkpoints(monkeypatch):
    """setup.py: every folder of lecturekit/ with an __init__.py is a package (found, no
    hand-kept list that could miss one), nothing outside lecturekit/ but data/, which becomes
    lecturekit._data with MANIFEST and every checkpoint it lists as package data."""
    import setuptools

    seen: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: seen.update(kw))
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "lecturekit").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert {"lecturekit.models", "lecturekit.shipped", "lecturekit.utils"} <= on_disk
    assert set(seen["packages"]) == on_disk | {"lecturekit._data"}
    assert seen["package_dir"] == {"lecturekit._data": "data"}
    assert (ROOT / "data" / "__init__.py").is_file(), "data/ must be a package (lecturekit._data)"
    patterns = seen["package_data"]["lecturekit._data"]
    for name in ["MANIFEST", "README.md", *_manifest(ROOT / "data")]:
        assert (ROOT / "data" / name).is_file(), name
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not package data"


def _copy_source(dest: Path) -> Path:
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


def _check_wheel(wheel: Path, src: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        missing = _source_files(src) - names
        assert not missing, f"the wheel lacks files of lecturekit/: {sorted(missing)}"
        manifest = _manifest(src / "data")
        assert len(manifest) >= 10, f"data/MANIFEST lists {len(manifest)} files"
        assert f"{DATA_PACKAGE}/MANIFEST" in names, f"the wheel has no {DATA_PACKAGE}/MANIFEST"
        assert zf.read(f"{DATA_PACKAGE}/MANIFEST") == (src / "data" / "MANIFEST").read_bytes()
        for file, digest in manifest.items():
            member = f"{DATA_PACKAGE}/{file}"
            assert member in names, f"the wheel lacks checkpoint {file} (listed in MANIFEST)"
            assert hashlib.sha256(zf.read(member)).hexdigest() == digest, member
        top = {n.split("/", 1)[0] for n in names}
        dist_info = {t for t in top if t.endswith(".dist-info")}
        assert top - dist_info == {"lecturekit"} and len(dist_info) == 1, sorted(top)
        scripts = _scripts(src / "pyproject.toml")
        entry_points = zf.read(f"{dist_info.pop()}/entry_points.txt").decode() if scripts else ""
        for script, target in scripts.items():
            assert f"{script} = {target}" in entry_points, f"console script {script} missing"


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


def _offline_env() -> dict[str, str]:
    """The guarded environment for the venv's processes, with no path into the repository on
    PYTHONPATH but the offline guard's own folder."""
    env = guard.child_env()
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
             if p == guard.HERE or not Path(p).resolve().is_relative_to(ROOT)]  # fmt: skip
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("VIRTUAL_ENV", None)
    return env


CHECK = """
import json, lecturekit, torch
from lecturekit.shipped import store
names = store.shipped_names()
for name in names:
    store.load_shipped(name)  # sha256 checked against the MANIFEST
print(json.dumps({"lecturekit": lecturekit.__file__, "data_dir": str(store.DATA_DIR),
                  "repository_data_dir": store.REPOSITORY_DATA_DIR and str(store.REPOSITORY_DATA_DIR),
                  "names": names, "torch": torch.__version__, "cuda": torch.version.cuda}))
"""


@pytest.mark.wheel
@pytest.mark.network  # pip: setuptools for the build, the pinned requirements for the venv
def test_installed_wheel_runs_notebooks_outside_the_repository(build_dir, online_env):
    tmp = build_dir.resolve()
    assert not tmp.is_relative_to(ROOT)
    took: dict[str, float] = {}
    start = time.perf_counter()

    src = _copy_source(tmp / "src")
    dist = tmp / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        cwd=tmp, env=online_env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert built.returncode == 0, f"pip wheel failed:\n{built.stderr[-3000:]}"
    (wheel,) = dist.glob("lecturekit-*.whl")
    _check_wheel(wheel, src)
    took["build"] = time.perf_counter() - start

    requirements = src / "requirements.txt"
    torch_args, how = _torch_source(requirements, tmp / "torch", online_env)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    # exactly what the Colab set-up cell installs (the wheel with its extra "notebooks"), at the
    # pinned versions (-c: constraints, not requirements), plus what runs notebooks under nbval;
    # --no-compile: what runs compiles on first import (byte-compiling all of torch and
    # transformers was half of the install's time)
    install = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-compile", "-c", str(requirements), *torch_args,
         f"{wheel}[notebooks]", *RUNNER],
        cwd=tmp, env=online_env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert install.returncode == 0, f"pip install failed ({how}):\n{install.stderr[-3000:]}"
    took["install"] = time.perf_counter() - start - took["build"]
    # then byte-compiled at once on every core (pip's own compiling goes one file at a time):
    # where PYTHONDONTWRITEBYTECODE is set, an uncompiled venv compiles torch, IPython and
    # lecturekit from source in every kernel (a small notebook 6-7 s under nbval instead of 3).
    # The exit status is not read: torch ships a file in Python 3.12 syntax, never imported.
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True, timeout=60).stdout.strip()  # fmt: skip
    subprocess.run([py, "-m", "compileall", "-qq", "-j", "0", purelib], capture_output=True,
                   timeout=900)  # fmt: skip
    took["compile"] = time.perf_counter() - start - took["build"] - took["install"]

    offline, outside = _offline_env(), tmp / "outside"
    outside.mkdir()
    check = subprocess.run([py, "-c", CHECK], cwd=outside, env=offline, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
    assert check.returncode == 0, check.stderr[-3000:]
    found = json.loads(check.stdout.splitlines()[-1])
    lk_file = Path(found["lecturekit"]).resolve()
    assert lk_file.is_relative_to(venv.resolve()), f"lecturekit imported from {lk_file}"
    assert not lk_file.is_relative_to(ROOT)
    assert Path(found["data_dir"]) == lk_file.parent / "_data"
    assert found["repository_data_dir"] is None
    assert found["names"] == sorted(f.removesuffix(".safetensors") for f in _manifest(src / "data"))
    pin = pins(requirements, sys.version_info[:2])["torch"]
    assert found["torch"].split("+")[0] == pin and found["cuda"] is None, found  # the CPU build
    scripts = _scripts(src / "pyproject.toml")
    assert all((venv / "bin" / s).is_file() for s in scripts), sorted(scripts)

    train = subprocess.run([py, "-m", "lecturekit.shipped.vit"], cwd=outside, env=offline,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    errors = [line for line in train.stderr.splitlines() if "error:" in line]
    assert train.returncode == 2 and len(errors) == 1, train.stderr
    assert "--data-dir is required" in errors[0] and "Traceback" not in train.stderr

    shutil.copytree(ROOT / "notebooks", outside / "notebooks", ignore=IGNORED)
    shutil.copy2(ROOT / "tests" / "nbval_sanitize.cfg", outside / "nbval_sanitize.cfg")
    # the notebooks' kernels on Unix sockets, as in the repository's own run (see the module)
    shutil.copy2(
        ROOT / "tests" / "support" / "kernel_sockets.py", outside / "notebooks" / "conftest.py"
    )
    run = subprocess.run(
        [py, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval", "--nbval-current-env",
         "-n", "2", "--dist", "loadfile",
         "--nbval-sanitize-with", str(outside / "nbval_sanitize.cfg"), *NOTEBOOKS],
        cwd=outside / "notebooks", env=offline, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    failed = [ln for ln in run.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    assert run.returncode == 0, ("nbval outside the repository (the notebooks' only run under "
                                 "nbval in CI): " + "\n".join(failed) + "\n\n"
                                 + run.stdout[-12000:])  # fmt: skip
    took["notebooks"] = time.perf_counter() - start - sum(took.values())
    size = wheel.stat().st_size / 1e6
    print(f"wheel {wheel.name}: {size:.1f} MB; {how}; "
          + ", ".join(f"{k} {v:.0f} s" for k, v in took.items()))  # fmt: skip
