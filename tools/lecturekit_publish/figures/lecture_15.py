"""Slide figures of lecture 15, pre-training objectives after BERT (registered on import).

The objective table and XLNet's masks are computed on the spot (no model); the two curves read
what ``lecturekit.shipped.objectives`` ships with ``electra_tiny``: ``masking_rate_curve()`` and
``electra_vs_mlm_curve()`` (nothing trains here).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from lecturekit.viz.objectives import (
    OBJECTIVES,
    T5_SENTENCE,
    T5_SPANS,
    electra_vs_mlm_figure,
    masking_rate_figure,
    objective_view,
    plot_objective_table,
    plot_permutation_masks,
)
from lecturekit_publish.figures.registry import register, register_widget

XLNET_WORDS = ("new", "york", "is", "a", "city")
XLNET_ORDER = (2, 0, 4, 1, 3)  # the notebook's order: is, new, city, york, a


@register(
    "objectives_t5_sentence",
    lecture="15",
    description="BERT MLM, whole-word, span, T5, ELECTRA, XLNet on 'thank you for inviting me ...'",
    takeaway="Each objective turns one sentence into inputs and targets; only ELECTRA and XLNet "
    "learn from every token.",
)
def objectives_t5_sentence() -> Figure:
    rows = [objective_view(name, T5_SENTENCE, seed=1,
                           spans=T5_SPANS if name == "T5 span corruption" else None)
            for name in OBJECTIVES]  # fmt: skip
    ax = plot_objective_table(rows)
    return ax.figure


@register(
    "xlnet_permutation_masks",
    lecture="15",
    description="XLNet: content- and query-stream masks for the order is, new, city, york, a",
    takeaway="A sampled order, not the text's, decides what each token sees: its query stream sees "
    "only earlier steps.",
)
def xlnet_permutation_masks() -> Figure:
    return plot_permutation_masks(list(XLNET_WORDS), list(XLNET_ORDER), step=4)


@register(
    "electra_vs_mlm",
    lecture="15",
    description="ELECTRA vs the same-size masked LM at equal counted FLOPs, fine-tuned scores",
    takeaway="At this toy scale and equal counted FLOPs, ELECTRA trails the same-size masked LM on "
    "both tasks.",
)
def electra_vs_mlm() -> Figure:
    from lecturekit.shipped.objectives import electra_vs_mlm_curve

    return electra_vs_mlm_figure(electra_vs_mlm_curve())


@register(
    "masking_rate_curve",
    lecture="15",
    description="held-out MLM accuracy against training steps and masking rate (5-50 %)",
    takeaway="Too little masking learns slowly (5 % is worst throughout); 25 % ends best, 35 % and "
    "50 % fall back a little.",
)
def masking_rate_curve() -> Figure:
    from lecturekit.shipped.objectives import masking_rate_curve as sweep

    return masking_rate_figure(sweep())


# ----------------------------------------------------------- the notebooks' widgets, rebuilt

# the notebook's sentences (lecture 15, "Play")
WIDGET_SENTENCES = ("the man went to the store to buy a gallon of milk",
                    "they build big nests on the rocks", " ".join(T5_SENTENCE),
                    "i think teddy bears make great presents for kids")  # fmt: skip


@register_widget(
    "pretraining_objectives",
    lecture="15",
    index=0,
    description="what the encoder reads and the loss predicts, per objective, seed and rate",
)
def pretraining_objectives_rebuilt():
    from lecturekit.shipped import load_tokenizer
    from lecturekit.viz.objectives import objective_widget, objective_widget_grid

    # the notebook's tokenizer is default_data().tokenizer: the same vocabulary and settings
    # as the shipped one, which loads in milliseconds instead of being trained again
    widget = objective_widget(list(WIDGET_SENTENCES), tokenizer=load_tokenizer("bert_tiny"))
    # the BERT paper's sentence and one WordPiece splits (whole-word masking differs there),
    # two seeds, BERT's rate and a high one: 48 settings
    grid = objective_widget_grid(len(WIDGET_SENTENCES), sentences=[0, 1], seeds=[0, 1],
                                 rates=[0.15, 0.5])  # fmt: skip
    return widget, grid


@register_widget(
    "xlnet_permutation",
    lecture="15",
    index=1,
    description="XLNet's content and query masks for a sampled order, step by step",
)
def xlnet_permutation_rebuilt():
    from lecturekit.viz.objectives import permutation_widget, permutation_widget_grid

    return permutation_widget("new york is a city"), permutation_widget_grid(5)
