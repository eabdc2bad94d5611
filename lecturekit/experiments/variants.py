"""Lecture 11b's measurements: the Universal Transformer's accuracy and steps by pointer-chain
depth (``depth_table``), and convolutional self-attention: a one-layer forecaster of
``lecturekit.datasets.variants.shape_series`` whose queries and keys come from a causal
convolution of width ``kernel`` (1 = ordinary attention), trained for a few seconds, scored on
held-out series.

Public API::

    model = ShapeForecaster(kernel, d_model=16, num_heads=2)
    pred, weights = model(x)           # x (B, n) -> next-value predictions (B, n), (B, H, n, n)
    model, losses = train_forecaster(kernel, steps=300, seed=0)
    forecast_mse(model, x)             # mean squared error of one-step predictions on x (B, n)
    heldout_series()                   # the fixed held-out series (seed 123)
    table = depth_table(model, test)   # a Universal Transformer per pointer-chain depth:
    #   tokens, accuracy, mean ACT steps (test: lecturekit.datasets.variants.pointer_test_set())

The forecaster has no position signal: whatever it knows about where the series is going
(up or down) must come from which earlier points the attention picks, so the comparison
isolates what the convolution adds to the scores.

Lecture 11b; Li et al. 2019 section 3.2.
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.datasets.variants import PointerBatch, shape_series
from lecturekit.efficient.conv_attention import ConvSelfAttention
from lecturekit.efficient.universal import UniversalTransformer
from lecturekit.utils.checks import (
    check_input,
    check_instance,
    check_positive_int,
    check_seed,
    check_tensor,
)

__all__ = ["ShapeForecaster", "train_forecaster", "forecast_mse", "heldout_series", "depth_table"]

HELDOUT_SEED = 123


class ShapeForecaster(nn.Module):
    """x_t -> a guess of x_{t+1}: embed each value, one ``ConvSelfAttention`` (causal), a
    residual ReLU readout added to x_t.

    Lecture 11b; Li et al. 2019 section 3.2.
    """

    def __init__(self, kernel: int, d_model: int = 16, num_heads: int = 2):
        super().__init__()
        self.embed = nn.Linear(1, d_model)
        self.attention = ConvSelfAttention(d_model, kernel, num_heads)
        self.readout = nn.Linear(d_model, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, n) -> predictions of x[:, 1:] and beyond (B, n), weights (B, H, n, n)."""
        check_input("x", x, self, ndim=2, wanted="(B, n)")
        h = self.embed(x.unsqueeze(-1))  # (B, n) -> (B, n, 1) -> (B, n, D)
        a, weights = self.attention(h)
        return self.readout(torch.relu(h + a)).squeeze(-1) + x, weights  # (B, n, 1) -> (B, n)


def heldout_series(batch_size: int = 256) -> torch.Tensor:
    """The held-out series every comparison is scored on: (batch_size, 48), seed 123.

    Lecture 11b.
    """
    check_positive_int("batch_size", batch_size)
    return shape_series(batch_size, generator=torch.Generator().manual_seed(HELDOUT_SEED))


@torch.no_grad()
def forecast_mse(model: ShapeForecaster, x: torch.Tensor) -> float:
    """Mean squared error of the one-step predictions of x[:, 1:] from x[:, :-1].

    Lecture 11b.
    """
    check_instance("model", model, ShapeForecaster)
    check_tensor("x", x, ndim=2, wanted="(B, n)", floating=True)
    pred, _ = model.eval()(x[:, :-1])
    return float(((pred - x[:, 1:]) ** 2).mean())


def train_forecaster(
    kernel: int, steps: int = 300, seed: int = 0, batch_size: int = 32, lr: float = 3e-3
) -> tuple[ShapeForecaster, list[float]]:
    """Train a ``ShapeForecaster(kernel)`` (initialised from ``seed``) with Adam on fresh
    series (seed + 10) for ``steps`` steps; one-step mean squared error.

    Returns:
        (model in eval mode, the loss of every step).

    Lecture 11b; Li et al. 2019 section 3.2.
    """
    check_positive_int("kernel", kernel)
    check_positive_int("steps", steps)
    check_seed(seed)
    check_positive_int("batch_size", batch_size)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = ShapeForecaster(kernel)
    optimizer = torch.optim.Adam(model.parameters(), lr)
    gen = torch.Generator().manual_seed(seed + 10)
    losses = []
    model.train()
    for _ in range(steps):
        x = shape_series(batch_size, generator=gen)
        pred, _ = model(x[:, :-1])
        loss = ((pred - x[:, 1:]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model.eval(), losses


@torch.no_grad()
def depth_table(model: UniversalTransformer, test: PointerBatch) -> dict[str, list[float]]:
    """Per chain depth 0..max_depth: how many tokens, the accuracy, the mean ACT steps.

    Returns:
        {"depth": [...], "tokens": [...], "accuracy": [...], "steps": [...]}.

    Lecture 11b.
    """
    check_instance("model", model, UniversalTransformer)
    check_instance("test", test, PointerBatch)
    out = model.eval()(test.ids)
    right = (out.logits.argmax(-1) == test.targets).float()
    table: dict[str, list[float]] = {"depth": [], "tokens": [], "accuracy": [], "steps": []}
    for d in range(int(test.depth.max()) + 1):
        at = test.depth == d
        table["depth"].append(d)
        table["tokens"].append(int(at.sum()))
        table["accuracy"].append(float(right[at].mean()))
        table["steps"].append(float(out.steps[at].mean()))
    return table
