"""The website's third-party JavaScript, served from the site itself (never a CDN).

MathJax 3 renders the math, require.js + d3 + jQuery run bertviz's views, reveal.js runs the
slide decks. They come from the npm
registry once, at set-up (``npm pack``, like ``pip install``: the only network use, into a cache
folder), and every build copies them from the cache into ``_static/vendor/``. The build itself
never touches the network.

Public API::

    PACKAGES                                  # name -> Package(spec, files)
    CDN                                       # bertviz's CDN URL -> path under _static/
    fetch(cache, npm=None, env=None) -> dict  # npm pack + extract what is missing; name -> folder
    missing(cache) -> list[str]               # packages not in the cache yet
    install(cache, static, names=None, folder="vendor") -> int  # copy into static/vendor/
    rewrite_cdn(html) -> str                  # CDN URLs -> _static/vendor/... (page-relative)

Lecture-independent (the course website and the slide decks).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Package", "PACKAGES", "CDN", "fetch", "missing", "install", "rewrite_cdn"]


@dataclass(frozen=True)
class Package:
    spec: str  # npm name@version
    files: tuple[str, ...]  # paths inside the package ("dir/" = the whole folder)


PACKAGES = {
    "requirejs-2.3.6": Package("requirejs@2.3.6", ("require.js",)),
    "d3-5.7.0": Package("d3@5.7.0", ("dist/d3.min.js",)),
    # bertviz asks for jQuery 2.0.0, which is not on npm; 2.1.0 works (JUPYTER-NOTES.md)
    "jquery-2.1.0": Package("jquery@2.1.0", ("dist/jquery.min.js",)),
    # the slide decks (lecturekit_publish.slides): reveal.js, its notes and math plugins, the
    # light theme and its font
    "reveal.js-5.2.1": Package(
        "reveal.js@5.2.1",
        (
            "LICENSE",
            "dist/reset.css",
            "dist/reveal.css",
            "dist/reveal.js",
            "dist/theme/white.css",
            "dist/theme/fonts/source-sans-pro/",
            "plugin/notes/notes.js",
            "plugin/math/math.js",
        ),
    ),
    "mathjax-3.2.2": Package(
        "mathjax@3.2.2",
        (
            "es5/tex-mml-chtml.js",
            "es5/input/",
            "es5/output/chtml/",
            "es5/output/chtml.js",
            "es5/ui/",
            "es5/a11y/",
            "es5/sre/",
            "es5/adaptors/",
        ),
    ),
}
MATHJAX_PACKAGE = "mathjax-3.2.2"
MATHJAX_JS = f"{MATHJAX_PACKAGE}/es5/tex-mml-chtml.js"  # relative to the vendor folder
MATHJAX = f"vendor/{MATHJAX_JS}"  # relative to the site's _static/
CDN = {
    "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js":
        "_static/vendor/requirejs-2.3.6/require.js",
    "https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min":
        "_static/vendor/d3-5.7.0/dist/d3.min",
    "https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min":
        "_static/vendor/jquery-2.1.0/dist/jquery.min",
}  # fmt: skip


def _done(folder: Path, package: Package) -> bool:
    return all((folder / f).exists() for f in package.files)


def missing(cache: Path | str) -> list[str]:
    """The packages of PACKAGES not yet in ``cache``."""
    cache = Path(cache)
    return [name for name, p in PACKAGES.items() if not _done(cache / name, p)]


def fetch(
    cache: Path | str, npm: str | None = None, env: dict[str, str] | None = None
) -> dict[str, Path]:
    """Put every package of PACKAGES into ``cache/<name>/`` (its files only), with ``npm pack``
    for those missing (``env``: npm's environment, default this process's); returns name ->
    folder. Without npm, or when npm fails (offline, no registry), raises a RuntimeError saying
    what to do."""
    cache = Path(cache)
    todo = missing(cache)
    if todo:
        npm = npm or shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"npm is needed once to fetch the site's scripts ({', '.join(todo)}"
                               "): install Node.js/npm (apt-get install npm)")  # fmt: skip
    for name in todo:
        package = PACKAGES[name]
        folder = cache / name
        tmp = cache / f".{name}.download"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        done = subprocess.run(
            [npm, "pack", package.spec, "--json", "--pack-destination", str(tmp)],
            capture_output=True, text=True, timeout=600, env=env or os.environ.copy(),
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"npm pack {package.spec} failed: {done.stderr.strip()[-400:]}")
        tgz = tmp / json.loads(done.stdout)[0]["filename"]
        with tarfile.open(tgz) as tar:
            for member in tar.getmembers():
                inner = member.name.removeprefix("package/")
                if not member.isfile() or not any(
                    inner == f or (f.endswith("/") and inner.startswith(f)) for f in package.files
                ):
                    continue
                target = tmp / "files" / inner
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(member).read())
        shutil.rmtree(folder, ignore_errors=True)
        (tmp / "files").rename(folder)
        shutil.rmtree(tmp)
        if not _done(folder, package):
            raise RuntimeError(f"npm package {package.spec} lacks {package.files}")
    return {name: cache / name for name in PACKAGES}


def install(
    cache: Path | str,
    static: Path | str,
    names: tuple[str, ...] | None = None,
    folder: str = "vendor",
) -> int:
    """Copy the cached packages (``names``, default all) into ``static/<folder>/<name>/``;
    returns the number of files. Packages missing from the cache raise a RuntimeError (run
    ``fetch`` first)."""
    cache, static = Path(cache), Path(static)
    names = tuple(PACKAGES) if names is None else names
    unknown = [n for n in names if n not in PACKAGES]
    if unknown:
        raise ValueError(f"names has {unknown}; the packages are {list(PACKAGES)}")
    gone = [n for n in missing(cache) if n in names]
    if gone:
        raise RuntimeError(f"the scripts are not in {cache} yet: {', '.join(gone)} "
                           "(python -m lecturekit_publish vendor fetches them)")  # fmt: skip
    count = 0
    for name in names:
        dest = static / folder / name
        shutil.copytree(cache / name, dest, dirs_exist_ok=True)
        count += sum(1 for p in dest.rglob("*") if p.is_file())
    return count


def rewrite_cdn(html: str) -> str:
    """``html`` with bertviz's CDN URLs replaced by the site's own copies (paths relative to a
    page at the site's top level)."""
    for url, local in CDN.items():
        html = html.replace(url, local)
    return html
