"""The course as a static website, built from the stored notebooks without running them.

``make site`` runs ``python -m lecturekit_publish site``: the notebooks in ``notebooks/`` are
copied to a staging folder and prepared for reading (each widget becomes a player over its
pre-rendered frames, each figure an image file with its alt text, bertviz's scripts point at
the site's own copies, test markers and the Colab set-up cell are left out, each check cell
becomes a form that checks the answer in the page, ``answers``), the deck
companions (``companions/``, for instructors) likewise, a home page, the course map and the
figure gallery are written next to them, and Jupyter Book 1 (Sphinx,
execution off) turns them into HTML in ``site/``: navigation, search, light/dark, per-page Colab /
Binder / download buttons. Nothing is fetched: the third-party scripts come from the cache
``lecturekit_publish.vendor`` filled once with npm.

Public API::

    report = build_site(root, out, cache, jobs=2, frames=True, progress=None)
    report.pages, report.widgets, report.frames, report.seconds, report.megabytes
    prepare_notebook(nb, frames_by_index, static_dir) -> nb  # one notebook, made for reading
    player_html(name, static, base) -> str                   # a widget's kernel-less player

Lecture-independent (the course website, issue 22).
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import multiprocessing
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lecturekit.viz.widgets import widget_controls
from lecturekit_publish import vendor
from lecturekit_publish.answers import check_cell_html
from lecturekit_publish.frames import Image, StaticWidget, render_frames
from lecturekit_publish.notebook import (
    WIDGET_VIEW,
    lecture_notebooks,
    progress_text,
    read_notebook,
    stored_images,
)

__all__ = ["SiteReport", "build_site", "prepare_notebook", "player_html", "render_widget",
           "repository_url"]  # fmt: skip

STATIC = Path(__file__).resolve().parent / "static"  # the player's script and style
SITE_STATIC = (
    "lk-player.js",
    "lk-player.css",
    "lk-answers.js",
    "lk-answers.css",
    "lk-favicon.svg",
)  # not the decks' (lk-slides.*)
FRAMES_DIR = "lk-frames"  # under _static/
IMAGES_DIR = "lk-images"
_JUPYTER_BOOK = "import sys; from jupyter_book.cli.main import main; sys.exit(main())"
_MARKER = re.compile(r"^\s*# NBVAL_[A-Z_]+.*\n?", re.M)
_CHECKED = re.compile(r"^\d\d[a-z]?\.r?\d+ .*: (not attempted yet|not yet|correct)\b.*\n?", re.M)


@dataclass
class SiteReport:
    pages: int
    widgets: int
    frames: int
    seconds: float
    megabytes: float
    out: Path


# ------------------------------------------------------------------------------ the widgets


def render_widget(name: str) -> tuple[str, StaticWidget]:
    """Rebuild the registered widget ``name`` and render its frames (one torch thread)."""
    import torch

    from lecturekit_publish import figures

    torch.set_num_threads(1)
    widget, grid = figures.widget_spec(name).func()
    return name, render_frames(widget, grid)


def _png_name(png: bytes) -> str:
    return hashlib.sha256(png).hexdigest()[:20] + ".png"


def _png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _img(src: str, png: bytes, alt: str, cls: str) -> str:
    w, h = _png_size(png)
    return (f'<img class="{cls}" src="{src}" alt="{html.escape(alt, quote=True)}" '
            f'width="{w}" height="{h}">')  # fmt: skip


def player_html(name: str, static: StaticWidget, base: str, files: Path) -> str:
    """The HTML of widget ``name``'s player: its first frame shown as the notebook shows it, the
    controls (built by ``lk-player.js``) and every frame in a JSON block; PNGs are written to
    ``files`` (deduplicated by content) and referred to as ``base + file name``."""
    files.mkdir(parents=True, exist_ok=True)
    frames = {}
    for key, values in static.frames.items():
        row = []
        for v in values:
            if isinstance(v, Image):
                fname = _png_name(v.png)
                if not (files / fname).exists():
                    (files / fname).write_bytes(v.png)
                w, h = _png_size(v.png)
                row.append({"src": base + fname, "alt": v.alt, "w": w, "h": h})
            else:
                row.append(v)
        frames["-".join(map(str, key))] = row
    first_key = "-".join(str(c.initial) for c in static.controls)
    data = {
        "name": name,
        "controls": [
            {
                "name": c.name,
                "label": c.label,
                "kind": c.kind,
                "labels": list(c.labels),
                "initial": c.initial,
                "hidden": c.hidden,
            }
            for c in static.controls
        ],
        "outputs": static.outputs,
        "frames": frames,
    }
    shown = []
    for kind, v in zip(static.outputs, frames[first_key], strict=True):
        if kind == "image":
            alt = html.escape(v["alt"], quote=True)
            shown.append(f'<img class="lk-frame" src="{v["src"]}" alt="{alt}" width="{v["w"]}" '
                         f'height="{v["h"]}">')  # fmt: skip
        elif kind == "html":
            shown.append(f'<div class="lk-html">{v}</div>')
        else:
            shown.append(f'<pre class="lk-text">{html.escape(v)}</pre>')
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    n = len(static.frames)
    return (
        f'<div class="lk-player" data-lk-widget="{name}">'
        f'<div class="lk-controls" aria-label="widget controls"></div>'
        f'<div class="lk-outputs" aria-live="polite">{"".join(shown)}</div>'
        f'<p class="lk-note">Pre-rendered widget: {n} setting{"s" if n > 1 else ""} of the '
        "notebook's controls, drawn by the same code. Run the notebook (Colab, Binder or "
        "locally) to try any value.</p>"
        f'<script type="application/json" class="lk-data">{blob}</script></div>'
    )


# ---------------------------------------------------------------------------- the notebooks


def _image_html(png_b64: str, alt: str, static_dir: Path) -> str:
    import base64

    png = base64.b64decode(png_b64)
    fname = _png_name(png)
    target = static_dir / IMAGES_DIR / fname
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_bytes(png)
    return _img(f"_static/{IMAGES_DIR}/{fname}", png, alt, "lk-figure")


def _svg_html(svg: str, alt: str, static_dir: Path) -> str:
    """A diagram (``lecturekit.viz.diagram``) as an ``<img>`` of an SVG file: its own ``<style>``
    stays inside the file instead of styling the page."""
    data = svg.encode()
    fname = f"{hashlib.sha256(data).hexdigest()[:16]}.svg"
    target = static_dir / IMAGES_DIR / fname
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_bytes(data)
    size = re.search(r'<svg[^>]*\bwidth="(\d+)"[^>]*\bheight="(\d+)"', svg)
    dims = f' width="{size[1]}" height="{size[2]}"' if size else ""
    return (f'<img class="lk-figure lk-diagram" src="_static/{IMAGES_DIR}/{fname}" '
            f'alt="{html.escape(alt, quote=True)}"{dims}>')  # fmt: skip


def _heading_before(nb: dict, index: int) -> str:
    for cell in reversed(nb["cells"][:index]):
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def _still(nb: dict, model_id: str, static_dir: Path) -> str:
    import base64

    images = [_image_html(base64.b64encode(png).decode(), "the widget as the notebook shows it",
                          static_dir) for png in stored_images(nb, model_id)]  # fmt: skip
    return ('<div class="lk-player lk-still">' + "".join(images) + '<p class="lk-note">This '
            "widget is shown as the notebook stored it (no pre-rendered frames): run the "
            "notebook to play with it.</p></div>")  # fmt: skip


def _answerable(cell: dict, notebook: str, repository: str) -> None:
    """A check cell's stored verdicts ("not attempted yet") give way to the page's form."""
    form = check_cell_html(cell["source"], notebook, repository)
    if form is None:
        return
    kept = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text = _CHECKED.sub("", "".join(out.get("text", "")))
            if not text.strip():
                continue
            out = {**out, "text": text}
        kept.append(out)
    kept.append({"output_type": "display_data", "metadata": {}, "data": {"text/html": form}})
    cell["outputs"] = kept


def prepare_notebook(
    nb: dict,
    players: dict[int, str],
    static_dir: Path,
    answers: tuple[str, str] | None = None,
) -> dict:
    """A copy of ``nb`` made for reading on the site: widget output k becomes ``players[k]``
    (HTML; a widget without one shows the picture its saved state holds), every PNG an
    ``<img>`` of a file in ``static_dir`` with the alt text the notebook stored (its figure's
    titles and axes; for an image stored without one, the section it is in); bertviz's CDN
    scripts become the site's; ``# NBVAL_...`` marker lines and the Colab set-up cell are left
    out (the download button still gives the notebook as it is). ``answers`` = (the lecture's
    file stem, the repository's URL): each check cell gets the page's answer form
    (``lecturekit_publish.answers``)."""
    original, nb = nb, copy.deepcopy(nb)
    nb.get("metadata", {}).pop("widgets", None)
    k = 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if "setup" in tags:
            tags.append("remove-cell")
        source = "".join(cell["source"])
        cell["source"] = _MARKER.sub("", source)
        if answers is not None:
            _answerable(cell, *answers)
        for out in cell.get("outputs", []):
            data = out.get("data")
            if not data:
                continue
            if WIDGET_VIEW in data:
                model_id = data[WIDGET_VIEW]["model_id"]
                text = progress_text(original, model_id)
                if text is not None:  # a progress bar: its last text
                    out["data"] = {"text/html": f'<pre class="lk-progress">{html.escape(text)}'
                                                "</pre>"}  # fmt: skip
                    continue
                player = players.get(k) or _still(original, model_id, static_dir)
                out["data"] = {"text/html": player}
                k += 1
            elif "image/png" in data:
                alt = out.get("metadata", {}).get("image/png", {}).get("alt")
                if not alt:
                    alt = f"Figure in the section '{_heading_before(nb, i)}'"
                png = data["image/png"]
                png = "".join(png) if isinstance(png, list) else png
                out["data"] = {"text/html": _image_html(png, alt, static_dir)}
            elif "image/svg+xml" in data:
                alt = out.get("metadata", {}).get("image/svg+xml", {}).get("alt")
                svg = data["image/svg+xml"]
                svg = "".join(svg) if isinstance(svg, list) else svg
                alt = alt or f"Diagram in the section '{_heading_before(nb, i)}'"
                out["data"] = {"text/html": _svg_html(svg, alt, static_dir)}
            elif "text/html" in data:
                text = data["text/html"]
                text = "".join(text) if isinstance(text, list) else text
                data["text/html"] = vendor.rewrite_cdn(text)
    return nb


# ------------------------------------------------------------------------------ other pages


def _readme_section(readme: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", readme, re.M | re.S)
    if not match:
        raise ValueError(f"README.md has no section '## {title}'")
    return match.group(1).strip()


def _site_links(text: str, repository: str) -> str:
    text = re.sub(r"\]\((?:\.\./)?notebooks/([^)#]+\.ipynb)(#[^)]*)?\)", r"](\1)", text)
    text = text.replace("](docs/course-map.md)", "](course-map.md)")
    text = re.sub(r"\]\((?!https?:|#)([^)]+)\)",
                  lambda m: f"]({m.group(1)})" if m.group(1).endswith((".ipynb", ".md"))
                  and "/" not in m.group(1) else f"]({repository}/tree/main/{m.group(1)})",
                  text)  # fmt: skip
    return text


def _home_page(root: Path, repository: str) -> str:
    readme = (root / "README.md").read_text(encoding="utf-8")
    intro = readme.split("\n## ", 1)[0]
    about = [p for p in intro.split("\n\n") if p.startswith("Jupyter notebooks that teach")]
    if not about:
        raise ValueError("README.md's introduction lost its paragraph 'Jupyter notebooks that "
                         "teach ...' (the home page's first paragraph)")  # fmt: skip
    return "\n\n".join([
        "# lecturekit: attention, Transformers, BERT and ViT",
        _site_links(about[0].strip(), repository),
        "**Reading this site.** Each lecture page is its notebook with the outputs of one clean "
        "run: prose, code, figures and math. Its widgets are pre-rendered, so their sliders and "
        "menus play here without Python (every setting drawn beforehand by the same code). The "
        "buttons at the top of a lecture open it in Colab or on Binder, or download the "
        "notebook (.ipynb) to run it yourself; `make lab` runs them all on a laptop, offline. "
        "The recall blanks and every exercise whose answer is a value (a number, a word, a short "
        "list) can be answered on the page: type it and press Check. The page compares salted "
        "hashes, as the notebook's `check` does, so it never holds an answer, and Hint gives one "
        "hint at a time; an exercise where you write code links its notebook on Colab and Binder. "
        "The [figure gallery](gallery.md) shows every slide figure; the "
        "[course map](course-map.md) maps each section of the five source decks to the "
        "lecture that teaches it.",
        "## The lectures",
        _site_links(_readme_section(readme, "The lectures"), repository),
        "## Course map",
        _site_links(_readme_section(readme, "Course map"), repository),
    ])  # fmt: skip


def _gallery_page(root: Path, lectures: dict[str, Path], stage: Path) -> str:
    from lecturekit_publish import figures

    parts = [
        "# Figure gallery",
        "Every slide figure of the course, drawn by `lecturekit_publish.figures` from the same "
        "code the notebooks run (shipped checkpoints, data made in code). Instructors regenerate "
        'them all with `make figures` (PNG, SVG and PDF; `FIGURES_ARGS="--theme dark"` for '
        "dark slides), identically each time.",
    ]
    src = root / "docs" / "figures"
    (stage / "figures").mkdir(exist_ok=True)
    by_lecture: dict[str, list[str]] = {}
    for name in figures.names():
        by_lecture.setdefault(figures.spec(name).lecture, []).append(name)
    for lecture, names in by_lecture.items():
        pages = [lec for lec in lectures if lec == lecture] or [
            lec for lec in lectures if lec.startswith(lecture)
        ]  # "08": the figures of 08a and 08b
        links = " and ".join(f"[lecture {lec}]({lectures[lec].stem}.ipynb)" for lec in pages)
        parts.append(f"## Lecture {lecture}\n\nFrom {links}.")
        for name in names:
            png = src / f"{name}.png"
            if not png.exists():
                raise ValueError(f"docs/figures/{name}.png is missing: rebuild the gallery "
                                 "(docs/instructors.md)")  # fmt: skip
            shutil.copy(png, stage / "figures" / png.name)
            desc = figures.spec(name).description
            parts.append(f"### `{name}`\n\n![{desc}](figures/{png.name})\n\n{desc[0].upper()}"
                         f"{desc[1:]}.")  # fmt: skip
    return "\n\n".join(parts)


def _course_map(root: Path, repository: str) -> str:
    return _site_links((root / "docs" / "course-map.md").read_text(encoding="utf-8"), repository)


def repository_url(root: Path) -> str:
    """The course repository's web address: pyproject.toml's [project.urls] Repository."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^\[project\.urls\][^\[]*?^Repository\s*=\s*"([^"]+)"', text, re.M | re.S)
    if not match:
        raise ValueError("pyproject.toml has no [project.urls] Repository")
    return match.group(1).rstrip("/")


def _config(repository: str) -> str:
    return json.dumps({
        "title": "lecturekit",
        "author": "The lecturekit authors",
        "copyright": "The lecturekit authors (MIT licence)",
        "only_build_toc_files": True,
        "exclude_patterns": ["_build", "**.ipynb_checkpoints"],
        "execute": {"execute_notebooks": "off"},
        "repository": {"url": repository, "path_to_book": "notebooks", "branch": "main"},
        "launch_buttons": {"notebook_interface": "jupyterlab",
                           "binderhub_url": "https://mybinder.org",
                           "colab_url": "https://colab.research.google.com"},
        "html": {"use_repository_button": True, "use_issues_button": False,
                 "use_edit_page_button": False, "home_page_in_navbar": True},
        "parse": {"myst_enable_extensions": ["dollarmath", "amsmath", "colon_fence",
                                             "deflist", "html_image", "linkify"]},
        "sphinx": {"recursive_update": True, "config": {
            # no Thebe (live code needs a kernel and a CDN) and no comments widgets
            "extensions": ["sphinx_togglebutton", "sphinx_copybutton", "myst_nb", "jupyter_book",
                           "sphinx_external_toc", "sphinx_design", "sphinx_book_theme"],
            "html_context": {"default_mode": "auto"},  # light/dark follows the system
            "html_favicon": "_static/lk-favicon.svg",  # else browsers ask for /favicon.ico
            "mathjax_path": vendor.MATHJAX,
            "html_static_path": ["_static"],
            "html_last_updated_fmt": None,
            "nb_ipywidgets_js": {},
            "html_show_sphinx": False,
            "suppress_warnings": ["myst.header", "mystnb.unknown_mime_type",
                                  "misc.highlighting_failure"],
        }},
    }, indent=1)  # fmt: skip


COMPANION_PREFIX = "companion-"  # a deck companion's page: companion-<deck>.html


def _companion_links(text: str, repository: str) -> str:
    """A companion's links, as the site has them: the lectures and the other companions are
    pages of the site, the course map too; any other file is the repository's."""
    text = re.sub(r"\]\(\.\./notebooks/([^)#/]+\.ipynb)(#[^)]*)?\)", r"](\1)", text)
    text = text.replace("](../docs/course-map.md)", "](course-map.md)")
    text = re.sub(r"\]\((\w+)\.ipynb(#[^)]*)?\)", rf"]({COMPANION_PREFIX}\1.ipynb)", text)
    text = text.replace("](../companions/)", "](companions.md)")
    text = text.replace("](README.md)", "](companions.md)")
    return re.sub(r"\]\(\.\./([^)]+)\)", rf"]({repository}/tree/main/\1)", text)


def _companion_page(root: Path, repository: str) -> str:
    """The companions' index (companions/README.md), linked to their pages."""
    text = (root / "companions" / "README.md").read_text(encoding="utf-8")
    return _companion_links(text, repository)


def _toc(lectures: dict[str, Path], companions: list[Path] = ()) -> str:
    chapters = "\n".join(f"      - file: {p.stem}" for p in lectures.values())
    decks = "".join(f"          - file: {COMPANION_PREFIX}{p.stem}\n" for p in companions)
    index = "      - file: companions\n" + (f"        sections:\n{decks}" if decks else "")
    return ("format: jb-book\nroot: index\nparts:\n  - caption: Lectures\n    chapters:\n"
            f"{chapters}\n  - caption: For instructors\n    chapters:\n{index}"
            "      - file: gallery\n      - file: course-map\n")  # fmt: skip


# ----------------------------------------------------------------------------------- build


def build_site(
    root: Path | str,
    out: Path | str,
    cache: Path | str,
    jobs: int = 2,
    frames: bool = True,
    progress: Callable[[str], None] | None = None,
) -> SiteReport:
    """Build the site of the clone at ``root`` into ``out`` (replaced), with the scripts of
    ``cache`` (``vendor.fetch``), rendering the widgets' frames in ``jobs`` processes
    (``frames=False``: each widget shows its first frame only, for a quick look)."""
    start = time.perf_counter()
    root, out, cache = Path(root).resolve(), Path(out).resolve(), Path(cache).resolve()
    say = progress or (lambda _msg: None)
    lectures = lecture_notebooks(root / "notebooks")
    repository = repository_url(root)
    gone = vendor.missing(cache)
    if gone:
        raise RuntimeError(f"the site's scripts are not in {cache}: {', '.join(gone)} (python "
                           "-m lecturekit_publish vendor fetches them with npm)")  # fmt: skip
    stage = root / "build" / "site-src"
    shutil.rmtree(stage, ignore_errors=True)
    static_dir = stage / "_static"
    static_dir.mkdir(parents=True)
    for name in SITE_STATIC:  # Jupyter Book puts every .js / .css of _static on every page
        shutil.copy(STATIC / name, static_dir / name)

    from lecturekit_publish import figures

    names = figures.widget_names()
    say(f"rendering {len(names)} widgets' frames in {jobs} processes")
    rendered: dict[str, StaticWidget] = {}
    if frames:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            for name, static in pool.map(render_widget, names):
                rendered[name] = static
                say(f"  {name}: {len(static.frames)} frames, {static.seconds:.1f} s")
    else:
        for name in names:
            widget, _ = figures.widget_spec(name).func()
            only_first = {k: [c.value] for k, c in widget_controls(widget).items()}
            rendered[name] = render_frames(widget, only_first)
    n_frames = sum(len(s.frames) for s in rendered.values())

    say(f"preparing {len(lectures)} notebooks")
    for lecture, path in lectures.items():
        players = {}
        for name in figures.widget_names(lecture):
            spec = figures.widget_spec(name)
            players[spec.index] = player_html(name, rendered[name], f"_static/{FRAMES_DIR}/",
                                              static_dir / FRAMES_DIR)  # fmt: skip
        nb = prepare_notebook(read_notebook(path), players, static_dir, (path.stem, repository))
        (stage / path.name).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    companions = sorted((root / "companions").glob("*.ipynb"))
    say(f"preparing {len(companions)} deck companions")
    for path in companions:
        nb = prepare_notebook(read_notebook(path), {}, static_dir)
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                cell["source"] = _companion_links("".join(cell["source"]), repository)
        name = f"{COMPANION_PREFIX}{path.name}"
        (stage / name).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    (stage / "companions.md").write_text(_companion_page(root, repository), encoding="utf-8")
    (stage / "index.md").write_text(_home_page(root, repository), encoding="utf-8")
    (stage / "gallery.md").write_text(_gallery_page(root, lectures, stage), encoding="utf-8")
    (stage / "course-map.md").write_text(_course_map(root, repository), encoding="utf-8")
    (stage / "_config.yml").write_text(_config(repository), encoding="utf-8")
    (stage / "_toc.yml").write_text(_toc(lectures, companions), encoding="utf-8")

    say("running Jupyter Book (Sphinx, execution off)")
    built = root / "build" / "site-jb"
    shutil.rmtree(built, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", _JUPYTER_BOOK, "build", str(stage), "--path-output", str(built),
         "--builder", "html", "--keep-going"],
        capture_output=True, text=True,
    )  # fmt: skip
    html_dir = built / "_build" / "html"
    if done.returncode or not (html_dir / "index.html").exists():
        raise RuntimeError("Jupyter Book failed:\n" + (done.stdout + done.stderr)[-3000:])
    for path in lectures.values():  # the download button gives the notebook as it is
        shutil.copy(path, html_dir / "_sources" / path.name)
    for path in companions:
        shutil.copy(path, html_dir / "_sources" / f"{COMPANION_PREFIX}{path.name}")
    shutil.rmtree(html_dir / ".doctrees", ignore_errors=True)
    vendor.install(cache, html_dir / "_static")  # after the build: loaded only where needed
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html_dir, out)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    pages = len(list(out.glob("*.html"))) - sum((out / n).exists() for n in
                                                 ("search.html", "genindex.html"))  # fmt: skip
    return SiteReport(pages, len(names), n_frames, time.perf_counter() - start, size / 1e6, out)
