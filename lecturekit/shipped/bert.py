"""The shipped models of lecture 08: a tiny BERT pre-trained with masked LM + next-sentence
prediction, and a same-size left-to-right LM (the baseline); their training.

Public API::

    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")   # lecturekit.shipped
    lm = load_shipped("causal_lm_tiny")
    bert_loss(bert, batch)                             # MLM + NSP cross-entropy
    bert, history = train_bert(data, epochs=...)       # loss = MLM + NSP
    #   max_steps=N: only the first N optimizer steps of that run (lecture 08a's loop)
    lm, history = train_causal_lm(data, epochs=...)    # next-token loss on the same sequences
    #   both take device="cpu" (cuda, cuda:N, mps: trained there, returned on the CPU)

The corpus and its tokenizer: ``lecturekit.datasets.stories.default_data()``; the NSP pairs:
``lecturekit.objectives.make_nsp_pairs``; their masked batches:
``lecturekit.datasets.pretraining.pretraining_batch``; the held-out accuracies and the blanks
test: ``lecturekit.experiments.bert``; fill-in-the-blank and next-sentence probabilities of any
BERT: ``lecturekit.models.bert`` (``fill_mask``, ``nsp_probability``).

Command line (regenerates both checkpoints and their MANIFEST lines)::

    python -m lecturekit.shipped.bert [--models bert_tiny causal_lm_tiny] [--epochs N]
                                      [--threads 1] [--device cpu|cuda|cuda:N|mps]

Lecture 08; Devlin et al. 2019 sections 3.1 and A.2; Radford et al. 2018 (left-to-right LM).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping, Sequence

import torch
import torch.nn.functional as F

from lecturekit.datasets.pretraining import pretraining_batch
from lecturekit.datasets.stories import CORPUS, PretrainingData, default_data
from lecturekit.experiments.bert import mlm_accuracy, nsp_accuracy
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.causal_lm import CausalLM, causal_lm_loss
from lecturekit.objectives import make_nsp_pairs
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_device,
    check_instance,
    check_positive_int,
    check_seed,
)

__all__ = [
    "MODELS",
    "PRETRAINING",
    "bert_loss",
    "train_bert",
    "train_causal_lm",
    "main",
]

MODELS = {"bert_tiny": "BERT (MLM + NSP)", "causal_lm_tiny": "left-to-right LM"}
# What the shipped checkpoints were trained with: the corpus, then the budget.
PRETRAINING = {**CORPUS, "epochs": 40, "batch_size": 64, "lr": 2e-3, "lr_decay": 0.93}
_BATCH_KEYS = ("input_ids", "segment_ids", "attention_mask", "mlm_labels", "nsp_labels")


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
