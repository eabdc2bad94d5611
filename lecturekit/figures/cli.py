"""Command line: list and build the slide figures.

    python -m lecturekit.figures list [--lecture NN]
    python -m lecturekit.figures build [NAME ...] [--lecture NN ...] [--out DIR]
                                       [--format png,svg,pdf] [--theme light|dark] [--dpi N]

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
        prog="python -m lecturekit.figures",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from lecturekit import figures

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
    for name in args.names:
        try:
            figures.spec(name)
        except ValueError as err:
            parser.error(f"{err} (see: python -m lecturekit.figures list)")
    try:  # made and checked now, not after the first figure was drawn
        out = check_writable_dir("--out", args.out)
    except ValueError as err:
        parser.error(str(err))
    start = time.perf_counter()
    by_lecture = [n for lecture in asked for n in figures.names(lecture)]
    selected = list(dict.fromkeys([*args.names, *by_lecture])) or figures.names()
    for name in selected:
        try:
            fig = figures.build(name, args.theme)
            for fmt in formats:
                figures.save(fig, out / f"{name}.{fmt}", fmt, args.dpi)
        except Exception as err:  # one line, never a traceback
            print(f"error: figure {name!r} failed: {type(err).__name__}: {err}", file=sys.stderr)
            return 1
        finally:
            import matplotlib.pyplot as plt

            plt.close("all")
    n = len(selected) * len(formats)
    print(f"wrote {n} files ({len(selected)} figures x {','.join(formats)}, {args.theme}) to "
          f"{out} in {time.perf_counter() - start:.1f} s")  # fmt: skip
    return 0
