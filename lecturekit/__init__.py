"""lecturekit: the small PyTorch package behind the attention / Transformer / BERT / ViT lectures.

Modules: attention, masking, positional, transformer; examples (Thinking Machines, lecture 03),
heads_demo (heads that specialise, lecture 04); viz (style, plots, widgets).
"""

__version__ = "0.1.0"
