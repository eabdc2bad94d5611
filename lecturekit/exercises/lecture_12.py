"""Lecture 12's exercises: subword tokenization, BPE and WordPiece.

12.1 BPE by hand on another dictionary (hashed), 12.2 frequency or likelihood (hashed), 12.3
write one BPE merge step yourself (code: run against ``learn_bpe`` step by step on two
dictionaries), 12.4 segmenting a new word (hashed).
"""

from __future__ import annotations

from collections.abc import Mapping

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("12", "12_subword_tokenization")

register(
    Exercise(
        "12.1",
        "BPE by hand on another dictionary",
        hints=(
            "Split the words into letters and count each adjacent pair, every occurrence "
            "counted as often as its word: u g occurs in hug, pug and hugs.",
            "After a merge, count again with the new symbol: h followed by ug is a new pair.",
        ),
        expected=Expected("words", ("e6f96cf5ae8283700e2d",)),
        correct="{answer}: the third merge builds on the first; a merged symbol takes part in "
        "the next counts like a letter",
    )
)

register(
    Exercise(
        "12.2",
        "frequency or likelihood",
        hints=(
            "score(a, b) = count(ab) / (count(a) count(b)), where count(a) counts the symbol "
            "a over all words (each as often as its word occurs).",
            "u occurs in every word, 36 times in all: every pair with u scores at most 1/36. "
            "Which pair's symbols occur almost only together?",
        ),
        expected=Expected("text", ("2c3752a83b1c0ca3c524", "423b76f23e65cd4bb10d")),
        correct="{answer}: its score beats every pair with u (at most 1/36): the likelihood "
        "score glues a rare symbol to the one it always follows, where frequency merges the "
        "most common pair",
    )
)


def _as_segmentation(value: object) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise NotYet(f"the new segmentation should be a dict word -> symbols, got "
                     f"{type(value).__name__}")  # fmt: skip
    out = {}
    for word, symbols in value.items():
        if isinstance(symbols, str) or not hasattr(symbols, "__iter__"):
            raise NotYet(f"the symbols of {word!r} should be a list of strings, got {symbols!r}")
        out[word] = tuple(symbols)
    return out


@exercise(
    "12.3",
    "one BPE merge step, yourself",
    hints=(
        "Count every adjacent pair inside every word, each occurrence counted as often as its "
        "word occurs (section 2's count_pairs).",
        "Take the highest count; among tied pairs the smallest, min(tied), which compares "
        "tuples of strings alphabetically.",
        "Then merge that pair everywhere, left to right, without overlaps (section 2's merge), "
        "and return (pair, new segmentation).",
    ),
)
def _merge_step(answer: object) -> str:
    from lecturekit.bpe import SLIDES_DICTIONARY, learn_bpe, split_word

    dictionaries = [dict(SLIDES_DICTIONARY), {"banana": 3, "bandana": 2, "ban": 4, "nab": 1,
                                              "aaaa": 2}]  # fmt: skip
    steps = 0
    for counts in dictionaries:
        _, trace = learn_bpe(counts, 8, tie_break="lexicographic")
        state = {word: tuple(split_word(word)) for word in counts}
        for step in trace:
            given = {word: list(symbols) for word, symbols in state.items()}  # a copy
            shown = ", ".join(f"{w}: {' '.join(s)}" for w, s in state.items())
            got = run_student(answer, given, dict(counts), what=f"your function on {{{shown}}}")
            try:
                pair, new = got
                pair = tuple(pair)
            except (TypeError, ValueError):
                raise NotYet("return a pair: (merged pair, new segmentation)") from None
            if pair != step.pair:
                tie = " (there is a tie: take the alphabetically smallest pair)" if len(
                    step.tied) > 1 else ""  # fmt: skip
                raise NotYet(f"on {{{shown}}} the merged pair is not the right one{tie}")
            if _as_segmentation(new) != step.segmentation:
                raise NotYet(f"on {{{shown}}} you chose the right pair {pair}, but the new "
                             "segmentation is not right yet (merge every occurrence, left to "
                             "right)")  # fmt: skip
            state = step.segmentation
            steps += 1
    return (
        f"your step agrees with learn_bpe(..., tie_break='lexicographic') on all {steps} steps "
        "of two dictionaries, ties included: repeat it to learn a vocabulary"
    )


register(
    Exercise(
        "12.4",
        "segmenting a new word",
        hints=(
            "Start from the letters r e n e w e d and replay the ten merges of section 2 in the "
            "order they were learned (es, est, lo, low, ew, ...), each everywhere it applies.",
            "Most of the merges find nothing in this word; one builds on the result of the one "
            "before.",
        ),
        expected=Expected("words", ("dcc5f97667836c9f3972",)),
        correct="{answer}: only two of the ten merges apply, the second building on the first; "
        "the other letters stay single",
    )
)
