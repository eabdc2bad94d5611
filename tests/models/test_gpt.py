"""lecturekit.models.gpt: GPT, its KV cache, and its equality with Hugging Face's GPT-2."""

import pytest
import torch
import transformers

from lecturekit.masking import past_unchanged
from lecturekit.models.gpt import GPT, GPT2_SIZES, GPTConfig, GPTOutput, init_gpt_weights
from lecturekit.shipped.store import load_shipped, save_shipped

V, P = 60, 24  # the tiny Hugging Face models' vocabulary and positions


def _hf_gpt2(seed=0, **changes):
    """A tiny random GPT2LMHeadModel (eval mode), every weight perturbed (LayerNorms start at 1
    and 0, biases at 0)."""
    torch.manual_seed(seed)
    kwargs = dict(vocab_size=V, n_positions=P, n_embd=32, n_layer=2, n_head=4, bos_token_id=0,
                  eos_token_id=0, attn_implementation="eager")  # fmt: skip
    hf = transformers.GPT2LMHeadModel(transformers.GPT2Config(**{**kwargs, **changes})).eval()
    with torch.no_grad():
        for param in hf.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    return hf


def _hf_openai_gpt(seed=0):
    torch.manual_seed(seed)
    config = transformers.OpenAIGPTConfig(vocab_size=V, n_positions=P, n_embd=32, n_layer=2,
                                          n_head=4)  # fmt: skip
    hf = transformers.OpenAIGPTLMHeadModel(config).eval()
    with torch.no_grad():
        for param in hf.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    return hf


def _ids(B=3, T=12, seed=1, vocab=V):
    return torch.randint(0, vocab, (B, T), generator=torch.Generator().manual_seed(seed))


def _tiny(**changes):
    return GPT(GPTConfig.tiny(**changes), generator=torch.Generator().manual_seed(0)).eval()


# --- config ------------------------------------------------------------------------------------


def test_the_presets_have_the_published_sizes():
    g1 = GPTConfig.gpt1()
    assert g1 == GPTConfig()
    assert (g1.num_layers, g1.hidden_size, g1.num_heads, g1.intermediate_size, g1.max_position,
            g1.vocab_size, g1.pre_norm) == (12, 768, 12, 3072, 512, 40478, False)  # fmt: skip
    sizes = {s: GPTConfig.gpt2(s) for s in GPT2_SIZES}
    assert {s: (c.num_layers, c.hidden_size, c.num_heads) for s, c in sizes.items()} == {
        "small": (12, 768, 12), "medium": (24, 1024, 16), "large": (36, 1280, 20),
        "xl": (48, 1600, 25),
    }  # fmt: skip
    for c in sizes.values():
        assert (c.vocab_size, c.max_position, c.intermediate_size, c.pre_norm) == (
            50257, 1024, 4 * c.hidden_size, True
        )  # fmt: skip
    assert GPTConfig.gpt2() == sizes["xl"]
    g3 = GPTConfig.gpt3()
    assert (g3.num_layers, g3.hidden_size, g3.num_heads, g3.intermediate_size, g3.max_position,
            g3.vocab_size, g3.pre_norm) == (96, 12288, 96, 49152, 2048, 50257, True)  # fmt: skip
    tiny = GPTConfig.tiny()
    assert (tiny.vocab_size, tiny.max_position, tiny.hidden_size, tiny.num_layers,
            tiny.pre_norm) == (450, 128, 64, 2, True)  # fmt: skip
    assert GPTConfig.from_dict(tiny.to_dict()) == tiny


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"hidden_size": 30}, r"hidden_size=30 is not divisible by num_heads=4"),
        ({"vocab_size": 0}, r"vocab_size must be a positive integer"),
        ({"max_position": -1}, r"max_position must be a positive integer"),
        ({"num_layers": 1.5}, r"num_layers must be a positive integer"),
        ({"intermediate_size": 0}, r"intermediate_size must be a positive integer"),
        ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\), got 1.0"),
        ({"layer_norm_eps": 0}, r"layer_norm_eps must be a number in \(0, inf\]"),
        ({"pre_norm": 1}, r"pre_norm must be True or False, got 1"),
    ],
)
def test_config_rejects_bad_fields(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GPTConfig.tiny(**kwargs)


def test_a_bad_gpt2_size_lists_the_sizes():
    with pytest.raises(ValueError, match=r"size='XL' is not a GPT-2 size: one of \['small', "
                       r"'medium', 'large', 'xl'\]; did you mean 'xl'\?"):  # fmt: skip
        GPTConfig.gpt2("XL")


# --- the model ---------------------------------------------------------------------------------


@pytest.mark.parametrize("pre_norm", [True, False])
def test_shapes_and_causality(pre_norm):
    model = _tiny(pre_norm=pre_norm, num_layers=3)
    assert (model.final_norm is not None) == pre_norm
    ids = _ids(2, 9, vocab=450)
    out = model(ids)
    assert isinstance(out, GPTOutput) and out.cache is None
    assert out.logits.shape == (2, 9, 450)
    assert len(out.attentions) == 3 and all(w.shape == (2, 4, 9, 9) for w in out.attentions)
    torch.testing.assert_close(out.attentions[0].sum(-1), torch.ones(2, 4, 9))
    assert bool((out.attentions[1].triu(1) == 0).all())  # nothing from the future
    # changing a future token never changes an earlier position's logits
    other = _ids(2, 9, seed=7, vocab=450)
    assert past_unchanged(lambda x: model(x).logits, ids, other).all()


def test_the_output_layer_is_the_token_embedding():
    model = _tiny()
    names = [n for n, _ in model.named_parameters()]
    assert not any("head" in n for n in names)
    h = torch.randn(1, 1, 64)
    torch.testing.assert_close(h @ model.token_embedding.weight.T, torch.einsum(
        "btd,vd->btv", h, model.token_embedding.weight))  # fmt: skip


def test_initialisation_is_gpt2s_and_seeded():
    a, b = _tiny(), _tiny()
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    config = GPTConfig(vocab_size=1000, max_position=64, hidden_size=256, num_layers=8,
                       num_heads=4, intermediate_size=1024)  # fmt: skip
    model = GPT(config, generator=torch.Generator().manual_seed(0)).requires_grad_(False)
    assert abs(float(model.token_embedding.weight.std()) - 0.02) < 1e-3
    assert float(model.blocks[0].self_attn.w_q.bias.abs().max()) == 0.0
    assert torch.equal(model.blocks[0].norm1.weight, torch.ones(256))
    residual = torch.cat([b.self_attn.w_o.weight.flatten() for b in model.blocks])
    assert abs(float(residual.std()) - 0.02 / 4) < 2e-4  # 0.02 / sqrt(2 * 8)
    state = torch.random.get_rng_state()
    init_gpt_weights(model, torch.Generator().manual_seed(1))
    assert torch.equal(torch.random.get_rng_state(), state)


@pytest.mark.parametrize("pre_norm", [True, False])
def test_the_kv_cache_equals_recomputing_the_prefix(pre_norm):
    model = _tiny(pre_norm=pre_norm)
    ids = _ids(2, 11, vocab=450)
    full = model(ids)
    out = model(ids[:, :4], use_cache=True)  # a prompt, then one token at a time
    logits, cache = [out.logits], out.cache
    assert len(cache) == 2 and all(k.shape == v.shape == (2, 4, 4, 16) for k, v in cache)
    for t in range(4, 11):
        step = model(ids[:, t : t + 1], cache=cache, use_cache=True)
        assert step.logits.shape == (2, 1, 450) and step.attentions[0].shape == (2, 4, 1, t + 1)
        assert all(k.shape == (2, 4, t + 1, 16) for k, _ in step.cache)
        logits.append(step.logits)
        cache = step.cache
    torch.testing.assert_close(torch.cat(logits, 1), full.logits, atol=1e-5, rtol=0)
    # a cache without use_cache: the logits, no cache returned
    last = model(ids[:, 10:], cache=[(k[:, :, :10], v[:, :, :10]) for k, v in cache])
    assert last.cache is None
    torch.testing.assert_close(last.logits, full.logits[:, 10:], atol=1e-5, rtol=0)


def test_gradients_flow_to_every_parameter():
    model = GPT(GPTConfig.tiny(), generator=torch.Generator().manual_seed(0)).train()
    ids = _ids(2, 8, vocab=450)
    loss = torch.nn.functional.cross_entropy(
        model(ids[:, :-1]).logits.flatten(0, 1), ids[:, 1:].flatten()
    )
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
    assert float(model.token_embedding.weight.grad.abs().sum()) > 0


def test_a_padding_mask_hides_the_padded_keys():
    model = _tiny()
    ids = _ids(2, 8, vocab=450)
    real = torch.arange(8)[None, :] < torch.tensor([8, 5])[:, None]
    out = model(ids, real)
    assert float(out.attentions[0][1, :, :, 5:].detach().abs().max()) == 0.0
    changed = ids.clone()
    changed[1, 5:] = 3  # padding tokens: the real positions do not see them
    torch.testing.assert_close(model(changed, real).logits[1, :5], out.logits[1, :5])
    torch.testing.assert_close(model(ids, real.long()).logits, out.logits)  # HF's 1/0 mask


# --- equal to Hugging Face ---------------------------------------------------------------------


def test_equal_to_hugging_face_gpt2_logits_attention_padding():
    hf = _hf_gpt2()
    ours = GPT.from_hf(hf)
    assert not ours.training and ours.config.pre_norm and ours.config.max_position == P
    ids = _ids()
    real = torch.arange(12)[None, :] < torch.tensor([12, 9, 4])[:, None]  # padding at the end
    with torch.no_grad():
        ref = hf(ids, output_attentions=True)
        out = ours(ids)
        torch.testing.assert_close(out.logits, ref.logits, atol=1e-5, rtol=0)
        for mine, theirs in zip(out.attentions, ref.attentions, strict=True):
            torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0)
        ref = hf(ids, attention_mask=real.long(), output_attentions=True)
        out = ours(ids, real)
    torch.testing.assert_close(out.logits[real], ref.logits[real], atol=1e-5, rtol=0)
    for mine, theirs in zip(out.attentions, ref.attentions, strict=True):
        # (B, H, T, T) -> (B, T, H, T): the real query positions
        torch.testing.assert_close(mine.transpose(1, 2)[real], theirs.transpose(1, 2)[real],
                                   atol=1e-5, rtol=0)  # fmt: skip


def test_the_cache_equals_hugging_faces_past_key_values():
    hf = _hf_gpt2()
    ours = GPT.from_hf(hf)
    ids = _ids()
    with torch.no_grad():
        first = hf(ids[:, :5], use_cache=True)
        pkv, ref_steps = first.past_key_values, [first.logits]
        mine = ours(ids[:, :5], use_cache=True)
        cache, steps = mine.cache, [mine.logits]
        for t in range(5, 12):
            step = hf(ids[:, t : t + 1], past_key_values=pkv, use_cache=True)
            pkv = step.past_key_values
            ref_steps.append(step.logits)
            out = ours(ids[:, t : t + 1], cache=cache, use_cache=True)
            cache = out.cache
            steps.append(out.logits)
        full = hf(ids).logits
    torch.testing.assert_close(torch.cat(steps, 1), torch.cat(ref_steps, 1), atol=1e-5, rtol=0)
    torch.testing.assert_close(torch.cat(steps, 1), full, atol=1e-5, rtol=0)
    for layer, (k, v) in enumerate(cache):  # the cached keys and values themselves
        torch.testing.assert_close(k, pkv.layers[layer].keys, atol=1e-5, rtol=0)
        torch.testing.assert_close(v, pkv.layers[layer].values, atol=1e-5, rtol=0)


def test_equal_to_hugging_face_openai_gpt_post_norm():
    hf = _hf_openai_gpt()
    ours = GPT.from_hf(hf)
    assert not ours.config.pre_norm and ours.final_norm is None
    ids = _ids()
    with torch.no_grad():
        ref = hf(ids, output_attentions=True)
        out = ours(ids)
    torch.testing.assert_close(out.logits, ref.logits, atol=1e-5, rtol=0)
    for mine, theirs in zip(out.attentions, ref.attentions, strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-5, rtol=0)


def test_from_hf_keeps_the_training_mode_and_the_inner_size():
    hf = _hf_gpt2(n_inner=48).train()
    ours = GPT.from_hf(hf)
    assert ours.training and ours.config.intermediate_size == 48


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"activation_function": "relu"}, r"activation_function='relu' is not supported"),
        ({"scale_attn_by_inverse_layer_idx": True}, r"scale_attn_by_inverse_layer_idx=True"),
        ({"reorder_and_upcast_attn": True}, r"reorder_and_upcast_attn=True is not supported"),
        ({"scale_attn_weights": False}, r"scale_attn_weights=False is not supported"),
        ({"tie_word_embeddings": False}, r"tie_word_embeddings=False is not supported"),
    ],
)
def test_from_hf_refuses_what_would_change_the_function(changes, match):
    with pytest.raises(ValueError, match=match):
        GPT.from_hf(_hf_gpt2(**changes))


def test_from_hf_refuses_other_models_and_edited_layer_norms():
    with pytest.raises(ValueError, match=r"hf_model must be a transformers.GPT2LMHeadModel .*"
                                         r"got GPT2Model"):  # fmt: skip
        GPT.from_hf(transformers.GPT2Model(transformers.GPT2Config(
            vocab_size=V, n_positions=P, n_embd=32, n_layer=1, n_head=4)))  # fmt: skip
    with pytest.raises(ValueError, match=r"hf_model must be .* got Linear"):
        GPT.from_hf(torch.nn.Linear(2, 2))
    hf = _hf_gpt2()
    hf.transformer.h[1].ln_2.eps = 1e-3
    with pytest.raises(ValueError, match=r"h\.1\.ln_2 has eps=0\.001"):
        GPT.from_hf(hf)


# --- bad inputs --------------------------------------------------------------------------------

MODEL = _tiny(max_position=16)
IDS = _ids(2, 5, vocab=450)
CACHE = MODEL(IDS, use_cache=True).cache


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: MODEL(IDS + 450), r"input_ids must hold ids in 0\.\.449 .* got values from"),
        (lambda: MODEL(IDS[0]), r"input_ids must have shape \(B, T\), got \(5,\)"),
        (lambda: MODEL(IDS.float()), r"input_ids must be an integer tensor"),
        (lambda: MODEL(IDS.tolist()), r"input_ids must be a torch.Tensor .*torch.as_tensor"),
        (lambda: MODEL(IDS[:, :0]), r"input_ids must hold at least one position"),
        (
            lambda: MODEL(_ids(1, 17, vocab=450)),
            r"the prompt is longer than the context: input_ids has T=17 .* T_past=0 .*"
            r"max_position=16",
        ),
        (
            lambda: MODEL(_ids(2, 12, vocab=450), cache=CACHE),
            r"prompt is longer than the context: input_ids has T=12 positions after T_past=5 "
            r"cached ones, T_past \+ T = 17 > max_position=16",
        ),
        (
            lambda: MODEL(IDS, torch.ones(2, 4, dtype=torch.bool)),
            r"attention_mask must have shape \(2, 5\)",
        ),
        (
            lambda: MODEL(IDS[:, :1], torch.ones(2, 1, dtype=torch.bool), cache=CACHE),
            r"attention_mask must have shape \(2, 6\)",
        ),
        (lambda: MODEL(IDS, torch.full((2, 5), 0.5)), r"attention_mask must be bool"),
        (lambda: MODEL(IDS, use_cache=1), r"use_cache must be True or False"),
        (
            lambda: MODEL(IDS[:, :1], cache=CACHE[:1]),
            r"cache must be a list of 2 \(keys, values\) pairs.*got a list of 1",
        ),
        (lambda: MODEL(IDS[:, :1], cache=CACHE[0][0]), r"cache must be a list of 2 .*got \(2,"),
        (
            lambda: MODEL(IDS[:, :1], cache=[CACHE[0], CACHE[1][0]]),
            r"cache\[1\] must be a pair \(keys, values\)",
        ),
        (lambda: MODEL(IDS[:1, :1], cache=CACHE), r"cache\[0\] keys must be \(B=1, H=4"),
        (
            lambda: MODEL(IDS[:, :1], cache=[CACHE[0], (CACHE[1][0][:, :, :3], CACHE[1][1])]),
            r"cache\[1\] keys must be \(B=2, H=4, T_past, Dh=16\) with T_past=5 as in cache\[0\] "
            r"keys \(2, 4, 5, 16\), got \(2, 4, 3, 16\)",
        ),
        (
            lambda: MODEL(IDS[:, :1], cache=[(k.double(), v) for k, v in CACHE]),
            r"cache\[0\] keys has dtype torch.float64 but GPT's weights are torch.float32",
        ),
        (lambda: GPT({"vocab_size": 5}), r"config must be a GPTConfig"),
        (lambda: GPT(GPTConfig.tiny(), generator=0), r"generator must be a Generator"),
    ],
)
def test_bad_inputs_get_a_clear_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- the checkpoint store ----------------------------------------------------------------------


def test_a_tiny_gpt_survives_the_store(tmp_path):
    model = _tiny(vocab_size=30, hidden_size=16, intermediate_size=32, max_position=12)
    save_shipped(model, "gpt_toy", training={"seed": 0}, data_dir=tmp_path)
    loaded = load_shipped("gpt_toy", tmp_path)
    assert type(loaded) is GPT and loaded.config == model.config and not loaded.training
    ids = _ids(2, 7, vocab=30)
    with torch.no_grad():
        torch.testing.assert_close(loaded(ids).logits, model(ids).logits, atol=0, rtol=0)
