"""Every exercise test starts and ends with no status and no revealed hint."""

import pytest

from lecturekit.exercises import core


@pytest.fixture(autouse=True)
def _fresh():
    core.reset()
    yield
    core.reset()
