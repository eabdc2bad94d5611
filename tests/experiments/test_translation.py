"""lecturekit.experiments.translation: translating and exact match, overall and by length."""

import math

import pytest
import torch

from lecturekit.experiments.translation import exact_match_by_length


@pytest.fixture(scope="module")
def translation():
    from lecturekit.datasets.translation import default_data
    from lecturekit.shipped import load_shipped

    data = default_data()
    return data, load_shipped("seq2seq_none")


def test_exact_match_by_length_agrees_with_exact_match(translation):
    from lecturekit.experiments.translation import exact_match

    data, model = translation
    pairs = data.test[:150]
    starts = [5, 10, 20, 30]
    result = exact_match_by_length(model, pairs, data, bin_starts=starts)
    assert result.labels == ("5-9", "10-19", "20-29", "30+")
    assert sum(result.counts) == len(pairs)
    ok = exact_match(model, pairs, data)  # in the given order, in batches as notebook 01
    for b, lo in enumerate(starts):
        hi = starts[b + 1] if b + 1 < len(starts) else math.inf
        members = [i for i, p in enumerate(pairs) if lo <= len(p.src) < hi]
        assert result.counts[b] == len(members)
        assert result.exact_match[b] == pytest.approx(ok[members].float().mean().item())
    assert torch.equal(result.correct, ok)  # kept, in the order of the pairs


def test_exact_match_by_length_bad_input(translation):
    data, model = translation
    with pytest.raises(ValueError, match="bin_starts must be increasing"):
        exact_match_by_length(model, data.test[:5], data, bin_starts=[5, 5, 10])
    short = min(data.test, key=lambda p: len(p.src))
    with pytest.raises(ValueError, match=f"a sentence has {len(short.src)} words, shorter than"):
        exact_match_by_length(model, [short], data, bin_starts=[len(short.src) + 1])
    with pytest.raises(ValueError, match="pairs is empty"):
        exact_match_by_length(model, [], data)


def test_classify_errors_search_vs_model_errors():
    import torch

    from lecturekit.datasets.translation import EOS, make_translation_data
    from lecturekit.decoding import Hypothesis
    from lecturekit.experiments.translation import classify_errors

    data = make_translation_data(n_train=4, n_valid=1, n_test=4)
    pairs = data.test[:4]
    ref = [(*data.tgt_vocab.encode(p.tgt), EOS) for p in pairs]
    hyps = [
        Hypothesis(ref[0], -1.0, True),  # right
        Hypothesis((*ref[1][:-2], EOS), -2.0, True),  # wrong; the reference scores -1.5: search
        Hypothesis((*ref[2][:-2], EOS), -2.0, True),  # wrong; the reference scores -3: model
        Hypothesis(ref[3][:-1], -0.5, False),  # the reference's words, unfinished: wrong
    ]
    refs = torch.tensor([-1.0, -1.5, -3.0, -4.0], dtype=torch.float64)
    err = classify_errors(hyps, pairs, refs, data)
    assert err.correct.tolist() == [True, False, False, False]
    assert err.search_error.tolist() == [False, True, False, False]
    assert err.model_error.tolist() == [False, False, True, True]
    assert (err.exact_match, err.num_search_errors, err.num_model_errors) == (0.25, 1, 2)
    tie = classify_errors(hyps[1:2], pairs[1:2], torch.tensor([-2.0], dtype=torch.float64), data)
    assert tie.model_error.tolist() == [True]  # a tie: the model does not prefer the reference


def test_classify_errors_bad_input():
    import torch

    from lecturekit.datasets.translation import make_translation_data
    from lecturekit.decoding import Hypothesis
    from lecturekit.experiments.translation import classify_errors

    data = make_translation_data(n_train=4, n_valid=1, n_test=2)
    hyp, refs = Hypothesis((2,), -1.0, True), torch.zeros(2, dtype=torch.float64)
    with pytest.raises(ValueError, match="one entry per sentence, got 1, 2 and 2"):
        classify_errors([hyp], data.test[:2], refs, data)
    with pytest.raises(ValueError, match=r"hyps\[0\] must be a Hypothesis .* take \[0\]"):
        classify_errors([[hyp], [hyp]], data.test[:2], refs, data)
    with pytest.raises(ValueError, match=r"reference_log_probs must have shape \(N,\)"):
        classify_errors([hyp, hyp], data.test[:2], refs[None], data)
    with pytest.raises(ValueError, match="pairs must be a list of Pair"):
        classify_errors([hyp], data.test[0], refs[:1], data)


def test_alignment_accuracy_counts_argmax_hits_per_layer_and_head():
    from lecturekit.datasets.translation import collate, default_data
    from lecturekit.experiments.translation import alignment_accuracy
    from lecturekit.shipped import load_shipped

    data = default_data()
    transformer, rnn = load_shipped("transformer_nmt"), load_shipped("seq2seq_dot")
    pairs = data.test[:30]
    result = alignment_accuracy(transformer, pairs, data, batch_size=7)  # chunks of 7
    batch = collate(pairs, data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        _, weights = transformer(batch.src, batch.tgt_in)
    hits = torch.zeros(2, 5)
    words = 0
    for b, p in enumerate(pairs):
        for t, s in enumerate(p.align):
            if s < 0:
                continue
            words += 1
            for layer, cross in enumerate(weights.cross):
                for h in range(4):
                    hits[layer, h] += int(cross[b, h, t].argmax()) == s
                hits[layer, 4] += int(cross[b, :, t].mean(0).argmax()) == s
    assert result.words == words and result.offsets.shape == (2, 4, 11)
    assert torch.allclose(result.accuracy, hits / words)
    assert (result.offsets.sum(-1) == words).all()
    assert alignment_accuracy(rnn, pairs, data).accuracy.shape == (1, 2)
    with pytest.raises(ValueError, match="no attention"):
        alignment_accuracy(load_shipped("seq2seq_none"), pairs, data)
    with pytest.raises(ValueError, match="pairs is empty"):
        alignment_accuracy(transformer, [], data)


def test_sign_test_is_the_two_sided_binomial_tail():
    from lecturekit.experiments.translation import paired_comparison, sign_test

    assert sign_test(10, 3) == pytest.approx(2 * sum(math.comb(13, k) for k in range(4)) / 2**13)
    assert sign_test(3, 10) == sign_test(10, 3) and sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0 and sign_test(1, 0) == 1.0  # capped: an even or tiny split
    assert sign_test(0, 9) == pytest.approx(2 / 2**9)
    a = torch.tensor([True] * 10 + [False] * 3 + [True])
    b = torch.tensor([False] * 10 + [True] * 3 + [True])
    assert paired_comparison(a, b, num_resamples=10).p_value == sign_test(10, 3)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="only_a"):
            sign_test(bad, 3)
