"""Worked examples from the slides, built so that the slides' numbers come out exactly.

Public API::

    ex = thinking_machines()      # ThinkingMachines(x (2, 512), W_q, W_k, W_v (512, 64))
    q = ex.x @ ex.W_q             # q1 . k1 = 112, q1 . k2 = 96 exactly
    vocab, step = pie_example()   # lecture 07's hand-written next-word table as a step function

Lecture 03; the "Thinking Machines" example of Alammar's "The Illustrated Transformer".
Lecture 07; the "he hit me with a pie" beam-search example.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from lecturekit.utils.checks import check_ids, check_positive_int, check_seed

__all__ = ["ThinkingMachines", "thinking_machines", "PIE_VOCAB", "PIE_TABLE", "pie_example"]


@dataclass(frozen=True)
class ThinkingMachines:
    """Embeddings of "Thinking" and "Machines" and the three projection matrices.

    x: (2, d_model) embeddings x1, x2.  W_q, W_k, W_v: (d_model, d_k).
    All entries are small integers, so every dot product below is exact in float32.
    """

    words: tuple[str, str]
    x: torch.Tensor
    W_q: torch.Tensor
    W_k: torch.Tensor
    W_v: torch.Tensor


def _hit(value_of, x: np.ndarray, target: int, max_steps: int = 10_000) -> np.ndarray | None:
    """Greedy coordinate search over entries in {-1, 0, 1} until value_of(x) == target; None
    if it gets stuck (too few entries to reach the target)."""
    x = x.copy()
    for _ in range(max_steps):
        gap = value_of(x) - target
        if gap == 0:
            return x
        best = None
        for i in range(x.size):  # try every single-entry change, keep the one closest to target
            old = x[i]
            for new in (-1, 0, 1):
                if new == old:
                    continue
                x[i] = new
                d = abs(value_of(x) - target)
                if best is None or d < best[0]:
                    best = (d, i, new)
            x[i] = old
        if best[0] >= abs(gap):
            break
        x[best[1]] = best[2]
    return None


def thinking_machines(d_model: int = 512, d_k: int = 64, seed: int = 0) -> ThinkingMachines:
    """Integer embeddings and projections with q1 . k1 = 112 and q1 . k2 = 96.

    The projections W^Q, W^K, W^V are sparse random {-1, 0, 1} matrices; x1 is then found by
    a deterministic greedy search so that (x1 W^Q) . (x1 W^K) = 112, and x2 so that
    (x1 W^Q) . (x2 W^K) = 96. A trained model's numbers are arbitrary floats; these are chosen
    so the arithmetic of the slides can be followed exactly.

    Args:
        d_model: embedding width (>= 8); d_k: projection width (>= 4). Small sizes may be too
            small to reach 112 with entries in {-1, 0, 1} (ValueError: use larger ones; the
            slides' 512 and 64 work, and so does e.g. 64 and 8).
        seed: seed of the random matrices.

    Lecture 03.
    """
    check_positive_int("d_model", d_model)
    check_positive_int("d_k", d_k)
    if d_model < 8:
        raise ValueError(f"d_model must be an integer >= 8, got {d_model}")
    if d_k < 4:
        raise ValueError(f"d_k must be an integer >= 4, got {d_k}")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    W_q, W_k, W_v = (
        rng.choice([-1, 0, 1], p=[0.1, 0.8, 0.1], size=(d_model, d_k)).astype(np.int64)
        for _ in range(3)
    )
    x1 = rng.choice([-1, 0, 1], p=[0.25, 0.5, 0.25], size=d_model).astype(np.int64)
    x2 = rng.choice([-1, 0, 1], p=[0.25, 0.5, 0.25], size=d_model).astype(np.int64)
    A = W_q @ W_k.T  # q1 . k1 = x1 A x1
    x1 = _hit(lambda x: int(x @ A @ x), x1, 112)
    if x1 is not None:
        c = W_k @ (x1 @ W_q)  # q1 . k2 = c . x2, linear in x2
        x2 = _hit(lambda x: int(c @ x), x2, 96)
    if x1 is None or x2 is None:
        raise ValueError(
            f"d_model={d_model}, d_k={d_k} (seed={seed}) are too small: entries in -1, 0, 1 "
            "cannot reach q1 . k1 = 112 and q1 . k2 = 96; use larger sizes (the slides: "
            "d_model=512, d_k=64)"
        )
    to_t = lambda a: torch.tensor(a, dtype=torch.float32)  # noqa: E731
    return ThinkingMachines(
        ("Thinking", "Machines"), to_t(np.stack([x1, x2])), to_t(W_q), to_t(W_k), to_t(W_v)
    )


# Lecture 07: greedy picks "I" (0.5) but the best sentence starts with "he" (0.4).
PIE_VOCAB = ("<s>", "</s>", "he", "I", "it", "hit", "struck", "was", "got", "me", "with", "a",
             "pie", "tart", "on", "by")  # fmt: skip
PIE_TABLE = {  # prefix (words after <s>) -> {next word: probability}; other prefixes: uniform
    (): {"I": 0.5, "he": 0.4, "it": 0.1},
    ("I",): {"was": 0.45, "got": 0.35, "hit": 0.2},
    ("he",): {"hit": 0.8, "struck": 0.2},
    ("I", "was"): {"hit": 0.8, "struck": 0.2},
    ("he", "hit"): {"me": 0.9, "a": 0.1},
    ("I", "was", "hit"): {"with": 0.7, "</s>": 0.2, "by": 0.1},
    ("he", "hit", "me"): {"with": 0.55, "</s>": 0.4, "on": 0.05},
    ("I", "was", "hit", "with"): {"a": 0.9, "pie": 0.1},
    ("he", "hit", "me", "with"): {"a": 0.9, "pie": 0.1},
    ("I", "was", "hit", "with", "a"): {"pie": 0.7, "tart": 0.3},
    ("he", "hit", "me", "with", "a"): {"pie": 0.7, "tart": 0.3},
    ("I", "was", "hit", "with", "a", "pie"): {"</s>": 0.95, "on": 0.05},
    ("he", "hit", "me", "with", "a", "pie"): {"</s>": 0.95, "on": 0.05},
}


def pie_example():
    """(vocab, step) for lecture 07's table: step(prefix_ids (N, t)) -> log-probs (N, V),
    prefix_ids starting with <s> (id 0); </s> is id 1.

    Lecture 07 (the beam-search slide, k = 2).
    """
    uniform = {w: 1 / (len(PIE_VOCAB) - 1) for w in PIE_VOCAB[1:]}

    def step(prefix_ids: torch.Tensor) -> torch.Tensor:
        check_ids("prefix_ids", prefix_ids, len(PIE_VOCAB), 2, wanted="(N, t)")
        rows = []
        for ids in prefix_ids.tolist():
            probs = PIE_TABLE.get(tuple(PIE_VOCAB[i] for i in ids[1:]), uniform)
            rows.append([probs.get(w, 0.0) for w in PIE_VOCAB])
        return torch.tensor(rows, dtype=torch.float64).log()  # (N, V); log 0 = -inf

    return list(PIE_VOCAB), step
