"""Diagrams of boxes and arrows, drawn in code as small SVG pictures with alt text, in a light, a
dark or an automatic theme: the picture of a mechanism a lecture shows before its formula.

Public API::

    d = Diagram(width, height, alt="what the picture shows, in words")   # pixels
    d.box(name, x, y, text, kind="op", w=None, h=34)   # a labelled box centred at (x, y)
    d.arrow(src, dst, label=None, dashed=False)        # box name or (x, y) -> box name or (x, y)
    d.text(x, y, text, size=13, anchor="middle", kind=None, italic=False)
    d.grid(name, x, y, values, cell=22, labels=None, row_labels=None, col_labels=None,
           text=None, kind="input")                    # a matrix of shaded cells (0..1)
    d.group(x, y, w, h, label, kind="note")            # a dashed frame around several boxes
    d.svg(theme="auto") -> str                         # "light", "dark" or "auto" (follows the
                                                       # reader's colour scheme)
    d.save(path, theme="auto")                         # an .svg file (the site and the slides)
    KINDS                                              # the box kinds and their colours

In a notebook a ``Diagram`` shows itself (``image/svg+xml``, with ``{"alt": ...}`` in the output's
metadata as ``describe_figures`` does for figures) and its text form is its alt text, so a screen
reader, the website and nbval all see the same words. Colours are Okabe-Ito's (colour-blind
safe), each box kind also differs by its outline, and the text is the reader's to read: nothing
is conveyed by colour alone. The lectures' own diagrams are in ``lecturekit.viz.diagrams``.

Lecture-independent (every lecture's first picture).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lecturekit.utils.checks import did_you_mean

__all__ = ["Diagram", "KINDS", "THEMES"]

# kind -> (colour, outline dash): inputs and data blue, learned weights orange, operations grey,
# outputs green, the thing to look at vermillion, plain boxes no fill.
KINDS = {
    "input": ("#0072B2", None),
    "weight": ("#E69F00", "5 3"),
    "op": ("#7f7f7f", None),
    "output": ("#009E73", None),
    "accent": ("#D55E00", None),
    "mask": ("#CC79A7", "2 2"),
    "plain": (None, None),
    "note": ("#7f7f7f", "4 3"),
}
THEMES = {
    "light": {"bg": "#ffffff", "fg": "#1a1a1a", "muted": "#595959", "mix": 0.82},
    "dark": {"bg": "#1e1e1e", "fg": "#e6e6e6", "muted": "#a6a6a6", "mix": 0.62},
}
_CHAR_W = 0.6  # average glyph width / font size of a sans-serif font: box widths from text


def _mix(colour: str, background: str, t: float) -> str:
    """``colour`` moved a fraction ``t`` of the way to ``background`` (both ``#rrggbb``)."""
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


@dataclass
class _Box:
    x: float
    y: float
    w: float
    h: float


@dataclass
class Diagram:
    """A picture of boxes, arrows, labels and shaded grids, ``width`` x ``height`` pixels.

    Args:
        width: drawing width in pixels (the SVG scales down to the page, never up).
        height: drawing height in pixels.
        alt: what the picture shows, in words (a screen reader's and the website's text).
        title: an optional caption drawn at the top.

    Lecture-independent.
    """

    width: int
    height: int
    alt: str
    title: str | None = None
    _items: list[tuple] = field(default_factory=list, repr=False)
    _boxes: dict[str, _Box] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 40 <= v <= 4000:
                raise ValueError(f"{name}={v!r}: want a whole number of pixels in 40..4000")
        if not isinstance(self.alt, str) or len(self.alt.split()) < 4:
            raise ValueError(
                f"alt={self.alt!r}: want a sentence saying what the picture shows "
                "(at least four words)"
            )

    # -- drawing -----------------------------------------------------------------------------
    def _kind(self, kind: str | None) -> str | None:
        if kind is not None and kind not in KINDS:
            raise ValueError(
                f"kind={kind!r} is not a box kind{did_you_mean(str(kind), KINDS)}; "
                f"want one of {sorted(KINDS)}"
            )
        return kind

    def _place(self, name: str, box: _Box) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name={name!r}: want a non-empty string naming the box")
        if name in self._boxes:
            raise ValueError(f"name={name!r} is already a box of this diagram")
        self._boxes[name] = box

    def box(
        self,
        name: str,
        x: float,
        y: float,
        text: str,
        kind: str = "op",
        w: float | None = None,
        h: float = 34,
        size: float = 13,
    ) -> str:
        """A rounded box centred at (x, y) holding ``text`` (lines split at ``\\n``); its width
        fits the text unless ``w`` is given. Returns ``name`` (for arrows)."""
        self._kind(kind)
        lines = str(text).split("\n")
        if w is None:
            w = max(len(line) for line in lines) * size * _CHAR_W + 18
        h = max(h, len(lines) * size * 1.25 + 10)
        self._place(name, _Box(x, y, w, h))
        self._items.append(("box", x, y, w, h, lines, kind, size))
        return name

    def grid(
        self,
        name: str,
        x: float,
        y: float,
        values: Sequence[Sequence[float]],
        cell: float = 22,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        text: Sequence[Sequence[str]] | None = None,
        kind: str = "input",
    ) -> str:
        """A matrix of cells, top-left corner at (x, y), each shaded by its value in 0..1 (0 =
        empty, 1 = full colour), with optional row and column labels and text in the cells."""
        self._kind(kind)
        rows = [list(map(float, r)) for r in values]
        if not rows or any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
            raise ValueError("values: want a non-empty rectangular list of rows of numbers")
        bad = [v for r in rows for v in r if not 0 <= v <= 1]
        if bad:
            raise ValueError(f"values: want shades in 0..1, got {bad[0]}")
        n, m = len(rows), len(rows[0])
        for label, want, got in (("row_labels", n, row_labels), ("col_labels", m, col_labels)):
            if got is not None and len(got) != want:
                raise ValueError(f"{label}: want {want} labels, got {len(got)}")
        if text is not None and (len(text) != n or any(len(r) != m for r in text)):
            raise ValueError(f"text: want {n} rows of {m} strings, like values")
        self._place(name, _Box(x + m * cell / 2, y + n * cell / 2, m * cell, n * cell))
        self._items.append(("grid", x, y, rows, cell, row_labels, col_labels, text, kind))
        return name

    def arrow(
        self,
        src: str | tuple[float, float],
        dst: str | tuple[float, float],
        label: str | None = None,
        dashed: bool = False,
    ) -> None:
        """An arrow from ``src`` to ``dst`` (box names or points), clipped at the boxes' edges,
        with an optional label beside its middle."""
        self._items.append(("arrow", self._end(src, "src"), self._end(dst, "dst"), label, dashed))

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 13,
        anchor: str = "middle",
        kind: str | None = None,
        italic: bool = False,
    ) -> None:
        """A label at (x, y); ``anchor`` is "start", "middle" or "end"; a ``kind`` colours it."""
        if anchor not in ("start", "middle", "end"):
            raise ValueError(f"anchor={anchor!r}: want 'start', 'middle' or 'end'")
        self._items.append(("text", x, y, str(text), size, anchor, self._kind(kind), italic))

    def group(
        self, x: float, y: float, w: float, h: float, label: str = "", kind: str = "note"
    ) -> None:
        """A dashed rounded frame (x, y top-left) around several boxes, its label at top-left."""
        self._items.append(("group", x, y, w, h, str(label), self._kind(kind)))

    def _end(self, end: str | tuple[float, float], what: str) -> str | tuple[float, float]:
        if isinstance(end, str):
            if end not in self._boxes:
                raise ValueError(
                    f"{what}={end!r} is not a box of this diagram{did_you_mean(end, self._boxes)}"
                )
            return end
        if (
            isinstance(end, tuple)
            and len(end) == 2
            and all(isinstance(v, (int, float)) for v in end)
        ):
            return end
        raise ValueError(f"{what}={end!r}: want a box name or an (x, y) point")

    # -- rendering ---------------------------------------------------------------------------
    def _point(self, end, toward) -> tuple[float, float]:
        """The end point: a point as given, or where the line to ``toward`` leaves the box."""
        if not isinstance(end, str):
            return end
        b = self._boxes[end]
        tx, ty = (
            toward
            if not isinstance(toward, str)
            else (self._boxes[toward].x, self._boxes[toward].y)
        )
        dx, dy = tx - b.x, ty - b.y
        if dx == 0 and dy == 0:
            return b.x, b.y
        sx = (b.w / 2 + 3) / abs(dx) if dx else float("inf")
        sy = (b.h / 2 + 3) / abs(dy) if dy else float("inf")
        s = min(sx, sy)
        return b.x + dx * s, b.y + dy * s

    def _body(self, th: str) -> list[str]:
        out = []
        for item in self._items:
            kind = item[0]
            if kind == "group":
                _, x, y, w, h, label, k = item
                out.append(
                    f'<rect class="lk-group lk-{k}" x="{_num(x)}" y="{_num(y)}" '
                    f'width="{_num(w)}" height="{_num(h)}" rx="8"/>'
                )
                if label:
                    out.append(
                        f'<text class="lk-muted" x="{_num(x + 8)}" y="{_num(y + 15)}" '
                        f'font-size="12" text-anchor="start">{html.escape(label)}</text>'
                    )
            elif kind == "box":
                _, x, y, w, h, lines, k, size = item
                out.append(
                    f'<rect class="lk-box lk-{k}" x="{_num(x - w / 2)}" '
                    f'y="{_num(y - h / 2)}" width="{_num(w)}" height="{_num(h)}" rx="6"/>'
                )
                top = y - (len(lines) - 1) * size * 1.25 / 2 + size * 0.35
                for i, line in enumerate(lines):
                    out.append(
                        f'<text x="{_num(x)}" y="{_num(top + i * size * 1.25)}" '
                        f'font-size="{_num(size)}">{html.escape(line)}</text>'
                    )
            elif kind == "grid":
                _, x, y, rows, cell, rl, cl, txt, k = item
                for i, row in enumerate(rows):
                    for j, v in enumerate(row):
                        shade = _num(0.08 + 0.92 * v)
                        out.append(
                            f'<rect class="lk-cell lk-{k}" x="{_num(x + j * cell)}" '
                            f'y="{_num(y + i * cell)}" width="{_num(cell)}" '
                            f'height="{_num(cell)}" fill-opacity="{shade}"/>'
                        )
                        if txt is not None and txt[i][j]:
                            cls = ' class="lk-ink"' if v > 0.6 else ""
                            out.append(
                                f'<text{cls} x="{_num(x + (j + 0.5) * cell)}" '
                                f'y="{_num(y + (i + 0.5) * cell + 4)}" font-size="11">'
                                f"{html.escape(txt[i][j])}</text>"
                            )
                for i, lab in enumerate(rl or []):
                    out.append(
                        f'<text x="{_num(x - 5)}" y="{_num(y + (i + 0.5) * cell + 4)}" '
                        f'font-size="12" text-anchor="end">{html.escape(lab)}</text>'
                    )
                for j, lab in enumerate(cl or []):
                    out.append(
                        f'<text x="{_num(x + (j + 0.5) * cell)}" y="{_num(y - 6)}" '
                        f'font-size="12">{html.escape(lab)}</text>'
                    )
            elif kind == "arrow":
                _, src, dst, label, dashed = item
                x0, y0 = self._point(src, dst)
                x1, y1 = self._point(dst, src)
                dash = ' stroke-dasharray="5 4"' if dashed else ""
                out.append(
                    f'<line class="lk-arrow" x1="{_num(x0)}" y1="{_num(y0)}" '
                    f'x2="{_num(x1)}" y2="{_num(y1)}"{dash} marker-end="url(#lk-head)"/>'
                )
                if label:
                    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
                    side = "start" if abs(x1 - x0) < abs(y1 - y0) else "middle"
                    tx, ty = (mx + 6, my + 4) if side == "start" else (mx, my - 6)
                    out.append(
                        f'<text class="lk-muted" x="{_num(tx)}" y="{_num(ty)}" '
                        f'font-size="12" text-anchor="{side}">{html.escape(label)}</text>'
                    )
            elif kind == "text":
                _, x, y, t, size, anchor, k, italic = item
                cls = f' class="lk-t-{k}"' if k else ""
                style = ' font-style="italic"' if italic else ""
                out.append(
                    f'<text{cls} x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" '
                    f'text-anchor="{anchor}"{style}>{html.escape(t)}</text>'
                )
        return out

    @staticmethod
    def _css(th: dict) -> str:
        rules = [
            f".lk-bg{{fill:{th['bg']}}}",
            f"text{{fill:{th['fg']}}}",
            f".lk-muted{{fill:{th['muted']}}}",
            f".lk-arrow{{stroke:{th['fg']}}}",
            f"#lk-head path{{fill:{th['fg']}}}",
            f".lk-ink{{fill:{th['bg']}}}",
        ]
        for k, (colour, dash) in KINDS.items():
            if colour is None:
                rules.append(f".lk-box.lk-{k}{{fill:none;stroke:{th['fg']}}}")
                continue
            fill = _mix(colour, th["bg"], th["mix"]) if k != "note" else "none"
            d = f";stroke-dasharray:{dash}" if dash else ""
            rules.append(f".lk-box.lk-{k}{{fill:{fill};stroke:{colour}{d}}}")
            rules.append(f".lk-cell.lk-{k}{{fill:{colour};stroke:{th['muted']}}}")
            rules.append(f".lk-group.lk-{k}{{fill:none;stroke:{colour};stroke-dasharray:6 4}}")
            rules.append(f".lk-t-{k}{{fill:{colour}}}")
        return "".join(rules)

    def svg(self, theme: str = "auto") -> str:
        """The picture as an SVG document: ``"light"``, ``"dark"``, or ``"auto"`` (light unless
        the reader's browser prefers dark)."""
        if theme not in ("light", "dark", "auto"):
            raise ValueError(
                f"theme={theme!r}: want 'light', 'dark' or 'auto'"
                f"{did_you_mean(str(theme), ('light', 'dark', 'auto'))}"
            )
        base = THEMES["dark" if theme == "dark" else "light"]
        css = self._css(base)
        if theme == "auto":
            css += "@media (prefers-color-scheme:dark){" + self._css(THEMES["dark"]) + "}"
        top = 0
        head = []
        if self.title:
            top = 26
            head.append(
                f'<text x="{_num(self.width / 2)}" y="18" font-size="14" '
                f'font-weight="bold">{html.escape(self.title)}</text>'
            )
        h = self.height + top
        alt = html.escape(self.alt, quote=True)
        return "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {h}" '
                f'width="{self.width}" height="{h}" role="img" aria-label="{alt}" '
                f'style="max-width:100%;height:auto" font-family="DejaVu Sans, Helvetica, Arial, '
                f'sans-serif" text-anchor="middle">',
                f"<title>{html.escape(self.alt)}</title>",
                f"<style>{css}.lk-box,.lk-group,.lk-arrow{{stroke-width:1.6}}"
                f".lk-cell{{stroke-width:.6}}</style>",
                '<defs><marker id="lk-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse">'
                '<path d="M0,0 L10,5 L0,10 z"/></marker></defs>',
                f'<rect class="lk-bg" x="0" y="0" width="{self.width}" height="{h}" rx="8"/>',
                *head,
                f'<g transform="translate(0,{top})">',
                *self._body(theme),
                "</g>",
                "</svg>",
            ]
        )

    def save(self, path: str | Path, theme: str = "auto") -> Path:
        """Write the SVG to ``path`` (its folder must exist) and return the path."""
        path = Path(path)
        if path.suffix != ".svg":
            raise ValueError(f"path={str(path)!r}: want a file name ending in .svg")
        if not path.parent.is_dir():
            raise ValueError(f"path={str(path)!r}: the folder {str(path.parent)!r} does not exist")
        path.write_text(self.svg(theme) + "\n")
        return path

    # -- Jupyter -----------------------------------------------------------------------------
    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {"image/svg+xml": self.svg("auto"), "text/plain": f"Diagram: {self.alt}"}
        return data, {"image/svg+xml": {"alt": self.alt}}

    def __repr__(self) -> str:
        return f"Diagram: {self.alt}"
