"""The pre-training inputs of lectures 08 and 15, made from the story corpus
(``lecturekit.datasets.stories.default_data()``): sentence pairs in BERT's ``[CLS] A [SEP] B
[SEP]`` format, their padded and masked batches, the endless pair streams that pre-training
reads and the fixed held-out pairs every model is scored on.

Masked-LM-only models read each document's consecutive sentence pairs in order
(``consecutive_pairs``: natural text, no pair task); models with a pair task read NSP pairs
(``lecturekit.objectives.make_nsp_pairs``, or ``other_topic_nsp_pairs``) or sentence-order
pairs (``lecturekit.objectives.sentence_order_pairs``). The held-out pairs are
``make_nsp_pairs(data.test, Random(1234))`` with masks drawn at 15 % from seed 1234: lecture
08's ``mlm_accuracy`` batches, whatever rate a model was trained with.

Public API::

    batch = pretraining_batch(pairs, tokenizer, generator, prob=0.15)
    #   input_ids (masked, 80/10/10), original_ids, segment_ids, attention_mask (B, T),
    #   mlm_labels (B, T) (-100 where not chosen), nsp_labels (B,)
    consecutive_pairs(docs)                      # (a, b, 0) for every consecutive pair, in order
    other_topic_nsp_pairs(docs, rng)             # NSP whose negatives never share A's topic
    same_topic(a, b)                             # b can occur in a document of a's script
    PAIR_KINDS                                   # "text", "nsp", "nsp other topic", "sop"
    pair_batches(docs, tokenizer, kind, rate=0.15, batch_size=64, steps_per_epoch=None)
    #   -> make_batches(epoch, generator) for lecturekit.training.fit (+ "chosen" (B, T))
    EVAL_SEED                                    # 1234: the held-out pairs and masks
    heldout_pairs(data, kind="nsp"|"sop")        # the fixed held-out pairs
    heldout_batches(data, kind="nsp")            # their batches (15 % masks, fixed; cached)

Lectures 08 and 15; Devlin et al. 2019 sections 3.1 and A.2; Lan et al. 2020 section 4.1.
"""

from __future__ import annotations

import functools
import numbers
import random
from collections.abc import Callable, Sequence
from itertools import pairwise

import torch

from lecturekit.datasets.stories import SCRIPTS, PretrainingData, all_documents, default_data
from lecturekit.objectives import (
    IGNORE,
    IS_NEXT,
    NOT_NEXT,
    check_rate,
    make_nsp_pairs,
    mask_tokens,
    sentence_order_pairs,
)
from lecturekit.tokenization import PAD_ID, WordPieceTokenizer
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_strings,
)

__all__ = [
    "PAIR_KINDS",
    "EVAL_SEED",
    "pretraining_batch",
    "consecutive_pairs",
    "other_topic_nsp_pairs",
    "same_topic",
    "pair_batches",
    "heldout_pairs",
    "heldout_batches",
]

PAIR_KINDS = ("text", "nsp", "nsp other topic", "sop")
EVAL_SEED = 1234  # the held-out pairs and masks (lecture 08's mlm_accuracy / nsp_accuracy)


def _pad(rows: Sequence[Sequence[int]]) -> torch.Tensor:
    T = max(len(r) for r in rows)
    return torch.tensor([[*r, *[PAD_ID] * (T - len(r))] for r in rows])  # (B, T)


def pretraining_batch(
    pairs: Sequence[tuple[str, str, int]],
    tokenizer: WordPieceTokenizer,
    generator: torch.Generator | None = None,
    prob: float = 0.15,
) -> dict[str, torch.Tensor]:
    """``[CLS] A [SEP] B [SEP]`` inputs, padded, with fresh 80/10/10 masks (dynamic masking).

    Returns input_ids (masked), original_ids, segment_ids, attention_mask (B, T) and
    mlm_labels (B, T) (-100 where not chosen), nsp_labels (B,).

    Lecture 08; Devlin et al. 2019 section 3.1 and appendix A.2.
    """
    if isinstance(pairs, str) or not isinstance(pairs, Sequence) or not pairs:
        raise ValueError(f"pairs must be a non-empty list of (a, b, label), got {pairs!r:.60}")
    for i, pair in enumerate(pairs):
        ok = isinstance(pair, (tuple, list)) and len(pair) == 3
        if not ok or not isinstance(pair[0], str) or not isinstance(pair[1], str):
            raise ValueError(f"pairs[{i}] must be (sentence a, sentence b, label), got {pair!r}")
        label = pair[2]
        is_int = isinstance(label, numbers.Integral) and not isinstance(label, bool)
        if not is_int or label not in (IS_NEXT, NOT_NEXT):
            raise ValueError(f"pairs[{i}] has label {pair[2]!r}: the label must be "
                             f"{IS_NEXT} (IsNext) or {NOT_NEXT} (NotNext)")  # fmt: skip
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    check_range("prob", prob, 0, 1, low_open=True)
    encoded = [tokenizer.encode_pair(a, b) for a, b, _ in pairs]
    ids = _pad([e[0] for e in encoded])
    segments = _pad([e[1] for e in encoded])
    masked, labels = mask_tokens(ids, vocab_size=len(tokenizer), prob=prob, generator=generator)
    return {
        "input_ids": masked,
        "original_ids": ids,
        "segment_ids": segments,
        "attention_mask": ids != PAD_ID,
        "mlm_labels": labels,
        "nsp_labels": torch.tensor([label for _, _, label in pairs]),
    }


def consecutive_pairs(docs: Sequence[Sequence[str]]) -> list[tuple[str, str, int]]:
    """Every consecutive sentence pair of every document, in order, labelled 0: natural text
    for a masked LM without a pair task (``[CLS] A [SEP] B [SEP]``, as bert_tiny reads).

    Lecture 15 (the masked-LM-only models' data).
    """
    if isinstance(docs, str) or not isinstance(docs, Sequence) or not docs:
        raise ValueError(f"docs must be a non-empty list of documents (lists of sentences), got "
                         f"{docs!r:.60}")  # fmt: skip
    pairs = []
    for i, doc in enumerate(docs):
        pairs += [(a, b, 0) for a, b in pairwise(check_strings(f"docs[{i}]", doc))]
    if not pairs:
        raise ValueError("docs must hold at least one document of two or more sentences")
    return pairs


def other_topic_nsp_pairs(
    docs: Sequence[Sequence[str]], rng: random.Random
) -> list[tuple[str, str, int]]:
    """NSP pairs whose NotNext sentence never shares the first sentence's topic: every
    consecutive pair of every document, with probability 1/2 the true next sentence (IsNext =
    0), otherwise a sentence of another document that ``same_topic`` says cannot occur in a
    document of A's script (NotNext = 1). BERT's negatives as they are in a large corpus, where
    a random document is almost never about the same thing; ``make_nsp_pairs`` on the nine-script
    toy corpus draws a same-topic negative about one time in nine.

    Lecture 15 (Wu: "negative sentence pairs drawn from different documents").
    """
    return make_nsp_pairs(docs, rng, accept=lambda a, b: not same_topic(a, b))


def _draw_pairs(docs: Sequence[Sequence[str]], kind: str, rng: random.Random) -> list:
    if kind == "nsp":
        return make_nsp_pairs(docs, rng)
    if kind == "nsp other topic":
        return other_topic_nsp_pairs(docs, rng)
    if kind == "sop":
        return sentence_order_pairs(docs, rng)
    return consecutive_pairs(docs)


def _with_chosen(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    batch["chosen"] = batch["mlm_labels"] != IGNORE  # (B, T) the positions the MLM predicts
    return batch


def pair_batches(
    docs: Sequence[Sequence[str]],
    tokenizer: WordPieceTokenizer,
    kind: str,
    rate: float = 0.15,
    batch_size: int = 64,
    steps_per_epoch: int | Sequence[int] | None = None,
) -> Callable[[int, torch.Generator], object]:
    """``make_batches(epoch, generator)`` for ``lecturekit.training.fit``: ``pretraining_batch``
    dicts (+ "chosen" (B, T) bool, the positions whose original token the MLM predicts) of
    ``batch_size`` pairs drawn from an endless stream (a fresh shuffled draw of ``kind`` pairs
    each time the previous one runs out; masks at ``rate`` drawn afresh for every batch).

    Args:
        docs: the training documents (lists of sentences).
        tokenizer: their WordPiece tokenizer.
        kind: "text" (``consecutive_pairs``), "nsp" (``make_nsp_pairs``), "nsp other topic"
            (``other_topic_nsp_pairs``) or "sop" (``sentence_order_pairs``).
        rate: the share of tokens chosen for the MLM, in (0, 1).
        batch_size: pairs per batch.
        steps_per_epoch: batches per "epoch" of ``fit``: an int, or one int per epoch (e.g. the
            steps between two evaluations); None = one pass over a draw of pairs.

    Lecture 15.
    """
    if isinstance(docs, str) or not isinstance(docs, Sequence) or not docs:
        raise ValueError(f"docs must be a non-empty list of documents, got {docs!r:.60}")
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    check_choice("kind", kind, PAIR_KINDS)
    rate = check_rate("rate", rate)
    check_positive_int("batch_size", batch_size)
    if isinstance(steps_per_epoch, int) and not isinstance(steps_per_epoch, bool):
        check_positive_int("steps_per_epoch", steps_per_epoch)
    elif steps_per_epoch is not None:
        steps_per_epoch = check_positive_ints("steps_per_epoch", steps_per_epoch)
    state: dict[str, object] = {}

    def stream(generator: torch.Generator):
        while True:
            rng = random.Random(int(torch.randint(2**31, (1,), generator=generator)))
            pairs = _draw_pairs(docs, kind, rng)
            rng.shuffle(pairs)
            for i in range(0, len(pairs) - batch_size + 1, batch_size):
                yield pairs[i : i + batch_size]

    def make(epoch: int, generator: torch.Generator):
        if steps_per_epoch is None:
            rng = random.Random(int(torch.randint(2**31, (1,), generator=generator)))
            pairs = _draw_pairs(docs, kind, rng)
            rng.shuffle(pairs)
            chunks = [pairs[i : i + batch_size] for i in range(0, len(pairs), batch_size)]
        else:
            if "stream" not in state:
                state["stream"] = stream(generator)
            n = steps_per_epoch if isinstance(steps_per_epoch, int) else steps_per_epoch[epoch]
            chunks = (next(state["stream"]) for _ in range(n))
        for chunk in chunks:
            yield _with_chosen(pretraining_batch(chunk, tokenizer, generator, prob=rate))

    return make


_HELDOUT: dict[tuple[int, str], tuple[PretrainingData, list, list]] = {}


def _heldout(data: PretrainingData | None, kind: str) -> tuple[list, list]:
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    check_choice("kind", kind, ("nsp", "sop"))
    key = (id(data), kind)
    if key not in _HELDOUT or _HELDOUT[key][0] is not data:
        pairs = _draw_pairs(data.test, kind, random.Random(EVAL_SEED))
        generator = torch.Generator().manual_seed(EVAL_SEED)
        batches = [_with_chosen(pretraining_batch(pairs[i : i + 256], data.tokenizer, generator))
                   for i in range(0, len(pairs), 256)]  # fmt: skip
        _HELDOUT[key] = (data, pairs, batches)
    return _HELDOUT[key][1], _HELDOUT[key][2]


def heldout_pairs(data: PretrainingData | None = None, kind: str = "nsp") -> list:
    """The held-out pairs (a, b, label) of ``data.test`` behind ``heldout_batches``: "nsp"
    (``make_nsp_pairs``) or "sop" (``sentence_order_pairs``), drawn from seed ``EVAL_SEED``.

    Lecture 15.
    """
    return list(_heldout(data, kind)[0])


def heldout_batches(
    data: PretrainingData | None = None, kind: str = "nsp"
) -> list[dict[str, torch.Tensor]]:
    """The fixed held-out batches (256 pairs each) of ``heldout_pairs(data, kind)``: "nsp" gives
    exactly lecture 08's ``mlm_accuracy`` / ``nsp_accuracy`` batches; masks at 15 % drawn from
    seed ``EVAL_SEED``, the same positions for every model. Cached per data set.

    Lecture 15.
    """
    return _heldout(data, kind)[1]


def same_topic(a: str, b: str) -> bool:
    """Whether sentence ``b`` can occur in a document of a script (topic) that sentence ``a``
    occurs in (``lecturekit.datasets.stories.all_documents``): an NSP negative that is not
    given away by its topic.

    Lecture 15.
    """
    topics = _topics()
    return bool(topics.get(a, frozenset()) & topics.get(b, frozenset()))


@functools.cache
def _topics() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for script in SCRIPTS:
        for doc in all_documents(script):
            for sentence in doc:
                found.setdefault(sentence, set()).add(script)
    return {k: frozenset(v) for k, v in found.items()}
