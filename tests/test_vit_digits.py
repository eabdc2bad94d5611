"""lecturekit.vit_digits: the shipped lecture 09 ViTs load, are what the lecture says they are,
and the command line refuses bad arguments with a message."""

import pytest
import torch

from lecturekit.checkpoints import read_manifest
from lecturekit.datasets.digits import load_digits_data
from lecturekit.vit import ViT, position_similarity
from lecturekit.vit_digits import MODELS, accuracy, load_vit, main


@pytest.fixture(scope="module")
def digits():
    return load_digits_data()


def _falloff(pos_embed, grid=(4, 4)):
    """Mean position-embedding similarity at distance 1 minus at distance 3, along rows and
    along columns (positive = nearby patches are more alike)."""
    gh, gw = grid
    sim = position_similarity(pos_embed, grid).reshape(gh * gw, gh * gw)
    rows, cols = torch.arange(gh).repeat_interleave(gw), torch.arange(gw).repeat(gh)
    d_row, d_col = (rows[:, None] - rows).abs(), (cols[:, None] - cols).abs()

    def mean(dr, dc):
        return sim[(d_row == dr) & (d_col == dc)].mean().item()

    return mean(0, 1) - mean(0, 3), mean(1, 0) - mean(3, 0)


def test_every_shipped_model_is_in_the_manifest():
    manifest = read_manifest()
    for name in MODELS:
        assert f"{name}.safetensors" in manifest


def test_shipped_vit_reaches_the_lectures_accuracy(digits):
    model = load_vit("vit_digits")
    assert isinstance(model, ViT) and not model.training
    assert model.config.grid == (4, 4) and sum(p.numel() for p in model.parameters()) == 69_194
    assert accuracy(model, digits.test_images, digits.test_labels) >= 0.97


def test_only_the_model_trained_on_moved_digits_learned_the_2d_layout():
    centred = _falloff(load_vit("vit_digits").pos_embed)
    moved = _falloff(load_vit("vit_digits_moved").pos_embed)
    assert min(moved) > 0.2  # similarity falls with distance along rows and along columns
    assert min(moved) > max(centred)


def test_load_vit_rejects_an_unknown_name():
    with pytest.raises(ValueError, match=r"name='vit_base' is not a shipped ViT; choose from"):
        load_vit("vit_base")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--models", "vit_huge"], "unknown model(s) ['vit_huge']"),
        (["--threads", "0"], "--threads must be >= 1, got 0"),
    ],
)
def test_cli_refuses_bad_arguments_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
