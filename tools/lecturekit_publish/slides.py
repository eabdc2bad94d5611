"""One slide deck per lecture, built from its notebook: offline HTML (reveal.js) and a PDF.

What goes into a deck is chosen in the notebook, by cell tags (so a notebook edit and its deck
cannot drift apart):

=====================  ==========================================================================
``slides:learn``       the title cell: its "What you will learn" list is the second slide
``slides:key``         a markdown cell shown as a slide (key equations, key ideas)
``slides:example``     a code cell whose stored output (printed lines, then its value) is the
                       worked example
``slides:figure:NAME`` where the notebook shows what registered figure NAME shows: a slide with
                       the figure (``lecturekit_publish.figures``, light and dark) and its takeaway
``slides:summary``     the summary cell (split over two slides when long)
=====================  ==========================================================================

Every diagram the notebook shows (a code cell calling a ``*_diagram()`` function of
``lecturekit.viz.diagrams``) is a slide too, drawn again by the same function in the deck's light
and dark themes, with its alt text.

Slides are projected, so they hold little text (a notebook's paragraph is read, not shown): a
``slides:learn``, ``slides:key`` or ``slides:summary`` cell whose text would put more than
``WORD_LIMIT`` words on a slide carries its projected text in its metadata,
``{"lecturekit": {"slide": "..."}}`` (markdown, math kept; a list of texts makes one slide each),
and its full text goes to the speaker notes. A slide over the limit, or one whose text ends on a
colon, stops the build with a ValueError naming the cell. A worked example shows its code
without imports, seeds and checks (``claim``, ``check``, ``assert``...), at a size readable from
the back of a room: code and printout share ``EXAMPLE_LINES`` lines, the code goes to the notes
when both do not fit, and a long printout shows its first lines (the rest is in the notebook).

A deck is: title, what you will learn, the key / example / figure / diagram slides in notebook
order, the
lecture's recall blanks (``lecturekit.exercises.recall``; each answer revealed on the next
click), the summary. Speaker notes come from the notebook's prose: the markdown right above a
code cell, the untagged markdown right below a key cell, the title cell's sources. Every
registered figure of a lecture must be tagged once in its notebook, and every deck needs a
key slide with math and a worked example: a notebook that breaks this stops the build with a
ValueError saying what to tag.

The worked example's numbers are the notebook's stored output, which nbval re-checks against
a fresh run of the same code on every test run.

Public API::

    TAGS                                           # the tag names above (prefix "slides:")
    deck = read_deck(nb, stem)                     # a Deck: lecture, title, slides, figures
    html = deck_html(deck)                         # the deck's page (paths relative to slides/)
    report = build_slides(root, out, cache, lectures=None, pdf=True, jobs=2, progress=None)
    print_pdfs(out, stems) -> dict[str, int]       # deck -> pages (headless Chromium)

Lecture-independent (instructors' decks).
"""

from __future__ import annotations

import ast
import html
import json
import multiprocessing
import re
import shutil
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import mistune

from lecturekit_publish import vendor
from lecturekit_publish.notebook import lecture_notebooks, read_notebook

__all__ = ["TAGS", "Slide", "Deck", "SlidesReport", "read_deck", "deck_html", "index_html",
           "build_slides", "print_pdfs", "markdown_html", "slide_words", "shown_code"]  # fmt: skip

PREFIX = "slides:"
TAGS = ("learn", "key", "example", "figure", "summary")
STATIC = Path(__file__).parent / "static"
REVEAL = "reveal.js-5.2.1"
THEMES = ("light", "dark")
FIGURES_DIR = "figures"
STATIC_DIR = "_static"
VENDOR_DIR = "_vendor"
DPI = 128  # 10 x 5.625 in -> 1280 x 720 px, the slide's size
TEXT_LIMIT = 1200  # characters of a list on one slide before it is split
WORD_LIMIT = 40  # words of text a slide may hold (math counts as one word, code as none)
EXAMPLE_LINES = 18  # lines of code and printout an example slide holds (21 px, 1280 x 720)
LINE_CHARS = 88  # characters of a code line before it wraps on the slide
META = "lecturekit"  # the cell metadata key of the projected text ({"slide": ...})
_CHECKS = ("claim", "check", "hint", "quiz", "describe_figures", "close")  # not projected

_markdown = mistune.create_markdown(escape=False, plugins=["math", "table", "strikethrough"])
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)


@dataclass(frozen=True)
class Slide:
    kind: str  # title, learn, key, example, figure, recall, summary
    title: str  # plain text (may hold $math$)
    body: str  # HTML
    notes: str = ""  # HTML
    cell: int | None = None  # the notebook cell it comes from


@dataclass
class Deck:
    lecture: str
    stem: str
    title: str
    slides: list[Slide] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    diagrams: dict[str, str] = field(default_factory=dict)  # file name -> SVG


@dataclass(frozen=True)
class SlidesReport:
    decks: dict[str, int]  # stem -> slides
    pdf_pages: dict[str, int]
    pdf_bytes: dict[str, int]
    seconds: float
    out: Path


def markdown_html(text: str) -> str:
    """Markdown (with $math$) as HTML; the math is left for MathJax. A relative link (another
    notebook, the course map) keeps only its text: the decks' folder holds none of them, and in
    the PDF it would point at the port of the server that printed it, a new one every build."""
    text = re.sub(r"(?<!!)\[([^\]]*)\]\((?!https?://)[^)\s]*\)", r"\1", text)
    return _markdown(text).strip()


def slide_words(markdown: str) -> int:
    """The words a slide's markdown shows: display math and code blocks count as none, inline
    math as one word, markup as nothing."""
    text = re.sub(r"\$\$.*?\$\$|```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"\$[^$]+\$", " x ", text)
    text = re.sub(r"<[^>]+>|[*_`#|>]", " ", text)
    return sum(1 for w in text.split() if re.search(r"\w", w))


def _projected(cell: dict) -> list[str] | None:
    """The cell's projected text (metadata lecturekit.slide), one string per slide, or None."""
    text = cell.get("metadata", {}).get(META, {}).get("slide")
    if text is None:
        return None
    return [text] if isinstance(text, str) else list(text)


def _fits(stem: str, i: int, texts: Iterable[str]) -> None:
    for text in texts:
        words = slide_words(text)
        if words > WORD_LIMIT:
            raise ValueError(f"{stem}.ipynb cell {i}: a slide of {words} words (a projected slide "
                             f"holds at most {WORD_LIMIT}): write its projected text in the cell's "
                             f'metadata, {{"{META}": {{"slide": "..."}}}}')  # fmt: skip
        if text.rstrip().endswith(":"):
            raise ValueError(f"{stem}.ipynb cell {i}: its slide ends on a colon, announcing "
                             "what the slide does not show; end it on what it says")  # fmt: skip


def _dropped(node: ast.stmt) -> bool:
    """An import, a seed, an assertion or a check, or a loop / block holding only those: plumbing
    a projected example leaves out."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assert)):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        name = ast.unparse(node.value.func)
        return name.split(".")[-1] in _CHECKS or name.startswith("torch.testing") or name in (
            "torch.manual_seed", "torch.set_num_threads")  # fmt: skip
    if isinstance(node, (ast.For, ast.While, ast.If, ast.With)):
        return all(_dropped(n) for n in [*node.body, *getattr(node, "orelse", [])])
    return False


def shown_code(code: str) -> str:
    """An example cell's code as a slide shows it: without imports, seeds, assertions and checks
    (``claim``, ``check``...), blank lines collapsed. Code that does not parse is shown whole."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code.strip()
    drop: set[int] = set()
    for node in ast.walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(node, field_name, None)
            if not isinstance(block, list) or not all(isinstance(n, ast.stmt) for n in block):
                continue
            if node is not tree and all(_dropped(n) for n in block):
                continue  # the block's owner is dropped whole (or kept whole: a def)
            for n in block:
                if _dropped(n):
                    drop.update(range(n.lineno - 1, n.end_lineno))
    lines = [line for k, line in enumerate(code.splitlines()) if k not in drop]
    shown = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    try:
        ast.parse(shown)
    except SyntaxError:
        return code.strip()
    return shown


def _rows(text: str) -> int:
    """Lines ``text`` takes on a slide, long lines wrapped."""
    return sum(max(1, -(-len(line) // LINE_CHARS)) for line in text.splitlines())


def _example_body(code: str, out: str) -> tuple[str, str]:
    """(the example slide's body, notes to add): the code above the printout when both fit in
    EXAMPLE_LINES; else the printout alone (the code in the notes), its first lines if long."""
    code = shown_code(code)
    notes = ""
    pre = '<pre class="lk-{}"><code>{}</code></pre>'
    if code and _rows(code) + _rows(out) <= EXAMPLE_LINES:
        return pre.format("code", html.escape(code)) + pre.format("output", html.escape(out)), ""
    if code:
        notes = f"<p>The code:</p><pre><code>{html.escape(code)}</code></pre>"
    lines, kept = out.splitlines(), []
    for line in lines:
        if _rows("\n".join([*kept, line])) > EXAMPLE_LINES - 1:
            break
        kept.append(line)
    if len(kept) < len(lines):
        more = len(lines) - len(kept)
        kept.append(f"⋯ ({more} more line{'s' if more > 1 else ''} in the notebook)")
    return pre.format("output", html.escape("\n".join(kept))), notes


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(nb: dict, stem: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for i, cell in enumerate(nb["cells"]):
        for tag in cell.get("metadata", {}).get("tags", []):
            if not tag.startswith(PREFIX):
                continue
            kind = tag[len(PREFIX) :].split(":")[0]
            if kind not in TAGS:
                raise ValueError(f"{stem}.ipynb cell {i}: unknown tag {tag!r}; the slide tags "
                                 f"are {', '.join(PREFIX + t for t in TAGS)}")  # fmt: skip
            want = "code" if kind == "example" else "markdown"
            if kind != "figure" and cell["cell_type"] != want:
                raise ValueError(f"{stem}.ipynb cell {i}: {tag!r} goes on a {want} cell, "
                                 f"not a {cell['cell_type']} cell")  # fmt: skip
            if kind == "figure" and not tag[len(PREFIX + "figure:") :].isidentifier():
                raise ValueError(f"{stem}.ipynb cell {i}: write {tag!r} as slides:figure:NAME")
            found.setdefault(i, []).append(tag[len(PREFIX) :])
    return found


def _heading_above(nb: dict, index: int) -> str:
    for cell in reversed(nb["cells"][: index + 1]):
        if cell["cell_type"] == "markdown":
            found = _HEADING.findall(_source(cell))
            if found:
                return found[-1][1]
    return ""


def _without_heading(text: str) -> tuple[str, str]:
    """(the first heading's text, the markdown after it); text before a heading ends the
    previous section and is left out. Without a heading: ("", the text)."""
    m = _HEADING.search(text)
    if not m:
        return "", text.strip()
    return m.group(2), text[m.end() :].strip()


def _inline(text: str) -> str:
    """A heading's markdown (code, emphasis, $math$) as inline HTML."""
    rendered = markdown_html(text)
    return rendered.removeprefix("<p>").removesuffix("</p>") if rendered else ""


def _prose_above(nb: dict, index: int, tagged: dict[int, list[str]]) -> str:
    """The untagged markdown right above cell ``index``; if there is none, the nearest markdown
    cell above (the text that introduces the cell, even when it is a slide of its own)."""
    parts: list[str] = []
    i = index - 1
    while i >= 0 and nb["cells"][i]["cell_type"] == "markdown" and i not in tagged:
        parts.insert(0, _source(nb["cells"][i]))
        i -= 1
    if not parts:
        while i >= 0 and nb["cells"][i]["cell_type"] != "markdown":
            i -= 1
        if i > 0:  # not the title cell
            parts.append(_source(nb["cells"][i]))
    return "\n\n".join(parts)


def _prose_below(nb: dict, index: int, tagged: dict[int, list[str]]) -> str:
    parts: list[str] = []
    i = index + 1
    while i < len(nb["cells"]) and nb["cells"][i]["cell_type"] == "markdown" and i not in tagged:
        text = _source(nb["cells"][i])
        if text.lstrip().startswith("## "):
            break  # a new section
        parts.append(text)
        i += 1
    return "\n\n".join(parts)


def _notes(markdown: str) -> str:
    return markdown_html(markdown) if markdown.strip() else ""


def _list_chunks(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """A markdown text whose top-level list items are grouped into chunks of at most ``limit``
    characters (an ordered list keeps its numbers)."""
    lines = text.strip().splitlines()
    items: list[list[str]] = [[]]
    for line in lines:
        if re.match(r"^(\d+\.|[-*])\s", line) and items[-1]:
            items.append([])
        items[-1].append(line)
    chunks: list[str] = []
    current = ""
    for item in ("\n".join(i) for i in items):
        if current and len(current) + len(item) > limit:
            chunks.append(current)
            current = ""
        current = f"{current}\n{item}" if current else item
    chunks.append(current)
    return chunks


def _learn_slides(cell: dict, index: int, stem: str) -> list[Slide]:
    text = _source(cell)
    m = re.search(r"\*\*What you will learn\*\*\s*", text)
    if not m:
        raise ValueError("the slides:learn cell has no **What you will learn** list")
    chunks = _projected(cell) or _list_chunks(text[m.end() :])
    _fits(stem, index, chunks)
    notes = "<p>The notebook's full list (and what it builds on):</p>" + markdown_html(
        text[m.end() :]
    )
    return [
        Slide("learn", "What you will learn" + (f" ({k + 1}/{len(chunks)})" if len(chunks) > 1
                                                 else ""), markdown_html(c), notes, cell=index)
        for k, c in enumerate(chunks)
    ]  # fmt: skip


def _exercise_notes(lecture: str) -> str:
    from lecturekit import exercises

    ids = exercises.exercise_ids(lecture) if lecture in exercises.lectures() else []
    if not ids:
        return ""
    items = "".join(f"<li>{i}: {html.escape(exercises.get(i).title)}</li>" for i in ids)
    return (f"<p>The notebook's exercises (checked by <code>check</code>, worked solutions in "
            f"solutions/):</p><ul>{items}</ul>")  # fmt: skip


def _summary_slides(cell: dict, index: int, stem: str) -> list[Slide]:
    lecture = stem.split("_")[0]
    text = _source(cell)
    text = re.split(r"^## Exercises", text, flags=re.M)[0]
    _, body = _without_heading(text)
    chunks = _projected(cell) or _list_chunks(body)
    _fits(stem, index, chunks)
    notes = (markdown_html(body) if _projected(cell) else "") + _exercise_notes(lecture)
    return [
        Slide("summary", "Summary" + (f" ({k + 1}/{len(chunks)})" if len(chunks) > 1 else ""),
              markdown_html(c), notes, cell=index)
        for k, c in enumerate(chunks)
    ]  # fmt: skip


def _stdout(cell: dict) -> str:
    """What a code cell shows as text: its printed lines, then the value it ends with (a lean
    cell shows a result as its last expression instead of printing it)."""
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream" and o.get("name") == "stdout":
            text = o.get("text", "")
        elif o.get("output_type") == "execute_result":
            text = o.get("data", {}).get("text/plain", "")
        else:
            continue
        parts.append("".join(text) if isinstance(text, list) else text)
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts).rstrip()


def _per_slide(words: list[int]) -> int:
    """How many recall blanks (of ``words`` words each) a slide holds: at most four and
    WORD_LIMIT words, spread evenly over the fewest slides."""
    n = len(words)
    for n_slides in range(max(1, -(-n // 4)), n + 1):
        per = -(-n // n_slides)
        if all(sum(words[k : k + per]) <= WORD_LIMIT for k in range(0, n, per)):
            return per
    return 1


def _recall_slides(lecture: str) -> list[Slide]:
    from lecturekit.exercises.recall import BLANK, blanks

    found = blanks(lecture)
    per = _per_slide([slide_words(b.prompt.replace(BLANK, " ")) + 1 for b in found])
    n_slides = -(-len(found) // per) if found else 0
    slides = []
    for start in range(0, len(found), per):
        part = found[start : start + per]
        items, notes = [], []
        for b in part:
            before, after = (html.escape(s) for s in b.prompt.split(BLANK))
            answer = html.escape(b.answers[0])
            blank = f'<span class="lk-blank"><span class="fragment lk-answer">{answer}</span>'
            blank += "</span>"
            items.append(f'<li data-blank="{b.id}">{before}{blank}{after}</li>')
            others = ", ".join(html.escape(a) for a in b.answers[1:])
            notes.append(f"<li>{b.id}: <b>{answer}</b>{f' (also: {others})' if others else ''}"
                         f" · {html.escape(b.deck)}, “{html.escape(b.slide)}” · clue: "
                         f"{html.escape(b.clue)}</li>")  # fmt: skip
        title = "Recall: fill the blank" + ("s" if len(part) > 1 else "")
        if n_slides > 1:
            title += f" ({start // per + 1}/{n_slides})"
        body = f'<ol class="lk-recall" start="{start + 1}">{"".join(items)}</ol>'
        ids = ", ".join(b.id for b in part)
        intro = ("<p>Ask the room, then click: each blank is revealed on the next click. The "
                 f"notebook's self-check asks the same ({ids}).</p>")  # fmt: skip
        slides.append(Slide("recall", title, body, intro + f"<ul>{''.join(notes)}</ul>"))
    return slides


def _figure_lecture(lecture: str) -> str:
    return lecture[:2] if lecture in ("08a", "08b") else lecture  # figures of 08 serve both


_DIAGRAM_CALL = re.compile(r"\b(\w+_diagram)\(\)")


def _diagram_cells(nb: dict, stem: str) -> dict[int, str]:
    """Cell index -> name of the ``*_diagram`` function each diagram cell calls (the cells whose
    stored output is a diagram's SVG)."""
    found = {}
    for i, cell in enumerate(nb["cells"]):
        shows = any("image/svg+xml" in o.get("data", {}) for o in cell.get("outputs", []))
        if cell["cell_type"] == "code" and shows and "diagram" in _source(cell):
            call = _DIAGRAM_CALL.search(_source(cell))
            if not call:
                raise ValueError(f"{stem}.ipynb cell {i}: a diagram cell should call a "
                                 "lecturekit.viz.diagrams function without arguments")  # fmt: skip
            found[i] = call.group(1)
    return found


def _diagram_slide(
    nb: dict, stem: str, i: int, name: str, deck: Deck, tagged: dict[int, list[str]]
) -> Slide:
    from lecturekit.viz.diagrams import diagrams

    lecture = stem.split("_")[0]
    funcs = {k.split(".")[1]: f for k, f in diagrams().items()
             if k.split(".")[0] == f"lecture_{lecture}"}  # fmt: skip
    if name not in funcs:
        raise ValueError(f"{stem}.ipynb cell {i}: {name}() is not in "
                         f"lecturekit.viz.diagrams.lecture_{lecture}")  # fmt: skip
    diagram = funcs[name]()
    alt = html.escape(diagram.alt, quote=True)
    imgs = []
    for t in THEMES:
        fname = f"{stem}-{name}-{t}.svg"
        deck.diagrams[fname] = diagram.svg(t)
        imgs.append(f'<img class="lk-{t}" src="{FIGURES_DIR}/{fname}" alt="{alt}" '
                    f'width="{diagram.width}" height="{diagram.height}">')  # fmt: skip
    body = f'<div class="lk-figure lk-diagram">{"".join(imgs)}</div>'
    notes = _notes(_prose_above(nb, i, tagged)) or f"<p>{alt}</p>"
    return Slide("diagram", _heading_above(nb, i), body, notes, i)


def read_deck(nb: dict, stem: str) -> Deck:
    """The deck chosen by the slide tags of notebook ``nb`` (file stem ``stem``,
    "03_self_attention"). Missing or misplaced tags raise a ValueError naming the cell."""
    from lecturekit_publish import figures

    lecture = stem.split("_")[0]
    tagged = _tags(nb, stem)
    title_cell = _source(nb["cells"][0])
    heading = _HEADING.search(title_cell)
    full_title = heading.group(2) if heading else stem
    title = full_title.split("·", 1)[-1].strip()
    deck = Deck(lecture, stem, full_title)
    body = (f'<p class="lk-lecture">Lecture {html.escape(lecture)} · lecturekit</p>'
            f"<h1>{html.escape(title)}</h1>")  # fmt: skip
    # the title slide's notes: the title cell's prose before its learning goals (what to read
    # alongside, prerequisites), without the heading and the Colab / Binder links
    intro = title_cell.split("**What you will learn**", 1)[0]
    intro = "\n".join(line for line in intro.splitlines()
                      if not line.startswith(("#", "[Open in Colab]")))  # fmt: skip
    notes = _notes(intro.strip())
    deck.slides.append(Slide("title", title, body, notes, 0))

    kinds = [t.split(":")[0] for tags in tagged.values() for t in tags]
    for needed in ("learn", "summary", "key", "example"):
        if needed not in kinds:
            raise ValueError(f"{stem}.ipynb: no cell is tagged slides:{needed} (its deck needs "
                             "one; see lecturekit_publish.slides)")  # fmt: skip
    summary: list[Slide] = []
    diagram_cells = _diagram_cells(nb, stem)
    for i in sorted(set(tagged) | set(diagram_cells)):
        cell = nb["cells"][i]
        if i in diagram_cells:
            deck.slides.append(_diagram_slide(nb, stem, i, diagram_cells[i], deck, tagged))
        for tag in tagged.get(i, []):
            kind = tag.split(":")[0]
            if kind == "learn":
                deck.slides.extend(_learn_slides(cell, i, stem))
            elif kind == "summary":
                summary.extend(_summary_slides(cell, i, stem))
            elif kind == "key":
                head, text = _without_heading(_source(cell))
                notes = _notes(_prose_below(nb, i, tagged))
                shown = _projected(cell)
                if shown:  # the cell's own text is read out: it goes to the notes
                    notes = markdown_html(text) + notes
                for k, part in enumerate(shown or [text]):
                    _fits(stem, i, [part])
                    more = f" ({k + 1}/{len(shown)})" if shown and len(shown) > 1 else ""
                    deck.slides.append(Slide("key", (head or _heading_above(nb, i)) + more,
                                             markdown_html(part), notes or markdown_html(text),
                                             i))  # fmt: skip
            elif kind == "example":
                out = _stdout(cell)
                if not out:
                    raise ValueError(f"{stem}.ipynb cell {i}: slides:example needs a cell that "
                                     "prints or shows a value (none stored: run it)")  # fmt: skip
                body, code_notes = _example_body(_source(cell), out)
                deck.slides.append(Slide("example", _heading_above(nb, i), body,
                                         _notes(_prose_above(nb, i, tagged)) + code_notes,
                                         i))  # fmt: skip
            else:  # figure
                name = tag.split(":", 1)[1]
                spec = figures.spec(name)
                if spec.lecture != _figure_lecture(lecture):
                    raise ValueError(f"{stem}.ipynb cell {i}: figure {name!r} belongs to lecture "
                                     f"{spec.lecture}, not {lecture}")  # fmt: skip
                if not spec.takeaway:
                    raise ValueError(f"figure {name!r} has no takeaway (register(..., takeaway="
                                     "'...') in tools/lecturekit_publish/figures)")  # fmt: skip
                if name in deck.figures:
                    raise ValueError(f"{stem}.ipynb cell {i}: figure {name!r} is tagged twice")
                deck.figures.append(name)
                alt = html.escape(spec.description, quote=True)
                imgs = "".join(
                    f'<img class="lk-{t}" src="{FIGURES_DIR}/{name}-{t}.png" alt="{alt}" '
                    f'width="1280" height="720">'
                    for t in THEMES
                )
                body = (f'<div class="lk-figure">{imgs}</div>'
                        f'<p class="lk-takeaway">{html.escape(spec.takeaway)}</p>')  # fmt: skip
                prose = _source(cell) if cell["cell_type"] == "markdown" else ""
                notes = _notes(prose or _prose_above(nb, i, tagged)) or f"<p>{alt}</p>"
                deck.slides.append(Slide("figure", _heading_above(nb, i), body, notes, i))
    if not any("$" in _source(nb["cells"][i]) for i, t in tagged.items() if "key" in t):
        raise ValueError(f"{stem}.ipynb: no slides:key cell holds math: tag the cell with the "
                         "lecture's key equation")  # fmt: skip
    deck.slides.extend(_recall_slides(lecture))
    deck.slides.extend(summary)
    return deck


def _section(slide: Slide) -> str:
    title = "" if slide.kind == "title" else f"<h2>{_inline(slide.title)}</h2>"
    notes = f'\n<aside class="notes">{slide.notes}</aside>' if slide.notes else ""
    cell = f' data-cell="{slide.cell}"' if slide.cell is not None else ""
    return (f'<section data-kind="{slide.kind}"{cell}>\n{title}\n<div class="lk-body">'
            f"{slide.body}</div>{notes}\n</section>")  # fmt: skip


def _head(title: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<link rel="icon" href="{STATIC_DIR}/lk-favicon.svg" type="image/svg+xml">
<script src="{STATIC_DIR}/lk-theme.js"></script>
"""


def deck_html(deck: Deck) -> str:
    """The deck's page (it sits in slides/, next to _static/, _vendor/ and figures/)."""
    v = f"{VENDOR_DIR}/{REVEAL}"
    sections = "\n".join(_section(s) for s in deck.slides)
    return (
        _head(deck.title)
        + f"""<link rel="stylesheet" href="{v}/dist/reset.css">
<link rel="stylesheet" href="{v}/dist/reveal.css">
<link rel="stylesheet" href="{v}/dist/theme/white.css">
<link rel="stylesheet" href="{STATIC_DIR}/lk-slides.css">
</head>
<body>
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="{v}/dist/reveal.js"></script>
<script src="{v}/plugin/notes/notes.js"></script>
<script src="{v}/plugin/math/math.js"></script>
<script src="{STATIC_DIR}/lk-slides.js" data-mathjax="{VENDOR_DIR}/{vendor.MATHJAX_JS}"></script>
</body>
</html>
"""
    )


def index_html(decks: list[Deck], pdf: bool) -> str:
    """slides/index.html: every deck, with its slide count and PDF."""
    rows = []
    for d in decks:
        link = f' · <a href="{d.stem}.pdf">PDF</a>' if pdf else ""
        rows.append(f'<li><a href="{d.stem}.html">{html.escape(d.title)}</a> '
                    f"({len(d.slides)} slides){link}</li>")  # fmt: skip
    return (
        _head("lecturekit · slide decks")
        + f"""<link rel="stylesheet" href="{STATIC_DIR}/lk-slides.css">
</head>
<body class="lk-index">
<h1>lecturekit · slide decks</h1>
<p>One deck per lecture, built from its notebook. Keys: → / space next, S speaker notes,
F full screen, T light / dark, Esc overview. Add <code>?theme=dark</code> or
<code>?theme=light</code> to a deck's address to choose.</p>
<ul>
{chr(10).join(rows)}
</ul>
</body>
</html>
"""
    )


def render_figure(job: tuple[str, str, str]) -> str:
    """Draw registered figure ``name`` in ``theme`` into ``path`` (PNG); returns the path."""
    name, theme, path = job
    import matplotlib.pyplot as plt

    from lecturekit_publish import figures

    fig = figures.build(name, theme)
    figures.save(fig, path, "png", dpi=DPI)
    plt.close(fig)
    return path


_PDF_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9+\-Z']+\)")


def _fixed_pdf(data: bytes) -> bytes:
    """The PDF without its dates (same length, so the cross-reference offsets stay right)."""
    return _PDF_DATE.sub(lambda m: m.group(0)[:-1].translate(bytes.maketrans(
        b"123456789", b"000000000")) + b")", data)  # fmt: skip


def print_pdfs(out: Path | str, stems: Iterable[str]) -> dict[str, int]:
    """Print each deck ``out/<stem>.html`` to ``out/<stem>.pdf`` with headless Chromium (light
    theme, one page per slide, answers of the blanks shown); returns stem -> pages. Requests to
    any host but this machine are refused."""
    from lecturekit_publish.browser import launch, serve

    out = Path(out)
    pages: dict[str, int] = {}
    try:
        _print(out, list(stems), pages, launch, serve)
    except Exception as err:  # playwright's errors (a timeout, a crashed browser): one message
        if isinstance(err, RuntimeError):
            raise
        raise RuntimeError(f"printing the PDFs in Chromium failed: {type(err).__name__}: "
                           f"{str(err).splitlines()[0] if str(err) else ''}") from None  # fmt: skip
    return pages


def _print(out: Path, stems: list[str], pages: dict[str, int], launch, serve) -> None:
    with serve(out) as base, launch() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.route("**/*", lambda route: route.continue_()
                   if route.request.url.startswith(base) else route.abort())  # fmt: skip
        for stem in stems:
            page.goto(f"{base}{stem}.html?print-pdf&theme=light", wait_until="load")
            page.wait_for_function(
                "window.lkReady === true && document.querySelectorAll('.pdf-page').length"
                " === Reveal.getTotalSlides()", timeout=60_000,
            )  # fmt: skip
            slides = page.evaluate("Reveal.getTotalSlides()")
            for _attempt in range(3):  # Chromium has printed a blank page once: retry
                data = page.pdf(width="1280px", height="720px", print_background=True,
                                prefer_css_page_size=True)  # fmt: skip
                pages[stem] = len(re.findall(rb"/Type\s*/Page\b", data))
                if pages[stem] == slides:
                    break
                page.wait_for_timeout(500)
            (out / f"{stem}.pdf").write_bytes(_fixed_pdf(data))


def build_slides(
    root: Path | str,
    out: Path | str,
    cache: Path | str,
    lectures: Iterable[str] | None = None,
    pdf: bool = True,
    jobs: int = 2,
    progress: Callable[[str], None] | None = None,
) -> SlidesReport:
    """Build the decks of the clone at ``root`` (``lectures``: "03", ...; default all) into
    ``out`` (replaced), with reveal.js and MathJax from ``cache`` (``vendor.fetch``), figures
    drawn in ``jobs`` processes, and a PDF of each deck unless ``pdf=False``."""
    start = time.perf_counter()
    root, out, cache = Path(root).resolve(), Path(out).resolve(), Path(cache).resolve()
    say = progress or (lambda _msg: None)
    found = lecture_notebooks(root / "notebooks")
    wanted = list(found) if lectures is None else list(lectures)
    for lecture in wanted:
        if lecture not in found:
            raise ValueError(f"lectures has {lecture!r}; the lectures are {', '.join(found)}")
    gone = vendor.missing(cache)
    if gone:
        raise RuntimeError(f"the slides' scripts are not in {cache}: {', '.join(gone)} (python "
                           "-m lecturekit_publish vendor fetches them with npm)")  # fmt: skip
    decks = [read_deck(read_notebook(found[lec]), found[lec].stem) for lec in wanted]
    if lectures is None:  # every registered figure is on a slide
        from lecturekit_publish import figures

        shown = {name for d in decks for name in d.figures}
        left = [n for n in figures.names() if n not in shown]
        if left:
            raise ValueError(f"figures not tagged in any notebook: {', '.join(left)} (tag the "
                             "cell that shows each: slides:figure:NAME)")  # fmt: skip

    shutil.rmtree(out, ignore_errors=True)
    (out / FIGURES_DIR).mkdir(parents=True)
    (out / STATIC_DIR).mkdir()
    for name in ("lk-slides.css", "lk-slides.js", "lk-theme.js", "lk-favicon.svg"):
        shutil.copy(STATIC / name, out / STATIC_DIR / name)
    vendor.install(cache, out, names=(REVEAL, vendor.MATHJAX_PACKAGE), folder=VENDOR_DIR)

    todo = [(n, t, str(out / FIGURES_DIR / f"{n}-{t}.png")) for d in decks for n in d.figures
            for t in THEMES]  # fmt: skip
    say(f"drawing {len(todo)} figures (light and dark) in {jobs} processes")
    if jobs > 1 and len(todo) > 1:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            list(pool.map(render_figure, todo))
    else:
        for job in todo:
            render_figure(job)
    for d in decks:
        for fname, svg in d.diagrams.items():
            (out / FIGURES_DIR / fname).write_text(svg + "\n", encoding="utf-8")
        (out / f"{d.stem}.html").write_text(deck_html(d), encoding="utf-8")
        say(f"  {d.stem}: {len(d.slides)} slides")
    (out / "index.html").write_text(index_html(decks, pdf), encoding="utf-8")
    pages: dict[str, int] = {}
    sizes: dict[str, int] = {}
    if pdf:
        say(f"printing {len(decks)} PDFs with headless Chromium")
        pages = print_pdfs(out, [d.stem for d in decks])
        sizes = {s: (out / f"{s}.pdf").stat().st_size for s in pages}
    (out / "decks.json").write_text(json.dumps(
        {d.stem: {"slides": len(d.slides), "kinds": [s.kind for s in d.slides],
                  "figures": d.figures, "diagrams": sorted(d.diagrams),
                  "pdf_pages": pages.get(d.stem)} for d in decks},
        indent=1) + "\n", encoding="utf-8")  # fmt: skip
    return SlidesReport({d.stem: len(d.slides) for d in decks}, pages, sizes,
                        time.perf_counter() - start, out)  # fmt: skip
