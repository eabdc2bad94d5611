"""Bad inputs to lecturekit.utils (issue 15): config and weights helpers.

Each gets a clear ValueError naming the argument.
"""

from bad_inputs import Bad, assert_clear_error, bad_rows
from torch import nn

from lecturekit.models.bert import BertConfig
from lecturekit.models.transformer import TransformerConfig
from lecturekit.utils.weights import check_parameters, copy_parameters

LIN = (nn.Linear(3, 2), nn.Linear(3, 2))

ROWS = [
    # --- config ---
    Bad("config.ModelConfig.from_dict: a list of pairs", "type",
        lambda: TransformerConfig.from_dict([("d_model", 8)]), ["values", "mapping"]),
    Bad("config.ModelConfig.from_dict: a config", "type",
        lambda: TransformerConfig.from_dict(TransformerConfig.tiny()), ["values", "config"]),
    Bad("config.ModelConfig.from_dict: unknown and non-str keys", "type",
        lambda: BertConfig.from_dict({1: 2, "width": 3}), ["unknown field", "width"]),
    Bad("config.ModelConfig.tiny: unknown field", "type", lambda: BertConfig.tiny(hidden=8),
        ["unknown field", "hidden"]),
    Bad("config.ModelConfig.tiny: a dict given positionally", "type",
        lambda: TransformerConfig.tiny({"d_model": 8}), ["keywords", "**d"]),
    Bad("config.ModelConfig.replace: unknown field", "type",
        lambda: TransformerConfig.tiny().replace(width=3), ["unknown field", "width"]),
    Bad("config.ModelConfig.replace: a dict given positionally", "type",
        lambda: TransformerConfig.tiny().replace({"d_model": 8}), ["keywords", "**d"]),
    # --- weights ---
    Bad("weights.check_parameters: a single pair", "type", lambda: check_parameters(LIN),
        ["pairs", "single pair"]),
    Bad("weights.check_parameters: a module for pairs", "type",
        lambda: check_parameters(nn.Linear(3, 2)), "pairs"),
    Bad("weights.check_parameters: a pair of three", "type",
        lambda: check_parameters([(*LIN, LIN[0])]), "pairs[0]"),
    Bad("weights.check_parameters: a module without weight", "type",
        lambda: check_parameters([(nn.ReLU(), nn.ReLU())]), ["pairs[0]", "weight"]),
    Bad("weights.check_parameters: a Linear and an Embedding of one shape", "copy",
        lambda: check_parameters([(nn.Linear(2, 5, bias=False), nn.Embedding(5, 2))]),
        ["pair 0", "Linear"]),
    Bad("weights.copy_parameters: LayerNorm eps differs", "copy",
        lambda: copy_parameters([(nn.LayerNorm(4), nn.LayerNorm(4, eps=1e-12))]),
        ["pair 0", "eps"]),
    Bad("weights.copy_parameters: weight shapes differ", "copy",
        lambda: copy_parameters([LIN, (nn.Linear(3, 2), nn.Linear(4, 2))]),
        ["pair 1", "weight"]),
    Bad("weights.copy_parameters: bias present in one only", "copy",
        lambda: copy_parameters([(nn.Linear(3, 2), nn.Linear(3, 2, bias=False))]),
        ["pair 0", "bias"]),
    Bad("weights.copy_parameters: a string for pairs", "type",
        lambda: copy_parameters("linear"), "pairs"),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)


def test_copy_parameters_reads_a_generator_once():
    """A generator of pairs is checked and copied as the same pairs (it used to be used up by
    the check, so nothing was copied)."""
    import torch

    mine, theirs = nn.Linear(3, 2), nn.Linear(3, 2)
    copy_parameters((a, b) for a, b in [(mine, theirs)])
    assert torch.equal(mine.weight, theirs.weight) and torch.equal(mine.bias, theirs.bias)
