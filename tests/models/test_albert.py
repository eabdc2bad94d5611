"""lecturekit.models.albert equals Hugging Face's AlbertForPreTraining (shared and separate
layers); the shared layer is counted once."""

import pytest
import torch
import transformers

from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.size import parameter_count


def _hf_model(**overrides):
    torch.manual_seed(0)
    config = dict(vocab_size=60, embedding_size=16, hidden_size=32, num_hidden_layers=3,
                  num_attention_heads=4, intermediate_size=37, max_position_embeddings=24,
                  hidden_act="gelu", attn_implementation="eager")  # fmt: skip
    config.update(overrides)
    return transformers.AlbertForPreTraining(transformers.AlbertConfig(**config)).eval()


def _inputs():
    ids = torch.randint(5, 60, (2, 9), generator=torch.Generator().manual_seed(1))
    segments = torch.zeros_like(ids)
    segments[:, 5:] = 1
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    return ids, segments, mask


@pytest.mark.parametrize("groups", [1, 3])
def test_from_hf_gives_the_same_logits_with_padding_and_segments(groups):
    """One shared layer (num_hidden_groups=1) and three separate ones (3 groups)."""
    hf = _hf_model(num_hidden_groups=groups)
    ours = AlbertForPreTraining.from_hf(hf).eval()
    assert ours.config.share_layers is (groups == 1)
    assert len(ours.encoder.layers) == groups
    ids, segments, mask = _inputs()
    with torch.no_grad():
        mine = ours(ids, segments, mask)
        theirs = hf(input_ids=ids, token_type_ids=segments, attention_mask=mask)
        last = hf.albert(input_ids=ids, token_type_ids=segments, attention_mask=mask)
    assert mine.mlm_logits.shape == (2, 9, 60) and mine.sop_logits.shape == (2, 2)
    assert len(mine.hidden_states) == 4 and len(mine.attentions) == 3
    torch.testing.assert_close(mine.mlm_logits, theirs.prediction_logits, atol=1e-5, rtol=0)
    torch.testing.assert_close(mine.sop_logits, theirs.sop_logits, atol=1e-5, rtol=0)
    torch.testing.assert_close(mine.hidden_states[-1], last.last_hidden_state, atol=1e-5, rtol=0)


def test_from_hf_copies_rather_than_matches_by_accident():
    hf = _hf_model()
    ours = AlbertForPreTraining.from_hf(hf).eval()
    ids, _, _ = _inputs()
    with torch.no_grad():
        hf.sop_classifier.classifier.bias += 1.0  # the copy must not follow later changes
        assert not torch.allclose(ours(ids).sop_logits, hf(input_ids=ids).sop_logits)
        fresh = AlbertForPreTraining(ours.config).eval()
        assert not torch.allclose(fresh(ids).mlm_logits, ours(ids).mlm_logits)


def test_from_hf_refuses_what_it_cannot_represent():
    with pytest.raises(ValueError, match="hidden_act='gelu_new' is not supported"):
        AlbertForPreTraining.from_hf(_hf_model(hidden_act="gelu_new"))
    with pytest.raises(ValueError, match="inner_group_num=2 is not supported"):
        AlbertForPreTraining.from_hf(_hf_model(inner_group_num=2))
    with pytest.raises(ValueError, match="num_hidden_groups=2 is not supported"):
        AlbertForPreTraining.from_hf(_hf_model(num_hidden_layers=4, num_hidden_groups=2))
    with pytest.raises(ValueError, match=r"must be a transformers\.AlbertForPreTraining"):
        AlbertForPreTraining.from_hf(torch.nn.Linear(2, 2))


def test_one_layer_is_applied_at_every_depth():
    torch.manual_seed(0)
    shared = AlbertForPreTraining(AlbertConfig.tiny()).eval()
    assert len(shared.encoder.layers) == 1
    assert all(shared.layer(i) is shared.layer(0) for i in range(4))
    separate = AlbertForPreTraining(AlbertConfig.tiny(share_layers=False))
    assert len({id(separate.layer(i)) for i in range(4)}) == 4
    ids = torch.randint(5, 450, (1, 8))
    with torch.no_grad():
        out = shared(ids)
        # the same function at each depth: layer 3 of layer 2's output is layer 0 applied again
        again, _ = shared.layer(0)(out.hidden_states[2])
        torch.testing.assert_close(again, out.hidden_states[3])
        before = out.mlm_logits[..., 7]
        shared.embeddings.token.weight[7] += 1.0  # the decoder is tied to the E-wide embedding
        assert not torch.allclose(shared(ids).mlm_logits[..., 7], before)


def test_configs_are_albert_base_and_the_lecture_s_tiny_model():
    base = AlbertConfig()
    assert (base.vocab_size, base.embedding_size, base.hidden_size, base.num_layers,
            base.num_heads, base.intermediate_size, base.share_layers) == (
        30000, 128, 768, 12, 12, 3072, True)  # fmt: skip
    tiny = AlbertConfig.tiny()
    assert (tiny.vocab_size, tiny.embedding_size, tiny.hidden_size, tiny.num_layers) == (
        450, 32, 64, 4)  # fmt: skip
    assert tiny.encoder_config().num_layers == 1
    assert tiny.replace(share_layers=False).encoder_config().num_layers == 4
    with pytest.raises(ValueError, match="share_layers must be True or False"):
        AlbertConfig.tiny(share_layers=1)


def test_parameter_count_counts_the_shared_layer_once():
    """ALBERT-base as Hugging Face builds it (on the meta device: no memory), and ALBERT-xxlarge
    (HF's default config); separate layers add (num_layers - 1) layers' parameters."""
    sizes = dict(hidden_size=768, num_attention_heads=12, intermediate_size=3072)
    with torch.device("meta"):
        hf_base = transformers.AlbertForPreTraining(transformers.AlbertConfig(**sizes))
        hf_xxlarge = transformers.AlbertForPreTraining(transformers.AlbertConfig())
    count = parameter_count(AlbertConfig())
    assert count == sum(p.numel() for p in hf_base.parameters()) == 11_813_810  # "12 M"
    xxlarge = AlbertConfig(hidden_size=4096, num_heads=64, intermediate_size=16384)
    assert parameter_count(xxlarge) == sum(p.numel() for p in hf_xxlarge.parameters())
    D, F = 768, 3072
    one_layer = 4 * (D * D + D) + (D * F + F) + (F * D + D) + 2 * 2 * D
    assert parameter_count(AlbertConfig(share_layers=False)) - count == 11 * one_layer
    tiny = AlbertConfig.tiny()
    layer = parameter_count(AlbertForPreTraining(tiny).layer(0))
    assert parameter_count(tiny.replace(share_layers=False)) - parameter_count(tiny) == 3 * layer
