"""lecturekit.shipped.vit: the recipe, and the shipped lecture 09 ViTs are what the lecture says."""

import pytest
import torch
from torch import nn

from lecturekit.datasets.digits import (
    DigitsData,
    load_digits_data,
)
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.patches import (
    position_similarity,
)
from lecturekit.shipped import load_shipped, shipped_info
from lecturekit.shipped.vit import (
    MODELS,
    accuracy,
    main,
    recipe,
    shipped_history,
    train_classifier,
    train_vit,
)


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


def test_each_checkpoint_records_its_recipe_and_training_curves():
    for name in MODELS:
        training = dict(shipped_info(name).training)
        measured = training.pop("history")
        assert training == recipe(name)
        history = shipped_history(name)
        epochs = MODELS[name]["epochs"]
        assert len(history.loss) == len(history.eval) == epochs, name
        assert history.eval == measured["test_accuracy"] and measured["threads"] == 1
        assert history.loss[-1] < history.loss[0] and 0 < history.seconds < 600
    assert shipped_history("vit_digits").eval[-1] >= 0.97


def test_shipped_history_refuses_an_unknown_name():
    with pytest.raises(ValueError, match=r"name='vit_base' is not one of \['vit_digits'"):
        shipped_history("vit_base")
    moved = recipe("vit_digits_moved")
    assert (moved["epochs"], moved["max_shift"], moved["augment_prob"]) == (15, 2, 1.0)
    assert recipe("vit_digits")["epochs"] == 40 and recipe("vit_digits")["weight_decay"] == 0.05


def test_shipped_vit_reaches_the_lectures_accuracy(digits):
    model = load_shipped("vit_digits")
    assert isinstance(model, ViT) and not model.training
    assert model.config.grid == (4, 4) and sum(p.numel() for p in model.parameters()) == 69_194
    assert accuracy(model, digits.test_images, digits.test_labels) >= 0.97


def test_only_the_model_trained_on_moved_digits_learned_the_2d_layout():
    centred = _falloff(load_shipped("vit_digits").pos_embed)
    moved = _falloff(load_shipped("vit_digits_moved").pos_embed)
    assert min(moved) > 0.2  # similarity falls with distance along rows and along columns
    assert min(moved) > max(centred)


def test_train_vit_rejects_an_unknown_name():
    with pytest.raises(ValueError, match=r"name='vit_base' is not one of \['vit_digits'"):
        train_vit("vit_base")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--models", "vit_huge"], "--models: 'vit_huge' is not one of ['vit_digits'"),
        (["--threads", "0"], "--threads must be >= 1, got 0"),
    ],
)
def test_cli_refuses_bad_arguments_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


class _Fixed(nn.Module):
    """Predicts class 0 for every image and is 'trained' when asked."""

    def forward(self, images):
        logits = torch.zeros(len(images), 10)
        logits[:, 0] = 1
        return logits, None


def test_accuracy_counts_and_restores_the_mode():
    model = _Fixed().train()
    labels = torch.tensor([0, 0, 1, 2, 0, 3, 0, 0])
    assert accuracy(model, torch.zeros(8, 1, 8, 8), labels, batch_size=3) == 5 / 8
    assert model.training


def _small(digits, n=200):
    return DigitsData(digits.train_images[:n], digits.train_labels[:n], digits.test_images[:100],
                      digits.test_labels[:100])  # fmt: skip


def test_train_classifier_is_deterministic_and_records_each_epoch(digits):
    data = _small(digits)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = ViT(ViTConfig.tiny(d_model=16, d_ff=32, num_layers=1))
        history = train_classifier(model, data, epochs=3, batch_size=50, seed=3)
        runs.append((history, model))
    (h1, m1), (h2, m2) = runs
    assert len(h1.loss) == len(h1.eval) == 3 and h1.seconds > 0
    assert h1.loss == h2.loss and h1.eval == h2.eval
    assert all(torch.equal(a, b) for a, b in zip(m1.parameters(), m2.parameters(), strict=True))
    assert not m1.training
    once = train_classifier(m1, data, epochs=2, batch_size=50, eval_every_epoch=False)
    assert len(once.loss) == 2 and once.eval == [accuracy(m1, data.test_images, data.test_labels)]


def test_train_classifier_learns(digits):
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    before = accuracy(mlp, digits.test_images, digits.test_labels)
    history = train_classifier(mlp, digits, epochs=10, lr=5e-3, warmup_epochs=1, seed=0)
    assert before < 0.3 and history.eval[-1] > 0.9
    assert history.loss[-1] < history.loss[0]


def test_train_classifier_decays_only_weight_matrices(digits):
    torch.manual_seed(0)
    model = ViT(ViTConfig.tiny(d_model=16, d_ff=32, num_layers=1))
    with torch.no_grad():
        model.pos_embed.fill_(1.0)
    head, bias = model.head.weight.detach().clone(), model.head.bias.detach().clone()
    # one step with a tiny lr: Adam moves nothing; decoupled decay multiplies by 1 - lr * wd
    train_classifier(model, _small(digits, 64), epochs=1, batch_size=64, lr=1e-9,
                     weight_decay=1e8, warmup_epochs=0)  # fmt: skip
    torch.testing.assert_close(model.head.weight, 0.9 * head, atol=1e-6, rtol=0)
    torch.testing.assert_close(model.head.bias, bias, atol=1e-6, rtol=0)
    torch.testing.assert_close(model.pos_embed, torch.ones_like(model.pos_embed), atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epochs": 0}, r"epochs must be a positive integer"),
        ({"lr": 0.0}, r"lr must be a number in \(0, inf\], got 0.0"),
        ({"warmup_epochs": -1}, r"warmup_epochs must be a non-negative integer, got -1"),
    ],
)
def test_train_classifier_rejects_bad_settings(digits, kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_classifier(nn.Linear(64, 10), digits, **kwargs)


def test_max_steps_takes_the_first_steps_of_the_full_run(digits):
    """train_vit(max_steps=N) stops after the first N optimizer steps of the shipped recipe's
    run (notebook 09 compares them with its own loop); the schedule still spans all epochs."""
    model, short = train_vit("vit_digits", digits, max_steps=5)
    _, longer = train_vit("vit_digits", digits, max_steps=8)
    assert len(short.step_loss) == 5 and short.step_loss == longer.step_loss[:5]
    assert len(short.loss) == 1 and len(short.eval) == 1  # one (partial) epoch, evaluated
    assert isinstance(model, ViT) and "max_steps" not in recipe("vit_digits")
    torch.manual_seed(0)
    history = train_classifier(ViT(ViTConfig.tiny()), digits, epochs=40, max_steps=5)
    assert history.step_loss == short.step_loss  # train_vit is train_classifier, seeded
    with pytest.raises(ValueError, match="max_steps"):
        train_classifier(ViT(ViTConfig.tiny()), digits, max_steps=0)
