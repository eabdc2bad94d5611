"""Seeded random tensors several test files use (on sys.path through the root conftest.py)."""

import torch


def random_qkv(*batch, T=12, d=8, dv=5, seed=0):
    """Queries, keys (..., T, d) and values (..., T, dv), N(0, 1), from one seeded generator."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*batch, T, d, generator=g), torch.randn(*batch, T, d, generator=g),
            torch.randn(*batch, T, dv, generator=g))  # fmt: skip
