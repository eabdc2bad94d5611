"""Lecture 13 plots and widget: the four input formats, the learning curves, and what a
fine-tuned model says about one input (label, span or tags, with probabilities).

Public API::

    plot_input_format(tokens, segment_ids, marks=None, marks_name="", title=None, ax=None)
    #   one row of WordPiece tokens coloured by segment (A, B, special), and under each token
    #   what the head is trained on there (a label, a tag, "-100", "start" / "end")
    input_formats_figure(formats)            # several plot_input_format panels, one Figure
    plot_learning_curve(table, task, ax=None, ylabel="score")   # score vs labelled examples
    #   table: lecturekit.experiments.finetuning.curve_table(rows); one line per regime
    #   (mean over seeds), the band from the lowest to the highest seed
    learning_curves_figure(table, ylabels)   # one panel per task
    plot_label_probabilities(labels, probs, ax=None, title=None)
    plot_span_probabilities(tokens, start_probs, end_probs, span, ax=None, title=None)
    plot_tag_probabilities(words, labels, probs, ax=None, title=None)
    finetuning_widget(models, tasks, tokenizer, inputs)   # pick a task, type, see the answer
    examples = finetuning_examples(tasks)    # one test example per task (the notebook's)
    inputs = finetuning_inputs(examples)     # task -> (first text, second text)
    finetuning_widget_grid(inputs, extra=())  # control name -> values a static page offers
    format_examples()                        # the four input formats, one test example per task
    SCORE_NAMES                              # task -> the score its learning curve plots

Lecture 13; Devlin et al. 2019 figure 4 (the four fine-tuning formats).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from lecturekit.utils.checks import check_str, check_strings
from lecturekit.viz.helpers import check_mapping, get_axes, require_ipywidgets, to_numpy
from lecturekit.viz.plots import plot_heatmap
from lecturekit.viz.style import palette

__all__ = [
    "plot_input_format",
    "input_formats_figure",
    "plot_learning_curve",
    "learning_curves_figure",
    "plot_label_probabilities",
    "plot_span_probabilities",
    "plot_tag_probabilities",
    "finetuning_examples",
    "finetuning_inputs",
    "finetuning_widget",
    "finetuning_widget_grid",
    "SCORE_NAMES",
    "format_examples",
]

_SPECIAL = {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"}


def _box_width(token: str) -> float:
    return max(0.8, 0.16 * len(token) + 0.3)


def plot_input_format(
    tokens: Sequence[str],
    segment_ids: Sequence[int],
    marks: Sequence[str] | None = None,
    marks_name: str = "",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """One input as the slides draw it: a box per WordPiece token, coloured by segment (A, B;
    [CLS] / [SEP] grey), the segment id under it, and optionally a third row ``marks`` (one
    string per token, "" for none) named ``marks_name``: what the head is trained on there.

    Lecture 13; Devlin et al. 2019 figure 4.
    """
    tokens = check_strings("tokens", tokens)
    segments = to_numpy("segment_ids", segment_ids, 1).astype(int).tolist()
    if len(segments) != len(tokens):
        raise ValueError(f"segment_ids has {len(segments)} entries but tokens has {len(tokens)}")
    if any(s not in (0, 1) for s in segments):
        raise ValueError(f"segment_ids must be 0 (A) or 1 (B), got {sorted(set(segments))}")
    if marks is not None:
        marks = check_strings("marks", marks)
        if len(marks) != len(tokens):
            raise ValueError(f"marks has {len(marks)} entries but tokens has {len(tokens)}")
    check_str("marks_name", marks_name, allow_empty=True)
    T = len(tokens)
    ax = get_axes(ax, (max(6.0, 0.8 * T + 1.5), 2.2))
    colors = palette()
    width = [_box_width(t) for t in tokens]  # box widths in data units
    x = np.concatenate([[0.0], np.cumsum([w + 0.12 for w in width])[:-1]])
    rows = [("input", 0.0), ("segment", -0.85)] + ([(marks_name, -1.6)] if marks else [])
    for name, y in rows:
        ax.text(-0.3, y, name, ha="right", va="center", fontsize="small", fontweight="bold")
    for i, token in enumerate(tokens):
        color = "0.6" if token in _SPECIAL else colors[0 if segments[i] == 0 else 1]
        cx = x[i] + width[i] / 2
        ax.add_patch(FancyBboxPatch((x[i], -0.3), width[i], 0.6, boxstyle="round,pad=0.02",
                                    fc=color, ec=color, alpha=0.35, lw=1.0))  # fmt: skip
        ax.text(cx, 0.0, token, ha="center", va="center", fontsize="small")
        ax.text(cx, -0.85, "AB"[segments[i]], ha="center", va="center", fontsize="small",
                color=color if token not in _SPECIAL else "0.4")  # fmt: skip
        if marks and marks[i]:
            ax.text(cx, -1.6, marks[i], ha="center", va="center", fontsize="x-small")
    ax.set_xlim(-2.2, x[-1] + width[-1] + 0.2)
    ax.set_ylim(-2.2 if marks else -1.3, 0.5)
    ax.axis("off")
    if title:
        ax.set_title(title, loc="left", fontsize="medium")
    return ax


def input_formats_figure(formats: Sequence[Mapping[str, object]]) -> Figure:
    """One panel per input format; each entry holds the keyword arguments of
    ``plot_input_format`` (tokens, segment_ids, and optionally marks, marks_name, title)."""
    if isinstance(formats, Mapping) or not isinstance(formats, Sequence) or not formats:
        raise ValueError("formats must be a non-empty list of dicts (plot_input_format's "
                         f"arguments), got {type(formats).__name__}")  # fmt: skip
    heights = [2.2 if f.get("marks") else 1.4 for f in formats]
    extent = max(sum(_box_width(str(t)) + 0.12 for t in f["tokens"]) for f in formats)
    fig = Figure(figsize=(0.62 * extent + 2.0, sum(heights) + 0.3))
    axes = np.atleast_1d(fig.subplots(len(formats), 1, gridspec_kw={"height_ratios": heights}))
    for ax, kwargs in zip(axes, formats, strict=True):
        plot_input_format(ax=ax, **kwargs)
    right = max(ax.get_xlim()[1] for ax in axes)  # one scale: a token is as wide in every panel
    for ax in axes:
        ax.set_xlim(ax.get_xlim()[0], right)
    fig.tight_layout()
    return fig


_REGIME_STYLE = {"fine-tuned": ("o", "-"), "from scratch": ("s", "--"),
                 "frozen features": ("^", ":")}  # fmt: skip


def plot_learning_curve(
    table: Mapping[tuple[str, str, int], tuple[float, float, float]],
    task: str,
    ax: Axes | None = None,
    ylabel: str = "score",
    title: str | None = None,
) -> Axes:
    """``task``'s test score against the number of labelled examples (log scale), one line per
    regime: the mean over seeds, the band from the lowest to the highest seed.

    ``table``: (task, regime, n_train) -> (mean, min, max), as
    ``lecturekit.experiments.finetuning.curve_table`` returns.

    Lecture 13.
    """
    check_mapping("table", table, "(task, regime, n_train) -> (mean, min, max)")
    check_str("task", task)
    regimes = list(dict.fromkeys(r for t, r, _ in table if t == task))
    if not regimes:
        tasks = sorted({t for t, _, _ in table})
        raise ValueError(f"task={task!r} has no rows in table; it holds {tasks}")
    ax = get_axes(ax, (4.5, 3.4))
    colors = palette()
    order = [r for r in _REGIME_STYLE if r in regimes] + [r for r in regimes
                                                          if r not in _REGIME_STYLE]  # fmt: skip
    for i, regime in enumerate(order):
        sizes = sorted(n for t, r, n in table if t == task and r == regime)
        mean, low, high = (np.array([table[(task, regime, n)][j] for n in sizes]) for j in range(3))
        marker, style = _REGIME_STYLE.get(regime, ("o", "-"))
        ax.plot(sizes, mean, marker=marker, linestyle=style, color=colors[i], label=regime)
        ax.fill_between(sizes, low, high, color=colors[i], alpha=0.18, lw=0)
    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
    ax.minorticks_off()
    ax.set(xlabel="labelled training examples", ylabel=ylabel, title=title or task)
    ax.set_ylim(0, 1.02)
    return ax


def learning_curves_figure(
    table: Mapping[tuple[str, str, int], tuple[float, float, float]],
    ylabels: Mapping[str, str],
) -> Figure:
    """One ``plot_learning_curve`` panel per task of ``ylabels`` (task -> its score's name),
    side by side, one legend."""
    check_mapping("ylabels", ylabels, "task -> the name of its score")
    fig = Figure(figsize=(3.4 * len(ylabels) + 0.4, 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(ylabels), sharey=True))
    for ax, (task, ylabel) in zip(axes, ylabels.items(), strict=True):
        plot_learning_curve(table, task, ax, ylabel=ylabel)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def plot_label_probabilities(
    labels: Sequence[str], probs: object, ax: Axes | None = None, title: str | None = None
) -> Axes:
    """Horizontal bars: the probability of each label (the most likely one highlighted)."""
    labels = check_strings("labels", labels)
    p = to_numpy("probs", probs, 1)
    if len(p) != len(labels):
        raise ValueError(f"probs has {len(p)} entries but labels has {len(labels)}")
    ax = get_axes(ax, (5.0, 0.35 * len(labels) + 0.8))
    colors = palette()
    best = int(p.argmax())
    y = np.arange(len(labels))[::-1]
    ax.barh(y, p, color=[colors[1] if i == best else colors[0] for i in range(len(p))])
    for yi, pi in zip(y, p, strict=True):
        ax.text(min(pi + 0.02, 0.9), yi, f"{pi:.2f}", va="center", fontsize="small")
    ax.set_yticks(y, labels)
    ax.set_xlim(0, 1.05)
    ax.set(xlabel="probability", title=title)
    return ax


def plot_span_probabilities(
    tokens: Sequence[str],
    start_probs: object,
    end_probs: object,
    span: tuple[int, int],
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """P(start) above and P(end) below each context token; the chosen span shaded.

    ``span``: (first, last) token index, inclusive, into ``tokens``.
    """
    tokens = check_strings("tokens", tokens)
    start = to_numpy("start_probs", start_probs, 1)
    end = to_numpy("end_probs", end_probs, 1)
    if not len(start) == len(end) == len(tokens):
        raise ValueError(f"tokens ({len(tokens)}), start_probs ({len(start)}) and end_probs "
                         f"({len(end)}) must have one entry per token")  # fmt: skip
    if (not isinstance(span, (tuple, list)) or len(span) != 2
            or not 0 <= span[0] <= span[1] < len(tokens)):  # fmt: skip
        raise ValueError(f"span must be (first, last) with 0 <= first <= last < "
                         f"{len(tokens)}, got {span!r}")  # fmt: skip
    T = len(tokens)
    ax = get_axes(ax, (max(6.0, 0.34 * T + 1), 3.2))
    colors = palette()
    x = np.arange(T)
    ax.axvspan(span[0] - 0.5, span[1] + 0.5, color=colors[2], alpha=0.18, lw=0)
    ax.bar(x, start, color=colors[0], label="P(start)")
    ax.bar(x, -end, color=colors[1], label="P(end)")
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xticks(x, tokens, rotation=90, fontsize="small")
    ax.set_ylim(-1.05, 1.05)
    ax.set_yticks([-1, -0.5, 0, 0.5, 1], ["1", "0.5", "0", "0.5", "1"])
    ax.set(ylabel="P(end)      P(start)", title=title)
    ax.legend(loc="upper right", fontsize="small")
    return ax


def plot_tag_probabilities(
    words: Sequence[str],
    labels: Sequence[str],
    probs: object,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """A words x tags heat map of the tag probabilities (each word's first piece)."""
    words = check_strings("words", words)
    labels = check_strings("labels", labels)
    p = to_numpy("probs", probs, 2)
    if p.shape != (len(words), len(labels)):
        raise ValueError(f"probs has shape {p.shape}, wanted (words, labels) = "
                         f"({len(words)}, {len(labels)})")  # fmt: skip
    ax = get_axes(ax, (0.8 * len(labels) + 2, 0.4 * len(words) + 1))
    return plot_heatmap(p, ax, xticklabels=list(labels), yticklabels=list(words), title=title,
                        vmin=0, vmax=1, annotate=True, fmt=".2f")  # fmt: skip


def finetuning_examples(tasks: Mapping) -> dict[str, object]:
    """One test example of each task (never seen in training), the ones lecture 13's "try it"
    section shows and starts ``finetuning_widget`` from: topic's second test sentence, the
    first neutral NLI pair, the first question on an errands story, the first tagged sentence
    with a person.

    Args:
        tasks: ``lecturekit.datasets.finetuning.default_tasks()`` (topic, nli, qa, tagging).

    Returns:
        task name -> its example (its gold included), in the order topic, nli, qa, tagging.

    Lecture 13.
    """
    check_mapping("tasks", tasks, "task name -> Task")
    missing = [n for n in ("topic", "nli", "qa", "tagging") if n not in tasks]
    if missing:
        raise ValueError(f"tasks has no {', '.join(missing)} (it holds {sorted(tasks)}): give "
                         "default_tasks()")  # fmt: skip
    picks = {
        "topic": lambda test: test[1],
        "nli": lambda test: next(e for e in test if e.label == "neutral"),
        "qa": lambda test: next(e for e in test if e.script == "errands"),
        "tagging": lambda test: next(e for e in test if "B-PER" in e.tags),
    }
    found = {}
    for name, pick in picks.items():
        try:
            found[name] = pick(tasks[name].test)
        except (AttributeError, IndexError, StopIteration):
            raise ValueError(f"tasks[{name!r}] has no test example to pick: give "
                             "default_tasks()") from None  # fmt: skip
    return found


def finetuning_inputs(examples: Mapping) -> dict[str, tuple[str, str]]:
    """The (first text, second text) of each example, ``finetuning_widget``'s ``inputs``:
    (sentence, "") for single-sentence tasks, (premise, hypothesis), (question, context).

    Lecture 13.
    """
    from lecturekit.datasets.finetuning import example_input

    check_mapping("examples", examples, "task name -> example")
    return {name: (*example_input(e), "")[:2] for name, e in examples.items()}


def finetuning_widget_grid(
    inputs: Mapping[str, tuple[str, str]], extra: Sequence[tuple[str, str]] = ()
) -> dict[str, list[object]]:
    """The settings a static page (no Python kernel) pre-renders for ``finetuning_widget``: every
    task, and as prepared inputs of the two text boxes the first and the second texts of
    ``inputs`` (the widget's own: each task's start) and then of ``extra``, each once. A page
    pre-renders every combination (tasks x first texts x second texts), so a reader picks a
    task and then the texts that go with it.

    Args:
        inputs: task name -> (first text, second text), the widget's ``inputs``.
        extra: more (first text, second text) pairs to offer ("" for no second text).

    Returns:
        {"task": names, "first": texts, "second": texts}.

    Lecture 13.
    """
    check_mapping("inputs", inputs, "task name -> (first text, second text)")
    if isinstance(extra, (str, bytes)) or not isinstance(extra, Sequence):
        raise ValueError(f"extra must be a list of (first, second) text pairs, got "
                         f"{type(extra).__name__}")  # fmt: skip
    pairs = [*inputs.values(), *extra]
    for i, pair in enumerate(pairs):
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"each input must be a (first text, second text) pair, got "
                             f"{pair!r}")  # fmt: skip
        check_strings(f"inputs[{i}]", list(pair), allow_empty=True)
    return {
        "task": list(inputs),
        "first": list(dict.fromkeys(first for first, _ in pairs)),
        "second": list(dict.fromkeys(second for _, second in pairs)),
    }


_DRAWN = 128  # pictures finetuning_widget remembers (a PNG of 10-40 kB each)
_TICKS = {"span": 96, "token": 16}  # ticks finetuning_widget makes at once: tokens, words


def _clear_plot(ax: Axes) -> None:
    """Take off ``ax`` what a plot function drew on it (bars, spans, lines, images and their
    colour bars, words, the legend), so that the next one draws as on a new Axes (its data
    limits set anew)."""
    for image in ax.images:
        if image.colorbar is not None:  # its Axes goes, and the room it took comes back
            image.colorbar.remove()
    for container in list(ax.containers):
        container.remove()
    for artist in [*ax.patches, *ax.lines, *ax.collections, *ax.images, *ax.texts]:
        artist.remove()
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    ax.ignore_existing_data_limits = True


def finetuning_widget(models: Mapping, tasks: Mapping, tokenizer, inputs: Mapping):
    """Pick a task, type the input, see what its fine-tuned model answers, with probabilities.

    Args:
        models: task name -> fine-tuned head model (e.g. the shipped ``bert_tiny_<task>``).
        tasks: task name -> ``lecturekit.datasets.finetuning.Task`` (labels, kind).
        tokenizer: the models' ``WordPieceTokenizer``.
        inputs: task name -> (first text, second text) to start from: (sentence, "") for
            single-sentence tasks, (premise, hypothesis), (question, context).

    Returns:
        An ipywidgets VBox: a task dropdown and two text boxes above the picture (an Image,
        its alt text kept as ``ALT_ATTR``); its controls by name (``widget_controls``): task,
        first, second (``finetuning_widget_grid``). It remembers the last 128 pictures it drew
        and shows them again without recomputing (until a model's weights or mode change).

    Lecture 13.
    """
    from lecturekit.experiments.finetuning import probabilities
    from lecturekit.viz.alt import figure_alt_text
    from lecturekit.viz.style import theme as theme_context
    from lecturekit.viz.widgets import (
        ALT_ATTR,
        DRAW_AHEAD,
        KeptCanvas,
        ahead_job,
        attach_controls,
        module_state,
        render_png,
    )

    check_mapping("models", models, "task name -> fine-tuned model")
    check_mapping("tasks", tasks, "task name -> Task")
    check_mapping("inputs", inputs, "task name -> (first text, second text)")
    names = [n for n in models if n in tasks and n in inputs]
    if not names:
        raise ValueError(f"models, tasks and inputs share no task name: {sorted(models)}, "
                         f"{sorted(tasks)}, {sorted(inputs)}")  # fmt: skip
    w = require_ipywidgets()
    task_box = w.Dropdown(options=names, value=names[0], description="task")
    first = w.Text(value=inputs[names[0]][0], continuous_update=False,
                   layout={"width": "420px"})  # fmt: skip
    second = w.Text(value=inputs[names[0]][1], continuous_update=False,
                    layout={"width": "420px"})  # fmt: skip
    box_names = {"sequence": ("sentence", "(unused)"), "token": ("sentence", "(unused)"),
                 "pair": ("premise", "hypothesis"), "span": ("question", "context")}  # fmt: skip

    following = [False]  # while a task change sets the texts: one redraw, after both

    def follow(change: dict) -> None:  # registered first: runs before the redraw
        task = tasks[change["new"]]
        first.description, second.description = box_names[task.kind]
        following[0] = True
        try:
            first.value, second.value = inputs[change["new"]]
        finally:
            following[0] = False

    first.description, second.description = box_names[tasks[names[0]].kind]
    task_box.observe(follow, names="value")

    # task -> its picture's Figure, built now and drawn again in place by every picture of the
    # task: its Axes and their ticks kept (what a new Figure spends a third of its time on),
    # as many ticks made now as a question and its context or a sentence usually have
    kept: dict[str, Figure] = {}
    for name in names:
        with theme_context("light"):  # (the Axes and ticks take their style when made)
            fig = kept[name] = Figure(figsize=(7.5, 3.4))
            KeptCanvas(fig)
            ax = fig.add_subplot()
            kind = tasks[name].kind
            if kind in ("span", "token"):
                (ax.xaxis if kind == "span" else ax.yaxis).get_major_ticks(_TICKS[kind])

    def render(task: str, first: str, second: str) -> tuple[Figure, str | None]:
        """The picture, and the message it shows if the input cannot be read."""
        t = tasks[task]
        try:
            p = probabilities(models[task], t, tokenizer, first, second)
        except ValueError as err:  # a message instead of a traceback for a bad text
            fig = Figure(figsize=(7.5, 3.4))
            ax = fig.add_subplot()
            said = f"cannot read this input:\n{err}"
            ax.text(0.5, 0.5, said, ha="center", va="center", wrap=True)
            ax.axis("off")
            return fig, said
        fig = kept[task]
        ax = fig.axes[0]
        _clear_plot(ax)  # the plot function draws on the Axes as on a new one
        if t.kind in ("sequence", "pair"):
            title = f"{t.name}: {p['answer']}"
            plot_label_probabilities(t.labels, p["probs"], ax, title=title)
            shown: tuple = (tuple(t.labels),)
        elif t.kind == "span":
            fig.set_size_inches(max(7.5, 0.3 * len(p["tokens"]) + 1.5), 3.6)
            title = f"answer: {p['answer']!r}  (P = {p['span_prob']:.2f})"
            plot_span_probabilities(p["tokens"], p["start_probs"], p["end_probs"], p["span"],
                                    ax, title=title)  # fmt: skip
            shown = (tuple(p["tokens"]),)
        else:
            fig.set_size_inches(6.5, 0.36 * len(p["words"]) + 1.4)
            title = " ".join(p["answer"])
            plot_tag_probabilities(p["words"], t.labels, p["probs"], ax, title=title)
            shown = (tuple(p["words"]), tuple(t.labels))
        # the layout: what sticks out of the Axes (the tick labels, the title), at this size
        fig.canvas.layout((tuple(fig.get_size_inches()), *shown, title))
        return fig, None

    controls = {"task": task_box, "first": first, "second": second}
    image = w.Image(format="png")
    # The picture is pure in (task, first, second), and single-sentence tasks ignore the
    # second text: a picture drawn before is shown again as it was. The memory is emptied
    # when a model's weights or mode change.
    drawn: dict[tuple[str, str, str], tuple[bytes, str]] = {}  # setting -> (png, alt)
    state = [module_state(*models.values())]

    def key_of(values: Mapping[str, str]) -> tuple[str, str, str]:
        used = tasks[values["task"]].kind in ("pair", "span")
        return (values["task"], values["first"], values["second"] if used else "")

    def fill(values: Mapping[str, str]) -> tuple[bytes, str]:
        key = key_of(values)
        if key not in drawn:
            with theme_context("light"):
                fig, said = render(**values)
                drawn[key] = (render_png(fig), said or figure_alt_text(fig))
            while len(drawn) > _DRAWN:
                drawn.pop(next(iter(drawn)))  # the oldest first
        return drawn[key]

    # While the kernel is idle, every other task is drawn ahead with the texts a change of
    # task puts in the boxes (a text a student types cannot be guessed).
    ahead: list[dict[str, str]] = []

    draw_next = ahead_job(ahead, lambda v: key_of(v) in drawn, fill,
                          valid=lambda: module_state(*models.values()) == state[0])  # fmt: skip

    def update(_change: object = None) -> None:
        if following[0]:
            return
        values = {k: c.value for k, c in controls.items()}
        now = module_state(*models.values())
        if now != state[0]:
            drawn.clear()
            state[0] = now
        if key_of(values) in drawn:
            image.value, alt = fill(values)
        else:
            with DRAW_AHEAD.live():
                image.value, alt = fill(values)
        setattr(image, ALT_ATTR, alt)
        ahead[:] = [{"task": n, "first": inputs[n][0], "second": inputs[n][1]}
                    for n in names if n != values["task"]]  # fmt: skip
        DRAW_AHEAD.moved(draw_next)

    update()
    for control in controls.values():
        control.observe(update, names="value")
    return attach_controls(w.VBox([w.HBox(list(controls.values())), image]), controls)


# ------------------------------------------- the slides' four input formats, the curves' scores
# (notebook 13 and its slide figures, tools/lecturekit_publish/figures/lecture_13.py, use them)
# The score each learning curve plots (learning_curves_figure's ylabels).
SCORE_NAMES = {"topic": "accuracy", "nli": "accuracy", "qa": "F1 (SQuAD)",
               "tagging": "entity F1 (CoNLL)"}  # fmt: skip


def format_examples() -> list[dict[str, object]]:
    """The four input formats, in the slides' order (a) pair, (b) single, (c) QA, (d) tagging.

    Each is the first test example of its task (``default_tasks()``, tokenized with the shipped
    ``bert_tiny`` tokenizer) that shows what its format does; the QA context is cut three tokens
    after the answer, so that it fits a slide.

    Returns:
        Four ``lecturekit.experiments.finetuning.input_format`` dicts (``tokens``,
        ``segment_ids``, ``marks``, ``marks_name``, ``title``), for ``input_formats_figure``.

    Lecture 13; Devlin et al. 2019 figure 4.
    """
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
