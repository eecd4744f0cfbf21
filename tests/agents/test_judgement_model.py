"""Judgement on the real Qwen2.5-Coder-0.5B: demonstrations in the prompt prefix, the
confidence of each call, and asking before acting (confirm=True, low confidence)."""

from __future__ import annotations

import pytest

from edgevox.agents import LLMAgent
from edgevox.agents.confirm import PENDING_KEY
from edgevox.tools import tool

pytestmark = pytest.mark.model


LIGHT_EXAMPLES = {"Kitchen lights on, please.": {"room": "kitchen", "on": True}}


def home_tools(state: dict, light_examples: dict = LIGHT_EXAMPLES):
    @tool(examples=light_examples)
    def set_light(room: str, on: bool) -> str:
        """Switch the light of a room on or off.

        Args:
            room: Which room.
            on: True for on, False for off.
        """
        state[room] = on
        return f"{room} light {'on' if on else 'off'}"

    @tool(confirm="Unlock the {door} door?")
    def unlock(door: str) -> str:
        """Unlock a door of the house.

        Args:
            door: Which door, e.g. front.
        """
        state["unlocked"] = door
        return f"{door} door unlocked"

    @tool
    def get_time() -> str:
        """Tell the current time."""
        return "14:05"

    return [set_light, unlock, get_time]


def make(backend, state, **kw) -> LLMAgent:
    # the JSON envelope under its answer-or-call grammar: the format the demonstrations
    # are measured with (with free hermes the same model answered "I'm sorry, I can't do
    # that." to a light request once a refusal was among the demonstrations)
    kw.setdefault("constrain_auto", True)
    return LLMAgent(tools=home_tools(state), model=backend.with_preset("qwen25+envelope"),
                    temperature=0.0, seed=0, max_tokens=48, **kw)


def test_demonstrations_are_rendered_in_the_prefix_and_keep_small_talk_in_words(qwen_backend):
    state: dict = {}
    ag = make(qwen_backend, state, demonstrations=True)
    prefix = ag.prompt_prefix()
    assert prefix[0]["role"] == "system" and len(prefix) > 6
    text = ag.backend.render([*prefix, {"role": "user", "content": "x"}], ag.registry.schemas())
    # the example request and its call, in the preset's own wire format (the envelope)
    assert ('Kitchen lights on, please.<|im_end|>\n<|im_start|>assistant\n'
            '{"tool": "set_light", "arguments": {"room": "kitchen", "on": true}}') in text
    assert '{"answer": "I\'m fine, thanks. How can I help?"}' in text
    assert "Hi, how are you?" in text and "Tell the current time." in text
    bare = make(qwen_backend, {}, demonstrations=False)
    assert len(bare.prompt_prefix()) == 1
    r = ag.run("Good night!")
    assert r.calls == [] and state == {}, r.reply  # measured: answered in words, nothing switched


def test_each_call_carries_the_models_margin(qwen_backend):
    state: dict = {}
    ag = make(qwen_backend, state, demonstrations=True)
    r = ag.run("Switch on the light in the bedroom.")
    assert [(c.name, c.arguments) for c in r.calls[:1]] == [("set_light", {"room": "bedroom", "on": True})]
    conf = r.calls[0].confidence
    assert isinstance(conf, float) and conf > 0  # greedy: the chosen token beats every other one
    assert state == {"bedroom": True}


def test_a_confirm_tool_asks_first_and_yes_runs_it(qwen_backend):
    state: dict = {}
    ag = make(qwen_backend, state, demonstrations=True)
    r = ag.run("Unlock the front door.")
    assert r.stopped_reason == "confirm" and r.reply == "Unlock the front door?"
    assert state == {} and ag.session.meta[PENDING_KEY][0]["name"] == "unlock"
    r2 = ag.run("Yes, please.")
    assert [(c.name, c.arguments, c.ok) for c in r2.calls] == [("unlock", {"door": "front"}, True)]
    assert r2.reply == "Done: front door unlocked."
    assert state == {"unlocked": "front"} and PENDING_KEY not in ag.session.meta
    roles = [m["role"] for m in ag.session.messages]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant"]


def test_a_low_confidence_call_becomes_a_question_and_no_drops_it(qwen_backend):
    state: dict = {}
    # a threshold above any margin: every call is asked about first
    ag = make(qwen_backend, state, demonstrations=True, confirm_below=1000.0)
    r = ag.run("Switch on the light in the bedroom.")
    assert r.stopped_reason == "confirm" and r.reply.startswith("Do you want me to switch the light")
    assert "bedroom" in r.reply and state == {}
    r2 = ag.run("No.")
    assert r2.calls == [] and r2.reply == ag.phrases.declined and state == {}
    assert PENDING_KEY not in ag.session.meta


def test_two_actions_in_one_request_become_a_list_of_calls(qwen_backend):
    # the pair demonstrations (two of set_light's own examples in one request, answered
    # with a list) teach the envelope's list form; shown one call per request only, the
    # model wrote one call object and the second action was lost
    state: dict = {}
    two = {**LIGHT_EXAMPLES, "Lights off in the hall.": {"room": "hall", "on": False}}
    ag = LLMAgent(tools=home_tools(state, two), model=qwen_backend.with_preset("qwen25+envelope"),
                  temperature=0.0, seed=0, max_tokens=64, constrain_auto=True, demonstrations=True)
    assert any(d.also for d in ag.demonstrations)
    r = ag.run("Turn on the lights in the bedroom and the office.")
    first = sorted((c.name, c.arguments["room"], c.arguments["on"]) for c in r.calls if c.hop == 0)
    assert first == [("set_light", "bedroom", True), ("set_light", "office", True)]  # one list, both calls
    assert state == {"bedroom": True, "office": True}
