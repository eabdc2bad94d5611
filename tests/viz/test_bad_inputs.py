"""Bad inputs to the plot functions, the widgets and the style (issue 15): each gets a clear
ValueError naming the argument, raised before anything is drawn. Widgets are built without a
display (ipywidgets only makes model objects)."""

import matplotlib.pyplot as plt
import numpy as np
import torch
from bad_inputs import Bad, assert_clear_error, bad_rows

from lecturekit.decoding import beam_search
from lecturekit.experiments.translation import LengthAccuracy
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.causal_lm import CausalLM
from lecturekit.tokenization import SPECIAL_TOKENS, WordPieceTokenizer
from lecturekit.viz import (
    bert,
    efficient,
    helpers,
    plots,
    scoring,
    style,
    tokenization,
    transformer,
    trees,
    vit,
    widgets,
)

W2 = torch.softmax(torch.randn(3, 4), -1)  # (Tq, Tk)
W3 = torch.softmax(torch.randn(2, 3, 3), -1)  # (H, T, T)
LABELS3 = ["a", "b", "c"]
VOCAB = [*SPECIAL_TOKENS, "the", "cat", "sat"]
TOK = WordPieceTokenizer(VOCAB)
SMALL_BERT = {"vocab_size": len(VOCAB), "hidden_size": 8, "intermediate_size": 16}
BERT = BertForPreTraining(BertConfig.tiny(**SMALL_BERT))
LM = CausalLM(BertConfig.tiny(**SMALL_BERT))
IMAGES = torch.rand(2, 1, 4, 4)  # (B, C, H, W), a 2 x 2 grid of 2 x 2 patches
VIT_W = [torch.softmax(torch.randn(2, 2, 5, 5), -1) for _ in range(2)]  # L x (B, H, T, T)
LENGTHS = LengthAccuracy(("5-9",), (5,), (3,), (1.0,))


def _step(prefix: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(torch.arange(4.0).expand(len(prefix), 4), -1)


_, TRACE = beam_search(_step, 0, 3, 2, 3, trace=True)


def _ax():
    return plt.subplots()[1]


P, WG = "plots", "widgets"
ROWS = [
    # --- helpers
    Bad("helpers.to_numpy: strings where numbers are wanted", "type",
        lambda: helpers.to_numpy("x", ["a", "b"], numeric=True), "x"),
    Bad("helpers.to_numpy: ragged lists", "shape",
        lambda: helpers.to_numpy("x", [[1, 2], [3]]), ["x", "list"]),
    Bad("helpers.check_labels: an int for labels", "type",
        lambda: helpers.check_labels("labels", 3, 3), ["labels", "int"]),
    Bad("helpers.get_axes: a Figure for ax", "type",
        lambda: helpers.get_axes(plt.figure()), ["ax", "Axes", "Figure"]),
    # --- plots
    Bad(f"{P}.plot_heatmap: a 3-D matrix", "shape", lambda: plots.plot_heatmap(W3),
        ["matrix", "2-D", "(2, 3, 3)"]),
    Bad(f"{P}.plot_heatmap: strings", "type",
        lambda: plots.plot_heatmap([["a", "b"], ["c", "d"]]), ["matrix", "numbers"]),
    Bad(f"{P}.plot_heatmap: an empty matrix", "shape", lambda: plots.plot_heatmap(np.zeros((0, 3))),
        ["matrix", "(0, 3)"]),
    Bad(f"{P}.plot_heatmap: xticklabels of the wrong length", "shape",
        lambda: plots.plot_heatmap(W2, xticklabels=LABELS3), ["xticklabels", "3 labels", "4"]),
    Bad(f"{P}.plot_attention: 3-D weights", "shape", lambda: plots.plot_attention(W3),
        ["weights", "2-D"]),
    Bad(f"{P}.plot_attention: row_labels of the wrong length", "shape",
        lambda: plots.plot_attention(W2, ["a"], list("abcd")), ["row_labels", "1 labels"]),
    Bad(f"{P}.plot_attention: a string for ax", "type",
        lambda: plots.plot_attention(W2, ax="left"), ["ax", "Axes", "str"]),
    Bad(f"{P}.plot_heads: 2-D weights", "shape", lambda: plots.plot_heads(W2),
        ["weights", "3-D", "(H, Tq, Tk)"]),
    Bad(f"{P}.plot_heads: ncols 0", "size", lambda: plots.plot_heads(W3, ncols=0), "ncols"),
    Bad(f"{P}.plot_heads: labels of the wrong length", "shape",
        lambda: plots.plot_heads(W3, ["a", "b"]), ["labels", "2 labels", "3"]),
    Bad(f"{P}.plot_heads: an Axes for fig", "type", lambda: plots.plot_heads(W3, fig=_ax()),
        ["fig", "Figure", "Axes"]),
    Bad(f"{P}.plot_lines: ys a list", "type", lambda: plots.plot_lines([0, 1], [[1, 2]]),
        ["ys", "mapping", "list"]),
    Bad(f"{P}.plot_lines: a y of the wrong length", "shape",
        lambda: plots.plot_lines([0, 1], {"a": [1, 2, 3]}), ["ys['a']", "(3,)", "(2,)"]),
    Bad(f"{P}.plot_bars: 2-D values", "shape", lambda: plots.plot_bars(W2), ["values", "1-D"]),
    Bad(f"{P}.plot_bars: labels a string", "type", lambda: plots.plot_bars([0.5, 0.5], "ab"),
        ["labels", "string"]),
    Bad(f"{P}.plot_bars: ylim a number", "type", lambda: plots.plot_bars([0.5], ylim=1.0),
        ["ylim", "(low, high)"]),
    Bad(f"{P}.plot_mask: a float mask", "dtype",
        lambda: plots.plot_mask(torch.zeros(2, 2)), ["mask", "bool", "float32"]),
    Bad(f"{P}.plot_mask: an unknown show", "range",
        lambda: plots.plot_mask(torch.ones(2, 2, dtype=torch.bool), show="M+"), ["show='M+'"]),
    # --- style
    Bad("style.theme: an unknown theme", "range", lambda: style.theme("blue"),
        ["theme='blue'", "light", "dark"]),
    Bad("style.palette: an unknown theme", "range", lambda: style.palette("Dark"),
        ["theme='Dark'", "dark"]),
    Bad("style.rc: a theme that is not a string", "type", lambda: style.rc(None),
        ["theme=None"]),
    # --- widgets
    Bad(f"{WG}.figure_widget: render not callable", "type",
        lambda: widgets.figure_widget("plot", {}), ["render", "callable", "str"]),
    Bad(f"{WG}.figure_widget: controls a list", "type",
        lambda: widgets.figure_widget(lambda: None, [1]), ["controls", "mapping", "list"]),
    Bad(f"{WG}.figure_widget: a control that is no widget", "type",
        lambda: widgets.figure_widget(lambda x: None, {"x": 3}), ["controls['x']", "widget"]),
    Bad(f"{WG}.figure_widget: an unknown theme", "range",
        lambda: widgets.figure_widget(lambda: None, {}, theme="blue"), "theme='blue'"),
    Bad(f"{WG}.figure_widget: dpi 0", "size",
        lambda: widgets.figure_widget(lambda: None, {}, dpi=0), "dpi"),
    Bad(f"{WG}.softmax_temperature_widget: tau 0", "range",
        lambda: widgets.softmax_temperature_widget([1.0, 2.0], tau=0), "tau"),
    Bad(f"{WG}.softmax_temperature_widget: tau beyond the slider", "range",
        lambda: widgets.softmax_temperature_widget([1.0, 2.0], tau=1000.0), ["tau", "128"]),
    Bad(f"{WG}.softmax_temperature_widget: scores a string", "type",
        lambda: widgets.softmax_temperature_widget("112 96"), ["scores", "str"]),
    Bad(f"{WG}.softmax_temperature_widget: labels of the wrong length", "shape",
        lambda: widgets.softmax_temperature_widget([1.0, 2.0], LABELS3), ["labels", "3"]),
    Bad(f"{WG}.scaling_widget: num_keys 0", "size", lambda: widgets.scaling_widget(0),
        "num_keys"),
    Bad(f"{WG}.scaling_widget: no dims", "size", lambda: widgets.scaling_widget(dims=()),
        "dims"),
    Bad(f"{WG}.scaling_widget: a negative seed", "range",
        lambda: widgets.scaling_widget(seed=-1), "seed"),
    Bad(f"{WG}.head_widget: 2-D weights", "shape",
        lambda: widgets.head_widget(W2, LABELS3), ["weights", "(H, T, T)"]),
    Bad(f"{WG}.head_widget: labels of the wrong length", "shape",
        lambda: widgets.head_widget(W3, ["a", "b"]), ["labels", "2", "3"]),
    Bad(f"{WG}.head_widget: non-square maps", "shape",
        lambda: widgets.head_widget(torch.rand(2, 3, 4), LABELS3), ["weights", "(2, 3, 4)"]),
    Bad(f"{WG}.positional_encoding_widget: d_model not offered", "range",
        lambda: widgets.positional_encoding_widget(d_model=100), ["d_model=100", "512"]),
    Bad(f"{WG}.positional_encoding_widget: max_len 0", "range",
        lambda: widgets.positional_encoding_widget(max_len=0), "max_len"),
    Bad(f"{WG}.positional_encoding_widget: dims reversed", "range",
        lambda: widgets.positional_encoding_widget(dims=(7, 4)), "dims"),
    Bad(f"{WG}.mask_widget: max_len 1", "range", lambda: widgets.mask_widget(max_len=1),
        "max_len"),
    Bad(f"{WG}.mask_widget: a float seed", "type", lambda: widgets.mask_widget(seed=0.5),
        "seed"),
    # --- trees
    Bad("trees.beam_widget: no beam sizes", "size",
        lambda: trees.beam_widget(_step, list("abcd"), 0, 3, 3, beam_sizes=[]), "beam_sizes"),
    Bad("trees.beam_widget: step not callable", "type",
        lambda: trees.beam_widget(None, list("abcd"), 0, 3, 3), ["step", "callable"]),
    Bad("trees.plot_beam_tree: a vocab too short", "range",
        lambda: trees.plot_beam_tree(TRACE, ["a"]), ["vocab", "1 entries"]),
    Bad("trees.beam_tree_figure: a list for the trace", "type",
        lambda: trees.beam_tree_figure([], list("abcd")), ["trace", "BeamTrace"]),
    Bad("trees.plot_beam_tree: a Figure for ax", "type",
        lambda: trees.plot_beam_tree(TRACE, list("abcd"), plt.figure()), ["ax", "Axes"]),
    # --- scoring
    Bad("scoring.plot_score_weights: one Axes for the pair", "type",
        lambda: scoring.plot_score_weights([1.0, 2.0], axes=_ax()), ["axes", "Axes"]),
    Bad("scoring.plot_alignments: an int ncols of 0", "size",
        lambda: scoring.plot_alignments({"m": W2}, list("abcd"), LABELS3, ncols=0), "ncols"),
    Bad("scoring.scoring_widget: an unknown score", "range",
        lambda: scoring.scoring_widget({"dot": W2}, score="general"), ["score='general'", "dot"]),
    # --- vit
    Bad("vit.plot_patch_grid: patch_size 0", "size",
        lambda: vit.plot_patch_grid(IMAGES[0], 0), "patch_size"),
    Bad("vit.plot_patch_grid: a batch for the image", "shape",
        lambda: vit.plot_patch_grid(IMAGES, 2), ["image", "(2, 1, 4, 4)"]),
    Bad("vit.plot_cls_attention: a 3-D map", "shape",
        lambda: vit.plot_cls_attention(IMAGES[0], torch.rand(1, 2, 2)), ["attention_map", "2-D"]),
    Bad("vit.vit_attention_widget: weights whose lengths differ", "shape",
        lambda: vit.vit_attention_widget(IMAGES, [VIT_W[0], VIT_W[1][:, :, :4, :4]], (2, 2)),
        ["weights[1]", "(2, 2, 4, 4)", "(2, 2, 5, 5)"]),
    Bad("vit.vit_attention_widget: labels for fewer images", "shape",
        lambda: vit.vit_attention_widget(IMAGES, VIT_W, (2, 2), labels=[3]), ["labels", "2"]),
    Bad("vit.attention_overview: a grid that does not fit", "shape",
        lambda: vit.attention_overview(IMAGES, VIT_W, (1, 2)), ["grid", "T = 5"]),
    Bad("vit.vit_attention_widget: an unknown theme", "range",
        lambda: vit.vit_attention_widget(IMAGES, VIT_W, (2, 2), theme="blue"), "theme='blue'"),
    # --- bert
    Bad("bert.fill_mask_widget: the causal LM", "model",
        lambda: bert.fill_mask_widget(LM, TOK, ["the cat sat"]),
        ["model", "BertForPreTraining", "CausalLM"]),
    Bad("bert.fill_mask_widget: one sentence as a string", "type",
        lambda: bert.fill_mask_widget(BERT, TOK, "the cat sat"), ["sentences", "string"]),
    Bad("bert.fill_mask_widget: k larger than the vocabulary", "range",
        lambda: bert.fill_mask_widget(BERT, TOK, ["the cat sat"], k=100), ["k", "8"]),
    Bad("bert.fill_mask_widget: a vocab list for the tokenizer", "type",
        lambda: bert.fill_mask_widget(BERT, VOCAB, ["the cat sat"]),
        ["tokenizer", "WordPieceTokenizer"]),
    Bad("bert.plot_input_embeddings: a segment id 2", "range",
        lambda: bert.plot_input_embeddings(["a", "b"], [0, 2]), ["segment_ids", "0 or 1"]),
    Bad("bert.plot_input_embeddings: tokens a string", "type",
        lambda: bert.plot_input_embeddings("ab", [0, 0]), ["tokens", "string"]),
    Bad("bert.plot_head_view: heads a float", "type",
        lambda: bert.plot_head_view(W3, LABELS3, heads=[0.5]), ["heads", "0.5"]),
    Bad("bert.plot_topk: a bare (token, probability) pair", "type",
        lambda: bert.plot_topk(("cat", 0.5)), "predictions"),
    Bad("bert.head_view_figure: a float layer", "type",
        lambda: bert.head_view_figure([W3], LABELS3, layer=0.0), "layer"),
    Bad("bert.attention_view: unknown view", "range",
        lambda: bert.attention_view([W3], LABELS3, view="neuron"), ["view='neuron'"]),
    # --- transformer
    Bad("transformer.plot_architecture: num_layers 0", "size",
        lambda: transformer.plot_architecture(0), "num_layers"),
    Bad("transformer.plot_alignment: an align index past the source", "range",
        lambda: transformer.plot_alignment(W2, list("abcd"), LABELS3, align=[0, 1, 9]),
        ["align[2]", "0..3"]),
    Bad("transformer.plot_length_accuracy: plain lists", "type",
        lambda: transformer.plot_length_accuracy({"rnn": [0.9, 0.8]}),
        ["results['rnn']", "LengthAccuracy"]),
    Bad("transformer.plot_label_smoothing: eps 1", "range",
        lambda: transformer.plot_label_smoothing(68, 1.0), ["eps", "(0, 1)"]),
    Bad("transformer.plot_label_smoothing: right outside the vocabulary", "range",
        lambda: transformer.plot_label_smoothing(10, 0.1, right=10), "right"),
    Bad("transformer.plot_translation_masks: an int mask", "type",
        lambda: transformer.plot_translation_masks(torch.ones(3, dtype=torch.long),
                                                   torch.ones(2, dtype=torch.bool), list("abc"),
                                                   list("xy")), ["src_real", "bool"]),
    Bad("transformer.plot_translation_masks: labels for the padding too", "size",
        lambda: transformer.plot_translation_masks(torch.tensor([True, False]),
                                                   torch.tensor([True]), list("ab"), ["x"]),
        ["src_words", "1 real tokens"]),
    Bad("transformer.plot_sign_test: a negative count", "range",
        lambda: transformer.plot_sign_test(-1, 3), "only_a"),
    Bad("transformer.sign_test_widget: no disagreement", "size",
        lambda: transformer.sign_test_widget(0, 0), "only_a + only_b"),
    Bad("transformer.translation_attention_widget: num_heads 0", "size",
        lambda: transformer.translation_attention_widget({"s": ()}, 1, 0), "num_heads"),
    Bad("transformer.translation_attention_widget: an example not a 4-tuple", "type",
        lambda: transformer.translation_attention_widget({"s": (["a"], ["b"])}, 1, 1),
        ["examples['s']", "(src_words, tgt_words, align, weights)"]),
    # --- tokenization
    Bad("tokenization.plot_segmentations: rows a list", "type",
        lambda: tokenization.plot_segmentations([["lo", "w"]]), ["rows", "mapping", "list"]),
    Bad("tokenization.plot_segmentations: a row a string", "type",
        lambda: tokenization.plot_segmentations({"low": "low"}), ["rows['low']", "string"]),
    Bad("tokenization.bpe_merges_widget: words a string", "type",
        lambda: tokenization.bpe_merges_widget({"low": 5}, "low"), ["words", "string"]),
    Bad("tokenization.tokenizer_widget: tokenizers a list", "type",
        lambda: tokenization.tokenizer_widget([str.split], "a b"), ["tokenizers", "list"]),
    Bad("tokenization.tokenizer_widget: a tokenizer that is not callable", "type",
        lambda: tokenization.tokenizer_widget({"words": "split"}, "a b"),
        ["tokenizers['words']", "callable"]),
    Bad("tokenization.tokenizer_widget: text not a string", "type",
        lambda: tokenization.tokenizer_widget({"words": str.split}, ["a", "b"]), "text"),
    Bad("tokenization.plot_merge_table: trace a dict", "type",
        lambda: tokenization.plot_merge_table({"a": 1}), ["trace", "MergeStep"]),
    # --- efficient
    Bad("efficient.plot_lsh_panels: ncols 3", "range",
        lambda: efficient.plot_lsh_panels(torch.rand(8, 4), torch.rand(8, 4), 2, 4, ncols=3),
        "ncols"),
    Bad("efficient.lsh_widget: q a list", "type",
        lambda: efficient.lsh_widget([[0.0] * 4] * 8, torch.rand(8, 4)), ["q", "list"]),
    Bad("efficient.plot_cost_curves: ys a list", "type",
        lambda: efficient.plot_cost_curves([64, 128], [[1, 2]]), ["ys", "mapping"]),
    Bad("efficient.plot_cost_curves: no ns", "size",
        lambda: efficient.plot_cost_curves([], {"full": []}), "ns"),
    Bad("efficient.plot_dependency: segment_len 0", "size",
        lambda: efficient.plot_dependency(torch.ones(4, 4, dtype=torch.bool), 0), "segment_len"),
    # --- more public callables, one row each
    Bad("helpers.check_numbers: strings are not numbers", "type",
        lambda: helpers.check_numbers("x", np.array(["a"])), ["x", "numbers", "<U1"]),
    Bad("helpers.check_mapping: an empty dict", "size",
        lambda: helpers.check_mapping("ys", {}, "label -> values"), ["ys", "empty"]),
    Bad("helpers.check_figure: an Axes", "type", lambda: helpers.check_figure("fig", _ax()),
        ["fig", "Figure", "Axes"]),
    Bad(f"{WG}.render_png: an Axes", "type", lambda: widgets.render_png(_ax()),
        ["fig", "Figure", "Axes"]),
    Bad(f"{WG}.figure_widget: render returns no Figure", "type",
        lambda: widgets.figure_widget(lambda: None, {}), ["render", "Figure", "NoneType"]),
    Bad("scoring.plot_scores: an Axes for fig", "type",
        lambda: scoring.plot_scores({"dot": [1.0, 2.0]}, fig=_ax()), ["fig", "Figure"]),
    Bad("scoring.plot_scores: scores of different lengths", "shape",
        lambda: scoring.plot_scores({"dot": [1.0, 2.0], "general": [1.0]}),
        ["scores", "same shape"]),
    Bad("scoring.plot_grouped_bars: a list of values", "type",
        lambda: scoring.plot_grouped_bars([0.9, 0.8]), ["values", "mapping"]),
    Bad("scoring.plot_grouped_bars: a string for ax", "type",
        lambda: scoring.plot_grouped_bars({"rnn": {"all": 0.9}}, ax="left"), ["ax", "Axes"]),
    Bad("vit.plot_patch_sequence: a patch size that does not divide", "shape",
        lambda: vit.plot_patch_sequence(IMAGES[0], 3), ["patch_size", "4x4"]),
    Bad("vit.plot_patch_sequence: a string image", "type",
        lambda: vit.plot_patch_sequence("digit.png", 2), ["image", "numbers"]),
    Bad("vit.plot_position_similarity: an Axes for fig", "type",
        lambda: vit.plot_position_similarity(torch.rand(5, 4), (2, 2), _ax()), ["fig", "Figure"]),
    Bad("bert.plot_masking: lengths that differ", "shape",
        lambda: bert.plot_masking(["a", "b"], ["a"], [True, False]),
        ["tokens", "masked_tokens", "same length"]),
    Bad("bert.plot_masking: tokens a string", "type",
        lambda: bert.plot_masking("ab", ["a", "b"], [True, False]), ["tokens", "string"]),
    Bad("efficient.lsh_panel_example: T 0", "size", lambda: efficient.lsh_panel_example(T=0),
        "T"),
    Bad("efficient.lsh_widget: n_buckets not offered", "range",
        lambda: efficient.lsh_widget(torch.rand(8, 4), torch.rand(8, 4), n_buckets=3),
        ["n_buckets=3", "16"]),
    Bad(f"{P}.plot_heatmap: a complex tensor", "dtype",
        lambda: plots.plot_heatmap(torch.ones(2, 2, dtype=torch.complex64)),
        ["matrix", "numbers", "complex64"]),
    Bad("efficient.lsh_widget: integer q and k", "dtype",
        lambda: efficient.lsh_widget(torch.ones(8, 4, dtype=torch.long), torch.ones(8, 4)),
        ["q", "floating-point", "q.float()"]),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


# --- legitimate inputs: accepted and documented in the docstrings


def test_lists_of_lists_are_converted():
    """``to_numpy`` turns nested lists into arrays: plot functions take them like tensors."""
    ax = plots.plot_attention([[0.2, 0.8], [1.0, 0.0]])
    assert ax.images[0].get_array().shape == (2, 2)


def test_any_numeric_dtype_is_drawn():
    """Integer, bool and float64 data (from numpy, or typed in) are drawn as numbers."""
    ax = plots.plot_bars(torch.tensor([1, 2]), ylim=None)
    assert [p.get_height() for p in ax.patches] == [1, 2]
    plots.plot_heatmap(np.eye(2, dtype=bool))
    plots.plot_attention(torch.eye(3, dtype=torch.float64))


def test_tensors_that_require_grad_are_detached():
    weights = torch.softmax(torch.randn(2, 2, requires_grad=True), -1)
    ax = plots.plot_heatmap(weights)
    np.testing.assert_allclose(ax.images[0].get_array(), weights.detach().numpy())
    assert isinstance(helpers.to_numpy("x", weights), np.ndarray)


def test_nan_and_inf_cells_are_drawn_blank():
    """NaN (and +-inf, e.g. masked scores) in a heatmap are drawn as empty cells, not refused;
    the colour scale of the diverging map ignores them."""
    ax = plots.plot_heatmap([[np.nan, 1.0], [-np.inf, -2.0]], diverging=True)
    assert ax.images[0].get_clim() == (-2.0, 2.0)


def test_theme_is_checked_when_called_and_works_as_a_context():
    with style.theme("dark"):
        assert plt.rcParams["axes.facecolor"] == style.THEMES["dark"]["bg"]
    assert plt.rcParams["axes.facecolor"] != style.THEMES["dark"]["bg"]


def test_uint8_images_are_scaled_to_0_1():
    """An RGB image of uint8 pixels (from a file or numpy) draws like the same image in [0, 1]."""
    pixels = torch.randint(0, 256, (3, 4, 4), dtype=torch.uint8)
    ax_bytes = vit.plot_patch_grid(pixels, 2, _ax())
    ax_float = vit.plot_patch_grid(pixels / 255.0, 2, _ax())
    np.testing.assert_allclose(ax_bytes.images[0].get_array(), ax_float.images[0].get_array())


def test_cross_attention_maps_need_no_labels_in_head_widget():
    """Without labels, head_widget also shows non-square (cross-attention) maps."""
    box = widgets.head_widget(torch.softmax(torch.rand(2, 3, 4), -1), None)
    assert bytes(box.children[1].value).startswith(b"\x89PNG")
