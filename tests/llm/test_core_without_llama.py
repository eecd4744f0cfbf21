"""`pip install edgevox` builds no native code: llama-cpp-python lives in the `llama` extra,
and everything but a local GGUF model works without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_llama_cpp_is_an_extra_that_setup_installs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(project["dependencies"]).lower()
    assert "llama-cpp-python" not in core and "llama_cpp" not in core
    assert any(d.startswith("llama-cpp-python==") for d in project["optional-dependencies"]["llama"])
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert '-e ".[llama,' in setup


def test_everything_but_a_local_model_works_without_llama_cpp(qwen_path):
    code = f"""
import sys
sys.modules["llama_cpp"] = None  # as if the extra were not installed
import edgevox, edgevox.agents, edgevox.parsing, edgevox.grammars, edgevox.tools, edgevox.llm.remote
from edgevox.grammars import tool_call_grammar
from edgevox.llm import BackendError, load_model
from edgevox.parsing import parse_tool_calls
tools = [{{"type": "function", "function": {{"name": "f", "parameters": {{"type": "object", "properties": {{}}}}}}}}]
assert tool_call_grammar(tools, "hermes").gbnf
assert parse_tool_calls('<tool_call>{{"name": "f", "arguments": {{}}}}</tool_call>', tools=tools).calls
try:
    load_model({str(qwen_path)!r})
except BackendError as e:
    print("ERROR:", e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ERROR:" in out.stdout and 'pip install "edgevox[llama]"' in out.stdout
