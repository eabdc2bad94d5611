"""Lecture 11b's efficient-attention variants: LogSparse (mask, gathered = dense = masked full
attention, n log n FLOPs, reach), memory-compressed and convolutional attention (against the
plain paths and torch's F.scaled_dot_product_attention), the Universal Transformer's ACT rule
(the module's incremental halting = act_weights on its own halting probabilities)."""

import math

import pytest
import torch
import torch.nn.functional as F

from lecturekit.attention import MultiHeadAttention, scaled_dot_product_attention
from lecturekit.datasets.variants import pointer_chains, shape_series
from lecturekit.efficient.conv_attention import (
    ConvSelfAttention,
    MemoryCompressedAttention,
    compressed_length,
)
from lecturekit.efficient.cost import variant_cost
from lecturekit.efficient.logsparse import (
    layers_to_reach_all,
    logsparse_attention,
    logsparse_dense_attention,
    logsparse_indices,
    logsparse_mask,
    logsparse_offsets,
    reachable,
)
from lecturekit.efficient.universal import (
    UniversalConfig,
    UniversalTransformer,
    act_loss,
    act_weights,
)
from lecturekit.masking import causal_mask


def _brute_mask(n, local=0):
    m = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        for j in range(i + 1):
            g = i - j
            m[i, j] = g == 0 or g <= local or (g & (g - 1)) == 0
    return m


@pytest.mark.parametrize("n", [1, 2, 3, 8, 13, 32])
@pytest.mark.parametrize("local", [0, 1, 3])
def test_logsparse_mask_and_indices(n, local):
    mask = logsparse_mask(n, local)
    assert torch.equal(mask, _brute_mask(n, local))
    idx, valid = logsparse_indices(n, local)
    rebuilt = torch.zeros(n, n, dtype=torch.bool)
    rows = torch.arange(n)[:, None].expand_as(idx)
    rebuilt[rows[valid], idx[valid]] = True
    assert torch.equal(rebuilt, mask)
    assert idx.shape[1] == len(logsparse_offsets(n, local))


def test_logsparse_gathered_equals_dense_and_masked_sdpa():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 37, 8, generator=g, dtype=torch.float64) for _ in range(3))
    for local in (0, 2):
        out, w = logsparse_attention(q, k, v, local)
        dense, dw = logsparse_dense_attention(q, k, v, local)
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=logsparse_mask(37, local))
        torch.testing.assert_close(out, dense)
        torch.testing.assert_close(out, ref)
        idx, valid = logsparse_indices(37, local)
        torch.testing.assert_close(dw.gather(-1, idx.expand(2, 3, 37, -1)) * valid, w)
    # a mask with every pair: the dense version is causal attention
    full, _ = scaled_dot_product_attention(q, k, v, causal_mask(37))
    small_q = q[..., :3, :]
    out, _ = logsparse_attention(small_q, k[..., :3, :], v[..., :3, :])
    torch.testing.assert_close(out, full[..., :3, :])  # n = 3: every earlier key is 2^k away


def test_logsparse_flops_grow_as_n_log_n():
    ns = (128, 256, 512, 1024)
    c = variant_cost(
        ns,
        {"ls": logsparse_attention, "full": lambda q, k, v: scaled_dot_product_attention(q, k, v)},
        d=16,
    )
    per = [f / (n * len(logsparse_offsets(n))) for f, n in zip(c.flops["ls"], ns, strict=True)]
    assert per == [4 * 16] * 4  # QK and AV: 2 × 2 d FLOPs per (query, key) pair
    assert c.flops["full"] == tuple(4 * 16 * n * n for n in ns)
    assert c.peak_bytes["ls"][-1] < c.peak_bytes["full"][-1] / 4


def test_reach_needs_the_most_one_bits():
    for n in (2, 5, 16, 100):
        L = layers_to_reach_all(n)
        assert max(bin(d).count("1") for d in range(1, n)) == L
        assert not torch.equal(
            reachable(logsparse_mask(n), L - 1) if L > 1 else torch.zeros(n, n, dtype=torch.bool),
            torch.ones(n, n).tril().bool(),
        )
    # the reach is what gradients see
    n, L = 12, 2
    x = torch.randn(n, 4, requires_grad=True)
    h = x
    for _ in range(L):
        h = h + logsparse_attention(h[None], h[None], h[None])[0][0]
    dep = torch.stack(
        [
            torch.autograd.grad(h[i].sum(), x, retain_graph=True)[0].abs().sum(1) > 0
            for i in range(n)
        ]
    )
    assert torch.equal(dep, reachable(logsparse_mask(n), L))


def test_compressed_length_and_cost():
    assert compressed_length(12, 3) == 4 and compressed_length(2, 3) == 0
    assert compressed_length(10, 2, 3) == 4
    for n in (6, 9, 12):
        for s in (1, 2, 3):
            mca = MemoryCompressedAttention(8, s)
            x = torch.randn(2, n, 8)
            _, w = mca(x, x, x)
            assert w.shape == (2, n, compressed_length(n, s))
    c = variant_cost((64, 128), {"s4": MemoryCompressedAttention(16, 4)}, d=16)
    assert c.flops["s4"][1] > 0


def test_memory_compressed_stride_one_identity_is_full_attention():
    mca = MemoryCompressedAttention(8, 1)
    with torch.no_grad():
        for conv in (mca.conv_k, mca.conv_v):
            conv.weight.copy_(torch.eye(8)[:, :, None])
            conv.bias.zero_()
    q, k, v = torch.randn(3, 2, 10, 8).unbind(0)
    out, _ = mca(q, k, v)
    ref, _ = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))


def test_conv_attention_kernel_one_is_linear_multi_head_attention():
    torch.manual_seed(0)
    csa = ConvSelfAttention(8, 1, num_heads=2)
    mha = MultiHeadAttention(8, 2)
    with torch.no_grad():
        mha.w_q.weight.copy_(csa.conv_q.weight[:, :, 0])
        mha.w_q.bias.copy_(csa.conv_q.bias)
        mha.w_k.weight.copy_(csa.conv_k.weight[:, :, 0])
        mha.w_k.bias.copy_(csa.conv_k.bias)
        for a, b in ((mha.w_v, csa.w_v), (mha.w_o, csa.w_o)):
            a.weight.copy_(b.weight)
            a.bias.copy_(b.bias)
    x = torch.randn(2, 9, 8)
    out, w = csa(x)
    ref, ref_w = mha(x, x, x, causal_mask(9))
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(w, ref_w)


def test_conv_attention_is_causal_and_sees_windows():
    torch.manual_seed(0)
    csa = ConvSelfAttention(4, 3)
    x = torch.randn(1, 10, 4, requires_grad=True)
    q, k = csa.queries_keys(x)
    (q[0, 7] @ k[0, 2]).backward()
    used = (x.grad[0].abs().sum(1) > 0).nonzero().flatten().tolist()
    assert used == [0, 1, 2, 5, 6, 7]
    out, _ = csa(x.detach())
    y = x.detach().clone()
    y[0, 6:] += 1  # the future does not change the past
    torch.testing.assert_close(csa(y)[0][0, :6], out[0, :6])


def test_act_weights_rule():
    h = torch.tensor([[0.3, 0.1], [0.5, 0.2], [0.4, 0.3], [0.9, 0.2]])  # (S=4, 2)
    w, N, R = act_weights(h)
    assert N.tolist() == [3, 4]
    torch.testing.assert_close(R, torch.tensor([0.2, 0.4]))
    torch.testing.assert_close(w.sum(0), torch.ones(2))
    torch.testing.assert_close(w[:, 0], torch.tensor([0.3, 0.5, 0.2, 0.0]))


@pytest.mark.parametrize("act", [True, False])
def test_universal_transformer_matches_act_weights(act):
    torch.manual_seed(0)
    cfg = UniversalConfig.tiny(18, 8, act=act, halting_bias=-1.0)
    model = UniversalTransformer(cfg).eval()
    batch = pointer_chains(4)
    out = model(batch.ids)
    assert out.logits.shape == (4, 10, 8)
    if act:
        w, N, R = act_weights(out.halting, cfg.threshold)
        torch.testing.assert_close(out.steps, N)
        torch.testing.assert_close(out.remainder, R)
        torch.testing.assert_close(out.weights, w)
        assert (out.steps >= 1).all() and (out.steps <= cfg.max_steps).all()
    else:
        assert (out.steps == cfg.max_steps).all()
    loss = act_loss(out, batch.targets, 0.01)
    loss.backward()
    assert model.layer.self_attn.w_q.weight.grad is not None


def test_pointer_chains_targets_follow_the_chain():
    b = pointer_chains(20, generator=torch.Generator().manual_seed(3))
    for ids, tgt, dep in zip(b.ids, b.targets, b.depth, strict=True):
        for i in range(len(ids)):
            j, d = i, 0
            while ids[j] >= 8:
                j, d = int(ids[j]) - 8, d + 1
            assert int(ids[j]) == int(tgt[i]) and d == int(dep[i])
    assert set(b.depth.flatten().tolist()) == set(range(5))


def test_shape_series_is_seeded():
    a = shape_series(3, generator=torch.Generator().manual_seed(1))
    b = shape_series(3, generator=torch.Generator().manual_seed(1))
    assert a.shape == (3, 48) and torch.equal(a, b)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: logsparse_mask(0), "n"),
        (lambda: logsparse_mask(4, local=-1), "local"),
        (lambda: compressed_length(8, 0), "stride"),
        (lambda: compressed_length(8, 2, 0), "kernel"),
        (lambda: MemoryCompressedAttention(8, 0), "stride"),
        (lambda: ConvSelfAttention(8, 0), "kernel"),
        (lambda: act_weights(torch.tensor([0.5]), threshold=1.0), "threshold"),
        (lambda: act_weights(torch.tensor([0.5]), threshold=0), "threshold"),
        (lambda: UniversalConfig(10, 4, threshold=1.5), "threshold"),
        (lambda: reachable(logsparse_mask(4), 0), "layers"),
        (lambda: variant_cost([8], {}), "variants"),
        (lambda: pointer_chains(2, T=3, max_depth=4), "T"),
    ],
)
def test_bad_inputs_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_math_of_the_exercise_counts():
    assert int(logsparse_mask(16).sum()) == 1 + sum(2 + int(math.log2(i)) for i in range(1, 16))
