"""lecturekit.models.bert_tasks: the fine-tuning heads equal Hugging Face's; from_pretrained
copies the encoder exactly; best_span is the exhaustive search; bad inputs get clear errors."""

import dataclasses
import itertools
import math

import pytest
import torch
import transformers

from lecturekit.models.bert import BertConfig, BertForPreTraining
from lecturekit.models.bert_tasks import (
    IGNORE_INDEX,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertTaskConfig,
    SpanOutput,
    TaskOutput,
    best_span,
    span_scores,
)
from lecturekit.models.causal_lm import CausalLM

HEADS = {
    "sequence": (BertForSequenceClassification, 3),
    "token": (BertForTokenClassification, 5),
    "span": (BertForQuestionAnswering, 2),
}
B, T = 4, 12


def _hf(cls_name, num_labels, **overrides):
    """A Hugging Face task model from a tiny random config (nothing downloaded), eval mode."""
    torch.manual_seed(0)
    config = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=37, max_position_embeddings=24, num_labels=num_labels,
                  attn_implementation="eager")  # fmt: skip
    config.update(overrides)
    return getattr(transformers, cls_name)(transformers.BertConfig(**config)).eval()


def _batch():
    """Ids with padding (rows of 12, 9, 5 and 2 real tokens) and two segments."""
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(5, 99, (B, T), generator=g)
    real = torch.arange(T)[None, :] < torch.tensor([12, 9, 5, 2])[:, None]  # (B, T)
    ids = ids.masked_fill(~real, 0)
    segments = ((torch.arange(T) >= 4).long()[None, :] & real).long()  # (B, T)
    return ids, segments, real, g


def _pretraining(seed=0, **sizes):
    torch.manual_seed(seed)
    config = BertConfig.tiny(**{"vocab_size": 40, "hidden_size": 16, "num_heads": 2,
                                "intermediate_size": 32, "max_position": 16, **sizes})  # fmt: skip
    return BertForPreTraining(config)


# --- equal to Hugging Face ------------------------------------------------------------------------


def test_sequence_classification_equals_hugging_face():
    hf = _hf("BertForSequenceClassification", 3)
    ours = BertForSequenceClassification.from_hf(hf)
    assert not ours.training and ours.config.num_labels == 3
    ids, segments, real, g = _batch()
    labels = torch.randint(0, 3, (B,), generator=g)
    with torch.no_grad():
        ref = hf(input_ids=ids, token_type_ids=segments, attention_mask=real.long(),
                 labels=labels, output_hidden_states=True)  # fmt: skip
        out = ours(ids, segments, real, labels=labels)
    assert isinstance(out, TaskOutput) and out.logits.shape == (B, 3)
    torch.testing.assert_close(out.logits, ref.logits, atol=1e-5, rtol=0)
    torch.testing.assert_close(out.loss, ref.loss, atol=1e-5, rtol=0)
    for mine, theirs in zip(out.hidden_states, ref.hidden_states, strict=True):
        torch.testing.assert_close(mine[real], theirs[real], atol=1e-5, rtol=0)
    assert len(out.attentions) == 2 and out.attentions[0].shape == (B, 4, T, T)
    with torch.no_grad():
        assert ours(ids, segments, real).loss is None


def test_token_classification_equals_hugging_face():
    hf = _hf("BertForTokenClassification", 5)
    ours = BertForTokenClassification.from_hf(hf)
    ids, segments, real, g = _batch()
    labels = torch.randint(0, 5, (B, T), generator=g)
    labels[~real] = IGNORE_INDEX  # padding and, say, [CLS] are not scored
    labels[:, 0] = IGNORE_INDEX
    with torch.no_grad():
        ref = hf(input_ids=ids, token_type_ids=segments, attention_mask=real.long(),
                 labels=labels)  # fmt: skip
        out = ours(ids, segments, real, labels=labels)
    assert out.logits.shape == (B, T, 5)
    torch.testing.assert_close(out.logits[real], ref.logits[real], atol=1e-5, rtol=0)
    torch.testing.assert_close(out.loss, ref.loss, atol=1e-5, rtol=0)
    # int32 labels and a 1/0 attention mask give the same loss as int64 and bool
    with torch.no_grad():
        again = ours(ids, segments, real.long(), labels=labels.int())
    torch.testing.assert_close(again.loss, out.loss, atol=0, rtol=0)


def test_question_answering_equals_hugging_face():
    hf = _hf("BertForQuestionAnswering", 2)
    ours = BertForQuestionAnswering.from_hf(hf)
    ids, segments, real, _ = _batch()
    start, end = torch.tensor([4, 5, 4, 0]), torch.tensor([7, 5, 4, 1])
    with torch.no_grad():
        ref = hf(input_ids=ids, token_type_ids=segments, attention_mask=real.long(),
                 start_positions=start, end_positions=end)  # fmt: skip
        out = ours(ids, segments, real, start_positions=start, end_positions=end)
    assert isinstance(out, SpanOutput) and out.start_logits.shape == out.end_logits.shape == (B, T)
    torch.testing.assert_close(out.start_logits[real], ref.start_logits[real], atol=1e-5, rtol=0)
    torch.testing.assert_close(out.end_logits[real], ref.end_logits[real], atol=1e-5, rtol=0)
    torch.testing.assert_close(out.loss, ref.loss, atol=1e-5, rtol=0)


@pytest.mark.parametrize("kind", ["token", "span"])
def test_without_a_hugging_face_pooler_ours_keeps_its_own(kind):
    """HF's token-classification and QA models are built without a pooler: ours keeps the
    weights it was initialised with, and the outputs do not depend on it."""
    cls, n = HEADS[kind]
    hf = _hf(cls.__name__, n)
    assert hf.bert.pooler is None
    torch.manual_seed(5)
    a = cls.from_hf(hf)
    torch.manual_seed(6)
    b = cls.from_hf(hf)
    assert not torch.equal(a.bert.pooler.weight, b.bert.pooler.weight)
    ids, segments, real, _ = _batch()
    with torch.no_grad():
        torch.testing.assert_close(a(ids, segments, real)[0], b(ids, segments, real)[0])


def test_from_hf_copies_rather_than_matches_by_accident():
    hf = _hf("BertForSequenceClassification", 3)
    ours = BertForSequenceClassification.from_hf(hf)
    ids, segments, real, _ = _batch()
    with torch.no_grad():
        hf.classifier.bias += 1.0  # the copy does not follow later changes
        assert not torch.allclose(ours(ids, segments, real).logits,
                                  hf(input_ids=ids, token_type_ids=segments,
                                     attention_mask=real.long()).logits)  # fmt: skip
        fresh = BertForSequenceClassification(ours.config).eval()
        assert not torch.allclose(fresh(ids).logits, ours(ids).logits)
    assert BertForSequenceClassification.from_hf(hf.train()).training  # the mode is kept


# --- from_pretrained ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_from_pretrained_copies_the_encoder_and_draws_a_new_head(kind):
    cls, n = HEADS[kind]
    pre = _pretraining().eval()
    before = {k: v.clone() for k, v in pre.state_dict().items()}
    labels = {} if kind == "span" else {"num_labels": n}
    rng = torch.random.get_rng_state()
    model = cls.from_pretrained(pre, **labels, seed=3)
    assert torch.equal(torch.random.get_rng_state(), rng)  # the global random state untouched
    assert model.training and not pre.training
    assert model.config == BertTaskConfig(**pre.config.to_dict(), num_labels=n)
    mine, theirs = model.bert.state_dict(), pre.bert.state_dict()
    assert mine.keys() == theirs.keys()  # embeddings, every layer, the pooler
    for name in mine:
        assert torch.equal(mine[name], theirs[name]), name
        assert mine[name].data_ptr() != theirs[name].data_ptr(), name  # a copy, not shared
    after = pre.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # the pre-training model
    head = model.qa_outputs if kind == "span" else model.classifier
    assert head.weight.shape == (n, 16) and torch.equal(head.bias, torch.zeros(n))
    assert abs(head.weight.std().item() - 0.02) < 0.01  # init_bert_weights: N(0, 0.02)
    same = cls.from_pretrained(pre, **labels, seed=3)
    other = cls.from_pretrained(pre, **labels, seed=4)
    same_head = same.qa_outputs if kind == "span" else same.classifier
    other_head = other.qa_outputs if kind == "span" else other.classifier
    assert torch.equal(same_head.weight, head.weight)
    assert not torch.equal(other_head.weight, head.weight)
    with torch.no_grad():
        model.bert.embeddings.token.weight[7] += 1.0  # changing the copy leaves the original
    assert torch.equal(pre.bert.embeddings.token.weight, before["bert.embeddings.token.weight"])


def test_from_scratch_the_whole_model_is_bert_initialised_from_the_global_seed():
    config = BertTaskConfig.tiny(vocab_size=40, hidden_size=16, num_heads=2, num_labels=4)
    torch.manual_seed(0)
    a = BertForTokenClassification(config)
    torch.manual_seed(0)
    b = BertForTokenClassification(config)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    assert torch.equal(a.classifier.bias, torch.zeros(4))
    assert torch.equal(a.bert.embeddings.token.weight[config.pad_id], torch.zeros(16))


# --- gradients ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(HEADS))
@pytest.mark.parametrize("frozen", [False, True])
def test_fine_tuning_changes_the_encoder_and_freezing_it_does_not(kind, frozen):
    cls, n = HEADS[kind]
    model = cls.from_pretrained(_pretraining(), **({} if kind == "span" else {"num_labels": n}))
    if frozen:
        model.bert.requires_grad_(False)
    encoder = {k: v.clone() for k, v in model.bert.state_dict().items()}
    head = model.qa_outputs if kind == "span" else model.classifier
    head_before = head.weight.clone()
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 40, (3, 8), generator=g)
    if kind == "span":
        targets = {"start_positions": torch.tensor([1, 2, 3]),
                   "end_positions": torch.tensor([2, 2, 5])}  # fmt: skip
    elif kind == "token":
        targets = {"labels": torch.randint(0, n, (3, 8), generator=g)}
    else:
        targets = {"labels": torch.tensor([0, 1, 2])}
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.5)
    loss = model(ids, **targets).loss
    loss.backward()
    optimizer.step()
    assert not torch.equal(head.weight, head_before)
    changed = [k for k, v in model.bert.state_dict().items() if not torch.equal(v, encoder[k])]
    if frozen:
        assert changed == []
    else:  # the embeddings and every layer move (the pooler only feeds the sequence head)
        assert "embeddings.token.weight" in changed
        assert any(k.startswith("encoder.layers.0.") for k in changed)
        assert any(k.startswith("encoder.layers.1.") for k in changed)
        assert ("pooler.weight" in changed) == (kind == "sequence")


# --- best_span and span_scores ------------------------------------------------------------------


def _brute_force(start, end, max_len, allowed):
    """Every (i, j) with i <= j < i + max_len, both allowed: the first of the best."""
    best = (None, None, -math.inf)
    for i, j in itertools.product(range(len(start)), repeat=2):
        ok = i <= j < i + max_len and (allowed is None or (allowed[i] and allowed[j]))
        if ok and start[i] + end[j] > best[2]:
            best = (i, j, start[i] + end[j])
    return best


@pytest.mark.parametrize("seed", range(40))
def test_best_span_is_the_exhaustive_search(seed):
    g = torch.Generator().manual_seed(seed)
    batch = seed % 3 + 1
    length = int(torch.randint(1, 16, (1,), generator=g))
    max_len = int(torch.randint(1, 8, (1,), generator=g))
    start, end = torch.randn(batch, length, generator=g), torch.randn(batch, length, generator=g)
    allowed = None
    if seed % 2:
        allowed = torch.rand(batch, length, generator=g) < 0.6
        allowed[:, int(torch.randint(0, length, (1,), generator=g))] = True
    s, e, score = best_span(start, end, max_answer_length=max_len, allowed=allowed)
    assert s.shape == e.shape == score.shape == (batch,) and s.dtype == e.dtype == torch.long
    for b in range(batch):
        row_allowed = None if allowed is None else allowed[b].tolist()
        i, j, best = _brute_force(start[b].tolist(), end[b].tolist(), max_len, row_allowed)
        assert (int(s[b]), int(e[b])) == (i, j)
        assert float(score[b]) == pytest.approx(best, abs=1e-6)
        one = best_span(start[b], end[b], max_len,
                        None if allowed is None else allowed[b])  # fmt: skip
        assert one[:2] == (i, j) and isinstance(one[0], int) and isinstance(one[2], float)
    if allowed is not None:  # one (T,) mask for the whole batch
        shared = allowed[0]
        s2, e2, _ = best_span(start, end, max_len, shared)
        for b in range(batch):
            i, j, _ = _brute_force(start[b].tolist(), end[b].tolist(), max_len, shared.tolist())
            assert (int(s2[b]), int(e2[b])) == (i, j)


def test_best_span_worked_example():
    """End before start and too-long spans never win, however high their logits."""
    start = torch.tensor([-9.0, 5.0, 0.0, 0.0, 1.0])
    end = torch.tensor([9.0, 0.0, 0.0, 0.0, 2.0])  # (1, 0) would score 14: it ends too early
    assert best_span(start, end) == (1, 4, 7.0)
    assert best_span(start, end, max_answer_length=4) == (1, 4, 7.0)
    assert best_span(start, end, max_answer_length=3) == (1, 1, 5.0)  # ties: the shortest
    assert best_span(start, end, allowed=torch.tensor([False, False, True, True, True])) == (
        4, 4, 3.0)  # fmt: skip


def test_span_scores_is_minus_infinity_exactly_where_a_span_is_invalid():
    g = torch.Generator().manual_seed(0)
    start, end = torch.randn(2, 7, generator=g), torch.randn(2, 7, generator=g)
    allowed = torch.ones(2, 7, dtype=torch.bool)
    allowed[0, :2], allowed[1, 5:] = False, False
    scores = span_scores(start, end, max_answer_length=3, allowed=allowed)
    assert scores.shape == (2, 7, 7)
    for b, i, j in itertools.product(range(2), range(7), range(7)):
        valid = i <= j <= i + 2 and bool(allowed[b, i]) and bool(allowed[b, j])
        if valid:
            assert scores[b, i, j] == start[b, i] + end[b, j]
        else:
            assert scores[b, i, j] == -math.inf
    probs = scores.flatten(-2).softmax(-1)  # span probabilities for a widget
    torch.testing.assert_close(probs.sum(-1), torch.ones(2))
    assert span_scores(start[0], end[0]).shape == (7, 7)


# --- configs and bad inputs -----------------------------------------------------------------------


def test_task_config_adds_num_labels_and_leaves_bert_config_alone():
    config = BertTaskConfig.tiny(vocab_size=450, num_labels=9)
    assert config.num_labels == 9 and config.hidden_size == 64 and isinstance(config, BertConfig)
    assert BertTaskConfig.from_dict(config.to_dict()) == config
    assert BertTaskConfig().num_labels == 2
    assert "num_labels" not in repr(BertConfig.tiny())  # lecture 08a prints it
    with pytest.raises(ValueError, match="num_labels must be a positive integer, got 0"):
        BertTaskConfig.tiny(num_labels=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.num_labels = 3  # type: ignore[misc]


SMALL = BertTaskConfig.tiny(vocab_size=40, hidden_size=16, num_heads=2, intermediate_size=32,
                            max_position=16, num_labels=3)  # fmt: skip
SEQ = BertForSequenceClassification(SMALL).eval()
TOK = BertForTokenClassification(SMALL).eval()
QA = BertForQuestionAnswering(SMALL.replace(num_labels=2)).eval()
IDS = torch.randint(5, 40, (2, 6), generator=torch.Generator().manual_seed(0))
L = torch.long


@pytest.mark.parametrize(
    ("call", "match"),
    [
        # labels of the sequence head
        (lambda: SEQ(IDS, labels=torch.tensor([0.0, 1.0])),
         r"labels must be an integer tensor of shape \(2,\) .*got dtype torch.float32 "
         r"\(convert with labels.long\(\)\)"),
        (lambda: SEQ(IDS, labels=torch.tensor([True, False])), "labels must be an integer"),
        (lambda: SEQ(IDS, labels=[0, 1]), r"labels must be a torch.Tensor of shape \(2,\)"),
        (lambda: SEQ(IDS, labels=torch.tensor([0, 3])),
         r"labels must hold class ids in 0\.\.2 \(num_labels=3\), got the value 3"),
        (lambda: SEQ(IDS, labels=torch.tensor([-100, 1])), r"0\.\.2 .*got the value -100"),
        (lambda: SEQ(IDS, labels=torch.tensor([0, 1, 2])),
         r"labels must have shape \(2,\) \(one class id per sequence\), got \(3,\)"),
        (lambda: SEQ(IDS, labels=torch.zeros(2, 6, dtype=L)),
         r"labels must have shape \(2,\) .*got \(2, 6\)"),
        # labels of the token head
        (lambda: TOK(IDS, labels=torch.zeros(2, 5, dtype=L)),
         r"labels must have shape \(2, 6\) \(a class id per position of input_ids, "
         r"IGNORE_INDEX=-100 where not scored\), got \(2, 5\)"),
        (lambda: TOK(IDS, labels=torch.zeros(2, dtype=L)), r"labels must have shape \(2, 6\)"),
        (lambda: TOK(IDS, labels=torch.full((2, 6), 3)),
         r"class ids in 0\.\.2 \(num_labels=3\) or IGNORE_INDEX=-100 at positions not scored, "
         r"got the value 3"),
        (lambda: TOK(IDS, labels=torch.full((2, 6), -1)), "got the value -1"),
        (lambda: TOK(IDS, labels=torch.full((2, 6), IGNORE_INDEX)),
         r"labels has no scored position \(every label is IGNORE_INDEX=-100\)"),
        (lambda: TOK(IDS, labels=torch.zeros(2, 6)), "labels must be an integer tensor"),
        # start and end positions
        (lambda: QA(IDS, start_positions=torch.tensor([0, 6]), end_positions=torch.tensor([1, 6])),
         r"start_positions must hold positions in 0\.\.5 \(input_ids has T=6 positions\), got "
         r"values from 0 to 6"),
        (lambda: QA(IDS, start_positions=torch.tensor([0, 1]), end_positions=torch.tensor([-1, 2])),
         r"end_positions must hold positions in 0\.\.5 .*got values from -1 to 2"),
        (lambda: QA(IDS, start_positions=torch.tensor([0]), end_positions=torch.tensor([1])),
         r"start_positions must have shape \(2,\) \(one position in 0\.\.5 per sequence\), "
         r"got \(1,\)"),
        (lambda: QA(IDS, start_positions=torch.tensor([[0], [1]]),
                    end_positions=torch.tensor([1, 2])),
         r"start_positions must have shape \(2,\)"),
        (lambda: QA(IDS, start_positions=torch.tensor([0.0, 1.0]),
                    end_positions=torch.tensor([1, 2])),
         "start_positions must be an integer tensor"),
        (lambda: QA(IDS, start_positions=torch.tensor([0, 4]), end_positions=torch.tensor([1, 2])),
         r"start_positions\[1\]=4 > end_positions\[1\]=2: an answer span must end at or after "
         r"its start"),
        (lambda: QA(IDS, start_positions=torch.tensor([0, 1])),
         r"start_positions was given without end_positions"),
        (lambda: QA(IDS, end_positions=torch.tensor([0, 1])),
         r"end_positions was given without start_positions"),
        # best_span / span_scores
        (lambda: best_span(torch.zeros(5), torch.zeros(6)),
         r"end_logits has shape \(6,\), start_logits \(5,\); they must match"),
        (lambda: best_span(torch.zeros(2, 5), torch.zeros(5)), "end_logits has shape"),
        (lambda: best_span(torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)),
         r"start_logits must have shape \(T,\) or \(B, T\), got \(1, 2, 5\)"),
        (lambda: best_span(torch.zeros(5, dtype=L), torch.zeros(5, dtype=L)),
         "start_logits must be a floating-point tensor"),
        (lambda: best_span(torch.zeros(0), torch.zeros(0)),
         "start_logits must not have a dimension of size 0"),
        (lambda: best_span([0.0, 1.0], [0.0, 1.0]), "start_logits must be a torch.Tensor"),
        (lambda: best_span(torch.zeros(5), torch.zeros(5), max_answer_length=0),
         "max_answer_length must be a positive integer, got 0"),
        (lambda: best_span(torch.zeros(5), torch.zeros(5), max_answer_length=2.5),
         "max_answer_length must be a positive integer, got 2.5"),
        (lambda: span_scores(torch.zeros(5), torch.zeros(5), 3, torch.ones(4, dtype=torch.bool)),
         r"allowed must have shape \(5,\) \(as the logits \(5,\)\), got \(4,\)"),
        (lambda: best_span(torch.zeros(2, 5), torch.zeros(2, 5),
                           allowed=torch.ones(3, 5, dtype=torch.bool)),
         r"allowed must have shape \(5,\) or \(2, 5\) .*got \(3, 5\)"),
        (lambda: best_span(torch.zeros(5), torch.zeros(5), allowed=torch.ones(5)),
         r"allowed must be a bool tensor .*got dtype torch.float32 .*allowed.bool\(\)"),
        (lambda: best_span(torch.zeros(5), torch.zeros(5),
                           allowed=torch.zeros(5, dtype=torch.bool)),
         "allowed has no True position: no span can be chosen"),
        (lambda: best_span(torch.zeros(2, 5), torch.zeros(2, 5),
                           allowed=torch.tensor([[True] * 5, [False] * 5])),
         "allowed has no True position in row 1"),
    ],
)  # fmt: skip
def test_bad_inputs_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _hf_changed(cls_name, n, **changes):
    """A Hugging Face model whose config was edited after its modules were built."""
    model = _hf(cls_name, n)
    for name, value in changes.items():
        setattr(model.config, name, value)
    return model


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: BertForSequenceClassification(BertConfig.tiny()),
         r"config must be a BertTaskConfig \(a BertConfig with num_labels\), got a plain "
         r"BertConfig: use BertTaskConfig\(\*\*config.to_dict\(\), num_labels=N\)"),
        (lambda: BertForTokenClassification(BertConfig.tiny()), "use BertTaskConfig"),
        (lambda: BertForQuestionAnswering(BertConfig.tiny()), "use BertTaskConfig"),
        (lambda: BertForSequenceClassification(SMALL.to_dict()),
         r"config must be a BertTaskConfig, got dict \(build one with "
         r"BertTaskConfig.from_dict\(d\)"),
        (lambda: BertForQuestionAnswering(SMALL),
         r"config.num_labels must be 2 for BertForQuestionAnswering .*got 3"),
        # from_hf: the wrong class, options lecturekit does not have
        (lambda: BertForSequenceClassification.from_hf(_hf("BertForTokenClassification", 3)),
         r"hf_model must be a transformers.BertForSequenceClassification, got "
         r"BertForTokenClassification \(lecturekit's BertForTokenClassification.from_hf"),
        (lambda: BertForQuestionAnswering.from_hf(torch.nn.Linear(2, 2)),
         r"hf_model must be a transformers.BertForQuestionAnswering, got Linear$"),
        (lambda: BertForTokenClassification.from_hf({}),
         "hf_model must be a transformers.BertForTokenClassification, got dict"),
        (lambda: BertForTokenClassification.from_hf(
            _hf("BertForTokenClassification", 3, hidden_act="relu")),
         "hf_model.config.hidden_act='relu' is not supported"),
        (lambda: BertForQuestionAnswering.from_hf(
            _hf("BertForQuestionAnswering", 2, position_embedding_type="relative_key")),
         "position_embedding_type='relative_key' is not supported"),
        (lambda: BertForSequenceClassification.from_hf(
            _hf("BertForSequenceClassification", 3, problem_type="multi_label_classification")),
         "problem_type='multi_label_classification' is not supported: lecturekit's "
         "BertForSequenceClassification is a single-label classifier"),
        (lambda: BertForSequenceClassification.from_hf(_hf("BertForSequenceClassification", 1)),
         "num_labels=1 makes Hugging Face's model a regression"),
        (lambda: BertForQuestionAnswering.from_hf(_hf("BertForQuestionAnswering", 3)),
         r"hf_model.config.num_labels=3 is not supported: a question-answering head has 2"),
        (lambda: BertForTokenClassification.from_hf(
            _hf_changed("BertForTokenClassification", 3, layer_norm_eps=1e-5)),
         r"hf_model's bert.embeddings.LayerNorm has eps=1e-12 but "
         r"hf_model.config.layer_norm_eps=1e-05"),
        (lambda: BertForSequenceClassification.from_hf(
            _hf_changed("BertForSequenceClassification", 3, num_labels=4)),
         r"hf_model's classifier\.weight has shape \(3, 32\), ours classifier\.weight "
         r"\(4, 32\): a shape mismatch"),
        # from_pretrained
        (lambda: BertForSequenceClassification.from_pretrained(SEQ, num_labels=3),
         r"pretraining_model must be a BertForPreTraining, got BertForSequenceClassification "
         r"\(this is a fine-tuned model already"),
        (lambda: BertForTokenClassification.from_pretrained(
            CausalLM(BertConfig.tiny(vocab_size=40)), num_labels=3),
         "pretraining_model must be a BertForPreTraining, got CausalLM"),
        (lambda: BertForQuestionAnswering.from_pretrained("bert_tiny"),
         r"got str \(load a shipped one first"),
        (lambda: BertForQuestionAnswering.from_pretrained(SEQ.bert),
         "pretraining_model must be a BertForPreTraining, got BertModel"),
        (lambda: BertForSequenceClassification.from_pretrained(_pretraining(), num_labels=0),
         "num_labels must be a positive integer, got 0"),
        (lambda: BertForTokenClassification.from_pretrained(_pretraining(), 3, seed=-1),
         "seed must be a non-negative integer, got -1"),
    ],
)  # fmt: skip
def test_bad_models_and_configs_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
