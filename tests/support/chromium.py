"""Debian's headless Chromium for the real-browser tests (tests/test_browser.py, tests/test_site.py):
where it is, how it is started (nothing it does on its own reaches the network), and how a
missing browser is reported (a skip, or a failure under LECTUREKIT_REQUIRE_BROWSER=1, as in CI)."""

from __future__ import annotations

import os

import pytest

from lecturekit.publish.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: F401  (one home)

STRICT = os.environ.get("LECTUREKIT_REQUIRE_BROWSER") == "1"


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
