"""Efficient attention (lecture 11): local attention (``local``), LSH attention (``lsh``),
Transformer-XL's segment memory (``xl``), sparse toy data and what an approximation keeps
(``sparsity``), and the instruments that measure cost: FLOPs, exact memory, time (``cost``).
Lecture 11b's Transformer variants: LogSparse attention (``logsparse``), memory-compressed and
convolutional self-attention (``conv_attention``), the Universal Transformer with ACT
(``universal``)."""
