"""The shipped models of lecture 14: a tiny GPT trained on the story corpus, and a same-size GPT
trained on prompts of in-context-learning tasks; their training, and the in-context learning
curve the notebook plots.

Public API::

    gpt, tok = load_shipped("gpt_tiny"), load_tokenizer("gpt_tiny")    # lecturekit.shipped
    icl = load_shipped("gpt_tiny_icl")
    gpt, history = train_story_gpt(epochs=...)      # next-token loss on the story corpus
    #   batch_size=B: another batch size; max_steps=N: only the first N optimizer steps
    icl, history = train_icl_gpt(steps=...)         # loss on the answers of ICL prompts
    lm_loss(model, batch)                            # next-token cross-entropy, padding ignored
    curve = icl_curve()          # the shipped ICL model's accuracy vs in-prompt examples
    emergence = icl_emergence()  # its accuracy after every 500 training steps
    logits, labels = next_token_logits("my dog")     # the story GPT's next-token logits

Both models have the size of lecture 08's tiny BERT (2 layers, 64 wide, 4 heads), so lecture
14 can set the three families side by side.

Command line (regenerates both checkpoints and their MANIFEST lines; about a minute each)::

    python -m lecturekit.shipped.gpt [--models gpt_tiny gpt_tiny_icl] [--threads 1]

Lecture 14; Radford et al. 2018/2019; Brown et al. 2020 (in-context learning).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lecturekit.datasets.icl import (
    IclConfig,
    IclData,
    eval_set,
    make_icl_data,
    oracle_accuracy,
    repetition_batch,
    training_batch,
)
from lecturekit.datasets.stories import CORPUS, PretrainingData, default_data, story_batch
from lecturekit.experiments.generation import icl_accuracy, prompt_ids
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.positional import sinusoidal_encoding
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import load_shipped, load_tokenizer, save_shipped, shipped_info
from lecturekit.tokenization import PAD_ID
from lecturekit.training import History, fit
from lecturekit.utils.checks import (
    check_instance,
    check_positive_int,
    check_seed,
)

__all__ = [
    "MODELS",
    "STORY_TRAINING",
    "ICL_TRAINING",
    "ICL_SHOTS",
    "lm_loss",
    "icl_loss",
    "train_story_gpt",
    "train_icl_gpt",
    "measure_icl_curve",
    "icl_curve",
    "icl_emergence",
    "next_token_logits",
    "main",
]

MODELS = {"gpt_tiny": "GPT on the story corpus", "gpt_tiny_icl": "GPT on in-context tasks"}
STORY_TRAINING = {**CORPUS, "epochs": 40, "batch_size": 64, "lr": 2e-3, "lr_decay": 0.93}
# Half of every batch is in-context prompts, half repetition sequences (the induction-head
# curriculum, ``repetition_batch``); no dropout; the learned positions start as 0.1 x the
# sinusoids of lecture 05. Without the repetitions the model stayed at guessing among the labels
# in its prompt (accuracy 1/3) for 6,000+ steps in every setting tried (lr 1e-3 to 3e-3, 2-4
# layers, dropout 0 or 0.1); with them, in-context learning appears abruptly after a few
# thousand steps.
ICL_TRAINING = {"steps_per_epoch": 500, "epochs": 24, "batch_size": 64, "repetition_share": 0.5,
                "lr": 1e-3, "dropout": 0.0, "max_position": 40,
                "position_init": "0.1 * sinusoidal_encoding"}  # fmt: skip
ICL_SHOTS = (0, 1, 2, 4, 8)  # the in-prompt examples of the curve
# test prompts per number of examples; "watch": the 8-example test prompts scored after every
# epoch of training (the emergence curve)
ICL_EVAL = {"n": 1000, "seed": 1, "watch": 300}


def lm_loss(model: GPT, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Next-token cross-entropy of ``batch["input_ids"]`` (B, T), padding ignored.

    Lecture 14; Radford et al. 2018 eq. 1.
    """
    ids = batch["input_ids"]
    logits = model(ids).logits[:, :-1]  # (B, T - 1, V): position t predicts t + 1
    targets = ids[:, 1:].masked_fill(ids[:, 1:] == PAD_ID, -100)  # (B, T - 1)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def icl_loss(model: GPT, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Cross-entropy of the labels only (``batch["loss_mask"]`` marks the positions that
    predict one): the model is taught to answer each example from the ones before it.

    Lecture 14.
    """
    ids, mask = batch["input_ids"], batch["loss_mask"]
    logits = model(ids).logits[:, :-1]  # (B, T - 1, V)
    targets = ids[:, 1:].masked_fill(~mask[:, :-1], -100)  # (B, T - 1)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def _story_batches(data: PretrainingData, batch_size: int):
    def make(epoch: int, generator: torch.Generator):
        order = torch.randperm(len(data.train), generator=generator).tolist()
        for i in range(0, len(order), batch_size):
            docs = [data.train[j] for j in order[i : i + batch_size]]
            yield story_batch(docs, data.tokenizer)

    return make


def train_story_gpt(
    data: PretrainingData | None = None,
    epochs: int | None = None,
    seed: int = 0,
    progress: bool = True,
    device: torch.device | str = "cpu",
    batch_size: int | None = None,
    max_steps: int | None = None,
) -> tuple[GPT, History]:
    """Train the tiny GPT on lecture 08's story corpus (``STORY_TRAINING``: Adam with a
    per-epoch decay, clipping at 1); the model returned on the CPU, in eval mode.

    ``batch_size``: documents per step (None: ``STORY_TRAINING["batch_size"]``).
    ``max_steps``: stop after that many optimizer steps (the first steps of the full run,
    unchanged: lecture 14 compares them with the loop written in the notebook).

    Lecture 14.
    """
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    p = STORY_TRAINING
    epochs = p["epochs"] if epochs is None else check_positive_int("epochs", epochs)
    batch_size = (
        p["batch_size"] if batch_size is None else check_positive_int("batch_size", batch_size)
    )
    if max_steps is not None:
        check_positive_int("max_steps", max_steps)
    check_seed(seed)
    torch.manual_seed(seed)
    model = GPT(GPTConfig.tiny(vocab_size=len(data.tokenizer)))
    history = fit(model, _story_batches(data, batch_size), lm_loss, epochs=epochs,
                  lr=p["lr"], lr_decay=p["lr_decay"], seed=seed, progress=progress,
                  desc="training the story GPT", device=device, max_steps=max_steps)  # fmt: skip
    return model.eval(), history


def _concat(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Two batches of one kind as one: input_ids padded with [PAD] (0) and loss_mask with
    False to the longer length; only the keys the loss reads."""
    T = max(a["input_ids"].shape[1], b["input_ids"].shape[1])

    def pad(x: torch.Tensor, value: object) -> torch.Tensor:
        return F.pad(x, (0, T - x.shape[1]), value=value)  # (B, t) -> (B, T)

    return {
        "input_ids": torch.cat([pad(a["input_ids"], 0), pad(b["input_ids"], 0)]),
        "loss_mask": torch.cat([pad(a["loss_mask"], False), pad(b["loss_mask"], False)]),
    }


def _icl_batches(data: IclData, steps: int, batch_size: int, repetition_share: float):
    n_rep = round(batch_size * repetition_share)

    def make(epoch: int, generator: torch.Generator):
        rng = random.Random(int(torch.randint(2**31, (1,), generator=generator)))
        for _ in range(steps):
            prompts = training_batch(data, batch_size - n_rep, rng, k=data.config.max_shots)
            yield _concat(prompts, repetition_batch(data, n_rep, rng)) if n_rep else prompts

    return make


def train_icl_gpt(
    data: IclData | None = None,
    epochs: int | None = None,
    seed: int = 0,
    progress: bool = True,
    device: torch.device | str = "cpu",
) -> tuple[GPT, History]:
    """Train a tiny GPT on prompts of in-context tasks (``ICL_TRAINING``): every sequence is a
    new random task, so the only way to answer is to read the examples in the prompt. Each
    sequence has ``max_shots`` examples and every label is in the loss, so one sequence
    teaches answering after 0, 1, ..., max_shots examples. ``history.eval``: the accuracy on
    ``ICL_EVAL["watch"]`` held-out 8-example prompts after every epoch.

    Lecture 14.
    """
    data = make_icl_data(IclConfig()) if data is None else check_instance("data", data, IclData)
    p = ICL_TRAINING
    epochs = p["epochs"] if epochs is None else check_positive_int("epochs", epochs)
    check_seed(seed)
    torch.manual_seed(seed)
    config = GPTConfig.tiny(vocab_size=len(data.vocab), max_position=p["max_position"],
                            dropout=p["dropout"])  # fmt: skip
    model = GPT(config)
    with torch.no_grad():  # (P, D): lecture 05's sinusoids, scaled to the embeddings' size
        model.position_embedding.weight.copy_(
            0.1 * sinusoidal_encoding(config.max_position, config.hidden_size)
        )
    batches = _icl_batches(data, p["steps_per_epoch"], p["batch_size"], p["repetition_share"])
    watch = eval_set(data, data.config.max_shots, ICL_EVAL["watch"], seed=ICL_EVAL["seed"])
    history = fit(model, batches, icl_loss, epochs=epochs, lr=p["lr"], seed=seed,
                  eval_fn=lambda m: icl_accuracy(m, watch), progress=progress,
                  desc="training the ICL GPT", device=device)  # fmt: skip
    return model.eval(), history


def measure_icl_curve(model: GPT, data: IclData | None = None) -> dict[str, object]:
    """Accuracy on held-out tasks vs the number of in-prompt examples (``ICL_SHOTS``), with the
    ceiling of a reader who knows every word's category (``oracle``) and chance.

    Lecture 14.
    """
    data = make_icl_data(IclConfig()) if data is None else check_instance("data", data, IclData)
    accuracy, oracle = [], []
    for k in ICL_SHOTS:
        examples = eval_set(data, k, ICL_EVAL["n"], ICL_EVAL["seed"])
        accuracy.append(icl_accuracy(model, examples))
        oracle.append(oracle_accuracy(examples))
    return {"shots": list(ICL_SHOTS), "accuracy": accuracy, "oracle": oracle,
            "chance": 1 / data.config.n_labels, "n": ICL_EVAL["n"]}  # fmt: skip


def icl_curve() -> dict[str, object]:
    """The shipped ICL model's curve, as measured when it was trained (``measure_icl_curve``;
    the notebook remeasures it): shots, accuracy, oracle, chance, n."""
    return shipped_info("gpt_tiny_icl").training["icl_curve"]


def icl_emergence() -> dict[str, list[float]]:
    """How in-context learning appeared while the shipped ICL model trained: steps, the
    accuracy on held-out 8-example prompts after each epoch, and the epoch's mean loss."""
    return shipped_info("gpt_tiny_icl").training["emergence"]


@torch.no_grad()
def next_token_logits(prompt: str = "my dog") -> tuple[torch.Tensor, list[str]]:
    """The shipped story GPT's next-token logits (V,) after ``[CLS]`` + ``prompt``, and the
    vocabulary (the labels of the V entries)."""
    model, tokenizer = load_shipped("gpt_tiny"), load_tokenizer("gpt_tiny")
    ids = torch.tensor([prompt_ids(prompt, tokenizer)])
    return model(ids).logits[0, -1], list(tokenizer.vocab)


def main(argv: Sequence[str] | None = None) -> int:
    """Retrain lecture 14's two GPTs and rewrite their checkpoints."""
    args = parse_args("lecturekit.shipped.gpt", main.__doc__, argv, models=MODELS)
    for name in args.models:
        if name == "gpt_tiny":
            data = default_data()
            model, history = train_story_gpt(data, device=args.device)
            recipe = {"data": "lecturekit.datasets.stories.default_data()", **STORY_TRAINING,
                      "format": "[CLS] s1 [SEP] ... sN [SEP] [CLS]", "optimizer": "Adam",
                      "clip": 1.0}  # fmt: skip
            vocab = data.tokenizer.vocab
        else:
            data = make_icl_data(IclConfig())
            model, history = train_icl_gpt(data, device=args.device)
            curve = measure_icl_curve(model, data)
            recipe = {"data": "lecturekit.datasets.icl.make_icl_data(IclConfig())",
                      **ICL_TRAINING, "seed": 0, "optimizer": "Adam", "clip": 1.0,
                      "icl_curve": curve,
                      "emergence": {"steps": [ICL_TRAINING["steps_per_epoch"] * (i + 1)
                                              for i in range(len(history.eval))],
                                    "accuracy": history.eval,
                                    "loss": history.loss}}  # fmt: skip
            vocab = None
        path = save_shipped(model, name, training=recipe, vocab=vocab, data_dir=args.data_dir)
        print(f"{name}: {history.seconds:.0f} s, final loss {history.loss[-1]:.4f} -> {path.name}")
        if name == "gpt_tiny_icl":
            pairs = zip(curve["shots"], curve["accuracy"], curve["oracle"], strict=True)
            print("  " + ", ".join(f"k={k}: {a:.3f} (oracle {o:.3f})" for k, a, o in pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
