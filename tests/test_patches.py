"""lecturekit.patches: patchify / unpatchify, the conv patch embedding, maps over the grid."""

import pytest
import torch
from torch import nn

from lecturekit.patches import (
    cls_attention,
    conv_patch_embedding,
    patchify,
    position_similarity,
    similarity_by_distance,
    unpatchify,
)


def test_patchify_matches_a_loop_over_the_grid():
    images = torch.randn(2, 3, 8, 12)
    patches = patchify(images, (4, 3))
    assert patches.shape == (2, 2 * 4, 3 * 4 * 3)
    expected = torch.stack(
        [
            images[:, :, 4 * i : 4 * i + 4, 3 * j : 3 * j + 3].flatten(1)
            for i in range(2)
            for j in range(4)
        ],
        dim=1,
    )  # row-major patches, each flattened in (C, ph, pw) order
    assert torch.equal(patches, expected)


def test_digit_numbers_of_the_lecture():
    patches = patchify(torch.zeros(5, 1, 8, 8), 2)
    assert patches.shape == (5, 16, 4)  # 8x8, p = 2: a 4 x 4 grid of 16 patches of 4 values
    assert patchify(torch.zeros(1, 3, 224, 224), 16).shape == (1, 196, 768)  # ViT-Base/16


@pytest.mark.parametrize(
    "shape, patch",
    [((2, 1, 8, 8), 2), ((3, 3, 16, 16), 4), ((1, 2, 6, 9), (2, 3)), ((1, 1, 5, 5), 5)],
)
def test_unpatchify_inverts_patchify(shape, patch):
    images = torch.randn(shape)
    back = unpatchify(patchify(images, patch), shape[-2:], patch)
    assert torch.equal(back, images)


@pytest.mark.parametrize(
    "bad, match",
    [
        ((torch.zeros(1, 1, 8, 8), 3), r"image size 8x8 is not divisible by patch_size 3x3"),
        ((torch.zeros(1, 1, 8, 10), (2, 4)), r"8x10 is not divisible by patch_size 2x4"),
        ((torch.zeros(8, 8), 2), r"images must be \(B, C, H, W\), got \(8, 8\)"),
        ((torch.zeros(1, 8, 8), 2), r"got \(1, 8, 8\)"),
        (([[0.0] * 8] * 8, 2), r"got list"),
        ((torch.zeros(1, 1, 8, 8), 0), r"patch_size must be a positive integer"),
        ((torch.zeros(1, 1, 8, 8), (2, 2, 2)), r"patch_size must be an int or a pair"),
    ],
)
def test_patchify_rejects_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        patchify(*bad)


def test_unpatchify_rejects_patches_that_do_not_fit():
    with pytest.raises(
        ValueError, match=r"patches \(1, 15, 4\) do not fit .* want \(B, 16, C\*4\)"
    ):
        unpatchify(torch.zeros(1, 15, 4), 8, 2)
    with pytest.raises(ValueError, match=r"patches must be a \(B, N, C\*ph\*pw\) tensor"):
        unpatchify(torch.zeros(16, 4), 8, 2)
    with pytest.raises(ValueError, match=r"not divisible"):
        unpatchify(torch.zeros(1, 16, 4), 9, 2)


@pytest.mark.parametrize("channels, size, patch", [(1, 8, 2), (3, 16, 4), (2, (6, 9), (2, 3))])
def test_linear_patch_embedding_equals_a_strided_convolution(channels, size, patch):
    torch.manual_seed(0)
    H, W = (size, size) if isinstance(size, int) else size
    ph, pw = (patch, patch) if isinstance(patch, int) else patch
    images = torch.randn(2, channels, H, W)
    linear = nn.Linear(channels * ph * pw, 16)
    conv = conv_patch_embedding(linear, channels, patch)
    assert conv.kernel_size == (ph, pw) and conv.stride == (ph, pw)
    by_conv = conv(images).flatten(2).transpose(1, 2)  # (B, D, gh, gw) -> (B, N, D)
    torch.testing.assert_close(linear(patchify(images, patch)), by_conv, atol=1e-5, rtol=1e-5)
    # and the other way round: any conv's weight, reshaped, is the Linear
    conv2 = nn.Conv2d(channels, 16, (ph, pw), stride=(ph, pw))
    linear2 = nn.Linear(channels * ph * pw, 16)
    with torch.no_grad():
        linear2.weight.copy_(conv2.weight.reshape(16, -1))
        linear2.bias.copy_(conv2.bias)
    torch.testing.assert_close(
        linear2(patchify(images, patch)),
        conv2(images).flatten(2).transpose(1, 2),
        atol=1e-5,
        rtol=1e-5,
    )


def test_conv_patch_embedding_rejects_a_mismatched_linear():
    with pytest.raises(ValueError, match=r"in_features = num_channels\*ph\*pw = 12"):
        conv_patch_embedding(nn.Linear(4, 8), 3, 2)


def _random_weights(L, B, H, T, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(B, H, T, T, generator=g), -1) for _ in range(L)]


def test_cls_attention_is_the_cls_row_on_the_grid():
    (w,) = _random_weights(1, 2, 3, 17)
    maps = cls_attention(w, (4, 4))
    assert maps.shape == (2, 3, 4, 4)
    assert torch.equal(maps[1, 2, 1, 3], w[1, 2, 0, 1 + 1 * 4 + 3])  # patch (1, 3) = token 8
    assert cls_attention(w[0, 0], (4, 4)).shape == (4, 4)
    with pytest.raises(ValueError, match=r"attention must be \(\.\.\., 10, 10\) for grid 3x3"):
        cls_attention(w, (3, 3))


def test_position_similarity():
    torch.manual_seed(0)
    pos = torch.randn(1, 17, 8)
    sim = position_similarity(pos, (4, 4))
    assert sim.shape == (4, 4, 4, 4)
    flat = sim.reshape(16, 16)
    torch.testing.assert_close(flat.diagonal(), torch.ones(16))
    torch.testing.assert_close(flat, flat.T)
    expected = torch.nn.functional.cosine_similarity(pos[0, 1 + 6], pos[0, 1 + 9], dim=0)
    torch.testing.assert_close(sim[1, 2, 2, 1], expected)  # patch 6 = (1, 2), patch 9 = (2, 1)
    torch.testing.assert_close(position_similarity(pos[0], (4, 4)), sim)
    torch.testing.assert_close(position_similarity(pos[0, 1:], (4, 4)), sim)
    with pytest.raises(ValueError, match=r"pos_embed must be \(1, 10, D\), \(10, D\) or \(9, D\)"):
        position_similarity(pos, (3, 3))


def test_similarity_by_distance_averages_the_pairs_at_each_distance():
    coords = torch.stack(torch.meshgrid(torch.arange(4.0), torch.arange(4.0), indexing="ij"), -1)
    table = similarity_by_distance(coords.reshape(16, 2) - 1.5, (4, 4))  # 2-D coordinates
    assert table.shape == (4, 4) and table[0, 0] == 1
    assert table[0, 1] > table[0, 3] and table[1, 0] > table[3, 0]  # falls with distance
    torch.manual_seed(0)
    pos = torch.randn(1, 1 + 6, 5)
    sim = position_similarity(pos, (2, 3)).reshape(6, 6)
    by_distance = similarity_by_distance(pos, (2, 3))
    assert by_distance.shape == (2, 3)
    # one row and two columns apart: patches 0 and 5, 2 and 3 (each pair twice, symmetric)
    torch.testing.assert_close(by_distance[1, 2], (sim[0, 5] + sim[2, 3]) / 2)
    torch.testing.assert_close(
        by_distance[0, 1], (sim[0, 1] + sim[1, 2] + sim[3, 4] + sim[4, 5]) / 4
    )
    with pytest.raises(ValueError, match=r"pos_embed must be"):
        similarity_by_distance(pos, (3, 3))


def test_reshapes_take_any_dtype():
    """patchify / unpatchify / cls_attention only reshape: uint8 and integer tensors are
    legitimate and keep their dtype."""
    images = torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.uint8)
    patches = patchify(images, 4)
    assert patches.dtype == torch.uint8 and patches.shape == (2, 4, 48)
    assert torch.equal(unpatchify(patches, 8, 4), images)
    assert cls_attention(torch.arange(25).reshape(5, 5), (2, 2)).dtype == torch.int64
