"""The course published from its stored notebooks: the website (``make site``), the slide decks
(``make slides``) and the tree students pull (``make student-release``).

Not part of lecturekit: it lives in ``tools/`` and is its own distribution, ``lecturekit-publish``
(``tools/pyproject.toml``; ``pip install -e ./tools``), so the student wheel does not carry it.
It imports lecturekit (the widgets and recall blanks it renders); lecturekit never imports it
(tests/test_package_layout.py). Works from a clone of the repository (it reads
``notebooks/``)::

    python -m lecturekit_publish vendor | site | slides | student-release   # cli.py
    python -m lecturekit_publish.figures list | build   # the slide figures (make figures)
    lecturekit_publish.frames   # a widget's frames at every setting of its grid
    lecturekit_publish.answers  # exercises and recall blanks answered in the page (lk-answers.js)
"""

__version__ = "0.3.0"  # lecturekit's, released together (tests/publish/test_distribution.py)
