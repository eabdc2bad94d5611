"""Bad inputs to the full models (issue 15): every misuse gets a clear ValueError naming the
argument. Tiny models, built once."""

import pytest
import torch
import transformers
from bad_inputs import Bad, assert_clear_error, bad_rows
from torch import nn

from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import (
    BertConfig,
    BertEmbeddings,
    BertForPreTraining,
    BertModel,
    bert_encoder,
    fill_mask,
    init_bert_weights,
    nsp_probability,
)
from lecturekit.models.causal_lm import CausalLM, causal_lm_loss
from lecturekit.models.electra import (
    Electra,
    ElectraConfig,
    ElectraDiscriminator,
    ElectraGenerator,
    electra_loss,
)
from lecturekit.models.seq2seq import (
    AttentionDecoder,
    BahdanauDecoder,
    BottleneckDecoder,
    Encoder,
    Seq2Seq,
    Seq2SeqConfig,
)
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig, attention_rollout
from lecturekit.tokenization import WordPieceTokenizer

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
torch.manual_seed(0)
L = torch.long

# --- Transformer -------------------------------------------------------------------------------
TC = TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=12, d_model=16, num_heads=2,
                            num_layers=1, d_ff=32, max_len=8, final_norm=True)  # fmt: skip
TR = Transformer(TC).eval()
SRC = torch.tensor([[4, 5, 6, 2], [7, 8, 2, 0]])
TGT = torch.tensor([[1, 4, 5], [1, 6, 0]])
SRC_LEN = torch.tensor([4, 3])
MEMORY, _ = TR.encode(SRC)


def _torch_transformer(**changes):
    kwargs = dict(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                  dim_feedforward=32, dropout=0.0, batch_first=True)  # fmt: skip
    return nn.Transformer(**{**kwargs, **changes})


# --- Seq2Seq -----------------------------------------------------------------------------------
SC = Seq2SeqConfig.tiny(src_vocab_size=11, tgt_vocab_size=12, emb_dim=8, hidden_dim=8,
                        attention="dot")  # fmt: skip
S2S = Seq2Seq(SC).eval()
ENC = Encoder(11, 8, 8)
DEC = AttentionDecoder(12, 8, 8, "dot")
BOTTLENECK = BottleneckDecoder(12, 8, 8)
STATES, FINAL = ENC(SRC, SRC_LEN)
SRC_MASK = SRC != 0

# --- BERT and the causal LM ---------------------------------------------------------------------
CORPUS = ["he likes playing", "my dog is cute", "the man went to the store", "he bought milk"]
TOK = WordPieceTokenizer.train(CORPUS, vocab_size=50)
BC = BertConfig.tiny(vocab_size=len(TOK), hidden_size=16, num_layers=1, num_heads=2,
                     intermediate_size=32, max_position=8)  # fmt: skip
BERT = BertForPreTraining(BC).eval()
LM = CausalLM(BC).eval()
IDS = torch.tensor([[2, 7, 8, 4, 3]])
ADDITIVE = torch.tensor([[0.0, 0.0, 0.0, float("-inf"), float("-inf")]])  # torch-style mask
BATCH = {"original_ids": IDS, "segment_ids": torch.zeros_like(IDS),
         "attention_mask": torch.ones_like(IDS, dtype=torch.bool)}  # fmt: skip


def _hf_bert(**changes):
    config = dict(vocab_size=30, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                  intermediate_size=32, max_position_embeddings=8)  # fmt: skip
    return transformers.BertForPreTraining(transformers.BertConfig(**{**config, **changes}))


# --- ELECTRA and ALBERT (lecture 15) ---------------------------------------------------------
EC = ElectraConfig.tiny(vocab_size=30, hidden_size=16, num_layers=1, num_heads=2,
                        intermediate_size=32, max_position=8, generator_hidden_size=8,
                        generator_num_heads=2, generator_intermediate_size=16,
                        generator_num_layers=1)  # fmt: skip
ELECTRA = Electra(EC)
REAL = torch.tensor([[True, True, True, True, False]])
E_BATCH = {"input_ids": torch.tensor([[2, 7, 8, 3, 0]]), "attention_mask": REAL,
           "chosen": torch.tensor([[False, True, False, False, False]])}  # fmt: skip
AC = AlbertConfig.tiny(vocab_size=30, embedding_size=8, hidden_size=16, num_layers=2,
                       num_heads=2, intermediate_size=32, max_position=8)  # fmt: skip
ALBERT = AlbertForPreTraining(AC).eval()


def _hf_electra(cls="ElectraForPreTraining", **changes):
    config = dict(vocab_size=30, embedding_size=16, hidden_size=16, num_hidden_layers=1,
                  num_attention_heads=2, intermediate_size=32, max_position_embeddings=8)  # fmt: skip
    return getattr(transformers, cls)(transformers.ElectraConfig(**{**config, **changes}))


def _hf_albert(**changes):
    config = dict(vocab_size=30, embedding_size=8, hidden_size=16, num_hidden_layers=2,
                  num_attention_heads=2, intermediate_size=32, max_position_embeddings=8,
                  hidden_act="gelu")  # fmt: skip
    return transformers.AlbertForPreTraining(transformers.AlbertConfig(**{**config, **changes}))


def _hf_albert_changed(**changes):
    model = _hf_albert()
    for name, value in changes.items():
        setattr(model.config, name, value)
    return model


def _electra_loss(**changes):
    return electra_loss(ELECTRA, {**E_BATCH, **changes})


# --- ViT ---------------------------------------------------------------------------------------
VC = ViTConfig.tiny(d_model=16, num_layers=1, num_heads=2, d_ff=32)
VIT = ViT(VC).eval()
IMAGES = torch.rand(2, 1, 8, 8)
WEIGHTS = [torch.softmax(torch.randn(2, 2, 5, 5), -1)]


def _hf_vit(**changes):
    config = dict(image_size=8, patch_size=2, num_channels=1, hidden_size=16,
                  num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                  num_labels=10)  # fmt: skip
    return transformers.ViTForImageClassification(transformers.ViTConfig(**{**config, **changes}))


def _hf_vit_changed(**changes):
    """A ViT whose config was edited after its modules were built."""
    model = _hf_vit()
    for name, value in changes.items():
        setattr(model.config, name, value)
    return model


def _hf_bert_changed(**changes):
    model = _hf_bert()
    for name, value in changes.items():
        setattr(model.config, name, value)
    return model


def _fill(model=BERT, tokenizer=TOK, text="he [MASK] playing", k=3):
    return fill_mask(model, tokenizer, text, k=k)


# fmt: off
ROWS = [
    # configs: a dict where a config is expected
    Bad("transformer.Transformer: dict config", "type", lambda: Transformer(TC.to_dict()),
        ["config", "TransformerConfig.from_dict"]),
    Bad("seq2seq.Seq2Seq: dict config", "type", lambda: Seq2Seq(SC.to_dict()),
        ["config", "Seq2SeqConfig.from_dict"]),
    Bad("bert.BertForPreTraining: dict config", "type", lambda: BertForPreTraining({}),
        ["config", "BertConfig.from_dict"]),
    Bad("bert.BertModel: dict config", "type", lambda: BertModel(BC.to_dict()),
        ["config", "BertConfig.from_dict"]),
    Bad("bert.BertEmbeddings: dict config", "type", lambda: BertEmbeddings({}), "config"),
    Bad("bert.bert_encoder: ViTConfig", "type", lambda: bert_encoder(VC), ["config", "ViTConfig"]),
    Bad("causal_lm.CausalLM: dict config", "type", lambda: CausalLM(BC.to_dict()),
        ["config", "BertConfig.from_dict"]),
    Bad("vit.ViT: dict config", "type", lambda: ViT(VC.to_dict()), ["config", "ViTConfig"]),
    Bad("bert.init_bert_weights: not a module", "type", lambda: init_bert_weights("bert"),
        "module"),
    # config fields, checked when the config is built
    Bad("transformer.TransformerConfig: pad_id >= vocab", "range",
        lambda: TransformerConfig.tiny(pad_id=46), "pad_id"),
    Bad("transformer.TransformerConfig: d_ff=0", "size", lambda: TransformerConfig.tiny(d_ff=0),
        "d_ff"),
    Bad("transformer.TransformerConfig: layer_norm_eps=0", "range",
        lambda: TransformerConfig.tiny(layer_norm_eps=0.0), "layer_norm_eps"),
    Bad("transformer.TransformerConfig: norm_first='yes'", "type",
        lambda: TransformerConfig.tiny(norm_first="yes"), "norm_first"),
    Bad("transformer.TransformerConfig: final_norm=1", "type",
        lambda: TransformerConfig.tiny(final_norm=1), "final_norm"),
    Bad("transformer.TransformerConfig: dropout=1", "range",
        lambda: TransformerConfig.tiny(dropout=1.0), "dropout"),
    Bad("seq2seq.Seq2SeqConfig: hidden_dim=0", "size", lambda: Seq2SeqConfig.tiny(hidden_dim=0),
        "hidden_dim"),
    Bad("seq2seq.Seq2SeqConfig: attention a list", "type",
        lambda: Seq2SeqConfig.tiny(attention=["dot"]), "attention"),
    Bad("seq2seq.Seq2SeqConfig: eos_id >= vocab", "range",
        lambda: Seq2SeqConfig.tiny(eos_id=100), "eos_id"),
    Bad("seq2seq.Seq2SeqConfig: attention_query='next'", "range",
        lambda: Seq2SeqConfig.tiny(attention="dot", attention_query="next"),
        ["attention_query='next'", "previous"]),
    Bad("seq2seq.Seq2SeqConfig: attention_query='previous' without attention", "range",
        lambda: Seq2SeqConfig.tiny(attention=None, attention_query="previous"),
        ["attention_query", "attention=None"]),
    Bad("bert.BertConfig: pad_id >= vocab_size", "range", lambda: BertConfig.tiny(pad_id=450),
        "pad_id"),
    Bad("bert.BertConfig: intermediate_size=0", "size",
        lambda: BertConfig.tiny(intermediate_size=0), "intermediate_size"),
    Bad("bert.BertConfig: layer_norm_eps negative", "range",
        lambda: BertConfig.tiny(layer_norm_eps=-1e-12), "layer_norm_eps"),
    Bad("bert.BertConfig: type_vocab_size=0", "size", lambda: BertConfig.tiny(type_vocab_size=0),
        "type_vocab_size"),
    Bad("vit.ViTConfig: image not divisible by patch", "shape",
        lambda: ViTConfig.tiny(patch_size=3), "patch_size"),
    Bad("vit.ViTConfig: activation='tanh'", "range", lambda: ViTConfig.tiny(activation="tanh"),
        "activation"),
    Bad("vit.ViTConfig: layer_norm_eps=0", "range", lambda: ViTConfig.tiny(layer_norm_eps=0),
        "layer_norm_eps"),
    Bad("vit.ViTConfig: qkv_bias='no'", "type", lambda: ViTConfig.tiny(qkv_bias="no"),
        "qkv_bias"),
    Bad("vit.ViTConfig: d_ff=0", "size", lambda: ViTConfig.tiny(d_ff=0), "d_ff"),
    # Transformer ids, masks and lengths
    Bad("transformer.Transformer.forward: src id >= vocab", "range",
        lambda: TR(torch.full((1, 3), 11), TGT[:1]), ["src", "0..10"]),
    Bad("transformer.Transformer.forward: negative tgt id", "range",
        lambda: TR(SRC, torch.tensor([[1, -1, 4], [1, 4, 5]])), ["tgt_in", "-1"]),
    Bad("transformer.Transformer.forward: float src", "dtype", lambda: TR(SRC.float(), TGT),
        ["src", ".long()"]),
    Bad("transformer.Transformer.forward: tgt_in a list", "type",
        lambda: TR(SRC, [[1, 4, 5], [1, 6, 0]]), "tgt_in"),
    Bad("transformer.Transformer.forward: 1-D tgt_in", "shape", lambda: TR(SRC, TGT[0]),
        "tgt_in"),
    Bad("transformer.Transformer.forward: src longer than max_len", "shape",
        lambda: TR(torch.full((1, 9), 4), TGT[:1]), ["src", "max_len=8"]),
    Bad("transformer.Transformer.forward: src_pad a list", "type",
        lambda: TR(SRC, TGT, src_pad=[[True] * 4] * 2), "src_pad"),
    Bad("transformer.Transformer.forward: additive 0/-inf tgt_pad", "range",
        lambda: TR(SRC, TGT, tgt_pad=torch.tensor([[0.0, 0, 0], [0, 0, -torch.inf]])),
        ["tgt_pad", "tgt_pad == 0"]),
    Bad("transformer.Transformer.forward: tgt_pad of the wrong shape", "shape",
        lambda: TR(SRC, TGT, tgt_pad=torch.ones(2, 4, dtype=torch.bool)), ["tgt_pad", "(2, 3)"]),
    Bad("transformer.Transformer.encode: 1-D src", "shape", lambda: TR.encode(SRC[0]), "src"),
    Bad("transformer.Transformer.decode: memory of the wrong width", "shape",
        lambda: TR.decode(TGT, torch.zeros(2, 4, 8), SRC != 0), "memory"),
    Bad("transformer.Transformer.decode: src_pad a list", "type",
        lambda: TR.decode(TGT, MEMORY, [[True] * 4] * 2), "src_pad"),
    Bad("transformer.Transformer.decode: memory batch differs from tgt_in", "shape",
        lambda: TR.decode(TGT[:1], MEMORY, SRC != 0), "memory"),
    Bad("transformer.Transformer.embed_tgt: tgt id >= vocab", "range",
        lambda: TR.embed_tgt(torch.full((1, 2), 12)), "tgt"),
    Bad("transformer.Transformer.embed_src: float src", "dtype",
        lambda: TR.embed_src(SRC.float()), ["src", "src.long()"]),
    Bad("transformer.Transformer.decode: float64 memory", "dtype",
        lambda: TR.decode(TGT, MEMORY.double(), SRC != 0), ["memory", "memory.float()"]),
    Bad("transformer.Transformer.greedy_decode: src_len a list", "type",
        lambda: TR.greedy_decode(SRC, [4, 3], 5), "src_len"),
    Bad("transformer.Transformer.greedy_decode: float src_len", "dtype",
        lambda: TR.greedy_decode(SRC, SRC_LEN.float(), 5), "src_len"),
    Bad("transformer.Transformer.greedy_decode: src_len > S", "range",
        lambda: TR.greedy_decode(SRC, torch.tensor([5, 3]), 5), "src_len"),
    Bad("transformer.Transformer.greedy_decode: max_len=0", "size",
        lambda: TR.greedy_decode(SRC, SRC_LEN, 0), "max_len"),
    Bad("transformer.Transformer.step_function: src id >= vocab", "range",
        lambda: TR.step_function([4, 99, 2]), "src_ids"),
    Bad("transformer.Transformer.step_function: a string", "type",
        lambda: TR.step_function("the cat"), "src_ids"),
    Bad("transformer.Transformer.step_function: step given a list", "type",
        lambda: TR.step_function([4, 5, 2])([[1]]), "prefix_ids"),
    Bad("transformer.Transformer.step_function: step id >= vocab", "range",
        lambda: TR.step_function([4, 5, 2])(torch.tensor([[1, 12]])), "prefix_ids"),
    # Transformer.load_from_torch: every field that changes the function
    Bad("transformer.Transformer.load_from_torch: a dict", "type", lambda: TR.load_from_torch({}),
        "torch_transformer"),
    Bad("transformer.Transformer.load_from_torch: gelu", "copy",
        lambda: TR.load_from_torch(_torch_transformer(activation="gelu")),
        ["activation", "gelu", "relu"]),
    Bad("transformer.Transformer.load_from_torch: norm_first", "copy",
        lambda: TR.load_from_torch(_torch_transformer(norm_first=True)), ["norm_first", "True"]),
    Bad("transformer.Transformer.load_from_torch: eps", "copy",
        lambda: TR.load_from_torch(_torch_transformer(layer_norm_eps=1e-6)),
        ["layer_norm_eps", "1e-06", "1e-05"]),
    Bad("transformer.Transformer.load_from_torch: bias=False", "copy",
        lambda: TR.load_from_torch(_torch_transformer(bias=False)), "bias"),
    Bad("transformer.Transformer.load_from_torch: batch_first=False", "copy",
        lambda: TR.load_from_torch(_torch_transformer(batch_first=False)), "batch_first"),
    Bad("transformer.Transformer.load_from_torch: nhead", "copy",
        lambda: TR.load_from_torch(_torch_transformer(nhead=4)), ["nhead", "4", "2"]),
    Bad("transformer.Transformer.load_from_torch: dim_feedforward", "copy",
        lambda: TR.load_from_torch(_torch_transformer(dim_feedforward=64)),
        ["dim_feedforward", "64", "32"]),
    Bad("transformer.Transformer.load_from_torch: decoder layers", "copy",
        lambda: TR.load_from_torch(_torch_transformer(num_decoder_layers=2)),
        ["num_decoder_layers", "2", "1"]),
    Bad("transformer.Transformer.load_from_torch: no final LayerNorm here", "copy",
        lambda: Transformer(TC.replace(final_norm=False)).load_from_torch(_torch_transformer()),
        ["final_norm=False", "final_norm=True"]),
    Bad("transformer.Transformer.load_from_torch: d_model", "copy",
        lambda: TR.load_from_torch(_torch_transformer(d_model=32)), ["d_model", "32", "16"]),
    # Seq2Seq
    Bad("seq2seq.Seq2Seq.forward: src id >= vocab", "range",
        lambda: S2S(torch.full((2, 4), 11), SRC_LEN, TGT), ["src", "0..10"]),
    Bad("seq2seq.Seq2Seq.forward: tgt id >= vocab", "range",
        lambda: S2S(SRC, SRC_LEN, torch.full((2, 3), 12)), ["tgt_in", "0..11"]),
    Bad("seq2seq.Seq2Seq.forward: float tgt_in", "dtype", lambda: S2S(SRC, SRC_LEN, TGT.float()),
        ["tgt_in", ".long()"]),
    Bad("seq2seq.Seq2Seq.forward: src_len a list", "type", lambda: S2S(SRC, [4, 3], TGT),
        "src_len"),
    Bad("seq2seq.Seq2Seq.forward: src_len 0", "range",
        lambda: S2S(SRC, torch.tensor([4, 0]), TGT), "src_len"),
    Bad("seq2seq.Seq2Seq.forward: src a list", "type", lambda: S2S(SRC.tolist(), SRC_LEN, TGT),
        "src"),
    Bad("seq2seq.Seq2Seq.greedy_decode: src_len a list", "type",
        lambda: S2S.greedy_decode(SRC, [4, 3], 5), "src_len"),
    Bad("seq2seq.Seq2Seq.greedy_decode: max_len='5'", "size",
        lambda: S2S.greedy_decode(SRC, SRC_LEN, "5"), "max_len"),
    Bad("seq2seq.Seq2Seq.step_function: id >= vocab", "range",
        lambda: S2S.step_function([4, 11]), "src_ids"),
    Bad("seq2seq.Seq2Seq.step_function: empty source", "shape",
        lambda: S2S.step_function([]), "src_ids"),
    Bad("seq2seq.Seq2Seq.step_function: step id >= vocab", "range",
        lambda: S2S.step_function([4, 5, 2])(torch.tensor([[1, 12]])), "prefix_ids"),
    Bad("seq2seq.Encoder: hidden_dim odd", "size", lambda: Encoder(11, 8, 7), "hidden_dim"),
    Bad("seq2seq.Encoder: pad_id >= vocab", "range", lambda: Encoder(11, 8, 8, pad_id=11),
        "pad_id"),
    Bad("seq2seq.Encoder.forward: src id >= vocab", "range",
        lambda: ENC(torch.full((2, 4), 11), SRC_LEN), "src"),
    Bad("seq2seq.Encoder.forward: src_len a list", "type", lambda: ENC(SRC, [4, 3]), "src_len"),
    Bad("seq2seq.BottleneckDecoder: emb_dim=0", "size", lambda: BottleneckDecoder(12, 0, 8),
        "emb_dim"),
    Bad("seq2seq.BottleneckDecoder.forward: final of the wrong batch", "shape",
        lambda: BOTTLENECK(TGT, STATES, FINAL[:1], SRC_MASK), ["final", "(B=2, H=8)"]),
    Bad("seq2seq.AttentionDecoder: unknown score", "range",
        lambda: AttentionDecoder(12, 8, 8, "bilinear"), "score"),
    Bad("seq2seq.BahdanauDecoder: unknown score", "range",
        lambda: BahdanauDecoder(12, 8, 8, "bilinear"), "score"),
    Bad("seq2seq.BahdanauDecoder.forward: states of the wrong width", "shape",
        lambda: BahdanauDecoder(12, 8, 8, "dot")(TGT, torch.zeros(2, 4, 6), FINAL, SRC_MASK),
        ["states", "H=8"]),
    Bad("seq2seq.AttentionDecoder.forward: tgt id >= vocab", "range",
        lambda: DEC(torch.full((2, 3), 12), STATES, FINAL, SRC_MASK), "tgt_in"),
    Bad("seq2seq.AttentionDecoder.forward: states of the wrong width", "shape",
        lambda: DEC(TGT, torch.zeros(2, 4, 6), FINAL, SRC_MASK), "states"),
    Bad("seq2seq.AttentionDecoder.forward: additive all-zero src_mask", "range",
        lambda: DEC(TGT, STATES, FINAL, torch.zeros(2, 4)), ["src_mask", "src_mask == 0"]),
    Bad("seq2seq.AttentionDecoder.forward: float64 states", "dtype",
        lambda: DEC(TGT, STATES.double(), FINAL, SRC_MASK), ["states", "states.float()"]),
    # BERT
    Bad("bert.BertForPreTraining.forward: segment id >= type_vocab_size", "range",
        lambda: BERT(IDS, torch.full_like(IDS, 2)), ["segment_ids", "0..1", "type_vocab_size=2"]),
    Bad("bert.BertForPreTraining.forward: input id >= vocab", "range",
        lambda: BERT(torch.full((1, 4), len(TOK))), ["input_ids", f"0..{len(TOK) - 1}"]),
    Bad("bert.BertForPreTraining.forward: float input_ids", "dtype",
        lambda: BERT(IDS.float()), ["input_ids", ".long()"]),
    Bad("bert.BertForPreTraining.forward: float segment_ids", "dtype",
        lambda: BERT(IDS, torch.zeros(1, 5)), "segment_ids"),
    Bad("bert.BertForPreTraining.forward: input_ids a list", "type",
        lambda: BERT(IDS.tolist()), "input_ids"),
    Bad("bert.BertForPreTraining.forward: longer than max_position", "shape",
        lambda: BERT(torch.full((1, 9), 7)), ["input_ids", "max_position=8"]),
    Bad("bert.BertForPreTraining.forward: additive 0/-inf attention_mask", "range",
        lambda: BERT(IDS, attention_mask=ADDITIVE), ["attention_mask", "== 0"]),
    Bad("bert.BertForPreTraining.forward: attention_mask a list", "type",
        lambda: BERT(IDS, attention_mask=[[1] * 5]), "attention_mask"),
    Bad("bert.BertModel.forward: attention_mask of the wrong shape", "shape",
        lambda: BERT.bert(IDS, attention_mask=torch.ones(1, 4, dtype=torch.bool)),
        "attention_mask"),
    Bad("bert.BertEmbeddings.parts: segment_ids a list", "type",
        lambda: BERT.bert.embeddings.parts(IDS, [[0] * 5]), "segment_ids"),
    Bad("bert.BertEmbeddings.forward: segment id >= type_vocab_size", "range",
        lambda: BERT.bert.embeddings(IDS, torch.full_like(IDS, 5)), ["segment_ids", "0..1"]),
    Bad("bert.BertForPreTraining.from_hf: a dict", "type",
        lambda: BertForPreTraining.from_hf({}), "hf_model"),
    Bad("bert.BertForPreTraining.from_hf: gelu_new", "copy",
        lambda: BertForPreTraining.from_hf(_hf_bert(hidden_act="gelu_new")),
        ["hidden_act", "gelu_new", "gelu"]),
    Bad("bert.BertForPreTraining.from_hf: relative positions", "copy",
        lambda: BertForPreTraining.from_hf(_hf_bert(position_embedding_type="relative_key")),
        ["position_embedding_type", "relative_key"]),
    Bad("bert.BertForPreTraining.from_hf: untied decoder", "copy",
        lambda: BertForPreTraining.from_hf(_hf_bert(tie_word_embeddings=False)),
        "tie_word_embeddings"),
    Bad("bert.fill_mask: the causal LM", "model", lambda: _fill(model=LM),
        ["model", "BertForPreTraining", "CausalLM"]),
    Bad("bert.fill_mask: k larger than the vocabulary", "range", lambda: _fill(k=len(TOK) + 1),
        ["k", str(len(TOK))]),
    Bad("bert.fill_mask: k=0", "size", lambda: _fill(k=0), "k"),
    Bad("bert.fill_mask: no [MASK]", "data", lambda: _fill(text="he likes playing"),
        ["text", "[MASK]"]),
    Bad("bert.fill_mask: text a list", "type", lambda: _fill(text=["he [MASK] playing"]), "text"),
    Bad("bert.fill_mask: a BPE tokenizer", "type", lambda: _fill(tokenizer=object()),
        ["tokenizer", "WordPieceTokenizer"]),
    Bad("bert.fill_mask: a tokenizer of another vocabulary", "model",
        lambda: _fill(tokenizer=WordPieceTokenizer.train(CORPUS, vocab_size=45)),
        ["tokenizer", "vocab_size"]),
    Bad("bert.nsp_probability: the causal LM", "model",
        lambda: nsp_probability(LM, TOK, "he likes", "my dog"), ["model", "CausalLM"]),
    Bad("bert.nsp_probability: longer than max_position", "shape",
        lambda: nsp_probability(BERT, TOK, "he likes playing", "my dog is cute"),
        ["a and b", "max_position=8"]),
    Bad("bert.nsp_probability: b a list", "type",
        lambda: nsp_probability(BERT, TOK, "he likes", ["my dog"]), "b"),
    # the causal LM
    Bad("causal_lm.CausalLM.forward: segment id >= type_vocab_size", "range",
        lambda: LM(IDS, torch.full_like(IDS, 3)), "segment_ids"),
    Bad("causal_lm.CausalLM.forward: float ids", "dtype", lambda: LM(IDS.float()), "input_ids"),
    Bad("causal_lm.CausalLM.forward: 1-D ids", "shape", lambda: LM(IDS[0]), "input_ids"),
    Bad("causal_lm.CausalLM.forward: attention_mask of the wrong shape", "shape",
        lambda: LM(IDS, attention_mask=torch.ones(1, 3, dtype=torch.bool)), "attention_mask"),
    Bad("causal_lm.causal_lm_loss: BERT given", "model", lambda: causal_lm_loss(BERT, BATCH),
        ["model", "CausalLM"]),
    Bad("causal_lm.causal_lm_loss: batch without original_ids", "type",
        lambda: causal_lm_loss(LM, {"input_ids": IDS}), ["batch", "original_ids"]),
    # ViT
    Bad("vit.ViT.forward: int64 images", "dtype", lambda: VIT(torch.zeros(2, 1, 8, 8, dtype=L)),
        ["images", "int64"]),
    Bad("vit.ViT.forward: unbatched image", "shape", lambda: VIT(IMAGES[0]), ["images", "[None]"]),
    Bad("vit.ViT.forward: wrong channels", "shape", lambda: VIT(torch.rand(2, 3, 8, 8)),
        "images"),
    Bad("vit.ViT.forward: a numpy array", "type", lambda: VIT(IMAGES.numpy()), "images"),
    Bad("vit.ViT.encode: bool images", "dtype", lambda: VIT.encode(IMAGES > 0.5), "images"),
    Bad("vit.ViT.embed: 5-D images", "shape", lambda: VIT.embed(IMAGES[None]), "images"),
    Bad("vit.ViT.from_hf: a dict", "type", lambda: ViT.from_hf({}), "hf_model"),
    Bad("vit.ViT.from_hf: gelu_new", "copy", lambda: ViT.from_hf(_hf_vit(hidden_act="gelu_new")),
        ["hidden_act", "gelu_new"]),
    Bad("vit.ViT.from_hf: head_dim", "copy", lambda: ViT.from_hf(_hf_vit(head_dim=4)),
        "head_dim"),
    Bad("vit.ViT.from_hf: config changed after building", "copy",
        lambda: ViT.from_hf(_hf_vit_changed(hidden_size=32, num_attention_heads=2)),
        ["hf_model", "shape"]),
    Bad("vit.ViT.from_hf: layer_norm_eps changed after building", "copy",
        lambda: ViT.from_hf(_hf_vit_changed(layer_norm_eps=1e-5)),
        ["eps=1e-12", "layer_norm_eps=1e-05"]),
    Bad("bert.BertForPreTraining.from_hf: layer_norm_eps changed after building", "copy",
        lambda: BertForPreTraining.from_hf(_hf_bert_changed(layer_norm_eps=1e-5)),
        ["hf_model", "eps=1e-12", "layer_norm_eps=1e-05"]),
    # ELECTRA
    Bad("electra.Electra: dict config", "type", lambda: Electra(EC.to_dict()),
        ["config", "ElectraConfig.from_dict"]),
    Bad("electra.ElectraDiscriminator: an ElectraConfig", "type",
        lambda: ElectraDiscriminator(EC), ["config", "BertConfig", "ElectraConfig"]),
    Bad("electra.ElectraConfig: generator width not divisible by its heads", "size",
        lambda: ElectraConfig.tiny(generator_hidden_size=31), ["generator_hidden_size", "31"]),
    Bad("electra.ElectraConfig: generator_num_layers=0", "size",
        lambda: ElectraConfig.tiny(generator_num_layers=0), "generator_num_layers"),
    Bad("electra.ElectraGenerator: shared embeddings of another vocabulary", "shape",
        lambda: ElectraGenerator(BC, shared_embeddings=ELECTRA.discriminator.bert.embeddings),
        ["vocab_size", "shared"]),
    Bad("electra.ElectraGenerator: shared_embeddings a Linear", "type",
        lambda: ElectraGenerator(BC, shared_embeddings=nn.Linear(2, 2)), "shared_embeddings"),
    Bad("electra.Electra.forward: input id >= vocab", "range",
        lambda: ELECTRA(torch.full((1, 4), 30)), ["input_ids", "0..29"]),
    Bad("electra.Electra.forward: additive 0/-inf attention_mask", "range",
        lambda: ELECTRA(IDS, attention_mask=ADDITIVE), ["attention_mask", "== 0"]),
    Bad("electra.ElectraDiscriminator.from_hf: a dict", "type",
        lambda: ElectraDiscriminator.from_hf({}), "hf_model"),
    Bad("electra.ElectraDiscriminator.from_hf: embedding_size != hidden_size", "copy",
        lambda: ElectraDiscriminator.from_hf(_hf_electra(embedding_size=8)),
        ["embedding_size=8", "hidden_size=16"]),
    Bad("electra.ElectraGenerator.from_hf: gelu_new", "copy",
        lambda: ElectraGenerator.from_hf(_hf_electra("ElectraForMaskedLM",
                                                     hidden_act="gelu_new")),
        ["hidden_act", "gelu_new"]),
    Bad("electra.ElectraGenerator.from_hf: the discriminator given", "model",
        lambda: ElectraGenerator.from_hf(_hf_electra()),
        ["hf_model", "ElectraForMaskedLM", "ElectraForPreTraining"]),
    Bad("electra.electra_loss: BERT given", "model",
        lambda: electra_loss(BERT, E_BATCH), ["model", "Electra", "BertForPreTraining"]),
    Bad("electra.electra_loss: batch without chosen", "type",
        lambda: electra_loss(ELECTRA, {"input_ids": IDS}), ["batch", "chosen"]),
    Bad("electra.electra_loss: integer chosen", "dtype",
        lambda: _electra_loss(chosen=E_BATCH["chosen"].long()), ["chosen", "torch.bool"]),
    Bad("electra.electra_loss: chosen of the wrong shape", "shape",
        lambda: _electra_loss(chosen=torch.zeros(1, 4, dtype=torch.bool)), ["chosen", "(1, 5)"]),
    Bad("electra.electra_loss: chosen at padding", "range",
        lambda: _electra_loss(chosen=~REAL), ["chosen", "padding"]),
    Bad("electra.electra_loss: float input_ids", "dtype",
        lambda: _electra_loss(input_ids=IDS.float()), ["input_ids", ".long()"]),
    Bad("electra.electra_loss: negative disc_weight", "range",
        lambda: electra_loss(ELECTRA, E_BATCH, disc_weight=-1.0), "disc_weight"),
    Bad("electra.electra_loss: generator a seed", "type",
        lambda: electra_loss(ELECTRA, E_BATCH, generator=0), "generator"),
    # ALBERT
    Bad("albert.AlbertForPreTraining: dict config", "type",
        lambda: AlbertForPreTraining(AC.to_dict()), ["config", "AlbertConfig.from_dict"]),
    Bad("albert.AlbertConfig: embedding_size=0", "size",
        lambda: AlbertConfig.tiny(embedding_size=0), "embedding_size"),
    Bad("albert.AlbertConfig: share_layers='yes'", "type",
        lambda: AlbertConfig.tiny(share_layers="yes"), "share_layers"),
    Bad("albert.AlbertConfig: pad_id >= vocab_size", "range",
        lambda: AlbertConfig.tiny(pad_id=450), "pad_id"),
    Bad("albert.AlbertConfig: hidden_size not divisible by num_heads", "size",
        lambda: AlbertConfig.tiny(hidden_size=30), ["hidden_size=30", "num_heads=4"]),
    Bad("albert.AlbertForPreTraining.forward: input id >= vocab", "range",
        lambda: ALBERT(torch.full((1, 4), 30)), ["input_ids", "0..29"]),
    Bad("albert.AlbertForPreTraining.forward: longer than max_position", "shape",
        lambda: ALBERT(torch.full((1, 9), 7)), ["input_ids", "max_position=8"]),
    Bad("albert.AlbertForPreTraining.forward: 1-D input_ids", "shape",
        lambda: ALBERT(IDS[0]), "input_ids"),
    Bad("albert.AlbertForPreTraining.forward: additive 0/-inf attention_mask", "range",
        lambda: ALBERT(IDS, attention_mask=ADDITIVE), ["attention_mask", "== 0"]),
    Bad("albert.AlbertForPreTraining.layer: depth out of range", "range",
        lambda: ALBERT.layer(2), "i"),
    Bad("albert.AlbertForPreTraining.from_hf: a dict", "type",
        lambda: AlbertForPreTraining.from_hf({}), "hf_model"),
    Bad("albert.AlbertForPreTraining.from_hf: gelu_new", "copy",
        lambda: AlbertForPreTraining.from_hf(_hf_albert(hidden_act="gelu_new")),
        ["hidden_act", "gelu_new", "gelu"]),
    Bad("albert.AlbertForPreTraining.from_hf: two layers per group", "copy",
        lambda: AlbertForPreTraining.from_hf(_hf_albert(inner_group_num=2)), "inner_group_num"),
    Bad("albert.AlbertForPreTraining.from_hf: 2 groups of 4 layers", "copy",
        lambda: AlbertForPreTraining.from_hf(_hf_albert(num_hidden_layers=4,
                                                        num_hidden_groups=2)),
        ["num_hidden_groups", "num_hidden_layers=4"]),
    Bad("albert.AlbertForPreTraining.from_hf: layer_norm_eps changed after building", "copy",
        lambda: AlbertForPreTraining.from_hf(_hf_albert_changed(layer_norm_eps=1e-5)),
        ["hf_model", "eps=1e-12", "layer_norm_eps=1e-05"]),
    Bad("vit.attention_rollout: empty list", "shape", lambda: attention_rollout([]), "weights"),
    Bad("vit.attention_rollout: 3-D weights", "shape",
        lambda: attention_rollout([torch.rand(2, 5, 5)]), "weights"),
    Bad("vit.attention_rollout: layers of different shapes", "shape",
        lambda: attention_rollout([WEIGHTS[0], torch.rand(2, 2, 4, 4)]), "weights"),
    Bad("vit.attention_rollout: integer weights", "dtype",
        lambda: attention_rollout([torch.ones(1, 1, 3, 3, dtype=L)]), "weights"),
    Bad("vit.attention_rollout: head_fusion='min'", "range",
        lambda: attention_rollout(WEIGHTS, head_fusion="min"), "head_fusion"),
    Bad("vit.attention_rollout: head_fusion a list", "type",
        lambda: attention_rollout(WEIGHTS, head_fusion=["mean"]), "head_fusion"),
]
# fmt: on


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


@pytest.mark.parametrize("ids", [IDS.int(), IDS.short()])
def test_bert_accepts_any_integer_ids(ids):
    """int32 ids (numpy on Windows, torch.int) give the same output as int64 ids."""
    with torch.no_grad():
        torch.testing.assert_close(BERT(ids).mlm_logits, BERT(IDS).mlm_logits)


def test_numeric_padding_masks_mean_what_bool_masks_mean():
    """1 = real token, 0 = padding (Hugging Face's attention_mask) is read as the bool mask."""
    real = torch.tensor([[1, 1, 1, 0, 0]])
    with torch.no_grad():
        for dtype in (torch.long, torch.float32):
            torch.testing.assert_close(BERT(IDS, attention_mask=real.to(dtype)).mlm_logits,
                                       BERT(IDS, attention_mask=real.bool()).mlm_logits)  # fmt: skip
            torch.testing.assert_close(LM(IDS, attention_mask=real.to(dtype))[0],
                                       LM(IDS, attention_mask=real.bool())[0])  # fmt: skip
        tgt_pad = TGT != 0
        torch.testing.assert_close(TR(SRC, TGT, tgt_pad=tgt_pad.float())[0],
                                   TR(SRC, TGT, tgt_pad=tgt_pad)[0])  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.uint8])
def test_translation_models_accept_any_integer_ids(dtype):
    """Token ids and lengths of any integer dtype give what int64 gives."""
    with torch.no_grad():
        torch.testing.assert_close(TR(SRC.to(dtype), TGT.to(dtype))[0], TR(SRC, TGT)[0])
        torch.testing.assert_close(S2S(SRC.to(dtype), SRC_LEN.to(dtype), TGT.to(dtype))[0],
                                   S2S(SRC, SRC_LEN, TGT)[0])  # fmt: skip
    assert torch.equal(TR.greedy_decode(SRC.to(dtype), SRC_LEN.to(dtype), 4)[0],
                       TR.greedy_decode(SRC, SRC_LEN, 4)[0])  # fmt: skip


def test_vit_converts_uint8_and_other_float_images():
    """uint8 images (0..255) are divided by 255; float64 images are cast to the model's dtype."""
    pixels = torch.randint(0, 256, (2, 1, 8, 8), dtype=torch.uint8)
    with torch.no_grad():
        expected, _ = VIT(pixels.float() / 255)
        torch.testing.assert_close(VIT(pixels)[0], expected)
        torch.testing.assert_close(VIT(IMAGES.double())[0], VIT(IMAGES)[0])


def test_load_from_torch_refuses_before_copying_anything():
    before = {k: v.clone() for k, v in TR.state_dict().items()}
    with pytest.raises(ValueError, match="num_decoder_layers=2"):
        TR.load_from_torch(_torch_transformer(num_decoder_layers=2))  # the encoder would fit
    assert all(torch.equal(v, before[k]) for k, v in TR.state_dict().items())


def test_nsp_probability_of_an_empty_sentence_is_a_probability():
    p = nsp_probability(BERT, TOK, "he", "")
    assert 0.0 <= p <= 1.0
