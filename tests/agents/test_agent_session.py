"""Session: reset, JSON save/load, trimming by whole exchanges."""

from __future__ import annotations

import json

import pytest
from agent_fakes import ScriptedBackend, call
from agent_tools import get_time

from edgevox.agents import LLMAgent, Session, SessionError


def exchange(i: int, with_tool: bool = False) -> list[dict]:
    msgs = [{"role": "user", "content": f"question {i}"}]
    if with_tool:
        msgs += [{"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{i:08x}", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": f"call_{i:08x}", "name": "get_time", "content": '"14:05"'}]
    return msgs + [{"role": "assistant", "content": f"answer {i}"}]


def test_trim_drops_whole_oldest_exchanges_and_never_splits_calls():
    msgs = []
    for i in range(5):
        msgs += exchange(i, with_tool=i % 2 == 0)
    s = Session(msgs, system="sys")
    n_before = len(s)

    def count(history):  # one "token" per message, system counted too
        return len(history) + 1

    dropped = s.trim_to_fit(count, budget=9)
    assert dropped == n_before - len(s) and len(s) + 1 <= 9
    assert s.messages[0]["role"] == "user" and s.system == "sys"
    for i, m in enumerate(s.messages):  # every tool result still follows its call
        if m["role"] == "tool":
            prev_calls = [c["id"] for p in s.messages[:i] for c in p.get("tool_calls") or []]
            assert m["tool_call_id"] in prev_calls
    assert s.dropped == dropped


def test_trim_never_drops_the_running_turn():
    s = Session(exchange(0) + exchange(1))
    dropped = s.trim_to_fit(lambda h: 1000, budget=10, keep_from=2)
    assert dropped == 2 and [m["content"] for m in s.messages] == ["question 1", "answer 1"]


def test_save_load_roundtrip_and_reset(tmp_path):
    s = Session(exchange(1, with_tool=True), system="Be brief.", meta={"user": "ada"})
    path = s.save(tmp_path / "s.json")
    data = json.loads(path.read_text())
    assert data["format"] == "edgevox.session" and data["version"] == 1
    t = Session.load(path)
    assert t.messages == s.messages and t.system == "Be brief." and t.meta == {"user": "ada"}
    t.reset()
    assert len(t) == 0 and t.system == "Be brief."
    # a plain OpenAI message list with a system message also loads
    (tmp_path / "plain.json").write_text(json.dumps([{"role": "system", "content": "S"}, *exchange(2)]))
    u = Session.load(tmp_path / "plain.json")
    assert u.system == "S" and len(u) == 2


@pytest.mark.parametrize("content,match", [
    ("{not json", "not valid JSON"),
    ('{"messages": [{"role": "wizard", "content": "x"}]}', "role 'wizard'"),
    ('{"messages": [{"role": "user", "content": 3}]}', "content must be a string"),
    ('{"messages": [{"role": "user", "tool_calls": []}]}', "tool_calls"),
    ('{"format": "other", "messages": []}', "format"),
    ('{"nothing": 1}', "messages"),
])
def test_bad_session_files_raise_clear_errors(tmp_path, content, match):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(SessionError, match=match):
        Session.load(p)
    with pytest.raises(SessionError, match="cannot read"):
        Session.load(tmp_path / "missing.json")


def test_agent_continues_a_loaded_session(tmp_path):
    be = ScriptedBackend([call("get_time"), "It is 14:05.", "You asked about the time."])
    ag = LLMAgent("t", "", "Be brief.", tools=[get_time], model=be)
    ag.run("what time is it?")
    path = ag.session.save(tmp_path / "conv.json")
    ag2 = LLMAgent("t2", "", "Be brief.", tools=[get_time], model=be, session=Session.load(path))
    r = ag2.run("what did I ask?")
    assert r.reply == "You asked about the time."
    prompt = be.requests[-1]["prompt"]
    assert "what time is it?" in prompt and "It is 14:05." in prompt and "call_" in prompt
    assert len(ag2.session) == 6


def test_run_with_an_explicit_session_leaves_the_agent_session_alone():
    be = ScriptedBackend(["a", "b"])
    ag = LLMAgent("t", "", "x", model=be)
    mine = Session()
    ag.run("hi", session=mine)
    assert len(mine) == 2 and len(ag.session) == 0
