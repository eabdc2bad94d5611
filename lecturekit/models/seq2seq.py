"""RNN encoder-decoder: the fixed-vector bottleneck, and attention that removes it.

Public API::

    config = Seq2SeqConfig.tiny(attention="dot")    # the lecture's sizes; attention=None: none
    config = Seq2SeqConfig.tiny(attention="dot", attention_query="previous")  # Bahdanau's s_{t-1}
    model = Seq2Seq(config)
    logits, weights = model(src, src_len, tgt_in)   # (B, T, V), (B, T, S) or None (bottleneck)
    #   src (B, S), tgt_in (B, T): integer ids (any integer dtype); src_len (B,) in 1..S
    step = model.step_function(src_ids)             # for lecturekit.decoding: (N, t) -> (N, V)
    Encoder(vocab_size, emb_dim, hidden_dim)(src, src_len) -> states (B, S, H), final (B, H)
    BottleneckDecoder(...)(tgt_in, states, final, src_mask) -> logits, None
    AttentionDecoder(..., score="additive")(tgt_in, states, final, src_mask) -> logits, weights
    BahdanauDecoder(..., score="additive")(tgt_in, states, final, src_mask) -> logits, weights

The encoder is a bidirectional GRU with H/2 units per direction, so its states h_i have the
decoder's width H and every scoring function (dot included) compares them directly; its final
state (the last forward and the first backward state, through a linear "bridge") starts the
decoder. The *bottleneck* decoder sees
the source only through that one vector. The *attention* decoder (Luong et al. 2015, global
attention without input feeding) also scores its state s_t against every encoder state h_i
with any of the six scoring functions of lecturekit.attention, and predicts from
tanh(W_c [c_t; s_t]) with the context c_t = sum_i a_ti h_i.

Which decoder state asks the question is ``Seq2SeqConfig.attention_query``:

- ``"current"`` (the default; ``AttentionDecoder``, Luong et al. 2015): the GRU steps first,
  s_t = GRU(emb(y_{t-1}), s_{t-1}), then s_t is scored against every h_i. All T steps of the
  GRU run at once under teacher forcing.
- ``"previous"`` (``BahdanauDecoder``, Bahdanau et al. 2015 eq. 4-6; the CMU deck's
  e_i(t) = g(h_i, s_{t-1}), w_i(t) = softmax_i e_i(t), c_t = sum_i w_i(t) h_i): the previous
  state s_{t-1} is scored first (s_0 is the encoder's final vector through the bridge), and
  the context enters the recurrence, s_t = GRU([emb(y_{t-1}); c_t], s_{t-1}). Each step needs
  the one before, so the decoder loops over time. It predicts from tanh(W_c [c_t; s_t]) like
  the Luong decoder, so the two differ only in the query (and in the GRU's input). The deck
  writes c_t = (1/N) sum_i w_i(t) h_i; the weights already sum to 1, so there is no 1/N here.

Lecture 01 (bottleneck); lecture 02 (scoring functions); Bahdanau et al. 2015; Luong et al. 2015.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lecturekit.attention import SCORE_FUNCTIONS, make_score
from lecturekit.datasets.translation import BOS, EOS, PAD
from lecturekit.masking import padding_mask
from lecturekit.utils.checks import (
    as_token_ids,
    check_choice,
    check_ids,
    check_index,
    check_input,
    check_instance,
    check_lengths,
    check_padding_mask,
    check_positive_int,
)
from lecturekit.utils.config import ModelConfig

__all__ = [
    "ATTENTION_QUERIES",
    "Seq2SeqConfig",
    "Encoder",
    "BottleneckDecoder",
    "AttentionDecoder",
    "BahdanauDecoder",
    "Seq2Seq",
]

# Seq2SeqConfig.attention_query: which decoder state scores the encoder states
ATTENTION_QUERIES = ("current", "previous")  # s_t (Luong) or s_{t-1} (Bahdanau)


@dataclass(frozen=True)
class Seq2SeqConfig(ModelConfig):
    """Sizes of a Seq2Seq model. ``attention=None`` gives the bottleneck decoder; otherwise
    the name of a scoring function ("dot", "scaled_dot", "general", "additive", "cosine",
    "location"). ``attention_query`` says which decoder state is the query: "current" (s_t,
    Luong et al. 2015; ``AttentionDecoder``) or "previous" (s_{t-1}, Bahdanau et al. 2015 and
    the CMU deck; ``BahdanauDecoder``).

    The defaults are the sizes of Bahdanau et al.'s RNNsearch (30,000-word vocabularies,
    620-dimensional embeddings, 1000 hidden units, additive attention; here the encoder's two
    directions share the 1000, so that every scoring function compares states of one width);
    ``tiny()`` is lectures 01, 02 and 07's: embeddings 64, hidden 192, the toy translation
    task's vocabularies (46 and 68 words; ``lecturekit.datasets.translation``).

    Lecture 01; Bahdanau et al. 2015 section 4.2.
    """

    TINY: ClassVar[dict[str, object]] = {"src_vocab_size": 46, "tgt_vocab_size": 68,
                                         "emb_dim": 64, "hidden_dim": 192}  # fmt: skip

    src_vocab_size: int = 30000
    tgt_vocab_size: int = 30000
    attention: str | None = "additive"
    emb_dim: int = 620
    hidden_dim: int = 1000
    max_src_len: int = 80  # only used by the "location" score
    pad_id: int = PAD  # the special tokens of both vocabularies: by default those of
    bos_id: int = BOS  # lecturekit.datasets.translation's vocabularies
    eos_id: int = EOS
    attention_query: str = "current"  # one of ATTENTION_QUERIES; last, so that older
    # positional Seq2SeqConfig(...) calls keep their meaning

    def __post_init__(self):
        self.check_positive("src_vocab_size", "tgt_vocab_size", "emb_dim", "hidden_dim",
                            "max_src_len")  # fmt: skip
        if self.hidden_dim % 2:
            raise ValueError(f"hidden_dim={self.hidden_dim} must be even (two GRU directions)")
        if self.attention is not None and (
            not isinstance(self.attention, str) or self.attention not in SCORE_FUNCTIONS
        ):
            raise ValueError(
                f"attention={self.attention!r} is not None or one of {sorted(SCORE_FUNCTIONS)}"
            )
        check_choice("attention_query", self.attention_query, ATTENTION_QUERIES)
        if self.attention is None and self.attention_query != "current":
            raise ValueError(
                f"attention_query={self.attention_query!r} needs attention (a scoring function); "
                "attention=None is the bottleneck decoder, which has no query"
            )
        for name in ("pad_id", "bos_id", "eos_id"):  # ids in both vocabularies
            check_index(name, getattr(self, name), min(self.src_vocab_size, self.tgt_vocab_size))


def _check_sizes(vocab_size: int, emb_dim: int, hidden_dim: int, pad_id: int) -> None:
    for name, value in (("vocab_size", vocab_size), ("emb_dim", emb_dim),
                        ("hidden_dim", hidden_dim)):  # fmt: skip
        check_positive_int(name, value)
    check_index("pad_id", pad_id, vocab_size)


class Encoder(nn.Module):
    """Bidirectional GRU over the source, hidden_dim/2 units per direction.

    Lecture 01; Bahdanau et al. 2015 section 3.2.
    """

    def __init__(self, vocab_size: int, emb_dim: int, hidden_dim: int, pad_id: int = PAD):
        super().__init__()
        _check_sizes(vocab_size, emb_dim, hidden_dim, pad_id)
        if hidden_dim % 2:
            raise ValueError(f"hidden_dim={hidden_dim} must be even (two GRU directions)")
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id)
        self.rnn = nn.GRU(emb_dim, hidden_dim // 2, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(hidden_dim, hidden_dim)  # final state -> decoder's s_0

    def forward(
        self, src: torch.Tensor, src_len: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """src (B, S) ids, src_len (B,) -> states (B, S, H) (zeros at padding), final (B, H).

        src: integer token ids (any integer dtype); src_len: integer lengths, each in 1..S.
        """
        src = check_ids("src", src, self.embedding.num_embeddings, 2, wanted="(B, S)").long()
        check_lengths("src_len", src_len, *src.shape, minimum=1)
        packed = pack_padded_sequence(
            self.embedding(src), src_len.cpu(), batch_first=True, enforce_sorted=False
        )
        out, h_n = self.rnn(packed)  # h_n (2, B, H/2): last forward, first backward
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        final = torch.tanh(self.bridge(torch.cat([h_n[0], h_n[1]], dim=-1)))  # (B, H) -> (B, H)
        return states, final


class _Decoder(nn.Module):
    """Shared interface: ``forward`` for teacher forcing, ``run`` to continue from a state."""

    def forward(
        self,
        tgt_in: torch.Tensor,
        states: torch.Tensor,
        final: torch.Tensor,
        src_mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """tgt_in (B, T), states (B, S, H), final (B, H), src_mask (B, S) bool.

        Returns logits (B, T, V) and attention weights (B, T, S), one row per target step
        (None for the bottleneck decoder).
        """
        vocab_size, H = self.embedding.num_embeddings, self.rnn.hidden_size
        tgt_in = check_ids("tgt_in", tgt_in, vocab_size, 2, wanted="(B, T)").long()
        B = tgt_in.shape[0]
        check_input("states", states, self, 3, wanted=f"(B={B}, S, H={H})")
        check_input("final", final, self, 2, wanted=f"(B={B}, H={H})")
        if states.shape[0] != B or states.shape[2] != H:
            raise ValueError(f"states must be (B={B}, S, H={H}), got {tuple(states.shape)}")
        if tuple(final.shape) != (B, H):
            raise ValueError(f"final must be (B={B}, H={H}), got {tuple(final.shape)}")
        src_mask = check_padding_mask("src_mask", src_mask, states.shape[:2])
        if tgt_in.shape[1] == 0:  # T = 0: empty outputs of the right shapes (a GRU needs T >= 1)
            logits, weights, _ = self.run(tgt_in.new_zeros(B, 1), states, final, src_mask)
            return logits[:, :0], None if weights is None else weights[:, :0]  # (B, 0, ...)
        logits, weights, _ = self.run(tgt_in, states, final, src_mask)
        return logits, weights


class BottleneckDecoder(_Decoder):
    """GRU decoder whose only view of the source is the encoder's final vector.

    Lecture 01; Sutskever et al. 2014, Cho et al. 2014.
    """

    def __init__(self, vocab_size: int, emb_dim: int, hidden_dim: int, pad_id: int = PAD):
        super().__init__()
        _check_sizes(vocab_size, emb_dim, hidden_dim, pad_id)
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id)
        self.rnn = nn.GRU(emb_dim, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim, vocab_size)

    def run(self, tgt_in, states, h0, src_mask) -> tuple[torch.Tensor, None, torch.Tensor]:
        """As forward, from hidden state h0 (B, H); also returns the last hidden state (B, H).
        ``states`` and ``src_mask`` are ignored: that is the bottleneck."""
        s, h_n = self.rnn(self.embedding(tgt_in), h0[None])  # (B, T, E), (1, B, H) -> (B, T, H)
        return self.out(s), None, h_n[0]


def _build_attention_decoder(
    decoder: nn.Module,
    vocab_size: int,
    emb_dim: int,
    hidden_dim: int,
    score: str,
    max_src_len: int,
    pad_id: int,
    rnn: Callable[[], nn.Module],
) -> None:
    """The layers both attention decoders have, built in one order (so that a seed gives the
    same initial weights): checks, embedding, the recurrence ``rnn()``, the score, W_c, W_o."""
    _check_sizes(vocab_size, emb_dim, hidden_dim, pad_id)
    check_choice("score", score, sorted(SCORE_FUNCTIONS))
    check_positive_int("max_src_len", max_src_len)
    decoder.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id)
    decoder.rnn = rnn()
    # queries (s_t or s_{t-1}) and keys h_i both have width hidden_dim: every score applies
    decoder.score = make_score(
        score, hidden_dim, hidden_dim, hidden_dim=hidden_dim, max_len=max_src_len
    )
    decoder.combine = nn.Linear(2 * hidden_dim, hidden_dim)  # W_c [c_t; s_t]
    decoder.out = nn.Linear(hidden_dim, vocab_size)


class AttentionDecoder(_Decoder):
    """GRU decoder that attends over all encoder states at every step.

    Lecture 02; Luong et al. 2015 section 3.1 (global attention, eq. 5-6).
    """

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        score: str = "additive",
        max_src_len: int = 80,
        pad_id: int = PAD,
    ):
        super().__init__()
        _build_attention_decoder(
            self,
            vocab_size,
            emb_dim,
            hidden_dim,
            score,
            max_src_len,
            pad_id,
            rnn=lambda: nn.GRU(emb_dim, hidden_dim, batch_first=True),
        )

    def run(self, tgt_in, states, h0, src_mask) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """As forward, from hidden state h0 (B, H); also returns the last hidden state (B, H)."""
        s, h_n = self.rnn(self.embedding(tgt_in), h0[None])  # -> (B, T, H) queries s_t
        context, weights = self.score.attend(s, states, states, src_mask[:, None, :])
        # context (B, T, H), weights (B, T, S); mask (B, S) -> (B, 1, S) broadcasts over T
        h = torch.tanh(self.combine(torch.cat([context, s], dim=-1)))  # (B, T, 2H) -> (B, T, H)
        return self.out(h), weights, h_n[0]


class BahdanauDecoder(_Decoder):
    """GRU decoder that attends with its *previous* state s_{t-1} and feeds the context into
    the recurrence (``Seq2SeqConfig.attention_query="previous"``).

    For t = 1 .. T, from s_0 = the encoder's final vector (``h0``)::

        e_ti = score(s_{t-1}, h_i)              a_t = softmax_i(e_t) (masked)
        c_t  = sum_i a_ti h_i                   s_t = GRU([emb(y_{t-1}); c_t], s_{t-1})
        logits_t = W_o tanh(W_c [c_t; s_t])

    The weights of step t are computed before y_{t-1} is read, so they depend only on
    y_1 .. y_{t-2} (and the source). Any of the six scores of lecturekit.attention applies.
    The output layer is the Luong decoder's (``AttentionDecoder``), so the two decoders differ
    in the query and in the GRU's input only; Bahdanau et al. predict through a maxout layer of
    (s_t, y_{t-1}, c_t) instead.

    Lecture 02; Bahdanau et al. 2015 eq. 4-6 (appendix A.1.2); the CMU deck's
    e_i(t) = g(h_i, s_{t-1}), w_i(t) = exp(e_i(t)) / sum_j exp(e_j(t)), c_t = sum_i w_i(t) h_i.
    """

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        score: str = "additive",
        max_src_len: int = 80,
        pad_id: int = PAD,
    ):
        super().__init__()
        # the GRU's input is [emb(y_{t-1}); c_t]
        _build_attention_decoder(
            self,
            vocab_size,
            emb_dim,
            hidden_dim,
            score,
            max_src_len,
            pad_id,
            rnn=lambda: nn.GRUCell(emb_dim + hidden_dim, hidden_dim),
        )

    def run(self, tgt_in, states, h0, src_mask) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """As forward, from hidden state h0 (B, H) = s_0; also returns the last state s_T
        (B, H), from which a later call continues (greedy decoding runs one step per call)."""
        embedded = self.embedding(tgt_in)  # (B, T) -> (B, T, E)
        mask = src_mask[:, None, :]  # (B, S) -> (B, 1, S): one query per step
        s = h0  # s_0 (B, H)
        contexts, queries, weights = [], [], []
        for t in range(tgt_in.shape[1]):
            c, a = self.score.attend(s[:, None, :], states, states, mask)  # s_{t-1} (B, 1, H)
            # c (B, 1, H) = c_t, a (B, 1, S) = a_t: the weights of step t, from s_{t-1}
            s = self.rnn(torch.cat([embedded[:, t], c[:, 0]], dim=-1), s)  # (B, E+H) -> s_t (B, H)
            contexts.append(c[:, 0])
            queries.append(s)
            weights.append(a)
        if not queries:  # T = 0: nothing to predict
            B, S, H = states.shape
            empty = states.new_zeros(B, 0, H)
            return self.out(empty), states.new_zeros(B, 0, S), h0
        context = torch.stack(contexts, dim=1)  # T x (B, H) -> (B, T, H): c_1 .. c_T
        s_all = torch.stack(queries, dim=1)  # T x (B, H) -> (B, T, H): s_1 .. s_T
        h = torch.tanh(self.combine(torch.cat([context, s_all], dim=-1)))  # (B, T, 2H) -> (B, T, H)
        return self.out(h), torch.cat(weights, dim=1), s  # T x (B, 1, S) -> (B, T, S)


class Seq2Seq(nn.Module):
    """Encoder + bottleneck or attention decoder, as set by ``config.attention``; the
    attention decoder queries with s_t (``AttentionDecoder``) or, with
    ``config.attention_query="previous"``, with s_{t-1} (``BahdanauDecoder``).

    Lecture 01.
    """

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        check_instance("config", config, Seq2SeqConfig)
        self.config = c = config
        self.encoder = Encoder(c.src_vocab_size, c.emb_dim, c.hidden_dim, c.pad_id)
        if c.attention is None:
            self.decoder: nn.Module = BottleneckDecoder(
                c.tgt_vocab_size, c.emb_dim, c.hidden_dim, c.pad_id
            )
        else:
            decoder = AttentionDecoder if c.attention_query == "current" else BahdanauDecoder
            self.decoder = decoder(
                c.tgt_vocab_size, c.emb_dim, c.hidden_dim, c.attention, c.max_src_len, c.pad_id
            )

    def _check(self, src: object, src_len: object) -> torch.Tensor:
        """src (B, S) integer ids (returned as long), src_len (B,) integer lengths in 1..S."""
        c = self.config
        src = check_ids("src", src, c.src_vocab_size, 2, wanted="(B, S)").long()
        if src.shape[1] == 0:
            raise ValueError(f"src must hold at least one token per row (S >= 1), got shape "
                             f"{tuple(src.shape)}")  # fmt: skip
        check_lengths("src_len", src_len, *src.shape, minimum=1)
        if c.attention == "location" and src.shape[1] > c.max_src_len:
            raise ValueError(
                f"src has length {src.shape[1]} > max_src_len={c.max_src_len} (the location "
                "score has one weight per source position)"
            )
        return src

    def forward(
        self, src: torch.Tensor, src_len: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Teacher forcing: src (B, S), src_len (B,), tgt_in (B, T) = <bos> y_1 .. y_{T-1}.

        src and tgt_in: integer token ids (any integer dtype); src_len: integer lengths, each
        in 1..S.

        Returns logits (B, T, V) for y_1 .. y_T and attention weights (B, T, S) (None for the
        bottleneck decoder).
        """
        src = self._check(src, src_len)
        tgt_in = check_ids("tgt_in", tgt_in, self.config.tgt_vocab_size, 2, wanted="(B, T)")
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must be (B={src.shape[0]}, T), got {tuple(tgt_in.shape)}")
        states, final = self.encoder(src, src_len)
        return self.decoder(tgt_in, states, final, padding_mask(src_len, src.shape[1]))

    @torch.no_grad()
    def greedy_decode(
        self, src: torch.Tensor, src_len: torch.Tensor, max_len: int
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Batched greedy decoding, one GRU step at a time.

        Returns ids (B, max_len) (PAD after each <eos>) and weights (B, max_len, S) or None.
        Gives the same tokens as ``lecturekit.decoding.greedy_search`` with ``step_function``.
        """
        src = self._check(src, src_len)
        check_positive_int("max_len", max_len)
        states, h = self.encoder(src, src_len)
        mask = padding_mask(src_len, src.shape[1])
        B, pad, eos = src.shape[0], self.config.pad_id, self.config.eos_id
        token = torch.full((B, 1), self.config.bos_id, dtype=torch.long)
        done = torch.zeros(B, dtype=torch.bool)
        ids, all_weights = [], []
        for _ in range(max_len):
            logits, weights, h = self.decoder.run(token, states, h, mask)  # logits (B, 1, V)
            token = logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
            token[done] = pad
            ids.append(token[:, 0])
            if weights is not None:
                all_weights.append(weights[:, 0])
            done |= token[:, 0] == eos
            if done.all():
                break
        out = torch.full((B, max_len), pad, dtype=torch.long)
        out[:, : len(ids)] = torch.stack(ids, 1)
        if not all_weights:
            return out, None
        w = torch.zeros(B, max_len, src.shape[1])
        w[:, : len(all_weights)] = torch.stack(all_weights, 1)
        return out, w

    @torch.no_grad()
    def step_function(
        self, src_ids: torch.Tensor | list[int]
    ) -> Callable[[torch.Tensor], torch.Tensor]:
        """A step function for ``lecturekit.decoding`` that translates one source sentence.

        ``step(prefix_ids (N, t)) -> log_probs (N, V)``: the log-probabilities of the next
        target token after each of N prefixes (each starts with <bos>). The encoder runs once;
        each call reruns the decoder over the prefixes (simple, and fast enough at these sizes).
        ``src_ids``: a list of ints or an (S,) or (1, S) integer tensor, S > 0.
        """
        if isinstance(src_ids, torch.Tensor) and src_ids.ndim == 2 and len(src_ids) == 1:
            src_ids = src_ids[0]  # a batch of one sentence, (1, S)
        src = as_token_ids("src_ids", src_ids, self.config.src_vocab_size)[None]  # (1, S)
        src_len = torch.tensor([src.shape[1]])
        self._check(src, src_len)
        was_training = self.training
        self.eval()
        states, final = self.encoder(src, src_len)
        mask = padding_mask(src_len, src.shape[1])
        if was_training:
            self.train()

        @torch.no_grad()
        def step(prefix_ids: torch.Tensor) -> torch.Tensor:
            check_ids("prefix_ids", prefix_ids, self.config.tgt_vocab_size, 2, wanted="(N, t)")
            N = prefix_ids.shape[0]
            logits, _ = self.decoder(
                prefix_ids,
                states.expand(N, -1, -1),
                final.expand(N, -1),
                mask.expand(N, -1),
            )
            return torch.log_softmax(logits[:, -1], dim=-1)  # (N, t, V) -> (N, V)

        return step
