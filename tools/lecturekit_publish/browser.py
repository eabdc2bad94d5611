"""Debian's headless Chromium, driven by playwright, kept off the network.

Used to print the slide decks to PDF (``lecturekit_publish.slides``) and by the browser tests.
Playwright never downloads a browser here: it drives ``/usr/bin/chromium`` (``apt-get install
chromium``), or the browser named by the environment variable LECTUREKIT_CHROMIUM.

Public API::

    CHROMIUM                  # the browser's path
    CHROMIUM_ARGS             # headless, no background networking, no DNS but for this machine
    with launch() as browser: # a playwright Browser (RuntimeError saying what is missing)
        ...
    with serve(folder) as url: # folder served on http://127.0.0.1:<free port>/, quietly
        ...

Lecture-independent.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "launch", "serve"]

CHROMIUM = os.environ.get("LECTUREKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
    "--disable-features=Translate,OptimizationHints,MediaRouter",
    # Chromium's own look-ups outside the page (which page routing does not see) fail too
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]  # fmt: skip


@contextlib.contextmanager
def launch() -> Iterator[object]:
    """A headless Chromium (playwright's sync API), closed on exit."""
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} not found: apt-get install chromium (or set "
                           "LECTUREKIT_CHROMIUM to a Chromium binary)")  # fmt: skip
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise RuntimeError("playwright is not installed: pip install -r "
                           "requirements-slides.txt") from None  # fmt: skip
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # no line per request
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A page closed while a file was being sent (a browser context closed mid-request)
        is not an error of the site: no traceback on stderr for it; any other error is."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(folder: Path | str) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port) in a thread; yields its URL, ending in /."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
