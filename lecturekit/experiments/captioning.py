"""Lecture 09a's measurements of a captioner on held-out scenes: how often it writes the right
caption and the right words, and whether each word looks at the object it names.

Every function takes the model (or what it wrote) and the scenes; nothing here trains.

Public API::

    result = caption_scenes(model, scenes, attention="soft", generator=None)
    #   CaptionResult (ids (N, L), weights (N, L, cells), cells (N, L)), in batches
    scores = caption_scores(result.ids, scenes)
    #   CaptionScores: exact match, word accuracy overall / digit words / relation words
    loc = localisation(result, scenes)
    #   Localisation: per named-digit word, is the attended (argmax) cell inside the named
    #   object's box; hit rates of the first and second digit words, mass inside the box,
    #   the chance rate (the box's share of the cells)
    table = mass_by_word(result, scenes)
    #   word slot ("a", "digit 1", "left", ...) -> mean weight on the first object's cells,
    #   the second object's cells and the rest (over correct captions)
    SLOTS                                      # the slot names of mass_by_word

Lecture 09a; Xu et al. 2015 section 5.4 (attention visualised over the image).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lecturekit.datasets.scenes import PAD, VOCAB, Scenes, box_cells, encode_captions
from lecturekit.models.captioning import ATTENTION_MODES, Captioner, CaptionResult
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_tensor,
)

__all__ = [
    "CaptionScores",
    "Localisation",
    "SLOTS",
    "caption_scenes",
    "caption_scores",
    "localisation",
    "mass_by_word",
]

_DIGIT_IDS = torch.tensor([VOCAB.index(str(d)) for d in range(10)])


@dataclass(frozen=True)
class CaptionScores:
    """Held-out caption quality: the share of captions written exactly, and of words right at
    their position (all words with <eos>, the two digit words, the relation words)."""

    exact_match: float
    word_accuracy: float
    digit_accuracy: float
    relation_accuracy: float
    n: int


@dataclass(frozen=True)
class Localisation:
    """Where the digit words look. ``hits`` (W,) bool: the argmax cell of each generated digit
    word that names a digit of its scene is inside that digit's box; ``mass`` (W,) the weight
    inside the box; ``which`` (W,) 0 for the first digit word, 1 for the second; ``chance``:
    the box's share of the cells; ``absent``: digit words naming a digit not in the scene
    (left out of the rates)."""

    hits: torch.Tensor
    mass: torch.Tensor
    which: torch.Tensor
    chance: float
    absent: int

    @property
    def hit_rate(self) -> float:
        return float(self.hits.float().mean()) if len(self.hits) else float("nan")

    def rate(self, which: int) -> float:
        """The hit rate of the first (0) or second (1) digit word."""
        chosen = self.hits[self.which == which]
        return float(chosen.float().mean()) if len(chosen) else float("nan")

    @property
    def mean_mass(self) -> float:
        return float(self.mass.mean()) if len(self.mass) else float("nan")


def caption_scenes(
    model: Captioner,
    scenes: Scenes,
    attention: str = "soft",
    generator: torch.Generator | None = None,
    max_len: int = 8,
    batch_size: int = 500,
) -> CaptionResult:
    """``model.caption`` over all ``scenes`` in batches of ``batch_size``: ids (N, max_len),
    weights (N, max_len, cells) and cells (N, max_len) (None for a model without attention).

    Lecture 09a.
    """
    check_instance("model", model, Captioner)
    check_instance("scenes", scenes, Scenes)
    check_choice("attention", attention, ATTENTION_MODES)
    check_positive_int("max_len", max_len)
    check_positive_int("batch_size", batch_size)
    parts = [model.caption(scenes.images[i : i + batch_size], max_len, attention, generator)
             for i in range(0, len(scenes), batch_size)]  # fmt: skip
    if not parts:
        raise ValueError("scenes must hold at least one scene, got none")
    ids = torch.cat([p.ids for p in parts])
    if parts[0].weights is None:
        return CaptionResult(ids, None, None)
    return CaptionResult(ids, torch.cat([p.weights for p in parts]),
                         torch.cat([p.cells for p in parts]))  # fmt: skip


def _targets(ids: torch.Tensor, scenes: Scenes) -> tuple[torch.Tensor, torch.Tensor]:
    check_tensor("ids", ids, 2, wanted=f"({len(scenes)}, L)", integer=True)
    if len(ids) != len(scenes):
        raise ValueError(f"ids must have one row per scene ({len(scenes)}), got "
                         f"{tuple(ids.shape)}")  # fmt: skip
    want = encode_captions(list(scenes.captions))  # (N, T) with <eos>
    T = want.shape[1]
    if ids.shape[1] < T:
        ids = torch.cat([ids, ids.new_full((len(ids), T - ids.shape[1]), PAD)], 1)
    return ids[:, :T], want


def caption_scores(ids: torch.Tensor, scenes: Scenes) -> CaptionScores:
    """Score generated ``ids`` (N, L) (``CaptionResult.ids``) against the scenes' captions.

    Exact match: every word and the <eos> right. Word accuracy: the share of target words
    (with <eos>) equal to the generated word at the same position; the digit and relation
    shares count only target words of that kind ("left", "of", "above", ...).

    Lecture 09a.
    """
    check_instance("scenes", scenes, Scenes)
    got, want = _targets(ids, scenes)
    real = want != PAD
    right = (got == want) & real
    is_digit = torch.isin(want, _DIGIT_IDS)
    is_relation = want >= VOCAB.index("left")
    return CaptionScores(
        exact_match=float((right | ~real).all(1).float().mean()),
        word_accuracy=float(right.sum() / real.sum()),
        digit_accuracy=float(right[is_digit].float().mean()),
        relation_accuracy=float(right[is_relation].float().mean()),
        n=len(scenes),
    )


def localisation(result: CaptionResult, scenes: Scenes, canvas: int = 32) -> Localisation:
    """For every generated digit word that names a digit of its scene: is the most-weighted
    cell of its a_t inside that digit's box (``box_cells``), and how much weight is inside.

    Args:
        result: what ``caption_scenes`` returned for ``scenes`` (with attention weights).
        scenes: the scenes (their boxes and digits).
        canvas: the images' side in pixels (the grid is the weights' sqrt(cells)).

    Returns:
        Localisation (the chance rate: a box's cells / all cells).

    Lecture 09a; Xu et al. 2015 section 5.4.
    """
    check_instance("result", result, CaptionResult)
    check_instance("scenes", scenes, Scenes)
    if result.weights is None:
        raise ValueError("result has no attention weights (a captioner without attention)")
    N, L, cells = result.weights.shape
    grid = round(cells**0.5)
    if len(result.ids) != len(scenes) or grid * grid != cells:
        raise ValueError(f"result must hold {len(scenes)} captions over a square grid, got "
                         f"weights {tuple(result.weights.shape)}")  # fmt: skip
    inside = box_cells(scenes.boxes, canvas, grid)  # (N, 2, cells)
    hits, mass, which, absent = [], [], [], 0
    for n in range(N):
        k = 0
        for t in range(L):
            token = int(result.ids[n, t])
            if token not in _DIGIT_IDS:
                continue
            digit = int(VOCAB[token])
            objects = (scenes.digits[n] == digit).nonzero().flatten().tolist()
            if not objects:
                absent += 1
            else:
                box = inside[n, objects[0]]
                a = result.weights[n, t]
                hits.append(bool(box[a.argmax()]))
                mass.append(float(a[box].sum()))
                which.append(min(k, 1))
            k += 1
    return Localisation(torch.tensor(hits, dtype=torch.bool), torch.tensor(mass),
                        torch.tensor(which, dtype=torch.int64),
                        float(inside[0, 0].sum()) / cells, absent)  # fmt: skip


SLOTS = ("a (1st)", "digit 1", "relation", "of", "a (2nd)", "digit 2", "<eos>")


def _slots(caption: str) -> list[str]:
    words = caption.split()
    names = ["a (1st)", "digit 1", "relation"]
    names += ["of"] if words[3] == "of" else []
    return [*names, "a (2nd)", "digit 2", "<eos>"]


def mass_by_word(
    result: CaptionResult, scenes: Scenes, canvas: int = 32
) -> dict[str, tuple[float, float, float]]:
    """Where each word of the caption looks, on average over the scenes captioned exactly
    right: slot (``SLOTS``) -> (weight on the first-named object's cells, on the second's, on
    every other cell). Each row sums to 1.

    Lecture 09a.
    """
    check_instance("result", result, CaptionResult)
    check_instance("scenes", scenes, Scenes)
    if result.weights is None:
        raise ValueError("result has no attention weights (a captioner without attention)")
    got, want = _targets(result.ids, scenes)
    exact = ((got == want) | (want == PAD)).all(1)
    cells = result.weights.shape[-1]
    inside = box_cells(scenes.boxes, canvas, round(cells**0.5)).float()  # (N, 2, cells)
    sums = {s: torch.zeros(3) for s in SLOTS}
    counts = dict.fromkeys(SLOTS, 0)
    for n in exact.nonzero().flatten().tolist():
        for t, slot in enumerate(_slots(scenes.captions[n])):
            a = result.weights[n, t]
            first, second = float(a @ inside[n, 0]), float(a @ inside[n, 1])
            sums[slot] += torch.tensor([first, second, 1 - first - second])
            counts[slot] += 1
    return {s: tuple((sums[s] / max(counts[s], 1)).tolist()) for s in SLOTS if counts[s]}
