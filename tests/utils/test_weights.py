"""lecturekit.utils.weights: every weight map covers every tensor on both sides (no tensor of
ours left as initialised unless the map says so), and load_mapped checks everything before it
copies anything."""

import pytest
import torch
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.layers import Decoder, DecoderLayer, Encoder, EncoderLayer
from lecturekit.models.transformer import Transformer, TransformerConfig
from lecturekit.utils.weights import (
    HF_MAPS,
    TORCH_MAPS,
    Source,
    conv1d,
    load_mapped,
    load_torch_attention,
    mapped_state_dict,
    nested,
)

D, H, FF = 16, 4, 24


def _perturbed(module):
    """``module`` in eval mode with every parameter moved off its initial value (LayerNorms
    start at 1 and 0, biases at 0)."""
    with torch.no_grad():
        for param in module.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    return module.eval()


@pytest.mark.parametrize("bias", [True, False])
def test_load_torch_attention_gives_torchs_outputs(bias):
    torch.manual_seed(0)
    ref = _perturbed(nn.MultiheadAttention(D, H, bias=bias, batch_first=True))
    mha = MultiHeadAttention(D, H, bias=bias).eval()
    assert load_torch_attention(mha, ref) is mha
    q, kv = torch.randn(3, 5, D), torch.randn(3, 7, D)
    lengths = torch.tensor([7, 4, 2])
    pad = torch.arange(7)[None] >= lengths[:, None]  # (B, S) torch's: True = padding
    with torch.no_grad():
        out, weights = mha(q, kv, kv, mask=~pad[:, None, None, :])  # ours: True = may attend
        ref_out, ref_weights = ref(q, kv, kv, key_padding_mask=pad, average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(weights, ref_weights, atol=1e-5, rtol=0)


def _torch_pairs():
    """(ours, the torch module of the same settings, ours' tensors the map keeps)."""
    layer = dict(dim_feedforward=FF, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoderLayer(D, H, **layer)
    dec = nn.TransformerDecoderLayer(D, H, norm_first=True, **layer)
    config = TransformerConfig(11, 13, d_model=D, num_heads=H, num_layers=2, d_ff=FF,
                               final_norm=True)  # fmt: skip
    kept = {"src_embed.weight", "tgt_embed.weight", "generator.weight", "generator.bias"}
    return [
        (MultiHeadAttention(D, H), nn.MultiheadAttention(D, H, batch_first=True), set()),
        (EncoderLayer(D, H, FF), enc, set()),
        (DecoderLayer(D, H, FF, norm_first=True), dec, set()),
        (Encoder(2, D, H, FF, final_norm=True),
         nn.TransformerEncoder(enc, 2, norm=nn.LayerNorm(D), enable_nested_tensor=False), set()),
        (Decoder(3, D, H, FF, norm_first=True), nn.TransformerDecoder(dec, 3, nn.LayerNorm(D)),
         set()),
        (Transformer(config), nn.Transformer(D, H, 2, 2, FF, dropout=0.0, batch_first=True), kept),
    ]  # fmt: skip


@pytest.mark.parametrize("ours, ref, kept", _torch_pairs(), ids=lambda x: type(x).__name__)
def test_every_torch_map_covers_every_tensor_of_both(ours, ref, kept):
    """The map read both ways: torch's tensors in our names are exactly ours but the kept
    ones, and load_from_torch copies each of them."""
    torch.manual_seed(0)
    _perturbed(ref)
    mapped = mapped_state_dict(ref.state_dict(), TORCH_MAPS[type(ref)])
    assert mapped.keys() == ours.state_dict().keys() - kept
    before = {k: v.clone() for k, v in ours.state_dict().items()}
    ours.load_from_torch(ref)
    mine = ours.state_dict()
    assert all(torch.equal(mine[k], v) for k, v in mapped.items())
    assert all(torch.equal(mine[k], before[k]) for k in kept)


def _hf_cases():
    """(transformers class, its config, lecturekit's class, ours' tensors the map keeps)."""
    transformers = pytest.importorskip("transformers")
    from lecturekit.models.albert import AlbertForPreTraining
    from lecturekit.models.bert import BertForPreTraining
    from lecturekit.models.bert_tasks import (
        BertForQuestionAnswering,
        BertForSequenceClassification,
        BertForTokenClassification,
    )
    from lecturekit.models.electra import ElectraDiscriminator, ElectraGenerator
    from lecturekit.models.gpt import GPT
    from lecturekit.models.vit import ViT

    sizes = dict(vocab_size=40, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=24, max_position_embeddings=12, attn_implementation="eager")  # fmt: skip
    gpt = dict(vocab_size=40, n_positions=12, n_embd=16, n_layer=2, n_head=4, bos_token_id=0,
               eos_token_id=0)  # fmt: skip
    vit = dict(image_size=8, patch_size=2, num_channels=1, hidden_size=16, num_hidden_layers=2,
               num_attention_heads=4, intermediate_size=24, num_labels=3, qkv_bias=False)  # fmt: skip
    bert, pooler = transformers.BertConfig, {"bert.pooler.weight", "bert.pooler.bias"}
    electra, albert = transformers.ElectraConfig, transformers.AlbertConfig
    return [
        ("BertForPreTraining", bert(**sizes), BertForPreTraining, set()),
        ("BertForSequenceClassification", bert(**sizes, num_labels=3),
         BertForSequenceClassification, set()),
        ("BertForTokenClassification", bert(**sizes, num_labels=3), BertForTokenClassification,
         pooler),
        ("BertForQuestionAnswering", bert(**sizes), BertForQuestionAnswering, pooler),
        ("ElectraForPreTraining", electra(**sizes, embedding_size=16), ElectraDiscriminator,
         pooler),
        ("ElectraForMaskedLM", electra(**sizes, embedding_size=8), ElectraGenerator, set()),
        ("AlbertForPreTraining", albert(**sizes, embedding_size=8, hidden_act="gelu"),
         AlbertForPreTraining, set()),
        ("AlbertForPreTraining", albert(**sizes, embedding_size=8, hidden_act="gelu",
                                        num_hidden_groups=2), AlbertForPreTraining, set()),
        ("GPT2LMHeadModel", transformers.GPT2Config(**gpt), GPT, set()),
        ("OpenAIGPTLMHeadModel", transformers.OpenAIGPTConfig(**gpt), GPT, set()),
        ("ViTForImageClassification", transformers.ViTConfig(**vit), ViT, set()),
    ]  # fmt: skip


@pytest.mark.parametrize("case", range(11))
def test_every_hf_map_covers_every_tensor_of_both(case):
    """The map read both ways: Hugging Face's tensors in our names are exactly ours but the
    kept ones (a pooler Hugging Face's head does not have), and from_hf copies each of them."""
    import transformers

    name, config, ours_cls, kept = _hf_cases()[case]
    torch.manual_seed(0)
    hf = _perturbed(getattr(transformers, name)(config))
    mapped = mapped_state_dict(hf.state_dict(), HF_MAPS[name])
    ours = ours_cls.from_hf(hf)
    assert mapped.keys() == ours.state_dict().keys() - kept
    mine = ours.state_dict()
    assert all(torch.equal(mine[k], v) for k, v in mapped.items())


def test_hf_cases_are_all_run():
    assert len(_hf_cases()) == 11
    assert {name for name, *_ in _hf_cases()} == set(HF_MAPS)


class _Ours(nn.Module):
    def __init__(self, out=2, eps=1e-5):
        super().__init__()
        self.embed = nn.Embedding(5, 3)
        self.lin = nn.Linear(3, out)
        self.norm = nn.LayerNorm(out, eps=eps)


class _Theirs(nn.Module):
    def __init__(self, eps=1e-5, extra=False):
        super().__init__()
        self.words = nn.Embedding(5, 3)
        self.proj = nn.Linear(3, 2)
        self.ln = nn.LayerNorm(2, eps=eps)
        self.head = nn.Linear(3, 5, bias=False)
        self.head.weight = self.words.weight  # tied: one parameter, two names
        if extra:
            self.other = nn.Linear(2, 2)


TABLE = {"embed": "words", "lin": "proj", "norm": "ln"}


def test_load_mapped_copies_by_the_table_and_reads_a_tied_parameter_once():
    torch.manual_seed(0)
    ours, theirs = _Ours(), _perturbed(_Theirs())
    assert load_mapped(ours, theirs, TABLE, "theirs") is ours
    assert torch.equal(ours.embed.weight, theirs.words.weight)
    assert torch.equal(ours.lin.bias, theirs.proj.bias)
    assert torch.equal(ours.norm.weight, theirs.ln.weight)


@pytest.mark.parametrize(
    "ours, theirs, table, match",
    [
        (_Ours(out=4), _Theirs(), TABLE,
         r"theirs's proj\.weight has shape \(2, 3\), ours lin\.weight \(4, 3\): a shape mismatch"),
        (_Ours(eps=1e-6), _Theirs(), TABLE,
         r"theirs's ln\.weight has eps=1e-05, ours norm\.weight eps=1e-06"),
        (_Ours(), _Theirs().double(), TABLE,
         r"theirs's words\.weight has dtype torch\.float64, ours embed\.weight torch\.float32"),
        (_Ours(), _Theirs(extra=True), TABLE, r"theirs's other\.weight has no place in ours"),
        (_Ours(), _Theirs(), {**TABLE, "lin": "project"},
         r"theirs has no project\.weight \(for ours lin\.weight\)"),
        (_Ours(), _Theirs(), {"embed": "words", "norm": "ln"},
         r"the weight map has no entry for ours lin\.weight"),
        (_Ours(), _Theirs(), {**TABLE, "lin": None}, r"theirs's proj\.weight has no place in ours"),
        (nn.Linear(3, 2, bias=False), nn.Linear(3, 2), {"weight": "weight", "bias": "bias"},
         r"theirs's bias has no place in ours \(no bias\)"),
    ],
)  # fmt: skip
def test_load_mapped_names_the_first_difference_and_copies_nothing(ours, theirs, table, match):
    torch.manual_seed(0)
    _perturbed(theirs)
    before = {k: v.clone() for k, v in ours.state_dict().items()}
    with pytest.raises(ValueError, match=match):
        load_mapped(ours, theirs, table, "theirs")
    assert all(torch.equal(before[k], v) for k, v in ours.state_dict().items())


def test_a_none_entry_keeps_ours():
    torch.manual_seed(0)
    ours, theirs = _Ours(), _perturbed(nn.Linear(3, 2))
    kept = ours.embed.weight.detach().clone()
    table = {"lin.weight": "weight", "lin.bias": "bias", "embed": None, "norm": None}
    load_mapped(ours, theirs, table, "t")
    assert torch.equal(ours.embed.weight, kept) and torch.equal(ours.lin.weight, theirs.weight)


def test_transforms_read_fused_transposed_and_flattened_tensors():
    """A Conv1D-style fused (in, 2 out) weight read as two Linears; a patch Conv2d's kernel
    read as a Linear over flattened patches."""
    torch.manual_seed(0)
    fused = nn.ParameterDict({"weight": nn.Parameter(torch.randn(3, 4)),
                              "bias": nn.Parameter(torch.randn(4))})  # fmt: skip
    theirs = nn.Module()
    theirs.c = fused
    ours = nn.ModuleDict({"a": nn.Linear(3, 2), "b": nn.Linear(3, 2)})
    load_mapped(ours, theirs, {"a": conv1d("c", (0, 2)), "b": conv1d("c", (1, 2))}, "t")
    x = torch.randn(5, 3)
    y = x @ fused["weight"] + fused["bias"]  # y = x W + b, W (in, out)
    torch.testing.assert_close(torch.cat([ours["a"](x), ours["b"](x)], -1), y)
    conv, linear = nn.Conv2d(2, 4, 3, stride=3), nn.Linear(2 * 3 * 3, 4)
    load_mapped(linear, conv, {"weight": Source("weight", flatten=True), "bias": "bias"}, "t")
    patch = torch.randn(1, 2, 3, 3)
    torch.testing.assert_close(linear(patch.flatten(1)), conv(patch).flatten(1))


def test_nested_moves_both_sides_and_the_layer_index_follows():
    table = nested("layers.{i}", "h.{i}", {"w_q": conv1d("attn.c_attn", (0, 3)), "norm": "ln"})
    assert table == {"layers.{i}.w_q": conv1d("h.{i}.attn.c_attn", (0, 3)),
                     "layers.{i}.norm": "h.{i}.ln"}  # fmt: skip
    theirs = {f"h.{i}.ln.weight": torch.full((2,), float(i)) for i in range(3)}
    mapped = mapped_state_dict(theirs, {"layers.{i}.norm": "h.{i}.ln"})
    assert {k: v[0].item() for k, v in mapped.items()} == {
        "layers.0.norm.weight": 0.0, "layers.1.norm.weight": 1.0, "layers.2.norm.weight": 2.0}  # fmt: skip
    renamed = mapped_state_dict({"old.0.x": torch.ones(1)}, {"y.{i}": "new.{i}"},
                                [(r"^old\.", "new.")])  # fmt: skip
    assert list(renamed) == ["y.0.x"]
