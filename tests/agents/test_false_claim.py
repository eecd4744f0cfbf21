"""False claims: finding them in replies, and the hook that retries or rephrases them.

The claim texts marked QWEN are replies Qwen2.5-Coder-0.5B wrote in the home evaluation
(issue 14); the home evaluation's real-model test runs the hook live.
"""

from __future__ import annotations

from typing import Literal

import pytest
from agent_fakes import ScriptedBackend, call
from agent_tools import get_time, get_weather, set_lights

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.claims import (
    find_claims,
    made_up_readings,
    unbacked,
    unreadable_readings,
    unserved_claims,
)
from edgevox.agents.types import CallRecord
from edgevox.tools import tool


@tool
def start_timer(minutes: int) -> str:
    """Start a countdown timer.

    Args:
        minutes: Length in minutes.
    """
    return f"timer set for {minutes} minutes"


CLAIMS = [
    "I'm setting a timer for 12 minutes.",  # QWEN, no call behind it
    "Actually took that off again.",  # dev21 (session 25), no call behind it
    "Canceling the timer.",  # dev28 (session 27), no call behind it
    "Sure, turning off the hallway light now.",
    "Sesame oil added to the list.", "Oat milk taken off the shopping list.",
    "Hallway lights are on.",  # QWEN, after demonstrations, no call
    "The garage light is now turned off.",  # QWEN, after a call that switched it on
    "I've turned on the kitchen light.",
    "Timer set for 5 minutes.",
    "Done.",
    "Okay, added milk to your shopping list.",
    "Now playing jazz.",
    "The thermostat has been set to 22 degrees.",
    "Back to previous track.",  # QWEN (dev12, session 20): "No wait, go back, I liked that.", no call
    "Next track.",
    "Playing.",
    "The kitchen light is brighter.",  # a change said as a comparison (session 22)
    "The music's a bit louder now.",
    "The house is now warmer.",
]
NOT_CLAIMS = [
    "Sesame oil wasn't added to the list.", "Should it be added to the list?",
    "I can't turn on the fan, there's no tool for it.",
    "Should I turn off the bedroom light?",
    "Would you like me to set a timer?",
    "It's 14 degrees and partly cloudy.",
    "It is 18:30 on Tuesday.",
    "Sorry, I didn't do that.",
    "Paris is the capital of France.",
    "You're welcome!",
    "Sure, here's a joke: why did the tomato turn red?",
    "The room is warmer than outside.",  # a comparison, no change
    "The temperature is colder in the morning.",
    "Setting timers is something I can't do.", "Adding up 2 and 3 gives 5.",
]


def test_claims_are_found_and_refusals_questions_answers_are_not():
    for text in CLAIMS:
        assert find_claims(text), text
    for text in NOT_CLAIMS:
        assert not find_claims(text), text


def _rec(name, on=None, error=None, **args):
    if on is not None:
        args["on"] = on
    return CallRecord(name, args, result="ok" if error is None else None, error=error)


def test_a_claim_is_backed_by_a_successful_call_on_its_topic_in_its_direction():
    assert unbacked("I'm setting a timer for 12 minutes.", [])
    assert not unbacked("Timer set for 12 minutes.", [_rec("start_timer", minutes=12)])
    assert unbacked("Timer set for 12 minutes.", [_rec("set_lights", room="kitchen", on=True)])  # wrong topic
    assert unbacked("Timer set for 12 minutes.", [_rec("start_timer", error="boom", minutes=12)])  # failed
    garage_on = [_rec("set_lights", room="garage", on=True)]
    assert "switched it on" in unbacked("The garage light is now turned off.", garage_on)[0]
    assert not unbacked("The garage light is now on.", garage_on)
    assert not unbacked("Done.", garage_on) and unbacked("Done.", [])
    assert not unbacked("It's 14 degrees and partly cloudy.", [])
    heat = [_rec("set_thermostat", temperature=23)]
    assert "23" not in unbacked("The thermostat has been set to 22 degrees.", heat)[0]
    assert not unbacked("The thermostat has been set to 23 degrees.", heat)
    dim = [CallRecord("set_light", {"room": "office", "on": True}, result={"brightness": 40})]
    assert not unbacked("The office light is now on at 40%.", dim)  # the amount came back in the result
    assert unbacked("The office light is now set to 60 percent.", dim)


@tool
def set_light(room: Literal["kitchen", "living room", "office", "all"], on: bool, brightness: int | None = None) -> dict:
    """Switch the light of a room on or off, or dim it.

    Args:
        room: Which room's light; "all" for every light.
        on: True to switch on, False to switch off.
        brightness: Brightness in percent.
    """
    return {"room": room, "on": on, "brightness": brightness or 100}


def test_a_claim_naming_a_target_no_call_chose_is_false():
    kitchen = [CallRecord("set_light", {"room": "kitchen", "on": True}, result={"brightness": 100})]
    tools = [set_light]
    assert not unbacked("The kitchen light is on.", kitchen, _registry(tools))
    why = unbacked("The kitchen light is on, and the living room light is dimmed to 100 percent.", kitchen,
                   _registry(tools))
    assert why and "living room" in why[0]
    assert unbacked("I turned on the office light.", kitchen, _registry(tools))
    assert unbacked("All the lights are on.", kitchen, _registry(tools))  # "all" of the topic is a target
    assert not unbacked("All set, the kitchen light is on.", kitchen, _registry(tools))  # "all set" is not
    every = [CallRecord("set_light", {"room": "all", "on": True}, result={})]
    assert not unbacked("The office light is on.", every, _registry(tools))  # a call for all backs each one
    # every topic a sentence names needs its own call
    assert unbacked("The kitchen light is on and the timer is started.", kitchen, _registry(tools))


def _registry(tools):
    from edgevox.tools import ToolRegistry

    return ToolRegistry(list(tools))


def test_a_reply_claiming_another_target_after_a_call_is_said_from_the_results():
    ag, be = _agent([call("set_light", room="kitchen", on=True),
                     "The kitchen light is on, and I dimmed the living room light to 40 percent.",
                     "The kitchen light is on and the living room light is at 40 percent."], tools=(set_light,))
    r = ag.run("Kitchen light on and dim the living room to 40 percent.")
    assert [c.name for c in r.calls] == ["set_light"] and "living room" not in r.reply
    assert r.reply.startswith("Done: set light:") and ag.hook_stats["false_claim"] == 2


def _agent(script, tools=(get_time, get_weather, set_lights, start_timer), **kw):
    be = ScriptedBackend(script)
    return LLMAgent("t", "", "Be brief.", tools=list(tools), model=be, hooks=default_slm_hooks(), **kw), be


def test_a_claim_without_a_call_is_retried_and_the_call_is_made():
    ag, be = _agent(["I'm setting a timer for 12 minutes.", call("start_timer", minutes=12),
                     "Timer set for 12 minutes."])
    r = ag.run("Set a timer for 12 minutes for the pasta")
    assert [c.name for c in r.calls] == ["start_timer"] and r.calls[0].ok
    assert r.reply == "Timer set for 12 minutes."
    assert "Nothing has been done yet" in be.requests[1]["prompt"]
    assert be.requests[1]["grammar"].strategy == "required"  # the retry must call (grounding guards it)
    assert ag.hook_stats["false_claim"] == 1


def test_a_second_claim_is_replaced_by_the_truth():
    ag, _ = _agent(["Hallway lights are on.", "The hallway lights are now on."])
    r = ag.run("hallway lights")
    assert r.calls == [] and r.reply == ag.phrases.not_done
    assert ag.hook_stats["false_claim"] == 2


def test_a_contradiction_is_said_from_the_results_and_never_half_spoken():
    ag, _ = _agent([call("set_lights", room="garage", on=True), "The garage light is now turned off.",
                    "The garage light is off."])
    stream = ag.run_stream("garage light on")
    spoken = "".join(p for p in stream if isinstance(p, str))
    r = stream.result
    assert "off" not in spoken and "off" not in r.reply
    assert r.reply.startswith("Done: set lights: lights in the garage are on")


def test_a_refusal_said_of_another_value_is_said_as_the_tool_gave_it_and_never_half_spoken():
    # dev42 (session 30): "And the 2 peppers too." was refused, and the reply repeated the turn
    # before's "The item '3 onions' is not on the shopping list."
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("remove_from_shopping_list", item="2 peppers"),
                          "The item '3 onions' is not on the shopping list."], preset="qwen2.5-coder-0.5b")
    ag, home = home_agent(be, hooks=default_slm_hooks(relevance=False))
    stream = ag.run_stream("Take the 2 peppers off the list.")
    spoken = "".join(p for p in stream if isinstance(p, str))
    assert "onions" not in spoken and stream.result.reply == "Sorry, '2 peppers' is not on the shopping list."
    # the refusal said of its own value passes
    be = ScriptedBackend([call("remove_from_shopping_list", item="2 peppers"),
                          "The item '2 peppers' is not on the shopping list."], preset="qwen2.5-coder-0.5b")
    ag, home = home_agent(be, hooks=default_slm_hooks(relevance=False))
    assert ag.run("Take the 2 peppers off the list.").reply == "The item '2 peppers' is not on the shopping list."


def test_honest_replies_pass_untouched():
    ag, be = _agent([call("set_lights", room="kitchen", on=True), "The kitchen light is on.", "Hello! How can I help?"])
    assert ag.run("kitchen light on").reply == "The kitchen light is on."
    assert ag.run("hi").reply == "Hello! How can I help?"
    assert "false_claim" not in ag.hook_stats and len(be.requests) == 3


DEVICE_CLAIMS = [
    "The window is open.",  # QWEN (dev11, session 20): "And could you open the window?", no call
    "The fan's on now.",
    "The blinds are all down.",
    "I've locked the front door.",
    "I've switched on the living room fan.",
    "The robot vacuum is now cleaning the bedroom.",
]
NOT_DEVICE_CLAIMS = [
    "Sorry, I can't control the window.",
    "I've turned on the light by the window.",  # the light is what was acted on
    "The supermarket is open until ten.",  # not a device
    "Would you like me to close the blinds?",
    "Is the garage door open?",
]


def test_a_device_said_to_be_put_in_a_state_is_a_claim_about_that_device():
    for text in DEVICE_CLAIMS:
        assert find_claims(text) and find_claims(text)[0].devices, text
    for text in NOT_DEVICE_CLAIMS:
        assert not any(c.devices for c in find_claims(text)), text
    reg = _registry([set_light, start_timer])
    kitchen = [CallRecord("set_light", {"room": "kitchen", "on": True}, result={"brightness": 100})]
    assert "window" in unbacked("The window is open.", [], reg)[0]
    assert "fan" in unbacked("The kitchen light is on and the fan is on.", kitchen, reg)[0]  # the light backs only itself
    assert not unbacked("I've turned on the light by the window.", kitchen, reg)
    assert unserved_claims("The window is open.", reg) == ["window"]
    assert unserved_claims("The kitchen light is on.", reg) == []


def test_a_device_no_tool_is_for_said_done_becomes_a_refusal_without_a_retry():
    ag, be = _agent(["The window is open.", "The window is open now."])
    r = ag.run("And could you open the window?")
    assert r.calls == [] and r.reply == "Sorry, I can't control the window." and len(be.requests) == 1
    ag, be = _agent(["The garage door is closed."])
    assert ag.run("Is the garage door closed?").reply == "Sorry, I can't check that."
    ag, _ = _agent(["Sure thing. The blinds are shut."])
    stream = ag.run_stream("Shut the blinds.")
    spoken = "".join(p for p in stream if isinstance(p, str))
    assert "are shut" not in spoken and spoken.endswith("Sorry, I can't control the blinds.")
    assert stream.result.reply == "Sure thing. Sorry, I can't control the blinds."  # what was heard, whole


def test_text_streams_word_by_word_and_a_claim_sentence_is_never_begun():
    story = "Long ago there was a small dragon who liked soup. I've turned on the kitchen light."
    ag, _ = _agent([story, "I can't do that."])
    stream = ag.run_stream("tell me a story")
    pieces = [p for p in stream if isinstance(p, str)]
    spoken = "".join(pieces)
    assert spoken.startswith("Long ago there was a small dragon who liked soup.")
    assert len([p for p in pieces if "soup" not in p and p.strip()]) >= 3  # not one sentence-sized lump
    assert "I've" not in spoken and "kitchen" not in spoken and "kitchen" not in stream.result.reply


def test_the_blank_after_a_sentence_end_is_passed_on_at_once():
    from edgevox.agents.slm.false_claim import _HoldClaims

    f = _HoldClaims(None)  # no claim words below: the turn's records are never read
    assert f.feed("Hello!") == "Hello!"
    assert f.feed(" How") == " "  # so the speaker knows "Hello!" ended; "How" is held
    assert f.feed(" can I help you today") == "How can I help you "  # then word by word


@pytest.mark.model
def test_on_the_real_model_a_reply_names_only_what_the_calls_did(qwen_backend):
    """Two lights asked for, without ``say=``: the model words the reply itself, and no
    room it names may be one no call chose (the hook retries or says the results)."""
    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    agent = LLMAgent("t", "", "You control the lights. Answer in one short sentence.", tools=[set_light], model=model,
                     hooks=default_slm_hooks(), temperature=0.0)
    text = "Turn on the kitchen light and dim the living room light to 40 percent."
    r = agent.run(text)
    assert r.reply.strip() and not unbacked(r.reply, r.calls, agent.registry), (text, r.calls, r.reply)
    chosen = {c.arguments.get("room") for c in r.calls if c.ok}
    for room in ("kitchen", "living room"):
        assert room not in r.reply.lower() or room in chosen or "all" in chosen, (r.calls, r.reply)


def test_a_time_or_the_weather_said_with_no_call_that_read_it_is_made_up():
    from edgevox.tools import ToolRegistry

    reg = ToolRegistry([get_time, get_weather, set_lights])
    # QWEN: "Time please." with no call, on three tuning splits
    assert made_up_readings("The current local time is 10:30 AM.", [], reg) == [
        ("time", "The current local time is 10:30 AM.")]
    assert made_up_readings("It is 14 degrees and partly cloudy in Rome.", [], reg)[0][0] == "weather"
    assert made_up_readings("It's 3 pm.", [], reg)
    # session 13, the weather/time/timer dicts: stated outright, or as an ISO stamp
    assert made_up_readings("Yes, it is raining in Berlin today.", [], reg)[0][0] == "weather"
    assert made_up_readings("It's sunny in Paris right now.", [], reg)[0][0] == "weather"
    assert made_up_readings("2023-10-01T14:00:00Z", [], reg)[0][0] == "time"
    # dev36 (session 28): the weather said with no number, after an action, no call behind it
    assert made_up_readings("The weather is going to be cloudy.", [], reg)[0][0] == "weather"
    assert made_up_readings("It's going to rain later.", [], reg)[0][0] == "weather"
    for text in ("I can't tell whether it is raining.", "Tell me if it's sunny and I'll go out.",
                 "Bring an umbrella if it is raining."):
        assert not made_up_readings(text, [], reg), text
    # backed by a call that read it; not a reading; no reader in the registry; a question back
    assert not made_up_readings("It is 14:05.", [_rec("get_time")], reg)
    for text in ("Water boils at 100 degrees.", "I have 2 cats.", "Rain is likely.", "Is it 3 pm already?"):
        assert not made_up_readings(text, [], reg), text
    assert not made_up_readings("It is 10:30.", [], ToolRegistry([set_lights]))

    @tool
    def calculate_time(distance: float, speed: float) -> float:
        """Calculates the time taken to cover a distance at a certain speed."""
        return distance / speed

    # BFCL irrelevance_17: a travel-time calculator is no clock (a retry would have called it)
    assert not made_up_readings("The time is currently 12:00 PM.", [], ToolRegistry([calculate_time]))
    assert not made_up_readings("It is 10:30.", [], None)


def test_a_made_up_time_is_retried_as_a_call_and_never_begun_in_the_stream():
    ag, be = _agent(["The current local time is 10:30 AM.", call("get_time"), "It is 14:05."])
    stream = ag.run_stream("Time please.")
    spoken = "".join(p for p in stream if isinstance(p, str))
    r = stream.result
    assert [c.name for c in r.calls] == ["get_time"] and r.calls[0].ok
    assert "10:30" not in spoken and "current local" not in spoken and r.reply == "It is 14:05."
    assert "that time was made up" in be.requests[1]["prompt"]
    assert be.requests[1]["grammar"].strategy == "required"
    ag, _ = _agent(["It is 10:30.", "It is 11:00."])  # made up twice: the truth instead
    r = ag.run("Time please.")
    assert r.calls == [] and r.reply == ag.phrases.not_done and "10:30" not in r.reply


@pytest.mark.model
def test_on_the_real_model_the_time_comes_from_the_clock(qwen_backend):
    """Measured on the tuning splits: the home agent answered "Time please." with a made-up
    "10:30 AM"; the clock here is fixed at 07:45, so a time in the reply came from the tool."""
    import datetime as dt

    from edgevox.examples.home import Home, home_agent

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    for text in ("Time please.", "Clock?"):
        agent, home = home_agent(model, home=Home(now=dt.datetime(2026, 3, 4, 7, 45)))
        r = agent.run(text)
        times = [m for m in ("10:30", "07:45", "7:45") if m in r.reply]
        assert [c.name for c in r.calls if c.dispatched] == ["get_time"] and times and set(times) <= {"07:45", "7:45"}, \
            (text, r.calls, r.reply)


@tool
def calculate_travel_time(distance_km: float, speed_kmh: float) -> float:
    """Calculate how long a trip takes at a given speed, in hours."""
    return distance_km / speed_kmh


def test_a_time_no_tool_could_read_is_made_up_unless_the_user_gave_one():
    from edgevox.tools import ToolRegistry

    travel = ToolRegistry([calculate_travel_time])
    assert unreadable_readings("The time is currently 12:00 PM.", "What's the time?", travel) == [
        ("time", "The time is currently 12:00 PM.")]
    assert unreadable_readings("It's 18 degrees and sunny.", "Weather?", travel)[0][0] == "weather"
    # a clock in the registry (then it is made_up_readings' retry); a time the user gave; no reading
    assert not unreadable_readings("It is 10:30.", "Time?", ToolRegistry([get_time]))
    assert not unreadable_readings("That makes it 9:30 pm.", "What's 7:30 pm plus 2 hours?", travel)
    assert not unreadable_readings("The trip takes 3 hours.", "How long to drive 300 km at 100?", travel)
    assert not unreadable_readings("It is 10:30.", "Time?", None)


def test_a_time_no_tool_could_read_becomes_an_honest_reply_and_is_never_begun():
    ag, be = _agent(["The current time is 10:30 AM.", "It is 10:31."], tools=(calculate_travel_time,))
    stream = ag.run_stream("What time is it?")
    spoken = "".join(p for p in stream if isinstance(p, str))
    r = stream.result
    assert "10:30" not in spoken and r.reply == ag.phrases.cannot_read.format(kind="time") == spoken.strip()
    assert r.calls == [] and len(be.requests) == 1  # nothing to retry with: no second generation


@pytest.mark.model
def test_on_the_real_model_a_time_with_no_clock_is_not_made_up(qwen_backend):
    """Measured: with only a travel-time calculator, "What's the time right now?" was answered
    "The time is currently 12:00 PM." (BFCL irrelevance_17's shape); a sum of the user's own
    times is still worked out."""
    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    for text in ("What's the time right now?", "What time is it?"):
        agent = LLMAgent("t", "", "Answer in one short sentence.", tools=[calculate_travel_time], model=model,
                         hooks=default_slm_hooks(), temperature=0.0)
        r = agent.run(text)
        assert r.calls == [] and not any(ch.isdigit() for ch in r.reply), (text, r.reply)
    agent = LLMAgent("t", "", "Answer in one short sentence.", tools=[calculate_travel_time], model=model,
                     hooks=default_slm_hooks(), temperature=0.0)
    r = agent.run("Remind me what 7:30 plus 2 hours is.")
    assert r.reply != agent.phrases.cannot_read.format(kind="time") and agent.hook_stats.get("false_claim") is None, r.reply


@pytest.mark.model
def test_on_the_real_model_plain_tool_dicts_read_the_weather_and_the_time(qwen_backend):
    """Session 13, the weather/time/timer dicts of ``clock_weather`` (no examples): the model
    answered "Is it raining in Berlin today?" with "Yes, it is raining in Berlin today." and
    "What time is it in Tokyo?" with an ISO stamp, no call behind either; now each is retried
    as the call, and the reply says what the tool returned."""
    from edgevox.examples.clock_weather import TIME, WEATHER
    from edgevox.tools import Tool

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    weather = Tool.from_schema(WEATHER, lambda city, unit="celsius": {"city": city, "sky": "dry and sunny", "c": 21})
    clock = Tool.from_schema(TIME, lambda timezone: {"timezone": timezone, "time": "07:45"})
    for text, name in (("Is it raining in Berlin today?", "get_weather"), ("What time is it in Tokyo?", "get_time")):
        agent = LLMAgent(tools=[weather, clock], model=model, hooks=default_slm_hooks(), temperature=0.0)
        r = agent.run(text)
        assert [c.name for c in r.calls if c.ok] == [name], (text, r.calls, r.reply)
        assert not made_up_readings(r.reply, r.calls, agent.registry), r.reply
