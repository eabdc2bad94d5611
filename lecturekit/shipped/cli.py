"""The command line the shipped-model modules share: ``python -m lecturekit.shipped.<module>``.

Public API::

    args = parse_args("lecturekit.shipped.vit", "Train lecture 09's ViTs.", argv,
                      models=MODELS, epochs=None)
    #   --models NAME ... (each one of ``models``), --epochs N (if ``epochs`` is its default),
    #   --threads N (torch.set_num_threads; default 1), --data-dir DIR (see below),
    #   --device DEV (cpu default; cuda, cuda:N or mps where present)

A bad command line prints a one-line message and exits with status 2 (argparse), never a
traceback, before any work starts: every option is checked here, including that --data-dir
can be written to (it is created if missing), so a typo does not surface when saving after
minutes of training, and that --device exists on this machine
(``lecturekit.utils.checks.check_device``). Training runs on --device; evaluation, the printed
results and the saved checkpoints are computed from the model on the CPU. Errors during
training itself (e.g. out of memory) propagate as usual.

--data-dir defaults to the repository's data/ (``store.REPOSITORY_DATA_DIR``) when lecturekit
runs from a clone (editable install or on sys.path), so that retraining replaces the shipped
checkpoints and their MANIFEST lines there. Installed from a wheel, lecturekit's checkpoints are
package data in site-packages, which is not the place to write: --data-dir is then required (an
``error:`` line says so); load what it wrote with ``load_shipped(name, data_dir)``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import torch

from lecturekit.shipped import store
from lecturekit.utils.checks import check_device, check_writable_dir

__all__ = ["parse_args"]


def parse_args(
    module: str,
    description: str,
    argv: Sequence[str] | None,
    *,
    models: Sequence[str] | None = None,
    epochs: int | None = None,
) -> argparse.Namespace:
    """Parse and check a regeneration command line, then set torch's thread count."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=description)
    if models:
        parser.add_argument("--models", nargs="+", default=list(models), metavar="NAME",
                            help=f"which to train (default all): {' '.join(models)}")  # fmt: skip
    if epochs is not None:
        parser.add_argument("--epochs", type=int, default=epochs, help=f"default {epochs}")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument(
        "--data-dir",
        help="where to write (default: the repository's data/ when "
        "run from a clone; required when lecturekit is installed from a wheel)",
    )
    parser.add_argument("--device", default="cpu",
                        help="where to train: cpu (default), cuda, cuda:N or mps; the saved "
                        "checkpoint is written from the CPU")  # fmt: skip
    args = parser.parse_args(argv)
    for name in getattr(args, "models", []):
        if name not in models:
            parser.error(f"--models: {name!r} is not one of {list(models)}")
    for option in ("epochs", "threads"):
        value = getattr(args, option, 1)
        if value < 1:
            parser.error(f"--{option} must be >= 1, got {value}")
    try:
        check_device("--device", args.device)
    except ValueError as err:
        parser.error(str(err))
    if args.data_dir is None:  # read at call time (the tests set it)
        if store.REPOSITORY_DATA_DIR is None:
            parser.error(
                f"--data-dir is required: lecturekit is installed as a package (its "
                f"checkpoints are in {store.DATA_DIR}, not a place to write); give "
                "--data-dir DIR, then load_shipped(name, DIR) reads what it wrote"
            )
        args.data_dir = str(store.REPOSITORY_DATA_DIR)
    try:  # checked (and made) now, not when saving after minutes of training
        check_writable_dir("--data-dir", args.data_dir)
    except ValueError as err:
        parser.error(str(err))
    torch.set_num_threads(args.threads)
    return args
