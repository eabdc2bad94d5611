"""Command line: the course website and the slide decks.

    python -m lecturekit_publish vendor [--cache DIR]          # npm, once: the scripts
    python -m lecturekit_publish site [--out site] [--cache DIR] [--jobs 2] [--no-frames]
    python -m lecturekit_publish slides [--out slides] [--lecture 03 ...] [--no-pdf] [--jobs 2]
    python -m lecturekit_publish student-release [--out student-release]   # for nbgitpuller

Run from a clone of the repository (``make site`` / ``make slides`` run vendor first; ``make
serve-site`` / ``make serve-slides`` serve them on http://127.0.0.1:8000 / 8001).
Errors are one-line messages with a non-zero exit code: 2 for a bad
command line, a folder that is not a clone, or an --out (vendor: --cache) that is a file or
cannot be written to (checked before any work starts), 1 when fetching or building fails.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main"]

DEFAULT_CACHE = ".site-cache/npm"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit_publish",
        description="Build the course website from the stored notebooks (offline).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("vendor", help="fetch the scripts (MathJax, require.js, d3, jQuery, "
                       "reveal.js) with npm into the cache, once")  # fmt: skip
    v.add_argument("--cache", default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    s = sub.add_parser("site", help="build the website into --out")
    s.add_argument("--out", default="site", help="output folder, replaced (default site/)")
    s.add_argument("--cache", default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    s.add_argument("--root", default=".", help="the clone (default: the current folder)")
    s.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes rendering widget frames (default 2)")  # fmt: skip
    s.add_argument("--no-frames", action="store_true",
                   help="widgets show their first frame only (a quick look)")  # fmt: skip
    d = sub.add_parser("slides", help="build one slide deck per lecture into --out")
    d.add_argument("--out", default="slides", help="output folder, replaced (default slides/)")
    d.add_argument("--cache", default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    d.add_argument("--root", default=".", help="the clone (default: the current folder)")
    d.add_argument("--lecture", action="append", metavar="NN",
                   help="only this lecture's deck (repeat for more; default: all)")  # fmt: skip
    d.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes drawing figures (default 2)")  # fmt: skip
    d.add_argument("--no-pdf", action="store_true", help="HTML decks only (no Chromium needed)")
    r = sub.add_parser("student-release", help="the notebooks students pull (no solutions, no "
                       "per-run metadata) into --out")  # fmt: skip
    r.add_argument("--out", default="student-release", help="default student-release/")
    r.add_argument("--root", default=".", help="the clone (default: the current folder)")
    r.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    return parser


def _check_out(parser: argparse.ArgumentParser, option: str, path: str) -> None:
    """Exit with an ``error:`` line (status 2) unless ``path`` is a folder that can be made and
    written to: checked before the build starts, not when it first writes there."""
    from lecturekit.utils.checks import check_writable_dir

    try:
        check_writable_dir(option, path)
    except ValueError as err:
        parser.error(str(err))


def _slides(args: argparse.Namespace, root: Path, out: Path) -> int:
    from lecturekit_publish.slides import build_slides

    try:
        report = build_slides(
            root, out, args.cache, lectures=args.lecture, pdf=not args.no_pdf, jobs=args.jobs,
            progress=lambda msg: print(msg, flush=True),
        )  # fmt: skip
    except (RuntimeError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    pdf = ""
    if report.pdf_pages:
        pdf = f", {len(report.pdf_pages)} PDFs ({sum(report.pdf_bytes.values()) / 1e6:.1f} MB)"
    print(f"slides: {len(report.decks)} decks, {sum(report.decks.values())} slides{pdf}, built "
          f"in {report.seconds:.0f} s -> {args.out}/")  # fmt: skip
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "vendor":
        from lecturekit_publish import vendor

        _check_out(parser, "--cache", args.cache)
        try:
            folders = vendor.fetch(args.cache)
        except (RuntimeError, OSError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        print(f"site scripts in {args.cache}: {', '.join(folders)}")
        return 0
    root = Path(args.root)
    if not (root / "notebooks").is_dir() or not (root / "pyproject.toml").is_file():
        parser.error(f"--root {args.root!r} is not a clone of the course (no notebooks/ and "
                     "pyproject.toml): run from the repository's folder")  # fmt: skip
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    out = Path(args.out)
    if out.resolve() in (root.resolve(), *root.resolve().parents) or out.resolve() == Path.home():
        parser.error(f"--out {args.out!r} would replace the clone or a folder above it")
    _check_out(parser, "--out", args.out)  # now, not after a minute of building
    if args.command == "slides":
        return _slides(args, root, out)
    if args.command == "student-release":
        from lecturekit_publish.release import build_student_release

        try:
            written = build_student_release(root, out)
        except (ValueError, OSError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        print(f"student release: {len(written)} files -> {args.out}/")
        return 0
    from lecturekit_publish.site import build_site

    try:
        report = build_site(root, out, args.cache, jobs=args.jobs, frames=not args.no_frames,
                            progress=lambda msg: print(msg, flush=True))  # fmt: skip
    except (RuntimeError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(
        f"site: {report.pages} pages, {report.widgets} playable widgets, {report.frames} "
        f"frames, {report.megabytes:.1f} MB, built in {report.seconds:.0f} s -> {args.out}/"
    )
    return 0
