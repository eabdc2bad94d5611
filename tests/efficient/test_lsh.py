"""lecturekit.efficient.lsh: angular LSH and Reformer attention, round by round."""

import math

import pytest
import torch
from random_tensors import random_qkv

from lecturekit.efficient.lsh import lsh_attention, lsh_hash, random_rotations, shared_qk_attention


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
    x, _, v = random_qkv(2, T=16)
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
    x, _, v = random_qkv(T=24)
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
    x, _, v = random_qkv(T=16)
    a = lsh_attention(x, v, 4, 4, n_hashes=2)
    b = lsh_attention(x, v, 4, 4, n_hashes=2, dense_weights=False)
    assert b.weights is None and b.allowed is None
    torch.testing.assert_close(a.out, b.out)


def test_lsh_bad_inputs():
    x, _, v = random_qkv(T=12)
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
    with pytest.raises(ValueError, match=r"qk must be \(\.\.\., T, D\), got \(12,\)"):
        lsh_attention(x[:, 0], v, 4, 4)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer"):
        random_rotations(8, 4, seed=-1)
