"""The course website, built and read in a real browser, offline.

One session builds the site exactly as ``make site`` does (``python -m lecturekit_publish site``,
in a subprocess under the offline guard: the build may not touch the network; the third-party
scripts come from the npm cache filled at set-up, the only network use), serves it on
127.0.0.1 and opens every page in headless Debian Chromium with every request to another host
refused and recorded. Per page: no refused or failed request, no console error, every image
loaded and described (alt text), math rendered where the page has math, headings in order, every
widget player ready. Then: search finds a lecture-07 term, moving each widget's control changes
what it shows (images on at least three pages), bertviz draws from the site's own scripts (and
its fallback shows when they fail), the dark theme applies. Build time ≤ 3 min, size ≤ 150 MB.

Marker ``browser`` (and ``network`` for the npm set-up); skipped without Chromium / playwright
unless LECTUREKIT_REQUIRE_BROWSER=1 (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chromium import offline_page  # tests/support
from publishing import fetch_scripts, run_publish  # tests/support

from lecturekit_publish import figures
from lecturekit_publish.browser import serve

pytestmark = [pytest.mark.browser, pytest.mark.network]  # network: the npm set-up only

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "test-output" / "site"
# the issue's budget on 2 free cores; under `make test` (pytest-xdist) another worker runs
# notebooks beside the build, which then gets about one core of a slower machine: a cap
# against a runaway build, not a benchmark (the build prints its time)
BUILD_LIMIT_S = 180 * (3 if os.environ.get("PYTEST_XDIST_WORKER") else 1)
SIZE_LIMIT_MB = 150
SEARCH_TERM, SEARCH_PAGE = "beam", "07_beam_search.html"


@dataclass
class Site:
    folder: Path
    url: str
    seconds: float
    log: str
    pages: list[str] = field(default_factory=list)


@pytest.fixture(scope="session")
def site(tmp_path_factory, online_env) -> Site:
    fetch_scripts(online_env)
    folder = tmp_path_factory.mktemp("site") / "site"
    seconds, log = run_publish("site", folder)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "build.log").write_text(log)

    with serve(folder) as url:
        yield Site(folder, url, seconds, log, sorted(p.name for p in folder.glob("*.html")))


@pytest.fixture(scope="session")
def browser(site, chromium):
    return chromium  # tests/conftest.py: one Chromium for every browser test


def _page(browser, site: Site, block: str | None = None):
    return offline_page(browser, (1280, 900), block)


def _shot(page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(Exception):  # a screenshot must not hide the real failure
        page.screenshot(path=str(OUT / f"{name}.png"), full_page=False)


_PAGE_FACTS = """() => {
  const visible = (el) => el.offsetParent !== null || el.getClientRects().length > 0;
  const imgs = [...document.images].filter(visible);
  const main = document.querySelector('article.bd-article') || document.body;
  return {
    images: imgs.length,
    broken: imgs.filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    noAlt: imgs.filter((i) => !(i.getAttribute('alt') || '').trim()).map((i) => i.src),
    math: document.querySelectorAll('mjx-container').length,
    mathErrors: document.querySelectorAll('mjx-merror').length,
    rawMath: document.querySelectorAll('.math:not(:has(mjx-container))').length,
    players: document.querySelectorAll('.lk-player:not(.lk-still)').length,
    ready: document.querySelectorAll('.lk-player.lk-ready').length,
    still: document.querySelectorAll('.lk-player.lk-still').length,
    headings: [...main.querySelectorAll('h1,h2,h3,h4,h5,h6')].filter(visible)
      .map((h) => Number(h.tagName[1])),
  };
}"""


def test_site_builds_within_budget(site):
    size = sum(p.stat().st_size for p in site.folder.rglob("*") if p.is_file()) / 1e6
    lectures = [p for p in site.pages if re.match(r"\d\d[a-z]?_", p)]
    assert len(lectures) == len(list((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")))
    assert {"index.html", "gallery.html", "course-map.html", "search.html"} <= set(site.pages)
    decks = sorted(p.stem for p in (ROOT / "companions").glob("*.ipynb"))
    assert decks and {"companions.html", *(f"companion-{d}.html" for d in decks)} <= set(site.pages)
    assert all((site.folder / "_sources" / f"companion-{d}.ipynb").exists() for d in decks)
    assert site.seconds <= BUILD_LIMIT_S, f"site built in {site.seconds:.0f} s\n{site.log}"
    assert size <= SIZE_LIMIT_MB, f"site is {size:.1f} MB"
    print(
        f"site: built in {site.seconds:.0f} s, {size:.1f} MB; {site.log.strip().splitlines()[-1]}"
    )


def test_search_finds_a_lecture_07_term(site, browser):
    page, seen = _page(browser, site)
    page.goto(f"{site.url}search.html?q={SEARCH_TERM}", wait_until="networkidle", timeout=120_000)
    link = page.locator(f'#search-results a[href*="{SEARCH_PAGE}"]')
    link.first.wait_for(timeout=60_000)
    assert not seen.refused and not seen.failed and not seen.errors, seen
    page.context.close()


_PLAYERS = "() => [...document.querySelectorAll('.lk-player.lk-ready')].length"
_SHOWN = """(i) => {
  const p = document.querySelectorAll('.lk-player.lk-ready')[i];
  return {setting: p.dataset.lkSetting || '',
          shown: [...p.querySelector('.lk-outputs').children].map(
            (c) => c.tagName === 'IMG' ? c.getAttribute('src') : c.innerHTML)};
}"""


def _move(page, index: int, control: int, value: int) -> None:
    player = page.locator(".lk-player.lk-ready").nth(index)
    wrap = player.locator(".lk-control").nth(control)
    if wrap.locator("input[type=range]").count():
        wrap.locator("input[type=range]").fill(str(value))
    elif wrap.locator("select").count():
        wrap.locator("select").select_option(str(value))
    else:
        wrap.locator("input[type=checkbox]").click()


@dataclass
class Visit:
    """What one visit of a page found: its reading problems (before any control was touched)
    and, on a page with widget players, what moving their controls did."""

    problems: dict  # what is wrong with the page as read (empty: nothing)
    math: bool = False  # the page has math
    players: int = 0
    dead: list[str] = field(default_factory=list)  # players whose controls change nothing
    changed: bool = False  # some control changed a picture on this page
    play_seen: object = None  # requests and console errors while playing (chromium.Seen)


def _read(page, site: Site, name: str, seen) -> Visit:
    """Open ``name``: its reading problems, and whether it has math."""
    # "load": every resource, iframes included, has arrived (all of them are local); not
    # "networkidle", which on a busy machine waited out 120 s on lecture 08b's bertviz page
    page.goto(site.url + name, wait_until="load", timeout=120_000)
    if name != "search.html":
        page.wait_for_function(
            "() => !window.MathJax || !MathJax.startup || MathJax.startup.promise"
            ".then(() => true)", timeout=60_000)  # fmt: skip
        page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    facts = page.evaluate(_PAGE_FACTS)
    html = (site.folder / name).read_text(encoding="utf-8")
    wants_math = 'class="math' in html
    jumps = [
        (a, b) for a, b in zip(facts["headings"], facts["headings"][1:], strict=False) if b > a + 1
    ]
    issues = {
        "refused": list(seen.refused), "failed": list(seen.failed), "console": list(seen.errors),
        "broken images": facts["broken"], "images without alt": facts["noAlt"],
        "math not rendered": wants_math and (facts["math"] == 0 or facts["rawMath"] > 0),
        "math errors": facts["mathErrors"], "heading jumps": jumps,
        "first heading not h1": bool(facts["headings"]) and facts["headings"][0] != 1,
        "players not ready": facts["players"] - facts["ready"],
        "widgets without frames": facts["still"],
    }  # fmt: skip
    return Visit({k: v for k, v in issues.items() if v}, wants_math)


def _play(page, name: str, visit: Visit) -> None:
    """Move each player's controls through their values until the shown frame changes."""
    page.wait_for_function("() => document.querySelectorAll('.lk-player:not(.lk-ready)')"
                           ".length === 0", timeout=60_000)  # fmt: skip
    visit.players = page.evaluate(_PLAYERS)
    for i in range(visit.players):
        controls = page.locator(".lk-player.lk-ready").nth(i).locator(".lk-control")
        first = page.evaluate(_SHOWN, i)
        moved = False
        for c in range(controls.count()):
            wrap = controls.nth(c)
            if not wrap.is_visible() or wrap.locator("[disabled]").count():
                continue
            options = wrap.locator("option").count() or (
                int(wrap.locator("input[type=range]").get_attribute("max") or 0) + 1
                if wrap.locator("input[type=range]").count() else 2)  # fmt: skip
            for value in range(options):
                _move(page, i, c, value)
                if page.evaluate(_SHOWN, i)["shown"] != first["shown"]:
                    moved = visit.changed = True
                    break
            if moved:
                break
        if not moved:
            visit.dead.append(f"{name} player {i}")


@pytest.fixture(scope="module")
def visits(site, browser) -> dict[str, Visit]:
    """Every page opened once (a fresh offline page each): read, then its players played.
    The two tests below judge the halves; one visit per page instead of one per test."""
    found = {}
    for name in site.pages:
        page, seen = _page(browser, site)
        visit = _read(page, site, name, seen)
        if visit.problems:
            _shot(page, name)
        if "lk-player" in (site.folder / name).read_text(encoding="utf-8"):
            try:
                _play(page, name, visit)
            except Exception as err:  # a timeout: the reading half is still judged
                visit.dead.append(f"{name}: {type(err).__name__}: {str(err)[:300]}")
            visit.play_seen = seen
        page.context.close()
        found[name] = visit
    return found


def test_every_page_reads_offline_without_errors(visits):
    problems = [f"{name}: {v.problems}" for name, v in visits.items() if v.problems]
    assert not problems, "\n".join(problems)
    with_math = sum(v.math for v in visits.values())
    assert with_math >= 10, f"only {with_math} pages have math"


def test_every_widget_plays_without_a_kernel(visits):
    """Every player: each control, moved through its values, changes the setting shown; some
    value of some control changes the picture; pictures change on at least three pages."""
    played = {name: v for name, v in visits.items() if v.play_seen is not None}
    for name, v in played.items():
        seen = v.play_seen
        assert not seen.refused and not seen.failed and not seen.errors, (name, seen)
    dead = [d for v in played.values() for d in v.dead]
    assert not dead, f"players whose controls change nothing: {dead}"
    changing = [name for name, v in played.items() if v.changed]
    assert len(changing) >= 3, changing
    print(f"{sum(v.players for v in played.values())} players on {len(changing)} pages respond "
          f"to their controls")  # fmt: skip


def test_every_control_of_every_widget_changes_what_it_shows(site):
    """From the frames the pages hold (each player's JSON): for every control with more than
    one value, some setting of the others where moving it changes the frame (a control that
    did nothing would be a dead slider on the page); every frame's images have alt text."""
    dead, players = [], 0
    for name in site.pages:
        text = (site.folder / name).read_text(encoding="utf-8")
        for blob in re.findall(r'<script type="application/json" class="lk-data">(.*?)</script>',
                               text, re.S):  # fmt: skip
            data = json.loads(blob.replace("<\\/", "</"))
            players += 1
            frames = {tuple(map(int, k.split("-"))): json.dumps(v) for k, v in
                      data["frames"].items()}  # fmt: skip
            for frame in data["frames"].values():
                for out, v in zip(data["outputs"], frame, strict=True):
                    assert out != "image" or v["alt"].strip(), f"{name}: a frame without alt"
            for k, control in enumerate(data["controls"]):
                if len(control["labels"]) < 2:
                    continue
                by_rest: dict[tuple, set] = {}
                for key, frame in frames.items():
                    by_rest.setdefault(key[:k] + key[k + 1 :], set()).add(frame)
                if not any(len(v) > 1 for v in by_rest.values()):
                    dead.append(f"{name} {data['name']}: {control['name']}")
    assert players == len(figures.widget_names()), players
    assert not dead, f"controls that change nothing: {dead}"


BERTVIZ_PAGE = "08b_bert_what_it_learned.html"


@pytest.mark.parametrize("scripts", ["served", "failing"])
def test_bertviz_draws_from_the_site_or_falls_back(site, browser, scripts):
    block = "/_static/vendor/d3-5.7.0/" if scripts == "failing" else None
    page, seen = _page(browser, site, block=block)
    # "load" (iframes included), then the views' own drawing: "networkidle" waited out its 30 s
    # once in CI on a busy machine
    page.goto(site.url + BERTVIZ_PAGE, wait_until="load", timeout=120_000)
    page.locator("iframe").first.wait_for(timeout=60_000)
    frames = [f for f in page.frames if f != page.main_frame]
    assert len(frames) == 2, f"{len(frames)} bertviz frames on the page (head and model view)"
    for k, frame in enumerate(frames):
        if scripts == "served":  # the views draw with the site's d3: the head view its tokens
            token = "[CLS]" if k == 0 else "Heads"  # (the model view: its grid of heads)
            frame.wait_for_function(
                f"() => [...document.querySelectorAll('#lk-bertviz svg text')]"
                f".some((t) => t.textContent === '{token}')", timeout=60_000, polling=250)  # fmt: skip
            assert frame.locator("#lk-fallback").is_hidden()
        else:
            frame.wait_for_selector("#lk-fallback", state="visible", timeout=60_000)
            assert frame.locator("#lk-fallback img").count() >= 1
    if scripts == "served":
        assert not seen.refused and not seen.failed and not seen.errors, seen
    else:
        assert seen.refused and all("/_static/vendor/d3-5.7.0/" in u for u in seen.refused), (
            seen.refused
        )
    page.context.close()


def test_dark_theme_switches(site, browser):
    page, seen = _page(browser, site)
    # the choice is stored before the first load (a reload would abort the first load's
    # requests, e.g. the favicon: net::ERR_ABORTED, a failure of the test, not of the page)
    page.add_init_script("localStorage.setItem('mode', 'dark');")
    page.goto(site.url + "03_self_attention.html", wait_until="networkidle", timeout=120_000)
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    _shot(page, "dark-03")
    assert not seen.refused and not seen.failed and not seen.errors, seen
    page.context.close()


# ------------------------------------------------------------------- answers in the page

ANSWER_PAGE = "03_self_attention.html"


def _answer(page, exercise_id: str, typed: str) -> str:
    box = page.locator(f'[data-lk-exercise="{exercise_id}"]')
    box.locator("input").fill(typed)
    box.locator(".lk-check-button").click()
    return box.locator(".lk-verdict").inner_text()


def test_answers_are_checked_in_the_page_without_a_kernel(site, browser):
    """A student answers on the site: right, wrong, a synonym, a known slip, a hint at a time,
    a code exercise sent to the notebook; each verdict is the notebook's."""
    from lecturekit.exercises import core

    page, seen = _page(browser, site)
    page.goto(site.url + ANSWER_PAGE, wait_until="load", timeout=120_000)
    page.wait_for_function("() => document.querySelectorAll('.lk-answer').length > 0 && "
                           "[...document.querySelectorAll('.lk-answer')]"
                           ".every((b) => b.dataset.lkReady)", timeout=60_000)  # fmt: skip
    a1 = math.exp(14) / (math.exp(14) + math.exp(12))
    box = page.locator('[data-lk-exercise="03.1"]')
    assert _answer(page, "03.1", "0.9, 0.1") == \
        "not yet: number 1, 2 of 2 is not right (to 4 decimals)"  # fmt: skip
    first_hint = core.get("03.1").hints[0]
    assert box.locator(".lk-hints li").all_inner_texts() == [f"hint 1 of 2: {first_hint}"]
    assert _answer(page, "03.1", f"{a1:.5f}, {1 - a1:.4f}") == (
        f"correct: softmax(14, 12) = ({a1:.4f}, {1 - a1:.4f}), the slides' 0.88 and 0.12"
    )
    assert "lk-correct" in box.get_attribute("class")

    assert _answer(page, "03.r2", " Lower-Dimensional ").startswith("correct: “The query/key")
    assert _answer(page, "03.r2", "bigger") == \
        "not yet: that is not the word the deck has in mind"  # fmt: skip
    assert _answer(page, "03.r1", "") == "not attempted yet (write your answer, then Check)"

    code = page.locator('[data-lk-exercise="03.3"]')
    assert code.locator("input").count() == 0
    assert "run this one in the notebook" in code.inner_text()
    hrefs = code.locator("a").evaluate_all("(links) => links.map((a) => a.href)")
    assert any(h.startswith("https://colab.research.google.com/") for h in hrefs), hrefs
    assert any(h.startswith("https://mybinder.org/") for h in hrefs), hrefs
    hints = core.get("03.3").hints
    for k in range(len(hints)):  # one hint a click, as hint("03.3") gives them
        code.locator(".lk-hint-button").click()
        shown = code.locator(".lk-hints li:not(.lk-solution)").all_inner_texts()
        assert shown == [f"hint {i + 1} of {len(hints)}: {h}" for i, h in enumerate(hints[: k + 1])]
    assert code.locator(".lk-hint-button").is_disabled()
    assert "worked solution is in solutions/03_self_attention.ipynb" in code.inner_text()
    _shot(page, "answers-03")
    assert not seen.refused and not seen.failed and not seen.errors, seen
    page.context.close()

    page, seen = _page(browser, site)  # an int with thousands separators, a checker's value
    page.goto(site.url + "04_multi_head_attention.html", wait_until="load", timeout=120_000)
    page.wait_for_selector('[data-lk-exercise="04.3"][data-lk-ready]', timeout=60_000)
    assert _answer(page, "04.3", f"{4 * 768**2 + 4 * 768:,}").startswith(
        f"correct: {4 * 768**2 + 4 * 768} parameters = 4 * 768^2 + 4 * 768"
    )
    assert _answer(page, "04.3", str(4 * 768**2)) == "not yet: that is not the expected answer"
    page.goto(site.url + "02b_scoring_in_depth.html", wait_until="load", timeout=120_000)
    page.wait_for_selector('[data-lk-exercise="02b.3"][data-lk-ready]', timeout=60_000)
    value = core.get("02b.3").page()
    assert (
        _answer(page, "02b.3", str(value.value)) == f"correct: {core.grade('02b.3', value.value)}"
    )
    assert _answer(page, "02b.3", str(value.traps[0])) == (
        "not yet: that is the additive score's count: the default MLP has a second layer"
    )
    assert not seen.refused and not seen.failed and not seen.errors, seen
    page.context.close()


def _answer_data(text: str) -> list[dict]:
    return [
        json.loads(m.replace("<\\/", "</"))
        for m in re.findall(
            r'<script type="application/json" class="lk-answer-data">(.*?)</script>', text
        )
    ]


def test_every_lecture_page_has_its_forms_and_no_answer_in_clear(site):
    """Each lecture page has a form for each of its exercises and recall blanks (none shows a
    stored "not attempted yet"); no page's source holds an answer, a hint, a "correct" message
    or the deck's word in clear."""
    from lecturekit.exercises import core
    from lecturekit.exercises.recall import blanks

    secrets = set()  # text the page must hold only encoded
    for i in core.exercise_ids():
        ex = core.get(i)
        secrets |= set(ex.hints) | ({ex.correct.split("{answer}")[-1]} - {""})
        if ex.page is not None:
            secrets.add(core.grade(i, ex.page().value))
    for b in blanks():
        secrets.add(f"the deck's word: {b.answers[0]}")
    # answers the lecture does not print itself (03.1's softmax(14, 12) is lecture 03's own
    # worked example): 04.3 computed here, two checker exercises' values; none may be in clear
    known = {
        "04": [4 * 768**2 + 4 * 768],
        "02b": [core.get("02b.3").page().value],
        "10b": [core.get("10b.1").page().value],
    }
    notebooks = {p.stem: p for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")}
    leaks, missing = [], []
    for name in site.pages:
        text = (site.folder / name).read_text(encoding="utf-8")
        leaks += [f"{name}: {s[:60]!r}" for s in secrets if len(s) > 12 and s in text]
        for n in known.get(name.split("_")[0], []):
            leaks += [f"{name}: {n}" for form in (str(n), f"{n:,}")
                      if re.search(rf"(?<![0-9,.]){re.escape(form)}(?![0-9,.])", text)]  # fmt: skip
        data = _answer_data(text)
        for spec in data:
            blob = json.dumps({k: v for k, v in spec.items()
                               if k not in ("title", "before", "after", "describe")})  # fmt: skip
            if spec["kind"] == "recall":
                words = next(b for b in blanks() if b.id == spec["id"]).answers
                leaks += [f"{name} {spec['id']}: {w}" for w in words
                          if re.search(rf"\b{re.escape(w)}\b", blob, re.I)]  # fmt: skip
        stem = name.removesuffix(".html")
        if stem in notebooks:
            lecture = stem.split("_")[0]
            want = set(core.exercise_ids(lecture) if lecture in core.lectures() else [])
            want |= {b.id for b in blanks() if b.lecture == lecture}
            got = {s["id"] for s in data}
            if got != want or "not attempted yet (write your answer" in text:
                missing.append(f"{name}: forms for {sorted(got)}, exercises {sorted(want)}")
    assert not leaks, "\n".join(leaks)
    assert not missing, "\n".join(missing)


WIDTHS = (360, 1400)  # a phone, a wide screen
_OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const lines = [...document.querySelectorAll('.lk-recall-line, .lk-answer')]
    .filter((e) => e.getBoundingClientRect().right > width + 0.5).length;
  return {scroll: document.documentElement.scrollWidth, width, lines};
}"""


def test_nothing_runs_off_the_page(site, browser):
    """At a phone's 360 px and at 1400 px, no page is wider than the window (recall lines,
    forms, inline code, tables and headings wrap or scroll inside themselves)."""
    page, seen = offline_page(browser, (WIDTHS[0], 800))
    wide = []
    for name in site.pages:
        if name in ("search.html", "genindex.html"):
            continue
        page.goto(site.url + name, wait_until="load", timeout=120_000)
        page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        for width in WIDTHS:  # one load, the window resized: the page lays itself out again
            page.set_viewport_size({"width": width, "height": 800})
            facts = page.evaluate(_OVERFLOW)
            if facts["scroll"] > facts["width"] or facts["lines"]:
                wide.append(f"{name} at {width} px: {facts}")
                _shot(page, f"wide-{width}-{name}")
    assert not wide, "\n".join(wide)
    assert not seen.refused, seen  # (a favicon aborted by the next page's load is no fault)
    page.context.close()
