"""A toy English -> French-like translation task that shows what attention fixes.

The language: determiners, nouns with grammatical gender, adjectives, transitive verbs,
subject relative clauses ("that" -> "qui") and conjunctions ("and" / "but" -> "et" / "mais").
French-like rules:

* adjectives follow the noun, in mirrored order, like Bahdanau et al.'s
  "European Economic Area" -> "zone économique européenne":
  "the old black cats" -> "les chats noirs anciens";
* determiners and adjectives agree with the noun in gender and number
  ("the black car" -> "la voiture noire"), verbs with their subject ("the dogs see" -> "voient").

Sentences run from 5 to about 50 tokens; source and target have the same length, and the true
alignment (which source word each target word translates) is recorded, so attention heatmaps
can be checked against it.

Public API::

    data = default_data()                   # the splits every lecture uses (seed 0, cached)
    data = make_translation_data(n_train=20000, n_valid=500, n_test=1000, seed=0)
    data.train / data.valid / data.test     # lists of Pair(src, tgt, align)
    data.src_vocab, data.tgt_vocab          # Vocab: encode(words) -> ids, decode(ids) -> words
    #   unknown words encode to <unk> (UNK = 3); decode rejects ids outside the vocabulary
    sample_pair(rng, n_clauses=2)           # one Pair from a random.Random
    batch = collate(pairs, src_vocab, tgt_vocab)   # padded tensors, see Batch
    batches(pairs, src_vocab, tgt_vocab, batch_size, generator=None)   # iterator of Batch

Lecture 01 (the bottleneck), 02 (scoring functions), 07 (beam search).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch

from lecturekit.utils.checks import (
    as_token_ids,
    check_bool,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_seed,
    check_strings,
)

__all__ = [
    "PAD",
    "BOS",
    "EOS",
    "UNK",
    "SPECIALS",
    "Vocab",
    "Pair",
    "TranslationData",
    "Batch",
    "sample_pair",
    "make_translation_data",
    "default_data",
    "collate",
    "batches",
]

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")

# english singular: (english plural, french singular, french plural, gender)
NOUNS = {
    "cat": ("cats", "chat", "chats", "m"),
    "dog": ("dogs", "chien", "chiens", "m"),
    "bird": ("birds", "oiseau", "oiseaux", "m"),
    "man": ("men", "homme", "hommes", "m"),
    "tree": ("trees", "arbre", "arbres", "m"),
    "car": ("cars", "voiture", "voitures", "f"),
    "house": ("houses", "maison", "maisons", "f"),
    "woman": ("women", "femme", "femmes", "f"),
    "area": ("areas", "zone", "zones", "f"),
    "flower": ("flowers", "fleur", "fleurs", "f"),
}
# english: (m. sing, f. sing, m. plural, f. plural)
ADJECTIVES = {
    "black": ("noir", "noire", "noirs", "noires"),
    "small": ("petit", "petite", "petits", "petites"),
    "green": ("vert", "verte", "verts", "vertes"),
    "red": ("rouge", "rouge", "rouges", "rouges"),
    "old": ("ancien", "ancienne", "anciens", "anciennes"),
    "happy": ("heureux", "heureuse", "heureux", "heureuses"),
    "european": ("européen", "européenne", "européens", "européennes"),
    "economic": ("économique", "économique", "économiques", "économiques"),
}
# english 3rd singular: (english plural, french singular, french plural)
VERBS = {
    "sees": ("see", "voit", "voient"),
    "likes": ("like", "aime", "aiment"),
    "follows": ("follow", "suit", "suivent"),
    "finds": ("find", "trouve", "trouvent"),
}
CONJUNCTIONS = {"and": "et", "but": "mais"}
# the word lists in the order the sampler draws from (sorted once, not at every draw)
_NOUN_LIST, _ADJECTIVE_LIST = tuple(sorted(NOUNS)), tuple(sorted(ADJECTIVES))
_VERB_LIST, _CONJUNCTION_LIST = tuple(sorted(VERBS)), tuple(sorted(CONJUNCTIONS))
_N_ADJ, _N_ADJ_CUMULATIVE = [0, 1, 2], [0.35, 0.35 + 0.4, 0.35 + 0.4 + 0.25]  # weights .35 .4 .25
_ARTICLES = {("the", "m"): "le", ("the", "f"): "la", ("a", "m"): "un", ("a", "f"): "une"}


@dataclass(frozen=True)
class Pair:
    """One sentence pair. ``align[j]`` is the index of the source word that target word j
    translates (every target word has exactly one source word here)."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]
    align: tuple[int, ...]


class Vocab:
    """Word <-> id, with <pad>=0, <bos>=1, <eos>=2, <unk>=3 first.

    ``words``: a list of str (duplicates and the special tokens are dropped).
    """

    def __init__(self, words: Sequence[str]):
        words = check_strings("words", words, allow_empty=True)
        self.itos = list(SPECIALS) + sorted(set(words) - set(SPECIALS))
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, words: Sequence[str]) -> list[int]:
        """words (a list of str) -> ids; a word not in the vocabulary gets <unk> (``UNK``)."""
        words = check_strings("words", words, allow_empty=True)
        return [self.stoi.get(w, UNK) for w in words]

    def decode(self, ids: Sequence[int] | torch.Tensor, strip: bool = True) -> list[str]:
        """ids (a list of ints or a 1-D integer tensor, each in 0..len(self)-1) -> words;
        ``strip`` drops <bos>/<pad> and stops at <eos>. An id outside the vocabulary (e.g. a
        target id decoded with the source vocabulary) raises a ValueError."""
        check_bool("strip", strip)
        words = []
        for i in as_token_ids("ids", ids, len(self.itos), allow_empty=True).tolist():
            if strip and i == EOS:
                break
            if strip and i in (PAD, BOS):
                continue
            words.append(self.itos[i])
        return words


def _noun_phrase(rng: random.Random, depth: int) -> tuple[list[str], list[str], list[int], bool]:
    """(english, french, align (french -> english index, local), plural)."""
    noun = rng.choice(_NOUN_LIST)
    eng_pl, fr_sg, fr_pl, gender = NOUNS[noun]
    plural = rng.random() < 0.4
    n_adj = rng.choices(_N_ADJ, cum_weights=_N_ADJ_CUMULATIVE)[0]
    adjs = rng.sample(_ADJECTIVE_LIST, n_adj)
    if plural:
        det_en, det_fr = rng.choice([("the", "les"), ("some", "des")])
    else:
        det_en = rng.choice(["the", "a"])
        det_fr = _ARTICLES[det_en, gender]
    form = (0 if gender == "m" else 1) + (2 if plural else 0)
    en = [det_en, *adjs, eng_pl if plural else noun]
    # french: det noun adj_k .. adj_1 (mirrored adjective order)
    fr = [det_fr, fr_pl if plural else fr_sg, *(ADJECTIVES[a][form] for a in reversed(adjs))]
    align = [0, len(en) - 1, *(n_adj - k for k in range(n_adj))]
    if depth > 0 and rng.random() < 0.3:  # relative clause: "that sees the dog" -> "qui voit .."
        v_en, v_fr, o_en, o_fr, o_align = _verb_phrase(rng, plural, depth - 1)
        offset = len(en)
        en += ["that", v_en, *o_en]
        fr += ["qui", v_fr, *o_fr]
        align += [offset, offset + 1, *(offset + 2 + a for a in o_align)]
    return en, fr, align, plural


def _verb_phrase(rng: random.Random, plural: bool, depth: int):
    verb = rng.choice(_VERB_LIST)
    eng_pl, fr_sg, fr_pl = VERBS[verb]
    obj_en, obj_fr, obj_align, _ = _noun_phrase(rng, depth)
    return eng_pl if plural else verb, fr_pl if plural else fr_sg, obj_en, obj_fr, obj_align


def sample_pair(rng: random.Random, n_clauses: int = 1, depth: int = 1) -> Pair:
    """One random sentence pair with ``n_clauses`` clauses joined by "and" / "but".

    ``rng``: a ``random.Random``; ``n_clauses`` > 0; ``depth`` >= 0 (how deep relative
    clauses may nest).

    Lecture 01.
    """
    check_instance("rng", rng, random.Random)
    check_positive_int("n_clauses", n_clauses)
    check_non_negative_int("depth", depth)
    en: list[str] = []
    fr: list[str] = []
    align: list[int] = []
    for c in range(n_clauses):
        if c:
            conj = rng.choice(_CONJUNCTION_LIST)
            align.append(len(en))
            en.append(conj)
            fr.append(CONJUNCTIONS[conj])
        s_en, s_fr, s_align, plural = _noun_phrase(rng, depth)
        v_en, v_fr, o_en, o_fr, o_align = _verb_phrase(rng, plural, depth)
        base = len(en)
        en += [*s_en, v_en, *o_en]
        fr += [*s_fr, v_fr, *o_fr]
        v_pos = base + len(s_en)
        align += [base + a for a in s_align] + [v_pos] + [v_pos + 1 + a for a in o_align]
    return Pair(tuple(en), tuple(fr), tuple(align))


@dataclass(frozen=True)
class TranslationData:
    """Disjoint train / valid / test splits and the two vocabularies."""

    train: list[Pair]
    valid: list[Pair]
    test: list[Pair]
    src_vocab: Vocab
    tgt_vocab: Vocab


def make_translation_data(
    n_train: int = 20000,
    n_valid: int = 500,
    n_test: int = 1000,
    seed: int = 0,
    max_clauses: int = 4,
) -> TranslationData:
    """Deterministic splits (no source sentence appears twice across splits). Sentences have
    1..max_clauses clauses, uniformly, so long sentences (>= 30 tokens) are well represented.

    Lecture 01.
    """
    for name, n in (("n_train", n_train), ("n_valid", n_valid), ("n_test", n_test)):
        check_positive_int(name, n)
    check_seed(seed)
    check_positive_int("max_clauses", max_clauses)
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    pairs: list[Pair] = []
    total = n_train + n_valid + n_test
    while len(pairs) < total:
        pair = sample_pair(rng, n_clauses=rng.randint(1, max_clauses))
        if pair.src not in seen:
            seen.add(pair.src)
            pairs.append(pair)
    src_words = {w for n in NOUNS for w in (n, NOUNS[n][0])} | set(ADJECTIVES) | set(VERBS)
    src_words |= {VERBS[v][0] for v in VERBS} | set(CONJUNCTIONS) | {"the", "a", "some", "that"}
    tgt_words = {w for v in NOUNS.values() for w in v[1:3]} | {
        w for v in ADJECTIVES.values() for w in v
    }
    tgt_words |= {w for v in VERBS.values() for w in v[1:]} | set(CONJUNCTIONS.values())
    tgt_words |= {"le", "la", "les", "un", "une", "des", "qui"}
    return TranslationData(
        train=pairs[:n_train],
        valid=pairs[n_train : n_train + n_valid],
        test=pairs[n_train + n_valid :],
        src_vocab=Vocab(sorted(src_words)),
        tgt_vocab=Vocab(sorted(tgt_words)),
    )


@functools.lru_cache(maxsize=1)
def default_data() -> TranslationData:
    """The splits every lecture uses (20,000 / 500 / 1,000 pairs, seed 0; about 2 s to make,
    then cached): the shipped models were trained and measured on them.

    Lectures 01, 02, 07 and 10.
    """
    return make_translation_data(n_train=20000, n_valid=500, n_test=1000, seed=0)


@dataclass(frozen=True)
class Batch:
    """Padded tensors for a batch of B pairs.

    src (B, S) with lengths src_len (B,); tgt_in (B, T) = <bos> y_1 .. y_n (teacher forcing);
    tgt_out (B, T) = y_1 .. y_n <eos> (what the decoder must predict); padding = PAD.
    """

    src: torch.Tensor
    src_len: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor


def collate(pairs: Sequence[Pair], src_vocab: Vocab, tgt_vocab: Vocab) -> Batch:
    """Encode and right-pad a non-empty list of pairs.

    Lecture 01.
    """
    _check_pairs(pairs, src_vocab, tgt_vocab)
    if not pairs:
        raise ValueError("pairs must not be empty")
    B = len(pairs)
    S = max(len(p.src) for p in pairs)
    T = max(len(p.tgt) for p in pairs) + 1
    src = torch.full((B, S), PAD, dtype=torch.long)
    tgt_in = torch.full((B, T), PAD, dtype=torch.long)
    tgt_out = torch.full((B, T), PAD, dtype=torch.long)
    for b, p in enumerate(pairs):
        s, t = src_vocab.encode(p.src), tgt_vocab.encode(p.tgt)
        src[b, : len(s)] = torch.tensor(s)
        tgt_in[b, : len(t) + 1] = torch.tensor([BOS, *t])
        tgt_out[b, : len(t) + 1] = torch.tensor([*t, EOS])
    src_len = torch.tensor([len(p.src) for p in pairs])
    return Batch(src, src_len, tgt_in, tgt_out)


def _check_pairs(pairs: object, src_vocab: object, tgt_vocab: object) -> None:
    """A list of Pair and two Vocabs."""
    if isinstance(pairs, Pair) or not isinstance(pairs, Sequence):
        raise ValueError(f"pairs must be a list of Pair, got {type(pairs).__name__}")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, Pair):
            raise ValueError(f"pairs[{i}] must be a Pair, got {type(pair).__name__} {pair!r:.60}")
    check_instance("src_vocab", src_vocab, Vocab)
    check_instance("tgt_vocab", tgt_vocab, Vocab)


def batches(
    pairs: Sequence[Pair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    batch_size: int,
    generator: torch.Generator | None = None,
    bucket: int = 50,
) -> Iterator[Batch]:
    """Mini-batches in a random order drawn from ``generator`` (in order when None).

    With a generator, sentences of similar length are batched together (within random pools
    of ``bucket`` batches), so little compute is spent on padding. No pairs give no batches.

    Lecture 01.
    """
    check_positive_int("batch_size", batch_size)
    check_positive_int("bucket", bucket)
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    _check_pairs(pairs, src_vocab, tgt_vocab)
    return _batches(pairs, src_vocab, tgt_vocab, batch_size, generator, bucket)  # checked now


def _batches(
    pairs: Sequence[Pair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    batch_size: int,
    generator: torch.Generator | None,
    bucket: int,
) -> Iterator[Batch]:
    if generator is None:
        for i in range(0, len(pairs), batch_size):
            yield collate(pairs[i : i + batch_size], src_vocab, tgt_vocab)
        return
    idx = torch.randperm(len(pairs), generator=generator).tolist()
    pool = batch_size * bucket
    chunks = []
    for i in range(0, len(idx), pool):
        ordered = sorted(idx[i : i + pool], key=lambda j: len(pairs[j].src))  # stable sort
        chunks += [ordered[k : k + batch_size] for k in range(0, len(ordered), batch_size)]
    for c in torch.randperm(len(chunks), generator=generator).tolist():
        yield collate([pairs[j] for j in chunks[c]], src_vocab, tgt_vocab)
