"""tests/support/nbval_outputs.py: nbval's own strict comparison applied to outputs from a run
outside nbval (JupyterLab's), as test_browser.py uses it for every notebook. Each rule nbval
applies is exercised here, and each way a run can differ must be reported."""

from __future__ import annotations

import json
import zlib

import nbval_outputs  # tests/support
import pytest


def _code(source: str, outputs: list[dict], count: int | None = 1) -> dict:
    return {"cell_type": "code", "execution_count": count, "metadata": {}, "outputs": outputs,
            "source": source, "id": f"c{zlib.crc32(source.encode())}"}  # fmt: skip


def _stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def _result(text: str, **more) -> dict:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": text, **more}}  # fmt: skip


def _figure(png: str, text) -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": png, "text/plain": text}}  # fmt: skip


STORED = [
    _code("print('a'); print('b')", [_stream("a\n"), _stream("b\n")]),
    _code("# NBVAL_IGNORE_OUTPUT\nprint(time.time())", [_stream("1700000000.0\n")]),
    _code("object()", [_result("<object object at 0x7f00aa>")]),
    _code("plot()", [_figure("iVBORw0KGgo=", "<Figure>")]),
    _code("x = 1", []),
]


@pytest.fixture
def stored(tmp_path):
    path = tmp_path / "stored.ipynb"
    nb = {"cells": STORED, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


def _ran() -> list[list[dict]]:
    """The stored outputs as a fresh run gives them: merged streams in a list of lines, another
    object address, another image, another ignored time."""
    return [
        [_stream(["a\n", "b\n"])],
        [_stream("1800000000.0\n")],
        [_result("<object object at 0x55bb01>")],
        [_figure("AAAA", ["<Figure>"])],
        [],
    ]


def test_a_run_nbval_would_accept_passes(request, stored):
    assert nbval_outputs.differences(request.session, stored, _ran()) == []


@pytest.mark.parametrize(
    "cell, outputs, said",
    [
        (0, [_stream("a\nc\n")], "mismatch 'stdout'"),
        (0, [_stream("a\nb\n", name="stderr")], "Missing output fields"),
        (2, [_result("<object object at 0x55bb01>", **{"text/html": "<b>"})], "Unexpected output"),
        (3, [], "Missing output fields"),
        (4, [_stream("Warning: something\n", name="stderr")], "Unexpected output fields"),
    ],
    ids=["changed-text", "other-stream", "extra-mime-type", "missing-figure", "new-warning"],
)
def test_each_difference_is_reported(request, stored, cell, outputs, said):
    ran = _ran()
    ran[cell] = outputs
    found = nbval_outputs.differences(request.session, stored, ran)
    assert len(found) == 1 and found[0].startswith(f"cell {cell}: outputs differ"), found
    assert said in found[0], found[0]


def test_a_run_of_another_notebook_is_refused(request, stored):
    found = nbval_outputs.differences(request.session, stored, _ran()[:-1])
    assert found == ["4 code cells ran, the stored notebook has 5"]
