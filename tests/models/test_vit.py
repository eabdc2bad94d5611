"""lecturekit.models.vit: the ViT, its equality with Hugging Face's, attention rollout."""

import pytest
import torch
from torch import nn

from lecturekit.models.vit import ViT, ViTConfig, attention_rollout
from lecturekit.patches import (
    patchify,
    unpatchify,
)
from lecturekit.utils.weights import HF_MAPS, VIT_HF4_RENAMES, mapped_state_dict


def test_config_tiny_is_the_lecture_model():
    c = ViTConfig.tiny()
    assert (c.image_size, c.patch_size, c.num_channels, c.grid, c.num_patches, c.patch_dim) == (
        8, 2, 1, (4, 4), 16, 4
    )  # fmt: skip
    assert ViTConfig.tiny(d_model=32).d_model == 32
    assert ViTConfig.tiny(image_size=(8, 12), patch_size=(2, 3), num_channels=3).grid == (4, 4)
    base = ViTConfig()  # the paper's ViT-Base/16
    assert (base.grid, base.d_model, base.num_layers, base.num_heads) == ((14, 14), 768, 12, 12)
    assert ViTConfig.from_dict(ViTConfig.tiny(image_size=(8, 12)).to_dict()).image_size == (8, 12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"d_model": 30}, r"d_model=30 is not divisible by num_heads=4"),
        ({"patch_size": 3}, r"image size 8x8 is not divisible by patch_size 3x3"),
        ({"num_channels": 0}, r"num_channels must be a positive integer"),
        ({"num_layers": 1.5}, r"num_layers must be a positive integer"),
        ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\), got 1.0"),
        ({"activation": "tanh"}, r"activation='tanh' is not one of \['gelu', 'relu'\]"),
    ],
)
def test_config_rejects_bad_sizes(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ViTConfig.tiny(**kwargs)


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
    table = HF_MAPS["ViTForImageClassification"]
    from_old = mapped_state_dict(old, table, VIT_HF4_RENAMES)
    from_new = mapped_state_dict(new, table, VIT_HF4_RENAMES)
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
    with pytest.raises(
        ValueError, match=r"weights\[0\] must have shape \(B, H, T, T\), got \(2, 5, 5\)"
    ):
        attention_rollout([torch.zeros(2, 5, 5)])
    with pytest.raises(ValueError, match=r"head_fusion='min' is not one of"):
        attention_rollout(_random_weights(1, 1, 1, 3), head_fusion="min")
