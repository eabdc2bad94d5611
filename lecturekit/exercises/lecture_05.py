"""Lecture 05's exercises: positional encoding.

05.1 two entries of the table by hand (hashed), 05.2 the sinusoidal table yourself (code: run
against ``sinusoidal_encoding`` on several sizes), 05.3 the first wavelength above 100 positions
(hashed), 05.4 going backwards with a shift matrix (checked on the table's rows).
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)
from lecturekit.utils.claims import close

register_lecture("05", "05_positional_encoding")

register(
    Exercise(
        "05.1",
        "two entries by hand",
        hints=(
            "Dimension 1 is odd: 2i + 1 = 1, so i = 0 and the function is a cosine. Dimension 2 "
            "is even: 2i = 2, so i = 1 and the function is a sine.",
            "The angle is pos / 10000^(2i / d_model); for i = 1 and d_model = 4 the divisor is "
            "10000^(1/2).",
        ),
        expected=Expected("floats", ("026d787181b7aed499c7", "5a31ccddaec121bcbec4"), 4),
        correct="(PE(3, 1), PE(3, 2)) = {answer}: cos(3) and sin(3 / 100)",
    )
)


@exercise(
    "05.2",
    "the sinusoidal table, yourself",
    hints=(
        "Positions as a column (max_len, 1), the exponents 2i = 0, 2, 4, ... as a row "
        "(1, d_model / 2): pos / 10000 ** (two_i / d_model) broadcasts to (max_len, d_model / 2).",
        "Start from torch.zeros(max_len, d_model) and fill the even columns (PE[:, 0::2]) with "
        "the sines, the odd ones (PE[:, 1::2]) with the cosines.",
    ),
)
def _sinusoidal(answer: object) -> str:
    from lecturekit.positional import sinusoidal_encoding

    for max_len, d_model in [(20, 512), (7, 4), (50, 16), (3, 2)]:
        what = f"your my_sinusoidal_encoding({max_len}, {d_model})"
        want = sinusoidal_encoding(max_len, d_model, dtype=torch.float64)  # (T, D)
        got = run_student(answer, max_len, d_model, what=what)
        got = as_tensor(got, what, shape=want.shape, dims="(max_len, d_model)")
        if close(got, want, atol=1e-5, rtol=1e-5):
            continue
        swapped = torch.stack([want[:, 1::2], want[:, 0::2]], dim=-1).flatten(1)  # cos, sin, ...
        halves = torch.cat([want[:, 0::2], want[:, 1::2]], dim=1)  # [all sines | all cosines]
        if d_model > 2 and close(got, halves, atol=1e-5, rtol=1e-5):
            raise NotYet(
                f"{what} puts all the sines before all the cosines (the Tensor2Tensor figure's "
                "layout); the paper interleaves them, one (sin, cos) pair per frequency"
            )
        if close(got, swapped, atol=1e-5, rtol=1e-5):
            raise NotYet(f"{what}: sine and cosine are on the wrong dimensions")
        if d_model > 2 and close(got[:, :2], want[:, :2], atol=1e-5, rtol=1e-5):
            raise NotYet(
                f"{what}: the first pair is right, the frequencies of the others are not: check "
                "the exponent"
            )
        same_values(got, want, what, atol=1e-5, rtol=1e-5)  # the largest difference
    return (
        "your table equals lecturekit's sinusoidal_encoding for four sizes, the slides' "
        "20 x 512 among them"
    )


register(
    Exercise(
        "05.3",
        "the first wavelength above 100 positions",
        hints=(
            "The wavelength of pair i is 2 pi / w_i = 2 pi * 10000^(2i / d_model): it grows with "
            "i. Solve 2 pi * 10000^(2i / 512) > 100 for i, or compute all 256 of them.",
            "2 * math.pi / frequencies(512) gives the 256 wavelengths; (wavelengths > 100) is a "
            "bool tensor, and .nonzero() lists where it is True.",
        ),
        expected=Expected("int", ("e836a4cc248afbe61bbc",)),
        correct=(
            "pair i = {answer}: every pair before it repeats within 100 positions, this one "
            "and all after it do not"
        ),
    )
)


@exercise(
    "05.4",
    "going backwards",
    hints=(
        "M_4 rotates every (sin, cos) pair forward by w_i * 4. What undoes a rotation?",
        "A rotation matrix is orthogonal: its inverse is its transpose.",
    ),
)
def _backwards(answer: object) -> str:
    from lecturekit.positional import sinusoidal_encoding

    A = as_tensor(answer, "A", shape=(16, 16), dtype=torch.float64)
    P = sinusoidal_encoding(30, 16, dtype=torch.float64)  # (30, 16)
    verdict = close(P[4:] @ A.T, P[:-4], atol=1e-6, rtol=1e-6)  # rows: (A PE_t)^T = PE_t^T A^T
    if not verdict:
        raise NotYet(f"A @ PE[t] is not PE[t - 4] for every t >= 4 ({verdict.reason})")
    return (
        "A undoes M_4 for every t: M_4 is a rotation, so M_4^T M_4 = I and "
        "M_4^T PE[t] = PE[t - 4]; it is shift_matrix(-4, 16)"
    )
