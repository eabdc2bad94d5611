"""lecturekit.generation: the logit processors, greedy / sampling / beam generation, EOS, the KV
cache, and equality with Hugging Face's processors and ``generate`` (tiny random GPT-2)."""

import math
from types import SimpleNamespace

import pytest
import torch
from search_table import BOS, EOS, TABLE, A, B, C
from search_table import DEFAULT as TABLE_DEFAULT
from torch import nn

from lecturekit.decoding import beam_search
from lecturekit.generation import (
    NextToken,
    Strategy,
    apply_repetition_penalty,
    apply_temperature,
    generate,
    next_token_distribution,
    top_k_filter,
    top_p_filter,
)

transformers = pytest.importorskip("transformers")
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402
from transformers.generation.logits_process import (  # noqa: E402
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

INF = math.inf
V_HF = 50


@pytest.fixture(scope="module")
def hf_model():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=V_HF, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                        bos_token_id=None, eos_token_id=None)  # fmt: skip
    return GPT2LMHeadModel(config).eval()


@pytest.fixture(scope="module")
def prompts():
    return torch.randint(0, V_HF, (3, 5), generator=torch.Generator().manual_seed(1))


def hf_generate(hf_model, prompt, n, seed=None, **kwargs):
    if seed is not None:
        torch.manual_seed(seed)
    kwargs.setdefault("pad_token_id", 0)
    return hf_model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=n,
                             **kwargs)  # fmt: skip


def seeded(seed):
    return torch.Generator().manual_seed(seed)


# ---------------------------------------------------------------------------------------------
# the processors, by hand


def test_temperature_scales_the_logits():
    logits = torch.tensor([2.0, -1.0, 0.5])
    torch.testing.assert_close(apply_temperature(logits, 0.5), torch.tensor([4.0, -2.0, 1.0]))
    torch.testing.assert_close(apply_temperature(logits, 2), torch.tensor([1.0, -0.5, 0.25]))
    flat = apply_temperature(logits, 1e6).softmax(-1)
    torch.testing.assert_close(flat, torch.full((3,), 1 / 3), atol=1e-5, rtol=0)


def test_top_k_keeps_the_k_largest_and_ties_at_the_boundary():
    logits = torch.tensor([1.0, 3.0, 2.0, 0.0, 2.0])
    assert top_k_filter(logits, 1).tolist() == [-INF, 3.0, -INF, -INF, -INF]
    assert top_k_filter(logits, 2).tolist() == [-INF, 3.0, 2.0, -INF, 2.0]  # tie: both kept
    assert top_k_filter(logits, 3).tolist() == [-INF, 3.0, 2.0, -INF, 2.0]
    assert top_k_filter(logits, 4).tolist() == [1.0, 3.0, 2.0, -INF, 2.0]
    assert top_k_filter(logits, 99).tolist() == logits.tolist()
    batch = torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    assert top_k_filter(batch, 1).tolist() == [[-INF, -INF, 2.0], [2.0, -INF, -INF]]


def test_top_p_keeps_the_smallest_nucleus():
    probs = torch.tensor([0.1, 0.5, 0.25, 0.15])
    logits = probs.log()
    kept = lambda p: (top_p_filter(logits, p) > -INF).tolist()  # noqa: E731
    assert kept(0.5) == [False, True, False, False]  # 0.5 alone reaches 0.5
    assert kept(0.6) == [False, True, True, False]  # 0.5 + 0.25 = 0.75 >= 0.6
    assert kept(0.75) == [False, True, True, False]
    assert kept(0.8) == [False, True, True, True]  # 0.9
    assert kept(1.0) == [True, True, True, True]
    assert kept(1e-9) == [False, True, False, False]  # the most probable is always kept
    # the kept logits are unchanged
    assert top_p_filter(logits, 0.6)[1:3].tolist() == logits[1:3].tolist()


def test_repetition_penalty_divides_positive_and_multiplies_negative_logits():
    logits = torch.tensor([[2.0, -1.0, 0.5, -3.0], [2.0, -1.0, 0.5, -3.0]])
    previous = torch.tensor([[0, 1, 1], [3, 3, 3]])
    out = apply_repetition_penalty(logits, previous, 2.0)
    assert out.tolist() == [[1.0, -2.0, 0.5, -3.0], [2.0, -1.0, 0.5, -6.0]]  # once per token
    rewarded = apply_repetition_penalty(logits[0], torch.tensor([0, 1]), 0.5)
    assert rewarded.tolist() == [4.0, -0.5, 0.5, -3.0]
    assert apply_repetition_penalty(logits, previous, 1.0).tolist() == logits.tolist()


# ---------------------------------------------------------------------------------------------
# the processors, against Hugging Face's


@pytest.mark.parametrize("seed", range(12))
def test_processors_equal_hugging_face(seed):
    g = seeded(seed)
    V = 30
    logits = 3 * torch.randn(4, V, generator=g)
    logits[0, :5] = logits[0, 5]  # ties
    previous = torch.randint(0, V, (4, 7), generator=g)
    scores = logits.clone()
    for T in (0.3, 1.0, 1.7):
        torch.testing.assert_close(
            apply_temperature(logits, T), TemperatureLogitsWarper(T)(previous, scores.clone()),
            rtol=0, atol=0)  # fmt: skip
    for k in (1, 2, 5, 29, 30, 50):
        assert torch.equal(top_k_filter(logits, k), TopKLogitsWarper(k)(previous, scores.clone()))
    for p in (1e-9, 0.1, 0.5, 0.9, 0.95, 0.999, 1.0):
        assert torch.equal(top_p_filter(logits, p), TopPLogitsWarper(p)(previous, scores.clone()))
    for penalty in (0.7, 1.0, 1.3, 3.0):
        theirs = RepetitionPenaltyLogitsProcessor(penalty)(previous, scores.clone())
        assert torch.equal(apply_repetition_penalty(logits, previous, penalty), theirs)


def test_next_token_distribution_runs_the_processors_in_order():
    g = seeded(3)
    logits = torch.randn(2, 20, generator=g)
    previous = torch.randint(0, 20, (2, 6), generator=g)
    s = Strategy.sample(temperature=0.7, top_k=8, top_p=0.8, repetition_penalty=1.4)
    want = apply_repetition_penalty(logits, previous, 1.4)
    want = top_p_filter(top_k_filter(apply_temperature(want, 0.7), 8), 0.8)
    probs, kept = next_token_distribution(logits, s, previous)
    torch.testing.assert_close(probs, want.softmax(-1))
    assert torch.equal(kept, want > -INF) and torch.equal(kept, probs > 0)
    torch.testing.assert_close(probs.sum(-1), torch.ones(2))
    assert 1 <= int(kept[0].sum()) <= 8


def test_next_token_distribution_for_greedy_and_beam():
    logits = torch.tensor([0.0, 2.0, 1.0, 2.0, -1.0])
    greedy = next_token_distribution(logits, "greedy")
    assert isinstance(greedy, NextToken)
    torch.testing.assert_close(greedy.probs, logits.softmax(-1))
    assert greedy.kept.tolist() == [False, True, False, False, False]  # tie: the lowest id
    beam = next_token_distribution(logits, Strategy.beam(beam_size=3))
    assert beam.kept.tolist() == [False, True, True, True, False]
    penalised = next_token_distribution(logits, Strategy.greedy(2.0), torch.tensor([1]))
    assert penalised.kept.tolist() == [False, False, False, True, False]


def test_strategy_constructors_and_labels():
    assert Strategy.greedy() == Strategy() == Strategy("greedy")
    s = Strategy.sample(0.5, top_k=10, top_p=0.9)
    assert (s.kind, s.temperature, s.top_k, s.top_p) == ("sample", 0.5, 10, 0.9)
    assert Strategy.beam(3, 0.6) == Strategy("beam", beam_size=3, length_penalty=0.6)
    assert s.label == "sample T=0.5 top-k=10 top-p=0.9"
    assert Strategy.beam(3).label == "beam k=3" and Strategy.greedy().label == "greedy"
    assert isinstance(Strategy.sample(temperature=2).temperature, float)


# ---------------------------------------------------------------------------------------------
# limits of sampling that are greedy


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "strategy",
    [
        Strategy.sample(top_k=1),
        Strategy.sample(temperature=1e-6),
        Strategy.sample(top_p=1e-9),
        Strategy.sample(temperature=2.0, top_k=1),
    ],
    ids=lambda s: s.label,
)
def test_sampling_limits_equal_greedy(hf_model, prompts, seed, strategy):
    greedy = generate(hf_model, prompts, 12)
    assert torch.equal(generate(hf_model, prompts, 12, strategy, generator=seeded(seed)), greedy)


def test_the_model_has_no_tied_top_two_logits(hf_model, prompts):
    """What makes temperature 1e-6 greedy: at every step the top two logits differ by more
    than 100 T, so the runner-up has probability < exp(-100) after dividing by T."""
    ids = generate(hf_model, prompts, 12)
    with torch.no_grad():
        top2 = hf_model(ids).logits[:, 4:-1].topk(2, dim=-1).values  # every step's logits
    assert float((top2[..., 0] - top2[..., 1]).min()) > 1e-4


# ---------------------------------------------------------------------------------------------
# Hugging Face's generate


@pytest.mark.parametrize("use_cache", [True, False])
def test_greedy_equals_hugging_face(hf_model, prompts, use_cache):
    theirs = hf_generate(hf_model, prompts, 20, do_sample=False, use_cache=use_cache)
    ours = generate(hf_model, prompts, 20, use_cache=use_cache)
    assert ours.shape == (3, 25) and torch.equal(ours, theirs)
    penalised = hf_generate(hf_model, prompts, 20, do_sample=False, repetition_penalty=1.5)
    assert torch.equal(generate(hf_model, prompts, 20, Strategy.greedy(1.5)), penalised)
    assert not torch.equal(penalised, theirs)


SAMPLING = [  # (temperature, top_k, top_p, repetition_penalty)
    (1.0, None, None, 1.0),
    (0.7, None, None, 1.0),
    (1.5, 10, None, 1.0),
    (1.0, None, 0.8, 1.0),
    (0.9, 5, 0.9, 1.3),
    (1.2, None, None, 0.8),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("params", SAMPLING, ids=str)
def test_sampling_equals_hugging_face_under_the_same_seed(hf_model, prompts, params, seed):
    T, k, p, penalty = params
    theirs = hf_generate(hf_model, prompts, 20, seed, do_sample=True, temperature=T,
                         top_k=k or 0, top_p=p or 1.0, repetition_penalty=penalty)  # fmt: skip
    s = Strategy.sample(T, k, p, penalty)
    assert torch.equal(generate(hf_model, prompts, 20, s, generator=seeded(seed)), theirs)
    torch.manual_seed(seed)  # generator=None: torch's global generator, as Hugging Face
    assert torch.equal(generate(hf_model, prompts, 20, s), theirs)


def test_different_seeds_give_different_samples(hf_model, prompts):
    samples = {tuple(generate(hf_model, prompts, 20, "sample", generator=seeded(s))
                     .flatten().tolist()) for s in range(4)}  # fmt: skip
    assert len(samples) == 4


@pytest.fixture(scope="module")
def eos_token(hf_model, prompts):
    """A token that greedy search produces in row 0 (step 4), but not in the prompts."""
    ids = generate(hf_model, prompts, 20)
    for token in ids[0, 5 + 3 :].tolist():
        if token not in prompts.flatten().tolist():
            return token
    pytest.fail("no token to serve as eos")


@pytest.mark.parametrize("seed", [None, 0, 1])
def test_stopping_at_eos_equals_hugging_face(hf_model, prompts, eos_token, seed):
    do_sample = seed is not None
    strategy = Strategy.sample(top_k=5) if do_sample else Strategy.greedy()
    kwargs = {"top_k": 5} if do_sample else {}
    for pad in (None, 7):
        theirs = hf_generate(hf_model, prompts, 20, seed, do_sample=do_sample,
                             eos_token_id=eos_token, pad_token_id=pad if pad is not None
                             else eos_token, **kwargs)  # fmt: skip
        gen = None if seed is None else seeded(seed)
        ours = generate(hf_model, prompts, 20, strategy, generator=gen, eos_id=eos_token,
                        pad_id=pad)  # fmt: skip
        assert torch.equal(ours, theirs)
    if not do_sample:  # greedy: row 0 finished and is padded
        row = ours[0, 5:].tolist()
        end = row.index(eos_token)
        assert end < len(row) - 1 and set(row[end + 1 :]) == {7}


# ---------------------------------------------------------------------------------------------
# EOS and padding on a hand-built model


class Bigram(nn.Module):
    """logits of position t = table[ids[t]]: a fixed next-token table (V, V)."""

    def __init__(self, table):
        super().__init__()
        self.table = nn.Parameter(torch.as_tensor(table, dtype=torch.float32))
        self.calls = []

    def forward(self, ids):
        self.calls.append(tuple(ids.shape))
        return self.table[ids]  # (B, t) -> (B, t, V)


def chain_model():
    """0 -> 1 -> 2 -> 3 (eos) -> 3 ..., and 4 -> 4 forever."""
    table = torch.full((5, 5), -5.0)
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 3), (4, 4)]:
        table[a, b] = 5.0
    return Bigram(table)


def test_finished_rows_are_padded_and_generation_stops_when_all_are():
    model = chain_model()
    out = generate(model, torch.tensor([[0], [2]]), 10, eos_id=3, pad_id=4)
    assert out.tolist() == [[0, 1, 2, 3], [2, 3, 4, 4]]  # row 1 finished at step 1
    assert len(model.calls) == 3  # stopped after step 3, not 10
    assert generate(model, [2], 10, eos_id=3).tolist() == [[2, 3]]  # pad_id defaults to eos
    assert generate(model, [4], 6, eos_id=3).tolist() == [[4] * 7]  # never finishes
    assert generate(model, [0], 6).tolist() == [[0, 1, 2, 3, 3, 3, 3]]  # no eos: runs on


def test_model_modes_are_restored_and_no_graph_is_built():
    model = chain_model().train()
    model.table.requires_grad_(True)
    seen = []
    model.register_forward_hook(lambda m, i, o: seen.append((m.training, o.requires_grad)))
    generate(model, [0], 2)
    assert seen == [(False, False), (False, False)] and model.training


def test_works_with_the_causal_lm_tuple_output():
    from lecturekit.models.bert import BertConfig
    from lecturekit.models.causal_lm import CausalLM

    torch.manual_seed(0)
    lm = CausalLM(BertConfig.tiny()).eval()
    prompt = torch.randint(5, 450, (2, 4), generator=seeded(0))
    out = generate(lm, prompt, 6)
    ids = prompt
    for _ in range(6):  # greedy by hand
        ids = torch.cat([ids, lm(ids)[0][:, -1].argmax(-1, keepdim=True)], dim=1)
    assert torch.equal(out, ids)
    eos = int(out[0, 6])
    stopped = generate(lm, prompt, 6, "sample", generator=seeded(0), eos_id=eos)
    assert stopped.shape[0] == 2 and stopped.shape[1] <= 10
    with pytest.raises(ValueError, match=r"prompt_ids.*max_position=64"):
        generate(lm, prompt, 61)


def test_a_plain_function_and_an_output_with_logits_work():
    table = chain_model().table.detach()
    as_function = generate(lambda ids: table[ids], [0], 3)
    as_output = generate(lambda ids: SimpleNamespace(logits=table[ids]), [0], 3)
    assert as_function.tolist() == as_output.tolist() == [[0, 1, 2, 3]]


# ---------------------------------------------------------------------------------------------
# beam search


def table_model(ids):
    """search_table's next-token table as a model: ids (B, t) starting with BOS."""
    rows = [[TABLE.get(tuple(row[1 : i + 1]), TABLE_DEFAULT) for i in range(len(row))]
            for row in ids.tolist()]  # fmt: skip
    return torch.tensor(rows).log()  # (B, t, V)


def total_log_prob(model, ids, T):
    """log P(ids[:, T:] | ids[:, :T]) of each row, up to and including the first EOS."""
    with torch.no_grad():
        log_probs = torch.log_softmax(model(ids), dim=-1)  # (B, t, V)
    totals = []
    for b in range(ids.shape[0]):
        total = 0.0
        for t in range(T, ids.shape[1]):
            total += float(log_probs[b, t - 1, ids[b, t]])
            if ids[b, t] == EOS:
                break
        totals.append(total)
    return totals


def test_beam_finds_a_more_probable_sequence_than_myopic_greedy():
    greedy = generate(table_model, [BOS], 5, eos_id=EOS)
    beam = generate(table_model, [BOS], 5, Strategy.beam(2), eos_id=EOS)
    assert greedy.tolist() == [[BOS, A, A, EOS]] and beam.tolist() == [[BOS, B, C, EOS]]
    (g,), (b,) = total_log_prob(table_model, greedy, 1), total_log_prob(table_model, beam, 1)
    assert b == pytest.approx(math.log(0.4 * 0.9 * 0.9)) and b > g


@pytest.mark.parametrize("eos_id", [None, 11])
def test_beam_size_1_equals_greedy(hf_model, prompts, eos_id):
    beam = generate(hf_model, prompts, 12, Strategy.beam(1), eos_id=eos_id)
    assert torch.equal(beam, generate(hf_model, prompts, 12, eos_id=eos_id))


def test_beam_equals_decoding_beam_search_with_the_same_step(hf_model, prompts, eos_token):
    strategy = Strategy.beam(beam_size=3, length_penalty=0.5, repetition_penalty=1.2)
    ours = generate(hf_model, prompts, 10, strategy, eos_id=eos_token, pad_id=0)
    for b, row in enumerate(prompts):

        def step(prefix, row=row):  # prefix (N, t): the prompt's last token, the hypothesis
            full = torch.cat([row[:-1].expand(len(prefix), -1), prefix], dim=1)
            logits = apply_repetition_penalty(hf_model(full).logits[:, -1], full, 1.2)
            return torch.log_softmax(logits.double(), -1)

        best = beam_search(step, int(row[-1]), eos_token, 3, 10, length_penalty=0.5)[0]
        want = row.tolist() + list(best.tokens)
        assert ours[b, : len(want)].tolist() == want
        assert set(ours[b, len(want) :].tolist()) <= {0}


def test_beam_without_eos_gives_max_new_tokens_and_here_beats_greedy(hf_model, prompts):
    """Without eos every hypothesis has max_new_tokens tokens; on this model the beam's best
    is at least as probable as greedy's in every row (beam search does not guarantee it)."""
    beam = generate(hf_model, prompts, 8, Strategy.beam(4))
    greedy = generate(hf_model, prompts, 8)
    assert beam.shape == greedy.shape == (3, 13)
    logits = hf_model_logits(hf_model)
    beam_scores, greedy_scores = total_log_prob(logits, beam, 5), total_log_prob(logits, greedy, 5)
    assert all(b >= g - 1e-6 for b, g in zip(beam_scores, greedy_scores, strict=True))


def hf_model_logits(hf_model):
    return lambda ids: hf_model(ids).logits


# ---------------------------------------------------------------------------------------------
# lecturekit's GPT: Hugging Face's tokens, and the KV cache


def gpt_module():
    return pytest.importorskip("lecturekit.models.gpt")


@pytest.fixture(scope="module")
def gpt(hf_model):
    return gpt_module().GPT.from_hf(hf_model).eval()


class Recording(nn.Module):
    """Wraps a GPT (same forward signature) and records each step's last-position logits."""

    def __init__(self, model):
        super().__init__()
        self.model, self.steps, self.lengths = model, [], []

    def forward(self, input_ids, attention_mask=None, cache=None, use_cache=False):
        out = self.model(input_ids, attention_mask, cache, use_cache)
        self.steps.append(out.logits[:, -1])
        self.lengths.append(input_ids.shape[1])
        return out


@pytest.mark.parametrize("use_cache", [True, False])
def test_gpt_from_hf_generates_hugging_faces_tokens(hf_model, gpt, prompts, use_cache):
    theirs = hf_generate(hf_model, prompts, 20, do_sample=False)
    assert torch.equal(generate(gpt, prompts, 20, use_cache=use_cache), theirs)
    for seed, (T, k, p, penalty) in enumerate(SAMPLING):
        theirs = hf_generate(hf_model, prompts, 20, seed, do_sample=True, temperature=T,
                             top_k=k or 0, top_p=p or 1.0, repetition_penalty=penalty)  # fmt: skip
        ours = generate(gpt, prompts, 20, Strategy.sample(T, k, p, penalty),
                        generator=seeded(seed), use_cache=use_cache)  # fmt: skip
        assert torch.equal(ours, theirs)


@pytest.mark.parametrize("strategy", ["greedy", Strategy.sample(0.8, top_p=0.95)], ids=str)
def test_kv_cache_gives_the_same_tokens_and_logits_as_recomputing(gpt, prompts, strategy):
    cached, full = Recording(gpt), Recording(gpt)
    a = generate(cached, prompts, 30, strategy, generator=seeded(5), use_cache=True)
    b = generate(full, prompts, 30, strategy, generator=seeded(5), use_cache=False)
    assert torch.equal(a, b)
    assert cached.lengths == [5] + [1] * 29  # the prompt once, then one token per step
    assert full.lengths == list(range(5, 35))  # the whole prefix every step
    for x, y in zip(cached.steps, full.steps, strict=True):
        torch.testing.assert_close(x, y, rtol=0, atol=1e-5)


def test_gpt_prompt_longer_than_the_context(gpt, prompts):
    assert generate(gpt, prompts, 59).shape == (3, 64)  # exactly the context
    with pytest.raises(ValueError, match=r"prompt_ids.*T=5.*max_new_tokens=60.*max_position=64"):
        generate(gpt, prompts, 60)
    with pytest.raises(ValueError, match="prompt longer than the context"):
        generate(gpt, torch.zeros(1, 65, dtype=torch.long), 1)


def test_gpt_tiny_eos_and_cache_with_its_own_config():
    gpt_mod = gpt_module()
    torch.manual_seed(0)
    model = gpt_mod.GPT(gpt_mod.GPTConfig.tiny())
    prompt = torch.randint(0, 450, (2, 6), generator=seeded(2))
    a = generate(model, prompt, 40, Strategy.sample(1.5), generator=seeded(0), eos_id=7)
    b = generate(model, prompt, 40, Strategy.sample(1.5), generator=seeded(0), eos_id=7,
                 use_cache=False)  # fmt: skip
    assert torch.equal(a, b) and model.training  # modes restored (GPT() starts in training)


# ---------------------------------------------------------------------------------------------
# bad input: every ValueError names the argument


def zeros_model(ids):
    return torch.zeros(*ids.shape, 5)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: Strategy("top_k"), "kind"),
        (lambda: Strategy.sample(temperature=0), "temperature must be > 0 for sampling"),
        (lambda: Strategy.sample(temperature=-1.0), "Strategy.greedy()"),
        (lambda: Strategy.sample(temperature=math.inf), "temperature"),
        (lambda: Strategy.sample(temperature=math.nan), "temperature"),
        (lambda: Strategy.sample(top_k=0), "top_k"),
        (lambda: Strategy.sample(top_k=2.5), "top_k"),
        (lambda: Strategy.sample(top_p=0.0), "top_p"),
        (lambda: Strategy.sample(top_p=1.5), "top_p"),
        (lambda: Strategy.sample(repetition_penalty=0), "repetition_penalty"),
        (lambda: Strategy.beam(beam_size=0), "beam_size"),
        (lambda: Strategy.beam(length_penalty=-1), "length_penalty"),
        (lambda: apply_temperature(torch.zeros(3), 0.0), "temperature"),
        (lambda: apply_temperature(torch.zeros(3, dtype=torch.long), 1.0), "logits"),
        (lambda: top_k_filter(torch.zeros(3), 0), "k"),
        (lambda: top_p_filter(torch.zeros(3), 0.0), "p"),
        (lambda: top_p_filter(torch.zeros(0), 0.5), "logits"),
        (lambda: apply_repetition_penalty(torch.zeros(3), torch.tensor([3]), 1.2), "previous_ids"),
        (
            lambda: apply_repetition_penalty(torch.zeros(2, 3), torch.tensor([[0]]), 1.2),
            "previous_ids",
        ),
        (
            lambda: apply_repetition_penalty(torch.zeros(3), torch.tensor([0.0]), 1.2),
            "previous_ids",
        ),
        (lambda: apply_repetition_penalty(torch.zeros(3), torch.tensor([0]), -1.0), "penalty"),
        (lambda: next_token_distribution(torch.zeros(3), Strategy.greedy(1.2)), "previous_ids"),
        (lambda: next_token_distribution(torch.zeros(3), "topk"), "strategy"),
        (lambda: generate(zeros_model, [1, 2], 0), "max_new_tokens"),
        (lambda: generate(zeros_model, [1, 2], 2.0), "max_new_tokens"),
        (lambda: generate(zeros_model, torch.zeros(1, 1, 2, dtype=torch.long), 2), "prompt_ids"),
        (lambda: generate(zeros_model, torch.zeros(1, 2), 2), "prompt_ids"),
        (lambda: generate(zeros_model, [], 2), "prompt_ids"),
        (lambda: generate(zeros_model, [[1, 2], [3]], 2), "prompt_ids"),
        (lambda: generate(zeros_model, [1, -2], 2), "prompt_ids"),
        (lambda: generate(zeros_model, [1, 5], 2), "prompt_ids"),  # V = 5
        (lambda: generate(zeros_model, [1, 5], 2, "beam"), "prompt_ids"),
        (lambda: generate(zeros_model, [1], 2, "sampling"), "strategy"),
        (lambda: generate(zeros_model, [1], 2, "sample", generator=0), "generator"),
        (lambda: generate(zeros_model, [1], 2, eos_id="3"), "eos_id"),
        (lambda: generate(zeros_model, [1], 2, eos_id=5), "eos_id"),
        (lambda: generate(zeros_model, [1], 2, eos_id=1, pad_id=1.0), "pad_id"),
        (lambda: generate(zeros_model, [1], 2, eos_id=1, pad_id=9), "pad_id"),
        (lambda: generate(zeros_model, [1], 2, use_cache="yes"), "use_cache"),
        (lambda: generate("gpt", [1], 2), "model"),
        (lambda: generate(lambda ids: torch.zeros(5), [1], 2), "model"),
        (lambda: generate(lambda ids: torch.zeros(2, 1, 5), [1], 2), "model"),
        (lambda: generate(lambda ids: "logits", [1], 2), "model"),
        (
            lambda: generate(lambda ids: torch.zeros(*ids.shape, 5, dtype=torch.long), [1], 2),
            "model",
        ),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_max_position_of_any_model_config():
    class Small(nn.Module):
        config = SimpleNamespace(max_position=6, vocab_size=5)

        def forward(self, ids):
            return torch.zeros(*ids.shape, 5)

    assert generate(Small(), [1, 2], 4).shape == (1, 6)
    with pytest.raises(ValueError, match=r"prompt longer than the context.*max_position=6"):
        generate(Small(), [1, 2], 5)
    with pytest.raises(ValueError, match=r"prompt_ids must hold ids in 0..4"):
        generate(Small(), [1, 7], 1)  # checked from config.vocab_size before any call
