"""Lecture 08b's exercises: what the tiny BERT learned.

08b.1 one sentence, two models (checker: the shipped BERT and left-to-right LM),
08b.2 top-k fill-mask from the logits (code: run against ``lecturekit.models.bert.fill_mask``),
08b.3 the left-to-right LM's expected accuracy on the right-context blanks (hashed),
08b.4 fool next-sentence prediction (checker: the shipped BERT and the corpus).
"""

from __future__ import annotations

import functools
import itertools
import math
import random

import torch

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    PageAnswer,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("08b", "08b_bert_what_it_learned")


@functools.cache
def _models():
    from lecturekit.shipped import load_shipped, load_tokenizer

    return load_shipped("bert_tiny"), load_shipped("causal_lm_tiny"), load_tokenizer("bert_tiny")


@functools.cache
def _consecutive() -> tuple[frozenset[tuple[str, str]], frozenset[tuple[str, str]]]:
    """The consecutive sentence pairs of the corpus, and the held-out pairs section 3 scored."""
    from lecturekit.datasets.stories import default_data
    from lecturekit.objectives import make_nsp_pairs

    data = default_data()
    consecutive = frozenset(p for doc in data.train + data.test for p in itertools.pairwise(doc))
    held_out = frozenset((a, b) for a, b, _ in make_nsp_pairs(data.test, random.Random(0)))
    return consecutive, held_out


def _word_pair(answer: object, what: str) -> tuple[str, str]:
    if isinstance(answer, str) or not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise NotYet(f"give a pair {what}")
    if not all(isinstance(a, str) and a.strip() for a in answer):
        raise NotYet(f"give a pair {what}, both non-empty strings")
    return answer[0].strip().lower(), answer[1].strip().lower()


def _two_words() -> tuple[str, str]:
    """BERT's top word for "every morning the [MASK] quacks at the sun", and the LM's top next
    token after "every morning the"."""
    from lecturekit.models.bert import fill_mask

    bert, lm, tok = _models()
    bert_top = fill_mask(bert, tok, "every morning the [MASK] quacks at the sun", k=1)[0][0][0]
    ids = tok.encode_pair("every morning the")[0][:-1]  # drop the final [SEP]
    with torch.no_grad():
        lm_top = tok.vocab[int(lm(torch.tensor([ids]))[0][0, -1].argmax())]
    return bert_top, lm_top


def _two_words_page() -> PageAnswer:
    bert_top, lm_top = _two_words()
    return PageAnswer("words", (bert_top, lm_top), traps=((lm_top, bert_top),))


@exercise(
    "08b.1",
    "one sentence, two models",
    hints=(
        'BERT: fill_mask(bert, tok, "every morning the [MASK] quacks at the sun", k=1). '
        'The LM: the most probable next token after the ids of "every morning the" '
        "(without the final [SEP]), as in section 4.",
        "BERT reads the verb to the right of the blank; the LM cannot, so it answers what "
        "most often followed those words in training.",
    ),
    page=_two_words_page,
)
def _two_models(answer: object) -> str:
    bert_word, lm_word = _word_pair(answer, '("BERT\'s word", "the LM\'s word")')
    bert_top, lm_top = _two_words()
    checks = [("BERT's", bert_word, bert_top), ("the LM's", lm_word, lm_top)]
    wrong = [name for name, got, want in checks if got != want]
    if wrong:
        raise NotYet(f"{' and '.join(wrong)} word is not right yet")
    return (
        f"BERT reads 'quacks' and says {bert_top}; the LM cannot see it and says {lm_top}, "
        "the most frequent animal after 'every morning the'"
    )


@exercise(
    "08b.2",
    "top-k fill-mask from the logits",
    hints=(
        "The [MASK] positions are where ids == MASK_ID; at each, softmax the logits over the "
        "vocabulary (the last dimension) and take topk(k).",
        "Return one list per [MASK], in order, of k (token id, probability) pairs, best first: "
        "list(zip(top.indices.tolist(), top.values.tolist())).",
    ),
)
def _fill_mask(answer: object) -> str:
    from lecturekit.models.bert import fill_mask

    bert, _, tok = _models()
    cases = [
        ("i think teddy [MASK] is a great president", 5),
        ("every morning the [MASK] quacks at the sun", 3),
        ("the [MASK] went to the [MASK] [SEP] he bought a gallon of milk", 4),
    ]
    for text, k in cases:
        a, _, b = text.partition(" [SEP] ")
        ids, segments = tok.encode_pair(a, b or None)
        with torch.no_grad():
            logits = bert(torch.tensor([ids]), torch.tensor([segments])).mlm_logits[0]  # (T, V)
        want = fill_mask(bert, tok, text, k=k)
        what = f"your function on {text!r} with k = {k}"
        got = run_student(answer, logits.clone(), list(ids), k, what=what)
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise NotYet(f"{what}: return one list per [MASK] ({len(want)} here)")
        for m, (mine, theirs) in enumerate(zip(got, want, strict=True), start=1):
            try:
                pairs = [(int(t), float(p)) for t, p in mine]
            except (TypeError, ValueError):
                raise NotYet(
                    f"{what}: [MASK] {m} should be a list of (token id, probability)"
                ) from None
            if len(pairs) != k:
                raise NotYet(f"{what}: [MASK] {m} should have k = {k} pairs, got {len(pairs)}")
            tokens = tok.convert_ids_to_tokens([t for t, _ in pairs])
            if tokens != [t for t, _ in theirs]:
                raise NotYet(f"{what}: [MASK] {m}: not the k most probable tokens, best first")
            if not all(
                math.isclose(p, q, abs_tol=1e-5)
                for (_, p), (_, q) in zip(pairs, theirs, strict=True)
            ):
                raise NotYet(
                    f"{what}: [MASK] {m}: the right tokens, but the probabilities differ "
                    "(a softmax over the whole vocabulary?)"
                )
    return (
        "your top-k equals lecturekit's fill_mask on three sentences, two [MASK]s at once "
        "included: the masked-LM head at work, one softmax per blank"
    )


register(
    Exercise(
        "08b.3",
        "how often can the LM be right?",
        hints=(
            "Within a family, the LM's prediction cannot depend on the answer (the right "
            "context is hidden from it), and the answers are drawn uniformly: whatever it "
            "guesses, it is right 1 time in n.",
            "The four families have 2, 5, 5 and 4 answers and 100 blanks each: average their "
            "chances.",
        ),
        expected=Expected("float", ("c2b19c923719473f7232",), 3),
        correct=(
            "{answer}: guessing is all the LM can do, and section 4 measured it near that (its "
            "last digits depend on which answers were drawn)"
        ),
    )
)


@exercise(
    "08b.4",
    "fool next-sentence prediction",
    hints=(
        "Section 3 printed the NotNext pairs BERT believes most (yours must be new): what "
        "gives them away is a detail, often only the pronoun.",
        "Take a real pair of consecutive sentences and change one detail of sentence B (he "
        "and she, a place); nsp_probability(bert, tok, a, b) tells you how BERT sees it.",
    ),
)
def _fool_nsp(answer: object) -> str:
    from lecturekit.models.bert import nsp_probability

    a, b = _word_pair(answer, '("sentence a", "sentence b")')
    consecutive, held_out = _consecutive()
    if (a, b) in consecutive:
        raise NotYet("b does follow a in a document of the corpus: that pair is IsNext")
    if (a, b) in held_out:
        raise NotYet("that pair is one of section 3's held-out pairs: find one of your own")
    bert, _, tok = _models()
    try:
        p = nsp_probability(bert, tok, a, b)
    except ValueError as err:
        raise NotYet(f"BERT cannot read the pair: {err}") from None
    if p <= 0.5:
        raise NotYet(f"P(IsNext) = {p:.3f}: BERT is not fooled yet")
    return f"P(IsNext) = {p:.3f} for a pair that never follows in the corpus"
