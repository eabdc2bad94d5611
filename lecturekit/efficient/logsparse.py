"""LogSparse attention (Li et al. 2019): causal attention where position i looks only at itself
and at the positions i − 1, i − 2, i − 4, i − 8, ... ("does not directly attend to all previous
tokens"), so one layer costs O(n log n) instead of O(n²), and log2 n stacked layers still let
information travel from every position to every later one.

Public API::

    logsparse_mask(n, local=0)                # (n, n) bool: j = i, or i − j a power of 2,
    #   or (local > 0) i − local <= j <= i: the "local + log-spaced" variant
    logsparse_offsets(n, local=0)             # [0, 1, 2, 4, ...]: the distances looked back
    idx, valid = logsparse_indices(n, local=0)   # (n, K) key positions per query, (n, K) bool
    out, weights = logsparse_attention(q, k, v, local=0)         # gathered: O(n K d), K ~ log2 n
    #   q, k (..., n, Dk), v (..., n, Dv) -> out (..., n, Dv), weights (..., n, K) on idx
    out, weights = logsparse_dense_attention(q, k, v, local=0)   # the (n, n) masked version
    reach = reachable(mask, layers)           # (n, n) bool: j reaches i through `layers` layers
    layers_to_reach_all(n, local=0)           # fewest layers until every j <= i reaches i

Lecture 11b; Li et al. 2019 section 3.3 (LogSparse Transformer, Figure 3).
"""

from __future__ import annotations

import math

import torch

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.masking import masked_softmax
from lecturekit.utils.checks import check_non_negative_int, check_positive_int, check_tensor
from lecturekit.utils.contracts import contract

__all__ = [
    "logsparse_mask",
    "logsparse_offsets",
    "logsparse_indices",
    "logsparse_attention",
    "logsparse_dense_attention",
    "reachable",
    "layers_to_reach_all",
]


def logsparse_mask(
    n: int, local: int = 0, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """The LogSparse causal mask: query i may attend to key j iff j = i or i − j = 2^k for some
    k >= 0 (and, with ``local`` > 0, every j with i − local <= j <= i).

    Args:
        n: sequence length (>= 1).
        local: how many immediate predecessors each query also sees (0 = pure LogSparse).
        device: where to create the mask.

    Returns:
        (n, n) bool, True = may attend; row i has at most 1 + floor(log2 i) + local entries.

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    check_positive_int("n", n)
    check_non_negative_int("local", local)
    i = torch.arange(n, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    gap = i - j  # (n, n)
    power = (gap > 0) & ((gap & (gap - 1)) == 0)  # 1, 2, 4, 8, ...
    return (gap == 0) | power | ((gap >= 0) & (gap <= local))


def logsparse_offsets(n: int, local: int = 0) -> list[int]:
    """The distances i − j a query looks back in a sequence of n: 0, 1, ..., local and the powers
    of 2 below n, sorted (K = len of them: 1 + local + the powers of 2 above local).

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    check_positive_int("n", n)
    check_non_negative_int("local", local)
    powers = {1 << k for k in range(max(n - 1, 1).bit_length()) if (1 << k) < n}
    return sorted(set(range(min(local, n - 1) + 1)) | powers)


def logsparse_indices(n: int, local: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The keys of each query of ``logsparse_mask`` as a table, for gathering, built in
    O(n log n) without the (n, n) mask.

    Returns:
        idx (n, K) long key positions i − offset (0 where invalid) and valid (n, K) bool, with
        the K offsets of ``logsparse_offsets(n, local)`` (the query itself first).

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    offsets = torch.tensor(logsparse_offsets(n, local))  # (K,)
    table = torch.arange(n)[:, None] - offsets[None, :]  # (n, K)
    valid = table >= 0
    return table.clamp_min(0), valid


@contract(q="... n>0 Dk", k="... n Dk", v="... n Dv", dtype="same")
def logsparse_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, local: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """LogSparse attention by gathering each query's K ~ log2 n keys: the scores are a batched
    (1, Dk) @ (Dk, K) product per query, so FLOPs and memory grow as n log n, not n².

    Args:
        q: (..., n, Dk) queries; k: (..., n, Dk) keys; v: (..., n, Dv) values (one dtype).
        local: as in ``logsparse_mask``.

    Returns:
        out (..., n, Dv) and weights (..., n, K) on the keys ``logsparse_indices(n, local)[0]``
        (0 on invalid slots). Equal to ``logsparse_dense_attention`` up to rounding.

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    check_non_negative_int("local", local)
    n, Dk = q.shape[-2], q.shape[-1]
    idx, valid = logsparse_indices(n, local)  # (n, K)
    kg = k[..., idx, :]  # (..., n, Dk) -> (..., n, K, Dk)
    vg = v[..., idx, :]  # (..., n, K, Dv)
    scores = (q.unsqueeze(-2) @ kg.transpose(-1, -2)).squeeze(-2) / math.sqrt(Dk)  # (..., n, K)
    weights = masked_softmax(scores, valid)  # (..., n, K)
    # (..., n, 1, K) @ (..., n, K, Dv) -> (..., n, Dv)
    out = (weights.unsqueeze(-2) @ vg).squeeze(-2)
    return out, weights


@contract(q="... n>0 Dk", k="... n Dk", v="... n Dv", dtype="same")
def logsparse_dense_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, local: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """The teaching version: full attention with ``logsparse_mask`` (O(n²) like full attention).

    Returns:
        out (..., n, Dv) and weights (..., n, n), zero outside the mask.

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    check_non_negative_int("local", local)
    return scaled_dot_product_attention(q, k, v, logsparse_mask(q.shape[-2], local))


def reachable(mask: torch.Tensor, layers: int) -> torch.Tensor:
    """Which inputs can influence which outputs after stacking ``layers`` attention layers that
    share one mask (with residual connections, so a position always keeps itself).

    Args:
        mask: (n, n) bool, [i, j] = query i attends to key j.
        layers: how many layers (>= 1).

    Returns:
        (n, n) bool, [i, j] = position j's input reaches position i's output.

    Lecture 11b; Li et al. 2019 section 3.3 ("the information can flow ... in log2 L layers").
    """
    check_tensor("mask", mask, ndim=2, wanted="(n, n) bool")
    if mask.dtype != torch.bool or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be a square bool (n, n) tensor, got {tuple(mask.shape)} "
                         f"{mask.dtype}")  # fmt: skip
    check_positive_int("layers", layers)
    step = _one_layer(mask)
    reach = step
    for _ in range(layers - 1):
        reach = _next_layer(reach, step)
    return reach.bool()


def _one_layer(mask: torch.Tensor) -> torch.Tensor:
    """(n, n) 0/1 float: who reaches whom through one layer (the mask, plus itself)."""
    return (mask | torch.eye(mask.shape[0], dtype=torch.bool, device=mask.device)).float()


def _next_layer(reach: torch.Tensor, step: torch.Tensor) -> torch.Tensor:
    """One more layer: 0/1 float matrices, multiplied in float32 (exact: the counts stay far
    below 2^24; an int64 matrix product has no fast kernel on the CPU: minutes at n = 1024)."""
    return ((reach @ step) > 0).float()


def layers_to_reach_all(n: int, local: int = 0) -> int:
    """The fewest stacked LogSparse layers after which every position j <= i reaches i.

    Lecture 11b; Li et al. 2019 section 3.3.
    """
    check_positive_int("n", n)
    step = _one_layer(logsparse_mask(n, local))
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    reach, layers = step, 1
    while not torch.equal(reach.bool(), causal):  # one more layer at a time
        reach, layers = _next_layer(reach, step), layers + 1
    return layers
