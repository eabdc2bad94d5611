"""Lecture 15's measurements on the story corpus: the masking rate of the masked LM, ELECTRA
against the same-size masked LM at equal counted FLOPs, next-sentence vs sentence-order
prediction, ALBERT's cross-layer sharing at equal depth, what ELECTRA's discriminator learned
and how much a task's label the sentence vectors carry. Every run is seeded and deterministic
(one thread). The full runs take about 20 minutes on one core, more than a notebook may:
``python -m lecturekit.shipped.objectives`` runs them and stores their results in the metadata
of the checkpoints they train (``electra_tiny``, ``bert_tiny_sop``, ``albert_tiny``; read back
with ``lecturekit.shipped.objectives``' readers), and notebook 15 can rerun any of them with a
smaller budget (every measuring function takes its budget as arguments).

The pre-training data of every model here is one path (``lecturekit.datasets.pretraining``:
``pair_batches`` of ``[CLS] A [SEP] B [SEP]`` sentence pairs, as lecture 08's ``bert_tiny``
reads them), and every model, ``bert_tiny`` included, is scored on the very same held-out
inputs with the very same masks (``heldout_batches``: lecture 08's ``mlm_accuracy`` batches),
whatever rate a model was trained with; lecture 13's fine-tuning tasks use the same ``[CLS] ...
[SEP]`` format.

Public API::

    RECIPE, SWEEP, ELECTRA_VS_MLM, SHARING       # the budgets (steps, batch, lr, ...)
    heldout_mlm_accuracy(model, data)            # = lecture 08's mlm_accuracy, any MLM model
    pair_predictions(model, data, kind)          # the 2-way head's class per held-out pair
    pair_accuracy(model, data, kind="nsp"|"sop") # {"accuracy", per-label accuracies, "n"}
    mlm_loss(model, batch), pretraining_loss(model, batch)   # MLM; MLM + the 2-way pair task
    electra_loss_fn(sampler, disc_weight=50.0)   # fit's loss_fn for ELECTRA on those batches
    step_flops(model, loss_fn, batch)            # FLOPs of one forward + backward, counted
    reference_batch(data, rate=0.15)             # the batch the comparison counts them on
    equal_flop_steps(budgets, flops_per_step)    # steps that spend each budget
    run = train_mlm(rate, eval_steps, data, seed=0)          # -> MlmRun (accuracy at each step)
    sweep, runs = masking_rate_sweep(rates, eval_steps, data)
    curve, electra = electra_vs_mlm(budget_steps, data, mlm_run=None, tasks=..., seeds=...)
    table = order_table({"bert_tiny": bert, "bert_tiny_sop": sop}, data)
    table, models = sharing_table(data, steps=...)           # ALBERT shared / not / BERT
    replaced_token_detection(electra, data)     # the discriminator vs "always original"
    sentence_vector_probe(encoder, "topic")     # linear probes on [CLS] and on the mean vector

Lecture 15; Clark et al. 2020 (ELECTRA); Lan et al. 2020 (ALBERT, SOP); Devlin et al. 2019.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from lecturekit.datasets.finetuning import default_tasks
from lecturekit.datasets.pretraining import (
    EVAL_SEED,
    consecutive_pairs,
    heldout_batches,
    heldout_pairs,
    pair_batches,
    pretraining_batch,
    same_topic,
)
from lecturekit.datasets.stories import PretrainingData, default_data
from lecturekit.experiments.finetuning import PRIMARY, run
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining, BertModel
from lecturekit.models.electra import Electra, ElectraConfig, electra_loss
from lecturekit.models.size import parameter_count
from lecturekit.objectives import IGNORE, check_rate
from lecturekit.tokenization import WordPieceTokenizer
from lecturekit.training import fit
from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_positive_int,
    check_positive_ints,
    check_seed,
    check_str,
)

__all__ = [
    "RECIPE",
    "SWEEP",
    "ELECTRA_VS_MLM",
    "SHARING",
    "heldout_mlm_accuracy",
    "pair_predictions",
    "pair_accuracy",
    "mlm_loss",
    "pretraining_loss",
    "electra_loss_fn",
    "step_flops",
    "equal_flop_steps",
    "MlmRun",
    "train_mlm",
    "masking_rate_sweep",
    "electra_vs_mlm",
    "replaced_token_detection",
    "reference_batch",
    "sentence_vector_probe",
    "order_table",
    "sharing_table",
]

# The pre-training recipe of every step-counted run here: Adam at a constant learning rate (so
# that a checkpoint along training is an honest "model trained for that budget"), clipping at
# 1, batches of 64 pairs drawn afresh (new pairs, new masks) from the training documents.
RECIPE = {"batch_size": 64, "lr": 2e-3, "optimizer": "Adam", "clip": 1.0, "schedule": "constant"}


SWEEP = {"rates": (0.05, 0.10, 0.15, 0.25, 0.35, 0.50), "eval_steps": (50, 100, 200, 400, 800,
         1600), "eval_rate": 0.15, "seed": 0}  # fmt: skip


ELECTRA_VS_MLM = {"budget_steps": (100, 200, 400, 800, 1600), "rate": 0.15, "tasks": ("topic",
                  "tagging"), "n_train": 200, "seeds": (0, 1, 2), "disc_weight": 50.0,
                  "finetune_steps": None, "seed": 0}  # fmt: skip


SHARING = {"steps": 1600, "num_layers": 4, "kinds": ("ALBERT shared", "ALBERT not shared",
           "BERT"), "seed": 0}  # fmt: skip


def _check_mlm_model(model: object) -> nn.Module:
    if not isinstance(model, (BertForPreTraining, AlbertForPreTraining)):
        raise ValueError(f"model must be a BertForPreTraining or an AlbertForPreTraining, got "
                         f"{type(model).__name__}")  # fmt: skip
    return model


def _pair_logits(out: object) -> torch.Tensor:
    logits = getattr(out, "nsp_logits", None)
    return out.sop_logits if logits is None else logits  # (B, 2)


@torch.no_grad()
def heldout_mlm_accuracy(model: nn.Module, data: PretrainingData | None = None) -> float:
    """Top-1 accuracy on the masked-out tokens of ``heldout_batches(data, "nsp")`` (15 % fixed
    masks, whatever rate the model trained with); for a BertForPreTraining it equals lecture
    08's ``mlm_accuracy``. The model's mode is restored.

    Lecture 15.
    """
    _check_mlm_model(model)
    was, right, total = model.training, 0, 0
    model.eval()
    for batch in heldout_batches(data, "nsp"):
        out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
        chosen = batch["chosen"]
        right += int((out.mlm_logits.argmax(-1) == batch["mlm_labels"])[chosen].sum())
        total += int(chosen.sum())
    model.train(was)
    return right / total


@torch.no_grad()
def pair_predictions(
    model: nn.Module, data: PretrainingData | None = None, kind: str = "nsp"
) -> torch.Tensor:
    """The 2-way head's class (N,) for each of ``heldout_pairs(data, kind)`` (unmasked inputs,
    as at use time). The model's mode is restored.

    Lecture 15.
    """
    _check_mlm_model(model)
    was, preds = model.training, []
    model.eval()
    for batch in heldout_batches(data, kind):
        out = model(batch["original_ids"], batch["segment_ids"], batch["attention_mask"])
        preds.append(_pair_logits(out).argmax(-1))
    model.train(was)
    return torch.cat(preds)


def pair_accuracy(
    model: nn.Module, data: PretrainingData | None = None, kind: str = "nsp"
) -> dict[str, float]:
    """The 2-way head on held-out pairs: NSP pairs (label 0 IsNext, 1 NotNext) or SOP pairs (0
    in order, 1 swapped). The head's class 0 means IsNext for an NSP-trained model: read as "in
    order" on SOP pairs. Returns "accuracy", the accuracy on each label ("IsNext"/"NotNext" or
    "in order"/"swapped") and "n" (pairs).

    Lecture 15; Lan et al. 2020 section 4.1 (SOP); Devlin et al. 2019 section 3.1 (NSP).
    """
    preds = pair_predictions(model, data, kind)
    labels = torch.tensor([label for _, _, label in heldout_pairs(data, kind)])
    hit = preds == labels
    names = ("IsNext", "NotNext") if kind == "nsp" else ("in order", "swapped")
    result = {"accuracy": float(hit.float().mean())}
    result |= {name: float(hit[labels == i].float().mean()) for i, name in enumerate(names)}
    return result | {"n": len(labels)}


def mlm_loss(model: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Masked-LM cross-entropy on the chosen positions only (no pair task).

    Lecture 15; Devlin et al. 2019 section 3.1.
    """
    out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    return F.cross_entropy(out.mlm_logits.flatten(0, 1), batch["mlm_labels"].flatten())


def pretraining_loss(model: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """MLM cross-entropy + the 2-way pair task's (NSP or SOP: ``batch["nsp_labels"]``), for a
    BertForPreTraining (its NSP head) or an AlbertForPreTraining (its SOP head).

    Lecture 15; Lan et al. 2020 section 4.1.
    """
    out = model(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    mlm = F.cross_entropy(out.mlm_logits.flatten(0, 1), batch["mlm_labels"].flatten())
    return mlm + F.cross_entropy(_pair_logits(out), batch["nsp_labels"])


def step_flops(
    model: nn.Module,
    loss_fn: Callable[[nn.Module, object], torch.Tensor],
    batch: object,
) -> int:
    """Floating-point operations of one training step on ``batch``: the forward pass and the
    backward pass of ``loss_fn(model, batch)``, counted by ``torch.utils.flop_counter``
    (matrix products and attention; counted, not timed). The gradients are cleared again.

    Lecture 15; Clark et al. 2020 section 3.3 (compute-matched comparisons).
    """
    check_instance("model", model, nn.Module)
    with FlopCounterMode(display=False) as counter:
        loss = loss_fn(model, batch)
        loss.backward()
    model.zero_grad(set_to_none=True)
    return int(counter.get_total_flops())


def equal_flop_steps(budgets: Sequence[float], flops_per_step: int) -> list[int]:
    """For each FLOP budget, the number of steps of ``flops_per_step`` that spends it (rounded,
    at least 1). Budgets and FLOPs per step must be positive.

    Lecture 15.
    """
    check_positive_int("flops_per_step", flops_per_step)
    if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence) or not budgets:
        raise ValueError(f"budgets must be a non-empty list of FLOP counts, got {budgets!r}")
    for i, b in enumerate(budgets):
        ok = isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b)
        if not ok or b <= 0:
            raise ValueError(f"budgets[{i}] must be a positive number of FLOPs, got {b!r}")
    return [max(1, round(b / flops_per_step)) for b in budgets]


@dataclass
class MlmRun:
    """One masked-LM run: the held-out accuracy after each step count in ``steps``, the model
    at the end and a copy of it at each of those step counts (``snapshots``).

    Lecture 15.
    """

    rate: float
    steps: list[int]
    accuracy: list[float]
    loss: list[float]
    model: BertForPreTraining
    snapshots: dict[int, BertForPreTraining] = field(default_factory=dict)
    seconds: float = 0.0


def _check_steps(name: str, steps: object) -> list[int]:
    steps = list(check_positive_ints(name, steps))
    if not steps or any(b <= a for a, b in pairwise(steps)):
        raise ValueError(f"{name} must be increasing positive step counts, got {steps}")
    return steps


def _segments(steps: Sequence[int]) -> list[int]:
    return [b - a for a, b in pairwise([0, *steps])]


def train_mlm(
    rate: float,
    eval_steps: Sequence[int] = SWEEP["eval_steps"],
    data: PretrainingData | None = None,
    seed: int = 0,
    config: BertConfig | None = None,
    keep: bool = False,
    device: torch.device | str | None = None,
) -> MlmRun:
    """Train a masked LM (``BertConfig.tiny``, MLM loss only) on ``consecutive_pairs`` with
    ``rate`` of the tokens chosen (80/10/10), ``RECIPE``; after each step count in
    ``eval_steps`` measure ``heldout_mlm_accuracy`` (15 % fixed masks) and, with ``keep``, keep
    a copy of the model. ``device``: where the optimizer steps run (``fit``'s).

    Lecture 15 (Wu's "too little / too much masking").
    """
    rate = check_rate("rate", rate)
    eval_steps = _check_steps("eval_steps", eval_steps)
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    check_seed(seed)
    config = config or BertConfig.tiny(vocab_size=len(data.tokenizer))
    check_instance("config", config, BertConfig)
    torch.manual_seed(seed)
    model = BertForPreTraining(config)
    snapshots: dict[int, BertForPreTraining] = {}

    def evaluate(m: nn.Module) -> float:
        if keep:
            snapshots[eval_steps[len(snapshots)]] = copy.deepcopy(m).eval()
        return heldout_mlm_accuracy(m, data)

    batches = pair_batches(data.train, data.tokenizer, "text", rate, RECIPE["batch_size"],
                           _segments(eval_steps))  # fmt: skip
    history = fit(model, batches, mlm_loss, epochs=len(eval_steps), lr=RECIPE["lr"],
                  clip=RECIPE["clip"], seed=seed, eval_fn=evaluate, progress=False,
                  device=device)  # fmt: skip
    return MlmRun(rate, eval_steps, history.eval, history.loss, model.eval(), snapshots,
                  history.seconds)  # fmt: skip


def masking_rate_sweep(
    rates: Sequence[float] = SWEEP["rates"],
    eval_steps: Sequence[int] = SWEEP["eval_steps"],
    data: PretrainingData | None = None,
    seed: int = 0,
    keep: Sequence[float] = (),
    device: torch.device | str | None = None,
) -> tuple[dict[str, object], dict[float, MlmRun]]:
    """``train_mlm`` at every rate (same size, steps, batches' pairs and seed): the held-out MLM
    accuracy (15 % fixed masks) after each of ``eval_steps``.

    Returns:
        The JSON-ready curve {"rates", "steps", "accuracy": [per rate, per step], "final":
        [per rate], "loss", "eval_rate", "seconds"}, and the runs by rate (the runs at the
        rates in ``keep`` hold a copy of the model at each step count).

    Lecture 15 (Wu's "too little masking: takes a long time to train; too much masking: not
    enough context").
    """
    if isinstance(rates, (str, bytes)) or not isinstance(rates, Sequence) or not rates:
        raise ValueError(f"rates must be a non-empty list of masking rates, got {rates!r}")
    rates = [check_rate(f"rates[{i}]", r) for i, r in enumerate(rates)]
    eval_steps = _check_steps("eval_steps", eval_steps)
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    runs = {r: train_mlm(r, eval_steps, data, seed, keep=r in keep, device=device) for r in rates}
    curve = {
        "rates": rates,
        "steps": eval_steps,
        "accuracy": [[round(a, 4) for a in runs[r].accuracy] for r in rates],
        "final": [round(runs[r].accuracy[-1], 4) for r in rates],
        "loss": [[round(v, 4) for v in runs[r].loss] for r in rates],
        "eval_rate": SWEEP["eval_rate"],
        "seconds": round(sum(runs[r].seconds for r in rates), 1),
    }
    return curve, runs


def _electra_batch(batch: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    keys = ("segment_ids", "attention_mask", "chosen")
    return {"input_ids": batch["original_ids"], **{k: batch[k] for k in keys}}


def electra_loss_fn(
    sampler: torch.Generator, disc_weight: float = 50.0
) -> Callable[[Electra, Mapping[str, torch.Tensor]], torch.Tensor]:
    """``loss_fn(model, batch)`` for ``fit``: ELECTRA's total loss (``electra_loss``) on a
    ``pair_batches`` batch: the unmasked ids and the same chosen positions the MLM predicts,
    the generator's corruption and samples drawn from ``sampler``.

    Lecture 15; Clark et al. 2020 section 2.
    """
    check_instance("sampler", sampler, torch.Generator)

    def loss_fn(model: Electra, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return electra_loss(model, _electra_batch(batch), sampler, disc_weight).total

    return loss_fn


def reference_batch(data: PretrainingData | None = None, rate: float = 0.15) -> dict:
    """The batch the training FLOPs are counted on (``step_flops``): the first training batch
    of the text stream (``pair_batches(data.train, ..., "text", rate, 64, 1)``), seed 0.

    Lecture 15.
    """
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    make = pair_batches(data.train, data.tokenizer, "text", rate, RECIPE["batch_size"], 1)
    return next(iter(make(0, torch.Generator().manual_seed(0))))


def _finetune_scores(
    pretrained: BertForPreTraining | None,
    tokenizer: WordPieceTokenizer,
    tasks: Sequence[str],
    n_train: int,
    seeds: Sequence[int],
    steps: int | None,
    config: BertConfig,
) -> dict[str, list[float]]:
    """Lecture 13's ``run`` for each task and seed: fine-tuned from ``pretrained``, or from
    scratch (BERT's random initialisation) when it is None."""
    all_tasks = default_tasks()
    scores = {}
    for name in tasks:
        row = []
        for seed in seeds:
            if pretrained is None:
                torch.manual_seed(seed)
                base, regime = BertForPreTraining(config), "from scratch"
            else:
                base, regime = pretrained, "fine-tuned"
            result = run(all_tasks[name], regime, n_train, base, tokenizer, seed, steps=steps)
            row.append(round(result.test, 4))
        scores[name] = row
    return scores


def _summary(rows: Sequence[Mapping[str, list[float]]], tasks: Sequence[str]) -> dict:
    """Per task: the runs at each budget and their mean / min / max over seeds."""
    out = {}
    for name in tasks:
        runs = [row[name] for row in rows]
        out[name] = {"runs": runs, "mean": [round(sum(r) / len(r), 4) for r in runs],
                     "min": [min(r) for r in runs], "max": [max(r) for r in runs]}  # fmt: skip
    return out


def electra_vs_mlm(
    budget_steps: Sequence[int] = ELECTRA_VS_MLM["budget_steps"],
    data: PretrainingData | None = None,
    mlm_run: MlmRun | None = None,
    tasks: Sequence[str] = ELECTRA_VS_MLM["tasks"],
    seeds: Sequence[int] = ELECTRA_VS_MLM["seeds"],
    n_train: int = ELECTRA_VS_MLM["n_train"],
    finetune_steps: int | None = None,
    seed: int = 0,
    config: ElectraConfig | None = None,
    device: torch.device | str | None = None,
) -> tuple[dict[str, object], Electra]:
    """A tiny ELECTRA against the masked LM of its discriminator's size, at equal counted FLOPs.

    The FLOP budgets are those of ``budget_steps`` steps of the MLM (``step_flops`` on the same
    reference batch for both: ELECTRA's step = generator + discriminator, forward + backward);
    ELECTRA trains for ``equal_flop_steps`` of each. At each budget both pre-trained encoders
    are fine-tuned with lecture 13's ``run(task, "fine-tuned", n_train, ...)`` on ``tasks`` for
    each of ``seeds`` (ELECTRA's through its discriminator's encoder as a BertForPreTraining),
    and, as the budget-0 reference, the same architecture from scratch.

    Args:
        budget_steps: increasing MLM step counts that define the budgets.
        data: the pre-training corpus (default ``default_data()``).
        mlm_run: a ``train_mlm`` run at ``ELECTRA_VS_MLM["rate"]`` with snapshots at
            ``budget_steps`` (e.g. the sweep's), reused instead of training the MLM again.
        tasks: names of lecture 13's tasks (``default_tasks()``).
        seeds: fine-tuning seeds.
        n_train: labelled examples per fine-tuning run.
        finetune_steps: overrides lecture 13's step count (tests use a few).
        seed: the pre-training seed.
        config: the ELECTRA (default ``ElectraConfig.tiny()``, its vocabulary the corpus').
        device: where the pre-training steps run (FLOPs are counted and models fine-tuned on
            the CPU).

    Returns:
        The JSON-ready curve and the ELECTRA at the largest budget.

    Lecture 15; Clark et al. 2020 figure 3 (GLUE score against pre-training FLOPs).
    """
    budget_steps = _check_steps("budget_steps", budget_steps)
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    all_tasks = default_tasks()
    if isinstance(tasks, str) or not isinstance(tasks, Sequence) or not tasks:
        raise ValueError(f"tasks must be a non-empty list of task names, got {tasks!r}")
    for i, name in enumerate(tasks):
        check_choice(f"tasks[{i}]", name, sorted(all_tasks))
    seeds = [check_seed(s) for s in seeds] if isinstance(seeds, Sequence) else check_seed(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one fine-tuning seed, got none")
    check_positive_int("n_train", n_train)
    if finetune_steps is not None:
        check_positive_int("finetune_steps", finetune_steps)
    check_seed(seed)
    rate = ELECTRA_VS_MLM["rate"]
    if mlm_run is not None:
        check_instance("mlm_run", mlm_run, MlmRun)
        if mlm_run.rate != rate or not set(budget_steps) <= set(mlm_run.snapshots):
            raise ValueError(f"mlm_run must be a train_mlm run at rate {rate} with snapshots at "
                             f"{budget_steps}, got rate {mlm_run.rate} and snapshots at "
                             f"{sorted(mlm_run.snapshots)}")  # fmt: skip
    else:
        mlm_run = train_mlm(rate, budget_steps, data, seed, keep=True, device=device)
    config = config or ElectraConfig.tiny(vocab_size=len(data.tokenizer))
    check_instance("config", config, ElectraConfig)
    bert_config = mlm_run.model.config
    disc_weight = ELECTRA_VS_MLM["disc_weight"]

    reference = reference_batch(data, rate)
    torch.manual_seed(seed)
    probe = Electra(config)
    sampler = torch.Generator().manual_seed(seed + 1)
    electra_step = step_flops(probe, electra_loss_fn(sampler, disc_weight), reference)
    mlm_step = step_flops(copy.deepcopy(mlm_run.model).train(), mlm_loss, reference)
    budgets = [s * mlm_step for s in budget_steps]
    electra_steps = _check_steps("ELECTRA's steps", equal_flop_steps(budgets, electra_step))

    torch.manual_seed(seed)
    electra = Electra(config)
    snapshots: list[Electra] = []
    sampler = torch.Generator().manual_seed(seed + 1)

    def keep(m: nn.Module) -> float:
        snapshots.append(copy.deepcopy(m).eval())
        return float(len(snapshots))  # fit wants a number; the snapshots are what counts

    batches = pair_batches(data.train, data.tokenizer, "text", rate, RECIPE["batch_size"],
                           _segments(electra_steps))  # fmt: skip
    history = fit(electra, batches, electra_loss_fn(sampler, disc_weight),
                  epochs=len(electra_steps), lr=RECIPE["lr"], clip=RECIPE["clip"], seed=seed,
                  eval_fn=keep, progress=False, device=device)  # fmt: skip

    tokenizer = data.tokenizer
    scratch = _finetune_scores(None, tokenizer, tasks, n_train, seeds, finetune_steps,
                               bert_config)  # fmt: skip
    mlm_rows, electra_rows = [], []
    for step, snapshot in zip(budget_steps, snapshots, strict=True):
        mlm_rows.append(_finetune_scores(mlm_run.snapshots[step], tokenizer, tasks, n_train,
                                         seeds, finetune_steps, bert_config))  # fmt: skip
        electra_rows.append(_finetune_scores(snapshot.discriminator_as_bert(), tokenizer, tasks,
                                             n_train, seeds, finetune_steps,
                                             bert_config))  # fmt: skip
    curve = {
        "budget_flops": budgets,
        "mlm_steps": budget_steps,
        "electra_steps": electra_steps,
        "flops_per_step": {"mlm": mlm_step, "electra": electra_step},
        "reference_batch": list(reference["input_ids"].shape),
        "mlm_accuracy": [round(mlm_run.accuracy[mlm_run.steps.index(s)], 4) for s in budget_steps],
        "electra_loss": [round(v, 4) for v in history.loss],
        "tasks": list(tasks),
        "scores": {"mlm": _summary(mlm_rows, tasks), "electra": _summary(electra_rows, tasks)},
        "scratch": _summary([scratch], tasks),
        "primary": {name: PRIMARY[all_tasks[name].kind] for name in tasks},
        "n_train": n_train,
        "seeds": list(seeds),
        "rate": rate,
    }
    return curve, electra.eval()


def order_table(
    models: Mapping[str, nn.Module], data: PretrainingData | None = None
) -> dict[str, dict]:
    """Each model's 2-way head on held-out NSP pairs and on held-out SOP pairs, and its MLM
    accuracy: {"rows": {name: {"nsp", "nsp IsNext", "nsp NotNext", "nsp NotNext other topic",
    "nsp NotNext same topic", "sop", "sop in order", "sop swapped", "mlm"}} (accuracies, 4
    decimals)}, "pairs": the counts (NSP, of which NotNext of another / the same topic;
    SOP)}. Class 0 of an NSP head (IsNext) is read as "in order" on SOP pairs.

    Lecture 15 (Wu: "BERT next sentence prediction found to be too easy"; Lan et al. 2020
    table 5).
    """
    if not isinstance(models, Mapping) or not models:
        raise ValueError(f"models must be a non-empty dict name -> model, got {models!r:.60}")
    for name, model in models.items():
        check_str("a name in models", name)
        _check_mlm_model(model)
    nsp_pairs = heldout_pairs(data, "nsp")
    labels = torch.tensor([label for _, _, label in nsp_pairs])
    same = torch.tensor([same_topic(a, b) for a, b, _ in nsp_pairs])
    other_neg, same_neg = (labels == 1) & ~same, (labels == 1) & same
    rows: dict[str, dict[str, float]] = {}
    for name, model in models.items():
        hit = pair_predictions(model, data, "nsp") == labels
        sop = pair_accuracy(model, data, "sop")
        row = {"nsp": hit.float().mean(), "nsp IsNext": hit[labels == 0].float().mean(),
               "nsp NotNext": hit[labels == 1].float().mean(),
               "nsp NotNext other topic": hit[other_neg].float().mean(),
               "nsp NotNext same topic": hit[same_neg].float().mean(),
               "sop": sop["accuracy"], "sop in order": sop["in order"],
               "sop swapped": sop["swapped"], "mlm": heldout_mlm_accuracy(model, data)}  # fmt: skip
        rows[name] = {k: round(float(v), 4) for k, v in row.items()}
    counts = {"nsp": len(nsp_pairs), "nsp NotNext other topic": int(other_neg.sum()),
                      "nsp NotNext same topic": int(same_neg.sum()),
              "sop": len(heldout_pairs(data, "sop"))}  # fmt: skip
    return {"rows": rows, "pairs": counts}


@torch.no_grad()
def replaced_token_detection(
    model: Electra, data: PretrainingData | None = None, seed: int = EVAL_SEED
) -> dict[str, float]:
    """What ELECTRA's discriminator learned, on held-out text: every consecutive sentence pair
    of ``data.test`` (the kind of input it trained on), 15 % of the tokens chosen and the
    generator's replacements sampled (both seeded), every real token labelled by the
    discriminator. Returns "replaced share" (of real tokens), "accuracy", "always original"
    (the accuracy of answering "original" everywhere), "recall" (replaced tokens caught),
    "precision" (of the tokens it flags) and "generator accuracy" (chosen positions where the
    sample equals the original).

    Lecture 15; Clark et al. 2020 section 2.
    """
    check_instance("model", model, Electra)
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    check_seed(seed)
    was = model.training
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    pairs = consecutive_pairs(data.test)
    logits, replaced, chosen = [], [], 0
    for i in range(0, len(pairs), 256):
        batch = pretraining_batch(pairs[i : i + 256], data.tokenizer, generator)
        batch = {"input_ids": batch["original_ids"], "segment_ids": batch["segment_ids"],
                 "attention_mask": batch["attention_mask"],
                 "chosen": batch["mlm_labels"] != IGNORE}  # fmt: skip
        out = electra_loss(model, batch, generator)
        logits.append(out.disc_logits)
        replaced.append(out.replaced)
        chosen += int(batch["chosen"].sum())
    model.train(was)
    flagged, truth = torch.cat(logits) > 0, torch.cat(replaced)
    n_replaced = int(truth.sum())
    return {
        "replaced share": round(n_replaced / len(truth), 4),
        "accuracy": round(float((flagged == truth).float().mean()), 4),
        "always original": round(1 - n_replaced / len(truth), 4),
        "recall": round(float(flagged[truth].float().mean()), 4),
        "precision": round(float(truth[flagged].float().mean()), 4) if flagged.any() else 0.0,
        "generator accuracy": round((chosen - n_replaced) / chosen, 4),
    }


@torch.no_grad()
def sentence_vector_probe(
    encoder: nn.Module, task: str = "topic", n_train: int = 1000, seed: int = 0
) -> dict[str, float]:
    """How much of a task's label a frozen encoder's sentence vectors carry: a logistic
    regression (scikit-learn) on ``n_train`` training examples of lecture 13's ``task``, scored
    on its test set, once on the [CLS] vector (what lecture 13's classifier head reads) and
    once on the mean of the real tokens' vectors. ``encoder``: a BertModel (e.g. ``bert_tiny.bert``
    or ``electra.discriminator.bert``).

    Lecture 15 (why ELECTRA's [CLS] needs fine-tuning that BERT's NSP-trained one does not).
    """
    from sklearn.linear_model import LogisticRegression

    from lecturekit.datasets.finetuning import encode

    check_instance("encoder", encoder, BertModel)
    tasks = default_tasks()
    check_choice("task", task, [n for n, t in tasks.items() if t.kind in ("sequence", "pair")])
    check_positive_int("n_train", n_train)
    chosen = tasks[task]
    tokenizer = default_data().tokenizer
    was = encoder.training
    encoder.eval()

    def features(examples):
        b = encode(chosen, tokenizer, examples)
        out = encoder(b["input_ids"], b["segment_ids"], b["attention_mask"])
        real = b["attention_mask"].float()[..., None]  # (B, T, 1)
        mean = (out.hidden * real).sum(1) / real.sum(1)  # (B, D)
        return {"[CLS]": out.hidden[:, 0], "mean": mean}, b["labels"]

    train_x, train_y = features(chosen.subset(min(n_train, len(chosen.train)), seed))
    test_x, test_y = features(chosen.test)
    encoder.train(was)
    scores = {}
    for name in ("[CLS]", "mean"):
        clf = LogisticRegression(max_iter=2000).fit(train_x[name].tolist(), train_y.tolist())
        scores[name] = round(float(clf.score(test_x[name].tolist(), test_y.tolist())), 4)
    return scores


def _sharing_model(kind: str, num_layers: int, vocab_size: int) -> nn.Module:
    if kind == "BERT":
        return BertForPreTraining(BertConfig.tiny(vocab_size=vocab_size, num_layers=num_layers))
    config = AlbertConfig.tiny(vocab_size=vocab_size, num_layers=num_layers,
                               share_layers=kind == "ALBERT shared")  # fmt: skip
    return AlbertForPreTraining(config)


def sharing_table(
    data: PretrainingData | None = None,
    steps: int = SHARING["steps"],
    num_layers: int = SHARING["num_layers"],
    kinds: Sequence[str] = SHARING["kinds"],
    seed: int = 0,
    device: torch.device | str | None = None,
) -> tuple[dict[str, object], dict[str, nn.Module]]:
    """ALBERT's cross-layer sharing at equal depth: ALBERT with one shared layer applied
    ``num_layers`` times, ALBERT with ``num_layers`` separate layers, and BERT of the same depth
    and width (no factorised embedding), each trained ``steps`` steps with MLM + SOP
    (``RECIPE``, SOP pairs, 15 % masks, the same seed): parameters, held-out MLM accuracy (15 %
    fixed masks) and SOP accuracy.

    Returns:
        {"kinds", "parameters", "mlm", "sop", "steps", "num_layers", "seconds"} (lists in the
        order of ``kinds``) and the trained models by kind.

    Lecture 15; Lan et al. 2020 section 3.1 and table 4 (cross-layer parameter sharing).
    """
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    check_positive_int("steps", steps)
    check_positive_int("num_layers", num_layers)
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or not kinds:
        raise ValueError(f"kinds must be a non-empty list of {list(SHARING['kinds'])}, got "
                         f"{kinds!r}")  # fmt: skip
    for i, kind in enumerate(kinds):
        check_choice(f"kinds[{i}]", kind, SHARING["kinds"])
    check_seed(seed)
    table: dict[str, object] = {"kinds": list(kinds), "parameters": [], "mlm": [], "sop": [],
                                "steps": steps, "num_layers": num_layers,
                                "seconds": []}  # fmt: skip
    models = {}
    for kind in kinds:
        torch.manual_seed(seed)
        model = _sharing_model(kind, num_layers, len(data.tokenizer))
        batches = pair_batches(data.train, data.tokenizer, "sop", 0.15, RECIPE["batch_size"],
                               steps)  # fmt: skip
        history = fit(model, batches, pretraining_loss, epochs=1, lr=RECIPE["lr"],
                      clip=RECIPE["clip"], seed=seed, progress=False, device=device)  # fmt: skip
        model.eval()
        table["parameters"].append(parameter_count(model))
        table["mlm"].append(round(heldout_mlm_accuracy(model, data), 4))
        table["sop"].append(round(pair_accuracy(model, data, "sop")["accuracy"], 4))
        table["seconds"].append(round(history.seconds, 1))
        models[kind] = model
    return table, models
