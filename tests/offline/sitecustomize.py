"""Installs lecturekit's offline guard (lk_offline_guard.py beside this file) at start-up in
every Python process that has this folder on PYTHONPATH and LECTUREKIT_OFFLINE=1, e.g. the
notebook kernels the tests start. Then runs any other sitecustomize this one shadows."""

import os
import sys

if os.environ.get("LECTUREKIT_OFFLINE") == "1":
    import lk_offline_guard

    lk_offline_guard.install()


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == here:
            continue
        candidate = os.path.join(entry or ".", "sitecustomize.py")
        if os.path.isfile(candidate):
            with open(candidate, encoding="utf-8") as f:
                code = compile(f.read(), candidate, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": candidate})
            return


_chain()
