"""Copying weights from a reference implementation (torch.nn, Hugging Face) into lecturekit's:
every map from their names to ours, as data, and the one function that copies by a map.

Public API::

    load_mapped(ours, theirs, table, name="hf_model", renames=())   # -> ours
    #   copies the module theirs into the module ours by table, after checking everything:
    #   every tensor of ours has a source, every parameter of theirs a place, shapes after the
    #   transform, dtypes, LayerNorm eps; else a ValueError naming the first key, nothing copied
    mapped_state_dict(theirs_state_dict, table, renames=())   # their tensors in our names
    load_torch_attention(mha, torch_mha)     # MultiHeadAttention <- torch.nn.MultiheadAttention
    TORCH_MAPS[nn.TransformerEncoderLayer], HF_MAPS["BertForPreTraining"]   # the tables

A table maps our names (a module or a tensor of ``ours.state_dict()``; a module's entry covers
its weight and bias) to theirs, ``{i}`` a layer index. Where a plain copy does not do, theirs is
a ``Source`` (a slice of a fused W^Q|W^K|W^V, a transpose, a flattened kernel); ``None`` keeps
ours (the reference has none). Each ``from_hf`` / ``load_from_torch`` compares the settings that
change the function (sizes, activations, eps as configured) before calling ``load_mapped``.
The tests and notebooks then show identical outputs (atol 1e-5): the from-scratch code is real.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import torch
from torch import nn

from lecturekit.utils.checks import check_instance

__all__ = ["Source", "conv1d", "nested", "load_mapped", "mapped_state_dict",
           "load_torch_attention", "TORCH_MAPS", "HF_MAPS", "VIT_HF4_RENAMES"]  # fmt: skip


class Source(NamedTuple):
    """Their tensor or module ``name`` through a transform: ``part=(j, n)`` keeps the j-th of n
    equal slices along ``dim`` (W^Q, W^K, W^V stacked in one tensor), ``transpose`` turns a 2-D
    (in, out) weight into a Linear's (out, in), ``flatten`` a kernel (D, C, ph, pw) into a
    Linear weight (D, C*ph*pw); in that order (a 1-D bias is only sliced)."""

    name: str
    part: tuple[int, int] | None = None
    dim: int = 0
    transpose: bool = False
    flatten: bool = False

    def read(self, t: torch.Tensor) -> torch.Tensor:
        """Their tensor ``t`` as ours."""
        if self.part is not None:
            t = t.chunk(self.part[1], self.dim)[self.part[0]]  # (.., n*k, ..) -> (.., k, ..)
        if self.transpose and t.ndim == 2:
            t = t.T  # (in, out) -> (out, in)
        return t.flatten(1) if self.flatten and t.ndim > 2 else t  # (D, C, ph, pw) -> (D, C*ph*pw)


Table = Mapping[str, "str | Source | None"]


def conv1d(name: str, part: tuple[int, int] | None = None) -> Source:
    """A Hugging Face ``Conv1D`` (GPT's: weight (in, out), y = x W + b) read as a Linear: its
    output columns ``part`` (j, n), transposed."""
    return Source(name, part=part, dim=-1, transpose=True)


def nested(ours: str, theirs: str, table: Table) -> dict[str, str | Source | None]:
    """``table`` one level down: our names under ``ours``, theirs under ``theirs``."""

    def down(src: str | Source | None) -> str | Source | None:
        if isinstance(src, Source):
            return src._replace(name=f"{theirs}.{src.name}")
        return None if src is None else f"{theirs}.{src}"

    return {f"{ours}.{mine}": down(src) for mine, src in table.items()}


def _match(name: str, key: str) -> re.Match[str] | None:
    """``key`` is ``name`` or a tensor under it (``.weight``, ...); ``{i}`` is a layer index."""
    body = re.escape(name).replace(re.escape("{i}"), r"(?P<i>\d+)")
    return re.fullmatch(rf"{body}(?P<rest>\..+)?", key)


def _moved(name: str, m: re.Match[str]) -> str:
    """``name`` with the layer index and the tensor under it that ``m`` matched."""
    return name.format(i=m.groupdict().get("i")) + (m["rest"] or "")


def _sources(table: Table, keys: Sequence[str]) -> dict[str, tuple[str, Source]]:
    """Our name -> (their key, Source) of every key of theirs that ``table`` maps."""
    check_instance("table", table, Mapping)
    out = {}
    for mine, src in table.items():
        if not isinstance(mine, str) or not isinstance(src, str | Source | None):
            raise ValueError(f"table must map names (str) to a str, a Source or None, got "
                             f"{mine!r}: {type(src).__name__}")  # fmt: skip
        src = Source(src) if isinstance(src, str) else src
        for key in keys:
            if src is not None and (m := _match(src.name, key)):
                out[_moved(mine, m)] = (key, src)
    return out


def mapped_state_dict(
    theirs: Mapping[str, torch.Tensor], table: Table, renames: Sequence[tuple[str, str]] = ()
) -> dict[str, torch.Tensor]:
    """The tensors of the state dict ``theirs`` that ``table`` maps, in our names, transformed;
    their keys are renamed first by the regular expressions ``renames`` (e.g. an older
    library's names)."""
    check_instance("theirs", theirs, Mapping)
    theirs = {_rename(k, renames): v for k, v in theirs.items()}
    return {mine: src.read(theirs[k]) for mine, (k, src) in _sources(table, list(theirs)).items()}


def _rename(key: str, renames: Sequence[tuple[str, str]]) -> str:
    for old, new in renames:
        key = re.sub(old, new, key)
    return key


@torch.no_grad()
def load_mapped(
    ours: nn.Module,
    theirs: nn.Module,
    table: Table,
    name: str = "hf_model",
    renames: Sequence[tuple[str, str]] = (),
) -> nn.Module:
    """Copy ``theirs`` into ``ours`` by ``table`` (``renames`` as in ``mapped_state_dict``) once
    everything is checked: every tensor of ours has a source or is kept (None), every parameter
    of theirs (a tied one once) a place in ours, shapes after the transform, dtypes, paired
    LayerNorms' eps. Else a ValueError naming the first key (``theirs`` as ``name``) and
    nothing copied. Returns ``ours``. Lectures 04, 08, 09, 14 (the reference implementations).
    """
    check_instance("ours", ours, nn.Module), check_instance(name, theirs, nn.Module)
    mine, state = ours.state_dict(), theirs.state_dict()
    original = {_rename(k, renames): k for k in state}  # renamed -> their own name
    sources, values = _sources(table, list(original)), {}
    for key, tensor in mine.items():
        if key not in sources:
            _check_kept(table, key, name)
            continue
        their_key, src = sources[key]
        t = state[original[their_key]]
        value, what = src.read(t), f"{name}'s {their_key} has"
        if value.shape != tensor.shape:
            read = f" (read as {tuple(value.shape)})" if value.shape != t.shape else ""
            got, want = tuple(t.shape), tuple(tensor.shape)
            raise ValueError(f"{what} shape {got}{read}, ours {key} {want}: a shape mismatch "
                             "(nothing was copied)")  # fmt: skip
        if value.dtype != tensor.dtype:
            raise ValueError(f"{what} dtype {value.dtype}, ours {key} {tensor.dtype}: convert "
                             "one model first (nothing was copied)")  # fmt: skip
        a = ours.get_submodule(key.rpartition(".")[0])  # the modules that hold the tensors
        b = theirs.get_submodule(original[their_key].rpartition(".")[0])
        if isinstance(a, nn.LayerNorm) and isinstance(b, nn.LayerNorm) and a.eps != b.eps:
            raise ValueError(f"{what} eps={b.eps:g}, ours {key} eps={a.eps:g} (build ours with "
                             "the reference's layer_norm_eps; nothing was copied)")  # fmt: skip
        values[key] = value
    for key in [k for k in sources if k not in mine]:
        raise ValueError(f"{name}'s {sources[key][0]} has no place in ours (no {key}); nothing "
                         "was copied")  # fmt: skip
    every = dict(theirs.named_parameters(remove_duplicate=False))  # a tied one by any name
    read = {id(every[original[k]]) for k, _ in sources.values() if original[k] in every}
    for key, param in theirs.named_parameters():
        if id(param) not in read:
            raise ValueError(f"{name}'s {key} has no place in ours; nothing was copied")
    for key, value in values.items():
        mine[key].copy_(value)
    return ours


def _check_kept(table: Table, key: str, name: str) -> None:
    """Our ``key`` has no source: fine if an entry of None keeps it, else a ValueError."""
    for mine, src in table.items():
        if m := _match(mine, key):
            if src is None:
                return
            wanted = _moved(src.name if isinstance(src, Source) else src, m)
            raise ValueError(f"{name} has no {wanted} (for ours {key}); nothing was copied")
    raise ValueError(f"the weight map has no entry for ours {key}; nothing was copied")


# ------------------------------------------------------------------------------------------
# torch.nn: our name -> torch's
# ------------------------------------------------------------------------------------------

TORCH_MHA = {  # MultiHeadAttention <- nn.MultiheadAttention: in_proj_* rows = [W^Q; W^K; W^V]
    "w_q.weight": Source("in_proj_weight", part=(0, 3)),
    "w_k.weight": Source("in_proj_weight", part=(1, 3)),
    "w_v.weight": Source("in_proj_weight", part=(2, 3)),
    "w_q.bias": Source("in_proj_bias", part=(0, 3)),
    "w_k.bias": Source("in_proj_bias", part=(1, 3)),
    "w_v.bias": Source("in_proj_bias", part=(2, 3)),
    "w_o": "out_proj",
}
_TORCH_FFN = {"ffn.linear1": "linear1", "ffn.linear2": "linear2"}
TORCH_ENCODER_LAYER = {
    **nested("self_attn", "self_attn", TORCH_MHA), **_TORCH_FFN, "norm1": "norm1", "norm2": "norm2",
}  # fmt: skip
TORCH_DECODER_LAYER = {
    **nested("self_attn", "self_attn", TORCH_MHA),
    **nested("cross_attn", "multihead_attn", TORCH_MHA),  # torch's name for cross-attention
    **_TORCH_FFN, "norm1": "norm1", "norm2": "norm2", "norm3": "norm3",
}  # fmt: skip
TORCH_ENCODER = {**nested("layers.{i}", "layers.{i}", TORCH_ENCODER_LAYER), "final_norm": "norm"}
TORCH_DECODER = {**nested("layers.{i}", "layers.{i}", TORCH_DECODER_LAYER), "final_norm": "norm"}
TORCH_TRANSFORMER = {  # torch's has no embeddings and no generator: ours keep theirs
    **nested("encoder", "encoder", TORCH_ENCODER), **nested("decoder", "decoder", TORCH_DECODER),
    "src_embed": None, "tgt_embed": None, "generator": None,
}  # fmt: skip
TORCH_MAPS: dict[type[nn.Module], Table] = {  # by torch class
    nn.MultiheadAttention: TORCH_MHA, nn.Transformer: TORCH_TRANSFORMER,
    nn.TransformerEncoderLayer: TORCH_ENCODER_LAYER, nn.TransformerEncoder: TORCH_ENCODER,
    nn.TransformerDecoderLayer: TORCH_DECODER_LAYER, nn.TransformerDecoder: TORCH_DECODER,
}  # fmt: skip


def load_torch_attention(mha: nn.Module, torch_mha: nn.MultiheadAttention) -> nn.Module:
    """Copy a ``torch.nn.MultiheadAttention`` (its settings already compared) into lecturekit's
    ``MultiHeadAttention`` by ``TORCH_MHA``: W^Q, W^K, W^V are rows 0:D, D:2D, 2D:3D of
    torch's ``in_proj_weight`` (and ``in_proj_bias``), W^O its ``out_proj``.

    Lecture 04; Vaswani et al. 2017 section 3.2.2.
    """
    return load_mapped(mha, torch_mha, TORCH_MHA, name="torch_mha")


# ------------------------------------------------------------------------------------------
# Hugging Face transformers: our name -> theirs
# ------------------------------------------------------------------------------------------

BERT_EMBEDDINGS = {  # BertEmbeddings <- BertEmbeddings (also ELECTRA's, ALBERT's)
    "token": "word_embeddings", "segment": "token_type_embeddings",
    "position": "position_embeddings", "norm": "LayerNorm",
}  # fmt: skip
BERT_LAYER = {  # EncoderLayer <- BertLayer (also ELECTRA's)
    "self_attn.w_q": "attention.self.query",
    "self_attn.w_k": "attention.self.key",
    "self_attn.w_v": "attention.self.value",
    "self_attn.w_o": "attention.output.dense",
    "norm1": "attention.output.LayerNorm",
    "ffn.linear1": "intermediate.dense",
    "ffn.linear2": "output.dense",
    "norm2": "output.LayerNorm",
}
BERT = {  # BertModel <- BertModel
    **nested("embeddings", "embeddings", BERT_EMBEDDINGS),
    **nested("encoder.layers.{i}", "encoder.layer.{i}", BERT_LAYER),
    "pooler": "pooler.dense",
}
BERT_FOR_PRETRAINING = {  # the MLM decoder is tied to the token embeddings (and its bias)
    **nested("bert", "bert", BERT),
    "mlm_dense": "cls.predictions.transform.dense",
    "mlm_norm": "cls.predictions.transform.LayerNorm",
    "mlm_bias": "cls.predictions.bias",
    "nsp": "cls.seq_relationship",
}
BERT_FOR_SEQUENCE_CLASSIFICATION = {**nested("bert", "bert", BERT), "classifier": "classifier"}
BERT_FOR_TOKEN_CLASSIFICATION = {  # Hugging Face's has no pooler: ours keeps its own
    **nested("bert", "bert", BERT), "bert.pooler": None, "classifier": "classifier",
}  # fmt: skip
BERT_FOR_QUESTION_ANSWERING = {
    **nested("bert", "bert", BERT), "bert.pooler": None, "qa_outputs": "qa_outputs",
}  # fmt: skip
ELECTRA_DISCRIMINATOR = {  # <- ElectraForPreTraining (embedding_size = hidden_size, no pooler)
    **nested("bert", "electra", BERT),
    "bert.pooler": None,
    "head_dense": "discriminator_predictions.dense",
    "head_out": "discriminator_predictions.dense_prediction",
}
ELECTRA_GENERATOR = {  # <- ElectraForMaskedLM; the output layer is tied to the embeddings
    **nested("embeddings", "electra.embeddings", BERT_EMBEDDINGS),
    "embeddings_project": "electra.embeddings_project",  # only when E != D
    **nested("encoder.layers.{i}", "electra.encoder.layer.{i}", BERT_LAYER),
    "head_dense": "generator_predictions.dense",
    "head_norm": "generator_predictions.LayerNorm",
    "head_bias": "generator_lm_head.bias",
}
ALBERT_LAYER = {  # EncoderLayer <- AlbertLayer
    "self_attn.w_q": "attention.query",
    "self_attn.w_k": "attention.key",
    "self_attn.w_v": "attention.value",
    "self_attn.w_o": "attention.dense",
    "norm1": "attention.LayerNorm",
    "ffn.linear1": "ffn",
    "ffn.linear2": "ffn_output",
    "norm2": "full_layer_layer_norm",
}
_ALBERT_GROUP = "albert.encoder.albert_layer_groups.{i}.albert_layers.0"  # a layer a group
ALBERT = {  # AlbertForPreTraining <- AlbertForPreTraining: one layer per group (1 or L groups)
    **nested("embeddings", "albert.embeddings", BERT_EMBEDDINGS),
    "embedding_project": "albert.encoder.embedding_hidden_mapping_in",
    **nested("encoder.layers.{i}", _ALBERT_GROUP, ALBERT_LAYER),
    "pooler": "albert.pooler",
    "mlm_dense": "predictions.dense",
    "mlm_norm": "predictions.LayerNorm",
    "mlm_bias": "predictions.bias",
    "sop": "sop_classifier.classifier",
}
GPT_BLOCK = {  # gpt_block (an EncoderLayer) <- GPT2Block / OpenAI GPT's Block; Conv1D is (in, out)
    "norm1": "ln_1",
    "self_attn.w_q": conv1d("attn.c_attn", part=(0, 3)),  # c_attn (D, 3D) = [W^Q | W^K | W^V]
    "self_attn.w_k": conv1d("attn.c_attn", part=(1, 3)),
    "self_attn.w_v": conv1d("attn.c_attn", part=(2, 3)),
    "self_attn.w_o": conv1d("attn.c_proj"),
    "norm2": "ln_2",
    "ffn.linear1": conv1d("mlp.c_fc"),
    "ffn.linear2": conv1d("mlp.c_proj"),
}
GPT2 = {  # GPT <- GPT2LMHeadModel; lm_head is tied to wte
    "token_embedding": "transformer.wte",
    "position_embedding": "transformer.wpe",
    **nested("blocks.{i}", "transformer.h.{i}", GPT_BLOCK),
    "final_norm": "transformer.ln_f",
}
OPENAI_GPT = {  # GPT (post-norm, no final norm) <- OpenAIGPTLMHeadModel
    "token_embedding": "transformer.tokens_embed",
    "position_embedding": "transformer.positions_embed",
    **nested("blocks.{i}", "transformer.h.{i}", GPT_BLOCK),
}
VIT_LAYER = {  # EncoderLayer (pre-norm) <- ViTLayer, transformers 5 names
    "self_attn.w_q": "attention.q_proj",
    "self_attn.w_k": "attention.k_proj",
    "self_attn.w_v": "attention.v_proj",
    "self_attn.w_o": "attention.o_proj",
    "ffn.linear1": "mlp.fc1",
    "ffn.linear2": "mlp.fc2",
    "norm1": "layernorm_before",
    "norm2": "layernorm_after",
}
VIT = {  # ViT <- ViTForImageClassification; the patch Conv2d is our Linear, flattened
    "patch_embed": Source("vit.embeddings.patch_embeddings.projection", flatten=True),
    "cls_token": "vit.embeddings.cls_token",
    "pos_embed": "vit.embeddings.position_embeddings",
    **nested("encoder.layers.{i}", "vit.layers.{i}", VIT_LAYER),
    "encoder.final_norm": "vit.layernorm",
    "head": "classifier",
}
VIT_HF4_RENAMES = [  # transformers 4.x -> 5.x, as transformers/conversion_mapping.py ("ViTModel")
    (r"encoder\.layer\.", "layers."),
    (r"attention\.attention\.(q|k|v)[a-z]*\.", r"attention.\1_proj."),
    (r"attention\.output\.dense", "attention.o_proj"),
    (r"intermediate\.dense", "mlp.fc1"),
    (r"output\.dense", "mlp.fc2"),
]
HF_MAPS: dict[str, Table] = {  # by transformers class
    "BertForPreTraining": BERT_FOR_PRETRAINING,
    "BertForSequenceClassification": BERT_FOR_SEQUENCE_CLASSIFICATION,
    "BertForTokenClassification": BERT_FOR_TOKEN_CLASSIFICATION,
    "BertForQuestionAnswering": BERT_FOR_QUESTION_ANSWERING,
    "ElectraForPreTraining": ELECTRA_DISCRIMINATOR, "ElectraForMaskedLM": ELECTRA_GENERATOR,
    "AlbertForPreTraining": ALBERT, "ViTForImageClassification": VIT,
    "GPT2LMHeadModel": GPT2, "OpenAIGPTLMHeadModel": OPENAI_GPT,
}  # fmt: skip
