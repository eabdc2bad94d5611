"""Lecture 15's exercises: pre-training objectives after BERT.

15.1 T5's span corruption by hand (code: run against ``objectives.span_corruption`` on the
slide's sentence and random spans), 15.2 XLNet's query stream by hand (code: run against
``objectives.permutation_masks`` on random orders), 15.3 how many tokens each objective learns
from (hashed), 15.4 ELECTRA's labels (hashed), 15.5 ALBERT's factorised embedding (hashed),
15.6 how many orders XLNet averages over (hashed).
"""

from __future__ import annotations

import random
from itertools import pairwise

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_mask,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("15", "15_pretraining_objectives")

SLIDE_WORDS = ("thank", "you", "for", "inviting", "me", "to", "your", "party", "last", "week", ".")
DECK_WORDS = (
    "the",
    "man",
    "went",
    "to",
    "the",
    "store",
    "to",
    "buy",
    "a",
    "gallon",
    "of",
    "milk",
)  # Yao's masked-LM slide
SENTINELS = ("<X>", "<Y>", "<Z>", "<W>", "<V>")

LABEL_HASHES = ("66ca33a1c48de876c922", "4407e3f9d3fe2512ac89", "78d02a9603f66baf7b94",
                "bbd97294ed88fc57a9c5", "10ec3e864270b7fa8076", "75ac52ee586dc8f02588",
                "33f3e3ca09c485163497", "a071e2ab174ab72178ee", "0944fe4151250228d04f")  # fmt: skip


def _random_spans(rng: random.Random, T: int, n: int) -> list[tuple[int, int]]:
    """``n`` sorted, non-overlapping, non-adjacent spans inside 0..T-1."""
    while True:
        starts = sorted(rng.sample(range(T), n))
        spans = [(s, min(s + rng.randint(1, 3), T)) for s in starts]
        if all(a[1] < b[0] for a, b in pairwise(spans)):
            return spans


def _as_words(got: object, what: str, part: str) -> list[str]:
    if isinstance(got, str) or not isinstance(got, (list, tuple)):
        raise NotYet(f"{what}: return (inputs, targets), each a list of words; {part} is "
                     f"{type(got).__name__}")  # fmt: skip
    return [str(w) for w in got]


@exercise(
    "15.1",
    "T5's span corruption by hand",
    hints=(
        "Walk through the words: outside a span copy the word to the inputs; at a span's first "
        "word put the next sentinel in the inputs, and in the targets that sentinel followed "
        "by the span's words.",
        "The targets end with one more sentinel (the one after the last span): it tells the "
        "decoder that nothing else was removed.",
    ),
)
def _span_corruption(answer: object) -> str:
    import torch

    from lecturekit.objectives import span_corruption

    rng = random.Random(15)
    vocab = [*dict.fromkeys(SLIDE_WORDS), *SENTINELS]
    cases = [(list(SLIDE_WORDS), [(2, 4), (8, 9)])]
    words = list(DECK_WORDS)
    vocab += [w for w in dict.fromkeys(words) if w not in vocab]
    for n in (1, 2, 3):
        cases.append((words, _random_spans(rng, len(words), n)))
    index = {w: i for i, w in enumerate(vocab)}
    sentinel_ids = [index[s] for s in SENTINELS]
    for k, (sentence, spans) in enumerate(cases):
        what = "the slide's sentence" if k == 0 else f"case {k + 1} ({len(spans)} span(s))"
        got = run_student(answer, list(sentence), list(spans), list(SENTINELS), what=what)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise NotYet(f"{what}: return a pair (inputs, targets)")
        inputs, targets = _as_words(got[0], what, "inputs"), _as_words(got[1], what, "targets")
        ref = span_corruption(torch.tensor([index[w] for w in sentence]), sentinel_ids,
                              spans=spans)  # fmt: skip
        want_in = [vocab[i] for i in ref.inputs.tolist()]
        want_out = [vocab[i] for i in ref.targets.tolist()]
        if len(inputs) != len(want_in):
            raise NotYet(f"{what}: your inputs have {len(inputs)} words; each removed span "
                         "should leave exactly one sentinel behind")  # fmt: skip
        if inputs != want_in:
            raise NotYet(f"{what}: your inputs have the right length but not the right words")
        if len(targets) != len(want_out):
            raise NotYet(f"{what}: your targets have {len(targets)} words, which is not the "
                         "count of sentinels and removed words")  # fmt: skip
        if targets != want_out:
            raise NotYet(f"{what}: your targets have the right length but not the right words")
    return (
        f"your corruption equals lecturekit's span_corruption on {len(cases)} sentences, the "
        "slide's included: the encoder reads the text with holes, the decoder writes only the "
        "holes, each introduced by its sentinel"
    )


@exercise(
    "15.2",
    "XLNet's query stream by hand",
    hints=(
        "rank[i] = the step at which position i is predicted (the inverse of the order: "
        "rank[order[t]] = t).",
        "Position i's query stream may see position j exactly when j comes strictly earlier in "
        "the order: rank[j] < rank[i]. It never sees its own token (that is what it predicts).",
    ),
)
def _query_mask(answer: object) -> str:
    import torch

    from lecturekit.objectives import permutation_masks

    generator = torch.Generator().manual_seed(15)
    orders = [torch.arange(4), torch.tensor([2, 0, 3, 1])]
    orders += [torch.randperm(T, generator=generator) for T in (5, 6, 8)]
    for order in orders:
        T = len(order)
        what = f"your function on the order {order.tolist()}"
        got = as_mask(run_student(answer, order.clone(), what=what), what, shape=(T, T),
                      dims="(T, T)")  # fmt: skip
        want = permutation_masks(order).query
        if torch.equal(got, want.T):
            raise NotYet(f"{what}: your mask is transposed: row i is the position that "
                         "predicts, column j the position it may look at")  # fmt: skip
        if got.diagonal().any():
            raise NotYet(f"{what}: a position's query stream must not see its own token")
        if not torch.equal(got, want):
            wrong = int((got != want).sum())
            raise NotYet(f"{what}: {wrong} of the {T * T} entries differ")
    return (
        f"your query stream equals lecturekit's on {len(orders)} orders: the same "
        "Transformer predicts each token from the tokens before it in a random order, so "
        "averaged over orders every token learns from context on both sides"
    )


register(
    Exercise(
        "15.3",
        "how many tokens each objective learns from",
        hints=(
            "BERT's loss is computed only on the chosen positions: 15 % of the tokens, on average.",
            "ELECTRA's discriminator says 'original' or 'replaced' for every token of the "
            "input. Answer two numbers for a 128-token sequence: MLM's expected count, then "
            "ELECTRA's.",
        ),
        expected=Expected("floats", ("570fdb02fcb4722ef892", "1b18b7934715c4ffdba0"), 1),
        correct="{answer}: the discriminator gets a training signal from every token, more "
        "than six times as many as the masked LM from the same sequence",
    )
)

register(
    Exercise(
        "15.4",
        "ELECTRA's labels",
        hints=(
            "The discriminator's input is the original sentence with the generator's samples "
            "at the chosen positions.",
            "A label is 1 where the input token differs from the original one, 0 elsewhere: a "
            "sample that happens to equal the original word counts as original.",
        ),
        expected=Expected("floats", LABEL_HASHES, 0),
        correct="{answer}: only tokens that really differ are 'replaced', so a generator that "
        "guesses right hands the discriminator an ordinary token",
    )
)

register(
    Exercise(
        "15.5",
        "ALBERT's factorised embedding",
        hints=(
            "BERT's token embedding is one V x H matrix.",
            "ALBERT's is a V x E matrix followed by an E x H projection (no bias needed for "
            "this count). Answer the two counts for V = 30,000, H = 768, E = 128: BERT's "
            "first, then ALBERT's.",
        ),
        expected=Expected("floats", ("0092e3ab06f95b499e47", "55f0fb1b6d7ba28ede99"), 0),
        correct="{answer}: the vocabulary's share of the parameters shrinks about six-fold; "
        "cross-layer sharing then removes most of the rest",
    )
)

register(
    Exercise(
        "15.6",
        "how many orders XLNet averages over",
        hints=(
            "A factorisation order is a permutation of the T positions.",
            "In any order, the k-th predicted token's query stream sees the tokens predicted "
            "before it. Answer two numbers for T = 6: the number of orders, then how many "
            "tokens the 4th predicted token sees.",
        ),
        expected=Expected("floats", ("3b7a87172c3f5ea3ae17", "bd0fb4d6357d0e12fb12"), 0),
        correct="{answer}: far too many orders to enumerate, so XLNet samples one per "
        "sequence; what a token sees depends only on its step in the order",
    )
)
