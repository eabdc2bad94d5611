"""scikit-learn's bundled handwritten digits (8 x 8, 1,797 images; no download), with a fixed
train/test split, augmentation (random shifts, rotations and zooms) and shuffled mini-batches.

Public API::

    data = load_digits_data(test_fraction=0.2, seed=0)
    data.train_images, data.test_images   # (N, 1, 8, 8) float32 in [0, 1] (pixel / 16)
    data.train_labels, data.test_labels   # (N,) int64 in 0..9
    small = data.with_train_fraction(0.25)  # a stratified quarter of the training images
    random_shift(images, max_shift=1, generator=None, prob=1.0)   # move by up to 1 pixel
    random_affine(images, rotation=15.0, scale=0.1, generator=None, prob=1.0)  # turn and zoom
    #   images (B, C, H, W); random_affine needs floating-point images, random_shift any dtype
    for images, labels in batches(images, labels, batch_size, generator=None): ...

Training and evaluation on these data live in ``lecturekit.shipped.vit``.

The split is stratified (the same share of every digit in both parts) and depends only on
``seed`` and ``test_fraction``, not on the scikit-learn version's shuffling.

Lecture 09; Alpaydin & Kaynak 1998 (UCI optical recognition of handwritten digits).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from lecturekit.utils.checks import (
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_seed,
    check_tensor,
)

__all__ = [
    "DigitsData",
    "load_digits_data",
    "random_affine",
    "random_shift",
    "batches",
]


@dataclass(frozen=True)
class DigitsData:
    """Images (N, 1, 8, 8) float32 in [0, 1] and labels (N,) int64, split into train and test."""

    train_images: torch.Tensor
    train_labels: torch.Tensor
    test_images: torch.Tensor
    test_labels: torch.Tensor

    @property
    def num_classes(self) -> int:
        return 10

    def with_train_fraction(self, fraction: float, seed: int = 0) -> DigitsData:
        """The same test set, and ``fraction`` of the training images of every class (chosen
        with ``seed``; at least one per class), for learning curves. 0 < fraction <= 1."""
        check_range("fraction", fraction, 0, 1, low_open=True)
        check_seed(seed)
        labels = self.train_labels.numpy()
        keep = _stratified(labels, fraction, np.random.default_rng(seed), minimum=1)
        return DigitsData(self.train_images[keep], self.train_labels[keep], self.test_images,
                          self.test_labels)  # fmt: skip


def _stratified(labels: np.ndarray, fraction: float, rng: np.random.Generator, minimum: int = 0):
    """Sorted indices of round(fraction * n_c) (at least ``minimum``) items of every class c."""
    chosen = []
    for c in np.unique(labels):
        members = np.flatnonzero(labels == c)
        k = max(minimum, round(fraction * len(members)))
        chosen.extend(rng.permutation(members)[:k].tolist())
    return torch.tensor(sorted(chosen), dtype=torch.int64)


def load_digits_data(test_fraction: float = 0.2, seed: int = 0) -> DigitsData:
    """Load the 1,797 digits bundled with scikit-learn and split them, stratified by class.

    Args:
        test_fraction: share of every class held out for testing (0.2 -> 359 test images).
        seed: seeds the split (numpy's ``default_rng``).

    Returns:
        DigitsData with images (N, 1, 8, 8) scaled to [0, 1] and int64 labels.

    Lecture 09; scikit-learn ``load_digits`` (UCI optical digits, 8 x 8 test set).
    """
    check_range("test_fraction", test_fraction, 0, 1, low_open=True, high_open=True)
    check_seed(seed)
    pixels, target = _sklearn_digits()
    images = torch.tensor(pixels, dtype=torch.float32)[:, None] / 16  # (N, 8, 8) -> (N, 1, 8, 8)
    labels = torch.tensor(target, dtype=torch.int64)
    is_test = torch.zeros(len(labels), dtype=torch.bool)
    is_test[_stratified(target, test_fraction, np.random.default_rng(seed))] = True
    return DigitsData(images[~is_test], labels[~is_test], images[is_test], labels[is_test])


def _sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled digits: pixels (1797, 8, 8) in 0..16 and labels (1797,).

    Read from the file ``sklearn.datasets.load_digits`` reads (the same numbers), without
    importing scikit-learn, which takes about a second; ``load_digits`` itself if the file is
    not where scikit-learn keeps it.
    """
    spec = importlib.util.find_spec("sklearn")  # finds the package without importing it
    if spec is None:
        raise ImportError("the digits data set needs scikit-learn: pip install scikit-learn")
    folders = list(spec.submodule_search_locations or [])
    path = Path(folders[0]) / "datasets" / "data" / "digits.csv.gz" if folders else None
    if path is None or not path.is_file():  # pragma: no cover - another scikit-learn layout
        from sklearn.datasets import load_digits

        digits = load_digits()
        return digits.images, digits.target
    table = np.loadtxt(path, delimiter=",")  # (1797, 65): 64 pixels, then the label
    return table[:, :-1].reshape(-1, 8, 8), table[:, -1].astype(int)


def _check_images(images: object, generator: object, prob: object) -> None:
    check_tensor("images", images, 4, wanted="(B, C, H, W)")
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    check_range("prob", prob, 0, 1)


def random_affine(
    images: torch.Tensor,
    rotation: float = 15.0,
    scale: float = 0.1,
    generator: torch.Generator | None = None,
    prob: float = 1.0,
) -> torch.Tensor:
    """Rotate each image by a random angle in [-rotation, rotation] degrees and zoom it by a
    random factor in [1 - scale, 1 + scale] about its centre (bilinear, zeros outside).

    Args:
        images: (B, C, H, W), floating-point (any float dtype; integer images are rejected:
            convert them with ``images.float()``, scaled as the model expects).
        rotation: the largest angle in degrees.
        scale: the largest relative change of size.
        generator: for reproducible draws.
        prob: the share of images that are transformed (the others are returned unchanged).

    Returns:
        (B, C, H, W).

    Lecture 09.
    """
    _check_images(images, generator, prob)
    check_tensor("images", images, 4, wanted="(B, C, H, W)", floating=True)
    check_range("rotation", rotation, 0)
    check_range("scale", scale, 0, 1, high_open=True)
    B = len(images)
    angle = (torch.rand(B, generator=generator) * 2 - 1) * math.radians(rotation)
    zoom = 1 + (torch.rand(B, generator=generator) * 2 - 1) * scale
    cos, sin, zero = torch.cos(angle) / zoom, torch.sin(angle) / zoom, torch.zeros(B)
    theta = torch.stack([torch.stack([cos, -sin, zero], 1), torch.stack([sin, cos, zero], 1)], 1)
    theta = theta.to(images.dtype)  # float64 images: float64 grid (a no-op for float32)
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)  # (B, H, W, 2)
    moved = F.grid_sample(images, grid, align_corners=False)  # (B, C, H, W)
    chosen = torch.rand(B, generator=generator) < prob
    return torch.where(chosen[:, None, None, None], moved, images)


def random_shift(
    images: torch.Tensor,
    max_shift: int = 1,
    generator: torch.Generator | None = None,
    prob: float = 1.0,
) -> torch.Tensor:
    """Shift each image by a random (dy, dx) in [-max_shift, max_shift]^2, filling with zeros.

    A cheap augmentation for 8 x 8 digits: a digit moved by a pixel is still the same digit.

    Args:
        images: (B, C, H, W), any dtype (the pixels are moved, not computed with).
        max_shift: the largest shift in pixels (0 returns the images unchanged).
        generator: for reproducible shifts.
        prob: the share of images that are shifted (the others, and those that drew
            dy = dx = 0, stay put).

    Returns:
        (B, C, H, W), the shifted images.

    Lecture 09.
    """
    _check_images(images, generator, prob)
    check_non_negative_int("max_shift", max_shift)
    if max_shift == 0:
        return images
    B, C, H, W = images.shape
    s = max_shift
    padded = F.pad(images, (s, s, s, s))  # (B, C, H, W) -> (B, C, H + 2s, W + 2s)
    offsets = torch.randint(0, 2 * s + 1, (2, B), generator=generator)  # s = no shift
    still = torch.rand(B, generator=generator) >= prob
    dy, dx = offsets.masked_fill(still, s)
    rows = (dy[:, None] + torch.arange(H))[:, None, :, None]  # (B, 1, H, 1)
    cols = (dx[:, None] + torch.arange(W))[:, None, None, :]  # (B, 1, 1, W)
    batch = torch.arange(B)[:, None, None, None]  # (B, 1, 1, 1)
    channel = torch.arange(C)[None, :, None, None]  # (1, C, 1, 1)
    return padded[batch, channel, rows, cols]  # -> (B, C, H, W)


def batches(
    images: torch.Tensor,
    labels: torch.Tensor,
    batch_size: int,
    generator: torch.Generator | None = None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Mini-batches (images (b, C, H, W), labels (b,)), shuffled with ``generator`` if given
    (in order otherwise); the last batch may be smaller. Arguments are checked when called;
    no images give no batches.

    Lecture 09.
    """
    check_tensor("images", images, min_ndim=1, wanted="(N, C, H, W)")
    check_tensor("labels", labels, 1, wanted="(N,)")
    check_positive_int("batch_size", batch_size)
    if len(images) != len(labels):
        raise ValueError(f"images has {len(images)} entries but labels has {len(labels)}")
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    return _batches(images, labels, batch_size, generator)


def _batches(
    images: torch.Tensor,
    labels: torch.Tensor,
    batch_size: int,
    generator: torch.Generator | None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    order = (
        torch.randperm(len(images), generator=generator)
        if generator is not None
        else torch.arange(len(images))
    )
    for start in range(0, len(images), batch_size):
        idx = order[start : start + batch_size]
        yield images[idx], labels[idx]
