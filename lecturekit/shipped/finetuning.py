"""The shipped models of lecture 13: the tiny BERT fine-tuned on each of the four toy tasks, and
the learning curves (every regime, size and seed) that the notebook plots.

The full sweep (4 tasks x 3 regimes x 4 sizes x 3 seeds) takes minutes on one core, more than
a notebook may; notebook 13 trains one task at the smallest size live, with the loop it writes
(equal to ``run``'s), and reads the rest from here.

Public API::

    MODELS                                  # task name -> shipped checkpoint name
    model = load_shipped("bert_tiny_topic")  # lecturekit.shipped: a fine-tuned head model
    rows = learning_curves()                # every shipped run's row (task, regime, n, seed, ...)
    rows = learning_curves("qa")            # one task's

Each checkpoint's training metadata (``shipped_info(name).training``) holds the recipe
(``lecturekit.experiments.finetuning.FINETUNING``) and its task's sweep under
"learning_curve". The shipped model is the fine-tuned run of seed 0 at the largest size.

Command line (reruns the sweep and rewrites the checkpoints and their MANIFEST lines)::

    python -m lecturekit.shipped.finetuning [--models bert_tiny_topic ...] [--threads 1]

Lecture 13; Devlin et al. 2019 section 4.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from lecturekit.datasets.finetuning import default_tasks
from lecturekit.experiments.finetuning import FINETUNING, curve_table, run, sweep
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import load_shipped, load_tokenizer, save_shipped, shipped_info
from lecturekit.utils.checks import check_choice

__all__ = ["MODELS", "learning_curves", "main"]

MODELS = {
    "topic": "bert_tiny_topic",
    "nli": "bert_tiny_nli",
    "qa": "bert_tiny_qa",
    "tagging": "bert_tiny_tagging",
}


def learning_curves(task: str | None = None) -> list[dict[str, object]]:
    """The shipped sweep's rows (each: task, regime, n_train, seed, dev, test, scores, steps),
    of every task or of ``task`` (one of ``MODELS``)."""
    names = list(MODELS)
    if task is not None:
        check_choice("task", task, names)
        names = [task]
    rows: list[dict[str, object]] = []
    for name in names:
        rows += shipped_info(MODELS[name]).training["learning_curve"]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Rerun lecture 13's sweep and rewrite the fine-tuned checkpoints."""
    args = parse_args("lecturekit.shipped.finetuning", main.__doc__, argv,
                      models=list(MODELS.values()))  # fmt: skip
    tasks = default_tasks()
    pretrained, tokenizer = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    for task_name, name in MODELS.items():
        if name not in args.models:
            continue
        task = tasks[task_name]
        rows = sweep([task], pretrained, tokenizer)
        for (_, regime, n), (mean, low, high) in sorted(curve_table(rows).items()):
            print(f"{task_name:8s} {regime:16s} n={n:5d}  test {mean:.3f} [{low:.3f}, {high:.3f}]")
        largest = max(n for n in FINETUNING["sizes"] if n <= len(task.train))
        model = run(task, "fine-tuned", largest, pretrained, tokenizer, seed=0).model
        recipe = {"data": f"lecturekit.datasets.finetuning.default_tasks()[{task_name!r}]",
                  "pretrained": "bert_tiny", "regime": "fine-tuned", "n_train": largest,
                  "seed": 0, "recipe": {k: v for k, v in FINETUNING.items()},
                  "learning_curve": rows}  # fmt: skip
        path = save_shipped(model, name, training=recipe, vocab=tokenizer.vocab,
                            data_dir=args.data_dir)  # fmt: skip
        print(f"{name} -> {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
