"""Lecture 04's exercises: the checkers accept a right answer and refuse the near misses a
student writes (the entropies swapped, in bits, averaged over the heads, ln T assumed; a
multi-query layer with full-width keys, the scores divided by sqrt(D), the mask forgotten),
with a message that does not show the answer; the notebook's stubs are "not attempted"."""

import math

import pytest
import torch
from torch import nn

from lecturekit.exercises import check, status
from lecturekit.masking import causal_mask


class MultiHeadAttention(nn.Module):
    """The lecture's module, with the exercise's switch."""

    def __init__(self, d_model, num_heads, bias=True, scale=True):
        super().__init__()
        self.num_heads, self.head_dim, self.scale = num_heads, d_model // num_heads, scale
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, query, key, value, mask=None):
        q, k, v = (
            self.split_heads(w(t))
            for w, t in ((self.w_q, query), (self.w_k, key), (self.w_v, value))
        )
        scores = q @ k.transpose(-2, -1)
        if self.scale:
            scores = scores / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        heads = weights @ v
        B, H, T, Dh = heads.shape
        return self.w_o(heads.transpose(1, 2).reshape(B, T, H * Dh)), weights


def entropy(w):
    return float(-torch.special.xlogy(w, w).sum(-1).mean())


@pytest.fixture
def setting():
    torch.manual_seed(0)
    mha = MultiHeadAttention(512, 8)
    x = torch.randn(1, 64, 512)
    unscaled = MultiHeadAttention(512, 8, scale=False)
    unscaled.load_state_dict(mha.state_dict())
    with torch.no_grad():
        w_with, w_without = mha(x, x, x)[1], unscaled(x, x, x)[1]
    return mha, x, w_with, w_without


def test_scaling_checker(capsys, setting):
    mha, x, w_with, w_without = setting
    truth = (entropy(w_with), entropy(w_without))
    check("04.1", None, mha=mha, x=x)
    assert status("04.1") == "not attempted"
    check("04.1", (round(truth[0], 2), round(truth[1], 2)), mha=mha, x=x)
    out = capsys.readouterr().out
    assert status("04.1") == "correct" and "uniform" in out and "saturation" in out
    wrong = {
        "swapped": truth[::-1],
        "bits": tuple(v / math.log(2) for v in truth),
        "averaged over the heads": (entropy(w_with.mean(1)), entropy(w_without.mean(1))),
        "uniform": (math.log(64), truth[1]),
        "sqrt(d_model)": (entropy(torch.softmax(w_without.log() / math.sqrt(512), -1)), truth[1]),
        "do not sum": (64 * truth[0], 64 * truth[1]),
        "minus sign": (-truth[0], -truth[1]),
    }
    for words, answer in wrong.items():
        check("04.1", answer, mha=mha, x=x)
        out = capsys.readouterr().out
        assert status("04.1") == "not yet" and words in out, (words, out)
        assert f"{truth[0]:.2f}" not in out and f"{truth[1]:.2f}" not in out
    check("04.1", (truth[0], truth[1] + 0.05), mha=mha, x=x)
    assert status("04.1") == "not yet" and "second number" in capsys.readouterr().out
    check("04.1", "4.1", mha=mha, x=x)
    assert status("04.1") == "not yet" and "pair" in capsys.readouterr().out


def test_scaling_checker_needs_the_lecture_module(capsys, setting):
    mha, x, *_ = setting
    unscaled = MultiHeadAttention(512, 8, scale=False)
    unscaled.load_state_dict(mha.state_dict())
    check("04.1", (4.1, 2.1), mha=unscaled, x=x)
    assert status("04.1") == "not yet" and "divides by sqrt(d_k)" in capsys.readouterr().out
    check("04.1", (4.1, 2.1), mha=nn.Linear(512, 512), x=x)
    assert status("04.1") == "not yet" and "num_heads" in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"mha=\.\.\., x=\.\.\."):
        check("04.1", (4.1, 2.1), mha=mha)


class MultiQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, kv_width=None, divide_by=None, use_mask=True):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.divide_by, self.use_mask = divide_by or math.sqrt(self.head_dim), use_mask
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, kv_width or self.head_dim)
        self.w_v = nn.Linear(d_model, kv_width or self.head_dim)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        B, Tq, D = query.shape
        q = self.w_q(query).view(B, Tq, self.num_heads, self.head_dim).transpose(1, 2)
        k, v = self.w_k(key)[:, None], self.w_v(value)[:, None]
        scores = q @ k.transpose(-2, -1) / self.divide_by
        if mask is not None and self.use_mask:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        heads = weights @ v
        return self.w_o(heads.transpose(1, 2).reshape(B, Tq, D)), weights


class Stub(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        raise NotImplementedError


def test_multi_query_checker(capsys):
    check("04.2", Stub)
    assert status("04.2") == "not attempted"
    check("04.2", MultiQueryAttention)
    out = capsys.readouterr().out
    assert status("04.2") == "correct" and "KV cache" in out and "8 times" in out
    check("04.2", lambda D, H: MultiQueryAttention(D, H, kv_width=D))
    out = capsys.readouterr().out
    assert status("04.2") == "not yet" and "w_k.weight has shape (16, 16)" in out
    check("04.2", lambda D, H: MultiQueryAttention(D, H, divide_by=math.sqrt(D)))
    assert status("04.2") == "not yet" and "divided by" in capsys.readouterr().out
    check("04.2", lambda D, H: MultiQueryAttention(D, H, use_mask=False))
    assert status("04.2") == "not yet" and "mask is not applied" in capsys.readouterr().out
    check("04.2", lambda D, H: MultiHeadAttention(D, H))
    assert status("04.2") == "not yet" and "w_k.weight" in capsys.readouterr().out

    class Averaged(MultiQueryAttention):
        def forward(self, query, key, value, mask=None):
            out, weights = super().forward(query, key, value, mask)
            return out, weights.mean(1)

    check("04.2", Averaged)
    assert status("04.2") == "not yet" and "shape" in capsys.readouterr().out


def test_multi_query_reference_is_multi_head_attention_with_shared_heads():
    """The checker's reference, cross-checked: MQA equals lecturekit's MultiHeadAttention whose
    key and value projections repeat one head's weights H times."""
    from lecturekit.attention import MultiHeadAttention as Reference
    from lecturekit.exercises.lecture_04 import _mqa_reference

    torch.manual_seed(3)
    D, H = 16, 4
    mqa, mha = MultiQueryAttention(D, H), Reference(D, H)
    with torch.no_grad():
        for name in ("w_q", "w_o"):
            getattr(mha, name).load_state_dict(getattr(mqa, name).state_dict())
        for name in ("w_k", "w_v"):
            getattr(mha, name).weight.copy_(getattr(mqa, name).weight.repeat(H, 1))
            getattr(mha, name).bias.copy_(getattr(mqa, name).bias.repeat(H))
        x = torch.randn(2, 6, D)
        want = mha(x, x, x, causal_mask(6))
        got = _mqa_reference(mqa, x, x, x, H, causal_mask(6))
    assert torch.allclose(got[0], want[0], atol=1e-6) and torch.allclose(got[1], want[1], atol=1e-6)


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [("04.3", 2_362_368, 2_359_296), ("04.4", 3072, 768)],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"


def test_checkers_leave_the_random_state_alone(setting):
    mha, x, *_ = setting
    torch.manual_seed(5)
    want = torch.rand(3)
    torch.manual_seed(5)
    check("04.1", (4.1, 2.1), mha=mha, x=x)
    check("04.2", MultiQueryAttention)
    assert torch.equal(torch.rand(3), want)
