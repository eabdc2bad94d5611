"""lecturekit.viz.objectives: the objective views and table, XLNet's masks, the two widgets
(headless, Agg). Bad inputs: tests/viz/test_bad_inputs_objectives.py."""

import time

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.datasets.stories import default_data
from lecturekit.viz import objectives as vo


@pytest.fixture(scope="module")
def tok():
    return default_data().tokenizer


def test_t5_view_is_the_slide():
    view = vo.objective_view("T5 span corruption", vo.T5_SENTENCE, spans=vo.T5_SPANS)
    assert " ".join(view["inputs"]) == "thank you <X> me to your party <Y> week ."
    assert " ".join(view["targets"]) == "<X> for inviting <Y> last <Z>"
    assert view["input_marks"].count("sentinel") == 2 and view["signal"] == 6
    assert view["chosen"] == [i in (2, 3, 8) for i in range(11)]


@pytest.mark.parametrize("objective", vo.OBJECTIVES)
def test_every_view_is_consistent_and_seeded(objective, tok):
    for tokenizer in (None, tok):
        view = vo.objective_view(objective, "my dog is cute and he likes playing", 3, tokenizer)
        again = vo.objective_view(objective, "my dog is cute and he likes playing", 3, tokenizer)
        assert {k: v for k, v in view.items() if k not in ("content", "query")} == {
            k: v for k, v in again.items() if k not in ("content", "query")
        }
        T = len(view["tokens"])
        assert len(view["inputs"]) == len(view["input_marks"])
        assert len(view["targets"]) == len(view["target_marks"]) and len(view["chosen"]) == T
        if objective in ("BERT MLM", "whole-word MLM", "span MLM (SpanBERT)"):
            chosen = [t for t, c in zip(view["tokens"], view["chosen"], strict=True) if c]
            assert view["targets"] == chosen and view["signal"] == len(chosen) >= 1
        if objective == "ELECTRA":
            assert view["signal"] == T
            for t, i, label in zip(view["tokens"], view["inputs"], view["targets"], strict=True):
                assert label == ("replaced" if t != i else "original")
        if objective == "XLNet permutation":
            assert sorted(view["order"]) == list(range(T))
            assert view["targets"] == [view["tokens"][i] for i in view["order"]]


def test_electra_sampler_is_used():
    def sampler(tokens, positions, g):
        return ["zebra"] * len(positions)

    view = vo.objective_view("ELECTRA", vo.T5_SENTENCE, spans=[(0, 2)], sampler=sampler)
    assert view["inputs"][:3] == ["zebra", "zebra", "for"]
    assert view["targets"][:3] == ["replaced", "replaced", "original"]


def test_whole_word_view_keeps_words_whole(tok):
    sentence = "he bought a loaf of bread"  # "loaf" is lo ##a ##f
    for seed in range(20):
        view = vo.objective_view("whole-word MLM", sentence, seed, tok, rate=0.3)
        from lecturekit.objectives import word_ids

        wids = word_ids(view["tokens"])
        loaf = [c for c, w in zip(view["chosen"], wids, strict=True) if w == 3]
        assert len(loaf) == 3 and len(set(loaf)) == 1


def test_table_figure_is_quick_and_has_a_row_per_objective():
    rows = [vo.objective_view(o, vo.T5_SENTENCE, seed=1) for o in vo.OBJECTIVES]
    start = time.perf_counter()
    ax = vo.plot_objective_table(rows)
    ax.figure.canvas.draw()
    assert time.perf_counter() - start < 1.0  # 0.3 s here; slack for a busy machine
    assert [t.get_text() for t in ax.get_yticklabels()] == list(vo.OBJECTIVES)
    texts = [t.get_text() for t in ax.texts]
    boxes = sum(len(r["inputs"]) + len(r.get("short_targets", r["targets"])) for r in rows)
    assert len(texts) == boxes + 2 and "input" in texts and "target" in texts
    ax2 = vo.plot_objective_table(rows[0], Figure().add_subplot())  # one dict = one row
    assert len(ax2.get_yticklabels()) == 1


def test_permutation_figure():
    start = time.perf_counter()
    fig = vo.plot_permutation_masks(["a", "b", "c", "d"], [2, 0, 3, 1], step=2)
    fig.canvas.draw()
    assert time.perf_counter() - start < 1.0
    assert "3 \u2192 1 \u2192 4 \u2192 2" in fig._suptitle.get_text()
    assert "predicting 'a' (position 1) from c" in fig._suptitle.get_text()
    content, query = fig.axes
    assert content.get_title().startswith("content") and query.get_title().startswith("query")
    shown = query.images[0].get_array()
    assert (shown > 0.5).sum() == 0 + 1 + 2 + 3  # row i sees rank[i] positions
    axes = Figure().subplots(1, 2)
    assert vo.plot_permutation_masks("a b", [1, 0], axes=list(axes)) is axes[0].figure


def _controls(box):
    return list(box.children[0].children)


def test_objective_widget_updates(tok):
    pytest.importorskip("ipywidgets")
    box = vo.objective_widget(["my dog is cute", "he bought a loaf of bread"], tok)
    image = box.children[1]
    first = bytes(image.value)
    assert first.startswith(b"\x89PNG")
    grid = vo.objective_widget_grid(2)
    for name, control in zip(["objective", "sentence", "seed", "rate"], _controls(box),
                             strict=True):  # fmt: skip
        for value in grid[name]:
            control.value = value
            assert control.value == pytest.approx(value)
    assert bytes(image.value) != first


def test_objective_widget_grid_narrowed_for_a_static_page(tok):
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    grid = vo.objective_widget_grid(3, sentences=[0, 2], seeds=[0, 19], rates=[0.05, 0.5])
    assert grid == {"objective": list(vo.OBJECTIVES), "sentence": [0, 2], "seed": [0, 19],
                    "rate": [0.05, 0.5]}  # fmt: skip
    assert vo.objective_widget_grid(2)["seed"] == [0, 1, 2]  # the default: as before
    box = vo.objective_widget(["my dog is cute", "he bought bread", "i like it"], tok)
    controls = widget_controls(box)
    for name, values in grid.items():
        for value in values:
            controls[name].value = value
            assert controls[name].value == pytest.approx(value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sentences": [3]}, "sentences: 3 is not a value the control offers"),
        ({"sentences": []}, "sentences must be a non-empty list"),
        ({"seeds": [1.5]}, "seeds must hold integers"),
        ({"seeds": [20]}, "seeds: 20 is not a value"),
        ({"rates": [0.12]}, "rates: 0.12 is not a value"),
        ({"rates": "0.15"}, "rates must be a non-empty list"),
    ],
)
def test_objective_widget_grid_bad_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vo.objective_widget_grid(3, **kwargs)


def test_permutation_widget_updates():
    pytest.importorskip("ipywidgets")
    box = vo.permutation_widget(vo.T5_SENTENCE[:5])
    seed, step = _controls(box)
    image = box.children[1]
    first = bytes(image.value)
    grid = vo.permutation_widget_grid(5)
    assert step.max == 5 and grid["step"] == [1, 2, 3, 4, 5]
    step.value = 3
    assert bytes(image.value) != first
    for value in grid["seed"]:
        seed.value = value
        assert seed.value == value


def test_views_need_no_trained_model():
    torch.manual_seed(0)  # the views use their own generator: the global seed changes nothing
    a = vo.objective_view("ELECTRA", vo.T5_SENTENCE, 5)
    torch.manual_seed(1)
    assert vo.objective_view("ELECTRA", vo.T5_SENTENCE, 5) == a


def test_the_measured_curves_plot():
    from lecturekit.shipped.objectives import electra_vs_mlm_curve, masking_rate_curve
    from lecturekit.viz.objectives import electra_vs_mlm_figure, masking_rate_figure

    sweep = masking_rate_curve()
    fig = masking_rate_figure(sweep)
    left, right = fig.axes[:2]
    assert len(left.lines) == len(sweep["rates"]) and len(right.lines) == 2
    curve = electra_vs_mlm_curve()
    fig = electra_vs_mlm_figure(curve)
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == list(curve["tasks"])
    with pytest.raises(ValueError, match="sweep"):
        masking_rate_figure({"rates": [0.1]})
    with pytest.raises(ValueError, match=r"sweep\['accuracy'\]"):
        masking_rate_figure({"rates": [0.1, 0.2], "steps": [1, 2], "accuracy": [[0.1, 0.2]]})
    with pytest.raises(ValueError, match="curve"):
        electra_vs_mlm_figure([1, 2])
