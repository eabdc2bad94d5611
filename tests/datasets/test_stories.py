"""lecturekit.datasets.stories: the toy pre-training corpus and its right-context blanks."""

import random

import pytest

from lecturekit.datasets.stories import (
    RIGHT_CONTEXT_FAMILIES,
    SCRIPTS,
    default_data,
    make_corpus,
    make_document,
    right_context_blanks,
)


def test_corpus_is_deterministic_and_uses_every_script():
    a, b = make_corpus(200, seed=3), make_corpus(200, seed=3)
    assert a == b and a != make_corpus(200, seed=4)
    firsts = {make_document(random.Random(0), s)[0] for s in SCRIPTS}
    assert len(firsts) == len(SCRIPTS)
    assert all(3 <= len(d) <= 5 for d in a)


def test_the_slides_sentences_occur():
    sentences = {s for d in make_corpus(4000) for s in d}
    for s in (
        "my dog is cute",
        "he likes playing in the park",
        "the man went to the store",
        "he bought a gallon of milk",
        "penguins are flightless birds",
        "i think teddy roosevelt is a great president",
        "i think teddy bears make great presents for kids",
    ):
        assert s in sentences


def test_blanks_left_context_does_not_depend_on_the_answer():
    blanks = right_context_blanks(2000, seed=5)
    for family, answers in RIGHT_CONTEXT_FAMILIES.items():
        mine = [b for b in blanks if b.family == family]
        assert {b.answer for b in mine} == set(answers)  # every answer occurs
        lefts = {}
        for b in mine:
            lefts.setdefault(b.answer, set()).add(b.words[: b.index])
        common = set.intersection(*lefts.values())
        assert common, family  # the same left context occurs with every answer
        for b in mine:  # and the right context names the answer
            right = " ".join(b.words[b.index + 1 :])
            assert right.startswith(answers[b.answer])


def test_blank_answers_are_single_tokens_of_the_lecture_vocabulary():
    tok = default_data().tokenizer
    for answers in RIGHT_CONTEXT_FAMILIES.values():
        for word in answers:
            assert tok.tokenize(word) == [word]


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="script='zoo' is not one of"):
        make_document(random.Random(0), "zoo")
    with pytest.raises(ValueError, match="n_documents must be a positive integer"):
        make_corpus(0)
