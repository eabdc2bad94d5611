"""Every slide figure of the lectures, from the same functions the notebooks use.

Public API::

    from lecturekit_publish import figures
    figures.names()                         # all registered figure names, in lecture order
    figures.spec(name).description          # one line; .lecture, .func
    fig = figures.build(name, theme="dark") # a matplotlib Figure, seeded, slide fonts
    figures.save(fig, "out/name.svg", "svg")
    figures.widget_names("03")              # the notebooks' widgets rebuilt (the website's frames)
    widget, grid = figures.widget_spec(name).func()

Command line: ``python -m lecturekit_publish.figures list`` / ``build`` (see
``lecturekit_publish.figures.cli``).

Modules:

- ``registry``: ``register``, ``names``, ``spec``, ``build``, ``save`` and the widget registry;
- ``cli``: the ``list`` / ``build`` command line (``__main__`` runs it);
- ``helpers``: slide-size fonts, plain ticks, torch on one thread;
- ``lecture_00``, ``lectures_01_04``, ``lectures_05_08``, ``lecture_09``, ``lecture_09a``,
  ``lecture_10``, ``lecture_11``, ``lecture_11b``, ``lecture_12``, ``lecture_13``, ``lecture_14``,
  ``lecture_15``: each lecture's figures and widgets, registered on import.
"""

from lecturekit_publish.figures import (  # noqa: F401  (importing registers the figures)
    lecture_00,
    lecture_09,
    lecture_09a,
    lecture_10,
    lecture_11,
    lecture_11b,
    lecture_12,
    lecture_13,
    lecture_14,
    lecture_15,
    lectures_01_04,
    lectures_05_08,
)
from lecturekit_publish.figures.registry import (
    FORMATS,
    FigureSpec,
    WidgetSpec,
    build,
    close_matches,
    names,
    register,
    register_widget,
    save,
    slide_rc,
    spec,
    widget_names,
    widget_spec,
)

__all__ = ["FORMATS", "FigureSpec", "build", "close_matches", "names", "register", "save",
           "slide_rc", "spec", "WidgetSpec", "register_widget", "widget_names",
           "widget_spec"]  # fmt: skip
