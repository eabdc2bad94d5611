"""The benchmarks' scores of lecture 13's fine-tuned models, as the papers compute them: GLUE's
accuracy, the official SQuAD script's exact match and token F1, and CoNLL's entity-level F1
(with the entities of words the labelled set never shows scored apart).

Public API::

    accuracy(pred_labels, gold_labels)                # fraction in 0..1
    normalize_answer(s), exact_match(pred, gold), token_f1(pred, gold)   # the SQuAD script's
    squad_scores(preds, golds)                        # {"exact_match", "f1"}, means in 0..1
    entity_f1(pred_tag_seqs, gold_tag_seqs)           # {"precision", "recall", "f1"} in 0..1
    entity_f1_by_seen(preds, golds, words_seqs, task.info["unseen_words"])  # the same for the
                                             # entities of unseen / seen words: {"seen": {...,
                                             # "support"}, "unseen": {...}} (tagging only)

The entities of a BIO tag sequence: ``lecturekit.datasets.finetuning.entities``. All scores are
fractions in 0..1 (multiply by 100 for the papers' tables).

Lecture 13; Wang et al. 2018 (GLUE); Rajpurkar et al. 2016 (SQuAD); Tjong Kim Sang and De
Meulder 2003 (CoNLL-2003 NER).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import torch

from lecturekit.datasets.finetuning import entities
from lecturekit.utils.checks import check_str, check_strings

__all__ = [
    "accuracy",
    "normalize_answer",
    "exact_match",
    "token_f1",
    "squad_scores",
    "entity_f1",
    "entity_f1_by_seen",
]


def _paired(name_a: str, a: object, name_b: str, b: object) -> tuple[list, list]:
    def as_list(name: str, values: object) -> list:
        if isinstance(values, torch.Tensor):
            return values.reshape(-1).tolist() if values.ndim <= 1 else values.tolist()
        if hasattr(values, "tolist"):  # a numpy array
            return values.tolist()
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise ValueError(f"{name} must be a list (or 1-D tensor), got {type(values).__name__}")
        return list(values)

    a, b = as_list(name_a, a), as_list(name_b, b)
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}"
        )
    if not a:
        raise ValueError(f"{name_a} must not be empty, got no items")
    return a, b


def accuracy(pred_labels: Sequence | torch.Tensor, gold_labels: Sequence | torch.Tensor) -> float:
    """The fraction (0..1) of predicted labels (ids or names) equal to the gold ones.

    Lecture 13 (GLUE's metric for MNLI and SST-2).
    """
    pred, gold = _paired("pred_labels", pred_labels, "gold_labels", gold_labels)
    return sum(p == g for p, g in zip(pred, gold, strict=True)) / len(gold)


def normalize_answer(s: str) -> str:
    """The official SQuAD script's normalisation: lower case, remove punctuation, remove the
    articles a / an / the, collapse white space ("The  gravity!" -> "gravity").

    Lecture 13; Rajpurkar et al. 2016 (evaluate-v2.0.py).
    """
    check_str("s", s, allow_empty=True)
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s, flags=re.UNICODE)
    return " ".join(s.split())


def exact_match(pred: str, gold: str) -> float:
    """1.0 if the normalised answers are equal, else 0.0 ("the gravity" vs "gravity": 1.0).

    Lecture 13; Rajpurkar et al. 2016.
    """
    check_str("pred", pred, allow_empty=True)
    check_str("gold", gold, allow_empty=True)
    return float(normalize_answer(pred) == normalize_answer(gold))


def token_f1(pred: str, gold: str) -> float:
    """F1 of the bags of normalised tokens, as the official SQuAD 2.0 script: precision =
    shared / predicted tokens, recall = shared / gold tokens; if either answer normalises to
    no tokens, 1.0 when both do and 0.0 otherwise.

    Lecture 13; Rajpurkar et al. 2016 (evaluate-v2.0.py, compute_f1).
    """
    check_str("pred", pred, allow_empty=True)
    check_str("gold", gold, allow_empty=True)
    pred_tokens, gold_tokens = normalize_answer(pred).split(), normalize_answer(gold).split()
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def squad_scores(preds: Sequence[str], golds: Sequence[str | Sequence[str]]) -> dict[str, float]:
    """Exact match and token F1 averaged over examples, as fractions in 0..1 (the official
    script prints 100 times these). A gold may be one answer or a list of acceptable answers
    (the best one counts, as in SQuAD).

    Lecture 13; Rajpurkar et al. 2016.
    """
    preds, golds = _paired("preds", preds, "golds", golds)
    em = f1 = 0.0
    for i, (pred, gold) in enumerate(zip(preds, golds, strict=True)):
        check_str(f"preds[{i}]", pred, allow_empty=True)
        answers = [gold] if isinstance(gold, str) else check_strings(f"golds[{i}]", gold)
        em += max(exact_match(pred, g) for g in answers)
        f1 += max(token_f1(pred, g) for g in answers)
    return {"exact_match": em / len(preds), "f1": f1 / len(preds)}


def _entity_tags(
    i: int, pred: object, gold: object
) -> tuple[set[tuple[str, int, int]], set[tuple[str, int, int]]]:
    """The predicted and gold entities of sentence ``i`` (checked: one tag per word each)."""
    pred = check_strings(f"pred_tag_seqs[{i}]", pred, allow_empty=True)
    gold = check_strings(f"gold_tag_seqs[{i}]", gold, allow_empty=True)
    if len(pred) != len(gold):
        raise ValueError(
            f"pred_tag_seqs[{i}] must have one tag per word as gold_tag_seqs[{i}] "
            f"({len(gold)}), got {len(pred)}"
        )
    return entities(pred), entities(gold)


def _prf(found: int, wanted: int, correct: int) -> dict[str, float]:
    precision = correct / found if found else 0.0
    recall = correct / wanted if wanted else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def entity_f1(
    pred_tag_seqs: Sequence[Sequence[str]], gold_tag_seqs: Sequence[Sequence[str]]
) -> dict[str, float]:
    """Entity-level precision, recall and F1 (0..1), micro-averaged over all entities of all
    sentences, as CoNLL scores NER: an entity counts only with the exact type and span (a
    right span with the wrong type is a miss AND a false positive). No predicted (gold)
    entities give precision (recall) 0, as conlleval.

    Lecture 13; Tjong Kim Sang and De Meulder 2003.
    """
    preds, golds = _paired("pred_tag_seqs", pred_tag_seqs, "gold_tag_seqs", gold_tag_seqs)
    found = correct = wanted = 0
    for i, (pred, gold) in enumerate(zip(preds, golds, strict=True)):
        p, g = _entity_tags(i, pred, gold)
        found, wanted, correct = found + len(p), wanted + len(g), correct + len(p & g)
    return _prf(found, wanted, correct)


def entity_f1_by_seen(
    pred_tag_seqs: Sequence[Sequence[str]],
    gold_tag_seqs: Sequence[Sequence[str]],
    words_seqs: Sequence[Sequence[str]],
    unseen_words: Iterable[str] | Mapping[str, Iterable[str]],
) -> dict[str, dict[str, float]]:
    """``entity_f1`` twice: over the entities of unseen words and over the others.

    An entity (predicted or gold) is "unseen" if one of its words is in ``unseen_words``, else
    "seen"; each group gets precision, recall and F1 as ``entity_f1`` (a predicted entity
    counts in the group of its own words) and "support", its number of gold entities.

    Args:
        pred_tag_seqs, gold_tag_seqs: a tag sequence per sentence, as ``entity_f1``.
        words_seqs: the sentences' words (e.g. ``[e.words for e in task.test]``), one per tag.
        unseen_words: the words the train set never shows: a collection of words, or entity
            type -> words (``task.info["unseen_words"]``).

    Returns:
        ``{"seen": {...}, "unseen": {...}}``, each {"precision", "recall", "f1" (0..1),
        "support" (int)}.

    Lecture 13 (pre-training helps most on words the labelled set never shows).
    """
    preds, golds = _paired("pred_tag_seqs", pred_tag_seqs, "gold_tag_seqs", gold_tag_seqs)
    _, sentences = _paired("gold_tag_seqs", golds, "words_seqs", words_seqs)

    def words_of(name: str, words: object) -> list[str]:
        if isinstance(words, (str, bytes)) or not isinstance(words, Iterable):
            raise ValueError(
                f"{name} must be a collection of words or a mapping entity type -> words, "
                f"got {type(words).__name__}"
            )
        return check_strings(name, list(words), allow_empty=True)

    if isinstance(unseen_words, Mapping):
        unseen = {w for k, ws in unseen_words.items() for w in words_of(f"unseen_words[{k!r}]", ws)}
    else:
        unseen = set(words_of("unseen_words", unseen_words))
    counts = {group: Counter() for group in ("seen", "unseen")}
    for i, (pred, gold, words) in enumerate(zip(preds, golds, sentences, strict=True)):
        p, g = _entity_tags(i, pred, gold)
        words = check_strings(f"words_seqs[{i}]", words, allow_empty=True)
        if len(words) != len(gold):
            raise ValueError(
                f"words_seqs[{i}] must have one word per tag of gold_tag_seqs[{i}] "
                f"({len(gold)}), got {len(words)}"
            )
        for entity in p | g:
            _, start, end = entity
            group = counts["unseen" if unseen.intersection(words[start : end + 1]) else "seen"]
            group["found"] += entity in p
            group["wanted"] += entity in g
            group["correct"] += entity in p and entity in g
    return {
        group: {**_prf(c["found"], c["wanted"], c["correct"]), "support": c["wanted"]}
        for group, c in counts.items()
    }
