"""Command line: list and build the slide figures.

    python -m lecturekit_publish.figures list [--lecture NN]
    python -m lecturekit_publish.figures build [NAME ...] [--lecture NN ...] [--out DIR]
                                       [--format png,svg,pdf] [--theme light|dark] [--dpi N]
                                       [--jobs N]

Figures are built ``--jobs`` at a time (default: one per core this process may use), each in
a process of its own; every figure is seeded, so the files do not depend on how many ran at
once.

(also installed as the ``lecturekit-figures`` command; ``make figures`` builds them all).
Errors are one-line messages with a non-zero exit code: 2 for a bad command line (an unknown
figure name lists the close matches; an --out directory that cannot be made or written to),
checked before any figure is built; 1 when a figure cannot be built or written.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

from lecturekit.utils.checks import check_writable_dir

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit_publish.figures",
        description="List or build the lecture slide figures (deterministic, light or dark).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    lister = sub.add_parser("list", help="names, lectures and one-line descriptions")
    lister.add_argument("--lecture", help="only this lecture, e.g. 03")
    b = sub.add_parser("build", help="write figures to --out (all of them by default)")
    b.add_argument("names", nargs="*", metavar="NAME", help="figures to build (default: all)")
    b.add_argument("--lecture", action="append", default=[], metavar="NN",
                   help="and every figure of this lecture (repeat for more)")  # fmt: skip
    b.add_argument("--out", default="figures", help="output directory (default: figures/)")
    b.add_argument("--format", default="png", help="comma-separated: png,svg,pdf (default png)")
    b.add_argument("--theme", default="light", choices=["light", "dark"])
    b.add_argument("--dpi", type=int, default=150, help="resolution of PNG output (default 150)")
    b.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="figures built at once (default: one per core)")  # fmt: skip
    return parser


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _build_some(
    names: Sequence[str], theme: str, formats: Sequence[str], dpi: int, out: str
) -> str | None:
    """Build figures ``names`` and write each in every format; the first one-line error, or
    None."""
    from pathlib import Path

    import matplotlib.pyplot as plt

    from lecturekit_publish import figures

    for name in names:
        try:
            fig = figures.build(name, theme)
            for fmt in formats:
                figures.save(fig, Path(out) / f"{name}.{fmt}", fmt, dpi)
        except Exception as err:  # one line, never a traceback
            return f"figure {name!r} failed: {type(err).__name__}: {err}"
        finally:
            plt.close("all")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from lecturekit_publish import figures

    parser = _parser()
    args = parser.parse_args(argv)
    lectures = sorted({figures.spec(n).lecture for n in figures.names()})
    asked = [args.lecture] if isinstance(args.lecture, str) else args.lecture or []
    for lecture in asked:
        if lecture not in lectures:
            padded = lecture.zfill(2)
            hint = f"; did you mean {padded!r}?" if padded in lectures else ""
            parser.error(f"--lecture {lecture!r}: no figures for that lecture; choose from "
                         f"{', '.join(lectures)}{hint}")  # fmt: skip
    if args.command == "list":
        selected = figures.names(args.lecture)
        width = max(len(n) for n in selected)
        try:
            for name in selected:
                s = figures.spec(name)
                print(f"{s.lecture}  {name:<{width}}  {s.description}")
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. `... list | head`
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (silence the exit-time flush)
        return 0

    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in figures.FORMATS]
    if bad or not formats:
        parser.error(f"--format {args.format!r}: choose from {','.join(figures.FORMATS)}")
    if not 10 <= args.dpi <= 1200:
        parser.error(f"--dpi {args.dpi} is outside 10..1200")
    if args.jobs is not None and not 1 <= args.jobs <= 64:
        parser.error(f"--jobs {args.jobs} is outside 1..64")
    for name in args.names:
        try:
            figures.spec(name)
        except ValueError as err:
            parser.error(f"{err} (see: python -m lecturekit_publish.figures list)")
    try:  # made and checked now, not after the first figure was drawn
        out = check_writable_dir("--out", args.out)
    except ValueError as err:
        parser.error(str(err))
    start = time.perf_counter()
    by_lecture = [n for lecture in asked for n in figures.names(lecture)]
    selected = list(dict.fromkeys([*args.names, *by_lecture])) or figures.names()
    work = [[name] for name in selected]
    jobs = min(args.jobs or _cores(), len(work))
    args_of = (args.theme, formats, args.dpi, str(out))
    if jobs == 1:
        errors = (_build_some(names, *args_of) for names in work)  # here, one after the other
        error = next((e for e in errors if e), None)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = [pool.submit(_build_some, names, *args_of) for names in work]
            error = next((e for e in (f.result() for f in futures) if e), None)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    n = len(selected) * len(formats)
    print(f"wrote {n} files ({len(selected)} figures x {','.join(formats)}, {args.theme}) to "
          f"{out} in {time.perf_counter() - start:.1f} s")  # fmt: skip
    return 0
