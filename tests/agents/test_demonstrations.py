"""Demonstrations built from tool schemas, confidence bookkeeping and the yes/no reader
(pure logic; the real-model behaviour is in test_judgement_model.py)."""

from __future__ import annotations

import json

import pytest

from edgevox.agents.confirm import call_confidences, question_for, yes_or_no
from edgevox.agents.demonstrations import (
    ANSWERS,
    Demo,
    build_demonstrations,
    demonstration_messages,
)
from edgevox.tools import Tool, ToolDefinitionError, tool

AREA = {"name": "triangle_area", "description": "Calculate the area of a triangle. Uses base and height.",
        "parameters": {"type": "dict", "properties": {
            "base": {"type": "integer", "description": "The base."},
            "height": {"type": "integer", "minimum": 5},
            "unit": {"type": "string", "description": "Unit, e.g. cm"}},
            "required": ["base", "height", "unit"]}}
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "units": {"type": "string", "enum": ["metric", "imperial"]},
        "days": {"type": "array", "items": {"type": "integer"}}},
        "required": ["city", "units"]}}}


def test_one_call_per_tool_from_plain_schemas_and_answers_interleaved():
    demos = build_demonstrations([AREA, WEATHER], pairs=False)
    calls = [d for d in demos if d.call]
    assert [d.call[0] for d in calls] == ["triangle_area", "get_weather"]
    assert calls[0].call[1] == {"base": 3, "height": 6, "unit": "cm"}  # minimum respected, e.g. read
    assert calls[0].request == "Calculate the area of a triangle: base 3, height 6, unit cm."
    assert calls[1].call[1] == {"city": "city", "units": "metric"}  # enum: a real member
    answers = [d for d in demos if d.answer]
    assert 1 <= len(answers) <= 3 and demos[0].answer  # an answer comes first, calls in between
    for built in (Tool.from_schema(AREA), Tool.from_schema(WEATHER)):  # the made-up calls are valid
        built.validate(next(d.call[1] for d in calls if d.call[0] == built.name))


def test_examples_win_and_answers_that_a_tool_serves_are_left_out():
    @tool(examples={"Is it cold in Oslo?": {"city": "Oslo"}, "Rain in Rome?": {"city": "Rome"}})
    def weather(city: str) -> str:
        """Weather for a city."""
        return "sunny"

    @tool
    def fan(on: bool) -> str:
        """Switch the fan on or off."""
        return "ok"

    demos = build_demonstrations([weather, fan], per_tool=2, pairs=False)
    assert [d.request for d in demos if d.call and d.call[0] == "weather"] == ["Is it cold in Oslo?", "Rain in Rome?"]
    assert all("fan" not in (d.request.lower()) for d in demos if d.answer)  # "Turn on the fan." left out
    assert build_demonstrations([], max_answers=2) == list(ANSWERS[:2])


def test_two_actions_in_one_request_from_the_schemas():
    one = build_demonstrations([AREA])
    assert [d.call for d in one if d.call and not d.also] == [("triangle_area", {"base": 3, "height": 6, "unit": "cm"})]
    (thrice,) = [d for d in one if d.also]  # one tool: its made-up call for three values of one argument
    assert thrice.calls == [("triangle_area", {"base": 3, "height": 6, "unit": "cm"}),
                            ("triangle_area", {"base": 4, "height": 6, "unit": "cm"}),
                            ("triangle_area", {"base": 5, "height": 6, "unit": "cm"})]
    assert thrice.request == ("Calculate the area of a triangle: base 3, height 6, unit cm; "
                              "then the same with base 4, and again with base 5.")
    both = [d for d in build_demonstrations([AREA, WEATHER]) if d.also]
    assert [[n for n, _ in d.calls] for d in both] == [["triangle_area"] * 3, ["triangle_area", "get_weather"]]
    assert both[1].request.startswith("Calculate the area of a triangle: base 3, height 6, unit cm. Also, weather")
    for d in both:  # every made-up call is valid for its tool
        for name, args in d.calls:
            Tool.from_schema(AREA if name == "triangle_area" else WEATHER).validate(args)

    @tool(examples={"Lamp on in the hall.": {"room": "hall"}, "Kitchen lamp on.": {"room": "kitchen"}})
    def lamp(room: str) -> str:
        """Switch a lamp on."""
        return "on"

    (own,) = [d for d in build_demonstrations([lamp]) if d.also]  # two own examples, joined
    assert own.request == "Lamp on in the hall and kitchen lamp on."
    assert own.calls == [("lamp", {"room": "hall"}), ("lamp", {"room": "kitchen"})]
    msgs = demonstration_messages([own])
    assert [c["function"]["name"] for c in msgs[1]["tool_calls"]] == ["lamp", "lamp"]
    assert len({c["id"] for c in msgs[1]["tool_calls"]}) == 2


def test_messages_are_plain_chat_turns():
    msgs = demonstration_messages([Demo("Hi", answer="Hello."), Demo("Rain?", call=("weather", {"city": "Rome"}))])
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant"]
    assert msgs[1]["content"] == "Hello."
    fn = msgs[3]["tool_calls"][0]["function"]
    assert fn["name"] == "weather" and json.loads(fn["arguments"]) == {"city": "Rome"}


def test_tool_options_are_checked():
    with pytest.raises(ToolDefinitionError, match="bad arguments"):
        @tool(examples={"Lights": {"room": 3}})
        def light(room: str) -> None:
            """A light."""

    with pytest.raises(ToolDefinitionError, match="examples must map"):
        @tool(examples=["just a string"])
        def light2(room: str) -> None:
            """A light."""

    @tool(confirm="Unlock the {door} door?")
    def unlock(door: str) -> None:
        """Unlock a door."""

    assert unlock.confirm == "Unlock the {door} door?" and unlock.examples == []
    assert question_for(unlock, "unlock", {"door": "front"}) == "Unlock the front door?"
    assert question_for(None, "set_light", {"room": "hall", "on": True}, "Switch a light. More.") == \
        "Do you want me to switch a light (room hall, on yes)?"


def test_call_confidence_is_the_smallest_margin_up_to_each_name():
    text = '{"tool": "set_light", "arguments": {"room": "kitchen"}} {"tool": "get_time"}'
    dec = [{"at": 2, "logprob": -0.1, "alt_logprob": -2.5},   # tool vs answer: 2.4
           {"at": 10, "logprob": -0.5, "alt_logprob": -1.0},  # which tool: 0.5
           {"at": 40, "logprob": -3.0, "alt_logprob": -0.1},  # inside the arguments: ignored
           {"at": 66, "logprob": -0.2, "alt_logprob": -1.2}]  # second call's name: 1.0
    assert call_confidences(text, ["set_light", "get_time"], dec) == pytest.approx([0.5, 1.0])
    assert call_confidences(text, ["nope"], dec) == [None]
    assert call_confidences(text, ["set_light"], None) == [None]


@pytest.mark.parametrize(("text", "want"), [
    ("Yes.", True), ("yeah, do it", True), ("Sure!", True), ("No", False), ("nope", False),
    ("Never mind.", False), ("don't", False), ("What's the weather?", None), ("nothing", None)])
def test_yes_or_no(text, want):
    assert yes_or_no(text) is want


def test_lists_vary_a_string_when_nothing_else_can_change_and_respect_bounds():
    stock = {"name": "get_stock", "description": "Retrieves the closing price of a stock.",
             "parameters": {"type": "object", "properties": {"symbol": {"type": "string"},
                                                              "day": {"type": "string", "format": "date"}},
                            "required": ["symbol"]}}
    (thrice,) = [d for d in build_demonstrations([stock]) if d.also]
    assert [args["symbol"] for _, args in thrice.calls] == ["symbol", "symbol B", "symbol C"]
    dated = {**stock, "parameters": {**stock["parameters"], "required": ["day"]}}
    assert not [d for d in build_demonstrations([dated]) if d.also]  # a formatted string is not made up
    top = {"name": "volume", "description": "Set the volume.", "parameters": {"type": "object", "properties": {
        "level": {"type": "integer", "minimum": 0, "maximum": 2}}, "required": ["level"]}}
    (levels,) = [d for d in build_demonstrations([top]) if d.also]  # 1, then 2, then 0: never out of range
    assert [args["level"] for _, args in levels.calls] == [1, 2, 0]


def test_every_second_made_up_request_is_asked_as_a_question():
    tools = [{"name": f"t{i}", "description": desc, "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}}, "required": ["city"]}}
        for i, desc in enumerate(["Retrieves the weather of a city.", "Fetches the population of a city.",
                                  "Weather for a city.", "Calculates the distance to a city."])]
    singles = [d.request for d in build_demonstrations(tools) if d.call and not d.also]
    assert singles == ["Retrieves the weather of a city: city city.",
                       "Can you fetch the population of a city with city city?",
                       "Weather for a city: city city.",  # no verb to ask with: left as it is
                       "Can you calculate the distance to a city with city city?"]
