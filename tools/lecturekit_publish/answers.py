"""The exercises and recall blanks of a lecture page, answerable in the browser, without a kernel.

On the website every check cell of a lecture (``check("03.1", answer)``, ``quiz(recall)``) shows,
in place of its stored "not attempted yet", a small form run by ``static/lk-answers.js``:

* a **value exercise** (its answer a number, a word, a short list) gets an input box, Check
  and Hint. The page holds the answer only as the notebook's salted hashes (``Expected``, or, for
  a checker exercise, the ``PageAnswer`` its module computes, hashed here): the script puts the
  typed answer in the same canonical form as ``lecturekit.exercises.core.canonical`` (case,
  spaces, rounding to the stated decimals with the same one-unit tolerance) and compares hashes.
* a **recall blank** gets an input in its blank, compared as ``recall.key`` compares (case,
  spaces, hyphens and punctuation ignored; every synonym the notebook accepts has its hash).
* a **code exercise** (write a function or a class), or one whose check needs the notebook's
  objects, says so and links the notebook on Colab and Binder; its hints work here too.

Hints come one at a time, as ``hint`` gives them; the first "not yet" shows the first. The hints,
the "correct" messages and the messages for known wrong answers are stored encoded (XOR with a
SHA-256 key stream, then base64), so that reading the page's source does not spoil them: like
the hashes, this stops reading, not a determined student (the notebook's package holds them in
clear).

Public API::

    encode(text, exercise_id, what) -> str    # and decode(...) -> str, its inverse
    exercise_spec(exercise_id) -> dict        # what the page's script needs, JSON-ready
    recall_spec(blank_id) -> dict
    check_cell_html(source, notebook, repository) -> str | None   # a check cell's form
    launch_links(repository, notebook) -> dict[str, str]          # Colab, Binder, solution

Lecture-independent (the course website, issue 42).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re

from lecturekit.exercises import core
from lecturekit.exercises.recall import BLANK, blanks, key

__all__ = ["check_cell_html", "decode", "encode", "exercise_spec", "launch_links", "recall_spec"]

_CHECK = re.compile(r"""\bcheck\(\s*["']([0-9]{2}[a-z]?\.[0-9]+)["']""")
_QUIZ = re.compile(r"\bquiz\(")
_RECALL_ID = re.compile(r"""["']([0-9]{2}[a-z]?\.r[0-9]+)["']""")
_DEFINES = re.compile(r"^(def|class) \w+", re.M)


# ------------------------------------------------------------------------------ encoding


def _key_stream(exercise_id: str, what: str, n: int) -> bytes:
    out, block = b"", 0
    while len(out) < n:
        out += hashlib.sha256(f"{core.SALT}|page|{exercise_id}|{what}|{block}".encode()).digest()
        block += 1
    return out[:n]


def encode(text: str, exercise_id: str, what: str) -> str:
    """``text`` (UTF-8) XOR a key stream of ``exercise_id`` and ``what`` ("ok", "hint1", ...),
    in base64: not in clear in the page; ``lk-answers.js`` decodes it when it is asked for."""
    data = text.encode()
    stream = _key_stream(exercise_id, what, len(data))
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, stream, strict=True))).decode()


def decode(blob: str, exercise_id: str, what: str) -> str:
    """The inverse of ``encode`` (for tests)."""
    data = base64.b64decode(blob)
    stream = _key_stream(exercise_id, what, len(data))
    return bytes(a ^ b for a, b in zip(data, stream, strict=True)).decode()


# ------------------------------------------------------------------------------ the specs


def launch_links(repository: str, notebook: str) -> dict[str, str]:
    """Where to run a lecture (``notebook``: its file stem) and read its worked solutions."""
    slug = repository.removeprefix("https://github.com/")
    return {
        "colab": f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/"
                 f"{notebook}.ipynb",
        "binder": f"https://mybinder.org/v2/gh/{slug}/HEAD?labpath=notebooks%2F{notebook}.ipynb",
        "solution": f"{repository}/blob/main/solutions/{notebook}.ipynb",
    }  # fmt: skip


def _hints(ex: core.Exercise) -> list[str]:
    return [encode(h, ex.id, f"hint{i + 1}") for i, h in enumerate(ex.hints)]


def _describe(kind: str, parts: int, precision: int) -> str:
    if kind == "int":
        return "a whole number"
    if kind == "float":
        return f"a number, to {precision} decimals" if precision else "a whole number"
    if kind == "floats":
        each = f"to {precision} decimals" if precision else "whole numbers"
        return f"{parts} numbers in order, separated by commas, {each}"
    if kind == "words":
        return "words in order, separated by spaces or commas"
    if kind == "set":
        return "items in any order, separated by commas"
    return "a word or a short phrase"


def exercise_spec(exercise_id: str) -> dict:
    """What the page's script needs for an exercise: its kind and hashes (``kind="notebook"``
    when only the notebook can check it), encoded hints and messages; JSON-ready."""
    ex = core.get(exercise_id)
    spec = {"id": ex.id, "title": ex.title, "hints": _hints(ex)}
    if ex.expected is not None:
        exp = ex.expected
        spec.update(kind=exp.kind, p=exp.precision, h=list(exp.hashes),
                    ok=encode(ex.correct, ex.id, "ok"), traps={})  # fmt: skip
    elif ex.page is not None:
        page = ex.page()
        hashes = core.answer_hashes(ex.id, page.kind, page.value, page.precision)
        spec.update(kind=page.kind, p=page.precision, h=list(hashes),
                    ok=encode(ex.checker(page.value), ex.id, "ok"), traps={})  # fmt: skip
        for trap in page.traps:
            try:
                ex.checker(trap)
            except core.NotYet as err:
                key_ = ",".join(core.answer_hashes(ex.id, page.kind, trap, page.precision))
                spec["traps"][key_] = encode(str(err), ex.id, f"trap:{key_}")
                continue
            raise ValueError(f"exercise {ex.id}: its trap {trap!r} is accepted by its checker")
    else:
        return {**spec, "kind": "notebook"}
    parts = len(spec["h"]) if spec["kind"] == "floats" else 1
    spec["n"] = parts
    spec["describe"] = _describe(spec["kind"], parts, spec["p"])
    return spec


def recall_spec(blank_id: str) -> dict:
    """A recall blank for the page: the prompt around the blank, the hashes of every accepted
    answer (``key`` form), the clue and the deck's word (encoded)."""
    found = [b for b in blanks() if b.id == blank_id]
    if not found:
        raise ValueError(f"blank_id {blank_id!r} is not a recall blank")
    blank, ex = found[0], core.get(blank_id)
    before, after = blank.prompt.split(BLANK)
    hashes = sorted({core.form_hash(blank.id, "recall", 0, key(a)) for a in blank.answers})
    return {"id": blank.id, "kind": "recall", "before": before, "after": after, "h": hashes,
            "hints": _hints(ex)}  # fmt: skip


# ------------------------------------------------------------------------------ the HTML


def _json(data: dict) -> str:
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return blob.replace("</", "<\\/")


def _links_html(links: dict[str, str]) -> str:
    return (f'<a href="{links["colab"]}">Colab</a> · <a href="{links["binder"]}">Binder</a>'
            f' (worked solution: <a href="{links["solution"]}">solutions</a>)')  # fmt: skip


def _notebook_reason(ex: core.Exercise, source: str) -> str:
    if _DEFINES.search(source):
        return "You write code here: run this one in the notebook, where its check runs it"
    if ex.context:
        names = ", ".join(ex.context)
        return f"Its check needs what the notebook builds ({names}): run this one in the notebook"
    return (
        "Its answer is computed in the notebook (a tensor, a table or a model's output): "
        "run this one in the notebook"
    )


def _exercise_html(ex_id: str, source: str, links: dict[str, str]) -> str:
    spec = exercise_spec(ex_id)
    spec["solution"] = links["solution"]
    label = html.escape(f"{ex_id} {spec['title']}")
    data = f'<script type="application/json" class="lk-answer-data">{_json(spec)}</script>'
    hint = '<button type="button" class="lk-hint-button">Hint</button>'
    status = '<p class="lk-verdict" role="status" aria-live="polite"></p><ol class="lk-hints"></ol>'
    if spec["kind"] == "notebook":
        why = _notebook_reason(core.get(ex_id), source)
        return (f'<div class="lk-answer lk-in-notebook" data-lk-exercise="{ex_id}">'
                f'<p class="lk-answer-how"><strong>{label}.</strong> {why}: '
                f"{_links_html(links)}.</p>"
                f'<div class="lk-answer-row">{hint}</div>{status}{data}</div>')  # fmt: skip
    field_id = "lk-in-" + ex_id.replace(".", "-")
    describe = html.escape(spec["describe"])
    return (f'<div class="lk-answer" data-lk-exercise="{ex_id}">'
            f'<form class="lk-answer-row" autocomplete="off">'
            f'<label for="{field_id}"><strong>{label}</strong>: your answer ({describe})</label>'
            f'<input type="text" id="{field_id}" class="lk-answer-input" spellcheck="false" '
            f'autocapitalize="off" placeholder="{describe}">'
            f'<button type="submit" class="lk-check-button">Check</button>{hint}</form>'
            f"{status}{data}</div>")  # fmt: skip


def _recall_html(ids: list[str], links: dict[str, str]) -> str:
    items = []
    for blank_id in ids:
        spec = recall_spec(blank_id)
        field_id = "lk-in-" + blank_id.replace(".", "-")
        items.append(
            f'<li class="lk-answer lk-recall-item" data-lk-exercise="{blank_id}">'
            f'<form class="lk-recall-line" autocomplete="off">'
            f'<span class="lk-recall-id">{blank_id}</span> '
            f"{html.escape(spec['before'])}"
            f'<label class="lk-visually-hidden" for="{field_id}">the word in blank '
            f"{blank_id}</label>"
            f'<input type="text" id="{field_id}" class="lk-answer-input lk-blank" '
            f'spellcheck="false" autocapitalize="off" placeholder="_____">'
            f"{html.escape(spec['after'])} "
            f'<span class="lk-recall-buttons"><button type="submit" class="lk-check-button">'
            f'Check</button><button type="button" class="lk-hint-button">Hint</button></span>'
            "</form>"
            '<p class="lk-verdict" role="status" aria-live="polite"></p><ol class="lk-hints"></ol>'
            f'<script type="application/json" class="lk-answer-data">{_json(spec)}</script></li>'
        )  # fmt: skip
    how = (
        "Fill each blank and press Check (or Enter): case, spaces and hyphens do not matter, "
        "synonyms are accepted. Hint gives a clue, then the deck's word."
    )
    return (f'<div class="lk-recall"><p class="lk-answer-how">{how}</p><ol>' + "".join(items)
            + "</ol></div>")  # fmt: skip


def check_cell_html(source: str, notebook: str, repository: str) -> str | None:
    """The page's form for a lecture's check cell (its ``source``; ``notebook``: the lecture's
    file stem), or None for a cell that checks nothing."""
    links = launch_links(repository, notebook)
    if _QUIZ.search(source):
        ids = _RECALL_ID.findall(source)
        return _recall_html(ids, links) if ids else None
    ids = list(dict.fromkeys(_CHECK.findall(source)))
    if not ids:
        return None
    return "".join(_exercise_html(i, source, links) for i in ids)
