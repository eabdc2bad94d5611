"""Lecture 07's exercises: greedy search, beam search and length normalisation.

07.1 one step of beam search (code: run against ``lecturekit.decoding.beam_step``),
07.2 the length penalty that brings the full sentence back (hashed),
07.3 exact search with a priority queue (code: run on the lecture's two tables and a random
     bigram model, against a best-first search),
07.4 a greedy trap of your own (checker: your table, greedy vs beam search with k = 2).
"""

from __future__ import annotations

import heapq
import math

import torch

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

register_lecture("07", "07_beam_search")


@exercise(
    "07.1",
    "one step of beam search",
    hints=(
        "scores[:, None] + log_probs is the (N, V) table of the candidates' scores: every "
        "hypothesis extended by every token. Flatten it and take the k largest "
        "(torch.topk, or sort with descending=True).",
        "Flat index i is hypothesis i // V and token i % V, where V = log_probs.shape[1].",
    ),
)
def _beam_step(answer: object) -> str:
    from lecturekit.decoding import beam_step

    g = torch.Generator().manual_seed(7)
    for n, v, k in [(1, 5, 2), (2, 6, 2), (3, 8, 3), (4, 10, 5), (2, 4, 8)]:
        scores = -3 * torch.rand(n, generator=g, dtype=torch.float64)  # (N,)
        log_probs = torch.log_softmax(2 * torch.randn(n, v, generator=g, dtype=torch.float64), -1)
        what = f"your function with N = {n}, V = {v}, k = {k}"
        got = run_student(answer, scores.clone(), log_probs.clone(), k, what=what)
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise NotYet(f"{what}: return three things, (beams, tokens, new_scores)")
        beams, tokens, new = beam_step(scores, log_probs, k)
        got_beams = as_tensor(got[0], f"{what}: beams", shape=beams.shape, dtype=torch.long)
        got_tokens = as_tensor(got[1], f"{what}: tokens", shape=beams.shape, dtype=torch.long)
        if not (torch.equal(got_beams, beams) and torch.equal(got_tokens, tokens)):
            kept = sorted(zip(got_beams.tolist(), got_tokens.tolist(), strict=True))
            if kept == sorted(zip(beams.tolist(), tokens.tolist(), strict=True)):
                raise NotYet(f"{what}: the right candidates, but not best first")
            raise NotYet(f"{what}: these are not the k best (hypothesis, token) candidates")
        name = f"{what}: the right candidates, but new_scores"
        same_values(got[2], new, name, atol=1e-9, rtol=1e-9)
    return (
        "your step keeps the same k candidates, best first, as lecturekit.decoding.beam_step "
        "(the step beam_search repeats), also when k exceeds V, so that one hypothesis can "
        "supply several of them"
    )


register(
    Exercise(
        "07.2",
        "the length penalty that brings the full sentence back",
        hints=(
            "Normalised, the two scores are s_short / 4**alpha and s_full / 7**alpha: set them "
            "equal and solve for alpha.",
            "Both scores are negative: take the logs of their absolute values, "
            "ln|s_short| - alpha ln 4 = ln|s_full| - alpha ln 7.",
        ),
        expected=Expected("float", ("4327999bc3490085feaa",), 3),
        correct=(
            "alpha* = {answer}: from any larger alpha on, dividing by |y|**alpha favours the "
            "7-token sentence over the 4-token one"
        ),
    )
)


def _best_first(step, bos: int, eos: int, max_len: int) -> tuple[tuple[int, ...], float]:
    """The most probable finished output: scores only go down, so the first finished prefix
    popped from a best-first queue is the best."""
    queue = [(0.0, ())]
    while queue:
        neg, tokens = heapq.heappop(queue)
        if tokens and tokens[-1] == eos:
            return tokens, -neg
        if len(tokens) == max_len:
            continue
        log_probs = step(torch.tensor([[bos, *tokens]]))[0].tolist()  # (1, V) -> V
        for w, lp in enumerate(log_probs):
            if lp > -math.inf:
                heapq.heappush(queue, (neg - lp, (*tokens, w)))
    raise ValueError("no finished output within max_len")


def _bigram(seed: int, v: int = 5):
    g = torch.Generator().manual_seed(seed)
    table = torch.log_softmax(2 * torch.randn(v, v, generator=g, dtype=torch.float64), dim=-1)
    return lambda prefix_ids: table[prefix_ids[:, -1]]  # (N, t) -> (N, V)


@exercise(
    "07.3",
    "exact search with a priority queue",
    hints=(
        "heapq keeps the smallest first: push (-score, tokens), and heappop gives the best "
        "prefix. Start the queue with (0.0, ()).",
        "Pop the best prefix; if it ends with eos, it is the answer: every other prefix in the "
        "queue already scores lower, and growing only lowers a score. Otherwise push each "
        "continuation whose log-prob is > -inf.",
        "The next-word log-probs of a prefix are step(torch.tensor([[bos, *tokens]]))[0]; "
        "do not extend a prefix that already has max_len tokens.",
    ),
)
def _exact_search(answer: object) -> str:
    from lecturekit.experiments.examples import pie_example, poor_example

    cases = [("the pie table", pie_example()[1], 10), ("the poor table", poor_example()[1], 10)]
    cases += [(f"a random bigram model (seed {s})", _bigram(s), 5) for s in (0, 1)]
    found = []
    for name, step, max_len in cases:
        got = run_student(answer, step, 0, 1, max_len, what=f"your function on {name}")
        try:
            tokens, score = got
            tokens, score = tuple(int(t) for t in tokens), float(score)
        except (TypeError, ValueError):
            raise NotYet(f"on {name}: return (tokens, score), e.g. ((2, 5, 1), -1.2)") from None
        if not tokens or tokens[-1] != 1:
            raise NotYet(f"on {name}: a finished output ends with </s> (id 1)")
        rescored = sum(
            float(step(torch.tensor([[0, *tokens[:t]]]))[0, w]) for t, w in enumerate(tokens)
        )
        if not math.isclose(score, rescored, abs_tol=1e-9):
            raise NotYet(f"on {name}: the score is not the sum of the path's log-probs")
        _, best = _best_first(step, 0, 1, max_len)
        if score < best - 1e-9:
            raise NotYet(f"on {name}: a more probable finished output exists")
        found.append((name, len(tokens), best))
    pie = found[0]
    return (
        f"exact on all {len(found)} models; on the pie table the most probable output has "
        f"{pie[1]} tokens, log P = {pie[2]:.4f}: more probable than what beam search k = 2 "
        "returned, and shorter"
    )


@exercise(
    "07.4",
    "a greedy trap of your own",
    hints=(
        "Greedy fails when the most probable first word has only weak continuations: give the "
        "first row two words, and let the more probable one lead to a row of several small "
        "probabilities.",
        "Beam search with k = 2 keeps the second word alive: give it continuations probable "
        "enough that its whole path beats greedy's.",
        'A table is a dict such as {(): {"a": 0.6, "b": 0.4}, ("a",): {...}, ...}: keys are '
        'the words so far (a tuple), each row sums to 1, and a path ends with "</s>".',
    ),
)
def _greedy_trap(answer: object) -> str:
    from lecturekit.decoding import beam_search, greedy_search
    from lecturekit.experiments.examples import next_word_step

    if not isinstance(answer, dict) or not answer:
        raise NotYet("give a dict: prefix (a tuple of words) -> {next word: probability}")
    words = set()
    for prefix, row in answer.items():
        if isinstance(prefix, tuple):
            words.update(w for w in prefix if isinstance(w, str))
        if isinstance(row, dict):
            words.update(w for w in row if isinstance(w, str))
    vocab = ["<s>", "</s>", *sorted(words - {"<s>", "</s>"})]
    try:
        step = next_word_step(answer, vocab)
    except ValueError as err:
        raise NotYet(f"the table is not a next-word table yet: {err}") from None
    greedy = greedy_search(step, 0, 1, max_len=10)
    beam = beam_search(step, 0, 1, beam_size=2, max_len=10)[0]
    show = lambda hyp: " ".join(vocab[t] for t in hyp.tokens)  # noqa: E731
    if not greedy.finished:
        raise NotYet(f"greedy search does not reach </s> within 10 words: {show(greedy)!r}")
    if not beam.finished or beam.score <= greedy.score:
        raise NotYet(
            f"greedy and beam search (k = 2) both return {show(greedy)!r} (or beam search "
            "finds nothing better): greedy is not trapped yet"
        )
    return (
        f"greedy returns {show(greedy)!r} (log P = {greedy.score:.3f}), beam search with "
        f"k = 2 {show(beam)!r} (log P = {beam.score:.3f}): greedy's first choice looked best "
        "and led nowhere better"
    )
