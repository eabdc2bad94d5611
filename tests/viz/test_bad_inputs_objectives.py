"""Bad inputs to lecture 15's plots and widgets (lecturekit.viz.objectives): each gets a clear
ValueError naming the argument (tests/support/bad_inputs.py)."""

from bad_inputs import Bad, assert_clear_error, bad_rows

from lecturekit.viz import objectives as vo

V = "viz.objectives"
TWO = ["x", "y"]

# fmt: off
ROWS = [
    Bad(f"{V}.objective_view: unknown objective", "model",
        lambda: vo.objective_view("BERT", "a b c"), ["objective", "BERT MLM"]),
    Bad(f"{V}.objective_view: a word not a str", "type",
        lambda: vo.objective_view("ELECTRA", ["a", 1]), "words[1]"),
    Bad(f"{V}.objective_view: negative seed", "size",
        lambda: vo.objective_view("ELECTRA", "a b c", seed=-1), "seed"),
    Bad(f"{V}.objective_view: rate 1", "range",
        lambda: vo.objective_view("BERT MLM", "a b c", rate=1.0), "rate"),
    Bad(f"{V}.objective_view: a span outside the sentence", "range",
        lambda: vo.objective_view("BERT MLM", "a b c", spans=[(1, 5)]), "spans[0]"),
    Bad(f"{V}.objective_view: tokenizer a string", "type",
        lambda: vo.objective_view("BERT MLM", "a b c", tokenizer="wp"), "tokenizer"),
    Bad(f"{V}.objective_view: sampler returns too many", "data",
        lambda: vo.objective_view("ELECTRA", "a b c", sampler=lambda *a: TWO), "sampler"),
    Bad(f"{V}.objective_view: sampler not callable", "type",
        lambda: vo.objective_view("ELECTRA", "a b c", sampler=3), "sampler"),
    Bad(f"{V}.objective_view: T5 random spans of one word", "size",
        lambda: vo.objective_view("T5 span corruption", ["a"]), "words"),
    Bad(f"{V}.plot_objective_table: no rows", "size",
        lambda: vo.plot_objective_table([]), "rows"),
    Bad(f"{V}.plot_objective_table: not a view", "type",
        lambda: vo.plot_objective_table([{"objective": "x"}]), "rows[0]"),
    Bad(f"{V}.plot_objective_table: ax a string", "type",
        lambda: vo.plot_objective_table(vo.objective_view("ELECTRA", "a b"), ax="ax"), "ax"),
    Bad(f"{V}.plot_permutation_masks: order shorter than words", "shape",
        lambda: vo.plot_permutation_masks("a b c", [0, 1]), "order"),
    Bad(f"{V}.plot_permutation_masks: order not a permutation", "range",
        lambda: vo.plot_permutation_masks("a b", [0, 0]), "order"),
    Bad(f"{V}.plot_permutation_masks: step beyond the words", "range",
        lambda: vo.plot_permutation_masks("a b", [0, 1], step=3), "step"),
    Bad(f"{V}.plot_permutation_masks: axes a string", "type",
        lambda: vo.plot_permutation_masks("a b", [0, 1], axes="ab"), "axes"),
    Bad(f"{V}.objective_widget: a bare string", "type",
        lambda: vo.objective_widget("my dog"), "sentences"),
    Bad(f"{V}.objective_widget: a one-word sentence", "size",
        lambda: vo.objective_widget([["my"]]), "sentences[0]"),
    Bad(f"{V}.permutation_widget: one word", "size",
        lambda: vo.permutation_widget(["a"]), "words"),
    Bad(f"{V}.objective_widget_grid: 0 sentences", "size",
        lambda: vo.objective_widget_grid(0), "n_sentences"),
    Bad(f"{V}.permutation_widget_grid: 0 words", "size",
        lambda: vo.permutation_widget_grid(0), "n_words"),
]
# fmt: on


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)
