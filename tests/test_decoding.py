"""lecturekit.decoding: greedy and beam search over step functions."""

import itertools
import math

import pytest
import torch
from search_table import BOS, EOS, VOCAB, A, B, C, make_table_step, table_step

from lecturekit.decoding import BeamTrace, Hypothesis, beam_search, greedy_search


def bigram_step(seed, V=7):
    """A random fixed bigram model: log P(next | last token)."""
    g = torch.Generator().manual_seed(seed)
    table = torch.log_softmax(2 * torch.randn(V, V, generator=g), dim=-1)  # (V, V)
    return lambda prefix_ids: table[prefix_ids[:, -1]]  # (N, t) -> (N, V)


def log(*probs):
    return sum(math.log(p) for p in probs)


def rescore(step, tokens, bos=BOS):
    """Sum of the step log-probs of tokens, one prefix at a time."""
    return sum(
        float(step(torch.tensor([[bos, *tokens[:t]]]))[0, tok]) for t, tok in enumerate(tokens)
    )


def test_greedy_takes_the_locally_best_token():
    hyp = greedy_search(table_step, BOS, EOS, max_len=10)
    assert hyp.tokens == (A, A, EOS) and hyp.finished
    assert hyp.score == pytest.approx(log(0.5, 0.35, 0.6), abs=1e-12)


def test_beam_search_finds_the_better_sequence():
    best, second = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10)
    assert best == Hypothesis((B, C, EOS), pytest.approx(log(0.4, 0.9, 0.9), abs=1e-12), True)
    assert second.tokens == (A, A, EOS)
    assert second.score == pytest.approx(log(0.5, 0.35, 0.6), abs=1e-12)
    assert best.score > greedy_search(table_step, BOS, EOS, 10).score


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_len", [1, 3, 12])
def test_beam_size_1_is_greedy(seed, max_len):
    for step in (table_step, bigram_step(seed)):
        greedy = greedy_search(step, BOS, EOS, max_len)
        assert beam_search(step, BOS, EOS, beam_size=1, max_len=max_len) == [greedy]


def test_ties_go_to_the_lowest_token_id():
    def uniform(prefix_ids):
        return torch.full((len(prefix_ids), 4), -math.log(4))

    greedy = greedy_search(uniform, bos=0, eos=3, max_len=3)
    assert greedy.tokens == (0, 0, 0) and not greedy.finished
    assert beam_search(uniform, 0, 3, beam_size=1, max_len=3) == [greedy]
    hyps = beam_search(uniform, 0, 3, beam_size=2, max_len=1)
    assert [h.tokens for h in hyps] == [(0,), (1,)]


@pytest.mark.parametrize("seed", range(4))
def test_scores_are_sums_of_step_log_probs(seed):
    step = bigram_step(seed)
    for hyp in beam_search(step, BOS, EOS, beam_size=3, max_len=6):
        assert hyp.score == rescore(step, hyp.tokens)
        assert hyp.finished == (hyp.tokens[-1] == EOS)
        assert EOS not in hyp.tokens[:-1]
    hyp = greedy_search(step, BOS, EOS, max_len=6)
    assert hyp.score == rescore(step, hyp.tokens)


@pytest.mark.parametrize("seed", range(3))
def test_a_beam_as_wide_as_the_tree_is_exact_search(seed):
    V, max_len = 4, 3
    step = bigram_step(seed, V)
    finished = [
        seq[: seq.index(EOS) + 1]
        for n in range(1, max_len + 1)
        for seq in itertools.product(range(V), repeat=n)
        if EOS in seq and seq.index(EOS) == n - 1
    ]
    best = max(finished, key=lambda seq: rescore(step, seq))
    hyps = beam_search(step, BOS, EOS, beam_size=V**max_len, max_len=max_len)
    assert hyps[0].tokens == best
    assert hyps[0].score == pytest.approx(rescore(step, best), abs=1e-6)


def test_n_best_list_is_sorted_finished_first():
    step = bigram_step(3)
    hyps = beam_search(step, BOS, EOS, beam_size=4, max_len=4, n_best=4)
    assert len(hyps) == 4
    done = [h for h in hyps if h.finished]
    assert hyps[: len(done)] == done, "finished hypotheses come first"
    scores = [h.score for h in done]
    assert scores == sorted(scores, reverse=True)
    assert len(beam_search(step, BOS, EOS, beam_size=4, max_len=4, n_best=2)) == 2


SHORT_LONG = make_table_step(
    {
        (): [0.01, 0.50, 0.45, 0.02, 0.02],
        (A,): [0.025, 0.025, 0.025, 0.9, 0.025],
        (A, B): [0.025, 0.025, 0.025, 0.025, 0.9],
        (A, B, C): [0.025, 0.9, 0.025, 0.025, 0.025],
    },
    [0.2] * 5,
)


def test_length_penalty_prefers_the_longer_hypothesis():
    raw = beam_search(SHORT_LONG, BOS, EOS, beam_size=2, max_len=6)
    assert [h.tokens for h in raw] == [(EOS,), (A, B, C, EOS)]
    assert raw[0].score == pytest.approx(log(0.5), abs=1e-12)
    assert raw[1].score == pytest.approx(log(0.45, 0.9, 0.9, 0.9), abs=1e-12)
    normed = beam_search(SHORT_LONG, BOS, EOS, beam_size=2, max_len=6, length_penalty=1.0)
    assert normed == raw[::-1]
    long, short = normed
    assert long.normalized_score(1.0) > short.normalized_score(1.0)
    assert long.normalized_score(0.0) == long.score < short.score


def test_normalized_score():
    hyp = Hypothesis((2, 3, 1), -3.0, True)
    assert hyp.normalized_score(0.0) == -3.0
    assert hyp.normalized_score(1.0) == -1.0
    assert hyp.normalized_score(0.5) == pytest.approx(-3.0 / math.sqrt(3))
    assert Hypothesis((), 0.0, False).normalized_score(1.0) == 0.0


def test_early_stop_when_no_live_hypothesis_can_win():
    hyps, tree = beam_search(SHORT_LONG, BOS, EOS, beam_size=2, max_len=6, n_best=1, trace=True)
    assert [h.tokens for h in hyps] == [(EOS,)]
    assert tree.num_steps == 1  # "a" (-0.80) can never beat "</s>" (-0.69)


def test_zero_probability_tokens_are_never_chosen():
    def no_bos(prefix_ids):
        logits = torch.tensor([[-math.inf, 0.0, 1.0, 2.0, 0.5]]).expand(len(prefix_ids), 5)
        return torch.log_softmax(logits, dim=-1)

    hyps, tree = beam_search(no_bos, BOS, EOS, beam_size=5, max_len=2, trace=True)
    assert all(BOS not in h.tokens for h in hyps)
    assert all(math.isfinite(node.score) for node in tree.nodes)


def test_runs_without_autograd():
    lin = torch.nn.Linear(1, 5)
    grad_enabled = []

    def step(prefix_ids):
        grad_enabled.append(torch.is_grad_enabled())
        return torch.log_softmax(lin(prefix_ids[:, -1:].float()), dim=-1)

    greedy_search(step, BOS, EOS, 3)
    beam_search(step, BOS, EOS, 2, 3)
    assert grad_enabled and not any(grad_enabled)


@pytest.mark.parametrize("seed", range(4))
def test_trace_is_the_search_tree(seed):
    step, k = bigram_step(seed), 3
    hyps, tree = beam_search(step, BOS, EOS, beam_size=k, max_len=6, trace=True)
    assert isinstance(tree, BeamTrace) and tree.beam_size == k
    assert beam_search(step, BOS, EOS, beam_size=k, max_len=6) == hyps  # trace changes nothing
    assert tree.nodes[0].step == 0 and tree.nodes[0].token == BOS and tree.nodes[0].parent == -1
    for i, node in enumerate(tree.nodes):
        assert node.id == i
        if i:
            parent = tree.nodes[node.parent]
            assert parent.kept and not parent.finished and parent.step == node.step - 1
            assert node.score == pytest.approx(
                parent.score + float(step(torch.tensor([[parent.token]]))[0, node.token])
            )
            assert node.finished == (node.token == EOS)
    for t in range(1, tree.num_steps + 1):
        nodes = tree.at_step(t)
        assert 1 <= sum(n.kept for n in nodes) <= k
        scores = [n.score for n in nodes]
        assert scores == sorted(scores, reverse=True)
    assert len(tree.results) == len(hyps)
    for hyp, node_id in zip(hyps, tree.results, strict=True):
        path = tree.path(node_id)
        assert tuple(n.token for n in path[1:]) == hyp.tokens
        assert all(n.kept for n in path) and path[-1].score == hyp.score


def test_trace_of_the_hand_built_example():
    hyps, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10, trace=True)
    assert tree.num_steps == 3
    assert [VOCAB[n.token] for n in tree.path(tree.results[0])] == ["<s>", "b", "c", "</s>"]
    assert tree.nodes[tree.results[0]].score == hyps[0].score
    assert [(VOCAB[n.token], n.kept) for n in tree.at_step(1)] == [("a", True), ("b", True)]
    kept2 = [VOCAB[n.token] for n in tree.at_step(2) if n.kept]
    assert kept2 == ["c", "a"]  # b c (0.36) and a a (0.175); a b (0.15) is pruned
    assert [n.finished for n in tree.at_step(3) if n.kept] == [True, True]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"beam_size": 0}, "beam_size must be a positive integer, got 0"),
        ({"beam_size": 2.0}, "beam_size"),
        ({"max_len": 0}, "max_len must be a positive integer, got 0"),
        ({"n_best": 0}, r"n_best must be an int in 1..beam_size=2, got 0"),
        ({"n_best": 3}, r"n_best .* got 3"),
        ({"bos": 1.0}, "bos must be a non-negative int"),
        ({"eos": "x"}, "eos must be a non-negative int"),
        ({"eos": True}, "eos"),
        ({"eos": 9}, "eos=9 is not a token id: step returned V=5"),
        ({"step": None}, "step must be callable"),
        ({"length_penalty": math.nan}, r"length_penalty must be a number in \[0, inf\), got nan"),
        ({"length_penalty": -1.0}, r"length_penalty must be a number in \[0, inf\), got -1.0"),
        ({"trace": 1}, "trace must be a bool"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"step": table_step, "bos": BOS, "eos": EOS, "beam_size": 2, "max_len": 5} | kwargs
    with pytest.raises(ValueError, match=match):
        beam_search(**args)
    greedy_kwargs = {k: v for k, v in args.items() if k in ("step", "bos", "eos", "max_len")}
    if set(kwargs) <= set(greedy_kwargs):
        with pytest.raises(ValueError, match=match):
            greedy_search(**greedy_kwargs)


def logits_step(prefix_ids):
    return torch.ones(len(prefix_ids), 5)


def nan_in_row_1(prefix_ids):
    out = torch.log_softmax(torch.zeros(len(prefix_ids), 5), dim=-1)
    if len(out) > 1:
        out[1, 2] = math.nan
    return out


@pytest.mark.parametrize(
    ("step", "match"),
    [
        (
            lambda p: torch.zeros(len(p), 5, 1),
            r"shape \(N, V\) = \(2, 5\) for prefix_ids of shape \(2, 2\), got \(2, 5, 1\)",
        ),
        (
            lambda p: torch.zeros(1, 5),
            r"\(N, V\) = \(2, 5\) for prefix_ids of shape \(2, 2\), got \(1, 5\)",
        ),
        (lambda p: torch.zeros(len(p), 6), r"\(N, V\) = \(2, 5\) .* got \(2, 6\)"),
        (lambda p: [[0.0] * 5], "must return a floating-point torch.Tensor, got list"),
        (lambda p: torch.zeros(len(p), 5, dtype=torch.long), "got dtype torch.int64"),
        (logits_step, "row 0 has logsumexp 2.609, not 0"),
        (lambda p: torch.full((len(p), 5), math.inf), r"NaN or \+inf log-probs in row 0"),
        (nan_in_row_1, r"NaN or \+inf log-probs in row 1"),
    ],
)
def test_bad_step_output(step, match):
    def faulty(prefix_ids):  # step 1 is fine (N=1), step 2 (N=2 beams) goes wrong
        if prefix_ids.shape[1] == 1:
            return torch.tensor([[0.01, 0.01, 0.49, 0.49, 0.0]]).log()
        return step(prefix_ids)

    with pytest.raises(ValueError, match=match):
        beam_search(faulty, BOS, EOS, beam_size=2, max_len=5)


def test_bad_step_output_in_greedy_search():
    with pytest.raises(
        ValueError, match=r"\(N, V\) = \(1, V\) for prefix_ids of shape \(1, 1\), got \(5,\)"
    ):
        greedy_search(lambda p: torch.zeros(5), BOS, EOS, 3)
    with pytest.raises(ValueError, match=r"row 0 has logsumexp 2\.609"):
        greedy_search(logits_step, BOS, EOS, 3)


# --- one beam step, the top beams t (n_best), following a hypothesis down the tree ---------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_beam_step_keeps_the_k_best_extensions(seed, k):
    from lecturekit.decoding import beam_step

    g = torch.Generator().manual_seed(seed)
    scores = -torch.rand(3, generator=g, dtype=torch.float64) * 3  # (N,)
    log_probs = torch.log_softmax(torch.randn(3, 6, generator=g, dtype=torch.float64), -1)
    beams, tokens, new = beam_step(scores, log_probs, k)
    everything = sorted(
        ((float(scores[i] + log_probs[i, w]), i, w) for i in range(3) for w in range(6)),
        key=lambda c: -c[0],
    )[:k]
    assert [(i, w) for _, i, w in everything] == list(
        zip(beams.tolist(), tokens.tolist(), strict=True)
    )
    assert new.tolist() == pytest.approx([s for s, _, _ in everything], abs=1e-12)
    assert new.tolist() == sorted(new.tolist(), reverse=True)


def test_beam_step_ties_and_impossible_tokens():
    from lecturekit.decoding import beam_step

    scores = torch.tensor([0.0, 0.0])
    log_probs = torch.tensor([[-1.0, -math.inf, -1.0], [-1.0, -0.5, -math.inf]])
    beams, tokens, new = beam_step(scores, log_probs, 3)
    assert list(zip(beams.tolist(), tokens.tolist(), strict=True)) == [(1, 1), (0, 0), (0, 2)]
    beams, tokens, new = beam_step(scores, log_probs, 10)  # only 4 candidates are possible
    assert len(beams) == 4 and bool((new > -math.inf).all())


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((torch.zeros(2, 1), torch.zeros(2, 3), 1), r"scores must be \(N,\), got \(2, 1\)"),
        (
            (torch.zeros(2), torch.zeros(3, 3), 1),
            r"log_probs must be \(N, V\) with N=2 as in scores \(2,\), got \(3, 3\)",
        ),
        ((torch.zeros(2), torch.zeros(2, 3, dtype=torch.long), 1), "floating-point"),
        ((torch.zeros(2), torch.zeros(2, 3), 0), "k must be a positive integer"),
        (
            (torch.zeros(2), torch.zeros(2, 0), 1),
            r"log_probs must be \(N, V\) with V > 0, got \(2, 0\)",
        ),
    ],
)
def test_beam_step_bad_input(args, match):
    from lecturekit.decoding import beam_step

    with pytest.raises(ValueError, match=match):
        beam_step(*args)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("length_penalty", [0.0, 1.0])
def test_the_t_returned_beams_are_the_t_best_of_the_k(seed, length_penalty):
    step = bigram_step(seed)
    for k in (1, 2, 3, 5):
        all_k = beam_search(step, BOS, EOS, k, 8, length_penalty=length_penalty)
        for t in range(1, k + 1):  # the Yoon deck's t <= k top beams
            top_t = beam_search(step, BOS, EOS, k, 8, length_penalty=length_penalty, n_best=t)
            assert top_t == all_k[:t]
            done = [h for h in all_k if h.finished]
            if len(done) >= t:
                best = sorted(done, key=lambda h: h.normalized_score(length_penalty))[::-1]
                assert top_t == best[:t], "the t best finished hypotheses"


@pytest.mark.parametrize("seed", range(4))
def test_k_equals_t_equals_1_is_greedy(seed):
    for step in (table_step, bigram_step(seed)):
        greedy = greedy_search(step, BOS, EOS, 8)
        assert beam_search(step, BOS, EOS, beam_size=1, max_len=8, n_best=1) == [greedy]


def test_follow_and_pruned_at_on_the_hand_built_example():
    _, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10, trace=True)
    path = tree.follow([B, C, EOS])  # the best hypothesis: kept all the way
    assert [n.token for n in path] == [BOS, B, C, EOS] and all(n.kept for n in path)
    assert tree.pruned_at([B, C, EOS]) is None
    path = tree.follow([A, B, C])  # "a b" (0.15) is pruned at step 2
    assert [n.token for n in path] == [BOS, A, B] and not path[-1].kept
    assert tree.pruned_at([A, B, C]) == 2
    assert tree.follow([]) == tree.nodes[:1] and tree.pruned_at([]) is None


def test_pruned_at_a_token_the_tree_does_not_record():
    _, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10, trace=True)
    # "b" (kept at step 1) continues with its 2 best, c and </s>; "b a" is not recorded
    assert [VOCAB[n.token] for n in tree.at_step(2) if tree.nodes[n.parent].token == B] == [
        "c",
        "</s>",
    ]
    assert [n.token for n in tree.follow([B, A])] == [BOS, B]
    assert tree.pruned_at([B, A]) == 2
    _, short = beam_search(table_step, BOS, EOS, beam_size=2, max_len=1, trace=True)
    assert short.pruned_at([A, A]) is None  # the search stopped (max_len) before step 2


def test_follow_bad_input():
    _, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10, trace=True)
    with pytest.raises(ValueError, match="tokens go on after eos"):
        tree.follow([B, C, EOS, A])
    with pytest.raises(ValueError, match=r"tokens\[1\] must be a non-negative int"):
        tree.pruned_at([B, -1])
    with pytest.raises(ValueError, match="tokens must be a sequence of token ids"):
        tree.follow(torch.tensor([B, C]))
