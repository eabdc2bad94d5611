"""A hand-written next-token table where greedy search fails and beam search (k = 2) wins: the
step function tests/test_decoding.py and tests/viz/test_trees.py search (put on sys.path by the
root conftest.py)."""

import torch

BOS, EOS, A, B, C = range(5)


VOCAB = ["<s>", "</s>", "a", "b", "c"]


TABLE = {
    (): [0.02, 0.03, 0.50, 0.40, 0.05],
    (A,): [0.02, 0.08, 0.35, 0.30, 0.25],
    (B,): [0.02, 0.04, 0.02, 0.02, 0.90],
    (B, C): [0.02, 0.90, 0.04, 0.02, 0.02],
}


DEFAULT = [0.05, 0.60, 0.15, 0.10, 0.10]  # every other prefix


def make_table_step(table, default):
    def step(prefix_ids):
        rows = [table.get(tuple(p[1:]), default) for p in prefix_ids.tolist()]
        return torch.tensor(rows, dtype=torch.float64).log()  # (N, V)

    return step


table_step = make_table_step(TABLE, DEFAULT)
