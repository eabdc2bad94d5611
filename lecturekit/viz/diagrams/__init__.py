"""The lectures' diagrams: the picture of each lecture's mechanism, shown before its first formula.

One module per lecture (``lecture_03`` holds lecture 03's pictures), each function named
``*_diagram`` taking no required argument and returning a ``lecturekit.viz.diagram.Diagram``
(alt text included). A notebook shows one with ``lecture_03.four_steps_diagram()``; the website
shows the stored SVG with its alt text; ``diagrams()`` lists them all (the tests draw each one).

Public API::

    diagrams() -> dict[str, Callable[[], Diagram]]   # "lecture_03.four_steps_diagram" -> function
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from lecturekit.viz.diagram import Diagram

__all__ = ["diagrams"]


def diagrams() -> dict[str, Callable[[], Diagram]]:
    """Every lecture diagram function, by ``"module.function"`` name, in lecture order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name in getattr(module, "__all__", []):
            if name.endswith("_diagram"):
                found[f"{info.name}.{name}"] = getattr(module, name)
    return found
