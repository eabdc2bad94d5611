"""Lecture 13's pictures: one pre-trained BERT encoder, a small new output layer per task.

Public API::

    finetuning_heads_diagram() -> Diagram   # [CLS] -> label, each token -> tag, start/end span

Lecture 13.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["finetuning_heads_diagram"]


def finetuning_heads_diagram() -> Diagram:
    """One pre-trained BERT encoder read by three new output layers: a label from the [CLS]
    vector, a tag from every token's vector, a start and an end score from every token's vector;
    fine-tuning trains everything, frozen features only the new layers.

    Lecture 13.
    """
    d = Diagram(
        780,
        400,
        alt=(
            "One pre-trained BERT encoder reads a packed input, [CLS] sentence A [SEP] sentence "
            "B [SEP] with segment ids; three small new output layers read its vectors: a linear "
            "layer on the [CLS] vector gives one label per input (topic, NLI), a linear layer on "
            "every token gives one tag per word (NER), and a two-output linear layer on every "
            "token gives the start and end scores of an answer span (QA). Fine-tuning trains "
            "the encoder and the new layer; frozen features train only the new layer."
        ),
    )
    d.group(20, 12, 740, 118, "new: one output layer per task (a few hundred weights)", "note")
    d.box("cls", 145, 85, "Linear on h_[CLS]\n→ one label per input\n(topic, NLI)", "output", w=220)
    d.box(
        "tag",
        390,
        85,
        "Linear on every h_i\n→ one tag per word\n(B-PER, I-PER, O ...)",
        "output",
        w=220,
    )
    d.box(
        "span",
        635,
        85,
        "Linear(D, 2) on every h_i\n→ start and end scores\n(the answer span)",
        "output",
        w=220,
    )
    d.box(
        "bert",
        390,
        215,
        "pre-trained BERT encoder (lecture 08): h_[CLS], h_1 ... h_T\n"
        "fine-tuned: all its weights train  ·  frozen features: none do",
        "weight",
        w=560,
        h=50,
    )
    d.box(
        "input",
        390,
        330,
        "[CLS]  question / sentence A  [SEP]  story / sentence B  [SEP]",
        "input",
        w=560,
    )
    d.text(390, 368, "segment ids: A A A ... B B B   (one sentence: A only)", size=12)
    d.arrow("input", "bert")
    d.arrow((220, 187), "cls", label="h_[CLS]")
    d.arrow((390, 187), "tag", label="h_i")
    d.arrow((560, 187), "span", label="h_i")
    return d
