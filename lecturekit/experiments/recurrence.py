"""Lecture 00's measurements of why recurrence struggles: vanishing gradients, sequential steps
and path lengths, against self-attention.

``gradient_vs_distance`` measures ‖∂L/∂x_{T-1-d}‖ for a loss read at the last position, for a
vanilla RNN, a GRU, an LSTM (torch's layers, default initialisation) and one Transformer
encoder layer (``lecturekit.layers.EncoderLayer``), the median over seeds. ``rnn_jacobian_decay``
rescales the vanilla RNN's W_hh to a chosen spectral norm σ and measures the per-step decay
factor of that gradient (the product ∇f_N·W_N·∇f_{N-1}·W_{N-1}··· of the CMU slide is bounded
by σ per step). ``vaswani_table`` fills Table 1 of Vaswani et al. (Gaussier's "complexity
considerations") from measurements: FLOPs counted with ``lecturekit.efficient.cost.count_flops``
and their exponents fitted, sequential operations counted, maximum path lengths measured with
gradients (``path_length``).

Public API::

    KINDS                                          # ("RNN", "GRU", "LSTM", "Transformer")
    g = gradient_vs_distance(KINDS, length=48, dim=32, seeds=5, lstm_forget_bias=None)
    #   g.distances (length,), g.norms[kind] (length,) median, g.runs[kind] (seeds, length)
    j = rnn_jacobian_decay((0.5, 1.0, 2.0), length=48, dim=32, seeds=5)
    #   j.spectral_norms, j.factors (measured per-step factor), j.curves {σ: (length,)}
    cell_flops(dim=64)                             # {"RNN": ..., "GRU": ..., "LSTM": ...} one step
    s = sequential_steps(n=64, dim=16)             # cell calls of a recurrent layer vs 1
    t = sequential_vs_parallel_times((16, 64, 256), dim=64)   # seconds, {kind: [...]}
    path_length("restricted", n=32, window=2)      # layers until y[n-1] depends on x[0]
    rows = vaswani_table(ns=(64, 128, 256), ds=(16, 32, 64), n_path=(16, 32), kernel=3, window=2)
    LAYER_TYPES                                    # the table's four rows (and the paper's O())

Lecture 00; Vaswani et al. 2017 Table 1; Bengio et al. 1994; Pascanu et al. 2013.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.efficient.cost import best_time, count_flops
from lecturekit.efficient.local import chunked_local_attention, local_attention
from lecturekit.layers import EncoderLayer
from lecturekit.models.recurrent import rnn_cell, run_cell
from lecturekit.utils.checks import (
    check_choice,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
)

__all__ = ["KINDS", "LAYER_TYPES", "GradientCurves", "gradient_vs_distance", "JacobianDecay",
           "rnn_jacobian_decay", "cell_flops", "sequential_steps", "sequential_vs_parallel_times",
           "path_length", "vaswani_table"]  # fmt: skip

KINDS = ("RNN", "GRU", "LSTM", "Transformer")
# Table 1's rows: name -> (complexity per layer, sequential operations, maximum path length)
LAYER_TYPES = {
    "self-attention": ("O(n^2 d)", "O(1)", "O(1)"),
    "recurrent": ("O(n d^2)", "O(n)", "O(n)"),
    "convolutional": ("O(k n d^2)", "O(1)", "O(log_k n)"),
    "self-attention (restricted)": ("O(r n d)", "O(1)", "O(n/r)"),
}


class _Recurrent(nn.Module):
    """torch's RNN / GRU / LSTM layer returning only its outputs (B, T, H)."""

    def __init__(self, kind: str, dim: int):
        super().__init__()
        layer = {"RNN": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM}[kind]
        self.layer = layer(dim, dim, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)[0]


class _Encoder(nn.Module):
    """One post-norm Transformer encoder layer (full attention, no mask), outputs only."""

    def __init__(self, dim: int):
        super().__init__()
        self.layer = EncoderLayer(dim, num_heads=4 if dim % 4 == 0 else 1, d_ff=4 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)[0]


def _layer(kind: str, dim: int, seed: int, forget_bias: float | None = None) -> nn.Module:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = _Encoder(dim) if kind == "Transformer" else _Recurrent(kind, dim)
    if kind == "LSTM" and forget_bias is not None:
        with torch.no_grad():  # the f block of torch's (i, f, g, o) stacking
            layer.layer.bias_ih_l0[dim : 2 * dim] = forget_bias
            layer.layer.bias_hh_l0[dim : 2 * dim] = 0.0
    return layer.double().eval()


def _input_gradient_norms(layer: nn.Module, length: int, dim: int, seed: int) -> torch.Tensor:
    """‖∂L/∂x_{T-1-d}‖ for d = 0..T-1, L = r · y_{T-1} with a random unit readout r."""
    g = torch.Generator().manual_seed(10_000 + seed)
    x = torch.randn(1, length, dim, generator=g, dtype=torch.float64, requires_grad=True)
    readout = F.normalize(torch.randn(dim, generator=g, dtype=torch.float64), dim=0)
    loss = layer(x)[0, -1] @ readout  # (1, T, D) -> (D,) -> scalar
    (grad,) = torch.autograd.grad(loss, x)
    return grad[0].norm(dim=-1).flip(0)  # (T,) index d = distance from the last position


@dataclass(frozen=True)
class GradientCurves:
    """Gradient norm against distance, per kind of layer."""

    distances: torch.Tensor  # (T,) 0..T-1
    norms: dict[str, torch.Tensor]  # kind -> (T,) median over seeds
    runs: dict[str, torch.Tensor]  # kind -> (seeds, T)


def _check_common(length: object, dim: object, seeds: object) -> None:
    check_positive_int("length", length)
    check_positive_int("dim", dim)
    check_positive_int("seeds", seeds)
    if length < 2:
        raise ValueError(
            f"length must be at least 2 (a distance needs two positions), got {length}"
        )


def gradient_vs_distance(
    kinds: Sequence[str] = KINDS,
    length: int = 48,
    dim: int = 32,
    seeds: int = 5,
    *,
    lstm_forget_bias: float | None = None,
) -> GradientCurves:
    """Measure how much the loss at the last position feels each earlier input, at
    initialisation: for each kind and seed, a fresh layer (torch's default initialisation,
    float64), a random input (1, T, D) and the gradient of L = r · y_{T-1}.

    Args:
        kinds: any of ``KINDS``; length: T; dim: input and hidden size; seeds: how many draws
            (layer and input) the median is taken over.
        lstm_forget_bias: if given, the LSTM's forget-gate bias is set to it (b_ih's f block;
            b_hh's f block 0) instead of torch's random one: a large one keeps the forget gate
            near 1, so the cell state carries the gradient (Gers et al. 2000; Jozefowicz et
            al. 2015 recommend 1).

    Returns:
        GradientCurves(distances, norms {kind: (T,) median}, runs {kind: (seeds, T)}).

    Lecture 00; Bengio et al. 1994; Pascanu et al. 2013.
    """
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or not kinds:
        raise ValueError(f"kinds must be a non-empty list of {list(KINDS)}, got {kinds!r}")
    for kind in kinds:
        check_choice("kinds", kind, KINDS)
    _check_common(length, dim, seeds)
    if lstm_forget_bias is not None:
        check_range("lstm_forget_bias", lstm_forget_bias)
    runs = {}
    for kind in kinds:
        runs[kind] = torch.stack([
            _input_gradient_norms(_layer(kind, dim, seed, lstm_forget_bias), length, dim, seed)
            for seed in range(seeds)
        ])  # fmt: skip
    norms = {k: r.median(dim=0).values for k, r in runs.items()}
    return GradientCurves(torch.arange(length), norms, runs)


@dataclass(frozen=True)
class JacobianDecay:
    """The vanilla RNN with W_hh rescaled to spectral norm σ: the measured decay per step."""

    spectral_norms: tuple[float, ...]
    factors: tuple[float, ...]  # exp(slope of log median gradient norm over d = 1..fit_to)
    curves: dict[float, torch.Tensor]  # σ -> (T,) median gradient norm against distance


def rnn_jacobian_decay(
    spectral_norms: Sequence[float] = (0.5, 1.0, 2.0),
    length: int = 48,
    dim: int = 32,
    seeds: int = 5,
    fit_to: int = 24,
) -> JacobianDecay:
    """Rescale a vanilla RNN's W_hh to each spectral norm σ (largest singular value) and
    measure the gradient against distance (as ``gradient_vs_distance``) and its per-step
    factor: ∂h_t/∂h_{t-1} = diag(1 - h_t²) W_hh, so the factor is at most σ.

    Args:
        spectral_norms: the σ values (> 0); length, dim, seeds: as ``gradient_vs_distance``;
            fit_to: the factor is exp(slope) of a least-squares line through log norm at
            d = 1..fit_to (d = 0 is the direct path through W_ih alone).

    Returns:
        JacobianDecay(spectral_norms, factors, curves).

    Lecture 00; Pascanu et al. 2013 section 2.1 (the CMU slide's ∇f_N·W_N···).
    """
    if isinstance(spectral_norms, str) or not isinstance(spectral_norms, Sequence):
        raise ValueError(f"spectral_norms must be a list of positive numbers, got "
                         f"{spectral_norms!r}")  # fmt: skip
    sigmas = tuple(check_range(f"spectral_norms[{i}]", s, 0, low_open=True)
                   for i, s in enumerate(spectral_norms))  # fmt: skip
    if not sigmas:
        raise ValueError("spectral_norms must not be empty")
    _check_common(length, dim, seeds)
    check_positive_int("fit_to", fit_to)
    if fit_to >= length:
        raise ValueError(f"fit_to must be below length={length}, got {fit_to}")
    curves, factors = {}, []
    for sigma in sigmas:
        runs = []
        for seed in range(seeds):
            layer = _layer("RNN", dim, seed)
            w = layer.layer.weight_hh_l0
            with torch.no_grad():
                w.mul_(sigma / torch.linalg.matrix_norm(w, ord=2))
            runs.append(_input_gradient_norms(layer, length, dim, seed))
        curve = torch.stack(runs).median(dim=0).values
        d = np.arange(1, fit_to + 1)
        slope = np.polyfit(d, np.log(curve[1 : fit_to + 1].numpy()), 1)[0]
        curves[sigma] = curve
        factors.append(float(math.exp(slope)))
    return JacobianDecay(sigmas, tuple(factors), curves)


def cell_flops(dim: int = 64) -> dict[str, int]:
    """FLOPs of one step of ``torch.nn.RNNCell`` / ``GRUCell`` / ``LSTMCell`` (input and
    hidden size ``dim``, batch 1), counted with ``count_flops``: 2 products (W_ih x, W_hh h)
    per gate matrix, so 4 d², 12 d², 16 d².

    Lecture 00 (the CMU slide's "3x more matrix multiplications").
    """
    check_positive_int("dim", dim)
    x = torch.randn(1, dim, generator=torch.Generator().manual_seed(0))
    cells = {"RNN": nn.RNNCell(dim, dim), "GRU": nn.GRUCell(dim, dim),
             "LSTM": nn.LSTMCell(dim, dim)}  # fmt: skip
    return {name: count_flops(lambda c=cell: c(x)).total for name, cell in cells.items()}


def _rnn_weights(dim: int, seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(dim)
    return tuple((torch.rand(*shape, generator=g) * 2 - 1) * bound
                 for shape in ((dim, dim), (dim, dim), (dim,), (dim,)))  # fmt: skip


@dataclass(frozen=True)
class SequentialSteps:
    """Dependent calls to process n positions: a recurrent layer vs self-attention."""

    n: int
    recurrent: int  # cell calls, each needing the previous one's output
    attention: int  # calls of scaled_dot_product_attention (all positions at once)


def sequential_steps(n: int = 64, dim: int = 16) -> SequentialSteps:
    """Count the calls: ``run_cell`` with a counting ``rnn_cell`` on n positions, and one
    ``scaled_dot_product_attention`` over all of them.

    Lecture 00; Vaswani et al. 2017 Table 1 (sequential operations).
    """
    check_positive_int("n", n)
    check_positive_int("dim", dim)
    weights = _rnn_weights(dim, 0)
    calls = {"cell": 0, "attention": 0}

    def cell(x_t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        calls["cell"] += 1
        return rnn_cell(x_t, h, *weights)

    def attention(x: torch.Tensor) -> torch.Tensor:
        calls["attention"] += 1
        return scaled_dot_product_attention(x, x, x)[0]

    x = torch.randn(1, n, dim, generator=torch.Generator().manual_seed(1))
    run_cell(cell, x, torch.zeros(1, dim))
    attention(x)
    return SequentialSteps(n, calls["cell"], calls["attention"])


def sequential_vs_parallel_times(
    ns: Sequence[int] = (16, 64, 256), dim: int = 64, repeats: int = 3
) -> dict[str, list[float]]:
    """Best-of-``repeats`` wall time (``best_time``) of a vanilla RNN layer run cell by cell
    (``run_cell`` + ``rnn_cell``: n dependent calls) and of one self-attention call
    (``scaled_dot_product_attention``, all n positions at once), on one sequence (1, n, dim).

    Returns:
        {"recurrent": [seconds per n], "self-attention": [seconds per n]}. Times vary.

    Lecture 00; Vaswani et al. 2017 section 4.
    """
    ns = check_positive_ints("ns", ns)
    check_positive_int("dim", dim)
    check_positive_int("repeats", repeats)
    weights = _rnn_weights(dim, 0)
    h0 = torch.zeros(1, dim)
    times: dict[str, list[float]] = {"recurrent": [], "self-attention": []}
    for n in ns:
        x = torch.randn(1, n, dim, generator=torch.Generator().manual_seed(n))
        times["recurrent"].append(
            best_time(
                lambda x=x: run_cell(lambda x_t, h: rnn_cell(x_t, h, *weights), x, h0), repeats
            )
        )
        times["self-attention"].append(best_time(
            lambda x=x: scaled_dot_product_attention(x, x, x), repeats))  # fmt: skip
    return times


# ---------------------------------------------------------------------------------------------
# Table 1: the four layer types


def _projections(dim: int, g: torch.Generator) -> tuple[torch.Tensor, ...]:
    return tuple(torch.randn(dim, dim, generator=g, dtype=torch.float64) / math.sqrt(dim)
                 for _ in range(3))  # fmt: skip


def _causal_conv(x: torch.Tensor, w: torch.Tensor, dilation: int) -> torch.Tensor:
    """x (1, n, D), w (D, D, k) -> (1, n, D): output t sees inputs t - (k-1)·dilation .. t."""
    k = w.shape[-1]
    y = F.conv1d(F.pad(x.transpose(1, 2), ((k - 1) * dilation, 0)), w, dilation=dilation)
    return y.transpose(1, 2)  # (1, D, n) -> (1, n, D)


def _stack_layer(kind: str, dim: int, kernel: int, window: int, g: torch.Generator):
    """One random layer of ``kind`` as a function (x (1, n, D), depth l) -> (1, n, D)."""
    if kind in ("self-attention", "self-attention (restricted)"):
        wq, wk, wv = _projections(dim, g)

        def attend(x: torch.Tensor, depth: int) -> torch.Tensor:
            q, k, v = x @ wq, x @ wk, x @ wv
            if kind == "self-attention":
                return scaled_dot_product_attention(q, k, v)[0]
            return local_attention(q, k, v, window)[0]

        return attend
    w = torch.randn(dim, dim, kernel, generator=g, dtype=torch.float64) / math.sqrt(dim * kernel)
    dilated = kind == "convolutional (dilated)"
    return lambda x, depth: torch.tanh(_causal_conv(x, w, kernel**depth if dilated else 1))


PATH_KINDS = ("self-attention", "recurrent", "convolutional", "convolutional (dilated)",
              "self-attention (restricted)")  # fmt: skip


def path_length(
    kind: str, n: int, *, kernel: int = 3, window: int = 2, dim: int = 4, seed: int = 0
) -> int:
    """Measure the maximum path length: how many steps lie between input 0 and output n - 1.

    For the stacked layer types (``PATH_KINDS`` except "recurrent"), the smallest number of
    layers L for which ∂y_{n-1}/∂x_0 is not exactly zero (random float64 layers; the
    convolutions are causal with ``kernel`` taps, contiguous or dilated by kernel^l at layer
    l; restricted attention sees ``window`` positions on each side). For "recurrent" (one
    vanilla RNN layer), the smallest number of state-to-state transitions the gradient must be
    allowed through (truncated backpropagation: the state is detached before that) for
    ∂y_{n-1}/∂x_0 not to be zero.

    Lecture 00; Vaswani et al. 2017 Table 1 (maximum path length).
    """
    check_choice("kind", kind, PATH_KINDS)
    check_positive_int("n", n)
    check_positive_int("dim", dim)
    check_seed(seed)
    if kernel < 2 or isinstance(kernel, bool) or not isinstance(kernel, int):
        raise ValueError(f"kernel must be an integer >= 2, got {kernel!r}")
    check_positive_int("window", window)
    if n == 1:
        return 0
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, n, dim, generator=g, dtype=torch.float64, requires_grad=True)
    if kind == "recurrent":
        w_ih, w_hh, b_ih, b_hh = (w.double() for w in _rnn_weights(dim, seed))
        for allowed in range(n):
            h = torch.zeros(1, dim, dtype=torch.float64)
            for t in range(n):
                if t == n - 1 - allowed:
                    h = h.detach()  # truncate: no gradient through earlier transitions
                h = rnn_cell(x[:, t], h, w_ih, w_hh, b_ih, b_hh)
            (grad,) = torch.autograd.grad(h.sum(), x)
            if grad[0, 0].abs().sum() > 0:
                return allowed
        raise AssertionError("unreachable: the full recurrence always reaches x_0")
    layers = []
    for depth in range(4 * n):  # enough for every kind: a layer moves information >= 1 step
        layers.append(_stack_layer(kind, dim, kernel, window, g))
        y = x
        for level, layer in enumerate(layers):
            y = layer(y, level)
        (grad,) = torch.autograd.grad(y[0, -1].sum(), x)
        if grad[0, 0].abs().sum() > 0:
            return depth + 1
    raise ValueError(f"{kind}: y[n-1] never depended on x[0] within {4 * n} layers")


def _fit_exponent(xs: Sequence[int], ys: Sequence[int]) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def _layer_flops(kind: str, n: int, d: int, kernel: int, window: int) -> int:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, n, d, generator=g)
    if kind == "self-attention":  # QKᵀ and AV: the n² part Table 1 counts
        return count_flops(lambda: scaled_dot_product_attention(x, x, x)).total
    if kind == "recurrent":
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            rnn = nn.RNN(d, d, batch_first=True)
        return count_flops(lambda: rnn(x)).total
    if kind == "convolutional":
        w = torch.randn(d, d, kernel, generator=g)
        return count_flops(lambda: _causal_conv(x, w, 1)).total
    return count_flops(lambda: chunked_local_attention(x, x, x, window, chunk_size=window)).total


def vaswani_table(
    ns: Sequence[int] = (64, 128, 256),
    ds: Sequence[int] = (16, 32, 64),
    n_path: Sequence[int] = (16, 32),
    kernel: int = 3,
    window: int = 2,
) -> list[dict[str, object]]:
    """Table 1 of "Attention is all you need" filled from measurements, one dict per row of
    ``LAYER_TYPES``:

    - ``flops``: {(n, d): FLOPs of one layer} counted with ``count_flops`` (matrix products
      and convolutions; self-attention: QKᵀ and AV only, as the table counts; recurrent:
      ``torch.nn.RNN``; convolutional: a causal ``conv1d`` with ``kernel`` taps; restricted:
      ``chunked_local_attention`` with ``window`` on each side, r = 2·window + 1);
    - ``n_exponent`` / ``d_exponent``: least-squares slopes of log FLOPs against log n (at the
      largest d) and log d (at the largest n);
    - ``sequential``: dependent calls for one layer at the largest n (``sequential_steps`` for
      the recurrent row; one batched call otherwise);
    - ``path``: {n: ``path_length``} for ``n_path`` (the convolutional row: dilated, as the
      table's O(log_k n); ``path_contiguous`` holds the contiguous kernel's);
    - ``paper``: the table's (complexity, sequential, path) in O() notation.

    Lecture 00; Vaswani et al. 2017 Table 1.
    """
    ns = check_positive_ints("ns", ns)
    ds = check_positive_ints("ds", ds)
    n_path = check_positive_ints("n_path", n_path)
    if len(ns) < 2 or len(ds) < 2:
        raise ValueError(f"ns and ds need at least two values each to fit an exponent, got "
                         f"{ns} and {ds}")  # fmt: skip
    check_positive_int("kernel", kernel)
    check_positive_int("window", window)
    rows = []
    n_max, d_max = max(ns), max(ds)
    for kind, paper in LAYER_TYPES.items():
        flops = {(n, d): _layer_flops(kind, n, d, kernel, window)
                 for n in ns for d in ds}  # fmt: skip
        path_kind = "convolutional (dilated)" if kind == "convolutional" else kind
        row = {
            "layer": kind,
            "flops": flops,
            "n_exponent": _fit_exponent(ns, [flops[n, d_max] for n in ns]),
            "d_exponent": _fit_exponent(ds, [flops[n_max, d] for d in ds]),
            "sequential": sequential_steps(n_max).recurrent if kind == "recurrent" else 1,
            "path": {n: path_length(path_kind, n, kernel=kernel, window=window) for n in n_path},
            "paper": paper,
        }
        if kind == "convolutional":
            row["path_contiguous"] = {n: path_length(kind, n, kernel=kernel) for n in n_path}
        rows.append(row)
    return rows
