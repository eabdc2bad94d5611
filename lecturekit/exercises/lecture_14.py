"""Lecture 14's exercises: GPT, how it generates, and learning from the prompt.

14.1 min-p sampling in your loop (code: the student's sampling loop, run on the student's GPT
with the shipped weights, against min-p sampling computed here with the same generator: Hugging
Face's ``MinPLogitsWarper`` rule), 14.2 GPT-1, post-norm (code: a subclass of the notebook's
GPT, lecturekit's post-norm GPT's weights copied in, its logits compared), 14.3 what
temperature does (hashed). The parameter count, the KV cache and the in-context reader moved
to lecture 14b with their sections (``lecture_14b``).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("14", "14_gpt_generation")

# 14.1: (prompt, min_p, seed). The story GPT is mostly sure of the next token; in all but the
# last case plain sampling draws a token min-p cuts somewhere. In the first, min-p, greedy
# search, plain sampling and a bar of min_p itself all write different texts, so the first
# failing case names the near miss.
MIN_P_CASES = (("he", 0.1, 1), ("i", 0.2, 2), ("my", 0.5, 1), ("the", 0.3, 0), ("", 0.3, 1),
               ("my dog", 0.3, 0))  # fmt: skip
MIN_P_NEW_TOKENS = 60


def _logits_of(model: object, ids: torch.Tensor, what: str) -> torch.Tensor:
    """model(ids) as next-token logits (B, T, V): a tensor (the notebook's GPT) or an output
    with .logits (lecturekit's GPT)."""
    out = run_student(model, ids, what=what)
    logits = as_tensor(getattr(out, "logits", out), what)
    if logits.ndim != 3 or tuple(logits.shape[:2]) != tuple(ids.shape):
        raise NotYet(f"{what} should give logits (B, T, V) with (B, T) = {tuple(ids.shape)}, "
                     f"got shape {tuple(logits.shape)}")  # fmt: skip
    return logits


def min_p_keep(logits: torch.Tensor, min_p: float) -> torch.Tensor:
    """The tokens min-p sampling keeps: probability >= min_p x the top token's (..., V) bool.

    Hugging Face's ``MinPLogitsWarper`` rule (Nguyen et al. 2024), with min_tokens_to_keep=1
    (the top token always passes).
    """
    probs = logits.softmax(dim=-1)
    return probs >= min_p * probs.max(dim=-1, keepdim=True).values


# the rules a student's loop may apply instead of min-p's: name -> (p (V,), min_p) -> kept (V,)
_NEAR_MISSES = {
    "greedy": lambda p, min_p: p == p.max(),
    "absolute": lambda p, min_p: (p >= min_p) | (p == p.max()),
    "plain": lambda p, min_p: torch.ones_like(p, dtype=torch.bool),
}


@torch.no_grad()
def _reference(model: object, ids: torch.Tensor, min_p: float, seed: int, eos_id: int,
               rule: str | None = None) -> list[int]:  # fmt: skip
    """Min-p sampling from the model (or a near miss's ``rule``, ``_NEAR_MISSES``), one
    torch.multinomial draw per step from a seeded generator."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(MIN_P_NEW_TOKENS):
        logits = _logits_of(model, ids, "model(ids)")[0, -1]  # (V,)
        p = logits.softmax(-1)
        keep = min_p_keep(logits, min_p) if rule is None else _NEAR_MISSES[rule](p, min_p)
        logits = logits.masked_fill(~keep, -math.inf)
        next_id = torch.multinomial(logits.softmax(-1), 1, generator=generator)  # (1,)
        ids = torch.cat([ids, next_id.view(1, 1)], dim=1)  # (1, t) -> (1, t + 1)
        if int(next_id) == eos_id:
            break
    return ids[0].tolist()


@exercise(
    "14.1",
    "min-p sampling in your loop",
    hints=(
        "Start from continue_text: temperature 1, no top-k, no top-p. Before drawing, turn the "
        "logits into probabilities and find the largest one.",
        "A token stays when its probability is at least min_p times that largest probability; "
        "the others become -inf. Then draw with torch.multinomial(..., generator=generator), "
        "append, and stop at eos_id, as continue_text does.",
    ),
)
def _min_p(answer: object, *, model: object) -> str:
    from lecturekit.datasets.stories import END_OF_TEXT
    from lecturekit.experiments.generation import prompt_ids
    from lecturekit.shipped import load_tokenizer

    if not callable(model):
        raise NotYet("pass your GPT too: check('14.1', continue_min_p, model=mine)")
    tokenizer = load_tokenizer("gpt_tiny")
    probe = torch.tensor([prompt_ids("my", tokenizer)])
    story_model = ("model should be your GPT with the shipped story weights (model=mine), "
                   f"{len(tokenizer)} tokens")  # fmt: skip
    try:
        with torch.no_grad():
            vocab = _logits_of(model, probe, "model(ids)").shape[-1]
    except NotYet as err:
        raise NotYet(f"{story_model}: {err}") from None
    if vocab != len(tokenizer):
        raise NotYet(f"{story_model}; its logits have {vocab} entries")
    was_training = getattr(model, "training", False)
    if isinstance(model, nn.Module):
        model.eval()
    try:
        _compare_min_p(answer, model, tokenizer, prompt_ids, END_OF_TEXT)
    finally:
        if isinstance(model, nn.Module):
            model.train(was_training)
    return (
        f"your loop writes min-p sampling's tokens in {len(MIN_P_CASES)} runs (prompts, min_p "
        "and seeds): after a confident token min-p keeps one or two candidates, after an unsure "
        "one many, a cut that follows the model's confidence as top-p does, but from the top "
        "token's probability alone"
    )


def _compare_min_p(
    answer: object, model: object, tokenizer: object, prompt_ids: object, eos_id: int
) -> None:
    """NotYet unless the student's loop writes the reference's tokens in every case."""
    for prompt, min_p, seed in MIN_P_CASES:
        ids = torch.tensor([prompt_ids(prompt, tokenizer)])  # (1, T)
        what = f"your function on the prompt {prompt!r} with min_p={min_p}, seed {seed}"
        runs = []
        for _ in range(2):
            with torch.no_grad():
                got = run_student(answer, model, ids.clone(), MIN_P_NEW_TOKENS, min_p,
                                  generator=torch.Generator().manual_seed(seed), eos_id=eos_id,
                                  what=what)  # fmt: skip
            got = as_tensor(got, what, dtype=torch.long)
            if got.ndim != 2 or got.shape[0] != 1:
                raise NotYet(f"{what}: return the ids as (1, T + n), the prompt then the new "
                             f"tokens, got shape {tuple(got.shape)}")  # fmt: skip
            runs.append(got[0].tolist())
        if runs[0] != runs[1]:
            raise NotYet(f"{what}: two runs with the same seed wrote different texts: draw "
                         "with the generator you are given")  # fmt: skip
        got = runs[0]
        T = ids.shape[1]
        if got[:T] != ids[0].tolist():
            raise NotYet(f"{what}: the result should start with the prompt's {T} ids")
        want = _reference(model, ids, min_p, seed, eos_id)
        if got == want:
            continue
        if got[: len(want)] == want and want[-1] == eos_id:
            raise NotYet(f"{what}: your text goes on after the end-of-text token")
        said = {
            "greedy": "these are greedy search's tokens: min-p samples among every token "
            "above its bar",
            "absolute": "you keep the tokens whose probability is at least min_p; min-p's bar "
            "is relative to the most probable token",
            "plain": "these are the tokens of plain sampling: min_p cut nothing",
        }
        for rule, message in said.items():
            if got == _reference(model, ids, min_p, seed, eos_id, rule):
                raise NotYet(f"{what}: {message}")
        where = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                     min(len(got), len(want)))  # fmt: skip
        raise NotYet(f"{what}: new token {where - T + 1} is not the one min-p sampling draws "
                     "there")  # fmt: skip


@exercise(
    "14.2",
    "GPT-1, post-norm",
    hints=(
        "Subclass your Block and change forward only: the LayerNorm goes after the residual "
        "sum, x = norm1(x + attn(x)), then x = norm2(x + ffn(x)), with the same dropout as "
        "before.",
        "In GPT1.__init__, call GPT.__init__, then replace self.blocks by a ModuleList of your "
        "post-norm blocks and self.final_norm by nn.Identity() (a module without parameters).",
    ),
)
def _gpt1(answer: object) -> str:
    from lecturekit.models.gpt import GPT, GPTConfig

    config = GPTConfig(vocab_size=60, max_position=32, hidden_size=32, num_layers=2, num_heads=4,
                       intermediate_size=96, dropout=0.0, pre_norm=False)  # fmt: skip
    reference = GPT(config, generator=torch.Generator().manual_seed(14)).eval()
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():  # LayerNorms away from 1 and 0, so that each one matters
        for name, p in reference.named_parameters():
            if ".norm" in name:
                p.add_(0.3 * torch.randn(p.shape, generator=generator))
    what = "GPT1(60, 32, 32, 2, 4, 96, 0.0)"  # V, P, D, L, H, F, dropout
    model = run_student(answer, 60, 32, 32, 2, 4, 96, 0.0, what=what)
    if not isinstance(model, nn.Module):
        raise NotYet(f"{what} should build a model (an nn.Module), got {type(model).__name__}")
    mine, theirs = set(model.state_dict()), set(reference.state_dict())
    if mine != theirs:
        extra, missing = sorted(mine - theirs), sorted(theirs - mine)
        if any(k.startswith("final_norm.") for k in extra):
            raise NotYet(f"{what} still has a final LayerNorm (final_norm): GPT-1 has none")
        raise NotYet(f"{what}'s parameters are not GPT-1's: it has {extra[:3]} that GPT-1 "
                     f"has not, and lacks {missing[:3]}")  # fmt: skip
    model.load_state_dict(reference.state_dict())
    model.eval()
    ids = torch.randint(60, (3, 20), generator=torch.Generator().manual_seed(1))  # (B, T)
    with torch.no_grad():
        want = reference(ids).logits
        got = _logits_of(model, ids, f"{what}(ids)")
        if not torch.allclose(got, want, atol=1e-5, rtol=0):
            _diagnose_block(model, reference)
            raise NotYet(f"{what}: its blocks compute GPT-1's, but its logits are not GPT-1's "
                         "(what comes after the blocks?)")  # fmt: skip
    return (
        "your GPT-1 gives lecturekit's post-norm GPT's logits (and so Hugging Face's "
        "OpenAIGPTLMHeadModel's): each sub-layer's output is normalised after the residual "
        "sum, so the residual stream itself is normalised in every block and no final "
        "LayerNorm is needed. GPT-2 moved the norm to the input of each sub-layer, leaving the "
        "residual path an identity, which trains deeper stacks more stably"
    )


def _diagnose_block(model: nn.Module, reference: nn.Module) -> None:
    """NotYet naming what the student's first block computes, if it is not GPT-1's block
    (nothing if the model has no ``blocks`` list whose first block takes x alone)."""
    blocks = getattr(model, "blocks", None)
    if not isinstance(blocks, nn.ModuleList) or not len(blocks):
        return
    x = torch.randn(2, 7, 32, generator=torch.Generator().manual_seed(2))  # (B, T, D)
    causal = torch.ones(7, 7, dtype=torch.bool).tril()
    block = reference.blocks[0]
    post = block(x, causal)[0]
    block.norm_first = True  # the same weights, GPT-2's order
    pre = block(x, causal)[0]
    block.norm_first = False
    try:
        got = torch.as_tensor(blocks[0](x))
    except Exception:  # the student's block takes other arguments: no diagnosis then
        return
    if got.shape != x.shape:
        return
    if torch.allclose(got, pre, atol=1e-5, rtol=0):
        raise NotYet("your blocks are still pre-norm: each LayerNorm still sees the input of "
                     "its sub-layer")  # fmt: skip
    if not torch.allclose(got, post, atol=1e-5, rtol=0):
        raise NotYet("your first block does not compute GPT-1's block: the LayerNorm of the "
                     "residual sum, after attention and again after the MLP")  # fmt: skip


register(
    Exercise(
        "14.3",
        "what temperature does",
        hints=(
            "Divide every logit by T, then take the softmax: p_i = exp(l_i / T) / sum_j "
            "exp(l_j / T).",
            "T < 1 sharpens the distribution (the top token gains), T > 1 flattens it.",
        ),
        expected=Expected("floats", ("84a9d348cf9910344dfe", "ee86ff4c87e3eb9fd3b2"), 2),
        correct="{answer}: the same logits, a confident choice at T = 0.5 and nearly a coin "
        "flip at T = 2; as T -> 0 sampling becomes greedy search",
    )
)
