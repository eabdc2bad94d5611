"""Four toy fine-tuning tasks from the story world and their encodings (lecture 13).

BERT's paper fine-tunes one pre-trained model on four kinds of task: single-sentence
classification (GLUE's SST-2), sentence-pair classification (MNLI), span question answering
(SQuAD) and token tagging (CoNLL NER). These are the same four kinds, made from the story
corpus the tiny BERT of lecture 08 was pre-trained on (``lecturekit.datasets.stories``: its
document generators write every input, so the text is the corpus's own language):

* ``topic`` (kind "sequence"): a sentence -> which of the nine story scripts it comes from;
* ``nli`` (kind "pair"): premise + hypothesis -> entailment / neutral / contradiction, the
  label MEASURED in the world (how often stories that say the premise also say the hypothesis);
* ``qa`` (kind "span"): a question + a story -> the span of the story that answers it;
* ``tagging`` (kind "token"): a sentence -> a BIO tag per word (PER, LOC, ANIMAL).

Each task's DISTINCT inputs are partitioned between train, dev and test by a seeded shuffle
(``qa``: its stories), so no dev or test input occurs in train. ``train`` is a pool of 4,050
examples drawn from the train inputs (with repeats where the world has fewer distinct inputs,
as a corpus repeats its frequent sentences); experiments take ``task.subset(n, seed)``.

``tagging`` also holds out entity WORDS, because pre-training helps most on words the labelled
set never shows: a seeded third of each type's entity words (names, places, animals) is
"unseen", in no train sentence; dev and test mix sentences with unseen and with seen entities
(with seed 0, 89 of the 167 test entities are unseen). ``task.info["unseen_words"]`` lists
them, ``lecturekit.experiments.metrics.entity_f1_by_seen`` scores the two kinds apart.
Without it every test entity would also be in train, and a model trained from scratch would
tag as well as the pre-trained one.

Public API::

    tasks = default_tasks()                  # {"topic", "nli", "qa", "tagging"} -> Task (seed 0,
                                             # cached); make_tasks(seed) builds them for any seed
    task = make_topic_task(seed=0)           # also make_nli_task, make_qa_task, make_tagging_task
    task.name, task.kind, task.labels        # kind: "sequence" | "pair" | "span" | "token"
    task.train, task.dev, task.test          # tuples of examples (below)
    task.subset(n, seed=0)                   # n train examples, stratified (labels / scripts as
                                             # even as possible), nested in n for one seed
    task.counts("test")                      # label (or script) -> number of examples
    task.stratum(example)                    # what subset balances: label or script
    task.info                                # dict; tagging: {"unseen_words", "seen_words"},
                                             # each entity type -> words
    SentenceExample(text, label)             # topic; words = text.split(); every label is a
                                             # NAME in task.labels (str), not an id
    PairExample(premise, hypothesis, label, script, fraction, premise_documents)     # nli
    SpanExample(question, context, answer, answer_start, script, template)           # qa
    TaggedExample(words, tags, script)       # tagging
    example_input(example)                   # the input text(s) alone: what must not leak
    split_words("Where did Tom go?")         # typed text -> the corpus's words (lower case,
                                             # punctuation split off): ['where', ..., '?']

    batch = encode(task, tokenizer, examples, max_length=64)   # dict of tensors (below)
    words_of_span(example, word_ids_row, start, end)  # predicted token span -> answer text
    tags_from_token_predictions(word_ids_row, predicted_ids_row, labels)  # -> a tag per word

    entities(tags)                                    # {(type, start, end)} from BIO, end inclusive

``encode`` pads with ``PAD_ID`` to the longest example of the batch. All kinds give
``input_ids``, ``segment_ids`` (B, T) long and ``attention_mask`` (B, T) bool, and:

* sequence: ``[CLS] text [SEP]``; ``labels`` (B,);
* pair: ``[CLS] premise [SEP] hypothesis [SEP]`` (segments 0 then 1); ``labels`` (B,);
* token: ``[CLS] pieces [SEP]``; ``labels`` (B, T): the word's tag id on the FIRST piece of each
  word, ``IGNORE_INDEX`` (-100) on later pieces ("play ##ing"), [CLS], [SEP] and padding;
  ``word_ids`` (B, T): the index of the word each piece belongs to, -1 elsewhere;
* span: ``[CLS] question [SEP] context [SEP]`` (segments 0 then 1); ``start_positions``,
  ``end_positions`` (B,): the positions of the answer's first and last piece; ``context_mask``
  (B, T) bool, True on context pieces (where a span may start and end); ``word_ids`` (B, T): the
  context word index of each context piece, -1 elsewhere.

Examples without gold (``label`` / ``tags`` / ``answer`` None: a sentence typed into a widget)
encode without the gold tensors. Words are encoded one at a time (``tokenizer.tokenize(word)``),
so the word -> piece alignment is exact.

The benchmarks' scores (accuracy, SQuAD exact match and F1, CoNLL entity F1) are in
``lecturekit.experiments.metrics``.

Lecture 13; Devlin et al. 2019 (BERT) section 4 and figure 4; Wang et al. 2018 (GLUE);
Rajpurkar et al. 2016 (SQuAD); Tjong Kim Sang and De Meulder 2003 (CoNLL-2003 NER).
"""

from __future__ import annotations

import functools
import math
import numbers
import random
import re
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import torch

from lecturekit.datasets.stories import BIRDS, FEMALE_NAMES, MALE_NAMES, PETS, SCRIPTS
from lecturekit.tokenization import CLS_ID, PAD_ID, SEP_ID, UNK_ID, WordPieceTokenizer
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_seed,
    check_str,
    check_strings,
)

__all__ = [
    "TASK_NAMES",
    "KINDS",
    "POOL_SIZE",
    "DEV_SIZE",
    "TEST_SIZE",
    "MAX_LENGTH",
    "IGNORE_INDEX",
    "NLI_LABELS",
    "TAG_LABELS",
    "ENTITY_WORDS",
    "SentenceExample",
    "PairExample",
    "SpanExample",
    "TaggedExample",
    "Task",
    "example_input",
    "split_words",
    "make_topic_task",
    "make_nli_task",
    "make_qa_task",
    "make_tagging_task",
    "make_tasks",
    "default_tasks",
    "encode",
    "words_of_span",
    "tags_from_token_predictions",
    "entities",
]

TASK_NAMES = ("topic", "nli", "qa", "tagging")
KINDS = {"topic": "sequence", "nli": "pair", "qa": "span", "tagging": "token"}
POOL_SIZE = 4050  # train pool of every task (450 per script, 1,350 per NLI label)
DEV_SIZE, TEST_SIZE = 300, 500  # at most; fewer where the world has fewer distinct inputs
MAX_LENGTH = 64  # WordPiece tokens with [CLS] / [SEP]: every example of every task fits
IGNORE_INDEX = -100  # the label of a position that is not scored (as torch / Hugging Face)

NLI_LABELS = ("entailment", "neutral", "contradiction")
TAG_LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ANIMAL", "I-ANIMAL")

# The one-word entities of the tagging task (two-word ones: "teddy roosevelt" PER, "new york"
# LOC; "fish" is an ANIMAL only as in "catch fish", a verb in "likes to fish").
ENTITY_WORDS: dict[str, tuple[str, ...]] = {
    "PER": tuple(sorted(MALE_NAMES + FEMALE_NAMES)),
    "LOC": (
        "doctor",  # a place of the errands script: "went to the doctor because of a cold"
        "garden",
        "home",
        "house",
        "kitchen",
        "library",
        "park",
        "pool",
        "school",
        "store",
        "yard",
    ),
    "ANIMAL": tuple(sorted({*PETS, *BIRDS, "birds", "mice", "fish"})),
}

_DOCUMENTS = 3000  # documents generated per script to list a task's distinct inputs
_NLI_DOCUMENTS = 4000  # documents per script over which NLI fractions are measured
_NLI_MIN_DOCUMENTS = 30  # premise (and, for contradiction, hypothesis) in at least this many
_NLI_MIN_EXPECTED = 10  # contradiction: independence would predict >= 10 co-occurrences
_NLI_NEUTRAL = (0.05, 0.95)  # neutral: strictly inside; (0, 0.05] and [0.95, 1) are dropped
_HELD_OUT = {"test": 0.4, "dev": 0.2}  # at most this share of a script's / label's inputs
_TAGGING_WITHOUT_ENTITY = 0.2  # of each script's train pool: sentences without an entity
_UNSEEN_SHARE = 1 / 3  # of each entity type's one-word entity words: in no train sentence
_UNSEEN_IN_HELD_OUT = 0.6  # of dev's / test's sentences with entities: with an unseen word


# --------------------------------------------------------------------------------- examples
def _check_optional_str(name: str, value: object) -> None:
    if value is not None:
        check_str(name, value)


@dataclass(frozen=True)
class SentenceExample:
    """One sentence (words separated by single spaces) and its label (None: no gold).

    Lecture 13 (single-sentence classification, GLUE SST-2 style).
    """

    text: str
    label: str | None = None

    def __post_init__(self) -> None:
        check_str("text", self.text)
        _check_optional_str("label", self.label)

    @property
    def words(self) -> tuple[str, ...]:
        """The sentence's words (``text.split()``)."""
        return tuple(self.text.split())


@dataclass(frozen=True)
class PairExample:
    """A premise and a hypothesis (two sentences of one script) and the label.

    ``fraction``: the share of generated stories saying the premise that also say the
    hypothesis; ``premise_documents``: how many stories said the premise.

    Lecture 13 (sentence-pair classification, GLUE MNLI style).
    """

    premise: str
    hypothesis: str
    label: str | None = None
    script: str | None = None
    fraction: float | None = None
    premise_documents: int | None = None

    def __post_init__(self) -> None:
        check_str("premise", self.premise)
        check_str("hypothesis", self.hypothesis)
        _check_optional_str("label", self.label)
        _check_optional_str("script", self.script)


@dataclass(frozen=True)
class SpanExample:
    """A question, a context (words separated by single spaces) and the answer: the context
    words ``answer_start`` .. ``answer_end`` (inclusive), whose text is ``answer``.

    Without gold, ``answer`` and ``answer_start`` are both None.

    Lecture 13 (span question answering, SQuAD style).
    """

    question: str
    context: str
    answer: str | None = None
    answer_start: int | None = None
    script: str | None = None
    template: str | None = None

    def __post_init__(self) -> None:
        check_str("question", self.question)
        check_str("context", self.context)
        if (self.answer is None) != (self.answer_start is None):
            raise ValueError(
                "answer and answer_start must be given together (or both None), got "
                f"answer={self.answer!r}, answer_start={self.answer_start!r}"
            )
        if self.answer is None:
            return
        check_str("answer", self.answer)
        words = self.context.split()
        start = check_non_negative_int("answer_start", self.answer_start)
        end = start + len(self.answer.split())
        if end > len(words) or words[start:end] != self.answer.split():
            raise ValueError(
                f"answer={self.answer!r} must be the context words at answer_start={start}, "
                f"got {' '.join(words[start:end])!r}"
            )

    @property
    def context_words(self) -> tuple[str, ...]:
        """The context's words (``context.split()``)."""
        return tuple(self.context.split())

    @property
    def answer_end(self) -> int | None:
        """Index of the answer's last context word (inclusive), None without gold."""
        if self.answer is None or self.answer_start is None:
            return None
        return self.answer_start + len(self.answer.split()) - 1


@dataclass(frozen=True)
class TaggedExample:
    """A sentence as words with one BIO tag per word (``tags`` None: no gold).

    Lecture 13 (token tagging, CoNLL-2003 NER style).
    """

    words: tuple[str, ...]
    tags: tuple[str, ...] | None = None
    script: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", tuple(check_strings("words", self.words)))
        for i, word in enumerate(self.words):
            if not word.strip() or word != word.strip() or " " in word:
                raise ValueError(f"words[{i}] must be one word without spaces, got {word!r}")
        if self.tags is not None:
            tags = tuple(check_strings("tags", self.tags))
            if len(tags) != len(self.words):
                raise ValueError(
                    f"tags must have one tag per word ({len(self.words)}), got {len(tags)}"
                )
            object.__setattr__(self, "tags", tags)

    @property
    def text(self) -> str:
        """The words joined with spaces."""
        return " ".join(self.words)


Example = SentenceExample | PairExample | SpanExample | TaggedExample
_EXAMPLE_TYPES = {
    "sequence": SentenceExample,
    "pair": PairExample,
    "span": SpanExample,
    "token": TaggedExample,
}


def example_input(example: Example) -> tuple[str, ...]:
    """The input text(s) of an example without its gold: (text,), (premise, hypothesis),
    (question, context) or (sentence,). Splits never share one.

    Lecture 13.
    """
    if isinstance(example, SentenceExample):
        return (example.text,)
    if isinstance(example, PairExample):
        return (example.premise, example.hypothesis)
    if isinstance(example, SpanExample):
        return (example.question, example.context)
    if isinstance(example, TaggedExample):
        return (example.text,)
    raise ValueError(
        "example must be a SentenceExample, PairExample, SpanExample or TaggedExample, "
        f"got {type(example).__name__}"
    )


def _gold(example: Example) -> object:
    if isinstance(example, SpanExample):
        return example.answer
    if isinstance(example, TaggedExample):
        return example.tags
    return example.label


def split_words(text: str) -> list[str]:
    """Typed text -> words as the corpus writes them: lower case, each punctuation mark a word
    of its own (as BERT's pre-tokeniser), e.g. "Where did Tom go?" -> where did tom go ?

    Lecture 13.
    """
    check_str("text", text, allow_empty=True)
    return re.findall(r"\w+|[^\w\s]", text.lower())


# ------------------------------------------------------------------------------------- task
@dataclass(frozen=True, repr=False)
class Task:
    """A fine-tuning task: its name, kind, label names and the three splits.

    ``kind``: "sequence" (labels per sentence), "pair" (per sentence pair), "span" (no label
    names: the label is a span) or "token" (a tag per word). ``train`` is a pool to take
    ``subset(n, seed)`` from; ``dev`` and ``test`` hold distinct inputs, none of them in train.
    ``info``: what the split is built from, for printing (empty but for ``tagging``: its
    "unseen_words" and "seen_words", entity type -> words; see ``make_tagging_task``).

    Lecture 13.
    """

    name: str
    kind: str
    labels: tuple[str, ...]
    train: tuple[Example, ...]
    dev: tuple[Example, ...]
    test: tuple[Example, ...]
    info: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_choice("kind", self.kind, list(_EXAMPLE_TYPES))
        if not isinstance(self.info, Mapping) or not all(isinstance(k, str) for k in self.info):
            raise ValueError(
                f"info must be a mapping with str keys, got {type(self.info).__name__}"
            )
        object.__setattr__(self, "info", dict(self.info))
        object.__setattr__(
            self, "labels", tuple(check_strings("labels", self.labels, allow_empty=True))
        )
        wanted = _EXAMPLE_TYPES[self.kind]
        for split in ("train", "dev", "test"):
            examples = getattr(self, split)
            if isinstance(examples, str) or not isinstance(examples, Sequence):
                raise ValueError(
                    f"{split} must be a sequence of examples, got {type(examples).__name__}"
                )
            for i, example in enumerate(examples):
                if not isinstance(example, wanted):
                    raise ValueError(
                        f"{split}[{i}] must be a {wanted.__name__} (kind {self.kind!r}), got "
                        f"{type(example).__name__}"
                    )
            object.__setattr__(self, split, tuple(examples))

    def __repr__(self) -> str:
        return (
            f"Task({self.name!r}, kind={self.kind!r}, labels={len(self.labels)}, "
            f"train={len(self.train)}, dev={len(self.dev)}, test={len(self.test)})"
        )

    def stratum(self, example: Example) -> str:
        """What ``subset`` balances: the label (sequence, pair) or the script (span, token)."""
        if self.kind in ("sequence", "pair"):
            return str(example.label)
        return str(example.script)

    def counts(self, split: str = "train") -> dict[str, int]:
        """Examples per label (sequence, pair) or per script (span, token) in a split."""
        check_choice("split", split, ["train", "dev", "test"])
        counted = Counter(self.stratum(e) for e in getattr(self, split))
        order = self.labels if self.kind in ("sequence", "pair") else sorted(counted)
        return {key: counted[key] for key in order if key in counted}

    def subset(self, n: int, seed: int = 0) -> tuple[Example, ...]:
        """``n`` examples of the train pool, balanced over labels (sequence, pair) or scripts
        (span, token) as evenly as the pool allows, in a seeded random order. For one seed the
        subsets are nested: ``subset(50, s)`` is part of ``subset(200, s)``.

        ``n``: 1 .. len(train); ``seed``: an int >= 0.
        """
        check_positive_int("n", n)
        check_seed(seed)
        if n > len(self.train):
            raise ValueError(f"n must be at most len(train) = {len(self.train)}, got {n}")
        rng = random.Random(f"lecturekit.finetuning/subset/{self.name}/{seed}")
        groups: dict[str, list[int]] = defaultdict(list)
        for i, example in enumerate(self.train):
            groups[self.stratum(example)].append(i)
        keys = sorted(groups)
        for key in keys:
            rng.shuffle(groups[key])
        order = list(range(len(keys)))
        rng.shuffle(order)
        quotas = _allocate(n, [len(groups[k]) for k in keys], order)
        chosen = [i for key, q in zip(keys, quotas, strict=True) for i in groups[key][:q]]
        rng.shuffle(chosen)
        return tuple(self.train[i] for i in chosen)


def _allocate(total: int, capacities: Sequence[int], order: Sequence[int]) -> list[int]:
    """Split ``total`` over groups as evenly as possible (max-min fair), no group above its
    capacity; the units left over go one each to the groups first in ``order``."""
    total = min(total, sum(capacities))
    low, high = 0, max(capacities, default=0)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(c, mid) for c in capacities) <= total:
            low = mid
        else:
            high = mid - 1
    quotas = [min(c, low) for c in capacities]
    rest = total - sum(quotas)
    for g in order:
        if rest == 0:
            break
        if capacities[g] > quotas[g]:
            quotas[g] += 1
            rest -= 1
    return quotas


def _rng(task: str, seed: int, part: str) -> random.Random:
    return random.Random(f"lecturekit.finetuning/{task}/{seed}/{part}")


def _held_out_quotas(sizes: Sequence[int], total: int, share: float) -> list[int]:
    """Held-out inputs per group: as even as possible, at most ``share`` of a group and at
    most an even share of ``total`` (so one large script cannot fill the test set)."""
    even = math.ceil(total / max(len(sizes), 1))
    return _allocate(total, [min(int(share * s), even) for s in sizes], range(len(sizes)))


def _split_inputs(
    groups: dict[str, list], rng: random.Random
) -> tuple[dict[str, list], dict[str, list], dict[str, list]]:
    """Partition each group's distinct inputs (shuffled) into train / dev / test."""
    keys = sorted(groups)
    for key in keys:
        groups[key] = sorted(groups[key])
        rng.shuffle(groups[key])
    sizes = [len(groups[k]) for k in keys]
    n_test = _held_out_quotas(sizes, TEST_SIZE, _HELD_OUT["test"])
    n_dev = _held_out_quotas(sizes, DEV_SIZE, _HELD_OUT["dev"])
    train, dev, test = {}, {}, {}
    for key, t, d in zip(keys, n_test, n_dev, strict=True):
        test[key] = groups[key][:t]
        dev[key] = groups[key][t : t + d]
        train[key] = groups[key][t + d :]
    return train, dev, test


def _documents(rng: random.Random, script: str, n: int) -> list[tuple[str, ...]]:
    generate = SCRIPTS[script]
    return [tuple(generate(rng)) for _ in range(n)]


def _pool_from_stream(
    rng: random.Random, script: str, make: Callable[[tuple[str, ...]], list], n: int
) -> list:
    """``n`` train examples in the corpus's own frequencies: documents of ``script`` are
    generated until ``make(document)`` (the examples a document gives) has given ``n``."""
    generate, pool = SCRIPTS[script], []
    for _ in range(1000 * n):
        pool.extend(make(tuple(generate(rng))))
        if len(pool) >= n:
            return pool[:n]
    raise RuntimeError(f"the {script!r} stories gave fewer than {n} train examples")


def _shuffled(rng: random.Random, items: Iterable) -> tuple:
    items = list(items)
    rng.shuffle(items)
    return tuple(items)


def _sentence_scripts(rng: random.Random) -> dict[str, list[str]]:
    """Script -> its sentences, dropping any sentence that also occurs in another script."""
    seen: dict[str, set[str]] = defaultdict(set)
    for script in sorted(SCRIPTS):
        for document in _documents(rng, script, _DOCUMENTS):
            for sentence in document:
                seen[sentence].add(script)
    groups: dict[str, list[str]] = {script: [] for script in sorted(SCRIPTS)}
    for sentence, scripts in seen.items():
        if len(scripts) == 1:
            groups[next(iter(scripts))].append(sentence)
    return groups


# ------------------------------------------------------------------------------------ topic
def make_topic_task(seed: int = 0) -> Task:
    """Single-sentence classification: which of the nine story scripts a sentence comes from.

    Labels: ``sorted(SCRIPTS)``. Inputs: the world's distinct sentences (3,000 generated
    stories per script list them; a sentence said in two scripts would be dropped as
    ambiguous, and in this world there are none): 774 sentences, very unevenly spread (the
    hobby script has 456, the president script 6). Dev and test hold at most 20 % / 40 % of a
    script's sentences and at most an even share of 300 / 500, so the world allows fewer than
    300 / 500: with seed 0, test holds 181 sentences (hobby 56, errands 31, pet 30, sports 18,
    weather 13, teddy bear 12, store 11, birds 8, president 2) and dev 95 (hobby 34, errands
    15, pet 15, sports 9, teddy bear 6, weather 6, store 5, birds 4, president 1). The train
    pool is 450 sentences per script, drawn from the remaining sentences as the stories say
    them (so frequent sentences repeat: the president script has 3 train sentences).

    Lecture 13; Devlin et al. 2019 figure 4(b).
    """
    check_seed(seed)
    labels = tuple(sorted(SCRIPTS))
    groups = _sentence_scripts(_rng("topic", seed, "inputs"))
    train, dev, test = _split_inputs(groups, _rng("topic", seed, "split"))
    rng = _rng("topic", seed, "pool")
    pool = []
    for script in labels:
        allowed = set(train[script])
        pool += _pool_from_stream(
            rng,
            script,
            lambda d, s=script, a=allowed: [SentenceExample(x, s) for x in d if x in a],
            POOL_SIZE // len(labels),
        )

    def examples(split: dict[str, list[str]]) -> tuple[SentenceExample, ...]:
        return _shuffled(rng, (SentenceExample(x, s) for s in labels for x in split[s]))

    return Task("topic", "sequence", labels, _shuffled(rng, pool), examples(dev), examples(test))


# -------------------------------------------------------------------------------------- nli
def _nli_pairs(rng: random.Random) -> dict[str, list[PairExample]]:
    """Label -> the pairs of sentences (of one script, at different positions) whose label
    the world decides, measured over ``_NLI_DOCUMENTS`` stories per script."""
    pairs: dict[str, list[PairExample]] = {label: [] for label in NLI_LABELS}
    low, high = _NLI_NEUTRAL
    for script in sorted(SCRIPTS):
        documents = Counter(_documents(rng, script, _NLI_DOCUMENTS))
        count: Counter[str] = Counter()
        together: Counter[tuple[str, str]] = Counter()
        position: dict[str, int] = {}
        for document, k in documents.items():
            for i, sentence in enumerate(document):
                count[sentence] += k
                position.setdefault(sentence, i)
            for p in document:
                for h in document:
                    if p != h:
                        together[p, h] += k
        sentences = sorted(count)
        for p in sentences:
            if count[p] < _NLI_MIN_DOCUMENTS:
                continue
            for h in sentences:
                if position[h] == position[p]:
                    continue
                f = together[p, h] / count[p]
                if f == 1:
                    label = "entailment"
                elif f == 0:
                    expected = count[p] * count[h] / _NLI_DOCUMENTS
                    if count[h] < _NLI_MIN_DOCUMENTS or expected < _NLI_MIN_EXPECTED:
                        continue
                    label = "contradiction"
                elif low < f < high:
                    label = "neutral"
                else:
                    continue
                pairs[label].append(PairExample(p, h, label, script, f, count[p]))
    return pairs


def make_nli_task(seed: int = 0) -> Task:
    """Sentence-pair classification: does the premise entail the hypothesis, contradict it,
    or neither, in this world?

    The premise P and the hypothesis H are two sentences of the same script, from different
    positions of it. The label is measured from the world itself: among 4,000 generated
    stories of the script, take those that say P; the fraction f that also say H decides.

    * entailment: f = 1, "in every story where P is said, H is said too" ("he bought a gallon
      of milk" -> "at home he put the milk in the fridge");
    * contradiction: f = 0, "never" ("the man went to the store" / "she bought a loaf of
      bread", "my dog is cute" / "every morning the cat meows at the sun"), where H too is said
      in at least 30 stories and, were P and H independent, at least 10 stories would say
      both (so "never" is evidence, not chance);
    * neutral: 0.05 < f < 0.95, "sometimes" ("the man went to the store" / "he bought a gallon
      of milk"); pairs with f in (0, 0.05] or [0.95, 1) are dropped.

    P must be said in at least 30 stories. With seed 0 the world gives 732 entailment, 3,806
    neutral and 4,008 contradiction pairs, from every script (but the birds script has no
    neutral pair: a story's bird fixes all its sentences; the president script has no
    contradiction: it has no choices that exclude each other). Each split is balanced (a third
    per label): test 500 pairs, dev 300, the train pool 1,350 per label (the entailment pairs
    of train repeat about three times each). ``fraction`` and ``premise_documents`` keep the
    measurement of each pair. Checked against 100,000 stories per script: no entailment or
    contradiction label is wrong; some neutral pairs have a true fraction a little under 0.05
    (e.g. a name given "he": 1/18), still "sometimes". Like MultiNLI's, the hypothesis alone
    says something about the label (a bag-of-words model of H alone: about 0.59 accuracy).

    Lecture 13; Devlin et al. 2019 figure 4(a); Williams et al. 2018 (MultiNLI).
    """
    check_seed(seed)
    pairs = _nli_pairs(_rng("nli", seed, "inputs"))
    train, dev, test = _split_inputs(
        {label: [(e.premise, e.hypothesis) for e in pairs[label]] for label in NLI_LABELS},
        _rng("nli", seed, "split"),
    )
    by_input = {(e.premise, e.hypothesis): e for label in NLI_LABELS for e in pairs[label]}
    rng = _rng("nli", seed, "pool")

    def examples(split: dict[str, list], n: int | None = None) -> tuple[PairExample, ...]:
        chosen = []
        for label in NLI_LABELS:
            keys = split[label]
            if n is not None:  # cycle through the shuffled pairs: each used equally often
                keys = [keys[i % len(keys)] for i in range(n)]
            chosen += [by_input[k] for k in keys]
        return _shuffled(rng, chosen)

    pool = examples(train, POOL_SIZE // len(NLI_LABELS))
    return Task("nli", "pair", NLI_LABELS, pool, examples(dev), examples(test))


# --------------------------------------------------------------------------------------- qa
# script -> question templates: name -> f(sentences) -> (question, sentence index, first word
# index in that sentence, number of answer words)
_Question = tuple[str, int, int, int]


def _subject(words: list[str], before: str) -> str:
    """The words before ``before``: the person as the story names them ("tom", "the man")."""
    return " ".join(words[: words.index(before)])


def _store_questions(s: list[list[str]]) -> dict[str, _Question]:
    who = _subject(s[0], "went")
    return {
        "what bought": (f"what did {who} buy ?", 1, 2, len(s[1]) - 2),
        "where put": (f"where did {who} put the {s[4][5]} ?", 4, len(s[4]) - 1, 1),
    }


def _pet_questions(s: list[list[str]]) -> dict[str, _Question]:
    pet, verb, prep = s[0][1], s[2][4][:-1], s[2][5]  # "every morning the dog barks at the sun"
    return {
        "what likes": (f"what does the {pet} like doing ?", 1, 2, 1),
        "where likes": (f"where does the {pet} like {s[1][2]} ?", 1, len(s[1]) - 1, 1),
        "what sound": (f"what does the {pet} {verb} {prep} ?", 2, 6, len(s[2]) - 6),
        "where sleeps": (f"where does the {pet} sleep ?", 3, 4, len(s[3]) - 4),
    }


def _birds_questions(s: list[list[str]]) -> dict[str, _Question]:
    bird = s[0][0]
    return {
        "where live": (f"where do {bird} live ?", 1, 2, len(s[1]) - 2),
        "what kind": (f"what kind of birds are {bird} ?", 0, 2, 1),
    }


def _president_questions(s: list[list[str]]) -> dict[str, _Question]:
    return {
        "where born": ("where was teddy roosevelt born ?", 1, 4, 2),
        "what loved": ("what did teddy roosevelt love ?", 2, 2, len(s[2]) - 2),
        "who president": ("who was an american president ?", 0, 0, 2),
    }


def _teddy_bear_questions(s: list[list[str]]) -> dict[str, _Question]:
    who = s[0][0]
    return {
        "what colour": ("what colour is the bear ?", 1, len(s[1]) - 1, 1),
        "when got": (f"when did {who} get a teddy bear ?", 0, 6, 2),
    }


def _weather_questions(s: list[list[str]]) -> dict[str, _Question]:
    who, clothes = s[1][0], s[2][3]  # "she wore a raincoat because it was raining"
    return {
        "what wore": (f"what did {who} wear ?", 2, 2, 2),
        "why wore": (f"why did {who} wear a {clothes} ?", 2, 4, len(s[2]) - 4),
    }


def _errands_questions(s: list[list[str]]) -> dict[str, _Question]:
    who = _subject(s[0], "had")
    # "in the morning he went to the store to buy some food"
    # "after lunch he went to the library to read a book"
    first, second = s[1][7], s[2][6]
    return {
        "where morning": (f"where did {who} go in the morning ?", 1, 7, 1),
        "where after lunch": (f"where did {who} go after lunch ?", 2, 6, 1),
        "why morning": (f"why did {who} go to the {first} ?", 1, 8, len(s[1]) - 8),
        "why after lunch": (f"why did {who} go to the {second} ?", 2, 7, len(s[2]) - 7),
    }


def _sports_questions(s: list[list[str]]) -> dict[str, _Question]:
    who = s[0][0]
    return {
        "what plays": (f"what does {who} play ?", 0, 2, 1),
        "how after": (f"how was {who} after the game ?", 3, len(s[3]) - 1, 1),
    }


def _hobby_questions(s: list[list[str]]) -> dict[str, _Question]:
    who, doing = s[0][0], s[3][4]  # "right now he is painting in the garden"
    return {
        "what likes": (f"what does {who} like to do ?", 0, 3, 1),
        "where now": (f"where is {who} {doing} right now ?", 3, len(s[3]) - 1, 1),
    }


_QUESTIONS: dict[str, Callable[[list[list[str]]], dict[str, _Question]]] = {
    "birds": _birds_questions,
    "errands": _errands_questions,
    "hobby": _hobby_questions,
    "pet": _pet_questions,
    "president": _president_questions,
    "sports": _sports_questions,
    "store": _store_questions,
    "teddy bear": _teddy_bear_questions,
    "weather": _weather_questions,
}


# scripts whose closing sentence (no question asks about it) the QA context leaves out, so that
# every question and context fit in MAX_LENGTH tokens
_QA_WITHOUT_CLOSING = ("errands", "pet")


def _qa_examples(script: str, document: tuple[str, ...]) -> list[SpanExample]:
    """Every question of the script's templates about one story, with its answer span."""
    if script in _QA_WITHOUT_CLOSING:
        document = document[:-1]
    context = " . ".join(document) + " ."
    sentences = [sentence.split() for sentence in document]
    offsets = [0]
    for words in sentences:
        offsets.append(offsets[-1] + len(words) + 1)  # the words and the "."
    out = []
    for template, (question, k, i, n) in _QUESTIONS[script](sentences).items():
        answer = " ".join(sentences[k][i : i + n])
        out.append(SpanExample(question, context, answer, offsets[k] + i, script, template))
    return out


def make_qa_task(seed: int = 0) -> Task:
    """Span question answering: a question about a story; the answer is a span of the story.

    The context is one story, its sentences joined with " . " and ending " ."; the question
    ends " ?". The errands and pet stories leave out their closing sentence ("in the evening
    he was very tired", "i love my dog very much"), which no question asks about, so that every
    question and context fit in 64 tokens. Every script has question templates (23 in all),
    asked with the name the story uses ("the man", "my mother", "tom"); the question words are
    what, where, why, who, when and how:

    * store: "what did the man buy ?" -> "a gallon of milk"; "where did the man put the
      milk ?" -> "fridge";
    * pet: "what does the dog like doing ?" -> "playing"; "where does the dog like
      playing ?" -> "garden"; "what does the dog bark at ?" -> "the sun"; "where does the dog
      sleep ?" -> "on a blanket";
    * birds: "where do penguins live ?" -> "in the cold south"; "what kind of birds are
      penguins ?" -> "flightless";
    * president: "where was teddy roosevelt born ?" -> "new york"; "what did teddy roosevelt
      love ?" -> "hunting and reading"; "who was an american president ?" -> "teddy roosevelt";
    * teddy bear: "what colour is the bear ?" -> "brown"; "when did anna get a teddy bear ?"
      -> "her birthday";
    * weather: "what did anna wear ?" -> "a raincoat"; "why did anna wear a raincoat ?" ->
      "because it was raining";
    * errands: "where did tom go in the morning ?" / "... after lunch ?" -> "store" /
      "library" (the story names two places: the question decides which); "why did tom go to
      the store ?" / "... to the library ?" -> "to buy some food" / "to read a book";
    * sports: "what does kate play ?" -> "tennis"; "how was kate after the game ?" -> "happy";
    * hobby: "what does tom like to do ?" -> "paint"; "where is tom painting right now ?" ->
      "garden".

    ``answer_start`` is the index of the answer's first word in ``context.split()``: the
    occurrence the question asks about (a word like "store" can occur twice in a story).
    The STORIES are partitioned between the splits (per script: 40 % test, 20 % dev, at least
    one each; so no test question or context occurs in train or dev). The world has few
    distinct stories in some scripts (store 8, birds 4, president 3), many in others, so
    test (500 questions) and dev (300) are as even over the scripts as the held-out stories
    allow; the train pool has 450 questions per script (stories drawn as the corpus draws
    them, every template asked). Every example fits in ``MAX_LENGTH`` = 64 WordPiece tokens
    as ``[CLS] question [SEP] context [SEP]``.

    Lecture 13; Devlin et al. 2019 figure 4(c); Rajpurkar et al. 2016 (SQuAD).
    """
    check_seed(seed)
    rng = _rng("qa", seed, "inputs")
    stories = {s: sorted(set(_documents(rng, s, _DOCUMENTS))) for s in sorted(SCRIPTS)}
    split_rng = _rng("qa", seed, "split")
    train, dev, test = {}, {}, {}
    for script, documents in stories.items():
        split_rng.shuffle(documents)
        n = len(documents)
        n_test = max(1, int(_HELD_OUT["test"] * n))
        n_dev = max(1, int(_HELD_OUT["dev"] * n))
        test[script] = documents[:n_test]
        dev[script] = documents[n_test : n_test + n_dev]
        train[script] = documents[n_test + n_dev :]

    def held_out(split: dict[str, list], total: int) -> tuple[SpanExample, ...]:
        candidates = {s: [e for d in split[s] for e in _qa_examples(s, d)] for s in sorted(split)}
        for s in sorted(candidates):
            split_rng.shuffle(candidates[s])
        sizes = [len(candidates[s]) for s in sorted(candidates)]
        quotas = _allocate(total, sizes, range(len(sizes)))
        chosen = [
            e for s, q in zip(sorted(candidates), quotas, strict=True) for e in candidates[s][:q]
        ]
        return _shuffled(split_rng, chosen)

    rng = _rng("qa", seed, "pool")
    pool = []
    for script in sorted(SCRIPTS):
        allowed = set(train[script])
        pool += _pool_from_stream(
            rng,
            script,
            lambda d, s=script, a=allowed: _qa_examples(s, d) if d in a else [],
            POOL_SIZE // len(SCRIPTS),
        )
    return Task(
        "qa", "span", (), _shuffled(rng, pool), held_out(dev, DEV_SIZE), held_out(test, TEST_SIZE)
    )


# ---------------------------------------------------------------------------------- tagging
_ENTITY_OF = {word: kind for kind, words in ENTITY_WORDS.items() for word in words}
# the two-word entities: never held out (the world's only I- tags), so always "seen"
_MULTI_WORD_ENTITIES = {"PER": ("teddy roosevelt",), "LOC": ("new york",), "ANIMAL": ()}


def _tag(words: Sequence[str]) -> tuple[str, ...]:
    """BIO tags of a corpus sentence: "teddy" is PER only in "teddy roosevelt" (in "teddy
    bear(s)" it is O), "fish" an ANIMAL only in "catch fish", "new york" a two-word LOC."""
    tags = ["O"] * len(words)
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else None
        before = words[i - 1] if i > 0 else None
        if (word, after) in (("teddy", "roosevelt"), ("new", "york")):
            kind = "PER" if word == "teddy" else "LOC"
            tags[i], tags[i + 1] = f"B-{kind}", f"I-{kind}"
        elif word == "fish" and before != "catch":
            continue
        elif word in _ENTITY_OF:
            tags[i] = f"B-{_ENTITY_OF[word]}"
    return tuple(tags)


def _entity_texts(sentence: str) -> frozenset[str]:
    """The entities of a corpus sentence as text ("tom", "new york")."""
    words = sentence.split()
    return frozenset(" ".join(words[a : b + 1]) for _, a, b in entities(_tag(words)))


def _choose_unseen(rng: random.Random, groups: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Entity type -> its unseen words: a third of its one-word entity words (rounded), by a
    seeded shuffle, drawn again while some script with entities would keep no sentence whose
    words are all seen (the store script's only entity words are "home" and "store")."""
    scripts = [
        [(frozenset(x.split()), bool(_entity_texts(x))) for x in groups[s]] for s in sorted(groups)
    ]  # per script: (words, has an entity) of each sentence
    for _ in range(100):
        unseen = {}
        for kind, words in ENTITY_WORDS.items():
            shuffled = list(words)
            rng.shuffle(shuffled)
            unseen[kind] = tuple(sorted(shuffled[: round(len(words) * _UNSEEN_SHARE)]))
        banned = {w for ws in unseen.values() for w in ws}
        if all(
            any(has and not ws & banned for ws, has in rows) or not any(has for _, has in rows)
            for rows in scripts
        ):
            return unseen
    raise RuntimeError("no draw of unseen entity words left every script a seen entity")


def _hold_out_sentences(
    sentences: list[str], sizes: Sequence[int], unseen: set[str]
) -> tuple[list[str], list[list[str]]]:
    """One script's (shuffled) sentences -> (train, [a held-out split of each size]).

    Each held-out split takes sentences without an entity in their share of the script, then
    of the rest ``_UNSEEN_IN_HELD_OUT`` (rounded up) with an unseen word, then sentences whose
    entities are all seen (never the last one of an entity: each keeps a train sentence),
    filling up from the other kinds where one runs out. Train is the sentences left without an
    unseen word; those left with one are used nowhere.
    """
    found = {x: _entity_texts(x) for x in sentences}
    kinds: dict[str, list[str]] = {"none": [], "seen": [], "unseen": []}
    for x in sentences:
        kind = "unseen" if unseen.intersection(x.split()) else "seen" if found[x] else "none"
        kinds[kind].append(x)
    left = Counter(e for x in kinds["seen"] for e in found[x])  # seen entity -> train sentences
    share_none = len(kinds["none"]) / len(sentences)

    def pick(chosen: list[str], kind: str, k: int) -> None:
        for x in list(kinds[kind]):
            if k <= 0:
                return
            if kind == "seen":
                if any(left[e] <= 1 for e in found[x]):
                    continue
                left.subtract(found[x])
            kinds[kind].remove(x)
            chosen.append(x)
            k -= 1

    held_out = []
    for n in sizes:
        chosen: list[str] = []
        pick(chosen, "none", round(n * share_none))
        pick(chosen, "unseen", math.ceil((n - len(chosen)) * _UNSEEN_IN_HELD_OUT))
        for kind in ("seen", "unseen", "none"):
            pick(chosen, kind, n - len(chosen))
        held_out.append(chosen)
    return kinds["none"] + kinds["seen"], held_out


def _split_tagging_inputs(
    groups: dict[str, list[str]], unseen: set[str], rng: random.Random
) -> tuple[dict[str, list], dict[str, list], dict[str, list]]:
    """Partition each script's distinct sentences into train / dev / test as
    ``_hold_out_sentences`` does, dev and test as large as ``_split_inputs`` makes them."""
    keys = sorted(groups)
    sizes = [len(groups[k]) for k in keys]
    n_test = _held_out_quotas(sizes, TEST_SIZE, _HELD_OUT["test"])
    n_dev = _held_out_quotas(sizes, DEV_SIZE, _HELD_OUT["dev"])
    train, dev, test = {}, {}, {}
    for key, t, d in zip(keys, n_test, n_dev, strict=True):
        sentences = sorted(groups[key])
        rng.shuffle(sentences)
        train[key], (test[key], dev[key]) = _hold_out_sentences(sentences, (t, d), unseen)
    return train, dev, test


def _tagging_pool(rng: random.Random, script: str, allowed: set[str]) -> list[str]:
    """The script's train pool sentences, as its stories say them (frequent sentences
    repeat), ``_TAGGING_WITHOUT_ENTITY`` of them without an entity (if ``allowed`` has both
    kinds; "he bought a gallon of milk" is said more often than a name)."""
    n = POOL_SIZE // len(SCRIPTS)
    has_entity = {x: bool(_entity_texts(x)) for x in allowed}
    n_without = round(n * _TAGGING_WITHOUT_ENTITY)
    if all(has_entity.values()) or not any(has_entity.values()):  # one kind only: take it
        n_without = 0 if any(has_entity.values()) else n
    wanted = {False: n_without, True: n - n_without}
    said: dict[bool, list[str]] = {False: [], True: []}
    generate = SCRIPTS[script]
    for _ in range(1000 * n):
        for sentence in generate(rng):
            if sentence in has_entity:
                said[has_entity[sentence]].append(sentence)
        if all(len(said[k]) >= wanted[k] for k in wanted):
            return said[False][: wanted[False]] + said[True][: wanted[True]]
    raise RuntimeError(f"the {script!r} stories gave fewer than {n} train sentences")


def make_tagging_task(seed: int = 0) -> Task:
    """Token tagging: a BIO tag per word, over the entity types PER, LOC and ANIMAL.

    * PER: the world's first names (``MALE_NAMES``, ``FEMALE_NAMES``) and "teddy roosevelt"
      (B-PER I-PER); "teddy" in "teddy bear(s)" is O, and so are "the man", "my mother";
    * LOC: the places people go to or are at: doctor (the errands script's place), garden,
      home, house, kitchen, library, park, pool, school, store, yard and "new york" (B-LOC
      I-LOC); containers and nature ("fridge", "window", "the cold south") are O;
    * ANIMAL: the pets (dog, cat, bird, duck, horse), the birds (penguins, ostriches, eagles,
      owls), "birds", "mice" and "fish" where it is the animal ("catch fish"; "likes to fish"
      is O). Every animal is one word, so I-ANIMAL is in the label set (the BIO scheme) but in
      no gold sequence.

    Unseen entity words: pre-training helps most on words the labelled set never shows. A
    model trained from scratch can only look up the entity words its labelled sentences
    showed; the pre-trained one has read every word of the world in context (any name before
    "got a teddy bear for her birthday"). If every test entity also occurred in train, as in a
    plain split of this small world, tagging would be a lookup and the two would score
    alike. So the split also holds out entity WORDS: a seeded shuffle makes a third of each
    type's one-word entity words "unseen" (4 of the 12 names, 4 of the 11 places, 4 of the 12
    animals; drawn again in the rare case that a script would keep no sentence with a seen
    entity), and no train sentence contains an unseen word, not even as O ("likes to fish").
    The two-word entities "teddy roosevelt" and "new york" are always seen: they carry the
    world's only I- tags. ``task.info`` holds "unseen_words" and "seen_words" (entity type ->
    words, the two-word entities last); every seen entity occurs in the train pool, every
    unseen word in dev or test, and ``experiments.metrics.entity_f1_by_seen`` scores the
    entities of unseen words apart. With seed 0 the unseen words are PER: lucy, mia, sam,
    tom; LOC: garden, library, school, yard; ANIMAL: duck, eagles, horse, mice. Test holds
    167 entities, 89 of them unseen (53 %: PER 38 of 58, LOC 43 of 89, ANIMAL 8 of 20); dev
    84, 41 unseen.

    Inputs: every distinct sentence of the world (774), including those without an entity
    (e.g. "i think teddy bears make great presents for kids": O everywhere). Dev and test hold
    as many sentences per script as the topic task (at most 20 % / 40 % of a script's
    sentences and an even share of 300 / 500: with seed 0, 181 test and 95 dev sentences).
    Each takes sentences without an entity in their share of the script (about a fifth), and
    of the others 60 % with an unseen word and the rest with seen entities only (never the
    last sentence of a seen entity, which stays in train). Train is the sentences left without
    an unseen word (the sentences with one that dev and test do not take are used nowhere).
    The train pool has 450 sentences per script as the stories say them (frequent sentences
    repeat), exactly a fifth of them without an entity (said sentences like "he bought a
    gallon of milk" are frequent; a script whose train sentences are of one kind only would
    take that kind).

    Lecture 13; Devlin et al. 2019 figure 4(d); Tjong Kim Sang and De Meulder 2003.
    """
    check_seed(seed)
    groups = _sentence_scripts(_rng("tagging", seed, "inputs"))
    unseen = _choose_unseen(_rng("tagging", seed, "unseen"), groups)
    banned = {w for words in unseen.values() for w in words}
    train, dev, test = _split_tagging_inputs(groups, banned, _rng("tagging", seed, "split"))
    rng = _rng("tagging", seed, "pool")

    def example(sentence: str, script: str) -> TaggedExample:
        words = tuple(sentence.split())
        return TaggedExample(words, _tag(words), script)

    pool = []
    for script in sorted(SCRIPTS):
        pool += [example(x, script) for x in _tagging_pool(rng, script, set(train[script]))]

    def examples(split: dict[str, list[str]]) -> tuple[TaggedExample, ...]:
        return _shuffled(rng, (example(x, s) for s in sorted(split) for x in split[s]))

    info = {
        "unseen_words": unseen,
        "seen_words": {
            kind: tuple(w for w in words if w not in banned) + _MULTI_WORD_ENTITIES[kind]
            for kind, words in ENTITY_WORDS.items()
        },
    }
    return Task(
        "tagging", "token", TAG_LABELS, _shuffled(rng, pool), examples(dev), examples(test), info
    )


# ------------------------------------------------------------------------------------ tasks
_MAKERS = {
    "topic": make_topic_task,
    "nli": make_nli_task,
    "qa": make_qa_task,
    "tagging": make_tagging_task,
}


def make_tasks(seed: int = 0) -> dict[str, Task]:
    """The four tasks for a seed (an int >= 0): name -> Task, in ``TASK_NAMES`` order.

    Lecture 13.
    """
    check_seed(seed)
    return {name: _MAKERS[name](seed) for name in TASK_NAMES}


@functools.lru_cache(maxsize=1)
def _default_tasks() -> tuple[Task, ...]:
    return tuple(make_tasks(0).values())


def default_tasks() -> dict[str, Task]:
    """The four tasks lecture 13 fine-tunes on (seed 0; built once, then cached): a new dict
    name -> Task on each call (the tasks themselves are immutable).

    Lecture 13.
    """
    return dict(zip(TASK_NAMES, _default_tasks(), strict=True))


# ----------------------------------------------------------------------------------- encode
_PIECES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _piece_ids(tokenizer: WordPieceTokenizer, word: str) -> list[int]:
    """A word's WordPiece ids (cached per tokenizer); a word with no pieces -> [UNK]."""
    cache = _PIECES.setdefault(tokenizer, {})
    ids = cache.get(word)
    if ids is None:
        ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word)) or [UNK_ID]
        cache[word] = ids
    return ids


def _pieces(
    tokenizer: WordPieceTokenizer, words: Sequence[str]
) -> tuple[list[int], list[int], list[bool]]:
    """Ids of the words' pieces, the word index of each piece, and whether it is a first."""
    ids, word_ids, first = [], [], []
    for w, word in enumerate(words):
        pieces = _piece_ids(tokenizer, word)
        ids += pieces
        word_ids += [w] * len(pieces)
        first += [True] + [False] * (len(pieces) - 1)
    return ids, word_ids, first


def _label_id(task: Task, name: str, value: object, index: int) -> int:
    if value not in task.labels:
        raise ValueError(
            f"examples[{index}].{name}={value!r} is not one of the {task.name} task's labels "
            f"{list(task.labels)}"
        )
    return task.labels.index(value)


def encode(
    task: Task,
    tokenizer: WordPieceTokenizer,
    examples: Sequence[Example],
    *,
    max_length: int = MAX_LENGTH,
) -> dict[str, torch.Tensor]:
    """Encode examples of a task as BERT's input, padded with ``PAD_ID`` to the longest.

    Args:
        task: the ``Task`` (its kind decides the format, its labels the label ids).
        tokenizer: the WordPiece tokenizer (``load_tokenizer("bert_tiny")``).
        examples: a non-empty sequence of the task's examples, all with gold or all without.
        max_length: the longest allowed sequence, [CLS] and [SEP]s included (64: the tiny
            BERT's positions).

    Returns:
        A dict of tensors, B = len(examples), T = the longest encoding: ``input_ids``,
        ``segment_ids`` (B, T) long, ``attention_mask`` (B, T) bool; sequence / pair:
        ``labels`` (B,); token: ``labels`` (B, T) (the tag id on each word's first piece,
        ``IGNORE_INDEX`` elsewhere) and ``word_ids`` (B, T); span: ``start_positions``,
        ``end_positions`` (B,), ``context_mask`` (B, T) bool and ``word_ids`` (B, T) (context
        word index, -1 elsewhere). The gold tensors only when the examples have gold.

    Lecture 13; Devlin et al. 2019 section 4 and figure 4.
    """
    check_instance("task", task, Task)
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    check_positive_int("max_length", max_length)
    if isinstance(examples, str) or not isinstance(examples, Sequence):
        raise ValueError(f"examples must be a list of examples, got {type(examples).__name__}")
    if not examples:
        raise ValueError("examples must not be empty, got an empty sequence")
    wanted = _EXAMPLE_TYPES[task.kind]
    for i, example in enumerate(examples):
        if not isinstance(example, wanted):
            raise ValueError(
                f"examples[{i}] must be a {wanted.__name__} (the {task.name} task is of kind "
                f"{task.kind!r}), got {type(example).__name__}"
            )
    with_gold = [_gold(e) is not None for e in examples]
    if any(with_gold) and not all(with_gold):
        raise ValueError(
            f"examples must all have gold or all have none, got examples[{with_gold.index(False)}]"
            f" without and examples[{with_gold.index(True)}] with"
        )
    gold = with_gold[0]

    rows: list[dict[str, list]] = []
    for i, example in enumerate(examples):
        row: dict[str, list] = {}
        if task.kind == "sequence":
            ids, _, _ = _pieces(tokenizer, example.words)
            row["input_ids"] = [CLS_ID, *ids, SEP_ID]
            row["segment_ids"] = [0] * len(row["input_ids"])
        elif task.kind == "pair":
            a, _, _ = _pieces(tokenizer, example.premise.split())
            b, _, _ = _pieces(tokenizer, example.hypothesis.split())
            row["input_ids"] = [CLS_ID, *a, SEP_ID, *b, SEP_ID]
            row["segment_ids"] = [0] * (len(a) + 2) + [1] * (len(b) + 1)
        elif task.kind == "token":
            ids, word_ids, first = _pieces(tokenizer, example.words)
            row["input_ids"] = [CLS_ID, *ids, SEP_ID]
            row["segment_ids"] = [0] * len(row["input_ids"])
            row["word_ids"] = [-1, *word_ids, -1]
            if gold:
                tags = [_label_id(task, "tags", t, i) for t in example.tags]
                scored = [
                    tags[w] if f else IGNORE_INDEX for w, f in zip(word_ids, first, strict=True)
                ]
                row["labels"] = [IGNORE_INDEX, *scored, IGNORE_INDEX]
        else:  # span
            q, _, _ = _pieces(tokenizer, example.question.split())
            c, word_ids, _ = _pieces(tokenizer, example.context_words)
            row["input_ids"] = [CLS_ID, *q, SEP_ID, *c, SEP_ID]
            row["segment_ids"] = [0] * (len(q) + 2) + [1] * (len(c) + 1)
            row["word_ids"] = [-1] * (len(q) + 2) + word_ids + [-1]
            row["context_mask"] = [False] * (len(q) + 2) + [True] * len(c) + [False]
            if gold:
                offset = len(q) + 2
                row["start_positions"] = offset + word_ids.index(example.answer_start)
                end = example.answer_end
                row["end_positions"] = offset + len(word_ids) - 1 - word_ids[::-1].index(end)
        if len(row["input_ids"]) > max_length:
            raise ValueError(
                f"examples[{i}] is {len(row['input_ids'])} tokens long with [CLS] and [SEP], "
                f"more than max_length={max_length}: {' | '.join(example_input(example))!r}"
            )
        if gold and task.kind in ("sequence", "pair"):
            row["labels"] = _label_id(task, "label", example.label, i)
        rows.append(row)

    length = max(len(row["input_ids"]) for row in rows)

    def padded(key: str, fill: object, dtype: torch.dtype) -> torch.Tensor:
        return torch.tensor(
            [row[key] + [fill] * (length - len(row[key])) for row in rows], dtype=dtype
        )

    batch = {
        "input_ids": padded("input_ids", PAD_ID, torch.long),
        "segment_ids": padded("segment_ids", 0, torch.long),
    }
    lengths = torch.tensor([len(row["input_ids"]) for row in rows])
    batch["attention_mask"] = torch.arange(length) < lengths[:, None]  # (B, T)
    if task.kind in ("token", "span"):
        batch["word_ids"] = padded("word_ids", -1, torch.long)
    if task.kind == "span":
        batch["context_mask"] = padded("context_mask", False, torch.bool)
    if gold:
        if task.kind == "token":
            batch["labels"] = padded("labels", IGNORE_INDEX, torch.long)
        elif task.kind == "span":
            batch["start_positions"] = torch.tensor([r["start_positions"] for r in rows])
            batch["end_positions"] = torch.tensor([r["end_positions"] for r in rows])
        else:
            batch["labels"] = torch.tensor([r["labels"] for r in rows])
    return batch


def _int_list(name: str, values: object) -> list[int]:
    """A 1-D integer tensor or a sequence of ints -> list of ints."""
    if isinstance(values, torch.Tensor):
        if values.ndim != 1 or values.is_floating_point() or values.dtype == torch.bool:
            raise ValueError(
                f"{name} must be a 1-D integer tensor (one row of the batch), got dtype "
                f"{values.dtype} and shape {tuple(values.shape)}"
            )
        return values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a 1-D integer tensor or a list of ints, got "
                         f"{type(values).__name__}")  # fmt: skip
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"{name}[{i}] must be an integer, got {v!r}")
    return [int(v) for v in values]


def _position(name: str, value: object, size: int) -> int:
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_floating_point():
        value = int(value.item())
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < size:
        raise ValueError(f"{name} must be a token position in 0..{size - 1}, got {value!r}")
    return int(value)


def words_of_span(
    example: SpanExample, word_ids_row: torch.Tensor | Sequence[int], start: int, end: int
) -> str:
    """The answer text of a predicted token span: the context words from the word of token
    ``start`` to the word of token ``end`` (both inclusive), as the context writes them.

    Args:
        example: the ``SpanExample`` the row encodes.
        word_ids_row: (T,) that example's row of ``encode(...)["word_ids"]``.
        start, end: predicted token positions in 0..T-1 (ints or 0-d tensors).

    Returns:
        The answer text; "" (no answer, scored as SQuAD scores an empty prediction) when
        ``end < start`` or either position is not a context piece.

    Lecture 13; Devlin et al. 2019 section 4.2.
    """
    check_instance("example", example, SpanExample)
    word_ids = _int_list("word_ids_row", word_ids_row)
    start = _position("start", start, len(word_ids))
    end = _position("end", end, len(word_ids))
    words = example.context_words
    if max(word_ids) >= len(words):
        raise ValueError(
            f"word_ids_row must index the example's {len(words)} context words, got word "
            f"index {max(word_ids)}: is it the row of another example?"
        )
    if end < start or word_ids[start] < 0 or word_ids[end] < 0:
        return ""
    return " ".join(words[word_ids[start] : word_ids[end] + 1])


def tags_from_token_predictions(
    word_ids_row: torch.Tensor | Sequence[int],
    predicted_ids_row: torch.Tensor | Sequence[int],
    labels: Sequence[str],
) -> list[str]:
    """A tag per word from per-piece predictions: each word gets the tag predicted on its
    FIRST piece (as the labels were given in training; later pieces are ignored).

    Args:
        word_ids_row: (T,) one row of ``encode(...)["word_ids"]`` (-1 on [CLS], [SEP], padding).
        predicted_ids_row: (T,) predicted tag ids (e.g. ``logits[b].argmax(-1)``).
        labels: the tag names (``task.labels``).

    Returns:
        One tag name per word, in word order.

    Lecture 13; Devlin et al. 2019 section 5.3.
    """
    word_ids = _int_list("word_ids_row", word_ids_row)
    predicted = _int_list("predicted_ids_row", predicted_ids_row)
    labels = check_strings("labels", labels)
    if len(predicted) != len(word_ids):
        raise ValueError(
            f"predicted_ids_row must have one id per position ({len(word_ids)}, as "
            f"word_ids_row), got {len(predicted)}"
        )
    tags: dict[int, str] = {}
    for position, (w, p) in enumerate(zip(word_ids, predicted, strict=True)):
        if w < 0 or w in tags:
            continue
        if not 0 <= p < len(labels):
            raise ValueError(
                f"predicted_ids_row[{position}] must be a tag id in 0..{len(labels) - 1}, got {p}"
            )
        tags[w] = labels[p]
    if sorted(tags) != list(range(len(tags))):
        raise ValueError(f"word_ids_row must number the words 0, 1, 2, ..., got {sorted(tags)}")
    return [tags[w] for w in range(len(tags))]


# --------------------------------------------------------------------------------- BIO tags
_BIO = re.compile(r"^(?:O|[BI]-\S+)$")


def entities(tags: Sequence[str]) -> set[tuple[str, int, int]]:
    """The entities of a BIO tag sequence as (type, start, end), ``end`` inclusive.

    As conlleval reads IOB2: B-X starts an entity; I-X continues one of type X and starts a
    new one after O or after an entity of another type; O ends one.
    ["B-PER", "I-PER", "O", "I-LOC"] -> {("PER", 0, 1), ("LOC", 3, 3)}.

    Lecture 13; Tjong Kim Sang and De Meulder 2003 (conlleval).
    """
    tags = check_strings("tags", tags, allow_empty=True)
    found, kind, start = set(), None, 0
    for i, tag in enumerate([*tags, "O"]):
        if not _BIO.match(tag):
            raise ValueError(f"tags[{i}] must be 'O', 'B-<type>' or 'I-<type>', got {tag!r}")
        prefix, this = (tag, None) if tag == "O" else tag.split("-", 1)
        if kind is not None and (prefix != "I" or this != kind):
            found.add((kind, start, i - 1))
            kind = None
        if prefix == "B" or (prefix == "I" and kind is None):
            kind, start = this, i
    return found
