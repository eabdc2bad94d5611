"""Lecture 11's exercises: efficient attention.

11.1 the memory of the weights (hashed), 11.2 the path length of local attention (hashed),
11.3 write the band mask yourself, causal too (code: run against ``band_mask``), 11.4 hash a
vector by hand (hashed), 11.5 Transformer-XL's context (hashed).
"""

from __future__ import annotations

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    as_mask,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("11", "11_efficient_attention")

register(
    Exercise(
        "11.1",
        "the memory of the weights",
        hints=(
            "One (n, n) float32 matrix holds n * n numbers of 4 bytes each (section 1).",
            "There is one such matrix per head and per layer: multiply by both.",
        ),
        expected=Expected("int", ("e2e69ea8423006a69ab6",)),
        correct="{answer} bytes, for a single sequence of 2,048 tokens, before the activations "
        "and the gradients",
    )
)

register(
    Exercise(
        "11.2",
        "the path length of local attention",
        hints=(
            "In one local layer information moves at most w positions (section 2).",
            "Position 0 must travel 99 positions, w = 3 per layer: round up.",
        ),
        expected=Expected("int", ("b2af751721cf0024a8a1",)),
        correct="{answer} layers: the O(n / r) path length of Table 1's last row, where full "
        "attention needs 1",
    )
)


@exercise(
    "11.3",
    "the band mask, yourself",
    hints=(
        "Query positions as a column, key positions as a row: i = torch.arange(T)[:, None], "
        "j = torch.arange(T)[None, :]; broadcasting makes every (i, j) pair.",
        "Without causal: |i - j| <= w. Causal: the key may not be in the future, so "
        "i - w <= j <= i.",
    ),
)
def _band(answer: object) -> str:
    from lecturekit.efficient.local import band_mask

    for T, w, causal in [(8, 2, False), (8, 2, True), (5, 0, False), (6, 10, False),
                         (12, 3, True), (1, 1, True)]:  # fmt: skip
        what = f"your function on T={T}, w={w}, causal={causal}"
        want = band_mask(T, w, causal)  # (T, T) bool
        got = as_mask(run_student(answer, T, w, causal, what=what), what)
        same_values(got, want, what, dims="(T, T)")
    return (
        "your masks equal lecturekit's band_mask, both ways, including w = 0 (only itself) "
        "and a window wider than the sequence (full attention)"
    )


register(
    Exercise(
        "11.4",
        "hash a vector by hand",
        hints=(
            "With R the identity, xR = x. Write out [xR; -xR], four numbers.",
            "The bucket is the position (from 0) of the largest of the four.",
        ),
        expected=Expected("int", ("d2e10bd0858c0e051d9f",)),
        correct="bucket {answer}: the buckets are b directions, the columns of R and their "
        "opposites; x lands in the one it is closest to in angle",
    )
)

register(
    Exercise(
        "11.5",
        "Transformer-XL's context",
        hints=(
            "Section 5 measured the reach for 1, 2 and 3 layers with L = 4: 7, 11, 15. Find "
            "the pattern in N and L.",
            "Each layer adds one segment of L positions; within its own segment the last "
            "token sees L - 1 positions back.",
        ),
        expected=Expected("int", ("f28139cdbb41b1726ddf",)),
        correct="{answer} positions back = N L + L - 1, with a memory of only 8 states per "
        "layer; the gradient still stops at the segment",
    )
)
