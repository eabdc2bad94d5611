"""lecturekit.tokenization: WordPiece learned and applied."""

from collections import Counter

import pytest

from lecturekit.datasets.stories import default_data
from lecturekit.tokenization import (
    CLS_ID,
    MASK_ID,
    SEP_ID,
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    learn_wordpiece,
)


def test_merge_loop_merges_the_most_frequent_pair_first():
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}  # the BPE paper's example
    alphabet = {w[0] for w in counts} | {f"##{c}" for w in counts for c in w[1:]}
    alphabet |= set(".,;:!?'\"()-")
    vocab = learn_wordpiece(counts, 100)
    assert vocab[: len(SPECIAL_TOKENS)] == list(SPECIAL_TOKENS)
    assert vocab[len(SPECIAL_TOKENS) : len(SPECIAL_TOKENS) + len(alphabet)] == sorted(alphabet)
    merges = vocab[len(SPECIAL_TOKENS) + len(alphabet) :]
    # "##e ##s" and "##s ##t" both occur 6 + 3 = 9 times; the tie goes to the first
    assert merges[:3] == ["##es", "##est", "##ow"]
    assert {"low", "lower", "newest", "widest"} <= set(merges)
    assert learn_wordpiece(counts, len(SPECIAL_TOKENS) + len(alphabet) + 2)[-2:] == merges[:2]


def test_learning_is_deterministic_and_stops_when_nothing_is_left():
    counts = Counter(["the", "cat", "sat", "on", "the", "mat", "the", "end"])
    assert learn_wordpiece(counts, 60) == learn_wordpiece(dict(reversed(counts.items())), 60)
    full = learn_wordpiece(counts, 10_000)
    assert set(counts) <= set(full)  # every word ends up whole
    assert len(full) < 10_000


def test_the_slides_sentences_tokenise_as_in_the_paper():
    tok = default_data().tokenizer
    ids, segments = tok.encode_pair("my dog is cute", "he likes playing")
    assert tok.convert_ids_to_tokens(ids) == [
        "[CLS]", "my", "dog", "is", "cute", "[SEP]", "he", "likes", "play", "##ing", "[SEP]",
    ]  # fmt: skip
    assert segments == [0] * 6 + [1] * 5
    assert tok.tokenize("penguins are flightless birds") == [
        "penguins", "are", "flight", "##less", "birds",
    ]  # fmt: skip
    assert tok.tokenize("the man went to the store") == ["the", "man", "went", "to", "the", "store"]
    assert tok.tokenize("he bought a gallon of milk") == [
        "he",
        "bought",
        "a",
        "gallon",
        "of",
        "milk",
    ]
    assert ids[0] == CLS_ID and ids[5] == SEP_ID


def test_encode_decode_and_special_tokens():
    tok = default_data().tokenizer
    assert tok.decode(tok.encode("He likes PLAYING.")) == "he likes playing ."
    assert tok.encode("i think teddy [MASK] is great")[3] == MASK_ID
    assert tok.tokenize("xylophone")[0] in ("x", "[UNK]")
    assert WordPieceTokenizer(tok.vocab).vocab == tok.vocab and len(tok) == 450


def test_bad_vocabularies_and_ids_raise():
    with pytest.raises(ValueError, match=r"vocab must start with \['\[PAD\]'"):
        WordPieceTokenizer(["a", "b"])
    with pytest.raises(ValueError, match="duplicate"):
        WordPieceTokenizer([*SPECIAL_TOKENS, "a", "a"])
    with pytest.raises(ValueError, match="vocab_size=5 must exceed 5"):
        learn_wordpiece({"a": 1}, 5)
    with pytest.raises(
        ValueError,
        match=r"ids must hold ids in 0\.\.5 \(a vocabulary of 6\), got values from 9 to 9",
    ):
        WordPieceTokenizer([*SPECIAL_TOKENS, "a"]).convert_ids_to_tokens([9])
