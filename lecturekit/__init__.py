"""lecturekit: the small PyTorch package behind the attention / Transformer / BERT / ViT lectures.

Modules: attention, masking, positional, transformer, examples; viz (plots, widgets, style).
"""

__version__ = "0.1.0"
