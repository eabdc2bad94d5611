"""lecturekit.datasets.stories: the exact grammar of the story world (every document a script
can produce, enumerated), and the checks lecture 14 applies to a GPT's samples."""

import hashlib
import json
import random

import pytest

from lecturekit.datasets.stories import (
    BIRDS,
    FEMALE_NAMES,
    MALE_NAMES,
    PETS,
    RIGHT_CONTEXT_FAMILIES,
    SCRIPTS,
    all_documents,
    all_sentences,
    document_counts,
    is_valid_document,
    is_valid_prefix,
    is_valid_sentence,
    make_corpus,
    make_document,
    normalize_sentence,
)


def test_make_corpus_is_unchanged():
    # existing checkpoints were trained on this corpus: its bytes must never change
    digest = hashlib.sha256(json.dumps(make_corpus(400, 0)).encode()).hexdigest()
    assert digest == "5174bc5acb9424de12810cdb1c2c632987d05bd72cfe1ac24cada469135c9a38"


@pytest.mark.parametrize("seed", [0, 11])
def test_every_corpus_document_is_in_the_grammar(seed):
    documents = all_documents()
    for document in make_corpus(2000, seed):
        assert tuple(document) in documents
        assert is_valid_document(document)
        assert all(is_valid_sentence(s) for s in document)
        for i in range(len(document) + 1):
            assert is_valid_prefix(document[:i])


def test_document_counts_match_an_independent_computation():
    people = len(MALE_NAMES) + len(FEMALE_NAMES)  # a name (either gender)
    phrased = people + 4  # or "the man", "my father", "the woman", "my mother"
    places = len(RIGHT_CONTEXT_FAMILIES["place"])
    expected = {
        "store": 2 * 4,  # gender x distinct items (milk is listed twice)
        "pet": len(PETS) * 6 * 2 * 4 * 3,  # pet, likes, pronoun, other, where
        "birds": len(BIRDS),
        "president": 3,
        "teddy bear": people * 3 * 2,  # colour, occasion
        "weather": people * 4,
        "errands": phrased * places * (places - 1),  # two different places, ordered
        "sports": people * 3 * 2,
        "hobby": people * 19 * 4,
    }
    assert document_counts() == expected
    assert expected["birds"] == 4
    assert len(all_documents()) == sum(expected.values())  # the scripts share no document
    for script in SCRIPTS:
        assert all_documents(script) <= all_documents()


@pytest.mark.parametrize("script", ["store", "birds", "president", "weather"])
def test_sampling_a_small_script_finds_exactly_its_documents(script):
    sampled = {tuple(make_document(random.Random(i), script)) for i in range(3000)}
    assert sampled == set(all_documents(script))


def test_sentences():
    sentences = all_sentences()
    assert sentences == {s for d in all_documents() for s in d}
    assert "my dog is cute" in sentences
    assert is_valid_sentence("  My dog   is CUTE ")  # whitespace and case normalised
    assert normalize_sentence("  My dog   is CUTE ") == "my dog is cute"
    assert not is_valid_sentence("the dog barks at the")  # cut off
    assert not is_valid_sentence("my dog is cute very much")
    assert not is_valid_sentence("")


def test_inconsistent_documents_are_rejected():
    # the pet changes between sentences; each sentence alone is fine
    assert is_valid_sentence("every morning the cat meows at the sun")
    assert not is_valid_document(["my dog is cute", "every morning the cat meows at the sun"])
    assert not is_valid_prefix(["my dog is cute", "every morning the cat meows at the sun"])
    pet = [
        "my dog is cute",
        "he likes playing in the park",
        "every morning the dog barks at the sun",
        "at night he sleeps on a blanket",
        "i love my dog very much",
    ]
    assert is_valid_document(pet)
    assert not is_valid_document([*pet[:4], "i love my cat very much"])  # another pet
    assert not is_valid_document([*pet[:3], "at night she sleeps on a blanket", pet[4]])  # pronoun
    assert not is_valid_document(
        [*pet[:3], "at night he sleeps on the sofa", pet[4]]
    )  # a cat's bed
    assert not is_valid_document(pet[:4])  # a prefix, not a whole document
    assert is_valid_prefix(pet[:4])
    assert not is_valid_document([pet[1], pet[0], *pet[2:]])  # out of order
    sports = ["tom plays tennis every weekend", "today she is training with her friends"]
    assert not is_valid_prefix(sports)  # tom is "he"
    assert is_valid_prefix(
        ["tom plays tennis every weekend", "today he is training with his friends"]
    )


def test_prefixes_cut_mid_sentence():
    assert is_valid_prefix([])
    assert is_valid_prefix(["my dog is cute", "he likes"], partial_last=True)
    assert not is_valid_prefix(["my dog is cute", "he likes"])
    assert not is_valid_prefix(["my dog is cute", "he likes play"], partial_last=True)  # words
    assert not is_valid_prefix(["my dog is cute", "she sleeps"], partial_last=True)
    assert is_valid_prefix(["penguins are"], partial_last=True)
    assert is_valid_prefix(["penguins are flightless birds"], partial_last=True)
    assert not is_valid_prefix(["penguins are fearless"], partial_last=True)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: all_documents("nope"), "script"),
        (lambda: is_valid_sentence(3), "sentence"),
        (lambda: is_valid_document("my dog is cute"), "sentences"),
        (lambda: is_valid_document(["my dog is cute", 3]), r"sentences\[1\]"),
        (lambda: is_valid_prefix(["my dog is cute"], partial_last="yes"), "partial_last"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
