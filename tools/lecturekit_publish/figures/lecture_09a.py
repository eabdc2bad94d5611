"""Slide figures of lecture 09a, attention that captions (registered on import).

    09a  caption_attention_maps, captioning_localisation, hard_vs_soft_attention

The scenes are made in code from scikit-learn's digits (``lecturekit.datasets.scenes``); the
captioner is the shipped checkpoint ``data/captioner_scenes.safetensors``
(``lecturekit.shipped.captioning``): nothing trains here.

The notebook's widget, rebuilt for the website (``register_widget``)::

    09a  caption_browser (0)
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.figure import Figure

from lecturekit.viz.captioning import plot_localisation, plot_mass_by_word, plot_word_maps
from lecturekit_publish.figures.helpers import at_least
from lecturekit_publish.figures.registry import register, register_widget

SCENE = 2  # notebook 09a's example: held-out scene 2, "a 2 left of a 4"
HARD_SEED = 0


@cache
def _captioned():
    from lecturekit.datasets.scenes import default_data
    from lecturekit.experiments.captioning import caption_scenes
    from lecturekit.shipped import load_shipped

    test = default_data(n_train=0).test
    model = load_shipped("captioner_scenes")
    return test, model, caption_scenes(model, test)


def _words(ids: torch.Tensor) -> list[str]:
    from lecturekit.datasets.scenes import EOS, VOCAB

    words = []
    for i in ids.tolist():
        words.append(VOCAB[i])
        if i == EOS:
            break
    return words


@register(
    "caption_attention_maps",
    lecture="09a",
    description="one held-out scene: each word of the caption with its attention over the cells",
    takeaway="One map per word: each digit word looks at the digit it names; the relation word "
    "spreads over the canvas.",
)
def caption_attention_maps() -> Figure:
    test, _, result = _captioned()
    words = _words(result.ids[SCENE])
    L = len(words)
    fig = Figure(figsize=(14, 2.9), layout="constrained")
    plot_word_maps(test.images[SCENE], words, result.weights[SCENE, :L], test.boxes[SCENE],
                   fig=fig)  # fmt: skip
    fig.suptitle("soft attention per word (dashed: orange = digit named first, blue = second)")
    return at_least(fig)


@register(
    "captioning_localisation",
    lecture="09a",
    description="digit words whose attended cell is inside the named digit's box vs chance, "
    "and where each word's weight goes",
    takeaway="Learned from captions alone, digit words attend inside the named digit's box far "
    "above chance.",
)
def captioning_localisation() -> Figure:
    from lecturekit.experiments.captioning import localisation, mass_by_word

    test, _, result = _captioned()
    loc = localisation(result, test)
    fig = Figure(figsize=(14, 4.6), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[1, 1.8])
    plot_localisation([loc.rate(0), loc.rate(1)], ["first digit", "second digit"], loc.chance,
                      ax1)  # fmt: skip
    plot_mass_by_word(mass_by_word(result, test), ax2)
    return at_least(fig)


@register(
    "hard_vs_soft_attention",
    lecture="09a",
    description="soft attention (the weights) vs hard attention (one sampled cell per word)",
    takeaway="Soft attention reads the weighted average; hard reads one sampled cell, which "
    "derails a soft-trained model.",
)
def hard_vs_soft_attention() -> Figure:
    test, model, result = _captioned()
    image = test.images[SCENE : SCENE + 1]
    hard = model.caption(
        image, attention="hard", generator=torch.Generator().manual_seed(HARD_SEED)
    )
    soft_words, hard_words = _words(result.ids[SCENE]), _words(hard.ids[0])
    fig = Figure(figsize=(14, 5.6), layout="constrained")
    top, bottom = fig.subfigures(2, 1)
    plot_word_maps(test.images[SCENE], soft_words, result.weights[SCENE, : len(soft_words)],
                   test.boxes[SCENE], fig=top)  # fmt: skip
    top.suptitle("soft: c_t = Σ_i α_ti h_i (the expectation)")
    plot_word_maps(test.images[SCENE], hard_words, hard.weights[0, : len(hard_words)],
                   test.boxes[SCENE], hard.cells[0, : len(hard_words)], fig=bottom)  # fmt: skip
    bottom.suptitle("hard: c_t = h_i with i ~ α_t (× = the sampled cell)")
    return at_least(fig)


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "caption_browser",
    lecture="09a",
    index=0,
    description="held-out scenes captioned with soft or hard attention, one map per word",
)
def caption_browser_rebuilt():
    from lecturekit.datasets.scenes import decode_caption, default_data
    from lecturekit.experiments.captioning import caption_scenes
    from lecturekit.shipped import load_shipped
    from lecturekit.viz.captioning import captioning_widget, captioning_widget_grid

    # notebook 09a's first 12 held-out scenes (the test scenes do not depend on n_train and
    # the first 12 of 1,000 are the 12 made alone: one seed, drawn scene by scene)
    browse = default_data(n_train=0, n_test=12).test
    model = load_shipped("captioner_scenes")
    results = {}
    for mode, gen in (("soft", None), ("hard", torch.Generator().manual_seed(HARD_SEED))):
        r = caption_scenes(model, browse, mode, gen)
        words = [[*decode_caption(ids).split(), "<eos>"] for ids in r.ids]  # as words_of
        results[mode] = (words, r.weights, r.cells)
    widget = captioning_widget(browse.images, results, browse.boxes)
    return widget, captioning_widget_grid(6)  # scenes 0..5: notebook 09a shows 0, 2 and 5
