"""Full models assembled from the building blocks, each with a frozen config whose defaults are
the paper's model and whose ``.tiny()`` is the lecture's:

- ``recurrent``: RNN, GRU and LSTM cells written out, and ELMo's bidirectional LM (lecture 00)
- ``word2vec``: skip-gram with negative sampling (lecture 00)
- ``seq2seq``: the RNN encoder-decoder, with and without attention (lectures 01, 02, 07)
- ``transformer``: the encoder-decoder Transformer (lecture 10)
- ``bert``: BERT's embeddings, encoder and pre-training heads (lecture 08)
- ``bert_tasks``: BERT with a classification, token or span head (lecture 13)
- ``causal_lm``: BERT's left-to-right baseline (lecture 08)
- ``gpt``: GPT-1, -2 and -3, decoder-only, with a KV cache (lecture 14)
- ``albert``, ``electra``: the objectives after BERT (lecture 15)
- ``vit``: the Vision Transformer and attention rollout (lecture 09)
- ``captioning``: show, attend and tell on toy scenes (lecture 09a)
- ``size``: parameter counts, by part
"""
