"""lecturekit.models.bert equals Hugging Face's BertForPreTraining; BERT's 80/10/10 masking."""

import pytest
import torch
import transformers

from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.verify import check_bert


def _hf_model(**overrides):
    torch.manual_seed(0)
    config = dict(
        vocab_size=60,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=24,
        attn_implementation="eager",
    )
    config.update(overrides)
    return transformers.BertForPreTraining(transformers.BertConfig(**config)).eval()


def test_from_hf_gives_the_same_outputs_with_padding_and_segments():
    """The self-check's comparison (lecturekit.verify.check_bert: 3 layers, width 32, padding,
    two segments): MLM and NSP logits, every hidden state and attention map within 1e-5."""
    pairs, _ = check_bert()
    names = [name for name, _, _ in pairs]
    assert names[:2] == ["MLM logits", "NSP logits"]
    assert sum(n.startswith("hidden state") for n in names) == 4  # embeddings + 3 layers
    assert sum(n.startswith("attention") for n in names) == 3
    for name, mine, theirs in pairs:
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0, msg=name)


def test_from_hf_copies_rather_than_matches_by_accident():
    hf = _hf_model()
    ours = BertForPreTraining.from_hf(hf)
    ids = torch.randint(5, 60, (2, 9))
    with torch.no_grad():
        hf.cls.seq_relationship.bias += 1.0  # the copy must not follow later changes
        assert not torch.allclose(ours(ids).nsp_logits, hf(input_ids=ids).seq_relationship_logits)
    fresh = BertForPreTraining(ours.config).eval()
    assert not torch.allclose(fresh(ids).mlm_logits, ours(ids).mlm_logits)


def test_the_mlm_decoder_is_tied_to_the_token_embeddings():
    model = BertForPreTraining(BertConfig.tiny(vocab_size=30)).eval()
    ids = torch.randint(5, 30, (1, 6))
    before = model(ids).mlm_logits
    with torch.no_grad():
        model.bert.embeddings.token.weight[7] += 1.0
    after = model(ids).mlm_logits
    assert not torch.allclose(before[..., 7], after[..., 7])
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params < 150_000  # no separate (V, D) output matrix


def test_from_hf_refuses_what_it_cannot_represent():
    with pytest.raises(ValueError, match="hidden_act='relu' is not supported"):
        BertForPreTraining.from_hf(_hf_model(hidden_act="relu"))
    with pytest.raises(ValueError, match=r"must be a transformers\.BertForPreTraining"):
        BertForPreTraining.from_hf(torch.nn.Linear(2, 2))


def test_bad_inputs_raise_clear_errors():
    model = BertForPreTraining(BertConfig.tiny(vocab_size=30, max_position=8))
    with pytest.raises(ValueError, match=r"input_ids must have shape \(B, T\), got \(5,\)"):
        model(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="length 9 > max_position=8"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"input_ids must hold ids in 0\.\.29 \(a vocabulary of 30\)"
    ):
        model(torch.full((1, 4), 30))
    with pytest.raises(ValueError, match=r"segment_ids has shape \(1, 3\), input_ids \(1, 4\)"):
        model(torch.zeros(1, 4, dtype=torch.long), torch.zeros(1, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"attention_mask must have shape \(1, 4\), got \(4,\)"):
        model(torch.zeros(1, 4, dtype=torch.long), attention_mask=torch.ones(4, dtype=torch.bool))
    with pytest.raises(ValueError, match="hidden_size=30 is not divisible by num_heads=4"):
        BertConfig.tiny(hidden_size=30)
