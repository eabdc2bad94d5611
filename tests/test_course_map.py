"""docs/course-map.md maps every section of the five source decks to the notebooks: each row's
notebook exists and each section it names is a heading of that notebook, word for word, so the
map cannot silently go stale when a notebook is edited; every deck has its table and every
notebook its row in the index by notebook."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "course-map.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
DECKS = ["Gaussier", "Yoon", "Wu", "Yao", "CMU"]


def _headings(path: Path) -> set[str]:
    cells = json.loads(path.read_text())["cells"]
    return {
        m.group(1).strip()
        for c in cells if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if (m := re.match(r"^#+\s+(.*)$", line))
    }  # fmt: skip


def _rows() -> list[list[str]]:
    rows = []
    for line in MAP.read_text().splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cols) == 4 and not set(cols[0]) <= {"-"}:
            rows.append(cols)
    return rows


def test_every_deck_has_its_table_and_the_readme_links_the_map():
    text = MAP.read_text()
    for deck in DECKS:
        assert re.search(rf"^## {deck}\b", text, re.M), f"no table for the {deck} deck"
    assert "docs/course-map.md" in (ROOT / "README.md").read_text()


def test_every_named_section_is_a_heading_of_its_notebook():
    headings = {f"../notebooks/{p.name}": _headings(p) for p in NOTEBOOKS}
    checked, missing = 0, []
    for deck_section, notebook, section, _ in _rows():
        links = re.findall(r"\]\((\.\./notebooks/[^)]+)\)", notebook)
        if not links or section in ("—", "(whole notebooks)", "section"):
            continue
        sections = section.split("<br>")
        pairs = (
            zip(links, sections, strict=True)
            if len(links) > 1
            else [(links[0], s) for s in sections]
        )
        for link, heading in pairs:
            assert link in headings, f"{deck_section}: {link} is not a notebook"
            checked += 1
            if heading.strip() not in headings[link]:
                missing.append(f"{link}: {heading!r}")
    assert checked > 100
    assert not missing, (
        "headings the course map names that the notebooks no longer have:\n" + "\n".join(missing)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_is_in_the_index_by_notebook(path):
    index = MAP.read_text().split("## By notebook", 1)[1]
    assert f"../notebooks/{path.name}" in index
