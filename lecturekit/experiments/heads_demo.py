"""A toy task on which the heads of one multi-head attention layer specialise.

Every position t of a random token sequence must predict several tokens at once, each found
by a different *relation*: the previous token, the next token, the first token, the last
token (previous / next wrap around the ends). One attention layer with as many heads as
relations solves it; after training, each head usually attends (almost) only to the position
of one relation, so the per-head maps can be read (specialisation is typical, not guaranteed:
check it with ``relation_weights``).

Public API::

    RELATIONS                                   # ("previous", "next", "first", "last")
    SENTENCE, VOCAB                             # an example sentence and a word vocabulary
    encode(words) -> tokens                     # list[str] -> (T,) long, ids into VOCAB
    relation_positions(T) -> pos                # (R, T) long: position each relation points to
    make_batch(batch_size, seq_len, vocab_size, generator=None) -> tokens (B, T), targets (B, R, T)
    model = HeadsDemoModel(vocab_size, d_model=64, num_heads=4, max_len=32, positions="learned")
    logits, weights = model(tokens)             # (B, R, T, V), (B, H, T, T)
    history = train_heads_demo(model, steps=300, batch_size=128, seq_len=11, lr=3e-2,
                               decay_steps=100, seed=0)   # {"loss": [...], "accuracy": float}
    relation_weights(weights) -> (H, R)         # mean weight each head puts on each relation

Lecture 04; Vaswani et al. 2017 section 3.2.2 (multi-head attention).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from lecturekit.training import fit
from lecturekit.utils.checks import (
    check_choice,
    check_ids,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_seed,
    check_strings,
    check_tensor,
)

__all__ = [
    "RELATIONS",
    "SENTENCE",
    "VOCAB",
    "encode",
    "relation_positions",
    "make_batch",
    "HeadsDemoModel",
    "train_heads_demo",
    "relation_weights",
]

RELATIONS: tuple[str, ...] = ("previous", "next", "first", "last")

SENTENCE = "The animal didn't cross the street because it was too tired"

# fmt: off
VOCAB: tuple[str, ...] = (
    "the", "animal", "didn't", "cross", "street", "because", "it", "was", "too", "tired",
    "a", "dog", "cat", "road", "river", "bridge", "car", "slept", "ran", "walked", "stopped",
    "fast", "wide", "very", "big", "small", "old", "new", "and", "so", "he", "she",
)
# fmt: on


def encode(words: Sequence[str]) -> torch.Tensor:
    """Token ids of ``words`` (lower-cased) in ``VOCAB``.

    Args:
        words: a list of words, e.g. ``SENTENCE.split()`` (a bare string is refused: split
            it first).

    Returns:
        (T,) long tensor; an empty list gives an empty (0,) tensor.

    Lecture 04.
    """
    if isinstance(words, str):
        raise ValueError(f"words must be a list of words, got a single string {words!r} "
                         f"(split it: {words!r}.split())")  # fmt: skip
    words = check_strings("words", words, allow_empty=True)
    unknown = [w for w in words if w.lower() not in VOCAB]
    if unknown:
        raise ValueError(f"words must be in VOCAB, got unknown words {unknown}")
    return torch.tensor([VOCAB.index(w.lower()) for w in words], dtype=torch.long)


def relation_positions(seq_len: int) -> torch.Tensor:
    """Which key position each relation points to, for every query position.

    Args:
        seq_len: T.

    Returns:
        (R, T) long, R = len(RELATIONS): row r, column t = position that relation r of
        query t refers to ((t - 1) mod T, (t + 1) mod T, 0, T - 1).

    Lecture 04.
    """
    check_positive_int("seq_len", seq_len)
    t = torch.arange(seq_len)
    return torch.stack(
        [(t - 1) % seq_len, (t + 1) % seq_len, torch.zeros_like(t), torch.full_like(t, seq_len - 1)]
    )


def make_batch(
    batch_size: int, seq_len: int, vocab_size: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Uniform random tokens and, per relation, the token each position must predict.

    Args:
        batch_size: B; seq_len: T; vocab_size: V (all > 0).
        generator: a ``torch.Generator`` for the tokens, or None (the global random state).

    Returns:
        tokens (B, T) long and targets (B, R, T) long with
        targets[b, r, t] = tokens[b, relation_positions(T)[r, t]].

    Lecture 04.
    """
    for name, val in (("batch_size", batch_size), ("seq_len", seq_len), ("vocab_size", vocab_size)):
        check_positive_int(name, val)
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    tokens = torch.randint(vocab_size, (batch_size, seq_len), generator=generator)
    pos = relation_positions(seq_len)  # (R, T)
    targets = tokens[:, pos]  # (B, T) indexed by (R, T) -> (B, R, T)
    return tokens, targets


class HeadsDemoModel(nn.Module):
    """Token embedding + positions -> one MultiHeadAttention -> one linear readout per relation.

    No residual connection: everything a readout sees went through the attention.

    Args:
        vocab_size: V.
        d_model: D (even, divisible by num_heads).
        num_heads: H.
        max_len: longest sequence accepted.
        num_relations: R, number of readouts (len(RELATIONS) by default).
        positions: "learned" (lecturekit.positional.LearnedPositionalEmbedding) or
            "sinusoidal" (SinusoidalPositionalEncoding), added to the token embeddings.

    Lecture 04; Vaswani et al. 2017 section 3.2.2.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 64,
        num_heads: int = 4,
        max_len: int = 32,
        num_relations: int = len(RELATIONS),
        positions: str = "learned",
    ):
        super().__init__()
        for name, val in (("vocab_size", vocab_size), ("d_model", d_model),
                          ("num_heads", num_heads), ("max_len", max_len),
                          ("num_relations", num_relations)):  # fmt: skip
            check_positive_int(name, val)
        check_choice("positions", positions, ["sinusoidal", "learned"])
        self.vocab_size, self.num_relations, self.max_len = vocab_size, num_relations, max_len
        self.embed = nn.Embedding(vocab_size, d_model)
        if positions == "sinusoidal":
            self.pos = SinusoidalPositionalEncoding(d_model, max_len)
        else:
            self.pos = LearnedPositionalEmbedding(max_len, d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.readout = nn.Linear(d_model, num_relations * vocab_size)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Args:
            tokens: (B, T) integer ids in [0, vocab_size), T <= max_len.

        Returns:
            logits (B, R, T, V) and attention weights (B, H, T, T) (empty for T = 0).
        """
        check_ids("tokens", tokens, self.vocab_size, 2, wanted="(B, T)")
        x = self.pos(self.embed(tokens))  # (B, T) -> (B, T, D)
        out, weights = self.attn(x, x, x)  # (B, T, D), (B, H, T, T)
        B, T, _ = out.shape
        logits = self.readout(out).view(B, T, self.num_relations, self.vocab_size)
        return logits.transpose(1, 2), weights  # (B, T, R, V) -> (B, R, T, V)


def train_heads_demo(
    model: HeadsDemoModel,
    *,
    steps: int = 300,
    batch_size: int = 128,
    seq_len: int = 11,
    lr: float = 3e-2,
    decay_steps: int = 100,
    seed: int = 0,
    eval_size: int = 1000,
) -> dict[str, object]:
    """Adam on fresh random batches (``lecturekit.training.fit``): cross-entropy averaged over
    relations and positions; learning rate ``lr``, then linearly down to 0 over the last
    ``decay_steps`` steps.

    Data come from a generator seeded with ``seed``; the model's own initialisation is the
    caller's (seed before building it). Deterministic on one machine and thread count.
    The defaults are the settings of notebook 04 (a few seconds on one CPU thread).
    Every argument is checked before training starts: ``seq_len`` must fit the model's
    ``max_len``, ``decay_steps`` lie in 0..steps, ``lr`` be > 0.

    Returns:
        {"loss": list of per-step training losses, "accuracy": fraction of correct
        (sequence, relation, position) predictions on ``eval_size`` held-out sequences}.

    Lecture 04.
    """
    check_instance("model", model, HeadsDemoModel)
    for name, val in (("steps", steps), ("batch_size", batch_size), ("seq_len", seq_len),
                      ("eval_size", eval_size)):  # fmt: skip
        check_positive_int(name, val)
    check_non_negative_int("decay_steps", decay_steps)
    if decay_steps > steps:
        raise ValueError(f"decay_steps must be an integer in 0..steps={steps}, got {decay_steps!r}")
    check_range("lr", lr, 0, low_open=True)
    check_seed(seed)
    if seq_len > model.max_len:
        raise ValueError(f"seq_len must be at most the model's max_len={model.max_len}, "
                         f"got {seq_len}")  # fmt: skip
    g = torch.Generator().manual_seed(seed)

    def fresh_batches(epoch: int, generator: torch.Generator):  # one pass of `steps` batches
        return (make_batch(batch_size, seq_len, model.vocab_size, generator) for _ in range(steps))

    def loss_fn(model: HeadsDemoModel, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        tokens, targets = batch
        logits, _ = model(tokens)  # (B, R, T, V)
        return F.cross_entropy(logits.reshape(-1, model.vocab_size), targets.reshape(-1))

    history = fit(
        model,
        fresh_batches,
        loss_fn,
        epochs=1,
        lr=lr,
        # constant lr, then linearly down to 0 over the last decay_steps steps
        schedule=lambda i: min(1.0, (steps - i) / decay_steps) if decay_steps else 1.0,
        clip=None,
        seed=None,  # the caller seeded the model's initialisation; the data come from g
        generator=g,
        progress=False,
    )
    tokens, targets = make_batch(eval_size, seq_len, model.vocab_size, g)
    with torch.no_grad():
        logits, _ = model(tokens)
    accuracy = (logits.argmax(-1) == targets).float().mean().item()
    return {"loss": history.step_loss, "accuracy": accuracy}


def relation_weights(weights: torch.Tensor) -> torch.Tensor:
    """Mean attention weight each head puts on each relation's position.

    Args:
        weights: (H, T, T) or (B, H, T, T) floating-point attention weights (query rows, key
            columns).

    Returns:
        (H, R): entry [h, r] = weight of head h on key relation_positions(T)[r, t],
        averaged over query positions t (and the batch).

    Lecture 04.
    """
    check_tensor("weights", weights, min_ndim=3, wanted="(H, T, T) or (B, H, T, T)",
                 floating=True)  # fmt: skip
    if weights.ndim == 3:
        weights = weights[None]  # (H, T, T) -> (1, H, T, T)
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2] or weights.shape[-1] == 0:
        raise ValueError(f"weights must be (H, T, T) or (B, H, T, T), got {tuple(weights.shape)}")
    T = weights.shape[-1]
    pos = relation_positions(T)  # (R, T)
    rows = torch.arange(T)
    picked = weights[..., rows[None, :], pos]  # (B, H, T, T) -> (B, H, R, T)
    return picked.mean(dim=(0, -1))  # (B, H, R, T) -> (H, R)
