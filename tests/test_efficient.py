"""Lecture 11: local attention, LSH attention, Transformer-XL memory, cost measurements."""

import math
import time

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.efficient import (
    band_mask,
    band_to_dense,
    chunked_local_attention,
    clustered_sequence,
    local_attention,
    topk_mass_captured,
)
from lecturekit.efficient_cost import VARIANTS, attention_cost, best_time, peak_memory
from lecturekit.efficient_lsh import (
    lsh_attention,
    lsh_hash,
    random_rotations,
    shared_qk_attention,
)
from lecturekit.efficient_xl import (
    MemoryAttentionLayer,
    context_start,
    dependency_matrix,
    memory_mask,
    segment_recurrence,
    update_memory,
)
from lecturekit.measurements import attention_vs_recurrence_flops
from lecturekit.viz.efficient import (
    lsh_panel_example,
    lsh_widget,
    plot_cost_curves,
    plot_dependency,
    plot_lsh_panels,
)


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Small tensors: one thread is faster (and the machine is shared)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _qkv(*batch, T=12, d=8, dv=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*batch, T, d, generator=g), torch.randn(*batch, T, d, generator=g),
            torch.randn(*batch, T, dv, generator=g))  # fmt: skip


# ---------------------------------------------------------------------------- local attention


def test_band_mask_values():
    assert band_mask(5, 1).int().tolist() == [
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 1, 1, 1],
        [0, 0, 0, 1, 1],
    ]
    assert band_mask(4, 1, causal=True).int().tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]  # fmt: skip
    assert band_mask(4, 0).equal(torch.eye(4, dtype=torch.bool))
    assert band_mask(6, 9).all()  # a window longer than the sequence is full attention


def test_local_attention_is_masked_full_attention():
    q, k, v = _qkv(2, T=10)
    out, w = local_attention(q, k, v, 2)
    ref_out, ref_w = scaled_dot_product_attention(q, k, v, band_mask(10, 2))
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(w, ref_w)
    assert (w[..., ~band_mask(10, 2)] == 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 10))


@pytest.mark.parametrize(
    ("T", "window", "causal", "chunk_size"),
    [(10, 2, False, None), (10, 2, True, 3), (7, 0, False, None), (13, 4, False, 5),
     (5, 10, False, None), (16, 3, True, None), (1, 1, False, None), (9, 2, False, 9)],
)  # fmt: skip
def test_chunked_local_attention_equals_banded_full_attention(T, window, causal, chunk_size):
    q, k, v = _qkv(2, 3, T=T)
    out, w = local_attention(q, k, v, window, causal)
    out_c, band = chunked_local_attention(q, k, v, window, causal, chunk_size)
    assert band.shape == (2, 3, T, window + 1 + (0 if causal else window))
    torch.testing.assert_close(out_c, out, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(band_to_dense(band, window, causal), w, atol=1e-6, rtol=1e-5)


def test_chunked_with_a_long_window_is_full_attention():
    q, k, v = _qkv(T=9)
    out, _ = chunked_local_attention(q, k, v, 9)
    torch.testing.assert_close(out, scaled_dot_product_attention(q, k, v)[0])


def test_band_to_dense_places_offsets():
    band = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])  # window 1
    assert band_to_dense(band, 1).tolist() == [[2.0, 3.0, 0.0], [4.0, 5.0, 6.0], [0.0, 7.0, 8.0]]


def test_local_attention_bad_inputs():
    q, k, v = _qkv(T=6)
    with pytest.raises(ValueError, match=r"window must be a non-negative integer, got -1"):
        local_attention(q, k, v, -1)
    with pytest.raises(
        ValueError, match=r"q and k must have the same shape .* q \(6, 8\) vs k \(5, 8\)"
    ):
        chunked_local_attention(q, k[:5], v, 1)
    with pytest.raises(ValueError, match=r"v must be \(\.\.\., T, Dv\)"):
        local_attention(q, k, v[:4], 1)
    with pytest.raises(ValueError, match=r"chunk_size must be a positive integer, got 0"):
        chunked_local_attention(q, k, v, 1, chunk_size=0)
    with pytest.raises(
        ValueError, match=r"band must be \(\.\.\., T, 3\) for window=1, got \(6, 5\)"
    ):
        band_to_dense(torch.zeros(6, 5), 1)


# ---------------------------------------------------------------------------- top-k mass


def test_topk_mass_captured_by_hand():
    full = torch.tensor([[0.5, 0.3, 0.2, 0.0], [0.1, 0.1, 0.4, 0.4]])
    support = torch.tensor([[True, False, True, False], [False, False, True, False]])
    torch.testing.assert_close(topk_mass_captured(full, support, 2), torch.tensor([0.5 / 0.8, 0.5]))
    torch.testing.assert_close(topk_mass_captured(full, support), torch.tensor([0.7, 0.4]))
    weights = support.float() * 0.5  # float weights: support is where they are > 0
    torch.testing.assert_close(topk_mass_captured(full, weights, 1), torch.tensor([1.0, 1.0]))
    assert topk_mass_captured(full, torch.ones(2, 4, dtype=torch.bool), 3).eq(1).all()


def test_topk_mass_captured_bad_inputs():
    full = torch.softmax(torch.randn(3, 4), -1)
    with pytest.raises(
        ValueError, match=r"approx must have the shape of full_weights \(3, 4\), got \(3, 5\)"
    ):
        topk_mass_captured(full, torch.ones(3, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"k=5 is larger than the number of keys Tk=4"):
        topk_mass_captured(full, full > 0, 5)


# ---------------------------------------------------------------------------- LSH


def test_hash_is_deterministic_per_seed_and_in_range():
    x = torch.randn(3, 20, 8)
    h = lsh_hash(x, 8, n_hashes=4, seed=3)
    assert h.shape == (3, 4, 20) and h.dtype == torch.long
    assert h.min() >= 0 and h.max() < 8
    assert torch.equal(h, lsh_hash(x, 8, n_hashes=4, seed=3))
    assert not torch.equal(h, lsh_hash(x, 8, n_hashes=4, seed=4))
    assert torch.equal(h, lsh_hash(x, 8, rotations=random_rotations(8, 8, 4, seed=3), n_hashes=4))
    assert lsh_hash(x, 1).eq(0).all()


def test_hash_is_invariant_to_the_norm():
    x = torch.randn(50, 16)
    h = lsh_hash(x, 16, n_hashes=2, seed=1)
    for c in (2.0**-3, 4.0, 3.7):
        assert torch.equal(lsh_hash(c * x, 16, n_hashes=2, seed=1), h)
    per_row = torch.rand(50, 1) * 10 + 0.1  # a different length for every vector
    assert torch.equal(lsh_hash(per_row * x, 16, n_hashes=2, seed=1), h)
    assert torch.equal(lsh_hash(-x, 2, seed=1), 1 - lsh_hash(x, 2, seed=1))  # x and -x: opposite


def test_hash_is_the_argmax_of_xR_and_minus_xR():
    x, R = torch.randn(6, 4), random_rotations(4, 4, seed=0)
    xr = x @ R[0]  # (6, 2)
    assert torch.equal(lsh_hash(x, 4, rotations=R)[0], torch.cat([xr, -xr], -1).argmax(-1))


def test_one_bucket_one_chunk_is_full_shared_qk_attention():
    x, _, v = _qkv(2, T=16)
    r = lsh_attention(x, v, n_buckets=1, chunk_size=16)
    out, w = shared_qk_attention(x, v)
    torch.testing.assert_close(r.out, out)
    torch.testing.assert_close(r.weights, w)
    assert (torch.diagonal(w, dim1=-2, dim2=-1) == 0).all()  # self excluded
    keys = x / x.norm(dim=-1, keepdim=True)
    scores = x @ keys.transpose(-1, -2) / math.sqrt(8)
    scores = scores.masked_fill(torch.eye(16, dtype=torch.bool), float("-inf"))
    torch.testing.assert_close(w, torch.softmax(scores, -1))
    # two buckets but attending across buckets, one chunk: the same
    torch.testing.assert_close(lsh_attention(x, v, 2, 16, attend_across_buckets=True).out, out)


@pytest.mark.parametrize(("n_buckets", "chunk_size", "n_hashes", "across"),
                         [(4, 4, 1, False), (4, 4, 3, False), (8, 2, 4, False), (2, 16, 2, False),
                          (16, 4, 4, False), (4, 8, 2, True), (8, 16, 3, True)])  # fmt: skip
def test_lsh_attention_is_softmax_over_the_union_of_rounds(n_buckets, chunk_size, n_hashes, across):
    g = torch.Generator().manual_seed(n_buckets * 10 + n_hashes)
    x, v = 3 * torch.randn(3, 32, 8, generator=g), torch.randn(3, 32, 5, generator=g)
    r = lsh_attention(x, v, n_buckets, chunk_size, n_hashes, seed=1, attend_across_buckets=across)
    out, w = shared_qk_attention(x, v, mask=r.allowed)
    torch.testing.assert_close(r.out, out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(r.weights, w, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(3, 32))
    assert torch.equal(r.weights > 0, r.allowed)
    eye = torch.eye(32, dtype=torch.bool)
    alone = ~(r.allowed & ~eye).any(-1)
    assert torch.equal(r.allowed[..., eye], alone)  # itself only when nothing else


def test_lsh_sort_and_chunk_intermediates():
    x, _, v = _qkv(T=24)
    r = lsh_attention(x, v, 4, 6, n_hashes=2, seed=0)
    assert r.buckets.shape == r.order.shape == (2, 24) and r.n_chunks == 4
    for h in range(2):
        assert sorted(r.order[h].tolist()) == list(range(24))  # a permutation
        sb = r.sorted_buckets()[h]
        assert (sb[1:] >= sb[:-1]).all()  # sorted by bucket ...
        same = sb[1:] == sb[:-1]
        assert (r.order[h][1:][same] > r.order[h][:-1][same]).all()  # ... then by position
    # one round: a query attends only within its bucket, its chunk and the previous chunk
    r1 = lsh_attention(x, v, 4, 6, seed=0)
    rank = r1.order[0].argsort()
    chunk = rank // 6
    i, j = r1.allowed.nonzero(as_tuple=True)
    other = i != j
    i, j = i[other], j[other]
    assert (r1.buckets[0, i] == r1.buckets[0, j]).all()
    assert ((chunk[j] == chunk[i]) | (chunk[j] == (chunk[i] - 1) % 4)).all()


def test_lsh_without_dense_weights_gives_the_same_output():
    x, _, v = _qkv(T=16)
    a = lsh_attention(x, v, 4, 4, n_hashes=2)
    b = lsh_attention(x, v, 4, 4, n_hashes=2, dense_weights=False)
    assert b.weights is None and b.allowed is None
    torch.testing.assert_close(a.out, b.out)


def test_lsh_bad_inputs():
    x, _, v = _qkv(T=12)
    with pytest.raises(ValueError, match=r"n_buckets must be 1 or even .* got 3"):
        lsh_hash(x, 3)
    with pytest.raises(
        ValueError, match=r"the length T=12 of qk \(12, 8\) is not a multiple of chunk_size=5"
    ):
        lsh_attention(x, v, 4, 5)
    with pytest.raises(
        ValueError,
        match=r"rotations must be \(n_hashes, D, n_buckets // 2\) = \(1, 8, 2\), got \(1, 8, 3\)",
    ):
        lsh_hash(x, 4, rotations=torch.zeros(1, 8, 3))
    with pytest.raises(
        ValueError, match=r"qk must be a float tensor of shape \(\.\.\., T, D\), got \(12,\)"
    ):
        lsh_attention(x[:, 0], v, 4, 4)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer"):
        random_rotations(8, 4, seed=-1)


def test_clustered_sequence():
    x, labels = clustered_sequence(40, 16, 4, seed=2)
    assert x.shape == (40, 16) and labels.shape == (40,) and labels.max() < 4
    torch.testing.assert_close(x.norm(dim=-1), torch.full((40,), 8 * math.sqrt(16)))
    assert torch.equal(x, clustered_sequence(40, 16, 4, seed=2)[0])
    _, w = shared_qk_attention(x, x)
    same = labels[:, None] == labels[None, :]
    assert (w * same).sum(-1).mean() > 0.9  # attention stays in the cluster: sparse


# ---------------------------------------------------------------------------- Transformer-XL


def _xl(num_layers=2, d=8, seed=0):
    torch.manual_seed(seed)
    return [MemoryAttentionLayer(d, 2) for _ in range(num_layers)]


def test_memory_mask():
    assert memory_mask(3, 2).int().tolist() == [[1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
    assert memory_mask(2, 0).equal(torch.ones(2, 2).tril().bool())


def test_memory_layer_shapes_and_causality():
    layer = _xl(1)[0]
    x, m = torch.randn(2, 4, 8), torch.randn(2, 3, 8)
    out, w = layer(x, m)
    assert out.shape == (2, 4, 8) and w.shape == (2, 2, 4, 7)
    assert (w[..., ~memory_mask(4, 3)] == 0).all()
    _, w0 = layer(x)
    assert w0.shape == (2, 2, 4, 4)
    torch.testing.assert_close(w0.sum(-1), torch.ones(2, 2, 4))


def test_memory_receives_no_gradient():
    layers = _xl()
    seg1 = torch.randn(1, 4, 8, requires_grad=True)
    seg2 = torch.randn(1, 4, 8, requires_grad=True)
    memory = update_memory(None, seg1, mem_len=4)
    assert not memory.requires_grad and memory.grad_fn is None
    out, _ = layers[0](seg2, memory)
    out.sum().backward()
    assert seg1.grad is None and seg2.grad is not None
    # without the stop-gradient the previous segment does get a gradient
    memory = update_memory(None, seg1, mem_len=4, stop_gradient=False)
    layers[0](seg2, memory)[0].sum().backward()
    assert seg1.grad is not None and seg1.grad.abs().sum() > 0


def test_segment_recurrence_keeps_the_last_mem_len_states():
    layers = _xl()
    x = torch.randn(1, 12, 8)
    r = segment_recurrence(layers, x, segment_len=4, mem_len=6)
    assert r.out.shape == (1, 12, 8) and len(r.weights) == 3 and len(r.weights[0]) == 2
    assert [w.shape[-1] for w in (r.weights[0][0], r.weights[1][0], r.weights[2][0])] == [4, 8, 10]
    assert all(m.shape == (1, 6, 8) and not m.requires_grad for m in r.memories)
    torch.testing.assert_close(r.memories[0], x[:, -6:])  # layer 0's memory: the inputs
    first = x[:, :4]
    for layer in layers:  # the first segment has no memory: plain causal layers
        first = layer(first)[0]
    torch.testing.assert_close(r.out[:, :4], first)


def test_context_grows_with_layers_times_segment_length():
    assert context_start(23, num_layers=3, segment_len=4) == 8  # 23 - (3 * 4 + 3)
    assert context_start(10, num_layers=1, segment_len=4, mem_len=6) == 2
    T = 16
    for num_layers in (1, 3):
        layers = _xl(num_layers)
        x = torch.randn(1, T, 8)
        dep = dependency_matrix(layers, x, segment_len=4)
        want = torch.tensor([[context_start(t, num_layers, 4) <= p <= t for p in range(T)]
                             for t in range(T)])  # fmt: skip
        assert torch.equal(dep, want)
    grad = dependency_matrix(layers, x, 4, kind="gradient")
    same_segment = torch.tensor([[p // 4 == t // 4 and p <= t for p in range(T)] for t in range(T)])
    assert torch.equal(grad, same_segment)  # the stop-gradient: nothing flows into the memory
    assert torch.equal(dependency_matrix(layers, x, 4, kind="gradient", stop_gradient=False), want)


def test_xl_bad_inputs():
    layer = _xl(1)[0]
    with pytest.raises(ValueError, match=r"x must be \(B, T, d_model=8\), got \(4, 8\)"):
        layer(torch.randn(4, 8))
    with pytest.raises(ValueError, match=r"memory must be \(B=1, M, d_model=8\), got \(2, 3, 8\)"):
        layer(torch.randn(1, 4, 8), torch.randn(2, 3, 8))
    with pytest.raises(ValueError, match=r"x has 10 positions, not a multiple of segment_len=4"):
        segment_recurrence([layer], torch.randn(1, 10, 8), 4)
    with pytest.raises(
        ValueError, match=r"layers must be a non-empty sequence of MemoryAttentionLayer"
    ):
        segment_recurrence([], torch.randn(1, 8, 8), 4)
    with pytest.raises(ValueError, match=r"kind must be 'forward' or 'gradient', got 'both'"):
        dependency_matrix([layer], torch.randn(1, 8, 8), 4, kind="both")


# ---------------------------------------------------------------------------- cost


def test_peak_memory_counts_new_tensors_exactly():
    x = torch.randn(100, 100)
    assert peak_memory(lambda: torch.empty(1000)) == 4000
    assert peak_memory(lambda: x @ x) == 100 * 100 * 4
    assert peak_memory(lambda: x.view(-1)) == 0  # a view allocates nothing
    assert peak_memory(lambda: (x @ x) @ x) == 2 * 100 * 100 * 4  # two results alive at once
    with pytest.raises(ValueError, match="fn must be callable"):
        peak_memory(3)


def test_attention_cost_exact_counts():
    ns, d, window, chunk = (64, 128), 16, 4, 32
    c = attention_cost(ns, d=d, window=window, chunk_size=chunk)
    assert set(c.flops) == set(c.peak_bytes) == set(VARIANTS)
    ref = attention_vs_recurrence_flops(list(ns), d=d)
    assert c.flops["full"] == ref.attention_pairwise == tuple(4 * n * n * d for n in ns)
    assert c.flops["GRU"] == ref.gru
    assert c.flops["local (band mask)"] == c.flops["full"]  # masking saves no arithmetic
    assert c.flops["local (chunked)"] == tuple(4 * n * (window + 2 * window) * d for n in ns)
    assert c.flops["LSH"] == tuple(
        2 * n * d * (n // chunk // 2) + 4 * n * 2 * chunk * d for n in ns
    )
    full = c.peak_bytes["full"]
    assert full[1] / full[0] > 3.5  # the (n, n) scores and weights
    assert c.peak_bytes["local (chunked)"][1] / c.peak_bytes["local (chunked)"][0] < 2.2
    assert full[0] >= 2 * 4 * 64 * 64


def test_best_time_and_bad_lengths():
    assert best_time(lambda: torch.ones(3), repeats=2) >= 0
    calls = []
    best_time(lambda: calls.append(1), repeats=2, min_seconds=0.0)
    assert len(calls) == 1 + 2  # warm-up + repeats
    calls.clear()
    best_time(lambda: calls.append(time.sleep(0.002)), repeats=2, min_seconds=0.02)
    assert 1 + 5 <= len(calls) <= 1 + 100  # keeps timing until 0.02 s are spent
    with pytest.raises(ValueError, match=r"min_seconds must be >= 0, got -1"):
        best_time(lambda: None, min_seconds=-1)
    with pytest.raises(ValueError, match=r"every n must be a multiple of chunk_size=64, got n=100"):
        attention_cost([100])
    with pytest.raises(ValueError, match=r"ns must be a non-empty sequence"):
        attention_cost([])


# ---------------------------------------------------------------------------- plots


def test_plots_and_widget():
    q, k = lsh_panel_example()
    fig = plot_lsh_panels(q, k, 4, 4, seed=1, fig=Figure())
    assert len([a for a in fig.axes if a.images]) == 4
    assert len(plot_lsh_panels(q, k, 4, 4, fig=Figure(), ncols=2).axes) == 4
    with pytest.raises(ValueError, match=r"q and k must have the same shape \(T, D\)"):
        plot_lsh_panels(q, k[:5], 4, 4)
    ax = Figure().add_subplot()
    plot_cost_curves([1, 2, 4], {"a": [1, 2, 4]}, ax)
    assert len(ax.lines) == 3  # the curve and the two guides
    with pytest.raises(ValueError, match=r"ys\['a'\] has 2 values but there are 3 ns"):
        plot_cost_curves([1, 2, 4], {"a": [1, 2]}, Figure().add_subplot())
    plot_dependency(torch.ones(8, 8, dtype=torch.bool).tril(), 4, Figure().add_subplot())
    widget = lsh_widget(q, k)
    assert widget.children[1].value[:4] == b"\x89PNG"
    widget.children[0].children[2].value = 3  # the hash seed: redraws
    with pytest.raises(ValueError, match=r"chunk_size=5 must divide T=24"):
        lsh_widget(q, k, chunk_size=5)
