"""Bad inputs to lecturekit's building blocks (issue 15): attention, masking, positional,
layers, kv_cache, patches, decoding, generation, training. Each row must raise a clear
ValueError that names the argument (tests/support/bad_inputs.py)."""

import math
from types import SimpleNamespace

import numpy as np
import torch
from bad_inputs import Bad, assert_clear_error, bad_rows
from search_table import BOS, EOS, table_step
from torch import nn

from lecturekit.attention import (
    AdditiveScore,
    CosineScore,
    DotScore,
    GeneralScore,
    LinearAdditiveScore,
    LocationScore,
    MLPScore,
    MultiHeadAttention,
    ScaledDotScore,
    make_score,
    merge_heads,
    scaled_dot_product_attention,
    split_heads,
)
from lecturekit.decoding import Hypothesis, beam_search, greedy_search
from lecturekit.generation import (
    Strategy,
    apply_repetition_penalty,
    apply_temperature,
    generate,
    next_token_distribution,
    top_k_filter,
    top_p_filter,
)
from lecturekit.kv_cache import decoder_step, layer_step, project_memory
from lecturekit.layers import (
    Decoder,
    DecoderLayer,
    Encoder,
    EncoderLayer,
    PositionwiseFeedForward,
)
from lecturekit.masking import (
    additive_mask,
    causal_mask,
    check_mask,
    combine_masks,
    decoder_mask,
    key_padding_mask,
    masked_softmax,
    padding_mask,
)
from lecturekit.patches import (
    cls_attention,
    conv_patch_embedding,
    grid_size,
    patchify,
    position_similarity,
    unpatchify,
)
from lecturekit.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    frequencies,
    shift_matrix,
    sinusoidal_encoding,
)
from lecturekit.training import fit, set_seed

# Tiny inputs, built once.
D, H, FF = 8, 2, 16
X = torch.zeros(2, 3, D)  # (B, T, D)
X64 = X.double()
XI = torch.zeros(2, 3, D, dtype=torch.long)
Q4 = torch.zeros(2, H, 3, D // H)  # (B, H, T, Dh)
MHA = MultiHeadAttention(D, H)
FFN = PositionwiseFeedForward(D, FF)
ENC_LAYER = EncoderLayer(D, H, FF)
PRE_LAYER = EncoderLayer(D, H, FF, norm_first=True)
DEC_LAYER = DecoderLayer(D, H, FF)
ENCODER = Encoder(1, D, H, FF)
DECODER = Decoder(1, D, H, FF)
MEMORY_KV = project_memory(DECODER, torch.zeros(2, 4, D))
X_T = torch.zeros(2, 1, D)
FLOAT_MASK = torch.zeros(3, 3).masked_fill(~causal_mask(3), -math.inf)  # torch's additive mask
SCORES = torch.zeros(2, 3, 3)
IMAGES = torch.zeros(2, 3, 8, 8)
TRACE = beam_search(table_step, BOS, EOS, 2, 3, trace=True)[1]


def torch_encoder_layer(**kwargs):
    return nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True, **kwargs)


def torch_decoder_layer(**kwargs):
    return nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True, **kwargs)


def _linear_model():
    return nn.Linear(2, 1)


def _fit(**kwargs):
    args = {
        "model": _linear_model(),
        "make_batches": lambda epoch, g: [torch.zeros(4, 2)],
        "loss_fn": lambda model, batch: model(batch).pow(2).mean(),
        "epochs": 1,
        "progress": False,
    } | kwargs
    return fit(**args)


# The rows stay one compact table (id, kind / call, names), not one argument per line.
# fmt: off
ATTENTION = [
    Bad("attention.scaled_dot_product_attention: integer q", "dtype",
        lambda: scaled_dot_product_attention(XI, X, X), ["q", ".float()"]),
    Bad("attention.scaled_dot_product_attention: float64 k with float32 q", "dtype",
        lambda: scaled_dot_product_attention(X, X64, X), ["k", "float64"]),
    Bad("attention.scaled_dot_product_attention: float64 v with float32 q, k", "dtype",
        lambda: scaled_dot_product_attention(X, X, X64), ["v", "float64"]),
    Bad("attention.scaled_dot_product_attention: d_k = 0", "shape",
        lambda: scaled_dot_product_attention(torch.zeros(2, 3, 0), torch.zeros(2, 3, 0), X),
        "q"),
    Bad("attention.scaled_dot_product_attention: 1-D q", "shape",
        lambda: scaled_dot_product_attention(torch.zeros(D), X, X), "q"),
    Bad("attention.scaled_dot_product_attention: list q", "type",
        lambda: scaled_dot_product_attention([[0.0] * D], X, X), "q"),
    Bad("attention.scaled_dot_product_attention: numpy k", "type",
        lambda: scaled_dot_product_attention(X, np.zeros((2, 3, D)), X),
        ["k", "torch.from_numpy"]),
    Bad("attention.scaled_dot_product_attention: additive float mask", "dtype",
        lambda: scaled_dot_product_attention(X, X, X, FLOAT_MASK), ["mask", "mask == 0"]),
    Bad("attention.scaled_dot_product_attention: list mask", "type",
        lambda: scaled_dot_product_attention(X, X, X, [[True] * 3] * 3), "mask"),
    Bad("attention.split_heads: 2-D x", "shape", lambda: split_heads(torch.zeros(4, 8), 2), "x"),
    Bad("attention.split_heads: num_heads 0", "size", lambda: split_heads(X, 0), "num_heads"),
    Bad("attention.split_heads: D not divisible", "size", lambda: split_heads(X, 3),
        "num_heads"),
    Bad("attention.split_heads: list x", "type", lambda: split_heads([[0.0]], 1), "x"),
    Bad("attention.merge_heads: 3-D x", "shape", lambda: merge_heads(X), "x"),
    Bad("attention.merge_heads: numpy x", "type", lambda: merge_heads(np.zeros((1, 2, 3, 4))),
        ["x", "torch.from_numpy"]),
    Bad("attention.MultiHeadAttention: float64 query", "dtype", lambda: MHA(X64, X, X), "query"),
    Bad("attention.MultiHeadAttention: integer value", "dtype", lambda: MHA(X, X, XI),
        ["value", ".float()"]),
    Bad("attention.MultiHeadAttention: 2-D query", "shape",
        lambda: MHA(torch.zeros(3, D), X, X), "query"),
    Bad("attention.MultiHeadAttention: d_model 0", "size", lambda: MultiHeadAttention(0, 1),
        "d_model"),
    Bad("attention.MultiHeadAttention: dropout 1", "range",
        lambda: MultiHeadAttention(D, H, dropout=1.0), "dropout"),
    Bad("attention.MultiHeadAttention: dropout -0.1", "range",
        lambda: MultiHeadAttention(D, H, dropout=-0.1), "dropout"),
    Bad("attention.MultiHeadAttention: bias a string", "type",
        lambda: MultiHeadAttention(D, H, bias="no"), "bias"),
    Bad("attention.MultiHeadAttention: float mask", "dtype",
        lambda: MHA(X, X, X, FLOAT_MASK), ["mask", "~mask", "mask == 0"]),
    Bad("attention.MultiHeadAttention.project_queries: wrong width", "shape",
        lambda: MHA.project_queries(torch.zeros(2, 3, 5)), "query"),
    Bad("attention.MultiHeadAttention.project_queries: float64", "dtype",
        lambda: MHA.project_queries(X64), "query"),
    Bad("attention.MultiHeadAttention.project_keys_values: list key", "type",
        lambda: MHA.project_keys_values([0.0], X), "key"),
    Bad("attention.MultiHeadAttention.attend: float64 q", "dtype",
        lambda: MHA.attend(Q4.double(), Q4, Q4), "q"),
    Bad("attention.MultiHeadAttention.attend: 3-D k", "shape",
        lambda: MHA.attend(Q4, X, Q4), "k"),
    Bad("attention.MultiHeadAttention.load_from_torch: batch_first=False", "copy",
        lambda: MultiHeadAttention(D, H).load_from_torch(nn.MultiheadAttention(D, H)),
        "batch_first"),
    Bad("attention.MultiHeadAttention.load_from_torch: add_zero_attn", "copy",
        lambda: MultiHeadAttention(D, H).load_from_torch(
            nn.MultiheadAttention(D, H, batch_first=True, add_zero_attn=True)),
        "add_zero_attn"),
    Bad("attention.MultiHeadAttention.load_from_torch: bias", "copy",
        lambda: MultiHeadAttention(D, H).load_from_torch(
            nn.MultiheadAttention(D, H, bias=False, batch_first=True)), "bias"),
    Bad("attention.MultiHeadAttention.load_from_torch: num_heads", "copy",
        lambda: MultiHeadAttention(D, H).load_from_torch(
            nn.MultiheadAttention(D, 4, batch_first=True)), "num_heads"),
    Bad("attention.DotScore: integer query", "dtype",
        lambda: DotScore()(XI, X), ["query", ".float()"]),
    Bad("attention.ScaledDotScore: float64 keys with float32 query", "dtype",
        lambda: ScaledDotScore()(X, X64), "keys"),
    Bad("attention.ScaledDotScore: zero-size feature dim", "shape",
        lambda: ScaledDotScore()(torch.zeros(2, 3, 0), torch.zeros(2, 3, 0)), "query"),
    Bad("attention.CosineScore: eps 0", "range", lambda: CosineScore(eps=0.0), "eps"),
    Bad("attention.CosineScore: integer keys", "dtype", lambda: CosineScore()(X, XI), "keys"),
    Bad("attention.GeneralScore: float64 query", "dtype",
        lambda: GeneralScore(D, D)(X64, X), "query"),
    Bad("attention.GeneralScore: query_dim 0", "size", lambda: GeneralScore(0, D), "query_dim"),
    Bad("attention.GeneralScore: key_dim -1", "size", lambda: GeneralScore(D, -1), "key_dim"),
    Bad("attention.AdditiveScore: hidden_dim 0", "size",
        lambda: AdditiveScore(D, D, 0), "hidden_dim"),
    Bad("attention.AdditiveScore: query_dim 0", "size",
        lambda: AdditiveScore(0, D, 4), "query_dim"),
    Bad("attention.AdditiveScore: integer keys", "dtype",
        lambda: AdditiveScore(D, D, 4)(X, XI), "keys"),
    Bad("attention.LocationScore: query_dim 0", "size",
        lambda: LocationScore(0, 5), "query_dim"),
    Bad("attention.LocationScore: float64 query", "dtype",
        lambda: LocationScore(D, 5)(X64, X), "query"),
    Bad("attention.Score.attend: float64 values", "dtype",
        lambda: DotScore().attend(X, X, X64), "values"),
    Bad("attention.Score.attend: list values", "type",
        lambda: DotScore().attend(X, X, [0.0]), "values"),
    Bad("attention.make_score: name not a string", "type", lambda: make_score(3), "name"),
    Bad("attention.make_score: name a list", "type", lambda: make_score(["dot"]), "name"),
    Bad("attention.make_score: hidden_dim 0", "size",
        lambda: make_score("additive", D, D, hidden_dim=0), "hidden_dim"),
    Bad("attention.LinearAdditiveScore: key_dim 0", "size",
        lambda: LinearAdditiveScore(D, 0), "key_dim"),
    Bad("attention.LinearAdditiveScore: float64 keys", "dtype",
        lambda: LinearAdditiveScore(D, D)(X, X64), "keys"),
    Bad("attention.LinearAdditiveScore: keys of another width", "shape",
        lambda: LinearAdditiveScore(D, D)(X, torch.zeros(2, 3, 5)), ["key_dim=8", "keys"]),
    Bad("attention.LinearAdditiveScore: list query", "type",
        lambda: LinearAdditiveScore(D, D)([[0.0] * D], X), "query"),
    Bad("attention.MLPScore: num_layers 0", "size",
        lambda: MLPScore(D, D, 4, num_layers=0), "num_layers"),
    Bad("attention.MLPScore: bias a string", "type",
        lambda: MLPScore(D, D, 4, bias="no"), "bias"),
    Bad("attention.MLPScore: hidden_dim 2.5", "size", lambda: MLPScore(D, D, 2.5), "hidden_dim"),
    Bad("attention.MLPScore: integer query", "dtype",
        lambda: MLPScore(D, D, 4)(XI, X), "query"),
    Bad("attention.MLPScore: query of another width", "shape",
        lambda: MLPScore(D, D, 4)(torch.zeros(2, 3, 5), X), ["query_dim=8", "query"]),
    Bad("attention.make_score: mlp without hidden_dim", "size",
        lambda: make_score("mlp", D, D), "hidden_dim"),
]

MASKING = [
    Bad("masking.causal_mask: T a float", "size", lambda: causal_mask(3.0), "T"),
    Bad("masking.padding_mask: lengths a string", "type", lambda: padding_mask("abc", 3),
        "lengths"),
    Bad("masking.padding_mask: lengths > max_len", "range", lambda: padding_mask([4], 3),
        "lengths"),
    Bad("masking.key_padding_mask: a list", "type",
        lambda: key_padding_mask([[True, False]]), "pad"),
    Bad("masking.key_padding_mask: float pad", "dtype",
        lambda: key_padding_mask(torch.ones(2, 3)), ["pad", "pad.bool()"]),
    Bad("masking.key_padding_mask: 3-D pad", "shape",
        lambda: key_padding_mask(torch.ones(2, 3, 4, dtype=torch.bool)), "pad"),
    Bad("masking.decoder_mask: max_len 0", "size", lambda: decoder_mask([1], 0), "max_len"),
    Bad("masking.decoder_mask: lengths 2-D", "shape", lambda: decoder_mask([[1, 2]], 3),
        "lengths"),
    Bad("masking.combine_masks: a list", "type",
        lambda: combine_masks(causal_mask(2), [[True, True]]), "masks[1]"),
    Bad("masking.combine_masks: additive float mask", "dtype",
        lambda: combine_masks(FLOAT_MASK), ["masks[0]", "== 0"]),
    Bad("masking.additive_mask: a list", "type", lambda: additive_mask([[True]]), "mask"),
    Bad("masking.additive_mask: 0/1 int mask", "dtype",
        lambda: additive_mask(torch.ones(2, 2, dtype=torch.long)), ["mask", "mask.bool()"]),
    Bad("masking.additive_mask: dtype not floating", "dtype",
        lambda: additive_mask(causal_mask(2), torch.long), "dtype"),
    Bad("masking.masked_softmax: additive float mask", "dtype",
        lambda: masked_softmax(SCORES, FLOAT_MASK), ["mask == 0", "~mask", "mask.bool()"]),
    Bad("masking.masked_softmax: integer scores", "dtype",
        lambda: masked_softmax(torch.zeros(2, 3, dtype=torch.long)), "scores"),
    Bad("masking.masked_softmax: list scores", "type",
        lambda: masked_softmax([[0.0, 1.0]]), "scores"),
    Bad("masking.check_mask: a numpy mask", "type",
        lambda: check_mask(np.ones((3, 3), dtype=bool), (3, 3)), "mask"),
]

POSITIONAL = [
    Bad("positional.frequencies: base 0", "range", lambda: frequencies(8, base=0), "base"),
    Bad("positional.frequencies: base negative", "range", lambda: frequencies(8, base=-10.0),
        "base"),
    Bad("positional.sinusoidal_encoding: base NaN", "range",
        lambda: sinusoidal_encoding(4, 8, base=math.nan), "base"),
    Bad("positional.sinusoidal_encoding: integer dtype", "dtype",
        lambda: sinusoidal_encoding(4, 8, dtype=torch.long), "dtype"),
    Bad("positional.sinusoidal_encoding: odd d_model", "size", lambda: sinusoidal_encoding(4, 7),
        "d_model"),
    Bad("positional.shift_matrix: base 0", "range", lambda: shift_matrix(1, 8, base=0), "base"),
    Bad("positional.shift_matrix: k a float", "type", lambda: shift_matrix(1.0, 8), "k"),
    Bad("positional.SinusoidalPositionalEncoding: integer x", "dtype",
        lambda: SinusoidalPositionalEncoding(D, 10)(XI), ["x", ".float()"]),
    Bad("positional.SinusoidalPositionalEncoding: numpy x", "type",
        lambda: SinusoidalPositionalEncoding(D, 10)(np.zeros((1, 3, D), dtype=np.float32)),
        ["x", "torch.from_numpy"]),
    Bad("positional.SinusoidalPositionalEncoding: list x", "type",
        lambda: SinusoidalPositionalEncoding(D, 10)([[0.0]]), "x"),
    Bad("positional.SinusoidalPositionalEncoding: dropout 1.5", "range",
        lambda: SinusoidalPositionalEncoding(D, 10, dropout=1.5), "dropout"),
    Bad("positional.LearnedPositionalEmbedding: float64 x", "dtype",
        lambda: LearnedPositionalEmbedding(10, D)(X64), "x"),
    Bad("positional.LearnedPositionalEmbedding: token ids (B, T)", "shape",
        lambda: LearnedPositionalEmbedding(10, D)(torch.zeros(2, 3, dtype=torch.long)), "x"),
    Bad("positional.LearnedPositionalEmbedding: dropout -1", "range",
        lambda: LearnedPositionalEmbedding(10, D, dropout=-1.0), "dropout"),
]

LAYERS = [
    Bad("layers.PositionwiseFeedForward: d_ff 0", "size",
        lambda: PositionwiseFeedForward(D, 0), "d_ff"),
    Bad("layers.PositionwiseFeedForward: dropout 1", "range",
        lambda: PositionwiseFeedForward(D, FF, dropout=1.0), "dropout"),
    Bad("layers.PositionwiseFeedForward: wrong width", "shape",
        lambda: FFN(torch.zeros(2, 3, 5)), "x"),
    Bad("layers.PositionwiseFeedForward: integer x", "dtype", lambda: FFN(XI), "x"),
    Bad("layers.EncoderLayer: d_ff 0", "size", lambda: EncoderLayer(D, H, 0), "d_ff"),
    Bad("layers.EncoderLayer: layer_norm_eps 0", "range",
        lambda: EncoderLayer(D, H, FF, layer_norm_eps=0.0), "layer_norm_eps"),
    Bad("layers.EncoderLayer: norm_first a string", "type",
        lambda: EncoderLayer(D, H, FF, norm_first="yes"), "norm_first"),
    Bad("layers.EncoderLayer: float64 x", "dtype", lambda: ENC_LAYER(X64), "x"),
    Bad("layers.EncoderLayer: pre-norm, wrong width", "shape",
        lambda: PRE_LAYER(torch.zeros(2, 3, 6)), "x"),
    Bad("layers.EncoderLayer: float additive mask", "dtype",
        lambda: ENC_LAYER(X, FLOAT_MASK), ["mask", "mask == 0"]),
    Bad("layers.EncoderLayer.sublayer: fn not callable", "type",
        lambda: ENC_LAYER.sublayer(1, X, None), "fn"),
    Bad("layers.EncoderLayer.sublayer: x of the wrong width", "shape",
        lambda: PRE_LAYER.sublayer(1, torch.zeros(2, 3, 6), lambda h: (h, None)), "x"),
    Bad("layers.EncoderLayer.sublayer: fn returns a tensor", "type",
        lambda: ENC_LAYER.sublayer(1, X, lambda h: h), "fn"),
    Bad("layers.EncoderLayer.load_from_torch: gelu into relu", "copy",
        lambda: EncoderLayer(D, H, FF).load_from_torch(torch_encoder_layer(activation="gelu")),
        ["activation", "gelu", "relu"]),
    Bad("layers.EncoderLayer.load_from_torch: layer_norm_eps", "copy",
        lambda: EncoderLayer(D, H, FF).load_from_torch(torch_encoder_layer(layer_norm_eps=1e-6)),
        ["layer_norm_eps", "1e-06", "1e-05"]),
    Bad("layers.EncoderLayer.load_from_torch: batch_first=False", "copy",
        lambda: EncoderLayer(D, H, FF).load_from_torch(
            nn.TransformerEncoderLayer(D, H, FF, dropout=0.0)), "batch_first"),
    Bad("layers.EncoderLayer.load_from_torch: no bias", "copy",
        lambda: EncoderLayer(D, H, FF).load_from_torch(torch_encoder_layer(bias=False)), "bias"),
    Bad("layers.EncoderLayer.load_from_torch: dim_feedforward", "copy",
        lambda: EncoderLayer(D, H, 32).load_from_torch(torch_encoder_layer()),
        ["dim_feedforward", "d_ff"]),
    Bad("layers.EncoderLayer.load_from_torch: nhead", "copy",
        lambda: EncoderLayer(D, 4, FF).load_from_torch(torch_encoder_layer()),
        ["nhead", "num_heads"]),
    Bad("layers.EncoderLayer.load_from_torch: d_model", "copy",
        lambda: EncoderLayer(4, H, FF).load_from_torch(torch_encoder_layer()), "d_model"),
    Bad("layers.EncoderLayer.load_from_torch: tanh-approximate GELU", "copy",
        lambda: EncoderLayer(D, H, FF, activation="gelu").load_from_torch(
            torch_encoder_layer(activation=nn.GELU(approximate="tanh"))), "activation"),
    Bad("layers.DecoderLayer: integer memory", "dtype",
        lambda: DEC_LAYER(X, XI), ["memory", ".float()"]),
    Bad("layers.DecoderLayer: float memory_mask", "dtype",
        lambda: DEC_LAYER(X, X, None, torch.ones(2, 1, 1, 3)), "memory_mask"),
    Bad("layers.DecoderLayer: self_mask of the wrong shape", "shape",
        lambda: DEC_LAYER(X, X, causal_mask(4)), "self_mask"),
    Bad("layers.DecoderLayer.load_from_torch: gelu into relu", "copy",
        lambda: DecoderLayer(D, H, FF).load_from_torch(torch_decoder_layer(activation="gelu")),
        ["activation", "gelu", "relu"]),
    Bad("layers.DecoderLayer.load_from_torch: layer_norm_eps", "copy",
        lambda: DecoderLayer(D, H, FF).load_from_torch(torch_decoder_layer(layer_norm_eps=1e-3)),
        "layer_norm_eps"),
    Bad("layers.Encoder: final_norm a string", "type",
        lambda: Encoder(1, D, H, FF, final_norm="yes"), "final_norm"),
    Bad("layers.Encoder: list x", "type", lambda: ENCODER([[0.0] * D]), "x"),
    Bad("layers.Encoder.load_from_torch: a gelu stack", "copy",
        lambda: Encoder(2, D, H, FF).load_from_torch(
            nn.TransformerEncoder(torch_encoder_layer(activation="gelu"), 2,
                                  enable_nested_tensor=False)), "activation"),
    Bad("layers.Decoder.load_from_torch: final norm eps", "copy",
        lambda: Decoder(1, D, H, FF, final_norm=True).load_from_torch(
            nn.TransformerDecoder(torch_decoder_layer(), 1, norm=nn.LayerNorm(D, eps=1e-3))),
        "eps"),
    Bad("layers.Decoder: integer x", "dtype", lambda: DECODER(XI, X), ["x", ".float()"]),
    Bad("layers.Decoder: memory of the wrong width", "shape",
        lambda: DECODER(X, torch.zeros(2, 4, 6)), "memory"),
]

KV_CACHE = [
    Bad("kv_cache.project_memory: memory of the wrong width", "shape",
        lambda: project_memory(DECODER, torch.zeros(2, 4, 6)), "memory"),
    Bad("kv_cache.project_memory: integer memory", "dtype",
        lambda: project_memory(DECODER, torch.zeros(2, 4, D, dtype=torch.long)), "memory"),
    Bad("kv_cache.project_memory: not a Decoder", "type",
        lambda: project_memory(ENCODER, torch.zeros(2, 4, D)), "decoder"),
    Bad("kv_cache.layer_step: x_t (B, D)", "shape",
        lambda: layer_step(DECODER.layers[0], torch.zeros(2, D), MEMORY_KV[0]), "x_t"),
    Bad("kv_cache.layer_step: float64 x_t", "dtype",
        lambda: layer_step(DECODER.layers[0], X_T.double(), MEMORY_KV[0]), "x_t"),
    Bad("kv_cache.layer_step: memory_kv a tensor", "type",
        lambda: layer_step(DECODER.layers[0], X_T, MEMORY_KV[0][0]), "memory_kv"),
    Bad("kv_cache.layer_step: cache of the wrong shape", "shape",
        lambda: layer_step(DECODER.layers[0], X_T, MEMORY_KV[0], (torch.zeros(2, 5),) * 2),
        "cache"),
    Bad("kv_cache.layer_step: a decoder_step cache (list of pairs)", "type",
        lambda: layer_step(DECODER.layers[0], X_T, MEMORY_KV[0], [MEMORY_KV[0]]), "cache"),
    Bad("kv_cache.layer_step: cache of another batch size", "shape",
        lambda: layer_step(DECODER.layers[0], X_T, MEMORY_KV[0],
                           (torch.zeros(3, H, 1, D // H),) * 2), "cache"),
    Bad("kv_cache.layer_step: float memory_mask", "dtype",
        lambda: layer_step(DECODER.layers[0], X_T, MEMORY_KV[0], None, torch.ones(2, 1, 1, 4)),
        "memory_mask"),
    Bad("kv_cache.decoder_step: float64 x_t", "dtype",
        lambda: decoder_step(DECODER, X_T.double(), MEMORY_KV), ["x_t", "x_t.float()"]),
    Bad("kv_cache.decoder_step: not a Decoder", "type",
        lambda: decoder_step(ENCODER, X_T, MEMORY_KV), "decoder"),
    Bad("kv_cache.decoder_step: memory_kv a tensor", "type",
        lambda: decoder_step(DECODER, X_T, torch.zeros(2, H, 4, D // H)), "memory_kv"),
    Bad("kv_cache.decoder_step: cache a pair, not a list of pairs", "type",
        lambda: decoder_step(DECODER, X_T, MEMORY_KV, MEMORY_KV[0]), "cache"),
]

PATCHES = [
    Bad("patches.grid_size: not divisible", "shape", lambda: grid_size(10, 4), "patch_size"),
    Bad("patches.grid_size: patch_size 0", "size", lambda: grid_size(8, 0), "patch_size"),
    Bad("patches.grid_size: image_size a string", "type", lambda: grid_size("8", 4),
        "image_size"),
    Bad("patches.patchify: 3-D images", "shape",
        lambda: patchify(torch.zeros(3, 8, 8), 4), "images"),
    Bad("patches.patchify: numpy images", "type",
        lambda: patchify(np.zeros((1, 3, 8, 8)), 4), "images"),
    Bad("patches.patchify: patch_size 3 does not divide 8", "shape",
        lambda: patchify(IMAGES, 3), "patch_size"),
    Bad("patches.unpatchify: wrong number of patches", "shape",
        lambda: unpatchify(torch.zeros(2, 5, 48), 8, 4), "patches"),
    Bad("patches.conv_patch_embedding: Linear of the wrong width", "shape",
        lambda: conv_patch_embedding(nn.Linear(10, 4), 3, 2), ["linear", "in_features"]),
    Bad("patches.conv_patch_embedding: a Conv2d, not a Linear", "type",
        lambda: conv_patch_embedding(nn.Conv2d(3, 4, 2), 3, 2), "linear"),
    Bad("patches.conv_patch_embedding: num_channels 0", "size",
        lambda: conv_patch_embedding(nn.Linear(12, 4), 0, 2), "num_channels"),
    Bad("patches.unpatchify: numpy patches", "type",
        lambda: unpatchify(np.zeros((2, 4, 48)), 8, 4), ["patches", "torch.from_numpy"]),
    Bad("patches.cls_attention: wrong grid", "shape",
        lambda: cls_attention(torch.zeros(2, 5, 5), (3, 3)), "attention"),
    Bad("patches.cls_attention: grid 0", "size",
        lambda: cls_attention(torch.zeros(2, 5, 5), (0, 2)), "grid"),
    Bad("patches.position_similarity: wrong grid", "shape",
        lambda: position_similarity(torch.zeros(10, 4), (2, 2)), "pos_embed"),
    Bad("patches.position_similarity: integer pos_embed", "dtype",
        lambda: position_similarity(torch.zeros(4, 4, dtype=torch.long), (2, 2)),
        ["pos_embed", ".float()"]),
]

DECODING = [
    Bad("decoding.greedy_search: step not callable", "type",
        lambda: greedy_search("step", BOS, EOS, 3), "step"),
    Bad("decoding.greedy_search: bos a string", "type",
        lambda: greedy_search(table_step, "<s>", EOS, 3), "bos"),
    Bad("decoding.greedy_search: max_len 0", "size",
        lambda: greedy_search(table_step, BOS, EOS, 0), "max_len"),
    Bad("decoding.greedy_search: step returns (V,)", "shape",
        lambda: greedy_search(lambda p: torch.zeros(5), BOS, EOS, 3), "step"),
    Bad("decoding.beam_search: beam_size 0", "size",
        lambda: beam_search(table_step, BOS, EOS, 0, 3), "beam_size"),
    Bad("decoding.beam_search: eos a float", "type",
        lambda: beam_search(table_step, BOS, 2.0, 2, 3), "eos"),
    Bad("decoding.beam_search: length_penalty negative", "range",
        lambda: beam_search(table_step, BOS, EOS, 2, 3, length_penalty=-0.5), "length_penalty"),
    Bad("decoding.beam_search: length_penalty NaN", "range",
        lambda: beam_search(table_step, BOS, EOS, 2, 3, length_penalty=math.nan),
        "length_penalty"),
    Bad("decoding.beam_search: n_best > beam_size", "range",
        lambda: beam_search(table_step, BOS, EOS, 2, 3, n_best=3), "n_best"),
    Bad("decoding.beam_search: step returns logits", "range",
        lambda: beam_search(lambda p: torch.ones(len(p), 5), BOS, EOS, 2, 3), "step"),
    Bad("decoding.greedy_search: step returns integers", "dtype",
        lambda: greedy_search(lambda p: torch.zeros(1, 5, dtype=torch.long), BOS, EOS, 3), "step"),
    Bad("decoding.BeamTrace.path: node_id out of range", "range",
        lambda: TRACE.path(len(TRACE.nodes)), "node_id"),
    Bad("decoding.BeamTrace.path: node_id a string", "type", lambda: TRACE.path("0"), "node_id"),
    Bad("decoding.Hypothesis.normalized_score: length_penalty a string", "type",
        lambda: Hypothesis((1, 2), -1.0, True).normalized_score("1"), "length_penalty"),
]


def _logits5(ids):
    """A model with V = 5: next-token logits (B, t, 5), all equal."""
    return torch.zeros(*ids.shape, 5)


class _Context8(nn.Module):
    """A model whose config says max_position = 8 (as GPTConfig, BertConfig)."""

    config = SimpleNamespace(max_position=8, vocab_size=5)

    def forward(self, ids):
        return _logits5(ids)


GENERATION = [
    Bad("generation.Strategy: temperature 0", "range",
        lambda: Strategy.sample(temperature=0.0), ["temperature", "Strategy.greedy()"]),
    Bad("generation.Strategy: temperature negative", "range",
        lambda: Strategy.sample(temperature=-1.0), "temperature"),
    Bad("generation.Strategy: top_k 0", "size", lambda: Strategy.sample(top_k=0), "top_k"),
    Bad("generation.Strategy: top_p 0", "range", lambda: Strategy.sample(top_p=0.0), "top_p"),
    Bad("generation.Strategy: top_p 1.5", "range", lambda: Strategy.sample(top_p=1.5), "top_p"),
    Bad("generation.Strategy: repetition_penalty 0", "range",
        lambda: Strategy.sample(repetition_penalty=0.0), "repetition_penalty"),
    Bad("generation.Strategy: beam_size 0", "size", lambda: Strategy.beam(0), "beam_size"),
    Bad("generation.Strategy: kind typo'd", "model", lambda: Strategy("sampling"), "kind"),
    Bad("generation.top_k_filter: k 0", "size", lambda: top_k_filter(torch.zeros(4), 0), "k"),
    Bad("generation.top_p_filter: p 0", "range", lambda: top_p_filter(torch.zeros(4), 0.0), "p"),
    Bad("generation.apply_temperature: integer logits", "dtype",
        lambda: apply_temperature(torch.zeros(4, dtype=torch.long), 1.0), "logits"),
    Bad("generation.apply_repetition_penalty: id out of the vocabulary", "range",
        lambda: apply_repetition_penalty(torch.zeros(4), torch.tensor([4]), 1.2),
        "previous_ids"),
    Bad("generation.next_token_distribution: penalty without previous_ids", "type",
        lambda: next_token_distribution(torch.zeros(4), Strategy.greedy(1.2)), "previous_ids"),
    Bad("generation.generate: prompt longer than the context", "size",
        lambda: generate(_Context8(), [1, 2, 3], 6), ["prompt_ids", "max_position"]),
    Bad("generation.generate: max_new_tokens 0", "size",
        lambda: generate(_logits5, [1, 2], 0), "max_new_tokens"),
    Bad("generation.generate: float prompt", "dtype",
        lambda: generate(_logits5, torch.zeros(1, 2), 2), "prompt_ids"),
    Bad("generation.generate: 3-D prompt", "shape",
        lambda: generate(_logits5, torch.zeros(1, 1, 2, dtype=torch.long), 2), "prompt_ids"),
    Bad("generation.generate: prompt id >= V", "range",
        lambda: generate(_logits5, [1, 5], 2), "prompt_ids"),
    Bad("generation.generate: strategy typo'd", "model",
        lambda: generate(_logits5, [1], 2, "beams"), "strategy"),
    Bad("generation.generate: generator an int", "type",
        lambda: generate(_logits5, [1], 2, "sample", generator=0), "generator"),
    Bad("generation.generate: eos_id a string", "type",
        lambda: generate(_logits5, [1], 2, eos_id="</s>"), "eos_id"),
    Bad("generation.generate: eos_id >= V", "range",
        lambda: generate(_logits5, [1], 2, eos_id=5), "eos_id"),
    Bad("generation.generate: model returns (V,)", "shape",
        lambda: generate(lambda ids: torch.zeros(5), [1], 2), "model"),
    Bad("generation.generate: model not callable", "type",
        lambda: generate("gpt2", [1], 2), "model"),
]

TRAINING = [
    Bad("training.fit: epochs 0", "size", lambda: _fit(epochs=0), "epochs"),
    Bad("training.fit: lr 0", "range", lambda: _fit(lr=0.0), "lr"),
    Bad("training.fit: clip 0", "range", lambda: _fit(clip=0.0), "clip"),
    Bad("training.fit: optimizer a string", "type", lambda: _fit(optimizer="adam"),
        "optimizer"),
    Bad("training.fit: schedule not callable", "type", lambda: _fit(schedule=0.5), "schedule"),
    Bad("training.fit: seed negative", "range", lambda: _fit(seed=-1), "seed"),
    Bad("training.fit: generator an int", "type", lambda: _fit(generator=0), "generator"),
    Bad("training.fit: lr_decay 1.5", "range", lambda: _fit(lr_decay=1.5), "lr_decay"),
    Bad("training.fit: progress a string", "type", lambda: _fit(progress="no"), "progress"),
    Bad("training.fit: a model without parameters", "type", lambda: _fit(model=nn.ReLU()),
        "model"),
    Bad("training.fit: eval_every_epoch a string", "type",
        lambda: _fit(eval_every_epoch="no"), "eval_every_epoch"),
    Bad("training.fit: eval_fn not callable", "type", lambda: _fit(eval_fn=1.0), "eval_fn"),
    Bad("training.fit: model not a Module", "type", lambda: _fit(model="linear"), "model"),
    Bad("training.fit: make_batches returns an int", "type",
        lambda: _fit(make_batches=lambda e, g: 3), "make_batches"),
    Bad("training.fit: loss_fn returns a float", "type",
        lambda: _fit(loss_fn=lambda m, b: 1.0), "loss_fn"),
    Bad("training.fit: loss_fn returns a vector", "shape",
        lambda: _fit(loss_fn=lambda m, b: m(b).squeeze(-1)), "loss_fn"),
    Bad("training.fit: loss_fn returns a detached loss", "type",
        lambda: _fit(loss_fn=lambda m, b: torch.tensor(1.0)), "loss_fn"),
    Bad("training.fit: eval_fn returns a string", "type",
        lambda: _fit(eval_fn=lambda m: "good"), "eval_fn"),
    Bad("training.set_seed: a float", "type", lambda: set_seed(1.5), "seed"),
]
# fmt: on

ROWS = (
    ATTENTION
    + MASKING
    + POSITIONAL
    + LAYERS
    + KV_CACHE
    + PATCHES
    + DECODING
    + GENERATION
    + TRAINING
)


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)
