"""lecturekit_publish.figures: every slide figure builds, deterministically; the command line."""

import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lecturekit.viz.text_cache import TextCachingCanvas
from lecturekit_publish import figures
from lecturekit_publish.figures.cli import main

ROOT = Path(__file__).resolve().parents[2]


NAMES = figures.names()


def test_every_lecture_has_figures_and_descriptions():
    lectures = {p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")}
    assert lectures <= {figures.spec(n).lecture for n in NAMES}
    for name in NAMES:
        s = figures.spec(name)
        assert re.fullmatch(r"[a-z0-9_]+", name) and s.description and "\n" not in s.description


@pytest.fixture(scope="module")
def light_build(tmp_path_factory):
    """Every figure built once in the light theme, in this process, and written in every format,
    by the command line (``--jobs 1``): the first of the two builds compared below, and what each
    built figure was (its type, face colour and number of axes), read as it was built."""
    out, seen, real = tmp_path_factory.mktemp("figures-a"), {}, figures.build

    def build(name, theme):
        fig = real(name, theme)
        seen[name] = (type(fig), fig.get_facecolor(), len(fig.axes))
        return fig

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(figures, "build", build)
        assert main(["build", "--out", str(out), "--format", "png,svg,pdf", "--dpi", "40",
                     "--jobs", "1"]) == 0  # fmt: skip
    return out, seen


def _pixels(fig: Figure, canvas_class) -> np.ndarray:
    canvas = canvas_class(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def _settled(fig: Figure) -> Figure:
    """At 40 dpi, drawn once and its layout kept (a constrained layout moves the panels a
    little at every draw: two draws of such a Figure differ anyway)."""
    fig.dpi = 40
    _pixels(fig, FigureCanvasAgg)
    fig.set_layout_engine("none")
    return fig


@pytest.mark.parametrize("name", NAMES)
def test_figure_builds_in_both_themes(name, light_build):
    kind, light_face, light_axes = light_build[1][name]
    dark = figures.build(name, "dark")
    assert issubclass(kind, Figure) and light_axes
    assert isinstance(dark, Figure) and dark.axes
    assert light_face != dark.get_facecolor()  # the theme really applies
    # the widgets' text cache (lecturekit.viz.text_cache) draws every figure's pixels as Agg does
    _settled(dark)
    assert (_pixels(dark, TextCachingCanvas) == _pixels(dark, FigureCanvasAgg)).all()


def test_two_builds_are_byte_identical_in_every_format(light_build, tmp_path, capsys):
    # the light build above (one process), and one two figures at a time (as `make figures`
    # on 2 cores)
    a, b = light_build[0], tmp_path / "b"
    capsys.readouterr()
    assert main(["build", "--out", str(b), "--format", "png,svg,pdf", "--dpi", "40",
                 "--jobs", "2"]) == 0  # fmt: skip
    files = sorted(p.name for p in a.iterdir())
    assert len(files) == 3 * len(NAMES)
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    svg = (a / f"{NAMES[0]}.svg").read_text()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg
    assert b"CreationDate" not in (a / f"{NAMES[0]}.pdf").read_bytes()
    assert f"wrote {3 * len(NAMES)} files" in capsys.readouterr().out


def test_list_names_every_figure(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in NAMES:
        assert name in out
    assert main(["list", "--lecture", "05"]) == 0
    assert "positional_encoding_heatmap" in capsys.readouterr().out


def test_build_takes_a_lectures_figures(tmp_path, monkeypatch, capsys):
    built = []
    monkeypatch.setattr(figures, "build", lambda name, theme: built.append(name) or Figure())
    monkeypatch.setattr(figures, "save", lambda fig, path, fmt, dpi: path.write_text(fmt))
    args = ["build", "causal_mask", "--lecture", "05", "--lecture", "06", "--out", str(tmp_path),
            "--jobs", "1"]  # in this process, where build and save are replaced  # fmt: skip
    assert main(args) == 0
    assert built == ["causal_mask", *figures.names("05"), "decoder_masks"]  # each once, in order
    assert sorted(p.stem for p in tmp_path.iterdir()) == sorted(built)


def test_unknown_name_lists_close_matches_and_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "positional_heatmap", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown figure 'positional_heatmap'" in err
    assert "positional_encoding_heatmap" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="did you mean"):
        figures.spec("causal_masks")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["build", "--format", "gif"], "--format 'gif': choose from png,svg,pdf"),
        (["build", "--dpi", "5"], "--dpi 5 is outside 10..1200"),
        (["build", "--jobs", "0"], "--jobs 0 is outside 1..64"),
        (["build", "--jobs", "two"], "--jobs: invalid int value: 'two'"),
        (["build", "--theme", "blue"], "invalid choice: 'blue'"),
        (["list", "--lecture", "99"], "--lecture '99': no figures for that lecture"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unwritable_output_directory_is_a_message(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(SystemExit) as exit_info:
        main(["build", NAMES[0], "--out", str(blocker / "sub")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "error: --out=" in err and "cannot be written to" in err and "Traceback" not in err


def test_instructors_gallery_has_a_thumbnail_of_every_figure():
    gallery = (ROOT / "docs" / "instructors.md").read_text()
    for name in NAMES:
        assert (ROOT / "docs" / "figures" / f"{name}.png").exists(), name
        assert f"](figures/{name}.png)" in gallery, name
