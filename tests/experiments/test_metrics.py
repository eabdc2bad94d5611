"""lecturekit.experiments.metrics: lecture 13's benchmark scores (GLUE accuracy, the official
SQuAD script's exact match and F1, CoNLL entity F1)."""

import collections
import random
import re
import string

import pytest
import torch

from lecturekit.experiments.metrics import (
    accuracy,
    entity_f1,
    entity_f1_by_seen,
    exact_match,
    normalize_answer,
    squad_scores,
    token_f1,
)


def _official_normalize(s):  # evaluate-v2.0.py, as published
    def remove_articles(text):
        return re.sub(re.compile(r"\b(a|an|the)\b", re.UNICODE), " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def _official_f1(a_pred, a_gold):
    gold_toks = _official_normalize(a_gold).split() if a_gold else []
    pred_toks = _official_normalize(a_pred).split() if a_pred else []
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def test_squad_scores_by_hand():
    assert normalize_answer("The  Gravity!") == "gravity"
    assert normalize_answer("an apple, a pear") == "apple pear"
    assert normalize_answer("theory of the atom") == "theory of atom"  # "the" only as a word
    assert exact_match("the gravity", "gravity") == 1.0
    assert exact_match("gravity.", "Gravity") == 1.0
    assert exact_match("in the cold south", "the cold south") == 0.0
    assert token_f1("the gravity", "gravity") == 1.0
    assert token_f1("gravity and wind", "gravity") == pytest.approx(0.5)  # P 1/3, R 1
    assert token_f1("falls due to gravity", "gravity falls") == pytest.approx(2 / 3)  # P 1/2
    assert token_f1("red red car", "red car") == pytest.approx(0.8)  # counts clipped: P 2/3
    assert token_f1("rain", "gravity") == 0.0
    # the empty-answer cases (SQuAD 2.0): both empty -> 1, one empty -> 0
    assert token_f1("", "") == 1.0 and token_f1("the", "") == 1.0
    assert token_f1("gravity", "") == 0.0 and token_f1("", "gravity") == 0.0
    scores = squad_scores(["gravity", "the sun", "wind"], ["gravity", ["a sun", "moon"], "rain"])
    assert scores == pytest.approx({"exact_match": 2 / 3, "f1": 2 / 3})
    scores = squad_scores(["gravity and wind", "store"], ["gravity", "store"])
    assert scores == pytest.approx({"exact_match": 0.5, "f1": 0.75})


def test_squad_scores_equal_the_official_scripts():
    words = ["the", "a", "an", "gravity", "Rain", "rain,", "falls", "cold", "south", "!", ""]
    rng = random.Random(0)
    for _ in range(2000):
        pred = " ".join(rng.choices(words, k=rng.randint(0, 4)))
        gold = " ".join(rng.choices(words, k=rng.randint(0, 4)))
        assert normalize_answer(pred) == _official_normalize(pred)
        assert token_f1(pred, gold) == pytest.approx(_official_f1(pred, gold))
        assert exact_match(pred, gold) == float(
            _official_normalize(pred) == _official_normalize(gold)
        )


def test_entity_f1_by_hand():
    # seqeval's README example: one entity right, one span wrong -> P = R = F1 = 0.5
    gold = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    pred = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    assert entity_f1(pred, gold) == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5})
    # a wrong type is a miss and a false positive
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    pred = [["B-PER", "I-PER", "O", "B-ANIMAL"]]
    assert entity_f1(pred, gold) == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5})
    # micro-averaged over sentences: 2 of 2 predicted right, 2 of 3 gold found
    gold = [["B-PER", "O", "B-LOC"], ["B-ANIMAL"]]
    pred = [["B-PER", "O", "B-LOC"], ["O"]]
    assert entity_f1(pred, gold) == pytest.approx({"precision": 1.0, "recall": 2 / 3, "f1": 0.8})
    # a partial span is wrong; nothing predicted -> precision 0 (as conlleval)
    assert entity_f1([["B-PER", "O"]], [["B-PER", "I-PER"]])["f1"] == 0.0
    assert entity_f1([["O"]], [["B-PER"]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_entity_f1_by_seen_by_hand():
    words = [["tom", "met", "zed", "in", "the", "park"], ["zed", "and", "the", "dog"]]
    gold = [["B-PER", "O", "B-PER", "O", "O", "B-LOC"], ["B-PER", "O", "O", "B-ANIMAL"]]
    pred = [["B-PER", "O", "O", "O", "O", "B-LOC"], ["B-PER", "O", "O", "B-LOC"]]
    scores = entity_f1_by_seen(pred, gold, words, ["zed"])
    # seen: tom, park, dog (gold); tom, park right, "dog" as LOC a false positive and a miss
    assert scores["seen"] == pytest.approx(
        {"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3, "support": 3}
    )
    # unseen: the two zeds; the first missed, the second found
    assert scores["unseen"] == pytest.approx(
        {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "support": 2}
    )
    assert isinstance(scores["seen"]["support"], int)
    # the two groups together are entity_f1; a mapping type -> words works as the words do
    assert entity_f1_by_seen(pred, gold, words, {"PER": ("zed",), "LOC": ()}) == scores
    assert entity_f1(pred, gold)["recall"] == pytest.approx(3 / 5)
    # a two-word entity with one unseen word is unseen; a predicted entity counts by its words
    words = [["teddy", "roosevelt", "met", "zed"]]
    gold = [["B-PER", "I-PER", "O", "O"]]
    pred = [["B-PER", "I-PER", "O", "B-PER"]]
    scores = entity_f1_by_seen(pred, gold, words, {"roosevelt"})
    assert scores["unseen"] == pytest.approx({"precision": 1, "recall": 1, "f1": 1, "support": 1})
    assert scores["seen"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    scores = entity_f1_by_seen(pred, gold, words, {"zed"})
    assert scores["unseen"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert scores["seen"] == pytest.approx({"precision": 1, "recall": 1, "f1": 1, "support": 1})
    # nothing unseen: everything is seen
    assert entity_f1_by_seen(pred, gold, words, [])["unseen"]["support"] == 0


def test_accuracy():
    assert accuracy([1, 2, 3, 4], [1, 2, 0, 4]) == 0.75
    assert accuracy(torch.tensor([0, 1]), torch.tensor([0, 0])) == 0.5
    assert accuracy(["entailment"], ["entailment"]) == 1.0


BAD = [
    ("pred_labels and gold_labels must have the same length", lambda: accuracy([1], [1, 2])),
    ("pred_labels must not be empty", lambda: accuracy([], [])),
    ("preds", lambda: squad_scores("gravity", ["gravity"])),
    ("preds\\[0\\]", lambda: squad_scores([None], ["gravity"])),
    ("pred", lambda: exact_match(1, "gravity")),
    ("pred_tag_seqs\\[0\\] must have one tag per word", lambda: entity_f1([["O"]], [["O", "O"]])),
    ("gold_tag_seqs\\[0\\]", lambda: entity_f1([["O"]], ["O"])),
    ("words_seqs\\[0\\] must have one word per tag", lambda: entity_f1_by_seen(
        [["O"]], [["O"]], [["a", "b"]], [])),
    ("gold_tag_seqs and words_seqs must have the same length", lambda: entity_f1_by_seen(
        [["O"]], [["O"]], [["a"], ["b"]], [])),
    ("unseen_words must be a collection of words", lambda: entity_f1_by_seen(
        [["O"]], [["O"]], [["a"]], "tom")),
    ("unseen_words\\['PER'\\]", lambda: entity_f1_by_seen(
        [["O"]], [["O"]], [["a"]], {"PER": 3})),
    ("pred_tag_seqs\\[0\\] must have one tag per word", lambda: entity_f1_by_seen(
        [["O", "O"]], [["O"]], [["a"]], [])),
]  # fmt: skip


@pytest.mark.parametrize("match, call", BAD, ids=[f"{i}-{m[:30]}" for i, (m, _) in enumerate(BAD)])
def test_bad_inputs_get_clear_value_errors(match, call):
    with pytest.raises(ValueError, match=match):
        call()
