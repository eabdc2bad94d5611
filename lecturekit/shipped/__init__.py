"""The shipped models: the checkpoint store in data/ (``store``: ``load_shipped(name)``), and one
module per model family that trains, saves and evaluates it (``python -m lecturekit.shipped.X``).
"""

from lecturekit.shipped.store import (
    load_shipped,
    load_tokenizer,
    shipped_info,
    shipped_names,
)

__all__ = ["load_shipped", "load_tokenizer", "shipped_info", "shipped_names"]
