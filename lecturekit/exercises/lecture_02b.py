"""Lecture 02b's exercises: scoring functions in depth (optional notebook).

02b.1 make the general score symmetric (code: run on random matrices), 02b.2 the additive score
without its tanh is linear additive (code: run on random parameters), 02b.3 the parameters of
the default MLP score (checked by counting).
"""

from __future__ import annotations

import math

import torch

from lecturekit.exercises.core import (
    NotYet,
    PageAnswer,
    as_tensor,
    exercise,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("02b", "02b_scoring_in_depth")


@exercise(
    "02b.1",
    "make the general score symmetric",
    hints=(
        "h^T W s = s^T W^T h: swapping s and h is the same as transposing W.",
        "Average W and its transpose: s^T W s does not change, since s^T W^T s = s^T W s.",
    ),
)
def _symmetric(answer: object) -> str:
    g = torch.Generator().manual_seed(21)
    for dim in (2, 5, 8):
        W = torch.randn(dim, dim, generator=g, dtype=torch.float64)
        what = f"your function on a random ({dim}, {dim}) W"
        got = as_tensor(run_student(answer, W.clone(), what=what), what, dtype=torch.float64)
        if got.shape != W.shape:
            raise NotYet(f"{what}: return a ({dim}, {dim}) matrix, got {tuple(got.shape)}")
        s, h = (
            torch.randn(dim, generator=g, dtype=torch.float64),
            torch.randn(dim, generator=g, dtype=torch.float64),
        )
        if not math.isclose(s @ got @ h, h @ got @ s, rel_tol=1e-9, abs_tol=1e-9):
            raise NotYet(f"{what}: score(s, h) = s^T W' h still differs from score(h, s)")
        if not math.isclose(s @ got @ s, s @ W @ s, rel_tol=1e-9, abs_tol=1e-9):
            raise NotYet(f"{what}: score(s, s) changed; keep s^T W s as it was")
    return (
        "W' = (W + W^T) / 2 is symmetric and gives every vector the same score against itself: "
        "a symmetric general score is the dot product after one shared linear map (when W' is "
        "positive definite), like dot and cosine"
    )


@exercise(
    "02b.2",
    "the additive score without its tanh",
    hints=(
        "Without the tanh, v^T (W_s s + W_h h) = (W_s^T v)^T s + (W_h^T v)^T h.",
        "W^T v has 2d entries: the first d_s act on s (w_q), the others on h (w_k).",
    ),
)
def _collapse(answer: object) -> str:
    g = torch.Generator().manual_seed(22)
    for d_s, d_h, a in [(3, 3, 4), (4, 6, 5), (8, 8, 8)]:
        W = torch.randn(a, d_s + d_h, generator=g, dtype=torch.float64)
        v = torch.randn(a, generator=g, dtype=torch.float64)
        what = f"your function on W ({a}, {d_s + d_h}), v ({a},), d_s = {d_s}"
        got = run_student(answer, W.clone(), v.clone(), d_s, what=what)
        if not isinstance(got, tuple) or len(got) != 2:
            raise NotYet(f"{what}: return a pair (w_q, w_k)")
        w_q = as_tensor(got[0], "w_q", dtype=torch.float64)
        w_k = as_tensor(got[1], "w_k", dtype=torch.float64)
        s = torch.randn(4, d_s, generator=g, dtype=torch.float64)
        h = torch.randn(4, d_h, generator=g, dtype=torch.float64)
        want = torch.cat([s, h], dim=-1) @ W.T @ v  # v^T W [s; h], four pairs
        if w_q.shape != (d_s,) or w_k.shape != (d_h,):
            raise NotYet(
                f"{what}: w_q should have shape ({d_s},) and w_k ({d_h},), got "
                f"{tuple(w_q.shape)} and {tuple(w_k.shape)}"
            )
        same_values(s @ w_q + h @ w_k, want, f"{what}: w_q . s + w_k . h", dims="(4,)")
    return (
        "without its tanh the additive score is w_q . s + w_k . h with [w_q, w_k] = W^T v: the "
        "query part is one number for every key, the softmax cancels it, and the weights "
        "ignore the query"
    )


def _mlp_counts() -> tuple[int, int]:
    """The parameters of MLPScore(128, 128, 128) and of AdditiveScore(128, 128, 128)."""
    from lecturekit.attention import AdditiveScore, MLPScore

    return (sum(p.numel() for p in MLPScore(128, 128, 128).parameters()),
            sum(p.numel() for p in AdditiveScore(128, 128, 128).parameters()))  # fmt: skip


def _mlp_page() -> PageAnswer:
    mlp, additive = _mlp_counts()
    return PageAnswer("int", mlp, traps=(additive,))


@exercise(
    "02b.3",
    "the parameters of the MLP score",
    hints=(
        "The additive part: W (A, d_s + d_h) and v (A,), no biases.",
        "The default MLPScore adds a second tanh layer (A, A) and biases in both hidden "
        "layers (A each): count them with sum(p.numel() for p in m.parameters()) to check.",
    ),
    page=_mlp_page,
)
def _mlp_params(answer: object) -> str:
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise NotYet(f"give a whole number of parameters, got {type(answer).__name__}")
    mlp, additive = _mlp_counts()
    if answer == additive:
        raise NotYet("that is the additive score's count: the default MLP has a second layer")
    if answer != mlp:
        raise NotYet("that is not the number of parameters of MLPScore(128, 128, 128)")
    return (
        f"{mlp:,} parameters, {mlp - additive:,} more than the additive score's {additive:,}: "
        "A^2 + 2A more (a second tanh layer and the biases)"
    )
