"""The shipped checkpoints, installed as the package ``lecturekit._data`` (see setup.py).

Nothing to import: this file makes data/ a package so that a wheel carries the checkpoints and
MANIFEST as package data and ``importlib.resources.files("lecturekit._data")`` finds them, in a
wheel and in an editable install alike (lecturekit.shipped.store).
"""
