"""Fixtures shared by the tests of lecture 14's experiments and shipped models: one torch
thread, the story corpus's WordPiece tokenizer and a tiny random GPT of its vocabulary; and the
one headless Chromium of the browser tests (``chromium``: playwright's sync API runs one
instance per process, so test_browser.py and test_site.py share it); and lecturekit's wheel
installed in a fresh venv (``wheel_venv``, shared by test_wheel.py and test_browser.py).

``gpt`` and ``tok`` are asked for by name (a test module's own fixture of that name wins),
``one_thread`` with ``pytestmark = pytest.mark.usefixtures("one_thread")``. The repository's
set-up for every run (offline guard, matplotlib) is the root conftest.py."""

import pytest
import torch

from lecturekit.datasets.stories import default_data
from lecturekit.models.gpt import GPT, GPTConfig


@pytest.fixture
def one_thread():
    """Tiny models run fastest (and steadiest beside other jobs) on one thread; restored after
    every test (``main()`` of the shipped module sets the thread count too)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tok():
    return default_data().tokenizer


@pytest.fixture(scope="module")
def gpt():
    torch.manual_seed(0)
    return GPT(GPTConfig.tiny()).eval()  # vocab 450: the WordPiece vocabulary's size


@pytest.fixture(scope="session")
def chromium():
    """Debian's headless Chromium, launched once per session (tests/support/chromium.py)."""
    from chromium import CHROMIUM, CHROMIUM_ARGS, require_chromium  # tests/support

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory, online_env):
    """lecturekit's wheel installed in a fresh venv as the Colab set-up cell installs it: built
    once per run by the first test that asks, in any pytest-xdist worker, and shared
    (tests/support/installed_wheel.py). Only for tests marked ``network`` (pip builds it)."""
    import installed_wheel  # tests/support

    folder = installed_wheel.run_folder(tmp_path_factory) / installed_wheel.FOLDER
    return installed_wheel.shared(folder, online_env)
