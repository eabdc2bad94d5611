"""Lecture 01's exercises: the encoder-decoder and its bottleneck.

01.1 teacher forcing, yourself (code: run against ``collate``'s decoder input and target),
01.2 translate by the rules (hashed),
01.3 exact match, yourself (code: run on the lecture's translations and on tricky cases),
01.4 where the bottleneck runs out (checked against the word-accuracy table given).
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("01", "01_seq2seq_bottleneck")


def _id_list(got: object, what: str) -> list[int]:
    if isinstance(got, torch.Tensor):
        got = got.tolist()
    if isinstance(got, (str, bytes)) or not hasattr(got, "__iter__"):
        raise NotYet(f"{what} should be a list of token ids, got {type(got).__name__}")
    try:
        return [int(i) for i in got]
    except (TypeError, ValueError):
        raise NotYet(f"{what} should hold token ids (ints)") from None


@exercise(
    "01.1",
    "teacher forcing, yourself",
    hints=(
        "The decoder reads the reference shifted right by one: at step t it reads y_(t-1) and "
        "predicts y_t. What does it read at the first step, and predict after y_n?",
        "decoder input = [BOS] + ids; decoder target = ids + [EOS]. Both have n + 1 entries.",
    ),
)
def _shift(answer: object) -> str:
    from lecturekit.datasets.translation import BOS, EOS, collate, default_data

    data = default_data()
    pairs = [data.test[0], data.test[5], data.test[3]]
    cases = [(data.tgt_vocab.encode(p.tgt), p) for p in pairs] + [([], None)]
    for ids, pair in cases:
        what = f"your function on {len(ids)} target ids"
        got = run_student(answer, list(ids), what=what)
        try:
            dec_in, dec_out = got
        except (TypeError, ValueError):
            raise NotYet(f"{what}: return a pair (decoder_input, decoder_target)") from None
        dec_in = _id_list(dec_in, "the decoder input")
        dec_out = _id_list(dec_out, "the decoder target")
        if pair is None:
            want_in, want_out = [BOS], [EOS]
        else:
            batch = collate([pair], data.src_vocab, data.tgt_vocab)
            want_in, want_out = batch.tgt_in[0].tolist(), batch.tgt_out[0].tolist()
        for name, got_ids, want in (("input", dec_in, want_in), ("target", dec_out, want_out)):
            if len(got_ids) != len(want):
                raise NotYet(f"{what}: the decoder {name} should have {len(want)} ids, "
                             f"got {len(got_ids)}")  # fmt: skip
            if got_ids != want:
                first = next(
                    j for j, (a, b) in enumerate(zip(got_ids, want, strict=True)) if a != b
                )
                raise NotYet(f"{what}: the decoder {name} differs at position {first}")
    return (
        "your shift equals collate's tgt_in and tgt_out: the decoder reads <bos> y_1 .. y_n and "
        "predicts y_1 .. y_n <eos>, every position in one parallel pass (an empty target still "
        "has to predict <eos>)"
    )


register(
    Exercise(
        "01.2",
        "translate by the rules",
        hints=(
            "Eight words. The determiner and the noun come first, then the noun's adjectives "
            "in mirrored order; the verb agrees with its subject.",
            "'cats' is masculine plural (chat / chats), 'woman' feminine singular; the tables of "
            "section 1 (translation.ADJECTIVES, translation.NOUNS) give each form.",
        ),
        expected=Expected("words", ("577566f42b5b020fc46c",)),
        correct=(
            "two adjectives mirrored after their noun, each agreeing with it, and a plural verb. "
            "Now ask both models: translate(attention, [sentence.split()], data)"
        ),
    )
)


@exercise(
    "01.3",
    "exact match, yourself",
    hints=(
        "A translation counts only if it has every word of its reference, in order, and "
        "nothing more: compare whole sentences, not word by word (zip stops at the shorter).",
        "tuple(h) == tuple(r) for each pair (a tuple and a list with the same words are then "
        "equal); the fraction is the number of identical pairs over the number of pairs.",
    ),
)
def _exact_match(answer: object, *, hyps: object, refs: object) -> str:
    hyps, refs = list(hyps), list(refs)
    if len(hyps) != len(refs) or not refs:
        raise ValueError("hyps and refs must be two lists of the same non-zero length")
    ref = ["le", "chat", "noir"]
    cases = [
        ("the lecture's 20 translations", hyps, refs),
        ("a translation that stops early", [ref[:2], ref], [ref, ref]),
        ("a translation with a word too many", [[*ref, "et"]], [ref]),
        ("a tuple against a list", [tuple(ref), ["la", "chat", "noir"]], [ref, ref]),
    ]
    for label, h, r in cases:
        got = run_student(answer, h, r, what=f"your function on {label}")
        try:
            value = float(got)
        except (TypeError, ValueError):
            raise NotYet(f"return a number (the fraction), got {type(got).__name__}") from None
        truth = sum(tuple(a) == tuple(b) for a, b in zip(h, r, strict=True)) / len(r)
        if abs(value - truth) > 1e-9:
            raise NotYet(f"not right on {label} (a fraction between 0 and 1)")
    right = sum(tuple(a) == tuple(b) for a, b in zip(hyps, refs, strict=True))
    return (
        f"exact match on the widget's sentences: {right} of {len(refs)} "
        f"({right / len(refs):.2f}) for the model without attention. One wrong word, or one "
        "word too few or too many, and the sentence counts as wrong"
    )


@exercise(
    "01.4",
    "where the bottleneck runs out",
    hints=(
        "word_acc['none'] holds one value per bin of 5 target positions: positions 1-5, "
        "6-10, 11-15, ...",
        "Find the first value below 0.5; the answer is the first position of that bin.",
    ),
)
def _bottleneck_position(answer: object, *, word_acc: object) -> str:
    values = [float(v) for v in word_acc]
    below = [k for k, v in enumerate(values) if v < 0.5]
    if not below:
        raise ValueError("word_acc has no bin below 0.5: pass word_acc['none']")
    first = 5 * below[0] + 1
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        raise NotYet(f"give a target position (an int), got {type(answer).__name__}")
    if answer != first:
        if (answer - 1) % 5:
            raise NotYet("give the first position of a bin (1, 6, 11, 16, ...)")
        raise NotYet("that is not the first bin below one half")
    return (
        f"from target position {first} on, the model without attention gets fewer than half "
        f"of the next words right ({values[below[0]]:.2f}), although it is given the correct "
        "prefix: what one vector kept of the source is running out"
    )
