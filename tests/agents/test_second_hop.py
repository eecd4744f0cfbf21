"""The hop that words a tool's result (a tool without ``say=``): whole-round demonstrations
(request, call, result, spoken answer) from ``@tool(rounds=)``, built from the registry and
placed in the prompt prefix, and the answer-only hop after results (``answer_after_results``).
The shapes run on the scripted backend; the behaviour they are for (a ``say``-less tool turn
answered in two hops, not by saying the request back) runs on the real Qwen2.5-Coder-0.5B at
the end of this file."""

from __future__ import annotations

import json

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent
from edgevox.agents.demonstrations import (
    demonstration_messages,
    round_demonstrations,
    round_messages,
)
from edgevox.tools import ToolDefinitionError, tool

LIGHT_ROUND = ("Lights on in the den.", {"room": "den", "on": True}, {"room": "den", "on": True},
               "The den light is on.")


def _tools():
    @tool(examples={"Kitchen light off.": {"room": "kitchen", "on": False}}, rounds=[LIGHT_ROUND])
    def set_light(room: str, on: bool) -> dict:
        """Switch a light.

        Args:
            room: Which room.
            on: On or off.
        """
        return {"room": room, "on": on}

    @tool
    def get_time() -> dict:
        """The time."""
        return {"time": "14:05"}

    @tool(rounds=[("Weather?", {}, {"sky": "cloudy"}, "It's cloudy."), ("Rain?", {}, {"rain": 0}, "No rain.")])
    def get_weather() -> dict:
        """The weather."""
        return {"sky": "sunny"}

    return [set_light, get_time, get_weather]


def test_rounds_come_from_the_tools_one_each_in_registry_order():
    rounds = round_demonstrations(_tools())
    assert [(r[0], r[1][0]) for r in rounds] == [("Lights on in the den.", "set_light"), ("Weather?", "get_weather")]
    assert round_demonstrations(_tools(), limit=1) == rounds[:1]
    assert round_demonstrations([{"name": "plain", "parameters": {}}]) == []  # a schema declares none


def test_a_round_is_the_shape_of_the_hop_that_words_a_result():
    msgs = round_messages(round_demonstrations(_tools(), limit=1), note="(Now answer.)")
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "user", "assistant"]
    call = msgs[1]["tool_calls"][0]
    assert call["function"]["name"] == "set_light" and json.loads(call["function"]["arguments"]) == LIGHT_ROUND[1]
    assert msgs[2]["tool_call_id"] == call["id"] and msgs[2]["name"] == "set_light"
    assert msgs[2]["content"] == '{"room":"den","on":true}'  # as ToolResult.to_model_text writes a result
    assert msgs[3]["content"] == "(Now answer.)" and msgs[4]["content"] == "The den light is on."
    assert [m["role"] for m in round_messages(round_demonstrations(_tools(), limit=1))] == \
        ["user", "assistant", "tool", "assistant"]


def test_the_rounds_follow_the_system_message_with_the_note_the_agent_adds():
    agent = LLMAgent("t", tools=_tools(), model=ScriptedBackend([]), demonstrations=True, warm=False,
                     instructions="Be brief.")
    prefix = agent.prompt_prefix()
    note = "(" + agent.phrases.answer_note + ")"  # the qwen25 preset has a tool role
    assert prefix[0] == {"role": "system", "content": "Be brief."}
    assert [m["content"] for m in prefix[1:11] if m["role"] != "assistant"] == \
        ["Lights on in the den.", '{"room":"den","on":true}', note, "Weather?", '{"sky":"cloudy"}', note]
    assert prefix[5] == {"role": "assistant", "content": "The den light is on."}
    assert prefix[10] == {"role": "assistant", "content": "It's cloudy."}
    # then the demonstrations, built from the same tools
    assert prefix[11:] == demonstration_messages(agent.demonstrations) and len(prefix) > 11
    # synthetic results (no tool role) carry their own request to answer: no note turn
    env = LLMAgent("t", tools=_tools(), model=ScriptedBackend([], preset="envelope"), demonstrations=True, warm=False)
    assert note not in [m["content"] for m in env.prompt_prefix()]
    # every tool words its own result: the hop the rounds teach never runs after a success
    said = _tools()
    for t in said:
        t.say = "Done."
    assert LLMAgent("t", tools=said, model=ScriptedBackend([]), demonstrations=True, warm=False).rounds == []
    # no demonstrations asked for: no rounds either
    bare = LLMAgent("t", tools=_tools(), model=ScriptedBackend([]), demonstrations=False, warm=False)
    assert all(m["content"] != "The den light is on." for m in bare.prompt_prefix())


def test_bad_rounds_are_refused_when_the_tool_is_defined():
    with pytest.raises(ToolDefinitionError, match="rounds must be"):
        @tool(rounds=[("Lights on.", {"on": True}, {"on": True})])  # no answer
        def light(on: bool) -> None:
            """A light."""

    with pytest.raises(ToolDefinitionError, match="rounds must be"):
        @tool(rounds=[("Lights on.", {"on": True}, object(), "On.")])  # not JSON
        def light2(on: bool) -> None:
            """A light."""

    with pytest.raises(ToolDefinitionError, match="bad arguments"):
        @tool(rounds=[("Lights on.", {"on": "yes please"}, {"on": True}, "On.")])
        def light3(on: bool) -> None:
            """A light."""


def test_after_results_the_hop_only_answers_and_keeps_the_tools_rendered():
    backend = ScriptedBackend([call("get_time"), call("get_time"), "It is 14:05."])
    agent = LLMAgent("t", tools=_tools(), model=backend, warm=False, demonstrations=True)
    agent.answer_after_results = True
    r = agent.run("Time?")
    assert r.reply == "It is 14:05." and [c.name for c in r.calls] == ["get_time"]  # the second call is not run
    # the grammar does what the answer note asked: neither the hop nor the rounds carry it
    assert all(agent.phrases.answer_note not in req["prompt"] for req in backend.requests)
    assert "The den light is on." in backend.requests[0]["prompt"]
    assert all(req["prompt"].startswith("<tools>") for req in backend.requests)
    # under the envelope the answer hop decodes under the answer-only grammar
    env = ScriptedBackend(['{"tool": "get_time", "arguments": {}}', '{"answer": "It is 14:05."}'], preset="envelope")
    agent = LLMAgent("t", tools=_tools(), model=env, warm=False, constrain_auto=True)
    agent.answer_after_results = True
    assert agent.run("Time?").reply == "It is 14:05."
    assert env.requests[1]["grammar"] is agent.grammar_for("none", []) is not env.requests[0]["grammar"]
    assert env.requests[1]["prompt"].startswith("<tools>")


def test_a_failed_call_leaves_the_next_hop_free_to_call_again():
    backend = ScriptedBackend([call("set_light", room="den", on="maybe"), call("set_light", room="den", on=True),
                               "The den light is on."])
    agent = LLMAgent("t", tools=_tools(), model=backend, warm=False)
    agent.answer_after_results = True
    r = agent.run("Den light on.")
    assert [c.ok for c in r.calls] == [False, True] and r.reply == "The den light is on."
    assert agent.phrases.failed_note in backend.requests[1]["prompt"]


# -- on the real model ------------------------------------------------------------------------


@pytest.mark.model
def test_real_model_a_tool_without_say_is_worded_in_two_hops(qwen_backend):
    """The shipped profile (envelope, demonstrations, home rounds, answer after results) with
    every ``say=`` removed: the model words each result in the second hop, without saying
    the request back (which the echo guard would retry: a third hop) and about what happened."""
    from edgevox.agents.slm.echo_guard import repeats_request
    from edgevox.examples.home import home_agent

    agent, home = home_agent(qwen_backend.with_preset("qwen2.5-coder-0.5b"), warm=False)
    assert not agent.rounds  # every home tool has say=: the prefix is the one without rounds
    for t in agent.registry:
        t.say = None
    assert agent.rounds and agent.answer_after_results
    agent.warm(wait=True)
    for text, room, on in (("Turn on the kitchen light.", "kitchen", True),
                           ("Switch off the light in the bedroom.", "bedroom", False),
                           ("Switch on the hallway light.", "hallway", True)):
        agent.reset()
        r = agent.run(text)
        assert [c.name for c in r.calls] == ["set_light"] and r.calls[0].arguments["room"] == room
        assert home.lights[room] is on
        assert r.hops == 2 and not repeats_request(r.reply, text), (text, r.reply)
        words = r.reply.lower().rstrip(".").split()
        assert room in words and ("off" in words) is not on, r.reply  # about what happened
    assert "echo_guard" not in agent.hook_stats
