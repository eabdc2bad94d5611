"""The website's answer forms without a browser (``lecturekit_publish.answers``): what each
exercise and recall blank puts in the page, that it holds hashes and encoded text only, that a
page answer agrees with the notebook's checker, and that every check cell of every lecture gets
its form. tests/publish/test_answers_js.py runs the page's script against the same rules;
tests/test_site.py answers on the built site."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import lecturekit.exercises  # noqa: F401  (registers every exercise)
from lecturekit.exercises import core
from lecturekit.exercises.recall import BLANKS, key
from lecturekit_publish import answers
from lecturekit_publish.notebook import lecture_notebooks, read_notebook
from lecturekit_publish.site import prepare_notebook

ROOT = Path(__file__).resolve().parents[2]
REPO = "https://github.com/lecturekit/lecturekit"
LECTURES = set(lecture_notebooks(ROOT / "notebooks"))
IDS = [i for i in core.exercise_ids() if core.get(i).lecture in LECTURES]  # (tests add others)
PAGE_IDS = [i for i in IDS if core.get(i).page is not None]


def _data(html: str) -> list[dict]:
    return [json.loads(m.replace("<\\/", "</")) for m in
            re.findall(r'<script type="application/json" class="lk-answer-data">(.*?)</script>',
                       html)]  # fmt: skip


def test_encoding_round_trips_and_hides_the_text():
    text = "the deck's word: sequential — ü"
    blob = answers.encode(text, "00.r1", "hint2")
    assert answers.decode(blob, "00.r1", "hint2") == text
    assert "sequential" not in blob
    assert answers.encode(text, "00.r1", "hint1") != blob  # one key stream per message
    with pytest.raises(UnicodeDecodeError):  # another exercise's key stream: not the text
        answers.decode(blob, "00.r2", "hint2")


@pytest.mark.parametrize("exercise_id", IDS)
def test_an_exercise_spec_holds_hashes_and_encoded_text_only(exercise_id):
    ex = core.get(exercise_id)
    spec = answers.exercise_spec(exercise_id)
    blob = json.dumps(spec, ensure_ascii=False)
    for i, hint in enumerate(ex.hints):
        assert answers.decode(spec["hints"][i], ex.id, f"hint{i + 1}") == hint
        assert hint not in blob
    if ex.expected is not None:
        assert spec["kind"] == ex.expected.kind and spec["h"] == list(ex.expected.hashes)
        assert answers.decode(spec["ok"], ex.id, "ok") == ex.correct
    elif ex.page is None:
        assert spec["kind"] == "notebook" and "h" not in spec and "ok" not in spec
    for field in ("h",):
        assert all(re.fullmatch(r"[0-9a-f]{20}", h) for h in spec.get(field, []))


@pytest.mark.parametrize("exercise_id", PAGE_IDS)
def test_a_page_answer_is_the_one_the_notebook_accepts(exercise_id):
    """The value a checker exercise puts in the page (hashed) passes its notebook checker, each
    trap fails it with the message the page shows, and neither is in the page in clear."""
    ex = core.get(exercise_id)
    page = ex.page()
    message = core.grade(exercise_id, page.value)
    spec = answers.exercise_spec(exercise_id)
    assert spec["h"] == list(core.answer_hashes(ex.id, page.kind, page.value, page.precision))
    assert answers.decode(spec["ok"], ex.id, "ok") == message
    assert message not in json.dumps(spec)
    assert len(spec["traps"]) == len(page.traps)
    for trap in page.traps:
        with pytest.raises(AssertionError) as err:
            core.grade(exercise_id, trap)
        trap_key = ",".join(core.answer_hashes(ex.id, page.kind, trap, page.precision))
        shown = answers.decode(spec["traps"][trap_key], ex.id, f"trap:{trap_key}")
        assert str(err.value).endswith(shown)
    values = page.value if isinstance(page.value, (tuple, list)) else (page.value,)
    data = json.dumps({k: v for k, v in spec.items() if k not in ("title", "describe")})
    for v in values:
        assert not re.search(rf"(?<![0-9a-zA-Z]){re.escape(str(v))}(?![0-9a-zA-Z])", data)


def test_a_trap_the_checker_accepts_is_refused(monkeypatch):
    ex = core.get("09b.3")
    truth = ex.page().value
    fake = core.Exercise("09b.3", ex.title, ex.hints, checker=ex.checker,
                         page=lambda: core.PageAnswer("int", truth, traps=(truth,)))  # fmt: skip
    monkeypatch.setitem(core._REGISTRY, "09b.3", fake)
    with pytest.raises(ValueError, match=r"trap .* is accepted by its checker"):
        answers.exercise_spec("09b.3")


def test_page_answers_need_a_checker_without_context():
    with pytest.raises(ValueError, match="page= is for a checker without context"):
        core.Exercise("03.9", "t", ("h",), expected=core.Expected("int", ("0" * 20,)),
                      page=lambda: core.PageAnswer("int", 1))  # fmt: skip


@pytest.mark.parametrize("blank", BLANKS, ids=lambda b: b.id)
def test_a_recall_spec_hashes_every_accepted_answer(blank):
    spec = answers.recall_spec(blank.id)
    assert spec["before"] + "_____" + spec["after"] == blank.prompt
    assert set(spec["h"]) == {core.form_hash(blank.id, "recall", 0, key(a)) for a in blank.answers}
    blob = json.dumps(spec, ensure_ascii=False)
    rest = blob.replace(spec["before"], "").replace(spec["after"], "")  # the prompt is public
    for answer in blank.answers:
        assert not re.search(rf"\b{re.escape(answer)}\b", rest, re.I)
    assert answers.decode(spec["hints"][-1], blank.id, "hint2") == \
        f"the deck's word: {blank.answers[0]}"  # fmt: skip


def test_recall_spec_refuses_an_unknown_blank():
    with pytest.raises(ValueError, match=r"blank_id '03\.r9' is not a recall blank"):
        answers.recall_spec("03.r9")


def _check_cells():
    for lecture, path in lecture_notebooks(ROOT / "notebooks").items():
        for cell in read_notebook(path)["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and re.search(r"\b(check|quiz)\(", source):
                yield lecture, path.stem, source


def test_every_exercise_and_blank_of_the_lectures_gets_a_form():
    seen = {}
    for _lecture, stem, source in _check_cells():
        html = answers.check_cell_html(source, stem, REPO)
        assert html is not None, f"{stem}: a check cell without a form:\n{source}"
        for spec in _data(html):
            seen[spec["id"]] = spec
    assert set(seen) == set(IDS) | {b.id for b in BLANKS}
    kinds = {i: s["kind"] for i, s in seen.items()}
    valued = [i for i in IDS if core.get(i).expected is not None or core.get(i).page is not None]
    assert all(kinds[i] != "notebook" for i in valued)
    assert all(kinds[i] == "notebook" for i in IDS if i not in valued)
    assert len(valued) >= 50  # every hashed exercise and the checkers' short values


def test_a_code_exercise_points_to_the_notebook_and_its_links():
    source = (
        'def my_attention(Q, K, V):\n    raise NotImplementedError\n\ncheck("03.3", my_attention)'
    )
    html = answers.check_cell_html(source, "03_self_attention", REPO)
    assert "run this one in the notebook" in html and "<input" not in html
    links = answers.launch_links(REPO, "03_self_attention")
    assert links["colab"] == ("https://colab.research.google.com/github/lecturekit/lecturekit/"
                              "blob/main/notebooks/03_self_attention.ipynb")  # fmt: skip
    assert links["binder"].endswith("?labpath=notebooks%2F03_self_attention.ipynb")
    for url in links.values():
        assert url in html
    assert answers.check_cell_html("x = 1\nprint(x)", "03_self_attention", REPO) is None


def test_prepare_notebook_puts_the_form_in_place_of_the_stored_verdicts(tmp_path):
    path = lecture_notebooks(ROOT / "notebooks")["03"]
    nb = prepare_notebook(read_notebook(path), {}, tmp_path, (path.stem, REPO))
    texts = json.dumps(nb)
    assert "not attempted yet (write your answer" not in texts
    forms = [o for c in nb["cells"] for o in c.get("outputs", [])
             if "lk-answer-data" in "".join(o.get("data", {}).get("text/html", ""))]  # fmt: skip
    ids = {s["id"] for o in forms for s in _data(o["data"]["text/html"])}
    assert ids == set(core.exercise_ids("03")) | {b.id for b in BLANKS if b.lecture == "03"}
    plain = prepare_notebook(read_notebook(path), {}, tmp_path)  # a companion: untouched
    assert "not attempted yet (write your answer" in json.dumps(plain)
