"""Every notebook is stored as nbval needs it: outputs from one clean top-to-bottom run, no error
outputs, no paths of the machine that ran it, the standard kernel; and the README lists it."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_from_one_clean_run(path):
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), "re-run top to bottom with nbconvert --execute"
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert not re.search(r"/(root|home|tmp|Users)/[A-Za-z0-9_.-]+/", json.dumps(nb))
    first = "".join(nb["cells"][0]["source"])
    assert nb["cells"][0]["cell_type"] == "markdown" and first.startswith("# ")
    text = json.dumps([c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"]).lower()
    assert "summary" in text and "exercise" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_readme_lists_notebook(path):
    assert f"notebooks/{path.name}" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_markers_are_exact(path):
    """nbval honours a marker only when the comment line is exactly the marker: a note after it
    silently turns the marker off."""
    markers = {"# NBVAL_IGNORE_OUTPUT", "# NBVAL_CHECK_OUTPUT", "# NBVAL_SKIP",
               "# NBVAL_RAISES_EXCEPTION"}  # fmt: skip
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith("# NBVAL"):
                assert line.strip() in markers, f"{line!r} is not an nbval marker nbval reads"
