"""Lecture 15's shipped models and their stored results: ``electra_tiny``, ``bert_tiny_sop`` and
``albert_tiny`` are trained by lecture 15's measurements (``lecturekit.experiments.objectives``),
which the command line below runs; each measurement's result is stored in the "training"
metadata of the checkpoint of its run, next to the recipe ("seed": 0, "data"), and read back
here: ``electra_tiny`` holds "electra_vs_mlm" and "masking_rate_sweep" (whose 15 % run is the
MLM ELECTRA is compared with), ``bert_tiny_sop`` holds "order_table", ``albert_tiny`` holds
"sharing_table". Each run's wall time is under "seconds".

Public API::

    SOP_TRAINING                                 # bert_tiny_sop's recipe
    bert_sop, history = train_sop_bert(data, epochs=...)     # MLM + SOP, bert_tiny's recipe
    #   pairs="nsp other topic": NSP whose negatives never share A's topic (other_topic_nsp_pairs)
    MODELS                               # checkpoint name -> what it is
    electra = load_shipped("electra_tiny")       # lecturekit.shipped: an Electra
    sop = load_shipped("bert_tiny_sop")          # a BertForPreTraining (MLM + SOP)
    albert = load_shipped("albert_tiny")         # an AlbertForPreTraining (shared layer)
    masking_rate_curve()     # rates, steps, held-out MLM accuracy per rate and step, final
    electra_vs_mlm_curve()   # FLOP budgets, steps of each, fine-tuned scores (mean/min/max)
    order_accuracy_table()   # bert_tiny and bert_tiny_sop on held-out NSP and SOP pairs
    layer_sharing_table()    # ALBERT shared / not shared / BERT: parameters, MLM, SOP
    # each reader takes data_dir=None (default: the shipped data/)

Command line (reruns the measurements and rewrites the checkpoints and their MANIFEST lines;
--epochs: bert_tiny_sop's passes)::

    python -m lecturekit.shipped.objectives [--models electra_tiny bert_tiny_sop albert_tiny]
                                            [--epochs 20] [--threads 1] [--data-dir DIR]

Lecture 15; Clark et al. 2020 (ELECTRA); Lan et al. 2020 (ALBERT, SOP); Devlin et al. 2019.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from lecturekit.datasets.pretraining import pair_batches
from lecturekit.datasets.stories import CORPUS, PretrainingData, default_data
from lecturekit.experiments.objectives import (
    ELECTRA_VS_MLM,
    RECIPE,
    SHARING,
    SWEEP,
    electra_vs_mlm,
    masking_rate_sweep,
    order_table,
    pretraining_loss,
    sharing_table,
)
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.shipped.bert import PRETRAINING
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import DATA_DIR, load_shipped, save_shipped, shipped_info
from lecturekit.training import History, fit
from lecturekit.utils.checks import check_choice, check_instance, check_positive_int, check_seed

__all__ = [
    "SOP_TRAINING",
    "train_sop_bert",
    "MODELS",
    "masking_rate_curve",
    "electra_vs_mlm_curve",
    "order_accuracy_table",
    "layer_sharing_table",
    "main",
]

# bert_tiny's recipe (PRETRAINING: Adam 2e-3 x 0.93 per pass, batch 64), on SOP pairs instead
# of NSP pairs, for 20 passes instead of bert_tiny's 40 (the regeneration budget).
SOP_TRAINING = {**PRETRAINING, "epochs": 20, "pairs": "sentence_order_pairs"}


def train_sop_bert(
    data: PretrainingData | None = None,
    epochs: int | None = None,
    seed: int = 0,
    progress: bool = False,
    device: torch.device | str | None = None,
    pairs: str = "sop",
) -> tuple[BertForPreTraining, History]:
    """bert_tiny's pre-training (``BertConfig.tiny``, MLM + a 2-way head, ``PRETRAINING``'s
    optimizer, batch and per-pass decay) with its 2-way head trained on sentence-order pairs
    (``sentence_order_pairs``: 0 in order, 1 swapped) instead of NSP pairs: ALBERT's objective
    on BERT's architecture. ``epochs`` defaults to ``SOP_TRAINING["epochs"]``. ``pairs="nsp
    other topic"`` trains the same model on NSP with other-topic negatives only
    (``other_topic_nsp_pairs``), the comparison that isolates the topic shortcut.

    Lecture 15; Lan et al. 2020 section 4.1.
    """
    data = default_data() if data is None else check_instance("data", data, PretrainingData)
    epochs = SOP_TRAINING["epochs"] if epochs is None else check_positive_int("epochs", epochs)
    check_seed(seed)
    check_choice("pairs", pairs, ("sop", "nsp", "nsp other topic"))
    torch.manual_seed(seed)
    model = BertForPreTraining(BertConfig.tiny(vocab_size=len(data.tokenizer)))
    p = SOP_TRAINING
    batches = pair_batches(data.train, data.tokenizer, pairs, 0.15, p["batch_size"])
    history = fit(model, batches, pretraining_loss, epochs=epochs, lr=p["lr"],
                  lr_decay=p["lr_decay"], seed=seed, progress=progress,
                  desc=f"pre-training BERT with {pairs} pairs", device=device)  # fmt: skip
    return model.eval(), history


MODELS = {
    "electra_tiny": "ELECTRA (32-wide generator, BERT tiny's discriminator), the MLM comparisons",
    "bert_tiny_sop": "BERT tiny pre-trained with MLM + sentence-order prediction",
    "albert_tiny": "ALBERT tiny (E = 32, one layer shared by 4 depths), MLM + SOP",
}
DATA = "lecturekit.datasets.stories.default_data()"


def _training(name: str, data_dir: Path | str | None) -> dict[str, object]:
    return shipped_info(name, DATA_DIR if data_dir is None else data_dir).training


def masking_rate_curve(data_dir: Path | str | None = None) -> dict[str, object]:
    """The shipped masking-rate sweep (``lecturekit.experiments.objectives.masking_rate_sweep``):
    "rates", "steps", "accuracy" (per rate, per step: held-out MLM accuracy at 15 % fixed
    masks), "final" (per rate), "loss" (per rate, per segment), "eval_rate", "seconds".

    Lecture 15.
    """
    return _training("electra_tiny", data_dir)["masking_rate_sweep"]


def electra_vs_mlm_curve(data_dir: Path | str | None = None) -> dict[str, object]:
    """The shipped ELECTRA-vs-MLM comparison (``electra_vs_mlm``): "budget_flops",
    "mlm_steps", "electra_steps", "flops_per_step", "scores" {"mlm"|"electra": {task: {"runs",
    "mean", "min", "max"}}} per budget, "scratch" (budget 0), "mlm_accuracy", "tasks", ...

    Lecture 15; Clark et al. 2020 figure 3.
    """
    return _training("electra_tiny", data_dir)["electra_vs_mlm"]


def order_accuracy_table(data_dir: Path | str | None = None) -> dict[str, dict]:
    """The shipped NSP/SOP table (``order_table``): "rows" {"bert_tiny", "bert_tiny_sop": {"nsp",
    "nsp IsNext", "nsp NotNext", "nsp NotNext other topic", "nsp NotNext same topic", "sop",
    "sop in order", "sop swapped", "mlm"}} and "pairs" (the counts).

    Lecture 15; Lan et al. 2020 section 4.1.
    """
    return _training("bert_tiny_sop", data_dir)["order_table"]


def layer_sharing_table(data_dir: Path | str | None = None) -> dict[str, object]:
    """The shipped layer-sharing table (``sharing_table``): "kinds", "parameters", "mlm",
    "sop", "steps", "num_layers", "seconds".

    Lecture 15; Lan et al. 2020 table 4.
    """
    return _training("albert_tiny", data_dir)["sharing_table"]


def _electra(data, data_dir: str, device: str) -> Path:
    start = time.perf_counter()
    sweep, runs = masking_rate_sweep(SWEEP["rates"], SWEEP["eval_steps"], data, SWEEP["seed"],
                                     keep=(ELECTRA_VS_MLM["rate"],), device=device)  # fmt: skip
    for rate, final in zip(sweep["rates"], sweep["final"], strict=True):
        accs = " ".join(f"{a:.3f}" for a in sweep["accuracy"][sweep["rates"].index(rate)])
        print(f"  rate {rate:.2f}: held-out MLM accuracy {accs} -> {final:.3f}")
    e = ELECTRA_VS_MLM
    steps = e["budget_steps"]
    curve, electra = electra_vs_mlm(steps, data, runs[e["rate"]], e["tasks"], e["seeds"],
                                    e["n_train"], e["finetune_steps"], e["seed"],
                                    device=device)  # fmt: skip
    flops = curve["flops_per_step"]
    print(f"  FLOPs per step: MLM {flops['mlm']:,}, ELECTRA {flops['electra']:,}")
    for task in curve["tasks"]:
        for i, budget in enumerate(curve["budget_flops"]):
            m, el = curve["scores"]["mlm"][task], curve["scores"]["electra"][task]
            print(f"  {task:8s} {budget:.2e} FLOPs: MLM {m['mean'][i]:.3f} "
                  f"[{m['min'][i]:.3f}, {m['max'][i]:.3f}], ELECTRA {el['mean'][i]:.3f} "
                  f"[{el['min'][i]:.3f}, {el['max'][i]:.3f}]")  # fmt: skip
        print(f"  {task:8s} from scratch: {curve['scratch'][task]['mean'][0]:.3f}")
    recipe = {"data": DATA, **CORPUS, "seed": e["seed"], **RECIPE,
              "config": "ElectraConfig.tiny()", "electra": {**e}, "sweep": {**SWEEP},
              "masking_rate_sweep": sweep, "electra_vs_mlm": curve,
              "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
    return save_shipped(electra, "electra_tiny", training=recipe, vocab=data.tokenizer.vocab,
                        data_dir=data_dir)  # fmt: skip


def _sop(data, data_dir: str, epochs: int, device: str) -> Path:
    start = time.perf_counter()
    model, history = train_sop_bert(data, epochs=epochs, seed=0, device=device)
    topic_only, _ = train_sop_bert(data, epochs=epochs, seed=0, device=device,
                                   pairs="nsp other topic")  # fmt: skip
    models = {"bert_tiny": load_shipped("bert_tiny"), "bert_tiny_sop": model,
              "nsp other topic": topic_only}  # fmt: skip
    table = order_table(models, data)
    for name, row in table["rows"].items():
        print(f"  {name:14s} " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()))
    recipe = {"data": DATA, **SOP_TRAINING, "epochs": epochs, "seed": 0, "optimizer": "Adam",
              "clip": 1.0, "mask_rate": 0.15, "loss": history.loss, "order_table": table,
              "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
    return save_shipped(model, "bert_tiny_sop", training=recipe, vocab=data.tokenizer.vocab,
                        data_dir=data_dir)  # fmt: skip


def _albert(data, data_dir: str, device: str) -> Path:
    start = time.perf_counter()
    s = SHARING
    table, models = sharing_table(data, s["steps"], s["num_layers"], s["kinds"], s["seed"],
                                  device)  # fmt: skip
    for i, kind in enumerate(table["kinds"]):
        print(f"  {kind:18s} {table['parameters'][i]:8,d} parameters, MLM {table['mlm'][i]:.3f},"
              f" SOP {table['sop'][i]:.3f}")  # fmt: skip
    recipe = {"data": DATA, **CORPUS, "seed": s["seed"], **RECIPE, "steps": s["steps"],
              "pairs": "sentence_order_pairs", "mask_rate": 0.15, "config": "AlbertConfig.tiny()",
              "sharing_table": table, "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
    return save_shipped(models["ALBERT shared"], "albert_tiny", training=recipe,
                        vocab=data.tokenizer.vocab, data_dir=data_dir)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Rerun lecture 15's measurements and rewrite their checkpoints."""
    args = parse_args("lecturekit.shipped.objectives", main.__doc__, argv, models=MODELS,
                      epochs=SOP_TRAINING["epochs"])  # fmt: skip
    data = default_data()
    for name in args.models:
        start = time.perf_counter()
        print(f"{name}:")
        if name == "electra_tiny":
            path = _electra(data, args.data_dir, args.device)
        elif name == "bert_tiny_sop":
            path = _sop(data, args.data_dir, args.epochs, args.device)
        else:
            path = _albert(data, args.data_dir, args.device)
        print(f"{name}: {time.perf_counter() - start:.0f} s -> {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
