"""Kernels over Unix sockets for the test run, never over TCP ports (a pytest plugin).

jupyter_client gives a kernel five TCP ports by binding port 0 and closing the socket, and the
kernel binds them a few seconds later (jupyter_client#487). Its cache of ports in use only
covers its own process: with many kernels starting at once in several processes (two
pytest-xdist workers under nbval, the installed wheel's own nbval run, nbgrader's autograde),
another process can take such a port in between. The kernel then fails to bind it ("Address
already in use") and nbval waits for it: "Kernel didn't respond in 60 seconds" for every cell of
a notebook that is fine (a CI run failed so; 5 of 108 kernels hit it when three processes
started 12 each). Over Unix sockets (ZeroMQ's ``ipc`` transport: a folder per process, a path
prefix per kernel) nothing is shared.

Used by the repository's conftest.py, and copied as the conftest of the installed wheel's
notebook run, which must not import from the repository.
"""

import atexit
import shutil
import tempfile
import threading
import uuid
from pathlib import Path

_FOLDER: list[str] = []
_LOCK = threading.Lock()


def socket_folder() -> Path:
    """This process's folder of kernel sockets, made on first use and removed at exit."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(tempfile.mkdtemp(prefix="lk-kernels-", dir="/tmp"))
            atexit.register(shutil.rmtree, _FOLDER[0], ignore_errors=True)
    return Path(_FOLDER[0])


def socket_prefix() -> str:
    """A new path prefix for one kernel's sockets in ``socket_folder()`` (a Unix socket path is
    limited to 107 bytes: these are about 40)."""
    return str(socket_folder() / uuid.uuid4().hex[:12])


def ipc_kernel_manager(**kwargs):
    """A jupyter_client KernelManager whose kernel listens on Unix sockets of its own."""
    from jupyter_client.manager import KernelManager

    return KernelManager(transport="ipc", ip=socket_prefix(), **kwargs)


def pytest_configure(config):
    """nbval starts each notebook's kernel through ``nbval.kernel.KernelManager``."""
    try:
        import nbval.kernel
    except ImportError:  # a run without nbval starts no notebook kernels
        return
    nbval.kernel.KernelManager = ipc_kernel_manager
