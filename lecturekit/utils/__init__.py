"""Helpers every role shares:

- ``checks``: the one home of input checks (every message names the argument, what it got and
  what it wants)
- ``contracts``: an entry point's tensor shapes declared once (``@contract``), checked where a
  call enters lecturekit
- ``weights``: every weight map from torch and Hugging Face, as data, and ``load_mapped``
- ``config``: the full models' config convention (frozen; paper defaults; ``.tiny()``)
- ``claims``: a lecture's claims checked as sentences (``claim``, ``close``, ...)
"""
