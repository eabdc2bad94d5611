"""Lecture 00b's exercises: what recurrence and self-attention cost, counted.

00b.1 what a bidirectional LSTM layer costs (hashed), 00b.2 path lengths (hashed), 00b.3
self-attention or a recurrent layer: which costs more (code: the student's ``layer_flops(n, d)``
run on several n and d against 4n²d and 4nd², the near misses named).
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
)

register_lecture("00b", "00b_recurrence_measured")

register(
    Exercise(
        "00b.1",
        "what a bidirectional LSTM layer costs",
        hints=(
            "One step of a gated cell multiplies x by W_ih (G·H × D) and h by W_hh (G·H × H), "
            "G = the number of gate matrices (1 for a vanilla RNN, 4 for an LSTM); count 2 "
            "FLOPs per multiply-add.",
            "A bidirectional layer runs two such recurrences (forward and backward), each over "
            "all n words. Answer two numbers for n = 10, D = 128, H = 256: the LSTM layer's "
            "FLOPs, then a vanilla bidirectional RNN's.",
        ),
        expected=Expected("floats", ("dd30dfe9d3689a5e2b89", "12bba24cfeda3585dcf7"), 0),
        correct="{answer}: four times the vanilla RNN, 3x more matrix products (four gate "
        "matrices to its one), and every one of the 2n steps waits for the previous one",
    )
)

register(
    Exercise(
        "00b.2",
        "path lengths",
        hints=(
            "Restricted attention with a window of w positions on each side moves information "
            "at most w positions per layer; a causal convolution with k taps dilated by k^l at "
            "layer l reaches k^L - 1 positions back after L layers.",
            "For n = 64: the first output is n - 1 = 63 positions from the last. Answer three "
            "numbers: the layers of restricted attention with w = 4, the layers of dilated "
            "convolution with k = 4, and the recurrent transitions between x_0 and y_63.",
        ),
        expected=Expected(
            "floats", ("3f31d00df3befd9d5fd5", "786e950ff681a9530e3c", "23f787ea76f4606d864c"), 0
        ),
        correct="{answer}: O(n/r), O(log_k n) and O(n) of Table 1, where full self-attention "
        "needs one layer",
    )
)


CASES = ((50, 512), (7, 3), (128, 32), (64, 64), (1000, 16))


def _pair_of_counts(got: object, what: str) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in got)
    except (TypeError, ValueError):
        raise NotYet(f"{what} should return two numbers: (self-attention, recurrent)") from None
    return a, b


def _same(got: tuple[float, ...], want: tuple[float, ...]) -> bool:
    return all(abs(g - w) <= 1e-9 * abs(w) for g, w in zip(got, want, strict=True))


@exercise(
    "00b.3",
    "self-attention or a recurrent layer: which costs more",
    hints=(
        "Self-attention's two products, QKᵀ and AV, each multiply an (n, d) by a (d, n) or an "
        "(n, n) by an (n, d) matrix: n²d multiply-adds each. A vanilla RNN step multiplies x "
        "and h by two d × d matrices: 2d² multiply-adds, n times. Count 2 FLOPs per "
        "multiply-add.",
        "Return (self-attention FLOPs, recurrent FLOPs) as a formula in n and d: both are 4 "
        "times a product of three of n, n, d, d. The checker tries several n and d.",
    ),
)
def _attention_or_recurrence(answer: object) -> str:
    for n, d in CASES:
        what = f"your layer_flops({n}, {d})"
        got = _pair_of_counts(run_student(answer, n, d, what=what), what)
        want = (4 * n * n * d, 4 * n * d * d)
        if _same(got, want):
            continue
        if _same(got, want[::-1]):
            raise NotYet(f"{what}: the two numbers are swapped: self-attention first")
        if _same(got, (want[0] / 2, want[1] / 2)):
            raise NotYet(f"{what}: those are multiply-adds: count 2 FLOPs per multiply-add")
        if _same(got[:1], (want[0] / 2,)):
            raise NotYet(f"{what}: self-attention's count holds one product: there are two, "
                         "QKᵀ and AV")  # fmt: skip
        if _same(got[:1], (want[0] + 8 * n * d * d,)):
            raise NotYet(f"{what}: self-attention's count includes the four projections: "
                         "count only QKᵀ and AV, as the table does")  # fmt: skip
        if not _same(got[:1], want[:1]):
            raise NotYet(f"{what}: self-attention's count is not right yet")
        if _same(got[1:], (want[1] / 2,)):
            raise NotYet(f"{what}: the recurrent count holds one matrix per step: x and h are "
                         "each multiplied by a d × d matrix")  # fmt: skip
        raise NotYet(f"{what}: the recurrent layer's count is not right yet")
    n, d = CASES[0]
    return (
        f"on {len(CASES)} sizes: their ratio is n/d (for n = {n}, d = {d}, self-attention "
        f"costs {4 * n * n * d:,} FLOPs, the recurrent layer {4 * n * d * d:,}), so "
        "self-attention is the cheaper layer whenever a sentence has fewer positions than the "
        "model has dimensions (Vaswani et al., section 4), and it needs one sequential step "
        "where the RNN needs n"
    )
