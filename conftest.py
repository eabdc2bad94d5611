"""Shared test set-up for every pytest run in this repository (tests/ and nbval's notebooks, also
when run alone): a non-interactive matplotlib backend, every figure closed after each test
(figures are made by plot functions under test), and the offline guard.

Offline guard (tests/offline/lk_offline_guard.py): from here on this process, and every Python
process it starts (nbval's kernels, JupyterLab and its kernels; through tests/offline/
sitecustomize.py and LECTUREKIT_OFFLINE=1), may reach loopback and Unix sockets only. A blocked
attempt raises where it happens and is logged; after every test phase the log is read, and a
test during which anything was blocked fails, naming the destination and the calling code
(even if the caller caught the error). Only install steps get the network, through the
``online_env`` fixture, and only in tests marked ``network``.
"""

import os
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests" / "offline"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "tests" / "support"))  # shared test data
import lk_offline_guard as guard

# Bytecode is written, in this process and every Python process it starts (kernels, nbgrader,
# JupyterLab, the test venvs' commands): where PYTHONDONTWRITEBYTECODE is set (as on the CI
# machine) nothing compiled on import was kept, and every one of the run's few hundred processes
# compiled torch, IPython and lecturekit from source again (importing them took 4.2 s instead
# of 2.0). Now the first process to import a module writes its .pyc (in the venv, or in the
# repository's ignored __pycache__/) and the others read it: only what is imported is compiled,
# once per venv, instead of byte-compiling whole venvs up front.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# nbval's kernels on Unix sockets, not TCP ports that concurrent processes race for
pytest_plugins = ["kernel_sockets"]

# one log per pytest process: pytest-xdist's workers inherit the controller's environment, and
# a shared log would blame a test of one worker for what a test of the other did
if not os.environ.get(guard.ENV_LOG) or os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ[guard.ENV_LOG] = os.path.join(
        tempfile.mkdtemp(prefix="lecturekit-offline-"), "blocked.jsonl"
    )
if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist runs a worker per core: torch (and every process a test starts) on one thread
    # each. Two workers of two OpenMP threads on two cores wait on each other's preempted
    # threads at every small op: a beam-search test took 240 s in CI that way, 7 s alone.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"
    import torch

    torch.set_num_threads(1)
os.environ.update(guard.child_env())  # LECTUREKIT_OFFLINE=1, tests/offline on PYTHONPATH
for _flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE",
              "HF_HUB_DISABLE_TELEMETRY"):  # fmt: skip
    os.environ.setdefault(_flag, "1")
guard.install()

_log = {"offset": guard.read_log(os.environ[guard.ENV_LOG])[1], "all": []}


def _take_blocked() -> list[dict]:
    records, _log["offset"] = guard.read_log(os.environ[guard.ENV_LOG], _log["offset"])
    return records


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def one_thread():
    """torch on one thread during the test (small tensors: faster, and the machine shared)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class _OfflineLog:
    """For the guard's own tests: ``take()`` returns (and consumes) the attempts blocked so far
    in this test, so that the expected ones do not fail it."""

    def take(self) -> list[dict]:
        return _take_blocked()


@pytest.fixture
def offline_log() -> _OfflineLog:
    _take_blocked()
    return _OfflineLog()


@pytest.fixture(scope="session")
def online_env(request) -> dict[str, str]:
    """Environment for an install subprocess (pip, npm) with the guard off. Allowed only to
    tests marked ``network``."""
    wanting = [
        item.nodeid
        for item in request.session.items
        if "online_env" in getattr(item, "fixturenames", ())
        and item.get_closest_marker("network") is None
    ]
    if wanting:
        pytest.fail(f"tests using the network must be marked network: {wanting}")
    return guard.child_env(online=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    blocked = _take_blocked()
    if blocked:
        _log["all"].extend(blocked)
        text = "offline guard: network access during this test\n" + guard.describe(blocked)
        report.sections.append(("offline guard", text))
        if not report.failed:
            report.outcome = "failed"
            report.longrepr = text
    return report


# ----------------------------------------------------------- the suite on both cores, once
# `make test` runs pytest-xdist with --dist loadfile --no-loadscope-reorder: a file is one unit
# of work, handed to the next free worker in collection order. The order below is longest
# first (seconds measured on the 2-core machine, one worker's share), so the two workers end
# together: pytest-xdist's own order (most tests first) started the wheel and nbgrader files,
# six and five minutes long with a handful of tests each, last.
FILE_SECONDS = {  # CI, 2026-11-29; the browser file builds the wheel's venv and runs notebooks/
    "tests/test_browser.py": 380,
    "tests/test_nbgrader.py": 335,
    "tests/test_site.py": 210,
    "tests/test_slides.py": 205,
    "tests/test_binder.py": 90,
    "tests/figures/test_figures.py": 77,
    "tests/test_hub.py": 40,
    "tests/test_wheel.py": 15,  # checks in the venv the browser file built
}
NOTEBOOK_SECONDS = 20  # a notebook under nbval, kernel start-up included
WHEEL_RUN = "tests/test_wheel.py::test_installed_wheel_runs_notebooks_outside_the_repository"


def _seconds(item) -> float:
    path = item.path.relative_to(Path(__file__).resolve().parent).as_posix()
    if path in FILE_SECONDS:
        return FILE_SECONDS[path]
    return NOTEBOOK_SECONDS if path.endswith(".ipynb") else 1.0


def _notebooks_run_elsewhere(items) -> str | None:
    """Where every notebook of notebooks/ has its one strict run when not in the session's own
    nbval items: JupyterLab (test_browser.py: stored outputs checked by nbval's rules, kernels
    from the installed wheel), else the wheel test (nbval in the installed wheel's venv) where it
    cannot skip (LECTUREKIT_REQUIRE_WHEEL=1, as CI sets). None: here, as before."""
    import installed_wheel  # tests/support

    if installed_wheel.lab_runs_the_notebooks(items):
        return "JupyterLab (tests/test_browser.py, kernels from the installed wheel)"
    wheel_runs = any(i.nodeid == WHEEL_RUN for i in items)
    if os.environ.get("LECTUREKIT_REQUIRE_WHEEL") == "1" and wheel_runs:
        return f"{WHEEL_RUN} (installed wheel, outside the repository)"
    return None


@pytest.hookimpl(trylast=True)  # after -m / -k have deselected
def pytest_collection_modifyitems(session, config, items):
    """Every notebook of notebooks/ runs once, with every stored output checked: where it runs
    elsewhere (``_notebooks_run_elsewhere``: the same checks, and more), the session's own nbval
    items of notebooks/ are left out; an offline `make test` without Chromium still runs them
    here. Then the longest files first (FILE_SECONDS)."""
    if _notebooks_run_elsewhere(items):
        root = Path(__file__).resolve().parent / "notebooks"
        run_there = {p.name for p in root.glob("[0-9][0-9]*_*.ipynb")}
        twice = [i for i in items if i.path.parent == root and i.path.name in run_there]
        if twice:
            config.hook.pytest_deselected(items=twice)
            items[:] = [i for i in items if i not in set(twice)]
    order = {id(item): (-_seconds(item), n) for n, item in enumerate(items)}
    items.sort(key=lambda item: order[id(item)])


def _say_where_notebooks_run(config, where: str) -> None:
    config.pluginmanager.get_plugin("terminalreporter").write_line(
        f"notebooks/ have their strict run in {where}, not in this session's nbval items"
    )


def pytest_collection_finish(session):
    """Said by a run without pytest-xdist (its workers collect and deselect, unheard)."""
    where = _notebooks_run_elsewhere(session.items)
    if where and not os.environ.get("PYTEST_XDIST_WORKER"):
        _say_where_notebooks_run(session.config, where)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Said once by pytest-xdist's controller, from the first worker's collected test ids."""
    if getattr(node.config, "_lk_said_where", False):
        return
    node.config._lk_said_where = True
    if any(i.startswith("notebooks/") for i in ids):
        return
    import installed_wheel  # tests/support

    if any(i.startswith(f"tests/test_browser.py::{installed_wheel.LAB_TEST}[") for i in ids):
        _say_where_notebooks_run(node.config, "JupyterLab (tests/test_browser.py)")
    elif WHEEL_RUN in ids:
        _say_where_notebooks_run(node.config, WHEEL_RUN)


def pytest_sessionfinish(session, exitstatus):
    import installed_wheel  # tests/support

    installed_wheel.remove(session.config)  # the run's shared wheel venv, if one was built
    late = _take_blocked()  # e.g. a server process between tests
    if late:
        _log["all"].extend(late)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    blocked = _log["all"]
    terminalreporter.write_sep("-", f"offline guard: {len(blocked)} network attempt(s) blocked")
    if blocked:
        terminalreporter.write_line(guard.describe(blocked))
