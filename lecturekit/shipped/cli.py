"""The command line the shipped-model modules share: ``python -m lecturekit.shipped.<module>``.

Public API::

    args = parse_args("lecturekit.shipped.vit", "Train lecture 09's ViTs.", argv,
                      models=MODELS, epochs=None)
    #   --models NAME ... (each one of ``models``), --epochs N (if ``epochs`` is its default),
    #   --threads N (torch.set_num_threads; default 1), --data-dir DIR (default data/)

A bad command line prints a one-line message and exits with status 2 (argparse), never a
traceback, before any work starts: every option is checked here, including that --data-dir
can be written to (it is created if missing), so a typo does not surface when saving after
minutes of training. Errors during training itself (e.g. out of memory) propagate as usual.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import torch

from lecturekit.shipped.store import DATA_DIR
from lecturekit.utils.checks import check_writable_dir

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
    parser.add_argument("--data-dir", default=str(DATA_DIR), help="where to write (default data/)")
    args = parser.parse_args(argv)
    for name in getattr(args, "models", []):
        if name not in models:
            parser.error(f"--models: {name!r} is not one of {list(models)}")
    for option in ("epochs", "threads"):
        value = getattr(args, option, 1)
        if value < 1:
            parser.error(f"--{option} must be >= 1, got {value}")
    try:  # checked (and made) now, not when saving after minutes of training
        check_writable_dir("--data-dir", args.data_dir)
    except ValueError as err:
        parser.error(str(err))
    torch.set_num_threads(args.threads)
    return args
