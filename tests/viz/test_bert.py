"""lecturekit.viz.bert: input embeddings, masking, head view, bertviz with its fallback, fill-mask widget."""

import html
import re
import socket

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Annotation

from lecturekit.models.bert import BertConfig, BertForPreTraining, fill_mask
from lecturekit.tokenization import WordPieceTokenizer
from lecturekit.viz import bert as vb
from lecturekit.viz.style import palette, theme

TOKENS = ["[CLS]", "my", "dog", "is", "cute", "[SEP]"]


SENTENCES = ["my dog is cute", "he likes playing", "the man went to the store"]


def _attention(H: int = 2, T: int = len(TOKENS), seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(3 * torch.randn(H, T, T, generator=g), -1)  # (H, T, T)


@pytest.fixture(scope="module")
def tiny_bert():
    tok = WordPieceTokenizer.train(SENTENCES * 3, vocab_size=60)
    torch.manual_seed(0)
    model = BertForPreTraining(BertConfig.tiny(vocab_size=len(tok), num_layers=1)).eval()
    return model, tok


def test_plot_head_view_draws_one_line_per_visible_weight():
    w = _attention()
    heads = [1]
    _, given = plt.subplots()
    ax = vb.plot_head_view(w, TOKENS, heads=heads, ax=given, title="layer 1")
    assert ax is given and ax.get_title() == "layer 1"
    visible = int((w[heads] > 0.02).sum())
    assert len(ax.get_lines()) == visible
    alphas = sorted(line.get_alpha() for line in ax.get_lines())
    expected = sorted(min(1.0, float(x)) for x in w[heads][w[heads] > 0.02])
    np.testing.assert_allclose(alphas, expected, rtol=1e-6)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("dog") == 2 and texts.count("[SEP]") == 2  # left and right column
    assert texts.count("■") == len(heads) and "from" in texts and "to" in texts
    # all heads by default: more lines, one square per head
    ax2 = vb.plot_head_view(w, TOKENS)
    assert len(ax2.get_lines()) == int((w > 0.02).sum())
    assert [t.get_text() for t in ax2.texts].count("■") == 2


def test_plot_head_view_line_goes_from_query_to_key():
    T = len(TOKENS)
    w = torch.zeros(1, T, T)
    w[0, torch.arange(T), (torch.arange(T) - 1) % T] = 1.0  # each token -> the previous one
    ax = vb.plot_head_view(w, TOKENS)
    ends = sorted((line.get_ydata()[0], line.get_ydata()[1]) for line in ax.get_lines())
    assert ends == sorted((-i, -((i - 1) % T)) for i in range(T))


def test_head_view_figure_has_one_panel_per_head():
    atts = [_attention(3, seed=s)[None] for s in range(2)]  # per layer (1, H, T, T)
    fig = vb.head_view_figure(atts, TOKENS, layer=0)
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == [f"layer 1, head {h}" for h in (1, 2, 3)]
    fig = vb.head_view_figure(atts, TOKENS)  # default: the last layer
    assert fig.axes[0].get_title() == "layer 2, head 1"
    assert len(fig.axes[1].get_lines()) == int((atts[1][0, 1] > 0.02).sum())


def test_plot_topk_bars_and_labels():
    preds = [("roosevelt", 0.7), ("bears", 0.2), ("dog", 0.1)]
    ax = vb.plot_topk(preds, title="i think teddy [MASK] is a great president")
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, [0.7, 0.2, 0.1])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["roosevelt", "bears", "dog"]
    assert [t.get_text() for t in ax.texts] == ["0.70", "0.20", "0.10"]
    assert ax.get_ylabel() == "probability" and "top 3" in ax.get_xlabel()
    _, given = plt.subplots()
    assert vb.plot_topk(preds[:1], given) is given and len(given.patches) == 1


def test_plot_input_embeddings_and_masking_draw_boxes():
    ax = vb.plot_input_embeddings(TOKENS, [0, 0, 0, 0, 0, 0])
    assert len(ax.patches) == 4 * len(TOKENS)  # input, token, segment, position rows
    texts = [t.get_text() for t in ax.texts]
    assert {"Input", "Token", "Segment", "Position"} <= set(texts)
    assert texts.count("+") == 2 * len(TOKENS)
    masked = ["[CLS]", "[MASK]", "dog", "cat", "cute", "[SEP]"]
    chosen = [False, True, True, True, False, False]
    ax = vb.plot_masking(TOKENS, masked, chosen)
    assert len(ax.patches) == 2 * len(TOKENS)  # a box per token, input and model's view
    arrows = [t for t in ax.texts if isinstance(t, Annotation)]
    colors = palette()  # [MASK] -> colour 0, random token -> colour 5, unchanged -> colour 2
    assert [a.arrow_patch.get_edgecolor() for a in arrows] == [
        to_rgba(colors[0]),
        to_rgba(colors[2]),
        to_rgba(colors[5]),
    ]
    assert any("[MASK] (80 %)" in t.get_text() for t in ax.texts)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: vb.plot_head_view(torch.rand(2, 3, 3), TOKENS), r"weights must be \(H, T, T\)"),
        (lambda: vb.plot_head_view(torch.rand(6, 6), TOKENS), r"got \(6, 6\)"),
        (
            lambda: vb.plot_head_view(_attention(), TOKENS, heads=[2]),
            r"heads\[0\] must be a head index in 0..1, got 2",
        ),
        (lambda: vb.head_view_figure([_attention()], TOKENS, layer=1), "layer=1 is out of range"),
        (lambda: vb.head_view_figure([], TOKENS), "attentions is empty"),
        (
            lambda: vb.head_view_figure([_attention()[None].repeat(2, 1, 1, 1)], TOKENS),
            r"for one sentence, got \(2, 2, 6, 6\)",
        ),
        (lambda: vb.plot_topk([]), "predictions is empty"),
        (lambda: vb.plot_topk([("a", 1.5)]), r"must lie in \[0, 1\]"),
        (lambda: vb.plot_topk(["abc"]), r"\(token, probability\) pairs"),
        (lambda: vb.plot_input_embeddings(TOKENS, [0, 1]), r"tokens \(6\) and segment_ids \(2\)"),
        (lambda: vb.plot_masking(TOKENS, TOKENS[:2], [True]), "must have the same length"),
        (lambda: vb.attention_view([_attention()], TOKENS, view="neuron"), "view='neuron'"),
        (lambda: vb.attention_view([_attention()], TOKENS[:3]), r"T = len\(tokens\) = 3"),
        (lambda: vb.attention_view([], TOKENS), "attentions is empty"),
        (
            lambda: vb.attention_view([_attention()], TOKENS, sentence_b_start=6),
            "sentence_b_start=6",
        ),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection or resolve a name fails the test."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise OSError("network access in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return calls


def _srcdoc(html_object) -> str:
    match = re.fullmatch(r'<div><iframe srcdoc="(.*)" style="[^"]*"></iframe></div>', html_object.data,
                         flags=re.S)  # fmt: skip
    assert match, html_object.data[:200]
    return html.unescape(match.group(1))


@pytest.mark.parametrize("view", ["head", "model"])
def test_attention_view_is_bertviz_in_an_iframe_with_a_fallback(view, no_network):
    atts = [_attention(seed=s)[None] for s in range(2)]  # per layer (1, H, T, T)
    out = vb.attention_view(atts, TOKENS, view=view, sentence_b_start=3)
    doc = _srcdoc(out)
    assert "<iframe" in out.data and '"' not in out.data.split('srcdoc="')[1].split('" style')[0]
    # bertviz's markup: its require.js loader and the view's container / data
    assert "require.min.js" in doc and "requirejs" in doc
    assert ("bertviz" in doc) and all(t in doc for t in ("cute", "[SEP]"))
    # the fallback: notice and a PNG of the static head view, hidden until a script fails
    assert vb._FALLBACK_NOTICE in doc
    png = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', doc)
    assert png and len(png.group(1)) > 1000
    assert 'id="lk-fallback" style="display:none"' in doc
    assert no_network == []  # the kernel made no request


def test_attention_view_model_and_head_differ(no_network):
    atts = [_attention(seed=s)[None] for s in range(2)]
    head, model = (_srcdoc(vb.attention_view(atts, TOKENS, view=v)) for v in ("head", "model"))
    assert head != model
    assert "height:321px" in vb.attention_view(atts, TOKENS, height=321).data


def test_fill_mask_widget_redraws_when_its_controls_change(tiny_bert):
    model, tok = tiny_bert
    widget = vb.fill_mask_widget(model, tok, SENTENCES, k=3)
    sentence, position = widget.children[0].children
    image = widget.children[1]
    assert sentence.options == tuple(SENTENCES) and position.max == 3  # "my dog is cute"
    first = bytes(image.value)
    assert first.startswith(b"\x89PNG")
    position.value = 2
    second = bytes(image.value)
    assert second != first
    sentence.value = SENTENCES[2]
    assert position.max == len(SENTENCES[2].split()) - 1
    assert bytes(image.value) not in (first, second)


def test_fill_mask_widget_shows_fill_mask_top_k(tiny_bert, monkeypatch):
    model, tok = tiny_bert
    drawn = []
    real = vb.plot_topk

    def spy(predictions, ax=None, title=None):
        drawn.append((predictions, title))
        return real(predictions, ax, title)

    monkeypatch.setattr(vb, "plot_topk", spy)
    widget = vb.fill_mask_widget(model, tok, SENTENCES, k=4)
    widget.children[0].children[1].value = 1  # hide "dog"
    predictions, title = drawn[-1]
    assert predictions == fill_mask(model, tok, "my [MASK] is cute", k=4)[0]
    assert "my [MASK] is cute" in title and "dog" in title


def test_fill_mask_widget_rejects_bad_input(tiny_bert):
    model, tok = tiny_bert
    with pytest.raises(ValueError, match="sentences must not be empty"):
        vb.fill_mask_widget(model, tok, [])
    with pytest.raises(ValueError, match="sentences must be non-empty strings"):
        vb.fill_mask_widget(model, tok, ["my dog", "  "])
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        vb.fill_mask_widget(model, tok, SENTENCES, k=0)


PAIRS = [("my dog is cute", "he likes playing"), ("the man went to the store", "my dog is cute")]


def test_masking_widget_draws_what_mask_tokens_does(tiny_bert):
    pytest.importorskip("ipywidgets")
    from lecturekit.objectives import mask_tokens
    from lecturekit.viz.widgets import render_png, widget_controls

    _, tok = tiny_bert
    box = vb.masking_widget([*PAIRS, PAIRS[0]], tok, prob=0.3, seed=4)
    controls = widget_controls(box)
    labels = ["my dog is cute / he likes playing", "the man went to the store / my dog is cute"]
    assert list(controls["pair"].options) == labels  # a repeated pair is offered once
    assert (controls["prob"].value, controls["seed"].value) == (0.3, 4)

    x = torch.tensor([tok.encode_pair(*PAIRS[0])[0]])  # the notebook's show_masking
    masked, chosen = mask_tokens(x, vocab_size=len(tok), prob=0.3,
                                 generator=torch.Generator().manual_seed(4))  # fmt: skip
    with theme("light"):  # as figure_widget draws
        fig = Figure(figsize=(11, 2.4))
        vb.plot_masking(tok.convert_ids_to_tokens(x[0].tolist()),
                        tok.convert_ids_to_tokens(masked[0].tolist()),
                        (chosen[0] != -100).tolist(), fig.add_subplot())  # fmt: skip
        fig.tight_layout()
        picture = render_png(fig)
    image = box.children[1]
    assert bytes(image.value) == picture

    seen = {bytes(image.value)}
    for name, value in (("seed", 5), ("prob", 0.6), ("pair", labels[1])):
        controls[name].value = value
        assert bytes(image.value) not in seen, f"no redraw after {name} = {value!r}"
        seen.add(bytes(image.value))


def test_masking_widget_grid_values_are_settings_of_the_widget(tiny_bert):
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    _, tok = tiny_bert
    controls = widget_controls(vb.masking_widget(PAIRS, tok))
    grid = vb.masking_widget_grid(PAIRS)
    assert grid["pair"] == list(controls["pair"].options)[:2] and 0.15 in grid["prob"]
    for name, values in grid.items():
        assert controls[name].value in values  # the grid starts where the widget does
        for value in values:
            controls[name].value = value
            assert controls[name].value == pytest.approx(value)
    assert vb.masking_widget_grid(PAIRS[:1])["pair"] == ["my dog is cute / he likes playing"]


def test_fill_mask_widget_grid_values_are_settings_of_the_widget(tiny_bert):
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.widgets import widget_controls

    model, tok = tiny_bert
    sentences = [*SENTENCES, "he likes my dog"]
    grid = vb.fill_mask_widget_grid(sentences, n_words=4)
    assert grid == {"sentence": sentences[:1] + sentences[2:], "position": [0, 1, 2, 3]}
    controls = widget_controls(vb.fill_mask_widget(model, tok, sentences))
    for sentence in grid["sentence"]:
        controls["sentence"].value = sentence
        for position in grid["position"]:
            controls["position"].value = position
            assert controls["position"].value == position, (sentence, position)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda tok: vb.masking_widget([], tok), "pairs must be a non-empty list"),
        (lambda tok: vb.masking_widget("my dog / is cute", tok), "pairs must be a non-empty"),
        (lambda tok: vb.masking_widget([("my dog", "")], tok), r"pairs\[0\] must be two"),
        (lambda tok: vb.masking_widget(PAIRS, "tok"), "tokenizer must be a WordPieceTokenizer"),
        (lambda tok: vb.masking_widget(PAIRS, tok, prob=0.7), r"prob must be a number in \[0.05"),
        (lambda tok: vb.masking_widget(PAIRS, tok, prob=0.12), "prob must be a multiple of"),
        (lambda tok: vb.masking_widget(PAIRS, tok, seed=21), "seed=21 is beyond"),
        (lambda tok: vb.masking_widget(PAIRS, tok, seed=-1), "seed"),
        (lambda tok: vb.masking_widget_grid([]), "pairs must be a non-empty list"),
        (lambda tok: vb.fill_mask_widget_grid(SENTENCES, n_words=0), "n_words must be a"),
        (lambda tok: vb.fill_mask_widget_grid(SENTENCES, n_words=9), "at least one sentence"),
    ],
)
def test_masking_and_grids_reject_bad_input(tiny_bert, call, message):
    pytest.importorskip("ipywidgets")
    with pytest.raises(ValueError, match=message):
        call(tiny_bert[1])
