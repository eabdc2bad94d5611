"""Lecture 00's measurements: word vectors (one per word) against contextual vectors.

Skip-gram with negative sampling is trained on the story corpus (lecture 08's documents) in a
few seconds; its neighbours and analogies are read off the word vectors. The corpus has a
two-sense word, "teddy" (teddy roosevelt, the president; a teddy bear, the toy): the slides'
"bank" case. Its occurrences are collected with their sense, and a set of vectors (one per
occurrence) is scored by how well it separates the senses: mean cosine within a sense and
across senses, and a leave-one-out nearest-centroid classifier. The vectors come from SGNS (the
same vector every time, by construction), from an ELMo-style bidirectional LSTM LM trained here
(forward, backward or both halves) and from the shipped tiny BERT (any layer).

Public API::

    vocab = word_vocab(sentences)                  # WordVocab: words, index, counts, encode
    sentences = story_sentences(documents)         # every sentence of the documents, in order
    model, history = train_sgns(sentences, vocab, **SGNS)       # SkipGram, training History
    nearest_words(vectors, vocab, "dog", k=5)      # [(word, cosine), ...] most similar first
    a = analogy(vectors, vocab, "man", "woman", "father", target="mother")
    #   a.best (the top word), a.rank (1 = the target came first), a.top
    occ = sense_occurrences(documents, "teddy", TEDDY_SENSES)   # [Occurrence(words, index, sense)]
    s = sense_separation(vectors, senses)          # vectors (N, D), one per occurrence
    #   s.within, s.across (mean cosine), s.accuracy (leave-one-out nearest sense centroid)
    lm, history = train_bilm(sentences, vocab, **BILM)         # BiLM, History
    bilm_vectors(lm, vocab, occ, part="both")      # (N, 2H) ("forward" / "backward": (N, H))
    bilm_nll(lm, vocab, sentences)                 # (forward, backward) mean NLL per word
    bert_vectors(model, tokenizer, occ)            # [(N, D) per layer], layer 0 = embeddings

Lecture 00; Mikolov et al. 2013; Peters et al. 2018 (ELMo); Devlin et al. 2019 (BERT).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from lecturekit.models.recurrent import BiLM, bilm_loss
from lecturekit.models.word2vec import SkipGram, noise_distribution, skipgram_pairs
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_range,
    check_str,
    check_strings,
    check_tensor,
    did_you_mean,
)

__all__ = ["SPECIALS", "SGNS", "BILM", "TEDDY_SENSES", "WordVocab", "word_vocab",
           "story_sentences", "train_sgns", "nearest_words", "Analogy", "analogy", "Occurrence",
           "sense_occurrences", "SenseSeparation", "sense_separation", "train_bilm",
           "bilm_vectors", "bilm_nll", "bert_vectors"]  # fmt: skip

SPECIALS = ("<pad>", "<s>", "</s>")  # ids 0, 1, 2
SGNS = {"dim": 32, "window": 2, "negatives": 5, "batch_size": 2048, "epochs": 1, "lr": 0.02,
        "seed": 0}  # fmt: skip
BILM = {"dim": 32, "hidden": 64, "batch_size": 64, "steps": 200, "lr": 0.01, "seed": 0}
# the two senses of "teddy", told apart by the next word
TEDDY_SENSES = {"president": ("roosevelt",), "toy": ("bear", "bears")}


@dataclass(frozen=True)
class WordVocab:
    """Words (``SPECIALS`` first, then by falling frequency), their ids and corpus counts."""

    words: tuple[str, ...]
    counts: torch.Tensor  # (V,) corpus counts (0 for the specials)
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {w: i for i, w in enumerate(self.words)})

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int:
        """The id of ``word`` (a ValueError with close matches if it is not in the vocabulary)."""
        i = self.index.get(word) if isinstance(word, str) else None
        if i is None:
            check_str("word", word)
            raise ValueError(f"word {word!r} is not in the vocabulary"
                             f"{did_you_mean(word, self.index)}")  # fmt: skip
        return i

    def encode(self, sentence: str | Sequence[str]) -> list[int]:
        """A sentence (a string split at spaces, or a word list) -> word ids."""
        words = sentence.split() if isinstance(sentence, str) else list(sentence)
        return [self.id(w) for w in words]


def story_sentences(documents: Sequence[Sequence[str]]) -> list[str]:
    """Every sentence of ``documents`` (lists of sentences), in order."""
    if isinstance(documents, str) or not isinstance(documents, Sequence):
        raise ValueError(f"documents must be a list of documents (lists of sentences), got "
                         f"{type(documents).__name__}")  # fmt: skip
    return [s for i, d in enumerate(documents) for s in check_strings(f"documents[{i}]", d)]


def word_vocab(sentences: Sequence[str]) -> WordVocab:
    """The vocabulary of ``sentences`` (strings, words separated by spaces): ``SPECIALS``, then
    the words by falling count (ties alphabetical)."""
    sentences = check_strings("sentences", sentences)
    counts = Counter(w for s in sentences for w in s.split())
    if not counts:
        raise ValueError("sentences must contain at least one word, got none")
    words = sorted(counts, key=lambda w: (-counts[w], w))
    return WordVocab((*SPECIALS, *words),
                     torch.tensor([0] * len(SPECIALS) + [counts[w] for w in words]))  # fmt: skip


def _check_vocab(vocab: object) -> WordVocab:
    return check_instance("vocab", vocab, WordVocab)


def train_sgns(
    sentences: Sequence[str],
    vocab: WordVocab,
    *,
    dim: int = 32,
    window: int = 2,
    negatives: int = 5,
    batch_size: int = 2048,
    epochs: int = 1,
    lr: float = 0.02,
    seed: int = 0,
) -> tuple[SkipGram, History]:
    """Train skip-gram with negative sampling on ``sentences`` (Adam, ``lecturekit.training.fit``).

    Pairs come from each sentence separately (a window never crosses a sentence), are shuffled
    every epoch, and each gets ``negatives`` noise words from count^0.75.

    Returns:
        The trained ``SkipGram`` and its ``History`` (``step_loss``: every step's loss).

    Lecture 00; Mikolov et al. 2013b.
    """
    sentences = check_strings("sentences", sentences)
    _check_vocab(vocab)
    for name, value in (("dim", dim), ("window", window), ("negatives", negatives),
                        ("batch_size", batch_size), ("epochs", epochs)):  # fmt: skip
        check_positive_int(name, value)
    check_range("lr", lr, 0, low_open=True)
    pairs = torch.cat([skipgram_pairs(vocab.encode(s), window) for s in sentences])  # (N, 2)
    noise = noise_distribution(vocab.counts.float())
    torch.manual_seed(seed)
    model = SkipGram(len(vocab), dim)

    def batches(epoch: int, g: torch.Generator):
        order = torch.randperm(len(pairs), generator=g)
        for start in range(0, len(pairs), batch_size):
            chosen = pairs[order[start : start + batch_size]]  # (B, 2)
            draws = torch.multinomial(noise, len(chosen) * negatives, replacement=True,
                                      generator=g).view(len(chosen), negatives)  # fmt: skip
            yield chosen[:, 0], chosen[:, 1], draws

    history = fit(model, batches, lambda m, b: m(*b), epochs=epochs, lr=lr, clip=None,
                  seed=seed, progress=False)  # fmt: skip
    return model, history


def _check_vectors(vectors: object, vocab: WordVocab) -> torch.Tensor:
    check_tensor("vectors", vectors, 2, wanted="(V, D)", floating=True)
    if len(vectors) != len(vocab):
        raise ValueError(f"vectors must have one row per word ({len(vocab)}), got "
                         f"{len(vectors)}")  # fmt: skip
    return vectors


def _similarities(vectors: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    return F.cosine_similarity(vectors, query[None, :], dim=-1)  # (V, D), (D,) -> (V,)


def nearest_words(
    vectors: torch.Tensor, vocab: WordVocab, word: str, k: int = 5
) -> list[tuple[str, float]]:
    """The ``k`` words whose vectors have the highest cosine with ``word``'s (itself and the
    specials left out), most similar first.

    Lecture 00.
    """
    _check_vocab(vocab)
    vectors = _check_vectors(vectors, vocab)
    i = vocab.id(word)
    check_positive_int("k", k)
    sims = _similarities(vectors, vectors[i])
    sims[: len(SPECIALS)] = -math.inf
    sims[i] = -math.inf
    top = sims.topk(min(k, len(vocab) - len(SPECIALS) - 1))
    return [
        (vocab.words[j], float(s))
        for s, j in zip(top.values.tolist(), top.indices.tolist(), strict=True)
    ]


@dataclass(frozen=True)
class Analogy:
    """a : b :: c : ?, answered by the word nearest to v_b - v_a + v_c (a, b, c left out)."""

    query: tuple[str, str, str]
    target: str
    best: str
    rank: int  # the target's place among the candidates (1 = first)
    top: tuple[tuple[str, float], ...]


def analogy(
    vectors: torch.Tensor, vocab: WordVocab, a: str, b: str, c: str, *, target: str, k: int = 5
) -> Analogy:
    """Solve a : b :: c : ? by cosine with v_b - v_a + v_c, and report where ``target`` ranks.

    Lecture 00; Mikolov et al. 2013c (linguistic regularities).
    """
    _check_vocab(vocab)
    vectors = _check_vectors(vectors, vocab)
    ids = [vocab.id(w) for w in (a, b, c)]
    t = vocab.id(target)
    check_positive_int("k", k)
    sims = _similarities(vectors, vectors[ids[1]] - vectors[ids[0]] + vectors[ids[2]])
    sims[: len(SPECIALS)] = -math.inf
    sims[ids] = -math.inf
    rank = int((sims > sims[t]).sum()) + 1
    top = sims.topk(k)
    pairs = zip(top.values.tolist(), top.indices.tolist(), strict=True)
    words = tuple((vocab.words[j], float(s)) for s, j in pairs)
    return Analogy((a, b, c), target, words[0][0], rank, words)


@dataclass(frozen=True)
class Occurrence:
    """One use of a word: the sentence's words, the word's position and its sense."""

    words: tuple[str, ...]
    index: int
    sense: str


def sense_occurrences(
    documents: Sequence[Sequence[str]],
    word: str = "teddy",
    senses: Mapping[str, Sequence[str]] | None = None,
) -> list[Occurrence]:
    """Every occurrence of ``word`` in ``documents``, with its sense: the sense whose cue words
    (``senses``: sense -> words, default ``TEDDY_SENSES``) occur in the sentence. An occurrence
    with no cue or cues of two senses is a ValueError (the senses must decide).

    Lecture 00.
    """
    check_str("word", word)
    senses = TEDDY_SENSES if senses is None else senses
    if not isinstance(senses, Mapping) or len(senses) < 2:
        raise ValueError(f"senses must map at least two sense names to cue words, got {senses!r}")
    found = []
    for sentence in story_sentences(documents):
        words = tuple(sentence.split())
        for i, w in enumerate(words):
            if w != word:
                continue
            which = [name for name, cues in senses.items() if set(cues) & set(words)]
            if len(which) != 1:
                raise ValueError(f"the sense of {word!r} in {sentence!r} is not decided by the "
                                 f"cues {dict(senses)}: matches {which}")  # fmt: skip
            found.append(Occurrence(words, i, which[0]))
    return found


@dataclass(frozen=True)
class SenseSeparation:
    """How well one vector per occurrence separates the senses."""

    within: float  # mean cosine between different occurrences of the same sense
    across: float  # mean cosine between occurrences of different senses
    accuracy: float  # leave-one-out nearest-centroid accuracy (a tie counts one half)


def sense_separation(vectors: torch.Tensor, senses: Sequence[str]) -> SenseSeparation:
    """Score vectors (N, D), one per occurrence, against the occurrences' senses (N labels,
    at least two senses, at least two occurrences of each).

    Within / across: mean cosine over pairs of different occurrences. Accuracy: each
    occurrence is given the sense whose centroid (mean of the other occurrences' unit vectors)
    has the highest cosine with it; an exact tie between the best senses counts one half.

    Lecture 00.
    """
    check_tensor("vectors", vectors, 2, wanted="(N, D)", floating=True)
    senses = check_strings("senses", senses)
    if len(senses) != len(vectors):
        raise ValueError(f"senses must have one label per vector ({len(vectors)}), got "
                         f"{len(senses)}")  # fmt: skip
    names = sorted(set(senses))
    label = torch.tensor([names.index(s) for s in senses])
    if len(names) < 2 or min(int((label == k).sum()) for k in range(len(names))) < 2:
        raise ValueError(f"senses must hold at least two senses with two occurrences each, got "
                         f"{dict(Counter(senses))}")  # fmt: skip
    unit = F.normalize(vectors.double(), dim=-1)  # (N, D)
    cos = unit @ unit.T  # (N, N)
    same = label[:, None] == label[None, :]
    other = ~torch.eye(len(unit), dtype=torch.bool)
    within = float(cos[same & other].mean())
    across = float(cos[~same].mean())
    sums = torch.stack([unit[label == k].sum(0) for k in range(len(names))])  # (S, D)
    counts = torch.stack([(label == k).sum() for k in range(len(names))])  # (S,)
    credit = 0.0
    for i in range(len(unit)):
        centroids = (sums - F.one_hot(label[i], len(names)).double()[:, None] * unit[i]) / (
            counts - F.one_hot(label[i], len(names))
        )[:, None]  # (S, D): leave occurrence i out of its own sense
        scores = F.cosine_similarity(centroids, unit[i][None], dim=-1)  # (S,)
        scores = scores.round(decimals=12)  # identical vectors must tie exactly
        best = (scores == scores.max()).nonzero().flatten().tolist()
        credit += (label[i].item() in best) / len(best)
    return SenseSeparation(within, across, credit / len(unit))


def _framed(vocab: WordVocab, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """<s> sentence </s>, padded with <pad> (id 0): ids (B, T) and lengths (B,)."""
    rows = [[1, *vocab.encode(s), 2] for s in sentences]
    T = max(len(r) for r in rows)
    ids = torch.tensor([r + [0] * (T - len(r)) for r in rows])
    return ids, torch.tensor([len(r) for r in rows])


def train_bilm(
    sentences: Sequence[str],
    vocab: WordVocab,
    *,
    dim: int = 32,
    hidden: int = 64,
    batch_size: int = 64,
    steps: int = 200,
    lr: float = 0.01,
    seed: int = 0,
) -> tuple[BiLM, History]:
    """Train an ELMo-style ``BiLM`` on ``sentences`` (each framed as <s> ... </s>): ``steps``
    Adam steps on batches of ``batch_size`` sentences drawn at random, loss = forward NLL +
    backward NLL (``bilm_loss``).

    Returns:
        The trained ``BiLM`` (eval mode) and its ``History``.

    Lecture 00; Peters et al. 2018 section 3.1.
    """
    sentences = check_strings("sentences", sentences)
    _check_vocab(vocab)
    for name, value in (("dim", dim), ("hidden", hidden), ("batch_size", batch_size),
                        ("steps", steps)):  # fmt: skip
        check_positive_int(name, value)
    check_range("lr", lr, 0, low_open=True)
    ids, lengths = _framed(vocab, sentences)
    torch.manual_seed(seed)
    model = BiLM(len(vocab), dim, hidden)

    def batches(epoch: int, g: torch.Generator):
        for _ in range(steps):
            rows = torch.randint(len(ids), (batch_size,), generator=g)
            T = int(lengths[rows].max())
            yield ids[rows, :T], lengths[rows]

    def loss_fn(m: BiLM, batch) -> torch.Tensor:
        fwd, bwd = bilm_loss(m, *batch)
        return fwd + bwd

    history = fit(model, batches, loss_fn, epochs=1, lr=lr, clip=1.0, seed=seed, progress=False)
    return model, history


def _check_occurrences(occurrences: object) -> list[Occurrence]:
    if not isinstance(occurrences, Sequence) or not occurrences:
        raise ValueError(f"occurrences must be a non-empty list of Occurrence, got "
                         f"{type(occurrences).__name__}")  # fmt: skip
    for i, o in enumerate(occurrences):
        check_instance(f"occurrences[{i}]", o, Occurrence)
    return list(occurrences)


@torch.no_grad()
def bilm_vectors(
    model: BiLM, vocab: WordVocab, occurrences: Sequence[Occurrence], part: str = "both"
) -> torch.Tensor:
    """The BiLM's vector at each occurrence (its sentence read alone, framed <s> ... </s>):
    ``part`` "both" (N, 2H) = [forward; backward], "forward" (N, H) (the left context and the
    word), "backward" (N, H) (the word and its right context).

    Lecture 00; Peters et al. 2018.
    """
    check_instance("model", model, BiLM)
    _check_vocab(vocab)
    occurrences = _check_occurrences(occurrences)
    check_choice("part", part, ("both", "forward", "backward"))
    model.eval()
    ids, lengths = _framed(vocab, [" ".join(o.words) for o in occurrences])
    fwd, bwd = model.states(ids, lengths)
    at = torch.tensor([o.index + 1 for o in occurrences])  # +1: the <s> in front
    rows = torch.arange(len(occurrences))
    chosen = {"forward": fwd[rows, at], "backward": bwd[rows, at]}
    if part == "both":
        return torch.cat([chosen["forward"], chosen["backward"]], dim=-1)
    return chosen[part]


@torch.no_grad()
def bilm_nll(model: BiLM, vocab: WordVocab, sentences: Sequence[str]) -> tuple[float, float]:
    """Mean negative log-likelihood per predicted word (nats) of the forward and the backward
    LM on ``sentences``.

    Lecture 00.
    """
    check_instance("model", model, BiLM)
    sentences = check_strings("sentences", sentences)
    model.eval()
    ids, lengths = _framed(vocab, sentences)
    fwd, bwd = bilm_loss(model, ids, lengths)
    return float(fwd), float(bwd)


@torch.no_grad()
def bert_vectors(
    model: torch.nn.Module, tokenizer: object, occurrences: Sequence[Occurrence]
) -> list[torch.Tensor]:
    """A BERT's vector of each occurrence, every layer: the sentence alone as
    ``[CLS] sentence [SEP]``, the vector at the word's token (the word must be one WordPiece
    token). Returns [(N, D)] * (num_layers + 1), index 0 = the embedding layer's output.

    Lecture 00; Devlin et al. 2019.
    """
    from lecturekit.models.bert import BertForPreTraining, BertModel

    if not isinstance(model, (BertForPreTraining, BertModel)):
        raise ValueError(f"model must be a lecturekit BertForPreTraining or BertModel, got "
                         f"{type(model).__name__}")  # fmt: skip
    occurrences = _check_occurrences(occurrences)
    bert = model.bert if isinstance(model, BertForPreTraining) else model
    bert.eval()
    rows, positions = [], []
    for o in occurrences:
        pieces = [tokenizer.tokenize(w) for w in o.words]
        if len(pieces[o.index]) != 1:
            raise ValueError(f"{o.words[o.index]!r} is not one WordPiece token: "
                             f"{pieces[o.index]}")  # fmt: skip
        ids, _ = tokenizer.encode_pair(" ".join(o.words))
        rows.append(ids)
        positions.append(1 + sum(len(p) for p in pieces[: o.index]))  # 1: [CLS]
    T = max(len(r) for r in rows)
    ids = torch.tensor([r + [0] * (T - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (T - len(r)) for r in rows]).bool()
    out = bert(ids, attention_mask=mask)
    index = torch.arange(len(rows))
    return [h[index, torch.tensor(positions)] for h in out.hidden_states]
