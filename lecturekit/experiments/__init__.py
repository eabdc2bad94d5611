"""Worked examples, measurements and lecture runs that notebooks, slide figures and the shipped
models' command lines share (nothing here loads a checkpoint: the caller passes the models in):

- ``examples``: the slides' worked examples with their exact numbers (lectures 03, 07);
- ``heads_demo``: the toy task and tiny model whose heads specialise (lecture 04);
- ``measurements``: Var(q·k), softmax saturation, FLOPs of attention vs recurrence (03, 04);
- ``recurrence``: gradients over distance, path lengths, Vaswani's table 1 (lecture 00);
- ``word_vectors``: skip-gram and biLM vectors, neighbours, senses (lecture 00);
- ``translation``: translating, exact match, search vs model errors, paired comparisons (01-10b);
- ``captioning``: captions, their scores, where attention looks (lecture 09a);
- ``variants``: the shape forecaster of lecture 11b;
- ``bert``: lecture 08's held-out MLM / NSP accuracy and the right-context blanks;
- ``metrics``: the benchmarks' scores (accuracy, SQuAD EM / F1, CoNLL entity F1; lecture 13);
- ``finetuning``: lecture 13's fine-tuning regimes, runs and learning curves;
- ``generation``: lecture 14's story format, sampling tables, KV-cache timing, ICL accuracy;
- ``objectives``: lecture 15's measurements (masking rate, ELECTRA vs MLM, NSP vs SOP, sharing).
"""
