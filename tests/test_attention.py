"""Attention against torch: F.scaled_dot_product_attention, nn.MultiheadAttention; the six
scores of the slides and the two extras (linear additive, MLP)."""

import math

import pytest
import torch
import torch.nn.functional as F

from lecturekit.attention import (
    EXTRA_SCORE_FUNCTIONS,
    SCORE_FUNCTIONS,
    AdditiveScore,
    CosineScore,
    DotScore,
    GeneralScore,
    KVCache,
    LinearAdditiveScore,
    LocationScore,
    MLPScore,
    MultiHeadAttention,
    ScaledDotScore,
    make_score,
    merge_heads,
    scaled_dot_product_attention,
    split_heads,
)
from lecturekit.masking import causal_mask, key_padding_mask, padding_mask

ATOL = 1e-5


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def qkv(*batch, Tq=5, Tk=7, Dk=8, Dv=6):
    return torch.randn(*batch, Tq, Dk), torch.randn(*batch, Tk, Dk), torch.randn(*batch, Tk, Dv)


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_sdpa_matches_torch_without_mask(batch):
    q, k, v = qkv(*batch)
    out, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), atol=ATOL, rtol=0)
    assert weights.shape == (*batch, 5, 7)
    torch.testing.assert_close(weights.sum(-1), torch.ones(*batch, 5))


@pytest.mark.parametrize(
    "mask_fn",
    [
        lambda: torch.rand(2, 4, 5, 7) > 0.3,  # full shape
        lambda: torch.rand(5, 7) > 0.3,  # broadcast over batch and heads
        lambda: key_padding_mask(padding_mask([7, 3], 7)),  # (2, 1, 1, 7)
    ],
)
def test_sdpa_matches_torch_with_mask(mask_fn):
    q, k, v = qkv(2, 4)
    mask = mask_fn()
    mask[..., 0] = True  # no fully masked rows here (tested separately)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)
    full = mask.expand_as(weights)
    assert torch.all(weights[~full] == 0), "masked positions must get exactly zero weight"
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 5))


def test_sdpa_causal_equals_is_causal():
    q, k, v = qkv(3, Tq=6, Tk=6)
    out, weights = scaled_dot_product_attention(q, k, v, causal_mask(6))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)
    assert torch.all(weights.triu(1) == 0)


def test_sdpa_fully_masked_row_is_zero_like_torch():
    q, k, v = qkv(2)
    mask = torch.ones(2, 5, 7, dtype=torch.bool)
    mask[1, 2] = False  # query 2 of batch 1 may attend to nothing
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.all(weights[1, 2] == 0) and torch.all(out[1, 2] == 0)
    assert not torch.isnan(out).any()
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)


def test_sdpa_fully_masked_row_has_finite_gradients():
    q, k, v = (t.requires_grad_() for t in qkv(Tq=3, Tk=4))
    mask = torch.tensor([[True, True, False, False], [False] * 4, [True] * 4])
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    out.sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()


def test_sdpa_is_permutation_equivariant():
    x = torch.randn(6, 8)
    perm = torch.randperm(6)
    out, _ = scaled_dot_product_attention(x, x, x)
    out_perm, _ = scaled_dot_product_attention(x[perm], x[perm], x[perm])
    torch.testing.assert_close(out_perm, out[perm], atol=ATOL, rtol=0)


@pytest.mark.parametrize(
    "args, match",
    [
        (
            lambda: (torch.randn(5, 8), torch.randn(7, 4), torch.randn(7, 6)),
            r"k must be .*Dk=8 as in q \(5, 8\), got \(7, 4\)",
        ),
        (
            lambda: (torch.randn(5, 8), torch.randn(7, 8), torch.randn(6, 6)),
            r"v must be .*Tk=7 as in k \(7, 8\), got \(6, 6\)",
        ),
        (
            lambda: (torch.randn(8), torch.randn(7, 8), torch.randn(7, 6)),
            r"q must be \(\.\.\., Tq, Dk\), got \(8,\)",
        ),
        (lambda: ([[1.0]], torch.randn(7, 8), torch.randn(7, 6)), r"q must be a torch.Tensor"),
        (
            lambda: (torch.randn(2, 5, 8), torch.randn(3, 7, 8), torch.randn(3, 7, 6)),
            r"batch dimensions",
        ),
    ],
)
def test_sdpa_bad_shapes(args, match):
    with pytest.raises(ValueError, match=match):
        scaled_dot_product_attention(*args())


def test_sdpa_bad_masks():
    q, k, v = qkv(2)
    with pytest.raises(ValueError, match=r"mask must be bool.*float32"):
        scaled_dot_product_attention(q, k, v, torch.ones(5, 7))
    with pytest.raises(
        ValueError, match=r"mask of shape \(5, 6\) is not broadcastable .*\(2, 5, 7\)"
    ):
        scaled_dot_product_attention(q, k, v, torch.ones(5, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 5, 7\)"):
        scaled_dot_product_attention(q, k, v, torch.ones(3, 5, 7, dtype=torch.bool))


def _pair(d_model=16, num_heads=4, bias=True):
    torch_mha = torch.nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True)
    torch_mha.eval()
    return MultiHeadAttention(d_model, num_heads, bias=bias).load_from_torch(torch_mha), torch_mha


@pytest.mark.parametrize("bias", [True, False])
def test_mha_matches_torch_self_and_cross(bias):
    mine, ref = _pair(bias=bias)
    x, mem = torch.randn(3, 5, 16), torch.randn(3, 9, 16)
    for q, kv in ((x, x), (x, mem)):
        out, weights = mine(q, kv, kv)
        ref_out, ref_w = ref(q, kv, kv, average_attn_weights=False)
        torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
        torch.testing.assert_close(weights, ref_w, atol=ATOL, rtol=0)
        assert weights.shape == (3, 4, q.shape[1], kv.shape[1])


def test_mha_matches_torch_with_causal_and_padding_masks():
    mine, ref = _pair()
    x = torch.randn(3, 6, 16)
    out, w = mine(x, x, x, causal_mask(6))
    ref_out, ref_w = ref(x, x, x, attn_mask=~causal_mask(6), average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=ATOL, rtol=0)

    pad = padding_mask([6, 4, 2], 6)
    out, w = mine(x, x, x, key_padding_mask(pad))
    ref_out, ref_w = ref(x, x, x, key_padding_mask=~pad, average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
    assert torch.all(w[~pad[:, None, None, :].expand_as(w)] == 0)


def test_mha_per_head_mask_matches_torch():
    mine, ref = _pair()
    x = torch.randn(2, 5, 16)
    mask = torch.rand(2, 4, 5, 5) > 0.4
    mask[..., 0] = True
    out, _ = mine(x, x, x, mask)
    ref_out, _ = ref(x, x, x, attn_mask=~mask.reshape(8, 5, 5))  # torch wants (B*H, Tq, Tk)
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)


def test_mha_permutation_equivariant_and_split_merge_inverse():
    mha = MultiHeadAttention(16, 4)
    x = torch.randn(2, 6, 16)
    perm = torch.randperm(6)
    out, _ = mha(x, x, x)
    out_p, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_p, out[:, perm], atol=ATOL, rtol=0)
    assert split_heads(x, 4).shape == (2, 4, 6, 4)
    torch.testing.assert_close(merge_heads(split_heads(x, 4)), x)


def test_mha_gradients_flow_and_weights_not_stashed():
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(1, 3, 8, requires_grad=True)
    out, _ = mha(x, x, x)
    out.sum().backward()
    assert x.grad is not None and all(p.grad is not None for p in mha.parameters())
    assert not any(isinstance(v, torch.Tensor) for v in vars(mha).values())


def test_mha_bad_inputs():
    with pytest.raises(ValueError, match="d_model=10 is not divisible by num_heads=4"):
        MultiHeadAttention(10, 4)
    with pytest.raises(ValueError, match="num_heads must be a positive integer"):
        MultiHeadAttention(8, 0)
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match=r"query must be \(B, Tq, d_model=8\), got \(2, 3, 6\)"):
        mha(torch.randn(2, 3, 6), torch.randn(2, 3, 8), torch.randn(2, 3, 8))
    with pytest.raises(ValueError, match=r"key must be \(B, Tk, d_model=8\), got \(3, 8\)"):
        mha(torch.randn(2, 3, 8), torch.randn(3, 8), torch.randn(3, 8))
    with pytest.raises(
        ValueError, match=r"value must be .*Tk=4 as in key \(2, 4, 8\), got \(2, 5, 8\)"
    ):
        mha(torch.randn(2, 3, 8), torch.randn(2, 4, 8), torch.randn(2, 5, 8))
    with pytest.raises(
        ValueError, match=r"key must be .*B=2 as in query \(2, 3, 8\), got \(3, 4, 8\)"
    ):
        mha(torch.randn(2, 3, 8), torch.randn(3, 4, 8), torch.randn(3, 4, 8))
    x = torch.randn(2, 3, 8)
    with pytest.raises(ValueError, match=r"mask must be bool"):
        mha(x, x, x, torch.zeros(3, 3))
    with pytest.raises(
        ValueError, match=r"mask of shape \(2, 3\) is not broadcastable .*\(2, 2, 3, 3\)"
    ):
        mha(x, x, x, padding_mask([3, 1], 3))  # (B, Tk) without key_padding_mask
    with pytest.raises(ValueError, match=r"torch_mha has embed_dim=16, num_heads=4"):
        mha.load_from_torch(torch.nn.MultiheadAttention(16, 4))
    with pytest.raises(ValueError, match="kdim = vdim"):
        mha.load_from_torch(torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=4))
    with pytest.raises(ValueError, match="bias"):
        mha.load_from_torch(torch.nn.MultiheadAttention(8, 2, bias=False))
    with pytest.raises(ValueError, match=r"must be a torch\.nn\.MultiheadAttention"):
        mha.load_from_torch(torch.nn.Linear(8, 8))


def test_scores_match_their_formulas():
    s, h = torch.randn(2, 3, 4), torch.randn(2, 5, 4)  # 3 queries, 5 keys, d = 4
    dot = torch.einsum("bqd,bkd->bqk", s, h)
    torch.testing.assert_close(DotScore()(s, h), dot)
    torch.testing.assert_close(ScaledDotScore()(s, h), dot / 2.0)
    cos = F.cosine_similarity(s[:, :, None, :], h[:, None, :, :], dim=-1)
    torch.testing.assert_close(CosineScore()(s, h), cos)

    general = GeneralScore(query_dim=4, key_dim=6)
    h6 = torch.randn(2, 5, 6)
    W = general.W.weight  # (Dq, Dk)
    torch.testing.assert_close(general(s, h6), torch.einsum("bqi,ij,bkj->bqk", s, W, h6))

    additive = AdditiveScore(query_dim=4, key_dim=6, hidden_dim=10)
    literal = torch.empty(2, 3, 5)
    for b in range(2):
        for i in range(3):
            for j in range(5):
                concat = torch.cat([s[b, i], h6[b, j]])  # [s; h]
                literal[b, i, j] = additive.v.weight[0] @ torch.tanh(additive.W.weight @ concat)
    torch.testing.assert_close(additive(s, h6), literal, atol=ATOL, rtol=0)

    location = LocationScore(query_dim=4, max_len=9)
    expected = (s @ location.W.weight.T)[..., :5]  # W s, first Tk positions
    torch.testing.assert_close(location(s, h), expected)


@pytest.mark.parametrize("name", sorted(SCORE_FUNCTIONS | EXTRA_SCORE_FUNCTIONS))
def test_every_score_attends(name):
    score = make_score(name, 4, 4, hidden_dim=8, max_len=10)
    s, h, v = torch.randn(2, 3, 4), torch.randn(2, 6, 4), torch.randn(2, 6, 5)
    context, weights = score.attend(s, h, v, mask=padding_mask([6, 2], 6)[:, None, :])
    assert context.shape == (2, 3, 5) and weights.shape == (2, 3, 6)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3))
    assert torch.all(weights[1, :, 2:] == 0)


def test_scaled_dot_attend_equals_sdpa():
    q, k, v = qkv(2)
    ctx, w = ScaledDotScore().attend(q, k, v)
    out, w2 = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(ctx, out)
    torch.testing.assert_close(w, w2)


def test_score_bad_inputs():
    with pytest.raises(
        ValueError,
        match=r"keys must be \(\.\.\., Tk, D\) with D=4 as in query \(3, 4\), got \(5, 6\)",
    ):
        DotScore()(torch.randn(3, 4), torch.randn(5, 6))
    with pytest.raises(
        ValueError, match=r"query must be \(\.\.\., Tq, query_dim=4\), got \(3, 5\)"
    ):
        GeneralScore(4, 6)(torch.randn(3, 5), torch.randn(5, 6))
    with pytest.raises(ValueError, match=r"keys must be \(\.\.\., Tk, key_dim=6\), got \(5, 4\)"):
        AdditiveScore(4, 6, 8)(torch.randn(3, 4), torch.randn(5, 4))
    with pytest.raises(ValueError, match=r"Tk=12 > max_len=10"):
        LocationScore(4, 10)(torch.randn(3, 4), torch.randn(12, 4))
    with pytest.raises(
        ValueError,
        match=r"values must be \(\.\.\., Tk, Dv\) with Tk=5 as in keys \(5, 4\), got \(6, 2\)",
    ):
        DotScore().attend(torch.randn(3, 4), torch.randn(5, 4), torch.randn(6, 2))
    with pytest.raises(ValueError, match=r"name='bilinear' is not one of"):
        make_score("bilinear", 4, 4)
    with pytest.raises(ValueError, match=r"make_score\('additive'\) needs hidden_dim"):
        make_score("additive", 4, 4)
    with pytest.raises(ValueError, match=r"keys must be \(\.\.\., Tk, key_dim=6\), got \(5, 4\)"):
        LinearAdditiveScore(4, 6)(torch.randn(3, 4), torch.randn(5, 4))
    with pytest.raises(
        ValueError, match=r"query must be \(\.\.\., Tq, query_dim=4\), got \(3, 6\)"
    ):
        MLPScore(4, 6, 8)(torch.randn(3, 6), torch.randn(5, 6))
    with pytest.raises(ValueError, match=r"make_score\('mlp'\) needs hidden_dim"):
        make_score("mlp", 4, 4)
    # attend checks what forward would (its call of forward is lecturekit's own)
    with pytest.raises(
        ValueError, match=r"query must be \(\.\.\., Tq, query_dim=4\), got \(3, 5\)"
    ):
        GeneralScore(4, 6).attend(torch.randn(3, 5), torch.randn(5, 6), torch.randn(5, 2))
    with pytest.raises(ValueError, match=r"keys must have the dtype of query \(torch.float32\)"):
        DotScore().attend(torch.randn(3, 4), torch.randn(5, 4).double(), torch.randn(5, 2))
    with pytest.raises(ValueError, match=r"make_score\('linear_additive'\) needs key_dim"):
        make_score("linear_additive", 4)


def test_six_scores_of_the_slides_and_two_extras():
    """SCORE_FUNCTIONS stays the slides' six (the seq2seq models take any of them); the two
    extras are apart, and make_score builds all eight."""
    assert list(SCORE_FUNCTIONS) == [
        "dot", "scaled_dot", "general", "additive", "cosine", "location"
    ]  # fmt: skip
    assert list(EXTRA_SCORE_FUNCTIONS) == ["linear_additive", "mlp"]
    assert not set(SCORE_FUNCTIONS) & set(EXTRA_SCORE_FUNCTIONS)
    assert type(make_score("linear_additive", 4, 6)) is LinearAdditiveScore
    mlp = make_score("mlp", 4, 6, hidden_dim=8)
    assert type(mlp) is MLPScore and len(mlp.hidden) == 1 and mlp.W.bias is not None


@pytest.mark.parametrize("batch_q, batch_k", [((), ()), ((2,), (2,)), ((2, 1), (3,))])
def test_linear_additive_score_shapes_and_formula(batch_q, batch_k):
    score = LinearAdditiveScore(query_dim=4, key_dim=6)
    s, h = torch.randn(*batch_q, 3, 4), torch.randn(*batch_k, 5, 6)
    e = score(s, h)
    batch = torch.broadcast_shapes(batch_q, batch_k)
    assert e.shape == (*batch, 3, 5)
    w_q, w_k = score.W.weight[0, :4], score.W.weight[0, 4:]
    assert torch.equal(score.w_q, w_q) and torch.equal(score.w_k, w_k)
    literal = (s @ w_q)[..., :, None] + (h @ w_k)[..., None, :]  # w_q . s_j + w_k . h_i
    torch.testing.assert_close(e, literal.expand(*batch, 3, 5))


def test_linear_additive_weights_do_not_depend_on_the_query():
    """w_q . s is the same for every key: the softmax cancels it. The additive score's tanh
    makes the query count."""
    torch.manual_seed(1)
    score = LinearAdditiveScore(4, 4)
    queries, keys = torch.randn(7, 4) * 5, torch.randn(9, 4)  # very different queries
    e = score(queries, keys)
    assert (e[:, 0].max() - e[:, 0].min()) > 1  # the scores do depend on the query ...
    weights = torch.softmax(e, dim=-1)
    torch.testing.assert_close(weights, weights[:1].expand(7, 9))  # ... the weights do not
    torch.testing.assert_close(weights[0], torch.softmax(keys @ score.w_k, dim=0))
    additive = AdditiveScore(4, 4, 8)
    w_add = torch.softmax(additive(queries, keys), dim=-1)
    assert (w_add - w_add[:1]).abs().max() > 0.01  # they differ from query to query


def test_mlp_score_with_one_layer_and_no_bias_is_the_additive_score():
    additive = AdditiveScore(query_dim=4, key_dim=6, hidden_dim=10)
    mlp = MLPScore(query_dim=4, key_dim=6, hidden_dim=10, num_layers=1, bias=False)
    assert mlp.load_state_dict(additive.state_dict())  # the same parameters, W and v
    s, h = torch.randn(2, 3, 4), torch.randn(2, 5, 6)
    torch.testing.assert_close(mlp(s, h), additive(s, h))
    deeper = MLPScore(4, 6, 10)  # the default: two tanh layers, with biases
    assert len(deeper.hidden) == 1 and deeper.hidden[0].bias is not None
    assert deeper.v.bias is None  # a bias on v would cancel in the softmax
    assert sum(p.numel() for p in deeper.parameters()) == 10 * 10 + 10 + 10 * 10 + 10 + 10


def test_mlp_score_matches_a_literal_mlp_on_each_pair():
    mlp = MLPScore(query_dim=3, key_dim=5, hidden_dim=6, num_layers=3)
    s, h = torch.randn(2, 4, 3), torch.randn(2, 7, 5)
    e = mlp(s, h)
    assert e.shape == (2, 4, 7)
    layers = [mlp.W, *mlp.hidden]
    for b, i, j in [(0, 0, 0), (1, 3, 6), (0, 2, 4)]:
        x = torch.cat([s[b, i], h[b, j]])  # [s; h]
        for layer in layers:
            x = torch.tanh(layer(x))
        torch.testing.assert_close(e[b, i, j], mlp.v(x)[0], atol=ATOL, rtol=0)


def test_dot_product_variance_grows_with_dk():
    """The fact behind the 1/sqrt(d_k) of lecture 03."""
    g = torch.Generator().manual_seed(0)
    for d in (16, 256):
        q, k = torch.randn(20000, d, generator=g), torch.randn(20000, d, generator=g)
        dots = (q * k).sum(-1)
        assert abs(dots.var().item() / d - 1) < 0.05
        assert abs((dots / math.sqrt(d)).var().item() - 1) < 0.05


def test_mha_forward_is_its_three_public_pieces():
    """project_queries, project_keys_values and attend are forward, step by step (a KV cache
    calls them: lecturekit.kv_cache)."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4).eval()
    x, memory = torch.randn(2, 3, 16), torch.randn(2, 5, 16)
    mask = torch.rand(2, 1, 3, 5) > 0.3
    q = mha.project_queries(x)
    k, v = mha.project_keys_values(memory, memory)
    assert q.shape == (2, 4, 3, 4) and k.shape == v.shape == (2, 4, 5, 4)
    out, weights = mha.attend(q, k, v, mask)
    expected_out, expected_weights = mha(x, memory, memory, mask)
    assert torch.equal(out, expected_out) and torch.equal(weights, expected_weights)
    with pytest.raises(ValueError, match=r"k must be \(B, H=4, Tk, Dh=4\), got \(2, 5, 16\)"):
        mha.attend(q, memory, v)


def test_legitimate_odd_inputs():
    """Empty sequences: Tq = 0 gives an empty output, Tk = 0 all-zero outputs like a fully
    masked row (as torch's scaled_dot_product_attention); float64 throughout is fine for the
    parameter-free functions and for a float64 module; split/merge_heads take any dtype."""
    q, k, v = torch.randn(2, 3, 4), torch.zeros(2, 0, 4), torch.zeros(2, 0, 5)
    out, weights = scaled_dot_product_attention(q, k, v)
    assert weights.shape == (2, 3, 0) and torch.equal(out, torch.zeros(2, 3, 5))
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))
    out, weights = scaled_dot_product_attention(torch.zeros(2, 0, 4), q, torch.randn(2, 3, 5))
    assert out.shape == (2, 0, 5) and weights.shape == (2, 0, 3)
    q64, k64, v64 = (t.double() for t in qkv(2))
    out, _ = scaled_dot_product_attention(q64, k64, v64)
    assert out.dtype == torch.float64
    assert CosineScore()(q64, k64).dtype == torch.float64
    mha = MultiHeadAttention(8, 2)
    out, weights = mha(torch.zeros(2, 0, 8), torch.zeros(2, 4, 8), torch.zeros(2, 4, 8))
    assert out.shape == (2, 0, 8) and weights.shape == (2, 2, 0, 4)
    x64 = torch.randn(2, 3, 8, dtype=torch.float64)
    assert mha.double()(x64, x64, x64)[0].dtype == torch.float64
    ids = torch.arange(24).reshape(1, 3, 8)
    assert torch.equal(merge_heads(split_heads(ids, 2)), ids)


def test_load_from_torch_mismatch_copies_nothing():
    mha = MultiHeadAttention(8, 2)
    before = {k: v.clone() for k, v in mha.state_dict().items()}
    for torch_mha in (
        torch.nn.MultiheadAttention(8, 2),  # batch_first=False
        torch.nn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=True),
    ):
        with pytest.raises(ValueError, match=r"batch_first|add_zero_attn"):
            mha.load_from_torch(torch_mha)
    assert all(torch.equal(before[k], v) for k, v in mha.state_dict().items())


def test_multi_head_attention_reads_in_one_screenful():
    """Issue 40: lecturekit's MultiHeadAttention is the model answer a student opens beside their
    own, so it stays as short as nanoGPT's (its docstring and KV cache included)."""
    import inspect

    lines = inspect.getsource(MultiHeadAttention).splitlines()
    assert len(lines) <= 90, f"MultiHeadAttention is {len(lines)} lines"


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m, x: m(x, None, None), r"key and value must be \(B, Tk, D\) tensors, got None"),
        (
            lambda m, x: m(
                x, x, x, cache=KVCache(torch.zeros(3, 2, 1, 4), torch.zeros(3, 2, 1, 4))
            ),
            r"cache holds keys \(B=3, H=2, T, Dh=4\) .* the attention's are \(2, 2, 3, 4\)",
        ),
        (
            lambda m, x: m(
                x, x, x, cache=KVCache(torch.zeros(2, 4, 1, 2), torch.zeros(2, 4, 1, 2))
            ),
            r"cache holds keys \(B=2, H=4, T, Dh=2\)",
        ),
        (
            lambda m, x: m(
                x,
                None,
                None,
                cache=KVCache(torch.zeros(2, 4, 5, 2), torch.zeros(2, 4, 5, 2), static=True),
            ),
            r"cache holds keys \(B=2, H=4, T, Dh=2\)",
        ),
        (
            lambda m, x: m(
                x,
                x,
                x,
                cache=KVCache(torch.zeros(2, 2, 1, 4).double(), torch.zeros(2, 2, 1, 4).double()),
            ),
            r"of torch.float64, the attention's are \(2, 2, 3, 4\) of torch.float32",
        ),
    ],
)
def test_a_cache_that_does_not_fit_gets_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call(MultiHeadAttention(8, 2), torch.randn(2, 3, 8))


def test_a_cache_gives_the_full_forward_step_by_step_and_a_static_one_broadcasts():
    torch.manual_seed(0)
    mha, x, memory = MultiHeadAttention(8, 2).eval(), torch.randn(2, 5, 8), torch.randn(1, 4, 8)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    full, _ = mha(x, x, x, causal)
    cache = KVCache()
    steps = [
        mha(x[:, t : t + 1], x[:, t : t + 1], x[:, t : t + 1], cache=cache)[0] for t in range(5)
    ]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-6, rtol=0)
    static = KVCache(*mha.project_keys_values(memory, memory), static=True)  # batch 1 for 2
    torch.testing.assert_close(
        mha(x, None, None, cache=static)[0],
        mha(x, memory.expand(2, -1, -1), memory.expand(2, -1, -1))[0],
    )
