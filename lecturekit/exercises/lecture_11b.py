"""Lecture 11b's exercises: the Transformer variants.

11b.1 the LogSparse mask by hand (code: run against ``efficient.logsparse.logsparse_mask`` for
several n), 11b.2 how many pairs LogSparse attends to (hashed), 11b.3 the compressed length of
memory-compressed attention (code: run against ``efficient.conv_attention.compressed_length``
on many n, stride, kernel), 11b.4 ACT's ponder cost (hashed), 11b.5 how many LogSparse layers
connect everything (hashed).
"""

from __future__ import annotations

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

register_lecture("11b", "11b_transformer_variants")


@exercise(
    "11b.1",
    "the LogSparse mask by hand",
    hints=(
        "Query i looks at itself and at i − 1, i − 2, i − 4, i − 8, ... as long as that is >= 0.",
        "Build the gap i − j for every pair (a column of i minus a row of j); a positive gap g "
        "is a power of 2 exactly when g & (g − 1) == 0. Return an (n, n) bool tensor.",
    ),
)
def _logsparse_mask(answer: object) -> str:
    import torch

    from lecturekit.efficient.logsparse import logsparse_mask

    ns = (1, 2, 5, 9, 16, 33)
    for n in ns:
        what = f"your mask for n={n}"
        got = as_mask(run_student(answer, n, what=what), what, shape=(n, n), dims="(n, n)")
        want = logsparse_mask(n)
        if n > 1 and torch.equal(got, want.T):
            raise NotYet(f"{what} is transposed: row i is the query, column j the key it may "
                         "look at, and a query looks only backwards")  # fmt: skip
        if not got.diagonal().all():
            raise NotYet(f"{what}: every query attends to itself (the diagonal)")
        if got.triu(1).any():
            raise NotYet(f"{what}: a query never looks ahead (nothing above the diagonal)")
        if not torch.equal(got, want):
            extra, missing = int((got & ~want).sum()), int((want & ~got).sum())
            raise NotYet(f"{what}: {extra} pair(s) too many and {missing} missing; only "
                         "distances that are powers of 2 (and 0) count")  # fmt: skip
    return (
        f"your mask equals lecturekit's logsparse_mask for n in {list(ns)}: each query keeps "
        "about log2 n keys, the dense rows of full causal attention thinned to powers of 2"
    )


register(
    Exercise(
        "11b.2",
        "how many pairs LogSparse attends to",
        hints=(
            "Count row by row: query 0 sees only itself; query i >= 1 sees itself and every "
            "i − 2^k >= 0, that is floor(log2 i) + 1 earlier keys.",
            "Answer two numbers, the count of True entries of the mask for n = 16 and for "
            "n = 1024 (full causal attention has n (n + 1) / 2).",
        ),
        expected=Expected("floats", ("2f5ec78dc0871b3d0a9a", "5cb3228578fc74eff884"), 0),
        correct="{answer}: about n log2 n pairs instead of n² / 2, already 50 times fewer at "
        "n = 1024",
    )
)


@exercise(
    "11b.3",
    "the length of the compressed keys",
    hints=(
        "A convolution of width `kernel` without padding fits at positions 0, stride, "
        "2 stride, ... as long as the window still ends inside the sequence.",
        "Count the starts s with s + kernel <= n: (n − kernel) // stride + 1, and 0 when the "
        "sequence is shorter than the kernel.",
    ),
)
def _compressed_length(answer: object) -> str:
    from lecturekit.efficient.conv_attention import compressed_length

    cases = [(n, s, k) for n in (1, 2, 7, 12, 100, 1000) for s in (1, 2, 3, 8)
             for k in (1, s, 3)]  # fmt: skip
    for n, stride, kernel in cases:
        what = f"your function for n={n}, stride={stride}, kernel={kernel}"
        got = run_student(answer, n, stride, kernel, what=what)
        want = compressed_length(n, stride, kernel)
        if isinstance(got, bool) or not isinstance(got, int):
            raise NotYet(f"{what} should return an int, got {type(got).__name__}")
        if got != want:
            hint = " (a short sequence leaves no key at all)" if n < kernel else ""
            raise NotYet(f"{what} returned {got}, which is not the number of windows{hint}")
    return (
        f"your lengths equal lecturekit's compressed_length on {len(cases)} cases: the scores "
        "shrink from n × n to n × m, m about n / stride"
    )


register(
    Exercise(
        "11b.4",
        "ACT's ponder cost",
        hints=(
            "Add the halting probabilities step by step; the position halts at the first step N "
            "where the sum reaches 1 − ε = 0.99, or at the last step if it never does.",
            "The remainder R is 1 minus the sum of the h before step N, and the ponder cost is "
            "N + R. Answer the three ponder costs for h = (0.3, 0.5, 0.4, 0.9), "
            "(0.1, 0.2, 0.3, 0.2) and (0.995, 0.5) (4, 4 and 2 steps at most), 2 decimals.",
        ),
        expected=Expected(
            "floats", ("105a72c09537d1701537", "42ddc9a69f35a811fdb9", "337b67fa1befe7a90eba"), 2
        ),
        correct="{answer}: N counts the steps, R makes the cost differentiable; the last "
        "example halts at once, yet pays R = 1",
    )
)

register(
    Exercise(
        "11b.5",
        "how many LogSparse layers connect everything",
        hints=(
            "One LogSparse layer moves information back by 0 or a power of 2; L layers move it "
            "by a sum of at most L powers of 2.",
            "Every distance d from 1 to n − 1 must be a sum of at most L powers of 2 (its "
            "binary digits). Answer the fewest L for n = 1000.",
        ),
        expected=Expected("int", ("d9d7dfbabf960407b785",)),
        correct="{answer} layers: the most 1-bits of any distance below 1000, one fewer than "
        "ceil(log2 1000); O(log n) layers give every position the whole past",
    )
)
