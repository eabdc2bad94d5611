"""lecturekit.models.size: parameter counts computed from configs, equal to Hugging Face's."""

import time

import pytest
import torch
import transformers

from lecturekit.models.bert import BertConfig, BertModel
from lecturekit.models.gpt import GPT, GPT2_SIZES, GPTConfig
from lecturekit.models.size import parameter_count
from lecturekit.models.transformer import TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig


def _hf_count(model_class, config):
    """Parameters of a Hugging Face model built on the meta device (a tied weight once)."""
    with torch.device("meta"):
        model = model_class(config)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("size", list(GPT2_SIZES))
def test_gpt2_counts_equal_hugging_faces(size):
    layers, width, heads = GPT2_SIZES[size]
    hf = transformers.GPT2Config(n_layer=layers, n_embd=width, n_head=heads)
    assert parameter_count(GPTConfig.gpt2(size)) == _hf_count(transformers.GPT2LMHeadModel, hf)


def test_gpt1_and_bert_counts_equal_hugging_faces():
    assert parameter_count(GPTConfig.gpt1()) == _hf_count(
        transformers.OpenAIGPTLMHeadModel, transformers.OpenAIGPTConfig()
    )
    assert parameter_count(BertConfig()) == _hf_count(transformers.BertModel,
                                                      transformers.BertConfig())  # fmt: skip
    large = transformers.BertConfig(hidden_size=1024, num_hidden_layers=24,
                                    num_attention_heads=16, intermediate_size=4096)  # fmt: skip
    assert parameter_count(BertConfig.large()) == _hf_count(transformers.BertModel, large)


@pytest.mark.parametrize(
    "config, published",
    [
        (GPTConfig.gpt1(), 117e6),  # Radford et al. 2018 (as quoted by GPT-2's table 2)
        (GPTConfig.gpt2("xl"), 1542e6),  # Radford et al. 2019 table 2 ("1.5 B")
        (GPTConfig.gpt3(), 175.0e9),  # Brown et al. 2020 table 2.1
        (BertConfig(), 110e6),  # Devlin et al. 2019 section 3
        (BertConfig.large(), 340e6),
    ],
    ids=["gpt1", "gpt2-xl", "gpt3", "bert-base", "bert-large"],
)
def test_the_counts_are_the_published_magnitudes(config, published):
    assert abs(parameter_count(config) / published - 1) < 0.02


def test_gpt3_is_built_on_the_meta_device_in_seconds():
    start = time.perf_counter()
    count = parameter_count(GPTConfig.gpt3())
    assert count == 174_604_259_328 and time.perf_counter() - start < 10


def test_a_module_is_counted_as_it_is_tied_weights_once():
    model = GPT(GPTConfig.tiny())
    assert parameter_count(model) == sum(p.numel() for p in model.state_dict().values())
    assert parameter_count(model) == parameter_count(GPTConfig.tiny())
    shared = torch.nn.Linear(3, 3)
    assert parameter_count(torch.nn.Sequential(shared, shared)) == 12
    assert parameter_count(ViTConfig.tiny()) == parameter_count(ViT(ViTConfig.tiny())) == 69194
    assert parameter_count(BertConfig.tiny()) == parameter_count(BertModel(BertConfig.tiny()))
    assert parameter_count(TransformerConfig.tiny()) > 0


@pytest.mark.parametrize(
    "value, match",
    [
        (
            {"vocab_size": 5},
            r"config must be one of \['GPTConfig', 'BertConfig', .*got dict "
            r"\(build it first",
        ),
        ("gpt3", r"config must be one of .* or an nn.Module, got str"),
    ],
)
def test_anything_else_is_refused(value, match):
    with pytest.raises(ValueError, match=match):
        parameter_count(value)
