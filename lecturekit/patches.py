"""The patch grid of a Vision Transformer: cutting images into patches and back, the patch
embedding as a strided convolution, and maps over the grid.

Public API::

    gh, gw = grid_size(image_size, patch_size)      # patches per column and per row
    patches = patchify(images, patch_size)          # (B, C, H, W) -> (B, N, C*p*p)
    images = unpatchify(patches, image_size, patch_size)             # the inverse
    conv = conv_patch_embedding(linear, C, p)       # the same map as a strided Conv2d
    maps = cls_attention(weights, grid)             # [CLS] row over the patches: (..., gh, gw)
    sim = position_similarity(pos_embed, grid)      # (gh, gw, gh, gw) cosine similarities
    table = similarity_by_distance(pos_embed, grid)  # (gh, gw): mean by (row, column) distance

``image_size``/``patch_size`` are an int (square) or (height, width); ``grid`` is (gh, gw), the
patches per column and per row. Each patch is flattened in (C, ph, pw) order and the patches
come in row-major order, so the Linear patch embedding is a Conv2d with kernel = stride = patch
size whose weight is the Linear weight reshaped to (D, C, ph, pw). The ViT that uses them is
``lecturekit.models.vit``.

Dtypes: ``patchify``, ``unpatchify`` and ``cls_attention`` only reshape and index, so any dtype
is legitimate (uint8 images come back uint8: convert to float before a Linear embedding);
``position_similarity`` and ``similarity_by_distance`` compute cosines and need a floating
``pos_embed``.

Lecture 09; Dosovitskiy et al. 2021 (ViT) section 3.1, Figures 6 and 7.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.utils.checks import as_pair, check_positive_int, check_tensor, shape_of
from lecturekit.utils.contracts import contract

__all__ = [
    "Size",
    "grid_size",
    "patchify",
    "unpatchify",
    "conv_patch_embedding",
    "cls_attention",
    "similarity_by_distance",
    "position_similarity",
]

Size = int | tuple[int, int]


def grid_size(image_size: Size, patch_size: Size) -> tuple[int, int]:
    """(gh, gw) = (H / ph, W / pw): how many patches fit per column and per row.

    Raises ValueError unless the patch size divides the image size.

    Lecture 09; Dosovitskiy et al. 2021 section 3.1 (N = HW / P^2).
    """
    (H, W), (ph, pw) = as_pair("image_size", image_size), as_pair("patch_size", patch_size)
    if H % ph or W % pw:
        raise ValueError(
            f"image size {H}x{W} is not divisible by patch_size {ph}x{pw}: "
            "H and W must be multiples of the patch size"
        )
    return H // ph, W // pw


@contract(images="any: B C H W")
def patchify(images: torch.Tensor, patch_size: Size) -> torch.Tensor:
    """Cut images into non-overlapping patches and flatten each one.

    Args:
        images: (B, C, H, W), H and W divisible by the patch size.
        patch_size: p (square patches) or (ph, pw).

    Returns:
        (B, N, C*ph*pw), N = (H/ph)(W/pw) patches in row-major order, each flattened in
        (C, ph, pw) order.

    Lecture 09; Dosovitskiy et al. 2021 section 3.1 (x_p in R^{N x (P^2 C)}).
    """
    B, C, H, W = images.shape
    gh, gw = grid_size((H, W), patch_size)
    ph, pw = H // gh, W // gw
    x = images.reshape(B, C, gh, ph, gw, pw)  # (B, C, H, W) -> (B, C, gh, ph, gw, pw)
    x = x.permute(0, 2, 4, 1, 3, 5)  # -> (B, gh, gw, C, ph, pw)
    return x.reshape(B, gh * gw, C * ph * pw)  # -> (B, N, C*ph*pw)


def unpatchify(patches: torch.Tensor, image_size: Size, patch_size: Size) -> torch.Tensor:
    """The inverse of ``patchify``: patches (B, N, C*ph*pw) -> images (B, C, H, W).

    Lecture 09.
    """
    check_tensor("patches", patches, wanted="(B, N, C*ph*pw)")
    if patches.ndim != 3:
        raise ValueError(f"patches must be a (B, N, C*ph*pw) tensor, got {shape_of(patches)}")
    (gh, gw), (ph, pw) = grid_size(image_size, patch_size), as_pair("patch_size", patch_size)
    B, N, P = patches.shape
    if gh * gw != N or P % (ph * pw):
        raise ValueError(
            f"patches {tuple(patches.shape)} do not fit image_size {image_size} and patch_size "
            f"{patch_size}: want (B, {gh * gw}, C*{ph * pw})"
        )
    C = P // (ph * pw)
    x = patches.reshape(B, gh, gw, C, ph, pw)  # (B, N, C*ph*pw) -> (B, gh, gw, C, ph, pw)
    x = x.permute(0, 3, 1, 4, 2, 5)  # -> (B, C, gh, ph, gw, pw)
    return x.reshape(B, C, gh * ph, gw * pw)  # -> (B, C, H, W)


def conv_patch_embedding(linear: nn.Linear, num_channels: int, patch_size: Size) -> nn.Conv2d:
    """The Conv2d (kernel = stride = patch size) equal to ``linear(patchify(images))``:
    conv(images).flatten(2).transpose(1, 2) gives the same (B, N, D).

    Lecture 09; Dosovitskiy et al. 2021 section 3.1 (hybrid architecture).
    """
    ph, pw = as_pair("patch_size", patch_size)
    check_positive_int("num_channels", num_channels)
    if not isinstance(linear, nn.Linear):
        raise ValueError(f"linear must be an nn.Linear, got {type(linear).__name__}")
    if linear.in_features != num_channels * ph * pw:
        raise ValueError(
            f"linear must be an nn.Linear with in_features = num_channels*ph*pw = "
            f"{num_channels * ph * pw}, got {linear}"
        )
    conv = nn.Conv2d(
        num_channels, linear.out_features, (ph, pw), stride=(ph, pw), bias=linear.bias is not None
    )
    with torch.no_grad():
        # (D, C*p*p) -> (D, C, p, p)
        conv.weight.copy_(linear.weight.reshape(-1, num_channels, ph, pw))
        if linear.bias is not None:
            conv.bias.copy_(linear.bias)
    return conv


def cls_attention(attention: torch.Tensor, grid: tuple[int, int]) -> torch.Tensor:
    """The [CLS] row of attention weights (or of a rollout) over the patches, as an image.

    Args:
        attention: (..., 1+N, 1+N), token 0 = [CLS].
        grid: (gh, gw) with gh * gw = N.

    Returns:
        (..., gh, gw): attention[..., 0, 1:] on the patch grid (the weight [CLS] puts on
        itself is left out, nothing is renormalised).

    Lecture 09; Dosovitskiy et al. 2021 Figure 6.
    """
    gh, gw = as_pair("grid", grid)
    T = 1 + gh * gw
    check_tensor("attention", attention, wanted=f"(..., {T}, {T})")
    if attention.ndim < 2 or attention.shape[-2:] != (T, T):
        raise ValueError(
            f"attention must be (..., {T}, {T}) for grid {gh}x{gw}, got {shape_of(attention)}"
        )
    return attention[..., 0, 1:].reshape(*attention.shape[:-2], gh, gw)  # (..., N) -> (..., gh, gw)


def position_similarity(pos_embed: torch.Tensor, grid: tuple[int, int]) -> torch.Tensor:
    """Cosine similarity of the position embeddings of every pair of patches.

    Args:
        pos_embed: (1, 1+N, D) or (1+N, D) with [CLS] first, or (N, D).
        grid: (gh, gw) with gh * gw = N.

    Returns:
        (gh, gw, gh, gw): [i, j] is patch (i, j)'s similarity to every patch, as a map.

    Lecture 09; Dosovitskiy et al. 2021 Figure 7 (centre).
    """
    gh, gw = as_pair("grid", grid)
    N = gh * gw
    check_tensor("pos_embed", pos_embed, wanted=f"(1, {N + 1}, D)")
    p = pos_embed.detach()
    if p is not None and p.ndim == 3 and p.shape[0] == 1:
        p = p[0]  # (1, T, D) -> (T, D)
    if p.ndim != 2 or p.shape[0] not in (N, N + 1):
        raise ValueError(
            f"pos_embed must be (1, {N + 1}, D), ({N + 1}, D) or ({N}, D) for "
            f"grid {gh}x{gw}, got {shape_of(pos_embed)}"
        )
    check_tensor("pos_embed", p, floating=True, wanted=f"(1, {N + 1}, D)")
    p = F.normalize(p[-N:], dim=-1)  # drop [CLS]: (N, D), unit rows
    return (p @ p.T).reshape(gh, gw, gh, gw)  # (N, D) @ (D, N) -> (N, N) -> (gh, gw, gh, gw)


def similarity_by_distance(pos_embed: torch.Tensor, grid: tuple[int, int]) -> torch.Tensor:
    """The mean cosine similarity of two patches' position embeddings, by how far apart they
    are: a compact summary of ``position_similarity``.

    Args:
        pos_embed: as in ``position_similarity``.
        grid: (gh, gw).

    Returns:
        (gh, gw): [dr, dc] is the mean similarity over the pairs of patches dr rows and dc
        columns apart ([0, 0] = 1). 2-D structure: the values fall as either distance grows.

    Lecture 09; Dosovitskiy et al. 2021 Figure 7 (centre).
    """
    gh, gw = as_pair("grid", grid)
    sim = position_similarity(pos_embed, (gh, gw)).reshape(gh * gw, gh * gw)  # (N, N)
    rows, cols = torch.arange(gh).repeat_interleave(gw), torch.arange(gw).repeat(gh)  # (N,)
    d_row = (rows[:, None] - rows[None, :]).abs()  # (N, N)
    d_col = (cols[:, None] - cols[None, :]).abs()
    table = torch.zeros(gh, gw, dtype=sim.dtype)
    for dr in range(gh):
        for dc in range(gw):
            table[dr, dc] = sim[(d_row == dr) & (d_col == dc)].mean()
    return table
