"""lecturekit as a real package: the wheel carries every subpackage and the shipped checkpoints,
and an installed copy runs every notebook from a folder outside the repository, with exactly the
packages the Colab set-up cell installs (a simulated Colab).

The fast test checks setup.py: every package of lecturekit/ found, data/ installed as the
package ``lecturekit._data`` with MANIFEST and every checkpoint it lists as package data, and
no other package data (the site builder's scripts are in tools/, not in the wheel).

``test_installed_wheel_runs_notebooks_outside_the_repository`` (markers ``wheel`` and
``network``; skip it with ``-m 'not wheel'``) takes the run's wheel venv (``wheel_venv``, built
once and shared with test_browser.py: tests/support/installed_wheel.py says how: the wheel built
from a copy of the repository as a clone has it, installed as ``lecturekit[notebooks]`` with
requirements.txt's pins as constraints, torch as its CPU build), then:

1. checks the wheel: every file of lecturekit/ (so every subpackage), ``lecturekit/_data/`` with
   MANIFEST and every checkpoint it lists (with its sha256), pyproject's console scripts,
   nothing else at the top level, and nothing of the site and slide builder (tools/: its
   modules, its slide figures and static files);
2. offline from here on: checks that lecturekit is imported from the venv and finds, verifies
   and loads every checkpoint there, and that a training command without --data-dir is refused
   with one ``error:`` line (site-packages is not the place to write);
3. every notebook run from a folder outside the repository with the venv's python, every stored
   output checked: in JupyterLab when this run opens every notebook there (test_browser.py, its
   kernels from this venv, outputs compared by nbval's rules); otherwise here, with a copy of
   notebooks/ under nbval (a copy of tests/nbval_sanitize.cfg, two at a time). A package a
   notebook imports that the extra lacks fails it (bertviz for 08b did, before the extra
   existed).

pip (building and installing) is the only step with the network (the ``online_env`` fixture);
pip's cache is reused.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import runpy
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import installed_wheel  # tests/support: the wheel's venv, shared with test_browser.py
import pytest
from fresh_venv import pins  # tests/support

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
DATA_PACKAGE = "lecturekit/_data"


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
    assert not [p for p in seen["packages"] if "publish" in p], "the site builder is in tools/"
    assert "lecturekit.figures" not in seen["packages"], "the slide figures are in tools/"
    assert _publishing_files({"lecturekit/figures/cli.py", "lecturekit/viz/figures.py",
                              "lecturekit_publish/figures/registry.py"}) == [
        "lecturekit/figures/cli.py", "lecturekit_publish/figures/registry.py"]  # fmt: skip
    assert seen["package_dir"] == {"lecturekit._data": "data"}
    assert set(seen["package_data"]) == {"lecturekit._data"}, sorted(seen["package_data"])
    assert (ROOT / "data" / "__init__.py").is_file(), "data/ must be a package (lecturekit._data)"
    patterns = seen["package_data"]["lecturekit._data"]
    for name in ["MANIFEST", "README.md", *_manifest(ROOT / "data")]:
        assert (ROOT / "data" / name).is_file(), name
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not package data"


def _publishing_files(names: set[str]) -> list[str]:
    """The site and slide builder's files among a wheel's names: its modules (lecturekit_publish,
    once lecturekit/publish), its slide figures (lecturekit_publish.figures, once
    lecturekit/figures) and their static scripts and styles. The student wheel has none."""
    static = {p.name for p in (ROOT / "tools" / "lecturekit_publish" / "static").iterdir()}
    return sorted(n for n in names if "publish" in n.split("/")[0] or "/publish/" in n
                  or n.startswith("lecturekit/figures/")
                  or n.rsplit("/", 1)[-1] in static)  # fmt: skip


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
        assert not _publishing_files(names), f"the student wheel carries {_publishing_files(names)}"
        top = {n.split("/", 1)[0] for n in names}
        dist_info = {t for t in top if t.endswith(".dist-info")}
        assert top - dist_info == {"lecturekit"} and len(dist_info) == 1, sorted(top)
        scripts = _scripts(src / "pyproject.toml")
        entry_points = zf.read(f"{dist_info.pop()}/entry_points.txt").decode() if scripts else ""
        for script, target in scripts.items():
            assert f"{script} = {target}" in entry_points, f"console script {script} missing"


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
def test_installed_wheel_runs_notebooks_outside_the_repository(wheel_venv, request, tmp_path):
    built = wheel_venv
    _check_wheel(built.wheel, built.src)
    took = dict(built.took)
    start = time.perf_counter()
    venv, py = built.venv, str(built.python)

    offline, outside = installed_wheel.offline_env(), tmp_path / "outside"
    outside.mkdir()
    assert not outside.is_relative_to(ROOT)
    check = subprocess.run([py, "-c", CHECK], cwd=outside, env=offline, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
    assert check.returncode == 0, check.stderr[-3000:]
    found = json.loads(check.stdout.splitlines()[-1])
    lk_file = Path(found["lecturekit"]).resolve()
    assert lk_file.is_relative_to(venv.resolve()), f"lecturekit imported from {lk_file}"
    assert not lk_file.is_relative_to(ROOT)
    assert Path(found["data_dir"]) == lk_file.parent / "_data"
    assert found["repository_data_dir"] is None
    src = built.src
    assert found["names"] == sorted(f.removesuffix(".safetensors") for f in _manifest(src / "data"))
    pin = pins(src / "requirements.txt", sys.version_info[:2])["torch"]
    assert found["torch"].split("+")[0] == pin and found["cuda"] is None, found  # the CPU build
    scripts = _scripts(src / "pyproject.toml")
    assert all((venv / "bin" / s).is_file() for s in scripts), sorted(scripts)

    train = subprocess.run([py, "-m", "lecturekit.shipped.vit"], cwd=outside, env=offline,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    errors = [line for line in train.stderr.splitlines() if "error:" in line]
    assert train.returncode == 2 and len(errors) == 1, train.stderr
    assert "--data-dir is required" in errors[0] and "Traceback" not in train.stderr

    if installed_wheel.lab_runs_the_notebooks(request.session.items):
        # test_browser.py opens every notebook in JupyterLab with this venv's kernels, from a
        # folder outside the repository, and checks every stored output by nbval's rules
        took["checks"] = time.perf_counter() - start
        print(f"wheel {built.wheel.name}: {built.how}; "
              + ", ".join(f"{k} {v:.0f} s" for k, v in took.items())
              + "; the notebooks run in JupyterLab with this venv (test_browser.py)")  # fmt: skip
        return
    shutil.copytree(ROOT / "notebooks", outside / "notebooks", ignore=installed_wheel.IGNORED)
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
    assert run.returncode == 0, ("nbval outside the repository (the notebooks' only strict run "
                                 "in this session): " + "\n".join(failed) + "\n\n"
                                 + run.stdout[-12000:])  # fmt: skip
    took["notebooks"] = time.perf_counter() - start
    print(f"wheel {built.wheel.name}: {built.wheel.stat().st_size / 1e6:.1f} MB; {built.how}; "
          + ", ".join(f"{k} {v:.0f} s" for k, v in took.items()))  # fmt: skip
