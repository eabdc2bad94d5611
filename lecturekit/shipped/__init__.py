"""The shipped models: the checkpoint store in data/ and one module per model family that trains
and saves it (``python -m lecturekit.shipped.X`` regenerates its checkpoints):

- ``store``: ``load_shipped(name)``, ``load_tokenizer``, ``shipped_info``, ``save_shipped``;
- ``cli``: the command line every training module shares;
- ``seq2seq``: the translation models of lectures 01, 02, 07;
- ``transformer``: lecture 10's Transformer translator;
- ``bert``: lecture 08's tiny BERT and left-to-right LM;
- ``vit``: lecture 09's ViTs;
- ``captioning``: lecture 09a's captioners;
- ``universal``: lecture 11b's Universal Transformers;
- ``finetuning``: lecture 13's fine-tuned BERTs and their learning curves;
- ``gpt``: lecture 14's story GPT and in-context-learning GPT;
- ``objectives``: lecture 15's ELECTRA, SOP BERT and ALBERT and their stored measurements.
"""

from lecturekit.shipped.store import (
    load_shipped,
    load_tokenizer,
    shipped_info,
    shipped_names,
)

__all__ = ["load_shipped", "load_tokenizer", "shipped_info", "shipped_names"]
