"""The Vision Transformer: an image cut into patches, each patch a token, a Transformer encoder.

Public API::

    config = ViTConfig.tiny()                       # lecture 09's (8 x 8 digits, p = 2);
                                                    # ViTConfig() is ViT-Base/16
    model = ViT(config)
    logits, weights = model(images)                 # (B, classes), list of (B, H, 1+N, 1+N)
    #   images (B, C, H, W): float (cast to the model's dtype) or uint8 (0..255, -> / 255)
    model = ViT.from_hf(hf_model)                   # any transformers ViTForImageClassification
    rollout = attention_rollout(weights)            # (B, 1+N, 1+N), Abnar & Zuidema 2020

The patch geometry (``patchify``, ``unpatchify``, ``conv_patch_embedding``, ``cls_attention``,
``position_similarity``) is in ``lecturekit.patches``. ``image_size``/``patch_size`` are an int
(square) or (height, width). Each patch is flattened in (C, ph, pw) order and the patches come
in row-major order, so the Linear patch embedding is a Conv2d with kernel = stride = patch size
whose weight is the Linear weight reshaped to (D, C, ph, pw).

Lecture 09; Dosovitskiy et al. 2021 (ViT) eq. 1-4; Abnar & Zuidema 2020 (rollout).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import nn

from lecturekit.layers import Encoder
from lecturekit.models.bert import check_hf_layer_norms
from lecturekit.patches import Size, grid_size, patchify
from lecturekit.utils.checks import (
    as_pair,
    check_bool,
    check_choice,
    check_instance,
    check_tensor,
    module_dtype,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.weights import HF_MAPS, VIT_HF4_RENAMES, load_mapped

__all__ = ["ViTConfig", "ViT", "attention_rollout"]


@dataclass(frozen=True)
class ViTConfig(ModelConfig):
    """Sizes of a ViT (Hugging Face names in brackets where they differ).

    ``qkv_bias=False`` drops the biases of W^Q, W^K, W^V (W^O keeps its own, as in HF).
    The defaults are ViT-Base/16 on ImageNet (224 x 224 RGB images in 16 x 16 patches, D = 768,
    12 layers of 12 heads, MLP 3072, 1000 classes, dropout 0.1, LayerNorm eps 1e-6, about 86 M
    parameters); ``tiny()`` is lecture 09's: scikit-learn's 8 x 8 grey digits in 2 x 2 patches
    (a 4 x 4 grid of 16 tokens), D = 64, 2 layers of 4 heads, MLP 128, 10 classes, no dropout
    (69,194 parameters).

    Lecture 09; Dosovitskiy et al. 2021 Tables 1 and 3.
    """

    TINY: ClassVar[dict[str, object]] = {
        "image_size": 8, "patch_size": 2, "num_channels": 1, "d_model": 64, "num_layers": 2,
        "num_heads": 4, "d_ff": 128, "num_classes": 10, "dropout": 0.0,
    }  # fmt: skip

    image_size: Size = 224
    patch_size: Size = 16
    num_channels: int = 3
    d_model: int = 768  # [hidden_size]
    num_layers: int = 12  # [num_hidden_layers]
    num_heads: int = 12  # [num_attention_heads]
    d_ff: int = 3072  # [intermediate_size]
    num_classes: int = 1000  # [num_labels]
    dropout: float = 0.1  # [hidden_dropout_prob]
    layer_norm_eps: float = 1e-6
    activation: str = "gelu"  # [hidden_act]: "gelu" (exact) or "relu"
    qkv_bias: bool = True

    def __post_init__(self) -> None:
        grid_size(self.image_size, self.patch_size)
        self.check_positive("num_channels", "d_model", "num_layers", "num_heads", "d_ff",
                            "num_classes")  # fmt: skip
        self.check_attention("d_model")
        check_choice("activation", self.activation, ["gelu", "relu"])
        check_bool("qkv_bias", self.qkv_bias)

    @property
    def grid(self) -> tuple[int, int]:
        """(gh, gw) = (H / ph, W / pw): patches per column and per row."""
        return grid_size(self.image_size, self.patch_size)

    @property
    def num_patches(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def patch_dim(self) -> int:
        """C * ph * pw: the length of one flattened patch."""
        ph, pw = as_pair("patch_size", self.patch_size)
        return self.num_channels * ph * pw


class ViT(nn.Module):
    """z_0 = [x_class; x_p^1 E; ...; x_p^N E] + E_pos  (patches, [CLS], learned positions),
    z_L = pre-norm Transformer encoder(z_0), y = head(LayerNorm(z_L^0)).

    Lecture 09; Dosovitskiy et al. 2021 eq. 1-4.
    """

    def __init__(self, config: ViTConfig):
        super().__init__()
        check_instance("config", config, ViTConfig)
        self.config = c = config
        self.patch_embed = nn.Linear(c.patch_dim, c.d_model)  # E: (B, N, C*p*p) -> (B, N, D)
        self.cls_token = nn.Parameter(nn.init.trunc_normal_(torch.zeros(1, 1, c.d_model), std=0.02))
        self.pos_embed = nn.Parameter(
            nn.init.trunc_normal_(torch.zeros(1, 1 + c.num_patches, c.d_model), std=0.02)
        )
        self.dropout = nn.Dropout(c.dropout)
        self.encoder = Encoder(c.num_layers, c.d_model, c.num_heads, c.d_ff, dropout=c.dropout,
                               activation=c.activation, norm_first=True,
                               layer_norm_eps=c.layer_norm_eps)  # fmt: skip
        if not c.qkv_bias:  # MultiHeadAttention has one bias flag for all four projections
            for layer in self.encoder.layers:
                for lin in (layer.self_attn.w_q, layer.self_attn.w_k, layer.self_attn.w_v):
                    lin.register_parameter("bias", None)
        self.head = nn.Linear(c.d_model, c.num_classes)

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """images (B, C, H, W) -> z_0 (B, 1+N, D): [CLS] first, then the patches, + positions.

        dtypes: floating-point images are cast to the model's dtype (float64 from numpy
        works); uint8 images (0..255) are converted to it and divided by 255; other integer
        and bool images are rejected (scale them to floats first).
        """
        c = self.config
        want = (c.num_channels, *as_pair("image_size", c.image_size))
        wanted = f"(B, {', '.join(map(str, want))})"
        check_tensor("images", images, wanted=wanted)
        if tuple(images.shape) == want:
            raise ValueError(
                f"images must be {wanted}, got {tuple(images.shape)}: one image without a batch "
                "dimension (pass images[None])"
            )
        if images.ndim != 4 or tuple(images.shape[1:]) != want:
            raise ValueError(f"images must be {wanted}, got {tuple(images.shape)}")
        dtype = module_dtype(self)
        if images.dtype == torch.uint8:
            images = images.to(dtype) / 255
        elif images.is_floating_point():
            images = images.to(dtype)
        else:
            raise ValueError(
                f"images must be floating-point (or uint8 0..255), got dtype {images.dtype} "
                "(convert to floats in [0, 1]: images.float() / 255 for 0..255 pixels, / 16 for "
                "scikit-learn's 0..16 digits)"
            )
        x = self.patch_embed(patchify(images, c.patch_size))  # (B, C, H, W) -> (B, N, D)
        cls = self.cls_token.expand(len(x), -1, -1)  # (1, 1, D) -> (B, 1, D)
        return self.dropout(torch.cat([cls, x], dim=1) + self.pos_embed)  # -> (B, 1+N, D)

    def encode(self, images: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """images -> z_L after the final LayerNorm (B, 1+N, D), and the per-layer weights
        (images as in ``embed``)."""
        return self.encoder(self.embed(images))

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """images (B, C, H, W) -> logits (B, num_classes) and one attention-weight tensor
        (B, H, 1+N, 1+N) per layer; token 0 is [CLS], token 1 + i is patch i (row-major).

        Floating-point images are cast to the model's dtype; uint8 images (0..255) are divided
        by 255; other dtypes raise a ValueError (see ``embed``).
        """
        hidden, weights = self.encode(images)
        return self.head(hidden[:, 0]), weights  # classify [CLS]: (B, D) -> (B, classes)

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> ViT:
        """The same model as a ``transformers.ViTForImageClassification``, weights copied.

        HF embeds patches with a Conv2d; ours is its weight reshaped to (D, C*ph*pw). In eval
        mode the logits and attention weights agree (atol 1e-5). Dropout is taken from
        ``hidden_dropout_prob`` (HF also has ``attention_probs_dropout_prob``; training only).
        transformers 4.x weight names are renamed as transformers 5 does.

        Lecture 09.
        """
        if type(hf_model).__name__ != "ViTForImageClassification":
            raise ValueError(
                "hf_model must be a transformers.ViTForImageClassification, got "
                f"{type(hf_model).__name__}"
            )
        hc = hf_model.config
        if hc.hidden_act not in ("gelu", "relu"):
            raise ValueError(
                f"hf_model.config.hidden_act={hc.hidden_act!r} is not supported: lecturekit's ViT "
                "has hidden_act 'gelu' (exact) or 'relu' (copying would change the function)"
            )
        head_dim = getattr(hc, "head_dim", None) or hc.hidden_size // hc.num_attention_heads
        if head_dim * hc.num_attention_heads != hc.hidden_size:
            raise ValueError(
                f"hf_model.config.head_dim={head_dim} x num_attention_heads="
                f"{hc.num_attention_heads} != hidden_size={hc.hidden_size}: lecturekit's ViT has "
                "head_dim = hidden_size / num_attention_heads"
            )
        if hc.num_labels < 1:
            raise ValueError(f"hf_model.config.num_labels={hc.num_labels}: need a classifier")
        config = ViTConfig(
            image_size=as_pair("image_size", hc.image_size),
            patch_size=as_pair("patch_size", hc.patch_size), num_channels=hc.num_channels,
            d_model=hc.hidden_size, num_layers=hc.num_hidden_layers,
            num_heads=hc.num_attention_heads, d_ff=hc.intermediate_size,
            num_classes=hc.num_labels, dropout=float(hc.hidden_dropout_prob),
            layer_norm_eps=hc.layer_norm_eps, activation=hc.hidden_act, qkv_bias=bool(hc.qkv_bias),
        )  # fmt: skip
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        model = cls(config)
        load_mapped(model, hf_model, HF_MAPS["ViTForImageClassification"], renames=VIT_HF4_RENAMES)
        return model.eval()


def attention_rollout(
    weights: list[torch.Tensor] | torch.Tensor, head_fusion: str = "mean"
) -> torch.Tensor:
    """How much of each token's final representation flows from each input token.

    Per layer: fuse the heads (mean or max), add the identity for the residual connection,
    renormalise the rows; then multiply the layers: R = A_L ... A_2 A_1.

    Args:
        weights: per-layer attention weights, a list of (B, H, T, T) or one (L, B, H, T, T).
        head_fusion: "mean" (Abnar & Zuidema) or "max".

    Returns:
        (B, T, T) with rows summing to 1; row 0 is what [CLS] gathered from every input token.

    Lecture 09; Abnar & Zuidema 2020 section 3 (attention rollout).
    """
    wanted = "a list of (B, H, T, T) or (L, B, H, T, T)"
    if isinstance(weights, (list, tuple)):
        if not weights:
            raise ValueError(f"weights must be {wanted}, got an empty {type(weights).__name__}")
        for i, w in enumerate(weights):
            check_tensor(f"weights[{i}]", w, 4, wanted="(B, H, T, T)", floating=True)
            if w.shape != weights[0].shape:
                raise ValueError(
                    f"weights[{i}] has shape {tuple(w.shape)}, weights[0] {tuple(weights[0].shape)}"
                    ": every layer's weights must have the same shape"
                )
        weights = torch.stack(list(weights))  # L x (B, H, T, T) -> (L, B, H, T, T)
    check_tensor("weights", weights, 5, wanted=wanted, floating=True)
    if weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"weights must be {wanted} (square T x T), got {tuple(weights.shape)}")
    if not isinstance(head_fusion, str) or head_fusion not in ("mean", "max"):
        raise ValueError(f"head_fusion={head_fusion!r} is not one of 'mean', 'max'")
    fused = weights.mean(2) if head_fusion == "mean" else weights.amax(2)  # -> (L, B, T, T)
    a = fused + torch.eye(weights.shape[-1], dtype=weights.dtype)  # + I: the residual stream
    a = a / a.sum(dim=-1, keepdim=True)
    rollout = a[0]
    for layer in a[1:]:
        rollout = layer @ rollout  # (B, T, T) @ (B, T, T): this layer on top of those below
    return rollout
