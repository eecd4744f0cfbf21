"""Fixtures for the grammar tests: the real Qwen GGUF (for @pytest.mark.model tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # registry, corpus, strategies, llama_oracle


@pytest.fixture(scope="session")
def qwen_gguf(qwen_path) -> Path:
    """The registry's Qwen2.5-Coder-0.5B GGUF (pulled and sha-checked like a user's)."""
    return qwen_path


@pytest.fixture(scope="session")
def llama_cpp_module():
    import llama_cpp

    return llama_cpp
