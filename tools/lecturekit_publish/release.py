"""The student release: the tree a class hub's nbgitpuller link pulls into every student's home.

    python -m lecturekit_publish student-release --out student-release     # make student-release

It holds what a student opens and nothing else::

    student-release/README.md            # how to start, the lectures in order
    student-release/LICENSE
    student-release/notebooks/NN_*.ipynb  # the lectures, with their stored outputs

No ``solutions/`` (the worked answers), no deck companions or tests (instructor material), and
no per-run metadata in the notebooks: each cell's execution timestamps and the widget state
change with every re-run, and nbgitpuller merges the instructor's new version into a student's
edited copy, so a change that only re-ran a notebook would otherwise conflict in every cell.
Links from the notebooks to files outside the tree (``../docs/course-map.md``,
``../solutions/...``) point to the course repository on the web instead. Two builds of the same
commit are byte-identical.

The instructor commits the tree to the repository (or branch) the nbgitpuller links name;
docs/teaching-a-class.md gives the link template. ``out`` is written in place: a ``.git`` in it
is kept, the files this command writes are replaced, notebooks no longer in the course removed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from lecturekit_publish.site import repository_url

__all__ = ["build_student_release", "strip_run_metadata"]

_LINK = re.compile(r"\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")  # markdown links leaving notebooks/
_CELL_RUN_KEYS = ("execution", "collapsed", "scrolled", "ExecuteTime")
_NOTEBOOK_RUN_KEYS = ("widgets",)


def strip_run_metadata(nb: dict) -> dict:
    """The notebook without what changes with every run: cells' execution timestamps (and
    JupyterLab's view state), the notebook's widget state. Outputs and sources stay."""
    nb = json.loads(json.dumps(nb))
    for key in _NOTEBOOK_RUN_KEYS:
        nb.get("metadata", {}).pop(key, None)
    for cell in nb["cells"]:
        for key in _CELL_RUN_KEYS:
            cell.get("metadata", {}).pop(key, None)
    return nb


def _web_links(text: str, web: str) -> str:
    def to_web(match: re.Match) -> str:
        target = match.group(1)[len("../") :]
        if target.startswith("notebooks/"):
            return match.group(0)  # stays inside the tree
        kind = "tree" if target.endswith("/") else "blob"
        return f"]({web}/{kind}/main/{target.rstrip('/')}{match.group(2) or ''})"

    return _LINK.sub(to_web, text)


def _title(nb: dict) -> str:
    first = "".join(nb["cells"][0]["source"]).splitlines()[0]
    return first.lstrip("# ").strip()


README = """\
# {name}: the lectures

Open a lecture in `notebooks/`, in order, and run it from the top (*Run > Run All Cells*); each
runs on one core in under a minute. Every lecture asks you to predict before it shows, and ends
with exercises that `check` your answer without giving it away (`hint("NN.k")` gives one hint at
a time) and a short recall.

This folder is a copy your class hub keeps up to date (with nbgitpuller): your own edits are
kept when it updates, but a file you changed that the course also changed keeps your version.
To start a lecture afresh, rename your copy and open the link again.

Worked solutions, the course website, the slide decks and the source code are in the course
repository: {web}

| Lecture | Notebook |
|---|---|
{rows}
"""


def build_student_release(root: str | Path, out: str | Path) -> list[Path]:
    """Write the student release of the clone ``root`` into ``out``; returns the files written."""
    root, out = Path(root), Path(out)
    sources = sorted((root / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    if not sources:
        raise ValueError(f"root must be a clone of the course, got {str(root)!r}: no notebooks/")
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, got {str(out)!r}, which is a file")
    web = repository_url(root)
    notebooks = out / "notebooks"
    if notebooks.exists():
        shutil.rmtree(notebooks)
    notebooks.mkdir(parents=True)
    written, rows = [], []
    for path in sources:
        nb = strip_run_metadata(json.loads(path.read_text(encoding="utf-8")))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"])
                cell["source"] = _web_links(text, web).splitlines(keepends=True)
        target = notebooks / path.name
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
        rows.append(f"| {_title(nb)} | [`{path.name}`](notebooks/{path.name}) |")
    readme = out / "README.md"
    readme.write_text(README.format(name=web.rsplit("/", 1)[-1], web=web, rows="\n".join(rows)),
                      encoding="utf-8")  # fmt: skip
    written.append(readme)
    if (root / "LICENSE").is_file():
        shutil.copyfile(root / "LICENSE", out / "LICENSE")
        written.append(out / "LICENSE")
    return written
