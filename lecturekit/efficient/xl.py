"""Transformer-XL's segment-level recurrence: attend to a cached, stop-gradient memory.

Public API::

    memory_mask(T, M)                                  # (T, M + T) bool: all memory + causal
    layer = MemoryAttentionLayer(d_model, num_heads, d_ff=None)
    out, weights = layer(x, memory=None)               # x (B, T, D), memory (B, M, D)
    #   keys/values = [memory; x]; weights (B, H, T, M + T)
    new_memory = update_memory(memory, hidden, mem_len, stop_gradient=True)
    r = segment_recurrence(layers, x, segment_len, mem_len=None, stop_gradient=True)
    #   x (B, N, D) cut into segments of segment_len; r.out (B, N, D),
    #   r.weights[s][l] (B, H, L, M_s + L), r.memories[l] (B, M, D)
    context_start(t, num_layers, segment_len, mem_len)  # earliest input position output t sees
    dependency_matrix(layers, x, segment_len, mem_len, kind="forward" | "gradient")
    #   (N, N) bool: does output t change with input p / does a gradient flow from t to p?

For each layer l, the memory used with segment s is the input of layer l (the hidden states of
layer l - 1) on the previous segment(s), concatenated and cut to the last ``mem_len`` positions
and detached: ``SG(...)`` in Dai et al. eq. 1, so no gradient flows into earlier segments. The
context still grows with depth: with mem_len = segment_len = L, output position i of a segment
depends on inputs up to N · L + i positions back after N layers.

Positions: this module adds no positional information; Transformer-XL uses relative positional
encodings (absolute ones would repeat 0..L-1 in every segment; see lecture 11).

Lecture 11; Dai et al. 2019 (Transformer-XL) section 3.2, eq. 1, Figure 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.utils.checks import check_bool, check_non_negative_int, check_positive_int, shape_of
from lecturekit.utils.contracts import check_shapes, contract

__all__ = [
    "memory_mask",
    "MemoryAttentionLayer",
    "update_memory",
    "SegmentRecurrence",
    "segment_recurrence",
    "context_start",
    "dependency_matrix",
]


def memory_mask(T: int, M: int) -> torch.Tensor:
    """Query t of the segment may attend to every memory position and to positions 0..t of the
    segment.

    Args:
        T: segment length (0: an empty (0, M) mask); M: memory length.

    Returns:
        (T, M + T) bool, True = may attend (columns: memory first, then the segment).

    Lecture 11; Dai et al. 2019 section 3.2.
    """
    check_non_negative_int("T", T)
    check_non_negative_int("M", M)
    return torch.cat([torch.ones(T, M, dtype=torch.bool), torch.ones(T, T).tril().bool()], dim=1)


class MemoryAttentionLayer(nn.Module):
    """A pre-norm Transformer layer whose causal self-attention also reads a memory:
    h = x + MHA(LN(x), LN([m; x]), LN([m; x])), out = h + FFN(LN(h)).

    Args:
        d_model: width D; num_heads: H (must divide D).
        d_ff: hidden width of the feed-forward block (default 4 D).

    Lecture 11; Dai et al. 2019 eq. 1 (without relative positions).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int | None = None):
        super().__init__()
        check_positive_int("d_model", d_model)
        d_ff = 4 * d_model if d_ff is None else d_ff
        check_positive_int("d_ff", d_ff)
        self.d_model = d_model
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    @contract(x="B T d_model", memory="B M d_model")
    def forward(
        self, x: torch.Tensor, memory: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Args:
            x: (B, T, D) the current segment (this layer's input).
            memory: (B, M, D) cached hidden states of earlier segments, or None (M = 0).
                It is used as given: ``update_memory`` is where the gradient is stopped.

        Both must be floating point of the layer's dtype (float32 unless converted).

        Returns:
            out (B, T, D) and weights (B, H, T, M + T).
        """
        if memory is None:
            memory = x.new_zeros(x.shape[0], 0, self.d_model)
        T, M = x.shape[1], memory.shape[1]
        context = self.norm1(torch.cat([memory, x], dim=1))  # (B, M + T, D)
        a, weights = self.attn(context[:, M:], context, context, memory_mask(T, M))
        h = x + a  # (B, T, D)
        return h + self.ff(self.norm2(h)), weights


@contract(hidden="B T D", memory="B M D", dtype="same")
def update_memory(
    memory: torch.Tensor | None, hidden: torch.Tensor, mem_len: int, stop_gradient: bool = True
) -> torch.Tensor:
    """The next segment's memory: the last ``mem_len`` positions of [memory; hidden], detached
    (``stop_gradient=False`` keeps the graph, to show what the detach prevents).

    Args:
        memory: (B, M, D) or None; hidden: (B, T, D) of memory's dtype; mem_len: positions to
            keep (> 0).

    Returns:
        (B, min(M + T, mem_len), D).

    Lecture 11; Dai et al. 2019 eq. 1, SG(h_{τ}^{n-1}).
    """
    check_positive_int("mem_len", mem_len)
    check_bool("stop_gradient", stop_gradient)
    cat = hidden if memory is None else torch.cat([memory, hidden], dim=1)  # (B, M + T, D)
    cat = cat[:, -mem_len:]
    return cat.detach() if stop_gradient else cat


@dataclass(frozen=True)
class SegmentRecurrence:
    """What ``segment_recurrence`` computed (Lecture 11; Dai et al. 2019 section 3.2)."""

    out: torch.Tensor  # (B, N, D) last layer's outputs, all segments
    weights: list[list[torch.Tensor]]  # [segment][layer] (B, H, L, M_s + L)
    memories: list[torch.Tensor]  # [layer] (B, M, D): the memory for a next segment


def _check_layers(layers: object) -> list[MemoryAttentionLayer]:
    want = "layers must be a non-empty sequence of MemoryAttentionLayer"
    if isinstance(layers, MemoryAttentionLayer):
        raise ValueError(f"{want}, got a single MemoryAttentionLayer (wrap it: [layer])")
    if isinstance(layers, str) or not isinstance(layers, (Sequence, nn.ModuleList)):
        raise ValueError(f"{want}, got {type(layers).__name__}")
    if not layers:
        raise ValueError(f"{want}, got an empty {type(layers).__name__}")
    for i, layer in enumerate(layers):
        if not isinstance(layer, MemoryAttentionLayer):
            raise ValueError(f"{want}, got layers[{i}] of type {type(layer).__name__}")
    widths = [layer.d_model for layer in layers]
    if len(set(widths)) > 1:
        raise ValueError(f"layers must all have one d_model (a stack), got d_model {widths}")
    return list(layers)


def _check_run(
    layers: object, x: object, segment_len: object, mem_len: object, stop_gradient: object
) -> tuple[list[MemoryAttentionLayer], int]:
    """The checks of ``segment_recurrence``; returns the layers as a list and mem_len."""
    layers = _check_layers(layers)
    check_positive_int("segment_len", segment_len)
    mem_len = segment_len if mem_len is None else mem_len
    check_positive_int("mem_len", mem_len)
    check_bool("stop_gradient", stop_gradient)
    for layer in layers:  # x enters the layers here: their contract is checked once, now
        check_shapes({"x": x}, {"x": "B T_total d_model"}, owner=layer)
    if x.shape[1] == 0 or x.shape[1] % segment_len:
        raise ValueError(
            f"x has {x.shape[1]} positions, not a multiple of segment_len={segment_len}"
            + (" (at least one segment is needed)" if x.shape[1] == 0 else "")
        )
    return layers, mem_len


def segment_recurrence(
    layers: Sequence[MemoryAttentionLayer],
    x: torch.Tensor,
    segment_len: int,
    mem_len: int | None = None,
    stop_gradient: bool = True,
) -> SegmentRecurrence:
    """Run a stack of ``MemoryAttentionLayer`` over a long sequence one segment at a time,
    each layer reading the memory its own input left on the previous segment(s).

    Args:
        layers: the stack (N layers).
        x: (B, T_total, D) input vectors, of the layers' dtype; T_total must be a positive
            multiple of segment_len.
        segment_len: L, positions per segment.
        mem_len: M, memory length per layer (default L: exactly the previous segment).
        stop_gradient: detach the memory (Transformer-XL); False lets gradients flow back
            through all earlier segments.

    Returns:
        SegmentRecurrence(out, weights, memories).

    Lecture 11; Dai et al. 2019 section 3.2.
    """
    layers, mem_len = _check_run(layers, x, segment_len, mem_len, stop_gradient)
    memories: list[torch.Tensor | None] = [None] * len(layers)
    outs, weights = [], []
    for segment in x.split(segment_len, dim=1):  # (B, L, D) each
        h, seg_weights = segment, []
        for i, layer in enumerate(layers):
            new_memory = update_memory(memories[i], h, mem_len, stop_gradient)
            h, w = layer(h, memories[i])
            memories[i] = new_memory
            seg_weights.append(w)
        outs.append(h)
        weights.append(seg_weights)
    return SegmentRecurrence(torch.cat(outs, dim=1), weights, memories)


def context_start(t: int, num_layers: int, segment_len: int, mem_len: int | None = None) -> int:
    """The earliest input position that output position ``t`` can depend on: each layer reaches
    back from the start of the current segment by ``mem_len`` positions (the memory).

    With mem_len = segment_len = L this is t − (N · L + t mod L), clipped at 0: the context
    grows linearly with the depth N and the segment length L.

    Lecture 11; Dai et al. 2019 section 3.2 (O(N × L) dependency length).
    """
    check_non_negative_int("t", t)
    check_positive_int("num_layers", num_layers)
    check_positive_int("segment_len", segment_len)
    mem_len = segment_len if mem_len is None else mem_len
    check_positive_int("mem_len", mem_len)
    start = t
    for _ in range(num_layers):
        start = max(0, (start // segment_len) * segment_len - mem_len)
    return start


def dependency_matrix(
    layers: Sequence[MemoryAttentionLayer],
    x: torch.Tensor,
    segment_len: int,
    mem_len: int | None = None,
    kind: str = "forward",
    stop_gradient: bool = True,
) -> torch.Tensor:
    """Which inputs each output depends on, measured.

    ``kind="forward"``: out[t] depends on x[p] if replacing x[p] by another vector changes
    out[t] at all (one run per input position; unaffected outputs come out bit-identical).
    ``kind="gradient"``: a gradient flows from out[t] to x[p] (one backward pass per output).

    Args:
        layers, x (1, T_total, D), segment_len, mem_len, stop_gradient: as in
            ``segment_recurrence``; x must be one sequence (B = 1).
        kind: "forward" or "gradient".

    Returns:
        (T_total, T_total) bool, [t, p] = output t depends on input p.

    Lecture 11; Dai et al. 2019 section 3.2.
    """
    if kind not in ("forward", "gradient"):
        raise ValueError(f"kind must be 'forward' or 'gradient', got {kind!r}")
    if not isinstance(x, torch.Tensor) or x.ndim != 3 or x.shape[0] != 1:
        raise ValueError(f"x must be one sequence (1, T_total, D), got {shape_of(x)}")
    _check_run(layers, x, segment_len, mem_len, stop_gradient)
    T = x.shape[1]

    def run(inp: torch.Tensor) -> torch.Tensor:
        return segment_recurrence(layers, inp, segment_len, mem_len, stop_gradient).out[0]

    if kind == "forward":
        with torch.no_grad():
            base = run(x)  # (T, D)
            other = x.flip(1)  # a different vector for every position (reversed sequence)
            deps = []
            for p in range(T):
                changed = x.clone()
                changed[0, p] = other[0, p] + 1.0
                deps.append((run(changed) != base).any(dim=-1))  # (T,)
        return torch.stack(deps, dim=1)  # column p: which outputs changed
    inp = x.detach().clone().requires_grad_(True)
    out = run(inp)  # (T, D)
    rows = []
    for t in range(T):
        (grad,) = torch.autograd.grad(out[t].sum(), inp, retain_graph=True, allow_unused=True)
        rows.append(torch.zeros(T, dtype=torch.bool) if grad is None else grad[0].ne(0).any(-1))
    return torch.stack(rows)
