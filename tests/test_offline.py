"""The offline guard (tests/offline/) works: in this process, in subprocesses and in notebook
kernels, connections outside loopback and DNS look-ups fail with a message naming the
destination and the caller, every attempt is logged, and loopback still works.

Attempts to reach the outside run only after the guard is proven installed in that process,
and the subprocess ones inside a fresh network namespace when ``unshare -n`` works (root), so
nothing can leave the machine even if the guard were broken.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import lk_offline_guard as guard  # tests/offline, put on sys.path by the root conftest.py
import pytest

OUTSIDE = ("93.184.216.34", 80)  # a public address (example.com's old one); never reached


def _listener():
    """A one-shot TCP echo server on 127.0.0.1; returns (port, thread)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(30)

    def serve():
        with server:
            conn, _ = server.accept()
            with conn:
                conn.sendall(conn.recv(16))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server.getsockname()[1], thread


def _netns() -> list[str]:
    """A prefix that runs a command without any network (a new, empty network namespace)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def test_guard_is_on_for_this_process_and_its_children():
    assert guard.installed()
    assert os.environ[guard.ENV_FLAG] == "1"
    assert guard.HERE in os.environ["PYTHONPATH"].split(os.pathsep)
    assert os.environ.get(guard.ENV_LOG)
    for flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        assert os.environ[flag] == "1"


def test_outside_connection_fails_naming_destination_and_caller(offline_log):
    assert guard.installed()  # so the connect below never reaches the OS
    with pytest.raises(
        guard.NetworkBlockedError, match=r"blocked connect to 93\.184\.216\.34:80"
    ) as e:
        socket.create_connection(OUTSIDE, timeout=1)
    assert "test_offline.py" in str(e.value)
    with pytest.raises(OSError, match=r"blocked getaddrinfo to huggingface\.co"):
        socket.getaddrinfo("huggingface.co", 443)
    with pytest.raises(OSError, match=r"blocked sendto to 8\.8\.8\.8:53"):
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53))
    records = offline_log.take()  # consumed: these were expected, so the test is not failed
    assert [r["op"] for r in records] == ["connect", "getaddrinfo", "sendto"]
    assert records[0]["destination"] == "93.184.216.34:80"
    assert records[0]["caller"].split(":")[0].endswith("test_offline.py")


def test_a_caught_attempt_still_fails_the_test(tmp_path):
    """A library that swallows the error (falls back quietly) cannot hide the attempt: the
    test during which it happened fails, naming the destination (a pytest run of its own,
    with a copy of the root conftest, the guard and tests/support)."""
    tests = Path(__file__).parent
    shutil.copy(tests.parent / "conftest.py", tmp_path / "conftest.py")
    for folder in ("offline", "support"):  # the guard; the plugins the conftest loads
        shutil.copytree(tests / folder, tmp_path / "tests" / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (tmp_path / "test_quiet.py").write_text(
        "import socket\n"
        "def test_quietly_phones_home():\n"
        "    try:\n"
        "        socket.create_connection(('93.184.216.34', 80), timeout=1)\n"
        "    except OSError:\n"
        "        pass  # e.g. a library going offline quietly\n"
        "def test_loopback_is_fine():\n"
        "    s = socket.socket(); s.bind(('127.0.0.1', 0)); s.close()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != guard.ENV_LOG}  # its own log
    done = subprocess.run(
        [*_netns(), sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         str(tmp_path / "test_quiet.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "1 failed, 1 passed" in out, out[-3000:]
    assert "FAILED test_quiet.py::test_quietly_phones_home" in out
    assert "blocked connect to 93.184.216.34:80" in out
    assert "called from " in out and "test_quiet.py:4 in test_quietly_phones_home" in out
    assert "offline guard: 1 network attempt(s) blocked" in out


def test_loopback_still_works():
    port, thread = _listener()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"ping")
        assert s.recv(16) == b"ping"
    thread.join(10)
    assert socket.getaddrinfo("localhost", port)


def test_subprocess_is_guarded(tmp_path):
    """A plain ``python`` child with the same environment: guarded by sitecustomize.py."""
    prefix = _netns()
    code = (
        "import socket, lk_offline_guard as g\n"
        "assert g.installed(), 'guard not installed in the child'\n"
        f"socket.create_connection({OUTSIDE!r}, timeout=2)\n"
    )
    log = tmp_path / "blocked.jsonl"
    env = {**os.environ, guard.ENV_LOG: str(log)}
    done = subprocess.run([*prefix, sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode != 0
    assert (
        "NetworkBlockedError: lecturekit offline guard: blocked connect to 93.184.216.34:80"
        in done.stderr
    )
    assert "guard not installed" not in done.stderr
    records, _ = guard.read_log(str(log))
    assert [r["destination"] for r in records] == ["93.184.216.34:80"]

    port, thread = _listener()  # loopback from the child (outside the empty namespace)
    code = (
        "import socket\n"
        f"s = socket.create_connection(('127.0.0.1', {port}), timeout=10); s.sendall(b'hi')\n"
        "print(s.recv(16).decode())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi"
    thread.join(10)


def test_online_env_is_unguarded_and_only_for_install_steps():
    env = guard.child_env(online=True)
    assert guard.ENV_FLAG not in env
    assert guard.HERE not in env.get("PYTHONPATH", "").split(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-c", "import socket; print(getattr(socket.socket.connect, "
         "'_lk_offline_guard', False))"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.strip() == "False"


def test_notebook_kernel_is_guarded(offline_log):
    """The kernels nbval and JupyterLab start inherit the guard."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:

        def run(code: str) -> tuple[str, list[str]]:
            outputs, errors = [], []

            def hook(msg):
                content = msg["content"]
                if msg["msg_type"] == "stream":
                    outputs.append(content["text"])
                elif msg["msg_type"] == "error":
                    errors.append(f"{content['ename']}: {content['evalue']}")

            kc.execute_interactive(code, output_hook=hook, timeout=60)
            return "".join(outputs), errors

        out, errors = run(
            "import socket\nprint(getattr(socket.socket.connect, '_lk_offline_guard', False))"
        )
        assert out.strip() == "True", (out, errors)  # proven installed before going further
        port, thread = _listener()
        out, errors = run(
            f"s = socket.create_connection(('127.0.0.1', {port}), timeout=10); s.sendall(b'ok')\n"
            "print(s.recv(16).decode())"
        )
        assert out.strip() == "ok" and not errors
        thread.join(10)
        started = time.monotonic()
        out, errors = run(f"socket.create_connection({OUTSIDE!r}, timeout=2)")
        assert time.monotonic() - started < 10
        assert errors and errors[0].startswith(
            "NetworkBlockedError: lecturekit offline guard: blocked connect to 93.184.216.34:80"
        ), errors
        assert [r["destination"] for r in offline_log.take()] == ["93.184.216.34:80"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_libraries_do_not_phone_home(tmp_path):
    """matplotlib, tqdm, transformers (a local model saved and loaded), bertviz and lecturekit,
    imported and used with the Hugging Face offline flags unset: nothing is blocked, so none of
    them tries the network (lecturekit then sets the HF flags itself)."""
    log = tmp_path / "blocked.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env[guard.ENV_LOG] = str(log)
    code = f"""
import os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(); ax.plot([1, 2]); fig.savefig({str(tmp_path / "f.png")!r})
from tqdm.auto import tqdm
for _ in tqdm(range(3)):
    pass
import lecturekit
assert os.environ["HF_HUB_OFFLINE"] == "1"
import transformers, bertviz
from transformers import BertConfig, BertForPreTraining
cfg = BertConfig(vocab_size=20, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=16)
BertForPreTraining(cfg).save_pretrained({str(tmp_path / "bert")!r})
BertForPreTraining.from_pretrained({str(tmp_path / "bert")!r})
import lk_offline_guard as g
assert g.installed()
print("done")
"""
    prefix = _netns()
    done = subprocess.run([*prefix, sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("done")
    records, _ = guard.read_log(str(log))
    assert not records, guard.describe(records)
