"""lecturekit.layers: encoder and decoder layers and stacks against torch.nn.Transformer*."""

import pytest
import torch
from torch import nn

from lecturekit.layers import Decoder, DecoderLayer, Encoder, EncoderLayer, PositionwiseFeedForward
from lecturekit.masking import causal_mask, combine_masks, key_padding_mask, padding_mask

D, H, FF = 16, 4, 32


pytestmark = [  # torch's own notes about its nested-tensor fast path, not about our code
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning"),
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"),
]


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, activation):
    torch.manual_seed(0)
    ref = torch.nn.TransformerEncoderLayer(
        16, 4, 32, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    ).eval()
    mine = EncoderLayer(16, 4, 32, activation=activation, norm_first=norm_first).load_from_torch(
        ref
    )
    x = torch.randn(3, 6, 16)
    out, weights = mine(x)
    torch.testing.assert_close(out, ref(x), atol=1e-5, rtol=0)
    assert weights.shape == (3, 4, 6, 6)

    out, _ = mine(x, causal_mask(6))
    torch.testing.assert_close(out, ref(x, src_mask=~causal_mask(6)), atol=1e-5, rtol=0)

    pad = padding_mask([6, 4, 2], 6)
    out, weights = mine(x, key_padding_mask(pad))
    with torch.no_grad():
        ref_out = ref(x, src_key_padding_mask=~pad)
    # torch's eval fast path may write anything at padded positions: compare real tokens only
    torch.testing.assert_close(out[pad], ref_out[pad], atol=1e-5, rtol=0)
    assert torch.all(weights[~pad[:, None, None, :].expand_as(weights)] == 0)


def test_post_norm_output_is_normalised_per_position():
    layer = EncoderLayer(16, 4, 32)
    out, _ = layer(torch.randn(2, 5, 16) * 10 + 3)
    torch.testing.assert_close(out.mean(-1), torch.zeros(2, 5), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.std(-1, unbiased=False), torch.ones(2, 5), atol=1e-3, rtol=0)


def test_encoder_returns_weights_of_every_layer():
    enc = Encoder(3, 16, 4, 32, norm_first=True)
    out, weights = enc(torch.randn(2, 5, 16))
    assert out.shape == (2, 5, 16) and len(weights) == 3
    assert all(w.shape == (2, 4, 5, 5) for w in weights)
    assert enc.final_norm is not None and Encoder(1, 16, 4, 32).final_norm is None


def test_feed_forward_is_position_wise():
    ffn = PositionwiseFeedForward(8, 16)
    x = torch.randn(1, 5, 8)
    torch.testing.assert_close(ffn(x)[0, 2], ffn(x[:, 2:3])[0, 0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="activation='tanh' is not one of"):
        PositionwiseFeedForward(8, 16, activation="tanh")
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        Encoder(0, 8, 2, 16)
    with pytest.raises(ValueError, match="d_model=10 is not divisible by num_heads=4"):
        EncoderLayer(10, 4, 16)
    layer = EncoderLayer(16, 4, 32)
    with pytest.raises(ValueError, match="norm_first"):
        layer.load_from_torch(torch.nn.TransformerEncoderLayer(16, 4, 32, norm_first=True))
    with pytest.raises(ValueError, match="shape mismatch"):
        layer.load_from_torch(torch.nn.TransformerEncoderLayer(16, 4, 64))
    with pytest.raises(ValueError, match=r"must be a torch\.nn\.TransformerEncoderLayer"):
        layer.load_from_torch(torch.nn.Linear(2, 2))


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    torch.manual_seed(0)
    ref = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True,
                                     norm_first=norm_first).eval()  # fmt: skip
    mine = DecoderLayer(D, H, FF, norm_first=norm_first).load_from_torch(ref)
    x, memory = torch.randn(3, 6, D), torch.randn(3, 7, D)
    src_pad, tgt_pad = padding_mask([7, 5, 3], 7), padding_mask([6, 4, 2], 6)
    self_mask = combine_masks(causal_mask(6), key_padding_mask(tgt_pad))  # (3, 1, 6, 6)
    out, w_self, w_cross = mine(x, memory, self_mask, key_padding_mask(src_pad))
    expected = ref(x, memory, tgt_mask=~causal_mask(6), tgt_key_padding_mask=~tgt_pad,
                   memory_key_padding_mask=~src_pad)  # fmt: skip
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=0)
    assert w_self.shape == (3, H, 6, 6) and w_cross.shape == (3, H, 6, 7)
    assert torch.all(w_self.triu(1) == 0)  # no weight on the future
    assert torch.all(w_cross[2, :, :, 3:] == 0)  # nor on the source padding
    torch.testing.assert_close(w_cross.sum(-1), torch.ones(3, H, 6))


def test_decoder_stack_matches_torch_with_and_without_final_norm():
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True)
    x, memory = torch.randn(2, 5, D), torch.randn(2, 4, D)
    for norm in (None, nn.LayerNorm(D)):
        ref = nn.TransformerDecoder(layer, 3, norm=norm).eval()
        mine = Decoder(3, D, H, FF, final_norm=norm is not None).load_from_torch(ref)
        out, w_self, w_cross = mine(x, memory, causal_mask(5))
        torch.testing.assert_close(out, ref(x, memory, tgt_mask=~causal_mask(5)), atol=1e-5,
                                   rtol=0)  # fmt: skip
        assert len(w_self) == len(w_cross) == 3


def test_encoder_final_norm_flag_keeps_the_old_default():
    assert Encoder(1, 8, 2, 16).final_norm is None
    assert Encoder(1, 8, 2, 16, norm_first=True).final_norm is not None
    assert Encoder(1, 8, 2, 16, final_norm=True).final_norm is not None
    assert Encoder(1, 8, 2, 16, norm_first=True, final_norm=False).final_norm is None


@pytest.mark.parametrize("norm_first", [False, True])
def test_sublayer_is_add_and_norm(norm_first):
    torch.manual_seed(0)
    layer = EncoderLayer(8, 2, 16, norm_first=norm_first).eval()
    x = torch.randn(2, 3, 8)
    double = lambda h: (2 * h, "aux")  # noqa: E731
    out, aux = layer.sublayer(1, x, double)
    expected = x + 2 * layer.norm1(x) if norm_first else layer.norm1(x + 2 * x)
    assert aux == "aux"
    torch.testing.assert_close(out, expected)
    with pytest.raises(ValueError, match=r"i must be a sublayer number in 1\.\.2, got 3"):
        layer.sublayer(3, x, double)


def test_load_from_torch_copies_matching_gelu_eps_pre_norm_stacks():
    """Every compared field matching (gelu, eps 1e-6, pre-norm): the copy equals torch."""
    torch.manual_seed(0)
    kwargs = {"activation": "gelu", "norm_first": True, "layer_norm_eps": 1e-6}
    layer = nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True, **kwargs)
    ref = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D, eps=1e-6),
                                enable_nested_tensor=False).eval()  # fmt: skip
    mine = Encoder(2, D, H, FF, **kwargs).load_from_torch(ref)
    x = torch.randn(2, 5, D)
    torch.testing.assert_close(mine(x)[0], ref(x), atol=1e-5, rtol=0)


@pytest.mark.parametrize(
    ("field", "value"),
    [("activation", "gelu"), ("layer_norm_eps", 1e-6), ("norm_first", True), ("bias", False)],
)
def test_load_from_torch_mismatch_copies_nothing(field, value):
    """A differing field: ValueError naming it and both values; no weight is changed, also
    not in the attention sublayers checked before the mismatch was found."""
    torch.manual_seed(0)
    mine = DecoderLayer(D, H, FF)
    before = {k: v.clone() for k, v in mine.state_dict().items()}
    ref = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True, **{field: value})
    default = {"activation": "relu", "layer_norm_eps": 1e-05, "norm_first": False, "bias": True}
    with pytest.raises(
        ValueError, match=rf"torch_layer has {field}=.*this layer has {field}="
    ) as e:
        mine.load_from_torch(ref)
    assert repr(value) in str(e.value) and repr(default[field]) in str(e.value)
    assert all(torch.equal(before[k], v) for k, v in mine.state_dict().items())


def test_stack_mismatch_in_a_later_layer_copies_nothing():
    torch.manual_seed(0)
    ref = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True), 2,
        enable_nested_tensor=False,
    )  # fmt: skip
    ref.layers[1].activation = nn.functional.gelu  # only the second layer differs
    mine = Encoder(2, D, H, FF)
    before = {k: v.clone() for k, v in mine.state_dict().items()}
    with pytest.raises(ValueError, match=r"layer 1: torch_layer has activation='gelu'"):
        mine.load_from_torch(ref)
    assert all(torch.equal(before[k], v) for k, v in mine.state_dict().items())


def test_legitimate_odd_inputs():
    """Empty sequences (T = 0) give empty outputs; a float64 layer takes float64 input;
    the feed-forward network is position-wise, so any leading dims work."""
    layer = EncoderLayer(8, 2, 16).eval()
    out, weights = layer(torch.zeros(2, 0, 8))
    assert out.shape == (2, 0, 8) and weights.shape == (2, 2, 0, 0)
    out, _ = layer.double()(torch.zeros(2, 3, 8, dtype=torch.float64))
    assert out.dtype == torch.float64
    assert PositionwiseFeedForward(8, 16)(torch.zeros(5, 8)).shape == (5, 8)
