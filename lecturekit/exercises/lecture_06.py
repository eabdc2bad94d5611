"""Lecture 06's exercises: masking and Add & Norm.

06.1 a sliding-window mask (code: the mask run against ``lecturekit.efficient.local.band_mask``
for several T and w; then the student's ``EncoderLayer``, holding lecturekit's weights, under
that mask against ``lecturekit.layers.EncoderLayer``, and ``past_unchanged`` on it),
06.2 pre-norm (code: the student's layer, weights copied, against
``lecturekit.layers.EncoderLayer(..., norm_first=True)`` and
``torch.nn.TransformerEncoderLayer(..., norm_first=True)``),
06.3 which weights are zero (checked against a multi-head layer run with the mask),
06.4 what LayerNorm averages over (checked against ``torch.nn.LayerNorm``'s statistics).
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    NotYet,
    PageAnswer,
    as_mask,
    as_tensor,
    exercise,
    register_lecture,
    run_student,
    same_values,
)
from lecturekit.utils.claims import close

register_lecture("06", "06_masking")


def _student_layer(layer_class: object, reference: torch.nn.Module, what: str) -> torch.nn.Module:
    """The student's layer class built like ``reference`` (16 features, 2 heads, d_ff 32),
    holding its weights, in eval mode."""
    with torch.random.fork_rng(devices=[]):  # the student's random state is left alone
        layer = run_student(layer_class, 16, 2, 32, what=f"{what}(16, 2, 32)")
    if not isinstance(layer, torch.nn.Module):
        raise NotYet(f"{what}(16, 2, 32) should build an nn.Module")
    theirs, ours = layer.state_dict(), reference.state_dict()
    wrong = [f"missing {k}" for k in ours if k not in theirs]
    wrong += [f"unexpected {k}" for k in theirs if k not in ours]
    wrong += [
        f"{k} of shape {tuple(theirs[k].shape)}, not {tuple(ours[k].shape)}"
        for k in ours if k in theirs and theirs[k].shape != ours[k].shape
    ]  # fmt: skip
    if wrong:
        raise NotYet(
            f"{what}'s parameters should have lecturekit's names (self_attn, ffn.linear1, "
            f"ffn.linear2, norm1, norm2) and shapes, so that load_state_dict works: "
            + "; ".join(wrong[:3])
        )
    layer.load_state_dict(ours)
    return layer.eval()


def _run_layer(layer: torch.nn.Module, x: torch.Tensor, mask: object, what: str) -> torch.Tensor:
    """The student's layer(x, mask) -> its output, checked to be (out (B, T, D), weights)."""
    with torch.no_grad():
        got = run_student(layer, x.clone(), mask, what=what)
    if not (isinstance(got, tuple) and len(got) == 2):
        raise NotYet(f"{what} should return (out, weights), as lecturekit's EncoderLayer")
    return as_tensor(got[0], f"{what}: the output", shape=x.shape, dims="(B, T, D)")


@exercise(
    "06.1",
    "a sliding-window mask",
    hints=(
        "Query i (the row) may attend to key j (the column) when j <= i (causal) and j > i - w "
        "(at most w - 1 keys back): the w most recent tokens, itself included. With a column "
        "of query indices i = torch.arange(T)[:, None] and a row of key indices "
        "j = torch.arange(T)[None, :], both conditions are comparisons; & ANDs them.",
        "lecturekit.efficient.local.band_mask(T, window, causal=True) allows "
        "i - window <= j <= i: window + 1 keys. Your layer takes the (T, T) mask as it is: "
        "layer(x, my_window_mask(T, w)), the mask broadcasting over the batch and the heads.",
    ),
)
def _window(answer: object, *, layer_class: object) -> str:
    import lecturekit.layers
    from lecturekit.efficient.local import band_mask
    from lecturekit.masking import past_unchanged

    for T, w in ((1, 1), (5, 1), (5, 2), (6, 3), (8, 4), (4, 4), (3, 7), (12, 5)):
        what = f"your my_window_mask({T}, {w})"
        want = band_mask(T, w - 1, causal=True)  # (T, T): i - w < j <= i
        got = as_mask(run_student(answer, T, w, what=what), what, shape=want.shape, dims="(T, T)")
        if torch.equal(got, want):
            continue
        if torch.equal(got, ~want):
            raise NotYet(f"{what} has True and False swapped: True means may attend")
        if torch.equal(got, want.T):
            raise NotYet(f"{what} is transposed: row = query, column = key, and a query looks back")
        if torch.equal(got, band_mask(T, w, causal=True)):
            raise NotYet(
                f"{what} lets each query see w + 1 keys (i - w <= j): the window is the w most "
                "recent tokens, the query's own among them (i - w < j)"
            )
        if torch.equal(got, band_mask(T, w - 1)):
            raise NotYet(f"{what} also looks ahead: the window mask is causal too")
        same_values(got, want, what)  # how many entries differ

    with torch.random.fork_rng(devices=[]):  # the student's random state is left alone
        torch.manual_seed(0)
        reference = lecturekit.layers.EncoderLayer(16, 2, d_ff=32).eval()
    layer = _student_layer(layer_class, reference, "your EncoderLayer")
    g = torch.Generator().manual_seed(6)
    T, w = 9, 3
    x, other = torch.randn(2, 2, T, 16, generator=g)  # (B, T, D) each
    mask = run_student(answer, T, w, what=f"your my_window_mask({T}, {w})")
    what = f"your EncoderLayer on x (B, T, D) = {tuple(x.shape)} with my_window_mask({T}, {w})"
    out = _run_layer(layer, x, mask, what)
    with torch.no_grad():
        want, _ = reference(x, band_mask(T, w - 1, causal=True))
    same_values(out, want, f"{what}, against lecturekit's EncoderLayer under the same window")
    unchanged = past_unchanged(lambda t: layer(t, mask)[0], x, other)  # (T,) bool
    if not bool(unchanged.all()):
        first = int((~unchanged).nonzero()[0])
        raise NotYet(
            f"{what}: the future leaks: changing the tokens after position {first} changes "
            f"an output at a position <= {first}"
        )
    return (
        "your mask equals lecturekit's band_mask(T, w - 1, causal=True) for eight (T, w), and "
        "your EncoderLayer under it equals lecturekit's, with no future leaking into the past. "
        "Each query now reads w keys instead of up to T: the attention costs O(T w) instead of "
        "O(T^2) (lecture 11, local attention; Mistral's sliding window), and a stack of L "
        "such layers still reaches about L (w - 1) tokens back"
    )


def _pre_norm_variants(ref: torch.nn.Module, x: torch.Tensor, mask: torch.Tensor):
    """Near misses of pre-norm computed from lecturekit's layer's parts: post-norm, the
    residual taken from LayerNorm(x), and pre-norm with an extra LayerNorm on the output."""

    def attn(h):
        return ref.self_attn(h, h, h, mask)[0]

    post = ref.norm2(ref.norm1(x + attn(x)) + ref.ffn(ref.norm1(x + attn(x))))
    h = ref.norm1(x)
    h = h + attn(h)
    normed_residual = ref.norm2(h) + ref.ffn(ref.norm2(h))
    h = x + attn(ref.norm1(x))
    h = h + ref.ffn(ref.norm2(h))
    return {
        "post-norm": post,
        "residual of LayerNorm(x)": normed_residual,
        "extra LayerNorm": ref.norm2(h),
    }


@exercise(
    "06.2",
    "pre-norm",
    hints=(
        "Post-norm (the paper) normalises after the residual sum: x = norm(x + sublayer(x)). "
        "Pre-norm normalises the sublayer's input only: x = x + sublayer(norm(x)), so the "
        "residual path carries x untouched.",
        "Twice: x = x + dropout1(self_attn(h, h, h, mask)[0]) with h = norm1(x), then "
        "x = x + dropout2(ffn(norm2(x))). Keep the attention weights to return (out, weights); "
        "there is no LayerNorm at the end of the layer (a pre-norm stack adds one after its "
        "last layer).",
    ),
)
def _pre_norm(answer: object) -> str:
    import lecturekit.layers
    from lecturekit.masking import key_padding_mask, padding_mask

    with torch.random.fork_rng(devices=[]), torch.no_grad():  # the student's random state
        torch.manual_seed(1)  # is left alone
        torch_layer = torch.nn.TransformerEncoderLayer(
            16, 2, dim_feedforward=32, dropout=0.0, batch_first=True, norm_first=True
        ).eval()
        for norm in (torch_layer.norm1, torch_layer.norm2):  # LayerNorm starts at gamma = 1,
            norm.weight.normal_(1, 0.3), norm.bias.normal_(0, 0.3)  # beta = 0: make them count
        reference = lecturekit.layers.EncoderLayer(16, 2, d_ff=32, norm_first=True).eval()
        reference.load_from_torch(torch_layer)
    layer = _student_layer(answer, reference, "your PreNormEncoderLayer")
    g = torch.Generator().manual_seed(2)
    x = 2 * torch.randn(3, 6, 16, generator=g) + 1  # (B, T, D)
    pad = padding_mask([6, 4, 1], 6)  # (B, T), True = real token
    what = f"your PreNormEncoderLayer on x (B, T, D) = {tuple(x.shape)} with a padding mask"
    out = _run_layer(layer, x, key_padding_mask(pad), what)
    with torch.no_grad():
        want, _ = reference(x, key_padding_mask(pad))
        from_torch = torch_layer(x, src_key_padding_mask=~pad)
        variants = _pre_norm_variants(reference, x, key_padding_mask(pad))
    if not close(out[pad], want[pad], atol=1e-5, rtol=1e-4):
        if close(out[pad], variants["post-norm"][pad], atol=1e-5, rtol=1e-4):
            raise NotYet(f"{what}: that is post-norm, norm(x + sublayer(x)), your EncoderLayer")
        if close(out[pad], variants["residual of LayerNorm(x)"][pad], atol=1e-5, rtol=1e-4):
            raise NotYet(
                f"{what}: the residual adds LayerNorm(x): the residual path should carry x "
                "itself; only the sublayer's input is normalised"
            )
        if close(out[pad], variants["extra LayerNorm"][pad], atol=1e-5, rtol=1e-4):
            raise NotYet(f"{what}: the output goes through a LayerNorm more than pre-norm has")
        same_values(out[pad], want[pad], f"{what}, at the real positions", rtol=1e-4)
    same_values(out[pad], from_torch[pad], f"{what}, against torch's", rtol=1e-4)
    return (
        "your layer equals lecturekit's EncoderLayer(norm_first=True) and "
        "torch.nn.TransformerEncoderLayer(norm_first=True) at the real positions. In pre-norm "
        "(GPT-2, ViT) the residual path x + ... is an identity from the input to the output of "
        "the whole stack: gradients reach the first layers undiminished, and deep stacks train "
        "without the learning-rate warm-up post-norm needs (Xiong et al. 2020). The price: the "
        "stack's output is not normalised, so a final LayerNorm follows the last layer"
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


def _norm_counts() -> tuple[tuple[int, int], tuple[int, int]]:
    """(means, numbers per mean) of LayerNorm and of BatchNorm on h of shape (32, 10, 512)."""
    h = torch.zeros(32, 10, 512)  # (B, T, D)
    ln_means = h.mean(dim=-1)  # LayerNorm: one mean per token, over its D features
    bn_means = h.mean(dim=(0, 1))  # BatchNorm: one mean per feature, over the B * T tokens
    return ((ln_means.numel(), h.numel() // ln_means.numel()),
            (bn_means.numel(), h.numel() // bn_means.numel()))  # fmt: skip


def _norm_page() -> PageAnswer:
    layer_norm, batch_norm = _norm_counts()
    return PageAnswer("floats", layer_norm, traps=(batch_norm,))


@exercise(
    "06.4",
    "what LayerNorm averages over",
    hints=(
        "LayerNorm normalises each token's vector on its own, over its features.",
        "h.mean(dim=-1) on a (32, 10, 512) tensor: how many numbers does it return, and how "
        "many numbers went into each?",
    ),
    page=_norm_page,
)
def _layer_norm_counts(answer: object) -> str:
    try:
        n_means, per_mean = (int(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet("give a pair of whole numbers: answer = (number_of_means, per_mean)") from None
    truth, batch_norm = _norm_counts()
    if (n_means, per_mean) == truth:
        return (
            f"{truth[0]} means, one per token, each over its {truth[1]} features. BatchNorm "
            f"would compute {batch_norm[0]} means over {batch_norm[1]} numbers each: the "
            "deck's 'B inputs'"
        )
    if (n_means, per_mean) == batch_norm:
        raise NotYet(
            "that is BatchNorm: one mean per feature over the tokens of the batch (the deck's "
            "'B is the number of inputs'), not LayerNorm"
        )
    if n_means * per_mean != truth[0] * truth[1]:
        raise NotYet(
            "the means times the numbers in each should cover every number of h exactly once"
        )
    raise NotYet("the counts are not right yet")
