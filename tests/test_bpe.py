"""lecturekit.bpe: the merge loop, its conventions, against tokenizers and Algorithm 1."""

import collections
import re
from fractions import Fraction

import pytest

from lecturekit.bpe import (
    SLIDES_DICTIONARY,
    TIE_BREAKS,
    BPETokenizer,
    apply_bpe,
    learn_bpe,
    pair_counts,
    split_word,
    symbol_counts,
)
from lecturekit.datasets.stories import default_data
from lecturekit.tokenization import (
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    count_words,
    learn_wordpiece,
    train_hf_bpe,
    train_hf_wordpiece,
)


@pytest.fixture(scope="module")
def corpus_counts():
    return count_words(s for doc in default_data().train for s in doc)


def algorithm_1(vocab: dict[str, int], num_merges: int) -> list[str]:
    """Sennrich et al. 2016, Algorithm 1, as printed (words are space-separated symbols)."""

    def get_stats(vocab):
        pairs = collections.defaultdict(int)
        for word, freq in vocab.items():
            symbols = word.split()
            for i in range(len(symbols) - 1):
                pairs[symbols[i], symbols[i + 1]] += freq
        return pairs

    def merge_vocab(pair, v_in):
        v_out = {}
        bigram = re.escape(" ".join(pair))
        p = re.compile(r"(?<!\S)" + bigram + r"(?!\S)")
        for word in v_in:
            v_out[p.sub("".join(pair), word)] = v_in[word]
        return v_out

    merged = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        vocab = merge_vocab(best, vocab)
        merged.append("".join(best))
    return merged


def merged(trace):
    return [step.merged for step in trace]


def test_the_slides_merge_order():
    merges, trace = learn_bpe(SLIDES_DICTIONARY, 10)
    assert merged(trace) == [
        "es", "est", "lo", "low", "ew", "new", "newest", "dest", "idest", "widest",
    ]  # fmt: skip
    assert [s.count for s in trace] == [9, 9, 7, 7, 6, 6, 6, 3, 3, 3]
    assert merges[:3] == [("e", "s"), ("es", "t"), ("l", "o")]
    for tie_break in TIE_BREAKS:  # the slides' es, est, lo, low whatever the tie-break
        _, trace = learn_bpe(SLIDES_DICTIONARY, 4, tie_break=tie_break)
        assert merged(trace) == ["es", "est", "lo", "low"]


def test_the_trace_shows_counts_and_ties():
    _, trace = learn_bpe(SLIDES_DICTIONARY, 5)
    first = trace[0].pair_counts
    assert first[("e", "s")] == first[("s", "t")] == 9 and first[("w", "e")] == 8
    assert first[("l", "o")] == first[("o", "w")] == 7
    assert trace[0].tied == (("e", "s"), ("s", "t")) and trace[1].tied == (("es", "t"),)
    assert set(trace[2].tied) == {("l", "o"), ("o", "w")}
    assert set(trace[4].tied) == {("n", "e"), ("e", "w"), ("w", "est")}
    assert trace[1].segmentation["widest"] == ("w", "i", "d", "est")
    assert trace[3].segmentation["lower"] == ("low", "e", "r")


def test_end_of_word_symbol_makes_est_w_the_third_merge():
    for tie_break in TIE_BREAKS:
        _, trace = learn_bpe(SLIDES_DICTIONARY, 4, end_of_word="</w>", tie_break=tie_break)
        assert merged(trace)[2:] == ["est</w>", "lo"]
    _, trace = learn_bpe(SLIDES_DICTIONARY, 3, end_of_word="</w>", tie_break="first")
    assert merged(trace) == ["es", "est", "est</w>"]
    assert split_word("low", "</w>") == ["l", "o", "w", "</w>"]


def test_tie_break_first_is_algorithm_1(corpus_counts):
    for end in ("", " </w>"):
        vocab = {" ".join(w) + end: n for w, n in SLIDES_DICTIONARY.items()}
        _, trace = learn_bpe(SLIDES_DICTIONARY, 14, end_of_word=end.strip() or None,
                             tie_break="first")  # fmt: skip
        assert merged(trace) == algorithm_1(vocab, 14)
    vocab = {" ".join(w): n for w, n in corpus_counts.items()}
    _, trace = learn_bpe(corpus_counts, 150, tie_break="first")
    assert merged(trace) == algorithm_1(vocab, 150)


def test_tie_break_vocab_is_the_tokenizers_bpe_trainer(corpus_counts):
    merges, _ = learn_bpe(SLIDES_DICTIONARY, 12)
    assert train_hf_bpe(SLIDES_DICTIONARY, 12) == merges
    merges, _ = learn_bpe(corpus_counts, 400)
    assert train_hf_bpe(corpus_counts, 400) == merges


def test_wordpiece_prefix_is_the_tokenizers_wordpiece_trainer_once_ids_are_pinned(corpus_counts):
    vocab = train_hf_wordpiece(corpus_counts, 450)
    assert vocab == train_hf_wordpiece(corpus_counts, 450)  # pinned: the same every run
    unpinned = train_hf_wordpiece(corpus_counts, 450, pin_ids=False)  # the library's own ids
    assert len(unpinned) == 450 and unpinned[:5] == list(SPECIAL_TOKENS)
    assert {"play", "##ing"} <= set(unpinned)
    assert vocab[: len(SPECIAL_TOKENS)] == list(SPECIAL_TOKENS) and len(vocab) == 450
    alphabet = {c for w in corpus_counts for c in w} | {f"##{c}" for w in corpus_counts
                                                        for c in w[1:]}  # fmt: skip
    hf_merged = [t for t in vocab if t not in alphabet and t not in SPECIAL_TOKENS]
    _, trace = learn_bpe(corpus_counts, len(hf_merged), prefix="##")
    assert merged(trace) == hf_merged
    tok = WordPieceTokenizer(vocab)
    ids, _ = tok.encode_pair("my dog is cute", "he likes playing")
    assert tok.convert_ids_to_tokens(ids) == [
        "[CLS]", "my", "dog", "is", "cute", "[SEP]", "he", "likes", "play", "##ing", "[SEP]",
    ]  # fmt: skip


def test_lexicographic_ties_with_prefix_are_lecture_08s_learner(corpus_counts):
    vocab = learn_wordpiece(corpus_counts, 450)
    n_alphabet = sum(len(t.removeprefix("##")) == 1 for t in vocab[len(SPECIAL_TOKENS) :])
    own = vocab[len(SPECIAL_TOKENS) + n_alphabet :]
    _, trace = learn_bpe(corpus_counts, len(own), prefix="##", tie_break="lexicographic")
    assert merged(trace) == own


def test_likelihood_criterion_scores():
    seg = {w: split_word(w) for w in SLIDES_DICTIONARY}
    pairs, singles = pair_counts(seg, SLIDES_DICTIONARY), symbol_counts(seg, SLIDES_DICTIONARY)
    assert (pairs[("e", "s")], singles["e"], singles["s"]) == (9, 17, 9)
    _, trace = learn_bpe(SLIDES_DICTIONARY, 3, criterion="likelihood")
    assert trace[0].pair == ("i", "d") and trace[0].score == Fraction(3, 3 * 3)
    assert merged(trace) == ["id", "lo", "st"]
    _, trace = learn_bpe(SLIDES_DICTIONARY, 1)
    assert trace[0].score == 9


def test_apply_bpe_to_new_words_and_against_the_tokenizers_bpe_model(corpus_counts):
    from tokenizers import Tokenizer, models, pre_tokenizers

    merges, _ = learn_bpe(SLIDES_DICTIONARY, 10)
    assert apply_bpe("lowest", merges) == ["low", "est"]
    assert apply_bpe("newer", merges) == ["new", "e", "r"]
    assert apply_bpe("wider", merges) == ["w", "i", "d", "e", "r"]
    assert apply_bpe("widest", merges) == ["widest"] and apply_bpe("löw", merges) == ["l", "ö", "w"]
    assert apply_bpe("lowest", learn_bpe(SLIDES_DICTIONARY, 3, end_of_word="</w>")[0],
                     end_of_word="</w>") == ["l", "o", "w", "est</w>"]  # fmt: skip

    merges, _ = learn_bpe(corpus_counts, 300)
    tok = BPETokenizer.train(corpus_counts, 300)
    vocab = {t: i for i, t in enumerate(tok.vocab)}
    hf = Tokenizer(models.BPE(vocab, merges, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words = [*corpus_counts, "lowest", "newer", "wider", "doghouse", "unhappy", "zebra", "pizza!"]
    for word in words:
        assert tok.segment(word) == hf.encode(word).tokens, word
    assert tok.tokenize("pizza zebra") == ["p", "i", "[UNK]", "[UNK]", "a", "[UNK]", "e", "br", "a"]


def test_learning_is_deterministic_and_stops_when_words_are_whole():
    reordered = dict(reversed(SLIDES_DICTIONARY.items()))
    for tie_break in ("vocab", "lexicographic"):
        assert (
            learn_bpe(reordered, 20, tie_break=tie_break)[0]
            == learn_bpe(SLIDES_DICTIONARY, 20, tie_break=tie_break)[0]
        )
    merges, trace = learn_bpe(SLIDES_DICTIONARY, 100)
    assert len(merges) == 12 and all(len(s) == 1 for s in trace[-1].segmentation.values())
    tok = BPETokenizer.train(SLIDES_DICTIONARY, 100)
    assert tok.vocab[0] == "[UNK]" and len(tok) == 1 + 10 + 12
    assert BPETokenizer(tok.alphabet, tok.merges).vocab == tok.vocab


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: learn_bpe({}, 3), "word_counts must not be empty"),
        (lambda: learn_bpe(["low"], 3), r"word_counts must be a mapping word -> count, got list"),
        (lambda: learn_bpe({"low": 0}, 3), r"word_counts\['low'\] must be a positive integer"),
        (lambda: learn_bpe({"lo w": 2}, 3), "word_counts has a key 'lo w' that is not a word"),
        (lambda: learn_bpe(SLIDES_DICTIONARY, 0), "num_merges must be a positive integer, got 0"),
        (lambda: learn_bpe(SLIDES_DICTIONARY, 3, criterion="score"), "criterion='score' is not"),
        (lambda: learn_bpe(SLIDES_DICTIONARY, 3, tie_break="random"), "tie_break='random' is"),
        (lambda: apply_bpe("", []), "word must be a non-empty string without spaces"),
        (lambda: BPETokenizer("ab", [("a", "c")]), r"merges\[0\]=\('a', 'c'\) uses a symbol"),
        (lambda: train_hf_bpe({}, 3), "word_counts must not be empty"),
        (lambda: train_hf_wordpiece({"a": 1}, 0), "vocab_size must be a positive integer"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
