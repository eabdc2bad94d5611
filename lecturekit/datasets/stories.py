"""A toy corpus of short "documents" for pre-training a tiny BERT (lecture 08).

Each document follows one of eight scripts (a trip to the store, a pet, flightless birds,
teddy roosevelt, a teddy bear, the weather, a day of errands, sports). Its sentences come in
script order and share the document's characters and objects, so the next sentence is
predictable from the current one: next-sentence prediction (NSP) is learnable, and a random
sentence from another document (NotNext) usually shows it does not belong.

Some sentences have a word that only the RIGHT context determines; the words to its left are
the same whatever the answer, like the slides' "i think teddy [MASK] is a great president" vs
"i think teddy [MASK] make great presents for kids". A left-to-right model cannot fill those
blanks; a bidirectional one can. ``right_context_blanks`` makes fresh examples of them.

The slides' own sentences occur in the corpus: "my dog is cute", "he likes playing",
"the man went to the store", "he bought a gallon of milk", "penguins are flightless birds".

Public API::

    corpus = make_corpus(n_documents=4000, seed=0)   # list of documents, each a list of str
    data = default_data()            # lecture 08's corpus: train/test documents + WordPiece
    blanks = right_context_blanks(n=400, seed=1)     # list of Blank(words, index, answer)
    RIGHT_CONTEXT_FAMILIES                           # family name -> {answer: right context}
    MALE_NAMES, FEMALE_NAMES, PETS, BIRDS            # the world's names, pets and birds

How lecture 14's GPT reads the corpus: ``[CLS] s1 [SEP] s2 [SEP] ... sN [SEP] [CLS]``, one
token (here [CLS]) starting and ending a text as GPT-2's ``<|endoftext|>`` does::

    END_OF_TEXT, SENTENCE_END        # the ids of [CLS] and [SEP]
    ids = story_ids(document, tokenizer)             # one document in that format
    batch = story_batch(documents, tokenizer)        # {"input_ids": (B, T)}, padded with [PAD]

The grammar of the world, exact (lecture 14 asks whether a GPT's samples obey it)::

    all_documents(script=None)   # frozenset of EVERY document (tuple of sentences) a script can
                                 # produce: its random choices enumerated exhaustively (cached)
    document_counts()            # script -> number of distinct documents
    all_sentences()              # frozenset of every sentence of every document
    is_valid_sentence(s)         # one of all_sentences() (whitespace-normalised, lowercased)
    is_valid_document(sentences) # one of all_documents(): names, pronouns, pets consistent
    is_valid_prefix(sentences, partial_last=False)   # the first sentences of a valid document

Lecture 08; Devlin et al. 2019 (BERT) sections 3.1 and A.1.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lecturekit.tokenization import CLS_ID, PAD_ID, SEP_ID, WordPieceTokenizer
from lecturekit.utils.checks import (
    check_bool,
    check_choice,
    check_instance,
    check_positive_int,
    check_seed,
    check_str,
    check_strings,
)

__all__ = [
    "END_OF_TEXT",
    "SENTENCE_END",
    "story_ids",
    "story_batch",
    "SCRIPTS",
    "MALE_NAMES",
    "FEMALE_NAMES",
    "PETS",
    "BIRDS",
    "RIGHT_CONTEXT_FAMILIES",
    "CORPUS",
    "Blank",
    "make_document",
    "make_corpus",
    "PretrainingData",
    "default_data",
    "right_context_blanks",
    "all_documents",
    "document_counts",
    "all_sentences",
    "normalize_sentence",
    "is_valid_sentence",
    "is_valid_document",
    "is_valid_prefix",
]

# lecture 08's corpus: documents for training and held out, the WordPiece vocabulary size
CORPUS = {"n_documents": 4000, "n_test_documents": 400, "vocab_size": 450, "seed": 0}

# the world's first names (lecture 13's tagging task reads them as PER entities)
MALE_NAMES = ("tom", "jack", "sam", "ben", "max", "leo")
FEMALE_NAMES = ("anna", "lucy", "emma", "mia", "sara", "kate")
_MALE, _FEMALE = MALE_NAMES, FEMALE_NAMES

# The right-context families: the blank's left context is shared, the right context decides.
# family -> {answer: words after the blank}
RIGHT_CONTEXT_FAMILIES: dict[str, dict[str, str]] = {
    "teddy": {  # "i think teddy ___ ..."
        "roosevelt": "is a great president",
        "bears": "make great presents for kids",
    },
    "animal": {  # "every morning the ___ ..."
        "dog": "barks at the",
        "cat": "meows at the",
        "bird": "sings to the",
        "duck": "quacks at the",
        "horse": "neighs at the",
    },
    "place": {  # "... went to the ___ ..."
        "store": "to buy some food",
        "library": "to read a book",
        "pool": "to go swimming",
        "park": "to play football",
        "doctor": "because of a cold",
    },
    "clothes": {  # "... wore a ___ ..."
        "coat": "because it was cold",
        "hat": "because it was sunny",
        "raincoat": "because it was raining",
        "scarf": "because it was windy",
    },
}
_WEATHER = {"cold": "coat", "sunny": "hat", "raining": "raincoat", "windy": "scarf"}


@dataclass(frozen=True)
class Blank:
    """A sentence (words) whose word at ``index`` (= answer) only the right context determines."""

    words: tuple[str, ...]
    index: int
    answer: str
    family: str


class _Person:
    """A character: how to name them first, then the pronouns."""

    def __init__(self, rng: random.Random, allow_phrase: bool = True):
        female = rng.random() < 0.5
        options = [rng.choice(_FEMALE if female else _MALE)]
        if allow_phrase:
            options += ["the woman", "my mother"] if female else ["the man", "my father"]
        self.name = rng.choice(options)
        self.he, self.his = ("she", "her") if female else ("he", "his")


def _store(rng: random.Random) -> list[str]:
    p = _Person(rng)
    p.name = "the woman" if p.he == "she" else "the man"
    item, noun, place = rng.choice(
        [
            ("a gallon of milk", "milk", "fridge"),
            ("a gallon of milk", "milk", "fridge"),
            ("a loaf of bread", "bread", "basket"),
            ("a bag of apples", "apples", "bowl"),
            ("a box of eggs", "eggs", "fridge"),
        ]
    )
    return [
        f"{p.name} went to the store",
        f"{p.he} bought {item}",
        f"{p.he} paid for the {noun} at the counter",
        f"then {p.he} walked back home",
        f"at home {p.he} put the {noun} in the {place}",
    ]


PETS = {  # pet: (sound sentence tail, where it sleeps)
    "dog": ("barks at the", "a blanket"),
    "cat": ("meows at the", "the sofa"),
    "bird": ("sings to the", "a small branch"),
    "duck": ("quacks at the", "the grass"),
    "horse": ("neighs at the", "the straw"),
}
_PETS = PETS


def _pet(rng: random.Random) -> list[str]:
    pet = rng.choice(["dog", "dog", "cat", "bird", "duck", "horse"])
    sound, bed = _PETS[pet]
    likes = rng.choice(["playing", "sleeping", "running", "jumping", "eating", "resting"])
    he = rng.choice(["he", "she"])
    other = rng.choice(["cat next door", "children", "sun", "birds"])
    where = rng.choice(["garden", "yard", "park"])
    return [
        f"my {pet} is cute",
        f"{he} likes {likes} in the {where}",
        f"every morning the {pet} {sound} {other}",
        f"at night {he} sleeps on {bed}",
        f"i love my {pet} very much",
    ]


BIRDS = {  # bird: (kind, where they live, how they move, a habit)
    "penguins": (
        "flightless",
        "live in the cold south",
        "swim fast to catch fish",
        "walk in long lines on the ice",
    ),
    "ostriches": (
        "fast",
        "live in hot dry lands",
        "run fast across the sand",
        "lay very big eggs",
    ),
    "eagles": (
        "fearless",
        "live high in the mountains",
        "fly fast to catch mice",
        "build big nests on the rocks",
    ),
    "owls": (
        "fearless",
        "live in old trees",
        "hunt at night for mice",
        "can turn their heads far",
    ),
}
_BIRDS = BIRDS


def _birds(rng: random.Random) -> list[str]:
    bird = rng.choice(sorted(_BIRDS))
    kind, live, move, habit = _BIRDS[bird]
    return [
        f"{bird} are {kind} birds",
        f"they {live}",
        f"they {move}",
        f"they {habit}",
        f"{bird} {'can not take flight' if bird == 'penguins' else 'are good at flight'}",
    ]


def _president(rng: random.Random) -> list[str]:
    loved = rng.choice(["hiking and nature", "hunting and reading", "boxing and riding"])
    return [
        "teddy roosevelt was an american president",
        "he was born in new york",
        f"he loved {loved}",
        f"i think teddy roosevelt {RIGHT_CONTEXT_FAMILIES['teddy']['roosevelt']}",
    ]


def _teddy_bear(rng: random.Random) -> list[str]:
    p = _Person(rng, allow_phrase=False)
    colour = rng.choice(["brown", "white", "yellow"])
    occasion = rng.choice(["birthday", "christmas"])
    return [
        f"{p.name} got a teddy bear for {p.his} {occasion}",
        f"the bear is soft and {colour}",
        f"{p.he} sleeps with it every night",
        f"i think teddy bears {RIGHT_CONTEXT_FAMILIES['teddy']['bears']}",
    ]


def _weather(rng: random.Random) -> list[str]:
    p = _Person(rng, allow_phrase=False)
    weather = rng.choice(sorted(_WEATHER))
    clothes = _WEATHER[weather]
    return [
        f"it was {weather} this morning",
        f"{p.name} looked out of the window",
        f"{p.he} wore a {clothes} {RIGHT_CONTEXT_FAMILIES['clothes'][clothes]}",
        f"then {p.he} walked slowly to school",
        f"at school {p.he} took off the {clothes}",
    ]


def _errands(rng: random.Random) -> list[str]:
    p = _Person(rng)
    first, second = rng.sample(sorted(RIGHT_CONTEXT_FAMILIES["place"]), 2)
    places = RIGHT_CONTEXT_FAMILIES["place"]
    return [
        f"{p.name} had a busy day",
        f"in the morning {p.he} went to the {first} {places[first]}",
        f"after lunch {p.he} went to the {second} {places[second]}",
        f"{p.he} liked the {first} more than the {second}",
        f"in the evening {p.he} was very tired",
    ]


def _sports(rng: random.Random) -> list[str]:
    p = _Person(rng, allow_phrase=False)
    sport = rng.choice(["football", "tennis", "basketball"])
    result = rng.choice([("won", "happy"), ("lost", "sad")])
    return [
        f"{p.name} plays {sport} every weekend",
        f"today {p.he} is training with {p.his} friends",
        f"{p.his} team {result[0]} the game",
        f"after the game {p.he} was {result[1]}",
    ]


_HOBBIES = (
    "paint",
    "walk",
    "jump",
    "cook",
    "clean",
    "climb",
    "fish",
    "help",
    "watch",
    "visit",
    "kick",
    "listen",
    "talk",
    "work",
    "rest",
    "look",
    "wash",
    "call",
    "open",
)


def _hobby(rng: random.Random) -> list[str]:
    p = _Person(rng, allow_phrase=False)
    verb = rng.choice(_HOBBIES)
    where = rng.choice(["garden", "kitchen", "park", "house"])
    return [
        f"{p.name} likes to {verb}",
        f"{p.he} {verb}s every day",
        f"yesterday {p.he} {verb}ed with {p.his} friends",
        f"right now {p.he} is {verb}ing in the {where}",
    ]


SCRIPTS: dict[str, Callable[[random.Random], list[str]]] = {
    "store": _store,
    "pet": _pet,
    "birds": _birds,
    "president": _president,
    "teddy bear": _teddy_bear,
    "weather": _weather,
    "errands": _errands,
    "sports": _sports,
    "hobby": _hobby,
}


def make_document(rng: random.Random, script: str | None = None) -> list[str]:
    """One document: the sentences of a script (a random one unless named), in order.

    ``rng``: a ``random.Random``; ``script``: None or one of ``SCRIPTS``.
    """
    check_instance("rng", rng, random.Random)
    if script is None:
        script = rng.choice(sorted(SCRIPTS))
    check_choice("script", script, sorted(SCRIPTS))
    return SCRIPTS[script](rng)


def make_corpus(n_documents: int = 4000, seed: int = 0) -> list[list[str]]:
    """``n_documents`` documents (lists of lowercase sentences), deterministic for a seed (an
    int >= 0)."""
    check_positive_int("n_documents", n_documents)
    check_seed(seed)
    rng = random.Random(seed)
    return [make_document(rng) for _ in range(n_documents)]


@dataclass(frozen=True)
class PretrainingData:
    """Training and held-out documents (split by document) and the WordPiece tokenizer."""

    train: list[list[str]]
    test: list[list[str]]
    tokenizer: WordPieceTokenizer


@functools.lru_cache(maxsize=1)
def default_data() -> PretrainingData:
    """The corpus every part of lecture 08 uses (``CORPUS``; cached): 4,000 training and 400
    held-out documents, and a 450-entry WordPiece vocabulary learned on the training part.

    Lecture 08.
    """
    n, n_test = CORPUS["n_documents"], CORPUS["n_test_documents"]
    docs = make_corpus(n + n_test, seed=CORPUS["seed"])
    train, test = docs[:n], docs[n:]
    tokenizer = WordPieceTokenizer.train(
        (s for d in train for s in d), vocab_size=CORPUS["vocab_size"]
    )
    return PretrainingData(train, test, tokenizer)


_BLANK_LEFT = {  # family -> the words left of the blank, exactly as the scripts write them
    "teddy": lambda rng: "i think teddy",
    "animal": lambda rng: "every morning the",
    "place": lambda rng: (
        f"{rng.choice(['in the morning', 'after lunch'])} {_Person(rng).he} went to the"
    ),
    "clothes": lambda rng: f"{_Person(rng).he} wore a",
}
_BLANK_RIGHT_TAIL = {  # family -> words completing the right context
    "teddy": lambda rng: "",
    "animal": lambda rng: rng.choice(["cat next door", "children", "sun", "birds"]),
    "place": lambda rng: "",
    "clothes": lambda rng: "",
}


def right_context_blanks(n: int = 400, seed: int = 1) -> list[Blank]:
    """``n`` sentences with a blank that only the words to its right resolve.

    The families cycle (teddy, animal, place, clothes); within a family the answer is uniform,
    so a model that sees only the left context can do no better than guessing among them.
    ``n`` > 0, ``seed`` an int >= 0.
    """
    check_positive_int("n", n)
    check_seed(seed)
    rng = random.Random(seed)
    families = list(RIGHT_CONTEXT_FAMILIES)
    blanks = []
    for i in range(n):
        family = families[i % len(families)]
        answer = rng.choice(sorted(RIGHT_CONTEXT_FAMILIES[family]))
        left = _BLANK_LEFT[family](rng).split()
        right = RIGHT_CONTEXT_FAMILIES[family][answer] + " " + _BLANK_RIGHT_TAIL[family](rng)
        words = (*left, answer, *right.split())
        blanks.append(Blank(words, len(left), answer, family))
    return blanks


# ---------------------------------------------------------------------------------------------
# The grammar: every document the scripts can produce, by enumerating their random choices.


class _ChoiceReplay(random.Random):
    """A ``random.Random`` that makes every random decision from a recorded path of choice
    indices, so that running a script once per path visits every outcome (depth-first).

    ``path`` is a list of ``[index, n_options]``; a decision past its end takes option 0 and is
    appended. ``random()`` is used by the scripts only as ``random() < 0.5``: two outcomes,
    0.25 and 0.75. Any other method (``shuffle``, ``uniform``, ...) reaches ``getrandbits``,
    which refuses, so a new kind of call in a script cannot be missed silently.
    """

    def __init__(self, path: list[list[int]]):
        super().__init__(0)
        self._path = path
        self._depth = 0

    def _pick(self, n: int) -> int:
        if n <= 0:
            raise IndexError("cannot choose from an empty sequence")
        if self._depth == len(self._path):
            self._path.append([0, n])
        index, recorded = self._path[self._depth]
        if recorded != n:  # the scripts are deterministic given their choices
            raise RuntimeError(f"decision {self._depth} had {recorded} options, now {n}")
        self._depth += 1
        return index

    def random(self) -> float:
        return (0.25, 0.75)[self._pick(2)]

    def choice(self, seq: Sequence[object]) -> object:
        return seq[self._pick(len(seq))]

    def sample(
        self, population: Sequence[object], k: int, *, counts: object = None
    ) -> list[object]:
        if counts is not None:
            raise NotImplementedError("sample(counts=...) is not enumerated")
        pool = list(population)
        return [pool.pop(self._pick(len(pool))) for _ in range(k)]

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        values = range(start) if stop is None else range(start, stop, step)
        return values[self._pick(len(values))]

    def getrandbits(self, k: int) -> int:
        raise NotImplementedError("a script used a random method the enumeration does not know")


@functools.lru_cache(maxsize=16)
def _enumerate_documents(script: str | None) -> frozenset[tuple[str, ...]]:
    documents = set()
    path: list[list[int]] = []
    while True:
        rng = _ChoiceReplay(path)
        documents.add(tuple(make_document(rng, script)))
        if rng._depth != len(path):
            raise RuntimeError("a script made fewer decisions on replay than recorded")
        while path and path[-1][0] + 1 == path[-1][1]:  # back up past exhausted decisions
            path.pop()
        if not path:
            return frozenset(documents)
        path[-1][0] += 1


def all_documents(script: str | None = None) -> frozenset[tuple[str, ...]]:
    """Every document (a tuple of sentences) that ``make_document(rng, script)`` can return.

    Not sampled: the script's random choices (``choice``, ``random() < 0.5``, ``sample``,
    ``randrange``) are enumerated exhaustively, depth-first, by replaying recorded choice
    indices through a ``random.Random`` subclass. ``script=None``: the union over all scripts
    (what ``make_corpus`` draws from). Cached.

    Lecture 14 (does a sample obey the toy grammar?).
    """
    if script is not None:
        check_choice("script", script, sorted(SCRIPTS))
    return _enumerate_documents(script)


def document_counts() -> dict[str, int]:
    """Script name -> the number of distinct documents it can produce (``all_documents``).

    Lecture 14.
    """
    return {name: len(all_documents(name)) for name in SCRIPTS}


@functools.lru_cache(maxsize=1)
def all_sentences() -> frozenset[str]:
    """Every sentence of every document the scripts can produce (cached).

    Lecture 14.
    """
    return frozenset(s for document in all_documents() for s in document)


@functools.lru_cache(maxsize=1)
def _continuations() -> dict[tuple[str, ...], frozenset[str]]:
    """Every prefix of every document -> the sentences that can follow it (empty at the end)."""
    following: dict[tuple[str, ...], set[str]] = {}
    for document in all_documents():
        for i in range(len(document) + 1):
            nexts = following.setdefault(document[:i], set())
            if i < len(document):
                nexts.add(document[i])
    return {prefix: frozenset(nexts) for prefix, nexts in following.items()}


def normalize_sentence(sentence: str) -> str:
    """A sentence as the corpus writes it: lowercase, single spaces, no outer whitespace.

    Lecture 14.
    """
    check_str("sentence", sentence, allow_empty=True)
    return " ".join(sentence.lower().split())


def _normalized(name: str, sentences: Sequence[str]) -> tuple[str, ...]:
    check_strings(name, sentences, allow_empty=True)
    return tuple(" ".join(s.lower().split()) for s in sentences)


def is_valid_sentence(sentence: str) -> bool:
    """Whether ``sentence`` (a str; whitespace-normalised and lowercased first) is a sentence
    some document of the story world contains (``all_sentences``).

    Lecture 14.
    """
    return normalize_sentence(sentence) in all_sentences()


def is_valid_document(sentences: Sequence[str]) -> bool:
    """Whether ``sentences`` (a list of str) is, as a whole, one of ``all_documents()``: every
    sentence valid, in script order, with one consistent character (name, pronouns), pet, bird,
    place or weather throughout, and nothing missing or extra.

    Lecture 14.
    """
    return _normalized("sentences", sentences) in all_documents()


def is_valid_prefix(sentences: Sequence[str], *, partial_last: bool = False) -> bool:
    """Whether ``sentences`` (a list of str) are the first sentences of some valid document
    (a whole document counts; so does the empty list), e.g. a sample cut off by a length limit.

    ``partial_last=True``: the last string may also be cut off mid-sentence; it must then be
    the first words (whole words) of a sentence that can follow the ones before it.

    Lecture 14.
    """
    check_bool("partial_last", partial_last)
    normalized = _normalized("sentences", sentences)
    continuations = _continuations()
    if not partial_last or not normalized:
        return normalized in continuations
    *complete, last = normalized
    nexts = continuations.get(tuple(complete))
    if nexts is None:
        return False
    words = last.split()
    return any(s.split()[: len(words)] == words for s in nexts)


# ----------------------------------------------------------- the story GPT's format (lecture 14)
END_OF_TEXT = CLS_ID  # starts and ends a text, like GPT-2's <|endoftext|>
SENTENCE_END = SEP_ID


def story_ids(document: Sequence[str], tokenizer: WordPieceTokenizer) -> list[int]:
    """``[CLS] s1 [SEP] ... sN [SEP] [CLS]``: one document as the GPT is trained on it.

    Lecture 14 (GPT-2's ``<|endoftext|>`` convention).
    """
    sentences = check_strings("document", document)
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    ids = [END_OF_TEXT]
    for sentence in sentences:
        ids += [*tokenizer.encode(sentence), SENTENCE_END]
    return [*ids, END_OF_TEXT]


def story_batch(documents: Sequence[Sequence[str]], tokenizer: WordPieceTokenizer) -> dict:
    """``{"input_ids": (B, T)}``: each document as ``story_ids`` writes it, padded at the end
    with [PAD] (a causal model never attends to later padding, so no mask is needed).

    Lecture 14.
    """
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    if not isinstance(documents, Sequence) or not documents:
        raise ValueError("documents must be a non-empty list of documents (lists of str)")
    rows = [story_ids(check_strings(f"documents[{i}]", d), tokenizer)
            for i, d in enumerate(documents)]  # fmt: skip
    T = max(map(len, rows))
    return {"input_ids": torch.tensor([r + [PAD_ID] * (T - len(r)) for r in rows])}
