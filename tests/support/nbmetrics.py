# Copied from the course tools (../shared/tools/nbmetrics.py, unchanged below this header) so that
# the tests that hold the lectures to its budgets run from a clean clone.
"""Teaching metrics of the lecture notebooks, the same rules for every notebook.

Usage: python nbmetrics.py [notebooks/*.ipynb ...]  -> one JSON line per notebook, then a summary line.

Per notebook:
  prose_words   alphabetic words in markdown (math, HTML, links removed)
  loc           non-blank, non-comment code lines (magics and shell lines dropped)
  plumbing      share of LOC that is imports, asserts, print/claim/check/quiz/hint/display calls,
                seeding/thread set-up, style set-up, bare names, the Colab block
  import_cell   the most import LOC in one cell (a wall of imports before any idea)
  classes       `class X(...nn.Module...)` / `class X(Module)` definitions in code cells
  loops         training loops written in a code cell: a `for`/`while` whose body calls
                `.backward()` and `.step()` and records the loss (`.item()` or `append(`)
  sampling      a code cell that calls torch.multinomial (or .multinomial) itself
  read_min      prose_words / 200 + loc / 10
  diagrams      images embedded in markdown (![..](..) or <img>, attachments) + SVG outputs of
                cells whose source draws a diagram (a name containing 'diagram' or 'schematic')
  fig_cells_without_image  code cells that call a *_figure( / plot_*( helper or plt.show() and
                store no image output (a figure the student never sees)
  conventions   markdown cells with the words 'Conventions vs the slides' or 'the deck's slip'
"""
from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

PLUMB_CALLS = {"print", "claim", "check", "quiz", "hint", "display", "describe_figures",
               "manual_seed", "set_num_threads", "set_printoptions", "seed", "use", "show",
               "filterwarnings", "set_theme", "rc", "close"}


def _code(src: str) -> str:
    keep = []
    for line in src.splitlines():
        s = line.strip()
        if s.startswith(("%", "!")):
            keep.append("pass" if not line[: len(line) - len(line.lstrip())] else line[: len(line) - len(line.lstrip())] + "pass")
            continue
        keep.append(line)
    return "\n".join(keep)


def _loc(src: str) -> int:
    return sum(1 for l in src.splitlines() if l.strip() and not l.strip().startswith("#"))


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return ""


def _is_plumbing(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Assert, ast.Pass)):
        return True
    if isinstance(stmt, ast.Expr):
        v = stmt.value
        if isinstance(v, (ast.Name, ast.Attribute, ast.Constant)):
            return True
        if _call_name(v) in PLUMB_CALLS:
            return True
    if isinstance(stmt, ast.Assign) and _call_name(stmt.value) in {"claim", "check", "quiz"}:
        return True
    if isinstance(stmt, ast.If):  # the Colab block
        t = ast.unparse(stmt.test)
        if "google.colab" in t:
            return True
    if isinstance(stmt, (ast.For, ast.While)):
        return all(_is_plumbing(s) for s in stmt.body)
    return False


def _stmt_loc(stmt: ast.stmt, lines: list[str]) -> int:
    seg = lines[stmt.lineno - 1: stmt.end_lineno]
    return sum(1 for l in seg if l.strip() and not l.strip().startswith("#"))


def _has_loop_with_backward_step(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While)):
            body = ast.unparse(node)
            if ".backward(" in body and ".step(" in body and (".item()" in body or "append(" in body):
                return True
    return False


def _module_classes(tree: ast.AST) -> int:
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = " ".join(ast.unparse(b) for b in node.bases)
            if "Module" in bases or "nn." in bases:
                n += 1
    return n


def metrics(path: Path) -> dict:
    nb = json.loads(path.read_text())
    words = loc = plumb = import_cell = classes = diagrams = conventions = 0
    loops = sampling = False
    fig_missing = []
    for i, cell in enumerate(nb.get("cells", [])):
        src = "".join(cell.get("source", []))
        if cell["cell_type"] == "markdown":
            text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", src, flags=re.S)
            diagrams += len(re.findall(r"!\[[^\]]*\]\([^)]+\)|<img\b", text)) + len(cell.get("attachments", {}) or {})
            text = re.sub(r"<[^>]+>|\[([^\]]*)\]\([^)]*\)|https?://\S+", r" \1 ", text)
            words += len(re.findall(r"[A-Za-z][A-Za-z'-]*", text))
            if re.search(r"conventions vs the slides|the deck's slip", src, re.I):
                conventions += 1
            continue
        if cell["cell_type"] != "code":
            continue
        code = _code(src)
        n = _loc(code)
        loc += n
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        lines = code.splitlines()
        body = tree.body
        p = sum(_stmt_loc(s, lines) for s in body if _is_plumbing(s))
        plumb += p
        imports = sum(_stmt_loc(s, lines) for s in body if isinstance(s, (ast.Import, ast.ImportFrom)))
        import_cell = max(import_cell, imports)
        classes += _module_classes(tree)
        loops = loops or _has_loop_with_backward_step(tree)
        sampling = sampling or "multinomial(" in code
        outs = cell.get("outputs", [])
        has_img = any(any(k.startswith("image/") for k in o.get("data", {})) for o in outs)
        if re.search(r"diagram|schematic", src, re.I) and has_img:
            diagrams += 1
        if re.search(r"\b\w+_figure\(|\bplot_\w+\(|plt\.show\(\)", src) and not has_img \
                and "NBVAL_SKIP" not in src:
            fig_missing.append(i)
    return {
        "notebook": path.stem, "prose_words": words, "loc": loc,
        "plumbing": round(plumb / loc, 3) if loc else 0.0, "import_cell": import_cell,
        "classes": classes, "loops": loops, "sampling": sampling,
        "read_min": round(words / 200 + loc / 10, 1), "diagrams": diagrams,
        "fig_cells_without_image": fig_missing, "conventions": conventions,
    }


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path("notebooks").glob("*.ipynb"))
    rows = [metrics(p) for p in paths]
    for r in rows:
        print(json.dumps(r))
    loc = sum(r["loc"] for r in rows)
    print(json.dumps({
        "summary": True, "notebooks": len(rows), "classes": sum(r["classes"] for r in rows),
        "loops": sum(r["loops"] for r in rows), "read_min": round(sum(r["read_min"] for r in rows)),
        "plumbing": round(sum(r["plumbing"] * r["loc"] for r in rows) / loc, 3) if loc else 0,
        "max_import_cell": max((r["import_cell"] for r in rows), default=0),
        "diagrams": sum(r["diagrams"] for r in rows),
        "lectures_with_diagram": sum(r["diagrams"] > 0 for r in rows),
        "max_read_min": max((r["read_min"] for r in rows), default=0),
        "fig_cells_without_image": sum(len(r["fig_cells_without_image"]) for r in rows),
        "conventions": sum(r["conventions"] for r in rows),
    }))
