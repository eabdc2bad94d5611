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


def test_widgets_carry_the_text_they_draw_as_alt_text():
    pytest.importorskip("ipywidgets")
    from lecturekit.viz.tokenization import bpe_merges_widget, tokenizer_widget
    from lecturekit.viz.widgets import ALT_ATTR, widget_controls

    widget = bpe_merges_widget(SLIDES_DICTIONARY, ["lowest", "newer"], max_merges=5)
    image, slider = widget.children[1], widget_controls(widget)["merges_done"]
    assert "merge 3: l + o → lo (count 7)" in getattr(image, ALT_ATTR)
    assert "lowest (new): lo w est" in getattr(image, ALT_ATTR)
    slider.value = 4
    assert "lowest (new): low est" in getattr(image, ALT_ATTR)
    widget = tokenizer_widget({"chars": list, "words": str.split}, "low newer")
    image, box = widget.children[1], widget_controls(widget)["text"]
    assert "words (2): low newer" in getattr(image, ALT_ATTR)
    box.value = "wider"
    assert "chars (5): w i d e r" in getattr(image, ALT_ATTR)
    box.value = "low newer " * 40
    assert len(getattr(image, ALT_ATTR)) <= 600


def test_tokenizer_grid_starts_with_the_text_and_offers_prepared_ones():
    from lecturekit.viz.tokenization import PREPARED_TEXTS, tokenizer_widget_grid

    grid = tokenizer_widget_grid("he likes playing in the doghouse")
    assert list(grid) == ["text"]  # the widget's one control
    texts = grid["text"]
    assert texts[0] == "he likes playing in the doghouse" and 4 <= len(texts) <= 8
    assert len(set(texts)) == len(texts) and all(isinstance(t, str) and t for t in texts)
    assert tokenizer_widget_grid(PREPARED_TEXTS[0])["text"] == list(PREPARED_TEXTS)
    with pytest.raises(ValueError, match="text"):
        tokenizer_widget_grid(3)


def test_compared_tokenizers_are_notebook_12s_five():
    from lecturekit.viz.tokenization import compared_tokenizers

    tokenizers = compared_tokenizers()
    assert list(tokenizers) == ["BPE", "WordPiece", "WordPiece (likelihood)", "lecture 08",
                                "byte-level BPE"]  # fmt: skip
    cut = {name: tokenize("he likes playing") for name, tokenize in tokenizers.items()}
    assert cut["BPE"] == ["he", "likes", "play", "ing"]
    assert cut["WordPiece"] == cut["lecture 08"] == ["he", "likes", "play", "##ing"]
    assert cut["byte-level BPE"][0] == "Ġhe"  # GPT-2's mark of a space before a word
    assert "[UNK]" not in tokenizers["byte-level BPE"]("zebra café 🙂")
    again = compared_tokenizers()  # deterministic: the same cuts on a second training
    text = "the flightless dog is unhappy in the doghouse"
    assert all(again[name](text) == tokenize(text) for name, tokenize in tokenizers.items())
