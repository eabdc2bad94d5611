"""Full models assembled from the building blocks: the RNN encoder-decoder (``seq2seq``), the
Transformer (``transformer``), BERT (``bert``), its left-to-right baseline (``causal_lm``) and
the Vision Transformer (``vit``); each with a frozen config whose defaults are the paper's model
and whose ``.tiny()`` is the lecture's."""
