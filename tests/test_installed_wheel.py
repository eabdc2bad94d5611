"""tests/support/installed_wheel.py's sharing: the wheel venv is built once per run by the first
test that asks, in whichever pytest-xdist worker, and every other caller gets what that build
gave (the venv, or its skip, or its failure). The build itself is replaced here by a stand-in
that takes a second; test_wheel.py and test_browser.py use the real one."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import installed_wheel  # tests/support
import pytest


def _stand_in(outcome: str):
    def build(folder: Path, online_env: dict) -> installed_wheel.WheelVenv:
        with open(folder.parent / "builds.log", "a") as log:
            log.write(f"{outcome}\n")
        time.sleep(1.0)  # long enough for the other caller to be waiting on the lock
        if outcome == "skip":
            pytest.skip("no torch wheel here")
        if outcome == "fail":
            raise AssertionError("pip install failed")
        return installed_wheel.WheelVenv(folder / "venv", folder / "venv/bin/python",
                                         folder / "lk.whl", folder / "src", "torch from here",
                                         {"build": 1.0})  # fmt: skip

    return build


def _call(folder: str, outcome: str, results) -> None:
    """In a process of its own, as a pytest-xdist worker would call it."""
    installed_wheel.build = _stand_in(outcome)
    try:
        got = installed_wheel.shared(Path(folder), {})
        results.put(("built", str(got.python), got.took))
    except pytest.skip.Exception as err:
        results.put(("skipped", err.msg, None))
    except BaseException as err:  # pytest.fail's Failed too
        results.put(("failed", str(err), None))


@pytest.mark.parametrize("outcome", ["built", "skip", "fail"])
def test_two_processes_asking_at_once_share_one_build(tmp_path, outcome):
    folder = tmp_path / installed_wheel.FOLDER
    fork = multiprocessing.get_context("fork")
    results = fork.Queue()
    procs = [fork.Process(target=_call, args=(str(folder), outcome, results)) for _ in range(2)]
    for p in procs:
        p.start()
    got = sorted(results.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    assert (tmp_path / "builds.log").read_text().splitlines() == [outcome], "built once"
    kinds = [g[0] for g in got]
    if outcome == "built":
        assert got[0] == got[1] == ("built", str(folder / "venv/bin/python"), {"build": 1.0})
    elif outcome == "skip":
        assert kinds == ["skipped", "skipped"] and all(g[1] == "no torch wheel here" for g in got)
    else:
        assert kinds == ["failed", "failed"], got
        assert any("pip install failed" in g[1] and "another test" in g[1] for g in got), got
