"""Synthetic scenes to caption: two handwritten digits on a canvas and a sentence that says
which digits they are and where one is relative to the other ("a 3 left of a 7").

Each scene places two different digits (8 x 8 images from scikit-learn's digits,
``lecturekit.datasets.digits``) at random, non-overlapping positions on a 32 x 32 canvas. The
caption names the **smaller** digit first, then where it is relative to the other one, so
every scene has exactly one caption::

    a <small> left of a <large>      a <small> right of a <large>
    a <small> above a <large>        a <small> below a <large>

"left of" / "right of" when the two centres are further apart horizontally than vertically,
"above" / "below" otherwise; positions where the two distances are nearly equal (within
``margin`` pixels) are redrawn, so the relation is never a judgment call. Every word names
something that can be located: the digits are objects with a box, the relation words are a
comparison of the two boxes. Scenes keep their boxes, so what a model attends to can be
checked against where the named object is.

The training scenes are made from the digits' training images and the test scenes from its
test images: a held-out scene shows digit images the model has never seen.

Public API::

    VOCAB, PAD, BOS, EOS                    # the captions' words ("<pad>" = 0, "<bos>", "<eos>")
    RELATIONS                               # ("left of", "right of", "above", "below")
    data = default_data()                   # SceneData: train (8,000), test (1,000) scenes
    scenes = make_scenes(n, images, labels, seed=0, canvas=32, margin=4)
    scenes.images                           # (N, 1, 32, 32) float32 in [0, 1]
    scenes.boxes                            # (N, 2, 4) int64 (top, left, bottom, right),
                                            #   bottom/right exclusive; [:, 0] is named first
    scenes.digits                           # (N, 2) int64: the first-named and second digit
    scenes.relations                        # (N,) int64 index into RELATIONS
    scenes.captions                         # list of N strings, "a 3 left of a 7"
    scenes.subset(index)                    # the scenes at index (a slice, list or tensor)
    ids = encode_captions(captions)         # (N, T) int64: words then <eos>, padded with <pad>
    decode_caption(ids)                     # the words up to <eos> as one string
    word_roles(caption)                     # per word: "article", "digit", "relation"
    box_cells(boxes, canvas=32, grid=8)     # (..., grid * grid) bool: the cells whose centre is
                                            #   inside each box (row-major over the grid)

Lecture 09a; Xu et al. 2015 (the task, at toy scale); Alpaydin & Kaynak 1998 (the digits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lecturekit.datasets.digits import load_digits_data
from lecturekit.utils.checks import (
    check_non_negative_int,
    check_positive_int,
    check_seed,
    check_strings,
    check_tensor,
)

__all__ = [
    "VOCAB",
    "PAD",
    "BOS",
    "EOS",
    "RELATIONS",
    "DIGIT_SIZE",
    "Scenes",
    "SceneData",
    "make_scenes",
    "default_data",
    "encode_captions",
    "decode_caption",
    "word_roles",
    "box_cells",
]

RELATIONS = ("left of", "right of", "above", "below")
VOCAB = ("<pad>", "<bos>", "<eos>", "a", *map(str, range(10)), "left", "right", "of", "above",
         "below")  # fmt: skip
PAD, BOS, EOS = 0, 1, 2
DIGIT_SIZE = 8
_INDEX = {w: i for i, w in enumerate(VOCAB)}


@dataclass(frozen=True)
class Scenes:
    """N scenes: images (N, 1, C, C) float32, boxes (N, 2, 4) int64 (top, left, bottom,
    right; object 0 is the one named first), digits (N, 2) int64, relations (N,) int64 (index
    into RELATIONS) and their captions (N strings)."""

    images: torch.Tensor
    boxes: torch.Tensor
    digits: torch.Tensor
    relations: torch.Tensor
    captions: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.captions)

    def subset(self, index: slice | Sequence[int] | torch.Tensor) -> Scenes:
        """The scenes at ``index`` (a slice, a list of ints or an integer tensor), in that
        order."""
        if isinstance(index, slice):
            rows = torch.arange(len(self))[index]
        else:
            rows = torch.as_tensor(index, dtype=torch.int64).reshape(-1)
            check_tensor("index", rows, 1, integer=True)
            if len(rows) and (rows.min() < -len(self) or rows.max() >= len(self)):
                raise ValueError(f"index must hold positions in 0..{len(self) - 1}, got "
                                 f"{rows.min().item()}..{rows.max().item()}")  # fmt: skip
        captions = tuple(self.captions[i] for i in rows.tolist())
        return Scenes(self.images[rows], self.boxes[rows], self.digits[rows],
                      self.relations[rows], captions)  # fmt: skip


@dataclass(frozen=True)
class SceneData:
    """Training and test scenes (made from disjoint digit images) and the vocabulary."""

    train: Scenes
    test: Scenes
    vocab: tuple[str, ...] = VOCAB


def _caption(small: int, large: int, relation: int) -> str:
    return f"a {small} {RELATIONS[relation]} a {large}"


def _relation(first: np.ndarray, second: np.ndarray) -> tuple[int, float]:
    """Where ``first`` (top, left) is relative to ``second``: the relation index and how far
    the horizontal and vertical distances of the centres are apart (the ambiguity margin)."""
    dy, dx = first - second  # (top, left) differences = centre differences (same size boxes)
    if abs(dx) > abs(dy):
        return (0 if dx < 0 else 1), abs(dx) - abs(dy)
    return (2 if dy < 0 else 3), abs(dy) - abs(dx)


def make_scenes(
    n: int,
    images: torch.Tensor,
    labels: torch.Tensor,
    *,
    seed: int = 0,
    canvas: int = 32,
    margin: int = 4,
) -> Scenes:
    """Draw ``n`` scenes of two different digits, each an image from ``images``.

    Args:
        n: number of scenes.
        images: (M, 1, 8, 8) digit images in [0, 1] (``load_digits_data().train_images``).
        labels: (M,) their digits (0-9, at least two different ones).
        seed: seeds numpy's ``default_rng`` (the same seed gives the same scenes).
        canvas: the canvas's side in pixels (>= 16).
        margin: redraw a layout whose horizontal and vertical centre distances differ by less
            than this many pixels (so the relation word is never ambiguous).

    Returns:
        Scenes with images (n, 1, canvas, canvas); a pixel covered by both boxes cannot occur
        (the boxes never overlap).

    Lecture 09a.
    """
    check_non_negative_int("n", n)
    check_tensor("images", images, 4, wanted="(M, 1, 8, 8)", floating=True)
    if tuple(images.shape[1:]) != (1, DIGIT_SIZE, DIGIT_SIZE):
        raise ValueError(f"images must be (M, 1, 8, 8), got {tuple(images.shape)}")
    check_tensor("labels", labels, 1, wanted=f"({len(images)},)", integer=True)
    if len(labels) != len(images):
        raise ValueError(f"labels must have one entry per image: images has {len(images)}, "
                         f"labels has shape {tuple(labels.shape)}")  # fmt: skip
    if len(labels) and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"labels must be digits 0..9, got {labels.min()}..{labels.max()}")
    if len(torch.unique(labels)) < 2:
        raise ValueError("labels must hold at least two different digits to make a scene")
    check_seed(seed)
    check_positive_int("canvas", canvas)
    if canvas < 2 * DIGIT_SIZE:
        raise ValueError(f"canvas must be >= {2 * DIGIT_SIZE} pixels, got {canvas}")
    check_non_negative_int("margin", margin)
    if margin > canvas - 2 * DIGIT_SIZE:
        raise ValueError(f"margin must be <= canvas - 16 = {canvas - 2 * DIGIT_SIZE} (else "
                         f"no layout qualifies), got {margin}")  # fmt: skip
    rng = np.random.default_rng(seed)
    by_digit = [np.flatnonzero(labels.numpy() == d) for d in range(10)]
    present = [d for d in range(10) if len(by_digit[d])]
    out = torch.zeros(n, 1, canvas, canvas)
    boxes = torch.zeros(n, 2, 4, dtype=torch.int64)
    digits = torch.zeros(n, 2, dtype=torch.int64)
    relations = torch.zeros(n, dtype=torch.int64)
    captions = []
    top = canvas - DIGIT_SIZE + 1
    for k in range(n):
        small, large = sorted(rng.choice(present, size=2, replace=False).tolist())
        while True:
            corners = rng.integers(0, top, size=(2, 2))  # (object, (top, left))
            apart = np.abs(corners[0] - corners[1]) >= DIGIT_SIZE
            relation, ambiguity = _relation(corners[0], corners[1])
            if apart.any() and ambiguity >= margin:
                break
        for j, digit in enumerate((small, large)):
            image = images[rng.choice(by_digit[digit])]
            (y, x) = corners[j].tolist()
            out[k, :, y : y + DIGIT_SIZE, x : x + DIGIT_SIZE] = image
            boxes[k, j] = torch.tensor([y, x, y + DIGIT_SIZE, x + DIGIT_SIZE])
        digits[k] = torch.tensor([small, large])
        relations[k] = relation
        captions.append(_caption(small, large, relation))
    return Scenes(out, boxes, digits, relations, tuple(captions))


def default_data(
    n_train: int = 8000, n_test: int = 1000, seed: int = 0, canvas: int = 32
) -> SceneData:
    """The lecture's scenes: ``n_train`` from the digits' training images (seed ``seed``),
    ``n_test`` from its test images (seed ``seed + 1``); the digits' split is
    ``load_digits_data()``'s.

    Lecture 09a.
    """
    check_non_negative_int("n_train", n_train)
    check_non_negative_int("n_test", n_test)
    check_seed(seed)
    digits = load_digits_data()
    train = make_scenes(n_train, digits.train_images, digits.train_labels, seed=seed,
                        canvas=canvas)  # fmt: skip
    test = make_scenes(n_test, digits.test_images, digits.test_labels, seed=seed + 1,
                       canvas=canvas)  # fmt: skip
    return SceneData(train, test)


def encode_captions(captions: Sequence[str]) -> torch.Tensor:
    """Captions -> (N, T) int64 ids: each caption's words, then <eos>, padded with <pad> to
    the longest (T = its words + 1). An unknown word is a ValueError naming it.

    Lecture 09a.
    """
    captions = check_strings("captions", captions)
    rows = []
    for caption in captions:
        unknown = [w for w in caption.split() if w not in _INDEX]
        if unknown:
            raise ValueError(f"captions: {unknown[0]!r} in {caption!r} is not in VOCAB "
                             f"{list(VOCAB[3:])}")  # fmt: skip
        rows.append([_INDEX[w] for w in caption.split()] + [EOS])
    T = max((len(r) for r in rows), default=1)
    ids = torch.full((len(rows), T), PAD, dtype=torch.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
    return ids


def decode_caption(ids: torch.Tensor | Sequence[int]) -> str:
    """One caption's ids (T,) -> its words up to (not including) the first <eos> or <pad>;
    <bos> is skipped.

    Lecture 09a.
    """
    ids = torch.as_tensor(ids)
    check_tensor("ids", ids, 1, wanted="(T,)", integer=True)
    words = []
    for i in ids.tolist():
        if not 0 <= i < len(VOCAB):
            raise ValueError(f"ids must be in 0..{len(VOCAB) - 1}, got {i}")
        if i in (EOS, PAD):
            break
        if i != BOS:
            words.append(VOCAB[i])
    return " ".join(words)


def word_roles(caption: str) -> list[str]:
    """The role of each word of a caption: "article" ("a"), "digit" ("0"-"9") or "relation"
    ("left", "right", "of", "above", "below").

    Lecture 09a.
    """
    words = check_strings("caption", [caption])[0].split()
    roles = []
    for w in words:
        if w not in _INDEX or _INDEX[w] < 3:
            raise ValueError(f"caption: {w!r} is not a caption word of VOCAB")
        roles.append("article" if w == "a" else "digit" if w.isdigit() else "relation")
    return roles


def box_cells(boxes: torch.Tensor, canvas: int = 32, grid: int = 8) -> torch.Tensor:
    """Which cells of a ``grid`` x ``grid`` feature map each box covers: a cell counts when its
    centre lies inside the box.

    With a 32-pixel canvas and an 8 x 8 grid each cell is 4 x 4 pixels, and an 8 x 8 digit box
    always holds exactly 2 x 2 = 4 cell centres: a box is 4 of the 64 cells, so attention that
    fell on a random cell would land in it 4 / 64 = 6.25 % of the time.

    Args:
        boxes: (..., 4) integer (top, left, bottom, right) in pixels, bottom/right exclusive.
        canvas: the image's side in pixels.
        grid: the feature map's side in cells (``canvas`` divisible by it).

    Returns:
        (..., grid * grid) bool, the cells in row-major order (as the captioner flattens them).

    Lecture 09a.
    """
    check_tensor("boxes", boxes, min_ndim=1, wanted="(..., 4)", integer=True)
    if boxes.shape[-1] != 4:
        raise ValueError(f"boxes must be (..., 4) (top, left, bottom, right), got "
                         f"{tuple(boxes.shape)}")  # fmt: skip
    check_positive_int("canvas", canvas)
    check_positive_int("grid", grid)
    if canvas % grid:
        raise ValueError(f"canvas={canvas} is not divisible by grid={grid}")
    stride = canvas / grid
    centres = (torch.arange(grid) + 0.5) * stride  # (grid,)
    top, left, bottom, right = (boxes[..., i, None].float() for i in range(4))  # (..., 1) each
    rows = (centres >= top) & (centres < bottom)  # (..., grid)
    cols = (centres >= left) & (centres < right)  # (..., grid)
    return (rows[..., :, None] & cols[..., None, :]).flatten(-2)  # -> (..., grid * grid)
