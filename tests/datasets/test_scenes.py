"""lecturekit.datasets.scenes: every caption says what its scene shows (the digits, the smaller
one first, and where it is), the boxes never overlap, and box_cells counts the cells a box
covers."""

import pytest
import torch

from lecturekit.datasets.digits import load_digits_data
from lecturekit.datasets.scenes import (
    EOS,
    PAD,
    RELATIONS,
    VOCAB,
    box_cells,
    decode_caption,
    default_data,
    encode_captions,
    make_scenes,
    word_roles,
)


@pytest.fixture(scope="module")
def scenes():
    digits = load_digits_data()
    return make_scenes(300, digits.train_images, digits.train_labels, seed=3)


def test_captions_match_the_boxes_and_digits(scenes):
    for k in range(len(scenes)):
        (t0, l0, _, _), (t1, l1, _, _) = scenes.boxes[k].tolist()
        small, large = scenes.digits[k].tolist()
        assert small < large
        dy, dx = t0 - t1, l0 - l1
        if abs(dx) > abs(dy):
            relation = "left of" if dx < 0 else "right of"
        else:
            relation = "above" if dy < 0 else "below"
        assert abs(abs(dx) - abs(dy)) >= 4  # never a judgment call
        assert scenes.captions[k] == f"a {small} {relation} a {large}"
        assert RELATIONS[scenes.relations[k]] == relation


def test_boxes_do_not_overlap_and_hold_the_digit_pixels(scenes):
    digits = load_digits_data()
    for k in range(len(scenes)):
        a, b = scenes.boxes[k].tolist()
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        ink = scenes.images[k, 0].clone()
        for top, left, bottom, right in (a, b):
            assert (bottom - top, right - left) == (8, 8)
            ink[top:bottom, left:right] = 0
        assert ink.abs().sum() == 0  # nothing drawn outside the boxes
    assert scenes.images.shape == (300, 1, 32, 32) and digits.train_images.max() <= 1


def test_every_relation_and_digit_occurs_and_draws_are_seeded(scenes):
    assert set(scenes.relations.tolist()) == {0, 1, 2, 3}
    assert set(scenes.digits.flatten().tolist()) == set(range(10))
    digits = load_digits_data()
    again = make_scenes(300, digits.train_images, digits.train_labels, seed=3)
    assert again.captions == scenes.captions and torch.equal(again.images, scenes.images)
    other = make_scenes(300, digits.train_images, digits.train_labels, seed=4)
    assert other.captions != scenes.captions


def test_default_data_uses_disjoint_digit_images():
    data = default_data(n_train=50, n_test=20)
    assert len(data.train) == 50 and len(data.test) == 20 and data.vocab == VOCAB
    digits = load_digits_data()
    test_pixels = {tuple(x.flatten().tolist()) for x in digits.test_images}
    for k in range(5):
        for top, left, bottom, right in data.test.boxes[k].tolist():
            patch = data.test.images[k, 0, top:bottom, left:right]
            assert tuple(patch.flatten().tolist()) in test_pixels


def test_encode_decode_and_roles():
    ids = encode_captions(["a 3 left of a 7", "a 1 above a 2"])
    assert ids.shape == (2, 7) and ids[0, -1] == EOS and ids[1, -1] == PAD and ids[1, -2] == EOS
    assert decode_caption(ids[0]) == "a 3 left of a 7" and decode_caption(ids[1]) == "a 1 above a 2"
    assert word_roles("a 3 left of a 7") == ["article", "digit", "relation", "relation",
                                            "article", "digit"]  # fmt: skip
    with pytest.raises(ValueError, match="'cat'"):
        encode_captions(["a cat"])


def test_box_cells_counts_centres_inside():
    cells = box_cells(torch.tensor([[0, 0, 8, 8], [5, 9, 13, 17], [4, 0, 16, 8]]))
    assert cells.shape == (3, 64)
    assert cells.sum(-1).tolist() == [4, 4, 6]  # an 8 x 8 box always holds 2 x 2 centres
    assert cells[0].nonzero().flatten().tolist() == [0, 1, 8, 9]
    assert cells[1].nonzero().flatten().tolist() == [10, 11, 18, 19]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda d: make_scenes(2, d.train_images[:, :, :4], d.train_labels), "images"),
        (lambda d: make_scenes(2, d.train_images, d.train_labels[:5]), "labels"),
        (
            lambda d: make_scenes(2, d.train_images[:3], torch.zeros(3, dtype=torch.long)),
            "two different digits",
        ),
        (lambda d: make_scenes(2, d.train_images, d.train_labels, canvas=12), "canvas"),
        (lambda d: make_scenes(2, d.train_images, d.train_labels, margin=99), "margin"),
        (lambda d: box_cells(torch.zeros(2, 3, dtype=torch.long)), "boxes"),
        (lambda d: box_cells(torch.zeros(2, 4, dtype=torch.long), canvas=30, grid=8), "divisible"),
        (lambda d: decode_caption([1, 99]), "ids"),
        (lambda d: word_roles("a <eos>"), "caption"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call(load_digits_data())
