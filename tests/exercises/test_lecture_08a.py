"""Lecture 08a's exercises: the checkers accept a right answer and refuse the near misses a
student writes, with a message that does not show the answer.

08a.4 gets the student's UntiedBert: stand-ins built on lecturekit's BertForPreTraining (a
decoder of its own; one that keeps both biases; one whose logits still use the token table),
the right counts computed here the way the checker must compute them."""

import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.datasets.pretraining import pretraining_batch
from lecturekit.datasets.stories import default_data
from lecturekit.exercises import check, core, status
from lecturekit.models.bert import BertConfig, BertForPreTraining, init_bert_weights
from lecturekit.objectives import make_nsp_pairs
from lecturekit.tokenization import MASK_ID, SPECIAL_TOKENS


class Untied(BertForPreTraining):
    """lecturekit's BERT with an MLM decoder of its own (what the exercise asks for), or a near
    miss: ``keep_bias`` keeps mlm_bias beside the decoder's; ``still_tied`` adds the tied
    logits."""

    def __init__(self, config, keep_bias=False, still_tied=False):
        super().__init__(config)
        if not keep_bias:
            del self.mlm_bias
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)
        init_bert_weights(self.decoder)
        self.keep_bias, self.still_tied = keep_bias, still_tied

    def forward(self, ids, segments, real):
        out = self.bert(ids, segments, real)
        h = self.mlm_norm(F.gelu(self.mlm_dense(out.hidden)))  # (B, T, D)
        logits = self.decoder(h)
        if self.still_tied:
            logits = logits + h @ self.bert.embeddings.token.weight.T
        return logits, self.nsp(out.pooled)


class Stub(Untied):
    def forward(self, ids, segments, real):
        raise NotImplementedError


@pytest.fixture(scope="module")
def config():
    return BertConfig.tiny(vocab_size=len(default_data().tokenizer))


@pytest.fixture(scope="module")
def truth(config):
    """(extra parameters, rows tied, rows untied) on the lecture's batch ``small``."""
    data = default_data()
    pairs = make_nsp_pairs(data.train[:2000], random.Random(0))
    small = pretraining_batch(pairs[:64], data.tokenizer, torch.Generator().manual_seed(0))
    ids = small["input_ids"]
    rows_untied = len(set(ids[ids != config.pad_id].tolist()))  # [PAD]'s row gets no gradient
    return config.vocab_size * config.hidden_size, config.vocab_size, rows_untied


def test_untied_checker_measures_the_model(config, truth, capsys):
    extra, rows_tied, rows_untied = truth
    assert (extra, rows_tied) == (28800, 450) and 150 < rows_untied < 300
    torch.manual_seed(0)
    untied = Untied(config).train()
    check("08a.4", truth, model=untied)
    out = capsys.readouterr().out
    assert status("08a.4") == "correct" and "every step" in out, out
    assert untied.training and all(p.grad is None for p in untied.parameters())
    near_misses = [
        ((extra + config.vocab_size, rows_tied, rows_untied), "what the decoder brings"),
        ((extra, rows_untied, rows_untied), "rows_tied is not right"),
        ((extra, rows_tied, rows_untied + 1), "rows_untied is not right"),
        ((extra, rows_untied, rows_tied), "swapped"),
        ((extra, rows_tied), "three whole numbers"),
        ((extra, rows_tied, 0.5), "three whole numbers"),
    ]
    for answer, says in near_misses:
        check("08a.4", answer, model=untied)
        out = capsys.readouterr().out
        assert status("08a.4") == "not yet" and says in out, (answer, out)
        for number in {*map(str, truth), f"{extra:,}"} - {str(a) for a in answer}:
            assert number not in out.split("hint")[0], (answer, number, out)


def test_untied_checker_refuses_a_model_that_is_not_untied(config, truth, capsys):
    torch.manual_seed(0)
    for model, says in [
        (Untied(config, still_tied=True), "still use the token embeddings"),
        (Untied(config, keep_bias=True), "two output biases"),
        (BertForPreTraining(config), "add the decoder"),
        (Untied(BertConfig.tiny(vocab_size=500)), "the lecture's sizes"),
        (nn.Linear(3, 3), "no embeddings.token table"),
        (None, "model=untied"),
    ]:
        check("08a.4", truth, model=model)
        out = capsys.readouterr().out
        assert status("08a.4") == "not yet" and says in out, (type(model).__name__, out)
    core.reset()
    check("08a.4", truth, model=Stub(config))
    assert status("08a.4") == "not attempted"
    assert "not attempted yet" in capsys.readouterr().out


def my_mask_tokens(input_ids, u_choose, u_action, random_ids):
    chosen = (u_choose < 0.15) & (input_ids >= len(SPECIAL_TOKENS))
    labels = torch.where(chosen, input_ids, -100)
    masked = torch.where(chosen & (u_action < 0.8), MASK_ID, input_ids)
    random_ = chosen & (u_action >= 0.8) & (u_action < 0.9)
    return torch.where(random_, random_ids, masked), labels


def test_masking_checker(capsys):
    check("08a.2", my_mask_tokens)
    assert status("08a.2") == "correct" and "mask_tokens" in capsys.readouterr().out

    def special_tokens_too(input_ids, u_choose, u_action, random_ids):
        chosen = u_choose < 0.15
        labels = torch.where(chosen, input_ids, -100)
        masked = torch.where(chosen & (u_action < 0.8), MASK_ID, input_ids)
        random_ = chosen & (u_action >= 0.8) & (u_action < 0.9)
        return torch.where(random_, random_ids, masked), labels

    def labels_everywhere(input_ids, u_choose, u_action, random_ids):
        masked, _ = my_mask_tokens(input_ids, u_choose, u_action, random_ids)
        return masked, input_ids

    for wrong in (special_tokens_too, labels_everywhere):
        check("08a.2", wrong)
        assert status("08a.2") == "not yet" and "not right yet" in capsys.readouterr().out
