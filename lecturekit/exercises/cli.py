"""The command line of the exercise registry, for the people who write exercises::

    python -m lecturekit.exercises list [LECTURE]          # ids, titles, how each is judged
    python -m lecturekit.exercises hash 03.1 floats 0.8808 0.1192 --precision 4
    python -m lecturekit.exercises hash 12.2 words "low est"
    python -m lecturekit.exercises export-nbgrader --out course/ [--lecture 03 ...] [--from .]

``hash`` prints the ``Expected(...)`` to paste into the lecture's module (the value itself never
goes into the package or the notebook). ``export-nbgrader`` writes the graded assignments of a
class (``lecturekit.exercises.nbgrader``) from the course repository. Bad arguments: one
``error:`` line, exit status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from lecturekit.exercises import core


def _value(kind: str, values: list[str]) -> object:
    if kind in ("int", "float"):
        if len(values) != 1:
            raise ValueError(f"a {kind} answer is one value, got {len(values)}")
        return float(values[0]) if kind == "float" else int(values[0])
    if kind == "floats":
        return [float(v) for v in values]
    if kind == "text":
        return " ".join(values)
    if kind == "words":
        return " ".join(values).split()
    return values  # set


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit.exercises", description="List exercises; hash an answer."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="the registered exercises")
    listing.add_argument("lecture", nargs="?")
    hashing = sub.add_parser("hash", help="the Expected(...) of an answer")
    hashing.add_argument("exercise_id")
    hashing.add_argument("kind", choices=core.KINDS)
    hashing.add_argument("values", nargs="+")
    hashing.add_argument("--precision", type=int, default=0)
    export = sub.add_parser("export-nbgrader", help="the exercises as an nbgrader course")
    export.add_argument("--out", required=True, help="the course folder to write")
    export.add_argument(
        "--lecture",
        action="append",
        dest="lectures",
        help="a lecture to export (repeat it; default: every lecture)",
    )
    export.add_argument(
        "--from",
        dest="source",
        default=".",
        help="the course repository, with notebooks/ and solutions/ (default: .)",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "export-nbgrader":
            from lecturekit.exercises.nbgrader import export_nbgrader

            written = export_nbgrader(args.out, args.lectures, args.source)
            print(
                f"wrote {len(written)} assignments to {args.out}/source/ and "
                f"{args.out}/nbgrader_config.py; next: {args.out}/README.md"
            )
            return 0
        if args.command == "list":
            for i in core.exercise_ids(args.lecture):
                ex = core.get(i)
                how = "checker" if ex.checker else f"hashed {ex.expected.kind}"
                print(f"{i:6s} {how:14s} {ex.title}")
            return 0
        hashes = core.answer_hashes(args.exercise_id, args.kind,
                                    _value(args.kind, args.values), args.precision)  # fmt: skip
    except (ValueError, OSError) as err:
        parser.error(str(err))
    extra = f", precision={args.precision}" if args.kind in ("float", "floats") else ""
    print(f"Expected({args.kind!r}, {hashes!r}{extra})")
    return 0
