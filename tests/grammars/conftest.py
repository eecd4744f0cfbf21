"""Fixtures for the grammar tests: the real Qwen GGUF (for @pytest.mark.model tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # registry, corpus, strategies, llama_oracle


@pytest.fixture(scope="session")
def qwen_gguf() -> Path:
    path = Path(os.environ.get("EDGEVOX_TEST_QWEN", "/tmp/qwen.part"))
    if not path.is_file():
        pytest.skip(f"Qwen2.5-Coder-0.5B GGUF not found at {path} (set EDGEVOX_TEST_QWEN)")
    return path


@pytest.fixture(scope="session")
def llama_cpp_module():
    return pytest.importorskip("llama_cpp")
