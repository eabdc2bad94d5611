"""LSH attention (Reformer): hash queries = keys into buckets, sort, chunk, attend nearby.

Public API::

    rotations = random_rotations(dim, n_buckets, n_hashes=1, seed=0)
    #   (n_hashes, dim, n_buckets // 2): one random projection per hash round
    h = lsh_hash(x, n_buckets, n_hashes=1, seed=0)        # x (..., T, D) -> (..., n_hashes, T)
    #   h(x) = argmax([xR; −xR]): angular LSH, the same for x and c·x (c > 0)
    out, weights = shared_qk_attention(qk, v)                   # full attention with K = Q / |Q|,
    #   a token attending to itself only when it may attend to nothing else; weights (..., T, T)
    r = lsh_attention(qk, v, n_buckets, chunk_size, n_hashes=1, seed=0)
    #   r.out (..., T, Dv); r.weights / r.allowed (..., T, T) dense, for teaching (or None);
    #   r.buckets, r.order (..., n_hashes, T): each round's buckets and sort order

Shapes: R is the number of hash rounds (``n_hashes``), N the number of chunks, m the chunk size.

LSH attention, per hash round: give each position the bucket of its shared query/key vector;
sort the positions by (bucket, position); cut the sorted sequence into chunks of
``chunk_size``; every query attends to the keys of its own chunk and of the previous chunk (the
first chunk looks at the last) that are in its own bucket. With several rounds a query attends
to the union of its rounds' key sets (a key found twice counts once). Cost per round:
O(T · chunk_size · d) time and memory plus an O(T log T) sort, instead of O(T² · d).

Lecture 11; Kitaev, Kaiser & Levskaya 2020 (Reformer) section 2, eq. 2-7, Figure 2;
Andoni et al. 2015 (angular LSH).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lecturekit.masking import check_mask, masked_softmax
from lecturekit.utils.checks import check_bool, check_positive_int, check_seed, shape_of
from lecturekit.utils.contracts import contract

__all__ = [
    "SELF_SCORE",
    "random_rotations",
    "lsh_hash",
    "shared_qk_attention",
    "LSHResult",
    "lsh_attention",
]

SELF_SCORE = -1e5  # Reformer's score for a token attending to itself (only when nothing else)


def _check_buckets(n_buckets: object) -> None:
    check_positive_int("n_buckets", n_buckets)
    if n_buckets > 1 and n_buckets % 2:
        raise ValueError(
            f"n_buckets must be 1 or even (argmax over [xR; -xR] gives 2 buckets per column "
            f"of R), got {n_buckets}"
        )


def random_rotations(dim: int, n_buckets: int, n_hashes: int = 1, seed: int = 0) -> torch.Tensor:
    """Random projections R with N(0, 1) entries, one (dim, n_buckets / 2) matrix per round.

    Args:
        dim: the vectors' dimension D.
        n_buckets: buckets per round (1 or even); R has n_buckets / 2 columns.
        n_hashes: independent hash rounds.
        seed: seed of the generator (the global random state is untouched).

    Returns:
        (n_hashes, dim, n_buckets // 2) float32.

    Lecture 11; Kitaev et al. 2020 section 2 (random rotation R).
    """
    check_positive_int("dim", dim)
    _check_buckets(n_buckets)
    check_positive_int("n_hashes", n_hashes)
    check_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n_hashes, dim, n_buckets // 2, generator=gen)


@contract(x="... T D")
def lsh_hash(
    x: torch.Tensor,
    n_buckets: int,
    n_hashes: int = 1,
    seed: int = 0,
    *,
    rotations: torch.Tensor | None = None,
) -> torch.Tensor:
    """Angular LSH: h(x) = argmax([xR; −xR]). Vectors at a small angle tend to share a bucket;
    the bucket depends only on the direction of x, not on its length.

    Args:
        x: (..., T, D) vectors.
        n_buckets: buckets per round: 1 (everything in bucket 0) or even.
        n_hashes: rounds, each with its own R.
        seed: seeds ``random_rotations`` (ignored when ``rotations`` is given).
        rotations: (n_hashes, D, n_buckets // 2) tensor, e.g. from ``random_rotations``;
            converted to x's dtype (integer or float64 projections are fine).

    Returns:
        (..., n_hashes, T) int64 buckets in [0, n_buckets).

    Lecture 11; Kitaev et al. 2020 section 2, eq. after (3).
    """
    _check_buckets(n_buckets)
    check_positive_int("n_hashes", n_hashes)
    D, T = x.shape[-1], x.shape[-2]
    if rotations is None:
        rotations = random_rotations(D, n_buckets, n_hashes, seed)
    want = (n_hashes, D, n_buckets // 2)
    if not isinstance(rotations, torch.Tensor) or tuple(rotations.shape) != want:
        raise ValueError(
            f"rotations must be (n_hashes, D, n_buckets // 2) = {want}, got {shape_of(rotations)}"
        )
    if n_buckets == 1:
        return torch.zeros(*x.shape[:-2], n_hashes, T, dtype=torch.long)
    rot = rotations.to(x.dtype)
    rotated = x.unsqueeze(-3) @ rot  # (..., 1, T, D) @ (R, D, b/2) -> (..., R, T, b/2)
    return torch.cat([rotated, -rotated], dim=-1).argmax(dim=-1)  # (..., R, T, b) -> (..., R, T)


def _normalise(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True).clamp_min(1e-12)


@contract(qk="... T D", v="... T Dv", dtype="same")
def shared_qk_attention(
    qk: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None, exclude_self: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Full attention with shared queries and keys, as in the Reformer: the keys are the
    unit-length queries, k_j = q_j / |q_j|, the scores q_i · k_j / √D; a token does not attend
    to itself unless it may attend to nothing else (its q·k would dominate its row).

    Args:
        qk: (..., T, D) shared query/key vectors (floating point).
        v: (..., T, Dv) values, of qk's dtype.
        mask: optional bool tensor broadcastable to (..., T, T), True = may attend (e.g.
            ``lsh_attention(...).allowed``).
        exclude_self: apply the self rule above; False = plain attention to every key.

    Returns:
        out (..., T, Dv) and weights (..., T, T) (empty for an empty sequence, T = 0).

    Lecture 11; Kitaev et al. 2020 section 2 ("shared-QK Transformer").
    """
    check_bool("exclude_self", exclude_self)
    T, D = qk.shape[-2:]
    scores = qk @ _normalise(qk).transpose(-1, -2) / math.sqrt(D)  # (..., T, D) @ (..., D, T)
    if mask is not None:
        check_mask(mask, scores.shape)
    allowed = torch.ones(T, T, dtype=torch.bool) if mask is None else mask
    if exclude_self:
        eye = torch.eye(T, dtype=torch.bool)
        others = allowed & ~eye
        allowed = others | (eye & ~others.any(dim=-1, keepdim=True))  # self only if alone
    weights = masked_softmax(scores, allowed)  # (..., T, T)
    return weights @ v, weights  # (..., T, T) @ (..., T, Dv) -> (..., T, Dv)


@dataclass(frozen=True)
class LSHResult:
    """What ``lsh_attention`` computed, with the intermediate steps of Kitaev et al. Figure 2."""

    out: torch.Tensor  # (..., T, Dv)
    weights: torch.Tensor | None  # (..., T, T) dense attention weights (None: not requested)
    allowed: torch.Tensor | None  # (..., T, T) bool: the keys each query attends to
    buckets: torch.Tensor  # (..., n_hashes, T) bucket of each position, per round
    order: torch.Tensor  # (..., n_hashes, T) positions sorted by (bucket, position), per round
    chunk_size: int

    @property
    def n_chunks(self) -> int:
        return self.order.shape[-1] // self.chunk_size

    def sorted_buckets(self) -> torch.Tensor:
        """(..., n_hashes, T): the buckets in sorted order (non-decreasing along T)."""
        return self.buckets.gather(-1, self.order)


def _gather_rounds(x: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """x (B, T, E) in the order of each round: (B, R, T) indices -> (B, R, T, E)."""
    B, R, T = order.shape
    E = x.shape[-1]
    return x[:, None].expand(B, R, T, E).gather(2, order[..., None].expand(B, R, T, E))


def _look_back(t: torch.Tensor, n_chunks: int) -> torch.Tensor:
    """(B, R, N, m, ...) -> (B, R, N, 2m, ...): each chunk, then the previous one (chunk 0's
    previous is the last); a single chunk only sees itself."""
    if n_chunks == 1:
        return t
    return torch.cat([t, t.roll(1, dims=2)], dim=3)


@contract(qk="... T D", v="... T Dv", dtype="same")
def lsh_attention(
    qk: torch.Tensor,
    v: torch.Tensor,
    n_buckets: int,
    chunk_size: int,
    n_hashes: int = 1,
    seed: int = 0,
    *,
    rotations: torch.Tensor | None = None,
    attend_across_buckets: bool = False,
    dense_weights: bool = True,
) -> LSHResult:
    """Reformer's LSH self-attention (shared QK, no causal mask), chunk by chunk.

    Per round: bucket every position (``lsh_hash``), sort by (bucket, position), cut into
    T / chunk_size chunks; each query scores the keys of its chunk and the previous chunk with
    (unit-length) keys k_j = q_j / |q_j|, keeps those in its own bucket (all of them with
    ``attend_across_buckets``), and gives itself ``SELF_SCORE``. Rounds are merged through their
    log-sum-exps, with the scores of a key found in c rounds lowered by log c, so the result is
    exactly the softmax over the union of the rounds' keys: ``shared_qk_attention(qk, v,
    mask=r.allowed)``.

    Args:
        qk: (..., T, D) shared query/key vectors (floating point); T must be a multiple of
            chunk_size (pad the sequence otherwise, as the Reformer does). An empty sequence
            (T = 0) gives empty results.
        v: (..., T, Dv) values, of qk's dtype.
        n_buckets: buckets per round (1 or even).
        chunk_size: m, positions per chunk.
        n_hashes: hash rounds.
        seed: seeds the random rotations (unless ``rotations`` is given).
        rotations: (n_hashes, D, n_buckets // 2) to hash with.
        attend_across_buckets: also attend to keys of other buckets in the two chunks.
        dense_weights: also build the dense (T, T) ``weights`` and ``allowed`` (O(T²) memory,
            for teaching); False keeps the memory O(n_hashes · T · chunk_size).

    Returns:
        ``LSHResult`` (out, weights, allowed, buckets, order, chunk_size).

    Lecture 11; Kitaev et al. 2020 section 2 (eq. 3-7) and Figure 2.
    """
    if v.shape[:-1] != qk.shape[:-1]:
        raise ValueError(f"v must be (..., T, Dv) like qk {tuple(qk.shape)}, got {tuple(v.shape)}")
    check_positive_int("chunk_size", chunk_size)
    check_bool("attend_across_buckets", attend_across_buckets)
    check_bool("dense_weights", dense_weights)
    T, D, Dv = qk.shape[-2], qk.shape[-1], v.shape[-1]
    if T % chunk_size:
        raise ValueError(f"the length T={T} of qk {tuple(qk.shape)} is not a multiple of "
                         f"chunk_size={chunk_size}")  # fmt: skip
    batch = qk.shape[:-2]
    x = qk.reshape(math.prod(batch), T, D)  # (..., T, D) -> (B, T, D)
    vals = v.reshape(math.prod(batch), T, Dv)  # (..., T, Dv) -> (B, T, Dv)
    buckets = lsh_hash(x, n_buckets, n_hashes, seed, rotations=rotations)  # (B, R, T)
    B, R, m, N = x.shape[0], n_hashes, chunk_size, T // chunk_size
    order = (buckets * T + torch.arange(T)).argsort(dim=-1)  # (B, R, T) by (bucket, position)
    q_pos = order.view(B, R, N, m)  # original position of every sorted query
    q = _gather_rounds(x, order).view(B, R, N, m, D)  # (B, R, T, D) -> (B, R, N, m, D)
    keys = _look_back(_gather_rounds(_normalise(x), order).view(B, R, N, m, D), N)  # (.., K, D)
    values = _look_back(_gather_rounds(vals, order).view(B, R, N, m, Dv), N)  # (.., K, Dv)
    k_pos = _look_back(q_pos, N)  # (B, R, N, K) with K = 2m (m if one chunk)
    scores = q @ keys.transpose(-1, -2) / math.sqrt(D)  # (B, R, N, m, D) @ (.., D, K)

    # Which (query, key) pairs round r attends to, evaluated for the pairs of every round:
    # j's chunk is i's chunk or the one before it, and j is in i's bucket.
    rank = order.argsort(dim=-1)  # (B, R, T): where each position landed in each round's sort

    def attended_in(r: int) -> torch.Tensor:  # (B, R, N, m, K) bool
        chunk_r = (rank[:, r] // m)[:, None, None].expand(B, R, N, T)  # (B, T) -> (B, R, N, T)
        cq, ck = chunk_r.gather(-1, q_pos)[..., :, None], chunk_r.gather(-1, k_pos)[..., None, :]
        ok = (ck == cq) | (ck == (cq - 1) % N)
        if not attend_across_buckets:
            bucket_r = buckets[:, r][:, None, None].expand(B, R, N, T)
            bq, bk = bucket_r.gather(-1, q_pos), bucket_r.gather(-1, k_pos)  # (B, R, N, m / K)
            ok &= bq[..., :, None] == bk[..., None, :]
        return ok

    verdicts = [attended_in(r) for r in range(R)]
    own = torch.stack([ok[:, r] for r, ok in enumerate(verdicts)], dim=1)  # each round's pairs
    if R > 1:  # a key found in c rounds counts once: lower its score by log c in each
        scores = scores - sum(ok.to(scores.dtype) for ok in verdicts).clamp_min(1).log()
    scores = scores.masked_fill(~own, float("-inf"))
    is_self = q_pos[..., :, None] == k_pos[..., None, :]  # (B, R, N, m, K)
    scores = scores.masked_fill(is_self, SELF_SCORE)
    lse = scores.logsumexp(dim=-1, keepdim=True)  # (B, R, N, m, 1) log of each row's sum
    w = (scores - lse).exp()  # (B, R, N, m, K) softmax within the round
    o = w @ values  # (B, R, N, m, K) @ (B, R, N, K, Dv) -> (B, R, N, m, Dv)

    # Undo the sort, then merge the rounds: weight round r by exp(lse_r - logsumexp_r lse_r).
    unsort = rank[..., None]  # (B, R, T, 1)
    o = o.view(B, R, T, Dv).gather(2, unsort.expand(-1, -1, -1, Dv))  # back to positions
    lse = lse.view(B, R, T, 1).gather(2, unsort)  # (B, R, T, 1)
    coef = lse.softmax(dim=1)  # (B, R, T, 1): exp(lse_r - logsumexp(lse)), sums to 1 over R
    out = (coef * o).sum(dim=1)  # (B, R, T, Dv) -> (B, T, Dv)

    weights = dense_allowed = None
    if dense_weights:
        b = torch.arange(B).view(B, 1, 1, 1, 1)  # (B,) -> (B, 1, 1, 1, 1), the batch index
        qi, kj = q_pos[..., :, None].expand(w.shape), k_pos[..., None, :].expand(w.shape)
        coef_sorted = coef.squeeze(-1).gather(2, order).view(B, R, N, m, 1)  # (B, R, T) sorted
        weights = torch.zeros(B, T, T, dtype=w.dtype)
        weights.index_put_((b.expand(w.shape), qi, kj), w * coef_sorted, accumulate=True)
        dense_allowed = torch.zeros(B, T, T, dtype=torch.bool)
        dense_allowed[b.expand(w.shape)[own], qi[own], kj[own]] = True
        eye = torch.eye(T, dtype=torch.bool)
        others = dense_allowed & ~eye
        dense_allowed = others | (eye & ~others.any(dim=-1, keepdim=True))  # self only if alone
        weights = weights.view(*batch, T, T)  # (B, T, T) -> (..., T, T)
        dense_allowed = dense_allowed.view(*batch, T, T)
    return LSHResult(  # (B, ...) -> (..., ...): the caller's batch dims back
        out.view(*batch, T, Dv),
        weights,
        dense_allowed,
        buckets.view(*batch, R, T),
        order.view(*batch, R, T),
        chunk_size,
    )
