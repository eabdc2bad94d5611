"""The student release (lecturekit_publish.release; make student-release): the tree a class
hub's nbgitpuller links pull. Every lecture, no solutions or instructor material, no per-run
metadata (so re-running a notebook does not make every student's merge conflict), links that
resolve, and the same bytes from two builds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lecturekit_publish.cli import main
from lecturekit_publish.release import build_student_release, strip_run_metadata

ROOT = Path(__file__).resolve().parents[2]
LECTURES = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    build_student_release(ROOT, out)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def test_the_tree_holds_every_lecture_and_nothing_for_instructors(tree):
    assert sorted(p.name for p in (tree / "notebooks").iterdir()) == LECTURES
    assert sorted(p.name for p in tree.iterdir()) == ["LICENSE", "README.md", "notebooks"]
    readme = (tree / "README.md").read_text()
    assert all(f"notebooks/{name}" in readme for name in LECTURES)


def test_no_per_run_metadata_and_outputs_kept(tree):
    for name in LECTURES:
        nb = json.loads((tree / "notebooks" / name).read_text())
        source = json.loads((ROOT / "notebooks" / name).read_text())
        assert "widgets" not in nb["metadata"]
        assert not any("execution" in c.get("metadata", {}) for c in nb["cells"]), name
        assert [c.get("outputs") for c in nb["cells"]] == [
            c.get("outputs") for c in source["cells"]
        ]


def test_strip_run_metadata_removes_timestamps_and_widget_state():
    nb = {"metadata": {"widgets": {"state": {}}, "kernelspec": {"name": "python3"}},
          "cells": [{"cell_type": "code", "source": "1", "outputs": [],
                     "metadata": {"execution": {"iopub.status.busy": "2026"}, "tags": ["x"]}}]}  # fmt: skip
    stripped = strip_run_metadata(nb)
    assert stripped["metadata"] == {"kernelspec": {"name": "python3"}}
    assert stripped["cells"][0]["metadata"] == {"tags": ["x"]}
    assert "widgets" in nb["metadata"]  # the input is left as it was


def test_links_resolve_in_the_tree_or_point_to_the_web(tree):
    for name in LECTURES:
        for cell in json.loads((tree / "notebooks" / name).read_text())["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", "".join(cell["source"])):
                if target.startswith(("http://", "https://", "#", "mailto:")):
                    continue
                path = target.split("#")[0]
                assert (tree / "notebooks" / path).resolve().is_relative_to(tree.resolve()), (
                    f"{name}: {target} leaves the tree"
                )
                assert (tree / "notebooks" / path).exists(), f"{name}: {target} is missing"


def test_two_builds_are_byte_identical_and_keep_a_git_folder(tree, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "99_gone.ipynb").write_text("{}")
    build_student_release(ROOT, tmp_path)
    again = _files(tmp_path)
    assert again.pop(".git/HEAD") == b"ref: refs/heads/main\n"
    assert again == _files(tree)  # the stale notebook is gone, the rest the same bytes


def test_the_command_refuses_a_file_as_out(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    with pytest.raises(SystemExit) as stop:
        main(["student-release", "--out", str(tmp_path / "f"), "--root", str(ROOT)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "is a file" in err and "Traceback" not in err
    assert main(["student-release", "--out", str(tmp_path / "r"), "--root", str(ROOT)]) == 0
    assert (tmp_path / "r" / "notebooks").is_dir()
