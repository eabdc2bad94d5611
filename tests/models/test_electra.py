"""lecturekit.models.electra equals Hugging Face's ELECTRA (discriminator and generator); the
shared embeddings; electra_loss learns from every real token, not through the samples."""

import pytest
import torch
import transformers

from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.bert_tasks import BertForSequenceClassification
from lecturekit.models.electra import (
    Electra,
    ElectraConfig,
    ElectraDiscriminator,
    ElectraGenerator,
    electra_loss,
)
from lecturekit.models.size import parameter_count

SMALL = dict(vocab_size=40, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
             max_position=16, generator_hidden_size=8, generator_num_heads=2,
             generator_intermediate_size=16, generator_num_layers=1)  # fmt: skip


def _hf_config(**overrides):
    config = dict(vocab_size=60, embedding_size=32, hidden_size=32, num_hidden_layers=2,
                  num_attention_heads=4, intermediate_size=37, max_position_embeddings=24,
                  attn_implementation="eager")  # fmt: skip
    config.update(overrides)
    return transformers.ElectraConfig(**config)


def _inputs():
    """Two rows of 9 tokens, two segments, the second row padded after 6 tokens."""
    ids = torch.randint(5, 60, (2, 9), generator=torch.Generator().manual_seed(1))
    segments = torch.zeros_like(ids)
    segments[:, 5:] = 1
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    return ids, segments, mask


def test_discriminator_from_hf_gives_the_same_logits_with_padding_and_segments():
    torch.manual_seed(0)
    hf = transformers.ElectraForPreTraining(_hf_config()).eval()
    ours = ElectraDiscriminator.from_hf(hf).eval()
    ids, segments, mask = _inputs()
    with torch.no_grad():
        mine = ours(ids, segments, mask)
        theirs = hf(input_ids=ids, token_type_ids=segments, attention_mask=mask).logits
        assert mine.shape == (2, 9)
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0)
        torch.testing.assert_close(ours(ids), hf(input_ids=ids).logits, atol=1e-5, rtol=0)


@pytest.mark.parametrize(("embedding_size", "hidden_size"), [(32, 32), (32, 16)])
def test_generator_from_hf_gives_the_same_logits(embedding_size, hidden_size):
    """Embeddings as wide as the encoder, and wider ones with HF's embeddings_project."""
    torch.manual_seed(0)
    config = _hf_config(embedding_size=embedding_size, hidden_size=hidden_size,
                        num_attention_heads=2)  # fmt: skip
    hf = transformers.ElectraForMaskedLM(config).eval()
    ours = ElectraGenerator.from_hf(hf).eval()
    assert (ours.embeddings_project is not None) == (embedding_size != hidden_size)
    ids, segments, mask = _inputs()
    with torch.no_grad():
        mine = ours(ids, segments, mask)
        theirs = hf(input_ids=ids, token_type_ids=segments, attention_mask=mask).logits
    assert mine.shape == (2, 9, 60)
    torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0)


def test_from_hf_copies_rather_than_matches_by_accident():
    torch.manual_seed(0)
    hf = transformers.ElectraForPreTraining(_hf_config()).eval()
    ours = ElectraDiscriminator.from_hf(hf).eval()
    ids, _, _ = _inputs()
    with torch.no_grad():
        hf.discriminator_predictions.dense_prediction.bias += 1.0  # the copy must not follow
        assert not torch.allclose(ours(ids), hf(input_ids=ids).logits)
        fresh = ElectraDiscriminator(ours.config).eval()
        assert not torch.allclose(fresh(ids), ours(ids))


def test_from_hf_refuses_what_it_cannot_represent():
    with pytest.raises(ValueError, match="embedding_size=16 differs from hidden_size=32"):
        ElectraDiscriminator.from_hf(transformers.ElectraForPreTraining(
            _hf_config(embedding_size=16)))  # fmt: skip
    with pytest.raises(ValueError, match="hidden_act='relu' is not supported"):
        ElectraGenerator.from_hf(transformers.ElectraForMaskedLM(_hf_config(hidden_act="relu")))
    with pytest.raises(ValueError, match=r"must be a transformers\.ElectraForMaskedLM"):
        ElectraGenerator.from_hf(transformers.ElectraForPreTraining(_hf_config()))


def test_configs_are_electra_base_and_the_lecture_s_tiny_model():
    base = ElectraConfig()
    assert (base.hidden_size, base.num_layers, base.generator_hidden_size,
            base.generator_num_layers) == (768, 12, 256, 12)  # fmt: skip
    tiny = ElectraConfig.tiny()
    assert tiny.discriminator_config() == BertConfig.tiny()
    g = tiny.generator_config()
    assert (g.hidden_size, g.num_heads, g.intermediate_size, g.num_layers) == (32, 2, 128, 2)
    with pytest.raises(ValueError, match="generator_hidden_size=30 is not divisible"):
        ElectraConfig.tiny(generator_hidden_size=30, generator_num_heads=4)


def test_the_networks_share_one_embedding_module_held_once():
    torch.manual_seed(0)
    model = Electra(ElectraConfig.tiny(**SMALL)).eval()
    shared = model.discriminator.bert.embeddings
    assert model.generator.input_embeddings() is shared
    assert model.generator.embeddings_project.weight.shape == (8, 16)  # E = 16 -> D_g = 8
    assert not any(k.startswith("generator.embeddings.") for k in model.state_dict())
    # counted once: the discriminator plus the generator's own parameters
    own = sum(p.numel() for p in model.generator.parameters())
    assert parameter_count(model) == parameter_count(model.discriminator) + own
    assert parameter_count(ElectraConfig.tiny(**SMALL)) == parameter_count(model)
    ids = torch.randint(5, 40, (1, 6))
    before = model.generator(ids)
    with torch.no_grad():
        shared.token.weight[ids[0, 2]] += 1.0  # the generator reads (and decodes with) them
    assert not torch.allclose(before, model.generator(ids))


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, 40, (3, 12), generator=g)
    mask = torch.ones_like(ids, dtype=torch.bool)
    mask[1, 8:], mask[2, 5:] = False, False
    ids[~mask] = 0
    chosen = (torch.rand(ids.shape, generator=g) < 0.3) & mask
    return {"input_ids": ids, "segment_ids": torch.zeros_like(ids), "attention_mask": mask,
            "chosen": chosen}  # fmt: skip


def test_the_discriminator_loss_counts_every_real_token_and_ignores_padding():
    torch.manual_seed(0)
    model = Electra(ElectraConfig.tiny(**SMALL))
    batch = _batch()
    seen = {}

    def keep(module, args, output):
        output.retain_grad()
        seen["logits"] = output

    model.discriminator.register_forward_hook(keep)
    out = electra_loss(model, batch, generator=torch.Generator().manual_seed(0))
    out.disc.backward()
    logits, grad = seen["logits"], seen["logits"].grad
    real = batch["attention_mask"]
    n_real = int(real.sum())
    assert torch.equal(grad[~real], torch.zeros_like(grad[~real]))  # padding: no gradient
    # d mean BCE / d logit = (sigmoid(logit) - label) / N for every real token
    labels = (torch.sigmoid(logits) - grad * n_real).detach()
    assert torch.allclose(labels[real], labels[real].round(), atol=1e-5)
    labels = labels.round()
    assert set(labels[real].tolist()) <= {0.0, 1.0}
    assert (labels[real & ~batch["chosen"]] == 0).all()  # only chosen tokens can be replaced
    assert labels[real].sum() > 0  # an untrained generator replaces some
    expected = torch.nn.functional.binary_cross_entropy_with_logits(logits[real], labels[real])
    torch.testing.assert_close(out.disc, expected)
    accuracy = ((logits[real] > 0).float() == labels[real]).float().mean().item()
    assert out.disc_accuracy == pytest.approx(accuracy)


def test_electra_loss_trains_both_networks_but_not_through_the_samples():
    torch.manual_seed(0)
    model = Electra(ElectraConfig.tiny(**SMALL))
    batch = _batch()
    out = electra_loss(model, batch, generator=torch.Generator().manual_seed(0), disc_weight=50.0)
    torch.testing.assert_close(out.total, out.mlm + 50.0 * out.disc)
    out.disc.backward(retain_graph=True)
    # the discriminator's loss reaches the shared embeddings but no generator weight
    assert all(p.grad is None for p in model.generator.parameters())
    assert model.discriminator.bert.embeddings.token.weight.grad.abs().sum() > 0
    assert model.discriminator.head_out.weight.grad.abs().sum() > 0
    model.zero_grad(set_to_none=True)
    out.total.backward()
    for name, network in (("generator", model.generator), ("discriminator", model.discriminator)):
        grads = [p.grad for n, p in network.named_parameters() if "pooler" not in n]
        assert all(g is not None and torch.isfinite(g).all() for g in grads), name
        assert sum(float(g.abs().sum()) for g in grads) > 0, name


def test_electra_loss_is_reproducible_and_handles_nothing_chosen():
    torch.manual_seed(0)
    model = Electra(ElectraConfig.tiny(**SMALL)).eval()
    batch = _batch()
    a = electra_loss(model, batch, generator=torch.Generator().manual_seed(5))
    b = electra_loss(model, batch, generator=torch.Generator().manual_seed(5))
    assert torch.equal(a.total, b.total) and a.disc_accuracy == b.disc_accuracy
    none = electra_loss(model, {**batch, "chosen": torch.zeros_like(batch["chosen"])})
    assert none.mlm.item() == 0.0
    # nothing replaced: the labels are all "original"; the loss is the mean of softplus(logit)
    logits = model.discriminator(batch["input_ids"], batch["segment_ids"], batch["attention_mask"])
    real = batch["attention_mask"]
    expected = torch.nn.functional.softplus(logits[real]).mean()
    torch.testing.assert_close(none.disc, expected)


def test_the_discriminator_becomes_a_bert_for_lecture_13():
    torch.manual_seed(0)
    model = Electra(ElectraConfig.tiny(**SMALL))
    state = torch.random.get_rng_state()
    bert = model.discriminator_as_bert(seed=3)
    assert torch.equal(torch.random.get_rng_state(), state)  # the global stream is untouched
    assert type(bert) is BertForPreTraining and bert.config == model.config.discriminator_config()
    ours, theirs = model.discriminator.bert.state_dict(), bert.bert.state_dict()
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    with torch.no_grad():
        bert.bert.embeddings.token.weight += 1.0  # a copy, not the same tensors
    assert not torch.equal(model.discriminator.bert.embeddings.token.weight,
                           bert.bert.embeddings.token.weight)  # fmt: skip
    again = model.discriminator_as_bert(seed=3)
    assert torch.equal(again.nsp.weight, bert.nsp.weight)  # heads drawn from the seed
    classifier = BertForSequenceClassification.from_pretrained(again, num_labels=3)
    ids = torch.randint(5, 40, (2, 7))
    assert classifier(ids).logits.shape == (2, 3)
