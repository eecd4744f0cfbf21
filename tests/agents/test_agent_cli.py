"""`edgevox chat` on top of LLMAgent (scripted backend; the flags and the output shape)."""

from __future__ import annotations

import json

import pytest
from agent_fakes import ScriptedBackend, call

import edgevox.llm
from edgevox.cli import main


@pytest.fixture()
def scripted(monkeypatch):
    backend = ScriptedBackend([call("set_light", room="kitchen", on=True), "The kitchen light is on."])
    seen = {}

    def fake_load(name, preset=None, **opts):
        seen.update(name=name, preset=preset)
        return backend

    monkeypatch.setattr(edgevox.llm, "load_model", fake_load)
    return backend, seen


def test_chat_json_runs_the_agent_with_home_tools(scripted, capsys, tmp_path):
    backend, seen = scripted
    session = tmp_path / "s.json"
    rc = main(["chat", "--model", "qwen2.5-coder-0.5b", "--prompt", "kitchen light on", "--json",
               "--tools", "home", "--max-tokens", "32", "--seed", "1", "--session", str(session)])
    assert rc == 0 and seen["name"] == "qwen2.5-coder-0.5b"
    out = json.loads(capsys.readouterr().out)
    assert out["text"] == out["reply"] == "The kitchen light is on."
    assert out["calls"][0]["name"] == "set_light" and out["calls"][0]["result"]["on"] is True
    assert backend.requests[0]["max_tokens"] == 32 and backend.requests[0]["seed"] == 1
    assert json.loads(session.read_text())["messages"][-1]["content"] == "The kitchen light is on."


def test_chat_streams_text_and_shows_calls_on_stderr(scripted, capsys):
    rc = main(["chat", "--prompt", "kitchen light on", "--tools", "home"])
    captured = capsys.readouterr()
    assert rc == 0 and captured.out.strip() == "The kitchen light is on."
    assert "[call set_light(room='kitchen', on=True)]" in captured.err
