"""Attention: the scoring functions, scaled dot-product attention, multi-head attention.

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
    out, weights = mha.attend(q, k, v, mask)          # forward = these three
    cache = KVCache()                                 # keys and values seen so far
    out, weights = mha(x_t, x_t, x_t, cache=cache)    # decoding: projects the new position,
                                                      # attends to all (lecturekit.kv_cache)

    # Scoring functions: score(query (..., Tq, Dq), keys (..., Tk, Dk)) -> scores (..., Tq, Tk)
    # the six of lecture 02's slides (SCORE_FUNCTIONS; the seq2seq models take any of them):
    DotScore(), ScaledDotScore(), GeneralScore(query_dim, key_dim),
    AdditiveScore(query_dim, key_dim, hidden_dim), CosineScore(), LocationScore(query_dim, max_len)
    # and two more that two decks list (EXTRA_SCORE_FUNCTIONS):
    LinearAdditiveScore(query_dim, key_dim)           # w_q . s + w_k . h (Gaussier)
    MLPScore(query_dim, key_dim, hidden_dim, num_layers=2, bias=True)   # MLP([s; h]) (CMU)
    make_score(name, ...)                 # name in SCORE_FUNCTIONS or EXTRA_SCORE_FUNCTIONS
    context, weights = score.attend(query, keys, values, mask=None)

    split_heads(x, num_heads)  # (B, T, D) -> (B, H, T, Dh);  merge_heads(x): the inverse

Masks follow lecturekit.masking: bool, True = may attend; a fully masked row gets zero
weights and a zero output (as in torch.nn.functional.scaled_dot_product_attention). A float
mask is rejected with how to convert it (an additive 0/-inf mask: ``mask == 0``).

Dtypes: the parameter-free functions (``scaled_dot_product_attention``, ``DotScore``,
``ScaledDotScore``, ``CosineScore``) take floating tensors of any one dtype (float32, float64,
...), shared by all their inputs; an integer tensor (e.g. the slides' integer vectors typed in)
is rejected with "convert with q.float()". Modules with weights (``MultiHeadAttention``,
``GeneralScore``, ``AdditiveScore``, ``LocationScore``, ``LinearAdditiveScore``, ``MLPScore``)
take floating input of their weights' dtype (a float64 array from numpy gets "pass
query.float()"; ``LocationScore`` reads only the keys' length). ``split_heads`` /
``merge_heads`` are pure reshapes: any dtype.

Inputs are checked where a call enters lecturekit (``lecturekit.utils.contracts``: each entry
point declares its shapes above its code); lecturekit's own calls are trusted.

Sizes: a feature dimension of size 0 (d_k = 0) is rejected (it would give 0/0 = NaN). Empty
sequences are legitimate: Tq = 0 gives an empty output (..., 0, Dv); Tk = 0 (no keys) gives
all-zero outputs, like a fully masked row (torch's scaled_dot_product_attention does the
same).

Lectures 02-04; Vaswani et al. 2017 eq. 1 and section 3.2.2; Luong et al. 2015 section 3.1;
Bahdanau et al. 2015 eq. 6; Graves et al. 2014 (cosine); Gaussier's and the CMU deck's lists of
scoring functions (linear additive similarity, MLP).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from lecturekit.masking import masked_softmax
from lecturekit.utils.checks import (
    check_bool,
    check_positive_int,
    check_range,
    check_same_dtype,
)
from lecturekit.utils.contracts import check_shapes, contract
from lecturekit.utils.weights import load_torch_attention

KV = tuple[torch.Tensor, torch.Tensor]  # keys, values, each (B, H, T, Dh)

__all__ = [
    "scaled_dot_product_attention",
    "MultiHeadAttention",
    "split_heads",
    "merge_heads",
    "KVCache",
    "check_torch_mha",
    "Score",
    "DotScore",
    "ScaledDotScore",
    "GeneralScore",
    "AdditiveScore",
    "CosineScore",
    "LocationScore",
    "LinearAdditiveScore",
    "MLPScore",
    "SCORE_FUNCTIONS",
    "EXTRA_SCORE_FUNCTIONS",
    "make_score",
]


def _attend(
    scores: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(scores + M) over keys, then the weighted sum of the values."""
    weights = masked_softmax(scores, mask)  # (..., Tq, Tk)
    return weights @ values, weights  # (..., Tq, Tk) @ (..., Tk, Dv) -> (..., Tq, Dv)


@contract(q="... Tq Dk>0", k="... Tk Dk", v="... Tk Dv>0", dtype="same")
def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V.

    Args:
        q: (..., Tq, Dk) queries; floating, Dk > 0.
        k: (..., Tk, Dk) keys, of q's dtype.
        v: (..., Tk, Dv) values, of q's dtype.
        mask: bool, broadcastable to (..., Tq, Tk), True = may attend; None = attend everywhere.

    Returns:
        out (..., Tq, Dv) and weights (..., Tq, Tk); each row of weights sums to 1
        (a fully masked row is all zeros, and so is every row when Tk = 0).

    Lecture 03; Vaswani et al. 2017 eq. 1.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Tq, Dk) @ (..., Dk, Tk)
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None and scores.shape[:-2] != batch:
        scores = scores.expand(*batch, *scores.shape[-2:])
    return _attend(scores, v, mask)


@contract(x="any: B T D")
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, T, D) -> (B, H, T, Dh) with Dh = D / H. A pure reshape: any dtype.

    Lecture 04.
    """
    check_positive_int("num_heads", num_heads)
    B, T, D = x.shape
    if D % num_heads:
        raise ValueError(f"d_model={D} is not divisible by num_heads={num_heads}")
    return x.view(B, T, num_heads, D // num_heads).transpose(1, 2)  # (B,T,H,Dh) -> (B,H,T,Dh)


@contract(x="any: B H T Dh")
def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, H, T, Dh) -> (B, T, H*Dh): the concatenation of the heads. Any dtype.

    Lecture 04.
    """
    B, H, T, Dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * Dh)  # (B,H,T,Dh) -> (B,T,H,Dh) -> (B,T,D)


class KVCache:
    """The keys and values one attention layer has computed so far, each (B, H, T, Dh).

    Decoding token by token, position t's keys and values never change, so each step projects
    the new position only and ``update`` appends it. A ``static`` cache holds the keys and values
    of a fixed memory (cross-attention over the encoder output): filled on the first call,
    then reused as they are. ``MultiHeadAttention.forward(..., cache=...)`` uses it.

    Lectures 10 and 14.
    """

    def __init__(self, keys: torch.Tensor | None = None, values: torch.Tensor | None = None,
                 *, static: bool = False):  # fmt: skip
        if (keys is None) != (values is None):
            raise ValueError("keys and values must be given together (or neither)")
        check_shapes({"keys": keys, "values": values}, {"keys": "B H T Dh", "values": "B H T Dh"})
        self.keys, self.values, self.static = keys, values, check_bool("static", static)

    def update(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (B, H, T_new, Dh); return all the keys and values (B, H, T + T_new, Dh)."""
        if self.keys is not None:
            self.check_fits(k)
            k = torch.cat([self.keys, k], dim=2)  # (B, H, T, Dh) + (B, H, T_new, Dh)
            v = torch.cat([self.values, v], dim=2)
        self.keys, self.values = k, v
        return k, v

    def check_fits(self, k: torch.Tensor) -> None:
        """Raise ValueError unless keys k (B, H, T, Dh) have this cache's batch, heads, head
        size and dtype (B of 1 also fits a static cache: one memory for every hypothesis)."""
        (B, H, _, Dh), (b, h, _, dh) = self.keys.shape, k.shape
        batch_fits = b == B or (self.static and B == 1)
        if (h, dh) != (H, Dh) or not batch_fits or k.dtype != self.keys.dtype:
            raise ValueError(f"cache holds keys (B={B}, H={H}, T, Dh={Dh}) of {self.keys.dtype}, "
                             f"the attention's are {tuple(k.shape)} of {k.dtype}: a cache serves "
                             "one attention layer and one batch")  # fmt: skip


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V).

    Args:
        d_model: model width D; must be divisible by num_heads.
        num_heads: H.
        bias: whether the four projections have biases (torch.nn.MultiheadAttention's default).
        dropout: on the attention weights during training, in [0, 1) (the returned weights are
            the distribution before dropout).

    Inputs are floating tensors of the weights' dtype; T = 0 gives an empty output. Masks are
    bool, broadcastable to (B, H, Tq, Tk), True = may attend (a (B, Tk) padding mask goes
    through ``lecturekit.masking.key_padding_mask`` first).

    Lecture 04; Vaswani et al. 2017 section 3.2.2.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True, *, dropout: float = 0.0):
        super().__init__()
        check_positive_int("d_model", d_model), check_positive_int("num_heads", num_heads)
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        check_bool("bias", bias), check_range("dropout", dropout, 0, 1, high_open=True)
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    @contract(query="B Tq d_model", key="B Tk d_model", value="B Tk d_model")
    def forward(self, query: torch.Tensor, key: torch.Tensor | None, value: torch.Tensor | None,
                mask: torch.Tensor | None = None, cache: KVCache | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        """query (B, Tq, D), key and value (B, Tk, D) -> out (B, Tq, D), weights (B, H, Tq, Tk).

        ``cache``: the keys and values of earlier positions, extended by this call's (a static
        cache, once filled, replaces key and value, which may then be None).
        """
        q = self.project_queries(query)  # (B, Tq, D) -> (B, H, Tq, Dh)
        if cache is not None and cache.static and cache.keys is not None:
            cache.check_fits(q)
            return self.attend(q, cache.keys, cache.values, mask)
        if key is None or value is None:
            raise ValueError("key and value must be (B, Tk, D) tensors, got None (only a filled "
                             "static cache may stand in for them)")  # fmt: skip
        k, v = self.project_keys_values(key, value)  # (B, Tk, D) -> (B, H, Tk, Dh) each
        if cache is not None:
            k, v = cache.update(k, v)  # -> (B, H, T_past + Tk, Dh) each
        return self.attend(q, k, v, mask)

    @contract(query="B Tq d_model")
    def project_queries(self, query: torch.Tensor) -> torch.Tensor:
        """Q = query W^Q, split into heads: (B, Tq, D) -> (B, H, Tq, Dh)."""
        return split_heads(self.w_q(query), self.num_heads)

    @contract(key="B Tk d_model", value="B Tk d_model")
    def project_keys_values(self, key: torch.Tensor, value: torch.Tensor) -> KV:
        """K = key W^K and V = value W^V, split into heads: (B, Tk, D) -> (B, H, Tk, Dh) each."""
        H = self.num_heads
        return split_heads(self.w_k(key), H), split_heads(self.w_v(value), H)

    @contract(q="B H=num_heads Tq Dh=head_dim", k="B H=num_heads Tk Dh=head_dim",
              v="B H=num_heads Tk Dh=head_dim")  # fmt: skip
    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
               mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        """concat_h(softmax(q_h k_h^T / sqrt(Dh) + M) v_h) W^O on projected heads:
        q (B, H, Tq, Dh), k and v (B, H, Tk, Dh) -> out (B, Tq, D), weights (B, H, Tq, Tk)."""
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # -> (B, H, Tq, Tk)
        weights = masked_softmax(scores, mask)
        heads = self.dropout(weights) @ v  # (B, H, Tq, Tk) @ (B, H, Tk, Dh) -> (B, H, Tq, Dh)
        return self.w_o(merge_heads(heads)), weights  # (B, H, Tq, Dh) -> (B, Tq, D)

    def load_from_torch(self, torch_mha: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy a ``torch.nn.MultiheadAttention`` of the same configuration; its outputs then
        equal ours (its bool masks mean the opposite: True = may NOT attend). Fields that change
        the function must match, else ValueError naming one, and nothing is copied."""
        check_torch_mha(self, torch_mha)
        return load_torch_attention(self, torch_mha)


def check_torch_mha(ours: MultiHeadAttention, torch_mha: object, name: str = "torch_mha") -> None:
    """Raise ValueError unless ``torch_mha`` computes the same function as ``ours``: embed_dim,
    num_heads, kdim = vdim = embed_dim, add_bias_kv=False, add_zero_attn=False, bias and
    batch_first=True (lecturekit is batch-first) are compared; dropout is not (it does nothing
    in eval mode)."""
    if not isinstance(torch_mha, nn.MultiheadAttention):
        raise ValueError(
            f"{name} must be a torch.nn.MultiheadAttention, got {type(torch_mha).__name__}"
        )
    if (torch_mha.embed_dim, torch_mha.num_heads) != (ours.d_model, ours.num_heads):
        raise ValueError(
            f"{name} has embed_dim={torch_mha.embed_dim}, num_heads={torch_mha.num_heads};"
            f" this module has d_model={ours.d_model}, num_heads={ours.num_heads}"
        )
    if not torch_mha._qkv_same_embed_dim or torch_mha.bias_k is not None:
        raise ValueError(f"{name} must use kdim = vdim = embed_dim and add_bias_kv=False")
    if torch_mha.add_zero_attn:
        raise ValueError(
            f"{name} has add_zero_attn=True (an extra all-zero key and value), this module "
            "has add_zero_attn=False"
        )
    has_bias, bias = torch_mha.in_proj_bias is not None, ours.w_q.bias is not None
    if has_bias != bias:
        raise ValueError(f"{name} has bias={has_bias}, this module has bias={bias}")
    if not torch_mha.batch_first:
        raise ValueError(
            f"{name} has batch_first=False (inputs (T, B, D)), this module is batch-first "
            "(B, T, D): build the torch module with batch_first=True"
        )


# ----------------------------------------------------------------------------------------------
# The six scoring functions of lecture 02's slides: score(s, h) between a query s and each key h.
# ----------------------------------------------------------------------------------------------


class Score(nn.Module):
    """Base class: ``forward(query (..., Tq, Dq), keys (..., Tk, Dk)) -> scores (..., Tq, Tk)``.

    ``attend`` turns scores into weights (softmax over keys, masked) and a context vector.

    Lecture 02.
    """

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError

    def attend(
        self,
        query: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns context (..., Tq, Dv) and weights (..., Tq, Tk).

        values (..., Tk, Dv) must have the query's dtype; mask as in
        ``scaled_dot_product_attention``.
        """
        specs = {**type(self).forward.__contract__, "values": "... Tk Dv>0"}
        check_shapes({"query": query, "keys": keys, "values": values}, specs, owner=self)
        check_same_dtype("values", values, "query", query)
        return _attend(self(query, keys), values, mask)


class DotScore(Score):
    """score(s, h) = s . h  (Luong "dot"). Lecture 02; Luong et al. 2015 eq. 8."""

    @contract(query="... Tq D>0", keys="... Tk D")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ keys.transpose(-2, -1)  # (..., Tq, D) @ (..., D, Tk) -> (..., Tq, Tk)


class ScaledDotScore(Score):
    """score(s, h) = s . h / sqrt(d). Lecture 02; Vaswani et al. 2017 eq. 1."""

    @contract(query="... Tq D>0", keys="... Tk D")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ keys.transpose(-2, -1) / math.sqrt(query.shape[-1])  # -> (..., Tq, Tk)


class GeneralScore(Score):
    """score(s, h) = s^T W h with a learned W (Dq, Dk)  (Luong "general").

    Lecture 02; Luong et al. 2015 eq. 8.
    """

    def __init__(self, query_dim: int, key_dim: int):
        super().__init__()
        check_positive_int("query_dim", query_dim)
        check_positive_int("key_dim", key_dim)
        self.query_dim, self.key_dim = query_dim, key_dim
        self.W = nn.Linear(key_dim, query_dim, bias=False)  # h -> W h, weight (Dq, Dk)

    @contract(query="... Tq query_dim", keys="... Tk key_dim")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ self.W(keys).transpose(-2, -1)  # (..., Tq, Dq) @ (..., Dq, Tk)


class AdditiveScore(Score):
    """score(s, h) = v^T tanh(W [s; h])  (Bahdanau "additive", Luong "concat").

    W (A, Dq + Dk) acts on the concatenation [s; h]; it is computed as W_s s + W_h h (the two
    column blocks of W), which avoids materialising every (query, key) concatenation.

    Lecture 02; Bahdanau et al. 2015 eq. 6 / Luong et al. 2015 eq. 8.
    """

    def __init__(self, query_dim: int, key_dim: int, hidden_dim: int):
        super().__init__()
        check_positive_int("query_dim", query_dim)
        check_positive_int("key_dim", key_dim)
        check_positive_int("hidden_dim", hidden_dim)
        self.query_dim, self.key_dim = query_dim, key_dim
        self.W = nn.Linear(query_dim + key_dim, hidden_dim, bias=False)
        self.v = nn.Linear(hidden_dim, 1, bias=False)

    @contract(query="... Tq query_dim", keys="... Tk key_dim")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        W_s, W_h = self.W.weight.split([self.query_dim, self.key_dim], dim=1)  # (A,Dq), (A,Dk)
        s = query @ W_s.T  # (..., Tq, Dq) -> (..., Tq, A)
        h = keys @ W_h.T  # (..., Tk, Dk) -> (..., Tk, A)
        hidden = torch.tanh(s.unsqueeze(-2) + h.unsqueeze(-3))  # -> (..., Tq, Tk, A)
        return self.v(hidden).squeeze(-1)  # (..., Tq, Tk, A) -> (..., Tq, Tk)


class CosineScore(Score):
    """score(s, h) = cos(s, h) = s . h / (|s| |h|), each norm clamped to at least ``eps`` > 0
    (a zero vector scores 0). Lecture 02; Graves et al. 2014 eq. 6."""

    def __init__(self, eps: float = 1e-8):
        super().__init__()
        self.eps = check_range("eps", eps, 0, math.inf, low_open=True, high_open=True)

    @contract(query="... Tq D>0", keys="... Tk D")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
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
        check_positive_int("query_dim", query_dim)
        check_positive_int("max_len", max_len)
        self.query_dim, self.max_len = query_dim, max_len
        self.W = nn.Linear(query_dim, max_len, bias=False)

    @contract(query="... Tq query_dim", keys="any: ... Tk Dk>0")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        Tk = keys.shape[-2]
        if Tk > self.max_len:
            raise ValueError(f"keys have length Tk={Tk} > max_len={self.max_len}")
        scores = self.W(query)[..., :Tk]  # (..., Tq, Dq) -> (..., Tq, max_len) -> (..., Tq, Tk)
        batch = torch.broadcast_shapes(query.shape[:-2], keys.shape[:-2])
        return scores.expand(*batch, *scores.shape[-2:])


# ----------------------------------------------------------------------------------------------
# Two more scoring functions that two of the decks list (lecture 02, "Two more from the decks").
# ----------------------------------------------------------------------------------------------


class LinearAdditiveScore(Score):
    """score(s, h) = w_q . s + w_k . h  (Gaussier's "additive similarity" w_q^T q + w_k^T k).

    The learned vectors w_q (Dq,) and w_k (Dk,) are kept as one linear map W (1, Dq + Dk) on
    the concatenation [s; h] (``w_q``, ``w_k`` read its two halves): the additive score
    v^T tanh(W [s; h]) without its tanh (v then folds into W).

    The query's term w_q . s is the same for every key, so the softmax over the keys cancels it:
    the weights softmax_i(w_k . h_i) do not depend on the query at all, only on the keys. That
    is why Bahdanau's additive score puts a tanh between, v^T tanh(W_s s + W_h h).

    Lecture 02; Gaussier's deck, "Retrieval in a database".
    """

    def __init__(self, query_dim: int, key_dim: int):
        super().__init__()
        check_positive_int("query_dim", query_dim)
        check_positive_int("key_dim", key_dim)
        self.query_dim, self.key_dim = query_dim, key_dim
        self.W = nn.Linear(query_dim + key_dim, 1, bias=False)  # [s; h] -> w_q . s + w_k . h

    @property
    def w_q(self) -> torch.Tensor:
        """The query's vector w_q (Dq,): a view of W's first Dq columns."""
        return self.W.weight[0, : self.query_dim]

    @property
    def w_k(self) -> torch.Tensor:
        """The keys' vector w_k (Dk,): a view of W's last Dk columns."""
        return self.W.weight[0, self.query_dim :]

    @contract(query="... Tq query_dim", keys="... Tk key_dim")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        s = query @ self.w_q  # (..., Tq, Dq) @ (Dq,) -> (..., Tq): one number per query
        h = keys @ self.w_k  # (..., Tk, Dk) @ (Dk,) -> (..., Tk): one number per key
        return s.unsqueeze(-1) + h.unsqueeze(-2)  # (..., Tq, 1) + (..., 1, Tk) -> (..., Tq, Tk)


class MLPScore(Score):
    """score(s, h) = MLP([s; h]): ``num_layers`` tanh layers of ``hidden_dim`` units on the
    concatenation [s; h], then a linear output v (the CMU deck's g(h_i, s_{t-1}) =
    MLP([h_i, s_{t-1}]); which vector comes first in the concatenation only permutes the first
    layer's columns).

    The output v has no bias: a constant added to every key's score cancels in the softmax.
    With ``num_layers=1`` and ``bias=False`` this is exactly ``AdditiveScore``,
    v^T tanh(W [s; h]), with the same parameter names (``W``, ``v``), so an AdditiveScore's
    ``state_dict`` loads into it. The default, two layers with biases, is the additive score
    with one more hidden layer. The first layer is computed as W_s s + W_h h, as in
    AdditiveScore; every later layer acts on the (..., Tq, Tk, A) hidden tensor.

    Args:
        query_dim: Dq; key_dim: Dk; hidden_dim: A, the width of every hidden layer.
        num_layers: the number of tanh layers (>= 1).
        bias: whether the hidden layers have biases (the output v never has one).

    Lecture 02; the CMU deck, "Attention weights" (typical options for g).
    """

    def __init__(
        self,
        query_dim: int,
        key_dim: int,
        hidden_dim: int,
        *,
        num_layers: int = 2,
        bias: bool = True,
    ):
        super().__init__()
        check_positive_int("query_dim", query_dim)
        check_positive_int("key_dim", key_dim)
        check_positive_int("hidden_dim", hidden_dim)
        check_positive_int("num_layers", num_layers)
        check_bool("bias", bias)
        self.query_dim, self.key_dim = query_dim, key_dim
        self.W = nn.Linear(query_dim + key_dim, hidden_dim, bias=bias)  # first layer, on [s; h]
        self.hidden = nn.ModuleList(
            nn.Linear(hidden_dim, hidden_dim, bias=bias) for _ in range(num_layers - 1)
        )
        self.v = nn.Linear(hidden_dim, 1, bias=False)

    @contract(query="... Tq query_dim", keys="... Tk key_dim")
    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        W_s, W_h = self.W.weight.split([self.query_dim, self.key_dim], dim=1)  # (A,Dq), (A,Dk)
        s = query @ W_s.T  # (..., Tq, Dq) -> (..., Tq, A)
        h = keys @ W_h.T  # (..., Tk, Dk) -> (..., Tk, A)
        x = s.unsqueeze(-2) + h.unsqueeze(-3)  # -> (..., Tq, Tk, A): W [s; h] for every pair
        if self.W.bias is not None:
            x = x + self.W.bias
        x = torch.tanh(x)
        for layer in self.hidden:
            x = torch.tanh(layer(x))  # (..., Tq, Tk, A) -> (..., Tq, Tk, A)
        return self.v(x).squeeze(-1)  # (..., Tq, Tk, A) -> (..., Tq, Tk)


SCORE_FUNCTIONS: dict[str, type[Score]] = {
    "dot": DotScore,
    "scaled_dot": ScaledDotScore,
    "general": GeneralScore,
    "additive": AdditiveScore,
    "cosine": CosineScore,
    "location": LocationScore,
}  # the six scoring functions of lecture 02's slides; the seq2seq models take any of them

EXTRA_SCORE_FUNCTIONS: dict[str, type[Score]] = {
    "linear_additive": LinearAdditiveScore,
    "mlp": MLPScore,
}  # two more from the decks (Gaussier; CMU): make_score builds them too


def make_score(
    name: str,
    query_dim: int | None = None,
    key_dim: int | None = None,
    *,
    hidden_dim: int | None = None,
    max_len: int | None = None,
) -> Score:
    """Build a scoring function by name, passing only the sizes it needs: one of the six of
    ``SCORE_FUNCTIONS`` ("dot", "scaled_dot", "general", "additive", "cosine", "location") or
    of the two of ``EXTRA_SCORE_FUNCTIONS`` ("linear_additive", "mlp", with its defaults: two
    tanh layers with biases).

    Lecture 02.
    """
    known = SCORE_FUNCTIONS | EXTRA_SCORE_FUNCTIONS
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"name={name!r} is not one of {sorted(known)}")
    needs = {
        "general": {"query_dim": query_dim, "key_dim": key_dim},
        "additive": {"query_dim": query_dim, "key_dim": key_dim, "hidden_dim": hidden_dim},
        "location": {"query_dim": query_dim, "max_len": max_len},
        "linear_additive": {"query_dim": query_dim, "key_dim": key_dim},
        "mlp": {"query_dim": query_dim, "key_dim": key_dim, "hidden_dim": hidden_dim},
    }.get(name, {})
    missing = [k for k, v in needs.items() if v is None]
    if missing:
        raise ValueError(f"make_score({name!r}) needs {', '.join(missing)}")
    return known[name](**needs)
