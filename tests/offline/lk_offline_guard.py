"""Offline guard for lecturekit's tests: Python code may reach loopback and Unix sockets only.

Installed in the pytest process by the root conftest.py and, through ``sitecustomize.py`` in this
folder (put on PYTHONPATH with LECTUREKIT_OFFLINE=1 set), in every Python subprocess the tests
start: nbval's kernels, the JupyterLab server and its kernels, helper subprocesses.

Blocked (before any packet leaves): ``connect``/``connect_ex``/``sendto``/``sendmsg`` to an
address that is not loopback, and name look-ups (``getaddrinfo``, ``gethostbyname``, ...) of any
name but localhost and this machine's own hostname. Each blocked attempt raises
``NetworkBlockedError`` (an ``OSError``) naming the destination and the calling code, and is
appended as one JSON line to the file named by LECTUREKIT_OFFLINE_LOG, so an attempt that the
caller catches and hides (e.g. a library falling back to offline mode) still fails the test run
(the root conftest.py reads the log after every test phase).

Not covered: network code in C/Rust extensions that does not go through Python's ``socket``
module (the browser is guarded separately by the browser tests' request routing).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import sys
import sysconfig
import time
import traceback

ENV_FLAG = "LECTUREKIT_OFFLINE"
ENV_LOG = "LECTUREKIT_OFFLINE_LOG"
HERE = os.path.dirname(os.path.abspath(__file__))

_INET = {socket.AF_INET, socket.AF_INET6}
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
# plumbing between the code that asked and the socket: not "the culprit"
_PLUMBING = re.compile(
    r"[/\\]site-packages[/\\](urllib3|requests|httpx|httpcore|anyio|h11|aiohttp|websocket|"
    r"tornado|zmq|certifi|sniffio)[/\\]"
)
_originals: dict[str, object] = {}
_own_hostname: str | None = None


class NetworkBlockedError(OSError):
    """A network access that the offline guard refused."""


def _is_loopback_ip(host: str) -> bool | None:
    """True/False for an IP literal, None for a name."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def _name_allowed(name: object) -> bool:
    """May this host name (or IP literal) be looked up without asking a DNS server?"""
    if name is None:
        return True
    if isinstance(name, bytes):
        name = name.decode("ascii", "replace")
    name = str(name).rstrip(".").lower()
    if name in ("", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"):
        return True
    if name.endswith(".localhost"):
        return True
    if _is_loopback_ip(name) is not None:  # an IP literal: looking it up sends nothing
        return True
    return _own_hostname is not None and name == _own_hostname.lower()


def _address_allowed(family: int, address: object) -> bool:
    if family not in _INET:
        return True  # AF_UNIX, AF_NETLINK, ...: not the network
    if not isinstance(address, tuple) or not address:
        return True  # malformed: let the OS raise its own error
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    loop = _is_loopback_ip(str(host))
    if loop is None:  # a name: connect() would resolve it itself
        return str(host).lower() in ("localhost",) or str(host).lower().endswith(".localhost")
    return loop


def _culprit() -> tuple[list[str], str]:
    """The calling code (innermost last, without the guard's own frames) and the innermost
    frame outside the standard library and HTTP plumbing: the code that asked."""
    frames = [f for f in traceback.extract_stack() if os.path.dirname(f.filename) != HERE]
    stack = [f"{f.filename}:{f.lineno} in {f.name}" for f in frames[-8:]]
    for f in reversed(frames):
        path = os.path.realpath(f.filename)
        if not path.startswith(_STDLIB + os.sep) and not _PLUMBING.search(path):
            return stack, f"{f.filename}:{f.lineno} in {f.name}"
    return stack, stack[-1] if stack else "?"


def _blocked(op: str, destination: str) -> NetworkBlockedError:
    stack, where = _culprit()
    argv = " ".join(sys.argv[:3])[:200]
    record = {
        "time": time.time(),
        "op": op,
        "destination": destination,
        "pid": os.getpid(),
        "argv": argv,
        "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
        "caller": where,
        "stack": stack,
    }
    log = os.environ.get(ENV_LOG)
    if log:
        try:
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, (json.dumps(record) + "\n").encode())
            finally:
                os.close(fd)
        except OSError:
            pass
    return NetworkBlockedError(
        f"lecturekit offline guard: blocked {op} to {destination} (process {os.getpid()}: "
        f"{argv}); called from {where}. Tests and notebooks must not use the network."
    )


def _fmt(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host, port = address[0], address[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return repr(address)


def _wrap_method(name: str):
    original = getattr(socket.socket, name)

    def guarded(self, *args, **kwargs):
        address = None
        if name in ("connect", "connect_ex"):
            address = args[0] if args else kwargs.get("address")
        elif name == "sendto":
            address = args[-1] if len(args) >= 2 else None
        elif name == "sendmsg":
            address = args[3] if len(args) >= 4 else kwargs.get("address")
        if address is not None and not _address_allowed(self.family, address):
            raise _blocked(name, _fmt(address))
        return original(self, *args, **kwargs)

    guarded._lk_offline_guard = True  # type: ignore[attr-defined]
    guarded.__name__ = name
    guarded.__doc__ = original.__doc__
    _originals[f"socket.{name}"] = original
    return guarded


def _wrap_lookup(name: str):
    original = getattr(socket, name)

    def guarded(host, *args, **kwargs):
        if not _name_allowed(host):
            raise _blocked(name, f"{host!s} (name look-up)")
        return original(host, *args, **kwargs)

    guarded._lk_offline_guard = True  # type: ignore[attr-defined]
    guarded.__name__ = name
    guarded.__doc__ = original.__doc__
    _originals[name] = original
    return guarded


def installed() -> bool:
    return bool(getattr(socket.socket.connect, "_lk_offline_guard", False))


def install() -> None:
    """Guard this process (idempotent)."""
    global _own_hostname
    if installed():
        return
    try:
        _own_hostname = socket.gethostname()
    except OSError:
        _own_hostname = None
    for method in ("connect", "connect_ex", "sendto", "sendmsg"):
        setattr(socket.socket, method, _wrap_method(method))
    for lookup in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        setattr(socket, lookup, _wrap_lookup(lookup))


def uninstall() -> None:
    """Undo ``install`` (for the guard's own tests)."""
    for key, original in list(_originals.items()):
        if key.startswith("socket."):
            setattr(socket.socket, key.split(".", 1)[1], original)
        else:
            setattr(socket, key, original)
    _originals.clear()


def child_env(online: bool = False, base: dict | None = None) -> dict[str, str]:
    """Environment for a subprocess: guarded (the default), or with network allowed (only the
    install steps: the Binder environment build and the npm set-up)."""
    env = dict(os.environ if base is None else base)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != HERE]
    if online:
        env.pop(ENV_FLAG, None)
    else:
        env[ENV_FLAG] = "1"
        paths.insert(0, HERE)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    else:
        env.pop("PYTHONPATH", None)
    return env


def read_log(path: str | None, offset: int = 0) -> tuple[list[dict], int]:
    """Records appended to the log since ``offset``, and the new offset."""
    if not path or not os.path.exists(path):
        return [], offset
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
    end = data.rfind(b"\n") + 1  # ignore a line still being written
    records = [json.loads(line) for line in data[:end].splitlines() if line.strip()]
    return records, offset + end


def describe(records: list[dict]) -> str:
    lines = []
    for r in records:
        lines.append(
            f"blocked {r['op']} to {r['destination']} in process {r['pid']} ({r['argv']}), "
            f"called from {r['caller']}"
        )
        lines.extend(f"    {s}" for s in r["stack"][-5:])
    return "\n".join(lines)
