"""lecturekit.viz.finetuning: input formats, learning curves, probabilities, the widget."""

import pytest
import torch
from matplotlib.figure import Figure

from lecturekit.viz.finetuning import (
    finetuning_examples,
    finetuning_inputs,
    finetuning_widget,
    finetuning_widget_grid,
    input_formats_figure,
    learning_curves_figure,
    plot_input_format,
    plot_label_probabilities,
    plot_learning_curve,
    plot_span_probabilities,
    plot_tag_probabilities,
)

TABLE = {("t", r, n): (v, v - 0.1, v + 0.05) for r, base in
         [("fine-tuned", 0.6), ("from scratch", 0.3), ("frozen features", 0.4)]
         for n, v in [(50, base), (200, base + 0.2)]}  # fmt: skip


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_input_format_draws_every_token_and_mark():
    tokens = ["[CLS]", "he", "likes", "play", "##ing", "[SEP]"]
    ax = plot_input_format(
        tokens,
        [0] * 6,
        marks=["", "O", "O", "O", "-100", ""],
        marks_name="trained on",
        title="(d) tagging",
        ax=Figure().subplots(),
    )
    texts = _texts(ax)
    assert all(t in texts for t in tokens) and texts.count("-100") == 1
    assert "trained on" in texts and ax.get_title(loc="left") == "(d) tagging"
    fig = input_formats_figure([{"tokens": tokens, "segment_ids": [0] * 6},
                                {"tokens": ["[CLS]", "a", "[SEP]", "b", "[SEP]"],
                                 "segment_ids": [0, 0, 0, 1, 1]}])  # fmt: skip
    assert len(fig.axes) == 2
    assert fig.axes[0].get_xlim() == fig.axes[1].get_xlim()  # one scale for every panel


def test_learning_curves():
    ax = plot_learning_curve(TABLE, "t", Figure().subplots(), ylabel="accuracy")
    assert [line.get_label() for line in ax.get_lines()] == ["fine-tuned", "from scratch",
                                                             "frozen features"]  # fmt: skip
    assert list(ax.get_lines()[0].get_ydata()) == [0.6, 0.8]
    fig = learning_curves_figure(TABLE, {"t": "accuracy"})
    assert len(fig.axes) == 1 and fig.legends


def test_probability_plots():
    ax = plot_label_probabilities(["a", "b", "c"], torch.tensor([0.2, 0.7, 0.1]),
                                  Figure().subplots())  # fmt: skip
    assert len(ax.patches) == 3
    ax = plot_span_probabilities(["x", "y", "z"], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], (1, 2),
                                 Figure().subplots())  # fmt: skip
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x", "y", "z"]
    ax = plot_tag_probabilities(["tom", "ran"], ["O", "B-PER"], [[0.1, 0.9], [0.8, 0.2]],
                                Figure().subplots())  # fmt: skip
    assert [t.get_text() for t in ax.get_yticklabels()] == ["tom", "ran"]


def test_bad_inputs():
    with pytest.raises(ValueError, match="segment_ids has 2 entries but tokens has 3"):
        plot_input_format(["a", "b", "c"], [0, 0])
    with pytest.raises(ValueError, match="segment_ids must be 0 \\(A\\) or 1 \\(B\\)"):
        plot_input_format(["a"], [2])
    with pytest.raises(ValueError, match="marks has 1 entries"):
        plot_input_format(["a", "b"], [0, 0], marks=["x"])
    with pytest.raises(ValueError, match="task='u' has no rows"):
        plot_learning_curve(TABLE, "u")
    with pytest.raises(ValueError, match="probs has 2 entries but labels has 3"):
        plot_label_probabilities(["a", "b", "c"], [0.5, 0.5])
    with pytest.raises(ValueError, match="span must be"):
        plot_span_probabilities(["x", "y"], [0.5, 0.5], [0.5, 0.5], (1, 0))
    with pytest.raises(ValueError, match="probs has shape"):
        plot_tag_probabilities(["tom"], ["O", "B-PER"], [[1.0]])
    with pytest.raises(ValueError, match="formats must be a non-empty list"):
        input_formats_figure([])
    with pytest.raises(ValueError, match="share no task name"):
        finetuning_widget({"a": None}, {"b": None}, None, {"c": ("", "")})


def test_widget_switches_task_and_redraws():
    from lecturekit.datasets.finetuning import default_tasks
    from lecturekit.experiments.finetuning import build_model
    from lecturekit.shipped import load_shipped, load_tokenizer

    tasks, bert = default_tasks(), load_shipped("bert_tiny")
    models = {name: build_model(tasks[name], "fine-tuned", bert) for name in ("topic", "qa")}
    inputs = {
        "topic": ("my dog is cute", ""),
        "qa": ("where did tom go ?", "tom went to the park . he played football ."),
    }
    widget = finetuning_widget(models, tasks, load_tokenizer("bert_tiny"), inputs)
    task, first, second = widget.children[0].children
    image = widget.children[1]
    before = image.value
    task.value = "qa"
    assert (first.description, second.description) == ("question", "context")
    assert first.value == inputs["qa"][0] and image.value != before
    second.value = "  "  # no context: a message in the picture, not a traceback
    assert image.value


@pytest.fixture(scope="module")
def small_widget_parts():
    from lecturekit.datasets.finetuning import default_tasks
    from lecturekit.experiments.finetuning import build_model
    from lecturekit.shipped import load_shipped, load_tokenizer

    tasks, bert = default_tasks(), load_shipped("bert_tiny")
    models = {name: build_model(tasks[name], "fine-tuned", bert) for name in ("topic", "nli")}
    inputs = {"topic": ("my dog is cute", ""), "nli": ("my dog is cute", "i have a dog")}
    return models, tasks, load_tokenizer("bert_tiny"), inputs


def test_the_notebooks_examples_and_inputs():
    from lecturekit.datasets.finetuning import default_tasks

    tasks = default_tasks()
    examples = finetuning_examples(tasks)
    assert list(examples) == ["topic", "nli", "qa", "tagging"]
    assert examples["topic"] == tasks["topic"].test[1] and examples["nli"].label == "neutral"
    assert examples["qa"].script == "errands" and "B-PER" in examples["tagging"].tags
    inputs = finetuning_inputs(examples)
    assert inputs["topic"] == (examples["topic"].text, "")
    assert inputs["nli"] == (examples["nli"].premise, examples["nli"].hypothesis)
    assert inputs["qa"] == (examples["qa"].question, examples["qa"].context)
    assert inputs["tagging"] == (examples["tagging"].text, "")
    with pytest.raises(ValueError, match="tasks has no nli, qa, tagging"):
        finetuning_examples({"topic": tasks["topic"]})


def test_widget_grid_offers_each_tasks_texts():
    inputs = {"topic": ("a dog", ""), "nli": ("a dog", "a cat"), "qa": ("why ?", "because .")}
    grid = finetuning_widget_grid(inputs, extra=[("where ?", "because .")])
    assert grid == {"task": ["topic", "nli", "qa"], "first": ["a dog", "why ?", "where ?"],
                    "second": ["", "a cat", "because ."]}  # fmt: skip
    with pytest.raises(ValueError, match="extra must be a list of"):
        finetuning_widget_grid(inputs, extra="where ?")
    with pytest.raises(ValueError, match="must be a \\(first text, second text\\) pair"):
        finetuning_widget_grid(inputs, extra=[("where ?",)])


def test_widget_names_its_controls_and_remembers_its_pictures(small_widget_parts, monkeypatch):
    pytest.importorskip("ipywidgets")
    import lecturekit.experiments.finetuning as experiments
    from lecturekit.viz.widgets import ALT_ATTR, widget_controls

    calls = []
    real = experiments.probabilities
    monkeypatch.setattr(experiments, "probabilities",
                        lambda *a, **k: calls.append(a[3]) or real(*a, **k))  # fmt: skip
    models, tasks, tokenizer, inputs = small_widget_parts
    widget = finetuning_widget(models, tasks, tokenizer, inputs)
    c = widget_controls(widget)
    assert list(c) == ["task", "first", "second"]
    assert c["task"] is widget.children[0].children[0]
    image = widget.children[1]
    start = (bytes(image.value), getattr(image, ALT_ATTR))
    assert "topic" in start[1] and "bars" in start[1]
    c["second"].value = "ignored"  # a single-sentence task ignores it: nothing to draw
    assert len(calls) == 1 and bytes(image.value) == start[0]
    c["first"].value = "i have a dog"
    c["first"].value = "my dog is cute"  # drawn before: shown again
    assert len(calls) == 2 and (bytes(image.value), getattr(image, ALT_ATTR)) == start
    c["task"].value, c["second"].value = "nli", " "  # no hypothesis: a message, also as alt
    assert getattr(image, ALT_ATTR).startswith("cannot read this input")
    c["task"].value = "topic"
    assert len(calls) == 4 and bytes(image.value) == start[0]  # drawn before
    with torch.no_grad():
        next(models["topic"].parameters()).mul_(1.0)  # in place: the pictures are stale
    c["task"].value, c["task"].value = "nli", "topic"
    assert len(calls) == 6 and bytes(image.value) == start[0]  # the same weights, drawn again
