"""nbval's strict check of a notebook run elsewhere: in JupyterLab (tests/test_browser.py).

Under ``make test`` every lecture's stored outputs are checked once, cell by cell, by nbval's own
rules: re-executed in a fresh kernel, every code cell's outputs must come out again (streams
merged and ``\\r``/``\\b`` applied, each MIME type compared after the sanitize patterns, images
and widget model ids left out, cells marked ``# NBVAL_IGNORE_OUTPUT`` not compared). Where
the notebooks also run in JupyterLab, they need not run a second time under nbval: this module
applies nbval's comparison to the outputs JupyterLab shows. Nothing of it is rewritten here: the
stored notebook is collected by nbval's own collector (``IPyNbFile``, the options of every cell
read from its markers and tags as nbval reads them), and each cell is compared by nbval's own
``IPyNbCell.compare_outputs`` after the post-processing nbval's ``runtest`` applies.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbval.plugin import IPyNbFile, coalesce_streams, get_sanitize_patterns

SANITIZE = Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg"


def stored_cells(session, path: Path) -> list:
    """nbval's items (``IPyNbCell``) of the stored notebook ``path``, one per code cell, with the
    options nbval gives them and the run's sanitize patterns (tests/nbval_sanitize.cfg when the
    run was not given ``--nbval-sanitize-with``)."""
    nbfile = IPyNbFile.from_parent(session, path=path)
    nbfile.setup_sanitize_files()
    if not nbfile.sanitize_patterns:
        nbfile.sanitize_patterns.update(get_sanitize_patterns(SANITIZE.read_text()))
    return list(nbfile.collect())


def _output(raw: dict) -> nbformat.NotebookNode:
    """An output as nbval's runtest records it from the kernel's message (text joined)."""
    out = dict(raw)
    if isinstance(out.get("text"), list):
        out["text"] = "".join(out["text"])
    if isinstance(out.get("data"), dict):
        out["data"] = {k: "".join(v) if isinstance(v, list) else v for k, v in out["data"].items()}
    return nbformat.from_dict(out)


def differences(session, path: Path, ran: list[list[dict]]) -> list[str]:
    """Where ``ran`` (the outputs of each code cell of ``path`` after a run, as nbformat dicts,
    in order) differs from the stored outputs by nbval's rules: one entry per failing cell,
    with nbval's own account of the difference. Empty if nbval would pass every cell."""
    cells = stored_cells(session, path)
    if len(cells) != len(ran):
        return [f"{len(ran)} code cells ran, the stored notebook has {len(cells)}"]
    found = []
    for item, outputs in zip(cells, ran, strict=True):
        for marker in ("skip", "check_exception"):
            if item.options[marker]:  # JupyterLab's run-all runs every cell and stops at an error
                found.append(f"cell {item.cell_num}: nbval marker {marker!r} cannot be honoured "
                             "in a JupyterLab run-all")  # fmt: skip
        if item.cell.execution_count is None:  # a reference cell never run: nothing to compare
            if item.cell.outputs:
                found.append(f"cell {item.cell_num}: unrun reference cell has outputs")
            continue
        if not item.options["check"]:
            continue  # NBVAL_IGNORE_OUTPUT
        test = coalesce_streams([_output(o) for o in outputs])
        if not item.compare_outputs(test, coalesce_streams(item.cell.outputs)):
            found.append(f"cell {item.cell_num}: outputs differ\n"
                         + "\n".join(map(str, item.comparison_traceback)))  # fmt: skip
    return found
