"""Amount words in arguments ("a quarter of an hour", "max"): pure logic on the home
registry's schemas, the hook in a scripted turn, and two turns of the real model."""

from __future__ import annotations

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.amounts import fix_duration, fix_extreme, said_seconds, spread, value_range
from edgevox.examples.home import Home

TOOLS = {t.name: t for t in Home().tools()}


@pytest.mark.parametrize(("text", "seconds"), [
    ("Set a timer for a quarter of an hour.", 900),
    ("Half an hour, please.", 1800),
    ("Three quarters of an hour.", 2700),
    ("An hour and a half.", 5400),
    ("One and a half hours for the roast.", 5400),
    ("Two hours and a quarter.", 8100),
    ("Half a minute.", 30),
    ("A half-hour timer.", 1800),
    ("Set a timer for 20 minutes.", None),  # no fraction: unit_args' business
    ("Ten minutes and half an hour.", None),  # two amounts: not ours to add up
    ("Half an hour, no, 40 minutes.", None),
    ("Half the lights.", None),
])
def test_time_amounts_with_a_fraction(text, seconds):
    assert said_seconds(text) == seconds


def test_a_duration_said_in_words_replaces_another_number():
    timer = TOOLS["start_timer"]
    # Qwen2.5-Coder-0.5B (dev): "a quarter of an hour" -> minutes=30
    assert fix_duration("Set a timer for a quarter of an hour.", timer,
                        {"minutes": 30, "hours": 0, "seconds": 0, "label": "timer"}) == {
        "label": "timer", "hours": 0, "minutes": 15, "seconds": 0}
    assert fix_duration("An hour and a half.", timer, {"hours": 1}) == {"hours": 1, "minutes": 30}
    assert fix_duration("Half an hour.", timer, {"minutes": 30}) is None  # right already
    assert fix_duration("Half an hour.", timer, {"hours": 0, "minutes": 20, "seconds": 600}) is None  # 1800 s too
    assert fix_duration("Half an hour.", TOOLS["set_volume"], {"level": 30}) is None  # no time units
    assert spread(5400, {"minutes": 60}) == {"minutes": 90}
    assert spread(30, {"minutes": 60}) is None  # half a minute does not fit in whole minutes


def test_the_ends_of_a_range():
    assert value_range(TOOLS["set_volume"].parameters["properties"]["level"]) == (0, 100)  # "0 to 100"
    assert value_range({"type": "integer", "minimum": 16, "maximum": 30}) == (16, 30)
    assert value_range(TOOLS["set_thermostat"].parameters["properties"]["temperature"]) is None
    # Qwen2.5-Coder-0.5B (dev): "Max volume." -> change "up" with no level
    assert fix_extreme("Max volume.", TOOLS["set_volume"], {"change": "up", "level": None}) == {
        "change": "up", "level": 100}
    assert fix_extreme("Lights in the office on full.", TOOLS["set_light"], {"room": "office", "on": True}) == {
        "room": "office", "on": True, "brightness": 100}
    assert fix_extreme("Kitchen light at its lowest.", TOOLS["set_light"], {"room": "kitchen", "on": True}) == {
        "room": "kitchen", "on": True, "brightness": 1}
    assert fix_extreme("Volume all the way down.", TOOLS["set_volume"], {"change": "down"}) == {
        "change": "down", "level": 0}
    assert fix_extreme("Max volume.", TOOLS["set_volume"], {"level": 100}) is None  # right already
    assert fix_extreme("Volume to 90, the max.", TOOLS["set_volume"], {"level": 90}) is None  # a number said
    assert fix_extreme("Heat to the max.", TOOLS["set_thermostat"], {"temperature": 30}) is None  # no range


def test_the_hook_sets_them_before_the_tool_runs():
    home = Home()
    be = ScriptedBackend([call("start_timer", minutes=30, hours=0, seconds=0)], preset="qwen25")
    ag = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=be, hooks=default_slm_hooks())
    ag.run("Set a timer for a quarter of an hour.")
    assert home.timers[0]["seconds"] == 900 and ag.hook_stats["unit_args"] == 1


@pytest.mark.model
def test_on_the_real_model(qwen_backend):
    from edgevox.examples.home import home_agent

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")  # the shipped calling profile
    agent, home = home_agent(model)
    r = agent.run("Start a timer for three quarters of an hour.")  # without the hook: minutes=15
    assert [t["seconds"] for t in home.timers] == [2700], (r.calls, r.reply)
    agent, home = home_agent(model)
    r = agent.run("Speaker to the lowest volume.")  # without the hook: change "down", volume 30
    assert home.media["volume"] == 0, (r.calls, r.reply)
