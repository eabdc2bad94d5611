"""Real-browser tests: every notebook opened in JupyterLab in Chromium, as a student would.

One JupyterLab server (127.0.0.1, token, a temporary copy of notebooks/ outside the repository,
kernels and server under the offline guard) and one headless Debian Chromium driven by
playwright-python serve the whole session. The notebooks' kernels run lecturekit's installed
wheel (the venv of tests/support/installed_wheel.py, shared with test_wheel.py: what a Colab
student installs) when this run opens every notebook and the wheel can be built, else this venv.
Per notebook (found by glob, so new notebooks are covered): open it in JupyterLab, run all cells,
wait until the kernel is idle, assert no cell failed, that every stored output came out again by
nbval's rules (tests/support/nbval_outputs.py: this is then the notebooks' one strict run, see
the root conftest.py) and every widget view rendered, then move the first visible slider (or
pick another option of the first visible dropdown) and assert the widget's image changed; shut
the kernel down and close the notebook. Two notebooks run at a time (the next one's run-all
starts while the current one is checked), each in a browser page of its own where JupyterLab
stays loaded from one notebook to the next (a page whose test failed is replaced). Screenshots
of failures go to test-output/browser/ (untracked).

bertviz (lecturekit.viz.bert.attention_view): its CDN scripts are served from local copies of the
npm packages d3@5.7.0, requirejs@2.3.6 and jquery@2.1.0 (fetched once into .test-cache/npm/ at
set-up: the only network use here), and the head view must render its SVG with the tokens on
the first run; with nothing served, the offline fallback must show. Without npm (outside CI)
the notebooks are checked with bertviz offline.

Every request a page makes to a host other than 127.0.0.1 is intercepted: the CDN files above
are answered locally (or refused, offline), anything else is refused and fails the test.

Marker ``browser``; skipped with the reason when /usr/bin/chromium (Debian's ``chromium``
package) or playwright is missing, unless LECTUREKIT_REQUIRE_BROWSER=1 (set by .ci/run), which
turns those skips into failures.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import installed_wheel  # tests/support
import kernel_sockets  # tests/support
import nbval_outputs  # tests/support
import pytest
from chromium import require_chromium, unavailable  # tests/support

from lecturekit_publish import vendor

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
OUT = ROOT / "test-output" / "browser"
NPM_CACHE = ROOT / ".test-cache" / "npm"
RUN_TIMEOUT_S = 300  # one notebook's run-all (they take 10-30 s; the CI machine is shared)
WIDGET_TIMEOUT_S = 60  # one redraw after moving a control

# bertviz's CDN URLs -> (the site's npm package, file in it): lecturekit_publish.vendor fetches
# them (with the site's MathJax) into .test-cache/npm/
CDN = {
    "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js":
        ("requirejs-2.3.6", "require.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min.js":
        ("d3-5.7.0", "dist/d3.min.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min.js":
        ("jquery-2.1.0", "dist/jquery.min.js"),  # 2.0.0 is not on npm; 2.1.0 works
}  # fmt: skip


_unavailable = unavailable


# --------------------------------------------------------------------------- set-up fixtures


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    runtime: Path  # its connection files and kernel sockets


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def kernel_python(request) -> tuple[str, str]:
    """The Python of the notebooks' kernels, and which it is: the venv of lecturekit's installed
    wheel (built once per run, shared with test_wheel.py: tests/support/installed_wheel.py) when
    this run opens every notebook (those tests are marked ``network``: pip builds it) and it can
    be built; else this venv."""
    if not installed_wheel.lab_runs_the_notebooks(request.session.items):
        return sys.executable, "this venv"
    try:
        built = request.getfixturevalue("wheel_venv")
    except pytest.skip.Exception as err:
        return sys.executable, f"this venv (no installed wheel: {err.msg})"
    return str(built.python), "the installed wheel's venv"


@pytest.fixture(scope="session")
def lab(tmp_path_factory, kernel_python) -> Lab:
    """A JupyterLab server on 127.0.0.1 serving a copy of notebooks/ (autosave rewrites files)
    outside the repository, its Python processes (server and kernels) under the offline guard;
    its kernels ("python3", the notebooks' kernel) run ``kernel_python``."""
    require_chromium()
    base = tmp_path_factory.mktemp("lab")
    root, settings = base / "notebooks", base / "settings"
    root.mkdir()
    for nb in NOTEBOOKS:
        shutil.copy(nb, root / nb.name)
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # the kernel spec "python3" found first on JUPYTER_PATH wins over ipykernel's own
    spec = base / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [kernel_python[0], "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python",
    }))  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    token = os.urandom(16).hex()
    # no path into the repository on PYTHONPATH but the offline guard's own folder
    env = installed_wheel.offline_env()
    env["JUPYTER_PATH"] = str(base / "jupyter")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)  # no news / update checks
    # its kernels on Unix sockets, not TCP ports other processes race for
    # (tests/support/kernel_sockets.py), named after their connection files in a short folder
    # of this server's (a Unix socket path is limited to 107 bytes)
    runtime = Path(kernel_sockets.socket_prefix() + "-lab")
    env["JUPYTER_RUNTIME_DIR"] = str(runtime)
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={base}", "--LabApp.expose_app_in_browser=True",
        "--KernelManager.transport=ipc",
    ]  # fmt: skip
    if os.getuid() == 0:
        cmd.append("--allow-root")
    log = open(OUT / "jupyterlab.log", "w")  # noqa: SIM115 - closed at teardown
    proc = None
    try:
        proc, url = _start_lab(cmd, env, token, log)
        yield Lab(url, token, root, runtime)
    finally:
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


def _start_lab(cmd: list[str], env: dict, token: str, log, ports=_free_port, tries: int = 3):
    """Start the server ``cmd`` on a free port (``ports()``); (process, url). A port is free when
    ``_free_port`` releases it, and another process may take it before the server binds it (the
    server then stops, saying so): then again on another port, up to ``tries`` times."""
    for attempt in range(tries):
        port = ports()
        log.write(f"--- start {attempt + 1}, port {port}\n")
        log.flush()
        proc = subprocess.Popen([*cmd, f"--port={port}"], env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        if _wait_for_lab(proc, url, token):
            return proc, url
        taken = "already in use" in Path(log.name).read_text().split("--- start")[-1]
        if not taken or attempt == tries - 1:
            raise RuntimeError(f"JupyterLab did not start (see {log.name})")
    raise AssertionError("unreachable")


def _wait_for_lab(proc: subprocess.Popen, url: str, token: str) -> bool:
    """Wait until the server at ``url`` answers (True), or has stopped (False); an error after
    two minutes."""
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5):
                return proc.poll() is None  # (another server on the port: not ours)
        except OSError:
            if proc.poll() is not None:
                return False
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"JupyterLab did not answer in 120 s (see {OUT / 'jupyterlab.log'})"
                ) from None
            time.sleep(0.5)


@pytest.fixture(scope="session")
def browser(lab, chromium):
    return chromium  # tests/conftest.py: one Chromium for every browser test


@pytest.fixture(scope="session")
def cdn_files(online_env) -> dict[str, bytes]:
    """bertviz's CDN files from the npm registry, kept in .test-cache/npm/ (an install step:
    npm is the only program here that may use the network)."""
    try:
        folders = vendor.fetch(NPM_CACHE, env=online_env)
    except RuntimeError as err:
        _unavailable(f"{err} (needed once to fetch bertviz's scripts for the test)")
    return {url: (folders[name] / inner).read_bytes() for url, (name, inner) in CDN.items()}


# --------------------------------------------------------------------------- page helpers


@dataclass
class Requests:
    """Requests the page sent outside 127.0.0.1: served (CDN copies) and refused."""

    served: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _context(browser, cdn: dict[str, bytes] | None):
    """A fresh browser context; ``cdn`` None = offline (every outside request refused)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    seen = Requests()

    def route(r):
        url = r.request.url
        host = urlsplit(url).hostname or ""
        if host in ("127.0.0.1", "localhost"):
            r.continue_()
        elif cdn is not None and url in cdn:
            seen.served.append(url)
            r.fulfill(status=200, body=cdn[url], content_type="application/javascript",
                      headers={"Access-Control-Allow-Origin": "*"})  # fmt: skip
        else:
            seen.refused.append(url)
            r.abort("internetdisconnected")

    context.route("**/*", route)
    return context, seen


# the notebook under test is window.__lkNb (set by _OPEN): JupyterLab's current widget follows
# focus, which a page in the background does not get
_KERNEL_IDLE = """() => {
  const w = window.__lkNb;
  if (!w || !w.sessionContext || !w.context || !w.context.isReady) return false;
  const s = w.sessionContext.session;
  return !!(s && s.kernel && s.kernel.status === 'idle');
}"""

_RUN_ALL = """() => {
  window.__lkRun = null;
  window.jupyterapp.commands.execute('notebook:run-all-cells', {widgetId: window.__lkNb.id}).then(
    (ok) => { window.__lkRun = {ok: ok}; },
    (err) => { window.__lkRun = {error: String(err)}; });
}"""

_CELLS = """() => {
  const nb = window.__lkNb.content;
  return nb.widgets.filter((c) => c.model.type === 'code').map((c, i) => ({
    index: i,
    source: c.model.sharedModel.getSource(),
    count: c.model.executionCount,
    outputs: c.model.outputs.toJSON().map((o) => ({
      type: o.output_type, ename: o.ename || null, evalue: o.evalue || null,
      mimes: Object.keys(o.data || {}),
    })),
  }));
}"""

# per code cell with widget-view outputs: how many it has, how many rendered, and its text
_WIDGET_VIEWS = """() => window.__lkNb.content.widgets
  .filter((c) => c.model.type === 'code')
  .map((c) => ({
    wanted: c.model.outputs.toJSON().filter(
      (o) => o.data && o.data['application/vnd.jupyter.widget-view+json']).length,
    rendered: c.outputArea.node.querySelectorAll('.jp-OutputArea-output > .jupyter-widgets').length,
    text: c.outputArea.node.innerText,
  }))
  .filter((v) => v.wanted)"""

# every code cell's outputs, as nbformat dicts (what JupyterLab would save)
_OUTPUTS = """() => window.__lkNb.content.widgets
  .filter((c) => c.model.type === 'code')
  .map((c) => c.model.outputs.toJSON())"""

_CONTROLS = (
    ".jp-Notebook .jp-OutputArea-output .widget-slider .noUi-handle, "
    ".jp-Notebook .jp-OutputArea-output .widget-dropdown select"
)

_IMAGES_NEAR = """(el) => {
  const out = el.closest('.jp-OutputArea-output');
  return Array.from(out.querySelectorAll('img')).map((i) => i.src);
}"""


def _screenshot(page, name: str) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    with contextlib.suppress(Exception):  # a screenshot must not hide the real failure
        page.screenshot(path=str(path), full_page=True, timeout=30_000)
    return path


_OPEN = """async (path) => {
  window.__lkNb = null;
  const w = await window.jupyterapp.commands.execute('docmanager:open', {path: path});
  window.jupyterapp.shell.activateById(w.id);
  window.__lkNb = w;
}"""


def _load_lab(page, lab: Lab, workspace: str) -> None:
    """JupyterLab in ``page``, in a workspace of its own, emptied (else JupyterLab restores every
    notebook opened before, each with a kernel)."""
    page.goto(f"{lab.url}/lab/workspaces/{workspace}?reset&token={lab.token}",
              timeout=120_000)  # fmt: skip
    page.wait_for_function("() => window.jupyterapp", timeout=120_000, polling=250)
    page.evaluate("async () => { await window.jupyterapp.restored; }")


def _open(page, name: str) -> None:
    """Open one notebook in the JupyterLab of ``page`` (``_load_lab``); wait for its kernel."""
    page.evaluate(_OPEN, name)
    page.wait_for_function(_KERNEL_IDLE, timeout=120_000, polling=250)


def _run_all(page) -> list[dict]:
    page.evaluate(_RUN_ALL)
    return _wait_run_all(page)


def _wait_run_all(page) -> list[dict]:
    """Wait for run-all (fired by _RUN_ALL) to finish and the kernel to be idle; the cells."""
    page.wait_for_function("() => window.__lkRun !== null", timeout=RUN_TIMEOUT_S * 1000,
                           polling=500)  # fmt: skip
    page.wait_for_function(_KERNEL_IDLE, timeout=60_000, polling=250)
    return page.evaluate(_CELLS)


def _assert_ran_cleanly(cells: list[dict], name: str) -> None:
    errors = [
        f"cell {c['index']}: {o['ename']}: {o['evalue']}"
        for c in cells
        for o in c["outputs"]
        if o["type"] == "error"
    ]
    assert not errors, f"{name}: error output in the browser:\n" + "\n".join(errors)
    not_run = [c["index"] for c in cells if c["source"].strip() and c["count"] is None]
    assert not not_run, f"{name}: code cells not executed by run-all: {not_run}"


def _assert_widgets_rendered(page, name: str) -> int:
    views = page.evaluate(_WIDGET_VIEWS)
    broken = [
        v["text"][:200]
        for v in views
        if v["rendered"] < v["wanted"]
        or re.search(r"Error displaying widget|Loading widget", v["text"])
    ]
    assert not broken, f"{name}: widget views that did not render: {broken}"
    return sum(v["wanted"] for v in views)


def _change_first_control(page, name: str, timeout_s: float = WIDGET_TIMEOUT_S) -> str:
    """Move the first visible slider / pick another option of the first visible dropdown;
    return a description once the widget's image has changed."""
    controls = page.locator(_CONTROLS)
    for i in range(controls.count()):
        control = controls.nth(i)
        if not control.is_visible():
            continue  # e.g. head_widget hides the layer dropdown for a one-layer model
        control.scroll_into_view_if_needed()
        before = control.evaluate(_IMAGES_NEAR)
        assert before, f"{name}: the first control's widget shows no image"
        tag = control.evaluate("(el) => el.tagName")
        if tag == "SELECT":
            current = control.input_value()
            options = control.evaluate("(el) => Array.from(el.options).map((o) => o.value)")
            other = next(o for o in options if o != current)
            control.select_option(other)
            what = f"dropdown {current!r} -> {other!r}"
        else:
            old = control.get_attribute("aria-valuenow")
            control.focus()
            control.press("ArrowRight")
            if control.get_attribute("aria-valuenow") == old:  # at its maximum
                control.press("ArrowLeft")
            what = f"slider {old} -> {control.get_attribute('aria-valuenow')}"
        page.wait_for_function(
            f"(el) => JSON.stringify(({_IMAGES_NEAR})(el)) !== {json.dumps(json.dumps(before))}",
            arg=control.element_handle(),
            timeout=timeout_s * 1000,
            polling=250,
        )
        page.wait_for_function(_KERNEL_IDLE, timeout=60_000, polling=250)
        return what
    pytest.fail(f"{name}: no visible slider or dropdown widget: every notebook needs one")


def _bertviz_frames(page) -> list:
    return [f for f in page.frames if f != page.main_frame and f.query_selector("#lk-bertviz")]


def _head_view_tokens(frame) -> list[str] | None:
    """The tokens bertviz draws in a head view (from its parameters in the page), or None
    for a model view."""
    html = frame.content()
    if "head_view" not in html and 'id="layer"' not in html:
        return None
    m = re.search(r'"left_text":\s*', html)
    return json.JSONDecoder().raw_decode(html, m.end())[0] if m else None


_FALLBACK_SHOWN = (
    "() => getComputedStyle(document.getElementById('lk-fallback')).display !== 'none'"
)


def _assert_bertviz_fallback(frame) -> None:
    """Offline: the notice and the static head view (a loaded PNG), no bertviz SVG."""
    frame.wait_for_function(_FALLBACK_SHOWN, timeout=30_000)
    assert "could not load its scripts" in frame.inner_text("#lk-fallback")
    assert frame.evaluate("() => document.querySelector('#lk-fallback img').naturalWidth") > 100
    assert not frame.query_selector("#lk-bertviz svg text")


def _assert_bertviz_rendered(frame, tokens: list[str] | None) -> None:
    frame.wait_for_function(
        f"() => document.querySelector('#lk-bertviz svg text') || ({_FALLBACK_SHOWN})()",
        timeout=30_000,
    )
    assert not frame.evaluate(_FALLBACK_SHOWN), (
        "bertviz fell back to the static view although its scripts were served"
    )
    if tokens is not None:
        texts = frame.evaluate(
            "() => Array.from(document.querySelectorAll('#lk-bertviz svg text'))"
            ".map((t) => t.textContent)"
        )
        missing = [t for t in tokens if t not in texts]
        assert not missing, f"head view SVG lacks tokens {missing}; it shows {texts[:20]}"


def _shutdown(page) -> None:
    """Shut the notebook's kernel down and close the notebook (no prompt: JupyterLab's own
    close would ask about unsaved changes)."""
    with contextlib.suppress(Exception):  # the page may be gone after a failure
        page.evaluate("""async () => {
          const w = window.__lkNb;
          window.__lkNb = null;
          if (w) { await w.sessionContext.shutdown(); w.dispose(); }
        }""")


# --------------------------------------------------------------------------- tests


def test_lab_kernels_listen_on_unix_sockets(lab):
    """A kernel the server starts gets ZeroMQ's ipc transport and sockets in its runtime folder."""
    api = f"{lab.url}/api/kernels?token={lab.token}"
    request = urllib.request.Request(api, data=b"{}", method="POST")
    with urllib.request.urlopen(request, timeout=60) as reply:
        kernel = json.load(reply)["id"]
    try:
        connection = json.loads((lab.runtime / f"kernel-{kernel}.json").read_text())
        assert connection["transport"] == "ipc", connection
        assert Path(connection["ip"]).parent == lab.runtime, connection["ip"]
        deadline = time.monotonic() + 60  # the kernel binds them once it has started
        while len(list(lab.runtime.glob(f"kernel-{kernel}-ipc-*"))) < 5:
            assert time.monotonic() < deadline, "the kernel's five socket files never appeared"
            time.sleep(0.2)
    finally:
        delete = urllib.request.Request(
            f"{lab.url}/api/kernels/{kernel}?token={lab.token}", method="DELETE"
        )
        urllib.request.urlopen(delete, timeout=60).close()


def test_a_server_whose_port_was_taken_starts_again_on_another(tmp_path, lab):
    """The race _start_lab answers: the first port it gets is taken by the time the server binds
    it; the server says so and stops, and the next start (another port) answers."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        ports = iter([held.getsockname()[1], _free_port()])
        token = "t" * 32
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.port_retries=0",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={tmp_path}", *(["--allow-root"] if os.getuid() == 0 else [])]  # fmt: skip
        env = {**installed_wheel.offline_env(), "JUPYTER_RUNTIME_DIR": str(lab.runtime) + "-2"}
        with open(tmp_path / "lab.log", "w") as log:
            proc, url = _start_lab(cmd, env, token, log, ports=lambda: next(ports))
            try:
                assert url.endswith(f":{proc.args[-1].split('=')[1]}")
                text = (tmp_path / "lab.log").read_text()
                assert text.count("--- start") == 2 and "already in use" in text, text[-2000:]
            finally:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)


def test_every_notebook_is_covered():
    assert len(NOTEBOOKS) >= 10, [p.name for p in NOTEBOOKS]


@pytest.fixture(scope="session")
def cdn_or_none(request) -> dict[str, bytes] | None:
    """bertviz's CDN files, or None where npm cannot fetch them (outside CI): the notebooks are
    then tested with bertviz offline (its fallback must show)."""
    try:
        return request.getfixturevalue("cdn_files")
    except pytest.skip.Exception:
        return None


class Slot:
    """A browser context and page with JupyterLab loaded, where notebooks are opened one after
    the other (loading JupyterLab takes 3-4 s of CPU; opening a notebook in it about 1 s). What
    the page does (requests outside 127.0.0.1, uncaught errors) is recorded for the run on it."""

    def __init__(self, lab: Lab, browser, cdn: dict[str, bytes] | None, workspace: str):
        self.context, self.seen = _context(browser, cdn)
        self.page = self.context.new_page()
        self.page_errors: list[str] = []
        self.page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        try:
            _load_lab(self.page, lab, workspace)
        except BaseException:
            self.close()
            raise
        self.busy = False

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a page that failed may be gone
            self.context.close()


@dataclass
class Run:
    """One notebook open in a slot's JupyterLab, its run-all fired."""

    name: str
    slot: Slot
    started: float

    @property
    def page(self):
        return self.slot.page

    @property
    def seen(self) -> Requests:
        return self.slot.seen

    @property
    def page_errors(self) -> list[str]:
        return self.slot.page_errors


class Runs:
    """Notebook runs, two at a time: while a test checks its notebook, the next notebook's
    run-all is already going (the kernels use one thread each; the machine has 2 cores), each
    in a slot of its own; a slot whose test failed is replaced by a fresh one."""

    def __init__(self, lab: Lab, browser, cdn: dict[str, bytes] | None, order: list[str]):
        self.lab, self.browser, self.cdn, self.order = lab, browser, cdn, order
        self.running: dict[str, Run] = {}
        self.slots: list[Slot] = []
        self.made = 0

    def _free_slot(self) -> Slot:
        for slot in self.slots:
            if not slot.busy:
                return slot
        self.made += 1
        slot = Slot(self.lab, self.browser, self.cdn, f"slot-{self.made}")
        self.slots.append(slot)
        return slot

    def start(self, name: str) -> Run:
        slot = self._free_slot()
        slot.busy = True
        slot.seen.served.clear()
        slot.seen.refused.clear()
        slot.page_errors.clear()
        run = Run(name, slot, time.monotonic())
        self.running[name] = run
        _open(slot.page, name)
        slot.page.evaluate(_RUN_ALL)
        return run

    def take(self, name: str) -> Run:
        """This notebook's run (started now unless prefetched), after starting the next one."""
        run = self.running.pop(name, None)
        if run is None:
            run = self.start(name)
            self.running.pop(name)
        later = self.order[self.order.index(name) + 1 :] if name in self.order else []
        if later and later[0] not in self.running:
            try:
                self.start(later[0])
            except Exception:  # dropped: its own test starts it again and reports the failure
                dropped = self.running.pop(later[0], None)
                if dropped is not None:
                    self.close(dropped, failed=True)
        return run

    def close(self, run: Run, failed: bool = False) -> None:
        """Close the run's notebook (its kernel shut down); a failed run's slot is closed."""
        _shutdown(run.page)
        run.slot.busy = False
        if failed:
            run.slot.close()
            self.slots.remove(run.slot)

    def close_all(self) -> None:
        for run in list(self.running.values()):
            self.close(run)
        self.running.clear()
        for slot in self.slots:
            slot.close()
        self.slots.clear()


@pytest.fixture(scope="session")
def runs(request, lab, browser, cdn_or_none):
    order = [
        item.callspec.params["path"].name
        for item in request.session.items
        if getattr(item, "originalname", "") == installed_wheel.LAB_TEST
    ]
    r = Runs(lab, browser, cdn_or_none, order)
    yield r
    r.close_all()


@pytest.mark.network  # its set-up fetches bertviz's CDN files with npm (cdn_files)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_in_jupyterlab(path, runs, request, kernel_python):
    name = path.name
    run = runs.take(name)
    page = run.page
    try:
        cells = _wait_run_all(page)
        ran = time.monotonic() - run.started
        _assert_ran_cleanly(cells, name)
        # the notebook's strict check (this run is its only one: see the root conftest.py)
        differ = nbval_outputs.differences(request.session, path, page.evaluate(_OUTPUTS))
        assert not differ, (f"{name} in JupyterLab ({kernel_python[1]}): stored outputs that "
                            "nbval would not accept:\n" + "\n\n".join(differ))  # fmt: skip
        n_views = _assert_widgets_rendered(page, name)
        optional = "*Going further (optional).*" in "".join(
            json.loads(path.read_text())["cells"][0]["source"]
        )
        # a lecture has a widget to play with; an optional going-further notebook (a study
        # measured) may have none, and any it has must render and redraw like a lecture's
        assert n_views or optional, f"{name}: no widget was displayed: every lecture needs one"
        bertviz = []
        for frame in _bertviz_frames(page):
            if runs.cdn is None:
                _assert_bertviz_fallback(frame)
                bertviz.append("fallback")
            else:
                tokens = _head_view_tokens(frame)
                _assert_bertviz_rendered(frame, tokens)
                bertviz.append(f"head view, {len(tokens)} tokens" if tokens else "model view")
        what = _change_first_control(page, name) if n_views else "no widget (optional notebook)"
        unexpected = [u for u in run.seen.refused if runs.cdn is not None or u not in CDN]
        assert not unexpected, f"{name}: the page tried to reach {unexpected}"
        extra = f", bertviz: {bertviz}" if bertviz else ""
        print(f"{name}: {len(cells)} code cells, stored outputs matched (nbval's rules, "
              f"kernel: {kernel_python[1]}), {n_views} widget views{extra}, {what}; "
              f"opened + ran in {ran:.1f} s (next notebook running alongside)")  # fmt: skip
    except BaseException:
        shot = _screenshot(page, name.removesuffix(".ipynb"))
        print(f"screenshot: {shot}; page errors: {run.page_errors[:5]}")
        runs.close(run, failed=True)
        raise
    runs.close(run)


ATTENTION_NB = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": (
                "import torch\n"
                "from lecturekit.viz.bert import attention_view\n"
                "torch.manual_seed(0)\n"
                "tokens = ['[CLS]', 'students', 'read', 'attention', '[SEP]']\n"
                "att = [torch.softmax(torch.randn(1, 2, 5, 5), -1) for _ in range(2)]\n"
                "attention_view(att, tokens)"
            ),
        }
    ],
    "metadata": {
        "kernelspec": {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
ATTENTION_TOKENS = ["[CLS]", "students", "read", "attention", "[SEP]"]


@pytest.mark.network  # cdn_files: npm
@pytest.mark.parametrize("served", [True, False], ids=["cdn-served", "offline"])
def test_bertviz_head_view(served, lab, browser, cdn_files):
    """First run: the head view's SVG with the tokens (scripts served); offline: the static
    fallback with its notice, and no bertviz SVG."""
    name = f"bertviz_{'served' if served else 'offline'}.ipynb"
    (lab.root / name).write_text(json.dumps(ATTENTION_NB))
    context, seen = _context(browser, cdn_files if served else None)
    page = context.new_page()
    try:
        _load_lab(page, lab, name.removesuffix(".ipynb"))
        _open(page, name)
        _assert_ran_cleanly(_run_all(page), name)
        page.wait_for_function("() => document.querySelector('.jp-OutputArea-output iframe')")
        deadline = time.monotonic() + 30
        while not (frames := _bertviz_frames(page)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(frames) == 1, "attention_view's iframe did not load"
        frame = frames[0]
        if served:
            _assert_bertviz_rendered(frame, ATTENTION_TOKENS)
            assert set(seen.served) == set(CDN), seen.served
            assert not seen.refused, seen.refused
        else:
            _assert_bertviz_fallback(frame)
            assert seen.refused and all(u in CDN for u in seen.refused), seen.refused
    except BaseException:
        _screenshot(page, name.removesuffix(".ipynb"))
        raise
    finally:
        _shutdown(page)
        context.close()


def _code_cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source, "id": f"c{zlib.crc32(source.encode())}"}  # fmt: skip


WRONG_STORED_OUTPUT = {"output_type": "stream", "name": "stdout", "text": "41\n"}
BROKEN_NB = {
    **ATTENTION_NB,
    "cells": [
        {**_code_cell("print(6 * 7)"), "execution_count": 1, "outputs": [WRONG_STORED_OUTPUT]},
        _code_cell(
            "import ipywidgets as w\n"
            "from matplotlib.figure import Figure\n"
            "from lecturekit.viz.widgets import figure_widget\n"
            "def render(n):  # ignores n: the image never changes\n"
            "    fig = Figure(figsize=(2, 2))\n"
            "    fig.add_subplot().plot([0, 1])\n"
            "    return fig\n"
            "figure_widget(render, {'n': w.IntSlider(value=1, min=0, max=5)})"
        ),
        _code_cell("raise ValueError('planted error')"),
    ],
}


def test_checks_catch_errors_and_widgets_that_do_not_redraw(lab, browser, request, tmp_path):
    """The checks above can fail: a stored output the run does not give, a cell that raises,
    and a slider whose image never changes."""
    name = "broken.ipynb"
    (lab.root / name).write_text(json.dumps(BROKEN_NB))
    (tmp_path / name).write_text(json.dumps(BROKEN_NB))  # the stored notebook
    context, _ = _context(browser, None)
    page = context.new_page()
    try:
        _load_lab(page, lab, name.removesuffix(".ipynb"))
        _open(page, name)
        cells = _run_all(page)
        differ = nbval_outputs.differences(
            request.session, tmp_path / name, page.evaluate(_OUTPUTS)
        )
        assert len(differ) == 1 and differ[0].startswith("cell 0: outputs differ"), differ
        assert "41" in differ[0] and "42" in differ[0], differ[0]
        with pytest.raises(AssertionError, match="cell 2: ValueError: planted error"):
            _assert_ran_cleanly(cells, name)
        assert _assert_widgets_rendered(page, name) == 1
        with pytest.raises(Exception, match="Timeout"):
            _change_first_control(page, name, timeout_s=5)
    finally:
        _shutdown(page)
        context.close()
