"""Lecture 09's picture: the Vision Transformer, from an 8 x 8 digit cut into 16 patches to the
digit scores read off the [CLS] token.

Public API::

    vit_diagram() -> Diagram   # patches, shared linear map, [CLS] + positions, encoder, head

Lecture 09.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["vit_diagram"]

# ink of a handwritten 0 on the 4 x 4 grid of 2 x 2 patches (0 = blank, 1 = full)
_ZERO = [[0.1, 0.7, 0.8, 0.2], [0.6, 0.2, 0.1, 0.8], [0.7, 0.1, 0.2, 0.7], [0.2, 0.8, 0.7, 0.1]]


def vit_diagram() -> Diagram:
    """An 8 x 8 digit cut into a 4 x 4 grid of 2 x 2 patches; each patch flattened to 4 values
    and embedded by one shared linear map E; a learned [CLS] token in front and a learned
    position embedding added to every token; the encoder over the 17 tokens; the head on
    [CLS].

    Lecture 09.
    """
    d = Diagram(
        860,
        430,
        alt=(
            "The Vision Transformer: an 8 by 8 digit is cut into a 4 by 4 grid of 16 patches of "
            "2 by 2 pixels; each patch is flattened to 4 numbers and mapped to a D-dimensional "
            "token by one shared linear map E; a learned CLS token is put in front and a learned "
            "position embedding is added to each of the 17 tokens; a Transformer encoder mixes "
            "them with self-attention, and a linear head reads the CLS token's final state to "
            "score the 10 digits."
        ),
    )
    cells = [[str(4 * i + j + 1) for j in range(4)] for i in range(4)]
    d.grid("digit", 40, 40, _ZERO, cell=32, text=cells, kind="input")
    d.text(104, 190, "8 × 8 digit: 16 patches", 12)
    d.text(104, 206, "of 2 × 2 pixels", 12)
    d.box("flat", 320, 104, "flatten each patch\n16 vectors of 4 values", kind="input")
    d.box("E", 570, 104, "one shared linear map E\n16 tokens of D values", kind="weight")
    d.arrow("digit", "flat")
    d.arrow("flat", "E")
    xs = [250, 360, 460, 560, 660, 770]
    labels = ["[CLS]", "patch 1", "patch 2", "patch 3", "…", "patch 16"]
    for k, (x, lab) in enumerate(zip(xs, labels, strict=True)):
        kind = "accent" if k == 0 else "input"
        pos = 16 if k == 5 else k
        text = f"{lab}\n+ pos {pos}" if lab != "…" else "…"
        d.box(f"t{k}", x, 250, text, kind=kind, w=86 if lab != "…" else 40)
    d.arrow("E", (565, 228), label="[CLS] put in front")
    d.text(90, 244, "+ position", 12, kind="weight")
    d.text(90, 260, "embeddings", 12, kind="weight")
    d.box(
        "enc",
        510,
        330,
        "Transformer encoder: L layers of self-attention over all 17 tokens",
        kind="op",
        w=600,
    )
    for k in range(6):
        d.arrow(f"t{k}", (xs[k], 313))
    d.box("head", 250, 400, "head on [CLS]\n→ 10 digit scores", kind="output")
    d.arrow((250, 347), "head", label="[CLS]'s last state")
    return d
