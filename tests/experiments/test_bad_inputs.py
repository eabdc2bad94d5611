"""Bad inputs to lecturekit.experiments (issue 15): each gets a clear ValueError naming the
argument. Also the odd inputs that are legitimate (empty word lists, no sources, no pairs)."""

import functools

import torch
from bad_inputs import Bad, assert_clear_error, bad_rows
from torch import nn

from lecturekit.datasets.stories import Blank, PretrainingData
from lecturekit.datasets.translation import make_translation_data
from lecturekit.experiments.bert import (
    blank_accuracy,
    blank_predictions,
    mlm_accuracy,
    nsp_accuracy,
)
from lecturekit.experiments.examples import pie_example, thinking_machines
from lecturekit.experiments.heads_demo import (
    HeadsDemoModel,
    encode,
    make_batch,
    relation_positions,
    relation_weights,
    train_heads_demo,
)
from lecturekit.experiments.measurements import (
    attention_vs_recurrence_flops,
    dot_product_variance,
    softmax_jacobian,
    softmax_saturation,
)
from lecturekit.experiments.translation import exact_match, exact_match_by_length, translate
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.causal_lm import CausalLM
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.tokenization import SPECIAL_TOKENS, WordPieceTokenizer

DEMO = HeadsDemoModel(10, d_model=8, num_heads=2, max_len=6)
STEP = pie_example()[1]
# lecture 08's models and data, tiny: every check comes before any forward pass
TOK = WordPieceTokenizer([*SPECIAL_TOKENS, "the", "cat", "sat", "dog", "ran"])
BERT_CONFIG = BertConfig.tiny(vocab_size=len(TOK), hidden_size=8, intermediate_size=16)
BERT, LM = BertForPreTraining(BERT_CONFIG), CausalLM(BERT_CONFIG)
STORIES = PretrainingData([["the cat sat", "the dog ran"], ["the dog sat"]], [["the cat"]], TOK)
BLANKS = [Blank(("the", "cat", "sat"), 1, "cat", "animal")]
VIT = ViT(ViTConfig.tiny(d_model=8, num_heads=2, num_layers=1, d_ff=16))


@functools.cache
def data():
    """Toy translation data (the lectures' vocabularies, a few pairs: fast to make)."""
    return make_translation_data(n_train=4, n_valid=1, n_test=6)


@functools.cache
def model():
    """An untrained toy-task Seq2Seq: the checks come before any translation."""
    torch.manual_seed(0)
    return Seq2Seq(Seq2SeqConfig.tiny(emb_dim=4, hidden_dim=6))


ROWS = [
    # --- examples ---
    Bad("examples.thinking_machines: d_k 0", "size", lambda: thinking_machines(d_k=0), "d_k"),
    Bad("examples.thinking_machines: d_model too small", "size", lambda: thinking_machines(4),
        "d_model"),
    Bad("examples.thinking_machines: float d_model", "size", lambda: thinking_machines(512.0),
        "d_model"),
    Bad("examples.thinking_machines: sizes too small for 112", "size",
        lambda: thinking_machines(16, 4), ["d_model", "d_k"]),
    Bad("examples.thinking_machines: negative seed", "range", lambda: thinking_machines(seed=-1),
        "seed"),
    Bad("examples.pie_example step: ids out of range", "range",
        lambda: STEP(torch.tensor([[0, 99]])), "prefix_ids"),
    Bad("examples.pie_example step: list prefix_ids", "type", lambda: STEP([[0]]), "prefix_ids"),
    # --- measurements ---
    Bad("measurements.softmax_jacobian: integer a", "dtype",
        lambda: softmax_jacobian(torch.tensor([0, 1, 0])), "a"),
    Bad("measurements.softmax_jacobian: 0-D a", "shape", lambda: softmax_jacobian(torch.tensor(1.0)),
        "a"),
    Bad("measurements.softmax_jacobian: list a", "type", lambda: softmax_jacobian([0.5, 0.5]), "a"),
    Bad("measurements.dot_product_variance: empty dims", "size", lambda: dot_product_variance([]),
        "dims"),
    Bad("measurements.dot_product_variance: dim 0", "size", lambda: dot_product_variance([4, 0]),
        "dims"),
    Bad("measurements.dot_product_variance: num_samples 0", "size",
        lambda: dot_product_variance([4], num_samples=0), "num_samples"),
    Bad("measurements.dot_product_variance: dims a string", "type",
        lambda: dot_product_variance("64"), "dims"),
    Bad("measurements.softmax_saturation: negative dim", "size",
        lambda: softmax_saturation([4, -8]), "dims"),
    Bad("measurements.softmax_saturation: num_keys 1", "size",
        lambda: softmax_saturation([4], num_keys=1), "num_keys"),
    Bad("measurements.softmax_saturation: float num_draws", "size",
        lambda: softmax_saturation([4], num_draws=10.0), "num_draws"),
    Bad("measurements.attention_vs_recurrence_flops: n 0", "size",
        lambda: attention_vs_recurrence_flops([8, 0]), "ns"),
    Bad("measurements.attention_vs_recurrence_flops: d not divisible by num_heads", "size",
        lambda: attention_vs_recurrence_flops([8], d=10, num_heads=4), ["d=10", "num_heads"]),
    Bad("measurements.attention_vs_recurrence_flops: num_heads 0", "size",
        lambda: attention_vs_recurrence_flops([8], num_heads=0), "num_heads"),
    Bad("measurements.attention_vs_recurrence_flops: ns a bare int", "type",
        lambda: attention_vs_recurrence_flops(8), "ns"),
    # --- heads_demo ---
    Bad("heads_demo.encode: unknown word", "range", lambda: encode(["the", "zebra"]), "words"),
    Bad("heads_demo.encode: a bare string", "type", lambda: encode("the animal"), ["words", "split"]),
    Bad("heads_demo.encode: a number among the words", "type", lambda: encode(["the", 3]),
        "words[1]"),
    Bad("heads_demo.relation_positions: seq_len 0", "size", lambda: relation_positions(0),
        "seq_len"),
    Bad("heads_demo.make_batch: batch_size 0", "size", lambda: make_batch(0, 5, 10), "batch_size"),
    Bad("heads_demo.make_batch: float vocab_size", "size", lambda: make_batch(2, 5, 10.0),
        "vocab_size"),
    Bad("heads_demo.make_batch: a seed for generator", "type", lambda: make_batch(2, 5, 10, 0),
        "generator"),
    Bad("heads_demo.HeadsDemoModel: d_model not divisible by num_heads", "size",
        lambda: HeadsDemoModel(10, d_model=10, num_heads=4), ["d_model", "num_heads"]),
    Bad("heads_demo.HeadsDemoModel: d_model 0", "size", lambda: HeadsDemoModel(10, d_model=0),
        "d_model"),
    Bad("heads_demo.HeadsDemoModel: max_len 0", "size", lambda: HeadsDemoModel(10, max_len=0),
        "max_len"),
    Bad("heads_demo.HeadsDemoModel: vocab_size 0", "size", lambda: HeadsDemoModel(0), "vocab_size"),
    Bad("heads_demo.HeadsDemoModel: unknown positions", "type",
        lambda: HeadsDemoModel(10, positions="rotary"), "positions"),
    Bad("heads_demo.HeadsDemoModel.forward: ids out of range", "range",
        lambda: DEMO(torch.full((1, 4), 10)), "tokens"),
    Bad("heads_demo.HeadsDemoModel.forward: float tokens", "dtype",
        lambda: DEMO(torch.zeros(1, 4)), "tokens"),
    Bad("heads_demo.HeadsDemoModel.forward: 1-D tokens", "shape",
        lambda: DEMO(torch.zeros(4, dtype=torch.long)), "tokens"),
    Bad("heads_demo.HeadsDemoModel.forward: list tokens", "type", lambda: DEMO([[1, 2]]), "tokens"),
    Bad("heads_demo.HeadsDemoModel.forward: longer than max_len", "shape",
        lambda: DEMO(torch.zeros(1, 7, dtype=torch.long)), "max_len"),
    Bad("heads_demo.train_heads_demo: steps 0", "size", lambda: train_heads_demo(DEMO, steps=0),
        "steps"),
    Bad("heads_demo.train_heads_demo: decay_steps larger than steps", "range",
        lambda: train_heads_demo(DEMO, steps=5, seq_len=5, decay_steps=6), "decay_steps"),
    Bad("heads_demo.train_heads_demo: seq_len longer than max_len", "range",
        lambda: train_heads_demo(DEMO, seq_len=7), ["seq_len", "max_len"]),
    Bad("heads_demo.train_heads_demo: seq_len 0", "size", lambda: train_heads_demo(DEMO, seq_len=0),
        "seq_len"),
    Bad("heads_demo.train_heads_demo: negative lr", "range", lambda: train_heads_demo(DEMO, seq_len=5, lr=-1),
        "lr"),
    Bad("heads_demo.train_heads_demo: negative seed", "range",
        lambda: train_heads_demo(DEMO, seq_len=5, seed=-1), "seed"),
    Bad("heads_demo.train_heads_demo: not a HeadsDemoModel", "model",
        lambda: train_heads_demo(nn.Linear(4, 4)), "model"),
    Bad("heads_demo.relation_weights: not square", "shape",
        lambda: relation_weights(torch.zeros(4, 5, 6)), "weights"),
    Bad("heads_demo.relation_weights: 2-D weights", "shape",
        lambda: relation_weights(torch.zeros(5, 5)), "weights"),
    Bad("heads_demo.relation_weights: integer weights", "dtype",
        lambda: relation_weights(torch.zeros(4, 5, 5, dtype=torch.long)), "weights"),
    Bad("heads_demo.relation_weights: list weights", "type", lambda: relation_weights([[[1.0]]]),
        "weights"),
    # --- translation ---
    Bad("translation.translate: a model of the wrong kind", "model",
        lambda: translate(nn.Linear(2, 2), [["a"]], data()), "model"),
    Bad("translation.translate: a model for other vocabularies", "model",
        lambda: translate(Seq2Seq(Seq2SeqConfig.tiny(src_vocab_size=50, emb_dim=2, hidden_dim=2)),
                          [["a"]], data()), ["model", "src_vocab_size"]),
    Bad("translation.translate: sources a bare string", "type",
        lambda: translate(model(), "the old cat", data()), "sources"),
    Bad("translation.translate: a source given as a string", "type",
        lambda: translate(model(), ["the old cat"], data()), ["sources[0]", "split"]),
    Bad("translation.translate: an empty source", "size",
        lambda: translate(model(), [["a"], []], data()), "sources[1]"),
    Bad("translation.translate: batch_size 0", "size",
        lambda: translate(model(), [["a"]], data(), batch_size=0), "batch_size"),
    Bad("translation.translate: a dict for data", "type",
        lambda: translate(model(), [["a"]], {"src_vocab": None}), "data"),
    Bad("translation.exact_match: a single Pair", "type",
        lambda: exact_match(model(), data().test[0], data()), "pairs"),
    Bad("translation.exact_match: sentences instead of pairs", "type",
        lambda: exact_match(model(), [["a", "cat"]], data()), "pairs[0]"),
    Bad("translation.exact_match: a model of the wrong kind", "model",
        lambda: exact_match("seq2seq", data().test, data()), "model"),
    Bad("translation.exact_match_by_length: empty pairs", "size",
        lambda: exact_match_by_length(model(), [], data()), "pairs"),
    Bad("translation.exact_match_by_length: unsorted bin_starts", "range",
        lambda: exact_match_by_length(model(), data().test, data(), bin_starts=[10, 5]),
        "bin_starts"),
    Bad("translation.exact_match_by_length: empty bin_starts", "size",
        lambda: exact_match_by_length(model(), data().test, data(), bin_starts=[]), "bin_starts"),
    Bad("translation.exact_match_by_length: bin_starts 0", "size",
        lambda: exact_match_by_length(model(), data().test, data(), bin_starts=[0, 5]),
        "bin_starts"),
    Bad("translation.exact_match_by_length: a model of the wrong kind", "model",
        lambda: exact_match_by_length(nn.GRU(2, 2), data().test, data()), "model"),
    # --- bert ---
    Bad("bert.mlm_accuracy: the causal LM", "model", lambda: mlm_accuracy(LM, STORIES),
        ["model", "BertForPreTraining", "CausalLM"]),
    Bad("bert.nsp_accuracy: a ViT", "model", lambda: nsp_accuracy(VIT, STORIES),
        ["model", "BertForPreTraining"]),
    Bad("bert.blank_predictions: a ViT", "model", lambda: blank_predictions(VIT, TOK,
                                                                                 BLANKS),
        ["model", "CausalLM", "ViT"]),
    Bad("bert.blank_predictions: one Blank, not a list", "type",
        lambda: blank_predictions(BERT, TOK, BLANKS[0]), ["blanks", "Blank"]),
    Bad("bert.blank_accuracy: no blanks", "size", lambda: blank_accuracy(BERT, TOK, []),
        "blanks"),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


# --- legitimate odd inputs: documented in the docstrings, shown here ---


def test_empty_inputs_give_empty_results():
    assert encode([]).shape == (0,) and encode([]).dtype == torch.long
    assert translate(model(), [], data()) == []
    ok = exact_match(model(), [], data())
    assert ok.shape == (0,) and ok.dtype == torch.bool
    logits, weights = DEMO(torch.zeros(2, 0, dtype=torch.long))
    assert logits.shape == (2, 4, 0, 10) and weights.shape == (2, 2, 0, 0)


def test_unknown_source_words_are_read_as_unk():
    assert len(translate(model(), [["zebra", "cat"]], data(), extra_len=2)) == 1


def test_softmax_jacobian_of_a_batch_and_of_float64():
    a = torch.softmax(torch.randn(3, 4, dtype=torch.float64), -1)
    J = softmax_jacobian(a)
    assert J.shape == (3, 4, 4) and J.dtype == torch.float64
