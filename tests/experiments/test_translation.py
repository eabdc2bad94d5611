"""lecturekit.experiments.translation: translating and exact match, overall and by length."""

import math

import pytest

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


def test_exact_match_by_length_bad_input(translation):
    data, model = translation
    with pytest.raises(ValueError, match="bin_starts must be increasing"):
        exact_match_by_length(model, data.test[:5], data, bin_starts=[5, 5, 10])
    short = min(data.test, key=lambda p: len(p.src))
    with pytest.raises(ValueError, match=f"a sentence has {len(short.src)} words, shorter than"):
        exact_match_by_length(model, [short], data, bin_starts=[len(short.src) + 1])
    with pytest.raises(ValueError, match="pairs is empty"):
        exact_match_by_length(model, [], data)
