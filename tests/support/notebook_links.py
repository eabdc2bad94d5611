"""Open any lecture anywhere: each notebook's Colab / Binder links and its Colab set-up cell, made
from the one place the repository's location is configured (pyproject.toml, [project.urls]
Repository).

    python tests/support/notebook_links.py      # rewrite the links and set-up cells in place

Every notebook gets, under its title (the first cell, markdown), one line of plain text links
(``[Open in Colab](...) · [Launch on Binder](...)``: text, not badge images, so a notebook read
offline fetches nothing), and as its first code cell the set-up cell below: it does nothing
locally or on Binder, and on Colab installs lecturekit from the repository with ``%pip`` (pip keeps
Colab's own torch and numpy, which satisfy lecturekit's requirements: reinstalling them would
force a runtime restart). The README's lecture table gets the same links (``readme_links``).
tests/test_notebook_hygiene.py checks that all of them match; after changing the repository
location, run this script, then re-execute the notebooks (README: "After changing a notebook").
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
BRANCH = "main"
SETUP_TAG = "setup"  # cell tag of the set-up cell


def repository() -> str:
    """The repository's URL, from pyproject.toml's [project.urls] Repository."""
    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(r'^\[project\.urls\][^\[]*?^Repository\s*=\s*"([^"]+)"', text, re.M | re.S)
    if not match:
        raise ValueError("pyproject.toml has no [project.urls] Repository")
    return match.group(1).rstrip("/")


def _slug() -> str:
    """owner/name of a GitHub repository URL."""
    match = re.fullmatch(r"https://github\.com/([^/]+/[^/]+)", repository())
    if not match:
        raise ValueError(f"Repository must be https://github.com/OWNER/NAME, got {repository()}")
    return match.group(1)


def colab_url(notebook: str) -> str:
    return f"https://colab.research.google.com/github/{_slug()}/blob/{BRANCH}/notebooks/{notebook}"


def binder_url(notebook: str) -> str:
    return f"https://mybinder.org/v2/gh/{_slug()}/HEAD?labpath=notebooks%2F{notebook}"


def links_line(notebook: str) -> str:
    """The line under each notebook's title."""
    return f"[Open in Colab]({colab_url(notebook)}) · [Launch on Binder]({binder_url(notebook)})"


def readme_links(notebook: str) -> str:
    """The README lecture table's cell for a notebook."""
    return f"[Colab]({colab_url(notebook)}) · [Binder]({binder_url(notebook)})"


def needed_version() -> str:
    """The lecturekit a notebook needs: the package's version when its set-up cell was written
    (``lecturekit/__init__.py``'s ``__version__``)."""
    text = (ROOT / "lecturekit" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def setup_source() -> str:
    """The set-up cell: first code cell of every notebook. On Colab it installs lecturekit with
    the packages the notebooks use beyond its own (the extra ``notebooks``: bertviz,
    ipywidgets, scikit-learn, transformers); everywhere it stops with a plain sentence when the
    installed lecturekit is older than the notebook (a hub's image behind its nbgitpuller
    content), before anything else can fail. It uses only ``lecturekit.__version__``, which
    every version has."""
    need = needed_version()
    need_tuple = tuple(int(n) for n in need.split("."))
    return (
        "# Set-up. On Google Colab this installs lecturekit from the course repository (Colab's\n"
        "# own torch and numpy are kept); locally, on Binder or a hub it installs nothing.\n"
        "# On a new machine, `python -m lecturekit.verify` checks the installation.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        f'    %pip install --quiet "lecturekit[notebooks] @ git+{repository()}"\n'
        "    from google.colab import output\n"
        "\n"
        "    output.enable_custom_widget_manager()  # the notebooks' ipywidgets\n"
        "\n"
        "import lecturekit\n"
        "\n"
        f'if tuple(map(int, lecturekit.__version__.split("."))) < {need_tuple}:\n'
        "    raise RuntimeError(\n"
        f'        f"This notebook needs lecturekit {need} or newer; this kernel has {{lecturekit.__version__}}. "\n'
        '        "On a hub, ask your instructor to update its image; on Colab, restart the runtime and "\n'
        '        "run this cell again; on your computer, run `pip install -U -e .` in the course folder."\n'
        "    )\n"
        "\n"
        "from lecturekit.viz.alt import describe_figures\n"
        "\n"
        "describe_figures()  # every figure shown is stored with a text description (alt text)"
    )


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def apply(path: Path) -> bool:
    """Put the links line under the title and the set-up cell first among the code cells;
    returns whether the notebook changed (its outputs then need a fresh run)."""
    nb = json.loads(path.read_text())
    before = json.dumps(nb, sort_keys=True)
    title = nb["cells"][0]
    lines = "".join(title["source"]).split("\n")
    lines = [line for line in lines if not line.startswith("[Open in Colab](")]
    while len(lines) > 1 and lines[1] == "" and (len(lines) < 3 or lines[2] == ""):
        del lines[1]  # no run of blank lines where an old links line was
    lines[1:1] = ["", links_line(path.name)]
    title["source"] = _lines("\n".join(lines))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    setup = next((c for c in code if SETUP_TAG in c.get("metadata", {}).get("tags", [])), None)
    if setup is None:
        setup = {"cell_type": "code", "execution_count": None, "id": "lecturekit-setup",
                 "metadata": {"tags": [SETUP_TAG]}, "outputs": []}  # fmt: skip
        first_code = nb["cells"].index(code[0]) if code else len(nb["cells"])
        nb["cells"].insert(first_code, setup)
    setup["source"] = _lines(setup_source())
    if json.dumps(nb, sort_keys=True) == before:
        return False
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return True


if __name__ == "__main__":
    changed = [p.name for p in NOTEBOOKS if apply(p)]
    print("changed:", ", ".join(changed) if changed else "nothing", file=sys.stderr)
