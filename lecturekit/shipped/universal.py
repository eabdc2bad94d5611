"""The shipped models of lecture 11b: two tiny Universal Transformers trained on pointer chains
(``lecturekit.datasets.variants.pointer_chains``), one with ACT halting and one applying the same
kind of shared layer a fixed number of times: their training.

Public API::

    RECIPES                                    # {name: training budget and model options}
    model, history = train_pointer_model(name, steps=None)   # name in RECIPES

The task and its fixed held-out batch: ``lecturekit.datasets.variants`` (``POINTERS``,
``pointer_test_set``); what the notebook measures on the models (per depth: tokens, accuracy,
mean steps): ``lecturekit.experiments.variants.depth_table``.

Command line (regenerates both checkpoints and their MANIFEST lines; a few minutes each)::

    python -m lecturekit.shipped.universal [--models ut_act_pointers ut_fixed_pointers]

Lecture 11b; Dehghani et al. 2019; Graves 2016.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import torch

from lecturekit.datasets.variants import (
    POINTERS,
    TEST_SEED,
    PointerBatch,
    pointer_chains,
    pointer_test_set,
)
from lecturekit.efficient.universal import UniversalConfig, UniversalTransformer, act_loss
from lecturekit.experiments.variants import depth_table
from lecturekit.shipped.cli import parse_args
from lecturekit.shipped.store import save_shipped
from lecturekit.training import History, fit
from lecturekit.utils.checks import check_choice, check_positive_int

__all__ = ["RECIPES", "MODELS", "train_pointer_model", "main"]

RECIPES: dict[str, dict[str, object]] = {
    "ut_act_pointers": {
        "act": True,
        "max_steps": 6,
        "ponder_weight": 0.003,
        "steps": 6000,
        "batch_size": 64,
        "lr": 3e-3,
    },
    "ut_fixed_pointers": {
        "act": False,
        "max_steps": 6,
        "ponder_weight": 0.0,
        "steps": 6000,
        "batch_size": 64,
        "lr": 3e-3,
    },
}
MODELS = tuple(RECIPES)


def _config(recipe: dict[str, object]) -> UniversalConfig:
    vocab = POINTERS["n_values"] + POINTERS["T"]
    return UniversalConfig.tiny(vocab, POINTERS["n_values"], act=recipe["act"],
                                max_steps=recipe["max_steps"])  # fmt: skip


def train_pointer_model(
    name: str, steps: int | None = None, progress: bool = False
) -> tuple[UniversalTransformer, History]:
    """Train ``name``'s model (seed 0) on fresh pointer-chain batches: cross-entropy on every
    token plus ponder_weight × the mean ponder cost (ACT model only).

    Args:
        name: one of ``RECIPES``.
        steps: optimizer steps (default the recipe's).
        progress: show fit's progress bar.

    Returns:
        (model in eval mode, fit's History).

    Lecture 11b; Dehghani et al. 2019; Graves 2016 eq. 14.
    """
    check_choice("name", name, RECIPES)
    recipe = RECIPES[name]
    steps = recipe["steps"] if steps is None else check_positive_int("steps", steps)
    torch.manual_seed(0)
    model = UniversalTransformer(_config(recipe))

    def batches(epoch: int, generator: torch.Generator):
        for _ in range(steps):
            yield pointer_chains(recipe["batch_size"], generator=generator, **POINTERS)

    def loss_fn(m: UniversalTransformer, batch: PointerBatch) -> torch.Tensor:
        return act_loss(m(batch.ids), batch.targets, recipe["ponder_weight"])

    history = fit(model, batches, loss_fn, epochs=1, lr=recipe["lr"], seed=0, progress=progress,
                  desc=name)  # fmt: skip
    return model, history


def main(argv: Sequence[str] | None = None) -> int:
    """Retrain lecture 11b's Universal Transformers and rewrite their checkpoints."""
    args = parse_args("lecturekit.shipped.universal", main.__doc__, argv, models=MODELS)
    test = pointer_test_set()
    for name in args.models:
        start = time.perf_counter()
        model, history = train_pointer_model(name, progress=True)
        table = depth_table(model, test)
        recipe = {**RECIPES[name], "seed": 0, "data": f"pointer_chains {POINTERS}, fresh "
                  f"batches from seed 0; held out: seed {TEST_SEED}", "depth_table": table,
                  "final_loss": round(history.step_loss[-1], 4)}  # fmt: skip
        path = save_shipped(model, name, training=recipe, data_dir=args.data_dir)
        print(f"{name}: accuracy per depth {[round(a, 3) for a in table['accuracy']]}, steps "
              f"{[round(s, 2) for s in table['steps']]}; {time.perf_counter() - start:.0f} s "
              f"-> {path.name}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
