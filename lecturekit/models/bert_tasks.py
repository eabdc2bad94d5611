"""BERT fine-tuned: one output layer on the pre-trained encoder, for three kinds of task.

"Pre-trained BERT can be fine-tuned with just one additional output layer" (the decks): a
classifier on the pooled [CLS] vector (single sentences, sentence pairs), a classifier on every
position (tagging), and a start / end scorer on every position (span question answering). Each
head is interchangeable with Hugging Face's: ``from_hf`` copies a ``transformers``
``BertForSequenceClassification`` / ``BertForTokenClassification`` /
``BertForQuestionAnswering`` and the logits and losses agree (tests/models/test_bert_tasks.py).

Public API::

    config = BertTaskConfig.tiny(vocab_size=450, num_labels=9)  # BertConfig + num_labels (2)
    model = BertForSequenceClassification(config)  # pooled [CLS] -> dropout -> Linear(D, C)
    out = model(input_ids, segment_ids=None, attention_mask=None, labels=None)
    #   input_ids, segment_ids, attention_mask as BertModel's (B, T);
    #   out.logits (B, C); out.loss: cross-entropy when labels (B,) (class ids) are given,
    #   else None; out.hidden_states, out.attentions as BertOutput's
    model = BertForTokenClassification(config)     # every position -> dropout -> Linear(D, C)
    #   out.logits (B, T, C); labels (B, T), IGNORE_INDEX (-100) on positions not scored
    #   (e.g. [CLS], [SEP], padding, a word's later WordPieces)
    model = BertForQuestionAnswering(config)       # every position -> Linear(D, 2)
    out = model(input_ids, segment_ids, attention_mask, start_positions=None,
                end_positions=None)
    #   out.start_logits, out.end_logits (B, T); out.loss = (CE(start) + CE(end)) / 2 when
    #   start_positions and end_positions (B,) are given
    start, end, score = best_span(start_logits, end_logits, max_answer_length=10, allowed=None)
    #   the best span with start <= end < start + max_answer_length, both ends where allowed
    #   ((T,) or (B, T) bool, e.g. the context's positions); score = start + end logit (as
    #   SQuAD / HF). (T,) logits -> ints and a float; (B, T) -> (B,) long, (B,) long, (B,)
    scores = span_scores(start_logits, end_logits, max_answer_length=10, allowed=None)
    #   (T, T) or (B, T, T): score of span (i, j), -inf where invalid (softmax over the
    #   flattened last two dims gives span probabilities)
    model = Model.from_hf(hf_model)       # the transformers class of the same name
    model = BertForSequenceClassification.from_pretrained(pretraining_model, num_labels, seed=0)
    model = BertForQuestionAnswering.from_pretrained(pretraining_model, seed=0)
    #   a copy of a BertForPreTraining's encoder (embeddings, layers, pooler), a new head drawn
    #   with init_bert_weights from torch.Generator().manual_seed(seed) (the global random state
    #   is untouched), in train mode; the pre-training model is not changed
    model.output_layer()                  # the one Linear the task adds (classifier / qa_outputs)

The heads refuse what Hugging Face's would quietly accept: labels out of 0..num_labels-1, a
token-label batch with no scored position (its loss would be 0/0), start/end positions
outside 0..T-1 (HF clamps them and leaves them out of the loss) or a start after its end.

Lecture 13; Devlin et al. 2019 (BERT), section 4 and figure 4 (fine-tuning on GLUE, SQuAD,
CoNLL-2003).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.models.bert import (
    BertConfig,
    BertForPreTraining,
    BertModel,
    bert_config_from_hf,
    check_hf_layer_norms,
    init_bert_weights,
)
from lecturekit.utils.checks import (
    check_instance,
    check_positive_int,
    check_seed,
    check_tensor,
)
from lecturekit.utils.weights import HF_MAPS, load_mapped

__all__ = [
    "IGNORE_INDEX",
    "BertTaskConfig",
    "TaskOutput",
    "SpanOutput",
    "BertForSequenceClassification",
    "BertForTokenClassification",
    "BertForQuestionAnswering",
    "span_scores",
    "best_span",
]

IGNORE_INDEX = -100  # a token label that is not scored (F.cross_entropy's and HF's default)


@dataclass(frozen=True)
class BertTaskConfig(BertConfig):
    """A BertConfig with the number of classes of a task head (Hugging Face's ``num_labels``).

    ``BertTaskConfig.tiny(num_labels=9)`` is lecture 08's tiny BERT with a 9-class head;
    ``BertTaskConfig(**bert_config.to_dict(), num_labels=3)`` extends a pre-training config.
    The question-answering head needs ``num_labels`` = 2 (a start and an end score).

    Lecture 13; Devlin et al. 2019 section 4.
    """

    num_labels: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_positive("num_labels")


class TaskOutput(NamedTuple):
    """What a classification head returns (logits first, as lecturekit's other models)."""

    logits: torch.Tensor  # (B, C) per sequence, or (B, T, C) per position
    loss: torch.Tensor | None  # scalar cross-entropy when labels are given
    hidden_states: list[torch.Tensor]  # embeddings + each layer, (B, T, D)
    attentions: list[torch.Tensor]  # per layer (B, H, T, T)


class SpanOutput(NamedTuple):
    """What the question-answering head returns."""

    start_logits: torch.Tensor  # (B, T)
    end_logits: torch.Tensor  # (B, T)
    loss: torch.Tensor | None  # (CE(start) + CE(end)) / 2 when positions are given
    hidden_states: list[torch.Tensor]
    attentions: list[torch.Tensor]


def _check_config(config: object) -> BertTaskConfig:
    """A BertTaskConfig; a plain BertConfig gets the way to extend it."""
    if isinstance(config, BertConfig) and not isinstance(config, BertTaskConfig):
        raise ValueError(
            "config must be a BertTaskConfig (a BertConfig with num_labels), got a plain "
            "BertConfig: use BertTaskConfig(**config.to_dict(), num_labels=N)"
        )
    check_instance("config", config, BertTaskConfig)
    return config


def _check_labels(labels: object, shape: tuple[int, ...], num_labels: int) -> torch.Tensor:
    """Class ids of ``shape`` ((B,) per sequence, (B, T) per position, where IGNORE_INDEX
    marks a position not scored), as a long tensor."""
    per_position = len(shape) == 2
    what = ("a class id per position of input_ids, IGNORE_INDEX=-100 where not scored"
            if per_position else "one class id per sequence")  # fmt: skip
    wanted = f"{shape} ({what})"
    check_tensor("labels", labels, len(shape), wanted=wanted, integer=True)
    if tuple(labels.shape) != shape:
        raise ValueError(f"labels must have shape {wanted}, got {tuple(labels.shape)}")
    labels = labels.long()
    bad = (labels < 0) | (labels >= num_labels)
    if per_position:
        bad &= labels != IGNORE_INDEX
    if bad.any():
        also = f" or IGNORE_INDEX={IGNORE_INDEX} at positions not scored" if per_position else ""
        raise ValueError(
            f"labels must hold class ids in 0..{num_labels - 1} (num_labels={num_labels}){also}, "
            f"got the value {labels[bad][0].item()}"
        )
    if per_position and labels.numel() and (labels == IGNORE_INDEX).all():
        raise ValueError(
            f"labels has no scored position (every label is IGNORE_INDEX={IGNORE_INDEX}): the "
            "loss would be 0/0; give a class id at least at one position"
        )
    return labels


def _check_positions(
    start_positions: object, end_positions: object, shape: tuple[int, int]
) -> tuple[torch.Tensor, torch.Tensor]:
    """(B,) start and end positions in 0..T-1 with start <= end, as long tensors."""
    B, T = shape
    given = {"start_positions": start_positions, "end_positions": end_positions}
    for name, value in given.items():
        wanted = f"({B},) (one position in 0..{T - 1} per sequence)"
        check_tensor(name, value, 1, wanted=wanted, integer=True)
        if tuple(value.shape) != (B,):
            raise ValueError(f"{name} must have shape {wanted}, got {tuple(value.shape)}")
        if value.numel() and (int(value.min()) < 0 or int(value.max()) >= T):
            raise ValueError(
                f"{name} must hold positions in 0..{T - 1} (input_ids has T={T} positions), got "
                f"values from {int(value.min())} to {int(value.max())}"
            )
    start, end = start_positions.long(), end_positions.long()
    after = (start > end).nonzero().flatten()
    if after.numel():
        i = int(after[0])
        raise ValueError(
            f"start_positions[{i}]={int(start[i])} > end_positions[{i}]={int(end[i])}: an answer "
            "span must end at or after its start"
        )
    return start, end


_HF_HEADS = ("BertForSequenceClassification", "BertForTokenClassification",
             "BertForQuestionAnswering", "BertForPreTraining")  # fmt: skip


class _BertTaskModel(nn.Module):
    """What the three heads share: ``bert`` (a BertModel), ``from_hf``, ``from_pretrained``."""

    def __init__(self, config: BertTaskConfig):
        super().__init__()
        self.config = _check_config(config)
        self.bert = BertModel(config)

    def output_layer(self) -> nn.Linear:
        """The one layer this task adds on top of the encoder (what frozen-feature training
        trains, and what ``from_pretrained`` initialises)."""
        raise NotImplementedError

    @classmethod
    def _check_hf_config(cls, hf_config: object) -> None:
        """Options of the Hugging Face head that lecturekit's does not have."""

    @classmethod
    @torch.no_grad()
    def _from_hf(cls, hf_model: nn.Module) -> _BertTaskModel:
        name = cls.__name__  # the transformers class of the same name
        if type(hf_model).__name__ != name:
            got = type(hf_model).__name__
            hint = (f" (lecturekit's {got}.from_hf copies that one)"
                    if got in _HF_HEADS else "")  # fmt: skip
            raise ValueError(f"hf_model must be a transformers.{name}, got {got}{hint}")
        cls._check_hf_config(hf_model.config)
        config = bert_config_from_hf(
            hf_model.config, BertTaskConfig, num_labels=hf_model.config.num_labels
        )
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        return load_mapped(cls(config), hf_model, HF_MAPS[name]).train(hf_model.training)

    @classmethod
    def _from_pretrained(
        cls, pretraining_model: object, num_labels: int, seed: int
    ) -> _BertTaskModel:
        if not isinstance(pretraining_model, BertForPreTraining):
            got = type(pretraining_model).__name__
            hint = ""
            if isinstance(pretraining_model, _BertTaskModel):
                hint = " (this is a fine-tuned model already: copy it with copy.deepcopy)"
            elif got == "CausalLM":
                hint = " (the left-to-right baseline is not a BERT encoder)"
            elif isinstance(pretraining_model, str):
                hint = " (load a shipped one first: lecturekit.shipped.load_shipped(name))"
            raise ValueError(f"pretraining_model must be a BertForPreTraining, got {got}{hint}")
        check_positive_int("num_labels", num_labels)
        check_seed(seed)
        config = BertTaskConfig(**{**pretraining_model.config.to_dict(), "num_labels": num_labels})
        with torch.random.fork_rng(devices=[]):  # building draws weights: not from the caller's
            model = cls(config)
        model.bert.load_state_dict(pretraining_model.bert.state_dict())  # copies every tensor
        generator = torch.Generator().manual_seed(seed)
        model.output_layer().apply(functools.partial(init_bert_weights, generator=generator))
        device = next(pretraining_model.parameters()).device
        return model.to(device).train()


class _BertClassifier(_BertTaskModel):
    """The two classifiers: dropout, then ``classifier`` = Linear(D, num_labels)."""

    def __init__(self, config: BertTaskConfig):
        super().__init__(config)
        self.dropout = nn.Dropout(config.dropout)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.apply(init_bert_weights)

    def output_layer(self) -> nn.Linear:
        return self.classifier


class BertForSequenceClassification(_BertClassifier):
    """BERT with a classifier on the pooled [CLS] vector: one label per sequence (a single
    sentence, or a pair [CLS] A [SEP] B [SEP] with segment ids 0 and 1).

    Lecture 13; Devlin et al. 2019 section 4.1 and figure 4 (a), (b).
    """

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> TaskOutput:
        """input_ids (B, T), segment_ids (B, T), attention_mask (B, T) as BertModel's; labels
        (B,) class ids in 0..num_labels-1 (any integer dtype) or None.

        Returns TaskOutput: logits (B, C); loss the mean cross-entropy (None without labels).
        """
        out = self.bert(input_ids, segment_ids, attention_mask)
        logits = self.classifier(self.dropout(out.pooled))  # (B, D) -> (B, C)
        loss = None
        if labels is not None:
            labels = _check_labels(labels, tuple(input_ids.shape[:1]), self.config.num_labels)
            loss = F.cross_entropy(logits, labels)
        return TaskOutput(logits, loss, out.hidden_states, out.attentions)

    @classmethod
    def _check_hf_config(cls, hf_config: object) -> None:
        problem = getattr(hf_config, "problem_type", None)
        if problem not in (None, "single_label_classification"):
            raise ValueError(
                f"hf_model.config.problem_type={problem!r} is not supported: lecturekit's "
                "BertForSequenceClassification is a single-label classifier (cross-entropy)"
            )
        if problem is None and hf_config.num_labels == 1:
            raise ValueError(
                "hf_model.config.num_labels=1 makes Hugging Face's model a regression (MSE "
                "loss): lecturekit's BertForSequenceClassification is a single-label classifier "
                "(cross-entropy) and needs num_labels >= 2"
            )

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> BertForSequenceClassification:
        """The same model as a ``transformers.BertForSequenceClassification`` (single-label:
        ``problem_type`` None or "single_label_classification"), its weights copied. Dropout
        is HF's ``hidden_dropout_prob`` (``classifier_dropout`` is not carried over: it only
        acts in training).

        Lecture 13.
        """
        return cls._from_hf(hf_model)

    @classmethod
    def from_pretrained(
        cls, pretraining_model: BertForPreTraining, num_labels: int, *, seed: int = 0
    ) -> BertForSequenceClassification:
        """A copy of ``pretraining_model``'s encoder (embeddings, layers, pooler) with a new
        ``num_labels``-class classifier, N(0, 0.02) from ``seed``; in train mode.

        Lecture 13; Devlin et al. 2019 section 4.
        """
        return cls._from_pretrained(pretraining_model, num_labels, seed)


class BertForTokenClassification(_BertClassifier):
    """BERT with a classifier on every position: a label per WordPiece (e.g. entity tags, the
    first piece of each word scored, the others IGNORE_INDEX).

    Hugging Face's model has no pooler; lecturekit's BertModel keeps one, unused here (``from_hf``
    leaves it as initialised).

    Lecture 13; Devlin et al. 2019 section 5.3 and figure 4 (d).
    """

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> TaskOutput:
        """input_ids (B, T), segment_ids (B, T), attention_mask (B, T) as BertModel's; labels
        (B, T) class ids in 0..num_labels-1, IGNORE_INDEX (-100) at positions not scored.

        Returns TaskOutput: logits (B, T, C); loss the mean cross-entropy over the scored
        positions (as Hugging Face's, the attention mask does not exclude any: label padding
        IGNORE_INDEX).
        """
        out = self.bert(input_ids, segment_ids, attention_mask)
        logits = self.classifier(self.dropout(out.hidden))  # (B, T, D) -> (B, T, C)
        loss = None
        if labels is not None:
            labels = _check_labels(labels, tuple(input_ids.shape), self.config.num_labels)
            # (B, T, C) -> (B*T, C) against (B*T,)
            loss = F.cross_entropy(
                logits.reshape(-1, self.config.num_labels),
                labels.reshape(-1),
                ignore_index=IGNORE_INDEX,
            )
        return TaskOutput(logits, loss, out.hidden_states, out.attentions)

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> BertForTokenClassification:
        """The same model as a ``transformers.BertForTokenClassification``, its weights copied
        (HF's has no pooler: lecturekit's keeps its initial weights, unused by this head).

        Lecture 13.
        """
        return cls._from_hf(hf_model)

    @classmethod
    def from_pretrained(
        cls, pretraining_model: BertForPreTraining, num_labels: int, *, seed: int = 0
    ) -> BertForTokenClassification:
        """A copy of ``pretraining_model``'s encoder (embeddings, layers, pooler) with a new
        ``num_labels``-class classifier on every position, N(0, 0.02) from ``seed``; in train
        mode.

        Lecture 13; Devlin et al. 2019 section 5.3.
        """
        return cls._from_pretrained(pretraining_model, num_labels, seed)


class BertForQuestionAnswering(_BertTaskModel):
    """BERT with a start and an end score on every position: the answer is the span of the
    context (segment B of [CLS] question [SEP] context [SEP]) between the best start and end.

    ``config.num_labels`` must be 2. Hugging Face's model has no pooler; lecturekit's
    BertModel keeps one, unused here (``from_hf`` leaves it as initialised).

    Lecture 13; Devlin et al. 2019 section 4.2 and figure 4 (c).
    """

    def __init__(self, config: BertTaskConfig):
        super().__init__(config)
        if config.num_labels != 2:
            raise ValueError(
                f"config.num_labels must be 2 for BertForQuestionAnswering (a start and an end "
                f"score per position), got {config.num_labels}"
            )
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.apply(init_bert_weights)

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        start_positions: torch.Tensor | None = None,
        end_positions: torch.Tensor | None = None,
    ) -> SpanOutput:
        """input_ids (B, T), segment_ids (B, T), attention_mask (B, T) as BertModel's;
        start_positions, end_positions (B,) positions in 0..T-1 with start <= end, both or
        neither.

        Returns SpanOutput: start_logits, end_logits (B, T); loss (CE(start) + CE(end)) / 2.
        """
        out = self.bert(input_ids, segment_ids, attention_mask)
        logits = self.qa_outputs(out.hidden)  # (B, T, D) -> (B, T, 2)
        start_logits, end_logits = (x.contiguous() for x in logits.unbind(-1))  # 2 x (B, T)
        loss = None
        if (start_positions is None) != (end_positions is None):
            given, missing = (("start_positions", "end_positions") if end_positions is None
                              else ("end_positions", "start_positions"))  # fmt: skip
            raise ValueError(
                f"{given} was given without {missing}: the loss needs both (or neither)"
            )
        if start_positions is not None:
            start, end = _check_positions(start_positions, end_positions, tuple(start_logits.shape))
            loss = (F.cross_entropy(start_logits, start) + F.cross_entropy(end_logits, end)) / 2
        return SpanOutput(start_logits, end_logits, loss, out.hidden_states, out.attentions)

    def output_layer(self) -> nn.Linear:
        return self.qa_outputs

    @classmethod
    def _check_hf_config(cls, hf_config: object) -> None:
        if hf_config.num_labels != 2:
            raise ValueError(
                f"hf_model.config.num_labels={hf_config.num_labels} is not supported: a "
                "question-answering head has 2 outputs (start, end)"
            )

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> BertForQuestionAnswering:
        """The same model as a ``transformers.BertForQuestionAnswering``, its weights copied
        (HF's has no pooler: lecturekit's keeps its initial weights, unused by this head).

        Lecture 13.
        """
        return cls._from_hf(hf_model)

    @classmethod
    def from_pretrained(
        cls, pretraining_model: BertForPreTraining, *, seed: int = 0
    ) -> BertForQuestionAnswering:
        """A copy of ``pretraining_model``'s encoder (embeddings, layers, pooler) with a new
        start / end scorer, N(0, 0.02) from ``seed``; in train mode.

        Lecture 13; Devlin et al. 2019 section 4.2.
        """
        return cls._from_pretrained(pretraining_model, 2, seed)


def _check_span_inputs(
    start_logits: object, end_logits: object, max_answer_length: object, allowed: object
) -> torch.Tensor | None:
    """(T,) or (B, T) float logits of one shape, a positive max length, and allowed (T,) or
    the logits' shape, bool, with a True in every row; returns allowed."""
    for name, x in (("start_logits", start_logits), ("end_logits", end_logits)):
        check_tensor(name, x, wanted="(T,) or (B, T)", floating=True, nonempty=True)
        if x.ndim not in (1, 2):
            raise ValueError(f"{name} must have shape (T,) or (B, T), got {tuple(x.shape)}")
    if start_logits.shape != end_logits.shape:
        raise ValueError(
            f"end_logits has shape {tuple(end_logits.shape)}, start_logits "
            f"{tuple(start_logits.shape)}; they must match"
        )
    check_positive_int("max_answer_length", max_answer_length)
    if allowed is None:
        return None
    shape, T = tuple(start_logits.shape), start_logits.shape[-1]
    shapes = {shape, (T,)}
    wanted = " or ".join(str(s) for s in sorted(shapes, key=len))
    check_tensor("allowed", allowed, wanted=wanted)
    if tuple(allowed.shape) not in shapes:
        raise ValueError(
            f"allowed must have shape {wanted} (as the logits {shape}), got {tuple(allowed.shape)}"
        )
    if allowed.dtype != torch.bool:
        raise ValueError(
            f"allowed must be a bool tensor (True = a position the answer may use), got dtype "
            f"{allowed.dtype} (convert 1/0 with allowed.bool())"
        )
    empty = (~allowed.reshape(-1, T).any(-1)).nonzero().flatten()
    if empty.numel():
        row = f" in row {int(empty[0])}" if allowed.ndim == 2 else ""
        raise ValueError(f"allowed has no True position{row}: no span can be chosen")
    return allowed


def span_scores(
    start_logits: torch.Tensor,
    end_logits: torch.Tensor,
    max_answer_length: int = 10,
    allowed: torch.Tensor | None = None,
) -> torch.Tensor:
    """The score start_logits[i] + end_logits[j] of every span (i, j), -inf where the span is
    not valid: j < i, longer than ``max_answer_length`` (j - i + 1 > max_answer_length), or an
    end where ``allowed`` is False.

    Args:
        start_logits, end_logits: (T,) or (B, T) floats, the same shape.
        max_answer_length: the longest answer, in positions (WordPieces), > 0.
        allowed: None (every position), or bool (T,) or (B, T): True where an answer may start
            or end (e.g. the context's positions, not the question's, [CLS], [SEP], padding).

    Returns:
        (T, T) or (B, T, T): row i = start, column j = end. A softmax over the flattened last
        two dimensions gives span probabilities.

    Lecture 13; Devlin et al. 2019 section 4.2 (score of a span S·T_i + E·T_j).
    """
    allowed = _check_span_inputs(start_logits, end_logits, max_answer_length, allowed)
    T = start_logits.shape[-1]
    i = torch.arange(T, device=start_logits.device)[:, None]  # (T, 1): start
    j = torch.arange(T, device=start_logits.device)[None, :]  # (1, T): end
    valid = (j >= i) & (j - i < max_answer_length)  # (T, T)
    if allowed is not None:
        valid = valid & allowed[..., :, None] & allowed[..., None, :]  # (..., T, T)
    scores = start_logits[..., :, None] + end_logits[..., None, :]  # (..., T, 1) + (..., 1, T)
    return scores.masked_fill(~valid, float("-inf"))


def best_span(
    start_logits: torch.Tensor,
    end_logits: torch.Tensor,
    max_answer_length: int = 10,
    allowed: torch.Tensor | None = None,
) -> tuple[int, int, float] | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The valid span (``span_scores``) of the highest score start_logits[i] + end_logits[j],
    searched exhaustively; ties go to the smallest start, then the smallest end.

    Args: as ``span_scores``.

    Returns:
        (start, end, score): ints and a float for (T,) logits; (B,) long, (B,) long and (B,)
        float tensors for (B, T). start <= end, both inclusive positions.

    Lecture 13; Devlin et al. 2019 section 4.2 ("the maximum scoring span where j >= i").
    """
    scores = span_scores(start_logits, end_logits, max_answer_length, allowed)
    T = scores.shape[-1]
    flat = scores.flatten(-2)  # (..., T, T) -> (..., T*T), row-major: start, then end
    best = flat.argmax(-1)  # the first of equal maxima
    score = flat.gather(-1, best[..., None]).squeeze(-1)
    start, end = best // T, best % T
    if scores.ndim == 2:
        return int(start), int(end), float(score)
    return start, end, score
