"""Lecture 06's exercises: masking and Add & Norm.

06.1 the causal mask yourself (code: run against ``causal_mask`` for many T),
06.2 the decoder's combined mask (code: run against ``decoder_mask`` on several batches),
06.3 which weights are zero (checked against a multi-head layer run with the mask),
06.4 what LayerNorm averages over (checked against ``torch.nn.LayerNorm``'s statistics).
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    NotYet,
    as_mask,
    exercise,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("06", "06_masking")


@exercise(
    "06.1",
    "the causal mask, yourself",
    hints=(
        "Query i (the row) may attend to key j (the column) when j <= i: True on and below the "
        "diagonal.",
        "torch.tril keeps the entries on and below the diagonal of a matrix and zeros the "
        "rest; start from torch.ones(T, T, dtype=torch.bool). Or compare two aranges, one as "
        "a column and one as a row.",
    ),
)
def _causal(answer: object) -> str:
    from lecturekit.masking import causal_mask

    for T in (1, 2, 3, 4, 5, 8, 13):
        what = f"your my_causal_mask({T})"
        want = causal_mask(T)  # (T, T)
        got = as_mask(run_student(answer, T, what=what), what, shape=want.shape, dims="(T, T)")
        if torch.equal(got, want):
            continue
        if torch.equal(got, ~want):
            raise NotYet(
                f"{what} has True and False swapped: in lecturekit True means may attend "
                "(torch.nn.MultiheadAttention's bool masks mean the opposite)"
            )
        if torch.equal(got, want.T):
            raise NotYet(
                f"{what} is the transpose of the causal mask: row = query, column = key, and a "
                "query may look back, not ahead"
            )
        if torch.equal(got, want & ~torch.eye(T, dtype=torch.bool)):
            raise NotYet(f"{what} forbids the diagonal: a position may attend to itself")
        same_values(got, want, what)  # how many entries differ
    return "your mask equals lecturekit's causal_mask for T = 1 to 13"


@exercise(
    "06.2",
    "the decoder's combined mask",
    hints=(
        "Two masks: causal_mask(T), shape (T, T), and the keys that are real tokens, "
        "padding_mask(lengths, T) reshaped to (B, 1, 1, T). AND them (&): broadcasting gives "
        "(B, 1, T, T).",
        "Padding masks keys (columns) only: the pad queries (rows) still attend to the real "
        "tokens before them. The 1 in (B, 1, T, T) is the head dimension.",
    ),
)
def _decoder(answer: object) -> str:
    from lecturekit.masking import causal_mask, decoder_mask, padding_mask

    for lengths, T in [([3, 1], 4), ([4, 2, 6], 6), ([5], 5), ([2, 0, 3], 3)]:
        what = f"your my_decoder_mask({lengths}, {T})"
        got = as_mask(run_student(answer, list(lengths), T, what=what), what)
        want = decoder_mask(lengths, T)  # (B, 1, T, T)
        B = len(lengths)
        if got.shape == (B, T, T):
            raise NotYet(
                f"{what} has shape (B, T, T) = {(B, T, T)}: add the head dimension, "
                f"(B, 1, T, T) = {tuple(want.shape)}, so the mask broadcasts over the heads"
            )
        got = as_mask(got, what, shape=want.shape, dims="(B, 1, T, T)")
        if torch.equal(got, want):
            continue
        pad = padding_mask(lengths, T)  # (B, T)
        if torch.equal(got, causal_mask(T).expand_as(want)):
            raise NotYet(f"{what} is the causal mask alone: the padding is missing")
        if torch.equal(got, want & pad[:, None, :, None]):
            raise NotYet(
                f"{what} also blocks the pad queries (rows): padding masks keys only, and a "
                "row with nothing allowed is a fully masked row"
            )
        same_values(got, want, what)  # how many entries differ
    return (
        "your mask equals lecturekit's decoder_mask on four batches, a length-0 sentence "
        "among them: causal AND padding, (B, 1, T, T)"
    )


@exercise(
    "06.3",
    "which weights are zero",
    hints=(
        "The key padding mask removes keys (columns), the same ones for every query of a sentence.",
        "Compare the key index with each sentence's length: torch.arange(4) >= length, as a "
        "(B, 1, T) tensor, then expand it over the 4 queries.",
    ),
)
def _zero_weights(answer: object) -> str:
    from lecturekit.attention import MultiHeadAttention
    from lecturekit.masking import key_padding_mask, padding_mask

    lengths, T = [3, 1], 4
    got = as_mask(answer, "the answer", shape=(2, T, T), dims="(B, T, T)")
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, T, 8, generator=g)  # (B, T, D)
    mha = MultiHeadAttention(8, 2)
    with torch.no_grad():
        _, w = mha(x, x, x, key_padding_mask(padding_mask(lengths, T)))  # (B, H, T, T)
    zero = (w == 0).all(dim=1)  # (B, H, T, T) -> (B, T, T): zero in every head
    if not torch.equal(got, zero) and torch.equal(got, zero.transpose(1, 2)):
        raise NotYet("that marks pad queries (rows); the mask acts on the keys (columns)")
    same_values(got, zero, "the answer")  # how many entries differ
    return "a weight is exactly 0 when its key (column) is padding, for every query"


@exercise(
    "06.4",
    "what LayerNorm averages over",
    hints=(
        "LayerNorm normalises each token's vector on its own, over its features (section 6's "
        "box, Conventions vs the slides).",
        "h.mean(dim=-1) on a (32, 10, 512) tensor: how many numbers does it return, and how "
        "many numbers went into each?",
    ),
)
def _layer_norm_counts(answer: object) -> str:
    try:
        n_means, per_mean = (int(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet("give a pair of whole numbers: answer = (number_of_means, per_mean)") from None
    h = torch.zeros(32, 10, 512)  # (B, T, D)
    ln_means = h.mean(dim=-1)  # LayerNorm: one mean per token, over its D features
    bn_means = h.mean(dim=(0, 1))  # BatchNorm: one mean per feature, over the B * T tokens
    truth = (ln_means.numel(), h.numel() // ln_means.numel())
    if (n_means, per_mean) == truth:
        return (
            f"{truth[0]} means, one per token, each over its {truth[1]} features. BatchNorm "
            f"would compute {bn_means.numel()} means over {h.numel() // bn_means.numel()} "
            "numbers each: the deck's 'B inputs'"
        )
    if (n_means, per_mean) == (bn_means.numel(), h.numel() // bn_means.numel()):
        raise NotYet(
            "that is BatchNorm: one mean per feature over the tokens of the batch (the deck's "
            "'B is the number of inputs'), not LayerNorm"
        )
    if n_means * per_mean != h.numel():
        raise NotYet(
            "the means times the numbers in each should cover every number of h exactly once"
        )
    raise NotYet("the counts are not right yet")
