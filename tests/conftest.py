"""Shared fixtures: real models, loaded once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def qwen_path() -> Path:
    """The real Qwen2.5-Coder-0.5B GGUF (pulled and sha-verified by the registry)."""
    from edgevox.models import ensure_model

    return ensure_model("qwen2.5-coder-0.5b")


@pytest.fixture(scope="session")
def gemma_path() -> Path:
    """The real Gemma 3 270M base GGUF."""
    from edgevox.models import ensure_model

    return ensure_model("gemma-3-270m")


@pytest.fixture(scope="session")
def qwen_backend(qwen_path):
    """One loaded Qwen2.5-Coder-0.5B shared by every test (the backend is thread-safe)."""
    from edgevox.llm import load_model

    backend = load_model(str(qwen_path), preset="qwen25", n_ctx=4096)
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def gemma_backend(gemma_path):
    from edgevox.llm import load_model

    backend = load_model(str(gemma_path), preset="gemma3", n_ctx=2048)
    yield backend
    backend.close()


@pytest.fixture()
def edgevox_home(tmp_path, monkeypatch) -> Path:
    """An empty model cache for tests that must not touch the real one."""
    monkeypatch.setenv("EDGEVOX_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before any llama_cpp import
