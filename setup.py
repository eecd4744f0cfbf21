"""Package layout that pyproject.toml cannot express on its own.

The top-level `presets/`, `grammars/` and `evals/` folders are data that a checkout edits
in place; in the wheel they become `edgevox/_data/presets`, `edgevox/_data/grammars` and
`edgevox/_data/evals`.
"""

from setuptools import find_packages, setup

DATA = {"edgevox._data.presets": "presets", "edgevox._data.grammars": "grammars", "edgevox._data.evals": "evals"}

setup(
    packages=find_packages(include=["edgevox", "edgevox.*"]) + list(DATA),
    package_dir=DATA,
    package_data={"edgevox._data.presets": ["*.toml"], "edgevox._data.grammars": ["*.gbnf"],
                  "edgevox._data.evals": ["home/*.jsonl"]},
)
