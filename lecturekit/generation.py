"""Generation: let any next-token model write, one token at a time, by greedy search, sampling
(temperature, top-k, top-p, repetition penalty) or beam search.

A language model gives, for every prefix y_<t, logits over the vocabulary for y_t. Generating
is a loop: feed the prefix, turn the last position's logits into a choice, append it, repeat.
The *strategy* is how the choice is made. Greedy takes the argmax; sampling draws from the
softmax after the logit processors below have reshaped it; beam search keeps the k best
partial sequences (``lecturekit.decoding.beam_search``).

Public API::

    ids = generate(model, prompt_ids, max_new_tokens, strategy="greedy", *, generator=None,
                   eos_id=None, pad_id=None, use_cache=True)   # (B, T_prompt + n) long
    #   model: anything exposing next-token logits: model(ids (B, t)) -> logits (B, t, V),
    #          a tuple (logits, ...) (CausalLM), or an output with .logits (GPT, Hugging Face)
    #   strategy: a Strategy, or "greedy" / "sample" / "beam" (the defaults below)

    Strategy.greedy()
    Strategy.sample(temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0)
    Strategy.beam(beam_size=4, length_penalty=0.0)
    probs, kept = next_token_distribution(logits, strategy, previous_ids=None)   # NextToken
    #   logits (..., V) -> probs (..., V) (sums to 1), kept (..., V) bool

    # the logit processors, each (..., V) -> (..., V); filtered-out logits become -inf
    apply_repetition_penalty(logits, previous_ids, penalty)   # Keskar et al. 2019 (CTRL)
    apply_temperature(logits, temperature)                    # logits / T
    top_k_filter(logits, k)                                   # Fan et al. 2018
    top_p_filter(logits, p)                                   # Holtzman et al. 2020 (nucleus)

They are Hugging Face's ``RepetitionPenaltyLogitsProcessor``, ``TemperatureLogitsWarper``,
``TopKLogitsWarper`` and ``TopPLogitsWarper`` rule for rule, applied in the same order, and a
sampling step is ``torch.multinomial(probs, 1, generator=generator)`` on the (B, V) batch as in
``GenerationMixin._sample``: the same seed gives Hugging Face's tokens
(``torch.manual_seed(s)`` before ``hf_model.generate`` draws the same stream as
``generator=torch.Generator().manual_seed(s)`` here; tests/test_generation.py).

Key/value cache: if ``model.forward`` accepts ``cache=`` and ``use_cache=`` (lecturekit's
``GPT``), the prompt is fed once and then one new token per step with the returned ``.cache``;
otherwise (or with use_cache=False) the whole prefix is recomputed at every step. Both give the
same tokens. Beam search always recomputes the prefix.

Misuse: a model that is not a causal LM is refused with what to use instead (lecturekit's BERT,
ALBERT and ELECTRA models, the BERT task heads, the encoder-decoders; a Hugging Face
encoder-decoder or a model whose ``can_generate()`` is False, such as ``BertForMaskedLM``); any
other callable is taken at its word. Logits no token can be chosen from (NaN, +inf, a row all
-inf) raise a ValueError naming the step; -inf alone is a masked token and fine.

Stopping: a row that produced ``eos_id`` is finished; its later positions are ``pad_id``
(default: eos_id), and generation stops early once every row is finished, as Hugging Face does.

Lecture 14; Radford et al. 2019 (GPT-2); Holtzman et al. 2020 (The Curious Case of Neural Text
Degeneration).
"""

from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.decoding import beam_search
from lecturekit.utils.checks import (
    check_bool,
    check_ids,
    check_index,
    check_non_negative_int,
    check_positive_int,
    check_range,
    check_tensor,
    did_you_mean,
)
from lecturekit.utils.contracts import contract

__all__ = [
    "Strategy",
    "NextToken",
    "STRATEGY_KINDS",
    "apply_repetition_penalty",
    "apply_temperature",
    "top_k_filter",
    "top_p_filter",
    "next_token_distribution",
    "generate",
]

STRATEGY_KINDS = ("greedy", "sample", "beam")


def _check_temperature(temperature: object) -> float:
    ok = isinstance(temperature, numbers.Real) and not isinstance(temperature, bool)
    if ok and not math.isnan(temperature) and temperature <= 0:
        raise ValueError(
            f"temperature must be > 0 for sampling, got {temperature!r}; use Strategy.greedy() "
            "for temperature -> 0"
        )
    return check_range("temperature", temperature, 0, math.inf, low_open=True, high_open=True)


def _check_top_k(k: object, name: str = "top_k") -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"{name} must be an int >= 1 (1 keeps the most probable token only), "
                         f"got {k!r}")  # fmt: skip
    return int(k)


def _check_top_p(p: object, name: str = "top_p") -> float:
    ok = isinstance(p, numbers.Real) and not isinstance(p, bool) and not math.isnan(p)
    if not ok or not 0 < p <= 1:
        raise ValueError(f"{name} must be a number in (0, 1] (1 keeps every token), got {p!r}")
    return float(p)


def _check_penalty(penalty: object, name: str = "repetition_penalty") -> float:
    return check_range(name, penalty, 0, math.inf, low_open=True, high_open=True)


@dataclass(frozen=True)
class Strategy:
    """How ``generate`` picks the next token.

    Attributes:
        kind: "greedy" (argmax), "sample" (draw from the processed softmax) or "beam".
        temperature: T > 0, sampling only: softmax(logits / T); T < 1 sharpens, T > 1
            flattens (T -> 0 is greedy: use Strategy.greedy()).
        top_k: sampling only: keep the k most probable tokens (ties at the k-th kept); None:
            all.
        top_p: sampling only, in (0, 1]: keep the smallest set of most probable tokens whose
            probabilities sum to >= p (the nucleus); None or 1: all.
        repetition_penalty: > 0, every kind: logits of tokens already in the sequence (the
            prompt included) are divided by it if >= 0, multiplied if < 0; 1 = off, > 1
            discourages repeating.
        beam_size: k >= 1, beam only (beam_size=1 is greedy).
        length_penalty: alpha >= 0, beam only: hypotheses ranked by score / len ** alpha.

    Greedy and beam ignore temperature, top_k and top_p (as Hugging Face does with
    ``do_sample=False``).

    Lecture 14.
    """

    kind: str = "greedy"
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    repetition_penalty: float = 1.0
    beam_size: int = 4
    length_penalty: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in STRATEGY_KINDS:
            raise ValueError(f"kind={self.kind!r} is not one of {list(STRATEGY_KINDS)}"
                             f"{did_you_mean(self.kind, STRATEGY_KINDS)}")  # fmt: skip
        fields: dict[str, Any] = {
            "temperature": _check_temperature(self.temperature),
            "top_k": None if self.top_k is None else _check_top_k(self.top_k),
            "top_p": None if self.top_p is None else _check_top_p(self.top_p),
            "repetition_penalty": _check_penalty(self.repetition_penalty),
            "beam_size": check_positive_int("beam_size", self.beam_size),
            "length_penalty": check_range(
                "length_penalty", self.length_penalty, 0, math.inf, high_open=True
            ),
        }
        for name, value in fields.items():  # normalised: 0.5 not np.float64(0.5), 2 not True
            object.__setattr__(self, name, value)

    @classmethod
    def greedy(cls, repetition_penalty: float = 1.0) -> Strategy:
        """The most probable token at every step (ties: the lowest id)."""
        return cls("greedy", repetition_penalty=repetition_penalty)

    @classmethod
    def sample(
        cls,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        repetition_penalty: float = 1.0,
    ) -> Strategy:
        """Draw the next token from softmax(processed logits / temperature)."""
        return cls("sample", temperature, top_k, top_p, repetition_penalty)

    @classmethod
    def beam(
        cls, beam_size: int = 4, length_penalty: float = 0.0, repetition_penalty: float = 1.0
    ) -> Strategy:
        """Beam search with ``lecturekit.decoding.beam_search``: the best of ``beam_size``."""
        return cls("beam", repetition_penalty=repetition_penalty, beam_size=beam_size,
                   length_penalty=length_penalty)  # fmt: skip

    @property
    def label(self) -> str:
        """A short description for plots: "greedy", "sample T=0.5 top-k=10", "beam k=4"."""
        parts = [self.kind]
        if self.kind == "sample":
            parts.append(f"T={self.temperature:g}")
            if self.top_k is not None:
                parts.append(f"top-k={self.top_k}")
            if self.top_p is not None:
                parts.append(f"top-p={self.top_p:g}")
        if self.kind == "beam":
            parts.append(f"k={self.beam_size}")
            if self.length_penalty:
                parts.append(f"alpha={self.length_penalty:g}")
        if self.repetition_penalty != 1:
            parts.append(f"rep={self.repetition_penalty:g}")
        return " ".join(parts)


class NextToken(NamedTuple):
    """The next-token distribution a strategy uses.

    Attributes:
        probs: (..., V) the distribution (sums to 1 over V): for sampling the one it draws
            from; for greedy and beam the softmax of the (penalised) logits.
        kept: (..., V) bool, the tokens the strategy may choose: those top-k / top-p keep
            (sampling), the argmax (greedy), the beam_size most probable (beam).
    """

    probs: torch.Tensor
    kept: torch.Tensor


def _as_strategy(strategy: object) -> Strategy:
    if isinstance(strategy, Strategy):
        return strategy
    if isinstance(strategy, str) and strategy in STRATEGY_KINDS:
        return Strategy(strategy)
    hint = did_you_mean(strategy, STRATEGY_KINDS)
    raise ValueError(f"strategy must be a Strategy or one of {list(STRATEGY_KINDS)}, got "
                     f"{strategy!r}{hint}")  # fmt: skip


@contract(logits="... V>0")
def apply_repetition_penalty(
    logits: torch.Tensor, previous_ids: torch.Tensor, penalty: float
) -> torch.Tensor:
    """Penalise every token that already occurs in the sequence (CTRL's repetition penalty).

    For each token id present in ``previous_ids`` (the prompt included), a logit < 0 is
    multiplied by ``penalty`` and a logit >= 0 divided by it, once however often the token
    occurred. penalty > 1 makes repeats less likely, < 1 more, 1 changes nothing.

    Args:
        logits: (..., V) next-token logits.
        previous_ids: (..., t) the ids generated so far (integers in 0..V-1), with the same
            leading dims as ``logits``.
        penalty: > 0.

    Returns:
        (..., V) the penalised logits (a new tensor).

    Lecture 14; Keskar et al. 2019 (CTRL) section 4.1, as Hugging Face's
    ``RepetitionPenaltyLogitsProcessor`` implements it (a sign-aware version of CTRL's logit / θ).
    """
    penalty = _check_penalty(penalty, "penalty")
    lead = tuple(logits.shape[:-1])
    check_tensor("previous_ids", previous_ids, logits.ndim, integer=True,
                 wanted=f"(..., t) with the leading dims of logits {lead}")  # fmt: skip
    if previous_ids.shape[:-1] != logits.shape[:-1]:
        raise ValueError(
            f"previous_ids must have the leading dims of logits {tuple(logits.shape[:-1])}, "
            f"got shape {tuple(previous_ids.shape)}"
        )
    check_ids("previous_ids", previous_ids, logits.shape[-1])
    seen = torch.zeros(logits.shape, dtype=torch.bool, device=logits.device)  # (..., V)
    seen.scatter_(-1, previous_ids.long(), True)  # (..., t) -> (..., V): True at seen ids
    penalised = torch.where(logits < 0, logits * penalty, logits / penalty)
    return torch.where(seen, penalised, logits)


@contract(logits="... V>0")
def apply_temperature(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Divide the logits by the temperature: softmax(logits / T).

    T < 1 sharpens the distribution (T -> 0: all mass on the argmax, i.e. greedy), T > 1
    flattens it (T -> inf: uniform); T = 1 leaves it unchanged.

    Args:
        logits: (..., V) next-token logits.
        temperature: T > 0.

    Returns:
        (..., V) ``logits / temperature``.

    Lecture 14; Ackley, Hinton & Sejnowski 1985 (the Boltzmann distribution's temperature);
    Hugging Face's ``TemperatureLogitsWarper``.
    """
    return logits / _check_temperature(temperature)


@contract(logits="... V>0")
def top_k_filter(logits: torch.Tensor, k: int) -> torch.Tensor:
    """Keep the ``k`` largest logits, set the others to -inf (top-k sampling).

    Every token whose logit is >= the k-th largest is kept, so ties at the boundary are all
    kept (more than k tokens then); k >= V keeps everything.

    Args:
        logits: (..., V) next-token logits.
        k: an int >= 1.

    Returns:
        (..., V) the filtered logits.

    Lecture 14; Fan, Lewis & Dauphin 2018 (Hierarchical Neural Story Generation); Hugging
    Face's ``TopKLogitsWarper``.
    """
    k = min(_check_top_k(k, "k"), logits.shape[-1])
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]  # (..., V) -> (..., 1)
    return logits.masked_fill(logits < kth, -math.inf)


@contract(logits="... V>0")
def top_p_filter(logits: torch.Tensor, p: float) -> torch.Tensor:
    """Nucleus filtering: keep the smallest set of most probable tokens whose probabilities
    sum to >= p, set the others to -inf.

    Hugging Face's rule, exactly: sort the probabilities ascending and drop every token whose
    cumulative sum (itself included) is <= 1 - p; the most probable token is always kept.

    Args:
        logits: (..., V) next-token logits.
        p: in (0, 1]; a tiny p keeps only the most probable token.

    Returns:
        (..., V) the filtered logits.

    Lecture 14; Holtzman et al. 2020 (The Curious Case of Neural Text Degeneration) eq. 2;
    Hugging Face's ``TopPLogitsWarper``.
    """
    p = _check_top_p(p, "p")
    sorted_logits, order = torch.sort(logits, dim=-1, descending=False)  # ascending
    cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)  # (..., V)
    drop_sorted = cumulative <= (1 - p)
    drop_sorted[..., -1:] = False  # the most probable token stays
    drop = drop_sorted.scatter(-1, order, drop_sorted)  # back to vocabulary order
    return logits.masked_fill(drop, -math.inf)


@contract(logits="... V>0")
def next_token_distribution(
    logits: torch.Tensor, strategy: Strategy | str, previous_ids: torch.Tensor | None = None
) -> NextToken:
    """The distribution a strategy chooses the next token from, and the tokens it keeps.

    The processors run in Hugging Face's order: repetition penalty (needs ``previous_ids``),
    then, for sampling, temperature, top-k, top-p; then softmax.

    Args:
        logits: (..., V) next-token logits.
        strategy: a Strategy, or "greedy" / "sample" / "beam".
        previous_ids: (..., t) the sequence so far, for the repetition penalty (required if
            strategy.repetition_penalty != 1).

    Returns:
        ``NextToken(probs, kept)``, each (..., V): for sampling, the processed softmax and the
        tokens top-k / top-p keep; for greedy, softmax of the penalised logits and the argmax
        (lowest id on ties) alone; for beam, that softmax and its beam_size most probable
        tokens.

    Lecture 14.
    """
    strategy = _as_strategy(strategy)
    _check_scores(logits, "logits")
    if strategy.repetition_penalty != 1:
        if previous_ids is None:
            raise ValueError(
                f"previous_ids is needed for repetition_penalty={strategy.repetition_penalty:g}"
                " (the ids generated so far, prompt included, shape (..., t))"
            )
        logits = apply_repetition_penalty(logits, previous_ids, strategy.repetition_penalty)
    if strategy.kind == "sample":
        if strategy.temperature != 1:
            logits = apply_temperature(logits, strategy.temperature)
            _check_scores(logits, f"logits / temperature={strategy.temperature:g}",
                          "the temperature is too small for these logits: use a larger one, "
                          "or Strategy.greedy()")  # fmt: skip
        if strategy.top_k is not None:
            logits = top_k_filter(logits, strategy.top_k)
        if strategy.top_p is not None and strategy.top_p < 1:
            logits = top_p_filter(logits, strategy.top_p)
        return NextToken(logits.softmax(dim=-1), logits > -math.inf)
    probs = logits.softmax(dim=-1)
    k = 1 if strategy.kind == "greedy" else min(strategy.beam_size, logits.shape[-1])
    best = logits.sort(dim=-1, descending=True, stable=True).indices[..., :k]  # ties: low id
    kept = torch.zeros(logits.shape, dtype=torch.bool, device=logits.device)
    return NextToken(probs, kept.scatter_(-1, best, True))


# ---------------------------------------------------------------------------------------------
# generate


def _prompt_tensor(prompt_ids: object) -> torch.Tensor:
    """prompt_ids as a (B, T) long tensor (a list of ints or a (T,) tensor is one row)."""
    if isinstance(prompt_ids, (list, tuple)):
        try:
            converted = torch.tensor(prompt_ids)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(
                f"prompt_ids must be token ids, (T,) or (B, T) (rows of one length), got "
                f"{prompt_ids!r:.80}"
            ) from None
        if converted.is_floating_point() or converted.dtype == torch.bool:
            raise ValueError(f"prompt_ids must be integer token ids, got {prompt_ids!r:.80}")
        prompt_ids = converted
    check_tensor("prompt_ids", prompt_ids, wanted="(T,) or (B, T)", integer=True)
    if prompt_ids.ndim not in (1, 2):
        raise ValueError(f"prompt_ids must have shape (T,) or (B, T), got "
                         f"{tuple(prompt_ids.shape)}")  # fmt: skip
    ids = prompt_ids.reshape(1, -1) if prompt_ids.ndim == 1 else prompt_ids
    if ids.shape[0] < 1 or ids.shape[1] < 1:
        raise ValueError(f"prompt_ids must hold at least one token per row (T >= 1), got shape "
                         f"{tuple(prompt_ids.shape)}")  # fmt: skip
    if int(ids.min()) < 0:
        raise ValueError(f"prompt_ids must be token ids >= 0, got {int(ids.min())}")
    return ids.long()


def _config_int(model: object, *names: str) -> int | None:
    config = getattr(model, "config", None)
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0:
            return int(value)
    return None


def _accepts_cache(model: object) -> bool:
    """model.forward takes ``cache=`` and ``use_cache=`` (lecturekit's GPT)."""
    fn = model.forward if isinstance(model, nn.Module) else model
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "cache" in params and "use_cache" in params


def _logits_of(out: object, ids: torch.Tensor) -> torch.Tensor:
    """The (B, t, V) logits in a model's output, checked against the (B, t) input."""
    if isinstance(out, torch.Tensor):
        logits = out
    elif isinstance(getattr(out, "logits", None), torch.Tensor):
        logits = out.logits  # GPTOutput, Hugging Face's CausalLMOutput
    elif isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        logits = out[0]  # (logits, attentions) as CausalLM returns
    else:
        raise ValueError(
            "model must return next-token logits (B, t, V): a tensor, a tuple whose first "
            f"element is one, or an output with .logits; got {type(out).__name__}"
        )
    B, t = ids.shape
    if logits.ndim != 3 or logits.shape[:2] != (B, t) or logits.shape[2] < 1:
        raise ValueError(
            f"model must return logits of shape (B, t, V) = ({B}, {t}, V) for ids of shape "
            f"({B}, {t}), got {tuple(logits.shape)}"
        )
    if not logits.is_floating_point():
        raise ValueError(f"model must return floating-point logits, got dtype {logits.dtype}")
    return logits


_CAUSAL = "use lecturekit.models.gpt.GPT or lecturekit.models.causal_lm.CausalLM to generate"
_ENCODER_DECODER = (
    "an encoder-decoder model: translate with its greedy_decode, or "
    "lecturekit.decoding.beam_search(model.step_function(src_ids), ...)"
)
_MASKED = f"a masked language model: it reads both sides of a position; {_CAUSAL}"
# lecturekit's models that do not give next-token logits (module, class) -> what to use instead;
# matched by name along the class's MRO (generation sits below models: it cannot import them)
_NOT_CAUSAL = {
    ("lecturekit.models.bert", "BertModel"): "an encoder without an LM head; " + _CAUSAL,
    ("lecturekit.models.bert", "BertForPreTraining"):
        f"{_MASKED}, or lecturekit.models.bert.fill_mask to fill [MASK] tokens",
    ("lecturekit.models.bert_tasks", "_BertTaskModel"): "a BERT task head; " + _CAUSAL,
    ("lecturekit.models.albert", "AlbertForPreTraining"): _MASKED,
    ("lecturekit.models.electra", "ElectraGenerator"): _MASKED,
    ("lecturekit.models.electra", "ElectraDiscriminator"):
        "ELECTRA's replaced-token detector; " + _CAUSAL,
    ("lecturekit.models.electra", "Electra"): "ELECTRA's generator and detector; " + _CAUSAL,
    ("lecturekit.models.recurrent", "BiLM"): "a bidirectional LM (ELMo); " + _CAUSAL,
    ("lecturekit.models.transformer", "Transformer"): _ENCODER_DECODER,
    ("lecturekit.models.seq2seq", "Seq2Seq"): _ENCODER_DECODER,
    ("lecturekit.models.captioning", "Captioner"): "an image captioner; caption with its own "
                                                   "methods",
    ("lecturekit.models.vit", "ViT"): "an image classifier; " + _CAUSAL,
    ("lecturekit.models.word2vec", "SkipGram"): "a word2vec model; " + _CAUSAL,
}  # fmt: skip


def _check_causal_lm(model: object) -> None:
    """Refuse models that are not causal LMs: lecturekit's (by class) and Hugging Face's
    encoder-decoders and models without generation (BertForMaskedLM); accept the rest."""
    name = type(model).__name__
    for cls in type(model).__mro__:
        instead = _NOT_CAUSAL.get((cls.__module__, cls.__qualname__))
        if instead is not None:
            raise ValueError(f"model must be a causal language model (next-token logits from "
                             f"the left context only), got {name}: {instead}")  # fmt: skip
    if not type(model).__module__.startswith("transformers."):
        return
    if getattr(getattr(model, "config", None), "is_encoder_decoder", False) is True:
        raise ValueError(f"model must be a causal language model, got {name}, an encoder-decoder "
                         "model: use its own .generate(input_ids, ...)")  # fmt: skip
    can_generate = getattr(model, "can_generate", None)
    if callable(can_generate) and can_generate() is False:
        raise ValueError(f"model must be a causal language model (a Hugging Face ...ForCausalLM "
                         f"or ...LMHeadModel), got {name}; {_CAUSAL}")  # fmt: skip


_OVERFLOW = ("check the model for overflow (train in float32, lower the learning rate) or a "
             "division by zero")  # fmt: skip


def _check_scores(scores: torch.Tensor, what: str, fix: str = _OVERFLOW) -> None:
    """Refuse (..., V) scores no token can be chosen from: NaN, +inf, or a row all -inf."""
    best = scores.amax(dim=-1)  # (..., V) -> (...): NaN, +inf or -inf if the row is unusable
    if bool(torch.isfinite(best).all()):
        return
    for bad, label in ((torch.isnan(scores), "NaN"), (scores == math.inf, "+inf")):
        if bad.any():
            where = tuple(int(i) for i in bad.nonzero()[0])
            raise ValueError(f"{what} hold {label} (position {where}): no token can be chosen "
                             f"from them; {fix}")  # fmt: skip
    where = tuple(int(i) for i in (best == -math.inf).nonzero()[0])
    raise ValueError(f"{what} are all -inf in row {where}: no token is possible (check the "
                     "model's masks)")  # fmt: skip


class _Modes:
    """Every submodule in eval mode inside the block, its own mode restored after."""

    def __init__(self, model: object):
        self.modules = list(model.modules()) if isinstance(model, nn.Module) else []

    def __enter__(self) -> None:
        self.saved = [m.training for m in self.modules]
        if self.modules:
            self.modules[0].eval()  # the root: a subclass's own eval()/train() runs too

    def __exit__(self, *exc: object) -> None:
        for m, training in zip(self.modules, self.saved, strict=True):
            m.training = training


@torch.no_grad()
def generate(
    model: Any,
    prompt_ids: torch.Tensor | list[int],
    max_new_tokens: int,
    strategy: Strategy | str = "greedy",
    *,
    generator: torch.Generator | None = None,
    eos_id: int | None = None,
    pad_id: int | None = None,
    use_cache: bool = True,
) -> torch.Tensor:
    """Continue each prompt by ``max_new_tokens`` tokens (fewer if every row reached eos).

    Args:
        model: anything exposing next-token logits: ``model(ids (B, t))`` returning logits
            (B, t, V), a tuple whose first element is such logits (``CausalLM``), or an output
            with ``.logits`` (lecturekit's ``GPT``, Hugging Face causal LMs). Run in eval mode
            under ``torch.no_grad`` (an ``nn.Module``'s modes are restored after). Models
            that are not causal LMs (BERT's masked LM, task heads, encoder-decoders) are
            refused; logits holding NaN or +inf, or a row all -inf, raise a ValueError.
        prompt_ids: (T,) or (B, T) token ids, T >= 1, every row real tokens (no padding); a
            list of ints works too. If the model's config has ``max_position``, T +
            max_new_tokens must fit in it.
        max_new_tokens: n >= 1, the most tokens to add.
        strategy: a ``Strategy``, or "greedy" / "sample" / "beam" (their defaults).
        generator: the ``torch.Generator`` sampling draws from (None: torch's global one).
        eos_id: the id that finishes a row (None: rows run to max_new_tokens). Beam search
            without eos_id returns the best hypothesis of exactly max_new_tokens tokens.
        pad_id: the id written after a finished row's eos (default: eos_id).
        use_cache: reuse the keys and values of earlier positions if the model supports it
            (``forward(..., cache=, use_cache=)``); the tokens are the same either way.

    Returns:
        (B, T + n') long: the prompts followed by the n' <= max_new_tokens generated tokens
        (a 1-D prompt gives B = 1); a row finished early is padded with pad_id.

    Lecture 14; Radford et al. 2019; Holtzman et al. 2020.
    """
    if not callable(model):
        raise ValueError(f"model must be callable (ids (B, t) -> logits (B, t, V)), got "
                         f"{type(model).__name__}")  # fmt: skip
    _check_causal_lm(model)
    ids = _prompt_tensor(prompt_ids)
    max_new_tokens = check_positive_int("max_new_tokens", max_new_tokens)
    strategy = _as_strategy(strategy)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(
            f"generator must be a torch.Generator (torch.Generator().manual_seed(0)) or None, "
            f"got {type(generator).__name__}"
        )
    if eos_id is not None:
        eos_id = check_non_negative_int("eos_id", eos_id)
    if pad_id is not None:
        pad_id = check_non_negative_int("pad_id", pad_id)
    pad_id = eos_id if pad_id is None else pad_id
    check_bool("use_cache", use_cache)

    T = ids.shape[1]
    context = _config_int(model, "max_position", "n_positions", "max_position_embeddings")
    if context is not None and T + max_new_tokens > context:
        raise ValueError(
            f"prompt longer than the context: prompt_ids has T={T} tokens and max_new_tokens="
            f"{max_new_tokens}, together {T + max_new_tokens} > max_position={context}"
        )
    V = _config_int(model, "vocab_size")
    if V is not None:
        _check_ids_in_vocab(ids, V, eos_id, pad_id)

    with _Modes(model):
        if strategy.kind == "beam":
            return _beam(model, ids, max_new_tokens, strategy, eos_id, pad_id)
        return _loop(model, ids, max_new_tokens, strategy, generator, eos_id, pad_id,
                     use_cache and _accepts_cache(model))  # fmt: skip


def _check_ids_in_vocab(ids: torch.Tensor, V: int, eos_id: int | None, pad_id: int | None):
    check_ids("prompt_ids", ids, V)
    if eos_id is not None:
        check_index("eos_id", eos_id, V)
    if pad_id is not None:
        check_index("pad_id", pad_id, V)


def _loop(
    model: Any,
    ids: torch.Tensor,
    max_new_tokens: int,
    strategy: Strategy,
    generator: torch.Generator | None,
    eos_id: int | None,
    pad_id: int | None,
    cached: bool,
) -> torch.Tensor:
    """Greedy search or sampling, one token per step for every row at once."""
    unfinished = torch.ones(ids.shape[0], dtype=torch.bool, device=ids.device)  # (B,)
    cache = None
    for step in range(max_new_tokens):
        if cached:
            inputs = ids if cache is None else ids[:, -1:]  # the prompt once, then 1 token
            out = model(inputs, cache=cache, use_cache=True)
            cache = getattr(out, "cache", None)
            if cache is None:
                raise ValueError("model accepts use_cache=True but returned no .cache; pass "
                                 "use_cache=False")  # fmt: skip
        else:
            inputs = ids  # the whole prefix, every step
            out = model(inputs)
        logits = _logits_of(out, inputs)[:, -1]  # (B, t, V) -> (B, V)
        if step == 0:
            _check_ids_in_vocab(ids, logits.shape[-1], eos_id, pad_id)
        _check_scores(logits, f"the model's logits at step {step + 1}")
        if strategy.kind == "greedy":
            if strategy.repetition_penalty != 1:
                logits = apply_repetition_penalty(logits, ids, strategy.repetition_penalty)
            next_ids = logits.argmax(dim=-1)  # (B, V) -> (B,); ties: the lowest id
        else:
            probs = next_token_distribution(logits, strategy, ids).probs  # (B, V)
            next_ids = torch.multinomial(probs, 1, generator=generator).squeeze(1)  # (B,)
        if eos_id is not None:
            next_ids = torch.where(unfinished, next_ids, pad_id)
        ids = torch.cat([ids, next_ids[:, None]], dim=1)  # (B, t) -> (B, t + 1)
        if eos_id is not None:
            unfinished &= next_ids != eos_id
            if not unfinished.any():
                break
    return ids


def _beam(
    model: Any,
    ids: torch.Tensor,
    max_new_tokens: int,
    strategy: Strategy,
    eos_id: int | None,
    pad_id: int | None,
) -> torch.Tensor:
    """Beam search per prompt row with ``lecturekit.decoding.beam_search``.

    The search's "bos" is the prompt's last token; the step function puts the rest of the
    prompt in front of each hypothesis. Without eos_id, an extra impossible token (log-prob
    -inf, id V) serves as beam_search's eos, so no hypothesis ends early.
    """
    V = _logits_of(model(ids), ids).shape[-1]  # the first call: the vocabulary size
    _check_ids_in_vocab(ids, V, eos_id, pad_id)
    eos = V if eos_id is None else eos_id
    rows = []
    for row in ids:
        step = _beam_step_function(model, row[:-1], strategy.repetition_penalty, eos_id is None)
        best = beam_search(step, int(row[-1]), eos, strategy.beam_size, max_new_tokens,
                           length_penalty=strategy.length_penalty, n_best=1)[0]  # fmt: skip
        rows.append(row.tolist() + list(best.tokens))
    width = max(len(r) for r in rows)
    if pad_id is None and any(len(r) < width for r in rows):  # only if the model gave -inf
        raise ValueError("pad_id is needed: the beam hypotheses have different lengths")
    return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], device=ids.device)


def _beam_step_function(
    model: Any, context: torch.Tensor, penalty: float, impossible_eos: bool
) -> Any:
    """step(prefix (N, t), starting with the prompt's last token) -> log-probs (N, V[+1])."""

    def step(prefix: torch.Tensor) -> torch.Tensor:
        prefix = prefix.to(context.device)
        full = torch.cat([context.expand(prefix.shape[0], -1), prefix], dim=1)  # (N, T - 1 + t)
        logits = _logits_of(model(full), full)[:, -1]  # (N, t', V) -> (N, V)
        _check_scores(logits, f"the model's logits at step {prefix.shape[1]}")
        if penalty != 1:
            logits = apply_repetition_penalty(logits, full, penalty)
        log_probs = F.log_softmax(logits.double(), dim=-1)
        if impossible_eos:  # (N, V) -> (N, V + 1): token V, probability 0
            log_probs = F.pad(log_probs, (0, 1), value=-math.inf)
        return log_probs

    return step
