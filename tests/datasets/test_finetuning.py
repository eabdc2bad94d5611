"""lecturekit.datasets.finetuning: lecture 13's four toy tasks, their encodings, BIO entities."""

import collections
import random
import time

import pytest
import torch

from lecturekit.datasets import finetuning as ft
from lecturekit.datasets.finetuning import (
    IGNORE_INDEX,
    MAX_LENGTH,
    NLI_LABELS,
    POOL_SIZE,
    TAG_LABELS,
    PairExample,
    SentenceExample,
    SpanExample,
    TaggedExample,
    default_tasks,
    encode,
    entities,
    example_input,
    make_tasks,
    split_words,
    tags_from_token_predictions,
    words_of_span,
)
from lecturekit.datasets.stories import SCRIPTS, make_corpus
from lecturekit.experiments.metrics import entity_f1_by_seen
from lecturekit.shipped import load_tokenizer

TASKS = default_tasks()
SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("bert_tiny")


def _documents(script, n, seed):
    rng = random.Random(seed)
    return [SCRIPTS[script](rng) for _ in range(n)]


# ------------------------------------------------------------------------------- the tasks
def test_tasks_are_deterministic_and_seeded():
    again = make_tasks(0)
    other = make_tasks(1)
    assert list(again) == list(ft.TASK_NAMES) == list(TASKS)
    for name in ft.TASK_NAMES:
        assert again[name] == TASKS[name]
        assert other[name].test != TASKS[name].test and other[name].train != TASKS[name].train
        assert TASKS[name].kind == ft.KINDS[name]
    assert default_tasks() is not TASKS and default_tasks()["qa"] is TASKS["qa"]  # cached


def test_default_tasks_are_quick_to_build():
    # issue 18 wants < 1.5 s on one core (measured ~0.5 s); a loose bound against regressions
    start = time.perf_counter()
    make_tasks(3)
    assert time.perf_counter() - start < 6


@pytest.mark.parametrize("name", ft.TASK_NAMES)
def test_splits_share_no_input_and_hold_distinct_inputs(name):
    task = TASKS[name]
    inputs = {split: [example_input(e) for e in getattr(task, split)] for split in SPLITS}
    for split in ("dev", "test"):
        assert len(set(inputs[split])) == len(inputs[split]), f"{split} repeats an input"
    train, dev, test = (set(inputs[s]) for s in SPLITS)
    assert not train & dev and not train & test and not dev & test
    if name == "qa":  # stronger: the stories themselves are partitioned
        contexts = {s: {e.context for e in getattr(task, s)} for s in SPLITS}
        assert not contexts["train"] & contexts["test"]
        assert not contexts["train"] & contexts["dev"]
        assert not contexts["dev"] & contexts["test"]


@pytest.mark.parametrize("name", ft.TASK_NAMES)
def test_sizes(name):
    task = TASKS[name]
    assert len(task.train) == POOL_SIZE >= 4000
    if name in ("nli", "qa"):
        assert (len(task.dev), len(task.test)) == (300, 500)
    else:  # the world has 774 distinct sentences: fewer held out (the docstrings say so)
        assert (len(task.dev), len(task.test)) == (95, 181)
    assert "train=4050" in repr(task)


def test_topic_counts_are_those_the_docstring_states():
    task = TASKS["topic"]
    assert task.labels == tuple(sorted(SCRIPTS))
    assert task.counts("test") == {
        "birds": 8, "errands": 31, "hobby": 56, "pet": 30, "president": 2, "sports": 18,
        "store": 11, "teddy bear": 12, "weather": 13,
    }  # fmt: skip
    assert task.counts("dev") == {
        "birds": 4, "errands": 15, "hobby": 34, "pet": 15, "president": 1, "sports": 9,
        "store": 5, "teddy bear": 6, "weather": 6,
    }  # fmt: skip
    assert set(task.counts("train").values()) == {450}


def test_topic_labels_are_the_scripts_that_say_the_sentence():
    task = TASKS["topic"]
    label = {e.text: e.label for s in SPLITS for e in getattr(task, s)}
    for script in SCRIPTS:
        for doc in _documents(script, 300, 11):
            for sentence in doc:
                if sentence in label:
                    assert label[sentence] == script
    # every input is a sentence of the corpus the tiny BERT was pre-trained on
    assert set(label) <= {s for d in make_corpus(20000, seed=5) for s in d}


def test_nli_labels_are_balanced_and_follow_the_measured_fraction():
    task = TASKS["nli"]
    assert task.labels == NLI_LABELS
    assert task.counts("train") == {label: 1350 for label in NLI_LABELS}
    assert task.counts("dev") == {label: 100 for label in NLI_LABELS}
    assert sorted(task.counts("test").values()) == [166, 167, 167]
    for e in {e for s in SPLITS for e in getattr(task, s)}:
        assert e.premise_documents >= 30 and e.premise != e.hypothesis
        if e.label == "entailment":
            assert e.fraction == 1
        elif e.label == "contradiction":
            assert e.fraction == 0
        else:
            assert 0.05 < e.fraction < 0.95
    scripts = collections.Counter(e.script for e in task.test)
    assert len(scripts) == len(SCRIPTS)  # every script gives test pairs


def test_nli_labels_hold_in_fresh_stories():
    """Entailment: every fresh story saying P says H; contradiction: none says both."""
    task = TASKS["nli"]
    documents = {s: _documents(s, 2000, 99) for s in SCRIPTS}
    stories = {s: [set(d) for d in documents[s]] for s in SCRIPTS}
    position = {x: i for s in SCRIPTS for d in documents[s] for i, x in enumerate(d)}
    for e in task.test + task.dev:
        said = [d for d in stories[e.script] if e.premise in d]
        assert said, e
        both = sum(e.hypothesis in d for d in said)
        if e.label == "entailment":
            assert both == len(said), e
        elif e.label == "contradiction":
            assert both == 0, e
        else:  # "sometimes": not always, and together where chance would show it
            assert both < len(said), e
            assert both > 0 or len(said) * e.fraction < 10, e
        assert position[e.premise] != position[e.hypothesis]  # different slots of the script


def test_nli_the_briefs_examples():
    task = TASKS["nli"]
    label = {(e.premise, e.hypothesis): e.label for s in SPLITS for e in getattr(task, s)}
    pairs = ft._nli_pairs(ft._rng("nli", 0, "inputs"))  # every pair, before the pool samples
    every = {(e.premise, e.hypothesis): e.label for es in pairs.values() for e in es}
    # the numbers make_nli_task's docstring states
    assert {label: len(es) for label, es in pairs.items()} == {
        "entailment": 732,
        "neutral": 3806,
        "contradiction": 4008,
    }  # fmt: skip
    assert set(label) <= set(every)
    assert every["the man went to the store", "she bought a loaf of bread"] == "contradiction"
    assert every["my dog is cute", "every morning the cat meows at the sun"] == "contradiction"
    assert every["the man went to the store", "he bought a gallon of milk"] == "neutral"
    assert every["he bought a gallon of milk", "at home he put the milk in the fridge"] == (
        "entailment"
    )


def test_qa_answers_are_the_context_spans_at_their_index():
    task = TASKS["qa"]
    templates = collections.defaultdict(set)
    for e in {e for s in SPLITS for e in getattr(task, s)}:
        words = e.context.split()
        assert words[e.answer_start : e.answer_end + 1] == e.answer.split()
        assert e.question.endswith(" ?") and e.context.endswith(" .")
        assert e.question.split()[0] in {"what", "where", "why", "who", "when", "how"}
        templates[e.script].add(e.template)
    assert len(templates) == len(SCRIPTS) >= 6
    assert all(len(t) >= 2 for t in templates.values())
    assert sum(len(t) for t in templates.values()) == 23
    assert set(task.counts("train").values()) == {450}
    assert set(task.counts("test")) == set(SCRIPTS)


def test_qa_the_briefs_examples():
    seen = {(e.question, e.answer) for s in SPLITS for e in getattr(TASKS["qa"], s)}
    for question, answer in [
        ("what did the man buy ?", "a gallon of milk"),
        ("where did the man put the milk ?", "fridge"),
        ("where do penguins live ?", "in the cold south"),
        ("what does kate play ?", "tennis"),
    ]:
        assert (question, answer) in seen
    weather = [e for e in TASKS["qa"].train if e.template == "why wore"]
    assert any(e.answer == "because it was raining" for e in weather)
    errands = [e for e in TASKS["qa"].train if e.script == "errands"]
    morning = next(e for e in errands if e.template == "where morning")
    after = next(
        e for e in errands if e.template == "where after lunch" and e.context == morning.context
    )
    assert morning.answer != after.answer  # the question decides which place


def test_qa_answer_index_picks_the_occurrence_asked_about():
    doc = ("tom had a busy day", "in the morning he went to the store to buy some food",
           "after lunch he went to the pool to go swimming", "he liked the store more than the pool",
           "in the evening he was very tired")  # fmt: skip
    examples = {e.template: e for e in ft._qa_examples("errands", doc)}
    assert examples["where morning"].answer == "store"
    assert examples["where morning"].answer_start == 13  # the first "store", not the second
    assert examples["where after lunch"].answer_start == 25
    assert examples["why morning"].answer == "to buy some food"
    assert "tired" not in examples["where morning"].context  # closing sentence left out


def _valid_bio(tags):
    previous = "O"
    for tag in tags:
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            return False
        previous = tag
    return True


def test_tagging_tags_are_valid_bio_and_follow_the_world():
    task = TASKS["tagging"]
    assert task.labels == TAG_LABELS
    every = {e for s in SPLITS for e in getattr(task, s)}
    assert all(_valid_bio(e.tags) and set(e.tags) <= set(TAG_LABELS) for e in every)
    tags = {e.text: e.tags for e in every}
    assert tags["i think teddy bears make great presents for kids"] == ("O",) * 9
    assert tags["i think teddy roosevelt is a great president"][2:4] == ("B-PER", "I-PER")
    assert tags["he was born in new york"][-2:] == ("B-LOC", "I-LOC")
    assert tags["the man went to the store"] == ("O",) * 5 + ("B-LOC",)
    assert tags["penguins are flightless birds"] == ("B-ANIMAL", "O", "O", "B-ANIMAL")
    assert tags["they swim fast to catch fish"][-1] == "B-ANIMAL"
    fish = [(text.split(), t) for text, t in tags.items() if "fish" in text.split()]
    assert len(fish) > 2
    for words, t in fish:
        i = words.index("fish")
        assert t[i] == ("B-ANIMAL" if words[i - 1] == "catch" else "O"), words
    assert ft._tag(["tom", "likes", "to", "fish"]) == ("B-PER", "O", "O", "O")
    assert (
        ft._tag(["my", "mother", "got", "a", "teddy", "bear", "for", "her", "birthday"])
        == ("O",) * 9
    )
    corpus_words = {w for d in make_corpus(4000) for s in d for w in s.split()}
    for words in ft.ENTITY_WORDS.values():
        assert set(words) <= corpus_words  # every listed entity word occurs in the world


def test_tagging_mixes_in_sentences_without_entities():
    task = TASKS["tagging"]
    for split in SPLITS:
        examples = getattr(task, split)
        share = sum(set(e.tags) == {"O"} for e in examples) / len(examples)
        assert 0.1 < share < 0.3, (split, share)
    without = collections.Counter(e.script for e in task.train if set(e.tags) == {"O"})
    assert without == {script: 90 for script in SCRIPTS}  # a fifth of each script's 450


def _entity_groups(examples, unseen):
    """(type, "seen" | "unseen") -> number of gold entities in the examples."""
    counts = collections.Counter()
    for e in examples:
        for kind, a, b in entities(e.tags):
            counts[kind, "unseen" if unseen & set(e.words[a : b + 1]) else "seen"] += 1
    return counts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tagging_holds_out_unseen_entity_words(seed):
    task = TASKS["tagging"] if seed == 0 else ft.make_tagging_task(seed)
    unseen_by_type, seen_by_type = task.info["unseen_words"], task.info["seen_words"]
    assert list(unseen_by_type) == list(seen_by_type) == ["PER", "LOC", "ANIMAL"]
    for kind, words in ft.ENTITY_WORDS.items():
        unseen, seen = set(unseen_by_type[kind]), set(seen_by_type[kind])
        assert len(unseen) == 4 and not unseen & seen  # a third of 12, 11, 12
        assert unseen | seen == set(words) | {"teddy roosevelt", "new york"}.intersection(seen)
    assert "teddy roosevelt" in seen_by_type["PER"] and "new york" in seen_by_type["LOC"]
    unseen = {w for words in unseen_by_type.values() for w in words}
    # no train sentence holds an unseen word, not even as O ("likes to fish")
    assert not unseen & {w for e in task.train for w in e.words}
    # every seen entity is in the train pool; every unseen word in dev or test
    in_train = {" ".join(e.words[a : b + 1]) for e in task.train for _, a, b in entities(e.tags)}
    assert in_train == {w for words in seen_by_type.values() for w in words}
    assert unseen <= {w for split in ("dev", "test") for e in getattr(task, split) for w in e.words}
    for split in ("dev", "test"):
        counts = _entity_groups(getattr(task, split), unseen)
        by_seen = collections.Counter()
        for (_, group), n in counts.items():
            by_seen[group] += n
        assert by_seen["seen"] > 30 and by_seen["unseen"] > 30, (split, counts)
        if split == "test":
            assert by_seen["unseen"] / sum(by_seen.values()) >= 0.45, counts
        for kind in ("PER", "LOC"):  # both kinds of every frequent type
            assert counts[kind, "seen"] >= 5 and counts[kind, "unseen"] >= 5, (split, counts)


def test_tagging_unseen_words_are_those_the_docstring_states():
    task = TASKS["tagging"]
    assert task.info["unseen_words"] == {
        "PER": ("lucy", "mia", "sam", "tom"),
        "LOC": ("garden", "library", "school", "yard"),
        "ANIMAL": ("duck", "eagles", "horse", "mice"),
    }
    assert ft.make_tagging_task(0).info == task.info  # deterministic
    assert ft.make_tagging_task(1).info != task.info  # seeded
    unseen = {w for words in task.info["unseen_words"].values() for w in words}
    assert _entity_groups(task.test, unseen) == {
        ("PER", "seen"): 20, ("PER", "unseen"): 38, ("LOC", "seen"): 46, ("LOC", "unseen"): 43,
        ("ANIMAL", "seen"): 12, ("ANIMAL", "unseen"): 8,
    }  # fmt: skip
    assert sum(_entity_groups(task.dev, unseen).values()) == 84
    gold = [e.tags for e in task.test]
    scores = entity_f1_by_seen(gold, gold, [e.words for e in task.test], task.info["unseen_words"])
    assert scores["unseen"]["support"] == 89 and scores["seen"]["support"] == 78
    assert scores["unseen"]["f1"] == scores["seen"]["f1"] == 1.0
    assert all(not info for name, t in TASKS.items() if name != "tagging" for info in [t.info])


def test_unseen_words_are_drawn_again_while_a_script_would_lose_all_its_entities():
    groups = {
        "store": ["the man went to the store", "then he walked back home", "he bought a box of eggs"],
        "errands": ["tom had a busy day", "anna had a busy day"],
    }  # fmt: skip
    draws = [ft._choose_unseen(random.Random(seed), groups)["LOC"] for seed in range(40)]
    assert all(not {"home", "store"} <= set(d) for d in draws)
    assert any("home" in d for d in draws) and any("store" in d for d in draws)


# ---------------------------------------------------------------------------------- subsets
@pytest.mark.parametrize("name", ft.TASK_NAMES)
def test_subsets_are_stratified_nested_and_seeded(name):
    task = TASKS[name]
    small, large = task.subset(50, seed=2), task.subset(1000, seed=2)
    assert len(small) == 50 and len(large) == 1000
    strata = [task.stratum(e) for e in small]
    counts = collections.Counter(strata)
    assert len(counts) == (len(task.labels) if task.kind in ("sequence", "pair") else 9)
    assert max(counts.values()) - min(counts.values()) <= 1  # n=50 has every class, evenly
    assert not collections.Counter(small) - collections.Counter(large)  # nested
    assert task.subset(50, seed=2) == small and task.subset(50, seed=3) != small
    assert len(task.subset(len(task.train))) == len(task.train)


# ----------------------------------------------------------------------------------- encode
def _batches(task, examples, tok, size=512):
    for i in range(0, len(examples), size):
        chunk = examples[i : i + size]
        yield chunk, encode(task, tok, chunk)


@pytest.mark.parametrize("name", ft.TASK_NAMES)
def test_every_example_of_every_split_encodes_within_64_tokens(name, tok):
    task = TASKS[name]
    for split in SPLITS:
        for chunk, batch in _batches(task, getattr(task, split), tok):
            B, T = batch["input_ids"].shape
            assert len(chunk) == B and T <= MAX_LENGTH
            assert batch["attention_mask"].dtype == torch.bool
            for key, value in batch.items():
                assert value.shape[0] == B, key
            lengths = batch["attention_mask"].sum(1)
            assert (batch["input_ids"][batch["attention_mask"]] != 0).all()
            assert (batch["input_ids"][~batch["attention_mask"]] == 0).all()
            assert (batch["input_ids"][:, 0] == 2).all()  # [CLS]
            assert (batch["input_ids"][torch.arange(B), lengths - 1] == 3).all()  # [SEP]


def test_sequence_and_pair_encodings_are_the_tokenizers_own(tok):
    for name in ("topic", "nli"):
        task = TASKS[name]
        examples = task.test[:40]
        batch = encode(task, tok, examples)
        for b, e in enumerate(examples):
            ids, segments = (
                tok.encode_pair(e.text) if name == "topic" else tok.encode_pair(*example_input(e))
            )
            n = len(ids)
            assert batch["input_ids"][b, :n].tolist() == ids
            assert batch["segment_ids"][b, :n].tolist() == segments
            assert batch["labels"][b] == task.labels.index(e.label)


def test_token_labels_sit_on_first_pieces_only(tok):
    task = TASKS["tagging"]
    for split in SPLITS:
        for chunk, batch in _batches(task, getattr(task, split), tok):
            for b, e in enumerate(chunk):
                word_ids = batch["word_ids"][b].tolist()
                labels = batch["labels"][b].tolist()
                first = [
                    w >= 0 and (p == 0 or word_ids[p - 1] != w) for p, w in enumerate(word_ids)
                ]
                assert [lab != IGNORE_INDEX for lab in labels] == first
                assert tags_from_token_predictions(word_ids, labels, task.labels) == list(e.tags)
    # the slides' "play ##ing": the tag on "play", -100 on "##ing"
    e = TaggedExample(("tom", "likes", "playing"), ("B-PER", "O", "O"))
    batch = encode(task, tok, [e])
    assert tok.convert_ids_to_tokens(batch["input_ids"][0]) == [
        "[CLS]", "tom", "likes", "play", "##ing", "[SEP]",
    ]  # fmt: skip
    assert batch["labels"][0].tolist() == [IGNORE_INDEX, 1, 0, 0, IGNORE_INDEX, IGNORE_INDEX]
    assert batch["word_ids"][0].tolist() == [-1, 0, 1, 2, 2, -1]


def test_span_positions_decode_back_to_the_answer_for_every_example(tok):
    task = TASKS["qa"]
    for split in SPLITS:
        for chunk, batch in _batches(task, getattr(task, split), tok):
            for b, e in enumerate(chunk):
                start, end = batch["start_positions"][b], batch["end_positions"][b]
                assert words_of_span(e, batch["word_ids"][b], start, end) == e.answer
                assert batch["context_mask"][b, start] and batch["context_mask"][b, end]
                segment = batch["segment_ids"][b]
                mask = batch["context_mask"][b]
                assert (segment[mask] == 1).all()
                n = int(batch["attention_mask"][b].sum())
                assert int(mask.sum()) == int(segment[:n].sum()) - 1  # all of B but its [SEP]
                pieces = tok.convert_ids_to_tokens(batch["input_ids"][b, start : end + 1])
                assert " ".join(pieces).replace(" ##", "") == e.answer


def test_span_helpers_on_a_hand_made_example(tok):
    task = TASKS["qa"]
    e = SpanExample("what does kate play ?", "kate plays tennis every weekend .", "tennis", 2)
    batch = encode(task, tok, [e])
    start, end = int(batch["start_positions"][0]), int(batch["end_positions"][0])
    assert tok.decode(batch["input_ids"][0, start : end + 1]) == "tennis"
    word_ids = batch["word_ids"][0]
    assert words_of_span(e, word_ids, start, end + 2) == "tennis every weekend"
    assert words_of_span(e, word_ids, start, start - 1) == ""  # end before start: no answer
    assert words_of_span(e, word_ids, 0, start) == ""  # [CLS] is no context position


def test_examples_without_gold_encode_for_widgets(tok):
    typed = " ".join(split_words("Where did Tom go after lunch?"))
    assert typed == "where did tom go after lunch ?"
    qa = encode(TASKS["qa"], tok, [SpanExample(typed, TASKS["qa"].test[0].context)])
    assert "start_positions" not in qa and "context_mask" in qa
    topic = encode(TASKS["topic"], tok, [SentenceExample("my cat is cute")])
    assert "labels" not in topic and topic["input_ids"].shape == (1, 6)
    tags = encode(TASKS["tagging"], tok, [TaggedExample(split_words("Tom went home"))])
    assert "labels" not in tags and tags["word_ids"][0].tolist() == [-1, 0, 1, 2, -1]
    pair = encode(TASKS["nli"], tok, [PairExample("my dog is cute", "i love my dog very much")])
    assert "labels" not in pair and pair["segment_ids"][0].tolist()[-1] == 1


# -------------------------------------------------------------------------------- BIO tags


def test_entities_as_conlleval_reads_bio():
    assert entities(["B-PER", "I-PER", "O", "I-LOC"]) == {("PER", 0, 1), ("LOC", 3, 3)}
    # an I- without a preceding B- of its type starts an entity; B- always starts one
    assert entities(["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-PER"]) == {
        ("PER", 0, 1), ("LOC", 3, 3), ("LOC", 4, 4), ("PER", 5, 5),
    }  # fmt: skip
    assert entities(["B-PER", "I-LOC"]) == {("PER", 0, 0), ("LOC", 1, 1)}
    assert entities(["B-LOC", "B-LOC"]) == {("LOC", 0, 0), ("LOC", 1, 1)}
    assert entities([]) == set() and entities(["O", "O"]) == set()


# ---------------------------------------------------------------------------------- errors
def _task(name):
    return TASKS[name]


BAD = [
    ("task", lambda tok: encode("qa", tok, TASKS["qa"].test[:1])),
    ("tokenizer", lambda tok: encode(_task("qa"), "bert_tiny", TASKS["qa"].test[:1])),
    ("examples", lambda tok: encode(_task("qa"), tok, [])),
    ("examples", lambda tok: encode(_task("qa"), tok, TASKS["qa"].test[0])),
    ("examples\\[0\\] must be a SpanExample", lambda tok: encode(_task("qa"), tok, TASKS["nli"].test[:1])),
    ("all have gold", lambda tok: encode(_task("topic"), tok,
                                         [TASKS["topic"].test[0], SentenceExample("my dog is cute")])),
    ("examples\\[0\\].label='sport'", lambda tok: encode(_task("topic"), tok,
                                                          [SentenceExample("my dog is cute", "sport")])),
    ("examples\\[0\\].tags='B-DOG'", lambda tok: encode(_task("tagging"), tok,
                                                         [TaggedExample(("dog",), ("B-DOG",))])),
    ("max_length=8", lambda tok: encode(_task("qa"), tok, TASKS["qa"].test[:1], max_length=8)),
    ("max_length", lambda tok: encode(_task("qa"), tok, TASKS["qa"].test[:1], max_length=0)),
    ("answer=", lambda tok: SpanExample("q ?", "a b c .", "b", 0)),
    ("answer and answer_start", lambda tok: SpanExample("q ?", "a b c .", "b")),
    ("answer_start", lambda tok: SpanExample("q ?", "a b c .", "b", -1)),
    ("tags must have one tag per word", lambda tok: TaggedExample(("a", "b"), ("O",))),
    ("words\\[0\\]", lambda tok: TaggedExample(("a b",))),
    ("words", lambda tok: TaggedExample("tom went home")),
    ("text", lambda tok: SentenceExample("")),
    ("premise", lambda tok: PairExample(None, "x")),
    ("n must be at most", lambda tok: TASKS["topic"].subset(5000)),
    ("n must be a positive integer", lambda tok: TASKS["topic"].subset(0)),
    ("seed", lambda tok: TASKS["topic"].subset(10, seed=-1)),
    ("split", lambda tok: TASKS["topic"].counts("valid")),
    ("seed", lambda tok: make_tasks(seed=1.5)),
    ("kind='image' is not one of", lambda tok: ft.Task("x", "image", (), (), (), ())),
    ("train\\[0\\] must be a SentenceExample",
     lambda tok: ft.Task("x", "sequence", ("a",), TASKS["nli"].test[:1], (), ())),
    ("example must be", lambda tok: example_input("my dog is cute")),
    ("start must be a token position", lambda tok: words_of_span(
        TASKS["qa"].test[0], [-1, 0, 1], 3, 0)),
    ("end must be a token position", lambda tok: words_of_span(
        TASKS["qa"].test[0], [-1, 0, 1], 0, 1.5)),
    ("word_ids_row must be a 1-D integer tensor", lambda tok: words_of_span(
        TASKS["qa"].test[0], torch.zeros(2, 3, dtype=torch.long), 0, 0)),
    ("word_ids_row must index", lambda tok: words_of_span(
        TASKS["qa"].test[0], [-1, 500, -1], 1, 1)),
    ("predicted_ids_row must have one id per position", lambda tok: tags_from_token_predictions(
        [-1, 0, -1], [0, 0], TAG_LABELS)),
    ("predicted_ids_row\\[1\\] must be a tag id in 0..6", lambda tok: tags_from_token_predictions(
        [-1, 0, -1], [0, 7, 0], TAG_LABELS)),
    ("labels", lambda tok: tags_from_token_predictions([-1, 0, -1], [0, 1, 0], "O")),
    ("tags\\[1\\] must be 'O', 'B-<type>' or 'I-<type>'", lambda tok: entities(["O", "PER"])),
    ("info must be a mapping", lambda tok: ft.Task("x", "sequence", ("a",), (), (), (), info=[])),
]  # fmt: skip


@pytest.mark.parametrize("match, call", BAD, ids=[f"{i}-{m[:30]}" for i, (m, _) in enumerate(BAD)])
def test_bad_inputs_get_clear_value_errors(match, call, tok):
    with pytest.raises(ValueError, match=match):
        call(tok)
