"""Bad inputs to the tokenisers (issue 15): lecturekit.tokenization (WordPiece) and
lecturekit.bpe. Every misuse gets a clear ValueError naming the argument."""

from collections import Counter

import torch
from bad_inputs import Bad, assert_clear_error, bad_rows

from lecturekit.bpe import (
    SLIDES_DICTIONARY,
    BPETokenizer,
    apply_bpe,
    learn_bpe,
    pair_counts,
    split_word,
    symbol_counts,
)
from lecturekit.tokenization import (
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    count_words,
    learn_wordpiece,
    train_hf_bpe,
    train_hf_wordpiece,
)

CORPUS = ["he likes playing", "my dog is cute", "the man went to the store"]
TOK = WordPieceTokenizer.train(CORPUS, vocab_size=50)
MERGES, _ = learn_bpe(SLIDES_DICTIONARY, 5)
BPE = BPETokenizer.train(SLIDES_DICTIONARY, 5)
SEGMENTATION = {w: tuple(split_word(w)) for w in SLIDES_DICTIONARY}

# fmt: off
ROWS = [
    # tokenization: word lists, word counts, sizes
    Bad("tokenization.count_words: a bare string", "type", lambda: count_words("a sentence"),
        ["sentences", "['a sentence']"]),
    Bad("tokenization.count_words: a list of ints", "type", lambda: count_words([1, 2]),
        "sentences"),
    Bad("tokenization.learn_wordpiece: a list of words", "type",
        lambda: learn_wordpiece(["low", "lower"], 50), ["word_counts", "count_words"]),
    Bad("tokenization.learn_wordpiece: empty word counts", "size",
        lambda: learn_wordpiece({}, 50), "word_counts"),
    Bad("tokenization.learn_wordpiece: zero count", "range",
        lambda: learn_wordpiece({"low": 0}, 50), "word_counts['low']"),
    Bad("tokenization.learn_wordpiece: vocab_size smaller than the alphabet", "size",
        lambda: learn_wordpiece(SLIDES_DICTIONARY, 12), ["vocab_size", "alphabet"]),
    Bad("tokenization.learn_wordpiece: vocab_size a float", "size",
        lambda: learn_wordpiece(SLIDES_DICTIONARY, 50.0), "vocab_size"),
    Bad("tokenization.WordPieceTokenizer.train: a bare string", "type",
        lambda: WordPieceTokenizer.train("he likes playing", 50), "sentences"),
    Bad("tokenization.WordPieceTokenizer.train: no words", "size",
        lambda: WordPieceTokenizer.train([], 50), "sentences"),
    Bad("tokenization.WordPieceTokenizer: non-str entries", "type",
        lambda: WordPieceTokenizer([*SPECIAL_TOKENS, 7]), "vocab[5]"),
    Bad("tokenization.WordPieceTokenizer: a bare string", "type",
        lambda: WordPieceTokenizer("[PAD]"), "vocab"),
    Bad("tokenization.WordPieceTokenizer.tokenize: a list", "type",
        lambda: TOK.tokenize(["he likes"]), "text"),
    Bad("tokenization.WordPieceTokenizer.encode: None", "type", lambda: TOK.encode(None), "text"),
    Bad("tokenization.WordPieceTokenizer.encode_pair: b a list", "type",
        lambda: TOK.encode_pair("he likes", ["my dog"]), "b"),
    Bad("tokenization.WordPieceTokenizer.decode: id out of range", "range",
        lambda: TOK.decode([3, 50]), ["ids", "0..49", "50"]),
    Bad("tokenization.WordPieceTokenizer.decode: negative id", "range",
        lambda: TOK.decode([-1]), ["ids", "-1"]),
    Bad("tokenization.WordPieceTokenizer.decode: float ids", "dtype",
        lambda: TOK.decode([3.7]), "ids"),
    Bad("tokenization.WordPieceTokenizer.decode: a string", "type", lambda: TOK.decode("123"),
        "ids"),
    Bad("tokenization.WordPieceTokenizer.decode: float tensor", "dtype",
        lambda: TOK.decode(torch.tensor([3.0, 4.0])), ["ids", ".long()"]),
    Bad("tokenization.WordPieceTokenizer.decode: skip_special a string", "type",
        lambda: TOK.decode([3], skip_special="no"), "skip_special"),
    Bad("tokenization.WordPieceTokenizer.convert_ids_to_tokens: id out of range", "range",
        lambda: TOK.convert_ids_to_tokens([99]), ["ids", "99"]),
    Bad("tokenization.WordPieceTokenizer.convert_tokens_to_ids: a bare string", "type",
        lambda: TOK.convert_tokens_to_ids("hello"), "tokens"),
    Bad("tokenization.train_hf_wordpiece: a list of words", "type",
        lambda: train_hf_wordpiece(["low"], 50), "word_counts"),
    Bad("tokenization.train_hf_wordpiece: vocab_size 0", "size",
        lambda: train_hf_wordpiece(SLIDES_DICTIONARY, 0), "vocab_size"),
    Bad("tokenization.train_hf_wordpiece: pin_ids a string", "type",
        lambda: train_hf_wordpiece(SLIDES_DICTIONARY, 50, pin_ids="yes"), "pin_ids"),
    Bad("tokenization.train_hf_bpe: negative num_merges", "size",
        lambda: train_hf_bpe(SLIDES_DICTIONARY, -1), "num_merges"),
    Bad("tokenization.train_hf_bpe: a word with a space", "data",
        lambda: train_hf_bpe({"lo w": 3}, 3), "word_counts"),
    # bpe
    Bad("bpe.learn_bpe: num_merges negative", "size", lambda: learn_bpe(SLIDES_DICTIONARY, -2),
        "num_merges"),
    Bad("bpe.learn_bpe: num_merges a float", "size", lambda: learn_bpe(SLIDES_DICTIONARY, 2.5),
        "num_merges"),
    Bad("bpe.learn_bpe: negative count", "range", lambda: learn_bpe({"low": -5}, 3),
        "word_counts['low']"),
    Bad("bpe.learn_bpe: non-str key", "type", lambda: learn_bpe({7: 5}, 3), "word_counts"),
    Bad("bpe.learn_bpe: a bare string", "type", lambda: learn_bpe("low lower", 3),
        "word_counts"),
    Bad("bpe.learn_bpe: criterion not a choice", "range",
        lambda: learn_bpe(SLIDES_DICTIONARY, 3, criterion="count"), "criterion"),
    Bad("bpe.learn_bpe: tie_break a list", "type",
        lambda: learn_bpe(SLIDES_DICTIONARY, 3, tie_break=["vocab"]), "tie_break"),
    Bad("bpe.learn_bpe: end_of_word an int", "type",
        lambda: learn_bpe(SLIDES_DICTIONARY, 3, end_of_word=1), "end_of_word"),
    Bad("bpe.learn_bpe: prefix with a space", "data",
        lambda: learn_bpe(SLIDES_DICTIONARY, 3, prefix="# "), "prefix"),
    Bad("bpe.apply_bpe: merges a bare string", "type", lambda: apply_bpe("lowest", "es"),
        "merges"),
    Bad("bpe.apply_bpe: merges of strings", "type", lambda: apply_bpe("lowest", ["e s", "es t"]),
        "merges[0]"),
    Bad("bpe.apply_bpe: merges a dict", "type", lambda: apply_bpe("lowest", {"e": "s"}),
        "merges"),
    Bad("bpe.apply_bpe: word a list", "type", lambda: apply_bpe(["lowest"], MERGES), "word"),
    Bad("bpe.BPETokenizer: empty alphabet (not trained)", "size", lambda: BPETokenizer([], []),
        ["alphabet", "BPETokenizer.train"]),
    Bad("bpe.BPETokenizer: merges of strings", "type", lambda: BPETokenizer("abc", ["ab"]),
        "merges[0]"),
    Bad("bpe.BPETokenizer.train: a list of words", "type",
        lambda: BPETokenizer.train(["low", "lower"], 3), "word_counts"),
    Bad("bpe.BPETokenizer.tokenize: a list", "type", lambda: BPE.tokenize(["low"]), "text"),
    Bad("bpe.BPETokenizer.segment: a word with a space", "data", lambda: BPE.segment("lo w"),
        "word"),
    Bad("bpe.split_word: an int", "type", lambda: split_word(7), "word"),
    Bad("bpe.pair_counts: a word missing from word_counts", "data",
        lambda: pair_counts({**SEGMENTATION, "new": ("n", "e", "w")}, SLIDES_DICTIONARY),
        ["segmentation", "'new'", "word_counts"]),
    Bad("bpe.symbol_counts: segmentation a list", "type",
        lambda: symbol_counts(list(SEGMENTATION), SLIDES_DICTIONARY), "segmentation"),
]
# fmt: on


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


# Legitimate odd inputs: documented behaviour, not errors.


def test_count_words_takes_any_iterable_and_empty_input():
    assert count_words(s for s in ["a b", "b"]) == Counter({"b": 2, "a": 1})
    assert count_words([]) == Counter() and count_words(["", "  "]) == Counter()


def test_unknown_tokens_become_unk_and_empty_text_no_ids():
    token = TOK.vocab[20]
    assert TOK.convert_tokens_to_ids([token, "zebra"]) == [20, 1]  # [UNK] = 1
    assert TOK.encode("") == [] and TOK.tokenize("   ") == [] and TOK.decode([]) == ""
    assert TOK.decode(torch.tensor([20])) == TOK.decode([20]) == token  # a tensor of ids works


def test_a_string_alphabet_is_its_characters_and_empty_words_split_to_nothing():
    assert BPETokenizer("lowe", []).alphabet == ["e", "l", "o", "w"]
    assert split_word("") == [] and split_word("", "</w>") == ["</w>"]
    assert learn_bpe(SLIDES_DICTIONARY, 3, end_of_word="")[0] == learn_bpe(SLIDES_DICTIONARY, 3)[0]
