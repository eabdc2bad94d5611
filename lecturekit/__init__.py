"""lecturekit: the small PyTorch package behind the attention / Transformer / BERT / ViT lectures.

The building blocks a lecture derives live at this level (``attention``, ``masking``,
``positional``, ``layers``, ``kv_cache``, ``patches``, ``decoding``, ``generation``,
``training``, ``tokenization``, ``bpe``, ``objectives``), with the toy data in ``datasets``; the
other roles have a subpackage each, and ``verify`` is the command that checks lecturekit against
torch and Hugging Face. Imports run one way, from a role to the roles listed before it:
``utils`` (helpers all share), the building blocks, ``models``, ``efficient``, ``experiments``,
``shipped``, ``viz`` and ``exercises``. The package map (docs/package.md) lists every module;
docs/design.md says how the code is written. The slide figures and the website and slide
builders are instructors' tools, outside the package (``tools/lecturekit_publish``).

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

# the one place the version is set: pyproject.toml reads it; CITATION.cff and CHANGELOG.md match
__version__ = "0.3.0"
