"""Efficient attention (lecture 11): local attention (``local``), LSH attention (``lsh``),
Transformer-XL's segment memory (``xl``), sparse toy data and what an approximation keeps
(``sparsity``), and the instruments that measure cost: FLOPs, exact memory, time (``cost``)."""
