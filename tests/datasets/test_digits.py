"""lecturekit.datasets.digits: the fixed split, augmentation, batches."""

import pytest
import torch

from lecturekit.datasets.digits import (
    batches,
    load_digits_data,
    random_affine,
    random_shift,
)


@pytest.fixture(scope="module")
def digits():
    return load_digits_data()


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
    with pytest.raises(ValueError, match=r"test_fraction must be a number in \(0, 1\), got 1.5"):
        load_digits_data(test_fraction=1.5)


def test_the_digits_are_scikit_learns(digits):
    """load_digits_data reads scikit-learn's data file without importing scikit-learn: train
    and test together are the images and labels of sklearn.datasets.load_digits."""
    from sklearn.datasets import load_digits

    reference = load_digits()
    theirs = torch.cat(
        [torch.tensor(reference.images).flatten(1), torch.tensor(reference.target)[:, None]], 1
    )  # (1797, 64 pixels + label)
    images = torch.cat([digits.train_images, digits.test_images]).flatten(1) * 16
    labels = torch.cat([digits.train_labels, digits.test_labels])[:, None]
    ours = torch.cat([images.double(), labels.double()], 1)
    assert torch.equal(torch.unique(ours, dim=0), torch.unique(theirs.double(), dim=0))
    assert len(ours) == len(theirs) == 1797


def test_with_train_fraction(digits):
    small = digits.with_train_fraction(0.1)
    assert len(small.train_labels) == 143 and torch.bincount(small.train_labels).min() >= 14
    assert small.test_images is digits.test_images
    with pytest.raises(ValueError, match=r"fraction must be a number in \(0, 1\], got 0"):
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
    with pytest.raises(ValueError, match=r"images must have shape \(B, C, H, W\), got \(6, 6\)"):
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
    with pytest.raises(ValueError, match=r"scale must be a number in \[0, 1\), got 1.5"):
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
