"""Lecture 08 plots and widgets: BERT's input embeddings, the masking procedure, attention.

Public API::

    plot_input_embeddings(tokens, segment_ids, ax=None)       # token + segment + position rows
    plot_masking(tokens, masked_tokens, chosen, ax=None)      # what 80/10/10 did to a sentence
    plot_head_view(weights, tokens, heads=None, ax=None)      # static bertviz-style head view
    plot_topk(predictions, ax=None, title=None)               # fill-in-the-blank probabilities
    attention_view(attentions, tokens, view="head", sentence_b_start=None)
    #   bertviz head_view / model_view in an iframe (renders on first run in JupyterLab 4);
    #   when the browser cannot fetch bertviz's scripts (offline) the iframe shows
    #   plot_head_view instead, with a one-line notice. Returns an IPython HTML object.
    fill_mask_widget(model, tokenizer, sentences, k=5)        # pick a sentence and a word
    fill_mask_widget_grid(sentences, n_words=5)               # the values a static page offers
    masking_widget(pairs, tokenizer, prob=0.15, seed=0)       # pair, prob, seed -> plot_masking
    masking_widget_grid(pairs)                                # the values a static page offers

Lecture 08; Devlin et al. 2019 figure 2; Vig 2019 (bertviz).
"""

from __future__ import annotations

import base64
import html
import numbers
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Text

from lecturekit.utils.checks import (
    check_choice,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_seed,
    check_strings,
)
from lecturekit.viz.helpers import check_list, get_axes, require_ipywidgets, to_numpy
from lecturekit.viz.plots import plot_bars
from lecturekit.viz.style import palette

__all__ = [
    "plot_input_embeddings",
    "plot_masking",
    "plot_head_view",
    "plot_topk",
    "head_view_figure",
    "attention_view",
    "fill_mask_widget",
    "fill_mask_widget_grid",
    "masking_widget",
    "masking_widget_grid",
]


def _box(ax: Axes, x: float, y: float, text: str, color: str, w: float = 0.9) -> list[Artist]:
    """A word in a rounded box of ``color`` centred at (x, y); returns the box and the word.
    The callers set the Axes' limits, so the box is added without updating the data limits
    (``add_patch`` would trace its rounded outline for them: half the time of a box)."""
    box = ax.add_artist(
        FancyBboxPatch(
            (x - w / 2, y - 0.32), w, 0.64, boxstyle="round,pad=0.02", fc=color, ec=color,
            alpha=0.35, lw=1.2,
        )
    )  # fmt: skip
    return [box, ax.text(x, y, text, ha="center", va="center", fontsize="medium")]


def _e(name: object) -> str:
    """$E_{name}$ in mathtext, e.g. E_[CLS], E_##ing."""
    name = str(name)
    word = name.lstrip("#")
    hashes = r"\#" * (len(name) - len(word))
    return rf"$E_{{{hashes}\mathrm{{{word.replace('_', ' ')}}}}}$"


def plot_input_embeddings(
    tokens: Sequence[str], segment_ids: Sequence[int], ax: Axes | None = None
) -> Axes:
    """BERT's input = token + segment + position embeddings, one column per token (the
    slides' "[CLS] my dog is cute [SEP] he likes play ##ing [SEP]" table).

    ``segment_ids``: 0 (sentence A) or 1 (sentence B) per token, a list or a tensor.

    Lecture 08; Devlin et al. 2019 figure 2.
    """
    tokens = check_strings("tokens", tokens)
    segments = to_numpy("segment_ids", segment_ids, 1).tolist()
    if len(tokens) != len(segments):
        raise ValueError(f"tokens ({len(tokens)}) and segment_ids ({len(segments)}) differ")
    bad = [s for s in segments if isinstance(s, bool) or s not in (0, 1)]
    if bad:
        raise ValueError(f"segment_ids must be 0 or 1 (sentence A or B), got {bad[0]!r}")
    segment_ids = segments
    T = len(tokens)
    ax = get_axes(ax, (max(6.0, 0.95 * T + 2), 3.6))
    colors = palette()
    rows = [
        ("Input", list(tokens), colors[4]),
        ("Token", [_e(t) for t in tokens], colors[1]),
        ("Segment", [_e("AB"[int(s)]) for s in segment_ids], colors[2]),
        ("Position", [_e(i) for i in range(T)], colors[0]),
    ]
    for r, (name, texts, color) in enumerate(rows):
        y = -r * (1.1 if r == 0 else 1.0) - (0.3 if r else 0)
        ax.text(-0.7, y, name, ha="right", va="center", fontsize="medium", fontweight="bold")
        for i, text in enumerate(texts):
            _box(ax, i, y, text, color if r else colors[6 if name == "Input" else 0])
            if r >= 2:
                ax.text(i, y + 0.5, "+", ha="center", va="center", fontsize="large")
    ax.set_xlim(-2.4, T - 0.4)
    ax.set_ylim(-3.7, 0.6)
    ax.axis("off")
    return ax


def plot_masking(
    tokens: Sequence[str],
    masked_tokens: Sequence[str],
    chosen: Sequence[bool],
    ax: Axes | None = None,
) -> Axes:
    """Original tokens above what the model sees; chosen positions coloured by what happened
    to them: replaced by [MASK] (80 %), by a random token (10 %) or left unchanged (10 %).

    Lecture 08; Devlin et al. 2019 section 3.1.
    """
    tokens = check_strings("tokens", tokens)
    masked_tokens = check_strings("masked_tokens", masked_tokens)
    if not len(tokens) == len(masked_tokens) == len(chosen):
        raise ValueError(
            f"tokens ({len(tokens)}), masked_tokens ({len(masked_tokens)}) and chosen "
            f"({len(chosen)}) must have the same length"
        )
    ax = get_axes(ax, (max(6.0, 0.95 * len(tokens) + 2), 2.4))
    _masking_frame(ax, tokens)
    _masked_row(ax, tokens, masked_tokens, chosen)
    return ax


def _masking_frame(ax: Axes, tokens: Sequence[str]) -> None:
    """All of ``plot_masking`` but the row the model sees: the input row, the row labels and
    the legend."""
    T = len(tokens)
    for i, orig in enumerate(tokens):
        _box(ax, i, 0, orig, "#999999")
    ax.text(-0.7, 0, "input", ha="right", va="center", fontweight="bold")
    ax.text(-0.7, -1.2, "model sees", ha="right", va="center", fontweight="bold")
    for j, (name, color) in enumerate(_masking_kinds().items()):
        ax.text(j * (T / 3), -2.05, f"■ {name}", color=color, ha="left", va="center")
    ax.set_xlim(-2.6, T - 0.4)
    ax.set_ylim(-2.4, 0.5)
    ax.axis("off")


def _masking_kinds() -> dict[str, str]:
    """What the 80 / 10 / 10 rule did to a chosen token -> its colour in ``plot_masking``."""
    colors = palette()
    return {
        "[MASK] (80 %)": colors[0],
        "random token (10 %)": colors[5],
        "unchanged (10 %)": colors[2],
    }


def _masked_row(
    ax: Axes, tokens: Sequence[str], masked_tokens: Sequence[str], chosen: Sequence[bool]
) -> list[Artist]:
    """``plot_masking``'s lower row, what the model sees: each token boxed in the colour of
    what happened to it (grey if not chosen), an arrow down to each chosen one. Returns the
    boxes, words and arrows drawn."""
    kinds = list(_masking_kinds().values())
    drawn = []
    for i, (orig, new, c) in enumerate(zip(tokens, masked_tokens, chosen, strict=True)):
        color = kinds[0 if new == "[MASK]" else 1 if new != orig else 2] if c else "#999999"
        drawn += _box(ax, i, -1.2, new, color)
        if c:
            drawn.append(ax.annotate("", (i, -0.85), (i, -0.35),
                                     arrowprops={"arrowstyle": "->", "color": color}))  # fmt: skip
    return drawn


def plot_head_view(
    weights: torch.Tensor | np.ndarray,
    tokens: Sequence[str],
    heads: Sequence[int] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Who attends to whom: tokens on the left attend to tokens on the right; a line's
    opacity is the attention weight, one colour per head (as bertviz's head view).

    Args:
        weights: (H, T, T) one layer's attention for one sentence (rows: queries).
        tokens: the T tokens.
        heads: which heads to draw (0-based, default all).

    Returns:
        The Axes: one line per (head, query, key) with weight > 0.02, the tokens twice
        (2 T texts), a coloured square per head and the column headers "from" / "to".

    Lecture 08; Vig 2019 (bertviz head view).
    """
    w = np.asarray(torch.as_tensor(weights, dtype=torch.float32))
    if w.ndim != 3 or w.shape[1] != w.shape[2] or w.shape[1] != len(tokens):
        raise ValueError(
            f"weights must be (H, T, T) with T = len(tokens) = {len(tokens)}, got {w.shape}"
        )
    heads = list(range(w.shape[0])) if heads is None else list(heads)
    heads = [h.item() if isinstance(h, torch.Tensor) and h.ndim == 0 else h for h in heads]
    for i, h in enumerate(heads):
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) or not 0 <= h < w.shape[0]:
            raise ValueError(f"heads[{i}] must be a head index in 0..{w.shape[0] - 1}, got {h!r}")
    T = len(tokens)
    ax = get_axes(ax, (4.2, 0.32 * T + 1.2))
    colors = palette()
    for h in heads:
        for i in range(T):
            for j in range(T):
                if w[h, i, j] > 0.02:
                    ax.plot([0.12, 0.88], [-i, -j], color=colors[h % len(colors)],
                            alpha=float(min(1.0, w[h, i, j])), lw=2.2)  # fmt: skip
    for i, tok in enumerate(tokens):
        ax.text(0.1, -i, tok, ha="right", va="center", fontsize="medium")
        ax.text(0.9, -i, tok, ha="left", va="center", fontsize="medium")
    for k, h in enumerate(heads):
        ax.text(0.5 + (k - (len(heads) - 1) / 2) * 0.09, 1.0, "■", color=colors[h % len(colors)],
                ha="center", va="center", fontsize="large")  # fmt: skip
    ax.text(0.1, 1.0, "from", ha="right", va="center", fontsize=9, color="#777777")
    ax.text(0.9, 1.0, "to", ha="left", va="center", fontsize=9, color="#777777")
    ax.set_xlim(-0.25, 1.25)
    ax.set_ylim(-T + 0.4, 1.5)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax


def head_view_figure(
    attentions: Sequence[torch.Tensor], tokens: Sequence[str], layer: int = -1
) -> Figure:
    """One panel per head of ``layer``, each a ``plot_head_view``.

    Args:
        attentions: per layer (1, H, T, T) or (H, T, T), e.g. ``model(...).attentions``.
        tokens: the T tokens.
        layer: which layer (0-based; negative counts from the end, as in Python).

    Returns:
        A Figure with H Axes, titled "layer l, head h" (1-based).

    Lecture 08; Vig 2019 (bertviz head view).
    """
    if not len(attentions):
        raise ValueError("attentions is empty: expected one (1, H, T, T) tensor per layer")
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral):
        raise ValueError(f"layer must be an integer (0-based; -1 = the last), got {layer!r}")
    if not -len(attentions) <= layer < len(attentions):
        raise ValueError(f"layer={layer} is out of range for {len(attentions)} layers")
    w = torch.as_tensor(attentions[layer]).detach()
    if w.ndim == 4 and w.shape[0] != 1:
        raise ValueError(f"attentions must be (1, H, T, T) for one sentence, got {tuple(w.shape)}")
    w = w[0] if w.ndim == 4 else w  # (1, H, T, T) -> (H, T, T)
    H = w.shape[0]
    fig = Figure(figsize=(3.0 * H, 0.3 * len(tokens) + 1.4))
    layer_no = layer % len(attentions) + 1
    for h in range(H):
        ax = fig.add_subplot(1, H, h + 1)
        plot_head_view(w, tokens, heads=[h], ax=ax, title=f"layer {layer_no}, head {h + 1}")
    fig.tight_layout()
    return fig


def plot_topk(
    predictions: Sequence[tuple[str, float]], ax: Axes | None = None, title: str | None = None
) -> Axes:
    """Bars of the top-k (token, probability) pairs of one [MASK], e.g. one entry of
    ``lecturekit.models.bert.fill_mask``; returns the Axes (k bars, probabilities written
    above them).

    Lecture 08; Devlin et al. 2019 section 3.1 (masked LM).
    """
    predictions = list(predictions)
    if not predictions:
        raise ValueError("predictions is empty: expected (token, probability) pairs")
    if any(not isinstance(p, tuple | list) or len(p) != 2 for p in predictions):
        raise ValueError(f"predictions must be (token, probability) pairs, got {predictions[0]!r}")
    probs = [float(p) for _, p in predictions]
    if any(not 0.0 <= p <= 1.0 for p in probs):
        raise ValueError(f"probabilities must lie in [0, 1], got {probs}")
    tokens = [str(t) for t, _ in predictions]
    ax = plot_bars(probs, tokens, ax, title=title, ylabel="probability")
    ax.set_xlabel(f"prediction for [MASK] (top {len(probs)})")
    return ax


_FALLBACK_NOTICE = (
    "bertviz could not load its scripts (offline?): showing lecturekit's static head view."
)


def attention_view(
    attentions: Sequence[torch.Tensor],
    tokens: Sequence[str],
    view: str = "head",
    sentence_b_start: int | None = None,
    height: int | None = None,
):
    """bertviz's interactive ``head_view`` or ``model_view`` that renders on first run in
    JupyterLab 4, with an offline fallback.

    bertviz loads require.js, d3 and jQuery from a CDN. In JupyterLab 4 its usual output fails
    on the first run ("require is not defined", bertviz issue #53), so the view is placed in an
    iframe, where scripts run in order. The iframe also carries a static head view
    (``head_view_figure`` of the last layer, as a PNG) that it shows, with a one-line notice,
    if any script fails to load: offline the cell is never blank. The kernel itself makes no
    network request.

    Args:
        attentions: per layer (1, H, T, T) (or (H, T, T)) for one sentence (pair).
        tokens: T token strings.
        view: "head" or "model".
        sentence_b_start: index of sentence B's first token (bertviz then offers A -> B etc.).
        height: iframe height in pixels (default from T or the number of layers).

    Returns:
        ``IPython.display.HTML``: ``<div><iframe srcdoc="...">`` holding bertviz's markup and
        the hidden fallback (notice + PNG). It contains a random id: in notebooks mark the cell
        ``# NBVAL_IGNORE_OUTPUT``.

    Lecture 08; Vig 2019 (bertviz).
    """
    from IPython.display import HTML

    from lecturekit.viz.widgets import render_png

    check_choice("view", view, ("head", "model"))
    if not len(attentions):
        raise ValueError("attentions is empty: expected one (1, H, T, T) tensor per layer")
    # (H, T, T) -> (1, H, T, T): bertviz wants a batch of one
    atts = tuple(
        a if a.ndim == 4 else a[None] for a in (torch.as_tensor(x).detach() for x in attentions)
    )
    T = len(tokens)
    for a in atts:
        if a.ndim != 4 or a.shape[0] != 1 or a.shape[-2:] != (T, T):
            raise ValueError(
                f"attentions must be (1, H, T, T) with T = len(tokens) = {T}, got {tuple(a.shape)}"
            )
    if sentence_b_start is not None and not 0 < sentence_b_start < T:
        raise ValueError(f"sentence_b_start={sentence_b_start} must lie in (0, T={T})")
    from bertviz import head_view, model_view

    show = head_view if view == "head" else model_view
    viz_html = show(atts, list(tokens), sentence_b_start=sentence_b_start, html_action="return")
    png = base64.b64encode(render_png(head_view_figure(atts, tokens), dpi=72)).decode()
    doc = (
        '<html><head><meta charset="utf-8"><script>'
        "function lkFallback(){document.getElementById('lk-fallback').style.display='block';"
        "var v=document.getElementById('lk-bertviz');if(v){v.style.display='none';}}"
        # a script that fails to load (require.js, or d3/jQuery that require.js inserts), or
        # "require(js) is not defined", switches to the fallback; other errors do not
        "window.addEventListener('error',function(e){var t=e.target;"
        "if((t&&t.tagName==='SCRIPT')||/require/.test(e.message||'')){lkFallback();}},true);"
        "window.addEventListener('load',function(){if(typeof requirejs==='undefined'){"
        "lkFallback();}});</script></head><body style='font-family:sans-serif'>"
        f'<div id="lk-fallback" style="display:none"><p>{_FALLBACK_NOTICE}</p>'
        f'<img alt="static head view" src="data:image/png;base64,{png}"></div>'
        f'<div id="lk-bertviz">{viz_html.data}</div></body></html>'
    )
    if height is None:
        n_layers = len(atts)
        height = 22 * len(tokens) + 220 if view == "head" else 110 * n_layers + 260
    return HTML(
        f'<div><iframe srcdoc="{html.escape(doc)}" style="width:100%;height:{height}px;'
        'border:0"></iframe></div>'
    )


def fill_mask_widget(model, tokenizer, sentences: Sequence[str], k: int = 5):
    """Pick a sentence and which word to hide; bars show BERT's top-k guesses for it.

    Args:
        model: a ``BertForPreTraining`` (eval mode), tokenizer its ``WordPieceTokenizer``.
        sentences: the choices (words separated by spaces; " [SEP] " starts sentence B).
        k: how many guesses to show.

    Returns:
        An ipywidgets VBox: a sentence dropdown and a word slider above the bar chart.

    Lecture 08; Devlin et al. 2019 section 3.1 (masked LM).
    """
    from lecturekit.models.bert import BertForPreTraining, fill_mask
    from lecturekit.tokenization import WordPieceTokenizer
    from lecturekit.viz.widgets import KeptCanvas, figure_widget, module_state

    if not isinstance(model, BertForPreTraining):
        raise ValueError(
            "model must be a BertForPreTraining (a masked LM; a left-to-right LM cannot fill "
            f"in a blank from both sides), got {type(model).__name__}"
        )
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    sentences = check_strings("sentences", sentences)
    if any(not s.split() for s in sentences):
        raise ValueError(f"sentences must be non-empty strings, at least one, got {sentences}")
    check_positive_int("k", k)
    if k > len(tokenizer):
        raise ValueError(f"k={k} is larger than the vocabulary ({len(tokenizer)} tokens)")
    w = require_ipywidgets()
    sentence = w.Dropdown(options=list(sentences), value=sentences[0], description="sentence",
                          layout={"width": "480px"})  # fmt: skip
    position = w.IntSlider(value=0, min=0, max=len(sentences[0].split()) - 1, description="word")

    def follow(change: dict) -> None:  # registered first: runs before the redraw
        position.max = len(change["new"].split()) - 1

    sentence.observe(follow, names="value")

    kept: list[Figure] = []  # the Figure, built by the first render and then updated in place

    def render(sentence: str, position: int) -> Figure:
        words = sentence.split()
        position = min(position, len(words) - 1)
        hidden = words[position]
        words[position] = "[MASK]"
        text = " ".join(words)
        top = fill_mask(model, tokenizer, text, k=k)[0]
        probs, tokens = _topk_values(top)
        title = f"{text}\n(hidden word: {hidden})"
        if not kept:
            fig = Figure(figsize=(6.0, 3.2))
            KeptCanvas(fig)
            ax = plot_topk(top, fig.add_subplot(), title=title)
            fig.canvas.background = "the y axis"
            # where the tokens are centred and the Axes' edges, in pixels, at the subplot
            # parameters tight_layout starts from (the Figure's own: nothing moved them yet)
            font = ax.xaxis.get_majorticklabels()[0].get_fontproperties()
            probe = Text(0, 0, "", fontproperties=font, figure=fig)  # measures a token
            ax.get_xlim()  # (the limits the bars give, set now)
            centres = ax.transData.transform(np.c_[range(len(probs)), [0] * len(probs)])[:, 0]
            kept.extend([fig, probe, centres, ax.bbox.x0, ax.bbox.x1])
        else:  # the bars drawn anew on the same Axes, as on a new one
            fig = kept[0]
            ax = fig.axes[0]
            for artist in [*ax.containers, *ax.texts]:
                artist.remove()
            ax.set_prop_cycle(None)  # the bars' colour: the first of the cycle
            ax.ignore_existing_data_limits = True
            plot_topk(top, ax, title=title)
        # the bars, their numbers, the tokens under them and the title change; the spines are
        # drawn over the bars (the y axis, its ticks and label stay)
        for artist in [*ax.patches, *ax.texts, ax.title, ax.xaxis, *ax.spines.values()]:
            artist.set_animated(True)
        # What sticks out of the Axes: the tokens under the bars (how far left and right of
        # the Axes, how far down) and the title (tight_layout takes its height only).
        canvas = fig.canvas
        renderer = canvas.get_renderer()
        probe, centres, left, right = kept[1:]
        sizes = []
        for token in tokens:
            probe.set_text(token)
            box = probe.get_window_extent(renderer)
            sizes.append((box.width, box.height))
        canvas.layout((
            min(left, *(x - w / 2 for x, (w, _) in zip(centres, sizes, strict=True))),
            max(right, *(x + w / 2 for x, (w, _) in zip(centres, sizes, strict=True))),
            max(h for _, h in sizes),
            ax.title.get_window_extent(renderer).height,
        ))  # fmt: skip
        return fig

    return figure_widget(render, {"sentence": sentence, "position": position},
                         state=lambda: module_state(model))  # fmt: skip


def _topk_values(predictions: Sequence[tuple[str, float]]) -> tuple[list[float], list[str]]:
    """The probabilities and tokens ``plot_topk`` draws of (token, probability) pairs."""
    return [float(p) for _, p in predictions], [str(t) for t, _ in predictions]


def fill_mask_widget_grid(sentences: Sequence[str], n_words: int = 5) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``fill_mask_widget(model,
    tokenizer, sentences)``: control name -> values its controls offer. Every sentence of at
    least ``n_words`` words (the word slider of a shorter one stops before the last position),
    and the word positions 0..n_words-1.

    Lecture 08; Devlin et al. 2019 section 3.1 (masked LM).
    """
    sentences = check_strings("sentences", sentences)
    check_positive_int("n_words", n_words)
    long_enough = [s for s in sentences if len(s.split()) >= n_words]
    if not long_enough:
        raise ValueError(f"sentences must hold at least one sentence of n_words={n_words} words "
                         f"or more, got {sentences}")  # fmt: skip
    return {"sentence": long_enough, "position": list(range(n_words))}


_MASK_PROBS = (0.05, 0.6, 0.05)  # masking_widget's probability slider: min, max, step


def _pair_labels(pairs: Sequence[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Label "A / B" -> (A, B) for masking_widget's dropdown, in order, repeats once."""
    for i, pair in enumerate(check_list("pairs", pairs, "(sentence A, sentence B)")):
        ok = isinstance(pair, (tuple, list)) and len(pair) == 2
        if not ok or not all(isinstance(s, str) and s.split() for s in pair):
            raise ValueError(f"pairs[{i}] must be two non-empty sentences (A, B), got {pair!r}")
    return {f"{a} / {b}": (a, b) for a, b in pairs}


def masking_widget(
    pairs: Sequence[tuple[str, str]],
    tokenizer,
    *,
    prob: float = 0.15,
    seed: int = 0,
    max_seed: int = 20,
):
    """Pick a sentence pair, a masking probability and a seed: ``plot_masking`` of what
    ``mask_tokens`` does to the pair's tokens ``[CLS] A [SEP] B [SEP]`` (which tokens are
    chosen and what each becomes).

    Args:
        pairs: the (sentence A, sentence B) choices, shown as "A / B" (a repeated pair is
            offered once); the first is shown.
        tokenizer: a ``WordPieceTokenizer``; random replacements come from its vocabulary.
        prob: where the probability slider (0.05..0.6, steps of 0.05) starts.
        seed: where the seed slider (0..max_seed) starts; each seed is one draw of the masks.

    Returns:
        An ipywidgets VBox: the controls (pair, prob, seed) above the diagram.

    Lecture 08; Devlin et al. 2019 section 3.1 ("Task #1: Masked LM").
    """
    from lecturekit.objectives import mask_tokens
    from lecturekit.tokenization import WordPieceTokenizer
    from lecturekit.viz.widgets import KeptCanvas, figure_widget

    examples = _pair_labels(pairs)
    check_instance("tokenizer", tokenizer, WordPieceTokenizer)
    lo, hi, step = _MASK_PROBS
    check_range("prob", prob, lo, hi)
    if abs((prob - lo) / step - round((prob - lo) / step)) > 1e-9:
        raise ValueError(f"prob must be a multiple of {step} (the slider's step), got {prob!r}")
    check_non_negative_int("max_seed", max_seed)
    check_seed(seed)
    if seed > max_seed:
        raise ValueError(f"seed={seed} is beyond the slider's max_seed={max_seed}")
    w = require_ipywidgets()

    kept: dict[str, object] = {}  # the Figure (built by the first render), its pair and row
    widths: dict[str, float] = {}  # a word the model sees -> its width in pixels

    def render(pair: str, prob: float, seed: int) -> Figure:
        ids = tokenizer.encode_pair(*examples[pair])[0]
        x = torch.tensor([ids])  # (1, T)
        masked, labels = mask_tokens(x, vocab_size=len(tokenizer), prob=prob,
                                     generator=torch.Generator().manual_seed(seed))  # fmt: skip
        tokens = tokenizer.convert_ids_to_tokens(x[0].tolist())
        seen = tokenizer.convert_ids_to_tokens(masked[0].tolist())
        chosen = (labels[0] != -100).tolist()
        if not kept:
            fig = Figure(figsize=(11, 2.4))
            KeptCanvas(fig)
            fig.add_subplot()
            kept.update(fig=fig, pair=None)
        fig = kept["fig"]
        ax = fig.axes[0]
        if kept["pair"] != pair:  # another pair: plot_masking's picture drawn anew
            for artist in [*ax.patches, *ax.texts]:
                artist.remove()
            _masking_frame(ax, tokens)
            kept["pair"] = pair
        else:  # the same pair: only the row the model sees (boxes, words, arrows) drawn anew
            for artist in kept["row"]:
                artist.remove()
        kept["row"] = _masked_row(ax, tokens, seen, chosen)
        for artist in kept["row"]:
            artist.set_animated(True)  # over the input row, the labels and the legend
        # The layout depends on what sticks out of the Axes (the boxes and arrows stay inside):
        # words of the input row, the labels and the legend (the pair), and any word the model
        # sees that sticks out too, where a new Figure measures them.
        canvas = fig.canvas
        canvas.reset_layout()
        renderer, box = canvas.get_renderer(), ax.get_window_extent()
        out = False
        for text in (a for a in kept["row"] if type(a) is Text):  # the words, not the arrows
            word = text.get_text()
            if word not in widths:
                widths[word] = text.get_window_extent(renderer).width  # centred on its box
            centre = ax.transData.transform(text.get_position())[0]
            out = out or abs(centre - (box.x0 + box.x1) / 2) + widths[word] / 2 > box.width / 2
        canvas.layout((pair, tuple(seen) if out else None))
        canvas.background = pair  # the input row, the row labels and the legend
        return fig

    controls = {
        "pair": w.Dropdown(options=list(examples), description="pair", layout={"width": "460px"}),
        "prob": w.FloatSlider(value=prob, min=lo, max=hi, step=step, description="prob"),
        "seed": w.IntSlider(value=seed, min=0, max=max_seed, description="seed"),
    }
    return figure_widget(render, controls)


def masking_widget_grid(pairs: Sequence[tuple[str, str]]) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``masking_widget(pairs,
    tokenizer)``: control name -> values its controls offer. The first two pairs (the first
    one is where the widget starts), pre-training's rate 0.15 against 0.3 and 0.6, and three
    seeds (three draws of the masks).

    Lecture 08; Devlin et al. 2019 section 3.1.
    """
    labels = list(_pair_labels(pairs))
    return {"pair": labels[:2], "prob": [0.15, 0.3, 0.6], "seed": [0, 1, 2]}
