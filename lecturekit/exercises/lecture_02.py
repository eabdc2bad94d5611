"""Lecture 02's exercises: attention scoring functions.

02.1 from general to scaled dot (checked on random queries and keys),
02.2 how sharp cosine attention can be, and the key strength that sharpens it (hashed),
02.3 the additive score for all pairs at once (code: run against ``AdditiveScore``),
02.4 read an alignment off a trained model's weights (checked against the weights given).
"""

from __future__ import annotations

import math

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

register_lecture("02", "02_attention_scoring")


@exercise(
    "02.1",
    "from general to scaled dot",
    hints=(
        "s^T I h = s^T h: with the identity matrix, the general score is the dot score.",
        "What number do you multiply the identity by, so that s^T W h = s . h / sqrt(d)?",
    ),
)
def _general_to_scaled_dot(answer: object) -> str:
    W = as_tensor(answer, "W", dtype=torch.float64)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] == 0:
        raise NotYet(f"W should be a square (d, d) matrix (d = 8 here), got {tuple(W.shape)}")
    d = W.shape[0]
    g = torch.Generator().manual_seed(11)
    for trial in range(3):
        s = torch.randn(d, generator=g, dtype=torch.float64)  # one query (d,)
        H = torch.randn(5, d, generator=g, dtype=torch.float64)  # five keys (5, d)
        general = H @ W.T @ s  # row i: s^T W h_i
        scaled = H @ s / math.sqrt(d)  # row i: s . h_i / sqrt(d)
        verdict = close(general, scaled, atol=1e-5, rtol=1e-4)
        if not verdict:
            raise NotYet(
                f"for random s and h (trial {trial + 1}), s^T W h is not s . h / sqrt({d}) "
                f"({verdict.reason})"
            )
    return (
        f"with this W, s^T W h = s . h / sqrt({d}) for every s and h: the dot and scaled dot "
        "scores are general scores with a fixed W; a learned W can also rotate and stretch"
    )


register(
    Exercise(
        "02.2",
        "how sharp can cosine attention be?",
        hints=(
            "The best case for one key: its cosine is 1, and the four others' are -1.",
            "The weight is then e^1 / (e^1 + 4 e^-1). With a key strength beta the scores are "
            "beta and -beta: solve e^beta / (e^beta + 4 e^-beta) = 0.9 for beta.",
            "Multiply top and bottom by e^beta: e^(2 beta) / (e^(2 beta) + 4) = 0.9.",
        ),
        expected=Expected("floats", ("843d23b5b51b6e96e64a", "40ccdca93254cc106ce2"), 3),
        correct=(
            "{answer}: without a key strength a cosine score can never put more than about "
            "two thirds of the weight on one key of five; the NTM's beta (learned) sharpens it"
        ),
    )
)


@exercise(
    "02.3",
    "the additive score for all pairs at once",
    hints=(
        "Split W by columns: W_s = W[:, :Dq] acts on the query, W_h = W[:, Dq:] on the key, "
        "and W [s; h] = W_s s + W_h h.",
        "queries @ W_s.T is (Tq, A), keys @ W_h.T is (Tk, A). Add them as (Tq, 1, A) + "
        "(1, Tk, A) (None / unsqueeze), take the tanh, then multiply by v: (Tq, Tk).",
    ),
)
def _additive_all_pairs(answer: object) -> str:
    from lecturekit.attention import AdditiveScore

    g = torch.Generator().manual_seed(5)
    for t_q, t_k, d_q, d_k, a in [(1, 4, 3, 3, 2), (3, 5, 8, 8, 8), (6, 2, 4, 7, 10)]:
        score = AdditiveScore(d_q, d_k, a)
        with torch.no_grad():
            for p in score.parameters():
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[-1]))
        queries, keys = torch.randn(t_q, d_q, generator=g), torch.randn(t_k, d_k, generator=g)
        W, v = score.W.weight.detach(), score.v.weight.detach()[0]  # (A, Dq + Dk), (A,)
        what = (
            f"your function on {t_q} quer{'y' if t_q == 1 else 'ies'} of size {d_q}, "
            f"{t_k} keys of size {d_k}, A = {a}"
        )
        got = run_student(answer, queries, keys, W, v, what=what)
        with torch.no_grad():
            want = score(queries, keys)  # (Tq, Tk)
        same_values(got, want, f"{what}: v^T tanh(W [s; h])", dims="(Tq, Tk)", rtol=1e-4)
    hidden_gb = 32 * 512 * 512 * 64 * 4 / 1e9
    scores_mb = 32 * 512 * 512 * 4 / 1e6
    return (
        "your scores equal lecturekit's AdditiveScore, for query and key sizes equal or not. "
        "The price is the (Tq, Tk, A) hidden tensor: in a Transformer layer (B = 32, "
        f"Tq = Tk = 512, A = 64) it would take {hidden_gb:.1f} GB of float32, where the scaled "
        f"dot product's scores take {scores_mb:.0f} MB"
    )


@exercise(
    "02.4",
    "read an alignment off the weights",
    hints=(
        "weights has one row per target step and one column per source word: take the "
        "argmax of each row (weights.argmax(-1)).",
        "Look each index up in example.src: [example.src[i] for i in ...].",
    ),
)
def _alignment(answer: object, *, weights: object, example: object) -> str:
    if not isinstance(weights, torch.Tensor) or weights.ndim != 2:
        raise ValueError("weights must be the (target words, source words) tensor of the cell")
    src, align = list(example.src), list(example.align)
    if weights.shape[1] != len(src) or weights.shape[0] != len(align):
        raise ValueError("weights and example must belong together (the cell passes both)")
    if isinstance(answer, str):
        raise NotYet("give a list of words, one per target step, not one string")
    try:
        words = [str(w) for w in answer]
    except TypeError:
        raise NotYet(f"give a list of source words, got {type(answer).__name__}") from None
    top = weights.argmax(-1).tolist()  # (T,) the most attended source position per step
    truth = [src[i] for i in top]
    if len(words) != len(truth):
        raise NotYet(f"one source word per target step: expected {len(truth)} words, "
                     f"got {len(words)}")  # fmt: skip
    wrong = [j for j, (a, b) in enumerate(zip(words, truth, strict=True)) if a != b]
    if wrong:
        raise NotYet(
            f"{len(wrong)} of {len(truth)} words are not the most attended source word "
            f"(the first at target step {wrong[0]})"
        )
    misses = [j for j, (i, a) in enumerate(zip(top, align, strict=True)) if i != a]
    if not misses:
        return f"{len(truth)} words, each the true source word of its step"
    near = sum(abs(top[j] - align[j]) == 1 for j in misses)
    return (
        f"{len(truth)} words. The largest weight is on the true source word at "
        f"{len(truth) - len(misses)} steps and on a neighbour of it at {near} more; it differs "
        f"at steps {misses}. Attention weights show where a model reads, not necessarily the "
        "word it translates"
    )
