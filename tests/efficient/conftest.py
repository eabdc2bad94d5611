"""Lecture 11's tests run on small tensors: one torch thread is faster (and the machine shared)."""

import pytest


@pytest.fixture(autouse=True)
def _one_thread_for_every_test(one_thread):
    """The root conftest's ``one_thread``, for every test in this folder."""
