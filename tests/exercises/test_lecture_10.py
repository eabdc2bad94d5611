"""Lectures 10 and 10b's exercises: the checkers accept a right answer and refuse the near misses
a student writes, with a message that does not show the answer.

10.5 gets a trained model: a stand-in that copies the next input word (what a decoder without
the causal mask learns) has teacher-forced accuracy 1 and greedy exact match 0, computed here
the way the checker must compute them; lecturekit's shipped Transformer still has its mask."""

import math

import pytest
import torch
from torch import nn

from lecturekit.datasets.translation import EOS, PAD, collate, default_data
from lecturekit.exercises import check, status


class CopiesTheNextWord(nn.Module):
    """Logits that put all the weight on the decoder's next input word (EOS where there is none):
    a decoder that peeks. Teacher-forced it is always right; generating, it has nothing to copy."""

    def __init__(self, vocab: int):
        super().__init__()
        self.vocab = vocab
        self.unused = nn.Linear(1, 1)  # a module with parameters, as a trained model has

    def forward(self, src, tgt_in):
        nxt = torch.full_like(tgt_in, EOS)
        nxt[:, :-1] = tgt_in[:, 1:]
        nxt[nxt == PAD] = EOS
        return 10.0 * nn.functional.one_hot(nxt, self.vocab).float()  # (B, T, V)


class Untrained(nn.Module):
    def __init__(self, vocab: int):
        super().__init__()
        self.vocab = vocab

    def forward(self, src, tgt_in):  # the same logit for every word, shifted by the next input
        nxt = tgt_in.roll(-1, dims=1).float()  # (B, T): depends on the future
        return 1e-3 * nxt[..., None].expand(*tgt_in.shape, self.vocab)


@pytest.fixture(scope="module")
def vocab():
    return len(default_data().tgt_vocab)


def test_peeking_checker_measures_the_model(vocab, capsys):
    data = default_data()
    short_test = [p for p in data.test if len(p.src) <= 10][:100]
    batch = collate(short_test, data.src_vocab, data.tgt_vocab)
    assert len(short_test) == 100 and batch.src.shape[0] == 100
    peeking = CopiesTheNextWord(vocab)
    check("10.4", (1.0, 0.0), model=peeking)
    out = capsys.readouterr().out
    assert status("10.4") == "correct" and "nothing to copy" in out
    check("10.4", (0.0, 1.0), model=peeking)
    assert status("10.4") == "not yet" and "swapped" in capsys.readouterr().out
    check("10.4", (100, 0), model=peeking)
    assert status("10.4") == "not yet" and "fractions" in capsys.readouterr().out
    check("10.4", (0.7, 0.0), model=peeking)
    out = capsys.readouterr().out
    assert status("10.4") == "not yet" and "teacher-forced accuracy" in out
    check("10.4", (1.0, 0.07), model=peeking)
    assert status("10.4") == "not yet" and "greedy exact match" in capsys.readouterr().out
    check("10.4", (1.0, 0.0), model=None)
    assert status("10.4") == "not yet" and "model=peeking" in capsys.readouterr().out
    check("10.4", 0.5, model=peeking)
    assert status("10.4") == "not yet"


def test_peeking_checker_refuses_a_masked_or_untrained_model(vocab, capsys):
    from lecturekit.shipped import load_shipped

    masked = load_shipped("transformer_nmt")  # lecturekit's forward returns (logits, weights)
    check("10.4", (1.0, 0.0), model=masked)
    out = capsys.readouterr().out
    assert status("10.4") == "not yet" and "causal mask" in out
    check("10.4", (1.0, 0.0), model=Untrained(vocab))
    assert status("10.4") == "not yet" and "trained" in capsys.readouterr().out
    assert masked.training is False  # the checker leaves the model's mode as it was


def sign_test(a, b):
    d, fewer = a + b, min(a, b)
    if d == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(d, k) for k in range(fewer + 1)) / 2**d)


def test_sign_test_checker(capsys):
    check("10b.2", sign_test)
    assert status("10b.2") == "correct"

    def one_tail(a, b):
        d = a + b
        return sum(math.comb(d, k) for k in range(min(a, b) + 1)) / 2**d if d else 1.0

    check("10b.2", one_tail)
    assert status("10b.2") == "not yet" and "two-sided" in capsys.readouterr().out
    check("10b.2", lambda a, b: 2 * one_tail(a, b) if a + b else 1.0)
    assert status("10b.2") == "not yet" and "capped" in capsys.readouterr().out

    def strict(a, b):
        d = a + b
        return min(1.0, 2 * sum(math.comb(d, k) for k in range(min(a, b))) / 2**d) if d else 1.0

    check("10b.2", strict)
    assert status("10b.2") == "not yet" and "includes it" in capsys.readouterr().out
    check("10b.2", lambda a, b: "p")
    assert status("10b.2") == "not yet"


def test_long_sentences_and_sequential_steps(capsys):
    data = default_data()
    truth = sum(len(p.src) >= 55 for p in data.train)
    check("10b.1", truth)
    assert status("10b.1") == "correct"
    check("10b.1", sum(len(p.src) > 55 for p in data.train))
    assert status("10b.1") == "not yet" and "exactly 55" in capsys.readouterr().out
    check("10b.1", float(truth))
    assert status("10b.1") == "not yet"
    check("10b.3", (81, 12))
    assert status("10b.3") == "correct" and "81" in capsys.readouterr().out
    for wrong, says in [((121, 12), "side by side"), ((81, 6), "decoder's layers"),
                        ((40, 12), "both step"), ((81, 486), "every position")]:  # fmt: skip
        check("10b.3", wrong)
        out = capsys.readouterr().out
        assert status("10b.3") == "not yet" and says in out, (wrong, out)
        assert "81" not in out and "12" not in out
