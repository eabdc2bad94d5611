"""Lecture 03's exercises: self-attention step by step on "Thinking Machines".

03.1 the softmax by hand (hashed), 03.2 z2 for *Machines* (checked against the worked example),
03.3 write scaled dot-product attention yourself (code: run against lecturekit and torch),
03.4 adding versus multiplying the scores (checked against softmax).
"""

from __future__ import annotations

import math

import torch

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

register_lecture("03", "03_self_attention")

register(
    Exercise(
        "03.1",
        "the softmax by hand",
        hints=(
            "a1 = e^14 / (e^14 + e^12): compute it with math.exp, then a2 = 1 - a1.",
            "Divide top and bottom by e^14: a1 = 1 / (1 + e^-2).",
        ),
        expected=Expected("floats", ("46b51fbb3b41ae924192", "2dedd0113bb4f757abd8"), 4),
        correct="softmax(14, 12) = {answer}, the slides' 0.88 and 0.12",
    )
)


@exercise(
    "03.2",
    "z2 for Machines",
    hints=(
        "The scores of q2 are q2 @ k1 and q2 @ k2; divide both by sqrt(d_k) = 8.",
        "softmax of the two scaled scores gives two weights; z2 = a1 * v1 + a2 * v2.",
        "The scores are -102 and -45: which word does Machines attend to?",
    ),
)
def _z2(answer: object) -> str:
    from lecturekit.experiments.examples import thinking_machines

    ex = thinking_machines()
    q, k, v = ex.x @ ex.W_q, ex.x @ ex.W_k, ex.x @ ex.W_v  # (2, 512) @ (512, 64) -> (2, 64)
    weights = torch.softmax(q[1] @ k.T / math.sqrt(k.shape[-1]), dim=0)  # (2,)
    truth = weights @ v  # (2,) @ (2, 64) -> (64,)
    same_values(answer, truth, "z2, the second row of Z,", atol=1e-4, rtol=1e-4)
    return (
        f"z2 = {weights[0]:.4f} v1 + {weights[1]:.4f} v2: Machines attends to itself, "
        "and z2 equals the second row of Z"
    )


@exercise(
    "03.3",
    "scaled dot-product attention, yourself",
    hints=(
        "Three lines: scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k); weights = softmax "
        "over the last dimension; out = weights @ V.",
        "Use the last two dimensions only (transpose(-2, -1), softmax(dim=-1)), so that a "
        "batch dimension in front works too.",
    ),
)
def _attention(answer: object) -> str:
    import torch.nn.functional as F

    from lecturekit.attention import scaled_dot_product_attention

    g = torch.Generator().manual_seed(3)
    for batch, t_q, t_k, d_k, d_v in [((), 2, 3, 8, 8), ((), 5, 4, 8, 10), ((2, 3), 6, 7, 16, 4)]:
        q = torch.randn(*batch, t_q, d_k, generator=g)  # (..., Tq, Dk)
        k = torch.randn(*batch, t_k, d_k, generator=g)  # (..., Tk, Dk)
        v = torch.randn(*batch, t_k, d_v, generator=g)  # (..., Tk, Dv)
        got = run_student(answer, q, k, v, what=f"your function on Q {tuple(q.shape)}")
        want, _ = scaled_dot_product_attention(q, k, v)
        what = f"for Q {tuple(q.shape)}, K {tuple(k.shape)}, V {tuple(v.shape)} the output"
        same_values(got, want, what, dims="(..., Tq, Dv)", rtol=1e-4)  # (out, weights) is fine
        torch.testing.assert_close(want, F.scaled_dot_product_attention(q, k, v))
    return (
        "your function equals lecturekit's scaled_dot_product_attention and torch's "
        "F.scaled_dot_product_attention, with and without a batch dimension"
    )


@exercise(
    "03.4",
    "adding versus multiplying",
    hints=(
        "shifted = torch.softmax(s + 100, dim=0); multiplied = torch.softmax(3 * s, dim=0).",
        "e^(s_j + c) = e^c e^(s_j): the factor e^c cancels. Multiplying by c is a "
        "temperature tau = 1/c.",
    ),
)
def _shift_scale(answer: object) -> str:
    try:
        shifted, multiplied = answer
    except (TypeError, ValueError):
        raise NotYet("give a pair: answer = (shifted, multiplied)") from None
    s = torch.tensor([14.0, 12.0])
    base = torch.softmax(s, dim=0)
    m = torch.softmax(3 * s, dim=0)
    same_values(shifted, base, "shifted")
    same_values(multiplied, m, "multiplied")
    return (
        f"adding 100 keeps ({base[0]:.4f}, {base[1]:.4f}); multiplying by 3 sharpens it to "
        f"({m[0]:.4f}, {m[1]:.4f})"
    )
