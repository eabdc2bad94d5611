"""Worked examples from the slides, built so that the slides' numbers come out exactly.

Public API::

    ex = thinking_machines()      # ThinkingMachines(x (2, 512), W_q, W_k, W_v (512, 64))
    q = ex.x @ ex.W_q             # q1 . k1 = 112, q1 . k2 = 96 exactly
    vocab, step = pie_example()   # lecture 07's hand-written next-word table as a step function
    vocab, step = poor_example()  # the Yoon deck's "les pauvres sont démunis", the same way
    step = next_word_step(table, vocab)  # any such table: prefix words -> {next word: prob}

Lecture 03; the "Thinking Machines" example of Alammar's "The Illustrated Transformer".
Lecture 07; the "he hit me with a pie" beam-search example (Yao (HKUST), after Stanford
CS224n) and "les pauvres sont démunis" -> "the poor don't have any money" (Yoon (SNU)). Their
probabilities are made up to illustrate the search (no model produced them).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lecturekit.utils.checks import check_ids, check_positive_int, check_seed, check_strings

__all__ = [
    "ThinkingMachines",
    "thinking_machines",
    "next_word_step",
    "PIE_VOCAB",
    "PIE_TABLE",
    "pie_example",
    "POOR_VOCAB",
    "POOR_TABLE",
    "poor_example",
]


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


def next_word_step(
    table: Mapping[tuple[str, ...], Mapping[str, float]], vocab: Sequence[str]
) -> Callable[[torch.Tensor], torch.Tensor]:
    """A hand-written "translation model": a step function from a next-word table.

    Args:
        table: prefix (the words after ``vocab[0]``, the start token, as a tuple) -> {next
            word: probability}; each row's probabilities are > 0 and sum to 1, its words are in
            ``vocab``, never the start token. Words missing from a row have probability 0; a
            prefix missing from the table gets every word but the start token with the same
            probability (the model has no idea).
        vocab: the words by id; ``vocab[0]`` starts every prefix (bos).

    Returns:
        ``step(prefix_ids (N, t)) -> log_probs (N, V)``, float64, as ``lecturekit.decoding``'s
        searches take it; each prefix starts with id 0. log 0 = -inf: a word that cannot come.

    Lecture 07 (the slides' beam-search examples).
    """
    vocab = tuple(check_strings("vocab", vocab))
    if len(vocab) < 2 or len(set(vocab)) != len(vocab):
        raise ValueError(f"vocab must hold at least 2 distinct words, got {list(vocab)}")
    if not isinstance(table, Mapping):
        raise ValueError(f"table must be a dict prefix -> {{word: probability}}, got {table!r}")
    known = set(vocab)
    for prefix, row in table.items():
        if not isinstance(prefix, tuple) or not all(w in known for w in prefix):
            raise ValueError(f"table keys must be tuples of words of vocab, got {prefix!r}")
        if not isinstance(row, Mapping) or not row:
            raise ValueError(f"table[{prefix!r}] must be a non-empty dict word -> probability")
        for word, prob in row.items():
            if word not in known or word == vocab[0]:
                raise ValueError(
                    f"table[{prefix!r}] has {word!r}: a next word must be in vocab and not "
                    f"the start token {vocab[0]!r}"
                )
            ok = isinstance(prob, numbers.Real) and not isinstance(prob, bool)
            if not ok or not 0 < prob <= 1:
                raise ValueError(f"table[{prefix!r}][{word!r}] must be in (0, 1], got {prob!r}")
        if not math.isclose(sum(row.values()), 1.0, abs_tol=1e-9):
            raise ValueError(f"table[{prefix!r}] must sum to 1, got {sum(row.values()):.6g}")
    rows = {prefix: [row.get(w, 0.0) for w in vocab] for prefix, row in table.items()}
    uniform = [0.0] + [1 / (len(vocab) - 1)] * (len(vocab) - 1)

    def step(prefix_ids: torch.Tensor) -> torch.Tensor:
        check_ids("prefix_ids", prefix_ids, len(vocab), 2, wanted="(N, t)")
        probs = [rows.get(tuple(vocab[i] for i in ids[1:]), uniform) for ids in prefix_ids.tolist()]
        return torch.tensor(probs, dtype=torch.float64).log()  # (N, V); log 0 = -inf

    return step


def pie_example():
    """(vocab, step) for lecture 07's table: step(prefix_ids (N, t)) -> log-probs (N, V),
    prefix_ids starting with <s> (id 0); </s> is id 1. Made-up probabilities.

    Lecture 07 (the beam-search slide of Yao (HKUST), after Stanford CS224n, k = 2).
    """
    return list(PIE_VOCAB), next_word_step(PIE_TABLE, PIE_VOCAB)


# Lecture 07, the Yoon (SNU) deck: "les pauvres sont démunis" -> "the poor don't have any money".
# Greedy follows "are" (0.5, the literal "sont") into an unsure row and ends in "the poor are
# poor"; beam search with k = 2 keeps "don't" (0.4) alive, and "don't have" overtakes it.
POOR_VOCAB = ("<s>", "</s>", "the", "poor", "people", "needy", "those", "are", "don't",
              "have", "own", "any", "money", "destitute", "without", "now")  # fmt: skip
POOR_TABLE = {  # prefix (words after <s>) -> {next word: probability}; other prefixes: uniform
    (): {"the": 0.6, "poor": 0.3, "those": 0.1},
    ("the",): {"poor": 0.9, "needy": 0.1},
    ("poor",): {"people": 0.75, "are": 0.25},
    ("the", "poor"): {"are": 0.5, "don't": 0.4, "have": 0.1},
    ("poor", "people"): {"are": 0.6, "don't": 0.3, "have": 0.1},
    ("the", "poor", "are"): {"poor": 0.36, "destitute": 0.34, "without": 0.3},
    ("the", "poor", "don't"): {"have": 0.95, "own": 0.05},
    ("the", "poor", "are", "poor"): {"</s>": 0.9, "people": 0.1},
    ("the", "poor", "are", "destitute"): {"</s>": 0.95, "now": 0.05},
    ("the", "poor", "don't", "have"): {"any": 0.6, "money": 0.4},
    ("the", "poor", "don't", "have", "any"): {"money": 0.9, "</s>": 0.1},
    ("the", "poor", "don't", "have", "money"): {"</s>": 0.9, "now": 0.1},
    ("the", "poor", "don't", "have", "any", "money"): {"</s>": 0.95, "now": 0.05},
}


def poor_example():
    """(vocab, step) for the Yoon deck's beam-search example, "les pauvres sont démunis" ->
    "the poor don't have any money": a hand-written next-word table (made-up probabilities)
    where greedy search returns "the poor are poor" and beam search with k = 2 finds the
    target. step(prefix_ids (N, t)) -> log-probs (N, V); <s> is id 0, </s> id 1.

    Lecture 07 (Yoon (SNU), *Output symbol generation*: beam size k, top beams t, k = t = 2).
    """
    return list(POOR_VOCAB), next_word_step(POOR_TABLE, POOR_VOCAB)
