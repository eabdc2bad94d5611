"""Lecture 14's code exercises: the checkers accept a right answer and refuse the near misses a
student writes (min-p: a bar of min_p itself, plain sampling, no generator, no stop at
end-of-text, only the new tokens returned; GPT-1: still pre-norm, a final LayerNorm kept, a
block half post-norm), with a message that does not show the answer; the notebook's stubs are
"not attempted". The checker's min-p rule is Hugging Face's ``MinPLogitsWarper``."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.exercises import check, status
from lecturekit.exercises.lecture_14 import min_p_keep
from lecturekit.shipped import load_shipped

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# ------------------------------------------------------------------ the lecture's GPT, as written


class CausalSelfAttention(nn.Module):
    def __init__(self, d, num_heads, dropout):
        super().__init__()
        self.num_heads = num_heads
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d, d) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, D = x.shape
        H, Dh = self.num_heads, D // self.num_heads
        q, k, v = (w(x).view(B, T, H, Dh).transpose(1, 2) for w in (self.w_q, self.w_k, self.w_v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        a = self.dropout(weights) @ v
        return self.w_o(a.transpose(1, 2).reshape(B, T, D))


class MLP(nn.Module):
    def __init__(self, d, d_ff, dropout):
        super().__init__()
        self.linear1, self.linear2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.linear2(F.gelu(self.linear1(x), approximate="tanh")))


class Block(nn.Module):
    def __init__(self, d, num_heads, d_ff, dropout):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.self_attn = CausalSelfAttention(d, num_heads, dropout)
        self.attn_dropout = nn.Dropout(dropout)
        self.norm2 = nn.LayerNorm(d)
        self.ffn = MLP(d, d_ff, dropout)

    def forward(self, x):
        x = x + self.attn_dropout(self.self_attn(self.norm1(x)))
        return x + self.ffn(self.norm2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, max_position=128, d=64, num_layers=2, num_heads=4, d_ff=256,
                 dropout=0.1):  # fmt: skip
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d)
        self.position_embedding = nn.Embedding(max_position, d)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(d, num_heads, d_ff, dropout) for _ in range(num_layers))
        self.final_norm = nn.LayerNorm(d)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        x = self.dropout(self.token_embedding(ids) + self.position_embedding(positions))
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x) @ self.token_embedding.weight.T


@pytest.fixture(scope="module")
def mine():
    model = GPT(450).eval()
    model.load_state_dict(load_shipped("gpt_tiny").state_dict())
    return model


# ------------------------------------------------------------------ 14.1 min-p sampling


def sampler(keep=None, generator_used=True, stops=True, new_only=False, normalised=True):
    """A student's loop; ``keep(p, min_p)`` is the rule (default: min-p's), the rest the ways
    such a loop goes wrong."""

    @torch.no_grad()
    def continue_min_p(model, ids, max_new_tokens, min_p, generator=None, eos_id=None):
        prompt_length = ids.shape[1]
        for _ in range(max_new_tokens):
            logits = model(ids)[0, -1]
            p = logits.softmax(-1)
            kept = (p >= min_p * p.max()) if keep is None else keep(p, min_p)
            cut = logits.masked_fill(~kept, float("-inf")).softmax(-1)
            probs = cut if normalised else p * kept  # multinomial takes unnormalised weights too
            next_id = torch.multinomial(probs, 1, generator=generator if generator_used else None)
            ids = torch.cat([ids, next_id.view(1, 1)], dim=1)
            if stops and next_id == eos_id:
                break
        return ids[:, prompt_length:] if new_only else ids

    return continue_min_p


def test_min_p_rule_is_hugging_faces():
    from transformers import MinPLogitsWarper

    generator = torch.Generator().manual_seed(0)
    for min_p in (0.01, 0.1, 0.5, 0.99):
        logits = 3 * torch.randn(4, 50, generator=generator)
        theirs = MinPLogitsWarper(min_p)(None, logits.clone()) > -math.inf
        assert torch.equal(min_p_keep(logits, min_p), theirs), min_p


def test_min_p_accepts_a_right_loop(mine, capsys):
    check("14.1", sampler(), model=mine)
    assert status("14.1") == "correct", capsys.readouterr().out
    check("14.1", sampler(normalised=False), model=mine)  # the same draws
    assert status("14.1") == "correct"


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (sampler(keep=lambda p, min_p: p >= min_p), "relative to the most probable token"),
        (sampler(keep=lambda p, min_p: p > -1), "plain sampling"),
        (sampler(keep=lambda p, min_p: p == p.max()), "greedy search's tokens"),
        (sampler(keep=lambda p, min_p: p >= 2 * min_p * p.max()), "is not the one"),
        (sampler(generator_used=False), "generator you are given"),
        (sampler(stops=False), "after the end-of-text token"),
        (sampler(new_only=True), "should start with the prompt"),
    ],
)
def test_min_p_refuses_near_misses_without_the_answer(mine, wrong, says, capsys):
    check("14.1", wrong, model=mine)
    out = capsys.readouterr().out
    assert status("14.1") == "not yet" and says in out, out
    said = out.split("hint 1")[0]  # the checker's message, before the first hint
    for leak in ("p.max", "max()", "* p", "masked_fill", "min_p *"):
        assert leak not in said, (leak, said)


def test_min_p_reports_a_loop_that_raises(mine, capsys):
    check("14.1", sampler(keep=lambda p, min_p: p > 1), model=mine)  # cuts every token
    out = capsys.readouterr().out
    assert status("14.1") == "not yet" and "raised RuntimeError" in out, out


def test_min_p_needs_the_story_model(mine, capsys):
    check("14.1", sampler(), model=None)
    assert status("14.1") == "not yet" and "model=mine" in capsys.readouterr().out
    check("14.1", sampler(), model=GPT(60).eval())
    assert status("14.1") == "not yet" and "shipped story weights" in capsys.readouterr().out


def test_min_p_stub_is_not_attempted(mine, capsys):
    def continue_min_p(model, ids, max_new_tokens, min_p, generator=None, eos_id=None):
        raise NotImplementedError

    check("14.1", continue_min_p, model=mine)
    assert status("14.1") == "not attempted" and "not attempted yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 14.2 GPT-1, post-norm


class PostNormBlock(Block):
    def forward(self, x):
        x = self.norm1(x + self.attn_dropout(self.self_attn(x)))
        return self.norm2(x + self.ffn(x))


class GPT1(GPT):
    def __init__(self, vocab_size, max_position=128, d=64, num_layers=2, num_heads=4, d_ff=256,
                 dropout=0.1):  # fmt: skip
        super().__init__(vocab_size, max_position, d, num_layers, num_heads, d_ff, dropout)
        self.blocks = nn.ModuleList(PostNormBlock(d, num_heads, d_ff, dropout)
                                    for _ in range(num_layers))  # fmt: skip
        self.final_norm = nn.Identity()


class StillPreNorm(GPT):
    def __init__(self, *args):
        super().__init__(*args)
        self.final_norm = nn.Identity()


class KeepsTheFinalNorm(GPT1):
    def __init__(self, *args):
        super().__init__(*args)
        self.final_norm = nn.LayerNorm(args[2])


class HalfPostNormBlock(Block):
    def forward(self, x):
        x = self.norm1(x + self.attn_dropout(self.self_attn(x)))
        return x + self.ffn(self.norm2(x))  # the MLP still pre-norm


class HalfPostNorm(GPT1):
    def __init__(self, *args):
        super().__init__(*args)
        self.blocks = nn.ModuleList(HalfPostNormBlock(*args[2:3], *args[4:7]) for _ in range(2))


class ScaledLogits(GPT1):
    def forward(self, ids):
        return 2 * super().forward(ids)


def test_gpt1_accepts_post_norm_blocks_without_a_final_norm(capsys):
    check("14.2", GPT1)
    assert status("14.2") == "correct", capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (StillPreNorm, "still pre-norm"),
        (KeepsTheFinalNorm, "final LayerNorm"),
        (HalfPostNorm, "does not compute GPT-1's block"),
        (ScaledLogits, "what comes after the blocks"),
        (lambda *args: "a model", "should build a model"),
    ],
)
def test_gpt1_refuses_near_misses_without_the_answer(wrong, says, capsys):
    check("14.2", wrong)
    out = capsys.readouterr().out
    assert status("14.2") == "not yet" and says in out, out
    said = out.split("hint 1")[0]
    for leak in ("nn.Identity", "norm1(x +", "ModuleList"):
        assert leak not in said, (leak, said)


def test_gpt1_stub_is_not_attempted(capsys):
    class Stub(GPT):
        def __init__(self, *args):
            super().__init__(*args)
            raise NotImplementedError

    check("14.2", Stub)
    assert status("14.2") == "not attempted" and "not attempted yet" in capsys.readouterr().out
