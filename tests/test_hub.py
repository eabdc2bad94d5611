"""A class on a real JupyterHub (markers ``hub`` and ``network``; skip it with ``-m 'not hub'``).

What docs/teaching-a-class.md tells an instructor to run, started by this test on 127.0.0.1 only
and stopped by it: JupyterHub (from the venv) with configurable-http-proxy (npm, pinned, installed
once into ``.hub-cache/``: the only step that uses the network), the dummy authenticator and the
simple local process spawner (every student a home folder of their own under the test's
temporary folder). Then, for five students at once:

1. each logs in through the hub's login form and gets their own server;
2. each pulls the course with an **nbgitpuller** link (``git-pull?repo=...``) from a local git
   repository of the student release (``make student-release``), as a class hub's link does;
3. each server runs a lecture notebook top to bottom in a kernel, driven over the kernel's
   websocket through the hub's proxy, and saves the executed notebook and a file of their own;
4. every run finished without an error output; each student's files are in their home and no
   one else's; their servers are stopped and started again and everything, the executed
   notebook and the student's edit included, is still there.

It prints each student's kernel peak memory and wall time (``-s``) and bounds them loosely.
Without configurable-http-proxy (no npm) it skips, unless LECTUREKIT_REQUIRE_HUB=1 (CI).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from fresh_venv import unavailable  # tests/support

pytestmark = [pytest.mark.hub, pytest.mark.network]
requests = pytest.importorskip("requests")
psutil = pytest.importorskip("psutil")
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed")
pytest.importorskip("nbgitpuller", reason="nbgitpuller is not installed")

ROOT = Path(__file__).resolve().parents[1]
CHP_VERSION = "5.3.0"
CHP_CACHE = ROOT / ".hub-cache" / "npm"
STUDENTS = [f"student{i}" for i in range(1, 6)]
NOTEBOOK = "02b_scoring_in_depth.ipynb"  # a short lecture: five run at once on two cores
PASSWORD = "class-of-300"
BIN = Path(sys.executable).parent
TIMEOUT = 240  # seconds, for any one wait


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proxy(online_env: dict[str, str]) -> Path:
    """configurable-http-proxy, installed once with npm into .hub-cache/."""
    binary = CHP_CACHE / "node_modules" / ".bin" / "configurable-http-proxy"
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        unavailable(
            "npm is missing: configurable-http-proxy comes from npm", "LECTUREKIT_REQUIRE_HUB"
        )
    CHP_CACHE.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(CHP_CACHE), "--no-audit", "--no-fund",
         f"configurable-http-proxy@{CHP_VERSION}"],
        env=online_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0 or not binary.exists():
        unavailable(f"npm could not install configurable-http-proxy: {done.stderr[-500:]}",
                    "LECTUREKIT_REQUIRE_HUB")  # fmt: skip
    return binary


def _course_repository(tmp: Path) -> Path:
    """A git repository of the student release: what the nbgitpuller links point to."""
    from lecturekit_publish.release import build_student_release

    repo = tmp / "course.git-src"
    build_student_release(ROOT, repo)
    git = ["git", "-c", "user.name=Instructor", "-c", "user.email=i@example.org"]
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "release"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True, timeout=60)
    return repo


CONFIG = """
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {tmp!r} + "/proxy.pid"
c.JupyterHub.db_url = "sqlite:///" + {tmp!r} + "/hub.sqlite"
c.JupyterHub.cookie_secret_file = {tmp!r} + "/cookie_secret"
c.JupyterHub.pid_file = {tmp!r} + "/hub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = set({students!r})
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {tmp!r} + "/home/{{username}}"
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = ["--ServerApp.ip=127.0.0.1"] + (["--allow-root"] if {root} else [])  # CI: root
c.Spawner.environment = {{"OMP_NUM_THREADS": "1", "MPLCONFIGDIR": {tmp!r} + "/mpl"}}
c.Spawner.start_timeout = {timeout}
c.Spawner.http_timeout = {timeout}
c.JupyterHub.services = [{{"name": "grader", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "grader", "services": ["grader"],
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"]}}]
"""


class Hub:
    def __init__(self, url: str, token: str, tmp: Path, process: subprocess.Popen):
        self.url, self.token, self.tmp, self.process = url, token, tmp, process
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"token {token}"

    def wait(self, what: str, ready) -> None:
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise AssertionError(f"the hub exited while waiting for {what}:\n{self.log()}")
            try:
                if ready():
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log()}")

    def log(self) -> str:
        return (self.tmp / "hub.log").read_text()[-4000:]

    def server_ready(self, user: str) -> bool:
        """The hub calls the server ready, and the proxy routes to it: the server's own API
        answers (a request the proxy sends to the hub instead gets the hub's 404 page, as
        nbgitpuller's call once did in CI when it came right after "ready")."""
        info = self.api.get(f"{self.url}/hub/api/users/{user}", timeout=10).json()
        server = info.get("servers", {}).get("")
        if not (server and server.get("ready")):
            return False
        r = self.api.get(f"{self.url}/user/{user}/api", timeout=10)
        return r.ok and r.headers.get("content-type", "").startswith("application/json") and \
            "version" in r.json()  # fmt: skip

    def start(self, user: str) -> None:
        r = self.api.post(f"{self.url}/hub/api/users/{user}/server", timeout=30)
        assert r.status_code in (201, 202), (r.status_code, r.text)
        self.wait(f"{user}'s server", lambda: self.server_ready(user))

    def stop(self, user: str) -> None:
        r = self.api.delete(f"{self.url}/hub/api/users/{user}/server", timeout=30)
        assert r.status_code in (202, 204), (r.status_code, r.text)
        self.wait(f"{user}'s server to stop", lambda: not self.api.get(
            f"{self.url}/hub/api/users/{user}", timeout=10).json().get("servers"))  # fmt: skip


@pytest.fixture(scope="module")
def hub(tmp_path_factory, online_env):
    proxy = _proxy(online_env)
    tmp = tmp_path_factory.mktemp("hub")
    port, hub_port, api_port = _free_port(), _free_port(), _free_port()
    token = secrets.token_hex(16)
    singleuser = str(BIN / "jupyterhub-singleuser")
    (tmp / "jupyterhub_config.py").write_text(CONFIG.format(
        port=port, hub_port=hub_port, api_port=api_port, proxy=str(proxy), tmp=str(tmp),
        password=PASSWORD, students=STUDENTS, singleuser=singleuser, timeout=TIMEOUT, token=token,
        root=os.geteuid() == 0,
    ))  # fmt: skip
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               CONFIGPROXY_AUTH_TOKEN=secrets.token_hex(16))  # fmt: skip
    with open(tmp / "hub.log", "w") as log:
        process = subprocess.Popen(
            [str(BIN / "jupyterhub"), "-f", str(tmp / "jupyterhub_config.py")],
            cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    h = Hub(f"http://127.0.0.1:{port}", token, tmp, process)
    try:
        h.wait("the hub", lambda: requests.get(f"{h.url}/hub/api", timeout=5).ok)
        yield h
    finally:
        tree = [process]
        with contextlib.suppress(psutil.NoSuchProcess):
            tree += psutil.Process(process.pid).children(recursive=True)
        process.terminate()  # the hub stops the students' servers and its proxy
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        _, alive = psutil.wait_procs([p for p in tree if p.pid != process.pid], timeout=20)
        for p in alive:
            p.kill()
        assert not alive, f"left running after the hub stopped: {[p.pid for p in alive]}"


def _login(hub: Hub, user: str) -> requests.Session:
    """The hub's login form, as a browser sends it."""
    s = requests.Session()
    s.get(f"{hub.url}/hub/login", timeout=30)
    xsrf = s.cookies.get("_xsrf", "")
    r = s.post(f"{hub.url}/hub/login?next=", data={"username": user, "password": PASSWORD,
               "_xsrf": xsrf}, allow_redirects=False, timeout=30)  # fmt: skip
    assert r.status_code == 302, f"{user}: login answered {r.status_code}"
    home = s.get(f"{hub.url}/hub/home", timeout=30)
    assert home.ok and user in home.text, f"{user}: the hub's home page does not know them"
    other = requests.Session()
    other.get(f"{hub.url}/hub/login", timeout=30)
    bad = other.post(f"{hub.url}/hub/login?next=", data={"username": user, "password": "wrong",
                     "_xsrf": other.cookies.get("_xsrf", "")}, allow_redirects=False, timeout=30)  # fmt: skip
    assert bad.status_code == 403 and "Invalid username or password" in bad.text, bad.status_code
    return s


def _pull(hub: Hub, user: str, repo: Path) -> None:
    """Follow the course's nbgitpuller link (its event-stream API, as its page does)."""
    query = urlencode({"repo": str(repo), "branch": "main", "targetpath": "course"})
    r = hub.api.get(f"{hub.url}/user/{user}/git-pull/api?{query}", timeout=TIMEOUT)
    assert r.ok, f"{user}: nbgitpuller answered {r.status_code}: {r.text[-500:]}"
    assert "error" not in r.text.lower().replace("stderr", ""), f"{user}: {r.text[-800:]}"


async def _run_notebook(hub: Hub, user: str, path: str) -> dict:
    """Run every code cell of the student's copy in a new kernel of their server, over the
    kernel's websocket through the proxy; save the executed notebook; return what it cost."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    base = f"{hub.url}/user/{user}"
    nb = hub.api.get(f"{base}/api/contents/{quote(path)}", timeout=60).json()["content"]
    kernel = hub.api.post(f"{base}/api/kernels", json={"name": "python3"}, timeout=60).json()
    ws_url = base.replace("http://", "ws://") + f"/api/kernels/{kernel['id']}/channels"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {hub.token}"}),
                                 max_message_size=1 << 28)  # fmt: skip
    session, errors, began = uuid.uuid4().hex, [], time.monotonic()
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    cells.append({"source": "import resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
                  "outputs": [], "cell_type": "code", "metadata": {}})  # fmt: skip
    for cell in cells:
        msg_id = uuid.uuid4().hex
        await ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                       "username": user, "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": "".join(cell["source"]), "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))  # fmt: skip
        outputs, idle, replied = [], False, False
        while not (idle and replied):
            raw = await asyncio.wait_for(ws.read_message(), TIMEOUT)
            assert raw is not None, f"{user}: the kernel's websocket closed"
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                idle = True
            elif kind == "execute_reply":
                replied = True
            elif kind in ("stream", "execute_result", "display_data", "error"):
                outputs.append({"output_type": kind, **content})
                if kind == "error":
                    errors.append(f"{content['ename']}: {content['evalue']}")
        cell["outputs"] = outputs
    ws.close()
    wall = time.monotonic() - began
    peak_kb = int("".join(o.get("text", "") for o in cells[-1]["outputs"]).split()[-1])
    hub.api.delete(f"{base}/api/kernels/{kernel['id']}", timeout=60)
    done = dict(nb, cells=nb["cells"])
    saved = hub.api.put(f"{base}/api/contents/{quote(path.replace('.ipynb', '-run.ipynb'))}",
                        json={"type": "notebook", "content": done}, timeout=60)  # fmt: skip
    assert saved.ok, saved.text
    return {"errors": errors, "wall": wall, "peak_mb": peak_kb / 1024}


def test_five_students_work_on_their_own_servers(hub):
    repo = _course_repository(hub.tmp)
    path = f"course/notebooks/{NOTEBOOK}"

    def student(user: str) -> dict:
        _login(hub, user)
        hub.start(user)
        _pull(hub, user, repo)
        result = asyncio.run(_run_notebook(hub, user, path))
        note = hub.api.put(f"{hub.url}/user/{user}/api/contents/mine.txt",
                           json={"type": "file", "format": "text", "content": f"I am {user}"},
                           timeout=60)  # fmt: skip
        assert note.ok, note.text
        return result

    with ThreadPoolExecutor(len(STUDENTS)) as pool:
        results = dict(zip(STUDENTS, pool.map(student, STUDENTS), strict=True))
    for user, r in results.items():
        print(f"{user}: {NOTEBOOK} in {r['wall']:.1f} s, kernel peak {r['peak_mb']:.0f} MB")
        assert not r["errors"], f"{user}: error outputs {r['errors']}"
        assert r["peak_mb"] < 1500 and r["wall"] < TIMEOUT

    homes = hub.tmp / "home"
    for user in STUDENTS:
        mine = homes / user
        assert (mine / "mine.txt").read_text() == f"I am {user}"
        run = json.loads((mine / path.replace(".ipynb", "-run.ipynb")).read_text())
        assert sum(len(c.get("outputs", [])) for c in run["cells"]) > 0
        for other in STUDENTS:
            if other != user:
                assert (homes / other / "mine.txt").read_text() != f"I am {user}"
    for proc in psutil.Process(hub.process.pid).children(recursive=True):
        for conn in proc.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                assert conn.laddr.ip in ("127.0.0.1", "::1"), (proc.cmdline(), conn.laddr)

    for user in STUDENTS:  # stop every server, start it again: nothing lost
        hub.stop(user)
    for user in STUDENTS:
        hub.start(user)
        text = hub.api.get(f"{hub.url}/user/{user}/api/contents/mine.txt", timeout=60).json()
        assert text["content"] == f"I am {user}"
        run = hub.api.get(f"{hub.url}/user/{user}/api/contents/"
                          f"{quote(path.replace('.ipynb', '-run.ipynb'))}", timeout=60)  # fmt: skip
        assert run.ok
