"""WordPiece tokenisation as BERT uses it, trained offline on a corpus ("playing" -> "play ##ing").

lecturekit learns the vocabulary itself (``learn_wordpiece``: deterministic, a fraction of a
second on the toy corpus) and tokenises with the Hugging Face ``tokenizers`` WordPiece model,
the same greedy longest-match-first algorithm as BERT's tokenizer. The vocabulary is a plain
list, so it travels inside a checkpoint.

Public API::

    tok = WordPieceTokenizer.train(sentences, vocab_size=400)
    vocab = learn_wordpiece(word_counts, vocab_size)   # the merge loop, deterministic
    tok = WordPieceTokenizer(vocab)             # vocab: list of str; starts with SPECIAL_TOKENS
    tok.tokenize("he likes playing")            # ['he', 'likes', 'play', '##ing']
    tok.encode("he likes playing")              # list of ids (no [CLS]/[SEP])
    ids, segments = tok.encode_pair(a, b)       # [CLS] a [SEP] b [SEP] and 0/1 segment ids
    tok.decode(ids)                             # back to words, ## pieces joined
    tok.convert_ids_to_tokens(ids), tok.convert_tokens_to_ids(tokens), len(tok), tok.vocab
    #   ids: a list (any iterable) of ints or a 1-D integer tensor, each in 0..len(tok)-1;
    #   unknown tokens -> [UNK]'s id; empty text -> no ids
    train_hf_wordpiece(word_counts, vocab_size)  # tokenizers' WordPieceTrainer, made deterministic
    train_hf_bpe(word_counts, num_merges)       # the merges tokenizers' BpeTrainer learns
    count_words(sentences)                      # Counter of pre-tokenised words

Lecture 08; Devlin et al. 2019 section 3 (WordPiece, Wu et al. 2016).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

from lecturekit.utils.checks import (
    as_token_ids,
    check_bool,
    check_positive_int,
    check_str,
    check_strings,
    check_word_counts,
)

__all__ = [
    "SPECIAL_TOKENS",
    "PAD_ID",
    "UNK_ID",
    "CLS_ID",
    "SEP_ID",
    "MASK_ID",
    "learn_wordpiece",
    "WordPieceTokenizer",
    "count_words",
    "train_hf_bpe",
    "train_hf_wordpiece",
]

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = range(len(SPECIAL_TOKENS))


_PUNCTUATION = ".,;:!?'\"()-"


def _pre_tokenize(text: str) -> list[str]:
    """Lower-case, split on white space, and make each punctuation mark its own word (as BERT)."""
    for mark in _PUNCTUATION:
        text = text.replace(mark, f" {mark} ")
    return text.lower().split()


def count_words(sentences: Iterable[str]) -> Counter[str]:
    """Word counts after BERT-style pre-tokenisation (lower case, punctuation split off).

    ``sentences``: any iterable of str (a list, a generator); a bare str is rejected (its
    characters would be counted as sentences). No sentences, or only empty ones, give an empty
    Counter.
    """
    if isinstance(sentences, str) or not isinstance(sentences, Iterable):
        check_strings("sentences", sentences)  # raises, naming what to pass
    counts: Counter[str] = Counter()
    for i, sentence in enumerate(sentences):
        if not isinstance(sentence, str):
            raise ValueError(
                f"sentences[{i}] must be a string, got {type(sentence).__name__} {sentence!r}"
            )
        counts.update(_pre_tokenize(sentence))
    return counts


def learn_wordpiece(word_counts: Mapping[str, int], vocab_size: int) -> list[str]:
    """Learn a WordPiece vocabulary from word frequencies, deterministically.

    Start from single characters (a word's first character as is, the others as "##c") plus
    the punctuation marks; then repeatedly merge the most frequent adjacent pair of pieces
    into one new piece ("play" + "##ing" -> "playing"), ties going to the alphabetically first
    pair, until the vocabulary has ``vocab_size`` entries or nothing is left to merge.
    (This is the frequency criterion of the Hugging Face ``tokenizers`` WordPiece trainer; its
    own implementation breaks ties differently from run to run, so lecturekit keeps its own.)

    ``word_counts``: a non-empty mapping word -> count > 0 (``count_words`` makes one), as
    ``bpe.learn_bpe``'s. ``vocab_size`` must hold at least the special tokens and the alphabet
    (every character piece and punctuation mark), so that every word can be spelled.

    Lecture 08; Sennrich et al. 2016 (the merge loop), Wu et al. 2016 (## pieces).
    """
    check_word_counts("word_counts", word_counts)
    check_positive_int("vocab_size", vocab_size)
    if vocab_size <= len(SPECIAL_TOKENS):
        raise ValueError(f"vocab_size={vocab_size} must exceed {len(SPECIAL_TOKENS)}")
    words = {w: [w[0], *(f"##{c}" for c in w[1:])] for w in sorted(word_counts)}
    alphabet = set(_PUNCTUATION) | {piece for pieces in words.values() for piece in pieces}
    vocab = [*SPECIAL_TOKENS, *sorted(alphabet)]
    if vocab_size < len(vocab):
        raise ValueError(
            f"vocab_size={vocab_size} is smaller than the {len(SPECIAL_TOKENS)} special tokens "
            f"+ the alphabet of {len(alphabet)} pieces (characters and punctuation): need at "
            f"least {len(vocab)} to spell every word"
        )
    while len(vocab) < vocab_size:
        pairs: Counter[tuple[str, str]] = Counter()
        for word, pieces in words.items():
            for pair in pairwise(pieces):
                pairs[pair] += word_counts[word]
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        merged = best[0] + best[1][2:]
        vocab.append(merged)
        for pieces in words.values():
            i = 0
            while i < len(pieces) - 1:
                if (pieces[i], pieces[i + 1]) == best:
                    pieces[i : i + 2] = [merged]
                i += 1
    return vocab[:vocab_size]


class WordPieceTokenizer:
    """Lower-casing, punctuation-splitting, greedy longest-match-first WordPiece tokeniser.

    Lecture 08; Devlin et al. 2019 section 3.
    """

    def __init__(self, vocab: Sequence[str]):
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

        vocab = check_strings("vocab", vocab)
        if tuple(vocab[: len(SPECIAL_TOKENS)]) != SPECIAL_TOKENS:
            raise ValueError(
                f"vocab must start with {list(SPECIAL_TOKENS)}, got {vocab[: len(SPECIAL_TOKENS)]}"
            )
        if len(set(vocab)) != len(vocab):
            raise ValueError("vocab has duplicate entries")
        self.vocab = vocab
        self._ids = {token: i for i, token in enumerate(vocab)}
        tok = Tokenizer(models.WordPiece(self._ids, unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.add_special_tokens(list(SPECIAL_TOKENS))  # "[MASK]" in a text stays one token
        self._tok = tok

    @classmethod
    def train(cls, sentences: Iterable[str], vocab_size: int = 400) -> WordPieceTokenizer:
        """Learn a WordPiece vocabulary of ``vocab_size`` entries (special tokens included)
        from ``sentences`` (any iterable of str, as ``count_words``).

        Deterministic: see ``learn_wordpiece``.
        """
        counts = count_words(sentences)
        if not counts:
            raise ValueError("sentences must hold at least one word, got none")
        return cls(learn_wordpiece(counts, vocab_size))

    def __len__(self) -> int:
        return len(self.vocab)

    def tokenize(self, text: str) -> list[str]:
        """Words -> WordPiece tokens, e.g. "he likes playing" -> he likes play ##ing.
        An empty text gives no tokens."""
        check_str("text", text, allow_empty=True)
        return self._tok.encode(text, add_special_tokens=False).tokens

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no [CLS]/[SEP]); an empty text gives no ids."""
        check_str("text", text, allow_empty=True)
        return self._tok.encode(text, add_special_tokens=False).ids

    def convert_tokens_to_ids(self, tokens: Sequence[str]) -> list[int]:
        """Tokens -> ids; a token not in the vocabulary gets [UNK]'s id (``UNK_ID``)."""
        tokens = check_strings("tokens", tokens, allow_empty=True)
        return [self._ids.get(t, UNK_ID) for t in tokens]

    def convert_ids_to_tokens(self, ids: Iterable[int]) -> list[str]:
        """Ids (a list of ints or a 1-D integer tensor, each in 0..len(self)-1) -> tokens."""
        ids = as_token_ids("ids", ids, len(self.vocab), allow_empty=True)
        return [self.vocab[i] for i in ids.tolist()]

    def encode_pair(self, a: str, b: str | None = None) -> tuple[list[int], list[int]]:
        """``[CLS] a [SEP]`` or ``[CLS] a [SEP] b [SEP]``, with segment ids 0 for A, 1 for B."""
        check_str("a", a, allow_empty=True)
        if b is not None:
            check_str("b", b, allow_empty=True)
        ids_a = [CLS_ID, *self.encode(a), SEP_ID]
        if b is None:
            return ids_a, [0] * len(ids_a)
        ids_b = [*self.encode(b), SEP_ID]
        return ids_a + ids_b, [0] * len(ids_a) + [1] * len(ids_b)

    def decode(self, ids: Iterable[int], skip_special: bool = True) -> str:
        """Ids -> text, joining "##" continuation pieces to the word before them (ids as
        ``convert_ids_to_tokens``; ``skip_special`` drops [PAD], [CLS], ...)."""
        check_bool("skip_special", skip_special)
        tokens = self.convert_ids_to_tokens(ids)
        if skip_special:
            tokens = [t for t in tokens if t not in SPECIAL_TOKENS]
        return " ".join(tokens).replace(" ##", "")


def train_hf_wordpiece(
    word_counts: Mapping[str, int], vocab_size: int, *, pin_ids: bool = True
) -> list[str]:
    """The vocabulary Hugging Face ``tokenizers``' WordPieceTrainer learns from word counts,
    ordered by id and starting with ``SPECIAL_TOKENS`` (so ``WordPieceTokenizer(vocab)`` works).

    The trainer merges the most frequent pair (it is BPE training with the "##" prefix) and
    breaks ties by the smaller pair of ids; it numbers the "##c" pieces in hash-map order, which
    changes from run to run, and so do its tie-breaks. ``pin_ids=True`` (default) gives those
    pieces fixed, sorted ids first (as extra special tokens during training), which makes the
    result deterministic; ``pin_ids=False`` shows the library's own behaviour.

    Lecture 12; Wu et al. 2016, Devlin et al. 2019 section 3.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    check_word_counts("word_counts", word_counts)
    check_positive_int("vocab_size", vocab_size)
    check_bool("pin_ids", pin_ids)
    pinned = sorted({f"##{c}" for word in word_counts for c in word[1:]}) if pin_ids else []
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=[*SPECIAL_TOKENS, *pinned], show_progress=False
    )
    tok.train_from_iterator((" ".join([w] * n) for w, n in word_counts.items()), trainer)
    vocab = tok.get_vocab(with_added_tokens=False)
    return sorted(vocab, key=vocab.get)


def train_hf_bpe(word_counts: Mapping[str, int], num_merges: int) -> list[tuple[str, str]]:
    """The merges that Hugging Face ``tokenizers``' BpeTrainer learns from the same word counts
    (no end-of-word symbol, no prefix): the reference for ``bpe.learn_bpe(..., tie_break="vocab")``.

    Offline: the trainer runs locally on the words, each repeated as often as it is counted.

    Lecture 12; Sennrich et al. 2016.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    check_word_counts("word_counts", word_counts)
    check_positive_int("num_merges", num_merges)
    alphabet = {c for word in word_counts for c in word}
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=len(alphabet) + num_merges, show_progress=False)
    tok.train_from_iterator((" ".join([w] * n) for w, n in word_counts.items()), trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]
    return pairs[:num_merges]
