"""Bad inputs to the slide-figure registry and its command line (issue 15): a clear ValueError,
or one ``error:`` line and exit status 2 before any figure is built."""

import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from bad_inputs import Bad, BadCli, assert_clear_error, assert_cli_error, bad_rows

from lecturekit_publish import figures
from lecturekit_publish.figures.cli import main

NAME = figures.names()[0]


def _blocked(tmp_path: Path) -> str:
    """A directory that cannot be made: a path under a regular file (root ignores mode bits)."""
    blocker = tmp_path / "file.txt"
    blocker.write_text("a regular file")
    return str(blocker / "out")


ROWS = [
    Bad("registry.spec: a typo'd name", "model", lambda: figures.spec("causal_masks"),
        ["unknown figure 'causal_masks'", "did you mean"]),
    Bad("registry.spec: an empty name", "model", lambda: figures.spec(""), ["name", "''"]),
    Bad("registry.spec: an int name", "type", lambda: figures.spec(5), ["name", "int"]),
    Bad("registry.names: an int lecture", "type", lambda: figures.names(5), ["lecture", "'05'"]),
    Bad("registry.build: an unknown theme", "range", lambda: figures.build(NAME, "blue"),
        ["theme='blue'", "light"]),
    Bad("registry.save: an Axes for the figure", "type",
        lambda: figures.save(plt.subplots()[1], "x.png"), ["fig", "Figure", "Axes"]),
    Bad("registry.save: an unknown format", "range",
        lambda: figures.save(plt.figure(), "x.gif", "gif"), ["fmt='gif'", "png"]),
    Bad("registry.save: dpi 0", "size", lambda: figures.save(plt.figure(), "x.png", dpi=0), "dpi"),
    Bad("registry.save: a directory that does not exist", "data",
        lambda: figures.save(plt.figure(), "/nonexistent-lecturekit-dir/x.png"),
        ["path", "/nonexistent-lecturekit-dir"]),
    Bad("registry.register: a lecture that is not two digits", "type",
        lambda: figures.register("x_new", lecture=5, description="d"), ["lecture", "'05'"]),
    Bad("registry.register: a lecture with one digit and a letter", "range",
        lambda: figures.register("x_new", lecture="9a", description="d"), ["lecture", "'09a'"]),
    Bad("registry.register: no description", "type",
        lambda: figures.register("x_new", lecture="05", description=""), "description"),
    Bad("registry.register: decorating a non-function", "type",
        lambda: figures.register("x_new", lecture="05", description="d")("f"),
        ["func", "callable"]),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


def _started(*args, **kwargs):
    raise AssertionError("work started")


@pytest.fixture
def no_building(monkeypatch):
    monkeypatch.setattr(figures, "build", _started)
    monkeypatch.setattr(figures, "save", _started)


CLI_ROWS = [
    BadCli("figures.main: no command", main, [], "command"),
    BadCli("figures.main: an unknown command", main, ["draw"], "draw"),
    BadCli("figures.main: an unknown figure name", main, ["build", "positional_heatmap"],
           ["positional_heatmap", "positional_encoding_heatmap"]),
    BadCli("figures.main: an empty figure name", main, ["build", ""], "''"),
    BadCli("figures.main: --format gif", main, ["build", "--format", "gif"], ["--format", "gif"]),
    BadCli("figures.main: --format png,gif", main, ["build", "--format", "png,gif"],
           ["--format", "gif"]),
    BadCli("figures.main: --format empty", main, ["build", "--format", ","], "--format"),
    BadCli("figures.main: --theme blue", main, ["build", "--theme", "blue"], ["--theme", "blue"]),
    BadCli("figures.main: --dpi 0", main, ["build", "--dpi", "0"], "--dpi"),
    BadCli("figures.main: --dpi negative", main, ["build", "--dpi", "-5"], "--dpi"),
    BadCli("figures.main: --dpi not a number", main, ["build", "--dpi", "high"], "--dpi"),
    BadCli("figures.main: --dpi 1.5", main, ["build", "--dpi", "1.5"], "--dpi"),
    BadCli("figures.main: --out under a file", main, ["build", NAME, "--out", "BLOCKED"],
           ["--out", "out"]),
    BadCli("figures.main: --lecture with no figures", main, ["list", "--lecture", "99"],
           ["--lecture", "'99'", "01"]),
    BadCli("figures.main: --lecture unpadded", main, ["list", "--lecture", "5"],
           ["'5'", "'05'"]),
    BadCli("figures.main: build --lecture with no figures", main,
           ["build", "--lecture", "03", "--lecture", "5"], ["--lecture", "'5'", "'05'"]),
]  # fmt: skip


@pytest.mark.parametrize("bad", CLI_ROWS, ids=[r.id for r in CLI_ROWS])
def test_bad_command_line(bad, no_building, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a default --out would be made here, not in the repository
    argv = [_blocked(tmp_path) if a == "BLOCKED" else a for a in bad.argv]
    assert_cli_error(BadCli(bad.id, bad.main, argv, bad.names))
    assert not (tmp_path / "figures").exists()  # nothing made for a refused command line


def test_command_line_in_a_subprocess_is_one_error_line(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "lecturekit_publish.figures", "build", NAME, "--out", _blocked(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "--out" in errors[0], run.stderr
    assert "Traceback" not in run.stderr + run.stdout
