"""The slide decks without a browser: which cells each notebook's tags put on slides, in what
order, with what notes; the recall slides; the page holds no network address; the PDF's dates
are fixed without moving a byte; bad tags stop the build with a message naming the cell."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from lecturekit.exercises import recall
from lecturekit_publish import figures, slides
from lecturekit_publish.cli import main
from lecturekit_publish.notebook import lecture_notebooks, read_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = lecture_notebooks(ROOT / "notebooks")


def _md(text, *tags):
    return {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": text}


def _code(src, out, *tags):
    outputs = [{"output_type": "stream", "name": "stdout", "text": out}] if out else []
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": src,
            "outputs": outputs, "execution_count": 1}  # fmt: skip


FIGURE = figures.names("03")[0]


def _notebook():
    return {"cells": [
        _md("# Lecture 03 · Toy\n\n**Slides:** Yoon (SNU), step 1.\n\n**What you will learn**\n\n"
            "1. one $x$\n2. two", "slides:learn"),
        _md("## 1. Scores\n\nThe score is $q \\cdot k$:\n\n$$s = q \\cdot k$$", "slides:key"),
        _md("Prose under the key cell."),
        _md("### The example\n\nWhy it matters."),
        _code("print('q1 . k1 = 112')", "q1 . k1 = 112\n", "slides:example"),
        _md("A figure cell's prose.", f"slides:figure:{FIGURE}"),
        _md("## Summary\n\n- a\n- b\n\n## Exercises\n\n- not on a slide", "slides:summary"),
    ]}  # fmt: skip


def test_a_deck_follows_its_tags_in_notebook_order():
    deck = slides.read_deck(_notebook(), "03_toy")
    kinds = [s.kind for s in deck.slides]
    n_recall = len(slides._recall_slides("03"))
    assert kinds == ["title", "learn", "key", "example", "figure"] + ["recall"] * n_recall + [
        "summary"
    ]
    title, learn, key, example, figure = deck.slides[:5]
    assert title.title == "Toy" and "Yoon (SNU), step 1." in title.notes
    assert "What you will learn" not in title.notes and "one" not in title.notes
    assert "<a " not in title.notes
    assert slides.markdown_html("See [14b](14b_x.ipynb).") == slides.markdown_html("See 14b.")
    assert '<a href="https://x.org/a">' in slides.markdown_html("[a](https://x.org/a)")
    assert "<li>one" in learn.body and learn.cell == 0
    assert key.title == "1. Scores" and "$$" in key.body and "Prose under" in key.notes
    assert example.title == "The example" and "q1 . k1 = 112" in example.body
    assert "print(" in example.body and "Why it matters" in example.notes  # code, then output
    assert f"{FIGURE}-light.png" in figure.body and f"{FIGURE}-dark.png" in figure.body
    assert figures.spec(FIGURE).takeaway in figure.body.replace("&#x27;", "'")
    assert "A figure cell" in figure.notes
    summary = deck.slides[-1]
    assert "<li>a</li>" in summary.body and "not on a slide" not in summary.body
    assert deck.figures == [FIGURE]


def test_a_diagram_the_notebook_shows_is_a_slide_in_both_themes(monkeypatch):
    from lecturekit.viz import diagrams
    from lecturekit.viz.diagram import Diagram

    def toy_diagram() -> Diagram:
        d = Diagram(300, 100, alt="A query box and a key box joined by an arrow.")
        d.box("q", 60, 50, "query", kind="input")
        d.box("k", 240, 50, "key", kind="weight")
        d.arrow("q", "k")
        return d

    monkeypatch.setattr(diagrams, "diagrams", lambda: {"lecture_03.toy_diagram": toy_diagram})
    nb = _notebook()
    data, meta = toy_diagram()._repr_mimebundle_()
    shown = _code(
        "toy_diagram()",
        "",
    )
    shown["outputs"] = [{"output_type": "execute_result", "data": data, "metadata": meta}]
    nb["cells"][1:1] = [_md("The picture first."), shown]
    deck = slides.read_deck(nb, "03_toy")
    assert [s.kind for s in deck.slides][:3] == ["title", "learn", "diagram"]
    slide = deck.slides[2]
    assert "The picture first." in slide.notes
    assert 'alt="A query box and a key box joined by an arrow."' in slide.body
    assert sorted(deck.diagrams) == ["03_toy-toy_diagram-dark.svg", "03_toy-toy_diagram-light.svg"]
    assert deck.diagrams["03_toy-toy_diagram-dark.svg"] == toy_diagram().svg("dark")
    shown["source"] = "toy_diagram(width=3)"  # not the registered picture: say so
    with pytest.raises(ValueError, match="cell 2: a diagram cell should call"):
        slides.read_deck(nb, "03_toy")


def test_an_example_cell_may_show_its_result_as_a_value():
    nb = _notebook()
    nb["cells"][4]["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": "✓ the scores are exact\n"},
        {"output_type": "execute_result", "data": {"text/plain": "(112, 96)"}, "metadata": {},
         "execution_count": 1},
    ]  # fmt: skip
    example = slides.read_deck(nb, "03_toy").slides[3]
    assert example.kind == "example"
    assert "✓ the scores are exact\n(112, 96)" in example.body


def test_recall_slides_reveal_each_blank_on_a_click(monkeypatch):
    made = slides._recall_slides("03")
    body = "".join(s.body for s in made)
    assert body.count('class="fragment lk-answer"') == len(recall.blanks("03")) == 4
    for b in recall.blanks("03"):
        assert f'data-blank="{b.id}"' in body and b.id in "".join(s.notes for s in made)
    words = [slides.slide_words(re.sub(r"<[^>]+>", " ", s.body)) for s in made]
    assert len(made) == 2 and max(words) <= slides.WORD_LIMIT < sum(words), words
    assert slides._recall_slides("09") == []
    short = recall.blanks("04")[:1] * 5  # five short blanks: at most four a slide, 3 + 2
    monkeypatch.setattr(recall, "blanks", lambda lecture: short)
    made = slides._recall_slides("03")
    assert [s.body.count("<li") for s in made] == [3, 2] and "(2/2)" in made[1].title


def test_a_long_cell_is_projected_by_its_slide_text_and_read_in_the_notes():
    nb = _notebook()
    long = "## 1. Scores\n\n" + "The score compares a query with a key. " * 8 + "$$s = q \\cdot k$$"
    nb["cells"][1]["source"] = long
    with pytest.raises(ValueError, match=r"cell 1: a slide of 64 words .* at most 40"):
        slides.read_deck(nb, "03_toy")
    nb["cells"][1]["metadata"]["lecturekit"] = {"slide": "A query meets a key. $$s = q \\cdot k$$"}
    key = slides.read_deck(nb, "03_toy").slides[2]
    assert key.kind == "key" and "A query meets a key." in key.body and "compares" not in key.body
    assert "compares a query" in key.notes and "Prose under" in key.notes
    nb["cells"][1]["metadata"]["lecturekit"] = {"slide": ["One $x$.", "Two $$y$$"]}
    two = [s for s in slides.read_deck(nb, "03_toy").slides if s.kind == "key"]
    assert [s.title for s in two] == ["1. Scores (1/2)", "1. Scores (2/2)"]
    nb["cells"][1]["metadata"]["lecturekit"] = {"slide": "The score, for the example:"}
    with pytest.raises(ValueError, match="cell 1: its slide ends on a colon"):
        slides.read_deck(nb, "03_toy")
    nb["cells"][0]["metadata"]["lecturekit"] = {"slide": "- one\n- two"}
    nb["cells"][1]["metadata"] = {"tags": ["slides:key"]}
    nb["cells"][1]["source"] = "## 1. Scores\n\n$$s = q \\cdot k$$"
    nb["cells"][-1]["metadata"]["lecturekit"] = {"slide": ["- a", "- b"]}
    deck = slides.read_deck(nb, "03_toy")
    assert deck.slides[1].body == "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"
    assert [s.title for s in deck.slides if s.kind == "summary"] == [
        "Summary (1/2)",
        "Summary (2/2)",
    ]
    assert slides.slide_words("One **bold** $x + y$ word, `code`.\n\n$$a = b + c$$") == 5


def test_an_example_shows_its_code_without_checks_and_fits_the_slide():
    code = (
        "import torch\nfrom lecturekit.utils.claims import claim\n\ntorch.manual_seed(0)\n"
        "scores = [112, 96]\nfor s in scores:\n    check('03.1', s)\n"
        "claim('the scores are exact',\n      scores == [112, 96])\n"
        "torch.testing.assert_close(1, 1)\nassert scores\nprint(scores)"
    )
    assert slides.shown_code(code) == "scores = [112, 96]\nprint(scores)"
    assert slides.shown_code("%time x = 1\nclaim('a', 1)") == "%time x = 1\nclaim('a', 1)"
    body, notes = slides._example_body(code, "[112, 96]")
    assert '<pre class="lk-code"><code>scores = [112, 96]' in body and not notes
    assert "claim" not in body and "import" not in body
    out = "\n".join(f"row {k}" for k in range(30))  # too long for the slide: its first lines
    body, notes = slides._example_body(code, out)
    assert "lk-code" not in body and "scores = [112, 96]" in notes
    assert "row 16" in body and "row 17" not in body and "(13 more lines in the notebook)" in body
    wide = "x" * (3 * slides.LINE_CHARS)  # a long line wraps: three rows of the slide
    assert slides._rows(wide + "\nshort") == 4


def test_every_lecture_notebook_makes_a_deck():
    shown = []
    for path in NOTEBOOKS.values():
        deck = slides.read_deck(read_notebook(path), path.stem)
        kinds = [s.kind for s in deck.slides]
        assert kinds[:2] == ["title", "learn"] and kinds[-1] == "summary", path.name
        assert {"key", "example"} <= set(kinds), path.name
        assert all(s.notes for s in deck.slides), path.name
        assert 6 <= len(deck.slides) <= 24, (path.name, len(deck.slides))
        html = slides.deck_html(deck)
        assert not re.search(r"(src|href)=\"(https?:)?//", html), "nothing from the network"
        assert html.count("<section") == len(deck.slides)
        shown += deck.figures
    assert sorted(shown) == sorted(figures.names()), "every registered figure is tagged once"
    assert all(figures.spec(n).takeaway for n in figures.names())


def test_long_lists_are_split_and_keep_their_numbers():
    text = "\n".join(f"{k}. " + "word " * 40 for k in range(1, 7))
    chunks = slides._list_chunks(text, limit=650)
    assert len(chunks) >= 2 and "".join(chunks).count("word") == 240
    assert slides.markdown_html(chunks[1]).startswith('<ol start="')


def test_pdf_dates_are_fixed_in_place():
    data = (
        b"%PDF-1.4\n<</CreationDate (D:20261125133000+00'00')\n/ModDate (D:20261125133000+00'00')>>"
    )
    fixed = slides._fixed_pdf(data)
    assert len(fixed) == len(data) and b"2026" not in fixed
    assert fixed.count(b"(D:00000000000000+00'00')") == 2


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda nb: nb["cells"][1]["metadata"]["tags"].append("slides:keys"), r"unknown tag"),
        (lambda nb: nb["cells"][4]["metadata"]["tags"].append("slides:key"), r"markdown cell"),
        (lambda nb: nb["cells"][1]["metadata"].update(tags=["slides:example"]), r"on a code cell"),
        (lambda nb: nb["cells"][0]["metadata"].update(tags=[]), r"slides:learn"),
        (lambda nb: nb["cells"][4].update(outputs=[]), r"that prints"),
        (lambda nb: nb["cells"][5]["metadata"].update(tags=["slides:figure:causal_mask"]),
         r"belongs to lecture 06"),
        (lambda nb: nb["cells"][3]["metadata"].update(tags=[f"slides:figure:{FIGURE}"]),
         r"tagged twice"),
        (lambda nb: nb["cells"][5]["metadata"].update(tags=["slides:figure:no_such_figure"]),
         r"unknown figure"),
        (lambda nb: nb["cells"][5]["metadata"].update(tags=["slides:figure:"]),
         r"slides:figure:NAME"),
        (lambda nb: nb["cells"][1].update(source="## 1. Scores\n\nno formula"), r"holds math"),
    ],
)  # fmt: skip
def test_bad_tags_stop_the_deck_naming_the_cell(edit, message):
    nb = copy.deepcopy(_notebook())
    edit(nb)
    with pytest.raises(ValueError, match=message):
        slides.read_deck(nb, "03_toy")


def test_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["slides", "--out", str(tmp_path / "s"), "--lecture", "99", "--no-pdf"]) == 1
    assert "lectures has '99'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["slides", "--root", str(tmp_path), "--out", str(tmp_path / "s")])
    assert exit_.value.code == 2
    assert "is not a clone" in capsys.readouterr().err
    empty = tmp_path / "cache"
    assert main(["slides", "--out", str(tmp_path / "s"), "--cache", str(empty), "--no-pdf"]) == 1
    assert "vendor fetches them" in capsys.readouterr().err


def test_a_browser_failure_is_one_clear_message(monkeypatch, tmp_path):
    class Crashed(Exception):  # what playwright raises: not a RuntimeError
        pass

    def launch():
        raise Crashed("Target page, context or browser has been closed\nmore detail")

    monkeypatch.setattr("lecturekit_publish.browser.launch", launch)
    with pytest.raises(RuntimeError, match=r"printing the PDFs in Chromium failed: Crashed: "
                       r"Target page, context or browser has been closed$"):  # fmt: skip
        slides.print_pdfs(tmp_path, ["03_self_attention"])
