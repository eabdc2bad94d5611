"""Show, attend and tell at toy scale: a CNN whose feature-map cells are the h_i, and lecture
01's attention GRU decoder writing a caption, one look at the image per word.

The encoder is a small CNN (3 x 3 convolutions, batch norm, ReLU, 2 x 2 max-pools; without
batch norm, training stalled near the grammar's word frequencies in a trial run): an image
(B, 1, S, S) becomes a feature map (B, D, S', S') with S' = S / 2^pools, and each of its
N = S' x S' cells is one annotation vector h_i (D channels, plus a learned embedding of the
cell's position, as ViT's patches get one: a convolution alone does not know where a cell
is). The set of h_i plays the part of the encoder states of a translation model ("filter
outputs at each location are the equivalent of h_i", the CMU deck). The decoder is
``lecturekit.models.seq2seq``'s ``BahdanauDecoder`` unchanged: at step t it scores its
previous state s_{t-1} against every
h_i (additive score), takes the softmax over the N cells (the weights sum to 1, so there is
no 1/N), reads the context c_t = sum_i a_ti h_i with the previous word and predicts the next
one. s_0 = tanh(W mean_i h_i), as Xu et al. initialise the LSTM from the mean annotation.

``CaptionerConfig(attention=False)`` is the baseline without attention: lecture 01's
``BottleneckDecoder`` started from the same s_0, i.e. a caption written from the mean-pooled
feature vector alone.

**Hard attention** (Xu et al.'s "stochastic hard attention") replaces the expectation
c_t = sum_i a_ti h_i by one sampled cell, c_t = h_i with i ~ Categorical(a_t); the paper trains
it with a REINFORCE-style estimator (sampling has no gradient). Here ``caption(...,
attention="hard")`` samples cells from a model trained with soft attention (a demonstration
of the idea, not Xu et al.'s training), and ``attention="argmax"`` takes the most-weighted cell.

Public API::

    config = CaptionerConfig.tiny()                  # the lecture's sizes (32 x 32 scenes)
    model = Captioner(config)
    logits, weights = model(images, tgt_in)          # teacher forcing
    #   images (B, 1, S, S) float; tgt_in (B, T) = <bos> y_1 .. y_{T-1} (integer ids)
    #   logits (B, T, V); weights (B, T, N) (None without attention), N = cells of the map
    features = model.encode(images)                  # (B, N, D): the h_i
    s0 = model.initial_state(features)               # (B, D)
    result = model.caption(images, max_len=8, attention="soft", generator=None)
    result.ids, result.weights, result.cells         # (B, L) ids (<pad> after <eos>),
                                                     # (B, L, N) a_t per word, (B, L) the
                                                     # attended (sampled / argmax) cell
    teacher_inputs(ids)                              # <bos> + ids[:, :-1]: the decoder's input

Lecture 09a; Xu et al. 2015 (Show, attend and tell) sections 3.1-4; the CMU deck's
"Attention models in image captioning"; Bahdanau et al. 2015 (the decoder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import nn

from lecturekit.datasets.scenes import BOS, EOS, PAD, VOCAB
from lecturekit.masking import masked_softmax
from lecturekit.models.seq2seq import BahdanauDecoder, BottleneckDecoder
from lecturekit.utils.checks import (
    check_choice,
    check_ids,
    check_index,
    check_input,
    check_instance,
    check_positive_int,
    check_positive_ints,
)
from lecturekit.utils.config import ModelConfig

__all__ = ["CaptionerConfig", "Captioner", "CaptionResult", "teacher_inputs", "ATTENTION_MODES"]

ATTENTION_MODES = ("soft", "hard", "argmax")


@dataclass(frozen=True)
class CaptionerConfig(ModelConfig):
    """Sizes of the captioner. Defaults: Xu et al.'s 224 x 224 images, a 14 x 14 map of
    512-d annotations (4 pools; their encoder is VGG, this one a plain CNN of the same stride)
    and 512-wide word embeddings and decoder; ``tiny()``: 32 x 32 scenes, an 8 x 8 map of
    32-d cells, a 32-wide GRU.

    ``channels`` are the convolutions' widths, each followed by batch norm, a ReLU and a 2 x 2
    max-pool, then a last 3 x 3 convolution (and ReLU) to ``feature_dim``.
    ``attention=False``: the baseline that reads only the mean-pooled features (no attention).

    Lecture 09a; Xu et al. 2015 section 4.3.
    """

    TINY: ClassVar[dict[str, object]] = {"image_size": 32, "channels": (16, 32),
                                         "feature_dim": 32, "emb_dim": 16}  # fmt: skip
    vocab_size: int = len(VOCAB)
    image_size: int = 224
    channels: tuple[int, ...] = (64, 128, 256, 512)
    feature_dim: int = 512
    emb_dim: int = 512
    attention: bool = True
    pad_id: int = PAD
    bos_id: int = BOS
    eos_id: int = EOS

    def __post_init__(self):
        self.check_positive("vocab_size", "image_size", "feature_dim", "emb_dim")
        object.__setattr__(self, "channels", check_positive_ints("channels", self.channels))
        if not isinstance(self.attention, bool):
            raise ValueError(f"attention must be True or False, got {self.attention!r}")
        stride = 2 ** len(self.channels)
        if self.image_size % stride:
            pools = len(self.channels)
            raise ValueError(f"image_size={self.image_size} is not divisible by 2^{pools} = "
                             f"{stride} (a pool per entry of channels)")  # fmt: skip
        for name in ("pad_id", "bos_id", "eos_id"):
            value = getattr(self, name)
            is_int = isinstance(value, int) and not isinstance(value, bool)
            if not is_int or not 0 <= value < self.vocab_size:
                raise ValueError(f"{name} must be an id in 0..{self.vocab_size - 1}, got {value!r}")

    @property
    def grid(self) -> int:
        """The feature map's side in cells (image_size / 2^pools)."""
        return self.image_size // 2 ** len(self.channels)

    @property
    def num_cells(self) -> int:
        """N, the number of annotation vectors h_i."""
        return self.grid**2


@dataclass(frozen=True)
class CaptionResult:
    """What ``Captioner.caption`` wrote: ids (B, L) (<pad> after <eos>), the weights a_t of
    each word (B, L, N) (zeros after <eos>; None without attention) and the cell each step read
    (B, L): the sampled one (hard), the most-weighted one (soft, argmax); -1 after <eos>."""

    ids: torch.Tensor
    weights: torch.Tensor | None
    cells: torch.Tensor | None


def teacher_inputs(ids: torch.Tensor, bos_id: int = BOS) -> torch.Tensor:
    """The decoder's input under teacher forcing: <bos> then the target's words shifted
    right, ids (B, T) -> (B, T); ``bos_id`` is an id of the scenes' vocabulary.

    Lecture 09a (lecture 01's teacher forcing).
    """
    ids = check_ids("ids", ids, len(VOCAB), 2, wanted="(B, T)").long()
    check_index("bos_id", bos_id, len(VOCAB))
    bos = torch.full((len(ids), 1), bos_id, dtype=torch.long)
    return torch.cat([bos, ids[:, :-1]], dim=1)  # (B, 1) + (B, T-1) -> (B, T)


class Captioner(nn.Module):
    """CNN encoder (the h_i) + lecture 01's GRU decoder with additive attention over the cells.

    Lecture 09a; Xu et al. 2015 eq. 4-7 (soft attention, deterministic context).
    """

    def __init__(self, config: CaptionerConfig):
        super().__init__()
        check_instance("config", config, CaptionerConfig)
        self.config = c = config
        layers, width = [], 1
        for out in c.channels:
            layers += [nn.Conv2d(width, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU(),
                       nn.MaxPool2d(2)]  # fmt: skip
            width = out
        layers += [nn.Conv2d(width, c.feature_dim, 3, padding=1), nn.ReLU()]
        self.cnn = nn.Sequential(*layers)
        self.position = nn.Parameter(torch.zeros(c.num_cells, c.feature_dim))
        nn.init.normal_(self.position, std=0.02)
        self.init_state = nn.Linear(c.feature_dim, c.feature_dim)
        if c.attention:
            self.decoder: nn.Module = BahdanauDecoder(
                c.vocab_size, c.emb_dim, c.feature_dim, "additive", c.num_cells, c.pad_id
            )
        else:
            self.decoder = BottleneckDecoder(c.vocab_size, c.emb_dim, c.feature_dim, c.pad_id)

    def _check_images(self, images: object) -> torch.Tensor:
        S = self.config.image_size
        check_input("images", images, self, 4, wanted=f"(B, 1, {S}, {S})")
        if tuple(images.shape[1:]) != (1, S, S):
            raise ValueError(f"images must be (B, 1, {S}, {S}), got {tuple(images.shape)}")
        return images

    def encode(self, images: torch.Tensor) -> torch.Tensor:
        """images (B, 1, S, S) -> the annotation vectors h_i (B, N, D): the CNN's feature map,
        one vector per cell (row-major), plus the cell's learned position embedding.

        Lecture 09a; Xu et al. 2015 section 3.1.1.
        """
        images = self._check_images(images)
        fmap = self.cnn(images)  # (B, 1, S, S) -> (B, D, S', S')
        return fmap.flatten(2).transpose(1, 2) + self.position  # -> (B, S'*S', D) = (B, N, D)

    def initial_state(self, features: torch.Tensor) -> torch.Tensor:
        """s_0 = tanh(W mean_i h_i): features (B, N, D) -> (B, D).

        Lecture 09a; Xu et al. 2015 section 3.1.2 (the initial memory and hidden state).
        """
        D = self.config.feature_dim
        check_input("features", features, self, 3, wanted=f"(B, N, D={D})")
        if features.shape[1] == 0 or features.shape[2] != D:
            raise ValueError(f"features must be (B, N, D={D}) with N >= 1 (the encoder's "
                             f"annotation vectors), got {tuple(features.shape)}")  # fmt: skip
        return torch.tanh(self.init_state(features.mean(1)))  # (B, N, D) -> (B, D) -> (B, D)

    def forward(
        self, images: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Teacher forcing: images (B, 1, S, S), tgt_in (B, T) integer ids (<bos> y_1 ..
        y_{T-1}). Returns logits (B, T, V) and the weights a_t (B, T, N) (None without
        attention).

        Lecture 09a.
        """
        c = self.config
        images = self._check_images(images)
        tgt_in = check_ids("tgt_in", tgt_in, c.vocab_size, 2, wanted="(B, T)").long()
        if len(tgt_in) != len(images):
            raise ValueError(f"tgt_in must be (B={len(images)}, T), got {tuple(tgt_in.shape)}")
        features = self.encode(images)
        s0 = self.initial_state(features)
        mask = torch.ones(features.shape[:2], dtype=torch.bool)  # every cell may be attended
        return self.decoder(tgt_in, features, s0, mask)

    @torch.no_grad()
    def caption(
        self,
        images: torch.Tensor,
        max_len: int = 8,
        attention: str = "soft",
        generator: torch.Generator | None = None,
    ) -> CaptionResult:
        """Write captions greedily (the most probable word at each step), one word per step.

        Args:
            images: (B, 1, S, S).
            max_len: the most words written (<eos> included).
            attention: "soft" (c_t = sum_i a_ti h_i, as trained), "hard" (c_t = h_i for one
                cell i sampled from a_t with ``generator``) or "argmax" (the most-weighted
                cell). Without attention only "soft" applies (there are no weights).
            generator: the random source of "hard".

        Returns:
            CaptionResult: ids (B, max_len), weights (B, max_len, N), cells (B, max_len).

        Lecture 09a; Xu et al. 2015 section 4.1 (hard) and 4.2 (soft).
        """
        c = self.config
        images = self._check_images(images)
        check_positive_int("max_len", max_len)
        check_choice("attention", attention, ATTENTION_MODES)
        if not c.attention and attention != "soft":
            raise ValueError(f"attention={attention!r} needs a captioner with attention "
                             "(config.attention=True); this one reads the mean-pooled "
                             "features only")  # fmt: skip
        if generator is not None:
            check_instance("generator", generator, torch.Generator)
        was_training = self.training
        self.eval()
        features = self.encode(images)  # (B, N, D)
        s = self.initial_state(features)  # (B, D)
        B, N, _ = features.shape
        token = torch.full((B, 1), c.bos_id, dtype=torch.long)
        done = torch.zeros(B, dtype=torch.bool)
        ids = torch.full((B, max_len), c.pad_id, dtype=torch.long)
        weights = torch.zeros(B, max_len, N) if c.attention else None
        cells = torch.full((B, max_len), -1, dtype=torch.long) if c.attention else None
        mask = torch.ones(B, N, dtype=torch.bool)
        for t in range(max_len):
            if not c.attention:
                logits, _, s = self.decoder.run(token, features, s, mask)  # (B, 1, V)
            else:
                logits, a, s, cell = self._step(token, features, s, attention, generator)
                weights[:, t] = a.masked_fill(done[:, None], 0.0)
                cells[:, t] = cell.masked_fill(done, -1)
            token = logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
            token[done] = c.pad_id
            ids[:, t] = token[:, 0]
            done |= token[:, 0] == c.eos_id
            if done.all():
                break
        self.train(was_training)
        return CaptionResult(ids, weights, cells)

    def _step(
        self,
        token: torch.Tensor,
        features: torch.Tensor,
        s: torch.Tensor,
        attention: str,
        generator: torch.Generator | None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """One decoder step (BahdanauDecoder.run's, with the context chosen by ``attention``):
        token (B, 1), features (B, N, D), s = s_{t-1} (B, D) -> logits (B, 1, V), a_t (B, N),
        s_t (B, D), the cell read (B,)."""
        dec = self.decoder
        scores = dec.score(s[:, None, :], features)[:, 0]  # s_{t-1} (B, 1, D) -> e_t (B, N)
        a = masked_softmax(scores, None)  # (B, N), sums to 1 over the cells
        if attention == "soft":
            context = (a[:, :, None] * features).sum(1)  # sum_i a_ti h_i: (B, N, D) -> (B, D)
            cell = a.argmax(-1)
        else:
            if attention == "hard":
                cell = torch.multinomial(a, 1, generator=generator)[:, 0]  # i ~ Cat(a_t): (B,)
            else:
                cell = a.argmax(-1)
            context = features[torch.arange(len(cell)), cell]  # h_i: (B, D)
        embedded = dec.embedding(token[:, 0])  # (B,) -> (B, E)
        s = dec.rnn(torch.cat([embedded, context], dim=-1), s)  # (B, E + D) -> s_t (B, D)
        h = torch.tanh(dec.combine(torch.cat([context, s], dim=-1)))  # (B, 2D) -> (B, D)
        return dec.out(h)[:, None], a, s, cell  # logits (B, 1, V)
