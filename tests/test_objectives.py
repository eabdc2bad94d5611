"""lecturekit.objectives: the pre-training objectives as data (BERT's masking and NSP pairs,
whole-word and span masking, T5 span corruption, ELECTRA labels, XLNet's permutation masks,
sentence order and sentence relations)."""

import itertools
import random
from itertools import pairwise

import pytest
import torch

from lecturekit.datasets.stories import default_data
from lecturekit.masking import causal_mask
from lecturekit.objectives import (
    FOLLOWS,
    IGNORE,
    IN_ORDER,
    IS_NEXT,
    NOT_NEXT,
    PRECEDES,
    SPANBERT_P,
    SWAPPED,
    UNRELATED,
    check_rate,
    corrupt_chosen,
    electra_example,
    make_nsp_pairs,
    mask_tokens,
    permutation_masks,
    random_spans,
    reconstruct,
    sample_order,
    sample_spans,
    sentence_order_pairs,
    sentence_relation_triples,
    span_corruption,
    span_length_distribution,
    span_mask,
    whole_word_mask,
    word_ids,
)

T5_WORDS = ["thank", "you", "for", "inviting", "me", "to", "your", "party", "last", "week", "."]
T5_VOCAB = [*T5_WORDS, "<X>", "<Y>", "<Z>"]
SENTINELS = [11, 12, 13]


@pytest.fixture(scope="module")
def data():
    return default_data()


def g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --- BERT's 80/10/10 --------------------------------------------------------------------------


def old_mask_tokens(input_ids, *, vocab_size, prob=0.15, mask_id=4, num_special=5, generator=None):
    """mask_tokens as it was before lecture 15 (commit before the refactoring), verbatim."""
    chosen = (torch.rand(input_ids.shape, generator=generator) < prob) & (input_ids >= num_special)
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
    action = torch.rand(input_ids.shape, generator=generator)  # < .8 mask, < .9 random, else keep
    random_ids = torch.randint(num_special, vocab_size, input_ids.shape, generator=generator)
    masked = torch.where(chosen & (action < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    masked = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, masked)
    return masked, labels


@pytest.mark.parametrize("seed", [0, 1, 7, 1234])
@pytest.mark.parametrize("prob", [0.15, 0.4, 1.0])
def test_mask_tokens_draws_are_unchanged(seed, prob):
    ids = torch.randint(0, 60, (8, 33), generator=g(99))
    new = mask_tokens(ids, vocab_size=60, prob=prob, generator=g(seed))
    old = old_mask_tokens(ids, vocab_size=60, prob=prob, generator=g(seed))
    assert torch.equal(new[0], old[0]) and torch.equal(new[1], old[1])
    assert (new[0] != ids).any()  # the comparison is not vacuous


def test_corrupt_chosen_shares_and_labels():
    ids = torch.randint(5, 1000, (200_000,), generator=g(0))
    chosen = torch.rand(ids.shape, generator=g(1)) < 0.5
    inputs, labels = corrupt_chosen(ids, chosen, vocab_size=1000, generator=g(2))
    assert torch.equal(labels[chosen], ids[chosen]) and (labels[~chosen] == IGNORE).all()
    assert torch.equal(inputs[~chosen], ids[~chosen])
    c_in, c_ids = inputs[chosen], ids[chosen]
    n = chosen.sum().item()
    masked = (c_in == 4).float().sum().item() / n
    kept = (c_in == c_ids).float().sum().item() / n
    replaced = 1 - masked - kept
    assert abs(masked - 0.8) < 0.01 and abs(kept - 0.1 - 0.1 / 995) < 0.01
    assert abs(replaced - 0.1) < 0.01 and int(c_in.min()) >= 4
    only_mask = corrupt_chosen(ids, chosen, vocab_size=1000, mask_share=1.0, random_share=0.0)[0]
    assert (only_mask[chosen] == 4).all()


# --- word ids, whole-word masking, span masking -----------------------------------------------


def test_word_ids_joins_wordpieces_and_skips_specials():
    tokens = ["[CLS]", "he", "bought", "a", "lo", "##a", "##f", "[SEP]", "##x", "[UNK]", "[MASK]"]
    assert word_ids(tokens) == [None, 0, 1, 2, 3, 3, 3, None, 4, 5, None]
    assert word_ids([]) == []


def test_whole_word_masking_never_splits_a_word(data):
    tok = data.tokenizer
    sentences = [s for doc in data.train[:300] for s in doc]
    split_words, shares, n_with_pieces = 0, [], 0
    for i, sentence in enumerate(sentences):
        tokens = ["[CLS]", *tok.tokenize(sentence), "[SEP]"]
        wids = word_ids(tokens)
        n_with_pieces += any(t.startswith("##") for t in tokens)
        chosen = whole_word_mask(wids, 0.3, generator=g(i))
        assert chosen.shape == (len(tokens),) and not chosen[0] and not chosen[-1]
        for w in set(x for x in wids if x is not None):
            at = chosen[[t for t, x in enumerate(wids) if x == w]]
            split_words += bool(at.any()) and not bool(at.all())
        n = sum(x is not None for x in wids)
        assert 1 <= chosen.sum() <= max(1, round(0.3 * n))
        shares.append(chosen.sum().item() / n)
    assert split_words == 0 and n_with_pieces > 50
    assert abs(sum(shares) / len(shares) - 0.3) < 0.05


def test_span_length_distribution_spanbert_and_solved_mean():
    lengths = torch.arange(1, 11, dtype=torch.float64)
    spanbert = span_length_distribution(p=SPANBERT_P)
    assert abs(float((spanbert * lengths).sum()) - 3.797) < 1e-3  # the paper's "mean 3.8"
    assert torch.allclose(spanbert[1:] / spanbert[:-1], torch.full((9,), 0.8, dtype=torch.float64))
    for mean in (1.5, 3.0, 5.0):
        d = span_length_distribution(mean)
        assert abs(float(d.sum()) - 1) < 1e-12 and abs(float((d * lengths).sum()) - mean) < 1e-6


@pytest.mark.parametrize("mean,p", [(3.0, None), (None, SPANBERT_P)])
def test_span_masking_mean_span_and_rate(mean, p):
    want = 3.797 if p else mean
    words, masked_share = [], []
    for seed in range(60):
        spans = sample_spans(2000, 0.15, mean or 3.0, 10, g(seed), p=p)
        words += [e - s for s, e in spans[:-1]]  # the last one is cut by the budget
        mask = span_mask(2000, 0.15, mean or 3.0, 10, g(seed), p=p)
        masked_share.append(int(mask.sum()))
        assert all(1 <= e - s <= 10 for s, e in spans)
    assert abs(sum(words) / len(words) - want) < 0.1 * want
    assert masked_share == [300] * 60  # every token a word: exactly round(0.15 * 2000)


def test_span_masking_keeps_whole_words_and_stops_at_specials(data):
    tok = data.tokenizer
    doc = data.train[3]
    tokens = ["[CLS]", *tok.tokenize(doc[0]), "[SEP]", *tok.tokenize(doc[1]), "[SEP]"]
    wids = word_ids(tokens)
    for seed in range(200):
        mask = span_mask(wids, 0.4, 3.0, generator=g(seed))
        for w in set(x for x in wids if x is not None):
            at = mask[[t for t, x in enumerate(wids) if x == w]]
            assert bool(at.all()) or not bool(at.any())
        assert not mask[[t for t, x in enumerate(wids) if x is None]].any()
        for s, e in sample_spans(wids, 0.4, 3.0, generator=g(seed)):
            assert None not in wids[s:e]


# --- T5 span corruption -----------------------------------------------------------------------


def test_t5_slide_example_exactly():
    out = span_corruption(torch.arange(11), SENTINELS, [(2, 4), (8, 9)])
    text_in = " ".join(T5_VOCAB[i] for i in out.inputs)
    text_out = " ".join(T5_VOCAB[i] for i in out.targets)
    assert text_in == "thank you <X> me to your party <Y> week ."
    assert text_out == "<X> for inviting <Y> last <Z>"
    assert out.spans == [(2, 4), (8, 9)]
    assert torch.equal(reconstruct(out.inputs, out.targets, SENTINELS), torch.arange(11))


@pytest.mark.parametrize("T", [2, 7, 10, 50, 100, 512])
@pytest.mark.parametrize("density,mean", [(0.15, 3.0), (0.5, 8.0), (0.3, 1.0)])
def test_t5_random_spans_counts_and_reconstruction(T, density, mean):
    sentinels = list(range(1000, 1000 + T))
    noise = min(max(round(T * density), 1), T - 1)
    n_spans = min(max(round(noise / mean), 1), T - noise)
    ids = torch.randint(0, 1000, (T,), generator=g(T))
    for seed in range(5):
        out = span_corruption(ids, sentinels, noise_density=density, mean_span_length=mean,
                              generator=g(seed))  # fmt: skip
        assert sum(e - s for s, e in out.spans) == noise and len(out.spans) == n_spans
        assert out.spans[0][0] > 0 and out.spans[-1][1] == T  # T5: kept first, noise last
        assert all(a[1] < b[0] for a, b in pairwise(out.spans))  # disjoint, not adjacent
        assert out.inputs.numel() == T - noise + n_spans
        assert out.targets.numel() == noise + n_spans + 1
        assert torch.equal(reconstruct(out.inputs, out.targets, sentinels), ids)


def test_t5_random_spans_vary_with_the_seed():
    draws = {tuple(random_spans(100, generator=g(s))) for s in range(20)}
    assert len(draws) == 20


# --- ELECTRA ----------------------------------------------------------------------------------


def test_electra_labels():
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 12]])
    chosen = torch.tensor([[False, True, True, False], [True, False, False, True]])
    sampled = torch.tensor([[0, 20, 7, 0], [30, 0, 0, 12]])  # 7 and 12: the original drawn
    ex = electra_example(ids, chosen, sampled)
    assert torch.equal(ex.inputs, torch.tensor([[5, 20, 7, 8], [30, 10, 11, 12]]))
    assert torch.equal(ex.labels, torch.tensor([[0, 1, 0, 0], [1, 0, 0, 0]]))
    one = electra_example(ids[0], chosen[0], sampled[0])
    assert torch.equal(one.labels, ex.labels[0])


# --- XLNet ------------------------------------------------------------------------------------


def test_identity_order_gives_causal_masks():
    m = permutation_masks(torch.arange(6))
    assert torch.equal(m.content, causal_mask(6))
    assert torch.equal(m.query, causal_mask(6) & ~torch.eye(6, dtype=torch.bool))


@pytest.mark.parametrize("seed", range(10))
def test_permutation_mask_properties(seed):
    T = 3 + seed
    order = sample_order(T, g(seed))
    m = permutation_masks(order)
    assert torch.equal(m.order, order) and torch.equal(m.order[m.rank], torch.arange(T))
    assert not (m.query & ~m.content).any()  # query is a subset of content
    assert m.content.diagonal().all() and not m.query.diagonal().any()
    assert torch.equal(m.query.sum(1), m.rank)
    assert torch.equal(m.content, m.query | torch.eye(T, dtype=torch.bool))
    for t, i in enumerate(order.tolist()):  # the k-th predicted sees the k - 1 before it
        assert set(m.query[i].nonzero().flatten().tolist()) == set(order[:t].tolist())


def conditional_product(joint, order, visible):
    """prod_t p(x_{z_t} | x_{visible[z_t]}) for every sequence x, from a joint table."""
    T = joint.ndim
    prod = torch.ones_like(joint)
    for x in itertools.product(range(joint.shape[0]), repeat=T):
        p = 1.0
        for i in order:
            seen = visible[i].nonzero().flatten().tolist()
            if i in seen:  # x_i itself visible: its "conditional" is 1
                continue
            index = tuple(x[j] if j in seen else slice(None) for j in range(T))
            given = joint[index]  # over the unseen positions, in order
            unseen = [j for j in range(T) if j not in seen]
            marginal = given.movedim(unseen.index(i), 0).reshape(joint.shape[0], -1).sum(1)
            p *= float(marginal[x[i]] / marginal.sum())
        prod[x] = p
    return prod


def test_xlnet_objective_factorises_with_the_query_mask():
    joint = torch.rand(3, 3, 3, 3, generator=g(0)).double()
    joint = joint / joint.sum()
    for order in itertools.permutations(range(4)):
        m = permutation_masks(list(order))
        assert torch.allclose(conditional_product(joint, order, m.query), joint, atol=1e-12)
    m = permutation_masks([2, 0, 3, 1])
    wrong = conditional_product(joint, [2, 0, 3, 1], m.content)  # sees its own token
    assert not torch.allclose(wrong, joint)


# --- sentence order and relations -------------------------------------------------------------


def test_sentence_order_pairs(data):
    docs = data.train[:400]
    pairs = sentence_order_pairs(docs, random.Random(0))
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    swapped = [p for p in pairs if p[2] == SWAPPED]
    assert abs(len(swapped) / len(pairs) - 0.5) < 0.03 and len(pairs) > 1000
    for a, b, label in pairs:
        assert a != b
        if label == IN_ORDER:
            assert (a, b) in follows and (b, a) not in follows
        else:
            assert (b, a) in follows and (a, b) not in follows
    assert pairs == sentence_order_pairs(docs, random.Random(0))
    assert sentence_order_pairs([["x", "x", "y"]], random.Random(0)) in (
        [("x", "y", IN_ORDER)],
        [("y", "x", SWAPPED)],
    )


def test_sentence_relation_triples(data):
    docs = data.train[:400]
    triples = sentence_relation_triples(docs, random.Random(0))
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    counts = {label: sum(t[2] == label for t in triples) for label in (0, 1, 2)}
    assert all(abs(c / len(triples) - 1 / 3) < 0.03 for c in counts.values())
    for s1, s2, label in triples:
        if label == FOLLOWS:
            assert (s1, s2) in follows
        elif label == PRECEDES:
            assert (s2, s1) in follows
        else:
            assert label == UNRELATED and (s1, s2) not in follows and (s2, s1) not in follows


def test_check_rate():
    assert check_rate("rate", 0.15) == 0.15
    for bad in (0, 1, -0.1, 1.5, float("nan"), True, "0.1"):
        with pytest.raises(ValueError, match="rate"):
            check_rate("rate", bad)


def test_mask_tokens_follows_15_percent_then_80_10_10():
    V, n_special = 100, 5
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(n_special, V, (400, 250), generator=generator)
    ids[:, 0], ids[:, -1], ids[:, 100:110] = 2, 3, 0  # [CLS], [SEP], [PAD]
    masked, labels = mask_tokens(ids, vocab_size=V, generator=generator)
    special = ids < n_special
    chosen = labels != -100
    assert not (chosen & special).any() and torch.equal(labels[chosen], ids[chosen])
    n = (~special).sum().item()  # 95,200 candidates
    rate = chosen.sum().item() / n
    assert abs(rate - 0.15) < 4 * (0.15 * 0.85 / n) ** 0.5  # within 4 standard errors
    c = chosen.sum().item()
    to_mask = (masked[chosen] == 4).float().mean().item()
    kept = (masked[chosen] == ids[chosen]).float().mean().item()
    replaced = 1 - to_mask - kept
    # a random replacement can draw the original token (1 in 95): "kept" gains 0.1/95
    for seen, p in ((to_mask, 0.8), (replaced, 0.1 * 94 / 95), (kept, 0.1 + 0.1 / 95)):
        assert abs(seen - p) < 4 * (p * (1 - p) / c) ** 0.5, (seen, p)
    assert torch.equal(masked[~chosen], ids[~chosen])  # nothing else changes
    assert (masked >= n_special)[chosen & (masked != 4)].all()  # never a special token


def test_mask_tokens_is_reproducible_and_checks_arguments():
    ids = torch.randint(5, 50, (3, 20))
    a = mask_tokens(ids, vocab_size=50, generator=torch.Generator().manual_seed(3))
    b = mask_tokens(ids, vocab_size=50, generator=torch.Generator().manual_seed(3))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    with pytest.raises(ValueError, match=r"prob must be a number in \(0, 1\], got 0"):
        mask_tokens(ids, vocab_size=50, prob=0)
    with pytest.raises(ValueError, match=r"input_ids must have shape \(B, T\), got \(20,\)"):
        mask_tokens(ids[0], vocab_size=50)


def test_nsp_pairs_are_half_next_and_half_from_other_documents():
    docs = default_data().train[:600]
    pairs = make_nsp_pairs(docs, random.Random(0))
    assert len(pairs) == sum(len(d) - 1 for d in docs)
    is_next = [p for p in pairs if p[2] == IS_NEXT]
    assert abs(len(is_next) / len(pairs) - 0.5) < 0.03
    consecutive = {(a, b) for d in docs for a, b in pairwise(d)}
    assert all((a, b) in consecutive for a, b, _ in is_next)
    # NotNext: B never follows A anywhere in the corpus
    assert not any((a, b) in consecutive for a, b, label in pairs if label == NOT_NEXT)
    with pytest.raises(ValueError, match="docs must hold at least 2 documents"):
        make_nsp_pairs(docs[:1], random.Random(0))
