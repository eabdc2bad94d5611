"""Shared test set-up: a non-interactive matplotlib backend, and every figure closed after
each test (figures are made by plot functions under test)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
