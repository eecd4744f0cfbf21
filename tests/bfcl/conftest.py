"""Fixtures for the BFCL tests: the pinned wheel and the unpacked data, got as a user gets them.

`scripts/setup.sh` runs `edgevox bfcl fetch`, which pip-downloads the pinned bfcl-eval
wheel (no deps) and unpacks its data into $EDGEVOX_HOME/bfcl/<version>; the fixtures use
that cache, or fetch the same way when it is missing. EDGEVOX_BFCL_WHEEL (a wheel or a
data directory) is the offline path, as for setup. Nothing here skips: a fetch that fails
is an error, so the regression gate cannot silently disappear.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edgevox.bfcl.data import _download_wheel as download_wheel
from edgevox.bfcl.data import fetch


@pytest.fixture(scope="session")
def bfcl_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned bfcl-eval wheel: EDGEVOX_BFCL_WHEEL if set, else downloaded with pip."""
    env = os.environ.get("EDGEVOX_BFCL_WHEEL")
    if env and Path(env).is_file():
        return Path(env)
    return download_wheel(tmp_path_factory.mktemp("bfcl-wheel"))


@pytest.fixture(scope="session")
def bfcl_data_dir() -> Path:
    """The cached BFCL data ($EDGEVOX_HOME/bfcl/<version>), fetched like setup does if missing."""
    env = os.environ.get("EDGEVOX_BFCL_WHEEL")
    return fetch(wheel=env) if env else fetch()
