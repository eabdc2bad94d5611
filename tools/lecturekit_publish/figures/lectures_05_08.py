"""Slide figures of lectures 05-08 (registered on import).

The notebooks' widgets, rebuilt for the website (``register_widget``)::

    05   positional_encoding (0)
    06   attention_masks (0)
    07   beam_size_and_alpha (0): the slides' "he hit me with a pie" table (``pie_example``)
    08a  masking_procedure (0): the corpus and tokenizer of ``lecturekit.datasets.stories``
    08b  fill_mask (0): the shipped tiny BERT (nothing trains here)
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from lecturekit.decoding import beam_search
from lecturekit.experiments.examples import pie_example
from lecturekit.masking import causal_mask, key_padding_mask, padding_mask
from lecturekit.positional import frequencies, sinusoidal_encoding
from lecturekit.viz.bert import head_view_figure, plot_input_embeddings, plot_masking
from lecturekit.viz.plots import plot_heatmap, plot_lines, plot_mask
from lecturekit.viz.trees import plot_beam_tree
from lecturekit_publish.figures.registry import register, register_widget

_SLIDE_PAIR = ("my dog is cute", "he likes playing")


@register(
    "positional_encoding_heatmap",
    lecture="05",
    description="the sinusoidal table PE for 20 positions x 512 dimensions",
    takeaway="Every position gets its own row: the first dimensions oscillate fast, the last ones "
    "barely move.",
)
def positional_encoding_heatmap() -> Figure:
    fig = Figure()
    ax = fig.add_subplot()
    plot_heatmap(
        sinusoidal_encoding(20, 512),
        ax,
        diverging=True,
        xlabel="dimension",
        ylabel="position",
        title="Positional encoding: 20 positions × 512 dimensions",
    )
    ax.images[0].set_interpolation("antialiased")  # 512 columns: average, no moiré
    fig.tight_layout()
    return fig


@register(
    "positional_sinusoids",
    lecture="05",
    description="PE value vs position for four sine dimensions (wavelengths 2π to 2π·10000)",
    takeaway="Each dimension is a sinusoid of the position; the wavelengths grow geometrically, "
    "from 2π towards 10000·2π.",
)
def positional_sinusoids() -> Figure:
    P = sinusoidal_encoding(100, 512)  # (100, 512)
    wavelength = 2 * torch.pi / frequencies(512)  # (256,)
    dims = (0, 64, 128, 192)
    curves = {f"dim {d} (λ = {wavelength[d // 2].item():.1f})": P[:, d] for d in dims}
    fig = Figure()
    ax = fig.add_subplot()
    plot_lines(
        torch.arange(100),
        curves,
        ax,
        xlabel="position",
        ylabel="PE value",
        title="Sine dimensions of the positional encoding (d_model = 512)",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


@register(
    "causal_mask",
    lecture="06",
    description="the causal (look-ahead) mask as M: 0 on and below the diagonal, −∞ above",
    takeaway="Adding M before the softmax gives every future key exactly zero weight: position t "
    "sees only 0..t.",
)
def causal_mask_figure() -> Figure:
    labels = ["<bos>", "the", "cat", "sat", "down"]
    fig = Figure()
    ax = fig.add_subplot()
    plot_mask(causal_mask(len(labels)), labels, ax, title="Causal mask M: softmax(QKᵀ/√d_k + M)")
    fig.tight_layout()
    return fig


@register(
    "decoder_masks",
    lecture="06",
    description="causal, key-padding and combined decoder masks (M with 0 / −∞)",
    takeaway="The decoder ANDs the two masks: no query attends to a future token or to a padding "
    "token.",
)
def decoder_masks() -> Figure:
    labels = ["<bos>", "the", "cat", "sat", "<pad>", "<pad>"]
    T = len(labels)
    keys_ok = key_padding_mask(padding_mask(torch.tensor([4]), T))[0, 0].expand(T, T)  # (T, T)
    fig = Figure()
    axes = fig.subplots(1, 3)
    plot_mask(causal_mask(T), labels, axes[0], title="causal")
    plot_mask(keys_ok, labels, axes[1], title="key padding")
    plot_mask(causal_mask(T) & keys_ok, labels, axes[2], title="decoder: both")
    for ax in axes[1:]:
        ax.set_ylabel("")
    fig.tight_layout()
    return fig


@register(
    "beam_search_tree",
    lecture="07",
    description="beam search with k = 2 on the 'he hit me with a pie' table",
    takeaway="With k = 2 beam search keeps 'he' alive and finds a more probable sentence than "
    "greedy (−2.36 vs −2.58).",
)
def beam_search_tree() -> Figure:
    vocab, step = pie_example()
    _, tree = beam_search(step, 0, 1, beam_size=2, max_len=10, trace=True)
    fig = Figure()
    plot_beam_tree(tree, vocab, fig.add_subplot(), title="Beam search, k = 2")
    fig.tight_layout()
    return fig


def _bert_pair():
    from lecturekit.shipped import load_shipped, load_tokenizer

    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    ids, segments = tok.encode_pair(*_SLIDE_PAIR)
    return bert, tok, ids, segments


@register(
    "bert_input_embeddings",
    lecture="08",
    description="BERT input = token + segment + position embeddings ([CLS] my dog is cute ...)",
    takeaway="Each position's input is the sum of its token, segment (A or B) and position "
    "embeddings.",
)
def bert_input_embeddings() -> Figure:
    _, tok, ids, segments = _bert_pair()
    fig = Figure(figsize=(12.8, 4.6))
    ax = fig.add_subplot()
    plot_input_embeddings(tok.convert_ids_to_tokens(ids), segments, ax)
    ax.set_title("BERT input representation")
    fig.tight_layout()
    return fig


@register(
    "bert_masking",
    lecture="08",
    description="masked LM: chosen tokens become [MASK] (80 %), random (10 %) or stay (10 %)",
    takeaway="Chosen tokens become [MASK] (80 %), a random token (10 %) or stay (10 %): any token "
    "may be a target.",
)
def bert_masking() -> Figure:
    _, tok, ids, _ = _bert_pair()
    tokens = tok.convert_ids_to_tokens(ids)
    masked = list(tokens)
    chosen = [False] * len(tokens)
    for i, new in ((2, "[MASK]"), (3, "[MASK]"), (7, "store"), (8, "play")):  # all three cases
        masked[i], chosen[i] = new, True
    fig = Figure(figsize=(12.8, 3.4))
    plot_masking(tokens, masked, chosen, fig.add_subplot())
    fig.tight_layout()
    return fig


@register(
    "bert_head_view",
    lecture="08",
    description="attention of the shipped tiny BERT, last layer, one panel per head",
    takeaway="Heads specialise: in the last layer one head attends to the previous token, another "
    "to the next.",
)
def bert_head_view() -> Figure:
    bert, tok, ids, segments = _bert_pair()
    with torch.no_grad():
        out = bert(torch.tensor([ids]), torch.tensor([segments]))
    return head_view_figure(out.attentions, tok.convert_ids_to_tokens(ids), layer=-1)


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "positional_encoding",
    lecture="05",
    index=0,
    description="the sinusoidal table and its columns as d_model and the number of positions move",
)
def positional_encoding_rebuilt():
    from lecturekit.viz.widgets import positional_encoding_widget, positional_encoding_widget_grid

    return positional_encoding_widget(), positional_encoding_widget_grid()


@register_widget(
    "attention_masks",
    lecture="06",
    index=0,
    description="padding, causal or both: the mask M and the weights softmax(scores + M)",
)
def attention_masks_rebuilt():
    from lecturekit.viz.widgets import mask_widget, mask_widget_grid

    return mask_widget(), mask_widget_grid()


@register_widget(
    "beam_size_and_alpha",
    lecture="07",
    index=0,
    description="the 'he hit me with a pie' search tree as the beam size k and alpha move",
)
def beam_size_and_alpha_rebuilt():
    from lecturekit.viz.trees import beam_widget, beam_widget_grid

    vocab, step = pie_example()  # notebook 07's VOCAB and table_step; <s> = 0, </s> = 1
    sizes, alphas = (1, 2, 3), (0.0, 0.1, 0.2, 0.5, 1.0)
    widget = beam_widget(step, vocab, 0, 1, max_len=10, beam_sizes=sizes,
                         length_penalties=alphas)  # fmt: skip
    return widget, beam_widget_grid(sizes, alphas)


@register_widget(
    "masking_procedure",
    lecture="08a",
    index=0,
    description="BERT's masking (15 %, then 80 / 10 / 10) on a sentence pair, by rate and seed",
)
def masking_procedure_rebuilt():
    import random

    from lecturekit.datasets.stories import default_data
    from lecturekit.objectives import make_nsp_pairs
    from lecturekit.viz.bert import masking_widget, masking_widget_grid

    data = default_data()
    pairs = make_nsp_pairs(data.train[:2000], random.Random(0))  # notebook 08a, section 4
    examples = [_SLIDE_PAIR, *((a, b) for a, b, label in pairs[:40] if label == 0)]
    examples = list(dict.fromkeys(examples))[:12]  # the notebook's dropdown: 12 distinct pairs
    return masking_widget(examples, data.tokenizer), masking_widget_grid(examples)


@register_widget(
    "fill_mask",
    lecture="08b",
    index=0,
    description="the shipped tiny BERT's five best guesses for a hidden word of a sentence",
)
def fill_mask_rebuilt():
    from lecturekit.shipped import load_shipped, load_tokenizer
    from lecturekit.viz.bert import fill_mask_widget, fill_mask_widget_grid

    sentences = [
        "i think teddy roosevelt is a great president",
        "i think teddy bears make great presents for kids",
        "every morning the cat meows at the sun",
        "she wore a raincoat because it was raining",
        "in the morning he went to the library to read a book",
        "penguins are flightless birds",
        "tom plays tennis every weekend",
    ]  # notebook 08b, section 6
    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    widget = fill_mask_widget(bert, tok, sentences, k=5)
    widget.children[0].children[1].value = 3  # as the notebook: the word after "i think teddy"
    return widget, fill_mask_widget_grid(sentences, n_words=5)
