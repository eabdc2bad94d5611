"""Bad inputs to lecturekit.utils (issue 15): config and weights helpers.

Each gets a clear ValueError naming the argument.
"""

from bad_inputs import Bad, assert_clear_error, bad_rows
from torch import nn

from lecturekit.models.bert import BertConfig
from lecturekit.models.transformer import TransformerConfig
from lecturekit.utils.weights import load_mapped, mapped_state_dict

LIN = (nn.Linear(3, 2), nn.Linear(3, 2))
MAP = {"weight": "weight", "bias": "bias"}

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
    Bad("weights.load_mapped: a state dict for theirs", "type",
        lambda: load_mapped(LIN[0], LIN[1].state_dict(), MAP, "torch_linear"),
        ["torch_linear", "Module", "OrderedDict"]),
    Bad("weights.load_mapped: a state dict for ours", "type",
        lambda: load_mapped(LIN[0].state_dict(), LIN[1], MAP), ["ours", "Module"]),
    Bad("weights.load_mapped: a list for table", "type",
        lambda: load_mapped(*LIN, list(MAP)), ["table", "list"]),
    Bad("weights.load_mapped: a module in the table", "type",
        lambda: load_mapped(*LIN, {"weight": LIN[1]}), ["table", "Linear"]),
    Bad("weights.mapped_state_dict: a module for theirs", "type",
        lambda: mapped_state_dict(LIN[1], MAP), ["theirs", "Mapping"]),
    Bad("weights.load_mapped: LayerNorm eps differs", "copy",
        lambda: load_mapped(nn.LayerNorm(4), nn.LayerNorm(4, eps=1e-12), MAP, "ref"),
        ["ref's weight", "eps=1e-12", "eps=1e-05"]),
    Bad("weights.load_mapped: weight shapes differ", "copy",
        lambda: load_mapped(LIN[0], nn.Linear(4, 2), MAP, "ref"),
        ["ref's weight", "(2, 4)", "(2, 3)"]),
    Bad("weights.load_mapped: bias present in theirs only", "copy",
        lambda: load_mapped(nn.Linear(3, 2, bias=False), LIN[1], MAP, "ref"),
        ["ref's bias", "no place"]),
    Bad("weights.load_mapped: bias present in ours only", "copy",
        lambda: load_mapped(LIN[0], nn.Linear(3, 2, bias=False), MAP, "ref"),
        ["ref has no bias", "ours bias"]),
    Bad("weights.load_mapped: float64 reference", "dtype",
        lambda: load_mapped(LIN[0], nn.Linear(3, 2).double(), MAP, "ref"),
        ["ref's weight", "float64", "float32"]),
]  # fmt: skip


@bad_rows(ROWS)
def test_bad_input(bad):
    assert_clear_error(bad)
