"""lecturekit.experiments.generation: the story format, validity, diversity measures, the
continuation NLL, the sampling table, the cache timing, in-context learning accuracy, and the
GPT's right-context blanks (lecture 14)."""

import dataclasses
import random

import pytest
import torch
import torch.nn.functional as F

from lecturekit.datasets.icl import IclConfig, eval_set, make_icl_data
from lecturekit.datasets.stories import (
    END_OF_TEXT,
    SENTENCE_END,
    make_corpus,
    right_context_blanks,
    story_ids,
)
from lecturekit.experiments import generation as eg
from lecturekit.generation import Strategy
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.tokenization import CLS_ID, SEP_ID

END = END_OF_TEXT

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def docs():
    return make_corpus(50)


# --- the story format -----------------------------------------------------------------------


def test_story_ids_layout(tok, docs):
    assert END_OF_TEXT == CLS_ID and SENTENCE_END == SEP_ID
    for doc in docs[:5]:
        want = [CLS_ID]
        for sentence in doc:
            want += [*tok.encode(sentence), SEP_ID]
        assert story_ids(doc, tok) == [*want, CLS_ID]
    with pytest.raises(ValueError, match="document"):
        story_ids("my dog is cute", tok)
    with pytest.raises(ValueError, match="tokenizer"):
        story_ids(docs[0], "tok")


def test_read_story_inverts_story_ids(tok, docs):
    for doc in docs:
        ids = story_ids(doc, tok)
        assert eg.read_story(ids, tok) == eg.Story(tuple(doc), "", True)
        assert eg.read_story(torch.tensor(ids), tok) == eg.Story(tuple(doc), "", True)


def test_read_story_of_a_cut_off_sample_and_after_the_end(tok, docs):
    doc = next(d for d in docs if len(d[1].split()) >= 3)
    cut = [CLS_ID, *tok.encode(doc[0]), SEP_ID, *tok.encode(" ".join(doc[1].split()[:2]))]
    story = eg.read_story(cut, tok)
    assert story == eg.Story((doc[0],), " ".join(doc[1].split()[:2]), False)
    # a new story after the second end-of-text token is ignored
    two = story_ids(docs[0], tok) + story_ids(docs[1], tok)[1:]
    assert eg.read_story(two, tok) == eg.Story(tuple(docs[0]), "", True)
    assert eg.read_story([CLS_ID], tok) == eg.Story((), "", False)


def test_prompt_ids(tok):
    ids = eg.prompt_ids("my dog is cute [SEP] he", tok)
    assert ids == [CLS_ID, *tok.encode("my dog is cute"), SEP_ID, *tok.encode("he")]
    assert eg.read_story(ids, tok) == eg.Story(("my dog is cute",), "he", False)
    assert eg.prompt_ids("", tok) == [CLS_ID]
    with pytest.raises(ValueError, match="text"):
        eg.prompt_ids(3, tok)
    with pytest.raises(ValueError, match="tokenizer"):
        eg.prompt_ids("my dog", None)


# --- validity -------------------------------------------------------------------------------


def test_corpus_documents_and_their_prefixes_are_valid(tok, docs):
    for doc in docs:
        assert eg.story_is_valid(eg.read_story(story_ids(doc, tok), tok))
        for i in range(len(doc) + 1):  # cut after a sentence, by the length limit
            assert eg.story_is_valid(eg.Story(tuple(doc[:i]), "", False))
    doc = docs[0]
    for i in (0, 1):  # cut in the middle of the first or the second sentence
        words = doc[i].split()
        for n in range(1, len(words)):
            assert eg.story_is_valid(eg.Story(tuple(doc[:i]), " ".join(words[:n]), False))
    assert eg.story_is_valid(eg.Story((), "my dog is cu", False))  # the last word cut off


def test_shuffled_mixed_or_trailing_stories_are_invalid(docs):
    doc = next(d for d in docs if len(set(d)) >= 3)
    assert not eg.story_is_valid(eg.Story(tuple(reversed(doc)), "", True))
    assert not eg.story_is_valid(eg.Story(tuple(reversed(doc)), "", False))
    other = next(d for d in docs if d[0].split()[:2] != doc[0].split()[:2])
    mixed = (doc[0], *other[1:])
    assert not eg.story_is_valid(eg.Story(mixed, "", True))
    assert not eg.story_is_valid(eg.Story(mixed, "", False))
    # finished, but words after the last [SEP]; a whole document minus its last sentence
    assert not eg.story_is_valid(eg.Story(tuple(doc), "he", True))
    assert not eg.story_is_valid(eg.Story(tuple(doc[:-1]), "", True))
    # cut off, but its unfinished sentence cannot follow (its last word is not checked)
    assert not eg.story_is_valid(eg.Story((doc[0],), "blue blue blue", False))
    assert not eg.story_is_valid(eg.Story((), "my dog blue blue blue", False))
    with pytest.raises(ValueError, match="story"):
        eg.story_is_valid(tuple(doc))


# --- diversity ------------------------------------------------------------------------------


def test_distinct_n_by_hand():
    texts = ["a b a b", "a b c"]
    assert eg.distinct_n(texts, 1) == pytest.approx(3 / 7)  # a b c of 7 words
    assert eg.distinct_n(texts, 2) == pytest.approx(3 / 5)  # ab ba bc of ab ba ab ab bc
    assert eg.distinct_n(texts, 3) == 1.0  # n-grams never cross texts: aba bab abc
    assert eg.distinct_n(texts, 5) == 0.0
    assert eg.distinct_n([], 1) == 0.0 and eg.distinct_n([""], 2) == 0.0
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        eg.distinct_n(texts, 0)
    with pytest.raises(ValueError, match="texts must be a list of strings"):
        eg.distinct_n("a b", 1)
    with pytest.raises(ValueError, match=r"texts\[1\] must be a string"):
        eg.distinct_n(["a", 1], 1)


def test_repeated_ngram_share_by_hand():
    tokens = ["a", "b", "c", "a", "b", "c", "a"]
    assert eg.repeated_ngram_share(tokens, 2) == pytest.approx(3 / 6)
    assert eg.repeated_ngram_share(tokens, 3) == pytest.approx(2 / 5)
    assert eg.repeated_ngram_share(tokens) == pytest.approx(1 / 4)  # n = 4: abca bcab cabc abca
    assert eg.repeated_ngram_share(["a"] * 4, 1) == pytest.approx(3 / 4)
    assert eg.repeated_ngram_share(["a", "b", "c", "d", "e"], 2) == 0.0
    assert eg.repeated_ngram_share(["a", "b"], 4) == 0.0 and eg.repeated_ngram_share([], 1) == 0.0
    with pytest.raises(ValueError, match="n must be a positive integer"):
        eg.repeated_ngram_share(tokens, 0)
    with pytest.raises(ValueError, match="tokens must be a list of strings"):
        eg.repeated_ngram_share("a b c", 1)
    with pytest.raises(ValueError, match=r"tokens\[0\] must be a string"):
        eg.repeated_ngram_share([1, 2], 1)


# --- the continuation NLL -------------------------------------------------------------------


def test_continuation_nll_by_hand(gpt):
    ids = torch.randint(5, 450, (3, 9), generator=torch.Generator().manual_seed(0))
    got = eg.continuation_nll(gpt, ids, 4)
    logits = gpt(ids).logits  # (3, 9, V)
    want = torch.stack([
        F.cross_entropy(logits[b, 3:-1], ids[b, 4:]) for b in range(3)
    ])  # fmt: skip
    torch.testing.assert_close(got, want)
    assert got.shape == (3,)


def test_continuation_nll_ignores_the_padding_after_the_end(gpt):
    gen = torch.Generator().manual_seed(1)
    finished = [END, *torch.randint(5, 450, (6,), generator=gen).tolist(), END]  # (8,)
    other = [END, *torch.randint(5, 450, (10,), generator=gen).tolist()]  # (11,): unfinished
    padded = finished + [END] * 3  # (11,)
    alone = eg.continuation_nll(gpt, torch.tensor([finished]), 3, pad_id=END)
    batch = eg.continuation_nll(gpt, torch.tensor([padded, other]), 3, pad_id=END)
    torch.testing.assert_close(batch[0], alone[0])  # its end token counts, the padding not
    torch.testing.assert_close(batch[1], eg.continuation_nll(gpt, torch.tensor([other]), 3)[0])
    counted = eg.continuation_nll(gpt, torch.tensor([padded]), 3)  # without pad_id: counted
    assert not torch.allclose(counted[0], alone[0])


def test_continuation_nll_checks_its_inputs(gpt):
    ids = torch.randint(450, (2, 5))
    with pytest.raises(ValueError, match="prompt_length must be a positive integer, got 0"):
        eg.continuation_nll(gpt, ids, 0)
    with pytest.raises(ValueError, match="prompt_length=5 leaves no generated token"):
        eg.continuation_nll(gpt, ids, 5)
    with pytest.raises(ValueError, match="ids must be a"):
        eg.continuation_nll(gpt, ids[0], 2)
    with pytest.raises(ValueError, match="model"):
        eg.continuation_nll("gpt", ids, 2)


# --- sampling -------------------------------------------------------------------------------


def test_sample_rows(gpt, tok):
    prompt = eg.prompt_ids("my dog", tok)
    ids = eg.sample(gpt, tok, "my dog", Strategy.sample(), n_samples=4, max_new_tokens=6, seed=3)
    assert ids.shape[0] == 4 and len(prompt) < ids.shape[1] <= len(prompt) + 6
    assert (ids[:, : len(prompt)] == torch.tensor(prompt)).all()
    assert torch.equal(ids, eg.sample(gpt, tok, "my dog", Strategy.sample(), 4, 6, seed=3))
    assert len({tuple(r) for r in ids.tolist()}) > 1  # a random model's samples differ
    for strategy in (Strategy.greedy(), Strategy.beam(beam_size=2)):
        ids = eg.sample(gpt, tok, "my dog", strategy, n_samples=3, max_new_tokens=6)
        assert ids.shape[0] == 3 and len({tuple(r) for r in ids.tolist()}) == 1
    with pytest.raises(ValueError, match="strategy"):
        eg.sample(gpt, tok, "my dog", "greedy")
    with pytest.raises(ValueError, match="n_samples"):
        eg.sample(gpt, tok, "my dog", Strategy.greedy(), n_samples=0)


def test_sampling_table(gpt, tok):
    strategies = {k: eg.STRATEGIES[k] for k in ("greedy", "beam (k=4)", "T = 1", "top-k = 5")}
    rows = eg.sampling_table(gpt, tok, "my dog", strategies, n_samples=4, max_new_tokens=8)
    assert [r["strategy"] for r in rows] == list(strategies)
    keys = {"strategy", "distinct_1", "distinct_2", "unique", "perplexity", "valid", "finished"}
    for row in rows:
        assert set(row) == keys
        assert 0 < row["distinct_1"] <= 1 and 0 < row["distinct_2"] <= 1
        assert 1 <= row["unique"] <= 4 and row["perplexity"] > 1
        assert 0 <= row["valid"] <= 1 and 0 <= row["finished"] <= 1
    by_name = {r["strategy"]: r for r in rows}
    assert by_name["greedy"]["unique"] == by_name["beam (k=4)"]["unique"] == 1
    assert by_name["T = 1"]["unique"] > 1
    assert by_name["T = 1"]["valid"] == 0  # a random model writes no story
    again = eg.sampling_table(gpt, tok, "my dog", strategies, n_samples=4, max_new_tokens=8)
    assert again == rows  # deterministic for a seed
    for bad in ({}, [Strategy.greedy()]):
        with pytest.raises(ValueError, match="strategies must be a non-empty dict"):
            eg.sampling_table(gpt, tok, "my dog", bad, n_samples=2)
    with pytest.raises(ValueError, match=r"strategies\['x'\]"):
        eg.sampling_table(gpt, tok, "my dog", {"x": "greedy"}, n_samples=2)


def test_the_lectures_strategies():
    assert list(eg.STRATEGIES) == [
        "greedy", "beam (k=4)", "T = 0.5", "T = 1", "T = 1.5", "top-k = 5", "top-p = 0.9"
    ]  # fmt: skip
    assert eg.STRATEGIES["beam (k=4)"].kind == "beam" and eg.STRATEGIES["top-p = 0.9"].top_p == 0.9


# --- the KV cache ---------------------------------------------------------------------------


def test_cache_timing_rows(gpt):
    rows = eg.cache_timing(gpt, [4, 20], new_tokens=3, repeats=1)
    assert [r["prefix_length"] for r in rows] == [4, 20]
    for row in rows:
        assert set(row) == {"prefix_length", "seconds_full", "seconds_cached", "speedup"}
        assert row["seconds_full"] > 0 and row["seconds_cached"] > 0
        assert row["speedup"] == pytest.approx(row["seconds_full"] / row["seconds_cached"])
    with pytest.raises(ValueError, match="prefix_lengths"):
        eg.cache_timing(gpt, [0])
    with pytest.raises(ValueError, match="new_tokens"):
        eg.cache_timing(gpt, [4], new_tokens=0)
    with pytest.raises(ValueError, match="max_position"):
        eg.cache_timing(gpt, [126], new_tokens=3)


def test_cache_timing_refuses_a_cache_that_changes_the_tokens(gpt, monkeypatch):
    real = eg.generate

    def wrong_cache(model, prompt, n, strategy, **kwargs):
        out = real(model, prompt, n, strategy, **kwargs)
        if kwargs.get("use_cache"):
            out[:, -1] = (out[:, -1] + 1) % model.config.vocab_size
        return out

    monkeypatch.setattr(eg, "generate", wrong_cache)
    with pytest.raises(ValueError, match="the cache changed the generated tokens at prefix 4"):
        eg.cache_timing(gpt, [4], new_tokens=2, repeats=1)


# --- in-context learning --------------------------------------------------------------------


@pytest.fixture(scope="module")
def icl():
    data = make_icl_data(IclConfig())
    torch.manual_seed(0)
    model = GPT(GPTConfig.tiny(vocab_size=len(data.vocab), max_position=64)).eval()
    examples = [ex for k in (0, 1, 3, 8) for ex in eval_set(data, k, 6, seed=2)]
    random.Random(0).shuffle(examples)  # lengths mixed
    return model, examples


def test_icl_predictions_batched_equal_one_at_a_time(icl):
    model, examples = icl
    with torch.no_grad():
        want = [int(model(torch.tensor([ex.prompt_ids])).logits[0, -1].argmax()) for ex in examples]
    assert eg.icl_predictions(model, examples) == want
    model.train()
    assert eg.icl_predictions(model, examples) == want  # eval mode inside, the mode restored
    assert model.training
    model.eval()


def test_icl_accuracy_is_the_share_right(icl):
    model, examples = icl
    guesses = eg.icl_predictions(model, examples)
    right = [
        dataclasses.replace(ex, answer_id=g) if i % 4 == 0 else ex
        for i, (ex, g) in enumerate(zip(examples, guesses, strict=True))
    ]
    want = sum(g == ex.answer_id for g, ex in zip(guesses, right, strict=True)) / len(right)
    assert want >= 0.25
    assert eg.icl_accuracy(model, right) == pytest.approx(want)
    wrong = [
        dataclasses.replace(ex, answer_id=(g + 1) % 20)
        for ex, g in zip(examples, guesses, strict=True)
    ]
    assert eg.icl_accuracy(model, wrong) == 0.0
    assert eg.icl_accuracy(model, [dataclasses.replace(examples[0], answer_id=guesses[0])]) == 1.0


def test_icl_bad_inputs(icl):
    model, examples = icl
    with pytest.raises(ValueError, match="examples must be a non-empty list of IclExample"):
        eg.icl_accuracy(model, [])
    with pytest.raises(ValueError, match=r"examples\[1\]"):
        eg.icl_predictions(model, [examples[0], "tom -> A"])
    with pytest.raises(ValueError, match="model"):
        eg.icl_accuracy("model", examples)


# --- the right-context blanks ---------------------------------------------------------------


def test_gpt_blank_predictions_read_only_the_left_context(gpt, tok):
    blanks = right_context_blanks(12, seed=1)
    guesses = eg.gpt_blank_predictions(gpt, tok, blanks)
    assert len(guesses) == 12 and all(g in tok.vocab for g in guesses)
    changed = [
        dataclasses.replace(
            b, words=(*b.words[: b.index], "penguins", *["football"] * (len(b.words) - b.index))
        )
        for b in blanks
    ]
    gpt.train()
    assert eg.gpt_blank_predictions(gpt, tok, changed) == guesses  # the right side unseen
    assert gpt.training  # the mode restored
    gpt.eval()
    with pytest.raises(ValueError, match="blanks must be a non-empty list of Blank"):
        eg.gpt_blank_predictions(gpt, tok, [])
    with pytest.raises(ValueError, match=r"blanks\[0\]"):
        eg.gpt_blank_predictions(gpt, tok, ["i think teddy"])
    with pytest.raises(ValueError, match="tokenizer"):
        eg.gpt_blank_predictions(gpt, "tok", blanks)
