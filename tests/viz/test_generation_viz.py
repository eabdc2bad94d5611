"""lecturekit.viz.generation and lecture 14's slide figures: the next-token bars, the strategy
panels, the three families' masks, the ICL curve, the cache speed-up, diversity vs quality,
the generation widget."""

import io

import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from lecturekit.generation import Strategy
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.tokenization import SEP_ID, SPECIAL_TOKENS, WordPieceTokenizer
from lecturekit.viz import generation as vg
from lecturekit.viz.style import ACCENT
from lecturekit_publish import figures
from lecturekit_publish.figures import lecture_14

PROBS = torch.tensor([0.05, 0.4, 0.1, 0.3, 0.15])
KEPT = torch.tensor([False, True, False, True, True])
LABELS = ["a", "b", "c", "d", "e"]


def _ax():
    return Figure().subplots()


def _highlighted(ax):
    return sum(p.get_facecolor() == to_rgba(ACCENT) for p in ax.patches)


def test_next_token_bars_highlight_the_kept_tokens():
    ax = vg.plot_next_token(PROBS, KEPT, LABELS, _ax(), top=3, title="T = 1")
    assert len(ax.patches) == 3
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "d", "e"]  # most probable first
    assert _highlighted(ax) == 3  # b, d, e: all kept
    assert ax.get_title() == "T = 1\nkept: 3 tokens, 0.85 of the mass"
    assert sorted(t.get_text() for t in ax.texts) == ["0.15", "0.30", "0.40"]
    ax = vg.plot_next_token(PROBS, KEPT, LABELS, _ax(), top=12)  # top > V: every token
    assert len(ax.patches) == 5 and _highlighted(ax) == int(KEPT.sum())
    ax = vg.plot_next_token(PROBS, KEPT, LABELS, _ax(), indices=[0, 2])
    assert len(ax.patches) == 2 and _highlighted(ax) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"probs": PROBS[:4]}, r"probs \(4\), kept \(5\) and labels \(5\)"),
        ({"kept": KEPT[:3]}, r"kept \(3\)"),
        ({"labels": LABELS[:2]}, r"labels \(2\)"),
        ({"kept": KEPT.float()}, "kept must be bool"),
        ({"probs": -PROBS}, "probs must be probabilities"),
        ({"top": 0}, "top must be a positive integer"),
        ({"indices": [7]}, r"indices\[0\] must be an integer in 0..4"),
        ({"labels": "abcde"}, "labels must be a list of strings"),
    ],
)
def test_next_token_bad_inputs(kwargs, message):
    args = {"probs": PROBS, "kept": KEPT, "labels": LABELS, **kwargs}
    with pytest.raises(ValueError, match=message):
        vg.plot_next_token(**args)


LOGITS = torch.tensor([0.0, 2.0, 1.0, 1.5, -1.0])


def test_shown_distribution_keeps_the_dropped_bars():
    probs, kept = vg.shown_distribution(LOGITS, Strategy.sample(top_k=2))
    assert torch.allclose(probs, LOGITS.softmax(-1)) and kept.tolist() == [0, 1, 0, 1, 0]
    probs, kept = vg.shown_distribution(LOGITS, Strategy.sample(temperature=0.5))
    assert torch.allclose(probs, (LOGITS / 0.5).softmax(-1)) and kept.all()
    probs, kept = vg.shown_distribution(LOGITS, "greedy")
    assert torch.allclose(probs, LOGITS.softmax(-1)) and kept.tolist() == [0, 1, 0, 0, 0]
    probs, kept = vg.shown_distribution(LOGITS.tolist(), Strategy.beam(beam_size=3))
    assert kept.tolist() == [0, 1, 1, 1, 0]
    penalised, _ = vg.shown_distribution(LOGITS, Strategy.sample(repetition_penalty=2.0), [1])
    assert penalised[1] < LOGITS.softmax(-1)[1]
    with pytest.raises(ValueError, match="strategy must be a Strategy"):
        vg.shown_distribution(LOGITS, 3)
    with pytest.raises(ValueError, match=r"logits must be 1-D \(V,\)"):
        vg.shown_distribution(LOGITS[None], "greedy")


def test_sampling_distributions_share_one_scale_and_the_same_tokens():
    fig = vg.sampling_distributions_figure(LOGITS, LABELS, top=4)
    axes = fig.axes
    assert len(axes) == 6
    assert [ax.get_title().split("\n")[0] for ax in axes] == list(vg.default_settings())
    assert len({ax.get_xlim() for ax in axes}) == 1  # one probability scale
    ticks = [t.get_text() for t in axes[0].get_yticklabels()]
    assert ticks == ["b", "d", "c", "a"]  # the 4 most probable at T = 1
    assert all(len(ax.patches) == 4 for ax in axes)
    assert _highlighted(axes[0]) == 1  # greedy: the arg max
    assert _highlighted(axes[4]) == 3  # top-k = 3
    widths = [max(p.get_width() for p in ax.patches) for ax in axes[1:4]]
    assert widths[0] > widths[1] > widths[2]  # T = 0.5 sharpens, T = 1.5 flattens
    fig = vg.sampling_distributions_figure(
        LOGITS, LABELS, {"top-p = 0.5": Strategy.sample(top_p=0.5)}
    )
    assert len(fig.axes) == 1 and "2 kept, 0.74" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="labels has 3 entries but logits has 5"):
        vg.sampling_distributions_figure(LOGITS, LABELS[:3])
    with pytest.raises(ValueError, match="settings is empty"):
        vg.sampling_distributions_figure(LOGITS, LABELS, {})


def test_family_masks():
    fig = vg.family_masks_figure()
    enc, dec, encdec = fig.axes
    assert "BERT" in enc.get_title() and "GPT" in dec.get_title()
    assert "Transformer" in encdec.get_title()
    n = len(vg.FAMILY_TOKENS)
    S, T = len(vg.FAMILY_SOURCE), len(vg.FAMILY_TARGET)
    allowed = [np.asarray(ax.images[0].get_array()) == 1 for ax in fig.axes]
    assert allowed[0].all() and allowed[0].shape == (n, n)
    assert (allowed[1] == np.tril(np.ones((n, n), bool))).all()
    joint = allowed[2]
    assert joint.shape == (S + T, S + T)
    assert joint[:S, :S].all() and not joint[:S, S:].any() and joint[S:, :S].all()
    assert (joint[S:, S:] == np.tril(np.ones((T, T), bool))).all()
    labels = [t.get_text() for t in encdec.get_yticklabels()]
    assert labels == [*vg.FAMILY_SOURCE, *vg.FAMILY_TARGET]
    assert {t.get_text() for t in encdec.texts} >= {"encoder\nself", "cross", "none"}
    fig = vg.family_masks_figure(["a", "b"], ["<bos>", "x"], tokens=["p", "q", "r"])
    assert np.asarray(fig.axes[2].images[0].get_array()).shape == (4, 4)
    with pytest.raises(ValueError, match="source_tokens must not be empty"):
        vg.family_masks_figure([])


def test_family_masks_default_pair_is_the_toy_language():
    from lecturekit.datasets.translation import default_data

    data = default_data()
    assert all(w in data.src_vocab.stoi for w in vg.FAMILY_SOURCE)
    assert all(w in data.tgt_vocab.stoi for w in vg.FAMILY_TARGET)


def test_icl_curve():
    ax = vg.plot_icl_curve([0, 1, 2, 4, 8], [0.3, 0.4, 0.5, 0.6, 0.7], oracle=0.95, chance=0.25,
                           ax=_ax())  # fmt: skip
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2", "4", "8"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(labels) == {"GPT (tiny)", "oracle", "chance"}
    assert list(ax.get_lines()[0].get_ydata()) == [0.3, 0.4, 0.5, 0.6, 0.7]
    seeds = {0: [0.2, 0.6, 0.8], 1: [0.4, 0.6, 1.0]}
    ax = vg.plot_icl_curve([0, 1, 2], seeds, oracle=[1, 1, 1], ax=_ax(), label="mine")
    assert np.allclose(ax.get_lines()[0].get_ydata(), [0.3, 0.6, 0.9])
    assert ax.collections  # the error bars over seeds
    ax = vg.plot_icl_curve([0, 1], [0.5, 0.6], std=[0.1, 0.1], ax=_ax())
    assert ax.collections


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([], []), {}, "shots must not be empty"),
        (([0, 1, 2], [0.5, 0.6]), {}, "accuracy has 2 values but shots has 3"),
        (([2, 1], [0.5, 0.6]), {}, "shots must be increasing"),
        (([0, 1], [[0.5, 0.6, 0.7]]), {}, r"accuracy must be \(2,\) or \(seeds, 2\)"),
        (([0, 1], {0: [0.5]}), {}, "every seed needs 2 values"),
        (([0, 1], [0.5, 0.6]), {"oracle": [1, 1, 1]}, "oracle must be one number or 2"),
        (([0, 1], [0.5, 0.6]), {"std": [0.1]}, "std has 1 values"),
        (([0, 1], [[0.5, 0.6], [0.5, 0.7]]), {"std": [0.1, 0.1]}, "std is given but"),
    ],
)
def test_icl_curve_bad_inputs(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        vg.plot_icl_curve(*args, **kwargs)


def test_cache_speedup():
    ax = vg.plot_cache_speedup([16, 64], [0.002, 0.008], [0.001, 0.001], _ax())
    assert len(ax.get_lines()) == 2
    assert [t.get_text() for t in ax.texts] == ["×2.0", "×8.0"]
    with pytest.raises(ValueError, match=r"prefix_lengths \(2\), seconds_full \(1\)"):
        vg.plot_cache_speedup([16, 64], [0.002], [0.001, 0.001])
    with pytest.raises(ValueError, match="must be positive times"):
        vg.plot_cache_speedup([16], [0.0], [0.001])


def test_diversity_quality():
    table = [{"strategy": "greedy", "distinct_2": 0.1, "valid": 0.95},
             {"strategy": "T = 1.5", "distinct_2": 0.8, "valid": 0.4, "perplexity": 9.25}]  # fmt: skip
    ax = vg.plot_diversity_quality(table, _ax())
    assert len(ax.collections) == 2
    assert [t.get_text() for t in ax.texts] == ["greedy", "T = 1.5 (ppl 9.2)"]
    with pytest.raises(ValueError, match=r"table\[0\] has no valid"):
        vg.plot_diversity_quality([{"strategy": "x", "distinct_2": 0.1}])
    with pytest.raises(ValueError, match=r"table\[0\]\['valid'\] must be a share in \[0, 1\]"):
        vg.plot_diversity_quality([{"strategy": "x", "distinct_2": 0.1, "valid": 2.0}])
    with pytest.raises(ValueError, match="table must be a non-empty list"):
        vg.plot_diversity_quality([])


# ------------------------------------------------------------------------------- the widget

TOK = WordPieceTokenizer([*SPECIAL_TOKENS, "my", "dog", "is", "cute", "the", "cat", "."])


@pytest.fixture(scope="module")
def tiny_gpt():
    config = GPTConfig.tiny(vocab_size=len(TOK), hidden_size=16, intermediate_size=32,
                            num_layers=1, num_heads=2, max_position=32)  # fmt: skip
    return GPT(config, generator=torch.Generator().manual_seed(0)).eval()


NAMES = ["prompt", "strategy", "repetition_penalty", "temperature", "top_k", "top_p"]


def _controls(box):
    """The widget's controls by name (two rows: prompt, strategy, penalty; the samplers)."""
    found = [c for row in box.children[:2] for c in row.children]
    return dict(zip(NAMES, found, strict=True))


def test_widget_reacts_to_its_controls(tiny_gpt):
    pytest.importorskip("ipywidgets")
    box = vg.generation_widget(tiny_gpt, TOK, n_samples=3, max_new_tokens=6, eos_id=SEP_ID)
    samples, image = box.children[2], box.children[3]
    assert samples.value.count("<li>") == 3 and bytes(image.value).startswith(b"\x89PNG")
    again = vg.generation_widget(tiny_gpt, TOK, n_samples=3, max_new_tokens=6, eos_id=SEP_ID)
    assert again.children[2].value == samples.value  # seeded: the same samples every time
    c = _controls(box)
    before, picture = samples.value, bytes(image.value)
    c["temperature"].value = 0.3
    assert bytes(image.value) != picture and samples.value != before
    c["strategy"].value = "greedy"
    assert samples.value.count("<li>") == 1 and c["temperature"].disabled
    c["prompt"].value = "   "
    assert "type a prompt" in samples.value
    c["prompt"].value = "my zebra"
    assert "unknown word" in samples.value and "zebra" in samples.value
    c["prompt"].value = "my dog " * 20  # longer than the 32 positions: a message
    assert "cannot generate" in samples.value


def test_widget_grid_values_are_offered_by_the_controls(tiny_gpt):
    pytest.importorskip("ipywidgets")
    box = vg.generation_widget(tiny_gpt, TOK, max_new_tokens=2)
    c = _controls(box)
    grid = vg.generation_widget_grid()
    assert set(grid) <= set(c)
    for name, values in grid.items():
        for value in values:
            c[name].value = value
            assert c[name].value == pytest.approx(value), name


def test_widget_names_its_controls_and_describes_its_picture(tiny_gpt):
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import ALT_ATTR, widget_controls

    box = vg.generation_widget(tiny_gpt, TOK, n_samples=2, max_new_tokens=4)
    c = widget_controls(box)
    assert c == _controls(box)  # the names generation_widget_grid uses, and the prompt
    image = box.children[3]
    assert "next token after 'my dog'" in getattr(image, ALT_ATTR)
    c["prompt"].value = "   "
    assert "type a prompt" in getattr(image, ALT_ATTR)


def test_widget_shows_a_setting_drawn_before_again_until_the_model_changes(tiny_gpt, monkeypatch):
    pytest.importorskip("ipywidgets")
    drawn = []
    real = vg.plot_next_token
    monkeypatch.setattr(vg, "plot_next_token", lambda *a, **k: drawn.append(1) or real(*a, **k))
    box = vg.generation_widget(tiny_gpt, TOK, n_samples=2, max_new_tokens=4)
    c, samples, image = _controls(box), box.children[2], box.children[3]
    first = (samples.value, bytes(image.value))
    c["temperature"].value = 0.5
    c["temperature"].value = 1.0
    assert (samples.value, bytes(image.value)) == first and len(drawn) == 2
    c["strategy"].value = "greedy"
    c["temperature"].value = 0.5  # greedy ignores it: nothing new to draw
    assert len(drawn) == 3
    fresh = vg.generation_widget(tiny_gpt, TOK, n_samples=2, max_new_tokens=4, seed=0)
    c2 = _controls(fresh)
    c2["strategy"].value, c2["temperature"].value = "greedy", 0.5
    assert fresh.children[2].value == samples.value  # the same as drawing it afresh
    with torch.no_grad():
        for p in tiny_gpt.parameters():
            p.mul_(1.0)  # an in-place change: the widget draws again
    c["temperature"].value = 1.0
    assert len(drawn) == 6  # the fresh widget drew twice (its start, greedy), then this one


def test_widget_grid_narrowed_for_a_static_page():
    grid = vg.generation_widget_grid(["my dog", "my"], temperatures=[1.0, 1.5], top_ks=[0, 3],
                                     top_ps=[0.5, 1.0], penalties=[1.0, 1.5])  # fmt: skip
    assert list(grid) == ["prompt", "strategy", "temperature", "top_k", "top_p",
                          "repetition_penalty"]  # fmt: skip
    assert grid["prompt"] == ["my dog", "my"] and grid["strategy"] == ["greedy", "sample", "beam"]
    assert grid["top_k"] == [0, 3] and all(isinstance(k, int) for k in grid["top_k"])
    assert "prompt" not in vg.generation_widget_grid()  # the default: as before
    assert vg.generation_widget_grid()["temperature"] == [0.5, 1.0, 1.5]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperatures": [0.55]}, "temperatures: 0.55 is not a value the control offers"),
        ({"temperatures": [3.0]}, "temperatures: 3.0 is not a value the control offers"),
        ({"top_ks": [2.5]}, "top_ks must hold integers, got 2.5"),
        ({"top_ps": []}, r"top_ps must be a non-empty list of numbers, got \[\]"),
        ({"penalties": "1.5"}, "penalties must be a non-empty list of numbers, got '1.5'"),
        ({"prompts": "my dog"}, "prompts must be a list of strings"),
    ],
)
def test_widget_grid_bad_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vg.generation_widget_grid(**kwargs)


def test_widget_bad_inputs(tiny_gpt):
    with pytest.raises(ValueError, match=r"model must be a torch\.nn\.Module"):
        vg.generation_widget("gpt", TOK)
    with pytest.raises(ValueError, match="tokenizer must be a WordPieceTokenizer"):
        vg.generation_widget(tiny_gpt, object())
    with pytest.raises(ValueError, match="n_samples must be a positive integer"):
        vg.generation_widget(tiny_gpt, TOK, n_samples=0)
    with pytest.raises(ValueError, match=r"eos_id must be an integer in 0..11"):
        vg.generation_widget(tiny_gpt, TOK, eos_id=99)


# ----------------------------------------------------------------------------- slide figures

CURVE = {"shots": [0, 1, 2, 4, 8], "accuracy": [0.26, 0.41, 0.55, 0.68, 0.77],
         "oracle": [1.0] * 5, "chance": 0.25, "n": 1000}  # fmt: skip


@pytest.fixture
def shipped_gpt(monkeypatch):
    """lecturekit.shipped.gpt's figure data, without its checkpoints."""
    import lecturekit.shipped.gpt as shipped

    labels = [*SPECIAL_TOKENS, *(f"w{i}" for i in range(25))]
    logits = torch.randn(len(labels), generator=torch.Generator().manual_seed(0)) * 2

    def next_token_logits(prompt: str = "my"):
        assert prompt == lecture_14.SAMPLING_PROMPT
        return logits, labels

    monkeypatch.setattr(shipped, "next_token_logits", next_token_logits)
    monkeypatch.setattr(shipped, "icl_curve", lambda: dict(CURVE))


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40, metadata={"Software": None})
    return buf.getvalue()


@pytest.mark.parametrize("name", ["gpt_family_masks", "gpt_sampling_distributions",
                                  "gpt_icl_curve"])  # fmt: skip
def test_lecture_14_figures_build_deterministically(name, shipped_gpt):
    assert figures.spec(name).lecture in ("14", "14b")  # the ICL curve is in the optional 14b
    light, dark = figures.build(name, "light"), figures.build(name, "dark")
    assert light.axes and light.get_facecolor() != dark.get_facecolor()
    assert _png(figures.build(name, "light")) == _png(light)


def test_sampling_figure_shows_six_strategies(shipped_gpt):
    fig = figures.build("gpt_sampling_distributions")
    assert len(fig.axes) == 6 and repr(lecture_14.SAMPLING_PROMPT) in fig._suptitle.get_text()
    ax = figures.build("gpt_icl_curve").axes[0]
    assert list(ax.get_lines()[0].get_ydata()) == CURVE["accuracy"]
