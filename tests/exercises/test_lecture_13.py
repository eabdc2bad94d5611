"""Lecture 13's code exercises: the checkers accept a right answer and refuse the near misses a
student writes, with a message that does not show the answer; the notebook's stubs are "not
attempted".

13.6 gets the two models the student fine-tuned on tagging with the notebook's loop (written
out here as the lecture writes it): the checker compares them with what lecturekit's ``run``
trains from the same seed, and the answer with their entity F1 measured there. Near misses:
the frozen run at full fine-tuning's learning rate or with dropout inside the frozen encoder,
an encoder that moved in the frozen run or stayed put in the full one, one model passed twice,
a full run of another length, the numbers swapped, token accuracy or percentages instead of
entity F1."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.datasets.finetuning import default_tasks, encode
from lecturekit.exercises import check, core, status
from lecturekit.experiments.finetuning import evaluate
from lecturekit.models.bert import BertModel, init_bert_weights
from lecturekit.models.bert_tasks import BertForTokenClassification, best_span
from lecturekit.shipped import load_shipped, load_tokenizer

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# ------------------------------------------------------------------ the lecture's heads and loop


class SequenceClassifier(nn.Module):
    def __init__(self, config, num_labels):
        super().__init__()
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(config.dropout)
        self.classifier = nn.Linear(config.hidden_size, num_labels)
        self.apply(init_bert_weights)

    def forward(self, ids, segments, real):
        return self.classifier(self.dropout(self.bert(ids, segments, real).pooled))


class TokenClassifier(SequenceClassifier):
    def forward(self, ids, segments, real):
        return self.classifier(self.dropout(self.bert(ids, segments, real).hidden))


def finetune(model, data, steps, lr, freeze_encoder=False, batch_size=16, seed=0,
             encoder_dropout=None):  # fmt: skip
    """The notebook's loop; ``encoder_dropout=True`` keeps a frozen encoder in train mode (the
    near miss of freezing by requires_grad alone)."""
    model.bert.requires_grad_(not freeze_encoder)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warmup = round(0.1 * steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warmup if s < warmup else (steps - s) / (steps - warmup)
    )
    torch.manual_seed(seed)
    order = torch.Generator().manual_seed(seed)
    n, losses = len(data["input_ids"]), []
    model.train()
    model.bert.train(not freeze_encoder if encoder_dropout is None else encoder_dropout)
    while len(losses) < steps:
        shuffled = torch.randperm(n, generator=order)
        for i in range(0, n, batch_size):
            rows = shuffled[i : i + batch_size]
            logits = model(data["input_ids"][rows], data["segment_ids"][rows],
                           data["attention_mask"][rows])  # fmt: skip
            loss = F.cross_entropy(logits.flatten(0, -2), data["labels"][rows].flatten())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, max_norm=1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    model.eval()
    return losses


@pytest.fixture(scope="module")
def setting():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the checker's reference runs (module fixtures come first)
    bert, tokenizer = load_shipped("bert_tiny"), load_tokenizer("bert_tiny")
    tagging = default_tasks()["tagging"]
    data = encode(tagging, tokenizer, tagging.subset(50, seed=0))

    def pretrained(seed=0):
        model = TokenClassifier(bert.config, len(tagging.labels))
        model.bert.load_state_dict(bert.bert.state_dict())
        nn.init.normal_(model.classifier.weight, std=0.02,
                        generator=torch.Generator().manual_seed(seed))  # fmt: skip
        nn.init.zeros_(model.classifier.bias)
        return model

    def trained(lr, steps=100, **kwargs):
        model = pretrained()
        finetune(model, data, steps, lr, **kwargs)
        return model

    def f1(model):
        scored = BertForTokenClassification.from_pretrained(bert, num_labels=len(tagging.labels))
        scored.load_state_dict(model.state_dict())
        return evaluate(scored, tagging, tokenizer, tagging.test)["f1"]

    full, frozen = trained(3e-3), trained(0.3, freeze_encoder=True)
    yield {"bert": bert, "tokenizer": tokenizer, "tagging": tagging, "trained": trained,
           "full": full, "frozen": frozen, "answer": (f1(full), f1(frozen))}  # fmt: skip
    torch.set_num_threads(threads)


def said(capsys):
    """The checker's message, before the first hint."""
    return capsys.readouterr().out.split(" hint 1")[0]


# ------------------------------------------------------------------ 13.6 only the output layer


def test_head_only_accepts_the_lectures_two_runs(setting, capsys):
    state = torch.random.get_rng_state()
    check("13.6", setting["answer"], full=setting["full"], frozen=setting["frozen"])
    out = capsys.readouterr().out
    assert status("13.6") == "correct", out
    assert "next-sentence prediction" in out
    assert torch.equal(torch.random.get_rng_state(), state)  # the student's random state kept
    assert setting["answer"][0] > setting["answer"][1]  # full fine-tuning is ahead on tagging
    rounded = tuple(round(x, 3) for x in setting["answer"])
    check("13.6", rounded, full=setting["full"], frozen=setting["frozen"])
    assert status("13.6") == "correct"


def _no_leak(text, answer):
    for value in answer:
        for shown in (f"{value:.2f}", f"{value:.3f}", f"{100 * value:.1f}"):
            assert shown not in text, (shown, text)


@pytest.mark.parametrize(
    ("which", "says"),
    [
        ("frozen small lr", "small learning rate of full fine-tuning"),
        ("frozen with dropout", "dropout on inside the frozen encoder"),
        ("full as frozen", "in frozen the encoder's weights changed"),
        ("frozen as full", "in full the encoder's weights are still the pre-trained ones"),
        ("same model", "the same model"),
        ("full, 50 steps", "full is not the model the recipe gives"),
    ],
)
def test_head_only_refuses_models_trained_otherwise(setting, which, says, capsys):
    trained, full, frozen = setting["trained"], setting["full"], setting["frozen"]
    pairs = {  # (full, frozen) as a student might pass them
        "frozen small lr": lambda: (full, trained(3e-3, freeze_encoder=True)),
        "frozen with dropout": lambda: (
            full,
            trained(0.3, freeze_encoder=True, encoder_dropout=True),
        ),
        "full as frozen": lambda: (full, trained(0.3, steps=3)),  # every weight trained
        "frozen as full": lambda: (frozen, trained(3e-3, freeze_encoder=True)),
        "same model": lambda: (frozen, frozen),
        "full, 50 steps": lambda: (trained(3e-3, steps=50), frozen),
    }
    pair = pairs[which]()
    check("13.6", setting["answer"], full=pair[0], frozen=pair[1])
    message = said(capsys)
    assert status("13.6") == "not yet" and says in message, message
    _no_leak(message, setting["answer"])


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (lambda a: (a[1], a[0]), "swapped"),
        (lambda a: (100 * a[0], 100 * a[1]), "not percentages"),
        (lambda a: (a[0], a[1] + 0.05), "f1_frozen is not their entity F1"),
        (lambda a: (1.0, 1.0), "f1_full and f1_frozen are not their entity F1"),
        (lambda a: "0.8, 0.7", "a pair of numbers"),
    ],
)
def test_head_only_refuses_wrong_numbers_for_the_right_models(setting, answer, says, capsys):
    check("13.6", answer(setting["answer"]), full=setting["full"], frozen=setting["frozen"])
    message = said(capsys)
    assert status("13.6") == "not yet" and says in message, message
    _no_leak(message, setting["answer"])


def test_head_only_names_token_accuracy(setting, capsys):
    """The share of words tagged right is not CoNLL's score."""
    tagging, tokenizer = setting["tagging"], setting["tokenizer"]
    test = encode(tagging, tokenizer, tagging.test)
    scored = test["labels"] != -100
    accuracy = []
    for model in (setting["full"], setting["frozen"]):
        with torch.no_grad():
            ids = model(test["input_ids"], test["segment_ids"], test["attention_mask"]).argmax(-1)
        accuracy.append(float((ids[scored] == test["labels"][scored]).float().mean()))
    check("13.6", tuple(accuracy), full=setting["full"], frozen=setting["frozen"])
    message = said(capsys)
    assert status("13.6") == "not yet" and "share of words tagged right" in message, message


def test_head_only_needs_the_models_and_starts_not_attempted(setting, capsys):
    check("13.6", setting["answer"], full=None, frozen=None)
    assert status("13.6") == "not yet" and "full=..., frozen=..." in capsys.readouterr().out
    check("13.6", setting["answer"], full=setting["full"], frozen="frozen")
    assert status("13.6") == "not yet" and "TokenClassifier" in capsys.readouterr().out
    core.reset()
    check("13.6", None, full=None, frozen=None)  # the notebook's cell as stored
    assert status("13.6") == "not attempted" and "not attempted yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 13.1 and 13.2


def labels_right(pieces, tags, tag_ids):
    labels = [-100]
    for word_pieces, tag in zip(pieces, tags, strict=True):
        labels += [tag_ids[tag]] + [-100] * (len(word_pieces) - 1)
    return [*labels, -100]


def labels_on_every_piece(pieces, tags, tag_ids):
    return [-100] + [tag_ids[t] for p, t in zip(pieces, tags, strict=True) for _ in p] + [-100]


def labels_without_specials(pieces, tags, tag_ids):
    return labels_right(pieces, tags, tag_ids)[1:-1]


def test_labels_accepts_first_pieces_and_refuses_near_misses(capsys):
    check("13.1", labels_right)
    assert status("13.1") == "correct"
    for wrong, says in ((labels_on_every_piece, "is not right yet"),
                        (labels_without_specials, "positions ([CLS], the pieces, [SEP])")):  # fmt: skip
        check("13.1", wrong)
        message = said(capsys)
        assert status("13.1") == "not yet" and says in message, message


def span_right(start, end, max_answer_length):
    return best_span(start, end, max_answer_length=max_answer_length)[:2]


def span_separately(start, end, max_answer_length):
    return int(start.argmax()), int(end.argmax())


def test_best_span_accepts_the_search_and_refuses_separate_maxima(capsys):
    check("13.2", span_right)
    assert status("13.2") == "correct"
    check("13.2", span_separately)
    message = said(capsys)
    assert status("13.2") == "not yet" and "not the best valid one" in message, message


def test_the_notebooks_stubs_are_not_attempted(capsys):
    def my_labels(pieces, tags, tag_ids):
        raise NotImplementedError

    def my_best_span(start_logits, end_logits, max_answer_length):
        raise NotImplementedError

    check("13.1", my_labels)
    check("13.2", my_best_span)
    assert status("13.1") == status("13.2") == "not attempted"
