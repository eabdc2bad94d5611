"""What every public project has (issue 16): LICENSE, CITATION.cff, CHANGELOG.md and one version.

The version is set once, in ``lecturekit/__init__.py``; pyproject.toml reads it (setuptools'
dynamic ``attr``), CITATION.cff and the CHANGELOG's newest entry must repeat it, with the same
release date, and CITATION.cff must point at the repository pyproject.toml configures.
"""

import re
from pathlib import Path

import pytest

import lecturekit

ROOT = Path(__file__).resolve().parents[1]


def _load_cff() -> dict:
    """CITATION.cff as YAML (PyYAML comes with Jupyter); without PyYAML, its top-level scalar
    keys read line by line (enough for the checks below)."""
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is installed with jupyter
        fields = {}
        for line in text.splitlines():
            match = re.match(r"([a-z-]+):\s*(.*)$", line)
            if match and match[2] and match[2] not in (">-", "|"):
                fields[match[1]] = match[2].strip().strip('"')
        return fields
    return yaml.safe_load(text)


def _changelog_entries() -> list[tuple[str, str]]:
    """(version, date) of every ``## [x.y.z] - YYYY-MM-DD`` heading, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, flags=re.M)


def test_citation_cff_is_valid_cff_1_2_0():
    cff = _load_cff()
    assert isinstance(cff, dict), "CITATION.cff must be a YAML mapping"
    missing = [k for k in ("cff-version", "message", "title", "authors") if k not in cff]
    assert not missing, f"CITATION.cff lacks the required keys {missing}"
    assert str(cff["cff-version"]) == "1.2.0"
    assert str(cff["date-released"]) and re.fullmatch(
        r"\d{4}-\d{2}-\d{2}", str(cff["date-released"])
    )
    if isinstance(cff.get("authors"), list):  # parsed as YAML
        assert cff["authors"] == [{"name": "The lecturekit authors"}]  # an entity, not a person


def test_one_version_everywhere():
    version = lecturekit.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    cff = _load_cff()
    assert str(cff["version"]) == version, "CITATION.cff's version differs from __version__"
    entries = _changelog_entries()
    assert entries, "CHANGELOG.md has no '## [x.y.z] - YYYY-MM-DD' entry"
    newest_version, newest_date = entries[0]
    assert newest_version == version, "CHANGELOG.md's newest entry is not __version__"
    assert newest_date == str(cff["date-released"]), "CHANGELOG and CITATION dates differ"
    versions = [tuple(map(int, v.split("."))) for v, _ in entries]
    assert versions == sorted(versions, reverse=True), "CHANGELOG entries must be newest first"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    static = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, flags=re.M)
    if static:  # a version written in pyproject.toml must be the same one
        assert static[1] == version
    else:  # or it is read from the package
        assert re.search(r'^dynamic\s*=\s*\[[^]]*"version"', pyproject, flags=re.M)
        assert re.search(r'^version\s*=\s*\{\s*attr\s*=\s*"lecturekit.__version__"\s*\}',
                         pyproject, flags=re.M)  # fmt: skip


def test_citation_points_at_the_configured_repository_and_license():
    cff = _load_cff()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    repository = re.search(r'^Repository\s*=\s*"([^"]+)"', pyproject, flags=re.M)
    assert repository, "pyproject.toml's [project.urls] has no Repository"
    assert cff["repository-code"] == repository[1]
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert cff["license"] == "MIT" and license_text.startswith("MIT License")
    assert "Copyright (c) 2026 The lecturekit authors" in license_text


def _section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.find(f"\n## {title}\n")
    assert start >= 0, f"README.md has no '## {title}' section"
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end >= 0 else None]


@pytest.mark.parametrize(
    ("title", "phrases"),
    [
        ("How to cite / contribute", ["CITATION.cff", "CHANGELOG.md", "make test", "nbval",
                                      "one clean run", "ruff"]),
        ("License", ["[MIT License](LICENSE)", "CC BY 4.0", "figures", "prose"]),
    ],
)  # fmt: skip
def test_readme_says_how_to_cite_contribute_and_which_license(title, phrases):
    section = _section(title)
    missing = [p for p in phrases if p not in section]
    assert not missing, f"README's '{title}' section does not say {missing}"
