"""lecturekit.efficient.xl: Transformer-XL's stop-gradient segment memory."""

import pytest
import torch

from lecturekit.efficient.xl import (
    MemoryAttentionLayer,
    context_start,
    dependency_matrix,
    memory_mask,
    segment_recurrence,
    update_memory,
)


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
    with pytest.raises(
        ValueError,
        match=r"memory must be \(B, M, d_model=8\) with B=1 as in x \(1, 4, 8\), got \(2, 3, 8\)",
    ):
        layer(torch.randn(1, 4, 8), torch.randn(2, 3, 8))
    with pytest.raises(ValueError, match=r"x has 10 positions, not a multiple of segment_len=4"):
        segment_recurrence([layer], torch.randn(1, 10, 8), 4)
    with pytest.raises(
        ValueError, match=r"layers must be a non-empty sequence of MemoryAttentionLayer"
    ):
        segment_recurrence([], torch.randn(1, 8, 8), 4)
    with pytest.raises(ValueError, match=r"kind must be 'forward' or 'gradient', got 'both'"):
        dependency_matrix([layer], torch.randn(1, 8, 8), 4, kind="both")
