"""Spoken sums and unit conversions are worked out, not guessed by the model
(``edgevox.agents.slm.sums``, ``conversions`` and the ``worked_out`` hook).

The requests marked QWEN are ones Qwen2.5-Coder-0.5B answered wrongly in the home
evaluation's tuning splits (sessions 17-19), with the model's answer beside them.
"""

from __future__ import annotations

import math

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.conversions import convert, said
from edgevox.agents.slm.sums import solve, spoken
from edgevox.tools import tool

SUMS = [
    ("Add 17 and 25.", 42), ("What's the sum of 4 and 9?", 13),  # dev42 (session 30): "17 and 25" went on the list
    ("Quick, add 240 and 175 for me.", 415),  # dev46 (session 31): "240" went on the list
    ("Nine squared.", 81),  # QWEN: 36
    ("Two hundred minus seventy?", 130),  # QWEN: 20
    ("What's eighteen times three?", 54),  # QWEN: 216
    ("um whats sixty four divided by four", 16),  # QWEN: 15
    ("um whats a thousand take away three hundred and forty seven", 653),  # QWEN: refused
    ("What's a third of ninety?", 30),
    ("what is 15% of 80", 12),
    ("The square root of 144?", 12),
    ("two to the power of ten", 1024),
    ("two point five plus one", 3.5),
    ("What is 2+2*3?", 8),  # times before plus
    ("What's 7 x 8", 56),
    ("what is seventy-five plus twenty-five", 100),
    ("one thousand and five minus five", 1000),
    ("Calculate 10 minus 4 minus 3, please.", 3),  # left to right
    ("how much is seven lots of eight", 56),  # QWEN: 78
    ("What's one fifth of two hundred?", 40),  # a share as amounts reads it for a level
]
NOT_SUMS = [
    "Set a timer for two times five minutes.",
    "Turn the lights up by ten plus five.",
    "twenty",
    "What time is it?",
    "How many seconds in an hour?",  # a conversion, not a sum
    "Add milk and eggs to the list.",
    "Add 2 and 3 to the list.", "Add 2 apples.",
    "Play track two and three.",
    "Set the heating to twenty one plus.",
]


@pytest.mark.parametrize(("text", "value"), SUMS)
def test_a_spoken_sum_is_worked_out(text, value):
    assert solve(text) == pytest.approx(value)


@pytest.mark.parametrize("text", NOT_SUMS)
def test_anything_more_than_a_sum_is_left_to_the_model(text):
    assert solve(text) is None


CONVERSIONS = [
    ("How many hours is 180 minutes?", "180 minutes is 3 hours."),  # QWEN: refused
    ("How many hours is two hundred and forty minutes?", "240 minutes is 4 hours."),  # QWEN: refused
    ("Convert 20 degrees Celsius to Fahrenheit.", "20 degrees Celsius is 68 degrees Fahrenheit."),  # QWEN: refused
    ("What's minus forty in Fahrenheit?", "-40 degrees Celsius is -40 degrees Fahrenheit."),  # QWEN: refused
    ("How many centimetres in a foot?", "1 foot is 30.48 centimetres."),  # QWEN: 12.5
    ("How many seconds in an hour?", "1 hour is 3600 seconds."),  # QWEN: refused
    ("How many minutes are there in a day?", "1 day is 1440 minutes."),
    ("how many ounces in two pounds", "2 pounds is 32 ounces."),
    ("convert 100°F to celsius", "100 degrees Fahrenheit is 37.778 degrees Celsius."),
    ("what is 5 km in miles", "5 kilometres is 3.107 miles."),
    ("Well, how many days in three weeks?", "3 weeks is 21 days."),  # any filler the agent knows
]
NOT_CONVERSIONS = [
    "Set the thermostat to 70 fahrenheit.",
    "Turn the heating to twenty degrees celsius.",
    "How many lights are in the kitchen?",
    "How many time zones does Russia have?",
    "How many days until Christmas?",
    "Convert 20 celsius to celsius.",
    "How many hours is 3 kilograms?",  # not one dimension
]


@pytest.mark.parametrize(("text", "reply"), CONVERSIONS)
def test_a_unit_conversion_is_worked_out(text, reply):
    assert said(convert(text)) == reply


@pytest.mark.parametrize("text", NOT_CONVERSIONS)
def test_a_request_that_is_more_than_a_conversion_is_left_to_the_model(text):
    assert convert(text) is None


def test_the_value_is_said_plainly_and_dividing_by_zero_is_not_a_number():
    assert (spoken(16.0), spoken(3.5), spoken(1 / 3), spoken(-12.0)) == ("16", "3.5", "0.333", "-12")
    assert solve("ten divided by zero") == math.inf


@tool
def set_light(room: str, on: bool) -> str:
    """Switch the light of a room on or off.

    Args:
        room: Which room.
        on: True for on.
    """
    return f"{room} {'on' if on else 'off'}"


@tool
def calculator(expression: str) -> str:
    """Calculate the value of an arithmetic expression.

    Args:
        expression: The sum to work out.
    """
    return "42"


def test_the_hook_answers_before_the_model_unless_a_tool_is_for_arithmetic():
    be = ScriptedBackend(["36"])
    agent = LLMAgent("t", "", "Be brief.", tools=[set_light], model=be, hooks=default_slm_hooks(relevance=False))
    r = agent.run("Nine squared.")
    assert r.reply == "That's 81." and r.calls == [] and be.requests == []  # the model never ran
    assert agent.run("What's five divided by zero?").reply == "You can't divide by zero."
    be = ScriptedBackend([call("calculator", expression="9**2"), "It's 81."])
    agent = LLMAgent("t", "", "Be brief.", tools=[calculator], model=be, hooks=default_slm_hooks(relevance=False))
    r = agent.run("Nine squared.")
    assert [c.name for c in r.calls] == ["calculator"]  # the registry's own tool answers
    be = ScriptedBackend(["I can't."])
    agent = LLMAgent("t", "", "Be brief.", tools=[set_light], model=be, hooks=default_slm_hooks(relevance=False))
    assert agent.run("How many seconds in an hour?").reply == "1 hour is 3600 seconds." and be.requests == []


def test_on_the_real_model_the_home_assistant_answers_a_sum_rightly(qwen_backend):
    from edgevox.examples.home import home_agent

    agent, home = home_agent(qwen_backend.with_preset("qwen2.5-coder-0.5b"), warm=False)
    r = agent.run("um whats sixty four divided by four")
    assert r.reply == "That's 16." and r.calls == []
    r = agent.run("Turn on the kitchen light.")  # the turn after a sum is the model's as before
    assert [(c.name, c.arguments.get("room")) for c in r.calls if c.ok] == [("set_light", "kitchen")]
