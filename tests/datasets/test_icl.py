"""lecturekit.datasets.icl: in-context-learning sequences whose task only the prompt defines."""

import itertools
import random
import time

import pytest
import torch

from lecturekit.datasets.icl import (
    CATEGORIES,
    CATEGORY_OF,
    IGNORE_INDEX,
    IclConfig,
    IclExample,
    IclTask,
    collate,
    eval_set,
    expected_oracle_accuracy,
    format_example,
    make_icl_data,
    oracle_accuracy,
    sample_sequence,
    sample_task,
    training_batch,
)
from lecturekit.datasets.stories import all_sentences

DATA = make_icl_data()
VOCAB = DATA.vocab


def _check_sequence(ex: IclExample) -> None:
    tokens = VOCAB.decode(ex.ids)
    assert len(ex.ids) == 4 * ex.k + 4 and tokens[0] == "<bos>"
    assert tokens[1::4] == list(ex.items) and tokens[3::4] == list(ex.labels)
    assert set(tokens[2::4]) == {"->"} and set(tokens[4::4]) <= {";"}
    assert ex.query_position == len(ex.ids) - 2 and tokens[ex.query_position] == "->"
    assert ex.answer_id == ex.ids[-1] == VOCAB.id(ex.labels[-1])
    # the query never occurs among the examples
    assert ex.items[-1] not in ex.items[:-1]
    # same category -> same label; different categories -> different labels
    label_of = {}
    for item, label in zip(ex.items, ex.labels, strict=True):
        assert CATEGORY_OF[item] in ex.task.categories
        assert label_of.setdefault(CATEGORY_OF[item], label) == label
    assert len(set(label_of.values())) == len(label_of)


def test_items_are_story_world_words_in_disjoint_categories():
    assert 7 <= len(CATEGORIES) <= 9
    assert all(3 <= len(items) <= 6 for items in CATEGORIES.values())
    assert len(CATEGORY_OF) == sum(len(items) for items in CATEGORIES.values())
    words = {w for s in all_sentences() for w in s.split()}
    assert set(CATEGORY_OF) <= words


def test_vocabulary():
    assert VOCAB.tokens[:4] == ("<pad>", "<bos>", "->", ";")
    assert (VOCAB.pad_id, VOCAB.bos_id, VOCAB.arrow_id, VOCAB.sep_id) == (0, 1, 2, 3)
    assert VOCAB.labels == ("A", "B", "C", "D", "E", "F")
    assert len(VOCAB) == 4 + len(CATEGORY_OF) + 6
    assert sorted(VOCAB.label_ids + VOCAB.item_ids) == list(range(4, len(VOCAB)))
    assert VOCAB.decode(VOCAB.encode(["tom", "->", "A"])) == ["tom", "->", "A"]


@pytest.mark.parametrize("k", [0, 1, 2, 4, 8])
def test_sequences(k):
    rng = random.Random(k)
    for _ in range(300):
        ex = sample_sequence(DATA, k, rng)
        _check_sequence(ex)
        assert ex.task.categories in DATA.train_tasks and ex.k == k
    for ex in eval_set(DATA, k, 300, seed=3):
        _check_sequence(ex)
        assert ex.task.categories in DATA.test_tasks and ex.k == k


def test_labels_are_random_per_sequence():
    rng = random.Random(0)
    tasks = [sample_task(DATA, rng) for _ in range(2000)]
    # every label is used for every category: no weight can memorise an answer
    for category in CATEGORIES:
        used = {t.labels[t.categories.index(category)] for t in tasks if category in t.categories}
        assert used == set(VOCAB.labels)


def test_test_tasks_are_combinations_never_seen_in_training():
    train, test = set(DATA.train_tasks), set(DATA.test_tasks)
    assert not train & test
    assert train | test == set(itertools.combinations(CATEGORIES, 3))
    assert len(test) == round(0.2 * 84) == 17
    # each category (and pair of categories) still occurs in training
    for pair in itertools.combinations(CATEGORIES, 2):
        assert any(set(pair) <= set(t) for t in train)
    other = make_icl_data(IclConfig(seed=1))
    assert set(other.test_tasks) != test


def test_training_batch_marks_exactly_the_label_predicting_positions():
    batch = training_batch(DATA, 64, torch.Generator().manual_seed(0))
    ids, mask, loss_mask = batch["input_ids"], batch["attention_mask"], batch["loss_mask"]
    n, length = ids.shape
    assert n == 64 and length <= DATA.max_length
    assert ids.dtype == torch.long and mask.dtype == loss_mask.dtype == torch.bool
    label_ids = torch.tensor(VOCAB.label_ids)
    next_is_label = torch.zeros_like(loss_mask)
    next_is_label[:, :-1] = torch.isin(ids[:, 1:], label_ids) & mask[:, 1:]
    assert torch.equal(loss_mask, next_is_label)
    assert torch.equal(loss_mask.sum(1), batch["k"] + 1)  # all k + 1 labels are taught
    assert torch.equal(batch["targets"][loss_mask], ids[:, 1:][loss_mask[:, :-1]])
    assert (batch["targets"][~loss_mask] == IGNORE_INDEX).all()
    rows = torch.arange(n)
    assert loss_mask[rows, batch["query_positions"]].all()
    assert torch.equal(ids[rows, batch["query_positions"] + 1], batch["answer_ids"])
    assert torch.equal(mask.sum(1), 4 * batch["k"] + 4)
    assert (ids[~mask] == VOCAB.pad_id).all()
    assert set(batch["k"].tolist()) == set(range(9))  # k drawn from 0..max_shots
    fixed = training_batch(DATA, 8, 0, k=8)
    assert fixed["input_ids"].shape == (8, DATA.max_length) and fixed["attention_mask"].all()


def test_collate_matches_the_examples():
    examples = eval_set(DATA, 2, 5, seed=0)
    batch = collate(examples, VOCAB)
    for b, ex in enumerate(examples):
        assert batch["input_ids"][b].tolist() == ex.ids
        assert batch["input_ids"][b, : ex.query_position + 1].tolist() == ex.prompt_ids


def test_oracle_accuracy():
    assert oracle_accuracy(eval_set(DATA, 0, 500, seed=0)) == pytest.approx(1 / 6)
    curve = [oracle_accuracy(eval_set(DATA, k, 2000, seed=0)) for k in (0, 1, 2, 4, 8)]
    assert curve == sorted(curve) and len(set(curve)) == 5
    assert curve[-1] > 0.9
    for k, measured in zip((0, 1, 2, 4, 8), curve, strict=True):
        assert measured == pytest.approx(expected_oracle_accuracy(DATA.config, k), abs=0.03)
    # closed form by hand (ways 3, 6 labels): k = 1: 1/3 + 2/3 * 1/5; k = 2: 5/9 + 4/9 * (1/2 *
    # 1/5 + 1/2 * 1/4)
    assert expected_oracle_accuracy(DATA.config, 1) == pytest.approx(1 / 3 + 2 / 15)
    assert expected_oracle_accuracy(DATA.config, 2) == pytest.approx(5 / 9 + 4 / 9 * 0.225)


def test_eval_sets_are_nested_in_k():
    full = eval_set(DATA, 8, 50, seed=4)
    for k in (0, 1, 2, 4):
        for ex, big in zip(eval_set(DATA, k, 50, seed=4), full, strict=True):
            assert ex.task == big.task and ex.items == big.items[:k] + big.items[-1:]
    # so the oracle can only gain from more examples, query by query
    small = eval_set(DATA, 2, 50, seed=4)
    assert all(
        oracle_accuracy([a]) <= oracle_accuracy([b]) for a, b in zip(small, full, strict=True)
    )


def test_a_given_task_and_format():
    task = IclTask(("boy", "bird", "place"), ("C", "A", "F"))
    ex = sample_sequence(DATA, 3, random.Random(0), task=task)
    _check_sequence(ex)
    text = format_example(ex, VOCAB)
    assert text.endswith(f"{ex.items[-1]} -> ?") and text.count(";") == 3
    assert format_example(ex, VOCAB, show_answer=True).endswith(f"-> {ex.labels[-1]}")
    assert " ; ".join(f"{x} -> {y}" for x, y in zip(ex.items, ex.labels, strict=True)) == (
        format_example(ex, VOCAB, show_answer=True)
    )


def test_determinism():
    assert eval_set(DATA, 4, 20, seed=1) == eval_set(DATA, 4, 20, seed=1)
    assert eval_set(DATA, 4, 20, seed=1) != eval_set(DATA, 4, 20, seed=2)
    a = training_batch(DATA, 16, torch.Generator().manual_seed(5))
    b = training_batch(DATA, 16, torch.Generator().manual_seed(5))
    assert all(torch.equal(a[key], b[key]) for key in a)
    assert sample_sequence(DATA, 2, 7) == sample_sequence(DATA, 2, random.Random(7))
    assert make_icl_data() == make_icl_data()


def test_speed():
    start = time.perf_counter()
    data = make_icl_data(IclConfig(seed=3))
    assert time.perf_counter() - start < 0.5
    g = torch.Generator().manual_seed(0)
    training_batch(data, 64, g)
    start = time.perf_counter()
    for _ in range(5):
        training_batch(data, 64, g)
    assert (time.perf_counter() - start) / 5 < 0.02


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: IclConfig(ways=9), "ways"),
        (lambda: IclConfig(ways=0), "ways"),
        (lambda: IclConfig(n_labels=2), "n_labels"),
        (lambda: IclConfig(n_labels=27), "n_labels"),
        (lambda: IclConfig(max_shots=0), "max_shots"),
        (lambda: IclConfig(test_fraction=0.0), "test_fraction"),
        (lambda: IclConfig(test_fraction=1.0), "test_fraction"),
        (lambda: IclConfig(seed=-1), "seed"),
        (lambda: IclConfig(ways=8, n_labels=8, test_fraction=0.99), "test_fraction"),
        (lambda: make_icl_data({"ways": 3}), "config"),
        (lambda: sample_sequence(DATA, -1, 0), "k"),
        (lambda: sample_sequence(DATA, 9, 0), "k"),
        (lambda: sample_sequence(DATA, 2, "seed"), "rng"),
        (lambda: sample_sequence(DATA, 2, 0, split="valid"), "split"),
        (lambda: sample_sequence(DATA, 2, 0, task=IclTask(("boy", "girl"), ("A", "B"))), "task"),
        (
            lambda: sample_sequence(
                DATA, 2, 0, task=IclTask(("boy", "girl", "pet"), ("A", "A", "B"))
            ),
            "labels",
        ),
        (
            lambda: sample_sequence(
                DATA, 2, 0, task=IclTask(("boy", "girl", "pet"), ("A", "B", "Z"))
            ),
            "label",
        ),
        (
            lambda: sample_sequence(
                DATA, 2, 0, task=IclTask(("boy", "girl", "cars"), ("A", "B", "C"))
            ),
            "category",
        ),
        (lambda: training_batch(DATA, 0, 0), "batch_size"),
        (lambda: training_batch(DATA, 4, 0, k=9), "k"),
        (lambda: eval_set(DATA, 2, 0), "n"),
        (lambda: eval_set(DATA, 2, 5, seed=-1), "seed"),
        (lambda: oracle_accuracy([]), "examples"),
        (lambda: collate(eval_set(DATA, 1, 1)[0], VOCAB), "examples"),
        (lambda: VOCAB.encode("tom"), "tokens"),
        (lambda: VOCAB.encode(["tom", "bob"]), "bob"),
        (lambda: VOCAB.decode([0, len(VOCAB)]), "ids"),
        (lambda: expected_oracle_accuracy(DATA.config, -1), "k"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_repetition_batch_repeats_the_first_half_and_scores_only_the_repeat():
    from lecturekit.datasets.icl import repetition_batch

    data = make_icl_data(IclConfig())
    batch = repetition_batch(data, 16, 3)
    ids, mask = batch["input_ids"], batch["loss_mask"]
    half = (ids.shape[1] - 2) // 2  # [bos] P ; P
    assert torch.equal(ids[:, 1 : 1 + half], ids[:, 2 + half :])
    assert (ids[:, 1 + half] == data.vocab.sep_id).all() and (ids[:, 0] == data.vocab.bos_id).all()
    assert not mask[:, : 1 + half].any() and mask[:, 1 + half : -1].all() and not mask[:, -1].any()
    targets = batch["targets"]
    assert torch.equal(targets[mask], ids[:, 1:][mask[:, :-1]])
    assert torch.equal(repetition_batch(data, 16, 3)["input_ids"], ids)  # seeded
    with pytest.raises(ValueError, match="batch_size"):
        repetition_batch(data, 0, 3)
