"""Lecture 04's exercises: multi-head attention.

04.1 what the sqrt(d_k) is for (checked against the student's own module: the mean entropy of
its attention rows at initialisation, with and without the division, recomputed with
``MultiHeadAttention``),
04.2 multi-query attention (code: the student's class, its parameter shapes, then random
weights copied in and compared with a reference computation, with and without a causal mask),
04.3 the parameters of BERT-base's attention layer (hashed),
04.4 when attention costs twice a GRU (hashed; the operation counts of section 3).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

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


def _entropy(weights: torch.Tensor) -> float:
    """The mean entropy (nats) of the rows of ``weights`` (..., Tq, Tk): -sum p ln p per row,
    0 ln 0 = 0, averaged over every row of every head."""
    return float(-torch.special.xlogy(weights, weights).sum(-1).mean())


def _pair(answer: object) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in answer)
    except (TypeError, ValueError):
        raise NotYet(
            "give a pair of numbers: answer = (with_scaling, without_scaling), in nats"
        ) from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise NotYet("both entropies should be finite numbers")
    return a, b


def _reference_of(mha: object, x: object):
    """lecturekit's MultiHeadAttention holding the student's weights, checked to compute what
    the student's module computes on x."""
    from lecturekit.attention import MultiHeadAttention

    if not isinstance(x, torch.Tensor) or x.ndim != 3 or not x.is_floating_point():
        raise NotYet("x should be the float tensor (B, T, D) of the exercise's cell")
    num_heads = getattr(mha, "num_heads", None)
    if not isinstance(mha, torch.nn.Module) or not isinstance(num_heads, int):
        raise NotYet(
            "mha should be your MultiHeadAttention of section 1 (a module with num_heads and "
            "w_q, w_k, w_v, w_o)"
        )
    D = x.shape[-1]
    if num_heads < 1 or D % num_heads:
        raise NotYet(f"mha.num_heads = {num_heads} does not divide x's width {D}")
    with torch.random.fork_rng(devices=[]):  # the student's random state is left alone
        reference = MultiHeadAttention(D, num_heads).eval()
    try:
        reference.load_state_dict(mha.state_dict())
    except RuntimeError:
        raise NotYet(
            "mha's parameters should be lecturekit's: w_q, w_k, w_v, w_o, four "
            "nn.Linear(d_model, d_model) with biases (so that load_state_dict works)"
        ) from None
    with torch.no_grad():
        want, want_w = reference(x, x, x)
        got = run_student(mha, x, x, x, what="your mha(x, x, x)")
    if not (isinstance(got, tuple) and len(got) == 2):
        raise NotYet("your mha(x, x, x) should return (out, weights)")
    out = as_tensor(got[0], "your mha(x, x, x)'s output", shape=want.shape, dims="(B, T, D)")
    weights = as_tensor(got[1], "its weights", shape=want_w.shape, dims="(B, H, T, T)")
    if not (close(out, want, atol=1e-5) and close(weights, want_w, atol=1e-5)):
        raise NotYet(
            "mha is not yet lecturekit's MultiHeadAttention with the same weights (section 1's "
            "claims): pass your module as it is, the one that divides by sqrt(d_k)"
        )
    return reference


@exercise(
    "04.1",
    "what the sqrt(d_k) is for",
    hints=(
        "The entropy of one row of weights p is -sum_j p_j ln p_j (nats, the natural log). Take "
        "the weights your module returns, (B, H, T, T), compute it for every row of every "
        "head, and average. A uniform row over T keys has the largest possible value, ln T.",
        "For the second number, the module must skip the division: give your class a switch "
        "(scale=True; divide only when it is set) or write a subclass, build it, "
        "load_state_dict(mha.state_dict()) and measure on the same x. torch.special.xlogy(p, p) "
        "is p ln p with 0 ln 0 = 0.",
    ),
)
def _scaling(answer: object, *, mha: object, x: object) -> str:
    from lecturekit.masking import masked_softmax

    got = _pair(answer)
    reference = _reference_of(mha, x)
    with torch.no_grad():
        q = reference.project_queries(x)  # (B, T, D) -> (B, H, T, Dh)
        k, _ = reference.project_keys_values(x, x)  # (B, H, T, Dh)
        scores = q @ k.transpose(-2, -1)  # (B, H, T, T), not divided
        Dh, D, T = reference.head_dim, reference.d_model, x.shape[1]
        scaled, unscaled = masked_softmax(scores / math.sqrt(Dh)), masked_softmax(scores)
        truth = (_entropy(scaled), _entropy(unscaled))
        by_d_model = _entropy(masked_softmax(scores / math.sqrt(D)))
        averaged = (_entropy(scaled.mean(1)), _entropy(unscaled.mean(1)))  # heads averaged
        peak = (float(scaled.amax(-1).mean()), float(unscaled.amax(-1).mean()))

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= 0.01 + 1e-9  # two decimals, rounded either way

    def both(pair: tuple[float, float]) -> bool:
        return near(got[0], pair[0]) and near(got[1], pair[1])

    if both(truth):
        return (
            f"the division keeps the rows near ln T = ln {T} = {math.log(T):.2f}, the entropy of "
            "a uniform row: at initialisation every token attends broadly and the softmax works "
            "in its soft range, where its gradients flow. Without it the scores are sqrt(d_k) = "
            f"{math.sqrt(Dh):g} times larger and the rows are peaked (the largest weight of a row "
            f"is {peak[1]:.2f} on average instead of {peak[0]:.2f}; uniform is 1/{T}): the "
            "softmax moves towards saturation (all of a row on one key), where its gradients "
            "vanish. The larger d_k, the worse"
        )
    if both(truth[::-1]):
        raise NotYet("the two numbers are swapped: first with the division, then without")
    if both(tuple(v / math.log(2) for v in truth)):
        raise NotYet("those are bits (log base 2): measure in nats, with the natural log")
    if both(averaged):
        raise NotYet(
            "that is the entropy of the weights averaged over the heads: take each head's "
            "rows on their own, then average the entropies"
        )
    if min(got) < 0:
        raise NotYet("an entropy is -sum p ln p, never negative: mind the minus sign")
    if max(got) > math.log(T) + 0.01:
        raise NotYet(
            f"a row of T = {T} weights has an entropy between 0 (all on one key) and "
            f"ln {T} (uniform): average the rows' entropies, do not sum them"
        )
    if not near(got[0], truth[0]):
        # nearest explanation of a wrong first number
        if near(got[0], math.log(T)) and abs(got[0] - math.log(T)) < abs(got[0] - by_d_model):
            raise NotYet(
                f"ln {T} is the largest possible entropy, that of a perfectly uniform row: "
                "measure your module's rows instead of assuming they are uniform"
            )
        if near(got[0], by_d_model):
            raise NotYet(
                "the first number looks divided by sqrt(d_model): each head divides by the "
                "square root of its own size, d_k = d_model / H"
            )
        raise NotYet("the first number (with the division) is not right yet (2 decimals)")
    raise NotYet("the second number (without the division) is not right yet (2 decimals)")


def _mqa_reference(m: torch.nn.Module, query, key, value, H: int, mask, scale: float | None = None):
    """Multi-query attention with the student's parameters: H query heads, one key and one
    value head of width Dh shared by all of them. Returns out (B, Tq, D), weights (B, H, Tq, Tk)."""
    from lecturekit.attention import merge_heads, split_heads
    from lecturekit.masking import masked_softmax

    Dh = query.shape[-1] // H
    q = split_heads(F.linear(query, m.w_q.weight, m.w_q.bias), H)  # (B, Tq, D) -> (B, H, Tq, Dh)
    k = F.linear(key, m.w_k.weight, m.w_k.bias)[:, None]  # (B, Tk, D) -> (B, 1, Tk, Dh)
    v = F.linear(value, m.w_v.weight, m.w_v.bias)[:, None]  # (B, Tk, D) -> (B, 1, Tk, Dh)
    scores = q @ k.transpose(-2, -1) / (scale or math.sqrt(Dh))  # -> (B, H, Tq, Tk)
    weights = masked_softmax(scores, mask)  # the one key head broadcasts over the H heads
    out = F.linear(merge_heads(weights @ v), m.w_o.weight, m.w_o.bias)  # (B, Tq, D)
    return out, weights


def _projection_shapes(module: object, D: int, H: int) -> None:
    """NotYet naming the first projection that is missing or of the wrong shape."""
    Dh = D // H
    wanted = {"w_q": (D, D), "w_k": (Dh, D), "w_v": (Dh, D), "w_o": (D, D)}
    for name, shape in wanted.items():
        linear = getattr(module, name, None)
        weight = getattr(linear, "weight", None)
        if not isinstance(weight, torch.Tensor):
            raise NotYet(
                f"your MultiQueryAttention({D}, {H}) has no {name}.weight: name the four "
                "projections w_q, w_k, w_v, w_o (nn.Linear), as in your MultiHeadAttention"
            )
        if tuple(weight.shape) != shape:
            out_f, in_f = shape
            raise NotYet(
                f"in MultiQueryAttention({D}, {H}), {name}.weight has shape "
                f"{tuple(weight.shape)}, it should be (out, in) = {shape}: {name} maps "
                f"D = {in_f} features to {out_f}"
                + (" (one head's width Dh = D / H, shared by every head)" if out_f != D else "")
            )


@exercise(
    "04.2",
    "multi-query attention",
    hints=(
        "Only the keys and values change: w_k and w_v map D features to one head's width "
        "Dh = D // H, nn.Linear(d_model, d_model // num_heads). The queries keep their H heads "
        "(w_q: D -> D, then split into (B, H, Tq, Dh) as before), and so does w_o.",
        "Give the keys and values a head axis of size 1, k = self.w_k(key)[:, None] of shape "
        "(B, 1, Tk, Dh): q @ k.transpose(-2, -1) then broadcasts over the H query heads, and "
        "weights @ v too. Divide the scores by sqrt(Dh), mask, softmax, merge the heads, w_o.",
    ),
)
def _multi_query(answer: object) -> str:
    from lecturekit.masking import causal_mask

    g = torch.Generator().manual_seed(42)
    B, Tq, Tk = 2, 5, 7
    for D, H in ((16, 4), (12, 3), (8, 1), (32, 8)):
        with torch.random.fork_rng(devices=[]):  # the student's random state is left alone
            module = run_student(answer, D, H, what=f"your MultiQueryAttention({D}, {H})")
        if not isinstance(module, torch.nn.Module):
            raise NotYet(f"MultiQueryAttention({D}, {H}) should build an nn.Module")
        _projection_shapes(module, D, H)
        module.eval()
        with torch.no_grad():
            for p in module.parameters():
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(D))
        x = torch.randn(B, Tq, D, generator=g)  # (B, Tq, D)
        memory = torch.randn(B, Tk, D, generator=g)  # (B, Tk, D)
        cases = [
            (x, memory, None, f"on query {(B, Tq, D)} and key = value {(B, Tk, D)}"),
            (x, x, causal_mask(Tq), f"on x {(B, Tq, D)} with causal_mask({Tq})"),
        ]
        for query, key, mask, where in cases:
            what = f"your MultiQueryAttention({D}, {H}) {where}"
            with torch.no_grad():
                got = run_student(module, query.clone(), key.clone(), key.clone(), mask, what=what)
                _compare_mqa(got, module, query, key, H, mask, what)
    D, H = 512, 8
    Dh = D // H
    mha_params, mqa_params = 4 * (D * D + D), 2 * (D * D + D) + 2 * (D * Dh + Dh)
    return (
        "your layer equals multi-query attention (one key and one value head of width Dh "
        "shared by all H query heads) for four sizes, with and without a causal mask. At "
        f"D = {D}, H = {H}: {mqa_params:,} parameters instead of {mha_params:,} "
        f"({1 - mqa_params / mha_params:.0%} fewer), and a decoder's KV cache keeps "
        f"2 x {Dh} numbers per token and layer instead of 2 x {D}: {H} times less memory to "
        "read at every generated token (PaLM, Falcon; Llama 2's grouped-query attention keeps "
        "a few key/value heads, in between)"
    )


def _compare_mqa(got, module, query, key, H, mask, what) -> None:
    """NotYet unless the student's (out, weights) equal the reference's, saying what is off."""
    want, want_w = _mqa_reference(module, query, key, key, H, mask)
    if not (isinstance(got, tuple) and len(got) == 2):
        raise NotYet(f"{what} should return (out, weights)")
    out = as_tensor(got[0], f"{what}: the output", shape=want.shape, dims="(B, Tq, D)")
    weights = as_tensor(got[1], f"{what}: the weights", shape=want_w.shape, dims="(B, H, Tq, Tk)")
    if close(out, want, atol=1e-5, rtol=1e-4) and close(weights, want_w, atol=1e-5):
        return
    D = query.shape[-1]
    by_d_model = _mqa_reference(module, query, key, key, H, mask, scale=math.sqrt(D))[1]
    if H > 1 and close(weights, by_d_model, atol=1e-5):
        raise NotYet(f"{what}: look at what the scores are divided by: one head's size")
    if mask is not None and close(weights, _mqa_reference(module, query, key, key, H, None)[1]):
        raise NotYet(
            f"{what}: the mask is not applied (-inf where it is False, before the softmax)"
        )
    same_values(weights, want_w, f"{what}: the weights", dims="(B, H, Tq, Tk)")
    same_values(out, want, f"{what}: the output", dims="(B, Tq, D)", rtol=1e-4)


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
