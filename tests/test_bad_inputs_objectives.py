"""Bad inputs to lecturekit.objectives (lectures 08 and 15): rates outside (0, 1), spans longer than
or outside the sequence, overlapping spans, too few sentinels, orders that are not
permutations, ... Each row must raise a clear ValueError naming the argument
(tests/support/bad_inputs.py)."""

import random

import torch
from bad_inputs import Bad, assert_clear_error, bad_rows

from lecturekit.objectives import (
    check_rate,
    corrupt_chosen,
    electra_example,
    make_nsp_pairs,
    mask_tokens,
    permutation_masks,
    random_spans,
    reconstruct,
    sample_order,
    sample_spans,
    sentence_order_pairs,
    sentence_relation_triples,
    span_corruption,
    span_length_distribution,
    span_mask,
    whole_word_mask,
    word_ids,
)

IDS = torch.arange(5, 16)  # (11,): the T5 sentence's words
CHOSEN = torch.zeros(11, dtype=torch.bool)
SENT = [20, 21, 22]
WIDS = [None, 0, 1, 1, 2, None]
DOCS = [["a b", "c d", "e f"], ["g h", "i j"]]
BERT_IDS = torch.tensor([[2, 7, 8, 4, 3]])  # (B, T): [CLS] a b [MASK] [SEP]

# fmt: off
RATES = [0, 1, -0.1, 1.5, float("nan")]
ROWS = [
    *[Bad(f"objectives.check_rate: {r!r}", "range", lambda r=r: check_rate("rate", r),
          ["rate", "(0, 1)"]) for r in RATES],
    Bad("objectives.check_rate: a string", "type", lambda: check_rate("rate", "0.1"), "rate"),
    Bad("objectives.check_rate: a bool", "type", lambda: check_rate("rate", True), "rate"),
    *[Bad(f"objectives.whole_word_mask: rate {r!r}", "range",
          lambda r=r: whole_word_mask(WIDS, r), "rate") for r in RATES],
    *[Bad(f"objectives.span_mask: rate {r!r}", "range", lambda r=r: span_mask(20, r), "rate")
      for r in RATES],
    *[Bad(f"objectives.span_corruption: noise_density {r!r}", "range",
          lambda r=r: span_corruption(IDS, SENT * 4, noise_density=r), "noise_density")
      for r in RATES],
    # corrupt_chosen
    Bad("objectives.corrupt_chosen: chosen not bool", "dtype",
        lambda: corrupt_chosen(IDS, CHOSEN.long(), vocab_size=30), ["chosen", "bool"]),
    Bad("objectives.corrupt_chosen: chosen of another shape", "shape",
        lambda: corrupt_chosen(IDS, CHOSEN[:5], vocab_size=30), ["chosen", "(11,)"]),
    Bad("objectives.corrupt_chosen: ids out of the vocabulary", "range",
        lambda: corrupt_chosen(IDS, CHOSEN, vocab_size=10), ["ids", "0..9"]),
    Bad("objectives.corrupt_chosen: float ids", "dtype",
        lambda: corrupt_chosen(IDS.float(), CHOSEN, vocab_size=30), ["ids", ".long()"]),
    Bad("objectives.corrupt_chosen: ids a list", "type",
        lambda: corrupt_chosen([5, 6], CHOSEN[:2], vocab_size=30), "ids"),
    Bad("objectives.corrupt_chosen: shares above 1", "range",
        lambda: corrupt_chosen(IDS, CHOSEN, vocab_size=30, mask_share=0.95, random_share=0.1),
        ["mask_share", "random_share"]),
    Bad("objectives.corrupt_chosen: negative random_share", "range",
        lambda: corrupt_chosen(IDS, CHOSEN, vocab_size=30, random_share=-0.1), "random_share"),
    Bad("objectives.corrupt_chosen: mask_id outside", "range",
        lambda: corrupt_chosen(IDS, CHOSEN, vocab_size=30, mask_id=30), "mask_id"),
    Bad("objectives.corrupt_chosen: vocab_size <= num_special", "size",
        lambda: corrupt_chosen(IDS * 0, CHOSEN, vocab_size=5, mask_id=4),
        ["vocab_size", "num_special"]),
    Bad("objectives.corrupt_chosen: generator a seed", "type",
        lambda: corrupt_chosen(IDS, CHOSEN, vocab_size=30, generator=0), "generator"),
    # word ids, whole words, spans of words
    Bad("objectives.word_ids: a bare string", "type", lambda: word_ids("he likes"), "tokens"),
    Bad("objectives.word_ids: ints", "type", lambda: word_ids([1, 2]), "tokens[0]"),
    Bad("objectives.whole_word_mask: a word split by another", "data",
        lambda: whole_word_mask([0, 1, 0], 0.5), ["word_ids", "consecutive"]),
    Bad("objectives.whole_word_mask: a negative word id", "range",
        lambda: whole_word_mask([0, -1], 0.5), "word_ids[1]"),
    Bad("objectives.whole_word_mask: tokens, not word ids", "type",
        lambda: whole_word_mask(["he", "likes"], 0.5), "word_ids[0]"),
    Bad("objectives.whole_word_mask: a string", "type",
        lambda: whole_word_mask("abc", 0.5), "word_ids"),
    Bad("objectives.span_mask: length 0", "size", lambda: span_mask(0, 0.15), "words"),
    Bad("objectives.span_mask: mean span below 1", "range",
        lambda: span_mask(20, 0.15, mean_span_length=0.5), "mean_span_length"),
    Bad("objectives.span_mask: mean span beyond the maximum", "range",
        lambda: span_mask(20, 0.15, mean_span_length=6.0, max_span_length=10),
        "mean_span_length"),
    Bad("objectives.span_mask: max_span_length 0", "size",
        lambda: span_mask(20, 0.15, max_span_length=0), "max_span_length"),
    Bad("objectives.span_length_distribution: p = 0", "range",
        lambda: span_length_distribution(p=0.0), "p"),
    Bad("objectives.sample_spans: generator a seed", "type",
        lambda: sample_spans(20, 0.15, generator=1), "generator"),
    # T5 span corruption
    Bad("objectives.span_corruption: a span longer than the sequence", "range",
        lambda: span_corruption(IDS, SENT, [(0, 12)]), ["spans[0]", "longer", "T=11"]),
    Bad("objectives.span_corruption: a span outside the sequence", "range",
        lambda: span_corruption(IDS, SENT, [(9, 13)]), ["spans[0]", "T=11"]),
    Bad("objectives.span_corruption: a negative start", "range",
        lambda: span_corruption(IDS, SENT, [(-1, 2)]), "spans[0]"),
    Bad("objectives.span_corruption: an empty span", "range",
        lambda: span_corruption(IDS, SENT, [(3, 3)]), "spans[0]"),
    Bad("objectives.span_corruption: overlapping spans", "range",
        lambda: span_corruption(IDS, SENT, [(2, 5), (4, 6)]), ["spans", "overlap"]),
    Bad("objectives.span_corruption: unsorted spans", "range",
        lambda: span_corruption(IDS, SENT, [(8, 9), (2, 4)]), ["spans", "sorted"]),
    Bad("objectives.span_corruption: too few sentinels", "size",
        lambda: span_corruption(IDS, SENT[:2], [(2, 4), (8, 9)]), ["sentinel_ids", "3"]),
    Bad("objectives.span_corruption: a span not a pair", "type",
        lambda: span_corruption(IDS, SENT, [(2, 4, 6)]), "spans[0]"),
    Bad("objectives.span_corruption: spans a dict", "type",
        lambda: span_corruption(IDS, SENT, {2: 4}), "spans"),
    Bad("objectives.span_corruption: float ids", "dtype",
        lambda: span_corruption(IDS.float(), SENT, [(2, 4)]), ["ids", ".long()"]),
    Bad("objectives.span_corruption: 2-D ids", "shape",
        lambda: span_corruption(IDS[None], SENT, [(2, 4)]), ["ids", "(T,)"]),
    Bad("objectives.span_corruption: no ids", "size",
        lambda: span_corruption([], SENT, []), "ids"),
    Bad("objectives.span_corruption: random spans of one token", "size",
        lambda: span_corruption([5], SENT), ["ids", "at least 2"]),
    Bad("objectives.span_corruption: negative sentinel", "range",
        lambda: span_corruption(IDS, [-1, 2, 3], [(2, 4)]), "sentinel_ids"),
    Bad("objectives.span_corruption: mean_span_length 0", "range",
        lambda: span_corruption(IDS, SENT * 4, mean_span_length=0), "mean_span_length"),
    Bad("objectives.random_spans: T a float", "size", lambda: random_spans(10.0), "T"),
    Bad("objectives.reconstruct: targets without a leading sentinel", "data",
        lambda: reconstruct([5, 20], [6, 20], SENT), "targets"),
    Bad("objectives.reconstruct: a sentinel the targets lack", "data",
        lambda: reconstruct([5, 21], [20, 6, 22], SENT), ["inputs", "21"]),
    # ELECTRA
    Bad("objectives.electra_example: sampled of another shape", "shape",
        lambda: electra_example(IDS, CHOSEN, IDS[:4]), ["sampled", "(11,)"]),
    Bad("objectives.electra_example: chosen not bool", "dtype",
        lambda: electra_example(IDS, CHOSEN.long(), IDS), "chosen"),
    Bad("objectives.electra_example: float samples", "dtype",
        lambda: electra_example(IDS, CHOSEN, IDS.float()), "sampled"),
    # XLNet
    Bad("objectives.permutation_masks: a repeated position", "range",
        lambda: permutation_masks([0, 1, 1]), ["order", "permutation"]),
    Bad("objectives.permutation_masks: a position beyond T", "range",
        lambda: permutation_masks([0, 1, 3]), ["order", "permutation of 0..2"]),
    Bad("objectives.permutation_masks: negative position", "range",
        lambda: permutation_masks([0, -1]), "order"),
    Bad("objectives.permutation_masks: 2-D order", "shape",
        lambda: permutation_masks(torch.arange(4)[None]), "order"),
    Bad("objectives.permutation_masks: float order", "dtype",
        lambda: permutation_masks(torch.arange(4.0)), "order"),
    Bad("objectives.permutation_masks: empty order", "size",
        lambda: permutation_masks([]), "order"),
    Bad("objectives.sample_order: T 0", "size", lambda: sample_order(0), "T"),
    # sentence tasks
    Bad("objectives.sentence_order_pairs: a document a string", "type",
        lambda: sentence_order_pairs(["a b", "c d"], random.Random(0)), "docs[0]"),
    Bad("objectives.sentence_order_pairs: rng a seed", "type",
        lambda: sentence_order_pairs(DOCS, 0), ["rng", "random.Random"]),
    Bad("objectives.sentence_relation_triples: one document", "size",
        lambda: sentence_relation_triples(DOCS[:1], random.Random(0)), ["docs", "2"]),
    Bad("objectives.sentence_relation_triples: docs a string", "type",
        lambda: sentence_relation_triples("a b", random.Random(0)), "docs"),
    # make_nsp_pairs, mask_tokens (lecture 08)
    Bad("objectives.make_nsp_pairs: a string for docs", "type",
        lambda: make_nsp_pairs("the cat sat", random.Random(0)), "docs"),
    Bad("objectives.make_nsp_pairs: one document", "size",
        lambda: make_nsp_pairs(DOCS[:1], random.Random(0)), "docs"),
    Bad("objectives.make_nsp_pairs: a seed for rng", "type", lambda: make_nsp_pairs(DOCS, 0),
        ["rng", "random.Random"]),
    Bad("objectives.mask_tokens: ids >= vocab_size", "range",
        lambda: mask_tokens(torch.full((1, 4), 50), vocab_size=40), ["input_ids", "0..39", "50"]),
    Bad("objectives.mask_tokens: float ids", "dtype", lambda: mask_tokens(BERT_IDS.float(), vocab_size=40),
        "input_ids"),
    Bad("objectives.mask_tokens: prob=1.5", "range", lambda: mask_tokens(BERT_IDS, vocab_size=40, prob=1.5),
        "prob"),
    Bad("objectives.mask_tokens: prob a string", "type",
        lambda: mask_tokens(BERT_IDS, vocab_size=40, prob="0.15"), "prob"),
    Bad("objectives.mask_tokens: mask_id >= vocab_size", "range",
        lambda: mask_tokens(BERT_IDS, vocab_size=40, mask_id=40), "mask_id"),
    Bad("objectives.mask_tokens: num_special negative", "size",
        lambda: mask_tokens(BERT_IDS, vocab_size=40, num_special=-1), "num_special"),
    Bad("objectives.mask_tokens: vocab_size a float", "size",
        lambda: mask_tokens(BERT_IDS, vocab_size=40.0), "vocab_size"),
    Bad("objectives.mask_tokens: generator a seed", "type",
        lambda: mask_tokens(BERT_IDS, vocab_size=40, generator=0), "generator"),
]
# fmt: on


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


# Legitimate odd inputs: documented behaviour, not errors.


def test_no_spans_and_no_words_are_fine():
    out = span_corruption(IDS, SENT, [])
    assert torch.equal(out.inputs, IDS) and out.targets.tolist() == [20]
    assert not whole_word_mask([None, None], 0.5).any() and not span_mask([None], 0.5).any()
    assert permutation_masks([0]).query.tolist() == [[False]]
    assert sentence_order_pairs([], random.Random(0)) == []
