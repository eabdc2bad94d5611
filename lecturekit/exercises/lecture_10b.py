"""Lecture 10b's exercises: the Transformer measured (optional notebook).

10b.1 how rare long sentences are (checked against the training set), 10b.2 the exact sign
test yourself (code: run against ``paired_comparison`` on several splits), 10b.3 steps one after
the other in the RNN and in the Transformer (checked by counting).
"""

from __future__ import annotations

import math

from lecturekit.exercises.core import NotYet, PageAnswer, exercise, register_lecture, run_student

register_lecture("10b", "10b_transformer_measured")


def _long_counts() -> tuple[int, int, int]:
    """Training pairs with >= 55 source words, with > 55, and test pairs with >= 55."""
    from lecturekit.datasets.translation import default_data

    data = default_data()
    return (sum(len(p.src) >= 55 for p in data.train), sum(len(p.src) > 55 for p in data.train),
            sum(len(p.src) >= 55 for p in data.test))  # fmt: skip


def _long_page() -> PageAnswer:
    truth, strict, test = _long_counts()
    return PageAnswer("int", truth, traps=tuple(t for t in (strict, test) if t != truth))


@exercise(
    "10b.1",
    "how rare are long sentences?",
    hints=(
        "len(p.src) is the length of a source sentence; p runs over data.train.",
        "sum(len(p.src) >= 55 for p in data.train) counts them.",
    ),
    page=_long_page,
)
def _long(answer: object) -> str:
    from lecturekit.datasets.translation import default_data

    data = default_data()
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise NotYet(f"give a whole number of pairs, got {type(answer).__name__}")
    truth, strict, n_test = _long_counts()
    if answer != truth:
        if answer == strict:
            raise NotYet("55 words or more: a sentence of exactly 55 words counts too")
        if answer == n_test:
            raise NotYet("that counts the test set: the question is about the training pairs")
        raise NotYet("that is not the number of training pairs with 55 or more source words")
    return (
        f"{truth} of {len(data.train):,} training pairs ({truth / len(data.train):.1%}); the "
        f"test set has {n_test} of {len(data.test):,}: the longest positions were rarely trained"
    )


# (only_a, only_b) splits the sign-test checker runs: section 1's 10 to 3 first
_SPLITS = [(10, 3), (3, 10), (0, 0), (5, 5), (1, 0), (20, 7), (0, 9), (40, 25)]


def _sign_test_truth(only_a: int, only_b: int) -> float:
    """lecturekit's p-value for a split (the one ``paired_comparison`` reports)."""
    from lecturekit.experiments.translation import sign_test

    return sign_test(only_a, only_b)


@exercise(
    "10b.2",
    "the sign test, yourself",
    hints=(
        "Under 'equally good' each of the d = only_a + only_b disagreements is a fair coin: "
        "P(k wins for a) = comb(d, k) / 2**d (math.comb).",
        "One tail: the probability of at most min(only_a, only_b) wins for the side that won "
        "fewer, k = 0 .. min. Two-sided: twice that, but never more than 1; with d = 0 the "
        "p-value is 1.",
    ),
)
def _sign_test(answer: object) -> str:
    for only_a, only_b in _SPLITS:
        what = f"your my_sign_test({only_a}, {only_b})"
        got = run_student(answer, only_a, only_b, what=what)
        try:
            got = float(got)
        except (TypeError, ValueError):
            raise NotYet(f"{what} should return a number (the p-value)") from None
        want = _sign_test_truth(only_a, only_b)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        d, fewer = only_a + only_b, min(only_a, only_b)
        one_tail = sum(math.comb(d, k) for k in range(fewer + 1)) / 2**d if d else 1.0
        if d and math.isclose(got, one_tail, rel_tol=1e-9):
            raise NotYet(
                f"{what} is one tail only: the test is two-sided (either system could win)"
            )
        if d and math.isclose(got, 2 * one_tail, rel_tol=1e-9):
            raise NotYet(f"{what} is above 1: a probability is capped at 1")
        strict = sum(math.comb(d, k) for k in range(fewer)) / 2**d if d else 0.0
        if d and math.isclose(got, min(1.0, 2 * strict), rel_tol=1e-9):
            raise NotYet(f"{what} leaves out the split itself: 'at least this uneven' includes it")
        raise NotYet(f"{what} is not the exact two-sided sign test's p-value")
    return (
        "your p-values equal lecturekit's sign_test on eight splits: for 10 to 3 the two models' "
        "disagreements are as uneven as this about once in eleven fair-coin tests"
    )


_SOURCE, _TARGET, _LAYERS = 40, 41, 6  # exercise 10b.3's sentence lengths and N


def _sequential_page() -> PageAnswer:
    S, T, N = _SOURCE, _TARGET, _LAYERS
    traps = ((2 * S + T, 2 * N), (S, 2 * N), (S + T, N), (S + T, S + T))
    return PageAnswer("floats", (S + T, 2 * N), traps=traps)


@exercise(
    "10b.3",
    "steps one after the other",
    hints=(
        "The RNN's encoder reads the 40 source words one after another (the two directions at "
        "the same time), then its decoder writes one step per target position.",
        "The Transformer computes a layer for every position at once: its forward pass is as "
        "deep as its layers, encoder and decoder.",
    ),
    page=_sequential_page,
)
def _sequential(answer: object) -> str:
    try:
        rnn_steps, transformer_layers = (int(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet("give a pair of whole numbers: (rnn_steps, transformer_layers)") from None
    S, T, N = _SOURCE, _TARGET, _LAYERS
    if (rnn_steps, transformer_layers) == (S + T, 2 * N):
        return (
            f"{S} + {T} = {S + T} GRU steps against {2 * N} layers: the RNN's depth grows with "
            "the sentence, the Transformer's does not (the paper's Table 1: O(n) vs O(1) "
            "sequential operations per layer)"
        )
    if rnn_steps == 2 * S + T:
        raise NotYet("the two encoder directions run side by side: count the encoder's steps once")
    if rnn_steps in (S, T):
        raise NotYet("the encoder and the decoder both step through their sentence")
    if transformer_layers == N:
        raise NotYet("N = 6 is each stack: the decoder's layers run after the encoder's")
    if transformer_layers in (N * (S + T), S + T):
        raise NotYet("a Transformer layer handles every position at once, whatever the length")
    raise NotYet("count the RNN's steps and the Transformer's layers again")
