"""Lecture 00's exercises: word vectors, recurrent cells and why recurrence struggles.

00.1 skip-gram pairs by hand (code: run against ``models.word2vec.skipgram_pairs`` on several
sentences and windows), 00.2 one GRU step by hand (code: run against ``torch.nn.GRUCell`` with
its own weights), 00.3 the vanishing bound (hashed). The cost and path-length exercises are
lecture 00b's (``lecture_00b``).
"""

from __future__ import annotations

import random

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("00", "00_word_vectors_and_rnns")

SENTENCES = (
    "i think teddy roosevelt is a great president",
    "my dog is cute",
    "penguins are flightless birds",
    "he likes playing",
)


def _as_pairs(got: object, what: str) -> list[tuple[str, str]]:
    if isinstance(got, (str, bytes)) or not isinstance(got, (list, tuple)):
        raise NotYet(f"{what}: return a list of (centre, context) pairs, got "
                     f"{type(got).__name__}")  # fmt: skip
    pairs = []
    for i, p in enumerate(got):
        if not (isinstance(p, (list, tuple)) and len(p) == 2):
            raise NotYet(f"{what}: item {i} should be a pair (centre, context), got {p!r}")
        pairs.append((str(p[0]), str(p[1])))
    return pairs


@exercise(
    "00.1",
    "skip-gram pairs by hand",
    hints=(
        "For each position i (the centre), the context words are those at positions j with "
        "0 < |i - j| <= window that exist in the sentence.",
        "Go centre by centre from the left, and for each centre list its context words from "
        "left to right; a word is never its own context, and a window stops at the sentence's "
        "ends.",
    ),
)
def _skipgram_pairs(answer: object) -> str:
    from lecturekit.models.word2vec import skipgram_pairs

    rng = random.Random(0)
    cases = [(SENTENCES[0], 2)]
    cases += [(s, w) for s, w in zip(SENTENCES[1:], (1, 3, 5), strict=True)]
    words = SENTENCES[0].split()
    cases.append((" ".join(rng.sample(words, len(words))), rng.randint(1, 3)))
    for sentence, window in cases:
        words = sentence.split()
        what = f"the sentence {sentence!r} with window {window}"
        got = _as_pairs(run_student(answer, list(words), window, what=what), what)
        vocab = list(dict.fromkeys(words))
        ids = [vocab.index(w) for w in words]
        want = [(vocab[a], vocab[b]) for a, b in skipgram_pairs(ids, window).tolist()]
        if len(got) != len(want):
            raise NotYet(f"{what}: you return {len(got)} pairs, which is not the number of "
                         "(centre, neighbour) pairs inside the window")  # fmt: skip
        if sorted(got) != sorted(want):
            raise NotYet(f"{what}: the right number of pairs, but not the right pairs")
        if got != want:
            raise NotYet(f"{what}: the right pairs in another order: go centre by centre from "
                         "the left, contexts left to right")  # fmt: skip
    return (
        f"your pairs equal lecturekit's skipgram_pairs on {len(cases)} sentences: skip-gram "
        "turns raw text into (centre, context) examples, no labels needed"
    )


@exercise(
    "00.2",
    "one GRU step by hand",
    hints=(
        "Split W_ih x + b_ih and W_hh h + b_hh into three blocks each (r, z, n, in that order: "
        "torch's layout), e.g. with .chunk(3, dim=-1).",
        "r = σ(i_r + h_r), z = σ(i_z + h_z), n = tanh(i_n + r * h_n) (the reset gate "
        "multiplies W_hn h + b_hn, bias included), then h' = (1 - z) * n + z * h.",
    ),
)
def _gru_step(answer: object) -> str:
    import torch

    cases = [(3, 5, 4), (1, 2, 3), (4, 8, 8)]
    for k, (B, D, H) in enumerate(cases):
        torch.manual_seed(100 + k)
        cell = torch.nn.GRUCell(D, H)
        x, h = torch.randn(B, D), torch.randn(B, H)
        what = f"your step with x {(B, D)} and h {(B, H)}"
        args = [p.detach().clone() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                               cell.bias_hh)]  # fmt: skip
        got = run_student(answer, x.clone(), h.clone(), *args, what=what)
        with torch.no_grad():
            want = cell(x, h)
        got = as_tensor(got, what, shape=(B, H), dims="(B, H)", dtype=torch.float32)
        same_values(got, want, what, dims="(B, H)")
    return (
        f"your GRU step equals torch.nn.GRUCell on {len(cases)} shapes: three gate matrices "
        "per step (r, z, n), where the vanilla RNN has one"
    )


register(
    Exercise(
        "00.3",
        "the vanishing bound",
        hints=(
            "∂h_t/∂h_{t-1} = diag(1 - h_t²) W_hh, and |1 - h²| <= 1: each step multiplies the "
            "gradient's norm by at most σ, the spectral norm of W_hh.",
            "With σ = 0.8: the bound after d steps is 0.8^d. Answer two numbers: the bound "
            "after 20 steps (4 decimals), then the smallest d for which it falls below 1e-6.",
        ),
        expected=Expected("floats", ("57b5f76b921695d60577", "3017e2bef677e81575ab"), 4),
        correct="{answer}: with σ < 1, a word that far back reaches the loss with at most a "
        "millionth of the weight, whatever the input: too little to learn from",
    )
)
