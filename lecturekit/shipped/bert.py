"""The shipped models of lecture 08: a tiny BERT pre-trained with masked LM + next-sentence
prediction, and a same-size left-to-right LM (the baseline); their data, training, evaluation.

Public API::

    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")   # lecturekit.shipped
    lm = load_shipped("causal_lm_tiny")
    pairs = make_nsp_pairs(docs, rng)           # (a, b, label): 0 = IsNext, 1 = NotNext, 50/50
    batch = pretraining_batch(pairs, tok, generator)   # ids, segments, mask, MLM and NSP labels
    bert, history = train_bert(data, epochs=...)       # loss = MLM + NSP
    #   max_steps=N: only the first N optimizer steps of that run (lecture 08a's loop)
    lm, history = train_causal_lm(data, epochs=...)    # next-token loss on the same sequences
    #   both take device="cpu" (cuda, cuda:N, mps: trained there, returned on the CPU)
    mlm_accuracy(bert, data), nsp_accuracy(bert, data), blank_accuracy(model, tok, blanks)

The corpus and its tokenizer: ``lecturekit.datasets.stories.default_data()``; fill-in-the-blank
and next-sentence probabilities of any BERT: ``lecturekit.models.bert`` (``fill_mask``,
``nsp_probability``).

Command line (regenerates both checkpoints and their MANIFEST lines)::

    python -m lecturekit.shipped.bert [--models bert_tiny causal_lm_tiny] [--epochs N]
                                      [--threads 1] [--device cpu|cuda|cuda:N|mps]

Lecture 08; Devlin et al. 2019 sections 3.1 and A.2; Radford et al. 2018 (left-to-right LM).
"""

from __future__ import annotations

import numbers
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

import torch
import torch.nn.functional as F

from lecturekit.datasets.stories import CORPUS, Blank, PretrainingData, default_data
from lecturekit.models.bert import (
    IS_NEXT,
    NOT_NEXT,
    BertConfig,
    BertForPreTraining,
    mask_tokens,
)
from lecturekit.models.causal_lm import CausalLM, causal_lm_loss
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.tokenization import MASK_ID, PAD_ID, WordPieceTokenizer
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_device,
    check_instance,
    check_positive_int,
    check_range,
    check_seed,
    check_strings,
)

__all__ = [
    "MODELS",
    "PRETRAINING",
    "make_nsp_pairs",
    "pretraining_batch",
    "bert_loss",
    "train_bert",
    "train_causal_lm",
    "mlm_accuracy",
    "nsp_accuracy",
    "blank_predictions",
    "blank_accuracy",
    "main",
]

MODELS = {"bert_tiny": "BERT (MLM + NSP)", "causal_lm_tiny": "left-to-right LM"}
# What the shipped checkpoints were trained with: the corpus, then the budget.
PRETRAINING = {**CORPUS, "epochs": 40, "batch_size": 64, "lr": 2e-3, "lr_decay": 0.93}
_BATCH_KEYS = ("input_ids", "segment_ids", "attention_mask", "mlm_labels", "nsp_labels")


def make_nsp_pairs(
    docs: Sequence[Sequence[str]],
    rng: random.Random,
    accept: Callable[[str, str], bool] | None = None,
) -> list[tuple[str, str, int]]:
    """One pair per consecutive sentence pair of every document: with probability 1/2 the true
    next sentence (IsNext = 0), otherwise a random sentence of another document (NotNext = 1).

    Toy documents repeat sentences, so a random sentence could happen to be one that does
    follow A somewhere; such draws are redrawn, so that every NotNext label is true.
    ``accept(a, b)``, if given, must also hold for a NotNext sentence b (it is redrawn until it
    does; lecture 15 asks for other-topic negatives only); None leaves the draws as they were.

    Lecture 08; Devlin et al. 2019 section 3.1 ("Task #2: Next Sentence Prediction").
    """
    if isinstance(docs, str) or not isinstance(docs, Sequence):
        raise ValueError(f"docs must be a list of documents (lists of sentences), got {docs!r:.60}")
    for i, doc in enumerate(docs):
        check_strings(f"docs[{i}]", doc, allow_empty=True)
    if len(docs) < 2:
        raise ValueError(
            f"docs must hold at least 2 documents (NotNext sentences come from another one), "
            f"got {len(docs)}"
        )
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random (e.g. random.Random(0)), got {rng!r}")
    follows = {(a, b) for doc in docs for a, b in pairwise(doc)}
    pairs = []
    for d, doc in enumerate(docs):
        for a, b in pairwise(doc):
            if rng.random() < 0.5:
                pairs.append((a, b, IS_NEXT))
                continue
            for _ in range(100):
                other = rng.randrange(len(docs) - 1)
                other += other >= d  # any document but this one
                b = rng.choice(docs[other])
                if (a, b) not in follows and (accept is None or accept(a, b)):
                    break
            else:
                if accept is not None:
                    raise ValueError(f"no sentence of another document is accepted after {a!r}")
            pairs.append((a, b, NOT_NEXT))
    return pairs


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


def bert_loss(model: BertForPreTraining, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Pre-training loss = MLM cross-entropy (chosen positions only) + NSP cross-entropy.

    ``batch``: the dict ``pretraining_batch`` returns.
    """
    check_instance("model", model, BertForPreTraining)
    missing = [k for k in _BATCH_KEYS if not isinstance(batch, Mapping) or k not in batch]
    if missing:
        raise ValueError(f"batch must be the dict pretraining_batch returns, with the keys "
                         f"{list(_BATCH_KEYS)}; missing {missing}")  # fmt: skip
    out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    mlm = F.cross_entropy(out.mlm_logits.flatten(0, 1), batch["mlm_labels"].flatten())
    return mlm + F.cross_entropy(out.nsp_logits, batch["nsp_labels"])


def _check_training(
    data: object, epochs: object, seed: object, config: object, device: object
) -> None:
    """The arguments of train_bert / train_causal_lm, checked before the corpus is made."""
    if data is not None:
        check_instance("data", data, PretrainingData)
    if epochs is not None:
        check_positive_int("epochs", epochs)
    check_seed(seed)
    if config is not None:
        check_instance("config", config, BertConfig)
    check_device("device", device)


def _check_vocab(config: BertConfig, data: PretrainingData) -> None:
    if config.vocab_size < len(data.tokenizer):
        raise ValueError(
            f"config.vocab_size={config.vocab_size} is smaller than the tokenizer's vocabulary "
            f"({len(data.tokenizer)} tokens): use BertConfig.tiny(vocab_size=len(data.tokenizer))"
        )


def _batches(data: PretrainingData, batch_size: int):
    def make(epoch: int, generator: torch.Generator):
        rng = random.Random(int(torch.randint(2**31, (1,), generator=generator)))
        pairs = make_nsp_pairs(data.train, rng)
        rng.shuffle(pairs)
        for i in range(0, len(pairs), batch_size):
            yield pretraining_batch(pairs[i : i + batch_size], data.tokenizer, generator)

    return make


def _train(model, loss_fn, data, epochs, seed, progress, desc, device, max_steps=None):
    """Adam with a per-epoch decay and clipping at 1 (``lecturekit.training.fit``), the steps on
    ``device``, the model returned on the CPU; ``max_steps``: only the first steps."""
    p = PRETRAINING
    epochs = p["epochs"] if epochs is None else epochs
    history = fit(
        model,
        _batches(data, p["batch_size"]),
        loss_fn,
        epochs=epochs,
        lr=p["lr"],
        lr_decay=p["lr_decay"],
        seed=seed,
        progress=progress,
        desc=desc,
        device=device,
        max_steps=max_steps,
    )
    return model.eval(), history


def train_bert(
    data: PretrainingData | None = None,
    epochs: int | None = None,
    seed: int = 0,
    progress: bool = True,
    config: BertConfig | None = None,
    device: torch.device | str = "cpu",
    max_steps: int | None = None,
) -> tuple[BertForPreTraining, History]:
    """Pre-train a tiny BERT with MLM + NSP (fresh pairs and masks every epoch), the optimizer
    steps on ``device`` (cpu, cuda, cuda:N, mps), the model returned on the CPU. ``max_steps``:
    stop after that many optimizer steps (the first steps of the full run, unchanged: lecture
    08a compares them with the loop written in the notebook). Every argument is checked before
    the corpus is made and training starts."""
    _check_training(data, epochs, seed, config, device)
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
    data = data or default_data()
    config = config or BertConfig.tiny(vocab_size=len(data.tokenizer))
    _check_vocab(config, data)
    torch.manual_seed(seed)
    model = BertForPreTraining(config)
    return _train(
        model, bert_loss, data, epochs, seed, progress, "pre-training BERT", device, max_steps
    )


def train_causal_lm(
    data: PretrainingData | None = None,
    epochs: int | None = None,
    seed: int = 0,
    progress: bool = True,
    config: BertConfig | None = None,
    device: torch.device | str = "cpu",
) -> tuple[CausalLM, History]:
    """Train the same-size left-to-right LM on the same sequences (next-token loss), the
    optimizer steps on ``device`` (cpu, cuda, cuda:N, mps), the model returned on the CPU.
    Every argument is checked before the corpus is made and training starts."""
    _check_training(data, epochs, seed, config, device)
    data = data or default_data()
    config = config or BertConfig.tiny(vocab_size=len(data.tokenizer))
    _check_vocab(config, data)
    torch.manual_seed(seed)
    model = CausalLM(config)
    return _train(model, causal_lm_loss, data, epochs, seed, progress, "training the LM", device)


def _test_batches(data: PretrainingData, seed: int = 1234, batch_size: int = 256):
    pairs = make_nsp_pairs(data.test, random.Random(seed))
    generator = torch.Generator().manual_seed(seed)
    for i in range(0, len(pairs), batch_size):
        yield pretraining_batch(pairs[i : i + batch_size], data.tokenizer, generator)


def _check_eval(model: object, data: object) -> None:
    check_instance("model", model, BertForPreTraining)
    if data is not None:
        check_instance("data", data, PretrainingData)


@torch.no_grad()
def mlm_accuracy(model: BertForPreTraining, data: PretrainingData | None = None) -> float:
    """Top-1 accuracy on the masked-out tokens of the held-out documents (fixed masks)."""
    _check_eval(model, data)
    right = total = 0
    for batch in _test_batches(data or default_data()):
        out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
        chosen = batch["mlm_labels"] != -100
        right += int((out.mlm_logits.argmax(-1) == batch["mlm_labels"])[chosen].sum())
        total += int(chosen.sum())
    return right / total


@torch.no_grad()
def nsp_accuracy(model: BertForPreTraining, data: PretrainingData | None = None) -> float:
    """IsNext/NotNext accuracy on held-out pairs (the inputs unmasked, as at use time)."""
    _check_eval(model, data)
    right = total = 0
    for batch in _test_batches(data or default_data()):
        out = model(batch["original_ids"], batch["segment_ids"], batch["attention_mask"])
        right += int((out.nsp_logits.argmax(-1) == batch["nsp_labels"]).sum())
        total += len(batch["nsp_labels"])
    return right / total


@torch.no_grad()
def blank_predictions(
    model: BertForPreTraining | CausalLM, tokenizer: WordPieceTokenizer, blanks: Sequence[Blank]
) -> list[str]:
    """Each model's guess for each blank: BERT sees the whole sentence with [MASK] in the
    blank; the left-to-right LM sees only the words before it and predicts the next token."""
    if not isinstance(model, (BertForPreTraining, CausalLM)):
        raise ValueError(f"model must be a BertForPreTraining or a CausalLM, got "
                         f"{type(model).__name__}")  # fmt: skip
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    if not isinstance(blanks, Sequence) or isinstance(blanks, str):
        raise ValueError(f"blanks must be a list of Blank, got {type(blanks).__name__}")
    for i, blank in enumerate(blanks):
        check_instance(f"blanks[{i}]", blank, Blank)
    guesses = []
    for blank in blanks:
        left = " ".join(blank.words[: blank.index])
        right = " ".join(blank.words[blank.index + 1 :])
        if isinstance(model, CausalLM):
            ids, _ = tokenizer.encode_pair(left)
            logits, _ = model(torch.tensor([ids[:-1]]))  # drop the final [SEP]
            guess = int(logits[0, -1].argmax())
        else:
            ids, _ = tokenizer.encode_pair(f"{left} [MASK] {right}")
            out = model(torch.tensor([ids]))
            guess = int(out.mlm_logits[0, ids.index(MASK_ID)].argmax())
        guesses.append(tokenizer.vocab[guess])
    return guesses


def blank_accuracy(
    model: BertForPreTraining | CausalLM, tokenizer: WordPieceTokenizer, blanks: Sequence[Blank]
) -> float:
    """Fraction of right-context blanks filled with the right word (``blanks`` non-empty)."""
    if isinstance(blanks, Sequence) and not blanks:
        raise ValueError("blanks must hold at least one Blank, got none")
    guesses = blank_predictions(model, tokenizer, blanks)
    return sum(g == b.answer for g, b in zip(guesses, blanks, strict=True)) / len(blanks)


def main(argv: Sequence[str] | None = None) -> int:
    """Retrain the shipped BERT and left-to-right LM and rewrite their checkpoints."""
    args = parse_args("lecturekit.shipped.bert", main.__doc__, argv, models=MODELS,
                      epochs=PRETRAINING["epochs"])  # fmt: skip
    data = default_data()
    for name in args.models:
        kind = "bert" if name == "bert_tiny" else "causal_lm"
        train = train_bert if kind == "bert" else train_causal_lm
        model, history = train(data, epochs=args.epochs, device=args.device)
        recipe = {"data": "lecturekit.datasets.stories.default_data()", **PRETRAINING,
                  "epochs": args.epochs, "optimizer": "Adam", "clip": 1.0}  # fmt: skip
        path = save_shipped(model, name, training=recipe, vocab=data.tokenizer.vocab,
                            data_dir=args.data_dir)  # fmt: skip
        print(f"{name}: {history.seconds:.0f} s, final loss {history.loss[-1]:.4f} -> {path.name}")
        if kind == "bert":
            print(
                f"  MLM top-1 {mlm_accuracy(model, data):.3f}, NSP {nsp_accuracy(model, data):.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
