"""Fixtures for the BFCL tests: the pinned wheel and the unpacked data cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edgevox.bfcl.data import (
    WHEEL_FILENAME,
    BfclDataError,
    data_is_ready,
    default_data_dir,
    fetch,
)
from edgevox.bfcl.data import _download_wheel as download_wheel

# Where a wheel may already sit on a build machine (set EDGEVOX_BFCL_WHEEL to override).
_KNOWN_WHEELS = (Path("/tmp/pk") / WHEEL_FILENAME,)


@pytest.fixture(scope="session")
def bfcl_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned bfcl-eval wheel: a local copy if there is one, else downloaded (no deps)."""
    env = os.environ.get("EDGEVOX_BFCL_WHEEL")
    for candidate in ([Path(env)] if env else []) + list(_KNOWN_WHEELS):
        if candidate.is_file():
            return candidate
    try:
        return download_wheel(tmp_path_factory.mktemp("bfcl-wheel"))
    except BfclDataError as exc:
        pytest.skip(f"BFCL wheel unavailable (no local copy, download failed): {exc}")


@pytest.fixture(scope="session")
def bfcl_data_dir(request: pytest.FixtureRequest) -> Path:
    """The cached BFCL data ($EDGEVOX_HOME/bfcl/<version>), fetched on first use."""
    if data_is_ready():
        return default_data_dir()
    wheel = request.getfixturevalue("bfcl_wheel")
    try:
        return fetch(wheel=wheel)
    except (BfclDataError, OSError) as exc:
        pytest.skip(f"BFCL data cannot be fetched into {default_data_dir()}: {exc}")
