"""Lecture 10's exercises: the full Transformer, translating.

10.1 the size of a base decoder layer (hashed), 10.2 write the shifted decoder input and
target yourself (code: run against lecturekit's ``collate`` on batches of the test set), 10.3
warm-up and decay (hashed), 10.4 train the notebook's Transformer without the causal mask (the
trained model passed in: it must see the future; its teacher-forced accuracy and greedy exact
match are measured here).
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.datasets.translation import PAD
from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("10", "10_transformer_translation")

register(
    Exercise(
        "10.1",
        "the size of a base decoder layer",
        hints=(
            "Section 3 counts the tiny model's: an attention block has four d x d projections "
            "with biases; the FFN has a d x d_ff and a d_ff x d layer with biases.",
            "A decoder layer has two attention blocks (self and cross), one FFN and three "
            "LayerNorms of 2d parameters each (gamma and beta).",
        ),
        expected=Expected("int", ("0d5acc91ea6394a1ac8e",)),
        correct="{answer} parameters, as DecoderLayer(512, 8, 2048) has: half of them in the "
        "two attention blocks, half in the feed-forward network",
    )
)


@exercise(
    "10.2",
    "the shifted decoder input and target",
    hints=(
        "Both are (B, T) with T = the longest target + 1, filled with PAD first; tgt_in starts "
        "with BOS, tgt_out ends with EOS.",
        "For sentence b with ids y (n of them): tgt_in[b, :n + 1] = [BOS, *y] and "
        "tgt_out[b, :n + 1] = [*y, EOS].",
    ),
)
def _shift(answer: object) -> str:
    from lecturekit.datasets.translation import collate, default_data

    data = default_data()
    for indices in [(5, 9, 6), (0,), (3, 306, 1, 2), (7, 7)]:
        pairs = [data.test[i] for i in indices]
        targets = [data.tgt_vocab.encode(p.tgt) for p in pairs]
        want = collate(pairs, data.src_vocab, data.tgt_vocab)
        what = f"your function on the targets of test sentences {list(indices)}"
        got = run_student(answer, [list(t) for t in targets], what=what)
        try:
            tgt_in, tgt_out = got
        except (TypeError, ValueError):
            raise NotYet("return a pair (tgt_in, tgt_out)") from None
        longest = max(map(len, targets))
        where = f"for test sentences {list(indices)} (at most {longest} words)"
        same_values(tgt_in, want.tgt_in, f"{where}, tgt_in", dims="(B, T)")
        same_values(tgt_out, want.tgt_out, f"{where}, tgt_out", dims="(B, T)")
    return (
        "your tgt_in and tgt_out equal collate's: the decoder reads <bos> y1 .. yn and "
        "predicts y1 .. yn <eos>, every position at once, the causal mask keeping it honest"
    )


register(
    Exercise(
        "10.3",
        "warm-up and decay",
        hints=(
            "After warm-up, lr = peak * sqrt(warmup / step) (section 5).",
            "Solve sqrt(warmup / step) = 1/2 for step, with warmup = TRAINING['warmup'].",
        ),
        expected=Expected("int", ("29b48720ee62f1822e29",)),
        correct="step {answer}: the rate halves when the step quadruples from the end of "
        "warm-up; the shipped training stops just before it",
    )
)


@exercise(
    "10.4",
    "train it without the causal mask",
    hints=(
        "Copy Transformer.decode into the subclass and change one line, the mask: keep the "
        "padding part, (tgt_in != PAD)[:, None, None, :] of shape (B, 1, 1, T), and drop "
        "causal_mask(T).",
        "Teacher-forced accuracy: logits = peeking(b.src, b.tgt_in) with b = collate(short_test, "
        "...); compare logits.argmax(-1) with b.tgt_out where b.tgt_out != PAD. Greedy exact "
        "match: the share of short_test whose greedy_translate, decoded, equals pair.tgt.",
    ),
)
def _peeking(answer: object, *, model: object) -> str:
    from lecturekit.datasets.translation import collate, default_data

    if model is None:
        raise NotYet("pass the trained model too: check('10.4', answer, model=peeking)")
    if not isinstance(model, nn.Module):
        raise NotYet(f"model must be your trained PeekingTransformer, got {type(model).__name__}")
    try:
        accuracy, exact = (float(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet(
            "give a pair of fractions: answer = (teacher_forced_accuracy, greedy_exact_match)"
        ) from None
    data = default_data()
    short_test = [p for p in data.test if len(p.src) <= 10][:100]
    batch = collate(short_test, data.src_vocab, data.tgt_vocab)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits = _logits(model, batch.src, batch.tgt_in)
            if logits.shape[:2] != batch.tgt_in.shape:
                raise NotYet(
                    f"model(src, tgt_in) should give logits (B, T, V) = "
                    f"{(*batch.tgt_in.shape, 'V')}, got {tuple(logits.shape)}"
                )
            peeks = _sees_the_future(model, batch, logits)
            real = batch.tgt_out != PAD
            truth_accuracy = (logits.argmax(-1) == batch.tgt_out)[real].float().mean().item()
            truth_exact = _greedy_exact(model, batch, short_test, data)
    finally:
        model.train(was_training)
    if not peeks:
        raise NotYet(
            "your model's prediction at position t does not change when the target words after "
            "t change: its decoder still has the causal mask"
        )
    if truth_accuracy < 0.3:
        raise NotYet(
            "the model does not look trained: train it as section 4 trains yours (70 steps) "
            "before you measure it"
        )
    right = abs(accuracy - truth_accuracy) <= 0.01 and abs(exact - truth_exact) <= 0.015
    if not right and abs(exact - truth_accuracy) <= 0.01 and abs(accuracy - truth_exact) <= 0.015:
        raise NotYet("the two numbers are swapped: (teacher_forced_accuracy, greedy_exact_match)")
    if accuracy > 1 or exact > 1:
        raise NotYet("give both as fractions between 0 and 1, not percentages")
    if abs(accuracy - truth_accuracy) > 0.01:
        raise NotYet(
            "the teacher-forced accuracy is not this model's: the share of real target "
            "positions (tgt_out != PAD) of collate(short_test, ...) where the argmax is right"
        )
    if abs(exact - truth_exact) > 0.015:
        raise NotYet(
            "the greedy exact match is not this model's: translate each of the 100 short_test "
            "sentences with greedy_translate and count the exact ones"
        )
    return (
        f"teacher-forced, it picks {truth_accuracy:.0%} of the words right, yet greedy decoding "
        f"translates {truth_exact:.0%} of the sentences. The decoder's input at position t + 1 "
        "is the word it must predict at t: without the mask it learns to copy it from there, "
        "so the training loss falls fast. At generation time position t + 1 does not exist "
        "yet: there is nothing to copy. The causal mask makes training see what generation sees"
    )


def _logits(model: nn.Module, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
    """model(src, tgt_in) as logits (B, T, V): the notebook's Transformer returns them,
    lecturekit's (logits, weights)."""
    out = run_student(model, src, tgt_in, what="model(src, tgt_in)")
    return as_tensor(out, "model(src, tgt_in)", dims="(B, T, V)")


def _sees_the_future(model: nn.Module, batch: object, logits: torch.Tensor) -> bool:
    """Do the logits at positions 0..2 change when the target words after position 2 change?"""
    changed = batch.tgt_in.clone()
    later = changed[:, 3:]
    real = later != PAD
    later[real] = 4 + (later[real] - 4 + 7) % (int(changed.max()) - 3)  # other real words
    other = _logits(model, batch.src, changed)
    return not torch.allclose(other[:, :3], logits[:, :3], atol=1e-5, rtol=0)


def _greedy_exact(model: nn.Module, batch: object, pairs: list, data: object) -> float:
    """Greedy exact match of ``model`` on ``pairs`` (batched: every row takes its argmax, rows
    that wrote <eos> are padded), through model(src, prefix) alone."""
    from lecturekit.datasets.translation import BOS, EOS

    B = batch.src.shape[0]
    prefix = torch.full((B, 1), BOS, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    limit = max(len(p.src) for p in pairs) + 10
    for _ in range(limit):
        token = _logits(model, batch.src, prefix)[:, -1].argmax(-1)  # (B, t, V) -> (B,)
        token[done] = PAD
        prefix = torch.cat([prefix, token[:, None]], dim=1)
        done |= token == EOS
        if done.all():
            break
    right = 0
    for ids, pair in zip(prefix[:, 1:].tolist(), pairs, strict=True):
        finished = EOS in ids[: len(pair.src) + 10]
        right += finished and tuple(data.tgt_vocab.decode(ids[: ids.index(EOS)])) == pair.tgt
    return right / len(pairs)
