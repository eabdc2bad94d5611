"""A self-check for a new machine: ``python -m lecturekit.verify`` (or ``lecturekit-verify``).

Public API::

    python -m lecturekit.verify [--threads N] [--quiet]    # prints a table; exit 0 / 1 / 2
    results = run_checks()          # list of CheckResult(name, status, diff, tol, detail)
    print(format_table(results))    # status: "pass", "fail" or "skip"
    main(argv=None) -> int          # the command line: 0 all passed (or skipped), 1 a check
                                    # failed, 2 a bad command line (one ``error:`` line)

What it checks, in under 30 s on one CPU core, without downloading anything:

- every from-scratch component against its reference, on small random inputs with fixed
  seeds, largest absolute difference <= ``ATOL`` (1e-5, as the design asks):
  ``scaled_dot_product_attention`` vs ``torch.nn.functional.scaled_dot_product_attention``,
  ``MultiHeadAttention`` vs ``torch.nn.MultiheadAttention``, ``EncoderLayer`` vs
  ``torch.nn.TransformerEncoderLayer``, ``Transformer`` vs ``torch.nn.Transformer``, and
  ``BertForPreTraining``, the three fine-tuning heads (``BertForSequenceClassification``,
  ``BertForTokenClassification``, ``BertForQuestionAnswering``), ``ViT``, ``GPT``, ELECTRA's
  discriminator and generator and ``AlbertForPreTraining`` vs Hugging Face's classes of the
  same names (``ViTForImageClassification``, ``GPT2LMHeadModel``, ``ElectraForPreTraining``,
  ``ElectraForMaskedLM``) built from tiny random configs (skipped, with the reason, when
  ``transformers`` is not installed);
- every shipped checkpoint: its sha256 against the MANIFEST, and one forward pass on fixed
  inputs (logits of the expected shape, all finite);
- the offline rule: the Hugging Face offline flags are in effect, and no check opened a
  network connection or looked up a host name (every attempt is refused and reported).

The components are built exactly as in the unit tests (tests/test_attention.py,
tests/test_layers.py, tests/models/test_transformer.py, test_bert.py, test_bert_tasks.py,
test_vit.py, test_gpt.py, test_electra.py, test_albert.py). A check that raises is a failed
row with the error's message, never a traceback. The global torch random state and thread
count are restored afterwards, so ``main()`` can run in-process.

Lectures 03-10 and 13-15 (the components they derive, the models they load).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import ipaddress
import math
import os
import socket
import sys
import time
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

import lecturekit
from lecturekit.attention import MultiHeadAttention, scaled_dot_product_attention
from lecturekit.layers import EncoderLayer
from lecturekit.masking import causal_mask, key_padding_mask, padding_mask
from lecturekit.models.albert import AlbertForPreTraining
from lecturekit.models.bert import BertForPreTraining
from lecturekit.models.bert_tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from lecturekit.models.electra import ElectraDiscriminator, ElectraGenerator
from lecturekit.models.gpt import GPT
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.shipped import load_shipped, shipped_info, shipped_names
from lecturekit.shipped.store import read_manifest, sha256_of
from lecturekit.utils.checks import as_pair

__all__ = [
    "ATOL",
    "OFFLINE_FLAGS",
    "CheckResult",
    "COMPONENT_CHECKS",
    "NetworkRecorder",
    "run_checks",
    "format_table",
    "main",
]

ATOL = 1e-5
OFFLINE_FLAGS = (
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_DATASETS_OFFLINE",
    "HF_HUB_DISABLE_TELEMETRY",
)
_TRUE = {"1", "true", "yes", "on"}
_NO_TRANSFORMERS = "transformers is not installed (pip install transformers)"


@dataclass(frozen=True)
class CheckResult:
    """One row of the table: ``status`` is "pass", "fail" or "skip"; ``diff`` the largest
    absolute difference (None where nothing is compared); ``tol`` the tolerance it must stay
    within; ``detail`` what was compared, or why it failed or was skipped."""

    name: str
    status: str
    diff: float | None = None
    tol: float | None = None
    detail: str = ""


class _Skip(Exception):
    """Raised by a check that cannot run here (e.g. transformers missing); the reason."""


class _Fail(Exception):
    """Raised by a check whose outcome is wrong (not an error in the check itself)."""


# ---------------------------------------------------------------------------------------------
# comparisons


def _largest_difference(pairs: Sequence[tuple[str, torch.Tensor, torch.Tensor]]) -> float:
    """max |mine - reference| over every pair; a shape mismatch or a NaN fails the check."""
    largest = 0.0
    for what, mine, ref in pairs:
        if tuple(mine.shape) != tuple(ref.shape):
            raise _Fail(f"{what}: shape {tuple(mine.shape)}, reference {tuple(ref.shape)}")
        if mine.numel() == 0:
            continue
        diff = (mine.detach().double() - ref.detach().double()).abs().max().item()
        if math.isnan(diff):
            raise _Fail(f"{what}: NaN in the output or the reference")
        largest = max(largest, diff)
    return largest


def check_sdpa() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``scaled_dot_product_attention`` vs torch's, without a mask, with a random mask
    broadcast over heads, and causal (tests/test_attention.py)."""
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 4, 5, 8), torch.randn(2, 4, 7, 8), torch.randn(2, 4, 7, 6)
    mask = torch.rand(5, 7) > 0.3
    mask[:, 0] = True  # every query may attend to something (torch gives NaN otherwise)
    causal = causal_mask(7)
    q7 = torch.randn(2, 4, 7, 8)
    pairs = [
        (
            "no mask",
            scaled_dot_product_attention(q, k, v)[0],
            F.scaled_dot_product_attention(q, k, v),
        ),
        (
            "random mask",
            scaled_dot_product_attention(q, k, v, mask)[0],
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
        ),
        (
            "causal",
            scaled_dot_product_attention(q7, k, v, causal)[0],
            F.scaled_dot_product_attention(q7, k, v, is_causal=True),
        ),
    ]
    return pairs, "no mask, random mask, causal; (2, 4, 5, 8) queries"


def check_mha() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``MultiHeadAttention.load_from_torch`` vs ``nn.MultiheadAttention``: outputs and
    per-head weights, self- and cross-attention, causal and padding masks."""
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    mine = MultiHeadAttention(16, 4).load_from_torch(ref)
    x, memory = torch.randn(3, 6, 16), torch.randn(3, 9, 16)
    pad = padding_mask([6, 4, 2], 6)
    pairs = []
    for what, q, kv, ours_mask, theirs in (
        ("self", x, x, None, {}),
        ("cross", x, memory, None, {}),
        ("causal", x, x, causal_mask(6), {"attn_mask": ~causal_mask(6)}),
        ("padding", x, x, key_padding_mask(pad), {"key_padding_mask": ~pad}),
    ):
        out, weights = mine(q, kv, kv, ours_mask)
        ref_out, ref_weights = ref(q, kv, kv, average_attn_weights=False, **theirs)
        pairs += [(f"{what} output", out, ref_out), (f"{what} weights", weights, ref_weights)]
    return pairs, "self, cross, causal, padding; outputs and weights of 4 heads"


def check_encoder_layer() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``EncoderLayer.load_from_torch`` vs ``nn.TransformerEncoderLayer``: post-norm with ReLU
    and pre-norm with GELU, causal and padding masks (tests/test_layers.py)."""
    pairs = []
    for norm_first, activation in ((False, "relu"), (True, "gelu")):
        torch.manual_seed(0)
        ref = nn.TransformerEncoderLayer(
            16, 4, 32, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
        ).eval()
        mine = EncoderLayer(16, 4, 32, activation=activation, norm_first=norm_first)
        mine.load_from_torch(ref)
        x = torch.randn(3, 6, 16)
        pad = padding_mask([6, 4, 2], 6)
        name = "pre-norm" if norm_first else "post-norm"
        # gradients on: torch takes its plain path (its inference fast path may write anything
        # at padded positions); padded positions are compared nowhere
        pairs += [
            (f"{name}", mine(x)[0], ref(x)),
            (f"{name} causal", mine(x, causal_mask(6))[0], ref(x, src_mask=~causal_mask(6))),
            (
                f"{name} padding",
                mine(x, key_padding_mask(pad))[0][pad],
                ref(x, src_key_padding_mask=~pad)[pad],
            ),
        ]
    return pairs, "post-norm ReLU, pre-norm GELU; causal and padding masks"


def check_transformer() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``Transformer.load_from_torch`` vs ``nn.Transformer`` (2 + 2 layers), with causal and
    padding masks: torch's model is fed our embeddings, its output goes through our
    generator (tests/models/test_transformer.py)."""
    pairs = []
    g = torch.Generator().manual_seed(0)
    src_pad, tgt_pad = padding_mask([7, 5, 3], 7), padding_mask([6, 4, 2], 6)
    src = torch.randint(3, 11, (3, 7), generator=g).masked_fill(~src_pad, 0)
    tgt = torch.randint(3, 13, (3, 6), generator=g).masked_fill(~tgt_pad, 0)
    for norm_first in (False, True):
        torch.manual_seed(0)
        ref = nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, batch_first=True, norm_first=norm_first)
        config = TransformerConfig(
            11,
            13,
            d_model=16,
            num_heads=4,
            num_layers=2,
            d_ff=32,
            dropout=0.0,
            norm_first=norm_first,
            final_norm=True,
        )
        model = Transformer(config).load_from_torch(ref)
        logits, _ = model(src, tgt)
        out = ref(
            model.embed_src(src),
            model.embed_tgt(tgt),
            tgt_mask=~causal_mask(6),
            src_key_padding_mask=~src_pad,
            tgt_key_padding_mask=~tgt_pad,
            memory_key_padding_mask=~src_pad,
        )
        name = "pre-norm" if norm_first else "post-norm"
        pairs.append((f"{name} logits", logits[tgt_pad], model.generator(out)[tgt_pad]))
    return pairs, "post- and pre-norm, 2 + 2 layers; causal and padding masks"


def _transformers() -> types.ModuleType:
    if importlib.util.find_spec("transformers") is None:
        raise _Skip(_NO_TRANSFORMERS)
    import transformers

    return transformers


def check_bert() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``BertForPreTraining.from_hf`` vs Hugging Face's ``BertForPreTraining`` from a tiny
    random config (3 layers, width 32): MLM and NSP logits, hidden states and attention, with
    padding and two segments (tests/models/test_bert.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=60,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=24,
        attn_implementation="eager",
    )
    hf = transformers.BertForPreTraining(config).eval()
    ours = BertForPreTraining.from_hf(hf)
    torch.manual_seed(1)
    ids = torch.randint(5, 60, (4, 15))
    segments = (torch.arange(15) >= 7).long().expand(4, 15)
    real = torch.ones(4, 15, dtype=torch.bool)
    real[1, 10:], real[2, 5:], real[3, 1:] = False, False, False
    ids = ids.masked_fill(~real, 0)
    with torch.no_grad():
        ref = hf(
            input_ids=ids,
            token_type_ids=segments,
            attention_mask=real.long(),
            output_hidden_states=True,
            output_attentions=True,
        )
        out = ours(ids, segments, real)
    # padded query positions are never used: real positions are compared
    pairs = [
        ("MLM logits", out.mlm_logits[real], ref.prediction_logits[real]),
        ("NSP logits", out.nsp_logits, ref.seq_relationship_logits),
    ]
    if len(out.hidden_states) != len(ref.hidden_states):
        raise _Fail(f"{len(out.hidden_states)} hidden states, reference {len(ref.hidden_states)}")
    pairs += [
        (f"hidden state {i}", mine[real], theirs[real])
        for i, (mine, theirs) in enumerate(zip(out.hidden_states, ref.hidden_states, strict=True))
    ]
    pairs += [
        (f"attention {i}", mine, theirs)
        for i, (mine, theirs) in enumerate(zip(out.attentions, ref.attentions, strict=True))
    ]
    return pairs, "3 layers, width 32; MLM, NSP, hidden states, attention; padding, 2 segments"


def _check_bert_head(
    ours_cls: type, num_labels: int
) -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``ours_cls.from_hf`` vs Hugging Face's class of the same name from a tiny random config
    (2 layers, width 32, ``num_labels``), with padding, two segments and targets: the logits at
    real positions and the loss (tests/models/test_bert_tasks.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=60,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=24,
        num_labels=num_labels,
        attn_implementation="eager",
    )
    hf = getattr(transformers, ours_cls.__name__)(config).eval()
    ours = ours_cls.from_hf(hf)
    g = torch.Generator().manual_seed(1)
    B, T = 3, 10
    real = torch.arange(T)[None, :] < torch.tensor([10, 7, 4])[:, None]  # (B, T)
    ids = torch.randint(5, 60, (B, T), generator=g).masked_fill(~real, 0)
    segments = ((torch.arange(T) >= 3)[None, :] & real).long()  # (B, T)
    inputs = {"input_ids": ids, "token_type_ids": segments, "attention_mask": real.long()}
    if ours_cls is BertForQuestionAnswering:
        targets = {"start_positions": torch.tensor([3, 4, 1]),
                   "end_positions": torch.tensor([5, 4, 3])}  # fmt: skip
    elif ours_cls is BertForTokenClassification:
        labels = torch.randint(0, num_labels, (B, T), generator=g)
        targets = {"labels": labels.masked_fill(~real, -100)}  # padding not scored
    else:
        targets = {"labels": torch.randint(0, num_labels, (B,), generator=g)}
    with torch.no_grad():
        ref = hf(**inputs, **targets)
        out = ours(ids, segments, real, **targets)
    if ours_cls is BertForQuestionAnswering:
        pairs = [
            ("start logits", out.start_logits[real], ref.start_logits[real]),
            ("end logits", out.end_logits[real], ref.end_logits[real]),
        ]
    elif ours_cls is BertForTokenClassification:
        pairs = [("logits", out.logits[real], ref.logits[real])]
    else:
        pairs = [("logits", out.logits, ref.logits)]
    pairs.append(("loss", out.loss, ref.loss))
    what = ("start/end logits" if ours_cls is BertForQuestionAnswering
            else f"{num_labels}-class logits")  # fmt: skip
    return pairs, f"2 layers, width 32; {what} and loss; padding, 2 segments"


def check_bert_sequence() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``BertForSequenceClassification.from_hf`` vs Hugging Face's (3 classes)."""
    return _check_bert_head(BertForSequenceClassification, 3)


def check_bert_token() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``BertForTokenClassification.from_hf`` vs Hugging Face's (5 classes)."""
    return _check_bert_head(BertForTokenClassification, 5)


def check_bert_span() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``BertForQuestionAnswering.from_hf`` vs Hugging Face's (start and end)."""
    return _check_bert_head(BertForQuestionAnswering, 2)


def check_vit() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``ViT.from_hf`` vs Hugging Face's ``ViTForImageClassification`` from a tiny random config
    (8 x 8 images, 2 x 2 patches, 2 layers, width 32), every weight perturbed: logits and
    attention (tests/models/test_vit.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    config = transformers.ViTConfig(
        image_size=8,
        patch_size=2,
        num_channels=1,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        num_labels=10,
        attn_implementation="eager",
    )
    hf = transformers.ViTForImageClassification(config).eval()
    with torch.no_grad():  # LayerNorms start at 1 and 0, [CLS] near 0: perturb every weight
        for param in hf.parameters():
            param.add_(torch.randn_like(param) * 0.2)
        hf.vit.embeddings.cls_token.normal_()
        hf.vit.embeddings.position_embeddings.normal_()
    ours = ViT.from_hf(hf)
    images = torch.randn(3, 1, 8, 8)
    with torch.no_grad():
        ref = hf(images, output_attentions=True)
        logits, weights = ours(images)
    if len(weights) != len(ref.attentions):
        raise _Fail(f"{len(weights)} attention maps, reference {len(ref.attentions)}")
    pairs = [("logits", logits, ref.logits)]
    pairs += [
        (f"attention {i}", mine, theirs)
        for i, (mine, theirs) in enumerate(zip(weights, ref.attentions, strict=True))
    ]
    return pairs, "8 x 8 images, 16 patches, 2 layers, width 32; logits and attention"


def check_gpt() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``GPT.from_hf`` vs Hugging Face's ``GPT2LMHeadModel`` from a tiny random config (2
    layers, width 32), every weight perturbed: logits at real positions with padding,
    attention, and the KV-cached continuation vs HF's ``past_key_values`` path
    (tests/models/test_gpt.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=60,
        n_positions=24,
        n_embd=32,
        n_layer=2,
        n_head=4,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation="eager",
    )
    hf = transformers.GPT2LMHeadModel(config).eval()
    with torch.no_grad():  # LayerNorms start at 1 and 0, biases at 0: perturb every weight
        for param in hf.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    ours = GPT.from_hf(hf)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 60, (3, 12), generator=g)
    real = torch.arange(12)[None, :] < torch.tensor([12, 9, 4])[:, None]  # (B, T) right padding
    with torch.no_grad():
        ref = hf(ids, attention_mask=real.long(), output_attentions=True)
        out = ours(ids, real)
        first = hf(ids[:, :7], use_cache=True)  # then the last 5 tokens, one call each
        ref_next = hf(ids[:, 7:], past_key_values=first.past_key_values).logits
        cache, steps = ours(ids[:, :7], use_cache=True).cache, []
        for t in range(7, 12):
            step = ours(ids[:, t : t + 1], cache=cache, use_cache=True)
            cache = step.cache
            steps.append(step.logits)
    if len(out.attentions) != len(ref.attentions):
        raise _Fail(f"{len(out.attentions)} attention maps, reference {len(ref.attentions)}")
    # padded query positions are never used: real positions are compared
    pairs = [("logits", out.logits[real], ref.logits[real])]
    pairs += [
        (f"attention {i}", mine.transpose(1, 2)[real], theirs.transpose(1, 2)[real])
        for i, (mine, theirs) in enumerate(zip(out.attentions, ref.attentions, strict=True))
    ]  # (B, H, T, T) -> (B, T, H, T) -> the real query positions (N, H, T)
    pairs.append(("cached logits", torch.cat(steps, dim=1), ref_next))
    return pairs, "2 layers, width 32; logits, attention, padding; KV cache vs past_key_values"


def _perturbed(model: nn.Module) -> nn.Module:
    """``model`` with every weight moved by N(0, 0.1) noise (LayerNorms start at 1 and 0,
    biases at 0: a copy that missed one would still agree), in eval mode."""
    with torch.no_grad():
        for param in model.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    return model.eval()


def _padded_pair_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(3, 12) ids in 5..59, two segments, right padding after 12, 8 and 3 tokens."""
    g = torch.Generator().manual_seed(1)
    real = torch.arange(12)[None, :] < torch.tensor([12, 8, 3])[:, None]  # (B, T)
    ids = torch.randint(5, 60, (3, 12), generator=g).masked_fill(~real, 0)
    return ids, (torch.arange(12) >= 6).long().expand(3, 12), real


def check_electra() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``ElectraDiscriminator.from_hf`` vs Hugging Face's ``ElectraForPreTraining`` and
    ``ElectraGenerator.from_hf`` vs ``ElectraForMaskedLM`` (embeddings 32 wide projected to a
    16-wide generator), tiny random configs with every weight perturbed: logits at real
    positions, with padding and two segments (tests/models/test_electra.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    sizes = dict(vocab_size=60, embedding_size=32, num_hidden_layers=2, intermediate_size=37,
                 max_position_embeddings=24, attn_implementation="eager")  # fmt: skip
    hf_disc = transformers.ElectraForPreTraining(
        transformers.ElectraConfig(hidden_size=32, num_attention_heads=4, **sizes)
    )
    hf_gen = transformers.ElectraForMaskedLM(
        transformers.ElectraConfig(hidden_size=16, num_attention_heads=2, **sizes)
    )
    hf_disc, hf_gen = _perturbed(hf_disc), _perturbed(hf_gen)
    disc, gen = ElectraDiscriminator.from_hf(hf_disc), ElectraGenerator.from_hf(hf_gen)
    ids, segments, real = _padded_pair_inputs()
    kwargs = dict(input_ids=ids, token_type_ids=segments, attention_mask=real.long())
    with torch.no_grad():
        mine = disc(ids, segments, real)[real], gen(ids, segments, real)[real]
        ref = hf_disc(**kwargs).logits[real], hf_gen(**kwargs).logits[real]
    pairs = [("discriminator logits", mine[0], ref[0]), ("generator logits", mine[1], ref[1])]
    return pairs, "2 layers, width 32 / generator 16; replaced and MLM logits, padding"


def check_albert() -> tuple[list[tuple[str, torch.Tensor, torch.Tensor]], str]:
    """``AlbertForPreTraining.from_hf`` vs Hugging Face's ``AlbertForPreTraining`` from a tiny
    random config (one layer shared by 3 depths, embeddings 16 wide, width 32, exact GELU),
    every weight perturbed: MLM and SOP logits with padding and two segments
    (tests/models/test_albert.py)."""
    transformers = _transformers()
    torch.manual_seed(0)
    config = transformers.AlbertConfig(
        vocab_size=60,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=24,
        hidden_act="gelu",
        attn_implementation="eager",
    )
    hf = _perturbed(transformers.AlbertForPreTraining(config))
    ours = AlbertForPreTraining.from_hf(hf)
    ids, segments, real = _padded_pair_inputs()
    with torch.no_grad():
        ref = hf(input_ids=ids, token_type_ids=segments, attention_mask=real.long())
        out = ours(ids, segments, real)
    pairs = [
        ("MLM logits", out.mlm_logits[real], ref.prediction_logits[real]),
        ("SOP logits", out.sop_logits, ref.sop_logits),
    ]
    return pairs, "1 layer shared by 3 depths, E 16, width 32; MLM and SOP logits, padding"


# (row name, check): each check returns the (what, mine, reference) pairs it compared
COMPONENT_CHECKS: list[tuple[str, Callable]] = [
    ("scaled_dot_product_attention vs torch SDPA", check_sdpa),
    ("MultiHeadAttention vs nn.MultiheadAttention", check_mha),
    ("EncoderLayer vs nn.TransformerEncoderLayer", check_encoder_layer),
    ("Transformer vs nn.Transformer", check_transformer),
    ("BertForPreTraining vs HF BertForPreTraining", check_bert),
    ("BertForSequenceClassification vs HF", check_bert_sequence),
    ("BertForTokenClassification vs HF", check_bert_token),
    ("BertForQuestionAnswering vs HF", check_bert_span),
    ("ViT vs HF ViTForImageClassification", check_vit),
    ("GPT vs HF GPT2LMHeadModel", check_gpt),
    ("Electra vs HF ElectraForPreTraining/MaskedLM", check_electra),
    ("AlbertForPreTraining vs HF AlbertForPreTraining", check_albert),
]


def _run_component(name: str, check: Callable) -> CheckResult:
    try:
        with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's notes about its nested-tensor fast path
            pairs, detail = check()
            diff = _largest_difference(pairs)
    except _Skip as reason:
        return CheckResult(name, "skip", None, ATOL, str(reason))
    except Exception as err:  # any error is a failed row, not a traceback
        return CheckResult(name, "fail", None, ATOL, _one_line(err))
    status = "pass" if diff <= ATOL else "fail"
    return CheckResult(name, status, diff, ATOL, detail)


# ---------------------------------------------------------------------------------------------
# shipped checkpoints


def _example_inputs(kind: str, config: dict, batch: int) -> tuple[tuple, tuple[int, ...]]:
    """Fixed inputs for one forward pass of a shipped model, and the shape of its logits."""
    g = torch.Generator().manual_seed(0)
    if kind == "ViT":
        c = ViTConfig.from_dict(config)
        h, w = as_pair("image_size", c.image_size)
        return (torch.rand(batch, c.num_channels, h, w, generator=g),), (batch, c.num_classes)
    if kind == "GPT":
        ids = torch.randint(0, config["vocab_size"], (batch, 12), generator=g)
        return (ids,), (batch, 12, config["vocab_size"])
    if kind.startswith("Bert") or kind in ("CausalLM", "Electra", "AlbertForPreTraining"):
        ids = torch.randint(5, config["vocab_size"], (batch, 12), generator=g)
        segments = (torch.arange(12) >= 6).long().expand(batch, 12)
        shape = {  # the first output: MLM logits, class logits per sequence or position, start
            "BertForSequenceClassification": (batch, config.get("num_labels", 2)),
            "BertForTokenClassification": (batch, 12, config.get("num_labels", 2)),
            "BertForQuestionAnswering": (batch, 12),
            "Electra": (batch, 12),  # the discriminator's "replaced" logits
        }.get(kind, (batch, 12, config["vocab_size"]))
        return (ids, segments), shape
    if kind == "Captioner":  # lecture 09a: images (B, 1, S, S) and the caption so far
        size = config["image_size"]
        tgt = torch.randint(3, config["vocab_size"], (batch, 7), generator=g)
        images = torch.rand(batch, 1, size, size, generator=g)
        return (images, tgt), (batch, 7, config["vocab_size"])
    if kind == "UniversalTransformer":  # lecture 11b: token ids (B, T), a class per token
        ids = torch.randint(0, config["vocab_size"], (batch, 12), generator=g)
        return (ids,), (batch, 12, config["num_classes"])
    # the translation models: Seq2Seq (src, src_len, tgt_in) and Transformer (src, tgt_in)
    src = torch.randint(4, config["src_vocab_size"], (batch, 9), generator=g)
    tgt = torch.randint(4, config["tgt_vocab_size"], (batch, 7), generator=g)
    if kind == "Seq2Seq":
        return (src, torch.full((batch,), 9), tgt), (batch, 7, config["tgt_vocab_size"])
    return (src, tgt), (batch, 7, config["tgt_vocab_size"])


def _logits(output: object) -> torch.Tensor:
    """The logits of a model's output: the first tensor (MLM logits for BERT, the start logits
    of a question-answering head)."""
    first = output[0] if isinstance(output, tuple) else output
    if not isinstance(first, torch.Tensor):
        raise _Fail(f"the forward pass gave {type(first).__name__}, not a tensor of logits")
    return first


def _check_checkpoint(name: str) -> CheckResult:
    row = f"checkpoint {name}"
    try:
        with torch.random.fork_rng(devices=[]):
            info = shipped_info(name)  # the store refuses a file whose sha256 differs
            digest = sha256_of(info.file)
            listed = read_manifest().get(info.file.name)  # the store's own data directory
            if digest != listed:
                raise _Fail(
                    f"sha256 {digest[:12]}... but the MANIFEST lists "
                    f"{(listed or 'nothing')[:12]}..."
                )
            model = load_shipped(name)
            inputs, shape = _example_inputs(info.model, info.config, batch=2)
            with torch.no_grad():
                logits = _logits(model(*inputs))
            if tuple(logits.shape) != shape:
                raise _Fail(f"logits of shape {tuple(logits.shape)}, expected {shape}")
            if not torch.isfinite(logits).all():
                raise _Fail("the forward pass gave NaN or infinite logits")
    except Exception as err:
        return CheckResult(row, "fail", None, None, _one_line(err))
    detail = f"sha256 {digest[:12]} = MANIFEST; {info.model} forward: logits {shape}, finite"
    return CheckResult(row, "pass", None, None, detail)


# ---------------------------------------------------------------------------------------------
# the offline rule


def _loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).rstrip(".").lower()
    if host in ("localhost", "") or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


class NetworkRecorder:
    """While active (a context manager), every connection to another machine and every host
    name look-up from Python's ``socket`` module is refused (``OSError``) and recorded in
    ``attempts``; loopback and Unix sockets stay allowed. Nothing is ever sent."""

    _METHODS = ("connect", "connect_ex", "sendto", "sendmsg")
    _LOOKUPS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr")

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._saved: dict[str, object] = {}

    def _refuse(self, op: str, destination: str) -> OSError:
        self.attempts.append(f"{op} {destination}")
        return OSError(f"lecturekit.verify: refused {op} to {destination} (offline rule)")

    def _method(self, name: str, original: Callable) -> Callable:
        recorder = self

        def guarded(sock: socket.socket, *args: object, **kwargs: object) -> object:
            address = args[-1] if name in ("connect", "connect_ex", "sendto") and args else None
            if name == "sendmsg" and len(args) >= 4:
                address = args[3]
            if (
                sock.family in (socket.AF_INET, socket.AF_INET6)
                and isinstance(address, tuple)
                and address
                and not _loopback(address[0])
            ):
                raise recorder._refuse(name, f"{address[0]}:{address[1]}")
            return original(sock, *args, **kwargs)

        return guarded

    def _lookup(self, name: str, original: Callable) -> Callable:
        recorder = self

        def guarded(host: object, *args: object, **kwargs: object) -> object:
            if host is not None and not _loopback(host):
                raise recorder._refuse(name, f"{host!s} (name look-up)")
            return original(host, *args, **kwargs)

        return guarded

    def __enter__(self) -> NetworkRecorder:
        for name in self._METHODS:
            self._saved[name] = getattr(socket.socket, name)
            setattr(socket.socket, name, self._method(name, self._saved[name]))
        for name in self._LOOKUPS:
            self._saved[name] = getattr(socket, name)
            setattr(socket, name, self._lookup(name, self._saved[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for name in self._METHODS:
            setattr(socket.socket, name, self._saved[name])
        for name in self._LOOKUPS:
            setattr(socket, name, self._saved[name])


def _check_offline_flags() -> CheckResult:
    """The Hugging Face offline flags are on in the environment and, if huggingface_hub is
    loaded, in the value it read when it was first imported."""
    row = "offline: Hugging Face offline flags"
    off = [
        f"{flag}={os.environ[flag]!r}" if flag in os.environ else f"{flag} unset"
        for flag in OFFLINE_FLAGS
        if os.environ.get(flag, "").strip().lower() not in _TRUE
    ]
    hub = sys.modules.get("huggingface_hub.constants")
    if hub is not None and getattr(hub, "HF_HUB_OFFLINE", True) is not True:
        off.append("huggingface_hub read HF_HUB_OFFLINE as off")
    if off:
        hint = (
            "; import lecturekit sets them to 1 unless already set (unset them, or set them to 1,"
            " before Python starts)"
        )
        return CheckResult(row, "fail", None, None, "not offline: " + ", ".join(off) + hint)
    return CheckResult(row, "pass", None, None, ", ".join(f"{f}=1" for f in OFFLINE_FLAGS))


def _check_no_network(recorder: NetworkRecorder) -> CheckResult:
    row = "offline: no network access by any check"
    if recorder.attempts:
        more = f" and {len(recorder.attempts) - 3} more" if len(recorder.attempts) > 3 else ""
        return CheckResult(
            row, "fail", None, None, "refused: " + "; ".join(recorder.attempts[:3]) + more
        )
    return CheckResult(row, "pass", None, None, "no connection or name look-up attempted")


# ---------------------------------------------------------------------------------------------
# running and printing


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if isinstance(err, (_Fail, _Skip)) else f"{type(err).__name__}: {text}"


def run_checks() -> list[CheckResult]:
    """Run every check (components, shipped checkpoints, the offline rule), in table order."""
    results = []
    with NetworkRecorder() as recorder:
        results += [_run_component(name, check) for name, check in COMPONENT_CHECKS]
        try:
            names = shipped_names()
            problem = "" if names else "the MANIFEST lists no checkpoints"
        except Exception as err:  # e.g. an installed copy without its data
            names, problem = [], _one_line(err)
        if problem:
            results.append(CheckResult("shipped checkpoints", "fail", None, None, problem))
        results += [_check_checkpoint(name) for name in names]
    results.append(_check_offline_flags())
    results.append(_check_no_network(recorder))
    return results


def _marks(stream: object) -> dict[str, str]:
    """✓ / ✗, or ok / FAIL where the console cannot print them (e.g. a Windows code page)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "✓✗".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return {"pass": "ok", "fail": "FAIL", "skip": "skipped"}
    return {"pass": "✓", "fail": "✗", "skip": "skipped"}


def format_table(results: Sequence[CheckResult], marks: dict[str, str] | None = None) -> str:
    """The table: check, result, largest absolute difference, tolerance, detail."""
    marks = marks or {"pass": "✓", "fail": "✗", "skip": "skipped"}
    header = ("check", "result", "max |diff|", "tolerance", "detail")
    rows = [
        (
            r.name,
            marks[r.status],
            "-" if r.diff is None else f"{r.diff:.1e}",
            "-" if r.tol is None else f"{r.tol:.0e}",
            r.detail,
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = []
    for row in [header, *rows]:
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].rjust(widths[3]),
            row[4],
        ]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths) + "  ------")
    return "\n".join(lines)


def _summary(results: Sequence[CheckResult], seconds: float) -> str:
    counts = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "skip")}
    verdict = "FAILED" if counts["fail"] else "all good"
    return (
        f"{len(results)} checks: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['skip']} skipped in {seconds:.1f} s: {verdict}"
    )


def _versions(threads: int) -> str:
    try:
        from importlib.metadata import version

        hf = f"transformers {version('transformers')}"
    except Exception:
        hf = "transformers not installed"
    return (
        f"lecturekit {lecturekit.__version__} self-check (torch {torch.__version__}, {hf}, "
        f"Python {sys.version.split()[0]}, {threads} thread{'s' * (threads != 1)})"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lecturekit.verify",
        description="Check this machine: every from-scratch component against its reference, "
        "every shipped checkpoint (sha256 and one forward pass), the offline rule. Exit status "
        "0 when every check passes (or is skipped), 1 when one fails.",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument(
        "--quiet", action="store_true", help="print only failed checks and the summary line"
    )
    return parser


@contextlib.contextmanager
def _torch_threads(threads: int) -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not 1 <= args.threads <= 1024:
        parser.error(f"--threads must be in 1..1024, got {args.threads}")
    start = time.perf_counter()
    with _torch_threads(args.threads):
        results = run_checks()
    marks = _marks(sys.stdout)
    failed = [r for r in results if r.status == "fail"]
    if not args.quiet:
        print(_versions(args.threads) + "\n")
        print(format_table(results, marks) + "\n")
    elif failed:
        print(format_table(failed, marks))
    print(_summary(results, time.perf_counter() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
