"""Lecture 01's code exercises: the checkers accept a right answer and refuse the near misses a
student writes, with a message that does not show the answer; the notebook's stubs are "not
attempted".

01.1 the loss with the decoder reading its own greedy words (near misses: the teacher-forced
loss, the own words not shifted, padding counted, a sum, no gradient, a float); 01.3 the losses of
the notebook's loop trained with that loss (near misses: the teacher-forced losses, another number
of steps, a model that is not fresh, other first steps)."""

import dataclasses
import json
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from lecturekit.datasets.translation import PAD, default_data
from lecturekit.exercises import check, core, status
from lecturekit.exercises.lecture_01 import _first_free_steps
from lecturekit.shipped.seq2seq import train_seq2seq

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py
ROOT = Path(__file__).resolve().parents[2]


def _own_input(model, batch, shift=True):
    ids, _ = model.greedy_decode(batch.src, batch.src_len, batch.tgt_in.shape[1])  # (B, T)
    return torch.cat([batch.tgt_in[:, :1], ids[:, :-1]], dim=1) if shift else ids


def free_running_loss(model, batch):  # the worked solution
    logits, _ = model(batch.src, batch.src_len, _own_input(model, batch))
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)


def by_log_softmax(model, batch):  # the same loss, written as in section 2 of the lecture
    logits, _ = model(batch.src, batch.src_len, _own_input(model, batch))
    nll = -F.log_softmax(logits, -1).gather(-1, batch.tgt_out[..., None])[..., 0]  # (B, T)
    return nll[batch.tgt_out != PAD].mean()


def _not_yet_line(out):
    return next(line for line in out.splitlines() if ": not yet: " in line)


def test_free_running_checker_accepts_the_loss_written_either_way(capsys):
    for answer in (free_running_loss, by_log_softmax):
        core.reset()
        check("01.1", answer)
        out = capsys.readouterr().out
        assert status("01.1") == "correct", out
        assert "exposure bias" in out and "no attention" in out


def _teacher_forced(model, batch):
    logits, _ = model(batch.src, batch.src_len, batch.tgt_in)
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)


def _unshifted(model, batch):
    logits, _ = model(batch.src, batch.src_len, _own_input(model, batch, shift=False))
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)


def _padding_counted(model, batch):
    logits, _ = model(batch.src, batch.src_len, _own_input(model, batch))
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten())


def _summed(model, batch):
    logits, _ = model(batch.src, batch.src_len, _own_input(model, batch))
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD,
                           reduction="sum")  # fmt: skip


@torch.no_grad()
def _no_gradient(model, batch):
    return free_running_loss(model, batch)


@pytest.mark.parametrize(
    "answer, said",
    [
        (_teacher_forced, "teacher forcing"),
        (_unshifted, "before t"),
        (_padding_counted, "padding"),
        (_summed, "a sum"),
        (_no_gradient, "no gradient"),
        (lambda model, batch: free_running_loss(model, batch).item(), "as a tensor"),
        (lambda model, batch: 0.0 * free_running_loss(model, batch), "own greedy words"),
    ],
    ids=["teacher-forced", "unshifted", "padding", "sum", "no-grad", "float", "other"],
)
def test_free_running_checker_names_the_near_misses_without_the_answer(answer, said, capsys):
    check("01.1", answer)
    line = _not_yet_line(capsys.readouterr().out)
    assert status("01.1") == "not yet" and said in line
    for leak in ("greedy_decode(", "torch.cat", "tgt_in[:, :1]", "ignore_index"):
        assert leak not in line


def _stub(model, batch):
    raise NotImplementedError


def test_stubs_are_not_attempted(capsys):
    check("01.1", _stub)
    check("01.3", None, teacher_forced=[1.0], attention="dot")
    out = capsys.readouterr().out
    assert status("01.1") == status("01.3") == "not attempted"
    assert out.count("not attempted yet") == 2


STEPS = 12  # the checker compares the first 10 steps; 12 keeps the tests short


@pytest.fixture(scope="module")
def runs():
    """The loop's first STEPS losses without teacher forcing (the checker's own reference) and,
    for the same pairs and seed, train_seq2seq's with teacher forcing (the lecture's loop)."""
    torch.set_num_threads(1)
    data = default_data()
    short = dataclasses.replace(data, train=[p for p in data.train if len(p.src) <= 10])
    _, history = train_seq2seq("dot", short, max_steps=STEPS, eval_pairs=[], progress=False)
    return _first_free_steps("dot", STEPS), history.step_loss


def test_training_checker_accepts_the_loop_without_teacher_forcing(runs, capsys):
    free, forced = runs
    assert len(free) == len(forced) == STEPS and free[0] != forced[0]
    check("01.3", free, teacher_forced=forced, attention="dot")
    out = capsys.readouterr().out
    assert status("01.3") == "correct", out
    assert "without teacher forcing" in out
    check("01.3", torch.tensor(free), teacher_forced=forced, attention="dot")  # a tensor too
    assert status("01.3") == "correct"


def test_training_checker_names_the_near_misses(runs, capsys):
    free, forced = runs
    cases = [
        (forced, "with teacher forcing"),
        (free[:-1], f"as many steps as section 3 ({STEPS})"),
        ([free[0] * 0.7, *free[1:]], "fresh model"),
        ([*free[:5], *(x * 1.05 for x in free[5:])], "is exercise 1 correct?"),
        ("losses", "a list of losses"),
    ]
    for answer, said in cases:
        core.reset()
        check("01.3", answer, teacher_forced=forced, attention="dot")
        line = _not_yet_line(capsys.readouterr().out)
        assert status("01.3") == "not yet" and said in line, line
        assert "free_running_loss" not in line


def test_the_notebook_trains_with_the_checkers_recipe():
    """01.3's reference repeats the lecture's loop: 60 steps, batches of 64, Adam 2e-3, the
    training pairs of at most 10 words, seed 0, clipping at 1; the cells must say the same."""
    cells = json.loads((ROOT / "notebooks" / "01_seq2seq_bottleneck.ipynb").read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for piece in (
        "batch_size=64, lr=2e-3",
        "seed=0",
        "len(p.src) <= 10]",
        "train(model, short_train, steps=60)",
        "max_norm=1.0",
        "torch.manual_seed(0)",
    ):
        assert piece in code, piece
