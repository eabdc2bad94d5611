"""The slide decks, built and presented in a real browser, offline.

One session builds every deck exactly as ``make slides`` does (``python -m lecturekit_publish
slides``, HTML and PDF, in a subprocess under the offline guard: reveal.js and MathJax come from
the npm cache filled at set-up, the only network use), then builds three of them again into
another folder: each file of the second build must be byte-identical to the first's (no dates,
in the HTML, the figures or the PDFs; a deck does not depend on which others are built). All
decks must build in under two minutes.

Every deck is opened in headless Debian Chromium, served on 127.0.0.1, with every request to
another host refused and recorded, and stepped through click by click (every slide, every
fragment): no refused or failed request, no console error, every slide's content fits the 16:9
slide and can be projected (no text under 20 px, at most ``WORD_LIMIT`` words of text, no slide
ending on a colon, figures filling the slide, a "Step k" sequence without a gap), every figure loaded (alt text), every formula rendered by MathJax, every recall blank
hidden until its click and shown after it. The dark theme shows the dark figures on a dark
background. Each PDF has one page per slide.

Marker ``browser`` (and ``network`` for the npm set-up); skipped without Chromium / playwright
unless LECTUREKIT_REQUIRE_BROWSER=1 (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import filecmp
import functools
import http.server
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from chromium import offline_page  # tests/support
from publishing import fetch_scripts, run_publish  # tests/support

from lecturekit.exercises import recall
from lecturekit_publish import figures, slides
from lecturekit_publish.browser import serve

pytestmark = [pytest.mark.browser, pytest.mark.network]  # network: the npm set-up only

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "test-output" / "slides"
# the budget on 2 free cores; under `make test` (pytest-xdist) another worker runs
# notebooks beside the build, which then gets about one core of a slower machine: a cap
# against a runaway build, not a benchmark (the build prints its time)
MIN_FONT_PX = 20  # the smallest text a projected slide shows (1280 x 720)
BUILD_LIMIT_S = 120 * (3 if os.environ.get("PYTEST_XDIST_WORKER") else 1)
LECTURES = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


@dataclass
class Built:
    folder: Path
    seconds: float
    log: str
    decks: dict


def _build(folder: Path, *lectures: str) -> tuple[float, str]:
    return run_publish("slides", folder, *(a for n in lectures for a in ("--lecture", n)))


@pytest.fixture(scope="session")
def built(tmp_path_factory, online_env) -> Built:
    fetch_scripts(online_env)
    folder = tmp_path_factory.mktemp("slides") / "slides"
    seconds, log = _build(folder)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "build.log").write_text(log)
    decks = json.loads((folder / "decks.json").read_text())
    return Built(folder, seconds, log, decks)


@pytest.fixture(scope="session")
def served(built):
    with serve(built.folder) as url:
        yield url


def test_every_lecture_has_a_deck_built_within_budget(built):
    assert sorted(built.decks) == LECTURES
    assert built.seconds <= BUILD_LIMIT_S, f"decks built in {built.seconds:.0f} s\n{built.log}"
    shown = [name for d in built.decks.values() for name in d["figures"]]
    assert sorted(shown) == sorted(figures.names()), "every registered figure on one slide"
    for stem, deck in built.decks.items():
        kinds = deck["kinds"]
        assert kinds[:2] == ["title", "learn"] and kinds[-1] == "summary", stem
        assert {"key", "example"} <= set(kinds), stem
        blanks = recall.blanks(stem.split("_")[0])
        assert ("recall" in kinds) == bool(blanks), stem
        assert deck["pdf_pages"] == deck["slides"], f"{stem}: one PDF page per slide"
    print(f"slides: built in {built.seconds:.0f} s; {built.log.strip().splitlines()[-1]}")
    for stem, deck in built.decks.items():
        size = (built.folder / f"{stem}.pdf").stat().st_size / 1e6
        print(f"  {stem}: {deck['slides']} slides, PDF {size:.2f} MB")


# Built again: decks with math, recall blanks, printouts and the most figures. (Every figure's
# two builds in every format are compared by tests/figures; the rest of a deck is its own.)
AGAIN = ("03", "05", "14")


def test_decks_build_byte_identically_twice(built, tmp_path):
    again = tmp_path / "slides"
    _build(again, *AGAIN)
    second = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    decks = {p.stem for p in second if p.suffix == ".pdf"}
    assert {d.split("_")[0] for d in decks} == set(AGAIN)
    assert {f"{d}.html" for d in decks} <= {str(p) for p in second}
    listings = {"index.html", "decks.json"}  # they list the decks built: here three
    same = [str(p) for p in second if str(p) not in listings]
    _, mismatch, errors = filecmp.cmpfiles(built.folder, again, same, shallow=False)
    assert not errors, f"files of the second build missing from the first: {errors[:10]}"
    assert not mismatch, f"files that differ between two builds: {mismatch[:10]}"
    index = json.loads((again / "decks.json").read_text())
    assert index == {d: built.decks[d] for d in decks}, "the same decks.json entries"
    pdf = (built.folder / f"{LECTURES[0]}.pdf").read_bytes()
    assert b"/CreationDate (D:00000000000000" in pdf, "the PDF's date is fixed"


class _SlowFonts(http.server.SimpleHTTPRequestHandler):
    """Serves a folder, each web font two seconds late (as from a slow or busy server)."""

    def do_GET(self):
        if re.search(r"\.(woff2?|ttf|otf|eot)(\?|$)", self.path):
            time.sleep(2)
        super().do_GET()

    def log_message(self, *args):
        pass


_SIZES = """() => ({
  math: [...document.querySelectorAll('mjx-container')].map((c) => getComputedStyle(c).fontSize),
  bodies: [...document.querySelectorAll('.lk-body')].map((b) => b.style.fontSize),
  untypeset: document.querySelectorAll('.math:not(:has(mjx-container))').length,
  fonts: document.fonts.status,
})"""


def test_math_and_text_sizes_do_not_depend_on_when_the_font_arrives(built, served, chromium):
    # MathJax sizes math to the ex-height of the text around it, and the slides shrink a long
    # text to fit: both measured before the deck's web font had loaded once drew a deck bigger
    # (a PDF printed twice differed). The deck waits for its fonts; a late font changes nothing.
    stem = next(s for s in LECTURES if s.startswith("03"))
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_SlowFonts, directory=str(built.folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sizes = []
        for base in (served, f"http://127.0.0.1:{server.server_address[1]}/"):
            page, seen = _page(chromium, f"{base}{stem}.html?print-pdf&theme=light")
            sizes.append(page.evaluate(_SIZES))
            assert not seen, seen
            page.context.close()
    finally:
        server.shutdown()
        server.server_close()
    assert sizes[0]["math"] and not sizes[0]["untypeset"], f"the deck's math typeset: {sizes[0]}"
    assert sizes[1] == sizes[0]


# What a projected slide shows, measured in the slide's own 1280 x 720 pixels: the smallest font of
# any visible text (math glyphs and speaker notes aside), the words of its body (math and code
# aside), the text it ends on, and how much of the slide its figure fills.
_READABLE = """function readable(slide, visible) {
  let smallest = Infinity;
  const words = [];
  const walk = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !visible(el) || el.closest('mjx-container, aside')) continue;
    smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize));
    if (el.closest('.lk-body') && !el.closest('pre')) words.push(node.textContent);
  }
  const body = slide.querySelector('.lk-body');
  const last = body ? [...body.querySelectorAll('p, li')].filter(visible).pop() : null;
  const img = [...slide.querySelectorAll('.lk-figure img')].filter(visible)[0];
  return {
    smallestFont: smallest === Infinity ? null : smallest,
    words: words.join(' ').split(/\\s+/).filter((w) => /\\w/.test(w)).length,
    endsOn: last ? last.textContent.trim().slice(-1) : '',
    figure: img ? [img.offsetWidth, img.offsetHeight] : null,
  };
}
"""

_SLIDE_FACTS = (
    """() => {
  """
    + _READABLE
    + """
  const slide = Reveal.getCurrentSlide();
  const visible = (el) => el.offsetParent !== null || el.getClientRects().length > 0;
  const imgs = [...slide.querySelectorAll('img')].filter(visible);
  const blanks = [...slide.querySelectorAll('.lk-answer')];
  return {
    kind: slide.dataset.kind,
    overflow: slide.scrollHeight - 720,
    wide: [...slide.querySelectorAll('pre code')].filter((c) => c.scrollWidth > c.clientWidth + 1)
      .length,
    images: imgs.length,
    broken: imgs.filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    noAlt: imgs.filter((i) => !(i.getAttribute('alt') || '').trim()).map((i) => i.src),
    math: slide.querySelectorAll('mjx-container').length,
    mathErrors: slide.querySelectorAll('mjx-merror').length,
    rawMath: slide.querySelectorAll('.math:not(:has(mjx-container))').length,
    blanksShown: blanks.filter((b) => b.classList.contains('visible')).length,
    blanks: blanks.length,
    notes: (slide.querySelector('aside.notes') || {textContent: ''}).textContent.trim().length,
    indexh: Reveal.getIndices().h,
    title: (slide.querySelector('h2') || {textContent: ''}).textContent.trim(),
    ...readable(slide, visible),
  };
}"""
)


def _page(chromium, url: str):
    page, seen = offline_page(chromium, (1280, 720))
    page.goto(url, wait_until="load", timeout=60_000)
    page.wait_for_function("window.lkReady === true", timeout=60_000)
    return page, seen


@pytest.mark.parametrize("stem", LECTURES)
def test_deck_steps_through_offline_without_errors(stem, built, served, chromium):
    page, seen = _page(chromium, f"{served}{stem}.html?transition=none&theme=light")
    problems = []
    visited, clicks, titles = set(), 0, []
    total = page.evaluate("Reveal.getTotalSlides()")
    while True:
        facts = page.evaluate(_SLIDE_FACTS)
        where = f"slide {facts['indexh'] + 1} ({facts['kind']})"
        if facts["indexh"] not in visited:
            visited.add(facts["indexh"])
            checks = {
                "overflows by px": facts["overflow"] > 4 and facts["overflow"],
                "printouts cut on the right": facts["wide"],
                "broken images": facts["broken"], "images without alt": facts["noAlt"],
                "math errors": facts["mathErrors"], "raw math": facts["rawMath"],
                "no speaker notes": facts["kind"] != "title" and not facts["notes"],
                "figure slide without a figure": facts["kind"] == "figure" and facts["images"] != 1,
                "blank shown before its click": facts["blanksShown"],
                "text smaller than 20 px": (facts["smallestFont"] or 99) < MIN_FONT_PX
                and facts["smallestFont"],
                "words of text": facts["words"] > slides.WORD_LIMIT and facts["words"],
                "ends on a colon": facts["endsOn"] == ":",
                "figure smaller than the slide wants": facts["figure"]
                and facts["figure"][0] < 1100 and facts["figure"][1] < 450 and facts["figure"],
            }  # fmt: skip
            titles.append(facts["title"])
            problems += [f"{where}: {k} {v}" for k, v in checks.items() if v]
        if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
            break
        before = facts["blanksShown"]
        page.keyboard.press("ArrowRight")
        clicks += 1
        after = page.evaluate(_SLIDE_FACTS)
        if after["indexh"] == facts["indexh"] and after["blanksShown"] != before + 1:
            problems.append(f"{where}: a click did not reveal one blank")
        assert clicks < 200, "the deck does not end"
    recall_slides = page.evaluate("document.querySelectorAll('.lk-answer.visible').length")
    assert len(visited) == total
    assert recall_slides == len(recall.blanks(stem.split("_")[0]))
    math = page.evaluate("document.querySelectorAll('mjx-container').length")
    assert math > 0, "every deck has its key equation"
    steps = sorted({int(m.group(1)) for t in titles for m in [re.search(r"\bStep (\d+)", t)] if m})
    if steps != list(range(1, len(steps) + 1)):
        problems.append(f"a sequence of steps with a gap: Step {steps}")
    problems += [f"{k}: {v}" for k, v in vars(seen).items() if v]
    if problems:
        OUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUT / f"{stem}.png"))
    page.context.close()
    assert not problems, f"{stem}:\n" + "\n".join(problems)


def test_dark_theme_shows_dark_figures(built, served, chromium):
    stem = next(s for s, d in built.decks.items() if d["figures"])
    page, seen = _page(chromium, f"{served}{stem}.html?transition=none&theme=dark")
    first = built.decks[stem]["kinds"].index("figure")
    page.evaluate(f"Reveal.slide({first})")
    facts = page.evaluate("""() => {
      const img = [...Reveal.getCurrentSlide().querySelectorAll('img')]
        .filter((i) => i.getClientRects().length > 0);
      const bg = getComputedStyle(document.querySelector('.reveal-viewport')).backgroundColor;
      return {src: img.map((i) => i.src), loaded: img.every((i) => i.naturalWidth > 0), bg};
    }""")  # fmt: skip
    assert len(facts["src"]) == 1 and facts["src"][0].endswith("-dark.png") and facts["loaded"]
    rgb = [int(v) for v in re.findall(r"\d+", facts["bg"])[:3]]
    assert sum(rgb) < 150, f"dark background expected, got {facts['bg']}"
    page.keyboard.press("t")  # T: back to light
    light = page.evaluate("document.documentElement.dataset.theme")
    assert light == "light"
    assert not seen, seen
    page.context.close()


def test_index_lists_every_deck_and_pdf(built):
    html = (built.folder / "index.html").read_text()
    for stem in LECTURES:
        assert f'href="{stem}.html"' in html and f'href="{stem}.pdf"' in html
    assert not re.search(r"(src|href)=\"https?://", html)


def test_speaker_view_shows_the_notes_offline(built, served, chromium):
    stem = LECTURES[3]
    page, seen = _page(chromium, f"{served}{stem}.html?transition=none#/2")
    with page.context.expect_page() as opened:
        page.keyboard.press("s")  # reveal.js's speaker view: current and next slide, notes, timer
    view = opened.value
    view.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    view.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes') || {innerText: ''})"
        ".innerText.trim().length > 40", timeout=30_000)  # fmt: skip
    assert not seen, seen
    page.context.close()
