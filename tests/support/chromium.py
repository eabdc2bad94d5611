"""Debian's headless Chromium for the real-browser tests (tests/test_browser.py, tests/test_site.py):
where it is, how it is started (nothing it does on its own reaches the network), and how a
missing browser is reported (a skip, or a failure under LECTUREKIT_REQUIRE_BROWSER=1, as in CI)."""

from __future__ import annotations

import os

import pytest

CHROMIUM = os.environ.get("LECTUREKIT_CHROMIUM", "/usr/bin/chromium")
STRICT = os.environ.get("LECTUREKIT_REQUIRE_BROWSER") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
    "--disable-features=Translate,OptimizationHints,MediaRouter",
    # Chromium's own look-ups outside the page (which the routing below does not see) fail too
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]  # fmt: skip


def unavailable(reason: str) -> None:
    """Skip the test, or fail it where browser tests must run (LECTUREKIT_REQUIRE_BROWSER=1)."""
    if STRICT:
        pytest.fail(f"{reason} (LECTUREKIT_REQUIRE_BROWSER=1: browser tests must run here)")
    pytest.skip(reason)


def require_chromium() -> None:
    """Chromium and playwright, or unavailable() saying which is missing."""
    if not os.path.exists(CHROMIUM):
        unavailable(f"{CHROMIUM} not found: apt-get install chromium (Debian), as .ci/run does")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright is not installed (pip install -r requirements-test.txt)")
