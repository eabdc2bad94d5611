"""In-context learning at toy scale: sequences of input -> output examples of a task that only
the prompt defines (lecture 14).

The items are words of the story world (``lecturekit.datasets.stories``) in nine categories
(boys' and girls' names, pets, birds, places, clothes, sports, colours, weathers). A *task*
picks ``ways`` categories and gives each a DISTINCT label token drawn at random from a pool of
``n_labels`` ("A", "B", ...), afresh for every sequence. A sequence shows k examples and a
query::

    <bos> tom -> C ; owls -> A ; kate -> E ; leo -> C

The query ("leo") is an item of one of the task's categories that does not occur among the
examples, so the answer needs the category (tom and leo are both boys' names), not copying. The
category -> label mapping exists only in the prompt: labels are random per sequence, so no
weight can memorise an answer, and a model that answers above chance has read the prompt. The
category combinations are split into train and test: test tasks combine categories in ways
never seen in training. The reader who knows every item's category (``oracle_accuracy``) is
right when the query's category has an example, and otherwise guesses among the labels not yet
used: 1 / n_labels at k = 0, the ceiling a trained model's curve is compared with.

Public API::

    CATEGORIES, CATEGORY_OF                # category -> items; item -> category
    config = IclConfig(ways=3, n_labels=6, max_shots=8, test_fraction=0.2, seed=0)
    data = make_icl_data(config)           # IclData: vocab, train_tasks, test_tasks (category
                                           # combinations), max_length
    data.vocab                             # IclVocab: encode / decode, pad_id, bos_id, arrow_id,
                                           # sep_id, label_ids, item_ids
    task = sample_task(data, rng, split="train")         # IclTask(categories, labels)
    ex = sample_sequence(data, k, rng, task=None, split="train")   # IclExample
    #   ex.ids: [bos] x1 -> y1 ; ... ; xq -> yq (the answer included); ex.query_position: the
    #   position of the '->' after xq, whose NEXT-token prediction is the answer ex.answer_id;
    #   ex.prompt_ids = ex.ids[: ex.query_position + 1]
    batch = training_batch(data, batch_size, rng_or_generator, k=None)   # dict of tensors
    batch = collate(examples, data.vocab)  # the same dict for given examples
    batch = repetition_batch(data, batch_size, rng)  # prompts whose second half repeats the
                                           # first: the induction-head curriculum
    examples = eval_set(data, k, n, seed=0)   # on TEST tasks; nested in k for one seed
    oracle_accuracy(examples)              # the category-knowing reader's exact accuracy
    expected_oracle_accuracy(config, k)    # its expectation, in closed form
    format_example(ex, data.vocab)         # "tom -> C ; owls -> A ; leo -> ?"

Lecture 14; Brown et al. 2020 (GPT-3) section 2 (zero-, one-, few-shot).
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from lecturekit.datasets.stories import (
    BIRDS,
    FEMALE_NAMES,
    MALE_NAMES,
    PETS,
    RIGHT_CONTEXT_FAMILIES,
)
from lecturekit.utils.checks import (
    check_bool,
    check_choice,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_seed,
    check_strings,
)

__all__ = [
    "CATEGORIES",
    "CATEGORY_OF",
    "SPECIALS",
    "IGNORE_INDEX",
    "IclConfig",
    "IclVocab",
    "IclTask",
    "IclExample",
    "IclData",
    "make_icl_data",
    "sample_task",
    "sample_sequence",
    "collate",
    "training_batch",
    "repetition_batch",
    "eval_set",
    "oracle_accuracy",
    "expected_oracle_accuracy",
    "format_example",
]

# category -> items: words of the story world, each in exactly one category
CATEGORIES: dict[str, tuple[str, ...]] = {
    "boy": MALE_NAMES,
    "girl": FEMALE_NAMES,
    "pet": tuple(PETS),
    "bird": tuple(BIRDS),
    "place": tuple(RIGHT_CONTEXT_FAMILIES["place"]),
    "clothes": tuple(RIGHT_CONTEXT_FAMILIES["clothes"]),
    "sport": ("football", "tennis", "basketball"),  # the sports script's sports
    "colour": ("brown", "white", "yellow"),  # the teddy bear script's colours
    "weather": ("cold", "sunny", "raining", "windy"),  # the weather script's weathers
}
CATEGORY_OF: dict[str, str] = {item: c for c, items in CATEGORIES.items() for item in items}
if len(CATEGORY_OF) != sum(map(len, CATEGORIES.values())):  # pragma: no cover
    raise RuntimeError("an item occurs in two categories")

SPECIALS = ("<pad>", "<bos>", "->", ";")  # ids 0, 1, 2, 3
IGNORE_INDEX = -100  # the target of a position that is not scored (as torch / Hugging Face)
_LABEL_POOL = tuple(string.ascii_uppercase)


@dataclass(frozen=True)
class IclConfig:
    """How tasks and sequences are made.

    ``ways``: categories per task (>= 1, fewer than the 9 categories); ``n_labels``: the label
    pool ("A", "B", ...; ``ways`` <= n_labels <= 26); ``max_shots``: the most examples before
    the query (>= 1); ``test_fraction``: share of the category combinations held out as test
    tasks (in (0, 1); both splits non-empty); ``seed``: the split's seed (int >= 0).

    Lecture 14.
    """

    ways: int = 3
    n_labels: int = 6
    max_shots: int = 8
    test_fraction: float = 0.2
    seed: int = 0

    def __post_init__(self) -> None:
        check_positive_int("ways", self.ways)
        if self.ways >= len(CATEGORIES):
            raise ValueError(
                f"ways must be less than the number of categories ({len(CATEGORIES)}), so that "
                f"there are several category combinations to split, got {self.ways}"
            )
        check_positive_int("n_labels", self.n_labels)
        if not self.ways <= self.n_labels <= len(_LABEL_POOL):
            raise ValueError(
                f"n_labels must be in ways..{len(_LABEL_POOL)} = {self.ways}..{len(_LABEL_POOL)} "
                f"(every category of a task needs its own label), got {self.n_labels}"
            )
        check_positive_int("max_shots", self.max_shots)
        check_range("test_fraction", self.test_fraction, 0, 1, low_open=True, high_open=True)
        check_seed(self.seed)
        n = math.comb(len(CATEGORIES), self.ways)
        if not 1 <= _n_test(self.test_fraction, n) < n:
            raise ValueError(
                f"test_fraction={self.test_fraction} leaves no training tasks "
                f"({n} combinations of {self.ways} categories)"
            )


def _n_test(test_fraction: float, n_combinations: int) -> int:
    """How many category combinations are test tasks: round(fraction * n), at least 1."""
    return max(1, round(test_fraction * n_combinations))


@dataclass(frozen=True)
class IclVocab:
    """A word-level vocabulary: the specials (pad 0, bos 1, '->' 2, ';' 3), the items, the
    labels. ``encode(tokens) -> ids``, ``decode(ids) -> tokens``; ``len(vocab)``.

    Lecture 14.
    """

    tokens: tuple[str, ...]
    labels: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_strings("tokens", self.tokens)
        if tuple(self.tokens[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"tokens must start with {SPECIALS}, got {self.tokens[:4]}")
        index = {t: i for i, t in enumerate(self.tokens)}
        if len(index) != len(self.tokens):
            raise ValueError("tokens must be distinct")
        for label in self.labels:
            check_choice("label", label, self.tokens)
        object.__setattr__(self, "_index", index)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def pad_id(self) -> int:
        return 0

    @property
    def bos_id(self) -> int:
        return 1

    @property
    def arrow_id(self) -> int:
        return 2

    @property
    def sep_id(self) -> int:
        return 3

    @property
    def label_ids(self) -> tuple[int, ...]:
        """The ids of the label pool, in order (the answers a model chooses among)."""
        return tuple(self._index[t] for t in self.labels)

    @property
    def item_ids(self) -> tuple[int, ...]:
        """The ids of the items (every token that is neither special nor label)."""
        labels = set(self.labels)
        return tuple(i for i, t in enumerate(self.tokens) if i >= len(SPECIALS) and t not in labels)

    def id(self, token: str) -> int:
        """The id of one token (ValueError for an unknown one)."""
        if token not in self._index:
            raise ValueError(f"token={token!r} is not in the vocabulary")
        return self._index[token]

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Token strings -> ids (ValueError for an unknown token)."""
        check_strings("tokens", tokens, allow_empty=True)
        return [self.id(t) for t in tokens]

    def decode(self, ids: Sequence[int] | torch.Tensor) -> list[str]:
        """Ids (a list or a 1-D tensor) -> token strings (ValueError for an id out of range)."""
        if isinstance(ids, torch.Tensor):
            if ids.ndim != 1:
                raise ValueError(f"ids must be 1-D, got shape {tuple(ids.shape)}")
            ids = ids.tolist()
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, numbers.Integral):
                raise ValueError(f"ids must be integers, got {i!r}")
            if not 0 <= i < len(self.tokens):
                raise ValueError(f"ids must be in 0..{len(self.tokens) - 1}, got {i}")
            out.append(self.tokens[i])
        return out


@dataclass(frozen=True)
class IclTask:
    """One task: ``categories`` and their ``labels`` (distinct, same order)."""

    categories: tuple[str, ...]
    labels: tuple[str, ...]

    def label_of(self, item: str) -> str:
        """The label of an item of one of the task's categories."""
        category = CATEGORY_OF.get(item)
        if category not in self.categories:
            raise ValueError(f"item={item!r} is not in the task's categories {self.categories}")
        return self.labels[self.categories.index(category)]


@dataclass(frozen=True)
class IclExample:
    """One sequence: ``ids`` = [bos] x1 -> y1 ; ... ; xk -> yk ; xq -> yq (length 4k + 4),
    ``query_position`` = the position of the '->' after xq (= 4k + 2: its next-token prediction
    is the answer), ``answer_id`` = ids[-1], ``k`` examples, the ``task``, and as strings the
    ``items`` (x1..xk, xq) and ``labels`` (y1..yk, yq); ``n_labels`` = the label pool's size.
    """

    ids: list[int]
    query_position: int
    answer_id: int
    k: int
    task: IclTask
    items: tuple[str, ...]
    labels: tuple[str, ...]
    n_labels: int

    @property
    def prompt_ids(self) -> list[int]:
        """The prompt a model answers: every id up to and including the query's '->'."""
        return self.ids[: self.query_position + 1]


@dataclass(frozen=True)
class IclData:
    """The vocabulary and the split of category combinations into train and test tasks."""

    config: IclConfig
    vocab: IclVocab
    train_tasks: tuple[tuple[str, ...], ...]
    test_tasks: tuple[tuple[str, ...], ...]

    @property
    def max_length(self) -> int:
        """The longest sequence: 4 * max_shots + 4 tokens."""
        return 4 * self.config.max_shots + 4


def make_icl_data(config: IclConfig | None = None) -> IclData:
    """The vocabulary and the train / test split of the ``ways``-category combinations
    (shuffled with ``config.seed``; round(test_fraction * n) of them, at least 1, are test).

    ``config``: an ``IclConfig`` (default ``IclConfig()``).

    Lecture 14.
    """
    config = IclConfig() if config is None else config
    check_instance("config", config, IclConfig)
    labels = _LABEL_POOL[: config.n_labels]
    items = tuple(CATEGORY_OF)
    vocab = IclVocab(SPECIALS + items + labels, labels)
    combinations = list(itertools.combinations(CATEGORIES, config.ways))
    random.Random(config.seed).shuffle(combinations)
    n_test = _n_test(config.test_fraction, len(combinations))
    return IclData(config, vocab, tuple(combinations[n_test:]), tuple(combinations[:n_test]))


def _as_rng(name: str, rng: object) -> random.Random:
    """A random.Random, a torch.Generator (one draw seeds a random.Random) or an int seed."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, torch.Generator):
        seed = int(torch.randint(0, 2**62, (), generator=rng))
        return random.Random(seed)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return random.Random(check_seed(rng))
    raise ValueError(
        f"{name} must be a random.Random, a torch.Generator or an int seed, "
        f"got {type(rng).__name__}"
    )


def sample_task(data: IclData, rng: random.Random, split: str = "train") -> IclTask:
    """A task: a category combination of ``split`` ("train" or "test") and distinct labels
    drawn from the pool, in random order.

    Lecture 14.
    """
    check_instance("data", data, IclData)
    check_instance("rng", rng, random.Random)
    check_choice("split", split, ("train", "test"))
    tasks = data.train_tasks if split == "train" else data.test_tasks
    categories = rng.choice(tasks)
    labels = tuple(rng.sample(data.vocab.labels, len(categories)))
    return IclTask(tuple(categories), labels)


def _check_task(data: IclData, task: IclTask) -> None:
    check_instance("task", task, IclTask)
    if len(task.categories) != data.config.ways or len(set(task.categories)) != len(
        task.categories
    ):
        raise ValueError(
            f"task.categories must be {data.config.ways} distinct categories, got {task.categories}"
        )
    for c in task.categories:
        check_choice("task category", c, CATEGORIES)
    if len(task.labels) != len(task.categories) or len(set(task.labels)) != len(task.labels):
        raise ValueError(f"task.labels must be distinct, one per category, got {task.labels}")
    for label in task.labels:
        check_choice("task label", label, data.vocab.labels)


def _draw(data: IclData, rng: random.Random, task: IclTask, k: int) -> IclExample:
    """The query (category, then item), then k examples from the task's categories, never the
    query's item."""
    query_category = rng.choice(task.categories)
    query = rng.choice(CATEGORIES[query_category])
    items = []
    for _ in range(k):
        category = rng.choice(task.categories)
        items.append(rng.choice([x for x in CATEGORIES[category] if x != query]))
    return _example(data, task, (*items, query))


def _example(data: IclData, task: IclTask, items: tuple[str, ...]) -> IclExample:
    """The sequence of examples ``items[:-1]`` and query ``items[-1]``, labelled by ``task``."""
    labels = tuple(task.label_of(x) for x in items)
    tokens = ["<bos>"]
    for x, y in zip(items, labels, strict=True):
        tokens += [x, "->", y, ";"]
    ids = data.vocab.encode(tokens[:-1])  # (4k + 4,): no ';' after the answer
    return IclExample(
        ids=ids,
        query_position=len(ids) - 2,
        answer_id=ids[-1],
        k=len(items) - 1,
        task=task,
        items=items,
        labels=labels,
        n_labels=data.config.n_labels,
    )


def _check_k(data: IclData, k: object) -> int:
    check_non_negative_int("k", k)
    if k > data.config.max_shots:
        raise ValueError(f"k must be in 0..max_shots={data.config.max_shots}, got {k}")
    return int(k)


def sample_sequence(
    data: IclData,
    k: int,
    rng: random.Random | torch.Generator | int,
    *,
    task: IclTask | None = None,
    split: str = "train",
) -> IclExample:
    """One sequence with ``k`` examples (0..max_shots) and a query: of ``task`` if given,
    otherwise of a task drawn from ``split``. ``rng``: a random.Random (advanced), a
    torch.Generator or an int seed.

    Returns an ``IclExample``; its ids have length 4k + 4 and end with the answer.

    Lecture 14.
    """
    check_instance("data", data, IclData)
    k = _check_k(data, k)
    rng = _as_rng("rng", rng)
    check_choice("split", split, ("train", "test"))
    if task is None:
        task = sample_task(data, rng, split)
    else:
        _check_task(data, task)
    return _draw(data, rng, task, k)


def collate(examples: Sequence[IclExample], vocab: IclVocab) -> dict[str, torch.Tensor]:
    """Pad examples into one batch (right padding with ``vocab.pad_id``).

    Returns a dict: ``input_ids`` (B, T) long; ``attention_mask`` (B, T) bool, True at real
    tokens; ``loss_mask`` (B, T) bool, True exactly at the positions whose NEXT token is a label
    (every '->': all k + 1 labels are taught); ``targets`` (B, T) long, the next token where
    ``loss_mask`` and ``IGNORE_INDEX`` (-100) elsewhere, so
    ``cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)`` is the loss;
    ``query_positions`` (B,), ``answer_ids`` (B,), ``k`` (B,) long.

    Lecture 14.
    """
    check_instance("vocab", vocab, IclVocab)
    if isinstance(examples, IclExample) or not isinstance(examples, Sequence) or not examples:
        raise ValueError("examples must be a non-empty list of IclExample")
    for i, ex in enumerate(examples):
        check_instance(f"examples[{i}]", ex, IclExample)
    batch, length = len(examples), max(len(ex.ids) for ex in examples)
    input_ids = torch.full((batch, length), vocab.pad_id, dtype=torch.long)
    attention_mask = torch.zeros(batch, length, dtype=torch.bool)
    for b, ex in enumerate(examples):
        input_ids[b, : len(ex.ids)] = torch.tensor(ex.ids, dtype=torch.long)
        attention_mask[b, : len(ex.ids)] = True
    loss_mask = input_ids == vocab.arrow_id  # (B, T): '->' is always followed by its label
    next_ids = torch.cat([input_ids[:, 1:], input_ids.new_full((batch, 1), vocab.pad_id)], 1)
    targets = torch.where(loss_mask, next_ids, torch.full_like(next_ids, IGNORE_INDEX))
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "loss_mask": loss_mask,
        "targets": targets,
        "query_positions": torch.tensor([ex.query_position for ex in examples]),
        "answer_ids": torch.tensor([ex.answer_id for ex in examples]),
        "k": torch.tensor([ex.k for ex in examples]),
    }


def training_batch(
    data: IclData,
    batch_size: int,
    rng: random.Random | torch.Generator | int,
    *,
    k: int | None = None,
    split: str = "train",
) -> dict[str, torch.Tensor]:
    """``batch_size`` fresh sequences of TRAIN tasks (``split``), collated (see ``collate``).

    ``k``: examples per sequence; None draws k uniformly from 0..max_shots per sequence (padded).
    As every label is in the loss, ``k=max_shots`` (no padding) teaches every shot count from 0
    to max_shots in each sequence. ``rng``: a random.Random, a torch.Generator or an int seed.

    Lecture 14.
    """
    check_instance("data", data, IclData)
    check_positive_int("batch_size", batch_size)
    if k is not None:
        k = _check_k(data, k)
    rng = _as_rng("rng", rng)
    check_choice("split", split, ("train", "test"))
    examples = []
    for _ in range(batch_size):
        shots = rng.randint(0, data.config.max_shots) if k is None else k
        examples.append(_draw(data, rng, sample_task(data, rng, split), shots))
    return collate(examples, data.vocab)


def repetition_batch(
    data: IclData, batch_size: int, rng: random.Random | torch.Generator | int
) -> dict[str, torch.Tensor]:
    """``batch_size`` sequences ``[bos] P ; P`` where P is the first half of a fresh training
    prompt (``max_shots // 2`` examples and their labels): every token of the repeat can be
    read off the first copy, by finding the token that came after the current one last time.

    That is what an *induction head* does (Olsson et al. 2022), the circuit in-context learning
    needs: find the example whose input matches the query, copy what followed it. Mixed into
    training, these sequences give that circuit a signal at every position of the repeat, and
    the model learns it in thousands of steps instead of plateauing at guessing among the
    labels in the prompt (lecture 14 measured both). Same keys as ``collate``; ``loss_mask``
    is True at every position whose next token is in the repeat; the ``query_positions`` /
    ``answer_ids`` are those of the last label.

    Lecture 14; Olsson et al. 2022 (induction heads).
    """
    check_instance("data", data, IclData)
    check_positive_int("batch_size", batch_size)
    rng = _as_rng("rng", rng)
    half = data.config.max_shots // 2
    if half < 1:
        raise ValueError(f"repetition_batch needs max_shots >= 2, got {data.config.max_shots}")
    vocab = data.vocab
    rows = []
    for _ in range(batch_size):
        full = _draw(data, rng, sample_task(data, rng, "train"), data.config.max_shots)
        first = full.ids[1 : 1 + 4 * half - 1]  # x1 -> y1 ; ... ; x_half -> y_half
        rows.append([vocab.bos_id, *first, vocab.sep_id, *first])
    input_ids = torch.tensor(rows)  # (B, 1 + 2 * (4 * half - 1) + 1)
    start = 1 + len(first)  # the ';' before the repeat: it predicts the repeat's first token
    loss_mask = torch.zeros_like(input_ids, dtype=torch.bool)
    loss_mask[:, start:-1] = True
    next_ids = torch.cat([input_ids[:, 1:], input_ids.new_full((batch_size, 1), vocab.pad_id)], 1)
    targets = torch.where(loss_mask, next_ids, torch.full_like(next_ids, IGNORE_INDEX))
    T = input_ids.shape[1]
    return {
        "input_ids": input_ids,
        "attention_mask": torch.ones_like(input_ids, dtype=torch.bool),
        "loss_mask": loss_mask,
        "targets": targets,
        "query_positions": torch.full((batch_size,), T - 2),
        "answer_ids": input_ids[:, -1],
        "k": torch.full((batch_size,), half - 1),
    }


def eval_set(data: IclData, k: int, n: int, seed: int = 0, split: str = "test") -> list[IclExample]:
    """``n`` sequences with ``k`` examples on TEST tasks (``split``), deterministic for a seed.

    Nested in k: for one seed, example i at k is example i at max_shots cut to its first k
    examples (same task, labels and query), so an accuracy-vs-k curve compares the same queries
    given more examples.

    Lecture 14.
    """
    check_instance("data", data, IclData)
    k = _check_k(data, k)
    check_positive_int("n", n)
    check_seed(seed)
    check_choice("split", split, ("train", "test"))
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        full = _draw(data, rng, sample_task(data, rng, split), data.config.max_shots)
        out.append(_example(data, full.task, full.items[:k] + full.items[-1:]))
    return out


def _oracle_probability(example: IclExample) -> float:
    """P(correct) of the reader who knows every item's category: 1 if the query's category has
    an example, else a uniform guess among the labels the prompt has not used yet."""
    seen = {CATEGORY_OF[x] for x in example.items[:-1]}
    if CATEGORY_OF[example.items[-1]] in seen:
        return 1.0
    return 1.0 / (example.n_labels - len(seen))


def oracle_accuracy(examples: Sequence[IclExample]) -> float:
    """The exact expected accuracy of a reader who knows every item's category and guesses
    uniformly among the labels not yet seen in the prompt when the query's category has no
    example: the ceiling for a model that reads the prompt (1 / n_labels at k = 0).

    Lecture 14.
    """
    if isinstance(examples, IclExample) or not isinstance(examples, Sequence) or not examples:
        raise ValueError("examples must be a non-empty list of IclExample")
    for i, ex in enumerate(examples):
        check_instance(f"examples[{i}]", ex, IclExample)
    return sum(_oracle_probability(ex) for ex in examples) / len(examples)


def expected_oracle_accuracy(config: IclConfig, k: int) -> float:
    """``oracle_accuracy`` in expectation over tasks and sequences, in closed form.

    With w = ways and L = n_labels: the query's category has an example with probability
    1 - ((w-1)/w)^k; otherwise the k examples cover m of the other w - 1 categories with
    probability C(w-1, m) * surj(k, m) / (w-1)^k, and the guess is right with 1 / (L - m).

    Lecture 14.
    """
    check_instance("config", config, IclConfig)
    check_non_negative_int("k", k)
    w, labels = config.ways, config.n_labels
    if w == 1 or k == 0:
        return 1.0 if (w == 1 and k > 0) else 1.0 / labels
    p_unseen = ((w - 1) / w) ** k
    guess = 0.0
    for m in range(1, min(k, w - 1) + 1):
        onto = sum((-1) ** j * math.comb(m, j) * (m - j) ** k for j in range(m + 1))
        guess += math.comb(w - 1, m) * onto / (w - 1) ** k / (labels - m)
    return 1.0 - p_unseen + p_unseen * guess


def format_example(example: IclExample, vocab: IclVocab, show_answer: bool = False) -> str:
    """The sequence as text without <bos>: "tom -> C ; owls -> A ; leo -> ?" (the answer
    shown only if ``show_answer``).

    Lecture 14.
    """
    check_instance("example", example, IclExample)
    check_instance("vocab", vocab, IclVocab)
    check_bool("show_answer", show_answer)
    tokens = vocab.decode(example.ids[1:])
    if not show_answer:
        tokens[-1] = "?"
    return " ".join(tokens)
