"""The test run's notebook kernels listen on Unix sockets of their own, never on TCP ports that
concurrent processes race for (tests/support/kernel_sockets.py)."""

import os
from pathlib import Path

import kernel_sockets  # tests/support
import pytest

nbval_kernel = pytest.importorskip("nbval.kernel", reason="nbval is not installed")


def test_nbval_starts_its_kernels_on_unix_sockets():
    kernel = nbval_kernel.RunningKernel("python3", cwd=str(Path(__file__).parent))
    try:
        assert kernel.km.transport == "ipc"
        prefix = Path(kernel.km.ip)
        assert prefix.parent == kernel_sockets.socket_folder()
        sockets = sorted(p.name for p in prefix.parent.glob(prefix.name + "-*"))
        assert len(sockets) == 5, sockets  # shell, iopub, stdin, control, heartbeat
        kernel.execute_cell_input("x = 6 * 7", allow_stdin=False)
        reply = kernel.get_message(stream="shell", timeout=30)
        assert reply["content"]["status"] == "ok"
    finally:
        kernel.stop()
    assert not list(prefix.parent.glob(prefix.name + "-*"))  # removed with the kernel


def test_each_kernel_gets_its_own_prefix_in_a_short_path():
    first, second = kernel_sockets.socket_prefix(), kernel_sockets.socket_prefix()
    assert first != second and Path(first).parent == Path(second).parent
    assert len(os.fsencode(first + "-65535")) < 107  # the Unix socket path limit
