"""One convention for every full model's config: frozen; the defaults are the paper's model,
``tiny()`` the lecture's; ``to_dict`` / ``from_dict`` round trip; unknown fields are refused."""

import dataclasses

import pytest
import torch

from lecturekit.datasets.stories import CORPUS
from lecturekit.datasets.translation import default_data
from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.causal_lm import CausalLM
from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig
from lecturekit.utils.config import ModelConfig

CONFIGS = [Seq2SeqConfig, TransformerConfig, BertConfig, ViTConfig]
# the papers' models, as their configs' defaults describe them (parameters of the model class)
PAPER = {
    Seq2SeqConfig: {"emb_dim": 620, "hidden_dim": 1000, "src_vocab_size": 30000,
                    "attention": "additive"},
    TransformerConfig: {"d_model": 512, "num_heads": 8, "num_layers": 6, "d_ff": 2048},
    BertConfig: {"hidden_size": 768, "num_layers": 12, "num_heads": 12,
                 "intermediate_size": 3072, "vocab_size": 30522, "max_position": 512},
    ViTConfig: {"d_model": 768, "num_layers": 12, "num_heads": 12, "d_ff": 3072,
                "image_size": 224, "patch_size": 16, "num_classes": 1000},
}  # fmt: skip


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_defaults_are_the_paper_and_tiny_the_lecture(cls):
    assert issubclass(cls, ModelConfig) and dataclasses.is_dataclass(cls)
    paper, tiny = cls(), cls.tiny()
    assert {k: getattr(paper, k) for k in PAPER[cls]} == PAPER[cls]
    assert tiny != paper and all(getattr(tiny, k) == v for k, v in cls.TINY.items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        tiny.num_layers = 3  # frozen


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_dict_round_trip_and_unknown_fields(cls):
    tiny = cls.tiny()
    assert cls.from_dict(tiny.to_dict()) == tiny
    assert cls.from_dict({}) == cls()  # missing fields take the defaults
    for call in (lambda: cls.tiny(width=3), lambda: cls.from_dict({"width": 3}),
                 lambda: tiny.replace(width=3)):  # fmt: skip
        with pytest.raises(ValueError, match=rf"unknown field\(s\) \['width'\] for {cls.__name__}"):
            call()
    with pytest.raises(ValueError, match=f"values must be a mapping of {cls.__name__} fields"):
        cls.from_dict([("a", 1)])


def test_the_tiny_vocabularies_are_the_toy_tasks():
    data = default_data()
    for cls in (Seq2SeqConfig, TransformerConfig):
        tiny = cls.tiny()
        assert (tiny.src_vocab_size, tiny.tgt_vocab_size) == (len(data.src_vocab),
                                                              len(data.tgt_vocab))  # fmt: skip
    assert BertConfig.tiny().vocab_size == CORPUS["vocab_size"]


def test_the_lectures_parameter_counts():
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(Transformer(TransformerConfig.tiny())) == 391_556
    assert count(BertForPreTraining(BertConfig.tiny())) == 142_148
    assert count(ViT(ViTConfig.tiny())) == 69_194
    assert count(CausalLM(BertConfig.tiny())) < count(BertForPreTraining(BertConfig.tiny()))
    sizes = {name: count(Seq2Seq(Seq2SeqConfig.tiny(attention=name)))
             for name in (None, "dot", "general", "additive")}  # fmt: skip
    assert sizes == {None: 299_396, "dot": 373_316, "general": 410_180, "additive": 447_236}


@pytest.mark.parametrize(
    ("model", "config"),
    [(Seq2Seq, BertConfig.tiny()), (Transformer, {"d_model": 8}), (BertForPreTraining, None),
     (CausalLM, ViTConfig.tiny()), (ViT, "tiny")],
)  # fmt: skip
def test_models_refuse_what_is_not_their_config(model, config):
    with pytest.raises(ValueError, match="config must be a"):
        model(config)


def test_special_token_ids_must_be_in_the_vocabulary():
    with pytest.raises(ValueError, match=r"pad_id must be an integer in 0\.\.45, got 50"):
        TransformerConfig.tiny(pad_id=50)
    with pytest.raises(ValueError, match=r"eos_id must be an integer in 0\.\.45, got -1"):
        Seq2SeqConfig.tiny(eos_id=-1)
    with pytest.raises(ValueError, match=r"pad_id must be an integer in 0\.\.449, got 450"):
        BertConfig.tiny(pad_id=450)
    model = Seq2Seq(Seq2SeqConfig.tiny(emb_dim=4, hidden_dim=6, pad_id=3)).eval()
    assert model.encoder.embedding.padding_idx == 3
    assert torch.equal(model.encoder.embedding.weight[3], torch.zeros(4))
