"""Lecture 08a's pictures: BERT's input as the sum of three embeddings, and the encoder with its
two pre-training heads (masked LM and next-sentence prediction).

Public API::

    bert_input_diagram() -> Diagram         # token + segment + position for "[CLS] my dog ..."
    pretraining_heads_diagram() -> Diagram  # encoder -> MLM head at [MASK], NSP head at [CLS]
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["bert_input_diagram", "pretraining_heads_diagram"]

_PAIR = ("[CLS]", "my", "dog", "is", "cute", "[SEP]", "he", "likes", "play", "##ing", "[SEP]")


def bert_input_diagram() -> Diagram:
    """BERT's input for the sentence pair "[CLS] my dog is cute [SEP] he likes play ##ing
    [SEP]": each position's vector is the sum of a token embedding, a segment embedding (E_A for
    the first sentence and its [SEP], E_B for the second) and a learned position embedding
    (E_0 ... E_10); LayerNorm follows, then the encoder. Lecture 08a.
    """
    n, x0, dx = len(_PAIR), 150, 68
    d = Diagram(
        x0 + n * dx,
        330,
        alt=(
            "BERT's input for the pair [CLS] my dog is cute [SEP] he likes play ##ing [SEP]. "
            "Under each of the 11 tokens three learned vectors are stacked: its token embedding "
            "(E_[CLS], E_my, E_dog and so on), a segment embedding, E_A for the first six "
            "positions and E_B for the last five, and a position embedding, E_0 to E_10. The "
            "three are added position by position; LayerNorm of the sum is what the encoder "
            "reads."
        ),
    )
    rows = (("input", 30), ("token", 90), ("segment", 150), ("position", 210))
    for label, y in rows:
        d.text(
            12, y + 5, label, size=13, anchor="start", kind=None if label == "input" else "weight"
        )
    for label, y in ((rows[2][1] - 30, "+"), (rows[3][1] - 30, "+")):
        d.text(95, label + 5, y, size=16, kind="weight")
    for i, tok in enumerate(_PAIR):
        x = x0 + i * dx
        seg = "A" if i <= 5 else "B"
        d.box(f"t{i}", x, 30, tok, kind="input", w=dx - 6, size=12)
        d.box(
            f"e{i}",
            x,
            90,
            f"E_{tok}" if len(tok) < 6 else "E_" + tok.strip("[]"),
            kind="weight",
            w=dx - 6,
            size=11,
        )
        d.box(
            f"s{i}",
            x,
            150,
            f"E_{seg}",
            kind="accent" if seg == "B" else "weight",
            w=dx - 6,
            size=12,
        )
        d.box(f"p{i}", x, 210, f"E_{i}", kind="weight", w=dx - 6, size=12)
        d.arrow(f"t{i}", f"e{i}")
    d.group(x0 - dx / 2, 62, n * dx, 170, "")
    d.box(
        "sum",
        x0 + (n - 1) * dx / 2,
        290,
        "sum of the three, then LayerNorm: one vector per position, into the encoder",
        kind="op",
        size=13,
    )
    d.arrow((x0 + (n - 1) * dx / 2, 232), "sum")
    return d


def pretraining_heads_diagram() -> Diagram:
    """BERT in pre-training: the embeddings and the encoder (self-attention with no causal mask)
    turn the masked pair into one vector per position; the MLM head scores the whole vocabulary
    at each chosen position through the tied token embeddings, and the NSP head classifies the
    [CLS] vector as IsNext or NotNext. The loss is the sum of the two cross-entropies.
    Lecture 08a.
    """
    toks = ("[CLS]", "my", "dog", "[MASK]", "cute", "[SEP]", "he", "likes", "[SEP]")
    x0, dx = 110, 78
    d = Diagram(
        x0 + len(toks) * dx + 10,
        420,
        alt=(
            "BERT in pre-training. The masked pair [CLS] my dog [MASK] cute [SEP] he likes [SEP] "
            "goes through the embeddings and then the encoder, N layers of self-attention in "
            "which every token sees every token, giving one vector h per position. Two heads "
            "read them: the masked-LM head at the [MASK] position (dense, GELU, LayerNorm, then "
            "a product with the token-embedding matrix, tied, giving a probability for each of "
            "the 450 tokens; the answer is is), and the next-sentence head at [CLS] (pooler "
            "with tanh, then a 2-way classifier, IsNext or NotNext). The loss adds their two "
            "cross-entropies."
        ),
    )
    for i, tok in enumerate(toks):
        x = x0 + i * dx
        d.box(
            f"t{i}", x, 390, tok, kind="accent" if tok == "[MASK]" else "input", w=dx - 8, size=12
        )
        d.box(f"h{i}", x, 215, f"h_{i}", kind="op", w=dx - 20, size=12)
    mid = x0 + (len(toks) - 1) * dx / 2
    d.box(
        "emb",
        mid,
        335,
        "embeddings: token + segment + position",
        kind="weight",
        w=len(toks) * dx - 10,
    )
    d.box(
        "enc",
        mid,
        275,
        "encoder: N layers, every token attends to every token (no causal mask)",
        kind="op",
        w=len(toks) * dx - 10,
    )
    d.arrow((mid, 373), "emb")
    d.arrow("emb", "enc")
    for i in range(len(toks)):
        d.arrow((x0 + i * dx, 258), f"h{i}")
    d.box("nsp", x0 + 40, 130, "pooler (tanh)\n2-way classifier", kind="weight", w=160)
    d.box("nspout", x0 + 40, 40, "IsNext / NotNext", kind="output", w=160)
    d.arrow("h0", "nsp")
    d.arrow("nsp", "nspout")
    xm = x0 + 3 * dx + 60
    d.box(
        "mlm", xm, 130, "dense, GELU, LayerNorm\nx token embeddingsᵀ (tied)", kind="weight", w=230
    )
    d.box("mlmout", xm, 40, "P(each of 450 tokens): is", kind="output", w=230)
    d.arrow("h3", "mlm")
    d.arrow("mlm", "mlmout")
    d.text(x0 + 7 * dx, 100, "loss = cross-entropy", size=13, kind="accent")
    d.text(x0 + 7 * dx, 118, "(MLM, chosen positions)", size=12)
    d.text(x0 + 7 * dx, 136, "+ cross-entropy (NSP)", size=13, kind="accent")
    return d
