"""Model registry and pulls: verified, atomic, clear when offline."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edgevox.models import MODELS, ModelPullError, UnknownModel, get_spec, model_path, pull
from edgevox.models import registry as reg


def test_registry_entries_are_complete():
    assert "qwen2.5-coder-0.5b" in MODELS
    for spec in MODELS.values():
        assert spec.kind in {"gguf", "whisper", "piper", "embedding"}
        assert spec.files and spec.source.startswith(("pypi:", "hf:"))
        if spec.kind == "gguf":
            assert spec.preset, spec.name
        for f in spec.files:
            if f.parts:  # offline models are fully pinned
                assert f.size and f.sha256 and len(f.sha256) == 64


def test_unknown_model_lists_known():
    with pytest.raises(UnknownModel) as err:
        get_spec("gpt-17")
    assert "known models:" in str(err.value) and "qwen2.5-coder-0.5b" in str(err.value)


def _fake_spec(monkeypatch, sha: str, size: int) -> str:
    """A one-file model built from the real piper voice wheel's config member."""
    real = get_spec("piper-joe-medium").files[1]
    bad = dataclasses.replace(real, sha256=sha, size=size)
    spec = dataclasses.replace(get_spec("piper-joe-medium"), name="fake-voice", files=(bad,))
    monkeypatch.setitem(reg.MODELS, "fake-voice", spec)
    return "fake-voice"


def test_pull_verifies_and_is_atomic(edgevox_home, monkeypatch):
    real = get_spec("piper-joe-medium").files[1]
    name = _fake_spec(monkeypatch, "0" * 64, real.size)
    with pytest.raises(ModelPullError, match="sha256 mismatch"):
        pull(name)
    folder = edgevox_home / "models" / name
    assert not any(p.name == real.name or "partial" in p.name for p in folder.rglob("*")), \
        "a failed pull must leave nothing behind"
    monkeypatch.setitem(reg.MODELS, name, dataclasses.replace(reg.MODELS[name], files=(real,)))
    path = pull(name)
    assert path.is_file() and path.stat().st_size == real.size
    assert model_path(name) == path


def test_pull_rejects_wrong_size(edgevox_home, monkeypatch):
    real = get_spec("piper-joe-medium").files[1]
    name = _fake_spec(monkeypatch, real.sha256, real.size + 1)
    with pytest.raises(ModelPullError, match="expected"):
        pull(name)


def test_hub_pull_offline_is_one_sentence(edgevox_home):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EDGEVOX_HOME": str(edgevox_home)}
    proc = subprocess.run([sys.executable, "-m", "edgevox", "models", "pull", "qwen3-0.6b"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("edgevox")]
    assert len(lines) == 1 and "Hugging Face Hub" in lines[0]
    assert not list(Path(edgevox_home).rglob("*.gguf"))


def test_models_path_prints_only_the_path(qwen_path):
    proc = subprocess.run([sys.executable, "-m", "edgevox", "models", "path", "qwen2.5-coder-0.5b"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout == f"{qwen_path}\n"


def test_console_script_and_module_agree():
    exe = Path(sys.executable).with_name("edgevox")
    a = subprocess.run([str(exe), "models", "list", "--json"], capture_output=True, text=True)
    b = subprocess.run([sys.executable, "-m", "edgevox", "models", "list", "--json"],
                       capture_output=True, text=True)
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and '"qwen2.5-coder-0.5b"' in a.stdout
