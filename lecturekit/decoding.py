"""Decoding: greedy search and beam search over any model that gives next-token log-probs.

Public API::

    # step(prefix_ids (N, t) long, each row starting with bos) -> log_probs (N, V) (log_softmax)
    hyp = greedy_search(step, bos, eos, max_len)                      # -> Hypothesis
    hyps = beam_search(step, bos, eos, beam_size, max_len,
                       length_penalty=0.0, n_best=None)               # best first
    hyps, tree = beam_search(..., trace=True)                         # tree: BeamTrace
    beams, tokens, scores = beam_step(scores, log_probs, k)           # one step: the k best

    Hypothesis(tokens, score, finished)   # tokens after bos; score = sum of their log-probs
    hyp.normalized_score(length_penalty)  # score / len(tokens) ** length_penalty
    BeamTrace(nodes, results, ...)        # the search tree: one TraceNode per expanded candidate
    tree.follow(tokens), tree.pruned_at(tokens)  # a hypothesis's path; the step it was pruned
    # plot it with lecturekit.viz.trees.plot_beam_tree(tree, vocab)

The two hyper-parameters of the Yoon (SNU) deck are ``beam_size`` (k) and ``n_best`` (t, the
"top beams" returned, 1 <= t <= k); k = t = 1 is greedy search.

Ties go to the lowest token id (then to the better-ranked parent), so beam search with
beam_size=1 returns exactly greedy search's hypothesis.

Lecture 07; log P(y | x) = sum_t log P(y_t | y_<t, x); Wu et al. 2016 (length normalisation).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lecturekit.utils.checks import check_index, check_positive_int, check_range
from lecturekit.utils.contracts import contract

__all__ = [
    "Hypothesis",
    "greedy_search",
    "beam_search",
    "beam_step",
    "BeamTrace",
    "TraceNode",
    "StepFn",
]

StepFn = Callable[[torch.Tensor], torch.Tensor]  # prefix_ids (N, t) -> log_probs (N, V)

_LOGSUMEXP_TOL = 1e-3


@dataclass(frozen=True)
class Hypothesis:
    """One output sequence of a search.

    Attributes:
        tokens: the generated ids after bos, ending with eos if finished.
        score: log P(tokens) = the sum of the step log-probs of ``tokens``.
        finished: True if it ended with eos, False if max_len stopped it.

    Lecture 07.
    """

    tokens: tuple[int, ...]
    score: float
    finished: bool

    def normalized_score(self, length_penalty: float) -> float:
        """score / len(tokens) ** length_penalty (length counted as >= 1).

        length_penalty=0 gives the raw sum, which favours short outputs (every token adds a
        negative log-prob); 1 gives the mean log-prob per token. It must be a finite number
        >= 0 (a negative one would favour short outputs even more than the raw sum).

        Lecture 07; Wu et al. 2016 section 7 (with len(tokens) for their ((5 + |Y|) / 6)).
        """
        _check_length_penalty(length_penalty)
        return self.score / max(len(self.tokens), 1) ** length_penalty


@dataclass(frozen=True)
class TraceNode:
    """One node of the beam-search tree: a candidate = its parent hypothesis plus one token.

    Attributes:
        id: index of this node in ``BeamTrace.nodes``; the root (bos) is 0.
        step: time step t that generated ``token`` (1 = first token); 0 for the root.
        parent: id of the parent node; -1 for the root.
        token: the token id (bos for the root).
        score: cumulative log-prob of the hypothesis ending here (0 for the root).
        kept: the candidate made it into the beam at its step (the root counts as kept).
        finished: ``token`` is eos; a kept finished node went to the finished list.
    """

    id: int
    step: int
    parent: int
    token: int
    score: float
    kept: bool
    finished: bool


@dataclass(frozen=True)
class BeamTrace:
    """The tree a beam search explored, for ``lecturekit.viz.trees.plot_beam_tree``.

    At every step each live hypothesis records its ``beam_size`` best continuations (what the
    lecture slide draws); the candidates kept in the beam are always among them.

    Attributes:
        nodes: the root, then each step's candidates, best score first.
        results: node id of each returned hypothesis, in the returned order (best first).
        beam_size: k.
        length_penalty: the length_penalty of the final ranking.

    Lecture 07.
    """

    nodes: tuple[TraceNode, ...]
    results: tuple[int, ...]
    beam_size: int
    length_penalty: float

    @property
    def num_steps(self) -> int:
        """The number of decoding steps taken."""
        return max(node.step for node in self.nodes)

    def at_step(self, step: int) -> tuple[TraceNode, ...]:
        """The candidates expanded at time step ``step`` (0: the root alone)."""
        return tuple(node for node in self.nodes if node.step == step)

    def path(self, node_id: int) -> tuple[TraceNode, ...]:
        """The nodes from the root to ``node_id``, root first."""
        check_index("node_id", node_id, len(self.nodes))
        path = [self.nodes[node_id]]
        while path[-1].parent >= 0:
            path.append(self.nodes[path[-1].parent])
        return tuple(reversed(path))

    def follow(self, tokens: Sequence[int]) -> tuple[TraceNode, ...]:
        """The nodes of the hypothesis ``tokens`` (ids after bos, e.g. a reference translation
        and eos), root first, as far as the tree records them.

        The path stops at the first node that fell out of the beam (``kept`` False), or
        before a token that is not among its parent's ``beam_size`` best continuations (the
        tree does not record those), or when ``tokens`` end.

        Args:
            tokens: a sequence of token ids (ints >= 0), nothing after eos.

        Returns:
            The TraceNodes, the root (bos) first: ``len(tokens) + 1`` of them if the whole
            hypothesis is in the tree.

        Lecture 07 (where did the search lose the reference?).
        """
        if isinstance(tokens, (str, bytes, torch.Tensor)) or not isinstance(tokens, Sequence):
            raise ValueError(f"tokens must be a sequence of token ids, got {tokens!r}")
        for i, token in enumerate(tokens):
            _check_token(f"tokens[{i}]", token)
        child = {(node.parent, node.token): node for node in self.nodes[1:]}
        path = [self.nodes[0]]
        for i, token in enumerate(tokens):
            node = path[-1]
            if node.finished:
                raise ValueError(
                    f"tokens go on after eos: tokens[{i - 1}] = {node.token} ended the hypothesis"
                )
            if not node.kept or (node.id, token) not in child:
                break
            path.append(child[node.id, token])
        return tuple(path)

    def pruned_at(self, tokens: Sequence[int]) -> int | None:
        """The time step at which the hypothesis ``tokens`` fell out of the beam, or None if it
        never did (every prefix was kept: it was returned, or the search stopped first).

        A prefix that is not among its parent's ``beam_size`` best continuations was pruned
        at that step too, though the tree does not record it (``follow`` stops before it).

        Args:
            tokens: a sequence of token ids after bos (ints >= 0), nothing after eos.

        Returns:
            The step t >= 1 (the step that would have generated the pruned token), or None.

        Lecture 07 (a search error: the reference was pruned on the way).
        """
        path = self.follow(tokens)
        last = path[-1]
        if not last.kept:
            return last.step
        if len(path) == len(tokens) + 1 or last.finished or last.step >= self.num_steps:
            return None
        return last.step + 1


def _check_length_penalty(length_penalty: object) -> None:
    check_range("length_penalty", length_penalty, 0, math.inf, high_open=True)


def _check_token(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative int token id, got {value!r}")


def _check_common(step: object, bos: object, eos: object, max_len: object) -> None:
    if not callable(step):
        raise ValueError(f"step must be callable (prefix_ids -> log_probs), got {step!r}")
    _check_token("bos", bos)
    _check_token("eos", eos)
    check_positive_int("max_len", max_len)


def _check_log_probs(subject: str, log_probs: torch.Tensor, where: str = "") -> None:
    """Refuse log-probs holding NaN or +inf (-inf is fine: a token of probability 0)."""
    bad = torch.isnan(log_probs) | (log_probs == math.inf)
    if bad.any():
        row, token = (int(i) for i in bad.nonzero()[0])
        raise ValueError(
            f"{subject} NaN or +inf log-probs in row {row}{where} (token {token}: "
            f"{float(log_probs[row, token])}); log-probs must be <= 0 or -inf: check the model "
            "for overflow or a division by zero"
        )


def _call_step(
    step: StepFn, prefixes: torch.Tensor, eos: int, V: int | None, t: int
) -> torch.Tensor:
    """log_probs (N, V) = step(prefixes (N, t)), checked: shape, finite, rows normalised."""
    out = step(prefixes)
    if not isinstance(out, torch.Tensor) or not out.is_floating_point():
        got = f"dtype {out.dtype}" if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(f"step must return a floating-point torch.Tensor, got {got}")
    N = prefixes.shape[0]
    if out.ndim != 2 or out.shape[0] != N or (V is not None and out.shape[1] != V):
        raise ValueError(
            f"step must return log_probs of shape (N, V) = ({N}, {V or 'V'}) for prefix_ids "
            f"of shape {tuple(prefixes.shape)}, got {tuple(out.shape)}"
        )
    if eos >= out.shape[1]:
        raise ValueError(f"eos={eos} is not a token id: step returned V={out.shape[1]} log-probs")
    _check_log_probs("step returned", out, f" at step {t}")
    impossible = ~(out > -math.inf).any(dim=1)  # (N, V) -> (N,): every token -inf
    if impossible.any():
        row = int(impossible.nonzero()[0])
        raise ValueError(f"step returned -inf log-probs for every token in row {row} at step {t}:"
                         " no token is possible (a log_softmax row has at least one finite "
                         "entry; check the model's masks)")  # fmt: skip
    lse = torch.logsumexp(out.double(), dim=1)  # (N, V) -> (N,); 0 for a normalised row
    off = ~(lse.abs() <= _LOGSUMEXP_TOL)
    if off.any():
        row = int(off.nonzero()[0])
        raise ValueError(
            f"step must return normalised log-probs (log_softmax), but row {row} has "
            f"logsumexp {float(lse[row]):.4g}, not 0 (tolerance {_LOGSUMEXP_TOL})"
        )
    return out.detach()


@contract(scores="N>0", log_probs="N V>0")
def beam_step(
    scores: torch.Tensor, log_probs: torch.Tensor, k: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One step of beam search: the ``k`` best one-token extensions of the live hypotheses.

    Hypothesis i (cumulative log-prob ``scores[i]``) extended by token w scores
    ``scores[i] + log_probs[i, w]``. Of all N * V candidates, the k best are kept (fewer if
    fewer than k have probability > 0, i.e. a finite score). Taking each hypothesis's k best
    continuations first, as the slides draw it, keeps the same k.

    Args:
        scores: (N,) cumulative log-probs of the N live hypotheses.
        log_probs: (N, V) their next-token log-probs (-inf: probability 0).
        k: how many candidates to keep, >= 1.

    Returns:
        ``(beams, tokens, new_scores)``, each of shape (k',) with k' = min(k, number of finite
        candidates), best first: the index of the hypothesis each candidate extends, its
        token and its score. Ties go to the lower hypothesis index, then the lower token id.

    Lecture 07; one step of beam search (Yao (HKUST): "for each of the k hypotheses, find top
    k next words and calculate scores").
    """
    check_positive_int("k", k)
    if bool(torch.isnan(scores).any()):
        raise ValueError(f"scores must not hold NaN, got {scores.tolist()!r:.80}")
    _check_log_probs("log_probs holds", log_probs.detach())
    V = log_probs.shape[1]
    flat = (scores[:, None] + log_probs).flatten()  # (N, 1) + (N, V) -> (N, V) -> (N*V,)
    best = flat.sort(descending=True, stable=True).indices[:k]  # index = beam * V + token
    best = best[flat[best] > -math.inf]  # probability 0: not a hypothesis
    return best // V, best % V, flat[best]


@torch.no_grad()
def greedy_search(step: StepFn, bos: int, eos: int, max_len: int) -> Hypothesis:
    """Take the most probable next token at every step: y_t = argmax_y P(y | y_<t, x).

    Args:
        step: prefix_ids (1, t) long, starting with bos -> log_probs (1, V).
        bos: the id every prefix starts with.
        eos: the id that ends a hypothesis.
        max_len: the maximum number of generated tokens (eos included).

    Returns:
        The Hypothesis (finished=False if max_len stopped it); ties go to the lowest token id.

    Lecture 07; greedy decoding.
    """
    _check_common(step, bos, eos, max_len)
    tokens: list[int] = []
    score = 0.0
    for _ in range(max_len):
        prefix = torch.tensor([[bos, *tokens]])  # (1, t)
        log_probs = _call_step(step, prefix, eos, None, len(tokens) + 1)[0]  # (1, V) -> (V,)
        token = int(log_probs.argmax())  # the first maximum: lowest id wins ties
        score += float(log_probs[token])
        tokens.append(token)
        if token == eos:
            return Hypothesis(tuple(tokens), score, finished=True)
    return Hypothesis(tuple(tokens), score, finished=False)


@torch.no_grad()
def beam_search(
    step: StepFn,
    bos: int,
    eos: int,
    beam_size: int,
    max_len: int,
    length_penalty: float = 0.0,
    n_best: int | None = None,
    trace: bool = False,
) -> list[Hypothesis] | tuple[list[Hypothesis], BeamTrace]:
    """Keep the ``beam_size`` best partial hypotheses (by cumulative log-prob) at every step.

    Each step expands all live hypotheses in one call ``step(prefix_ids (N, t)) -> (N, V)`` and
    keeps the best ``beam_size - #finished`` candidates; a kept candidate ending in eos moves
    to the finished list. The search stops when ``beam_size`` hypotheses have finished, after
    ``max_len`` steps, or (length_penalty=0 only) when no live hypothesis can still enter the
    ``n_best`` list: log-probs are <= 0, so a score can only go down.

    Args:
        step: prefix_ids (N, t) long, starting with bos -> log_probs (N, V) (log_softmax).
        bos: the id every prefix starts with.
        eos: the id that ends a hypothesis.
        beam_size: k >= 1; k=1 is greedy search.
        max_len: the maximum number of generated tokens (eos included).
        length_penalty: alpha >= 0 of the final ranking by score / len ** alpha (0 = raw sum).
        n_best: how many hypotheses to return, t in 1..beam_size (default beam_size): the
            Yoon deck's "top beams t". The t returned are the first t of the k-best list (the
            search may stop earlier, once no live hypothesis can enter the t best).
        trace: also return the search tree (a ``BeamTrace``).

    Returns:
        Up to ``n_best`` hypotheses, best first: the finished ones ranked by
        ``normalized_score(length_penalty)``, then, if fewer than n_best finished, the best
        unfinished ones. With trace=True, the tuple ``(hypotheses, BeamTrace)``.

    Lecture 07; beam search (Sutskever et al. 2014), length normalisation (Wu et al. 2016).
    """
    _check_common(step, bos, eos, max_len)
    check_positive_int("beam_size", beam_size)
    n_best = beam_size if n_best is None else n_best
    if isinstance(n_best, bool) or not isinstance(n_best, int) or not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best must be an int in 1..beam_size={beam_size}, got {n_best!r}")
    _check_length_penalty(length_penalty)
    if not isinstance(trace, bool):
        raise ValueError(f"trace must be a bool, got {trace!r}")

    nodes = [TraceNode(0, 0, -1, bos, 0.0, kept=True, finished=False)]
    live: list[tuple[Hypothesis, int]] = [(Hypothesis((), 0.0, False), 0)]  # (hyp, node id)
    done: list[tuple[Hypothesis, int]] = []
    V = None
    for t in range(1, max_len + 1):
        prefixes = torch.tensor([(bos, *hyp.tokens) for hyp, _ in live])  # (N, t)
        log_probs = _call_step(step, prefixes, eos, V, t).double()  # (N, V)
        N, V = log_probs.shape
        prev = torch.tensor([hyp.score for hyp, _ in live], dtype=torch.float64)
        scores = prev[:, None] + log_probs  # (N, 1) + (N, V) -> (N, V) cumulative log-probs
        flat = scores.flatten().tolist()  # (N, V) -> (N*V,): index i = beam * V + token
        beams, tokens, _ = beam_step(prev, log_probs, beam_size - len(done))  # ties: lowest i
        chosen = (beams * V + tokens).tolist()

        node_of = {}  # flat index -> TraceNode id
        if trace:  # each live hypothesis's beam_size best continuations, best first overall
            top = scores.sort(dim=1, descending=True, stable=True).indices[:, :beam_size]
            top = top + V * torch.arange(N)[:, None]  # (N, k): token ids -> flat indices
            for i in sorted({*top.flatten().tolist(), *chosen}, key=lambda j: (-flat[j], j)):
                if flat[i] == -math.inf:  # probability 0: not a hypothesis
                    continue
                beam, token = divmod(i, V)
                node_of[i] = len(nodes)
                parent, kept, fin = live[beam][1], i in chosen, token == eos
                nodes.append(TraceNode(len(nodes), t, parent, token, flat[i], kept, fin))

        new_live = []
        for i in chosen:
            beam, token = divmod(i, V)
            hyp = Hypothesis((*live[beam][0].tokens, token), flat[i], token == eos)
            (done if hyp.finished else new_live).append((hyp, node_of.get(i, -1)))
        live = new_live
        if len(done) >= beam_size or not live:
            break
        if length_penalty == 0 and len(done) >= n_best:
            nth_best = sorted((hyp.score for hyp, _ in done), reverse=True)[n_best - 1]
            if live[0][0].score < nth_best:  # live is best first
                break

    def key(item: tuple[Hypothesis, int]) -> float:
        return item[0].normalized_score(length_penalty)

    ranked = sorted(done, key=key, reverse=True)  # stable: ties keep the order they finished
    ranked += sorted(live, key=key, reverse=True)[: max(n_best - len(ranked), 0)]
    hyps = [hyp for hyp, _ in ranked[:n_best]]
    if not trace:
        return hyps
    results = tuple(node for _, node in ranked[:n_best])
    return hyps, BeamTrace(tuple(nodes), results, beam_size, float(length_penalty))
