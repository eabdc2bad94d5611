"""Building the course website and the slide decks in the browser tests (tests/test_site.py,
tests/test_slides.py): the npm cache filled once at set-up (the only network use; skipped, or
failed in CI, when npm cannot fetch), and ``python -m lecturekit_publish ...`` run in a
subprocess under the offline guard, exactly as ``make site`` / ``make slides`` run it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import lk_offline_guard as guard  # tests/offline, put on sys.path by the root conftest.py
from chromium import require_chromium, unavailable

from lecturekit_publish import vendor

ROOT = Path(__file__).resolve().parents[2]
NPM_CACHE = ROOT / ".test-cache" / "npm"


def fetch_scripts(online_env: dict[str, str]) -> None:
    """Chromium and playwright present, and the npm packages in NPM_CACHE (else unavailable)."""
    require_chromium()
    try:
        vendor.fetch(NPM_CACHE, env=online_env)
    except RuntimeError as err:
        unavailable(str(err))


def run_publish(command: str, out: Path, *extra: str) -> tuple[float, str]:
    """``python -m lecturekit_publish <command> --out <out> <extra>`` offline; (seconds, its
    output). A failed build fails the test with the end of its output."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lecturekit_publish", command, "--out", str(out),
         "--cache", str(NPM_CACHE), "--jobs", "2", *extra],
        cwd=ROOT, env=guard.child_env(), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return seconds, log
