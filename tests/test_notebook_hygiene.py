"""Every notebook is stored as nbval needs it: outputs from one clean top-to-bottom run, no error
outputs, no paths of the machine that ran it, the standard kernel; and the README lists it."""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_from_one_clean_run(path):
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), "re-run top to bottom with nbconvert --execute"
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert not re.search(r"/(root|home|tmp|Users|work)/[A-Za-z0-9_.-]+/", json.dumps(nb))
    first = "".join(nb["cells"][0]["source"])
    assert nb["cells"][0]["cell_type"] == "markdown" and first.startswith("# ")
    text = json.dumps([c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"]).lower()
    assert "summary" in text and "exercise" in text


SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]*_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_no_code_cell_is_empty_or_only_comments(path):
    """A code cell with nothing to run (a builder's placeholder left behind) only confuses."""
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            lines = [line.strip() for line in "".join(cell["source"]).splitlines()]
            assert any(line and not line.startswith("#") for line in lines), f"cell {i}"


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_figure_output_is_an_image(path):
    """A Figure shown before pyplot has activated the inline backend is stored as its repr
    only ("<Figure size 640x480 with 1 Axes>"): the figure is lost. ``%matplotlib inline`` in
    the import cell activates it (lecture 13 lost two figures that way)."""
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = "".join(data.get("text/plain", ""))
            assert not (text.startswith("<Figure") and "image/png" not in data), (
                f"cell {i}: a figure stored as {text!r}, without its image"
            )


DRAWS = re.compile(
    r"(?<!def )\b(\w+_figure|plot_\w+|plt\.(?:show|subplots|figure|imshow|plot|bar|hist|scatter))\("
)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_cell_that_draws_a_figure_stores_its_image(path):
    """A cell that calls a figure helper (``*_figure(``, ``plot_*(``) or pyplot must store an
    image (or, for a widget, its view). A Figure made without pyplot and followed by
    ``plt.show()`` shows nothing and stores nothing: the student never sees it, and nbval, with
    no output to compare, cannot notice (lecture 14 lost two figures that way)."""
    nb = json.loads(path.read_text())
    blank = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or not DRAWS.search("".join(cell["source"])):
            continue
        kinds = {k for out in cell["outputs"] for k in out.get("data", {})}
        if "image/png" not in kinds and WIDGET_VIEW not in kinds:
            blank.append((i, DRAWS.findall("".join(cell["source"]))))
    assert not blank, f"{path.name}: cells that draw a figure but store no image: {blank}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_readme_lists_notebook(path):
    assert f"notebooks/{path.name}" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_markers_are_exact(path):
    """nbval honours a marker only when the comment line is exactly the marker: a note after it
    silently turns the marker off."""
    markers = {"# NBVAL_IGNORE_OUTPUT", "# NBVAL_CHECK_OUTPUT", "# NBVAL_SKIP",
               "# NBVAL_RAISES_EXCEPTION"}  # fmt: skip
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith("# NBVAL"):
                assert line.strip() in markers, f"{line!r} is not an nbval marker nbval reads"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_is_stored_with_its_description(path):
    """The set-up cell's describe_figures() stores alt text with each figure (what the website
    and screen readers read): every PNG output has a non-empty one, and it names what the
    figure shows (a plot, panels or a figure title), not a placeholder; a diagram's SVG carries
    its own sentence (lecturekit.viz.diagram)."""
    nb = json.loads(path.read_text())
    missing, found = [], 0
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            if "image/svg+xml" in out.get("data", {}):
                alt = out.get("metadata", {}).get("image/svg+xml", {}).get("alt", "")
                found += 1
                if len(alt.split()) < 12:
                    missing.append((i, alt[:60]))
            if "image/png" in out.get("data", {}):
                alt = out.get("metadata", {}).get("image/png", {}).get("alt", "")
                found += 1
                if not re.match(r"(Plot|Figure|\d+ panels|A figure)", alt):
                    missing.append((i, alt[:60]))
    assert found, f"{path.name} shows no figure"
    assert not missing, f"{path.name}: figures stored without a description: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_anywhere(path):
    """Links under the title and the Colab set-up cell as the first code cell, made from the one
    repository location in pyproject.toml (rewrite them: python tests/support/notebook_links.py);
    the README's lecture table links the same places."""
    import notebook_links

    nb = json.loads(path.read_text())
    assert notebook_links.links_line(path.name) in "".join(nb["cells"][0]["source"])
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert "".join(code[0]["source"]) == notebook_links.setup_source()
    assert notebook_links.SETUP_TAG in code[0]["metadata"].get("tags", [])
    assert not code[0]["outputs"], "off Colab the set-up cell does nothing, so prints nothing"
    assert notebook_links.readme_links(path.name) in (ROOT / "README.md").read_text()
    assert notebook_links.colab_url(path.name).startswith("https://colab.research.google.com/")


def test_setup_cell_installs_from_the_configured_repository_only_on_colab():
    """Run the set-up cell's Python (the %pip line as IPython turns it into a call) off Colab:
    nothing is installed. On a pretend Colab, it asks pip for lecturekit from the repository."""
    import sys
    import types

    import notebook_links
    from IPython.core.inputtransformer2 import TransformerManager

    python = TransformerManager().transform_cell(notebook_links.setup_source())
    calls = []
    shell = types.SimpleNamespace(run_line_magic=lambda *args: calls.append(args))
    exec(python, {"get_ipython": lambda: shell})
    assert calls == []
    colab = types.ModuleType("google.colab")
    colab.output = types.SimpleNamespace(enable_custom_widget_manager=lambda: calls.append("w"))
    google = types.ModuleType("google")
    google.colab = colab
    saved = {k: sys.modules.get(k) for k in ("google", "google.colab")}
    sys.modules.update({"google": google, "google.colab": colab})
    try:
        exec(python, {"get_ipython": lambda: shell})
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    url = notebook_links.repository()
    assert calls == [("pip", f'install --quiet "lecturekit[notebooks] @ git+{url}"'), "w"]
    assert "torch" not in calls[0][1] and "numpy" not in calls[0][1]


def test_setup_cell_says_plainly_when_lecturekit_is_older_than_the_notebook(monkeypatch):
    """The set-up cell asks for the version the package has now (notebook_links writes it), and
    an older lecturekit (a hub's image behind its nbgitpuller content) stops it with a sentence
    saying what to do, before any other import can fail. Newer ones pass."""
    import notebook_links
    from IPython.core.inputtransformer2 import TransformerManager

    import lecturekit

    assert notebook_links.needed_version() == lecturekit.__version__
    python = TransformerManager().transform_cell(notebook_links.setup_source())
    major, minor, patch = map(int, lecturekit.__version__.split("."))  # noqa: RUF048 (x.y.z, tested)
    for newer in (
        lecturekit.__version__,
        f"{major}.{minor}.{patch + 1}",
        f"{major}.{minor + 10}.0",
    ):
        monkeypatch.setattr(lecturekit, "__version__", newer)
        exec(python, {"get_ipython": lambda: None})
    older = f"{major}.{minor - 1}.9" if minor else f"{major - 1}.99.0"
    monkeypatch.setattr(lecturekit, "__version__", older)
    with pytest.raises(
        RuntimeError, match=f"needs lecturekit .* or newer; this kernel has {older}"
    ):
        exec(python, {"get_ipython": lambda: None})


def test_the_notebooks_declare_what_they_import():
    """Every third-party module a notebook, solution or companion imports is lecturekit's own
    dependency or in its extra ``notebooks`` (what the Colab set-up cell installs)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = " ".join(project["dependencies"] + project["optional-dependencies"]["notebooks"])
    module_of = {
        "sklearn": "scikit-learn",
        "tokenizers": "transformers",
        "IPython": "ipywidgets",
    }  # fmt: skip  (google.colab: only on Colab)
    found = set()
    paths = NOTEBOOKS + SOLUTIONS + sorted((ROOT / "companions").glob("*.ipynb"))
    for path in paths:
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                found |= set(
                    re.findall(r"^\s*(?:from|import)\s+(\w+)", "".join(cell["source"]), re.M)
                )
    third_party = found - set(sys.stdlib_module_names) - {"lecturekit", "google"}  # Colab's own
    missing = [m for m in sorted(third_party) if module_of.get(m, m) not in declared]
    assert not missing, f"notebooks import {missing}, which pyproject's extra 'notebooks' lacks"


SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]*_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_claims_read_as_sentences(path):
    """A cell checks what it teaches with ``claim("<the sentence>", ...)`` (a ✓ line; a false
    claim stops the run), never with bare ``assert`` statements or ``assert_close`` calls."""
    import ast

    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
        tree = ast.parse(code)
        asserts = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert)]
        calls = [
            n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", ""))
            in ("assert_close", "assert_allclose", "assert_equal")
        ]  # fmt: skip
        assert not asserts and not calls, (
            f"cell {cell.get('id')}: lines {asserts + calls}: use claim(...) from "
            "lecturekit.utils.claims"
        )
