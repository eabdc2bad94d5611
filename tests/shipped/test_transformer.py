"""lecturekit.shipped.transformer: the lecture 10 translator, its schedule and loss."""

import math

import pytest
import torch

from lecturekit.datasets.translation import (
    BOS,
    EOS,
    PAD,
    collate,
    default_data,
    make_translation_data,
)
from lecturekit.decoding import beam_search, greedy_search
from lecturekit.experiments.translation import exact_match
from lecturekit.models.transformer import Transformer
from lecturekit.shipped import load_shipped
from lecturekit.shipped.transformer import (
    TRAINING,
    default_config,
    learning_rate,
    main,
    train_transformer,
    transformer_loss,
)


@pytest.fixture(scope="module")
def data():
    return default_data()


@pytest.fixture(scope="module")
def model():
    return load_shipped("transformer_nmt")


def test_checkpoint_loads_with_the_lecture_config(model, data):
    assert isinstance(model, Transformer) and not model.training
    assert model.config == default_config(data, dropout=model.config.dropout)
    n = sum(p.numel() for p in model.parameters())
    assert 300_000 <= n <= 450_000  # the size of the shipped RNN models


def test_checkpoint_translates_a_test_slice(model, data):
    long = [p for p in data.test if len(p.src) >= 30][:60]
    torch.manual_seed(0)
    assert exact_match(model, data.test[:150], data).float().mean() >= 0.97
    assert exact_match(model, long, data).float().mean() >= 0.93


def test_step_function_works_with_greedy_and_beam_search(model, data):
    for pair in data.test[:5]:
        step = model.step_function(data.src_vocab.encode(pair.src))
        greedy = greedy_search(step, BOS, EOS, len(pair.src) + 10)
        beams = beam_search(step, BOS, EOS, beam_size=3, max_len=len(pair.src) + 10)
        assert len(beams) == 3 and beams[0].score >= greedy.score - 1e-4  # float noise only
        batch = collate([pair], data.src_vocab, data.tgt_vocab)
        ids, _ = model.greedy_decode(batch.src, batch.src_len, len(pair.src) + 10)
        assert list(greedy.tokens) == ids[0, : len(greedy.tokens)].tolist()
    assert data.tgt_vocab.decode(greedy.tokens) == list(pair.tgt)


def test_learning_rate_warms_up_then_decays():
    assert learning_rate(1, 2e-3, 4) == pytest.approx(5e-4)
    assert learning_rate(4, 2e-3, 4) == pytest.approx(2e-3)  # the peak, at step = warmup
    assert learning_rate(16, 2e-3, 4) == pytest.approx(1e-3)  # 1/sqrt(step): 4x steps, half
    d, warmup = 512, 4000  # the paper's eq. 3, peak d^-0.5 warmup^-0.5
    peak = d**-0.5 * warmup**-0.5
    for step in (1, 100, 4000, 10_000):
        paper = d**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert learning_rate(step, peak, warmup) == pytest.approx(paper)
    with pytest.raises(ValueError, match="step must be a positive integer, got 0"):
        learning_rate(0, 1e-3, 10)


def test_loss_ignores_padding_and_label_smoothing_raises_it(model, data):
    batch = collate(data.test[:8], data.src_vocab, data.tgt_vocab)
    with torch.no_grad():
        plain = transformer_loss(model, batch)
        smoothed = transformer_loss(model, batch, label_smoothing=0.1)
        logits, _ = model(batch.src, batch.tgt_in)
    real = batch.tgt_out != PAD
    picked = torch.log_softmax(logits, -1).gather(-1, batch.tgt_out[..., None])[..., 0]
    torch.testing.assert_close(plain, -picked[real].mean())
    assert smoothed > plain  # a confident model pays for the eps spread over other tokens


def test_training_is_deterministic_and_learns():
    small = make_translation_data(n_train=256, n_valid=16, n_test=16, seed=3, max_clauses=1)
    config = default_config(small, d_model=32, d_ff=64, num_layers=1)
    kwargs = {"epochs": 3, "batch_size": 32, "warmup": 10, "progress": False}
    m1, h1 = train_transformer(small, config, **kwargs)
    m2, h2 = train_transformer(small, config, **kwargs)
    assert h1.loss == h2.loss and len(h1.eval) == 3 and not m1.training
    assert h1.loss[-1] < h1.loss[0]
    torch.testing.assert_close(m1.generator.weight, m2.generator.weight, atol=0, rtol=0)
    with pytest.raises(ValueError, match=r"label_smoothing must be a number in \[0, 1\)"):
        train_transformer(small, config, label_smoothing=1.0, **kwargs)


def test_max_steps_gives_the_first_steps_of_the_full_run_without_evaluation():
    small = make_translation_data(n_train=256, n_valid=16, n_test=16, seed=3, max_clauses=1)
    config = default_config(small, d_model=32, d_ff=64, num_layers=1)
    kwargs = {"batch_size": 32, "warmup": 10, "progress": False}
    _, full = train_transformer(small, config, epochs=2, **kwargs)
    _, part = train_transformer(small, config, epochs=2, max_steps=5, eval_pairs=[], **kwargs)
    assert part.step_loss == full.step_loss[:5] and part.eval == []
    with pytest.raises(ValueError, match="max_steps"):
        train_transformer(small, config, max_steps=0, **kwargs)


def test_shipped_budget_and_command_line_checks():
    assert TRAINING["label_smoothing"] == 0.1 and TRAINING["batch_size"] == 64
    assert math.isfinite(TRAINING["lr"])
    with pytest.raises(SystemExit):
        main(["--epochs", "0"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--threads", "0"], "--threads must be >= 1, got 0"),
        (["--models", "x"], "unrecognized arguments: --models x"),  # one model, no --models
        (["--epochs", "two"], "argument --epochs: invalid int value: 'two'"),
    ],
)
def test_command_line_errors_are_one_line_messages(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and "Traceback" not in err
