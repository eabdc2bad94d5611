"""lecturekit.viz.diagram: boxes, arrows and grids as SVG with alt text; and every lecture diagram
(lecturekit.viz.diagrams) draws valid SVG, inside its canvas, with words for a screen reader."""

import re
import xml.etree.ElementTree as ET

import pytest

from lecturekit.viz.diagram import Diagram
from lecturekit.viz.diagrams import diagrams

SVG = "{http://www.w3.org/2000/svg}"


def _small() -> Diagram:
    d = Diagram(300, 120, alt="A query box points at a key box and an output box.")
    d.box("q", 50, 60, "query", kind="input")
    d.box("k", 150, 60, "key", kind="weight")
    d.box("o", 250, 60, "out", kind="output")
    d.arrow("q", "k", label="score")
    d.arrow("k", "o")
    d.grid("g", 10, 90, [[0, 0.5, 1]], text=[["0", ".5", "1"]])
    return d


def test_svg_is_valid_xml_with_alt_text_title_and_both_themes():
    d = _small()
    for theme in ("light", "dark", "auto"):
        root = ET.fromstring(d.svg(theme))
        assert root.get("role") == "img" and root.get("aria-label") == d.alt
        assert root.find(f"{SVG}title").text == d.alt
    assert "prefers-color-scheme:dark" in d.svg("auto")
    assert "prefers-color-scheme" not in d.svg("light")
    assert d.svg("light") != d.svg("dark")
    assert d.svg() == _small().svg()  # deterministic: nbval compares it


def test_notebook_output_carries_svg_alt_metadata_and_plain_text():
    data, meta = _small()._repr_mimebundle_()
    assert data["image/svg+xml"].startswith("<svg")
    assert data["text/plain"] == "Diagram: A query box points at a key box and an output box."
    assert meta == {"image/svg+xml": {"alt": _small().alt}}


def test_arrow_is_clipped_at_the_box_edges():
    d = Diagram(300, 120, alt="Two boxes joined by one arrow.")
    d.box("a", 50, 60, "a", w=40, h=20)
    d.box("b", 250, 60, "b", w=40, h=20)
    d.arrow("a", "b")
    line = re.search(r'<line class="lk-arrow" x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"', d.svg())
    assert (float(line.group(1)), float(line.group(2))) == (73.0, 227.0)  # edges +- 3 px


@pytest.mark.parametrize("call, message", [
    (lambda: Diagram(300, 100, alt="x"), "alt="),
    (lambda: Diagram(10, 100, alt="a picture of two boxes"), "width=10"),
    (lambda: _small().box("q", 1, 1, "again"), "name='q' is already"),
    (lambda: _small().box("z", 1, 1, "z", kind="inptu"), "did you mean 'input'"),
    (lambda: _small().arrow("q", "kk"), "dst='kk' is not a box"),
    (lambda: _small().arrow("q", (1, 2, 3)), "want a box name or an (x, y) point"),
    (lambda: _small().grid("h", 0, 0, [[0, 2]]), "shades in 0..1, got 2"),
    (lambda: _small().grid("h", 0, 0, [[0, 1], [1]]), "rectangular"),
    (lambda: _small().svg("blue"), "theme='blue'"),
    (lambda: _small().text(0, 0, "t", anchor="left"), "anchor='left'"),
])  # fmt: skip
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_save_writes_an_svg_file_and_refuses_other_names(tmp_path):
    path = _small().save(tmp_path / "d.svg", theme="dark")
    assert ET.parse(path).getroot().tag == f"{SVG}svg"
    with pytest.raises(ValueError, match=r"ending in \.svg"):
        _small().save(tmp_path / "d.png")


def _extent(d: Diagram) -> list[tuple[str, float, float, float, float]]:
    return [
        (name, b.x - b.w / 2, b.y - b.h / 2, b.x + b.w / 2, b.y + b.h / 2)
        for name, b in d._boxes.items()
    ]


@pytest.mark.parametrize("name", sorted(diagrams()))
def test_every_lecture_diagram_draws_inside_its_canvas_with_alt_text(name):
    d = diagrams()[name]()
    assert isinstance(d, Diagram)
    assert len(d.alt.split()) >= 12, "the alt text should say what the picture shows"
    ET.fromstring(d.svg("light"))
    ET.fromstring(d.svg("dark"))
    outside = [e for e in _extent(d) if e[1] < 0 or e[2] < 0 or e[3] > d.width or e[4] > d.height]
    assert not outside, f"boxes outside the {d.width} x {d.height} canvas: {outside}"


def test_the_lectures_have_diagrams():
    lectures = {name.split(".")[0] for name in diagrams()}
    assert len(lectures) >= 1
