"""Recurrent cells written out (vanilla RNN, GRU, LSTM) and an ELMo-style bidirectional LM.

The cell functions take the weights in ``torch.nn.RNNCell`` / ``GRUCell`` / ``LSTMCell``'s
layout (``weight_ih`` (G·H, D), ``weight_hh`` (G·H, H), biases (G·H,), the gates stacked in
torch's order: GRU r, z, n; LSTM i, f, g, o), so a test can feed them torch's own weights and
compare. ``run_cell`` applies a cell once per position: n dependent calls for n positions.

``BiLM`` is a small ELMo: a forward LSTM language model (reads left to right, predicts the next
word) and a backward one (reads right to left, predicts the previous word), sharing the word
embedding and the softmax layer; the contextual vector of position t is
``[h_fwd(t); h_bwd(t)]``.

Public API::

    h = rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh)            # tanh(W_ih x + b_ih + W_hh h + b_hh)
    h = gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)            # x (B, D), h (B, H) -> (B, H)
    h, c = lstm_cell(x, (h, c), w_ih, w_hh, b_ih, b_hh)
    states = run_cell(cell, x, h0)   # cell: torch.nn.RNNCell/GRUCell/LSTMCell or
                                     # f(x_t, state) -> state; x (B, T, D) -> hidden (B, T, H)
    GATES                            # {"RNN": 1, "GRU": 3, "LSTM": 4}: weight matrices per step
    lm = BiLM(vocab_size, dim=32, hidden=64)
    fwd, bwd = lm.states(ids, lengths)      # (B, T, H) each; pads at the end of each row
    fwd_logits, bwd_logits = lm(ids, lengths)               # (B, T, V) each
    fwd_nll, bwd_nll = bilm_loss(lm, ids, lengths)          # mean next / previous word NLL
    vectors = lm.contextual(ids, lengths)                   # (B, T, 2H) = [fwd; bwd]
    reverse_padded(x, lengths)       # each row's first lengths[b] steps reversed (B, T, ...)

Lecture 00; Elman 1990; Cho et al. 2014 (GRU); Hochreiter & Schmidhuber 1997 (LSTM);
Peters et al. 2018 (ELMo).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.utils.checks import (
    check_ids,
    check_input,
    check_instance,
    check_lengths,
    check_positive_int,
    check_tensor,
    shape_of,
)
from lecturekit.utils.contracts import check_shapes, contract

__all__ = ["GATES", "rnn_cell", "gru_cell", "lstm_cell", "run_cell", "reverse_padded", "BiLM",
           "bilm_loss"]  # fmt: skip

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}  # weight matrices (W_ih, W_hh pairs) per step

State = torch.Tensor | tuple[torch.Tensor, torch.Tensor]


def _affine(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    return F.linear(x, w, b)  # (B, D) -> (B, G·H)


@contract(x="B D", h="B H", w_ih="H D", w_hh="H H", b_ih="H", b_hh="H", dtype="same")
def rnn_cell(
    x: torch.Tensor,
    h: torch.Tensor,
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor | None = None,
    b_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    """One step of the vanilla (Elman) RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh).

    Args:
        x: (B, D) input; h: (B, H) previous state; w_ih (H, D), w_hh (H, H), biases (H,).

    Returns:
        (B, H) the new state (equal to ``torch.nn.RNNCell`` with these weights).

    Lecture 00; Elman 1990.
    """
    return torch.tanh(_affine(x, w_ih, b_ih) + _affine(h, w_hh, b_hh))


@contract(x="B D", h="B H", w_ih="3*H D", w_hh="3*H H", b_ih="3*H", b_hh="3*H", dtype="same")
def gru_cell(
    x: torch.Tensor,
    h: torch.Tensor,
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor | None = None,
    b_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    """One GRU step (torch's convention):
    r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 - z) ⊙ n + z ⊙ h.

    Args:
        x: (B, D); h: (B, H); w_ih (3H, D) and w_hh (3H, H) stacked r, z, n; biases (3H,).

    Returns:
        (B, H) the new state (equal to ``torch.nn.GRUCell``).

    Lecture 00; Cho et al. 2014.
    """
    gi = _affine(x, w_ih, b_ih).chunk(3, dim=1)  # (B, 3H) -> 3 x (B, H)
    gh = _affine(h, w_hh, b_hh).chunk(3, dim=1)
    r = torch.sigmoid(gi[0] + gh[0])
    z = torch.sigmoid(gi[1] + gh[1])
    n = torch.tanh(gi[2] + r * gh[2])
    return (1 - z) * n + z * h


def lstm_cell(
    x: torch.Tensor,
    state: tuple[torch.Tensor, torch.Tensor],
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor | None = None,
    b_hh: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One LSTM step: [i, f, g, o] = W_ih x + b_ih + W_hh h + b_hh; i, f, o through σ, g
    through tanh; c' = f ⊙ c + i ⊙ g; h' = o ⊙ tanh(c').

    Args:
        x: (B, D); state: (h, c), each (B, H); w_ih (4H, D) and w_hh (4H, H) stacked i, f, g, o;
            biases (4H,).

    Returns:
        (h', c'), each (B, H) (equal to ``torch.nn.LSTMCell``).

    Lecture 00; Hochreiter & Schmidhuber 1997 (with the forget gate of Gers et al. 2000).
    """
    if not (isinstance(state, (tuple, list)) and len(state) == 2):
        raise ValueError(f"state must be a pair (h, c) of (B, H) tensors, got "
                         f"{type(state).__name__}")  # fmt: skip
    h, c = state
    check_shapes({"x": x, "h": h, "c": c, "w_ih": w_ih, "w_hh": w_hh, "b_ih": b_ih, "b_hh": b_hh},
                 {"x": "B D", "h": "B H", "c": "B H", "w_ih": "4*H D", "w_hh": "4*H H",
                  "b_ih": "4*H", "b_hh": "4*H"}, dtype="same")  # fmt: skip
    gates = _affine(x, w_ih, b_ih) + _affine(h, w_hh, b_hh)  # (B, 4H)
    i, f, g, o = gates.chunk(4, dim=1)  # 4 x (B, H)
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_new), c_new


_TORCH_CELLS = (nn.RNNCell, nn.GRUCell, nn.LSTMCell)


def _check_torch_cell(cell: nn.Module, x: torch.Tensor, h0: State | None) -> None:
    """x (B, T, D) and h0 fit a torch cell: D = input_size, its dtype, and h0 (B, H) for an
    RNN/GRU cell, the pair (h, c) of (B, H) for an LSTM cell."""
    D, H, B = cell.input_size, cell.hidden_size, x.shape[0]
    check_input("x", x, cell, 3, wanted=f"(B, T, D={D})")
    if x.shape[2] != D:
        raise ValueError(f"x must be (B, T, D={D}) ({type(cell).__name__}'s input_size), got "
                         f"{tuple(x.shape)}")  # fmt: skip
    if h0 is None:
        return
    lstm = isinstance(cell, nn.LSTMCell)
    pair = isinstance(h0, (tuple, list))
    if lstm and not (pair and len(h0) == 2):
        raise ValueError(f"h0 must be the pair (h, c) of ({B}, {H}) tensors for an LSTMCell, "
                         f"got {shape_of(h0)}")  # fmt: skip
    if not lstm and pair:
        raise ValueError(f"h0 must be one ({B}, {H}) tensor for {type(cell).__name__} (only "
                         f"an LSTMCell's state is a pair (h, c)), got a {type(h0).__name__} "
                         f"of {len(h0)}")  # fmt: skip
    for name, h in zip(("h0[0]", "h0[1]") if lstm else ("h0",), h0 if lstm else (h0,), strict=True):
        check_tensor(name, h, 2, wanted=f"({B}, {H})", dtype=x.dtype)
        if tuple(h.shape) != (B, H):
            raise ValueError(f"{name} must be ({B}, {H}) (x's batch, the cell's hidden_size), "
                             f"got {tuple(h.shape)}")  # fmt: skip


def run_cell(
    cell: nn.Module | Callable[[torch.Tensor, State], State],
    x: torch.Tensor,
    h0: State | None = None,
    *,
    state: object = None,
) -> torch.Tensor:
    """Apply a recurrent cell position by position: T calls, each waiting for the previous one.

    Args:
        cell: ``torch.nn.RNNCell`` / ``GRUCell`` / ``LSTMCell`` or any ``f(x_t, state) ->
            state`` (an LSTM's state is the pair (h, c)).
        x: (B, T, D) inputs.
        h0: the initial state (zeros for the torch cells if None; required for a function).
        state: not an argument: the cells' name for h0, refused with a hint to pass h0=.

    Returns:
        (B, T, H) the hidden state after each position (for an LSTM, its h).

    Lecture 00; Vaswani et al. 2017 Table 1 (O(n) sequential operations).
    """
    if state is not None:
        raise TypeError(f"run_cell takes the initial state as h0=, got state= ({shape_of(state)}); "
                        "pass h0=(h, c) for an LSTM cell, h0=h otherwise")  # fmt: skip
    if not callable(cell):
        raise ValueError(f"cell must be a recurrent cell or a function, got {type(cell).__name__}")
    check_tensor("x", x, 3, wanted="(B, T, D)", floating=True)
    if isinstance(cell, _TORCH_CELLS):
        _check_torch_cell(cell, x, h0)
    state = h0
    if state is None:
        if not isinstance(cell, _TORCH_CELLS):
            raise ValueError("h0 is required when cell is a function (its state's shape is "
                             "not known)")  # fmt: skip
        zeros = x.new_zeros(x.shape[0], cell.hidden_size)
        state = (zeros, zeros.clone()) if isinstance(cell, nn.LSTMCell) else zeros
    outputs = []
    for t in range(x.shape[1]):
        state = cell(x[:, t], state)
        outputs.append(state[0] if isinstance(state, tuple) else state)
    if not outputs:
        return x.new_zeros(x.shape[0], 0, 0)
    return torch.stack(outputs, dim=1)  # T x (B, H) -> (B, T, H)


def _check_lengths(ids: torch.Tensor, lengths: torch.Tensor | None) -> torch.Tensor:
    B, T = ids.shape
    if lengths is None:
        return torch.full((B,), T, dtype=torch.long)
    return check_lengths("lengths", lengths, B, T, minimum=1).long()


def reverse_padded(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse the first ``lengths[b]`` steps of each row of ``x`` (B, T, ...), leaving the
    padding after them in place (its own inverse).

    Lecture 00.
    """
    check_tensor("x", x, min_ndim=2, wanted="(B, T, ...)")
    lengths = _check_lengths(x[..., 0] if x.ndim > 2 else x, lengths)
    T = x.shape[1]
    t = torch.arange(T)[None, :]  # (1, T)
    index = torch.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)  # (B, T)
    index = index.view(*index.shape, *([1] * (x.ndim - 2))).expand_as(x)  # (B, T) -> (B, T, 1...)
    return x.gather(1, index)


class BiLM(nn.Module):
    """ELMo-style bidirectional LSTM language model: a forward LM and a backward LM with their
    own LSTMs, sharing the word embedding and the softmax layer.

    Args:
        vocab_size: V; dim: the embedding size E; hidden: each LSTM's size H.

    Lecture 00; Peters et al. 2018 (ELMo) section 3.1.
    """

    def __init__(self, vocab_size: int, dim: int = 32, hidden: int = 64):
        super().__init__()
        check_positive_int("vocab_size", vocab_size)
        check_positive_int("dim", dim)
        check_positive_int("hidden", hidden)
        self.embedding = nn.Embedding(vocab_size, dim)
        self.forward_lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.backward_lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.softmax = nn.Linear(hidden, vocab_size)  # shared by both directions

    def _check(self, ids: object, lengths: object) -> tuple[torch.Tensor, torch.Tensor]:
        check_tensor("ids", ids, 2, wanted="(B, T)", integer=True, nonempty=True)
        check_ids("ids", ids, self.embedding.num_embeddings)
        return ids.long(), _check_lengths(ids, lengths)

    def states(
        self, ids: torch.Tensor, lengths: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """ids (B, T) (padding after each row's ``lengths[b]`` words) -> the forward states
        (B, T, H) (position t has read words 0..t) and the backward states (B, T, H)
        (position t has read words lengths[b]-1 down to t). States at padding are meaningless.
        """
        ids, lengths = self._check(ids, lengths)
        x = self.embedding(ids)  # (B, T) -> (B, T, E)
        fwd, _ = self.forward_lstm(x)  # (B, T, H)
        bwd_reversed, _ = self.backward_lstm(reverse_padded(x, lengths))  # (B, T, H)
        return fwd, reverse_padded(bwd_reversed, lengths)

    def contextual(self, ids: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T) ids -> (B, T, 2H) contextual vectors [h_fwd(t); h_bwd(t)]."""
        fwd, bwd = self.states(ids, lengths)
        return torch.cat([fwd, bwd], dim=-1)  # 2 x (B, T, H) -> (B, T, 2H)

    def forward(
        self, ids: torch.Tensor, lengths: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, T) ids -> forward logits (B, T, V) (position t predicts word t + 1) and backward
        logits (B, T, V) (position t predicts word t - 1)."""
        fwd, bwd = self.states(ids, lengths)
        return self.softmax(fwd), self.softmax(bwd)


def bilm_loss(
    model: BiLM, ids: torch.Tensor, lengths: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two language-model losses ELMo maximises jointly: the mean negative log-likelihood
    of each next word (forward) and of each previous word (backward), over real words only.

    Args:
        model: a ``BiLM``; ids: (B, T) word ids; lengths: (B,) real words per row (default T).

    Returns:
        (forward NLL, backward NLL), scalar tensors (train on their sum). A batch without a
        row of 2 real words has no next word to predict (a mean over nothing): ValueError.

    Lecture 00; Peters et al. 2018 eq. 1.
    """
    check_instance("model", model, BiLM)
    fwd_logits, bwd_logits = model(ids, lengths)
    lengths = _check_lengths(ids, lengths)
    T = ids.shape[1]
    real = torch.arange(T)[None, :] < lengths[:, None]  # (B, T)
    ids = ids.long()
    V = fwd_logits.shape[-1]
    # forward: position t predicts t + 1 (both real); backward: position t predicts t - 1
    fwd_mask = real[:, 1:]
    if not fwd_mask.any():
        raise ValueError(
            f"ids must hold a row of at least 2 real words (a next word to predict), got "
            f"T={T} and lengths {lengths.tolist()!r:.40}: with one word each the mean NLL is 0/0"
        )
    fwd = F.cross_entropy(fwd_logits[:, :-1][fwd_mask].view(-1, V), ids[:, 1:][fwd_mask])
    bwd = F.cross_entropy(bwd_logits[:, 1:][fwd_mask].view(-1, V), ids[:, :-1][fwd_mask])
    return fwd, bwd
