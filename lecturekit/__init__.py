"""lecturekit: the small PyTorch package behind the attention / Transformer / BERT / ViT lectures.

Core: attention, masking, positional, transformer (+ transformer_decoder, encoder_decoder,
kv_cache). By lecture: seq2seq, decoding, nmt, training (01, 02, 07); examples (03); heads_demo,
measurements (04); tokenization, bert, pretraining, causal_lm (08); patches, vit, vit_digits (09);
transformer_nmt (10); efficient, efficient_lsh, efficient_xl, efficient_cost (11); bpe (12);
datasets (toy data, digits); checkpoints (data/, hash-checked); viz (style, plots, widgets);
figures (the slide figures and their CLI). The README has the full map.

Importing lecturekit makes Hugging Face libraries work offline (the notebooks load only what
ships in data/ or what they build themselves): HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE and
HF_DATASETS_OFFLINE default to 1 and HF_HUB_DISABLE_TELEMETRY to 1, unless already set (set
HF_HUB_OFFLINE=0 before importing to download models). Import lecturekit before transformers:
huggingface_hub reads these when it is first imported. tqdm and matplotlib make no network
requests, so they need no flag.
"""

import os as _os

for _flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE",
              "HF_HUB_DISABLE_TELEMETRY"):  # fmt: skip
    _os.environ.setdefault(_flag, "1")
del _flag

__version__ = "0.1.0"
