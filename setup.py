"""Package layout that pyproject.toml cannot express on its own.

The top-level `presets/` and `grammars/` folders are data that a checkout edits in
place; in the wheel they become `edgevox/_data/presets` and `edgevox/_data/grammars`.
"""

from setuptools import find_packages, setup

DATA = {"edgevox._data.presets": "presets", "edgevox._data.grammars": "grammars"}

setup(
    packages=find_packages(include=["edgevox", "edgevox.*"]) + list(DATA),
    package_dir=DATA,
    package_data={"edgevox._data.presets": ["*.toml"], "edgevox._data.grammars": ["*.gbnf"]},
)
