"""Slide figures of lecture 13, fine-tuning BERT (registered on import)."""

from __future__ import annotations

from matplotlib.figure import Figure

from lecturekit.figures.registry import register, register_widget
from lecturekit.viz.finetuning import input_formats_figure, learning_curves_figure

# The score each learning curve plots.
SCORE_NAMES = {"topic": "accuracy", "nli": "accuracy", "qa": "F1 (SQuAD)",
               "tagging": "entity F1 (CoNLL)"}  # fmt: skip


def format_examples() -> list[dict[str, object]]:
    """The four input formats, in the slides' order (a) pair, (b) single, (c) QA, (d) tagging."""
    from lecturekit.datasets.finetuning import default_tasks
    from lecturekit.experiments.finetuning import input_format
    from lecturekit.shipped import load_tokenizer

    tasks, tokenizer = default_tasks(), load_tokenizer("bert_tiny")

    def split(words) -> bool:  # a word cut into pieces ("play ##ing")
        return any(len(tokenizer.tokenize(w)) > 1 for w in words)

    wanted = {  # the first test example of each task that shows what its format does
        "nli": lambda e: e.label == "entailment",
        "topic": lambda e: split(e.words),
        "qa": lambda e: 6 <= e.answer_start <= 12 and len(e.answer.split()) >= 2,
        "tagging": lambda e: any(t != "O" for t in e.tags) and split(e.words),
    }
    formats = [input_format(tasks[name], tokenizer, next(e for e in tasks[name].test if keep(e)))
               for name, keep in wanted.items()]  # fmt: skip
    formats[2] = _shorten(formats[2])  # the QA context, cut after the answer
    return formats


def _shorten(fmt: dict[str, object], after: int = 3) -> dict[str, object]:
    """The input up to ``after`` tokens past its last mark, then "..." and the final [SEP] (a
    long QA context would not fit a slide)."""
    tokens, marks = fmt["tokens"], fmt["marks"]
    last = max(i for i, m in enumerate(marks) if m) + after
    if last >= len(tokens) - 2:
        return fmt
    keep = [*range(last + 1), len(tokens) - 1]
    out = {k: [fmt[k][i] for i in keep] for k in ("tokens", "segment_ids", "marks")}
    out["tokens"][-2:-1] = [out["tokens"][-2], "..."]
    out["segment_ids"][-2:-1] = [out["segment_ids"][-2]] * 2
    out["marks"][-2:-1] = [out["marks"][-2], ""]
    return {**fmt, **out}


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
