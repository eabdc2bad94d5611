"""lecturekit.experiments.captioning: the scores and the localisation test on hand-made results
(a perfect caption scores 1, a wrong digit lowers the digit accuracy only, a map that points
into the named box is a hit)."""

import pytest
import torch

from lecturekit.datasets.digits import load_digits_data
from lecturekit.datasets.scenes import box_cells, encode_captions, make_scenes
from lecturekit.experiments.captioning import (
    SLOTS,
    caption_scenes,
    caption_scores,
    localisation,
    mass_by_word,
)
from lecturekit.models.captioning import Captioner, CaptionerConfig, CaptionResult


@pytest.fixture(scope="module")
def scenes():
    digits = load_digits_data()
    return make_scenes(40, digits.test_images, digits.test_labels, seed=5)


def _oracle(scenes, onto=(0, 1)):
    """The true captions, each digit word's weight all on one cell of the named object's box
    (``onto``: which object the first and second digit words look at)."""
    ids = encode_captions(list(scenes.captions))
    N, L = ids.shape
    inside = box_cells(scenes.boxes)  # (N, 2, 64)
    weights = torch.full((N, L, 64), 1 / 64)
    for n, caption in enumerate(scenes.captions):
        words = caption.split()
        digit_steps = [t for t, w in enumerate(words) if w.isdigit()]
        for k, t in enumerate(digit_steps):
            weights[n, t] = 0
            weights[n, t, inside[n, onto[k]].nonzero()[0, 0]] = 1
    return CaptionResult(ids, weights, weights.argmax(-1))


def test_perfect_captions_score_one(scenes):
    result = _oracle(scenes)
    s = caption_scores(result.ids, scenes)
    assert (s.exact_match, s.word_accuracy, s.digit_accuracy, s.relation_accuracy) == (1, 1, 1, 1)
    wrong = result.ids.clone()
    wrong[:, 1] = encode_captions(["9"])[0, 0]  # every first digit becomes a 9 (never first)
    s = caption_scores(wrong, scenes)
    assert s.exact_match == 0 and s.digit_accuracy == 0.5 and s.relation_accuracy == 1


def test_localisation_hits_and_chance(scenes):
    loc = localisation(_oracle(scenes), scenes)
    assert loc.hit_rate == 1 and loc.rate(0) == 1 and loc.rate(1) == 1
    assert loc.chance == 4 / 64 and len(loc.hits) == 2 * len(scenes) and loc.absent == 0
    assert loc.mean_mass == pytest.approx(1)
    swapped = localisation(_oracle(scenes, onto=(1, 0)), scenes)
    assert swapped.hit_rate == 0  # looking at the other digit is a miss


def test_mass_by_word_rows_sum_to_one(scenes):
    table = mass_by_word(_oracle(scenes), scenes)
    assert set(table) <= set(SLOTS) and "digit 1" in table and "relation" in table
    for row in table.values():
        assert sum(row) == pytest.approx(1)
    assert table["digit 1"][0] == pytest.approx(1) and table["digit 2"][1] == pytest.approx(1)
    assert table["relation"][0] == pytest.approx(4 / 64)


def test_caption_scenes_batches_like_one_call(scenes):
    torch.manual_seed(0)
    model = Captioner(CaptionerConfig.tiny())
    whole = model.caption(scenes.images)
    batched = caption_scenes(model, scenes, batch_size=7)
    assert torch.equal(whole.ids, batched.ids)
    torch.testing.assert_close(whole.weights, batched.weights)


def test_bad_inputs(scenes):
    with pytest.raises(ValueError, match="ids"):
        caption_scores(torch.zeros(3, 7, dtype=torch.long), scenes)
    with pytest.raises(ValueError, match="no attention"):
        localisation(CaptionResult(torch.zeros(40, 7, dtype=torch.long), None, None), scenes)
    with pytest.raises(ValueError, match="model"):
        caption_scenes("model", scenes)
