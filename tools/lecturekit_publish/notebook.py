"""Reading a stored notebook's widgets: where each widget output is and what it showed.

Public API::

    lecture_notebooks(folder) -> dict[str, Path] # "05" / "09a" -> notebooks/05_....ipynb
    nb = read_notebook(path)                     # the .ipynb as a dict (JSON)
    widget_outputs(nb) -> list[WidgetOutput]     # every ipywidgets output (not progress bars)
    progress_text(nb, model_id) -> str | None    # a progress bar's last text (tqdm), else None
    stored_images(nb, model_id) -> list[bytes]   # the PNGs that widget showed when saved
    same_picture(png_a, png_b, tol=0.01) -> bool # equal size, mean |difference| <= tol

Lecture-independent (the course website).
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "WidgetOutput",
    "lecture_notebooks",
    "read_notebook",
    "widget_outputs",
    "stored_images",
    "same_picture",
]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@dataclass(frozen=True)
class WidgetOutput:
    cell: int  # index of the code cell in nb["cells"]
    output: int  # index of the output in that cell
    model_id: str


def lecture_notebooks(folder: Path | str) -> dict[str, Path]:
    """The lecture notebooks in ``folder`` (``NN_topic.ipynb``, ``NNa_topic.ipynb``) by lecture
    id, in course order; a folder without any raises a ValueError."""
    folder = Path(folder)
    found = {p.name.split("_")[0]: p for p in sorted(folder.glob("[0-9][0-9]*_*.ipynb"))}
    if not found:
        raise ValueError(f"folder={str(folder)!r} holds no lecture notebooks (NN_topic.ipynb)")
    return found


def read_notebook(path: Path | str) -> dict:
    """The notebook at ``path`` as a dict; a missing file or one that is not JSON raises a
    ValueError naming it."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path={str(path)!r} is not a notebook file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name} is not a notebook (JSON): {err}") from None


def widget_outputs(nb: dict) -> list[WidgetOutput]:
    """Every ipywidgets view among the notebook's outputs, in order; progress bars (tqdm's,
    which a static page shows as their last text) are left out."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        for j, out in enumerate(cell.get("outputs", []) if cell.get("cell_type") == "code" else []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view is not None and progress_text(nb, view["model_id"]) is None:
                found.append(WidgetOutput(i, j, view["model_id"]))
    return found


def _state(nb: dict) -> dict:
    return nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


_PROGRESS = {"FloatProgressModel", "IntProgressModel"}


def progress_text(nb: dict, model_id: str) -> str | None:
    """For a progress bar (a box holding a FloatProgress / IntProgress, as tqdm draws it): its
    last text, labels and percentage as saved (HTML entities decoded); None for other widgets."""
    import html

    state = _state(nb)
    model = state.get(model_id, {})
    children = [state.get(c.removeprefix("IPY_MODEL_"), {}) for c in
                model.get("state", {}).get("children", [])]  # fmt: skip
    if not any(c.get("model_name") in _PROGRESS for c in children):
        return None
    parts = [html.unescape(str(c["state"].get("value", ""))) for c in children
             if c.get("model_name") in ("HTMLModel", "LabelModel")]  # fmt: skip
    return " ".join(p.strip() for p in parts if p.strip())


def stored_images(nb: dict, model_id: str) -> list[bytes]:
    """The PNG bytes of every Image inside widget ``model_id`` as the notebook stored it (its
    saved widget state), in display order; a widget the state does not hold raises a
    ValueError."""
    state = _state(nb)
    if model_id not in state:
        raise ValueError(f"widget {model_id} is not in the notebook's saved widget state "
                         "(save the notebook with its widget state)")  # fmt: skip
    images = []

    def walk(mid: str) -> None:
        model = state.get(mid)
        if model is None:
            return
        if model["model_name"] == "ImageModel":
            for buf in model.get("buffers", []):
                if buf["path"] == ["value"]:
                    images.append(base64.b64decode(buf["data"]))
        for child in model["state"].get("children", []):
            walk(child.removeprefix("IPY_MODEL_"))

    walk(model_id)
    return images


def _pixels(png: bytes) -> np.ndarray:
    from matplotlib.image import imread

    arr = imread(io.BytesIO(png), format="png")
    return arr[..., :3] if arr.ndim == 3 else arr


def same_picture(a: bytes, b: bytes, tol: float = 0.01) -> bool:
    """Whether two PNGs show the same picture: equal size and mean absolute difference of the
    pixels (0..1) at most ``tol``."""
    pa, pb = _pixels(a), _pixels(b)
    return pa.shape == pb.shape and float(np.abs(pa - pb).mean()) <= tol
