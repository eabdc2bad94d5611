"""The source decks' fill-in blanks, as a self-check quiz and as slides.

The Yoon (SNU) deck teaches with 24 fill-in blanks (22 written ``_____``, two shorter: "weighted
sum of ___ s" and "multi-head ____-attention"); the other decks ask the room a few questions with
a one-word answer. Each is a ``Blank``: its id ``"NN.rK"`` (the lecture that teaches it, then
"r" for recall), the prompt as the deck words it (``_____`` where the blank is), the accepted
answers (the deck's word first, then synonyms), a clue, and where the deck asks it.

Every blank is registered with the exercise helper (``check`` / ``hint``): an answer is accepted
when it equals one of the accepted answers with case, spaces, hyphens and punctuation ignored
("Left to right" = "left-to-right"). ``quiz(answers)`` checks a notebook's blanks at once and
prints each prompt with its verdict, never the answer; ``hint(id)`` shows the clue, and a second
``hint(id)`` the deck's word (asked for, so shown). The slide decks (``lecturekit_publish.slides``)
show each blank and reveal the deck's word on the next click.

Public API::

    BLANKS                       # every Blank, in course order
    blanks(lecture=None)         # the blanks of a lecture ("03"), in order
    recall_ids(lecture=None)     # their ids ("03.r1", ...)
    quiz(answers)                # {"03.r1": "encodes", "03.r2": None, ...} -> verdicts printed
    accepts(blank_id, answer)    # True if the answer is accepted (for tests and the slides)
    table()                      # the list in Markdown (docs/recall-blanks.md)

Lecture: the recall quiz that closes notebooks 00-08b, 10, 11, 14 and 15.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lecturekit.exercises.core import (
    Exercise,
    NotYet,
    check,
    is_recall,
    lecture_notebook,
    register,
)
from lecturekit.utils.checks import check_str, did_you_mean

__all__ = ["BLANK", "Blank", "BLANKS", "accepts", "blanks", "key", "quiz", "recall_ids", "table"]

BLANK = "_____"
YOON, YAO, WU, CMU = "Yoon (SNU)", "Yao (HKUST)", "Wu (Colorado)", "CMU"


@dataclass(frozen=True)
class Blank:
    """One recall prompt: ``prompt`` holds ``BLANK`` once; ``answers[0]`` is the deck's word."""

    id: str
    prompt: str
    answers: tuple[str, ...]
    clue: str
    deck: str  # the deck that asks it (YOON, YAO, WU, CMU)
    slide: str  # the slide's title in that deck

    def __post_init__(self):
        if not is_recall(self.id):
            raise ValueError(f"id must look like '03.r1', got {self.id!r}")
        if self.prompt.count(BLANK) != 1:
            raise ValueError(f"blank {self.id}: prompt must hold {BLANK!r} once: {self.prompt!r}")
        if not self.answers or not all(key(a) for a in self.answers):
            raise ValueError(f"blank {self.id}: answers must be non-empty words")

    @property
    def lecture(self) -> str:
        return self.id.split(".")[0]

    @property
    def filled(self) -> str:
        """The prompt with the deck's word in the blank."""
        return self.prompt.replace(BLANK, self.answers[0])


def key(text: str) -> str:
    """An answer as compared: lower case, letters and digits only ("End-to-end" -> "endtoend")."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


BLANKS: tuple[Blank, ...] = (
    # 00: word vectors and the limits of recurrence
    Blank("00.r1", "We want parallelization, but RNNs are inherently _____.",
          ("sequential", "serial", "sequential in time"),
          "What stops an RNN from computing step t before step t - 1?", YAO, "Transformer"),
    Blank("00.r2", "Left-to-right hidden states only contain the left context. What about the "
          "right context? Use _____ RNNs.",
          ("bidirectional", "bi-directional", "bidirectional lstm"),
          "ELMo runs one LSTM each way.", YAO, "Bidirectional RNNs"),
    # 01: seq2seq and its bottleneck
    Blank("01.r1", "In neural machine translation, attention => learned _____ (between source and "
          "target sentences).", ("alignment", "alignments", "soft alignment"),
          "Which source word goes with which target word?", YOON, "Attention in deep learning"),
    Blank("01.r2", "The attention weights are dynamically computed as functions of the _____ "
          "state.", ("decoder", "decoder hidden", "target", "previous decoder"),
          "Which side of the model asks the question at step t?", CMU, "Attention weights"),
    # 02: attention scoring
    Blank("02.r1", "Biologically, attention concentrates on one aspect and ignores the others, "
          "for _____ saving.", ("resource", "resources", "energy", "computation", "compute",
                                "computational resource", "computational resources"),
          "What does ignoring most of the input spare the brain?", YOON, "Attention"),
    Blank("02.r2", "In machine learning, (soft) attention is _____ trainable.",
          ("end-to-end", "end to end", "differentiable", "fully"),
          "One loss, one backward pass, from the input to the output.",
          YOON, "Attention"),
    Blank("02.r3", "Context vector = weighted sum of the _____s; each weight = a function of "
          "(query, key).", ("value", "values"),
          "The third kind of vector, besides queries and keys.", YOON, "Query, key and value"),
    # 03: self-attention
    Blank("03.r1", "The self-attention layer helps the encoder look at other words in the input "
          "sentence as it _____ a specific word.",
          ("encodes", "encode", "encoding", "processes", "process"),
          "What the encoder does to each word.", YOON, "Encoder"),
    Blank("03.r2", "The query/key/value vectors are _____ than the embedding (64 vs 512 in the "
          "paper).", ("smaller", "shorter", "lower-dimensional", "lower", "less"),
          "Compare 64 with 512.", YOON, "Self-attention: step 1"),
    Blank("03.r3", "Softmax gives positional _____ (which sum to 1).",
          ("weights", "weight", "probabilities", "attention weights", "distribution"),
          "What the scores become after the softmax.", YOON, "Self-attention: step 3"),
    Blank("03.r4", "Self-attention can process all embedding vectors simultaneously by stacking "
          "them as a _____.", ("matrix", "matrices", "tensor"),
          "X, Q, K and V: one row per word.", YOON, "Matrix calculation of self-attention"),
    # 04: multi-head attention
    Blank("04.r1", "A further refinement of the self-attention layer: use multiple attention "
          "_____.", ("heads", "head"), "Eight of them in the paper.", YOON, "Multi-head attention"),
    # 05: positional encoding
    Blank("05.r1", "One thing missing so far: a way to represent the _____ of the words in the "
          "input sequence.", ("order", "ordering", "positions", "position"),
          "Self-attention gives the same output for any permutation of the words.",
          YOON, "Representing the order of words"),
    # 06: masking and Add & Norm
    Blank("06.r1", "Each sublayer of the encoder has a _____ connection around it and is "
          "followed by layer normalization.", ("residual", "skip", "shortcut"),
          "x + Sublayer(x).", YOON, "Add and normalize"),
    Blank("06.r2", "The decoder's self-attention is modified: _____ multi-head self-attention, "
          "for autoregressive decoding.", ("masked", "causal", "causally masked"),
          "Position t must not see positions after t.", YOON, "Decoder architecture"),
    # 07: greedy and beam search
    Blank("07.r1", "The final linear layer's output (the logits) has the length of the _____ "
          "size (very large).", ("vocabulary", "vocab", "output vocabulary", "target vocabulary"),
          "One logit per word the model can write.", YOON, "Logits and softmax layers"),
    Blank("07.r2", "Output symbol generation, method #1: _____ decoding (output the word with the "
          "highest probability).", ("greedy",), "Take the best word now, never look back.",
          YOON, "Output symbol generation"),
    Blank("07.r3", "Method #2: _____ search (hyperparameters: k, the partial translations kept "
          "at each step, and t, how many are returned).",
          ("beam",), "Keep the k best partial translations at each step.",
          YOON, "Output symbol generation"),
    # 08a: BERT's input and pre-training
    Blank("08a.r1", "BERT can pre-train deep _____ representations from unlabeled text.",
          ("bidirectional", "bi-directional"), "Left and right context, in all layers.",
          YOON, "BERT"),
    Blank("08a.r2", "Masked LM: mask out k % of the input words, then predict them; we always "
          "use k = _____.", ("15", "15%", "15 %", "fifteen", "15 percent"),
          "Between 10 and 20 per cent.", YAO, "Masked language model"),
    Blank("08a.r3", "The model predicts the original value of the masked words from the context "
          "provided by the other, _____ words.",
          ("non-masked", "unmasked", "not masked", "visible", "nonmasked"),
          "The words BERT can still see.", YOON, "Masked LM"),
    Blank("08a.r4", "Input for next-sentence prediction: a _____ embedding (to indicate each "
          "sentence) is added to each token.", ("segment", "sentence", "token type", "token-type"),
          "A for the first sentence, B for the second.", YOON, "Next sentence prediction"),
    # 08b: what BERT learned
    Blank("08b.r1", "BERT's second pre-training task: given two sentences, predict if the second "
          "is the _____ sentence in the original document.", ("next", "subsequent", "following"),
          "50 % of the pairs are, 50 % are random.", YOON, "Next sentence prediction"),
    Blank("08b.r2", "What is there to learn if the whole sentence is available? _____ some of the "
          "words in the input.", ("mask", "masking", "hide", "mask out"),
          "Replace them by a special token, then predict them.", WU, "BERT"),
    # 10: the full Transformer
    Blank("10.r1", "Word embedding only happens in the _____-most encoder.",
          ("bottom", "lowest", "first", "lower"),
          "The other encoders receive the output of the one below.", YOON, "Encoder"),
    Blank("10.r2", "The encoder-decoder attention layer helps the decoder focus on relevant parts "
          "of the _____ sentence.", ("input", "source"),
          "The sentence being translated.", YOON, "Decoder"),
    Blank("10.r3", "Decoder difference #1: encoder-decoder attention (multi-head _____-attention).",
          ("cross", "source-target"),
          "Queries from the decoder, keys and values from the encoder.",
          YOON, "Decoder architecture"),
    # 11: efficient attention
    Blank("11.r1", "Attention output can be approximated with the top matching keys of each "
          "query: finding them efficiently is _____ search, solved by hashing.",
          ("nearest neighbor", "nearest neighbour", "approximate nearest neighbor",
           "approximate nearest neighbour", "nearest-neighbor", "ann", "similarity"),
          "Which keys are closest to this query?", WU, "Approximate Nearest Neighbor: Hash"),
    # 14: GPT
    Blank("14.r1", "BERT: bidirectional transformer; GPT: _____ transformer.",
          ("left-to-right", "unidirectional", "autoregressive", "causal", "one-directional",
           "decoder-only"),
          "GPT predicts the next word from the words before it only.", YOON, "OpenAI GPT"),
    # 15: objectives after BERT
    Blank("15.r1", "XLNet learns bidirectional contexts by considering all _____ of the "
          "factorization order.", ("permutations", "permutation", "orders", "orderings"),
          "n! of them for n tokens.", YOON, "XLNet"),
)  # fmt: skip

_BY_ID = {b.id: b for b in BLANKS}


def _register(blank: Blank) -> None:
    accepted = {key(a) for a in blank.answers}

    def checker(answer: object) -> str:
        if not isinstance(answer, str):
            raise NotYet(f"expected a word or two in quotes, got {type(answer).__name__}")
        if not key(answer):
            raise NotYet("the answer is empty")
        if key(answer) not in accepted:
            raise NotYet("that is not the word the deck has in mind")
        return f'"{blank.prompt.replace(BLANK, answer.strip())}"'

    hints = (blank.clue, f"the deck's word: {blank.answers[0]}")
    register(Exercise(blank.id, blank.prompt.rstrip("."), hints, checker=checker))


for _blank in BLANKS:
    _register(_blank)


def blanks(lecture: str | None = None) -> list[Blank]:
    """The blanks (of ``lecture``, "03", if given: none for a lecture without), in order."""
    if lecture is not None:
        lecture_notebook(lecture)  # a ValueError naming the lectures if unknown
    return [b for b in BLANKS if lecture is None or b.lecture == lecture]


def recall_ids(lecture: str | None = None) -> list[str]:
    """The ids of ``blanks(lecture)``."""
    return [b.id for b in blanks(lecture)]


def accepts(blank_id: str, answer: str) -> bool:
    """Whether ``answer`` fills blank ``blank_id`` (case, spaces and punctuation ignored)."""
    check_str("answer", answer)
    if blank_id not in _BY_ID:
        raise ValueError(f"blank_id {blank_id!r} is not a blank{did_you_mean(blank_id, _BY_ID)}")
    return key(answer) in {key(a) for a in _BY_ID[blank_id].answers}


def quiz(answers: dict[str, object]) -> None:
    """Check every answer of ``answers`` (blank id -> your word, or None) with ``check``: one
    line per blank, with its prompt and "correct", "not yet" or "not attempted yet"."""
    if not isinstance(answers, dict) or not answers:
        raise ValueError(f"answers must be a dict like {{'03.r1': None}}, got {answers!r}")
    for blank_id in answers:
        if blank_id not in _BY_ID:
            raise ValueError(
                f"answers has {blank_id!r}, which is not a blank{did_you_mean(blank_id, _BY_ID)}"
            )
    for blank_id, answer in answers.items():
        check(blank_id, answer)


def table() -> str:
    """Every blank as a Markdown table: id, where it is asked, prompt, accepted answers."""
    rows = ["| id | asked in | deck (slide) | prompt | accepted (case, spaces, hyphens ignored) |",
            "|---|---|---|---|---|"]  # fmt: skip
    for b in BLANKS:
        where = f"notebook {lecture_notebook(b.lecture)}, deck {b.lecture}"
        accepted = ", ".join(f"*{a}*" for a in b.answers)
        prompt = b.prompt.replace(BLANK, r"\_\_\_\_\_").replace("|", r"\|")
        rows.append(f"| {b.id} | {where} | {b.deck} ({b.slide}) | {prompt} | {accepted} |")
    return "\n".join(rows) + "\n"
