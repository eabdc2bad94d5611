"""The website's parts without a browser: frames of a small widget, a player's HTML, a notebook
prepared for reading, the vendored scripts' paths (the browser test, tests/test_site.py, builds
and reads the whole site)."""

import base64
import hashlib
import json
import re

import ipywidgets as w
import pytest
from matplotlib.figure import Figure

from lecturekit.viz.style import theme
from lecturekit.viz.widgets import figure_widget, render_png
from lecturekit_publish import vendor
from lecturekit_publish.frames import derive_grid, render_frames
from lecturekit_publish.notebook import WIDGET_VIEW, same_picture, stored_images
from lecturekit_publish.site import player_html, prepare_notebook


def _render(n, on, word):
    fig = Figure(figsize=(1.5, 1.5))
    ax = fig.add_subplot()
    ax.bar(range(n), range(n))
    ax.set_title(f"{n} {on} {word}")
    return fig


def _widget():
    return figure_widget(_render, {
        "n": w.IntSlider(value=2, min=1, max=30, description="bars"),
        "on": w.Checkbox(value=False, description="on"),
        "word": w.Text(value="hi", description="word"),
    }, dpi=30)  # fmt: skip


def test_derived_grid_spreads_sliders_keeps_the_start_and_the_text():
    widget = _widget()
    from lecturekit.viz.widgets import widget_controls

    grid = derive_grid(widget_controls(widget))
    assert len(grid["n"]) == 13 and grid["n"][0] == 1 and grid["n"][-1] == 30 and 2 in grid["n"]
    assert grid["on"] == [False, True]
    assert grid["word"] == ["hi"]
    assert derive_grid(widget_controls(widget), {"n": [5, 9]})["n"] == [2, 5, 9]


def test_frames_are_the_widget_drawn_at_each_setting_and_it_is_left_as_it_was():
    widget = _widget()
    static = render_frames(widget, {"n": [2, 3], "word": ["hi", "yo"]})
    assert [c.name for c in static.controls] == ["n", "on", "word"]
    assert [c.kind for c in static.controls] == ["slider", "checkbox", "choice"]
    assert static.controls[1].labels == ("off", "on")
    assert static.outputs == ["image"] and len(static.frames) == 8
    for (i, j, k), (image,) in static.frames.items():
        values = (static.controls[0].values[i], static.controls[1].values[j],
                  static.controls[2].values[k])  # fmt: skip
        with theme("light"):  # as figure_widget draws
            assert image.png == render_png(_render(*values), 30)
        assert image.alt.startswith(f"Plot: '{values[0]} {values[1]} {values[2]}'")
    assert [c.value for c in widget.children[0].children] == [2, False, "hi"]


def test_a_control_another_one_limits_is_refused_by_name():
    a = w.IntSlider(value=1, min=0, max=5)
    b = w.IntSlider(value=1, min=0, max=5)
    a.observe(lambda ch: setattr(b, "max", ch["new"]), names="value")
    widget = figure_widget(lambda a, b: _render(a + b, False, ""), {"a": a, "b": b}, dpi=20)
    with pytest.raises(ValueError, match="control 'b' shows 2 after being set to 4"):
        render_frames(widget, {"a": [1, 2], "b": [1, 4]})


def _png(title):
    return render_png(_render(2, True, title), 20)


def test_player_html_shows_the_first_frame_and_holds_every_frame(tmp_path):
    static = render_frames(_widget(), {"n": [2, 3]})
    page = player_html("demo", static, "_static/lk-frames/", tmp_path)
    blob = re.search(r'<script type="application/json" class="lk-data">(.*?)</script>', page).group(
        1
    )
    data = json.loads(blob.replace("<\\/", "</"))
    assert data["name"] == "demo" and len(data["frames"]) == len(static.frames)
    first = data["frames"]["0-0-0"][0]
    assert f'<img class="lk-frame" src="{first["src"]}"' in page
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == len({f[0]["src"] for f in data["frames"].values()}) == 4
    assert all(re.fullmatch(r"[0-9a-f]{20}\.png", f) for f in files)


def test_prepare_notebook_makes_a_notebook_for_reading(tmp_path):
    png = _png("x")
    b64 = base64.b64encode(png).decode()
    nb = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}}},
          "cells": [
        {"cell_type": "markdown", "source": ["# Lecture 99 · Test\n"], "metadata": {}},
        {"cell_type": "code", "source": "import sys", "metadata": {"tags": ["setup"]},
         "outputs": []},
        {"cell_type": "code", "source": "# NBVAL_IGNORE_OUTPUT\nshow()", "metadata": {},
         "outputs": [
             {"output_type": "display_data", "data": {"image/png": b64, "text/plain": "<F>"},
              "metadata": {"image/png": {"alt": "Plot: 'x'."}}},
             {"output_type": "display_data", "data": {"image/png": b64}, "metadata": {}},
             {"output_type": "execute_result", "data": {
                 WIDGET_VIEW: {"model_id": "abc"}, "text/plain": "VBox()"}, "metadata": {}},
             {"output_type": "display_data", "data": {"text/html": "<script src='https://"
              "cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js'></script>"},
              "metadata": {}},
         ]},
    ]}  # fmt: skip
    out = prepare_notebook(nb, {0: "<div>PLAYER</div>"}, tmp_path)
    assert "widgets" not in out["metadata"] and "widgets" in nb["metadata"]  # a copy
    assert "remove-cell" in out["cells"][1]["metadata"]["tags"]
    cell = out["cells"][2]
    assert cell["source"] == "show()"
    img, fallback, player, bertviz = (o["data"] for o in cell["outputs"])
    name = f"{hashlib.sha256(png).hexdigest()[:20]}.png"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    want = (f'<img class="lk-figure" src="_static/lk-images/{name}" alt="Plot: &#x27;x&#x27;." '
            f'width="{width}" height="{height}">')  # fmt: skip
    assert img == {"text/html": want}
    assert 'alt="Figure in the section &#x27;Lecture 99 · Test&#x27;"' in fallback["text/html"]
    assert player == {"text/html": "<div>PLAYER</div>"}
    assert (
        bertviz["text/html"] == "<script src='_static/vendor/requirejs-2.3.6/require.js'></script>"
    )
    assert (tmp_path / "lk-images" / name).read_bytes() == png


def test_a_widget_without_a_rebuild_shows_its_stored_picture(tmp_path):
    png = _png("stored")
    state = {
        "box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_img"]}},
        "img": {
            "model_name": "ImageModel",
            "state": {},
            "buffers": [{"path": ["value"], "data": base64.b64encode(png).decode()}],
        },
    }
    nb = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}},
          "cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [
              {"output_type": "execute_result", "data": {WIDGET_VIEW: {"model_id": "box"}},
               "metadata": {}}]}]}  # fmt: skip
    assert stored_images(nb, "box") == [png]
    out = prepare_notebook(nb, {}, tmp_path)
    html = out["cells"][0]["outputs"][0]["data"]["text/html"]
    assert 'class="lk-player lk-still"' in html and "run the notebook" in html


def test_same_picture_tells_pictures_apart():
    a, b = _png("a"), _png("b")
    assert same_picture(a, a) and not same_picture(a, render_png(_render(9, True, "a"), 20))
    assert same_picture(a, b, tol=0.05) and not same_picture(a, render_png(Figure((3, 1)), 20))


def test_vendor_paths_match_the_packages_and_install_refuses_an_empty_cache(tmp_path):
    for local in vendor.CDN.values():
        name, inner = local.removeprefix("_static/vendor/").split("/", 1)
        files = vendor.PACKAGES[name].files
        assert any((inner + ".js" if not inner.endswith(".js") else inner) == f for f in files)
    assert vendor.MATHJAX.removeprefix("vendor/mathjax-3.2.2/") in vendor.PACKAGES[
        "mathjax-3.2.2"].files  # fmt: skip
    assert vendor.missing(tmp_path) == list(vendor.PACKAGES)
    with pytest.raises(RuntimeError, match=r"python -m lecturekit_publish vendor"):
        vendor.install(tmp_path, tmp_path / "static")


def test_a_diagram_becomes_an_svg_file_with_its_alt_text(tmp_path):
    from lecturekit.viz.diagram import Diagram

    d = Diagram(200, 80, alt="One box named query and nothing else.")
    d.box("q", 100, 40, "query", kind="input")
    data, meta = d._repr_mimebundle_()
    nb = {"metadata": {}, "cells": [
        {"cell_type": "markdown", "source": ["## 1. Section\n"], "metadata": {}},
        {"cell_type": "code", "source": "query_diagram()", "metadata": {}, "outputs": [
            {"output_type": "execute_result", "data": data, "metadata": meta},
            {"output_type": "display_data", "data": {"image/svg+xml": data["image/svg+xml"]},
             "metadata": {}}]},
    ]}  # fmt: skip
    shown, fallback = (o["data"]["text/html"] for o in prepare_notebook(nb, {}, tmp_path)
                       ["cells"][1]["outputs"])  # fmt: skip
    name = re.search(r'src="_static/lk-images/([0-9a-f]{16}\.svg)"', shown)[1]
    assert 'alt="One box named query and nothing else."' in shown
    assert 'width="200" height="80"' in shown and "<style>" not in shown  # CSS stays in the file
    assert 'alt="Diagram in the section &#x27;1. Section&#x27;"' in fallback
    assert (tmp_path / "lk-images" / name).read_text() == data["image/svg+xml"]


def test_the_preview_server_is_quiet_when_a_page_closes_mid_file(tmp_path, capfd):
    """A browser context closed while a file is being sent (the site test closes pages once
    read) is no error of the site: the server prints no traceback for it."""
    import socket
    import struct
    import time

    from lecturekit_publish.browser import serve

    (tmp_path / "big.bin").write_bytes(b"x" * 20_000_000)
    with serve(tmp_path) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
                assert s.recv(64).startswith(b"HTTP/1.0 200")
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        time.sleep(0.5)  # the handler threads meet the reset
    assert "Traceback" not in capfd.readouterr().err
