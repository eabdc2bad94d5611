"""lecturekit.viz.trees: the beam-search tree, its figure and widget."""

import itertools

import matplotlib
import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from search_table import BOS, EOS, VOCAB, table_step

from lecturekit.decoding import beam_search
from lecturekit.viz.style import theme
from lecturekit.viz.trees import beam_tree_figure, beam_widget, beam_widget_grid, plot_beam_tree

BLUE, SKY, BEST = "#0072b2", "#56b4e9", "#d55e00"


@pytest.fixture
def tree():
    _, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=10, trace=True)
    return tree


def test_one_token_and_one_blue_score_per_node(tree):
    _, ax = plt.subplots()
    assert plot_beam_tree(tree, VOCAB, ax) is ax
    n = len(tree.nodes)
    tokens, scores = ax.texts[:n], ax.texts[n:]
    assert [t.get_text() for t in tokens] == [VOCAB[node.token] for node in tree.nodes]
    assert [t.get_text() for t in scores] == [f"{node.score:.2f}" for node in tree.nodes[1:]]
    assert {"-0.69", "-0.92", "-1.02", "-1.13", "-2.25"} <= {t.get_text() for t in scores}
    assert {to_hex(t.get_color()) for t in scores} == {BLUE}
    assert ax.get_title() == "Beam search, k = 2"


def test_best_path_highlighted_and_pruned_faded(tree):
    ax = plot_beam_tree(tree, VOCAB)
    by_id = dict(zip((node.id for node in tree.nodes), ax.texts, strict=False))
    best = {node.id for node in tree.path(tree.results[0])}
    for node in tree.nodes[1:]:
        text = by_id[node.id]
        edge = to_hex(text.arrow_patch.get_edgecolor())
        assert (edge == BEST) == (node.id in best)
        assert (text.get_alpha() < 1) == (not node.kept)
    assert [by_id[i].get_text() for i in sorted(best)] == ["<s>", "b", "c", "</s>"]


def test_edges_join_the_boxes(tree):
    fig, ax = plt.subplots()
    plot_beam_tree(tree, VOCAB, ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    points = fig.dpi / 72  # pixels per point
    texts = ax.texts[: len(tree.nodes)]
    for node, text in zip(tree.nodes[1:], texts[1:], strict=True):
        parent = matplotlib.text.Text.get_window_extent(texts[node.parent], renderer)
        child = matplotlib.text.Text.get_window_extent(text, renderer)
        edge = text.arrow_patch.get_window_extent(renderer)
        assert edge.x0 == pytest.approx(parent.x1 + 4 * points, abs=1.5)  # shrinkB
        assert edge.x1 == pytest.approx(child.x0 - 0.3 * 12 * points, abs=1.5)  # the box pad
        assert parent.y0 < edge.y0 < parent.y1 or parent.y0 < edge.y1 < parent.y1


def test_rows_do_not_overlap(tree):
    ax = plot_beam_tree(tree, VOCAB)
    for step in range(tree.num_steps + 1):
        nodes = zip(ax.texts, tree.nodes, strict=False)  # the tokens come first
        ys = sorted(text.get_position()[1] for text, node in nodes if node.step == step)
        assert all(b - a >= 1 for a, b in itertools.pairwise(ys)), f"overlap at step {step}"


def test_show_pruned_false_and_callable_vocab(tree):
    ax = plot_beam_tree(tree, lambda i: f"w{i}", show_pruned=False, title="kept only")
    kept = [node for node in tree.nodes if node.kept]
    assert len(ax.texts) == 2 * len(kept) - 1
    assert ax.texts[0].get_text() == "w0" and ax.get_title() == "kept only"


def test_dark_theme_uses_sky_blue_scores(tree):
    with theme("dark"):
        ax = plot_beam_tree(tree, VOCAB)
    assert to_hex(ax.texts[-1].get_color()) == SKY


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("not a trace", VOCAB), "trace must be a BeamTrace"),
        ((None, VOCAB), "trace must be a BeamTrace"),
        (("TREE", "abcde"), "vocab must be a sequence of token strings or a callable"),
        (("TREE", 5), "vocab must be .* got int"),
        (("TREE", ["<s>", "</s>", "a"]), "vocab has 3 entries but the trace uses token id 4"),
    ],
)
def test_bad_input(tree, args, match):
    args = tuple(tree if a == "TREE" else a for a in args)
    with pytest.raises(ValueError, match=match):
        plot_beam_tree(*args)


def test_bad_show_pruned(tree):
    with pytest.raises(ValueError, match="show_pruned must be True or False"):
        plot_beam_tree(tree, VOCAB, show_pruned="no")


def test_beam_tree_figure_draws_the_tree_and_the_ranking():
    hyps, tree = beam_search(
        table_step, BOS, EOS, beam_size=2, max_len=10, length_penalty=1.0, trace=True
    )
    fig = beam_tree_figure(tree, VOCAB)
    assert isinstance(fig, Figure) and not plt.get_fignums()  # built without pyplot
    ax_tree, ax_rank = fig.axes
    assert ax_tree.get_title() == "Beam search, k = 2, α = 1"
    assert len(ax_tree.texts) == 2 * len(tree.nodes) - 1
    header, *lines = (t.get_text() for t in ax_rank.texts)
    assert header == "returned, best first by log P / |Y|^α:"
    assert len(lines) == len(hyps) == 2
    for rank, (line, hyp) in enumerate(zip(lines, hyps, strict=True), start=1):
        words = " ".join(VOCAB[i] for i in hyp.tokens)
        assert line.startswith(f"{rank}. {words}")
        assert f"log P = {hyp.score:6.2f}" in line
        assert f"log P / |Y|^1 = {hyp.normalized_score(1.0):6.2f}" in line
    assert to_hex(ax_rank.texts[1].get_color()) == BEST


def test_beam_tree_figure_raw_scores_and_unfinished():
    _, tree = beam_search(table_step, BOS, EOS, beam_size=2, max_len=2, trace=True)
    fig = beam_tree_figure(tree, VOCAB, title="cut short", show_pruned=False)
    ax_tree, ax_rank = fig.axes
    assert ax_tree.get_title() == "cut short"
    lines = [t.get_text() for t in ax_rank.texts]
    assert lines[0] == "returned, best first by log P (sum of the log-probs):"
    assert all("|Y|" not in line for line in lines)
    assert lines[1].endswith("(unfinished)")


def _controls_and_image(box):
    controls, image = box.children
    return {c.description: c for c in controls.children}, image


def test_beam_widget_redraws_on_change():
    pytest.importorskip("ipywidgets")
    box = beam_widget(table_step, VOCAB, BOS, EOS, max_len=10, beam_sizes=(1, 2, 3))
    controls, image = _controls_and_image(box)
    assert controls["beam size k"].value == 2 and controls["alpha"].value == 0.0
    first = bytes(image.value)
    assert first.startswith(b"\x89PNG")
    seen = {first}
    for name, value in [("beam size k", 3), ("alpha", 1.0), ("show pruned", False)]:
        controls[name].value = value
        assert bytes(image.value) not in seen, f"no redraw after {name} = {value}"
        seen.add(bytes(image.value))
    controls["beam size k"].value, controls["alpha"].value = 2, 0.0
    controls["show pruned"].value = True
    assert bytes(image.value) == first  # deterministic: the same settings, the same picture


def test_beam_widget_initial_values():
    pytest.importorskip("ipywidgets")
    box = beam_widget(
        table_step, VOCAB, BOS, EOS, 10, (1, 3), (0.0, 2.0), beam_size=3, length_penalty=2.0
    )
    controls, _ = _controls_and_image(box)
    assert controls["beam size k"].value == 3 and controls["alpha"].value == 2.0
    controls, _ = _controls_and_image(beam_widget(table_step, VOCAB, BOS, EOS, 10, (1, 3)))
    assert controls["beam size k"].value == 1  # 2 is not offered: the first choice


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"beam_sizes": ()}, r"beam_sizes must be a non-empty list of values, got \(\)"),
        ({"beam_sizes": 3}, "beam_sizes must be a non-empty list of values, got 3"),
        ({"beam_sizes": (1, 0)}, "each of beam_sizes must be a positive integer, got 0"),
        ({"beam_sizes": (1, 2.0)}, "each of beam_sizes must be a positive integer, got 2.0"),
        ({"beam_sizes": (2, 2)}, r"beam_sizes must not repeat a value, got \[2, 2\]"),
        ({"length_penalties": (0.0, float("nan"))}, "length_penalties must hold finite numbers"),
        ({"length_penalties": ("1",)}, "length_penalties must hold finite numbers, got '1'"),
        ({"beam_size": 5}, r"beam_size=5 is not one of beam_sizes=\[1, 2, 3, 4\]"),
        ({"length_penalty": 0.7}, "length_penalty=0.7 is not one of length_penalties"),
        ({"max_len": 0}, "max_len must be a positive integer"),
        ({"step": "no"}, "step must be callable"),
        ({"vocab": ["<s>", "</s>", "a"]}, "vocab has 3 entries but the trace uses token id 4"),
        ({"vocab": "abcde"}, "vocab must be a sequence of token strings or a callable"),
    ],
)
def test_beam_widget_bad_input(kwargs, match):
    pytest.importorskip("ipywidgets")
    args = {"step": table_step, "vocab": VOCAB, "bos": BOS, "eos": EOS, "max_len": 10}
    with pytest.raises(ValueError, match=match):
        beam_widget(**{**args, **kwargs})


def test_beam_tree_figure_bad_input(tree):
    with pytest.raises(ValueError, match="trace must be a BeamTrace"):
        beam_tree_figure("tree", VOCAB)
    with pytest.raises(ValueError, match="show_pruned must be True or False"):
        beam_tree_figure(tree, VOCAB, show_pruned=1)


def test_beam_widget_grid_values_are_settings_of_the_widget():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    sizes, alphas = (1, 2, 3), (0.0, 0.1, 0.2, 0.5, 1.0)  # lecture 07's widget
    grid = beam_widget_grid(sizes, alphas)
    assert grid == {"beam_size": [1, 2, 3], "length_penalty": [0.0, 0.2, 1.0],
                    "show_pruned": [True]}  # fmt: skip
    box = beam_widget(table_step, VOCAB, BOS, EOS, 10, sizes, alphas)
    controls = widget_controls(box)
    image = box.children[1]
    seen = set()
    for k in grid["beam_size"]:
        for alpha in grid["length_penalty"]:
            controls["beam_size"].value, controls["length_penalty"].value = k, alpha
            assert (controls["beam_size"].value, controls["length_penalty"].value) == (k, alpha)
            seen.add(bytes(image.value))
    assert len(seen) == 9  # every setting draws its own picture
    assert beam_widget_grid((2,), (0.5,))["length_penalty"] == [0.5]
    with pytest.raises(ValueError, match="beam_sizes must be a non-empty list of values"):
        beam_widget_grid(())
    with pytest.raises(ValueError, match="length_penalties must hold finite numbers"):
        beam_widget_grid((1,), (float("inf"),))
