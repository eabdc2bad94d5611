"""Lecture 01's pictures: the encoder-decoder whose decoder sees the source only through one
vector c (the bottleneck), the decoder unrolled under teacher forcing, and the attention decoder
that looks back at every encoder state instead.

Public API::

    encoder_decoder_diagram() -> Diagram    # h_1..h_3 -> c -> s_1..s_4: "le chat noir <eos>"
    teacher_forcing_diagram() -> Diagram    # inputs <bos> y_1..y_n, targets y_1..y_n <eos>
    attention_decoder_diagram() -> Diagram  # s_t scores every h_j; weights a_tj; c_t
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["attention_decoder_diagram", "encoder_decoder_diagram", "teacher_forcing_diagram"]

_SRC = ("the", "black", "cat")
_TGT = ("le", "chat", "noir", "<eos>")


def encoder_decoder_diagram() -> Diagram:
    """The encoder reads "the black cat" into states h_1, h_2, h_3; its final state becomes
    the single vector c; the decoder starts from c and writes "le chat noir <eos>", one word
    per step, each step reading the word before. Nothing else of the source reaches the
    decoder: c is the bottleneck. Lecture 01.
    """
    d = Diagram(
        820,
        290,
        alt=(
            "The encoder-decoder without attention. The encoder reads the source words the, "
            "black, cat into one state each, h_1, h_2, h_3. Its final state becomes one vector "
            "c, the bottleneck: the decoder starts from c and writes le, chat, noir, end of "
            "sentence, one word per step, each step reading the previous word. The decoder "
            "never sees h_1, h_2 or h_3, only c, whatever the length of the sentence."
        ),
    )
    d.group(20, 70, 300, 200, "encoder (bidirectional GRU)")
    for i, w in enumerate(_SRC, start=1):
        x = 20 + 95 * i - 25
        d.box(f"x{i}", x, 235, w, kind="input", w=76)
        d.box(f"h{i}", x, 150, f"h_{i}", kind="op", w=56)
        d.arrow(f"x{i}", f"h{i}")
        if i > 1:
            d.arrow(f"h{i - 1}", f"h{i}")
    d.box("c", 390, 150, "c", kind="accent", w=56, h=44)
    d.arrow("h3", "c")
    d.text(390, 205, "one vector,", size=12, kind="accent")
    d.text(390, 221, "192 numbers,", size=12, kind="accent")
    d.text(390, 237, "5 words or 60", size=12, kind="accent")
    d.group(465, 70, 335, 200, "decoder (GRU)")
    prev = "c"
    for t, w in enumerate(_TGT, start=1):
        x = 465 + 80 * t - 30
        d.box(f"s{t}", x, 150, f"s_{t}", kind="op", w=56)
        d.box(f"y{t}", x, 40, w, kind="output", w=66)
        d.arrow(prev, f"s{t}")
        d.arrow(f"s{t}", f"y{t}")
        prev = f"s{t}"
    d.text(632, 240, "each step reads the word before", size=12, italic=True)
    return d


def teacher_forcing_diagram() -> Diagram:
    """The decoder unrolled in training: it reads the reference shifted right by one (<bos>,
    le, chat, noir) and at every step is scored on the next reference word (le, chat, noir,
    <eos>); the loss is the mean cross-entropy over the steps. At test time there is no
    reference: the decoder reads its own previous word instead (greedy decoding). Lecture 01.
    """
    ins = ("<bos>", "le", "chat", "noir")
    d = Diagram(
        700,
        300,
        alt=(
            "The decoder unrolled during training with teacher forcing. Its inputs are the "
            "reference shifted right by one, begin-of-sentence, le, chat, noir; at each step it "
            "predicts a distribution over the next word and is scored on the reference's next "
            "word, le, chat, noir, end of sentence. The loss is the mean cross-entropy over the "
            "steps. At test time the decoder reads its own previous word instead."
        ),
    )
    d.box("c", 60, 150, "c", kind="accent", w=50)
    prev = "c"
    for t in range(4):
        x = 170 + 130 * t
        d.box(f"in{t}", x, 250, f"reads {ins[t]}", kind="input", w=110)
        d.box(f"s{t}", x, 150, f"s_{t + 1}", kind="op", w=56)
        d.box(f"p{t}", x, 50, f"P(y_{t + 1})  vs  {_TGT[t]}", kind="output", w=120)
        d.arrow(f"in{t}", f"s{t}")
        d.arrow(f"s{t}", f"p{t}")
        d.arrow(prev, f"s{t}")
        prev = f"s{t}"
        if t < 3:
            d.arrow((x + 40, 75), (x + 90, 225), dashed=True)
    d.text(
        365,
        14,
        "loss = mean of −log P(reference word) over the steps",
        size=12,
        kind="accent",
    )
    d.text(
        365,
        292,
        "dashed: the word moves one step right (test time: the model's own word)",
        size=12,
        italic=True,
    )
    return d


def attention_decoder_diagram() -> Diagram:
    """The decoder with attention at one step t: its state s_t is scored against every encoder
    state h_1, h_2, h_3; a softmax turns the scores into weights a_t1, a_t2, a_t3 (here most on
    "cat" while writing "chat"); their weighted sum is the context c_t, and the next word is
    predicted from c_t and s_t together. Lecture 01.
    """
    d = Diagram(
        640,
        280,
        alt=(
            "The decoder with attention at one step. Its state s_t, while writing chat, is "
            "scored against every encoder state h_1, h_2, h_3 of the, black, cat; a softmax "
            "turns the scores into weights, here 0.02, 0.03 and 0.95, most on cat; the weighted "
            "sum of the states is a fresh context c_t, and the next word is predicted from c_t "
            "and s_t together. No single vector has to hold the whole sentence."
        ),
    )
    weights = ("0.02", "0.03", "0.95")
    for i, w in enumerate(_SRC, start=1):
        x = 80 + 110 * (i - 1)
        d.box(f"x{i}", x, 250, w, kind="input", w=76)
        d.box(f"h{i}", x, 175, f"h_{i}", kind="op", w=56)
        d.arrow(f"x{i}", f"h{i}")
        d.box(f"a{i}", x, 100, f"a_t{i} = {weights[i - 1]}", kind="accent" if i == 3 else "op",
              w=100)  # fmt: skip
        d.arrow(f"h{i}", f"a{i}")
    d.box("s", 520, 175, "s_t (writing chat)", kind="op", w=150)
    d.arrow("s", (355, 175), label="s_t · h_j, every j")
    d.box("ct", 190, 30, "c_t = Σ a_tj h_j", kind="output", w=150)
    for i in (1, 2, 3):
        d.arrow(f"a{i}", "ct")
    d.box("y", 520, 30, "next word from [c_t ; s_t]", kind="output", w=200)
    d.arrow("ct", "y")
    d.arrow("s", "y")
    return d
