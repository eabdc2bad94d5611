"""Bad inputs to lecturekit.efficient (issue 15): each gets a clear ValueError naming the argument.

Also the odd inputs that are legitimate: empty sequences, a window longer than the sequence,
more clusters than positions, float64 throughout.
"""

import pytest
import torch
from bad_inputs import Bad, assert_clear_error, bad_rows
from torch import nn

from lecturekit.efficient.cost import (
    attention_cost,
    attention_times,
    best_time,
    count_flops,
    peak_memory,
)
from lecturekit.efficient.local import (
    band_mask,
    band_to_dense,
    chunked_local_attention,
    local_attention,
)
from lecturekit.efficient.lsh import (
    lsh_attention,
    lsh_hash,
    random_rotations,
    shared_qk_attention,
)
from lecturekit.efficient.sparsity import clustered_sequence, topk_mass_captured
from lecturekit.efficient.xl import (
    MemoryAttentionLayer,
    context_start,
    dependency_matrix,
    memory_mask,
    segment_recurrence,
    update_memory,
)

Q = torch.randn(2, 6, 8)  # (B, T, D)
Q64 = Q.double()
QI = torch.ones(2, 6, 8, dtype=torch.long)  # the slides' integer vectors typed in
V5 = torch.randn(2, 6, 5)
FULL = torch.softmax(torch.randn(3, 4), -1)
LAYER = MemoryAttentionLayer(8, 2, d_ff=16)
X = torch.randn(1, 8, 8)  # (B, T_total, D)

ROWS = [
    # --- local ---
    Bad("local.band_mask: negative T", "size", lambda: band_mask(-1, 1), "T"),
    Bad("local.band_mask: float T", "size", lambda: band_mask(4.0, 1), "T"),
    Bad("local.band_mask: negative window", "size", lambda: band_mask(4, -1), "window"),
    Bad("local.band_mask: float window", "size", lambda: band_mask(4, 1.5), "window"),
    Bad("local.band_mask: causal not a bool", "type", lambda: band_mask(4, 1, "yes"), "causal"),
    Bad(
        "local.local_attention: integer q, k, v",
        "dtype",
        lambda: local_attention(QI, QI, QI, 1),
        "q",
    ),
    Bad(
        "local.local_attention: float64 k with float32 q",
        "dtype",
        lambda: local_attention(Q, Q64, Q, 1),
        ["k", "float64"],
    ),
    Bad("local.local_attention: 1-D q", "shape", lambda: local_attention(Q[0, 0], Q, Q, 1), "q"),
    Bad("local.local_attention: list q", "type", lambda: local_attention([[1.0]], Q, Q, 1), "q"),
    Bad(
        "local.local_attention: k of another width",
        "shape",
        lambda: local_attention(Q, Q[..., :4], Q, 1),
        "k",
    ),
    Bad(
        "local.local_attention: v of another length",
        "shape",
        lambda: local_attention(Q, Q, V5[:, :4], 1),
        "v",
    ),
    Bad(
        "local.local_attention: causal not a bool",
        "type",
        lambda: local_attention(Q, Q, Q, 1, causal=None),
        "causal",
    ),
    Bad(
        "local.chunked_local_attention: chunk_size 0",
        "size",
        lambda: chunked_local_attention(Q, Q, Q, 1, chunk_size=0),
        "chunk_size",
    ),
    Bad(
        "local.chunked_local_attention: float chunk_size",
        "size",
        lambda: chunked_local_attention(Q, Q, Q, 1, chunk_size=2.0),
        "chunk_size",
    ),
    Bad(
        "local.chunked_local_attention: integer v",
        "dtype",
        lambda: chunked_local_attention(Q, Q, QI, 1),
        "v",
    ),
    Bad(
        "local.chunked_local_attention: float64 v with float32 q",
        "dtype",
        lambda: chunked_local_attention(Q, Q, Q64, 1),
        "v",
    ),
    Bad(
        "local.chunked_local_attention: negative window",
        "size",
        lambda: chunked_local_attention(Q, Q, Q, -2),
        "window",
    ),
    Bad(
        "local.band_to_dense: band of the wrong width",
        "shape",
        lambda: band_to_dense(torch.zeros(6, 5), 1),
        "band",
    ),
    Bad("local.band_to_dense: 1-D band", "shape", lambda: band_to_dense(torch.zeros(3), 1), "band"),
    Bad("local.band_to_dense: list band", "type", lambda: band_to_dense([[0.0] * 3], 1), "band"),
    Bad(
        "local.band_to_dense: causal not a bool",
        "type",
        lambda: band_to_dense(torch.zeros(6, 2), 1, 1),
        "causal",
    ),
    # --- lsh ---
    Bad("lsh.random_rotations: odd n_buckets", "size", lambda: random_rotations(8, 3), "n_buckets"),
    Bad("lsh.random_rotations: n_buckets 0", "size", lambda: random_rotations(8, 0), "n_buckets"),
    Bad("lsh.random_rotations: n_hashes 0", "size", lambda: random_rotations(8, 4, 0), "n_hashes"),
    Bad("lsh.random_rotations: dim 0", "size", lambda: random_rotations(0, 4), "dim"),
    Bad(
        "lsh.random_rotations: negative seed",
        "range",
        lambda: random_rotations(8, 4, seed=-1),
        "seed",
    ),
    Bad(
        "lsh.lsh_hash: rotations of the wrong shape",
        "shape",
        lambda: lsh_hash(Q, 4, rotations=torch.zeros(1, 8, 3)),
        "rotations",
    ),
    Bad(
        "lsh.lsh_hash: list rotations",
        "type",
        lambda: lsh_hash(Q, 2, rotations=[[[1.0]] * 8]),
        "rotations",
    ),
    Bad("lsh.lsh_hash: integer x", "dtype", lambda: lsh_hash(QI, 4), "x"),
    Bad("lsh.lsh_hash: 1-D x", "shape", lambda: lsh_hash(Q[0, 0], 4), "x"),
    Bad("lsh.lsh_hash: string seed", "type", lambda: lsh_hash(Q, 4, seed="0"), "seed"),
    Bad("lsh.shared_qk_attention: integer qk", "dtype", lambda: shared_qk_attention(QI, Q), "qk"),
    Bad(
        "lsh.shared_qk_attention: float64 v with float32 qk",
        "dtype",
        lambda: shared_qk_attention(Q, Q64),
        "v",
    ),
    Bad(
        "lsh.shared_qk_attention: v of another length",
        "shape",
        lambda: shared_qk_attention(Q, V5[:, :3]),
        "v",
    ),
    Bad(
        "lsh.shared_qk_attention: float mask",
        "dtype",
        lambda: shared_qk_attention(Q, Q, torch.ones(6, 6)),
        "mask",
    ),
    Bad(
        "lsh.shared_qk_attention: mask of the wrong shape",
        "shape",
        lambda: shared_qk_attention(Q, Q, torch.ones(5, 5, dtype=torch.bool)),
        "mask",
    ),
    Bad(
        "lsh.shared_qk_attention: list mask",
        "type",
        lambda: shared_qk_attention(Q, Q, [[True] * 6] * 6),
        "mask",
    ),
    Bad(
        "lsh.shared_qk_attention: exclude_self not a bool",
        "type",
        lambda: shared_qk_attention(Q, Q, exclude_self="no"),
        "exclude_self",
    ),
    Bad(
        "lsh.lsh_attention: chunk_size not dividing T",
        "shape",
        lambda: lsh_attention(Q, Q, 4, 4),
        "chunk_size",
    ),
    Bad("lsh.lsh_attention: chunk_size 0", "size", lambda: lsh_attention(Q, Q, 4, 0), "chunk_size"),
    Bad("lsh.lsh_attention: odd n_buckets", "size", lambda: lsh_attention(Q, Q, 5, 3), "n_buckets"),
    Bad(
        "lsh.lsh_attention: negative seed",
        "range",
        lambda: lsh_attention(Q, Q, 4, 3, seed=-3),
        "seed",
    ),
    Bad(
        "lsh.lsh_attention: float64 v with float32 qk",
        "dtype",
        lambda: lsh_attention(Q, Q64, 4, 3),
        "v",
    ),
    Bad("lsh.lsh_attention: list v", "type", lambda: lsh_attention(Q, [[0.0]], 4, 3), "v"),
    Bad("lsh.lsh_attention: integer qk", "dtype", lambda: lsh_attention(QI, Q, 4, 3), "qk"),
    Bad(
        "lsh.lsh_attention: v of another batch",
        "shape",
        lambda: lsh_attention(Q, V5[:1], 4, 3),
        "v",
    ),
    Bad(
        "lsh.lsh_attention: dense_weights not a bool",
        "type",
        lambda: lsh_attention(Q, Q, 4, 3, dense_weights="no"),
        "dense_weights",
    ),
    Bad(
        "lsh.lsh_attention: attend_across_buckets not a bool",
        "type",
        lambda: lsh_attention(Q, Q, 4, 3, attend_across_buckets=1),
        "attend_across_buckets",
    ),
    # --- xl ---
    Bad("xl.memory_mask: negative M", "size", lambda: memory_mask(3, -1), "M"),
    Bad("xl.memory_mask: float T", "size", lambda: memory_mask(2.0, 2), "T"),
    Bad("xl.MemoryAttentionLayer: d_ff 0", "size", lambda: MemoryAttentionLayer(8, 2, 0), "d_ff"),
    Bad(
        "xl.MemoryAttentionLayer: d_model not divisible by num_heads",
        "size",
        lambda: MemoryAttentionLayer(10, 4),
        ["d_model", "num_heads"],
    ),
    Bad(
        "xl.MemoryAttentionLayer: num_heads 0",
        "size",
        lambda: MemoryAttentionLayer(8, 0),
        "num_heads",
    ),
    Bad(
        "xl.MemoryAttentionLayer.forward: memory of another width",
        "shape",
        lambda: LAYER(X, torch.randn(1, 3, 4)),
        "memory",
    ),
    Bad(
        "xl.MemoryAttentionLayer.forward: memory of another batch",
        "shape",
        lambda: LAYER(X, torch.randn(2, 3, 8)),
        "memory",
    ),
    Bad("xl.MemoryAttentionLayer.forward: 2-D x", "shape", lambda: LAYER(X[0]), "x"),
    Bad(
        "xl.MemoryAttentionLayer.forward: integer x",
        "dtype",
        lambda: LAYER(torch.ones(1, 4, 8, dtype=torch.long)),
        "x",
    ),
    Bad("xl.MemoryAttentionLayer.forward: float64 x", "dtype", lambda: LAYER(X.double()), "x"),
    Bad(
        "xl.MemoryAttentionLayer.forward: float64 memory",
        "dtype",
        lambda: LAYER(X, X.double()),
        "memory",
    ),
    Bad(
        "xl.update_memory: negative mem_len", "size", lambda: update_memory(None, X, -1), "mem_len"
    ),
    Bad(
        "xl.update_memory: memory of another width",
        "shape",
        lambda: update_memory(torch.randn(1, 3, 4), X, 4),
        "memory",
    ),
    Bad(
        "xl.MemoryAttentionLayer.forward: list memory",
        "type",
        lambda: LAYER(X, [[0.0] * 8]),
        "memory",
    ),
    Bad(
        "xl.update_memory: memory of another batch",
        "shape",
        lambda: update_memory(torch.randn(2, 3, 8), X, 4),
        "memory",
    ),
    Bad(
        "xl.update_memory: float64 hidden with float32 memory",
        "dtype",
        lambda: update_memory(X, X.double(), 4),
        "hidden",
    ),
    Bad("xl.update_memory: list hidden", "type", lambda: update_memory(None, [[0.0]], 4), "hidden"),
    Bad(
        "xl.update_memory: stop_gradient not a bool",
        "type",
        lambda: update_memory(None, X, 4, "yes"),
        "stop_gradient",
    ),
    Bad(
        "xl.segment_recurrence: segment_len 0",
        "size",
        lambda: segment_recurrence([LAYER], X, 0),
        "segment_len",
    ),
    Bad(
        "xl.segment_recurrence: segment_len not dividing T",
        "shape",
        lambda: segment_recurrence([LAYER], X, 3),
        "segment_len",
    ),
    Bad(
        "xl.segment_recurrence: a bare layer for layers",
        "type",
        lambda: segment_recurrence(LAYER, X, 4),
        "layers",
    ),
    Bad(
        "xl.segment_recurrence: layers of another kind",
        "type",
        lambda: segment_recurrence([nn.Linear(8, 8)], X, 4),
        "layers",
    ),
    Bad(
        "xl.segment_recurrence: layers of two widths",
        "shape",
        lambda: segment_recurrence([LAYER, MemoryAttentionLayer(4, 2)], X, 4),
        ["layers", "d_model"],
    ),
    Bad(
        "xl.segment_recurrence: negative mem_len",
        "size",
        lambda: segment_recurrence([LAYER], X, 4, -4),
        "mem_len",
    ),
    Bad(
        "xl.segment_recurrence: x of another width",
        "shape",
        lambda: segment_recurrence([LAYER], torch.randn(1, 8, 4), 4),
        "x",
    ),
    Bad(
        "xl.segment_recurrence: empty x",
        "shape",
        lambda: segment_recurrence([LAYER], X[:, :0], 4),
        "segment",
    ),
    Bad(
        "xl.segment_recurrence: stop_gradient not a bool",
        "type",
        lambda: segment_recurrence([LAYER], X, 4, stop_gradient=0),
        "stop_gradient",
    ),
    Bad(
        "xl.segment_recurrence: integer x",
        "dtype",
        lambda: segment_recurrence([LAYER], torch.ones(1, 8, 8, dtype=torch.long), 4),
        "x",
    ),
    Bad(
        "xl.dependency_matrix: unknown kind",
        "type",
        lambda: dependency_matrix([LAYER], X, 4, kind="both"),
        "kind",
    ),
    Bad(
        "xl.dependency_matrix: a batch of two",
        "shape",
        lambda: dependency_matrix([LAYER], X.expand(2, -1, -1), 4),
        "x",
    ),
    Bad(
        "xl.dependency_matrix: segment_len 0",
        "size",
        lambda: dependency_matrix([LAYER], X, 0),
        "segment_len",
    ),
    Bad(
        "xl.dependency_matrix: layers a dict",
        "type",
        lambda: dependency_matrix({"a": LAYER}, X, 4),
        "layers",
    ),
    Bad("xl.context_start: negative t", "size", lambda: context_start(-1, 2, 4), "t"),
    Bad("xl.context_start: num_layers 0", "size", lambda: context_start(3, 0, 4), "num_layers"),
    Bad(
        "xl.context_start: float segment_len",
        "size",
        lambda: context_start(3, 2, 4.0),
        "segment_len",
    ),
    Bad("xl.context_start: mem_len 0", "size", lambda: context_start(3, 2, 4, 0), "mem_len"),
    # --- sparsity ---
    Bad(
        "sparsity.topk_mass_captured: k 0",
        "size",
        lambda: topk_mass_captured(FULL, FULL > 0, 0),
        "k",
    ),
    Bad(
        "sparsity.topk_mass_captured: k larger than Tk",
        "range",
        lambda: topk_mass_captured(FULL, FULL > 0, 5),
        "k",
    ),
    Bad(
        "sparsity.topk_mass_captured: shapes differ",
        "shape",
        lambda: topk_mass_captured(FULL, torch.ones(3, 5, dtype=torch.bool)),
        "approx",
    ),
    Bad(
        "sparsity.topk_mass_captured: integer full_weights",
        "dtype",
        lambda: topk_mass_captured(torch.ones(3, 4, dtype=torch.long), FULL > 0),
        "full_weights",
    ),
    Bad(
        "sparsity.topk_mass_captured: 1-D full_weights",
        "shape",
        lambda: topk_mass_captured(FULL[0], FULL[0] > 0),
        "full_weights",
    ),
    Bad(
        "sparsity.topk_mass_captured: list approx",
        "type",
        lambda: topk_mass_captured(FULL, [[True] * 4] * 3),
        "approx",
    ),
    Bad(
        "sparsity.clustered_sequence: negative noise",
        "range",
        lambda: clustered_sequence(10, 4, 2, noise=-0.1),
        "noise",
    ),
    Bad(
        "sparsity.clustered_sequence: n_clusters 0",
        "size",
        lambda: clustered_sequence(10, 4, 0),
        "n_clusters",
    ),
    Bad("sparsity.clustered_sequence: n 0", "size", lambda: clustered_sequence(0, 4, 2), "n"),
    Bad(
        "sparsity.clustered_sequence: norm 0",
        "range",
        lambda: clustered_sequence(10, 4, 2, norm=0),
        "norm",
    ),
    Bad(
        "sparsity.clustered_sequence: string norm",
        "type",
        lambda: clustered_sequence(10, 4, 2, norm="8"),
        "norm",
    ),
    # --- cost ---
    Bad("cost.count_flops: not callable", "type", lambda: count_flops(3), "fn"),
    Bad("cost.peak_memory: not callable", "type", lambda: peak_memory(torch.ones(2)), "fn"),
    Bad("cost.best_time: not callable", "type", lambda: best_time("f"), "fn"),
    Bad("cost.best_time: repeats 0", "size", lambda: best_time(lambda: None, 0), "repeats"),
    Bad(
        "cost.best_time: negative min_seconds",
        "range",
        lambda: best_time(lambda: None, min_seconds=-1),
        "min_seconds",
    ),
    Bad("cost.attention_cost: empty ns", "size", lambda: attention_cost([]), "ns"),
    Bad("cost.attention_cost: n 0", "size", lambda: attention_cost([64, 0]), "ns"),
    Bad("cost.attention_cost: ns a bare int", "type", lambda: attention_cost(64), "ns"),
    Bad(
        "cost.attention_cost: n not a multiple of chunk_size",
        "shape",
        lambda: attention_cost([100]),
        "chunk_size",
    ),
    Bad(
        "cost.attention_cost: negative window",
        "size",
        lambda: attention_cost([64], window=-1),
        "window",
    ),
    Bad(
        "cost.attention_cost: chunk_size 0",
        "size",
        lambda: attention_cost([64], chunk_size=0),
        "chunk_size",
    ),
    Bad(
        "cost.attention_cost: negative seed", "range", lambda: attention_cost([64], seed=-1), "seed"
    ),
    Bad("cost.attention_times: empty ns", "size", lambda: attention_times(()), "ns"),
    Bad(
        "cost.attention_times: repeats 0",
        "size",
        lambda: attention_times([64], repeats=0),
        "repeats",
    ),
    Bad("cost.attention_times: d 0", "size", lambda: attention_times([64], d=0), "d"),
]


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


# --- legitimate odd inputs: documented in the docstrings, shown here ---


def test_empty_sequences_give_empty_results():
    e = torch.randn(2, 0, 8)
    assert band_mask(0, 1).shape == (0, 0)
    out, w = local_attention(e, e, e[..., :5], 1)
    assert out.shape == (2, 0, 5) and w.shape == (2, 0, 0)
    out, band = chunked_local_attention(e, e, e[..., :5], 2, causal=True)
    assert out.shape == (2, 0, 5) and band.shape == (2, 0, 3)
    assert band_to_dense(band, 2, causal=True).shape == (2, 0, 0)
    out, w = shared_qk_attention(e, e)
    assert out.shape == (2, 0, 8) and w.shape == (2, 0, 0)
    r = lsh_attention(e, e[..., :5], 4, 2, n_hashes=2)
    assert r.out.shape == (2, 0, 5) and r.weights.shape == (2, 0, 0)
    assert r.buckets.shape == (2, 2, 0)
    assert memory_mask(0, 3).shape == (0, 3)
    out, w = LAYER(X[:, :0], X[:, :3])
    assert out.shape == (1, 0, 8) and w.shape == (1, 2, 0, 3)


def test_an_empty_batch_gives_empty_results():
    e = torch.randn(0, 8, 4)
    assert lsh_attention(e, e, 4, 4).out.shape == (0, 8, 4)
    assert chunked_local_attention(e, e, e, 1)[0].shape == (0, 8, 4)


def test_a_window_longer_than_the_sequence_is_full_attention():
    assert band_mask(4, 10).all()
    full = local_attention(Q, Q, V5, 5)[0]  # T = 6: window T - 1 reaches every key
    torch.testing.assert_close(local_attention(Q, Q, V5, 50)[0], full)
    torch.testing.assert_close(chunked_local_attention(Q, Q, V5, 50, chunk_size=100)[0], full)


def test_float64_throughout_works():
    out, w = local_attention(Q64, Q64, Q64, 1)
    assert out.dtype == w.dtype == torch.float64
    out64, _ = chunked_local_attention(Q64, Q64, Q64, 1, chunk_size=4)
    torch.testing.assert_close(out64, out)
    assert lsh_attention(Q64, Q64, 4, 3).out.dtype == torch.float64
    layer64 = MemoryAttentionLayer(8, 2, d_ff=16).double()
    assert layer64(X.double())[0].dtype == torch.float64


@pytest.mark.parametrize("dtype", [torch.long, torch.float64])
def test_rotations_of_another_dtype_are_converted(dtype):
    R = torch.tensor([[1, -1], [0, 2], [3, 0], [-1, 1], [2, 2], [0, -3], [1, 1], [-2, 0]])
    want = lsh_hash(Q, 4, rotations=R[None].float())
    assert torch.equal(lsh_hash(Q, 4, rotations=R[None].to(dtype)), want)


def test_more_clusters_than_positions():
    x, labels = clustered_sequence(3, 4, 10, seed=1)
    assert x.shape == (3, 4) and labels.max() < 10
