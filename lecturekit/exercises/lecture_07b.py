"""Lecture 07b's exercises: beam search measured (optional notebook).

07b.1 re-rank an n-best list as ``length_penalty`` does (code: run against ``beam_search`` on
      the pie table and random bigram models), 07b.2 the GNMT penalty's threshold on the pie
      table (computed by the checker), 07b.3 how many prefixes go through the decoder (checked by
      counting a step function's calls).
"""

from __future__ import annotations

import math

import torch

from lecturekit.exercises.core import (
    NotYet,
    PageAnswer,
    canonical,
    exercise,
    register_lecture,
    run_student,
)

register_lecture("07b", "07b_beam_search_measured")


def _bigram(seed: int, v: int = 6):
    g = torch.Generator().manual_seed(seed)
    table = torch.log_softmax(2 * torch.randn(v, v, generator=g, dtype=torch.float64), dim=-1)
    return lambda prefix_ids: table[prefix_ids[:, -1]]  # (N, t) -> (N, V)


@exercise(
    "07b.1",
    "re-rank an n-best list",
    hints=(
        "The key of a hypothesis h is its normalised score, h.normalized_score(alpha), which is "
        "h.score / len(h.tokens) ** alpha.",
        "Finished hypotheses come first whatever their score: sort by the pair "
        "(h.finished, h.normalized_score(alpha)), largest first (reverse=True).",
    ),
)
def _rerank(answer: object) -> str:
    from lecturekit.decoding import beam_search
    from lecturekit.experiments.examples import pie_example

    cases = [("the pie table, k = 3", pie_example()[1], 3, 10)]
    cases += [(f"a random bigram model (seed {s}), k = 4", _bigram(s), 4, 4) for s in (0, 1, 2)]
    for name, step, k, max_len in cases:
        raw = beam_search(step, 0, 1, beam_size=k, max_len=max_len)
        for alpha in (0.0, 0.5, 1.0, 2.0):
            want = beam_search(step, 0, 1, beam_size=k, max_len=max_len, length_penalty=alpha)
            what = f"your my_rerank on {name}, alpha = {alpha}"
            got = run_student(answer, list(raw), alpha, what=what)
            try:
                got_tokens = [tuple(h.tokens) for h in got]
            except (TypeError, AttributeError):
                raise NotYet(f"{what}: return a list of the hypotheses, re-ordered") from None
            if sorted(got_tokens) != sorted(h.tokens for h in raw):
                raise NotYet(f"{what}: return the same hypotheses, only in another order")
            if got_tokens != [h.tokens for h in want]:
                by_score = sorted(raw, key=lambda h: h.normalized_score(alpha), reverse=True)
                if got_tokens == [h.tokens for h in by_score]:
                    raise NotYet(f"{what}: an unfinished hypothesis goes after the finished ones")
                raise NotYet(f"{what}: not the order of beam_search(..., length_penalty=alpha)")
    return (
        "your ranking is beam_search's with length_penalty on every model and alpha: the "
        "penalty only re-orders the finished list, the search itself is the same"
    )


def _gnmt_thresholds() -> tuple[float, float]:
    """alpha* of the GNMT penalty ((5 + |y|) / 6) ** alpha, and of |y| ** alpha (exercise 07.2),
    on the pie table: the smallest alpha that returns the full sentence."""
    from lecturekit.decoding import beam_search
    from lecturekit.experiments.examples import pie_example

    _, step = pie_example()
    raw = beam_search(step, 0, 1, beam_size=3, max_len=10)
    short, full = raw[0], raw[1]  # "he hit me </s>", "he hit me with a pie </s>"
    ratio = math.log(full.score / short.score)
    return ratio / math.log(2 / 1.5), ratio / math.log(7 / 4)


def _gnmt_page() -> PageAnswer:
    gnmt, plain = _gnmt_thresholds()
    return PageAnswer("float", gnmt, precision=3, traps=(plain,))


@exercise(
    "07b.2",
    "GNMT's threshold on the pie table",
    hints=(
        "GNMT divides log P by ((5 + |y|) / 6) ** alpha: 9 / 6 for the 4-token sentence, "
        "12 / 6 for the 7-token one.",
        "Set s_short / 1.5**alpha = s_full / 2**alpha; both scores are negative, so "
        "alpha* = ln(s_full / s_short) / ln(2 / 1.5).",
    ),
    page=_gnmt_page,
)
def _gnmt_threshold(answer: object) -> str:
    truth, plain = _gnmt_thresholds()
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        raise NotYet(f"give a number (alpha*), got {type(answer).__name__}")
    forms = canonical("float", answer, 3)[0]  # within one unit of the third decimal
    if canonical("float", truth, 3)[0][0] in forms:
        return (
            f"alpha* = {truth:.3f}: the GNMT penalty with the usual alpha = 0.6 is past it, so "
            "it returns the full sentence; the |y|**alpha threshold (exercise 07.2) is lower, "
            "since (5 + |y|) / 6 grows more slowly than |y|"
        )
    if canonical("float", plain, 3)[0][0] in forms:
        raise NotYet(
            "that is the threshold of |y|**alpha (exercise 07.2): GNMT divides by "
            "((5 + |y|) / 6)**alpha"
        )
    raise NotYet("solve s_short / lp(4) = s_full / lp(7) for alpha (3 decimals)")


_BEAM, _LENGTH = 5, 12  # exercise 07b.3's beam size and output length


def _prefix_counts() -> tuple[int, int]:
    """The prefixes beam search (k = 5) and greedy search run through a decoder that ends every
    output at step 12, counted by running both searches."""
    from lecturekit.decoding import beam_search, greedy_search

    k, T, V = _BEAM, _LENGTH, 8
    rows = []

    def step(prefix_ids: torch.Tensor) -> torch.Tensor:  # </s> (id 1) only at step T
        rows.append(prefix_ids.shape[0])
        out = torch.full((prefix_ids.shape[0], V), -math.log(V - 2), dtype=torch.float64)
        out[:, :2] = -math.inf
        if prefix_ids.shape[1] == T:
            out[:] = -math.inf
            out[:, 1] = 0.0
        return out

    beam_search(step, 0, 1, beam_size=k, max_len=T)
    beam_rows, rows[:] = sum(rows), []
    greedy_search(step, 0, 1, max_len=T)
    return beam_rows, sum(rows)


def _prefix_page() -> PageAnswer:
    beam_rows, greedy_rows = _prefix_counts()
    return PageAnswer("floats", (beam_rows, greedy_rows), traps=((_BEAM * _LENGTH, greedy_rows),))


@exercise(
    "07b.3",
    "how many prefixes go through the decoder",
    hints=(
        "Step 1 extends only <s>: one prefix. From step 2 on the beam holds k hypotheses, and "
        "every step runs all of them through the decoder in one call.",
        "Greedy search runs one prefix per step.",
    ),
    page=_prefix_page,
)
def _prefixes(answer: object) -> str:
    k, T = _BEAM, _LENGTH
    beam_rows, greedy_rows = _prefix_counts()
    try:
        got = tuple(int(a) for a in answer)
        if len(got) != 2:
            raise ValueError
    except (TypeError, ValueError):
        raise NotYet("give a pair of whole numbers: (beam_prefixes, greedy_prefixes)") from None
    if got == (beam_rows, greedy_rows):
        return (
            f"{beam_rows} prefixes against {greedy_rows} (counted by running both searches): "
            f"nearly {k} times the work, yet the lecture measured k = 10 at about 3 times "
            "greedy's time, because the k prefixes of a step share one batched decoder call"
        )
    if got[0] == k * T:
        raise NotYet("step 1 has only one hypothesis to extend, <s>: count it once")
    if got[1] != greedy_rows:
        raise NotYet("greedy search runs one prefix through the decoder per output step")
    raise NotYet("count the prefixes step by step")
