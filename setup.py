"""Which packages the wheel holds (the project's metadata is in pyproject.toml).

- Every package under lecturekit/ is found (``find_packages``: no hand-kept list that could miss
  a folder); binder/, notebooks/, tests/ and docs/ stay out, and so does tools/ (the website and
  slide builder, lecturekit_publish: its own distribution, tools/pyproject.toml).
- The repository's top-level data/ (the shipped checkpoints, their MANIFEST with sha256 lines,
  its README.md) is installed as the package ``lecturekit._data``: a wheel carries them as
  package data, and in an editable install (``pip install -e .``) ``lecturekit._data`` is data/
  itself, so retraining writes where the repository keeps them. lecturekit.shipped.store finds
  them with ``importlib.resources.files("lecturekit._data")``.

pyproject.toml alone cannot say the second (``[tool.setuptools.packages.find]`` finds packages
but cannot add one from another folder), hence this file. tests/test_wheel.py builds the wheel
and checks its contents.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
PACKAGES = find_packages(where=str(HERE), include=["lecturekit", "lecturekit.*"])

setup(
    packages=[*PACKAGES, "lecturekit._data"],
    package_dir={"lecturekit._data": "data"},
    package_data={
        "lecturekit._data": ["MANIFEST", "README.md", "*.safetensors"],
    },
)
