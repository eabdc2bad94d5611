"""How many parameters a model of a config has, computed by building it, never typed in.

The model is built on PyTorch's ``meta`` device: its tensors have shapes but no storage, so
even GPT-3's 175 billion parameters cost no memory and about a second.

Public API::

    parameter_count(GPTConfig.gpt3())     # 174,604,259,328 (GPT-3, "175 B")
    parameter_count(config)               # GPTConfig -> GPT, BertConfig -> BertModel (the
                                          # encoder with its pooler: BERT-base's "110 M"),
                                          # TransformerConfig -> Transformer, ViTConfig -> ViT,
                                          # AlbertConfig -> AlbertForPreTraining (a shared
                                          # layer once), ElectraConfig -> Electra (both networks)
    parameter_count(model)                # any nn.Module: its parameters (a tied weight once)

Lectures 14 and 15 (GPT 117 M, GPT-2 1.5 B, GPT-3 175 B, BERT-base 110 M, BERT-large 340 M,
ALBERT-base 12 M).
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertModel
from lecturekit.models.electra import Electra, ElectraConfig
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.models.vit import ViT, ViTConfig

__all__ = ["MODELS_OF_CONFIGS", "parameter_count"]

# config class -> the model parameter_count builds (a subclass's config counts as its base's)
MODELS_OF_CONFIGS: dict[type, type[nn.Module]] = {
    GPTConfig: GPT,
    BertConfig: BertModel,
    TransformerConfig: Transformer,
    ViTConfig: ViT,
    AlbertConfig: AlbertForPreTraining,
    ElectraConfig: Electra,
}


def parameter_count(config: object) -> int:
    """The number of parameters of the model of ``config``, or of the module ``config``.

    Args:
        config: a GPTConfig (-> ``GPT``, output layer tied to the token embedding), BertConfig
            (-> ``BertModel``: embeddings, encoder, pooler; a subclass such as BertTaskConfig
            counts its encoder too), TransformerConfig (-> ``Transformer``), ViTConfig
            (-> ``ViT``), AlbertConfig (-> ``AlbertForPreTraining``, with its heads; a shared
            layer counts once) or ElectraConfig (-> ``Electra``: generator and discriminator,
            the shared embeddings once), built on the meta device (no memory, no
            initialisation cost); or an ``nn.Module``, counted as it is.

    Returns:
        The number of scalar parameters, each shared (tied) tensor counted once.

    Lectures 14 and 15.
    """
    if isinstance(config, nn.Module):
        module = config
    else:
        model_class = next((m for c, m in MODELS_OF_CONFIGS.items() if isinstance(config, c)), None)
        if model_class is None:
            names = [c.__name__ for c in MODELS_OF_CONFIGS]
            hint = " (build it first: GPTConfig(**d))" if isinstance(config, dict) else ""
            raise ValueError(
                f"config must be one of {names} or an nn.Module, got {type(config).__name__}{hint}"
            )
        with torch.device("meta"):
            module = model_class(config)
    # parameters() yields each tensor once, so a weight shared by two modules counts once
    return sum(p.numel() for p in module.parameters())
