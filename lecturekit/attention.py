"""Attention: the six scoring functions, scaled dot-product attention, multi-head attention.

Public API::

    out, weights = scaled_dot_product_attention(q, k, v, mask=None)
    #   q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv); mask bool broadcastable to
    #   (..., Tq, Tk), True = may attend.  out (..., Tq, Dv), weights (..., Tq, Tk)

    mha = MultiHeadAttention(d_model, num_heads, bias=True)
    out, weights = mha(query, key, value, mask=None)  # batch-first (B, T, D)
    #   weights (B, H, Tq, Tk)
    mha.load_from_torch(torch_mha)                    # copy from torch.nn.MultiheadAttention
    q = mha.project_queries(query)                    # (B, Tq, D) -> (B, H, Tq, Dh)
    k, v = mha.project_keys_values(key, value)        # (B, Tk, D) -> (B, H, Tk, Dh) each
    out, weights = mha.attend(q, k, v, mask)          # forward = these three (a KV cache
                                                      # keeps k, v: lecturekit.kv_cache)

    # Scoring functions: score(query (..., Tq, Dq), keys (..., Tk, Dk)) -> scores (..., Tq, Tk)
    DotScore(), ScaledDotScore(), GeneralScore(query_dim, key_dim),
    AdditiveScore(query_dim, key_dim, hidden_dim), CosineScore(), LocationScore(query_dim, max_len)
    make_score(name, ...)                             # name in SCORE_FUNCTIONS
    context, weights = score.attend(query, keys, values, mask=None)

    split_heads(x, num_heads)  # (B, T, D) -> (B, H, T, Dh);  merge_heads(x): the inverse

Masks follow lecturekit.masking: bool, True = may attend; a fully masked row gets zero
weights and a zero output (as in torch.nn.functional.scaled_dot_product_attention).

Lectures 02-04; Vaswani et al. 2017 eq. 1 and section 3.2.2; Luong et al. 2015 section 3.1;
Bahdanau et al. 2015 eq. 6; Graves et al. 2014 (cosine).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from lecturekit.masking import masked_softmax
from lecturekit.utils.checks import check_positive_int, check_tensor

__all__ = [
    "scaled_dot_product_attention",
    "MultiHeadAttention",
    "split_heads",
    "merge_heads",
    "Score",
    "DotScore",
    "ScaledDotScore",
    "GeneralScore",
    "AdditiveScore",
    "CosineScore",
    "LocationScore",
    "SCORE_FUNCTIONS",
    "make_score",
]


def _check_seq(name: str, x: object) -> torch.Tensor:
    return check_tensor(name, x, min_ndim=2, wanted="(..., T, D)")


def _batch_shape(**tensors: torch.Tensor) -> torch.Size:
    """Broadcast the leading (batch) dims of tensors shaped (..., T, D)."""
    try:
        return torch.broadcast_shapes(*(t.shape[:-2] for t in tensors.values()))
    except RuntimeError:
        shapes = ", ".join(f"{n} {tuple(t.shape)}" for n, t in tensors.items())
        raise ValueError(f"batch dimensions do not broadcast: {shapes}") from None


def _attend(
    scores: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(scores + M) over keys, then the weighted sum of the values."""
    weights = masked_softmax(scores, mask)  # (..., Tq, Tk)
    return weights @ values, weights  # (..., Tq, Tk) @ (..., Tk, Dv) -> (..., Tq, Dv)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V.

    Args:
        q: (..., Tq, Dk) queries.
        k: (..., Tk, Dk) keys.
        v: (..., Tk, Dv) values.
        mask: bool, broadcastable to (..., Tq, Tk), True = may attend; None = attend everywhere.

    Returns:
        out (..., Tq, Dv) and weights (..., Tq, Tk); each row of weights sums to 1
        (a fully masked row is all zeros).

    Lecture 03; Vaswani et al. 2017 eq. 1.
    """
    _check_seq("q", q), _check_seq("k", k), _check_seq("v", v)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share the last dim d_k: q {tuple(q.shape)} vs k {tuple(k.shape)}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same length Tk: k {tuple(k.shape)} vs v {tuple(v.shape)}"
        )
    batch = _batch_shape(q=q, k=k, v=v)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Tq, Dk) @ (..., Dk, Tk)
    if mask is not None and scores.shape[:-2] != batch:
        scores = scores.expand(*batch, *scores.shape[-2:])
    return _attend(scores, v, mask)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, T, D) -> (B, H, T, Dh) with Dh = D / H.

    Lecture 04.
    """
    check_tensor("x", x, 3, wanted="(B, T, D)")
    check_positive_int("num_heads", num_heads)
    B, T, D = x.shape
    if D % num_heads:
        raise ValueError(f"d_model={D} is not divisible by num_heads={num_heads}")
    return x.view(B, T, num_heads, D // num_heads).transpose(1, 2)  # (B,T,H,Dh) -> (B,H,T,Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, H, T, Dh) -> (B, T, H*Dh): the concatenation of the heads.

    Lecture 04.
    """
    check_tensor("x", x, 4, wanted="(B, H, T, Dh)")
    B, H, T, Dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * Dh)  # (B,H,T,Dh) -> (B,T,H,Dh) -> (B,T,D)


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V).

    Args:
        d_model: model width D; must be divisible by num_heads.
        num_heads: H.
        bias: whether the four projections have biases (torch.nn.MultiheadAttention's default).
        dropout: dropout on the attention weights during training (returned weights are
            the pre-dropout attention distribution).

    Lecture 04; Vaswani et al. 2017 section 3.2.2.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True, *, dropout: float = 0.0):
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("num_heads", num_heads)
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Args:
            query: (B, Tq, D); key: (B, Tk, D); value: (B, Tk, D).
            mask: bool broadcastable to (B, H, Tq, Tk), True = may attend. A 2-D mask is read
                as (Tq, Tk); a (B, Tk) padding mask must go through
                ``lecturekit.masking.key_padding_mask`` first, giving (B, 1, 1, Tk).

        Returns:
            out (B, Tq, D) and weights (B, H, Tq, Tk).
        """
        for name, x in (("query", query), ("key", key), ("value", value)):
            check_tensor(name, x, wanted=f"(B, T, d_model={self.d_model})")
            if x.ndim != 3 or x.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must be (B, T, d_model={self.d_model}), got {tuple(x.shape)}"
                )
        if key.shape[:2] != value.shape[:2] or query.shape[0] != key.shape[0]:
            raise ValueError(
                "query, key, value must share the batch size and key/value the length: "
                f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
            )
        q = self.project_queries(query)  # (B, Tq, D) -> (B, H, Tq, Dh)
        k, v = self.project_keys_values(key, value)  # (B, Tk, D) -> (B, H, Tk, Dh) each
        return self.attend(q, k, v, mask)

    def project_queries(self, query: torch.Tensor) -> torch.Tensor:
        """The queries Q = query W^Q, split into heads: (B, Tq, D) -> (B, H, Tq, Dh)."""
        return split_heads(self.w_q(query), self.num_heads)

    def project_keys_values(
        self, key: torch.Tensor, value: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys K = key W^K and values V = value W^V, split into heads.

        Args:
            key: (B, Tk, D); value: (B, Tk, D).

        Returns:
            k and v, each (B, H, Tk, Dh). A decoder computes them once per position and caches
            them (``lecturekit.kv_cache``).
        """
        H = self.num_heads
        k = split_heads(self.w_k(key), H)  # (B, Tk, D) -> (B, H, Tk, Dh)
        v = split_heads(self.w_v(value), H)  # (B, Tk, D) -> (B, H, Tk, Dh)
        return k, v

    def attend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Scaled dot-product attention of every head, then the output projection:
        concat_h(softmax(q_h k_h^T / sqrt(Dh) + M) v_h) W^O, on queries, keys and values already
        projected and split into heads (``project_queries``, ``project_keys_values``, or a
        cache).

        Args:
            q: (B, H, Tq, Dh); k, v: (B, H, Tk, Dh); mask as in ``forward``.

        Returns:
            out (B, Tq, D) and weights (B, H, Tq, Tk).
        """
        H, Dh = self.num_heads, self.head_dim
        for name, t in (("q", q), ("k", k), ("v", v)):
            check_tensor(name, t, wanted=f"(B, H={H}, T, Dh={Dh})")
            if t.ndim != 4 or t.shape[1] != H or t.shape[-1] != Dh:
                raise ValueError(f"{name} must be (B, H={H}, T, Dh={Dh}), got {tuple(t.shape)}")
        scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)  # -> (B, H, Tq, Tk)
        weights = masked_softmax(scores, mask)
        heads = self.dropout(weights) @ v  # (B, H, Tq, Tk) @ (B, H, Tk, Dh) -> (B, H, Tq, Dh)
        return self.w_o(merge_heads(heads)), weights  # (B, H, Tq, Dh) -> (B, Tq, D)

    @torch.no_grad()
    def load_from_torch(self, torch_mha: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy the weights of a ``torch.nn.MultiheadAttention`` (same d_model and heads).

        torch keeps W^Q, W^K, W^V stacked in ``in_proj_weight`` (3D, D); its outputs then equal
        ours (torch's bool masks mean the opposite: True = may NOT attend).
        """
        if not isinstance(torch_mha, nn.MultiheadAttention):
            raise ValueError(
                f"torch_mha must be a torch.nn.MultiheadAttention, got {type(torch_mha).__name__}"
            )
        if (torch_mha.embed_dim, torch_mha.num_heads) != (self.d_model, self.num_heads):
            raise ValueError(
                f"torch_mha has embed_dim={torch_mha.embed_dim}, num_heads={torch_mha.num_heads};"
                f" this module has d_model={self.d_model}, num_heads={self.num_heads}"
            )
        if not torch_mha._qkv_same_embed_dim or torch_mha.bias_k is not None:
            raise ValueError("torch_mha must use kdim = vdim = embed_dim and add_bias_kv=False")
        has_bias = torch_mha.in_proj_bias is not None
        if has_bias != (self.w_q.bias is not None):
            raise ValueError(f"torch_mha has bias={has_bias}, this module has the opposite")
        qkv = (self.w_q, self.w_k, self.w_v)
        for lin, w in zip(qkv, torch_mha.in_proj_weight.chunk(3), strict=True):
            lin.weight.copy_(w)
        self.w_o.weight.copy_(torch_mha.out_proj.weight)
        if has_bias:
            for lin, b in zip(qkv, torch_mha.in_proj_bias.chunk(3), strict=True):
                lin.bias.copy_(b)
            self.w_o.bias.copy_(torch_mha.out_proj.bias)
        return self


# ----------------------------------------------------------------------------------------------
# The six scoring functions of lecture 02: score(s, h) between a query s and each key h.
# ----------------------------------------------------------------------------------------------


class Score(nn.Module):
    """Base class: ``forward(query (..., Tq, Dq), keys (..., Tk, Dk)) -> scores (..., Tq, Tk)``.

    ``attend`` turns scores into weights (softmax over keys, masked) and a context vector.

    Lecture 02.
    """

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError

    def _check(self, query: torch.Tensor, keys: torch.Tensor, same_dim: bool = False) -> None:
        _check_seq("query", query), _check_seq("keys", keys)
        _batch_shape(query=query, keys=keys)
        if same_dim and query.shape[-1] != keys.shape[-1]:
            raise ValueError(
                f"{type(self).__name__} needs query and keys of the same dim: "
                f"query {tuple(query.shape)} vs keys {tuple(keys.shape)}"
            )

    def attend(
        self,
        query: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns context (..., Tq, Dv) and weights (..., Tq, Tk)."""
        _check_seq("values", values)
        if values.shape[-2] != keys.shape[-2]:
            raise ValueError(
                f"keys and values must have the same length Tk: keys {tuple(keys.shape)} vs "
                f"values {tuple(values.shape)}"
            )
        return _attend(self(query, keys), values, mask)


class DotScore(Score):
    """score(s, h) = s . h  (Luong "dot"). Lecture 02; Luong et al. 2015 eq. 8."""

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys, same_dim=True)
        return query @ keys.transpose(-2, -1)  # (..., Tq, D) @ (..., D, Tk) -> (..., Tq, Tk)


class ScaledDotScore(Score):
    """score(s, h) = s . h / sqrt(d). Lecture 02; Vaswani et al. 2017 eq. 1."""

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys, same_dim=True)
        return query @ keys.transpose(-2, -1) / math.sqrt(query.shape[-1])


class GeneralScore(Score):
    """score(s, h) = s^T W h with a learned W (Dq, Dk)  (Luong "general").

    Lecture 02; Luong et al. 2015 eq. 8.
    """

    def __init__(self, query_dim: int, key_dim: int):
        super().__init__()
        self.W = nn.Linear(key_dim, query_dim, bias=False)  # h -> W h, weight (Dq, Dk)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys)
        if keys.shape[-1] != self.W.in_features or query.shape[-1] != self.W.out_features:
            raise ValueError(
                f"GeneralScore(query_dim={self.W.out_features}, key_dim={self.W.in_features}) "
                f"got query {tuple(query.shape)} and keys {tuple(keys.shape)}"
            )
        return query @ self.W(keys).transpose(-2, -1)  # (..., Tq, Dq) @ (..., Dq, Tk)


class AdditiveScore(Score):
    """score(s, h) = v^T tanh(W [s; h])  (Bahdanau "additive", Luong "concat").

    W (A, Dq + Dk) acts on the concatenation [s; h]; it is computed as W_s s + W_h h (the two
    column blocks of W), which avoids materialising every (query, key) concatenation.

    Lecture 02; Bahdanau et al. 2015 eq. 6 / Luong et al. 2015 eq. 8.
    """

    def __init__(self, query_dim: int, key_dim: int, hidden_dim: int):
        super().__init__()
        self.query_dim, self.key_dim = query_dim, key_dim
        self.W = nn.Linear(query_dim + key_dim, hidden_dim, bias=False)
        self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys)
        if (query.shape[-1], keys.shape[-1]) != (self.query_dim, self.key_dim):
            raise ValueError(
                f"AdditiveScore(query_dim={self.query_dim}, key_dim={self.key_dim}) got query "
                f"{tuple(query.shape)} and keys {tuple(keys.shape)}"
            )
        W_s, W_h = self.W.weight.split([self.query_dim, self.key_dim], dim=1)  # (A,Dq), (A,Dk)
        s = query @ W_s.T  # (..., Tq, Dq) -> (..., Tq, A)
        h = keys @ W_h.T  # (..., Tk, Dk) -> (..., Tk, A)
        hidden = torch.tanh(s.unsqueeze(-2) + h.unsqueeze(-3))  # -> (..., Tq, Tk, A)
        return self.v(hidden).squeeze(-1)  # (..., Tq, Tk, A) -> (..., Tq, Tk)


class CosineScore(Score):
    """score(s, h) = cos(s, h) = s . h / (|s| |h|). Lecture 02; Graves et al. 2014 eq. 6."""

    def __init__(self, eps: float = 1e-8):
        super().__init__()
        self.eps = eps

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys, same_dim=True)
        q = query / query.norm(dim=-1, keepdim=True).clamp_min(self.eps)
        k = keys / keys.norm(dim=-1, keepdim=True).clamp_min(self.eps)
        return q @ k.transpose(-2, -1)  # (..., Tq, D) @ (..., D, Tk) -> (..., Tq, Tk)


class LocationScore(Score):
    """scores = W s: one score per source *position*, from the query alone (keys unused
    except for their count Tk, which must be <= max_len). Weights = softmax(W s).

    Lecture 02; Luong et al. 2015 eq. 9.
    """

    def __init__(self, query_dim: int, max_len: int):
        super().__init__()
        check_positive_int("max_len", max_len)
        self.W = nn.Linear(query_dim, max_len, bias=False)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        self._check(query, keys)
        Tk = keys.shape[-2]
        if Tk > self.W.out_features:
            raise ValueError(f"keys have length Tk={Tk} > max_len={self.W.out_features}")
        if query.shape[-1] != self.W.in_features:
            raise ValueError(
                f"LocationScore(query_dim={self.W.in_features}) got query {tuple(query.shape)}"
            )
        scores = self.W(query)[..., :Tk]  # (..., Tq, Dq) -> (..., Tq, max_len) -> (..., Tq, Tk)
        batch = _batch_shape(query=query, keys=keys)
        return scores.expand(*batch, *scores.shape[-2:])


SCORE_FUNCTIONS: dict[str, type[Score]] = {
    "dot": DotScore,
    "scaled_dot": ScaledDotScore,
    "general": GeneralScore,
    "additive": AdditiveScore,
    "cosine": CosineScore,
    "location": LocationScore,
}


def make_score(
    name: str,
    query_dim: int | None = None,
    key_dim: int | None = None,
    *,
    hidden_dim: int | None = None,
    max_len: int | None = None,
) -> Score:
    """Build a scoring function by name ("dot", "scaled_dot", "general", "additive", "cosine",
    "location"), passing only the sizes it needs.

    Lecture 02.
    """
    if name not in SCORE_FUNCTIONS:
        raise ValueError(f"name={name!r} is not one of {sorted(SCORE_FUNCTIONS)}")
    needs = {
        "general": {"query_dim": query_dim, "key_dim": key_dim},
        "additive": {"query_dim": query_dim, "key_dim": key_dim, "hidden_dim": hidden_dim},
        "location": {"query_dim": query_dim, "max_len": max_len},
    }.get(name, {})
    missing = [k for k, v in needs.items() if v is None]
    if missing:
        raise ValueError(f"make_score({name!r}) needs {', '.join(missing)}")
    return SCORE_FUNCTIONS[name](**needs)
