"""Lecture 01's exercises: the encoder-decoder and its bottleneck.

01.1 the decoder reads its own words (code: the loss of the training loop without teacher
forcing, run on the shipped models against the one computed here, near misses named),
01.2 translate by the rules (hashed),
01.3 train without teacher forcing (the losses of the notebook's loop with the loss of 01.1:
its first steps recomputed here from the same seed and batches),
01.4 where the bottleneck runs out (checked against the word-accuracy table given).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("01", "01_seq2seq_bottleneck")


def _free_running_loss(
    model: torch.nn.Module,
    batch: object,
    *,
    shift: bool = True,
    padding: bool = False,
    reduction: str = "mean",
) -> torch.Tensor:
    """The loss of lecture 01's loop with the decoder reading <bos> and its own greedy words
    (``shift=False``, ``padding=True``, ``reduction="sum"``: the near misses)."""
    from lecturekit.datasets.translation import PAD

    ids, _ = model.greedy_decode(batch.src, batch.src_len, batch.tgt_in.shape[1])  # (B, T)
    own = torch.cat([batch.tgt_in[:, :1], ids[:, :-1]], dim=1) if shift else ids  # (B, T)
    logits, _ = model(batch.src, batch.src_len, own)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(),
                           ignore_index=-100 if padding else PAD, reduction=reduction)  # fmt: skip


def _scalar(value: object, what: str) -> torch.Tensor:
    if isinstance(value, tuple) and value and isinstance(value[0], torch.Tensor):
        value = value[0]
    if not isinstance(value, torch.Tensor):
        raise NotYet(f"{what} should return the loss as a tensor (the loop calls .backward() "
                     f"on it), got {type(value).__name__}")  # fmt: skip
    if value.numel() != 1:
        raise NotYet(f"{what} should return one number, the mean loss of the batch, got shape "
                     f"{tuple(value.shape)}")  # fmt: skip
    return value


def _long_batch():
    from lecturekit.datasets.translation import collate, default_data

    data = default_data()
    pairs = [p for p in data.test if len(p.src) >= 30][:50]
    return collate(pairs, data.src_vocab, data.tgt_vocab)


@exercise(
    "01.1",
    "the decoder reads its own words",
    hints=(
        "model.greedy_decode(batch.src, batch.src_len, T) gives the model's own words, (B, T) "
        "with <pad> after its <eos>. The decoder input is those words shifted right by one, "
        "with <bos> first, exactly as tgt_in is the reference shifted right.",
        "own = torch.cat([batch.tgt_in[:, :1], ids[:, :-1]], dim=1); then the same two lines "
        "as teacher_forced_loss with own in place of batch.tgt_in (the targets stay "
        "batch.tgt_out, padding ignored).",
    ),
)
def _reads_its_own_words(answer: object) -> str:
    from lecturekit.shipped import load_shipped
    from lecturekit.shipped.seq2seq import seq2seq_loss

    batch = _long_batch()
    measured = {}
    for name in ("seq2seq_none", "seq2seq_dot"):
        model = load_shipped(name)
        what = f"your function on the shipped {name} and 50 long test sentences"
        loss = _scalar(run_student(answer, model, batch, what=what), what)
        got = float(loss.detach())
        with torch.no_grad():
            truth = _free_running_loss(model, batch)
            forced = seq2seq_loss(model, batch)
        if not math.isclose(got, float(truth), rel_tol=1e-4, abs_tol=1e-4):
            with torch.no_grad():
                near = {
                    "forced": forced,
                    "unshifted": _free_running_loss(model, batch, shift=False),
                    "padding": _free_running_loss(model, batch, padding=True),
                    "sum": _free_running_loss(model, batch, reduction="sum"),
                }
            said = {
                "forced": "that is the loss with teacher forcing: your decoder still reads the "
                "reference words, not its own",
                "unshifted": "at step t your decoder reads the word it writes at step t; it may "
                "only read <bos> and the words it wrote before t",
                "padding": "your mean also counts the padding positions after each reference's "
                "<eos>: only the real target tokens count",
                "sum": "that is a sum over the target tokens; the loop's loss is their mean",
            }
            for key, value in near.items():
                if math.isclose(got, float(value), rel_tol=1e-4, abs_tol=1e-4):
                    raise NotYet(f"{what}: {said[key]}")
            raise NotYet(f"{what}: not the loss with the decoder reading its own greedy words")
        if not loss.requires_grad:
            raise NotYet(f"{what}: the loss carries no gradient (computed under no_grad, or "
                         "detached?): the loop calls .backward() on it")  # fmt: skip
        measured[name] = (float(forced), got)
    (forced_0, own_0), (forced_a, own_a) = measured.values()
    return (
        f"on 50 test sentences of 30 words or more, the loss with teacher forcing -> with the "
        f"decoder reading its own words: no attention {forced_0:.2f} -> {own_0:.2f}, attention "
        f"{forced_a:.3f} -> {own_a:.3f}. Your loop lowers the first; at test time the decoder "
        "reads its own words, and after its first wrong word every reference word is predicted "
        "after a prefix it no longer fits (exposure bias). The model with attention rarely makes "
        "that first mistake"
    )


register(
    Exercise(
        "01.2",
        "translate by the rules",
        hints=(
            "Eight words. The determiner and the noun come first, then the noun's adjectives "
            "in mirrored order; the verb agrees with its subject.",
            "'cats' is masculine plural (chat / chats), 'woman' feminine singular; the tables of "
            "section 1 (translation.ADJECTIVES, translation.NOUNS) give each form.",
        ),
        expected=Expected("words", ("577566f42b5b020fc46c",)),
        correct=(
            "two adjectives mirrored after their noun, each agreeing with it, and a plural verb. "
            "Now ask both models: translate(attention, [sentence.split()], data)"
        ),
    )
)


def _losses(value: object, what: str) -> list[float]:
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise NotYet(f"{what} should be a list of losses, one per step, got "
                     f"{type(value).__name__}")  # fmt: skip
    try:
        return [float(x) for x in value]
    except (TypeError, ValueError):
        raise NotYet(f"{what} should hold numbers, one loss per step") from None


def _first_free_steps(attention: str | None, steps: int) -> list[float]:
    """The first ``steps`` losses of lecture 01's loop (``train``: Adam 2e-3, batches of 64,
    clipping at 1, seed 0) on the training pairs of at most 10 words, with the loss of 01.1."""
    from lecturekit.datasets.translation import batches, default_data
    from lecturekit.models.seq2seq import Seq2Seq, Seq2SeqConfig

    data = default_data()
    short = [p for p in data.train if len(p.src) <= 10]
    with torch.random.fork_rng():  # the student's random state stays as it was
        torch.manual_seed(0)
        model = Seq2Seq(Seq2SeqConfig.tiny(attention=attention))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    order = torch.Generator().manual_seed(0)
    losses = []
    model.train()
    for batch in batches(short, data.src_vocab, data.tgt_vocab, 64, order):  # 46 batches
        loss = _free_running_loss(model, batch)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(loss.item())
        if len(losses) == steps:
            break
    return losses


@exercise(
    "01.3",
    "train without teacher forcing",
    hints=(
        "Start as section 3 does: torch.manual_seed(0), a fresh Seq2Seq with the same config, "
        "then train(...) on the same short pairs for the same number of steps.",
        "train takes the loss as loss_fn: pass free_running_loss (exercise 1) and keep "
        "everything else as section 3 has it.",
    ),
)
def _train_free(answer: object, *, teacher_forced: object, attention: object) -> str:
    forced = _losses(teacher_forced, "teacher_forced (section 3's losses)")
    got = _losses(answer, "your answer")
    if len(got) != len(forced):
        raise NotYet(f"train for as many steps as section 3 ({len(forced)}), got {len(got)} "
                     "losses")  # fmt: skip
    check = min(10, len(got))
    if all(math.isclose(a, b, rel_tol=1e-3) for a, b in zip(got, forced, strict=True)):
        raise NotYet("these are the losses with teacher forcing: pass the loss of exercise 1 "
                     "to train")  # fmt: skip
    attention = None if attention in (None, "none") else attention
    truth = _first_free_steps(attention, check)
    if not math.isclose(got[0], truth[0], rel_tol=1e-3):
        raise NotYet("the first loss is not that of a fresh model (seeded as in section 3) "
                     "on the first batch without teacher forcing")  # fmt: skip
    if not all(math.isclose(a, b, rel_tol=1e-3) for a, b in zip(got, truth, strict=False)):
        raise NotYet(
            f"your first {check} losses are not those of section 3's loop without "
            "teacher forcing (same pairs, seed, batches): is exercise 1 correct?"
        )
    last_free, last_forced = sum(got[-10:]) / 10, sum(forced[-10:]) / 10
    return (
        f"after {len(got)} steps, the mean loss of the last 10 is {last_free:.2f} without "
        f"teacher forcing and {last_forced:.2f} with it. Early on the model's own words are "
        "mostly wrong, so each step asks it for the next reference word after a prefix that "
        "does not lead to it; teacher forcing gives every position its right prefix, all "
        "positions in one pass (no greedy decoding), and the loss falls faster"
    )


@exercise(
    "01.4",
    "where the bottleneck runs out",
    hints=(
        "word_acc['none'] holds one value per bin of 5 target positions: positions 1-5, "
        "6-10, 11-15, ...",
        "Find the first value below 0.5; the answer is the first position of that bin.",
    ),
)
def _bottleneck_position(answer: object, *, word_acc: object) -> str:
    values = [float(v) for v in word_acc]
    below = [k for k, v in enumerate(values) if v < 0.5]
    if not below:
        raise ValueError("word_acc has no bin below 0.5: pass word_acc['none']")
    first = 5 * below[0] + 1
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        raise NotYet(f"give a target position (an int), got {type(answer).__name__}")
    if answer != first:
        if (answer - 1) % 5:
            raise NotYet("give the first position of a bin (1, 6, 11, 16, ...)")
        raise NotYet("that is not the first bin below one half")
    return (
        f"from target position {first} on, the model without attention gets fewer than half "
        f"of the next words right ({values[below[0]]:.2f}), although it is given the correct "
        "prefix: what one vector kept of the source is running out"
    )
