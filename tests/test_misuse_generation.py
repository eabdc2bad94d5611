"""Misuse of generation and decoding (issue 41): scores no token can be chosen from (NaN, +inf,
a row all -inf) raise a ValueError naming where they came from; models that are not causal
LMs (BERT's masked LM, task heads, ELECTRA, ALBERT, encoder-decoders) are refused by
``generate`` with what to use instead; the valid inputs around each fix still work."""

import math

import pytest
import torch
import transformers

from lecturekit.decoding import beam_search, beam_step, greedy_search
from lecturekit.generation import Strategy, generate, next_token_distribution
from lecturekit.models.albert import AlbertConfig, AlbertForPreTraining
from lecturekit.models.bert import BertConfig, BertForPreTraining, BertModel
from lecturekit.models.bert_tasks import BertForSequenceClassification, BertTaskConfig
from lecturekit.models.causal_lm import CausalLM
from lecturekit.models.electra import Electra, ElectraConfig, ElectraGenerator
from lecturekit.models.gpt import GPT, GPTConfig
from lecturekit.models.transformer import Transformer, TransformerConfig

NAN, INF = math.nan, math.inf
V = 5


def logits_model(value: float, at: int = 2, from_step: int = 0):
    """ids (B, t) -> logits (B, t, V): zeros, ``value`` at token ``at`` once t > from_step."""

    def model(ids: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(ids.shape[0], ids.shape[1], V)
        if ids.shape[1] > from_step:
            out[..., at] = value
        return out

    return model


def all_minus_inf(ids: torch.Tensor) -> torch.Tensor:
    return torch.full((ids.shape[0], ids.shape[1], V), -INF)


def log_probs_step(value: float):
    """prefix (N, t) -> log-probs (N, V): uniform, with ``value`` at token 2 if not None."""

    def step(prefix: torch.Tensor) -> torch.Tensor:
        out = torch.full((prefix.shape[0], V), -math.log(V))
        out[:, 2] = value
        return out

    return step


def minus_inf_step(prefix: torch.Tensor) -> torch.Tensor:
    return torch.full((prefix.shape[0], V), -INF)


# fmt: off
SCORES = [  # (description, callable, exception, regex naming where and what)
    ("generate greedy: NaN logits", lambda: generate(logits_model(NAN), [1], 3),
     ValueError, r"the model's logits at step 1 hold NaN \(position \(0, 2\)\)"),
    ("generate greedy: NaN from step 3", lambda: generate(logits_model(NAN, from_step=2), [1], 4),
     ValueError, r"the model's logits at step 3 hold NaN"),
    ("generate sample: NaN logits", lambda: generate(logits_model(NAN), [1], 3, "sample"),
     ValueError, r"the model's logits at step 1 hold NaN"),
    ("generate beam: NaN logits", lambda: generate(logits_model(NAN), [1], 3, Strategy.beam(2)),
     ValueError, r"the model's logits at step 1 hold NaN"),
    ("generate greedy: +inf logits", lambda: generate(logits_model(INF), [1], 3),
     ValueError, r"the model's logits at step 1 hold \+inf"),
    ("generate sample: +inf logits", lambda: generate(logits_model(INF), [1], 3, "sample"),
     ValueError, r"the model's logits at step 1 hold \+inf"),
    ("generate greedy: a row all -inf", lambda: generate(all_minus_inf, [1], 3),
     ValueError, r"the model's logits at step 1 are all -inf in row \(0,\)"),
    ("generate beam: a row all -inf", lambda: generate(all_minus_inf, [1], 3, Strategy.beam(2)),
     ValueError, r"the model's logits at step 1 are all -inf"),
    ("generate sample: temperature overflows the logits",
     lambda: generate(logits_model(1.0), [1], 2, Strategy.sample(temperature=1e-300)),
     ValueError, r"logits / temperature=1e-300 hold (NaN|\+inf).*larger one"),
    ("next_token_distribution: NaN logits",
     lambda: next_token_distribution(torch.tensor([1.0, NAN]), "greedy"),
     ValueError, r"logits hold NaN \(position \(1,\)\)"),
    ("next_token_distribution: all -inf",
     lambda: next_token_distribution(torch.full((2, 3), -INF), "sample"),
     ValueError, r"logits are all -inf in row \(0,\)"),
    ("greedy_search: NaN log-probs", lambda: greedy_search(log_probs_step(NAN), 0, 1, 3),
     ValueError, r"step returned NaN or \+inf log-probs in row 0 at step 1 \(token 2: nan\)"),
    ("greedy_search: a row all -inf", lambda: greedy_search(minus_inf_step, 0, 1, 3),
     ValueError, r"step returned -inf log-probs for every token in row 0 at step 1"),
    ("beam_search: +inf log-probs", lambda: beam_search(log_probs_step(INF), 0, 1, 2, 3),
     ValueError, r"step returned NaN or \+inf log-probs in row 0 at step 1 \(token 2: inf\)"),
    ("beam_search: a row all -inf", lambda: beam_search(minus_inf_step, 0, 1, 2, 3),
     ValueError, r"step returned -inf log-probs for every token in row 0 at step 1"),
    ("beam_step: NaN log_probs",
     lambda: beam_step(torch.zeros(2), torch.tensor([[-1.0, NAN], [-1.0, -2.0]]), 2),
     ValueError, r"log_probs holds NaN or \+inf log-probs in row 0 \(token 1: nan\)"),
    ("beam_step: NaN scores",
     lambda: beam_step(torch.tensor([0.0, NAN]), torch.zeros(2, 3).log_softmax(-1), 2),
     ValueError, r"scores must not hold NaN, got \[0.0, nan\]"),
]
# fmt: on


@pytest.mark.parametrize(("call", "exc", "pattern"), [r[1:] for r in SCORES],
                         ids=[r[0] for r in SCORES])  # fmt: skip
def test_unusable_scores_are_refused(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_masked_scores_still_work():
    """-inf is a legitimate masked score: generation and both searches skip the token."""
    masked = logits_model(-INF, at=0)  # token 0 impossible, the rest tie: lowest id 1
    assert generate(masked, [3], 3).tolist() == [[3, 1, 1, 1]]
    assert set(generate(masked, [3], 4, "sample", generator=torch.Generator().manual_seed(0))
               [0, 1:].tolist()) <= {1, 2, 3, 4}  # fmt: skip
    assert generate(masked, [3], 2, Strategy.beam(2)).tolist() == [[3, 1, 1]]
    step = log_probs_step(-INF)  # token 2 impossible; the others renormalised below
    renorm = lambda p: step(p).log_softmax(-1)  # noqa: E731
    assert greedy_search(renorm, 0, 1, 3).tokens == (0, 0, 0)
    assert beam_search(renorm, 0, 4, 2, 2)[0].tokens == (0, 0)
    beams, tokens, _ = beam_step(torch.zeros(2), torch.tensor([[-1.0, -INF], [-INF, -INF]]), 3)
    assert beams.tolist() == [0] and tokens.tolist() == [0]  # a finished (all -inf) row is fine
    probs, kept = next_token_distribution(torch.tensor([-INF, 0.0, 1.0]), "sample")
    assert probs[0] == 0 and kept.tolist() == [False, True, True]


# --- models that are not causal LMs ----------------------------------------------------------

BERT = BertConfig.tiny(vocab_size=40, hidden_size=16, num_layers=1, num_heads=2,
                       intermediate_size=32, max_position=16)  # fmt: skip
GPT_CONFIG = GPTConfig.tiny(vocab_size=40, max_position=16)


def _hf(cls, config_cls, **kwargs):
    return cls(config_cls(**kwargs)).eval()


HF_BERT = dict(vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
               intermediate_size=32, max_position_embeddings=16)  # fmt: skip
HF_GPT2 = dict(vocab_size=40, n_embd=16, n_layer=1, n_head=2, n_positions=16, bos_token_id=0,
               eos_token_id=0)  # fmt: skip

# fmt: off
MODELS = [  # (description, model maker, regex naming the model and what to use instead)
    ("BertForPreTraining", lambda: BertForPreTraining(BERT),
     r"model must be a causal language model .*got BertForPreTraining: a masked language model"
     r".*lecturekit\.models\.gpt\.GPT or lecturekit\.models\.causal_lm\.CausalLM"
     r".*lecturekit\.models\.bert\.fill_mask"),
    ("BertModel", lambda: BertModel(BERT),
     r"got BertModel: an encoder without an LM head; use lecturekit\.models\.gpt\.GPT"),
    ("BertForSequenceClassification",
     lambda: BertForSequenceClassification(BertTaskConfig.tiny(num_labels=2)),
     r"got BertForSequenceClassification: a BERT task head; use lecturekit\.models\.gpt\.GPT"),
    ("ElectraGenerator", lambda: ElectraGenerator(BERT),
     r"got ElectraGenerator: a masked language model"),
    ("Electra", lambda: Electra(ElectraConfig.tiny()),
     r"got Electra: ELECTRA's generator and detector"),
    ("AlbertForPreTraining", lambda: AlbertForPreTraining(AlbertConfig.tiny()),
     r"got AlbertForPreTraining: a masked language model"),
    ("Transformer (encoder-decoder)", lambda: Transformer(TransformerConfig.tiny()),
     r"got Transformer: an encoder-decoder model: translate with its greedy_decode"),
    ("HF BertForMaskedLM",
     lambda: _hf(transformers.BertForMaskedLM, transformers.BertConfig, **HF_BERT),
     r"model must be a causal language model .*got BertForMaskedLM; use lecturekit\.models"),
    ("HF T5 (encoder-decoder)",
     lambda: _hf(transformers.T5ForConditionalGeneration, transformers.T5Config, vocab_size=40,
                 d_model=16, d_kv=8, num_layers=1, num_heads=2, d_ff=32),
     r"got T5ForConditionalGeneration, an encoder-decoder model: use its own \.generate"),
]
# fmt: on


@pytest.mark.parametrize(("make", "pattern"), [r[1:] for r in MODELS], ids=[r[0] for r in MODELS])
def test_models_that_are_not_causal_lms_are_refused(make, pattern):
    model = make()
    with pytest.raises(ValueError, match=pattern):
        generate(model, [1, 2], 2)


class StudentGPT(torch.nn.Module):
    """A notebook-style causal LM of its own class: ids (B, t) -> logits (B, t, V)."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(40, 40)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.emb(ids)


# fmt: off
CAUSAL = [  # the valid models around the fix: each still generates
    ("lecturekit GPT", lambda: GPT(GPT_CONFIG)),
    ("lecturekit CausalLM", lambda: CausalLM(BERT)),
    ("a student's nn.Module", StudentGPT),
    ("a plain function", lambda: (lambda ids: torch.zeros(*ids.shape, 40))),
    ("HF GPT2LMHeadModel", lambda: _hf(transformers.GPT2LMHeadModel, transformers.GPT2Config,
                                       **HF_GPT2)),
    ("HF BertLMHeadModel (is_decoder)",
     lambda: _hf(transformers.BertLMHeadModel, transformers.BertConfig, is_decoder=True,
                 **HF_BERT)),
]
# fmt: on


@pytest.mark.parametrize("make", [r[1] for r in CAUSAL], ids=[r[0] for r in CAUSAL])
@pytest.mark.parametrize("strategy", ["greedy", "sample", Strategy.beam(2)],
                         ids=["greedy", "sample", "beam"])  # fmt: skip
def test_causal_lms_still_generate(make, strategy):
    torch.manual_seed(0)
    out = generate(make(), [1, 2], 3, strategy, generator=torch.Generator().manual_seed(0))
    assert out.shape == (1, 5) and out[0, :2].tolist() == [1, 2]


def test_every_class_generate_refuses_still_exists():
    """generate names lecturekit's non-causal classes as (module, class) strings (it sits below
    models and cannot import them): a class renamed or moved would be accepted again."""
    import importlib

    import lecturekit.generation

    for module, name in lecturekit.generation._NOT_CAUSAL:
        assert isinstance(getattr(importlib.import_module(module), name, None), type), (
            module,
            name,
        )
