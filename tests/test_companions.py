"""The deck companions (companions/, one notebook per source deck, for instructors): one per deck,
each naming its deck, holding that deck's known slips, opening with the set-up cell, with working
relative links; and the lectures no longer carry the decks' conventions boxes."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPANIONS = ROOT / "companions"

# deck id -> (words of its title the companion must name, the known slips of the decks' README,
# each by a distinctive phrase of the slide's text that the companion quotes)
DECKS = {
    "gaussier": (["Gaussier", "Grenoble"], ["41.0"]),
    "yoon": (["Yoon", "Seoul National University"], [r"\frac{1}{\sqrt{n}}", r"n = \lVert"]),
    "wu": (["Wu", "Colorado"], ["use LSA to efficiently compute", "11 GLUE tasks"]),
    "yao": (["Yao", "HKUST"], ["B is the number of inputs", "l, o, w, e, r, n, w, s, t, i, d"]),
    "cmu": (["CMU"], [r"c_t = \frac{1}{N} \sum", "41.8", "3x more matrix multiplications"]),
}
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _cells(deck: str) -> list[dict]:
    return json.loads((COMPANIONS / f"{deck}.ipynb").read_text())["cells"]


def _markdown(deck: str) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(deck) if c["cell_type"] == "markdown")


def test_one_companion_per_deck():
    assert sorted(p.stem for p in COMPANIONS.glob("*.ipynb")) == sorted(DECKS)
    index = (COMPANIONS / "README.md").read_text()
    assert all(f"({deck}.ipynb)" in index for deck in DECKS)


@pytest.mark.parametrize("deck", DECKS)
def test_companion_names_its_deck(deck):
    title = "".join(_cells(deck)[0]["source"]).splitlines()[0]
    assert title.startswith("# Companion · ")
    assert all(word in title for word in DECKS[deck][0]), title
    assert "instructor" in _markdown(deck).lower()


@pytest.mark.parametrize("deck", DECKS)
def test_known_slips_are_in_their_decks_companion(deck):
    text = _markdown(deck)
    missing = [phrase for phrase in DECKS[deck][1] if phrase not in text]
    assert not missing, f"{deck}: {missing}"


@pytest.mark.parametrize("deck", DECKS)
def test_relative_links_point_to_files(deck):
    links = [m for m in LINK.findall(_markdown(deck)) if not re.match(r"[a-z]+:", m)]
    assert links, deck
    broken = sorted({m for m in links if not (COMPANIONS / m).resolve().exists()})
    assert not broken, f"{deck}: {broken}"


def test_index_links_point_to_files():
    links = [m for m in LINK.findall((COMPANIONS / "README.md").read_text())
             if not re.match(r"[a-z]+:", m)]  # fmt: skip
    assert not [m for m in links if not (COMPANIONS / m).resolve().exists()]


@pytest.mark.parametrize("deck", DECKS)
def test_first_code_cell_is_the_setup_cell(deck):
    import notebook_links

    code = [c for c in _cells(deck) if c["cell_type"] == "code"]
    assert "".join(code[0]["source"]) == notebook_links.setup_source()
    assert notebook_links.SETUP_TAG in code[0]["metadata"].get("tags", [])
    assert not code[0]["outputs"]


@pytest.mark.parametrize("deck", DECKS)
def test_companion_is_stored_from_one_clean_run(deck):
    nb = json.loads((COMPANIONS / f"{deck}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert not re.search(r"/(root|home|tmp|Users|work)/[A-Za-z0-9_.-]+/", json.dumps(nb))


LECTURES = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.name)
def test_lectures_carry_no_deck_conventions(path):
    """The decks' conventions boxes and slip cells live in the companions, not the lectures."""
    text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
    for phrase in ("Conventions vs the slides", "the deck's slip"):
        assert phrase not in text, f"{path.name} still says {phrase!r}"


_ITEM = re.compile(r"^### l\. (\d+)(?:-(\d+))? · (.+)$", re.M)


@pytest.mark.parametrize("deck", DECKS)
def test_the_decks_examples_come_in_its_order_each_reproduced_by_code(deck):
    cells = _cells(deck)
    items = [(k, int(m.group(1))) for k, c in enumerate(cells) if c["cell_type"] == "markdown"
             for m in _ITEM.finditer("".join(c["source"]))]  # fmt: skip
    assert len(items) >= 15, f"{deck}: {len(items)} items of the deck reproduced"
    starts = [line for _, line in items]
    assert starts == sorted(starts), f"{deck}: the items leave the deck's order: {starts}"
    by_code = sum(1 for k, _ in items if k + 1 < len(cells) and cells[k + 1]["cell_type"] == "code")
    assert by_code >= 0.6 * len(items), f"{deck}: {by_code} of {len(items)} items run code"


@pytest.mark.parametrize("deck", DECKS)
def test_a_coverage_table_accounts_for_every_item(deck):
    text = _markdown(deck)
    assert re.search(r"^## .*[Cc]overage", text, re.M), f"{deck}: no coverage section"
    table = text[re.search(r"^## .*[Cc]overage", text, re.M).end() :]
    rows = [r for r in table.splitlines() if r.startswith("|") and "---" not in r][1:]
    status = [s for r in rows for s in ("reproduced", "cited", "prose") if s in r.lower()]
    assert len(status) == len(rows) >= 15, f"{deck}: {len(rows)} rows, {len(status)} with a status"
    assert status.count("reproduced") >= len(rows) // 2, f"{deck}: {status.count('reproduced')}"
