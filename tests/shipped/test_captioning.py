"""lecturekit.shipped.captioning: the recipe, a short training run, and the shipped captioners
are what lecture 09a says (attention writes most held-out captions exactly and its digit words
look at their digits; the mean-pooled baseline does not)."""

import pytest
import torch

from lecturekit.datasets.scenes import default_data
from lecturekit.experiments.captioning import caption_scenes, caption_scores, localisation
from lecturekit.models.captioning import Captioner
from lecturekit.shipped import load_shipped, shipped_info
from lecturekit.shipped.captioning import MODELS, caption_loss, main, recipe, train_captioner


@pytest.fixture(scope="module")
def test_scenes():
    return default_data(n_train=0, n_test=300).test


def test_each_checkpoint_records_its_recipe():
    for name in MODELS:
        info = shipped_info(name)
        assert info.model == "Captioner" and info.training == recipe(name)
        assert info.training["seed"] == 0 and "data" in info.training


def test_shipped_captioners_do_what_the_lecture_says(test_scenes):
    model, pooled = load_shipped("captioner_scenes"), load_shipped("captioner_scenes_pooled")
    assert isinstance(model, Captioner) and not pooled.config.attention
    soft = caption_scenes(model, test_scenes)
    att = caption_scores(soft.ids, test_scenes)
    base = caption_scores(caption_scenes(pooled, test_scenes).ids, test_scenes)
    assert att.exact_match >= 0.85 and base.exact_match < 0.1
    loc = localisation(soft, test_scenes)
    assert loc.rate(0) >= 0.85 and loc.rate(1) >= 0.85 and loc.chance == 0.0625


def test_a_short_run_learns():
    data = default_data(n_train=256, n_test=32)
    torch.manual_seed(0)
    model, history = train_captioner("captioner_scenes", data, epochs=2)
    assert history.loss[1] < history.loss[0] and len(history.eval) == 1
    batch = (data.test.images[:4], torch.ones(4, 3, dtype=torch.long),
             torch.ones(4, 3, dtype=torch.long))  # fmt: skip
    assert caption_loss(model, batch).ndim == 0
    with pytest.raises(ValueError, match="targets"):
        caption_loss(model, (batch[0], batch[1], batch[2][:, :2]))
    with pytest.raises(ValueError, match="name"):
        train_captioner("captioner", data, epochs=1)


def test_main_rejects_a_bad_command_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--models", "captioner_nope"])
    assert exit_info.value.code == 2 and "captioner_nope" in capsys.readouterr().err
