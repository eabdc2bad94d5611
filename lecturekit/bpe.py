"""Byte-pair encoding (BPE): learn merges from word counts step by step, apply them to new words.

BPE for subword units (Sennrich et al. 2016, Algorithm 1): split every word into characters;
then repeatedly count each adjacent pair of symbols inside the words (an occurrence counts as
often as its word occurs), merge the best pair everywhere into one new symbol, and record the
merge. A new word is segmented by replaying the merges in the order they were learned.

Conventions (explicit arguments, so every result is reproducible):

- ``end_of_word``: ``None`` (default) splits "lowest" into ``l o w e s t``; a string such as
  ``"</w>"`` is appended as one more symbol (Algorithm 1), so that a word-final "est</w>"
  and a word-internal "est" become different symbols.
- ``prefix``: ``None`` (BPE) or ``"##"``: WordPiece's notation, where every symbol that does
  not start a word carries the prefix (``p ##l ##a ##y``); merging drops the inner prefix.
- ``criterion``: ``"frequency"`` (BPE: the most frequent pair) or ``"likelihood"`` (the
  WordPiece score count(ab) / (count(a) count(b)), compared exactly as fractions).
- ``tie_break``, among pairs with the same best score:
  ``"vocab"`` (default): the pair whose symbols entered the vocabulary first, the left symbol
  deciding first; initial symbols count in sorted order, merged symbols in the order they were
  made. This is the rule of Hugging Face ``tokenizers``' BpeTrainer (the smaller pair of ids).
  ``"first"``: the pair that occurs first, reading the words in the order of ``word_counts``
  and each word from left to right (what ``max`` does in Algorithm 1's Python code).
  ``"lexicographic"``: the alphabetically smallest pair (``tokenization.learn_wordpiece``).

On the slides' dictionary (low 5, lower 2, newest 6, widest 3) without an end-of-word symbol,
every rule gives ``es`` (9), ``est`` (9), ``lo`` (7), ``low`` (7) first; with ``"</w>"`` the
third merge is ``est</w>`` (9) and ``lo`` comes fourth.

Public API::

    SLIDES_DICTIONARY                           # {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    merges, trace = learn_bpe(word_counts, num_merges, end_of_word=None, prefix=None,
                              criterion="frequency", tie_break="vocab")
    # merges: [("e", "s"), ("es", "t"), ...] in order; trace: one MergeStep per merge
    apply_bpe("lowest", merges)                 # ['low', 'est']
    tok = BPETokenizer.train(word_counts, num_merges)   # or BPETokenizer(alphabet, merges)
    tok.tokenize("the lowest newer"), tok.vocab, len(tok)   # unknown characters -> "[UNK]"
    #   word_counts: a non-empty mapping word -> count > 0 (words without spaces);
    #   merges: a list of (str, str) pairs; end_of_word / prefix: None or a str without spaces
    #   ("" means None)
    pair_counts(segmentation, word_counts), symbol_counts(segmentation, word_counts)

Lecture 12; Sennrich et al. 2016 Algorithm 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_str,
    check_word_counts,
)

__all__ = [
    "CRITERIA",
    "SLIDES_DICTIONARY",
    "TIE_BREAKS",
    "MergeStep",
    "BPETokenizer",
    "apply_bpe",
    "learn_bpe",
    "pair_counts",
    "split_word",
    "symbol_counts",
]

# The dictionary of Sennrich et al. 2016 Algorithm 1 and of the slides: word -> count.
SLIDES_DICTIONARY = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
CRITERIA = ("frequency", "likelihood")
TIE_BREAKS = ("vocab", "first", "lexicographic")
Pair = tuple[str, str]
Segmentation = dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class MergeStep:
    """One step of the merge loop: ``step`` (1 = first), the merged ``pair`` ("e", "s") and the
    ``merged`` symbol ("es"), the pair's ``count`` and ``score`` (the count, or count(ab) /
    (count(a) count(b))), every pair ``tied`` at that score (the tie-break chose among them),
    all ``pair_counts`` before the merge (first occurrence first), the ``segmentation`` after it.
    """

    step: int
    pair: Pair
    merged: str
    count: int
    score: Fraction
    tied: tuple[Pair, ...]
    pair_counts: dict[Pair, int]
    segmentation: Segmentation


def split_word(word: str, end_of_word: str | None = None, prefix: str | None = None) -> list[str]:
    """A word's initial symbols: its characters (non-initial ones with ``prefix``), then
    ``end_of_word`` if given. ``split_word("low", "</w>")`` -> ['l', 'o', 'w', '</w>'].

    An empty word has no characters: ``split_word("")`` -> [] (then ``end_of_word`` alone).

    Lecture 12; Sennrich et al. 2016 Algorithm 1."""
    check_str("word", word, allow_empty=True)
    _check_marker("end_of_word", end_of_word)
    _check_marker("prefix", prefix)
    symbols = [word[0], *(f"{prefix or ''}{c}" for c in word[1:])] if word else []
    return [*symbols, end_of_word] if end_of_word else symbols


def _check_marker(name: str, value: object) -> None:
    """end_of_word / prefix: None, or a str without white space ("" counts as None)."""
    if value is not None:
        check_str(name, value, allow_empty=True)
        if any(c.isspace() for c in value):
            raise ValueError(f"{name} must not contain white space, got {value!r}")


def _check_segmentation(segmentation: object, word_counts: object) -> None:
    """A mapping word -> symbols whose every word has a count in ``word_counts``."""
    for name, value in (("segmentation", segmentation), ("word_counts", word_counts)):
        check_instance(name, value, Mapping)
    missing = [w for w in segmentation if w not in word_counts]
    if missing:
        raise ValueError(
            f"segmentation has words that word_counts does not count: {missing[:5]} (segment "
            "the words of word_counts)"
        )


def _join(a: str, b: str, prefix: str | None) -> str:
    return a + (b[len(prefix) :] if prefix and b.startswith(prefix) else b)


def pair_counts(segmentation: Mapping[str, Sequence[str]], word_counts: Mapping[str, int]):
    """``Counter``: adjacent pair -> sum over words of occurrences x the word's count, in order
    of first occurrence. Lecture 12; Sennrich et al. 2016 Algorithm 1 (get_stats)."""
    _check_segmentation(segmentation, word_counts)
    counts: Counter[Pair] = Counter()
    for word, symbols in segmentation.items():
        for pair in pairwise(symbols):
            counts[pair] += word_counts[word]
    return counts


def symbol_counts(segmentation: Mapping[str, Sequence[str]], word_counts: Mapping[str, int]):
    """``Counter``: symbol -> how often it occurs over all words (word counts included).
    Lecture 12: count(a) in WordPiece's score count(ab) / (count(a) count(b))."""
    _check_segmentation(segmentation, word_counts)
    counts: Counter[str] = Counter()
    for word, symbols in segmentation.items():
        for symbol in symbols:
            counts[symbol] += word_counts[word]
    return counts


def learn_bpe(
    word_counts: Mapping[str, int],
    num_merges: int,
    *,
    end_of_word: str | None = None,
    prefix: str | None = None,
    criterion: str = "frequency",
    tie_break: str = "vocab",
) -> tuple[list[Pair], list[MergeStep]]:
    """Learn up to ``num_merges`` merges from word counts (the BPE merge loop), deterministically.

    Args:
        word_counts: word -> how often it occurs, e.g. {"low": 5, "lower": 2, ...}.
        num_merges: how many merges to learn; fewer if every word becomes one symbol first.
        end_of_word, prefix, criterion, tie_break: the conventions of the module docstring.

    Returns:
        ``merges``: the merged pairs in the order learned, and ``trace``: one ``MergeStep`` per
        merge (pair counts before it, the segmentation after it).

    Lecture 12; Sennrich et al. 2016 Algorithm 1 (criterion="likelihood": WordPiece's score).
    """
    check_word_counts("word_counts", word_counts)
    check_positive_int("num_merges", num_merges)
    check_choice("criterion", criterion, CRITERIA)
    check_choice("tie_break", tie_break, TIE_BREAKS)
    _check_marker("end_of_word", end_of_word)
    _check_marker("prefix", prefix)
    seg = {word: tuple(split_word(word, end_of_word, prefix)) for word in word_counts}
    rank = {s: i for i, s in enumerate(sorted({s for symbols in seg.values() for s in symbols}))}
    merges: list[Pair] = []
    trace: list[MergeStep] = []
    for step in range(1, num_merges + 1):
        pairs = pair_counts(seg, word_counts)
        if not pairs:
            break
        if criterion == "frequency":
            scores = {pair: Fraction(n) for pair, n in pairs.items()}
        else:
            singles = symbol_counts(seg, word_counts)
            scores = {(a, b): Fraction(n, singles[a] * singles[b]) for (a, b), n in pairs.items()}
        best_score = max(scores.values())
        tied = [pair for pair, score in scores.items() if score == best_score]  # first occurrence
        if tie_break == "vocab":
            best = min(tied, key=lambda pair: (rank[pair[0]], rank[pair[1]]))
        elif tie_break == "lexicographic":
            best = min(tied)
        else:
            best = tied[0]
        merged = _join(*best, prefix)
        rank.setdefault(merged, len(rank))
        seg = {word: tuple(_merge(symbols, best, merged)) for word, symbols in seg.items()}
        merges.append(best)
        trace.append(
            MergeStep(step, best, merged, pairs[best], best_score, tuple(tied), dict(pairs), seg)
        )
    return merges, trace


def _merge(symbols: Sequence[str], pair: Pair, merged: str) -> list[str]:
    """Replace every occurrence of ``pair`` by ``merged``, left to right, without overlaps."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(merged)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def apply_bpe(
    word: str,
    merges: Sequence[Pair],
    *,
    end_of_word: str | None = None,
    prefix: str | None = None,
) -> list[str]:
    """Segment ``word`` by replaying ``merges``: while some adjacent pair was learned, merge the
    pair learned earliest (everywhere in the word). Characters never seen stay single symbols.

    ``apply_bpe("lowest", merges)`` -> ['low', 'est'] with the slides' merges.

    Lecture 12; Sennrich et al. 2016 section 3.2.
    """
    _check_word(word)
    merges = _check_merges(merges)
    ranks = {pair: i for i, pair in reversed(list(enumerate(merges)))}
    return _replay(split_word(word, end_of_word, prefix), ranks, prefix)


def _check_word(word: str) -> None:
    if not isinstance(word, str) or not word or any(c.isspace() for c in word):
        raise ValueError(f"word must be a non-empty string without spaces, got {word!r}")


def _check_merges(merges: object) -> list[Pair]:
    """A list (or tuple) of merges, each a pair of str (what ``learn_bpe`` returns)."""
    if isinstance(merges, (str, bytes, Mapping)) or not isinstance(merges, Sequence):
        raise ValueError(
            f"merges must be a list of (str, str) pairs as learn_bpe returns, got "
            f"{type(merges).__name__} {merges!r:.60}"
        )
    for i, pair in enumerate(merges):
        if (
            isinstance(pair, (str, bytes))
            or not isinstance(pair, Sequence)
            or len(pair) != 2
            or not all(isinstance(s, str) and s for s in pair)
        ):
            raise ValueError(f"merges[{i}] must be a pair of symbols (str, str), got {pair!r}")
    return [tuple(pair) for pair in merges]


def _replay(symbols: list[str], ranks: Mapping[Pair, int], prefix: str | None) -> list[str]:
    """While a learned pair is adjacent somewhere, merge the one of lowest rank everywhere."""
    while len(symbols) > 1:
        best = min(pairwise(symbols), key=lambda pair: ranks.get(pair, len(ranks)))
        if best not in ranks:
            break
        symbols = _merge(symbols, best, _join(*best, prefix))
    return symbols


class BPETokenizer:
    """A BPE tokeniser: an alphabet (the initial symbols) and the merges, in order.

    Text is split into words at white space (no lower-casing); each word is segmented with
    ``apply_bpe``; a character outside the alphabet becomes ``unk_token`` (one per character,
    as in ``tokenizers``' BPE model).

    ``alphabet``: the initial symbols, any non-empty iterable of str (a str is read as its
    characters: ``BPETokenizer("abc", [])``); ``merges``: (str, str) pairs, each of known
    symbols. An empty alphabet is a tokenizer that was never trained: use ``train``.

    Lecture 12; Sennrich et al. 2016.
    """

    def __init__(
        self,
        alphabet: Iterable[str],
        merges: Sequence[Pair],
        *,
        end_of_word: str | None = None,
        unk_token: str = "[UNK]",
    ):
        check_str("unk_token", unk_token)
        _check_marker("end_of_word", end_of_word)
        if isinstance(alphabet, Mapping) or not isinstance(alphabet, Iterable):
            raise ValueError(f"alphabet must be an iterable of str, got {type(alphabet).__name__}")
        symbols = set(alphabet)
        if not symbols:
            raise ValueError(
                "alphabet must not be empty: a tokenizer without symbols was never trained "
                "(build one with BPETokenizer.train(word_counts, num_merges))"
            )
        for symbol in symbols:
            if not isinstance(symbol, str) or not symbol:
                raise ValueError(f"alphabet must hold non-empty str symbols, got {symbol!r}")
        self.alphabet = sorted(symbols)
        self.merges = _check_merges(merges)
        self.end_of_word, self.unk_token = end_of_word, unk_token
        known = set(self.alphabet)
        for i, pair in enumerate(self.merges):
            if len(pair) != 2 or not set(pair) <= known:
                raise ValueError(f"merges[{i}]={pair!r} uses a symbol that is not known before it")
            known.add(_join(*pair, None))
        merged = dict.fromkeys(_join(*pair, None) for pair in self.merges)
        self.vocab = [unk_token, *self.alphabet, *(s for s in merged if s not in self.alphabet)]
        self._known = set(self.vocab)
        self._ranks = {pair: i for i, pair in reversed(list(enumerate(self.merges)))}

    @classmethod
    def train(
        cls,
        word_counts: Mapping[str, int],
        num_merges: int,
        *,
        end_of_word: str | None = None,
        tie_break: str = "vocab",
        unk_token: str = "[UNK]",
    ) -> BPETokenizer:
        """Learn ``num_merges`` merges from word counts (``learn_bpe``, criterion "frequency")."""
        check_word_counts("word_counts", word_counts)
        merges, _ = learn_bpe(word_counts, num_merges, end_of_word=end_of_word, tie_break=tie_break)
        alphabet = {s for word in word_counts for s in split_word(word, end_of_word)}
        return cls(alphabet, merges, end_of_word=end_of_word, unk_token=unk_token)

    def __len__(self) -> int:
        return len(self.vocab)

    def segment(self, word: str) -> list[str]:
        """One word -> its symbols; unknown characters -> ``unk_token``."""
        _check_word(word)
        symbols = _replay(split_word(word, self.end_of_word), self._ranks, None)
        return [s if s in self._known else self.unk_token for s in symbols]

    def tokenize(self, text: str) -> list[str]:
        """Text -> tokens: "the lowest" -> segment("the") + segment("lowest"). An empty text
        gives no tokens."""
        check_str("text", text, allow_empty=True)
        return [token for word in text.split() for token in self.segment(word)]
