"""The Universal Transformer: one shared encoder layer applied again and again, with Adaptive
Computation Time (ACT) deciding per position how many times ("more iterations on more
ambiguous tokens").

Public API::

    weights, steps, remainder = act_weights(halting_probs, threshold=0.99)
    #   halting_probs (S, ...) per step -> weights (S, ...) summing to 1 over S, steps N (...),
    #   remainder R (...); the ponder cost is N + R (Graves 2016 eqs. 8-12)
    config = UniversalConfig(vocab_size, num_classes, ...)      # .tiny(vocab, classes): lecture's
    model = UniversalTransformer(config)
    out = model(ids, mask=None)      # ids (B, T) -> UniversalOutput:
    #   logits (B, T, C), states (B, T, D), steps (B, T), remainder (B, T), ponder (B, T),
    #   halting (S, B, T) (the per-step halting probabilities), weights (S, B, T)
    loss = act_loss(out, targets, ponder_weight)      # cross-entropy + τ · mean ponder cost

Every step adds the position signal and the step ("timestep") signal of Dehghani et al. 2019
(both sinusoidal) to the state, applies the shared ``lecturekit.layers.EncoderLayer`` and, with
``act=True``, a halting unit h = sigmoid(w · s + b) per position. A position halts at the first
step N where the cumulative h reaches ``threshold`` = 1 − ε (or at ``max_steps``); its output is
the mix Σ p_n s_n with p_n = h_n before N and the remainder R = 1 − Σ_{n<N} h_n at N. A halted
position's state is copied through unchanged while the others continue (it still serves as key
and value). With ``act=False`` every position takes ``max_steps`` steps and the output is the
last state: the same shared layer at a fixed depth.

Lecture 11b; Dehghani et al. 2019 (Universal Transformers) section 2; Graves 2016 (ACT).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.layers import EncoderLayer
from lecturekit.masking import check_mask
from lecturekit.positional import sinusoidal_encoding
from lecturekit.utils.checks import (
    check_bool,
    check_ids,
    check_instance,
    check_positive_int,
    check_range,
    check_tensor,
)

__all__ = ["act_weights", "UniversalConfig", "UniversalOutput", "UniversalTransformer", "act_loss"]


def _check_threshold(threshold: object) -> float:
    return check_range("threshold", threshold, 0, 1, low_open=True, high_open=True)


def act_weights(
    halting_probs: torch.Tensor, threshold: float = 0.99
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """ACT's halting rule on given halting probabilities (the last step always halts).

    Args:
        halting_probs: (S, ...) h_n in [0, 1] for the steps n = 1..S of each position.
        threshold: 1 − ε in (0, 1): halt at the first N with h_1 + ... + h_N >= threshold.

    Returns:
        weights (S, ...) p_n (h_n before N, R at N, 0 after; they sum to 1), steps N (...)
        as float, remainder R = 1 − (h_1 + ... + h_{N-1}) (...). Ponder cost = N + R.

    Lecture 11b; Graves 2016 eqs. 8-12.
    """
    check_tensor("halting_probs", halting_probs, min_ndim=1, wanted="(S, ...)", floating=True)
    threshold = _check_threshold(threshold)
    if halting_probs.shape[0] == 0:
        raise ValueError("halting_probs must have at least one step, got shape (0, ...)")
    if ((halting_probs < 0) | (halting_probs > 1)).any():
        raise ValueError("halting_probs must lie in [0, 1]")
    S = halting_probs.shape[0]
    cumulative = halting_probs.cumsum(0)  # (S, ...)
    reached = cumulative >= threshold
    reached[-1] = True  # the last step halts whatever the sum
    steps = reached.float().argmax(0) + 1  # (...) first step that reaches the threshold, 1-based
    n = torch.arange(1, S + 1).view(S, *[1] * (halting_probs.ndim - 1))  # (S, 1, ...)
    before = cumulative - halting_probs  # (S, ...) sum of the earlier h
    remainder = 1 - before.gather(0, (steps - 1).unsqueeze(0)).squeeze(0)  # (...)
    weights = torch.where(n < steps, halting_probs, torch.zeros_like(halting_probs))
    weights = torch.where(n == steps, remainder.unsqueeze(0).expand_as(weights), weights)
    return weights, steps.to(halting_probs.dtype), remainder


@dataclass(frozen=True)
class UniversalConfig:
    """A Universal Transformer encoder with a per-token classifier. The defaults are the
    paper's base size (Dehghani et al. 2019: d_model 512, 8 heads, up to 8 steps with ACT);
    ``tiny`` is lecture 11b's."""

    vocab_size: int
    num_classes: int
    d_model: int = 512
    num_heads: int = 8
    d_ff: int = 2048
    max_steps: int = 8
    threshold: float = 0.99
    act: bool = True
    halting_bias: float = 1.0  # initial bias of the halting unit (Dehghani et al.'s code)
    max_len: int = 512
    norm_first: bool = True

    def __post_init__(self) -> None:
        for name in ("vocab_size", "num_classes", "d_model", "num_heads", "d_ff", "max_steps",
                     "max_len"):  # fmt: skip
            check_positive_int(name, getattr(self, name))
        _check_threshold(self.threshold)
        check_bool("act", self.act)
        check_bool("norm_first", self.norm_first)
        check_range("halting_bias", self.halting_bias)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even (sinusoidal signals), got {self.d_model}")

    @classmethod
    def tiny(cls, vocab_size: int, num_classes: int, **changes: object) -> UniversalConfig:
        """Lecture 11b's size: 32 wide, 2 heads, up to 6 steps."""
        base = dict(d_model=32, num_heads=2, d_ff=64, max_steps=6, max_len=64)
        return cls(vocab_size, num_classes, **{**base, **changes})

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> UniversalConfig:
        return cls(**d)


class UniversalOutput(NamedTuple):
    """What ``UniversalTransformer`` returns (see the module docstring for shapes)."""

    logits: torch.Tensor
    states: torch.Tensor
    steps: torch.Tensor
    remainder: torch.Tensor
    ponder: torch.Tensor
    halting: torch.Tensor
    weights: torch.Tensor


class UniversalTransformer(nn.Module):
    """Token embedding, one shared ``EncoderLayer`` applied up to ``max_steps`` times (with ACT
    halting per position if ``config.act``), and a linear classifier per position.

    Lecture 11b; Dehghani et al. 2019 section 2 and Figure 2; Graves 2016.
    """

    def __init__(self, config: UniversalConfig):
        super().__init__()
        if not isinstance(config, UniversalConfig):
            raise ValueError(f"config must be a UniversalConfig, got {type(config).__name__}")
        self.config = c = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model)
        self.layer = EncoderLayer(c.d_model, c.num_heads, c.d_ff, norm_first=c.norm_first)
        self.halt = nn.Linear(c.d_model, 1)
        nn.init.constant_(self.halt.bias, c.halting_bias)
        self.norm = nn.LayerNorm(c.d_model)
        self.head = nn.Linear(c.d_model, c.num_classes)
        self.register_buffer("position", sinusoidal_encoding(c.max_len, c.d_model),
                             persistent=False)  # fmt: skip
        self.register_buffer("timestep", sinusoidal_encoding(c.max_steps, c.d_model),
                             persistent=False)  # fmt: skip

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None) -> UniversalOutput:
        """ids (B, T) token ids; mask bool broadcastable to (B, H, T, T) (True = may attend)."""
        c = self.config
        ids = check_ids("ids", ids, c.vocab_size, ndim=2, wanted="(B, T)")
        B, T = ids.shape
        if T == 0:
            raise ValueError(f"ids must hold at least one token per row (T >= 1), got shape "
                             f"{tuple(ids.shape)}")  # fmt: skip
        if c.max_len < T:
            raise ValueError(f"ids has T={T} positions, more than max_len={c.max_len}")
        if mask is not None:
            check_mask(mask, (B, c.num_heads, T, T), name="mask")
        state = self.embed(ids) * math.sqrt(c.d_model)  # (B, T, D)
        running = torch.ones(B, T, dtype=torch.bool, device=ids.device)
        cumulative = state.new_zeros(B, T)
        steps, remainder = state.new_zeros(B, T), state.new_zeros(B, T)
        output = torch.zeros_like(state)
        halting, weights = [], []
        for n in range(c.max_steps):
            signal = self.position[:T] + self.timestep[n]  # (T, D) position + step signal
            new_state, _ = self.layer(state + signal, mask)  # (B, T, D)
            if not c.act:
                state = new_state
                continue
            h = torch.sigmoid(self.halt(new_state)).squeeze(-1)  # (B, T)
            last = n == c.max_steps - 1
            halt_now = running & ((cumulative + h >= c.threshold) | last)
            keep_going = running & ~halt_now
            p = torch.where(keep_going, h, torch.where(halt_now, 1 - cumulative, 0.0))
            remainder = torch.where(halt_now, 1 - cumulative, remainder)
            cumulative = cumulative + torch.where(keep_going, h, 0.0)
            steps = steps + running.to(state.dtype)
            output = output + p.unsqueeze(-1) * new_state
            state = torch.where(running.unsqueeze(-1), new_state, state)  # halted: copied
            halting.append(torch.where(running, h, 0.0))
            weights.append(p)
            running = keep_going
            if not running.any():
                break
        if not c.act:
            output = state
            steps = torch.full_like(steps, c.max_steps)
            halting = weights = [torch.zeros_like(steps)] * (c.max_steps - 1) + [
                torch.ones_like(steps)
            ]
        states = self.norm(output)
        return UniversalOutput(
            self.head(states),
            states,
            steps,
            remainder,
            steps + remainder,
            torch.stack(halting),
            torch.stack(weights),
        )


def act_loss(
    out: UniversalOutput, targets: torch.Tensor, ponder_weight: float = 0.01
) -> torch.Tensor:
    """Cross-entropy of ``out.logits`` (B, T, C) against ``targets`` (B, T) plus
    ``ponder_weight`` τ times the mean ponder cost N + R (only R carries a gradient).

    Args:
        out: what ``UniversalTransformer`` returned for (B, T) ids.
        targets: (B, T) class ids in 0..C-1, the shape of ``out.logits`` without C.
        ponder_weight: τ >= 0.

    Lecture 11b; Graves 2016 eq. 14.
    """
    check_instance("out", out, UniversalOutput)
    check_range("ponder_weight", ponder_weight, 0)
    B, T, C = out.logits.shape
    check_ids("targets", targets, C, 2, wanted=f"({B}, {T}) (out.logits' (B, T))",
              size_name="num_classes")  # fmt: skip
    if tuple(targets.shape) != (B, T):
        raise ValueError(f"targets must be ({B}, {T}) (out.logits' (B, T), one class per "
                         f"position), got {tuple(targets.shape)}")  # fmt: skip
    ce = F.cross_entropy(out.logits.flatten(0, 1), targets.flatten())
    return ce + ponder_weight * out.ponder.mean()
