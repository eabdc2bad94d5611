"""Table-driven bad-input tests (issue 15): one row per misuse a student can make.

Each test file ``tests/**/test_bad_inputs.py`` lists ``Bad`` rows and parametrises
``assert_clear_error`` over them::

    ROWS = [
        Bad("split_heads: 2-D x", "shape", lambda: split_heads(torch.zeros(4, 8), 2), "x"),
        ...
    ]

    @bad_rows(ROWS)
    def test_bad_input(bad):
        assert_clear_error(bad)

A row passes only if the call raises the row's exception type (ValueError unless stated) and
the message names every word in ``names`` (the argument, usually) and reads as lecturekit's
own message, not torch's or Python's internals. ``KINDS`` are the issue's kinds of misuse; the
note counts rows per kind (``python tests/support/bad_inputs.py`` prints the table).

CLI rows (``BadCli``) run ``main(argv)`` of a command-line module in-process: a non-zero exit
(SystemExit), exactly one ``error:`` line on stderr, no traceback, and no work started
(``started`` is a callable that must not have been reached, patched in by the test).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

KINDS = {
    "dtype": "integer / float64 / uint8 tensors where another dtype is wanted",
    "range": "ids or values out of range (token ids, segment ids, k larger than the vocab)",
    "shape": "unbatched or wrong-rank tensors, mismatched widths, zero sizes",
    "size": "sizes and hyperparameters that are zero, negative or not integers",
    "type": "wrong Python types (a list for a tensor, a dict for a config, a str for a list)",
    "copy": "reference copies whose configuration would change the function",
    "model": "models or names mixed up (the causal LM given to fill_mask, a typo'd name)",
    "data": "malformed data files and directories",
    "cli": "command lines: bad options rejected before any work starts",
}

# Messages from torch / Python internals that a lecturekit message must never be.
INTERNAL = re.compile(
    r"index out of range in self|expected scalar type|mat1 and mat2|not enough values to unpack"
    r"|object has no attribute|unsupported operand|division by zero|must match the size"
    r"|Expected .* to be|invalid literal for int|Traceback"
)


@dataclass(frozen=True)
class Bad:
    """One misuse: ``call()`` must raise ``error`` whose message contains each of ``names``."""

    id: str
    kind: str
    call: Callable[[], object]
    names: str | Sequence[str]
    error: type[BaseException] = ValueError

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r} is not one of {sorted(KINDS)}")


def bad_rows(rows: Sequence[Bad]):
    """``pytest.mark.parametrize("bad", rows)`` with each row's id, ids checked unique."""
    ids = [r.id for r in rows]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate bad-input ids: {duplicates}")
    return pytest.mark.parametrize("bad", rows, ids=ids)


def assert_clear_error(bad: Bad) -> str:
    """The row's call raises its error type, naming each of its names; returns the message."""
    with pytest.raises(bad.error) as info:
        bad.call()
    message = str(info.value)
    names = [bad.names] if isinstance(bad.names, str) else list(bad.names)
    missing = [n for n in names if n not in message]
    assert not missing, f"message does not name {missing}: {message!r}"
    assert not INTERNAL.search(message), f"an internal message leaked: {message!r}"
    return message


@dataclass(frozen=True)
class BadCli:
    """A bad command line: ``main(argv)`` exits non-zero with one ``error:`` line naming
    ``names``, before any work starts."""

    id: str
    main: Callable[[Sequence[str]], object]
    argv: Sequence[str]
    names: str | Sequence[str]
    kind: str = "cli"


def assert_cli_error(bad: BadCli) -> str:
    """Run ``bad.main(bad.argv)``; return stderr after checking exit, one error line, names."""
    err, out = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(out),
        pytest.raises(SystemExit) as info,
    ):
        bad.main(list(bad.argv))
    stderr = err.getvalue()
    assert info.value.code not in (0, None), f"exit status {info.value.code!r}"
    error_lines = [line for line in stderr.splitlines() if "error:" in line]
    assert len(error_lines) == 1, f"want one error: line, got stderr {stderr!r}"
    names = [bad.names] if isinstance(bad.names, str) else list(bad.names)
    missing = [n for n in names if n not in error_lines[0]]
    assert not missing, f"error line does not name {missing}: {error_lines[0]!r}"
    assert "Traceback" not in stderr + out.getvalue()
    return error_lines[0]


def count_rows(root: str | None = None) -> dict[str, dict[str, int]]:
    """Rows per test file and kind, from every ``test_bad_inputs*.py`` under ``tests/``
    (module-level lists of ``Bad`` / ``BadCli``)."""
    import importlib.util
    from pathlib import Path

    tests = Path(root) if root else Path(__file__).resolve().parents[1]
    counts: dict[str, dict[str, int]] = {}
    for path in sorted(tests.rglob("test_bad_inputs*.py")):
        spec = importlib.util.spec_from_file_location(f"_bad_{len(counts)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rows = {
            id(r): r
            for value in vars(module).values()
            if isinstance(value, (list, tuple))
            for r in value
            if isinstance(r, (Bad, BadCli))
        }
        per_kind: dict[str, int] = {}
        for r in rows.values():
            per_kind[r.kind] = per_kind.get(r.kind, 0) + 1
        counts[str(path.relative_to(tests.parent))] = per_kind
    return counts


if __name__ == "__main__":  # python tests/support/bad_inputs.py: the table for the note
    import sys
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bad_inputs  # the module the test files import (not this __main__ copy)

    table = bad_inputs.count_rows()
    kinds = list(bad_inputs.KINDS)
    print("| file | " + " | ".join(kinds) + " | total |")
    print("|---" * (len(kinds) + 2) + "|")
    totals = dict.fromkeys(kinds, 0)
    for path, per_kind in table.items():
        for k, n in per_kind.items():
            totals[k] += n
        cells = " | ".join(str(per_kind.get(k, 0)) for k in kinds)
        print(f"| {path} | {cells} | {sum(per_kind.values())} |")
    print(f"| all | {' | '.join(str(totals[k]) for k in kinds)} | {sum(totals.values())} |")
