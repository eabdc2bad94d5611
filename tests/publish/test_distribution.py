"""The site and slide builder as its own distribution (tools/pyproject.toml, lecturekit-publish):
outside the student package, released with lecturekit's version, depending on lecturekit, with
every static file it serves as package data."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import lecturekit
import lecturekit_publish

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: pip's copy of tomli (tomllib's origin)
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
PROJECT = tomllib.loads((TOOLS / "pyproject.toml").read_text())


def test_it_is_imported_from_tools_not_from_the_package():
    assert Path(lecturekit_publish.__file__).resolve().parent == TOOLS / "lecturekit_publish"
    assert not (ROOT / "lecturekit" / "publish").exists(), "lecturekit/publish/ is back"


def test_its_distribution_is_released_with_lecturekit():
    project = PROJECT["project"]
    assert project["name"] == "lecturekit-publish"
    assert lecturekit_publish.__version__ == lecturekit.__version__, (
        "tools/lecturekit_publish/__init__.py: set __version__ to lecturekit's"
    )
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "lecturekit_publish.__version__"
    }
    assert any(d.split("[")[0] == "lecturekit" for d in project["dependencies"])


def test_every_static_file_is_package_data():
    patterns = PROJECT["tool"]["setuptools"]["package-data"]["lecturekit_publish"]
    static = sorted((TOOLS / "lecturekit_publish" / "static").iterdir())
    assert len(static) >= 6, [p.name for p in static]
    for path in static:
        name = path.relative_to(TOOLS / "lecturekit_publish").as_posix()
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not package data"
