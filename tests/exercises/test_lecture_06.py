"""Lecture 06's code exercises: the checkers accept a right answer and refuse the near misses a
student writes (a window one key too wide, a non-causal band, a transposed mask; post-norm, the
residual taken after the LayerNorm, an extra LayerNorm), with a message that does not show the
answer; the notebook's stubs are "not attempted"."""

import pytest
import torch
from torch import nn

from lecturekit.attention import MultiHeadAttention
from lecturekit.exercises import check, status


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attn, weights = self.self_attn(x, x, x, mask)
        x = self.norm1(x + self.dropout1(attn))
        x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x, weights


class PreNormEncoderLayer(EncoderLayer):
    def forward(self, x, mask=None):
        h = self.norm1(x)
        attn, weights = self.self_attn(h, h, h, mask)
        x = x + self.dropout1(attn)
        x = x + self.dropout2(self.ffn(self.norm2(x)))
        return x, weights


def window_mask(T, w):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (j <= i) & (j > i - w)


def test_window_checker(capsys):
    def stub(T, w):
        raise NotImplementedError

    check("06.1", stub, layer_class=EncoderLayer)
    assert status("06.1") == "not attempted"
    check("06.1", window_mask, layer_class=EncoderLayer)
    out = capsys.readouterr().out
    assert status("06.1") == "correct" and "band_mask(T, w - 1, causal=True)" in out
    i = lambda T: torch.arange(T)[:, None]  # noqa: E731
    j = lambda T: torch.arange(T)[None, :]  # noqa: E731
    near_misses = {
        "w + 1 keys": lambda T, w: (j(T) <= i(T)) & (j(T) >= i(T) - w),
        "looks ahead": lambda T, w: (j(T) - i(T)).abs() < w,
        "transposed": lambda T, w: window_mask(T, w).T,
        "swapped": lambda T, w: ~window_mask(T, w),
        "bool": lambda T, w: window_mask(T, w).int(),
        "entries differ": lambda T, w: j(T) <= i(T),
    }
    for words, mask in near_misses.items():
        check("06.1", mask, layer_class=EncoderLayer)
        out = capsys.readouterr().out
        assert status("06.1") == "not yet" and words in out, (words, out)


def test_window_checker_runs_the_students_layer(capsys):
    class Unmasked(EncoderLayer):
        def forward(self, x, mask=None):
            return super().forward(x)

    class Renamed(EncoderLayer):
        def __init__(self, *args):
            super().__init__(*args)
            self.attention = self.self_attn
            del self.self_attn

    check("06.1", window_mask, layer_class=Unmasked)
    assert status("06.1") == "not yet" and "against lecturekit's" in capsys.readouterr().out
    check("06.1", window_mask, layer_class=Renamed)
    out = capsys.readouterr().out
    assert status("06.1") == "not yet" and "missing self_attn.w_q.weight" in out
    check("06.1", window_mask, layer_class=PreNormEncoderLayer)
    assert status("06.1") == "not yet"


def test_window_checker_leaves_the_random_state_alone():
    torch.manual_seed(5)
    want = torch.rand(3)
    torch.manual_seed(5)
    check("06.1", window_mask, layer_class=EncoderLayer)
    check("06.2", PreNormEncoderLayer)
    assert torch.equal(torch.rand(3), want)


def test_pre_norm_checker(capsys):
    class Stub(EncoderLayer):
        def forward(self, x, mask=None):
            raise NotImplementedError

    check("06.2", Stub)
    assert status("06.2") == "not attempted"
    check("06.2", PreNormEncoderLayer)
    out = capsys.readouterr().out
    assert status("06.2") == "correct" and "warm-up" in out and "identity" in out

    class NormedResidual(EncoderLayer):
        def forward(self, x, mask=None):
            x = self.norm1(x)
            attn, weights = self.self_attn(x, x, x, mask)
            x = self.norm2(x + attn)
            return x + self.ffn(x), weights

    class ExtraNorm(PreNormEncoderLayer):
        def forward(self, x, mask=None):
            out, weights = super().forward(x, mask)
            return self.norm2(out), weights

    class Relu(PreNormEncoderLayer):  # the FFN without its activation
        def forward(self, x, mask=None):
            h = self.norm1(x)
            x = x + self.self_attn(h, h, h, mask)[0]
            return x + self.ffn.linear2(self.ffn.linear1(self.norm2(x))), None

    for layer_class, words in ((EncoderLayer, "post-norm"), (NormedResidual, "carry x itself"),
                               (ExtraNorm, "a LayerNorm more"), (Relu, "largest")):  # fmt: skip
        check("06.2", layer_class)
        out = capsys.readouterr().out
        assert status("06.2") == "not yet" and words in out, (words, out)


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("06.3", (torch.arange(4)[None, None] >= torch.tensor([3, 1])[:, None, None]).expand(2, 4, 4),
         (torch.arange(4)[None, :, None] >= torch.tensor([3, 1])[:, None, None]).expand(2, 4, 4)),
        ("06.4", (320, 512), (512, 320)),
    ],
)  # fmt: skip
def test_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"
