"""lecturekit.training.fit: the one training loop every recipe uses."""

import pytest
import torch
from torch import nn

from lecturekit.training import History, fit, set_seed


def _regression(seed=0, n=64):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, generator=g)
    return x, x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1 * torch.randn(n, generator=g)


def _batches(x, y, size=16):
    def make(epoch, generator):
        order = torch.randperm(len(x), generator=generator)
        for i in range(0, len(x), size):
            idx = order[i : i + size]
            yield x[idx], y[idx]

    return make


def _mse(model, batch):
    x, y = batch
    return ((model(x).squeeze(-1) - y) ** 2).mean()


def _train(**kwargs):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    x, y = _regression()
    history = fit(model, _batches(x, y), _mse, progress=False, **{"epochs": 3, **kwargs})
    return model, history


def test_fit_is_deterministic_and_learns():
    (m1, h1), (m2, h2) = _train(lr=0.1, clip=None), _train(lr=0.1, clip=None)
    assert isinstance(h1, History) and h1.loss == h2.loss and h1.step_loss == h2.step_loss
    assert torch.equal(m1.weight, m2.weight)
    assert h1.loss[-1] < 0.5 * h1.loss[0]
    assert len(h1.step_loss) == 3 * 4  # 64 examples in batches of 16, three epochs
    assert h1.loss[0] == pytest.approx(sum(h1.step_loss[:4]) / 4)  # the mean of its batches
    assert not m1.training  # left in eval mode


def test_eval_after_every_epoch_or_only_the_last():
    calls = []
    _, history = _train(eval_fn=lambda m: calls.append(m.training) or len(calls))
    assert history.eval == [1.0, 2.0, 3.0] and calls == [False] * 3  # evaluated in eval mode
    _, history = _train(eval_fn=lambda m: 7.0, eval_every_epoch=False)
    assert history.eval == [7.0]


def test_max_steps_stops_the_run_and_keeps_its_first_steps():
    _, full = _train(lr=0.1, clip=None)  # 3 epochs of 4 steps
    evaluated = []
    _, part = _train(lr=0.1, clip=None, max_steps=6, eval_fn=lambda m: evaluated.append(1) or 1.0)
    assert part.step_loss == full.step_loss[:6]  # the same first steps, bit for bit
    assert len(part.loss) == 2 and part.loss[1] == pytest.approx(sum(part.step_loss[4:]) / 2)
    assert len(evaluated) == 2  # the cut epoch is evaluated as the last one
    _, once = _train(lr=0.1, max_steps=6, eval_fn=lambda m: 1.0, eval_every_epoch=False)
    assert once.eval == [1.0]
    _, beyond = _train(lr=0.1, clip=None, max_steps=100)
    assert beyond.step_loss == full.step_loss  # more steps than the epochs hold: all of them
    with pytest.raises(ValueError, match="max_steps"):
        _train(max_steps=0)


def test_schedules_set_the_learning_rate():
    seen = []

    def record(m, batch):
        seen.append(optimizer.param_groups[0]["lr"])
        return _mse(m, batch)

    torch.manual_seed(0)
    net = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=1.0)
    x, y = _regression()
    fit(net, _batches(x, y), record, epochs=2, optimizer=optimizer,
        schedule=lambda step: 1 / (step + 1), progress=False)  # fmt: skip
    assert seen == pytest.approx([1 / (s + 1) for s in range(8)])
    seen.clear()
    optimizer = torch.optim.SGD(net.parameters(), lr=1.0)
    fit(net, _batches(x, y), record, epochs=2, optimizer=optimizer, lr_decay=0.5,
        progress=False)  # fmt: skip
    assert seen == pytest.approx([1.0] * 4 + [0.5] * 4)


def test_seed_none_keeps_the_global_random_state():
    x, y = _regression()
    model = nn.Linear(3, 1)
    set_seed(3)
    expected = torch.rand(1)
    set_seed(3)
    fit(model, _batches(x, y), _mse, epochs=1, seed=None, clip=None, progress=False)
    assert torch.equal(torch.rand(1), expected)  # nothing drawn from, nothing reseeded
    fit(model, _batches(x, y), _mse, epochs=1, seed=5, progress=False)
    after_fit = torch.rand(1)
    set_seed(5)
    assert torch.equal(torch.rand(1), after_fit)  # seed=5 reseeded torch's global generator


def test_the_generator_passed_in_is_the_one_batches_get():
    g, seen = torch.Generator().manual_seed(11), []

    def make(epoch, generator):
        seen.append(generator)
        return []

    fit(nn.Linear(3, 1), make, _mse, epochs=2, generator=g, progress=False)
    assert seen == [g, g]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epochs": 0}, "epochs must be a positive integer"),
        ({"epochs": 1, "lr": 0}, r"lr must be a number in \(0, inf\]"),
        ({"epochs": 1, "lr_decay": 1.5}, r"lr_decay must be a number in \(0, 1\]"),
        ({"epochs": 1, "clip": -1.0}, r"clip must be a number in \(0, inf\]"),
        ({"epochs": 1, "optimizer": "adam"}, "optimizer must be a torch.optim.Optimizer"),
        ({"epochs": 1, "schedule": lambda s: 1.0, "lr_decay": 0.5}, "not both"),
        ({"epochs": 1, "seed": -1}, "seed must be a non-negative integer"),
        ({"epochs": 1, "loss_fn": "mse"}, "loss_fn must be callable, got str"),
    ],
)
def test_fit_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kwargs = {"loss_fn": lambda m, b: None, **kwargs}
        fit(nn.Linear(2, 2), lambda e, g: [], progress=False, **kwargs)


def test_legitimate_odd_inputs():
    """An epoch without batches records a loss of 0.0; a loss of shape (1,) is a scalar."""
    model = nn.Linear(2, 1)
    history = fit(model, lambda e, g: [], lambda m, b: None, epochs=2, progress=False)
    assert history.loss == [0.0, 0.0] and history.step_loss == []
    history = fit(model, lambda e, g: [torch.ones(4, 2)], lambda m, b: m(b).mean().reshape(1),
                  epochs=1, progress=False)  # fmt: skip
    assert len(history.step_loss) == 1


# --- device (issue 16): the optimizer steps on a device, evaluation and the result on the CPU


def test_device_cpu_changes_nothing():
    """device="cpu" moves nothing that is not already there: the same losses and weights, bit
    for bit, as device=None (the shipped results stay the CPU's)."""
    (m1, h1), (m2, h2) = _train(lr=0.1), _train(lr=0.1, device="cpu")
    assert h1.step_loss == h2.step_loss and torch.equal(m1.weight, m2.weight)
    _, h3 = _train(lr=0.1, device=torch.device("cpu"), eval_fn=lambda m: 1.0)
    assert h3.step_loss == h1.step_loss and h3.eval == [1.0] * 3


def test_fit_moves_each_batch_and_returns_the_model_on_the_cpu():
    seen = []

    def loss(model, batch):
        seen.append(batch["x"].device.type)
        return model(batch["x"]).pow(2).mean()

    model = nn.Linear(2, 1)
    fit(model, lambda e, g: [{"x": torch.ones(3, 2)}], loss, epochs=2, progress=False,
        device="cpu")  # fmt: skip
    assert seen == ["cpu", "cpu"] and model.weight.device.type == "cpu"


def test_to_device_walks_nested_batches():
    """Tensors inside dicts, lists, tuples, namedtuples and (frozen) dataclasses are moved
    (checked with the meta device, which every torch build has); the rest is kept."""
    from collections import namedtuple

    from lecturekit.datasets.translation import collate, make_translation_data
    from lecturekit.training import to_device

    data = make_translation_data(n_train=3, n_valid=1, n_test=1)
    batch = collate(data.train, data.src_vocab, data.tgt_vocab)  # a frozen dataclass
    Pair = namedtuple("Pair", "x y")
    nested = {"batch": batch, "pair": Pair(torch.ones(2), 3), "list": [torch.zeros(1), "a"]}
    moved = to_device(nested, "meta")
    assert type(moved["batch"]) is type(batch) and moved["batch"].src.device.type == "meta"
    assert moved["batch"].src.shape == batch.src.shape and batch.src.device.type == "cpu"
    assert isinstance(moved["pair"], Pair) and moved["pair"].x.is_meta and moved["pair"].y == 3
    assert moved["list"][0].is_meta and moved["list"][1] == "a"


@pytest.mark.parametrize(
    ("device", "match"),
    [
        ("nonsense", r"device='nonsense' is not a device this package trains on: use cpu, cuda"),
        ("cdua", "did you mean 'cuda'"),
        ("gpu", r"for a GPU use cuda \(NVIDIA\) or mps \(Apple\)"),
        ("cuda:99", r"device='cuda:99' is not available on this machine"),
        ("meta", "not a device this package trains on"),
        (torch.device("meta"), "not a device this package trains on"),
        (0, r"device=0 is not a device: use cpu, cuda, cuda:N or mps \(a str or a torch.device\)"),
        (" cpu", "is not a device"),
    ],
)
def test_fit_refuses_a_device_it_cannot_train_on(device, match):
    with pytest.raises(ValueError, match=match):
        fit(nn.Linear(2, 2), lambda e, g: [], lambda m, b: None, epochs=1, progress=False,
            device=device)  # fmt: skip


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_check_device_says_why_cuda_is_missing():
    from lecturekit.utils.checks import check_device

    with pytest.raises(ValueError) as info:
        check_device("--device", "cuda")
    assert str(info.value) == ("--device cuda is not available on this machine "
                               "(torch.cuda.is_available() is False)")  # fmt: skip
    assert check_device("device", "cpu") == torch.device("cpu")
