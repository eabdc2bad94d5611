"""lecturekit.vit (patches, ViT, Hugging Face equality, rollout) and lecturekit.datasets.digits."""

import pytest
import torch
from torch import nn

from lecturekit.datasets.digits import (
    DigitsData,
    batches,
    load_digits_data,
    random_affine,
    random_shift,
)
from lecturekit.vit import (
    ViT,
    ViTConfig,
    _hf_state_dict,
    attention_rollout,
    cls_attention,
    conv_patch_embedding,
    patchify,
    position_similarity,
    unpatchify,
)
from lecturekit.vit_digits import accuracy, train_classifier


@pytest.fixture(scope="module")
def digits():
    return load_digits_data()


# ---------------------------------------------------------------------------------------------
# patchify / unpatchify / the conv equivalence
# ---------------------------------------------------------------------------------------------


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
        ((torch.zeros(8, 8), 2), r"images must be a \(B, C, H, W\) tensor, got \(8, 8\)"),
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


# ---------------------------------------------------------------------------------------------
# ViTConfig and ViT
# ---------------------------------------------------------------------------------------------


def test_config_tiny_is_the_lecture_model():
    c = ViTConfig.tiny()
    assert (c.image_size, c.patch_size, c.num_channels, c.grid, c.num_patches, c.patch_dim) == (
        8, 2, 1, (4, 4), 16, 4
    )  # fmt: skip
    assert ViTConfig.tiny(d_model=32).d_model == 32
    assert ViTConfig(image_size=(8, 12), patch_size=(2, 3), num_channels=3).grid == (4, 4)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"d_model": 30}, r"d_model=30 is not divisible by num_heads=4"),
        ({"patch_size": 3}, r"image size 8x8 is not divisible by patch_size 3x3"),
        ({"num_channels": 0}, r"num_channels must be a positive integer"),
        ({"num_layers": 1.5}, r"num_layers must be a positive integer"),
        ({"dropout": 1.0}, r"dropout must be in \[0, 1\)"),
    ],
)
def test_config_rejects_bad_sizes(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ViTConfig(**kwargs)


def test_vit_shapes_and_weights():
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny(num_layers=3)).eval()
    logits, weights = model(torch.rand(5, 1, 8, 8))
    assert logits.shape == (5, 10)
    assert len(weights) == 3 and all(w.shape == (5, 4, 17, 17) for w in weights)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(5, 4, 17))
    assert model.embed(torch.rand(5, 1, 8, 8)).shape == (5, 17, 64)
    hidden, _ = model.encode(torch.rand(5, 1, 8, 8))
    assert hidden.shape == (5, 17, 64)


def test_embed_is_cls_then_patches_plus_positions():
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny())
    images = torch.rand(3, 1, 8, 8)
    patches = patchify(images, 2) @ model.patch_embed.weight.T + model.patch_embed.bias
    z0 = torch.cat([model.cls_token.expand(3, 1, 64), patches], dim=1) + model.pos_embed
    torch.testing.assert_close(model.embed(images), z0)


def test_without_positions_the_vit_cannot_tell_where_a_patch_is():
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny()).eval()
    images = torch.rand(2, 1, 8, 8)
    perm = torch.randperm(16)
    shuffled = unpatchify(patchify(images, 2)[:, perm], 8, 2)
    assert not torch.allclose(model(images)[0], model(shuffled)[0], atol=1e-4)  # positions matter
    with torch.no_grad():
        model.pos_embed.zero_()
    torch.testing.assert_close(model(images)[0], model(shuffled)[0], atol=1e-5, rtol=1e-5)


def test_vit_rejects_bad_input():
    model = ViT(ViTConfig.tiny())
    with pytest.raises(ValueError, match=r"images must be \(B, 1, 8, 8\), got \(2, 1, 16, 16\)"):
        model(torch.zeros(2, 1, 16, 16))
    with pytest.raises(ValueError, match=r"images must be \(B, 1, 8, 8\), got \(2, 3, 8, 8\)"):
        model(torch.zeros(2, 3, 8, 8))
    with pytest.raises(ValueError, match=r"config must be a ViTConfig, got dict"):
        ViT({"d_model": 64})


def test_qkv_bias_false_drops_three_biases():
    model = ViT(ViTConfig.tiny(qkv_bias=False))
    attn = model.encoder.layers[0].self_attn
    assert attn.w_q.bias is None and attn.w_k.bias is None and attn.w_v.bias is None
    assert attn.w_o.bias is not None
    n_full = sum(p.numel() for p in ViT(ViTConfig.tiny()).parameters())
    assert sum(p.numel() for p in model.parameters()) == n_full - 2 * 3 * 64


# ---------------------------------------------------------------------------------------------
# Hugging Face equality
# ---------------------------------------------------------------------------------------------


def _hf(**kwargs):
    pytest.importorskip("transformers")
    from transformers import ViTConfig as HFConfig
    from transformers import ViTForImageClassification

    torch.manual_seed(0)
    base = dict(image_size=8, patch_size=2, num_channels=1, hidden_size=32, num_hidden_layers=2,
                num_attention_heads=4, intermediate_size=37, num_labels=10)  # fmt: skip
    config = HFConfig(**{**base, **kwargs}, attn_implementation="eager")
    model = ViTForImageClassification(config).eval()
    with torch.no_grad():  # perturb every weight: LayerNorms start at 1 and 0, [CLS] near 0
        for param in model.parameters():
            param.add_(torch.randn_like(param) * 0.2)
        model.vit.embeddings.cls_token.normal_()
        model.vit.embeddings.position_embeddings.normal_()
    return model


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"image_size": 16, "patch_size": 4, "num_channels": 3, "qkv_bias": False},
        {"image_size": (8, 12), "patch_size": (2, 3), "num_channels": 2, "num_labels": 3},
        {"hidden_act": "relu", "num_hidden_layers": 3, "layer_norm_eps": 1e-6},
    ],
)
def test_from_hf_gives_identical_logits_attentions_and_hidden_states(kwargs):
    hf = _hf(**kwargs)
    ours = ViT.from_hf(hf)
    c = hf.config
    size = c.image_size if isinstance(c.image_size, (tuple, list)) else (c.image_size,) * 2
    images = torch.randn(3, c.num_channels, *size)
    with torch.no_grad():
        out = hf(images, output_attentions=True, output_hidden_states=True)
        logits, weights = ours(images)
        hidden = [ours.embed(images)]
        for layer in ours.encoder.layers:
            hidden.append(layer(hidden[-1])[0])
    assert not ours.training
    torch.testing.assert_close(logits, out.logits, atol=1e-5, rtol=1e-5)
    assert len(weights) == len(out.attentions) == c.num_hidden_layers
    for mine, theirs in zip(weights, out.attentions, strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=1e-5)
    for mine, theirs in zip(hidden, out.hidden_states, strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=1e-5)
    assert ours.config.qkv_bias == c.qkv_bias and ours.config.layer_norm_eps == c.layer_norm_eps


def test_from_hf_reads_transformers_4_weight_names():
    hf = _hf()
    new = hf.state_dict()
    old = {}
    for k, v in new.items():  # transformers 4.x names (before conversion_mapping.py's renames)
        k = k.replace("vit.layers.", "vit.encoder.layer.")
        for a, b in (("q", "query"), ("k", "key"), ("v", "value")):
            k = k.replace(f"attention.{a}_proj", f"attention.attention.{b}")
        k = k.replace("attention.o_proj", "attention.output.dense")
        k = k.replace("mlp.fc1", "intermediate.dense").replace("mlp.fc2", "output.dense")
        old[k] = v
    assert "vit.encoder.layer.0.attention.attention.query.weight" in old
    assert "vit.encoder.layer.0.output.dense.bias" in old
    from_old, from_new = _hf_state_dict(old, 2), _hf_state_dict(new, 2)
    assert from_old.keys() == from_new.keys() == ViT(ViTConfig.tiny(d_model=32)).state_dict().keys()
    assert all(torch.equal(from_old[k], from_new[k]) for k in from_new)


def test_from_hf_refuses_what_it_cannot_copy():
    with pytest.raises(
        ValueError, match=r"must be a transformers.ViTForImageClassification, got Linear"
    ):
        ViT.from_hf(nn.Linear(2, 2))
    with pytest.raises(ValueError, match=r"hidden_act='gelu_new' is not supported"):
        ViT.from_hf(_hf(hidden_act="gelu_new"))
    with pytest.raises(ValueError, match=r"num_labels=0"):
        ViT.from_hf(_hf(num_labels=0))


# ---------------------------------------------------------------------------------------------
# rollout, [CLS] maps, position similarity
# ---------------------------------------------------------------------------------------------


def _random_weights(L, B, H, T, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(B, H, T, T, generator=g), -1) for _ in range(L)]


def test_rollout_of_one_layer_is_half_attention_half_identity():
    (w,) = _random_weights(1, 2, 3, 5)
    expected = 0.5 * w.mean(1) + 0.5 * torch.eye(5)
    torch.testing.assert_close(attention_rollout([w]), expected)


def test_rollout_multiplies_the_layers_from_the_bottom_up():
    ws = _random_weights(3, 2, 4, 6)
    a = [0.5 * w.mean(1) + 0.5 * torch.eye(6) for w in ws]
    expected = a[2] @ a[1] @ a[0]
    rollout = attention_rollout(ws)
    torch.testing.assert_close(rollout, expected)
    torch.testing.assert_close(attention_rollout(torch.stack(ws)), expected)
    torch.testing.assert_close(rollout.sum(-1), torch.ones(2, 6))
    assert not torch.allclose(rollout, a[0] @ a[1] @ a[2])  # the order matters


def test_rollout_max_fusion_is_renormalised():
    ws = _random_weights(2, 1, 4, 5)
    rollout = attention_rollout(ws, head_fusion="max")
    torch.testing.assert_close(rollout.sum(-1), torch.ones(1, 5))
    a = [(w.amax(1) + torch.eye(5)) / (w.amax(1) + torch.eye(5)).sum(-1, keepdim=True) for w in ws]
    torch.testing.assert_close(rollout, a[1] @ a[0])


def test_rollout_rejects_bad_input():
    with pytest.raises(ValueError, match=r"weights must be a list of \(B, H, T, T\)"):
        attention_rollout([torch.zeros(2, 5, 5)])
    with pytest.raises(ValueError, match=r"head_fusion='min' is not one of"):
        attention_rollout(_random_weights(1, 1, 1, 3), head_fusion="min")


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


# ---------------------------------------------------------------------------------------------
# the digits data and the training recipe
# ---------------------------------------------------------------------------------------------


def test_digits_split_is_fixed_stratified_and_complete(digits):
    assert digits.train_images.shape == (1438, 1, 8, 8) and digits.test_images.shape == (
        359,
        1,
        8,
        8,
    )
    assert digits.train_images.dtype == torch.float32 and digits.train_labels.dtype == torch.int64
    assert digits.train_images.min() >= 0 and digits.train_images.max() == 1
    counts = torch.bincount(torch.cat([digits.train_labels, digits.test_labels]))
    test_counts = torch.bincount(digits.test_labels)
    assert test_counts.tolist() == [round(0.2 * n) for n in counts.tolist()]
    again = load_digits_data()
    assert torch.equal(again.test_images, digits.test_images)
    other = load_digits_data(seed=1)
    assert not torch.equal(other.test_labels, digits.test_labels)
    with pytest.raises(ValueError, match=r"test_fraction must be in \(0, 1\), got 1.5"):
        load_digits_data(test_fraction=1.5)


def test_with_train_fraction(digits):
    small = digits.with_train_fraction(0.1)
    assert len(small.train_labels) == 143 and torch.bincount(small.train_labels).min() >= 14
    assert small.test_images is digits.test_images
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\], got 0"):
        digits.with_train_fraction(0)


def test_random_shift_moves_each_image_by_at_most_one_pixel():
    images = torch.rand(64, 2, 6, 6)
    shifted = random_shift(images, 1, torch.Generator().manual_seed(0))
    padded = torch.nn.functional.pad(images, (1, 1, 1, 1))
    seen = set()
    for b in range(64):
        options = [(dy, dx) for dy in range(3) for dx in range(3)
                   if torch.equal(shifted[b], padded[b, :, dy : dy + 6, dx : dx + 6])]  # fmt: skip
        assert options, f"image {b} is not a 1-pixel shift of its input"
        seen.update(options)
    assert len(seen) == 9  # every shift occurs
    assert random_shift(images, 0) is images
    assert torch.equal(random_shift(images, 1, prob=0.0), images)
    with pytest.raises(ValueError, match=r"max_shift must be a non-negative integer, got -1"):
        random_shift(images, -1)
    with pytest.raises(ValueError, match=r"images must be a \(B, C, H, W\) tensor, got \(6, 6\)"):
        random_shift(images[0, 0], 1)


def test_random_affine():
    images = torch.rand(8, 1, 8, 8)
    torch.testing.assert_close(random_affine(images, 0.0, 0.0), images, atol=1e-6, rtol=0)
    assert torch.equal(random_affine(images, 30.0, 0.2, prob=0.0), images)
    moved = random_affine(images, 30.0, 0.2, torch.Generator().manual_seed(0))
    assert moved.shape == images.shape and not torch.allclose(moved, images)
    square = torch.zeros(1, 1, 8, 8)
    square[..., 2:6, 2:6] = 1
    g = torch.Generator().manual_seed(0)
    turned = random_affine(square.expand(200, 1, 8, 8), 45.0, 0.0, g)
    torch.testing.assert_close(turned.sum((1, 2, 3)).mean(), torch.tensor(16.0), atol=1.5, rtol=0)
    with pytest.raises(ValueError, match=r"need rotation >= 0, 0 <= scale < 1"):
        random_affine(images, 10.0, 1.5)


def test_batches_cover_every_item_once():
    x, y = torch.arange(10.0)[:, None], torch.arange(10)
    got = list(batches(x, y, 4, torch.Generator().manual_seed(0)))
    assert [len(b[1]) for b in got] == [4, 4, 2]
    assert sorted(torch.cat([b[1] for b in got]).tolist()) == list(range(10))
    assert torch.cat([b[1] for b in batches(x, y, 3)]).tolist() == list(range(10))
    with pytest.raises(ValueError, match=r"images has 10 entries but labels has 9"):
        list(batches(x, y[:9], 4))
    with pytest.raises(ValueError, match=r"batch_size must be a positive integer"):
        list(batches(x, y, 0))


class _Fixed(nn.Module):
    """Predicts class 0 for every image and is 'trained' when asked."""

    def forward(self, images):
        logits = torch.zeros(len(images), 10)
        logits[:, 0] = 1
        return logits, None


def test_accuracy_counts_and_restores_the_mode():
    model = _Fixed().train()
    labels = torch.tensor([0, 0, 1, 2, 0, 3, 0, 0])
    assert accuracy(model, torch.zeros(8, 1, 8, 8), labels, batch_size=3) == 5 / 8
    assert model.training


def _small(digits, n=200):
    return DigitsData(digits.train_images[:n], digits.train_labels[:n], digits.test_images[:100],
                      digits.test_labels[:100])  # fmt: skip


def test_train_classifier_is_deterministic_and_records_each_epoch(digits):
    data = _small(digits)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = ViT(ViTConfig.tiny(d_model=16, d_ff=32, num_layers=1))
        history = train_classifier(model, data, epochs=3, batch_size=50, seed=3)
        runs.append((history, model))
    (h1, m1), (h2, m2) = runs
    assert len(h1.loss) == len(h1.eval) == 3 and h1.seconds > 0
    assert h1.loss == h2.loss and h1.eval == h2.eval
    assert all(torch.equal(a, b) for a, b in zip(m1.parameters(), m2.parameters(), strict=True))
    assert not m1.training
    once = train_classifier(m1, data, epochs=2, batch_size=50, eval_every_epoch=False)
    assert len(once.loss) == 2 and once.eval == [accuracy(m1, data.test_images, data.test_labels)]


def test_train_classifier_learns(digits):
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    before = accuracy(mlp, digits.test_images, digits.test_labels)
    history = train_classifier(mlp, digits, epochs=10, lr=5e-3, warmup_epochs=1, seed=0)
    assert before < 0.3 and history.eval[-1] > 0.9
    assert history.loss[-1] < history.loss[0]


def test_train_classifier_decays_only_weight_matrices(digits):
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny(d_model=16, d_ff=32, num_layers=1))
    with torch.no_grad():
        model.pos_embed.fill_(1.0)
    head, bias = model.head.weight.detach().clone(), model.head.bias.detach().clone()
    # one step with a tiny lr: Adam moves nothing; decoupled decay multiplies by 1 - lr * wd
    train_classifier(model, _small(digits, 64), epochs=1, batch_size=64, lr=1e-9,
                     weight_decay=1e8, warmup_epochs=0)  # fmt: skip
    torch.testing.assert_close(model.head.weight, 0.9 * head, atol=1e-6, rtol=0)
    torch.testing.assert_close(model.head.bias, bias, atol=1e-6, rtol=0)
    torch.testing.assert_close(model.pos_embed, torch.ones_like(model.pos_embed), atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epochs": 0}, r"epochs must be a positive integer"),
        ({"lr": 0.0}, r"lr must be > 0, got 0.0"),
        ({"warmup_epochs": -1}, r"warmup_epochs must be a non-negative integer, got -1"),
    ],
)
def test_train_classifier_rejects_bad_settings(digits, kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_classifier(nn.Linear(64, 10), digits, **kwargs)
