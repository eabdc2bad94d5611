"""Command line: the course website.

    python -m lecturekit.publish vendor [--cache DIR]          # npm, once: the site's scripts
    python -m lecturekit.publish site [--out site] [--cache DIR] [--jobs 2] [--no-frames]

Run from a clone of the repository (``make site`` does both; ``make serve-site`` previews on
http://127.0.0.1:8000). Errors are one-line messages with a non-zero exit code: 2 for a bad
command line or a folder that is not a clone, 1 when fetching or building fails.
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
        prog="python -m lecturekit.publish",
        description="Build the course website from the stored notebooks (offline).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("vendor", help="fetch the site's scripts (MathJax, require.js, d3, "
                       "jQuery) with npm into the cache, once")  # fmt: skip
    v.add_argument("--cache", default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    s = sub.add_parser("site", help="build the website into --out")
    s.add_argument("--out", default="site", help="output folder, replaced (default site/)")
    s.add_argument("--cache", default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    s.add_argument("--root", default=".", help="the clone (default: the current folder)")
    s.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes rendering widget frames (default 2)")  # fmt: skip
    s.add_argument("--no-frames", action="store_true",
                   help="widgets show their first frame only (a quick look)")  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "vendor":
        from lecturekit.publish import vendor

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
    from lecturekit.publish.site import build_site

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
