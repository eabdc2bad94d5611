"""Debian's headless Chromium for the real-browser tests (tests/test_browser.py, tests/test_site.py):
where it is, how it is started (nothing it does on its own reaches the network), and how a
missing browser is reported (a skip, or a failure under LECTUREKIT_REQUIRE_BROWSER=1, as in CI)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest

from lecturekit_publish.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: F401  (one home)

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


@dataclass
class Seen:
    """What a page did that an offline page must not: requests refused (another host), requests
    that failed, console errors."""

    refused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.refused or self.failed or self.errors)


def offline_page(browser, viewport=(1280, 900), block: str | None = None):
    """A page in a fresh context of ``browser``, every request outside 127.0.0.1 refused and
    recorded, failures and console errors recorded (``Seen``); ``block``: a path prefix to
    refuse too (to see a fallback). Returns (page, seen)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    seen = Seen()

    def route(r):
        url = r.request.url
        if urlsplit(url).hostname in ("127.0.0.1", "localhost") and not (
            block and urlsplit(url).path.startswith(block)
        ):
            r.continue_()
        else:
            seen.refused.append(url)
            r.abort("internetdisconnected")

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda r: seen.failed.append(f"{r.url}: {r.failure}"))
    page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    return page, seen
