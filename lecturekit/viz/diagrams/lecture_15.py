"""Lecture 15's pictures: four pre-training objectives on one sentence.

Public API::

    objectives_diagram() -> Diagram   # masked LM, causal LM, span corruption, replaced-token
                                      # detection: what the model reads, what its loss predicts

Lecture 15.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["objectives_diagram"]

_ROWS = (
    (
        "masked LM (BERT)",
        "thank you [MASK] inviting me to your party [MASK] week .",
        "the hidden words: for, last",
        "input",
    ),
    (
        "causal LM (GPT)",
        "thank you for inviting me to your party last week .",
        "each next word, left to right",
        "input",
    ),
    (
        "span corruption (T5)",
        "thank you <X> me to your party <Y> week .",
        "decoder: <X> for inviting <Y> last <Z>",
        "input",
    ),
    (
        "replaced tokens (ELECTRA)",
        "thank you for inviting me to your house last week .",
        "every word: original or replaced",
        "input",
    ),
)


def objectives_diagram() -> Diagram:
    """The same sentence under four objectives, one row each: what the encoder reads (left) and
    what the loss predicts (right), with how many of the eleven tokens give a training signal.

    Lecture 15.
    """
    d = Diagram(
        1040,
        360,
        alt=(
            "One sentence, thank you for inviting me to your party last week, under four "
            "pre-training objectives: the masked LM reads it with two words hidden and predicts "
            "only those two; the causal LM reads it left to right and predicts every next word; "
            "T5's span corruption replaces two spans by sentinels and its decoder writes only "
            "the removed spans; ELECTRA reads it with one word replaced (house for party) and "
            "labels every word original or replaced."
        ),
    )
    d.text(440, 30, "what the model reads", size=13, kind="input")
    d.text(865, 30, "what the loss predicts", size=13, kind="output")
    signal = ("2 of 11 tokens", "11 of 11", "6 target tokens", "11 of 11")
    for i, (name, reads, predicts, _) in enumerate(_ROWS):
        y = 75 + 78 * i
        d.box(f"name{i}", 110, y, name, "plain", w=200)
        d.box(f"reads{i}", 440, y, reads, "input", w=420, size=12)
        d.box(f"pred{i}", 865, y, predicts, "output", w=330, size=12)
        d.text(865, y + 30, f"signal from {signal[i]}", size=11, italic=True)
        d.arrow(f"reads{i}", f"pred{i}")
    return d
