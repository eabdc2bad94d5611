"""Lecture 00b's exercises: what recurrence and self-attention cost, counted.

00b.1 what a bidirectional LSTM layer costs (hashed), 00b.2 path lengths (hashed), 00b.3
self-attention or a recurrent layer: which costs more (hashed).
"""

from __future__ import annotations

from lecturekit.exercises.core import Exercise, Expected, register, register_lecture

register_lecture("00b", "00b_recurrence_measured")

register(
    Exercise(
        "00b.1",
        "what a bidirectional LSTM layer costs",
        hints=(
            "One step of a gated cell multiplies x by W_ih (G·H × D) and h by W_hh (G·H × H), "
            "G = the number of gate matrices (1 for a vanilla RNN, 4 for an LSTM); count 2 "
            "FLOPs per multiply-add.",
            "A bidirectional layer runs two such recurrences (forward and backward), each over "
            "all n words. Answer two numbers for n = 10, D = 128, H = 256: the LSTM layer's "
            "FLOPs, then a vanilla bidirectional RNN's.",
        ),
        expected=Expected("floats", ("dd30dfe9d3689a5e2b89", "12bba24cfeda3585dcf7"), 0),
        correct="{answer}: four times the vanilla RNN (the slide says 3x: that is the GRU's "
        "count), and every one of the 2n steps waits for the previous one",
    )
)

register(
    Exercise(
        "00b.2",
        "path lengths",
        hints=(
            "Restricted attention with a window of w positions on each side moves information "
            "at most w positions per layer; a causal convolution with k taps dilated by k^l at "
            "layer l reaches k^L - 1 positions back after L layers.",
            "For n = 64: the first output is n - 1 = 63 positions from the last. Answer three "
            "numbers: the layers of restricted attention with w = 4, the layers of dilated "
            "convolution with k = 4, and the recurrent transitions between x_0 and y_63.",
        ),
        expected=Expected(
            "floats", ("3f31d00df3befd9d5fd5", "786e950ff681a9530e3c", "23f787ea76f4606d864c"), 0
        ),
        correct="{answer}: O(n/r), O(log_k n) and O(n) of Table 1, where full self-attention "
        "needs one layer",
    )
)


register(
    Exercise(
        "00b.3",
        "self-attention or a recurrent layer: which costs more",
        hints=(
            "Self-attention's two products, QKᵀ and AV, each multiply an (n, d) by a (d, n) or an "
            "(n, n) by an (n, d) matrix: n²d multiply-adds each. A vanilla RNN step multiplies x "
            "and h by two d × d matrices: 2d² multiply-adds, n times. Count 2 FLOPs per "
            "multiply-add.",
            "For n = 50 and d = 512: self-attention 4n²d, the recurrent layer 4nd². Answer "
            "[self-attention FLOPs, recurrent FLOPs].",
        ),
        expected=Expected("floats", ("75e3bfdbb271083bf359", "4ab4ddef5572f1927bfd"), 0),
        correct="{answer}: their ratio is n/d, so self-attention is the cheaper layer whenever a "
        "sentence has fewer positions than the model has dimensions (Vaswani et al., section 4), "
        "and it needs one sequential step where the RNN needs n",
    )
)
