"""Issue 41, the last gaps in objectives, models and efficient: one table per kind of misuse.

Each ``BAD_*`` row is (description, callable, exception type, regex the message must match:
the argument's name and what it wants). Each ``GOOD_*`` row is a valid input next to a fix,
which must still work (the issue starts with a valid input refused).
"""

import re

import pytest
import torch

from lecturekit.datasets.scenes import VOCAB
from lecturekit.efficient.conv_attention import ConvSelfAttention, MemoryCompressedAttention
from lecturekit.efficient.universal import UniversalConfig, UniversalTransformer, act_loss
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining, BertModel
from lecturekit.models.captioning import Captioner, CaptionerConfig, teacher_inputs
from lecturekit.models.causal_lm import CausalLM, causal_lm_loss
from lecturekit.models.electra import Electra, ElectraConfig, electra_loss
from lecturekit.models.recurrent import BiLM, bilm_loss, run_cell
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.word2vec import (
    noise_distribution,
    sample_negatives,
    sgns_loss,
    skipgram_pairs,
)
from lecturekit.objectives import electra_example, reconstruct, span_corruption


def _universal() -> UniversalTransformer:
    torch.manual_seed(0)
    config = UniversalConfig(vocab_size=10, num_classes=3, d_model=16, num_heads=2, d_ff=32,
                             max_len=8, max_steps=3)  # fmt: skip
    return UniversalTransformer(config).eval()


UT = _universal()
UT_IDS = torch.randint(0, 10, (2, 5), generator=torch.Generator().manual_seed(1))
PAD = torch.tensor([True, True, True, False, False]).view(1, 1, 1, 5)  # (B, H, Tq, Tk) bcast
IDS = torch.arange(5, 16)  # (11,): the T5 sentence's words
CAP = Captioner(CaptionerConfig.tiny())
CAP_D = CAP.config.feature_dim
WORDS = torch.tensor([[4, 5, 2]])  # (B, T) scene-vocabulary ids
torch.manual_seed(0)
RNN, LSTM = torch.nn.RNNCell(4, 3), torch.nn.LSTMCell(4, 3)
X, H = torch.randn(2, 5, 4), torch.zeros(2, 3)  # (B, T, D), (B, H)
BILM = BiLM(10, 4, 6)
LM = CausalLM(BertConfig.tiny(vocab_size=40)).eval()
ELECTRA = Electra(ElectraConfig.tiny(vocab_size=40, hidden_size=16, num_layers=1, num_heads=2,
                                     intermediate_size=32, max_position=16))  # fmt: skip


def _check(call, error, pattern):
    with pytest.raises(error) as caught:
        call()
    assert re.search(pattern, str(caught.value)), str(caught.value)


def _table(rows):
    return pytest.mark.parametrize(("call", "error", "pattern"), [r[1:] for r in rows],
                                   ids=[r[0] for r in rows])  # fmt: skip


# --- kind 1: a valid input refused (and the checks that stay around it) ---
# fmt: off
BAD_MASKS = [
    ("universal: float mask", lambda: UT(UT_IDS, mask=PAD.float()), ValueError, r"mask.*bool"),
    ("universal: mask of the wrong length",
     lambda: UT(UT_IDS, mask=torch.ones(1, 1, 1, 4, dtype=torch.bool)), ValueError,
     r"mask of shape \(1, 1, 1, 4\) is not broadcastable"),
]
# fmt: on


@_table(BAD_MASKS)
def test_bad_masks(call, error, pattern):
    _check(call, error, pattern)


@pytest.mark.parametrize("mask", [PAD, PAD.expand(2, 2, 5, 5), torch.ones(5, 5, dtype=torch.bool)])
def test_universal_accepts_a_bool_mask(mask):
    assert UT(UT_IDS, mask=mask).logits.shape == (2, 5, 3)


def test_universal_mask_hides_the_padding():
    # the first 3 positions with the last 2 masked out = the first 3 positions alone
    masked = UT(UT_IDS, mask=PAD).logits[:, :3]
    alone = UT(UT_IDS[:, :3]).logits
    torch.testing.assert_close(masked, alone, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(UT(UT_IDS).logits[:, :3], alone, atol=1e-3)


# --- kind 2: special ids that collide with real ids or lie outside the vocabulary ---
# fmt: off
BAD_SPECIAL_IDS = [
    ("span_corruption: sentinel in ids", lambda: span_corruption(IDS, [20, 7, 22], [(2, 4)]),
     ValueError, r"sentinel_ids must not occur in ids, got \[7\]"),
    ("span_corruption: unused sentinel in ids",
     lambda: span_corruption(IDS, [20, 21, 15], [(2, 4)]), ValueError,
     r"sentinel_ids must not occur in ids, got \[15\]"),
    ("span_corruption: repeated sentinel",
     lambda: span_corruption(IDS, [20, 20, 22], [(2, 4), (8, 9)]), ValueError,
     r"sentinel_ids must be distinct ids, got \[20\]"),
    ("teacher_inputs: bos_id past the vocabulary", lambda: teacher_inputs(WORDS, len(VOCAB)),
     ValueError, rf"bos_id must be an integer in 0..{len(VOCAB) - 1}, got {len(VOCAB)}"),
    ("teacher_inputs: negative bos_id", lambda: teacher_inputs(WORDS, -1), ValueError,
     r"bos_id must be an integer in 0\.\."),
    ("teacher_inputs: float bos_id", lambda: teacher_inputs(WORDS, 1.0), ValueError,
     r"bos_id must be an integer"),
    ("CaptionerConfig: bool bos_id", lambda: CaptionerConfig(bos_id=True), ValueError,
     r"bos_id must be an id in 0\.\."),
]
# fmt: on


@_table(BAD_SPECIAL_IDS)
def test_bad_special_ids(call, error, pattern):
    _check(call, error, pattern)


# --- kind 3: raw torch errors from deep inside (wrong widths, wrong names) ---
# fmt: off
BAD_WIDTHS = [
    ("captioning initial_state: wrong feature size",
     lambda: CAP.initial_state(torch.zeros(2, CAP.config.num_cells, CAP_D + 1)), ValueError,
     rf"features must be \(B, N, D={CAP_D}\) with N >= 1.*got \(2, \d+, {CAP_D + 1}\)"),
    ("captioning initial_state: no cells (a NaN mean)",
     lambda: CAP.initial_state(torch.zeros(2, 0, CAP_D)), ValueError,
     rf"features must be \(B, N, D={CAP_D}\) with N >= 1"),
    ("run_cell: wrong input size", lambda: run_cell(RNN, torch.randn(2, 5, 7)), ValueError,
     r"x must be \(B, T, D=4\) \(RNNCell's input_size\), got \(2, 5, 7\)"),
    ("run_cell: float64 x, float32 cell", lambda: run_cell(RNN, X.double()), ValueError,
     r"x has dtype torch.float64 but RNNCell's weights are torch.float32: pass x.float\(\)"),
    ("run_cell: tuple state as state=", lambda: run_cell(LSTM, X, state=(H, H)), TypeError,
     r"run_cell takes the initial state as h0=, got state= \(tuple\); pass h0=\(h, c\)"),
    ("run_cell: LSTM given one tensor", lambda: run_cell(LSTM, X, H), ValueError,
     r"h0 must be the pair \(h, c\) of \(2, 3\) tensors for an LSTMCell"),
    ("run_cell: RNN given a pair", lambda: run_cell(RNN, X, (H, H)), ValueError,
     r"h0 must be one \(2, 3\) tensor for RNNCell.*got a tuple of 2"),
    ("run_cell: wrong hidden size", lambda: run_cell(RNN, X, torch.zeros(2, 5)), ValueError,
     r"h0 must be \(2, 3\) \(x's batch, the cell's hidden_size\), got \(2, 5\)"),
    ("run_cell: wrong batch in c", lambda: run_cell(LSTM, X, (H, torch.zeros(3, 3))),
     ValueError, r"h0\[1\] must be \(2, 3\).*got \(3, 3\)"),
]
# fmt: on


@_table(BAD_WIDTHS)
def test_bad_widths(call, error, pattern):
    _check(call, error, pattern)


def test_run_cell_valid_states():
    assert run_cell(RNN, X).shape == run_cell(RNN, X, H).shape == (2, 5, 3)
    assert run_cell(LSTM, X, (H, H)).shape == run_cell(LSTM, X, [H, H]).shape == (2, 5, 3)
    assert run_cell(lambda x, h: h + x[:, :3], X, H).shape == (2, 5, 3)  # a function cell
    rnn64 = torch.nn.RNNCell(4, 3).double()
    assert run_cell(rnn64, X.double(), H.double()).dtype == torch.float64


def test_captioning_valid_inputs():
    assert teacher_inputs(WORDS, 1)[0, 0] == 1
    assert CAP.initial_state(torch.zeros(2, 3, CAP_D)).shape == (2, CAP_D)


# --- kind 4: ids that are floats or negative, weights that are negative or not finite ---
NOISE = torch.tensor([0.5, -0.1, 0.6])
# fmt: off
BAD_IDS = [
    ("skipgram_pairs: float ids", lambda: skipgram_pairs([1.5, 2.7, 3]), ValueError,
     r"ids must be integer word ids, got 1\.5 \(float\)"),
    ("skipgram_pairs: bool ids", lambda: skipgram_pairs([True, False]), ValueError,
     r"ids must be integer word ids, got True \(bool\)"),
    ("skipgram_pairs: negative ids (list)", lambda: skipgram_pairs([-1, 2, 3]), ValueError,
     r"ids must be word ids >= 0, got -1"),
    ("skipgram_pairs: negative ids (tensor)", lambda: skipgram_pairs(torch.tensor([2, -3])),
     ValueError, r"ids must be word ids >= 0, got -3"),
    ("sample_negatives: negative weight", lambda: sample_negatives(NOISE, (2, 3)), ValueError,
     r"noise must hold finite weights >= 0.*noise_distribution\(counts\).*got min -0\.1"),
    ("sample_negatives: all zero", lambda: sample_negatives(torch.zeros(3), (2, 3)), ValueError,
     r"noise must hold finite weights >= 0, not all zero.*sum 0"),
    ("sample_negatives: nan weight",
     lambda: sample_negatives(torch.tensor([0.5, float("nan")]), (2, 3)), ValueError,
     r"noise must hold finite weights"),
    ("noise_distribution: nan count",
     lambda: noise_distribution(torch.tensor([1.0, float("nan")])), ValueError,
     r"counts must be finite, non-negative"),
    ("noise_distribution: inf count",
     lambda: noise_distribution(torch.tensor([1.0, float("inf")])), ValueError,
     r"counts must be finite, non-negative"),
    ("electra_example: negative sampled",
     lambda: electra_example(IDS, IDS > 9, IDS - 20), ValueError,
     r"sampled must hold token ids >= 0, got -15"),
]
# fmt: on


@_table(BAD_IDS)
def test_bad_ids(call, error, pattern):
    _check(call, error, pattern)


def test_word2vec_valid_inputs():
    import numpy as np

    assert skipgram_pairs([0, 1, 2], 1).tolist() == [[0, 1], [1, 0], [1, 2], [2, 1]]
    assert skipgram_pairs([np.int64(3), 4], 1).tolist() == [[3, 4], [4, 3]]
    assert skipgram_pairs([]).shape == (0, 2)
    noise = noise_distribution(torch.tensor([1, 0, 3]))
    assert noise[1] == 0 and torch.isclose(noise.sum(), torch.tensor(1.0))
    draws = sample_negatives(noise, (4, 5), torch.Generator().manual_seed(0))
    assert draws.shape == (4, 5) and not (draws == 1).any()


# --- kind 5: losses that are a mean over nothing (0/0 = NaN) on degenerate input ---
PAIR = torch.tensor([[3, 4], [4, 5]])  # (B, T)
ONE_REAL = torch.tensor([1, 1])
# fmt: off
BAD_EMPTY_LOSSES = [
    ("bilm_loss: one-word inputs", lambda: bilm_loss(BILM, torch.tensor([[3], [4]])), ValueError,
     r"ids must hold a row of at least 2 real words \(a next word to predict\), got T=1"),
    ("bilm_loss: every row one real word", lambda: bilm_loss(BILM, PAIR, ONE_REAL), ValueError,
     r"at least 2 real words.*lengths \[1, 1\]"),
    ("sgns_loss: no pairs",
     lambda: sgns_loss(torch.zeros(0, 4), torch.zeros(0, 4), torch.zeros(0, 2, 4)), ValueError,
     r"centre, context and negatives must hold at least one pair \(B >= 1\).*got B = 0"),
    ("causal_lm_loss: T = 1",
     lambda: causal_lm_loss(LM, {"original_ids": torch.tensor([[2]]),
                                 "segment_ids": torch.zeros(1, 1, dtype=torch.long),
                                 "attention_mask": torch.ones(1, 1, dtype=torch.bool)}),
     ValueError, r"batch\['original_ids'\] must hold a next token that is not padding"),
    ("electra_loss: no real token",
     lambda: electra_loss(ELECTRA, {"input_ids": PAIR + 5,
                                    "chosen": torch.zeros(2, 2, dtype=torch.bool),
                                    "attention_mask": torch.zeros(2, 2, dtype=torch.bool)}),
     ValueError, r"batch\['attention_mask'\] must mark at least one real token"),
]
# fmt: on


@_table(BAD_EMPTY_LOSSES)
def test_bad_empty_losses(call, error, pattern):
    _check(call, error, pattern)


def test_losses_on_the_smallest_valid_inputs():
    fwd, bwd = bilm_loss(BILM, PAIR, torch.tensor([1, 2]))  # one row of 1 word is fine
    assert torch.isfinite(fwd) and torch.isfinite(bwd)
    loss = sgns_loss(torch.randn(1, 4), torch.randn(1, 4), torch.randn(1, 2, 4))
    assert torch.isfinite(loss)
    batch = {"original_ids": torch.tensor([[2, 7]]), "segment_ids": torch.zeros(1, 2).long(),
             "attention_mask": torch.ones(1, 2, dtype=torch.bool)}  # fmt: skip
    assert torch.isfinite(causal_lm_loss(LM, batch))
    real = torch.tensor([[True, False], [False, False]])
    out = electra_loss(ELECTRA, {"input_ids": PAIR + 5, "chosen": real, "attention_mask": real})
    assert torch.isfinite(out.total)


# --- kind 6: choice arguments left unchecked ---
MCA = MemoryCompressedAttention(8, 2)
SEQ = torch.randn(2, 6, 8)  # (B, n, D)
# fmt: off
BAD_CHOICES = [
    ("compress: which='q'", lambda: MCA.compress(SEQ, "q"), ValueError,
     r"which='q' is not one of \['k', 'v'\]"),
    ("compress: which='V'", lambda: MCA.compress(SEQ, "V"), ValueError,
     r"which='V' is not one of \['k', 'v'\]"),
    ("compress: wrong width", lambda: MCA.compress(torch.zeros(2, 6, 7)), ValueError,
     r"x must be \(B, n, d_model=8\), got \(2, 6, 7\)"),
    ("compress: shorter than the kernel", lambda: MCA.compress(torch.zeros(2, 1, 8)), ValueError,
     r"x must have at least kernel=2 positions, got 1"),
    ("conv self-attention: wrong width", lambda: ConvSelfAttention(8, 3)(torch.zeros(2, 5, 7)),
     ValueError, r"x must be \(B, n, d_model=8\), got \(2, 5, 7\)"),
]
# fmt: on


@_table(BAD_CHOICES)
def test_bad_choices(call, error, pattern):
    _check(call, error, pattern)


def test_compress_uses_the_chosen_convolution():
    k, v = MCA.compress(SEQ, "k"), MCA.compress(SEQ, "v")
    assert k.shape == v.shape == (2, 3, 8) and not torch.allclose(k, v)
    torch.testing.assert_close(MCA.compress(SEQ), k)
    torch.testing.assert_close(v, MCA.conv_v(SEQ.transpose(1, 2)).transpose(1, 2))


# --- kind 7: empty sequences and mis-sized or out-of-range targets ---
EMPTY = torch.zeros(2, 0, dtype=torch.long)  # (B, T = 0)
THREE = torch.ones(2, 3, dtype=torch.long)
BERT = BertModel(BertConfig.tiny(vocab_size=40)).eval()
UT_OUT = UT(UT_IDS)  # logits (2, 5, 3)
# fmt: off
BAD_EMPTY_AND_TARGETS = [
    ("BertModel: T = 0", lambda: BERT(EMPTY), ValueError,
     r"input_ids must hold at least one token per row \(T >= 1; \[CLS\] is position 0\), "
     r"got shape \(2, 0\)"),
    ("BertEmbeddings: T = 0", lambda: BERT.embeddings(EMPTY), ValueError,
     r"input_ids must hold at least one token per row"),
    ("BertForPreTraining: T = 0",
     lambda: BertForPreTraining(BertConfig.tiny(vocab_size=40))(EMPTY), ValueError,
     r"input_ids must hold at least one token per row"),
    ("ALBERT: T = 0", lambda: AlbertForPreTraining(AlbertConfig.tiny(vocab_size=40))(EMPTY),
     ValueError, r"input_ids must hold at least one token per row"),
    ("Transformer: empty src", lambda: Transformer(TransformerConfig.tiny())(EMPTY, THREE),
     ValueError, r"src must hold at least one token per row"),
    ("Transformer: empty tgt_in", lambda: Transformer(TransformerConfig.tiny())(THREE, EMPTY),
     ValueError, r"tgt_in must hold at least one token per row"),
    ("Seq2Seq: empty src",
     lambda: Seq2Seq(Seq2SeqConfig.tiny())(EMPTY, torch.tensor([1, 1]), THREE), ValueError,
     r"src must hold at least one token per row \(S >= 1\)"),
    ("UniversalTransformer: T = 0", lambda: UT(EMPTY), ValueError,
     r"ids must hold at least one token per row \(T >= 1\)"),
    ("act_loss: class id past num_classes", lambda: act_loss(UT_OUT, torch.full((2, 5), 3)),
     ValueError, r"targets must hold ids in 0..2 \(num_classes=3\), got values from 3 to 3"),
    ("act_loss: negative class id", lambda: act_loss(UT_OUT, torch.full((2, 5), -1)),
     ValueError, r"targets must hold ids in 0..2"),
    ("act_loss: too short", lambda: act_loss(UT_OUT, torch.zeros(2, 4).long()), ValueError,
     r"targets must be \(2, 5\) \(out.logits' \(B, T\).*got \(2, 4\)"),
    ("act_loss: transposed", lambda: act_loss(UT_OUT, torch.zeros(5, 2).long()), ValueError,
     r"targets must be \(2, 5\).*got \(5, 2\)"),
    ("act_loss: logits for out", lambda: act_loss(UT_OUT.logits, torch.zeros(2, 5).long()),
     ValueError, r"out must be a UniversalOutput, got Tensor"),
]
# fmt: on


@_table(BAD_EMPTY_AND_TARGETS)
def test_bad_empty_and_targets(call, error, pattern):
    _check(call, error, pattern)


def test_one_token_and_valid_targets_still_work():
    assert BERT(torch.ones(2, 1, dtype=torch.long)).pooled.shape == (2, 64)
    assert BERT.embeddings(torch.zeros(0, 3, dtype=torch.long)).shape == (0, 3, 64)  # B = 0
    loss = act_loss(UT_OUT, torch.tensor([[0, 1, 2, 0, 1], [2, 2, 1, 0, 0]]))
    assert torch.isfinite(loss)
    assert UT(UT_IDS[:, :1]).logits.shape == (2, 1, 3)


@pytest.mark.parametrize("attention", [None, "additive", "dot"])
@pytest.mark.parametrize("query", ["current", "previous"])
def test_seq2seq_empty_target_gives_empty_outputs(attention, query):
    if attention is None and query == "previous":
        return
    config = Seq2SeqConfig.tiny(attention=attention, attention_query=query)
    logits, weights = Seq2Seq(config)(THREE, torch.tensor([3, 2]), EMPTY)
    assert logits.shape == (2, 0, config.tgt_vocab_size)
    assert weights is None if attention is None else weights.shape == (2, 0, 3)


def test_span_corruption_round_trip():
    out = span_corruption(IDS, [20, 21, 22], [(2, 4), (8, 9)])
    assert torch.equal(reconstruct(out.inputs, out.targets, [20, 21, 22]), IDS)
