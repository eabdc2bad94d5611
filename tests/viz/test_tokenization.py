"""lecturekit.viz.tokenization: merge table, segmentations, widgets."""

import pytest
from matplotlib.figure import Figure

from lecturekit.bpe import SLIDES_DICTIONARY, learn_bpe
from lecturekit.datasets.stories import default_data
from lecturekit.tokenization import count_words


@pytest.fixture(scope="module")
def corpus_counts():
    return count_words(s for doc in default_data().train for s in doc)


def test_plots_and_widgets():
    from lecturekit.viz.tokenization import (
        bpe_merges_widget,
        plot_merge_table,
        plot_segmentations,
        tokenizer_widget,
    )

    _, trace = learn_bpe(SLIDES_DICTIONARY, 4)
    fig = Figure()
    ax = plot_merge_table(trace, fig.add_subplot(), words=["low", "newest"])
    texts = {cell.get_text().get_text() for cell in ax.tables[0].get_celld().values()}
    assert {"e + s → es", "lo w", "n e w est"} <= texts
    ax = plot_segmentations(
        {"lowest": ["low", "est"], "zebra": ["[UNK]", "e"]}, Figure().subplots()
    )
    assert [t.get_text() for t in ax.get_yticklabels()] == ["lowest", "zebra"]
    with pytest.raises(ValueError, match="words \\['high'\\] are not in the trace"):
        plot_merge_table(trace, Figure().subplots(), words=["high"])
    widget = bpe_merges_widget(SLIDES_DICTIONARY, ["lowest", "newer"], max_merges=5)
    slider, image = widget.children[0].children[0], widget.children[1]
    before = image.value
    slider.value = 5
    assert slider.max == 5 and image.value != before
    widget = tokenizer_widget({"chars": list, "words": str.split}, "low newer")
    assert bytes(widget.children[1].value).startswith(b"\x89PNG")
