"""Slide figures of lecture 13, fine-tuning BERT (registered on import)."""

from __future__ import annotations

from matplotlib.figure import Figure

from lecturekit.viz.finetuning import (
    SCORE_NAMES,
    format_examples,
    input_formats_figure,
    learning_curves_figure,
)
from lecturekit_publish.figures.registry import register, register_widget


@register(
    "finetuning_input_formats",
    lecture="13",
    description="one pre-trained BERT, four input formats: pair, single sentence, QA, tagging",
    takeaway="One encoder for every task: only the packing of the input and the positions the "
    "output layer reads change.",
)
def finetuning_input_formats() -> Figure:
    return input_formats_figure(format_examples())


@register(
    "finetuning_learning_curves",
    lecture="13",
    description="fine-tuned vs from scratch vs frozen features, score vs labelled examples",
    takeaway="With few labels pre-training pays on every task; on topic, NLI and QA enough labels "
    "almost close the gap.",
)
def finetuning_learning_curves() -> Figure:
    from lecturekit.experiments.finetuning import curve_table
    from lecturekit.shipped.finetuning import learning_curves

    return learning_curves_figure(curve_table(learning_curves()), SCORE_NAMES)


# ----------------------------------------------------------- the notebooks' widgets, rebuilt

WIDGET_QUESTION = "why did sara go to the pool ?"  # the notebook's qa story, its other place


@register_widget(
    "finetuning_try_it",
    lecture="13",
    index=0,
    description="the four fine-tuned tiny BERTs answer a chosen input, with probabilities",
)
def finetuning_try_it_rebuilt():
    from lecturekit.datasets.finetuning import default_tasks
    from lecturekit.shipped import load_shipped, load_tokenizer
    from lecturekit.shipped.finetuning import MODELS
    from lecturekit.viz.finetuning import (
        finetuning_examples,
        finetuning_inputs,
        finetuning_widget,
        finetuning_widget_grid,
    )

    tasks = default_tasks()
    finetuned = {name: load_shipped(MODELS[name]) for name in tasks}
    inputs = finetuning_inputs(finetuning_examples(tasks))
    widget = finetuning_widget(finetuned, tasks, load_tokenizer("bert_tiny"), inputs)
    # the notebook's four inputs, and the other question on its errands story: the model
    # that gave the pool's reason for the park finds the pool's own reason
    other = (WIDGET_QUESTION, inputs["qa"][1])
    return widget, finetuning_widget_grid(inputs, extra=[other])
