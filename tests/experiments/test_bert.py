"""lecturekit.experiments.bert: lecture 08's held-out accuracies and the right-context blanks,
on the shipped models."""

from lecturekit.datasets.stories import default_data, right_context_blanks
from lecturekit.experiments.bert import blank_accuracy, mlm_accuracy, nsp_accuracy
from lecturekit.shipped import load_shipped, load_tokenizer


def test_shipped_bert_meets_the_lectures_targets():
    """The claims lecture 08 makes about the shipped models, on held-out documents."""
    data = default_data()
    bert, tok = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    lm = load_shipped("causal_lm_tiny")
    assert nsp_accuracy(bert, data) >= 0.95
    assert mlm_accuracy(bert, data) >= 0.80
    blanks = right_context_blanks(400, seed=1)
    bidirectional, left_to_right = (
        blank_accuracy(bert, tok, blanks),
        blank_accuracy(lm, tok, blanks),
    )
    assert bidirectional >= 0.95 and left_to_right <= 0.5
