"""The inputs that the rebuilt widgets of lectures 13, 14 and 15 take are the notebooks': the
same examples, prompts and sentences, and a tokenizer that tokenizes as the notebook's."""

from notebook_links import ROOT  # tests/support

from lecturekit_publish.figures import lecture_13, lecture_14, lecture_15
from lecturekit_publish.notebook import read_notebook


def _source(nb: dict, cell: int) -> str:
    return "".join(nb["cells"][cell]["source"])


def _output_text(nb: dict, cell: int) -> str:
    return "".join("".join(out.get("text", "")) for out in nb["cells"][cell].get("outputs", []))


def _cell_with(nb: dict, text: str) -> int:
    """The index of the one cell whose source holds ``text`` (cells move when a lecture grows)."""
    found = [i for i, cell in enumerate(nb["cells"]) if text in "".join(cell["source"])]
    assert len(found) == 1, f"{text!r} is in cells {found}, not in exactly one"
    return found[0]


def test_lecture_13_inputs_are_the_examples_the_notebook_prints():
    from lecturekit.datasets.finetuning import default_tasks
    from lecturekit.viz.finetuning import finetuning_examples, finetuning_inputs

    nb = read_notebook(ROOT / "notebooks" / "13_bert_finetuning.ipynb")
    _cell_with(nb, "finetuning_widget(finetuned, tasks, tokenizer, inputs)")
    printed = "".join(_output_text(nb, i) for i in range(len(nb["cells"])))  # the examples' cell
    inputs = finetuning_inputs(finetuning_examples(default_tasks()))
    for name, (first, _) in inputs.items():
        assert f"{name:8s} {first!r}" in printed, name
    context = inputs["qa"][1]
    assert lecture_13.WIDGET_QUESTION.split()[-2] in context.split()  # the story's other place


def test_lecture_14_prompts_are_the_notebooks():
    nb = read_notebook(ROOT / "notebooks" / "14_gpt_generation.ipynb")
    call = _cell_with(nb, 'generation_widget(gpt, tokenizer, prompt="my dog", eos_id=END_OF_TEXT)')
    prose = _source(nb, call - 1)  # the markdown cell that introduces the widget
    first, *others = lecture_14.WIDGET_PROMPTS
    assert first == "my dog" and all(f'"{p}"' in prose for p in others)
    assert "top-p = 0.5" in prose  # the value the prose asks to try: in the grid


def test_lecture_15_sentences_and_tokenizer_are_the_notebooks():
    from lecturekit.datasets.stories import default_data
    from lecturekit.shipped import load_tokenizer
    from lecturekit.viz.objectives import T5_SENTENCE

    nb = read_notebook(ROOT / "notebooks" / "15_pretraining_objectives.ipynb")
    cell = _source(nb, _cell_with(nb, "objective_widget(sentences, tokenizer=tokenizer)"))
    t5 = " ".join(T5_SENTENCE)
    for sentence in lecture_15.WIDGET_SENTENCES:
        assert sentence == t5 or f'"{sentence}"' in cell
    _cell_with(nb, 'permutation_widget("new york is a city")')
    assert "tokenizer = data.tokenizer" in _source(nb, 2)
    theirs, ours = default_data().tokenizer, load_tokenizer("bert_tiny")
    assert ours.vocab == theirs.vocab
    for sentence in lecture_15.WIDGET_SENTENCES:
        assert ours.tokenize(sentence) == theirs.tokenize(sentence)
