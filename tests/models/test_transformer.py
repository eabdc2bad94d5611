"""lecturekit.models.transformer: the encoder-decoder of lecture 10 against torch.nn.Transformer."""

import pytest
import torch
from torch import nn

from lecturekit.decoding import beam_search, greedy_search
from lecturekit.layers import Decoder, DecoderLayer
from lecturekit.masking import causal_mask, padding_mask
from lecturekit.models.transformer import AttentionWeights, Transformer, TransformerConfig
from lecturekit.positional import sinusoidal_encoding

D, H, FF = 16, 4, 32


pytestmark = [  # torch's own notes about its nested-tensor fast path, not about our code
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning"),
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"),
]


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    src_pad, tgt_pad = padding_mask([7, 5, 3], 7), padding_mask([6, 4, 2], 6)
    src = torch.randint(3, 11, (3, 7), generator=g).masked_fill(~src_pad, 0)
    tgt = torch.randint(3, 13, (3, 6), generator=g).masked_fill(~tgt_pad, 0)
    return src, tgt, src_pad, tgt_pad


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch_transformer(norm_first):
    """Our encoder-decoder == torch.nn.Transformer(batch_first=True) after a weight copy, with
    causal + padding masks. torch's model has no embeddings or output layer: it is fed our
    embeddings, and its output goes through our generator."""
    torch.manual_seed(0)
    ref = nn.Transformer(D, H, 2, 2, FF, dropout=0.0, batch_first=True, norm_first=norm_first)
    config = TransformerConfig(11, 13, d_model=D, num_heads=H, num_layers=2, d_ff=FF,
                               dropout=0.0, norm_first=norm_first, final_norm=True)  # fmt: skip
    model = Transformer(config).load_from_torch(ref)
    src, tgt, src_pad, tgt_pad = _batch()
    logits, weights = model(src, tgt)
    # with gradients on, torch takes its plain path (no nested-tensor fast path)
    out = ref(model.embed_src(src), model.embed_tgt(tgt), tgt_mask=~causal_mask(6),
              src_key_padding_mask=~src_pad, tgt_key_padding_mask=~tgt_pad,
              memory_key_padding_mask=~src_pad)  # fmt: skip
    torch.testing.assert_close(logits, model.generator(out), atol=1e-5, rtol=0)
    ref.eval()  # and torch's inference fast path (it may write anything at padded positions)
    with torch.no_grad():
        out = ref(model.embed_src(src), model.embed_tgt(tgt), tgt_mask=~causal_mask(6),
                  src_key_padding_mask=~src_pad, tgt_key_padding_mask=~tgt_pad,
                  memory_key_padding_mask=~src_pad)  # fmt: skip
    torch.testing.assert_close(logits[tgt_pad], model.generator(out)[tgt_pad], atol=1e-5, rtol=0)
    assert isinstance(weights, AttentionWeights)
    assert [w.shape for w in weights.encoder] == [(3, H, 7, 7)] * 2
    assert [w.shape for w in weights.decoder_self] == [(3, H, 6, 6)] * 2
    assert [w.shape for w in weights.cross] == [(3, H, 6, 7)] * 2


def test_embedding_is_scaled_and_positions_added():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13, dropout=0.0))
    src = torch.tensor([[4, 5, 6]])
    expected = model.src_embed.weight[src] * 96**0.5 + sinusoidal_encoding(3, 96)
    torch.testing.assert_close(model.embed_src(src), expected)


def test_tiny_config_size_and_defaults():
    config = TransformerConfig.tiny()
    assert (config.d_model, config.num_heads, config.num_layers, config.d_ff) == (96, 4, 2, 192)
    model = Transformer(config)
    assert sum(p.numel() for p in model.parameters()) == 391_556
    assert model.encoder.final_norm is None and model.decoder.final_norm is None  # the paper
    base = TransformerConfig()  # the paper's base model
    assert (base.d_model, base.num_heads, base.num_layers, base.d_ff) == (512, 8, 6, 2048)
    assert TransformerConfig.from_dict(config.to_dict()) == config
    with pytest.raises(AttributeError):
        config.d_model = 8  # frozen


def test_causal_mask_keeps_the_future_out():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13)).eval()
    src, tgt, _, _ = _batch()
    logits, _ = model(src, tgt)
    changed = tgt.clone()
    changed[:, 3:] = 5  # change the future of position 2
    logits2, _ = model(src, changed)
    torch.testing.assert_close(logits[:, :3], logits2[:, :3])


def test_padding_changes_nothing_for_real_tokens():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13)).eval()
    src, tgt, _, _ = _batch()
    alone, _ = model(src[1:2, :5], tgt[1:2, :4])  # sentence 1 without its padding
    batched, _ = model(src, tgt)
    torch.testing.assert_close(batched[1:2, :4], alone, atol=1e-5, rtol=0)


def test_greedy_decode_equals_greedy_search_and_beam_one():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13)).eval()
    src, _, src_pad, _ = _batch()
    ids, cross = model.greedy_decode(src, src_pad.sum(1), 8)
    assert ids.shape == (3, 8) and len(cross) == 2 and cross[0].shape == (3, 4, 8, 7)
    for b in range(3):
        step = model.step_function(src[b, : int(src_pad[b].sum())])
        hyp = greedy_search(step, 1, 2, 8)
        assert list(hyp.tokens) == ids[b, : len(hyp.tokens)].tolist()
        assert beam_search(step, 1, 2, beam_size=1, max_len=8)[0].tokens == hyp.tokens
    # the key/value cache gives the weights of a teacher-forced pass over the output
    tgt_in = torch.cat([torch.ones(3, 1, dtype=torch.long), ids[:, :-1]], dim=1)
    _, weights = model(src, tgt_in, src_pad, torch.ones_like(tgt_in, dtype=torch.bool))
    for full, cached in zip(weights.cross, cross, strict=True):
        torch.testing.assert_close(cached, full, atol=1e-5, rtol=0)


def test_trained_like_greedy_decode_stops_at_eos():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13)).eval()
    with torch.no_grad():
        model.generator.bias[2] = 100.0  # <eos> always wins: one token per sentence
    src, _, src_pad, _ = _batch()
    ids, cross = model.greedy_decode(src, src_pad.sum(1), 5)
    assert ids.tolist() == [[2, 0, 0, 0, 0]] * 3
    assert torch.all(cross[0][:, :, 1:] == 0) and torch.all(cross[0][:, :, 0].sum(-1) > 0.99)


def test_bad_inputs():
    with pytest.raises(ValueError, match="d_model=10 is not divisible by num_heads=4"):
        TransformerConfig(5, 5, d_model=10, num_heads=4)
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        TransformerConfig(5, 5, num_layers=0)
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        Decoder(0, 8, 2, 16)
    layer = DecoderLayer(D, H, FF)
    with pytest.raises(ValueError, match=r"memory must be \(B, S, d_model=16\), got \(2, 5, 8\)"):
        layer(torch.randn(2, 3, D), torch.randn(2, 5, 8))
    with pytest.raises(
        ValueError, match=r"memory must be .*B=2 as in x \(2, 3, 16\), got \(1, 5, 16\)"
    ):
        layer(torch.randn(2, 3, D), torch.randn(1, 5, D))
    with pytest.raises(ValueError, match="norm_first"):
        layer.load_from_torch(nn.TransformerDecoderLayer(D, H, FF, norm_first=True))
    with pytest.raises(ValueError, match="shape mismatch"):
        layer.load_from_torch(nn.TransformerDecoderLayer(D, H, 64))
    with pytest.raises(ValueError, match=r"must be a torch\.nn\.TransformerDecoderLayer"):
        layer.load_from_torch(nn.TransformerEncoderLayer(D, H, FF))
    model = Transformer(TransformerConfig(11, 13, d_model=D, num_heads=H, num_layers=2, d_ff=FF))
    with pytest.raises(
        ValueError, match=r"final_norm=False.*build the config with final_norm=True"
    ):
        model.load_from_torch(nn.Transformer(D, H, 2, 2, FF, batch_first=True))
    with pytest.raises(ValueError, match="batch_first=True"):
        model.load_from_torch(nn.Transformer(D, H, 2, 2, FF))
    with pytest.raises(
        ValueError, match=r"src must be an integer tensor of shape \(B, T\).*src\.long\(\)"
    ):
        model(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(
        ValueError,
        match=r"src must hold ids in 0\.\.10 \(a vocabulary of 11\), got values from 11 to 11",
    ):
        model(torch.full((1, 3), 11), torch.ones(1, 2, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"tgt_pad must have shape \(1, 2\) \(as the ids\), got \(1, 3\)"
    ):
        model(torch.ones(1, 3, dtype=torch.long), torch.ones(1, 2, dtype=torch.long),
              tgt_pad=torch.ones(1, 3, dtype=torch.bool))  # fmt: skip


def test_greedy_decode_bad_inputs():
    model = Transformer(TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=13))
    src = torch.ones(2, 3, dtype=torch.long)
    with pytest.raises(ValueError, match=r"max_len=200 exceeds config\.max_len=128"):
        model.greedy_decode(src, torch.tensor([3, 2]), 200)
    with pytest.raises(ValueError, match=r"src_len must have shape \(2,\), got \(3,\)"):
        model.greedy_decode(src, torch.tensor([3, 2, 1]), 5)
    with pytest.raises(ValueError, match=r"src_len must lie in 0\.\.3, got \[4, 2\]"):
        model.greedy_decode(src, torch.tensor([4, 2]), 5)
