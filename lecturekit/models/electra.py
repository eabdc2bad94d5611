"""ELECTRA: a small masked-LM generator proposes replacements, a discriminator of BERT's shape
classifies every token as original or replaced ("replaced-token detection", learning from all
tokens instead of the 15 % that are masked).

Both networks are built from lecturekit's BERT pieces (``BertEmbeddings``, the post-norm GELU
``EncoderLayer`` stack of ``bert_encoder``). As in Clark et al. 2020 (and their released code),
the generator is a narrower BERT that shares the discriminator's whole embedding module (token,
segment and position embeddings and their LayerNorm, width E = the discriminator's width D); a
``Linear(E, D_g)`` ("embeddings_project") takes them to the generator's width D_g, its MLM head
maps D_g -> E and its output layer is tied to the shared token embeddings. The weights are
interchangeable with Hugging Face's: ``ElectraDiscriminator.from_hf`` takes a
``transformers.ElectraForPreTraining``, ``ElectraGenerator.from_hf`` a
``transformers.ElectraForMaskedLM``, and the logits agree (tests/models/test_electra.py).

Public API::

    config = ElectraConfig.tiny()     # BERT tiny's discriminator + a 32-wide generator;
                                      # ElectraConfig() is ELECTRA-base (generator 256 wide)
    config.discriminator_config()     # the BertConfig of each network's encoder
    config.generator_config()
    model = Electra(config)           # .generator, .discriminator (embeddings shared)
    logits = model(input_ids, segment_ids=None, attention_mask=None)  # the discriminator's
    out = electra_loss(model, batch, generator=g, disc_weight=50.0)
    #   batch: input_ids (B, T) unmasked, chosen (B, T) bool (the positions the generator
    #   fills), optional segment_ids and attention_mask (B, T); out = ElectraLoss(total, mlm,
    #   disc, disc_accuracy), total = mlm + disc_weight * disc
    bert = model.discriminator_as_bert(seed=0)   # a BertForPreTraining whose .bert is a copy of
                                                 # the discriminator's encoder (lecture 13's
                                                 # fine-tuning code takes it), new heads
    disc = ElectraDiscriminator(bert_config)     # .bert: BertModel, .head_dense, .head_out
    disc(input_ids, segment_ids=None, attention_mask=None)   # (B, T) logits, > 0 = replaced
    disc = ElectraDiscriminator.from_hf(hf)      # any transformers.ElectraForPreTraining with
                                                 # embedding_size = hidden_size
    gen = ElectraGenerator(bert_config, embedding_size=None, shared_embeddings=None)
    gen(input_ids, segment_ids=None, attention_mask=None)    # (B, T, V) MLM logits
    gen = ElectraGenerator.from_hf(hf)           # any transformers.ElectraForMaskedLM

Lecture 15; Clark et al. 2020 (ELECTRA) sections 2 and 3.2 (weight sharing, smaller generators).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from lecturekit.layers import EncoderLayer
from lecturekit.masking import key_padding_mask
from lecturekit.models.bert import (
    BertConfig,
    BertEmbeddings,
    BertForPreTraining,
    BertModel,
    bert_config_from_hf,
    bert_encoder,
    check_hf_layer_norms,
    init_bert_weights,
)
from lecturekit.objectives import IGNORE, corrupt_chosen, electra_example
from lecturekit.utils.checks import (
    check_index,
    check_instance,
    check_padding_mask,
    check_range,
    check_seed,
    check_tensor,
)
from lecturekit.utils.config import ModelConfig
from lecturekit.utils.weights import HF_MAPS, load_mapped

__all__ = [
    "ElectraConfig",
    "ElectraDiscriminator",
    "ElectraGenerator",
    "Electra",
    "ElectraLoss",
    "electra_loss",
]


@dataclass(frozen=True)
class ElectraConfig(ModelConfig):
    """Sizes of an ELECTRA model: the discriminator's (BERT's fields) and the generator's.

    The defaults are ELECTRA-base (Clark et al. 2020 table 6): a BERT-base discriminator (a
    30,522-entry vocabulary, 768 wide, 12 layers of 12 heads, feed-forward 3072, 512
    positions) and a generator one third as wide (256, 4 heads of 64, feed-forward 1024,
    12 layers). ``tiny()`` is lecture 15's: BERT tiny's discriminator (vocabulary 450, 64
    wide, 2 layers of 4 heads, feed-forward 256, 64 positions) and a generator half as wide
    (32, 2 heads of 16, feed-forward 128, 2 layers); Clark et al. find generators 1/4 to 1/2
    of the discriminator's size work best. The embeddings (width E = ``hidden_size``) are
    shared; the generator projects them to its width.

    Lecture 15; Clark et al. 2020 section 3.2 and table 6.
    """

    TINY: ClassVar[dict[str, object]] = {**BertConfig.TINY, "generator_hidden_size": 32,
                                         "generator_num_heads": 2,
                                         "generator_intermediate_size": 128,
                                         "generator_num_layers": 2}  # fmt: skip

    vocab_size: int = 30522
    hidden_size: int = 768  # the discriminator's width = the shared embeddings' width E
    num_layers: int = 12
    num_heads: int = 12
    intermediate_size: int = 3072
    max_position: int = 512
    type_vocab_size: int = 2
    dropout: float = 0.1
    layer_norm_eps: float = 1e-12
    pad_id: int = 0
    generator_hidden_size: int = 256
    generator_num_heads: int = 4
    generator_intermediate_size: int = 1024
    generator_num_layers: int = 12

    def __post_init__(self) -> None:
        self.check_positive("vocab_size", "hidden_size", "num_layers", "num_heads",
                            "intermediate_size", "max_position", "type_vocab_size",
                            "generator_hidden_size", "generator_num_heads",
                            "generator_intermediate_size", "generator_num_layers")  # fmt: skip
        self.check_attention("hidden_size")
        if self.generator_hidden_size % self.generator_num_heads:
            raise ValueError(
                f"generator_hidden_size={self.generator_hidden_size} is not divisible by "
                f"generator_num_heads={self.generator_num_heads}"
            )
        check_index("pad_id", self.pad_id, self.vocab_size)

    def _bert(self, **sizes: int) -> BertConfig:
        shared = ("vocab_size", "max_position", "type_vocab_size", "dropout", "layer_norm_eps",
                  "pad_id")  # fmt: skip
        return BertConfig(**{name: getattr(self, name) for name in shared}, **sizes)

    def discriminator_config(self) -> BertConfig:
        """The BertConfig of the discriminator's encoder (and of the shared embeddings).

        Lecture 15; Clark et al. 2020 section 2.
        """
        return self._bert(hidden_size=self.hidden_size, num_layers=self.num_layers,
                          num_heads=self.num_heads,
                          intermediate_size=self.intermediate_size)  # fmt: skip

    def generator_config(self) -> BertConfig:
        """The BertConfig of the generator's encoder (its width, heads, layers).

        Lecture 15; Clark et al. 2020 section 3.2.
        """
        return self._bert(hidden_size=self.generator_hidden_size,
                          num_layers=self.generator_num_layers,
                          num_heads=self.generator_num_heads,
                          intermediate_size=self.generator_intermediate_size)  # fmt: skip


def _run_layers(
    layers: Sequence[EncoderLayer], x: torch.Tensor, attention_mask: object, shape: torch.Size
) -> torch.Tensor:
    """x (B, T, D) through the encoder layers, padding keys masked; -> (B, T, D)."""
    mask = None
    if attention_mask is not None:
        attention_mask = check_padding_mask("attention_mask", attention_mask, shape)
        mask = key_padding_mask(attention_mask)  # (B, T) -> (B, 1, 1, T)
    for layer in layers:
        x, _ = layer(x, mask)
    return x


def _check_hf(hf_model: object, name: str) -> None:
    if type(hf_model).__name__ != name:
        raise ValueError(f"hf_model must be a transformers.{name}, got {type(hf_model).__name__}")


class ElectraDiscriminator(nn.Module):
    """BERT's encoder with a per-token "replaced?" head: logit = w . gelu(W h_t + b) + c.

    Equal to ``transformers.ElectraForPreTraining`` (with embedding_size = hidden_size). Its
    ``bert.pooler`` is not used (Hugging Face's discriminator has none): it stays as initialised
    and only matters if the encoder is fine-tuned through ``as_bert``.

    Lecture 15; Clark et al. 2020 section 2 (the discriminator D).
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        check_instance("config", config, BertConfig)
        self.config = config
        self.bert = BertModel(config)
        D = config.hidden_size
        self.head_dense = nn.Linear(D, D)
        self.head_out = nn.Linear(D, 1)
        self.apply(init_bert_weights)

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """input_ids (B, T), segment_ids (B, T), attention_mask (B, T) True (or 1) at real
        tokens -> (B, T) logits of "replaced" (sigmoid > 0.5, i.e. logit > 0: replaced).

        Lecture 15; Clark et al. 2020 section 2.
        """
        hidden = self.bert(input_ids, segment_ids, attention_mask).hidden  # (B, T, D)
        return self.head_out(F.gelu(self.head_dense(hidden))).squeeze(-1)  # (B, T, 1) -> (B, T)

    def as_bert(self, seed: int = 0) -> BertForPreTraining:
        """A ``BertForPreTraining`` whose ``.bert`` is a copy of this encoder (embeddings,
        layers and the unused pooler); its MLM and NSP heads are new, drawn from ``seed``
        (torch's global random state is left alone). Lecture 13's fine-tuning code takes it.

        Lecture 15; Clark et al. 2020 section 3.1 (the discriminator is what is fine-tuned).
        """
        check_seed(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = BertForPreTraining(self.config)
        model.bert.load_state_dict(self.bert.state_dict())  # copies every tensor
        device = next(self.parameters()).device
        return model.to(device).train(self.training)

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> ElectraDiscriminator:
        """Build the same model from a ``transformers.ElectraForPreTraining`` and copy its
        weights (refused: embedding_size != hidden_size, an activation other than GELU).

        Lecture 15; Clark et al. 2020 section 2.
        """
        _check_hf(hf_model, "ElectraForPreTraining")
        c = hf_model.config
        if c.embedding_size != c.hidden_size:
            raise ValueError(
                f"hf_model.config.embedding_size={c.embedding_size} differs from hidden_size="
                f"{c.hidden_size}: lecturekit's discriminator has embeddings of its own width "
                "(no embeddings_project); nothing was copied"
            )
        config = bert_config_from_hf(c, BertConfig)
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        model = load_mapped(cls(config), hf_model, HF_MAPS["ElectraForPreTraining"])
        return model.train(hf_model.training)


class ElectraGenerator(nn.Module):
    """A (narrow) BERT masked-LM: embeddings of width E, a ``Linear(E, D_g)`` when E != D_g,
    the D_g-wide encoder, the head gelu(W h + b) of width E with its LayerNorm, and the output
    layer tied to the token embeddings (+ a bias).

    ``config``: the encoder's sizes (``ElectraConfig.generator_config()``). The embeddings are
    this module's own, ``embedding_size`` wide (default: ``config.hidden_size``), or
    ``shared_embeddings``: a ``BertEmbeddings`` owned by another module (the discriminator's,
    in ``Electra``); they are then not registered here, so a checkpoint holds them once.
    Equal to ``transformers.ElectraForMaskedLM``.

    Lecture 15; Clark et al. 2020 section 2 (the generator G) and 3.2 (weight sharing).
    """

    def __init__(
        self,
        config: BertConfig,
        embedding_size: int | None = None,
        *,
        shared_embeddings: BertEmbeddings | None = None,
    ):
        super().__init__()
        check_instance("config", config, BertConfig)
        self.config = config
        self._shared: tuple[BertEmbeddings, ...] = ()
        if shared_embeddings is not None:
            check_instance("shared_embeddings", shared_embeddings, BertEmbeddings)
            E = shared_embeddings.config.hidden_size
            if embedding_size is not None and embedding_size != E:
                raise ValueError(
                    f"embedding_size={embedding_size} differs from the shared embeddings' "
                    f"width {E}; leave it None"
                )
            ours, theirs = config, shared_embeddings.config
            for name in ("vocab_size", "max_position", "type_vocab_size", "pad_id"):
                if getattr(ours, name) != getattr(theirs, name):
                    raise ValueError(
                        f"config.{name}={getattr(ours, name)} differs from the shared "
                        f"embeddings' {name}={getattr(theirs, name)}"
                    )
            self._shared = (shared_embeddings,)  # a tuple: not registered, not in state_dict
        else:
            E = config.hidden_size if embedding_size is None else embedding_size
            # BertEmbeddings reads vocab, positions, types, eps, dropout and its width only
            self.embeddings = BertEmbeddings(config.replace(hidden_size=E, num_heads=1))
        D = config.hidden_size
        self.embedding_size = E
        self.embeddings_project = nn.Linear(E, D) if E != D else None
        self.encoder = bert_encoder(config)
        self.head_dense = nn.Linear(D, E)
        self.head_norm = nn.LayerNorm(E, eps=config.layer_norm_eps)
        self.head_bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.apply(init_bert_weights)

    def input_embeddings(self) -> BertEmbeddings:
        """The embedding module this generator reads (its own, or the shared one)."""
        return self._shared[0] if self._shared else self.embeddings

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """input_ids (B, T), segment_ids (B, T), attention_mask (B, T) True (or 1) at real
        tokens -> (B, T, V) masked-LM logits.

        Lecture 15; Clark et al. 2020 section 2.
        """
        embeddings = self.input_embeddings()
        x = embeddings(input_ids, segment_ids)  # (B, T) -> (B, T, E)
        if self.embeddings_project is not None:
            x = self.embeddings_project(x)  # (B, T, E) -> (B, T, D_g)
        x = _run_layers(self.encoder.layers, x, attention_mask, input_ids.shape)
        h = self.head_norm(F.gelu(self.head_dense(x)))  # (B, T, D_g) -> (B, T, E)
        return h @ embeddings.token.weight.T + self.head_bias  # (B, T, E) -> (B, T, V)

    @classmethod
    @torch.no_grad()
    def from_hf(cls, hf_model: nn.Module) -> ElectraGenerator:
        """Build the same model from a ``transformers.ElectraForMaskedLM`` (its own embeddings,
        of any embedding_size) and copy its weights.

        Lecture 15; Clark et al. 2020 section 2.
        """
        _check_hf(hf_model, "ElectraForMaskedLM")
        c = hf_model.config
        config = bert_config_from_hf(c, BertConfig, tied_decoder=True)
        check_hf_layer_norms(hf_model, config.layer_norm_eps)
        model = cls(config, embedding_size=c.embedding_size)
        load_mapped(model, hf_model, HF_MAPS["ElectraForMaskedLM"])
        return model.train(hf_model.training)


class Electra(nn.Module):
    """ELECTRA's two networks: ``generator`` (a narrow MLM) and ``discriminator``, sharing the
    discriminator's embedding module (token, segment, position embeddings, LayerNorm; Clark et
    al. share the token and position embeddings "when the generator is smaller"). The
    embeddings are registered once, under ``discriminator.bert.embeddings``.

    ``forward`` is the discriminator's (what is kept after pre-training); ``electra_loss``
    trains both.

    Lecture 15; Clark et al. 2020 sections 2 and 3.2.
    """

    def __init__(self, config: ElectraConfig):
        super().__init__()
        check_instance("config", config, ElectraConfig)
        self.config = config
        self.discriminator = ElectraDiscriminator(config.discriminator_config())
        self.generator = ElectraGenerator(
            config.generator_config(), shared_embeddings=self.discriminator.bert.embeddings
        )

    def forward(
        self,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The discriminator's (B, T) "replaced" logits of input_ids (B, T).

        Lecture 15; Clark et al. 2020 section 2.
        """
        return self.discriminator(input_ids, segment_ids, attention_mask)

    def discriminator_as_bert(self, seed: int = 0) -> BertForPreTraining:
        """``discriminator.as_bert(seed)``: a BertForPreTraining with a copy of the
        discriminator's encoder, for lecture 13's fine-tuning code.

        Lecture 15; Clark et al. 2020 section 3.1.
        """
        return self.discriminator.as_bert(seed)


class ElectraLoss(NamedTuple):
    total: torch.Tensor  # () mlm + disc_weight * disc
    mlm: torch.Tensor  # () the generator's cross-entropy at the chosen positions
    disc: torch.Tensor  # () the discriminator's binary cross-entropy over every real token
    disc_accuracy: float  # the discriminator's accuracy over every real token
    disc_logits: torch.Tensor | None = None  # (N_real,) its logits at the real tokens
    replaced: torch.Tensor | None = None  # (N_real,) bool: the labels (True = replaced)


def electra_loss(
    model: Electra,
    batch: Mapping[str, torch.Tensor],
    generator: torch.Generator | None = None,
    disc_weight: float = 50.0,
) -> ElectraLoss:
    """ELECTRA's pre-training loss on one batch.

    The generator reads ``corrupt_chosen(input_ids, chosen)`` (BERT's 80/10/10 at the chosen
    positions) and is trained by cross-entropy there; at each chosen position a token is
    sampled from its softmax (temperature 1, no gradient flows through the sample); the
    discriminator reads ``electra_example(input_ids, chosen, sampled).inputs`` and is trained
    to tell, at every real (non-padding) token, whether it was replaced (a sample equal to the
    original counts as original). If ``chosen`` selects nothing, mlm is 0 and nothing is
    replaced.

    Args:
        model: an ``Electra``.
        batch: a dict of (B, T) tensors: ``input_ids`` (integer, unmasked), ``chosen`` (bool,
            the positions to corrupt; never padding), and optionally ``segment_ids`` and
            ``attention_mask`` (True or 1 at real tokens; default: all real).
        generator: a ``torch.Generator`` for the corruption and the samples, or None.
        disc_weight: lambda >= 0 of total = mlm + lambda * disc (Clark et al.: 50).

    Returns:
        ElectraLoss(total, mlm, disc, disc_accuracy).

    Lecture 15; Clark et al. 2020 section 2, eq. (the combined loss L_MLM + lambda L_Disc).
    """
    check_instance("model", model, Electra)
    if not isinstance(batch, Mapping) or any(k not in batch for k in ("input_ids", "chosen")):
        got = sorted(batch) if isinstance(batch, Mapping) else type(batch).__name__
        raise ValueError(
            "batch must be a dict with keys ['input_ids', 'chosen'] (and optionally "
            f"'segment_ids', 'attention_mask'), got {got}"
        )
    if generator is not None:
        check_instance("generator", generator, torch.Generator)
    check_range("disc_weight", disc_weight, 0)
    ids = check_tensor("batch['input_ids']", batch["input_ids"], 2, wanted="(B, T)", integer=True)
    chosen = check_tensor("batch['chosen']", batch["chosen"], 2, wanted=str(tuple(ids.shape)),
                          dtype=torch.bool)  # fmt: skip
    if chosen.shape != ids.shape:
        raise ValueError(f"batch['chosen'] must have the shape of input_ids {tuple(ids.shape)}, "
                         f"got {tuple(chosen.shape)}")  # fmt: skip
    segments, real = batch.get("segment_ids"), batch.get("attention_mask")
    if real is None:
        real = torch.ones_like(chosen)
    else:
        real = check_padding_mask("batch['attention_mask']", real, ids.shape)
    if ids.numel() == 0 or not real.any():
        raise ValueError(f"batch['attention_mask'] must mark at least one real token, got "
                         f"none in input_ids of shape {tuple(ids.shape)}: the losses would be "
                         "0/0")  # fmt: skip
    if (chosen & ~real).any():
        raise ValueError("batch['chosen'] marks padding positions (attention_mask False): "
                         "choose real tokens only")  # fmt: skip
    config = model.config
    masked, labels = corrupt_chosen(ids, chosen, vocab_size=config.vocab_size,
                                    generator=generator)  # fmt: skip
    gen_logits = model.generator(masked, segments, real)  # (B, T, V)
    sampled = ids.long().clone()
    if chosen.any():
        mlm = F.cross_entropy(gen_logits.flatten(0, 1), labels.flatten(), ignore_index=IGNORE)
        with torch.no_grad():  # the sample is discrete: no gradient reaches the generator
            probs = gen_logits.detach()[chosen].float().softmax(-1)  # (N, V), N chosen
            sampled[chosen] = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
    else:
        mlm = gen_logits.sum() * 0.0
    example = electra_example(ids, chosen, sampled)
    disc_logits = model.discriminator(example.inputs, segments, real)  # (B, T)
    logits, targets = disc_logits[real], example.labels[real].to(disc_logits.dtype)  # (N_real,)
    disc = F.binary_cross_entropy_with_logits(logits, targets)
    accuracy = float(((logits > 0) == (targets > 0.5)).float().mean())
    return ElectraLoss(mlm + disc_weight * disc, mlm, disc, accuracy, logits.detach(),
                       targets > 0.5)  # fmt: skip
