"""Lecture 10's exercises: the full Transformer, translating.

10.1 the size of a base decoder layer (hashed), 10.2 the decoder's mask, counted (hashed),
10.3 write the shifted decoder input and target yourself (code: run against lecturekit's
``collate`` on batches of the test set), 10.4 warm-up and decay (hashed), 10.5 how rare long
sentences are (checked against the training set).
"""

from __future__ import annotations

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("10", "10_transformer_translation")

register(
    Exercise(
        "10.1",
        "the size of a base decoder layer",
        hints=(
            "Section 3 counts the tiny model's: an attention block has four d x d projections "
            "with biases; the FFN has a d x d_ff and a d_ff x d layer with biases.",
            "A decoder layer has two attention blocks (self and cross), one FFN and three "
            "LayerNorms of 2d parameters each (gamma and beta).",
        ),
        expected=Expected("int", ("0d5acc91ea6394a1ac8e",)),
        correct="{answer} parameters, as DecoderLayer(512, 8, 2048) has: half of them in the "
        "two attention blocks, half in the feed-forward network",
    )
)

register(
    Exercise(
        "10.2",
        "the decoder's mask, counted",
        hints=(
            "Count row by row: row t may see the keys 0 .. t (causal) that are real tokens "
            "(padding).",
            "The rows of the two <pad> queries are not empty: they still see the real keys "
            "before them.",
        ),
        expected=Expected("int", ("6912d93e069dfe8bdc80",)),
        correct="{answer} True entries: rows 0-3 see 1, 2, 3, 4 keys, and the two padded rows "
        "see the 4 real ones (their outputs are ignored by the loss)",
    )
)


@exercise(
    "10.3",
    "the shifted decoder input and target",
    hints=(
        "Both are (B, T) with T = the longest target + 1, filled with PAD first; tgt_in starts "
        "with BOS, tgt_out ends with EOS.",
        "For sentence b with ids y (n of them): tgt_in[b, :n + 1] = [BOS, *y] and "
        "tgt_out[b, :n + 1] = [*y, EOS].",
    ),
)
def _shift(answer: object) -> str:
    from lecturekit.datasets.translation import collate, default_data

    data = default_data()
    for indices in [(5, 9, 6), (0,), (3, 306, 1, 2), (7, 7)]:
        pairs = [data.test[i] for i in indices]
        targets = [data.tgt_vocab.encode(p.tgt) for p in pairs]
        want = collate(pairs, data.src_vocab, data.tgt_vocab)
        what = f"your function on the targets of test sentences {list(indices)}"
        got = run_student(answer, [list(t) for t in targets], what=what)
        try:
            tgt_in, tgt_out = got
        except (TypeError, ValueError):
            raise NotYet("return a pair (tgt_in, tgt_out)") from None
        longest = max(map(len, targets))
        where = f"for test sentences {list(indices)} (at most {longest} words)"
        same_values(tgt_in, want.tgt_in, f"{where}, tgt_in", dims="(B, T)")
        same_values(tgt_out, want.tgt_out, f"{where}, tgt_out", dims="(B, T)")
    return (
        "your tgt_in and tgt_out equal collate's: the decoder reads <bos> y1 .. yn and "
        "predicts y1 .. yn <eos>, every position at once, the causal mask keeping it honest"
    )


register(
    Exercise(
        "10.4",
        "warm-up and decay",
        hints=(
            "After warm-up, lr = peak * sqrt(warmup / step) (section 5).",
            "Solve sqrt(warmup / step) = 1/2 for step, with warmup = TRAINING['warmup'].",
        ),
        expected=Expected("int", ("a387f3167dd2edeafbb0",)),
        correct="step {answer}: the rate halves when the step quadruples from the end of "
        "warm-up; the shipped training stops just before it",
    )
)


@exercise(
    "10.5",
    "how rare are long sentences?",
    hints=(
        "len(p.src) is the length of a source sentence; p runs over data.train.",
        "sum(len(p.src) >= 55 for p in data.train) counts them.",
    ),
)
def _long(answer: object) -> str:
    from lecturekit.datasets.translation import default_data

    data = default_data()
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise NotYet(f"give a whole number of pairs, got {type(answer).__name__}")
    truth = sum(len(p.src) >= 55 for p in data.train)
    if answer != truth:
        if answer == sum(len(p.src) > 55 for p in data.train):
            raise NotYet("55 words or more: a sentence of exactly 55 words counts too")
        raise NotYet("that is not the number of training pairs with 55 or more source words")
    n_test = sum(len(p.src) >= 55 for p in data.test)
    return (
        f"{truth} of {len(data.train):,} training pairs ({truth / len(data.train):.1%}); the "
        f"test set has {n_test} of {len(data.test):,}: the longest positions were rarely trained"
    )
