"""Lecture 04's exercises: multi-head attention.

04.1 split the heads yourself (code: run against ``split_heads`` on several shapes),
04.2 multi-head attention from its parts (code: run against ``MultiHeadAttention``),
04.3 the parameters of BERT-base's attention layer (hashed),
04.4 when attention costs twice a GRU (hashed; the operation counts of section 3).
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

register_lecture("04", "04_multi_head_attention")


@exercise(
    "04.1",
    "split the heads yourself",
    hints=(
        "Head i gets features i*Dh to (i+1)*Dh - 1 of every word, with Dh = D // H. First cut "
        "the last dimension into H slices: view (B, T, D) as (B, T, H, Dh).",
        "Then put the heads before the words: swap dimensions 1 and 2 (transpose(1, 2)). "
        "Viewing (B, T, D) directly as (B, H, T, Dh) gives the right shape with the wrong "
        "numbers in it.",
    ),
)
def _split_heads(answer: object) -> str:
    from lecturekit.attention import split_heads

    g = torch.Generator().manual_seed(4)
    for B, T, D, H in [(1, 11, 512, 8), (2, 5, 12, 3), (3, 4, 8, 1), (2, 3, 8, 8)]:
        x = torch.randn(B, T, D, generator=g)  # (B, T, D)
        what = f"your my_split_heads(x of shape {(B, T, D)}, {H})"
        want = split_heads(x, H)  # (B, T, D) -> (B, H, T, Dh)
        got = run_student(answer, x.clone(), H, what=what)
        got = as_tensor(got, what, shape=want.shape, dims="(B, H, T, Dh)")
        if not torch.equal(got, want):
            if torch.equal(got.flatten().sort().values, want.flatten().sort().values):
                raise NotYet(
                    f"for x of shape {(B, T, D)} and {H} heads the shape is right but the numbers "
                    "are in the wrong places: got[0, 0, 0] should be the first Dh features of "
                    "the first word, got[0, 0, 1] those of the second word"
                )
            raise NotYet(f"for x of shape {(B, T, D)} and {H} heads the values are not x's values")
    return (
        "your function equals lecturekit's split_heads on four shapes: one (B, T, D) tensor, "
        "viewed as H slices per word, with the head axis moved in front of the words"
    )


@exercise(
    "04.2",
    "multi-head attention from its parts",
    hints=(
        "The five steps of section 1: Q = X @ W_Q (and K, V), split each into heads (B, H, T, Dh), "
        "attention in every head, merge the heads back to (B, T, D), multiply by W_O.",
        "Inside a head the scores are divided by sqrt(Dh), the size of one head, not by "
        "sqrt(D). split_heads, merge_heads and scaled_dot_product_attention from "
        "lecturekit.attention may do steps 2 to 4 for you.",
    ),
)
def _multi_head(answer: object) -> str:
    from lecturekit.attention import MultiHeadAttention, merge_heads, split_heads

    g = torch.Generator().manual_seed(5)
    for B, T, D, H in [(1, 11, 64, 8), (2, 5, 12, 3), (3, 4, 16, 1)]:
        x = torch.randn(B, T, D, generator=g)  # (B, T, D)
        W_Q, W_K, W_V, W_O = (torch.randn(D, D, generator=g) / math.sqrt(D) for _ in range(4))
        what = f"your my_multi_head on x of shape {(B, T, D)} with {H} heads"
        args = (x.clone(), W_Q.clone(), W_K.clone(), W_V.clone(), W_O.clone(), H)
        mha = MultiHeadAttention(D, H, bias=False)
        with torch.no_grad():
            for linear, W in ((mha.w_q, W_Q), (mha.w_k, W_K), (mha.w_v, W_V), (mha.w_o, W_O)):
                linear.weight.copy_(W.T)  # nn.Linear keeps (out, in)
            want, _ = mha(x, x, x)  # (B, T, D)
        got = run_student(answer, *args, what=what)
        got = as_tensor(got, f"{what}: the output", shape=want.shape, dims="(B, T, D)")
        if close(got, want, atol=1e-5, rtol=1e-4):
            continue
        q, k, v = (split_heads(x @ W, H) for W in (W_Q, W_K, W_V))  # (B, H, T, Dh)
        wrong_scale = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D), dim=-1) @ v
        if H > 1 and close(got, merge_heads(wrong_scale) @ W_O, atol=1e-5, rtol=1e-4):
            raise NotYet(
                f"with {H} heads the output differs: look at what the scores are divided by"
            )
        same_values(got, want, f"{what}: the output", rtol=1e-4)  # the largest difference
    return (
        "your five steps equal lecturekit's MultiHeadAttention (bias=False) with the same four "
        "matrices, for 8, 3 and 1 heads"
    )


register(
    Exercise(
        "04.3",
        "the parameters of BERT-base's attention layer",
        hints=(
            "Which matrices does MultiHeadAttention hold, and of what shape? Count the biases too.",
            "Four d_model x d_model projections (W^Q, W^K, W^V, W^O) and four biases of d_model. "
            "Does the number of heads appear anywhere?",
        ),
        expected=Expected("int", ("7f20ffdb66f8e7c2fd7b",)),
        correct="{answer} parameters = 4 * 768^2 + 4 * 768, the same for 1 head or 12",
    )
)

register(
    Exercise(
        "04.4",
        "when attention costs twice a GRU",
        hints=(
            "Write the equation with section 3's counts: 8 n d^2 + 4 n^2 d = 2 * 12 n d^2.",
            "Divide both sides by 4 n d: the answer is a multiple of d.",
        ),
        expected=Expected("int", ("6dcacec66bc2620a1f35",)),
        correct=(
            "n = {answer}: 4 n^2 d = 16 n d^2, so n = 4 d. The projections cost the same at "
            "every n; past n = d the n^2 d term takes over"
        ),
    )
)
