"""Lecture 14's measurements: stories in the GPT's format, what sampling does to them (diversity
vs quality), the KV cache's speed-up, in-context learning accuracy, and the three families on
the right-context blanks.

The story GPT reads a document as ``[CLS] s1 [SEP] s2 [SEP] ... sN [SEP] [CLS]``
(``lecturekit.datasets.stories.story_ids``): one token (here [CLS]) both starts and ends a
text, as GPT-2's ``<|endoftext|>`` does, and [SEP] ends a sentence. So a sample is finished
when the model writes [CLS] again.

Public API::

    ids = prompt_ids("my dog", tokenizer)          # [CLS] my dog: a prompt in that format
    story = read_story(ids, tokenizer)             # Story(sentences, fragment, finished)
    story_is_valid(story)                          # every sentence, and the story, grammatical
    distinct_n(texts, n), repeated_ngram_share(tokens, n)
    nll = continuation_nll(model, ids, prompt_length)   # (B,) mean -log p of generated tokens
    rows = sampling_table(model, tokenizer, "my dog", STRATEGIES, n_samples=50)
    rows = cache_timing(model, prefix_lengths, new_tokens)  # seconds with / without the cache
    acc = icl_accuracy(model, examples)                 # in-context learning, at the query
    guesses = gpt_blank_predictions(gpt, tokenizer, blanks)  # the left context only

Lecture 14; Radford et al. 2018/2019, Brown et al. 2020; Holtzman et al. 2020 (nucleus
sampling, and why greedy text repeats); Li et al. 2016 (distinct-n).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from lecturekit.datasets.icl import IclExample
from lecturekit.datasets.stories import (
    END_OF_TEXT,
    SENTENCE_END,
    Blank,
    is_valid_document,
    is_valid_prefix,
)
from lecturekit.generation import Strategy, generate
from lecturekit.models.gpt import GPT
from lecturekit.tokenization import WordPieceTokenizer
from lecturekit.utils.checks import (
    check_instance,
    check_positive_int,
    check_positive_ints,
    check_seed,
    check_str,
    check_strings,
)

__all__ = [
    "STRATEGIES",
    "Story",
    "prompt_ids",
    "read_story",
    "story_is_valid",
    "distinct_n",
    "repeated_ngram_share",
    "continuation_nll",
    "sample",
    "sampling_table",
    "cache_timing",
    "icl_accuracy",
    "icl_predictions",
    "gpt_blank_predictions",
]

# the strategies lecture 14 compares, in the order its table and figure show them
STRATEGIES: dict[str, Strategy] = {
    "greedy": Strategy.greedy(),
    "beam (k=4)": Strategy.beam(beam_size=4),
    "T = 0.5": Strategy.sample(temperature=0.5),
    "T = 1": Strategy.sample(temperature=1.0),
    "T = 1.5": Strategy.sample(temperature=1.5),
    "top-k = 5": Strategy.sample(top_k=5),
    "top-p = 0.9": Strategy.sample(top_p=0.9),
}


@dataclass(frozen=True)
class Story:
    """A text in the GPT's format, read back: its complete sentences (each ended by [SEP]),
    the unfinished words after the last [SEP], and whether the end-of-text token came."""

    sentences: tuple[str, ...]
    fragment: str
    finished: bool


def _check_tokenizer(tokenizer: object) -> WordPieceTokenizer:
    return check_instance("tokenizer", tokenizer, WordPieceTokenizer)


def prompt_ids(text: str, tokenizer: WordPieceTokenizer) -> list[int]:
    """``[CLS]`` + the ids of ``text``: a prompt that starts a story ("my dog" -> [CLS] my dog).
    Write ``[SEP]`` in the text to end a sentence ("my dog is cute [SEP] he")."""
    check_str("text", text, allow_empty=True)
    return [END_OF_TEXT, *_check_tokenizer(tokenizer).encode(text)]


def read_story(ids: Sequence[int] | torch.Tensor, tokenizer: WordPieceTokenizer) -> Story:
    """Read generated ids (prompt included, starting with [CLS]) back into sentences: up to the
    second end-of-text token; anything after it (a new story) is ignored."""
    _check_tokenizer(tokenizer)
    ids = ids.tolist() if isinstance(ids, torch.Tensor) else list(ids)
    if ids and ids[0] == END_OF_TEXT:
        ids = ids[1:]
    finished = END_OF_TEXT in ids
    if finished:
        ids = ids[: ids.index(END_OF_TEXT)]
    sentences, current = [], []
    for i in ids:
        if i == SENTENCE_END:
            sentences.append(tokenizer.decode(current))
            current = []
        else:
            current.append(i)
    return Story(tuple(sentences), tokenizer.decode(current), finished)


def story_is_valid(story: Story) -> bool:
    """Whether a story obeys the world's grammar: a finished story is one of the documents the
    scripts can write (names, pronouns and pets consistent); an unfinished one (cut by the
    length limit) starts like one: its sentences, then its fragment as the first words of a
    sentence that can follow them (the fragment's last word is not checked: the limit may
    have cut it mid-word). Words after the last [SEP] of a finished story make it invalid.

    Lecture 14; the grammar is ``lecturekit.datasets.stories.all_documents``.
    """
    check_instance("story", story, Story)
    if story.finished:
        return not story.fragment and is_valid_document(list(story.sentences))
    words = story.fragment.split()[:-1]
    if not words:
        return is_valid_prefix(list(story.sentences))
    return is_valid_prefix([*story.sentences, " ".join(words)], partial_last=True)


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def distinct_n(texts: Sequence[str], n: int) -> float:
    """distinct-n: the number of different word n-grams in ``texts`` over the number of
    n-grams (Li et al. 2016); 1.0 when none repeats. 0.0 when there is no n-gram at all."""
    texts = check_strings("texts", texts, allow_empty=True)
    check_positive_int("n", n)
    grams = [g for text in texts for g in _ngrams(text.split(), n)]
    return len(set(grams)) / len(grams) if grams else 0.0


def repeated_ngram_share(tokens: Sequence[str], n: int = 4) -> float:
    """The share of a text's n-grams that already occurred earlier in it: how much a
    generation repeats itself (0 = never, near 1 = a loop). 0.0 for a text shorter than n."""
    tokens = check_strings("tokens", tokens, allow_empty=True)
    check_positive_int("n", n)
    grams = _ngrams(tokens, n)
    seen, repeats = set(), 0
    for g in grams:
        repeats += g in seen
        seen.add(g)
    return repeats / len(grams) if grams else 0.0


def _check_gpt(model: object) -> GPT:
    return check_instance("model", model, GPT)


@torch.no_grad()
def continuation_nll(
    model: GPT, ids: torch.Tensor, prompt_length: int, pad_id: int | None = None
) -> torch.Tensor:
    """The mean negative log-likelihood, under ``model`` itself (no temperature, no
    filtering), of each row's tokens after the prompt: ids (B, T) -> (B,). exp() of it is the
    sample's perplexity under its own model. Positions equal to ``pad_id`` after the row's
    end are not counted.

    Lecture 14.
    """
    _check_gpt(model)
    if not isinstance(ids, torch.Tensor) or ids.ndim != 2:
        raise ValueError(f"ids must be a (B, T) tensor of token ids, got {type(ids).__name__}")
    check_positive_int("prompt_length", prompt_length)
    if prompt_length >= ids.shape[1]:
        raise ValueError(
            f"prompt_length={prompt_length} leaves no generated token in ids of shape "
            f"{tuple(ids.shape)}"
        )
    was_training = model.training
    model.eval()
    logits = model(ids).logits[:, :-1]  # (B, T - 1, V): position t predicts t + 1
    model.train(was_training)
    nll = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")  # (B, T - 1)
    keep = torch.zeros_like(nll, dtype=torch.bool)
    keep[:, prompt_length - 1 :] = True
    if pad_id is not None:  # a finished row: its end token counts, the padding after it not
        finished = (ids[:, prompt_length:] == pad_id).cumsum(1) > 1  # (B, T - prompt_length)
        keep[:, prompt_length - 1 :] &= ~finished
    return (nll * keep).sum(1) / keep.sum(1)


def sample(
    model: GPT,
    tokenizer: WordPieceTokenizer,
    prompt: str,
    strategy: Strategy,
    n_samples: int = 1,
    max_new_tokens: int = 60,
    seed: int = 0,
) -> torch.Tensor:
    """``n_samples`` continuations of ``prompt`` (a story start, see ``prompt_ids``) under
    ``strategy``, stopping at the end-of-text token: (n_samples, T) ids, padded after the end
    with [CLS]. Greedy and beam search are deterministic: one continuation, repeated.

    Lecture 14.
    """
    _check_gpt(model)
    check_instance("strategy", strategy, Strategy)
    check_positive_int("n_samples", n_samples)
    check_seed(seed)
    prompt = torch.tensor([prompt_ids(prompt, tokenizer)])  # (1, Tp)
    rows = n_samples if strategy.kind == "sample" else 1
    generator = torch.Generator().manual_seed(seed)
    out = generate(model, prompt.expand(rows, -1), max_new_tokens, strategy,
                   generator=generator, eos_id=END_OF_TEXT)  # fmt: skip
    return out.expand(n_samples, -1) if rows == 1 else out


def sampling_table(
    model: GPT,
    tokenizer: WordPieceTokenizer,
    prompt: str,
    strategies: Mapping[str, Strategy] | None = None,
    n_samples: int = 50,
    max_new_tokens: int = 60,
    seed: int = 0,
) -> list[dict[str, object]]:
    """Diversity vs quality of each strategy's ``n_samples`` continuations of ``prompt``.

    Returns one row per strategy: its name; ``distinct_1``/``distinct_2`` of the generated
    words over all samples (diversity); ``unique``, the number of different samples;
    ``perplexity``, exp of the mean per-token NLL under the model itself (quality as the model
    sees it); ``valid``, the share of samples that obey the world's grammar (``story_is_valid``,
    quality as the world sees it); ``finished``, the share that ended on their own.

    Lecture 14; Holtzman et al. 2020 (the diversity / quality trade-off).
    """
    strategies = STRATEGIES if strategies is None else strategies
    if not isinstance(strategies, Mapping) or not strategies:
        raise ValueError("strategies must be a non-empty dict of name -> Strategy")
    start = len(prompt_ids(prompt, tokenizer))
    rows = []
    for name, strategy in strategies.items():
        check_instance(f"strategies[{name!r}]", strategy, Strategy)
        ids = sample(model, tokenizer, prompt, strategy, n_samples, max_new_tokens, seed)
        stories = [read_story(row, tokenizer) for row in ids]
        texts = [tokenizer.decode(row[start:]) for row in ids]
        nll = continuation_nll(model, ids, start, pad_id=END_OF_TEXT)
        rows.append({
            "strategy": name,
            "distinct_1": distinct_n(texts, 1),
            "distinct_2": distinct_n(texts, 2),
            "unique": len(set(texts)),
            "perplexity": float(nll.mean().exp()),
            "valid": sum(map(story_is_valid, stories)) / len(stories),
            "finished": sum(s.finished for s in stories) / len(stories),
        })  # fmt: skip
    return rows


@torch.no_grad()
def cache_timing(
    model: GPT,
    prefix_lengths: Sequence[int],
    new_tokens: int = 16,
    repeats: int = 3,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Seconds per generated token, greedy, with and without the KV cache, after a random
    prompt of each prefix length (the best of ``repeats`` runs): the cache's speed-up as the
    prefix grows. Also checks that both ways generate the same tokens (ValueError if not:
    the cache must not change the result).

    Lecture 14 (the KV cache of lecture 10, for a decoder-only model).
    """
    _check_gpt(model)
    lengths = check_positive_ints("prefix_lengths", prefix_lengths)
    check_positive_int("new_tokens", new_tokens)
    check_positive_int("repeats", repeats)
    check_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    V = model.config.vocab_size
    rows = []
    for length in lengths:
        prompt = torch.randint(V, (1, length), generator=generator)  # (1, length)
        seconds, outputs = {}, {}
        for cached in (False, True):
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                out = generate(model, prompt, new_tokens, "greedy", use_cache=cached)
                best = min(best, time.perf_counter() - start)
            seconds[cached], outputs[cached] = best / new_tokens, out
        if not torch.equal(outputs[False], outputs[True]):
            raise ValueError(f"the cache changed the generated tokens at prefix {length}")
        rows.append({"prefix_length": length, "seconds_full": seconds[False],
                     "seconds_cached": seconds[True],
                     "speedup": seconds[False] / seconds[True]})  # fmt: skip
    return rows


def _check_examples(examples: object) -> list[IclExample]:
    if not isinstance(examples, Sequence) or not examples:
        raise ValueError("examples must be a non-empty list of IclExample")
    for i, example in enumerate(examples):
        check_instance(f"examples[{i}]", example, IclExample)
    return list(examples)


@torch.no_grad()
def icl_predictions(model: GPT, examples: Sequence[IclExample]) -> list[int]:
    """The model's answer (argmax over its whole vocabulary, no gradient step) after each
    example's prompt: the examples in context, then the query and its arrow. Prompts of one
    length run as one batch.

    Lecture 14; Brown et al. 2020 (in-context learning).
    """
    _check_gpt(model)
    examples = _check_examples(examples)
    was_training = model.training
    model.eval()
    guesses = [0] * len(examples)
    by_length: dict[int, list[int]] = {}
    for i, example in enumerate(examples):
        by_length.setdefault(example.query_position + 1, []).append(i)
    for length, rows in by_length.items():
        ids = torch.tensor([examples[i].ids[:length] for i in rows])  # (n, length)
        answers = model(ids).logits[:, -1].argmax(-1)  # (n, length, V) -> (n,)
        for i, answer in zip(rows, answers.tolist(), strict=True):
            guesses[i] = answer
    model.train(was_training)
    return guesses


def icl_accuracy(model: GPT, examples: Sequence[IclExample]) -> float:
    """The share of ``examples`` whose query the model answers right from its prompt alone.

    Lecture 14.
    """
    examples = _check_examples(examples)
    guesses = icl_predictions(model, examples)
    return sum(g == e.answer_id for g, e in zip(guesses, examples, strict=True)) / len(examples)


@torch.no_grad()
def gpt_blank_predictions(
    model: GPT, tokenizer: WordPieceTokenizer, blanks: Sequence[Blank]
) -> list[str]:
    """The GPT's guess for each right-context blank: it reads ``[CLS]`` + the words left of
    the blank and predicts the next token; the words to the right it cannot see.

    Lecture 14 (a decoder "can't condition on future words").
    """
    _check_gpt(model)
    if not isinstance(blanks, Sequence) or isinstance(blanks, str) or not blanks:
        raise ValueError("blanks must be a non-empty list of Blank")
    was_training = model.training
    model.eval()
    guesses = []
    for i, blank in enumerate(blanks):
        check_instance(f"blanks[{i}]", blank, Blank)
        ids = torch.tensor([prompt_ids(" ".join(blank.words[: blank.index]), tokenizer)])
        guesses.append(tokenizer.vocab[int(model(ids).logits[0, -1].argmax())])
    model.train(was_training)
    return guesses
