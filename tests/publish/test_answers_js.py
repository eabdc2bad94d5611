"""The page's checker (``lecturekit_publish/static/lk-answers.js``) against the notebook's, in
headless Chromium, without building the site: the same canonical forms, the same salted hashes,
the same verdicts and messages, for made-up answers of every kind, every recall blank and every
checker exercise the page can check.

Marker ``browser`` (tests/support/chromium.py: skipped without Chromium unless CI requires it).
"""

from __future__ import annotations

import math
import random

import pytest

import lecturekit.exercises  # noqa: F401  (registers every exercise)
from lecturekit.exercises import core
from lecturekit.exercises.recall import BLANKS
from lecturekit_publish import answers
from lecturekit_publish.site import STATIC

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def js(chromium):
    context = chromium.new_context()
    page = context.new_page()
    page.route("**/*", lambda route: route.abort())  # nothing leaves the page
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(content=(STATIC / "lk-answers.js").read_text(encoding="utf-8"))
    yield page
    context.close()


def _canonical_js(js, kind, raw, precision):
    return js.evaluate(
        "([k, r, p]) => { try { return window.lkAnswers.canonical(k, r, p); } "
        "catch (e) { return 'not yet: ' + e.message; } }",
        [kind, raw, precision],
    )


def _same_forms(got, want):  # at an exact tie the two languages list the two forms in turn
    return isinstance(got, list) and [sorted(f) for f in got] == [sorted(f) for f in want]


CASES = [  # kind, precision, typed in the page, the notebook's answer
    ("int", 0, "256", 256), ("int", 0, " 2,362,368 ", 2362368), ("int", 0, "12.0", 12.0),
    ("int", 0, "-7", -7), ("int", 0, "1e3", 1000.0),
    ("float", 3, "0.300", 0.3), ("float", 2, "0.125", 0.125), ("float", 0, "2.5", 2.5),
    ("float", 4, "-0.00001", -0.00001), ("float", 1, ".95", 0.95),
    ("floats", 4, "0.8808, 0.1192", (0.8808, 0.1192)),
    ("floats", 4, "[0.88071, 0.11919]", [0.88071, 0.11919]),
    ("floats", 0, "(56, 12)", (56, 12)), ("floats", 2, "1e-3; 2.675", (1e-3, 2.675)),
    ("text", 0, "  G   S. ", "  G   S. "), ("text", 0, "Left-to-Right", "Left-to-Right"),
    ("words", 0, "R e new e d", "R e new e d"), ("words", 0, "duck, dog", ("duck", "dog")),
    ("words", 0, "['ug', 'un', 'hug']", ["ug", "un", "hug"]),
    ("set", 0, "b, a, 3", ["b", "a", 3]),
]  # fmt: skip


@pytest.mark.parametrize("kind, precision, raw, value", CASES)
def test_the_page_puts_an_answer_in_the_notebooks_canonical_form(js, kind, precision, raw, value):
    assert _same_forms(_canonical_js(js, kind, raw, precision),
                       core.canonical(kind, value, precision))  # fmt: skip


def test_rounding_agrees_on_many_numbers(js):
    rng = random.Random(42)
    values = [rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-5, 2) for _ in range(400)]
    values += [k / 8 for k in range(-40, 40)] + [0.5 + k for k in range(-5, 5)]  # exact ties
    for v in values:
        p = rng.randint(0, 5)
        assert _same_forms(_canonical_js(js, "float", repr(v), p),
                           core.canonical("float", v, p)), (v, p)  # fmt: skip


@pytest.mark.parametrize("raw", ["", "abc", "1/2", "nan", "inf", "0x10", "1.2.3"])
def test_what_is_not_a_number_is_not_yet(js, raw):
    assert str(_canonical_js(js, "float", raw, 2)).startswith("not yet: expected a number")
    assert str(_canonical_js(js, "int", "2.5", 0)) == "not yet: expected a whole number, got 2.5"


def test_hashes_and_encoded_text_are_the_notebooks(js):
    cases = [("03.1", "floats", 1, "0.1192"), ("03.r1", "recall", 0, "encodes"),
             ("x" * 70, "té✓", 3, "ü" * 100), ("", "", 0, "")]  # fmt: skip
    for case in cases:
        assert js.evaluate("a => window.lkAnswers.formHash(...a)", list(case)) == \
            core.form_hash(*case)  # fmt: skip
    for text in ["a1 = e^14 / (e^14 + e^12)", "ü" * 200, "x", "the deck's word: bottom"]:
        blob = answers.encode(text, "10.r1", "hint2")
        assert js.evaluate("b => window.lkAnswers.decode(b, '10.r1', 'hint2')", blob) == text


def _judge(js, spec, raw):
    return js.evaluate("([s, r]) => window.lkAnswers.judge(s, r)", [spec, raw])


def _spec(exercise_id, kind, precision, value, correct="{answer}: well done"):
    return {"id": exercise_id, "kind": kind, "p": precision, "traps": {},
            "h": list(core.answer_hashes(exercise_id, kind, value, precision)),
            "ok": answers.encode(correct, exercise_id, "ok")}  # fmt: skip


def _python(exercise_id, kind, precision, value, answer, correct="{answer}: well done"):
    ex = core.Exercise(
        exercise_id,
        "t",
        ("h",),
        correct=correct,
        expected=core.Expected(
            kind, core.answer_hashes(exercise_id, kind, value, precision), precision
        ),
    )
    try:
        return {"ok": True, "message": core._judge_expected(ex, answer)}
    except core.NotYet as err:
        return {"ok": False, "message": str(err)}


JUDGED = [  # kind, precision, expected value, typed, the notebook's answer
    ("int", 0, 2362368, "2,362,368", 2362368), ("int", 0, 2362368, "2362369", 2362369),
    ("float", 3, 0.29957, "0.3", 0.3), ("float", 3, 0.29957, "0.2996", 0.2996),
    ("float", 3, 0.29957, "0.298", 0.298),
    ("floats", 4, (math.exp(2) / (1 + math.exp(2)), 1 / (1 + math.exp(2))), "0.8808, 0.1192",
     (0.8808, 0.1192)),
    ("floats", 4, (0.8808, 0.1192), "0.8808, 0.1190", (0.8808, 0.119)),
    ("floats", 4, (0.8808, 0.1192), "0.8808, 0.1192, 0", (0.8808, 0.1192, 0)),
    ("floats", 0, (56, 12), "60, 11", (60, 11)),
    ("text", 0, "g s", "G S", "G S"), ("text", 0, "g s", "g-s", "g-s"),
    ("words", 0, ("ug", "un", "hug"), "ug un hug", "ug un hug"),
    ("words", 0, ("ug", "un", "hug"), "un ug hug", "un ug hug"),
]  # fmt: skip


@pytest.mark.parametrize("kind, precision, value, raw, answer", JUDGED)
def test_the_page_judges_and_says_what_the_notebook_says(js, kind, precision, value, raw, answer):
    got = _judge(js, _spec("05.9", kind, precision, value), raw)
    assert got == _python("05.9", kind, precision, value, answer)


@pytest.mark.parametrize("blank", BLANKS, ids=lambda b: b.id)
def test_every_recall_blank_accepts_its_words_and_no_other(js, blank):
    spec = answers.recall_spec(blank.id)
    for word in blank.answers:
        for typed in (word, word.upper(), f"  {word.replace(' ', '-')} "):
            assert _judge(js, spec, typed)["ok"], typed
    wrong = _judge(js, spec, "zebra")
    assert wrong == {"ok": False, "message": "that is not the word the deck has in mind"}


@pytest.mark.parametrize(
    "exercise_id", [i for i in core.exercise_ids() if core.get(i).page and not i.startswith("99.")]
)  # (tests add lecture 99)
def test_a_checker_exercise_is_judged_in_the_page_as_in_the_notebook(js, exercise_id):
    ex = core.get(exercise_id)
    page = ex.page()
    spec = answers.exercise_spec(exercise_id)

    def typed(value):
        return ", ".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)

    got = _judge(js, spec, typed(page.value))
    assert got == {"ok": True, "message": core.grade(exercise_id, page.value)}
    for trap in page.traps:
        with pytest.raises(AssertionError) as err:
            core.grade(exercise_id, trap)
        got = _judge(js, spec, typed(trap))
        assert not got["ok"] and str(err.value).endswith(got["message"])
