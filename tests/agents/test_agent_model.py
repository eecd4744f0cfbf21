"""LLMAgent on the real Qwen2.5-Coder-0.5B: the loop, failures, cancellation, sessions, hooks.

Kept few and short (temperature 0, small max_tokens); each test states what the model did.
"""

from __future__ import annotations

import threading

import pytest
from agent_tools import get_stock, get_time, get_weather, set_lights, slow_search

from edgevox.agents import LLMAgent, Phrases, Session, default_slm_hooks
from edgevox.agents.speech import has_markup, split_json

pytestmark = pytest.mark.model

VOICE = "You are a helpful voice assistant. Answer in one short sentence."


def speakable(reply: str) -> bool:
    """A reply fit for TTS: words, no JSON, no markup."""
    return bool(reply.strip()) and not split_json(reply)[1] and not has_markup(reply)


def make(backend, tools, **kw) -> LLMAgent:
    kw.setdefault("hooks", default_slm_hooks())
    return LLMAgent("vox", "test", kw.pop("instructions", VOICE), tools=tools, model=backend,
                    temperature=0.0, seed=0, max_tokens=kw.pop("max_tokens", 48), **kw)


def test_two_hop_turn_required_first_hop(qwen_backend):
    ag = make(qwen_backend, [get_time, get_weather, set_lights], tool_choice_policy="required_first_hop")
    r = ag.run("What time is it?")
    assert [(c.name, c.result) for c in r.calls] == [("get_time", "14:05")]
    assert r.stopped_reason == "reply" and r.hops == 2
    assert "14:05" in r.reply and speakable(r.reply)
    roles = [m["role"] for m in ag.session.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert r.timings["llm_s"] > 0 and r.timings["ttft_s"] is not None


def test_parallel_calls_in_one_request(qwen_backend):
    # Measured while building: the 0.5B model makes two calls in one reply only when the
    # request says so, and then writes them as comma-joined bare JSON
    # ('{"name": "get_weather", ...}, {"name": "get_weather", ...}'), not in <tool_call> tags;
    # under the required grammar it stops after the first call.
    ag = make(qwen_backend, [get_time, get_weather], max_tokens=64)
    r = ag.run("What's the weather in Paris and what's the weather in Rome? Call the tool twice.")
    first_hop = [c for c in r.calls if c.hop == 0]
    assert sorted(c.arguments.get("city") for c in first_hop) == ["Paris", "Rome"]
    assert all(c.ok and c.dispatched for c in first_hop)
    assert len(ag.session.messages[1]["tool_calls"]) == 2  # one assistant message, two calls
    assert r.stopped_reason == "reply" and speakable(r.reply)


def test_failing_and_timed_out_tools_are_answered_gracefully(qwen_backend):
    ag = make(qwen_backend, [get_stock, slow_search], tool_choice_policy="required_first_hop")
    r1 = ag.run("What is the stock price of ACME?")
    assert r1.calls[0].name == "get_stock" and r1.calls[0].error_type == "exception"
    assert speakable(r1.reply) and "Traceback" not in r1.reply
    ag.reset()
    r2 = ag.run("Search the web for cheap flights to Rome.")
    # the tool's 0.5 s timeout answered, not its 3 s sleep
    assert r2.calls[0].name == "slow_search" and r2.calls[0].error_type == "timeout"
    assert "0.5 s" in r2.calls[0].error and speakable(r2.reply)


def test_cancel_mid_generation(qwen_backend):
    ag = make(qwen_backend, [], max_tokens=200)
    stop = threading.Event()
    stream = ag.run_stream("Write a long story about a dragon who learns to cook.", stop_event=stop)
    pieces = []
    for piece in stream:
        pieces.append(piece)
        if len(pieces) == 4:
            stop.set()
    r = stream.result
    assert r.stopped_reason == "cancelled"
    assert r.usage["completion_tokens"] < 20  # stopped within a token or two, not at 200
    assert ag.session.messages == [{"role": "user", "content": "Write a long story about a dragon who learns to cook."},
                                   {"role": "assistant", "content": r.reply}]
    assert r.reply and r.reply in "".join(pieces).strip() + " "


def test_session_saved_reloaded_and_continued(qwen_backend, tmp_path):
    ag = make(qwen_backend, [get_time])
    ag.run("Hi, my name is Ada. Please remember my name.")
    path = ag.session.save(tmp_path / "ada.json")
    ag2 = make(qwen_backend, [get_time], session=Session.load(path))
    r = ag2.run("What is my name?")
    assert "Ada" in r.reply and r.stopped_reason == "reply"
    saved = Session.load(path).messages
    assert ag2.session.messages[:len(saved)] == saved  # the history continued, unchanged
    assert [m["role"] for m in ag2.session.messages[len(saved):]][0] == "user"
    assert ag2.session.messages[-1] == {"role": "assistant", "content": r.reply}


def test_loop_guard_on_the_live_model(qwen_backend):
    # Without the answer note the real model answers a weather result by calling
    # get_weather("Paris") again (seen while building the agent); the loop guard answers that
    # call from the first result and makes the next hop a plain reply.
    ag = make(qwen_backend, [get_time, get_weather, set_lights], tool_choice_policy="required_first_hop",
              phrases=Phrases(answer_note=""))
    r = ag.run("What's the weather in Paris?")
    assert ag.hook_stats.get("loop_guard", 0) >= 1
    assert r.calls[0].ok and r.calls[0].dispatched
    assert sum(c.dispatched for c in r.calls if c.name == "get_weather" and c.arguments == {"city": "Paris"}) == 1
    assert r.stopped_reason == "reply" and speakable(r.reply)


HOME = ("You are a home voice assistant. Use the tools to control the home, tell the time "
        "or the weather; otherwise answer in one short sentence.")


def test_unknown_tool_and_arg_shape_on_the_live_model(qwen_backend):
    from edgevox.examples.home import Home

    home = Home()
    ag = make(qwen_backend, home.tools(), instructions=HOME, max_tokens=96)
    # The model calls "set_timer"; the hook names start_timer and requires it on the retry.
    r = ag.run("Set a 5 minute timer.")
    assert ag.hook_stats.get("unknown_tool", 0) >= 1
    assert [c.name for c in r.calls] == ["start_timer"] and home.timers and home.timers[0]["minutes"] == 5
    assert speakable(r.reply)
    # The model calls get_time with its schema as arguments; the hint + grammar retry fixes it.
    ag.reset()
    r = ag.run("What time is it?")
    assert ag.hook_stats.get("arg_shape", 0) >= 1
    assert r.calls[-1].name == "get_time" and r.calls[-1].ok
    assert r.stopped_reason == "reply" and speakable(r.reply)


def test_speakable_on_the_live_model(qwen_backend):
    from edgevox.examples.home import Home

    # with these three of the home's tools the model names its functions in its answer
    # (with the whole home it describes them in plain words)
    tools = [t for t in Home().tools() if t.name in ("set_light", "start_timer", "get_time")]
    ag = make(qwen_backend, tools, instructions=HOME, max_tokens=48)
    r = ag.run("What can you do?")
    assert ag.hook_stats.get("speakable", 0) == 1 and "`" not in r.reply and speakable(r.reply)


# -- what the loop tests show on the scripted backend, here on the live model ---------------


@pytest.fixture(scope="module")
def small_ctx_backend(qwen_path):
    """The same Qwen with a 512-token window: a short history already overflows it."""
    from edgevox.llm import load_model

    backend = load_model(str(qwen_path), preset="qwen25", n_ctx=512)
    yield backend
    backend.close()


BOXES = ["apple", "river", "candle", "tiger", "violet", "hammer", "orbit", "pepper", "maple", "falcon",
         "copper", "lemon"]


def test_context_trimming_on_the_live_model(small_ctx_backend):
    be = small_ctx_backend
    history = []
    for i, word in enumerate(BOXES):
        history += [{"role": "user", "content": f"Please remember this: the code word for box {i} is {word}. "
                                                "It is written on a small label on the lid."},
                    {"role": "assistant", "content": f"Okay, I will remember that box {i} has the code word {word}."}]
    ag = make(be, [], session=Session(history), max_tokens=24)
    asked = f"What is the code word for box {len(BOXES) - 1}?"
    untrimmed = be.render([{"role": "system", "content": VOICE}, *history, {"role": "user", "content": asked}])
    assert len(be.tokenize(untrimmed)) > 512 - 24  # without trimming llama.cpp could not take it
    r = ag.run(asked)
    assert r.stopped_reason == "reply", r
    assert ag.session.dropped > 0 and ag.loop_stats["trimmed_messages"] == 1
    kept = [m["content"] for m in ag.session.messages]
    assert ag.session.messages[0]["role"] == "user" and "box 0 " not in kept[0]  # whole exchanges went
    assert kept[-2:] == [asked, r.reply]
    assert r.usage["prompt_tokens"] + 24 <= 512
    assert BOXES[-1] in r.reply.lower(), r.reply  # the recent exchanges it kept still answer


def test_max_hops_on_the_live_model(qwen_backend):
    from test_agent_loop import assert_consistent

    # required_always forces a call on every hop, so the model can never answer in words
    ag = make(qwen_backend, [get_time, get_weather], tool_choice_policy="required_always", max_hops=2,
              hooks=[])
    r = ag.run("What time is it?")
    assert r.stopped_reason == "max_hops" and r.hops == 2
    assert r.calls and r.calls[0].name == "get_time" and r.calls[0].ok
    assert r.reply.startswith("Sorry") and "14:05" in r.reply  # the apology says what was found
    assert ag.session.messages[-1] == {"role": "assistant", "content": r.reply}
    assert_consistent(ag.session.messages)


def test_failing_safety_hook_fails_closed_on_the_live_model(qwen_backend):
    from edgevox.agents import hook
    from edgevox.tools import tool

    switched = []

    @tool
    def unlock_door(door: str) -> str:
        """Unlock a door of the house.

        Args:
            door: Which door, e.g. front.
        """
        switched.append(door)
        return f"the {door} door is unlocked"

    @hook("before_tool", safety=True)
    def policy(ctx, c):
        raise RuntimeError("policy store offline")

    ag = make(qwen_backend, [unlock_door], tool_choice_policy="required_first_hop",
              hooks=[*default_slm_hooks(), policy])
    r = ag.run("Unlock the front door.")
    assert r.stopped_reason == "hook_failed" and r.reply == Phrases().hook_failed
    assert switched == [] and r.calls == []  # the model asked; the call never ran
    assert ag.session.messages == [{"role": "user", "content": "Unlock the front door."},
                                   {"role": "assistant", "content": Phrases().hook_failed}]


def test_closing_a_live_stream_early(qwen_backend):
    from test_agent_loop import assert_consistent

    from edgevox.agents import ToolResultEvent

    ag = make(qwen_backend, [get_time], tool_choice_policy="required_first_hop", max_tokens=64)
    stream = ag.run_stream("What time is it?")
    seen = []
    for item in stream:  # close in the middle of the second hop's reply
        seen.append(item)
        if any(isinstance(i, ToolResultEvent) for i in seen) and isinstance(item, str):
            break
    stream.close()
    assert any(isinstance(i, ToolResultEvent) for i in seen) and isinstance(seen[-1], str)
    assert_consistent(ag.session.messages)
    # the call exchange goes, what the listener already took of the reply stays
    assert ag.session.messages == [{"role": "user", "content": "What time is it?"},
                                   {"role": "assistant", "content": seen[-1].strip()}]
    # the shared backend is free again: the next turn on it runs to its end
    ag.reset()
    r = ag.run("What time is it?")
    assert r.stopped_reason == "reply" and "14:05" in r.reply
