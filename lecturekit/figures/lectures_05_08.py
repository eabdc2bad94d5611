"""Slide figures of lectures 05-08 (registered on import)."""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from lecturekit.decoding import beam_search
from lecturekit.experiments.examples import pie_example, poor_example
from lecturekit.figures.registry import register
from lecturekit.masking import causal_mask, key_padding_mask, padding_mask
from lecturekit.positional import frequencies, sinusoidal_encoding
from lecturekit.viz.bert import head_view_figure, plot_input_embeddings, plot_masking
from lecturekit.viz.plots import plot_heatmap, plot_lines, plot_mask
from lecturekit.viz.trees import plot_beam_tree

_SLIDE_PAIR = ("my dog is cute", "he likes playing")


@register(
    "positional_encoding_heatmap",
    lecture="05",
    description="the sinusoidal table PE for 20 positions x 512 dimensions",
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
)
def beam_search_tree() -> Figure:
    vocab, step = pie_example()
    _, tree = beam_search(step, 0, 1, beam_size=2, max_len=10, trace=True)
    fig = Figure()
    plot_beam_tree(tree, vocab, fig.add_subplot(), title="Beam search, k = 2")
    fig.tight_layout()
    return fig


@register(
    "beam_search_k_t",
    lecture="07",
    description="beam search with k = t = 2 on the Yoon deck's 'les pauvres sont démunis' "
    "(made-up probabilities)",
)
def beam_search_k_t() -> Figure:
    vocab, step = poor_example()
    _, tree = beam_search(step, 0, 1, beam_size=2, max_len=12, n_best=2, trace=True)
    fig = Figure()
    title = "Beam search, k = t = 2: les pauvres sont démunis"
    plot_beam_tree(tree, vocab, fig.add_subplot(), title=title)
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
)
def bert_head_view() -> Figure:
    bert, tok, ids, segments = _bert_pair()
    with torch.no_grad():
        out = bert(torch.tensor([ids]), torch.tensor([segments]))
    return head_view_figure(out.attentions, tok.convert_ids_to_tokens(ids), layer=-1)
