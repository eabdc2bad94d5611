"""Slide figures of lecture 14, GPT and generation (registered on import).

The figures of the trained GPT read what ``lecturekit.shipped.gpt`` ships with it:
``next_token_logits(prompt) -> (logits (V,), labels)`` and ``icl_curve() -> {"shots",
"accuracy", "oracle", "chance"}`` (nothing trains here).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from lecturekit.viz.generation import (
    family_masks_figure,
    plot_icl_curve,
    sampling_distributions_figure,
)
from lecturekit_publish.figures.registry import register, register_widget

SAMPLING_PROMPT = "my"  # the prompt whose next-token distribution the slide shows


@register(
    "gpt_family_masks",
    lecture="14",
    description="encoder (BERT), decoder (GPT), encoder-decoder (Transformer): their masks",
    takeaway="The mask makes the family: BERT sees both sides, GPT only the past, the "
    "Transformer's decoder also a source.",
)
def gpt_family_masks() -> Figure:
    return family_masks_figure()


@register(
    "gpt_sampling_distributions",
    lecture="14",
    description="the tiny GPT's next token under greedy, T = 0.5 / 1 / 1.5, top-k = 3, top-p = 0.9",
    takeaway="One distribution, different choices: T < 1 sharpens it, T > 1 flattens it, top-k and "
    "top-p cut the tail.",
)
def gpt_sampling_distributions() -> Figure:
    from lecturekit.shipped.gpt import next_token_logits

    logits, labels = next_token_logits(SAMPLING_PROMPT)
    fig = sampling_distributions_figure(logits, labels)
    fig.suptitle(f"next token after {SAMPLING_PROMPT!r}: same model, six strategies",
                 x=0.01, ha="left")  # fmt: skip
    fig.tight_layout()
    return fig


@register(
    "gpt_icl_curve",
    lecture="14b",
    description="in-context learning at toy scale: accuracy vs examples in the prompt",
    takeaway="No gradient step: accuracy climbs from chance with the examples in the prompt, "
    "tracking the oracle.",
)
def gpt_icl_curve() -> Figure:
    from lecturekit.shipped.gpt import icl_curve

    curve = icl_curve()
    fig = Figure()
    ax = fig.add_subplot()
    plot_icl_curve(curve["shots"], curve["accuracy"], oracle=curve.get("oracle"),
                   chance=curve.get("chance"), ax=ax)  # fmt: skip
    ax.set_title("a new task from its examples in the prompt, no gradient step")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------- the notebooks' widgets, rebuilt

# the prompt box's prepared inputs: the notebook's own, then the two its prose asks to try
# top-p = 0.5 after ("my": a flat distribution, "penguins are": a confident one)
WIDGET_PROMPTS = ("my dog", "my", "penguins are")


@register_widget(
    "gpt_generation",
    lecture="14",
    index=0,
    description="the tiny GPT continues a prompt: greedy, beam or sampling (T, top-k, top-p)",
)
def gpt_generation_rebuilt():
    from lecturekit.datasets.stories import END_OF_TEXT
    from lecturekit.shipped import load_shipped, load_tokenizer
    from lecturekit.viz.generation import generation_widget, generation_widget_grid

    gpt, tokenizer = load_shipped("gpt_tiny"), load_tokenizer("gpt_tiny")
    widget = generation_widget(gpt, tokenizer, prompt="my dog", eos_id=END_OF_TEXT)
    grid = generation_widget_grid(WIDGET_PROMPTS, temperatures=(1.0, 1.5), top_ks=(0, 3),
                                  top_ps=(0.5, 1.0), penalties=(1.0, 1.5))  # fmt: skip
    return widget, grid
