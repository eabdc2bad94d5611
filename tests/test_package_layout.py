"""The package's shape, checked: folders by role, imports one way (downwards) with no circle, no
private name imported from another module (package or notebooks), and the package map (docs/package.md)
naming every public module. The site and slide builder, with its slide figures, is outside the
package (tools/, ``lecturekit_publish``): it may import lecturekit's public names, lecturekit
never imports it.

Imports are read from the source (``ast``), at any depth: a lazy import inside a function is a
dependency too. A package's ``__init__`` that re-exports its own submodules is that package's
front door, not a dependency of those submodules, so ``lecturekit.viz`` importing
``lecturekit.viz.plots`` does not count as a circle with ``plots`` importing ``viz.style``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lecturekit"
PUBLISH = ROOT / "tools" / "lecturekit_publish"  # the site and slide builder, not in the package

# role -> rank: a module may import modules of its own role or of a lower rank, never higher
RANKS = {"utils": 0, "blocks": 1, "models": 2, "efficient": 3, "experiments": 4, "shipped": 5,
         "viz": 6, "exercises": 7, "tools": 8}  # fmt: skip
SUBPACKAGES = {"datasets", "models", "efficient", "experiments", "shipped", "utils", "viz",
               "exercises"}  # fmt: skip
BUILDING_BLOCKS = {"attention", "masking", "positional", "layers", "kv_cache", "patches",
                   "decoding", "generation", "training", "tokenization", "bpe",
                   "objectives"}  # fmt: skip
# top-level modules that are commands over the whole package (``python -m lecturekit.verify``):
# role "tools", above everything they check, so that nothing may import them
TOOLS = {"verify"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts
}


def _role(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "blocks"  # lecturekit/__init__.py: the offline flags, nothing imported
    if parts[1] in RANKS:
        return parts[1]
    if len(parts) == 2 and parts[1] in TOOLS:
        return "tools"
    return "blocks"  # top-level modules and datasets/


def _in(package: str, module: str | None) -> bool:
    """Whether module is package or one of its submodules (lecturekit_publish is not lecturekit)."""
    return module is not None and (module == package or module.startswith(package + "."))


def _imports(tree: ast.AST, module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every lecturekit import."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names
                      if _in("lecturekit", a.name)]  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and _in("lecturekit", node.module):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                if sub in MODULES:  # from lecturekit.experiments import heads_demo
                    found.append((sub, None, node.lineno))
                else:
                    found.append((node.module, a.name, node.lineno))
    return found


TREES = {m: ast.parse(p.read_text(), str(p)) for m, p in MODULES.items()}
EDGES = {
    m: {target for target, _, _ in _imports(tree, m)
        if target != m and not target.startswith(m + ".")}  # package front door: see docstring
    for m, tree in TREES.items()
}  # fmt: skip


def test_every_import_names_an_existing_module():
    missing = {(m, t) for m, targets in EDGES.items() for t in targets if t not in MODULES}
    assert not missing, f"imports of modules that do not exist: {sorted(missing)}"


def test_no_import_circle():
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(EDGES[m]):
            if state.get(t) == 1:
                cycle = [*stack[stack.index(t) :], t]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(EDGES):
        if m not in state:
            visit(m)


def test_imports_run_downwards_by_role():
    upward = [
        f"{m} ({_role(m)}) imports {t} ({_role(t)})"
        for m, targets in EDGES.items()
        for t in targets
        if RANKS.get(_role(t), 1) > RANKS.get(_role(m), 1)
    ]
    assert not upward, "imports that reach up a layer:\n" + "\n".join(sorted(upward))


def _private_uses(tree: ast.AST, module: str) -> list[str]:
    """Private (_name, not __dunder__) names taken from another lecturekit module: imported
    directly, or reached as an attribute of an imported lecturekit module or object."""
    private = lambda name: name.startswith("_") and not name.startswith("__")  # noqa: E731
    bound: set[str] = set()
    uses = []
    for target, name, line in _imports(tree, module):
        if name is not None and private(name):
            uses.append(f"line {line}: from {target} import {name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names
                      if _in("lecturekit", a.name)}  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and _in("lecturekit", node.module):
            bound |= {a.asname or a.name for a in node.names}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and private(node.attr)):  # fmt: skip
            uses.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return uses


def test_no_module_uses_a_private_name_of_another():
    found = {m: u for m, tree in TREES.items() if (u := _private_uses(tree, m))}
    assert not found, f"private names used across modules: {found}"


def _publish_imports(tree: ast.AST) -> list[str]:
    """Where a module imports the site and slide builder (lecturekit_publish), at any depth, by
    an import statement or by name (importlib.import_module / __import__ of a constant)."""
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and (getattr(node.func, "attr", None) == "import_module"
                   or getattr(node.func, "id", None) == "__import__")):  # fmt: skip
            names = [node.args[0].value]
        found += [f"line {node.lineno}: {n}" for n in names if _in("lecturekit_publish", n)]
    return found


def test_the_package_imports_nothing_from_the_publishing_tools():
    """The student wheel does not carry tools/: a lecturekit module that imported
    lecturekit_publish would break there. What both need lives in lecturekit."""
    lazy = "import os\ndef f():\n    from lecturekit_publish.site import build_site\n"
    by_name = "import importlib\nimportlib.import_module('lecturekit_publish')"
    others = "import lecturekit.viz.widgets\nimport lecturekit_publisher"
    assert _publish_imports(ast.parse(lazy)) == ["line 3: lecturekit_publish.site"]
    assert _publish_imports(ast.parse(by_name)) == ["line 2: lecturekit_publish"]
    assert not _publish_imports(ast.parse(others))
    found = {m: u for m, tree in TREES.items() if (u := _publish_imports(tree))}
    assert not found, f"lecturekit imports the publishing tools (tools/): {found}"


def test_the_publishing_tools_use_only_lecturekits_public_names():
    modules = {p.relative_to(PUBLISH).with_suffix("").as_posix(): p  # figures/ too
               for p in sorted(PUBLISH.rglob("*.py")) if "__pycache__" not in p.parts}  # fmt: skip
    assert set(modules) >= {"cli", "site", "slides", "frames", "figures/registry"}, "moved?"
    found = {name: u for name, p in modules.items()
             if (u := _private_uses(ast.parse(p.read_text()), p.stem))}  # fmt: skip
    assert not found, f"private lecturekit names used by the publishing tools: {found}"
    for name, p in modules.items():  # and only modules that exist
        for target, _, line in _imports(ast.parse(p.read_text()), p.stem):
            assert target in MODULES, f"{name} line {line}: {target} is not a lecturekit module"


def _notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    # IPython magics and shell escapes are not Python
    return "\n".join(re.sub(r"(?m)^\s*[%!].*$", "", c) for c in code)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_use_only_public_names(path):
    tree = ast.parse(_notebook_code(path))
    assert not _private_uses(tree, path.stem)
    for target, _, line in _imports(tree, path.stem):
        assert target in MODULES, f"line {line}: {target} is not a lecturekit module"


def test_top_level_holds_only_building_blocks_tools_and_subpackages():
    files = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert files == BUILDING_BLOCKS | TOOLS, f"top-level modules: {sorted(files)}"
    assert folders == SUBPACKAGES, f"subpackages: {sorted(folders)}"
    assert set(RANKS) - {"blocks", "tools"} <= folders


@pytest.mark.parametrize(
    "package", sorted(m for m, p in MODULES.items() if p.name == "__init__.py")
)
def test_every_package_says_what_lives_there(package):
    doc = ast.get_docstring(TREES[package])
    assert doc and len(doc.split(".")[0]) > 20, f"{package}/__init__.py needs a docstring"


def test_every_public_module_documents_its_lecture_or_role():
    undocumented = [m for m, tree in TREES.items() if not ast.get_docstring(tree)
                    and not m.endswith("__main__")]  # fmt: skip
    assert not undocumented


def _readme_map() -> list[str]:
    readme = (ROOT / "docs" / "package.md").read_text()  # the package map, linked from the README
    section = readme.split("## The package", 1)[1].split("\n## ", 1)[0]
    first_cells = re.findall(r"^\| ([^|]*)\|", section, flags=re.M)
    return [m for cell in first_cells for m in re.findall(r"`(lecturekit[\w.]*)`", cell)]


def test_readme_package_map_is_the_map_of_the_code():
    listed = _readme_map()
    public = {m for m in MODULES if not any(part.startswith("_") for part in m.split("."))}
    assert len(listed) == len(set(listed)), "a module is listed twice"
    assert set(listed) == public, (
        f"docs/package.md package map: add {sorted(public - set(listed))}, "
        f"drop {sorted(set(listed) - public)}"
    )


def test_the_design_contract_paths():
    from lecturekit.attention import MultiHeadAttention, scaled_dot_product_attention
    from lecturekit.decoding import beam_search, greedy_search
    from lecturekit.masking import causal_mask, padding_mask
    from lecturekit.positional import sinusoidal_encoding

    assert all(callable(f) for f in (scaled_dot_product_attention, MultiHeadAttention,
                                     beam_search, greedy_search, causal_mask, padding_mask,
                                     sinusoidal_encoding))  # fmt: skip
    assert callable(MultiHeadAttention.load_from_torch)


def _unnamed_modules(package: Path) -> list[str]:
    """The modules and subpackages of ``package`` its ``__init__`` docstring does not name
    (as ``name``; the exercises' per-lecture modules may be named as a range, lecture_NN)."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    names = [p.stem for p in package.glob("*.py") if not p.stem.startswith("_")]
    names += [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
    ranged = "``lecture_00`` ... ``lecture_15``" in doc
    return sorted(n for n in names if f"``{n}``" not in doc
                  and not (ranged and re.fullmatch(r"lecture_\d\d[ab]?", n)))  # fmt: skip


@pytest.mark.parametrize(
    "package",
    sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()),
)
def test_each_package_docstring_lists_what_it_contains(package):
    assert _unnamed_modules(PACKAGE / package) == [], f"lecturekit.{package}'s docstring"


def test_the_top_level_docstring_names_every_building_block():
    assert _unnamed_modules(PACKAGE) == [], "lecturekit/__init__.py's docstring"
