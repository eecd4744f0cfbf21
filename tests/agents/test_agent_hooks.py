"""Hook points, ordering, replace/end, error handling and fail-closed safety hooks."""

from __future__ import annotations

import dataclasses

import pytest
from agent_fakes import ScriptedBackend, call
from agent_tools import get_time, get_weather

from edgevox.agents import HOOK_POINTS, Hook, HookResult, LLMAgent, Phrases, hook
from edgevox.tools import ToolResult


def make(script, hooks, tools=(get_time, get_weather)):
    be = ScriptedBackend(script)
    return LLMAgent("t", "", "Be brief.", tools=list(tools), model=be, hooks=hooks), be


def test_every_point_sees_its_payload_in_order():
    seen = []

    class Spy(Hook):
        def on_run_start(self, ctx, text):
            seen.append(("on_run_start", text))

        def before_llm(self, ctx, request):
            seen.append(("before_llm", request.hop))

        def after_llm(self, ctx, output):
            seen.append(("after_llm", [c.name for c in output.calls]))

        def before_tool(self, ctx, c):
            seen.append(("before_tool", c.name))

        def after_tool(self, ctx, result):
            seen.append(("after_tool", result.value))

        def on_run_end(self, ctx, result):
            seen.append(("on_run_end", result.reply))

    ag, _ = make([call("get_time"), "Noon-ish."], [Spy()])
    ag.run("time?")
    assert seen == [("on_run_start", "time?"), ("before_llm", 0), ("after_llm", ["get_time"]),
                    ("before_tool", "get_time"), ("after_tool", "14:05"), ("before_llm", 1),
                    ("after_llm", []), ("on_run_end", "Noon-ish.")]
    assert set(Spy().points()) == set(HOOK_POINTS)


def test_priority_order_and_replace_chain():
    order = []

    @hook("on_run_start", priority=50)
    def second(ctx, text):
        order.append("second")
        return HookResult.replace(text + " B")

    @hook("on_run_start", priority=5)
    def first(ctx, text):
        order.append("first")
        return HookResult.replace(text + " A")

    ag, be = make(["ok"], [second, first])
    ag.run("x")
    assert order == ["first", "second"]
    assert ag.session.messages[0]["content"] == "x A B"
    assert ag.hook_stats == {"first": 1, "second": 1}


def test_end_at_run_start_skips_the_model():
    @hook("on_run_start")
    def canned(ctx, text):
        return HookResult.end("Hello from a hook.")

    ag, be = make([], [canned])
    r = ag.run("hi")
    assert r.reply == "Hello from a hook." and r.stopped_reason == "hook" and be.requests == []
    assert [m["role"] for m in ag.session.messages] == ["user", "assistant"]


def test_before_tool_can_answer_a_call_without_running_it():
    ran = []

    @hook("before_tool")
    def mock_weather(ctx, c):
        if c.name == "get_weather":
            return HookResult.replace(ToolResult(name=c.name, arguments=c.arguments, ok=True, value="mocked"))

    @hook("after_tool")
    def watch(ctx, res):
        ran.append(res.value)

    ag, _ = make([call("get_weather", city="Oslo"), "Mocked weather."], [mock_weather, watch])
    r = ag.run("weather?")
    assert ran == ["mocked"] and r.calls[0].result == "mocked" and r.calls[0].dispatched is False


def test_before_tool_can_rewrite_arguments():
    @hook("before_tool")
    def capital(ctx, c):
        return HookResult.replace(dataclasses.replace(c, arguments={"city": c.arguments["city"].title()}))

    ag, _ = make([call("get_weather", city="oslo"), "Ok."], [capital])
    assert ag.run("w").calls[0].arguments == {"city": "Oslo"}


def test_end_in_before_tool_records_no_dangling_calls():
    @hook("before_tool")
    def deny(ctx, c):
        return HookResult.end("I won't do that.")

    ag, _ = make([call("get_time")], [deny])
    r = ag.run("t")
    assert r.reply == "I won't do that." and r.stopped_reason == "hook"
    assert [m["role"] for m in ag.session.messages] == ["user", "assistant"]
    assert "tool_calls" not in ag.session.messages[1]


def test_end_in_after_tool_keeps_the_exchange():
    @hook("after_tool")
    def speak_result(ctx, res):
        return HookResult.end(f"It is {res.value}.")

    ag, be = make([call("get_time")], [speak_result])
    r = ag.run("t")
    assert r.reply == "It is 14:05." and len(be.requests) == 1
    assert [m["role"] for m in ag.session.messages] == ["user", "assistant", "tool", "assistant"]


def test_after_llm_replace_and_on_run_end_replace():
    @hook("after_llm")
    def shout(ctx, out):
        return HookResult.replace(out.replace(content=out.content.upper()))

    @hook("on_run_end")
    def sign(ctx, result):
        return HookResult.replace(dataclasses.replace(result, reply=result.reply + " Bye."))

    ag, _ = make(["hello there"], [shout, sign])
    stream = ag.run_stream("hi")
    spoken = "".join(p for p in stream if isinstance(p, str))
    assert stream.result.reply == "HELLO THERE Bye."
    assert ag.session.messages[-1]["content"] == "HELLO THERE Bye."
    assert spoken.endswith("Bye.")  # the hook's addition is spoken too


def test_before_llm_can_change_strategy():
    @hook("before_llm")
    def no_tools(ctx, req):
        return HookResult.replace(dataclasses.replace(req, strategy="none"))

    ag, be = make([call("get_time") + "fine"], [no_tools])
    r = ag.run("t")
    assert r.calls == [] and "<tools>" not in be.requests[0]["prompt"]


def test_raising_hook_is_logged_and_ignored(caplog):
    @hook("after_llm")
    def broken(ctx, out):
        raise KeyError("oops")

    @hook("on_run_start")
    def wrong_type(ctx, text):
        return "not a HookResult"

    ag, _ = make(["fine"], [broken, wrong_type])
    r = ag.run("hi")
    assert r.reply == "fine" and r.stopped_reason == "reply"
    assert ag.hook_errors == {"broken": 1, "wrong_type": 1}
    assert "broken" in caplog.text


def test_raising_safety_hook_fails_closed():
    @hook("before_tool", safety=True)
    def guard(ctx, c):
        raise RuntimeError("policy store offline")

    ran = []

    @hook("after_tool")
    def watch(ctx, res):
        ran.append(res)

    ag, _ = make([call("get_time"), "never"], [guard, watch])
    r = ag.run("t")
    assert r.stopped_reason == "hook_failed" and r.reply == Phrases().hook_failed
    assert ran == [] and r.calls == []
    assert ag.session.messages == [{"role": "user", "content": "t"},
                                   {"role": "assistant", "content": Phrases().hook_failed}]


def test_end_needs_words_and_points_are_checked():
    with pytest.raises(ValueError, match="non-empty"):
        HookResult.end("  ")
    with pytest.raises(ValueError, match="unknown hook point"):
        hook("before_everything")(lambda c, p: None)
    with pytest.raises(TypeError):
        LLMAgent("t", model=ScriptedBackend([]), hooks=[lambda c, p: None])
