"""Grounding: which calls are about the request (pure logic on the home registry), the
hook's turn on a scripted backend, and the hook on the real Qwen2.5-Coder-0.5B."""

from __future__ import annotations

from typing import Literal

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.devices import unserved_devices
from edgevox.agents.slm.grounding import changes_what_was_said, stepped
from edgevox.agents.slm.not_about import why_not
from edgevox.agents.slm.places import unknown_place
from edgevox.agents.slm.questions import is_question
from edgevox.agents.slm.several_asks import (
    from_another_part,
    strays_from,
    without_the_other_parts_words,
)
from edgevox.agents.slm.vocabulary import changes_things, target_words
from edgevox.examples.home import Home
from edgevox.tools import ToolRegistry

TOOLS = {t.name: t for t in Home().tools()}
ALL = list(TOOLS.values())


@pytest.mark.parametrize(("request_", "name", "arguments", "why"), [
    # the calls Qwen2.5-Coder-0.5B made for requests no tool serves (home evaluation, dev)
    ("Close the blinds.", "set_thermostat", {"temperature": 0}, "device"),
    ("Raise the bedroom blinds.", "set_light", {"room": "bedroom", "on": True}, "device"),  # a room is not a light
    ("Put the TV on channel four.", "set_volume", {"change": "up"}, "device"),
    ("Open the garage.", "set_light", {"room": "garage", "on": True}, "device"),  # only doors open
    ("How long until the pasta timer goes off?", "start_timer", {"minutes": 10, "label": "pasta"}, "question"),
    ("Is the kitchen light on?", "set_light", {"room": "kitchen", "on": True}, "question"),
    ("Who painted the Mona Lisa?", "play_music", {"query": "maya"}, "question"),
    ("What is 15 plus 27?", "start_timer", {"minutes": 15}, "question"),
    ("Turn the lights on in the conservatory.", "set_light", {"room": "all", "on": True}, "place"),
    ("Turn off the pantry light.", "set_light", {"room": "all", "on": False}, "place"),
    ("Set the laundry room light to 50 percent.", "set_light", {"room": "living room", "on": True}, "place"),
    ("Start the washing machine.", "start_timer", {"minutes": 10}, "device"),
    ("Stop the lawnmower.", "cancel_timer", {"label": "lawnmower"}, "device"),  # "stop" names no device
    # devices said in two letters, amounts that name no thing, terse questions (dev3, session 5)
    ("Turn the TV on in the living room.", "set_light", {"room": "living room", "on": True}, "device"),
    ("Unlock the front door for 5 minutes.", "start_timer", {"minutes": 5}, "device"),
    ("Any timers running?", "start_timer", {"minutes": 0}, "question"),
    ("Wake me in 20 minutes.", "start_timer", {"minutes": 20}, None),  # a unit still grounds a timer
    ("Water the lawn for 10 minutes.", "start_timer", {"minutes": 10}, "device"),  # a lawn is no timer's
    ("Check the pasta timer.", "start_timer", {"seconds": 90, "label": "pasta"}, "question"),  # "check" asks
    ("Convert 20 degrees Celsius to Fahrenheit.", "set_thermostat", {"temperature": 20}, "question"),  # so does "convert"
    # a state said as "... status." (dev4, session 6); a reader asked about a room of the home
    ("Bathroom light status.", "set_light", {"room": "bathroom", "on": True}, "question"),
    ("How warm is it in the bedroom?", "get_weather", {}, "question"),
    ("Weather in Paris.", "get_weather", {"location": "Paris"}, None),  # a city is the weather's own
    ("Is it chilly in the den right now?", "get_weather", {}, "question"),  # a place the call leaves out
    ("Why is the sky blue?", "get_weather", {}, "question"),  # a reason: no tool's
    ("Is it cold out?", "get_weather", {}, None),  # said in the weather's phrasings
    ("Unpause.", "media_control", {"action": "pause"}, "unrelated"),  # the opposite of what was said
    ("Unpause.", "media_control", {"action": "play"}, None),
    ("Hello!", "set_light", {"room": "living room", "on": True}, "unrelated"),
    ("Ugh, Mondays.", "set_light", {"room": "living room", "on": True}, "unrelated"),
    # right calls stay grounded
    ("Turn the lights on in the living room.", "set_light", {"room": "living room", "on": True}, None),
    ("Skip this song in the bedroom.", "media_control", {"action": "next"}, None),  # a room the home has
    ("Turn off the fan and the office light.", "set_light", {"room": "office", "on": False}, None),
    ("Can you turn the kitchen light on?", "set_light", {"room": "kitchen", "on": True}, None),  # polite
    ("Kitchen to 40 percent.", "set_light", {"room": "kitchen", "on": True, "brightness": 40}, None),
    ("What's the weather like?", "get_weather", {}, None),  # a question to a reader
    ("What time is it?", "get_time", {}, None),
    ("How about some jazz?", "play_music", {"query": "jazz"}, None),
    ("Jazz please.", "play_music", {"query": "jazz"}, None),  # by its required argument
    ("Same for the hallway.", "set_light", {"room": "hallway", "on": True}, None),
    ("Pause.", "media_control", {"action": "pause"}, None),  # an enum value
    ("It's freezing, bump the heating up.", "set_thermostat", {"temperature": 23}, None),  # stems
    ("Turn the music up to the max.", "set_volume", {"change": "up"}, None),  # said in set_volume's examples
    ("Quieter.", "set_volume", {"change": "down"}, None),  # a third example: words only, not shown
    ("Shopping list: coffee.", "add_to_shopping_list", {"item": "coffee"}, None),
    ("Something relaxing, maybe lo-fi.", "play_music", {"query": "lo-fi"}, None),  # the argument, verbatim
    ("Find the integral of x^3 from 1 to 5.", "add_to_shopping_list", {"item": "x^3"}, "unrelated"),  # not words
    ("Find the integral of x^3 from 1 to 5.", "add_to_shopping_list", {"item": "1 to 5"}, "unrelated"),
    ("Crank it up a bit.", "set_volume", {"change": "up"}, None),  # the call's own enum value, said
    ("Thanks. Now turn it off again.", "set_light", {"room": "bathroom", "on": False}, "unrelated"),  # alone
    # session 7, dev5 (run before any change): a transcript's question without "?", a request
    # to read a state out, a place no room of the home is, a service no tool gives
    ("any timers going right now", "start_timer", {"minutes": 0}, "question"),
    ("uh is the garage light still on", "set_light", {"room": "garage", "on": True}, "question"),
    ("Read me the shopping list.", "add_to_shopping_list", {"item": "Read me the shopping list."}, "question"),
    ("Conservatory light off.", "set_light", {"room": "garage", "on": False}, "place"),
    ("Attic lights on.", "set_light", {"room": "all", "on": True}, "place"),
    ("Remind me to ring the dentist tomorrow.", "start_timer",
     {"label": "Remind me to ring the dentist tomorrow.", "minutes": 0}, "unrelated"),  # the request as a name
    ("Remind me in 20 minutes.", "start_timer", {"minutes": 20}, None),
    # dev7 (session 8): a service asked for that the called tool does not give
    ("Remind me to take the bins out tonight.", "remove_from_shopping_list", {"item": "bins"}, "unrelated"),
    ("Order us a Chinese takeaway.", "play_music", {"query": "chinese takeaway"}, "unrelated"),
    ("uh turn the bathroom light on", "set_light", {"room": "bathroom", "on": True}, None),  # a filler asks nothing
    ("Put pizza dough on the list.", "add_to_shopping_list", {"item": "pizza dough"}, None),
    # dev8 (session 9, run once before any change): "shut ... off" closes nothing; a device the
    # order opens on though the verb is the tool's ("heat"); "how come" asks why; a calendar
    # entry, an order placed, a song sung
    ("Shut every lamp in the house off.", "set_light", {"room": "all", "on": False}, None),
    ("Shut the music off, we're done for tonight.", "media_control", {"action": "stop"}, None),
    ("Shut the garage door.", "set_light", {"room": "garage", "on": False}, "device"),
    ("Heat the oven to two hundred and twenty.", "set_thermostat", {"temperature": 200}, "device"),
    ("Heat the house to 21.", "set_thermostat", {"temperature": 21}, None),
    # dev42 (session 30): a device's own setting; a tub as a measure
    ("TV volume to 20.", "set_volume", {"level": 20}, "device"),
    ("Volume to 20, the TV is off.", "set_volume", {"level": 20}, None),
    ("Oh, and 2 tubs of cream cheese too.", "add_to_shopping_list", {"item": "cream cheese"}, None),
    ("How come the sky looks blue in the daytime?", "get_weather", {}, "question"),
    ("Add dentist on Tuesday to my calendar.", "add_to_shopping_list", {"item": "dentist"}, "unrelated"),
    ("Order a curry from the usual place.", "play_music", {"query": "curry"}, "unrelated"),
    ("Can you sing happy birthday to my son?", "play_music", {"query": "happy birthday"}, "unrelated"),
    ("Sing me a song.", "play_music", {"query": "song"}, "unrelated"),
    ("Play happy birthday.", "play_music", {"query": "happy birthday"}, None),
    ("Sort the list in alphabetical order.", "add_to_shopping_list", {"item": "list"}, None),  # not an order placed
    # session 10 (dev6 to dev8): a word of a tool on the same device as the call's; an illness and
    # a visitor name no weather and no door; small talk asks after the speaker
    ("Turn it up, I love this song.", "set_volume", {"change": "up"}, None),
    ("Cool it down to 19.", "set_volume", {"change": "down"}, "unrelated"),  # the thermostat's word
    ("i think i'm coming down with a cold", "get_weather", {}, "unrelated"),
    ("Will it be a cold day tomorrow?", "get_weather", {}, None),
    ("Pause the music, someone's at the door.", "media_control", {"action": "pause"}, None),
    ("Open the door.", "media_control", {"action": "play"}, "device"),
    ("Morning! How are we today?", "get_time", {}, "unrelated"),
    ("How are we doing for time?", "get_time", {}, None),
    ("Temp 19.", "set_thermostat", {"temperature": 19}, None),  # a short form of the tool's word
    ("Temp 19.", "set_light", {"room": "living room", "on": True, "brightness": 19}, "unrelated"),
    # session 11 (dev9): a polite request after a statement or a lead-in is no question; a
    # garden is a place the home lacks; a towel rail is a device no tool serves
    ("Get some light going in the dining room, will you?", "set_light", {"room": "dining room", "on": True}, None),
    ("When you get a moment, could you turn the hallway light on for me?", "set_light", {"room": "hallway", "on": True}, None),
    ("The cake needs thirty-five minutes, can you time it?", "start_timer", {"minutes": 35}, None),
    ("The hallway light, can you check if it's on?", "set_light", {"room": "hallway", "on": True}, "question"),
    ("uh garden lights on please", "set_light", {"room": "garage", "on": True}, "place"),
    ("Turn on the heated towel rail in the bathroom.", "set_light", {"room": "bathroom", "on": True}, "device"),
    # dev10 (session 11): a trick, a joke's topic, the device after an adjective, a time of day
    ("Can you play dead?", "play_music", {"query": "dead"}, "unrelated"),
    ("Do you know any jokes about the weather?", "get_weather", {}, "unrelated"),
    ("Play some songs about love.", "play_music", {"query": "love"}, None),
    ("Heat the hot tub to thirty-eight degrees.", "set_thermostat", {"temperature": 38}, "device"),
    ("Set an alarm for six tomorrow morning.", "start_timer", {"hours": 6, "label": "six tomorrow morning"}, "unrelated"),
    ("Remind me at half five to feed the cat.", "start_timer", {"minutes": 30, "label": "feed the cat"}, "unrelated"),
    ("Set a timer for 20 minutes, dinner is at 7.", "start_timer", {"minutes": 20}, None),
    # dev24 (session 26): a room the home lacks said first; the weather as what "it" does; an
    # alarm for an hour; a calendar and a call are other services; a thing ready is a reason
    # (but why its timer is cancelled)
    ("den to 20 percent", "set_light", {"room": "living room", "on": True, "brightness": 20}, "place"),
    ("what's it doing in Perth this arvo?", "get_weather", {"location": "Perth"}, None),
    ("set an alarm for 7", "start_timer", {"minutes": 7}, "unrelated"),
    ("set an alarm for 10 minutes", "start_timer", {"minutes": 10}, None),
    ("check my calendar, is the dentist Thursday or Friday?", "get_time", {}, "unrelated"),
    ("ring the Golden Dragon and order what we had last Friday", "play_music", {"query": "Golden Dragon"}, "unrelated"),
    ("can you pop the dining room lights on for us, tea's nearly ready", "play_music", {"query": "tea"}, "unrelated"),
    ("kill the timer, the rice is done already", "cancel_timer", {"label": "rice"}, None),
    # dev26: a name the assistant is called by first; a question inside a line that opens as none;
    # waking someone is an alarm; a door next door is no device
    ("Computer, play some jazz.", "play_music", {"query": "jazz"}, None),
    ("hey house which lights are on right now", "set_light", {"room": "all", "on": True}, "question"),
    ("timer how much time remaining", "start_timer", {"seconds": 10}, "question"),
    ("the heating it is at what number at the moment", "set_thermostat", {"temperature": 22}, "question"),
    ("wake me up at six tomorrow", "get_weather", {"location": "six tomorrow"}, "unrelated"),
    ("wake me up in 20 minutes", "start_timer", {"minutes": 20}, None),
])
def test_why_a_call_is_not_about_the_request(request_, name, arguments, why):
    assert why_not(request_, TOOLS[name], arguments, ALL) == why


def test_vocabulary_comes_from_the_registry():
    assert {"light", "brightnes"} <= target_words(TOOLS["set_light"])
    assert "kitchen" not in target_words(TOOLS["set_light"])  # a room says where, not what
    assert [n for n, t in TOOLS.items() if not changes_things(t)] == ["get_weather", "get_time"]
    assert unserved_devices("Turn on the ceiling fans and the hallway light.", ALL) == {"fan"}
    assert unserved_devices("Add a new fan to the shopping list.", ALL) == {"fan"}  # named, yet the list is served
    assert is_question("Are the lights on?") and not is_question("Could you dim the lights?")
    assert not is_question("What about the bedroom?") and is_question("Pasta timer status?")
    assert not is_question("Do the bedroom as well.") and is_question("Do you know the time?")
    assert is_question("Does it rain?") and not is_question("Do the kitchen next.")
    assert is_question("Volume level?") and is_question("Bedroom humidity?")  # terse, said as a question
    # dev56 (session 35): a suggestion or an order with a tag, anywhere in the line, asks for something
    assert not is_question("It's a bit quiet in here — how about some bossa nova?")
    assert not is_question("Any chance of some light in the bathroom, about half brightness? My eyes aren't awake yet.")
    assert not is_question("We'll need a lot more coffee than we've got, add some to the list, yeah?")
    assert is_question("Any chance it'll rain today?")
    assert not is_question("Could the bathroom be a bit brighter, like 80?") and not is_question("Mind turning it off?")
    assert not is_question("Bring the heat up, would you?") and is_question("Is the light on, can you check?")
    assert is_question("If you could, what is the time?") and is_question("When does the shop open?")
    # dev28 (session 27): a reason first, then the polite request
    assert not is_question("My hands are full with the bags, so would you mind flicking on the hallway light?")
    assert not is_question("Ooh, it's a bit nippy in here, love. Could you bump the heating up to 23 for me?")
    # dev44 (session 31): "can we" after a reason asks as "can you" does
    assert not is_question("It's freezing, can we go to 70 Fahrenheit?")
    # dev46: a level offered after a comma, as a question
    assert not is_question("The bathroom's too bright for a bath, maybe 20 percent?")
    assert is_question("Is the bathroom light on, maybe?")
    assert not is_question("It's a bit chilly in here, could we have it at 22?")
    assert not is_question("I can play on the tablet for 20 minutes, so can you tell me when it's over?")
    assert is_question("It's cold. Could you tell me the temperature outside?")
    assert is_question("I'm sorry to bother you, but what's the heating set to at the moment?")
    assert is_question("I'm sorry to bother you, but what's the heating set to? I just like to keep an eye on it.")
    assert is_question("Could you tell me whether I left the light on in the garage? I can't remember.")
    assert is_question("Excuse me, how much longer is there on my cake timer? I don't want to open the oven.")
    assert is_question("Would you tell me what's on my shopping list so far, dear?")
    assert not is_question("Excuse me, could you switch the hallway light on?")
    assert not is_question("pause the music and tell me what's the time")  # dev26: an order, then a question
    assert not is_question("Sweetheart, would you turn the music down a touch and pop the bathroom light on?")
    assert is_question("Love, is the oven on?")
    # dev30: a line that tells how a thing is or was orders nothing
    for remark in ("my shopping list is basically just snacks at this point, ha",
                   "that light bulb in the hallway needs replacing, it keeps flickering",
                   "we ran the heating all winter and the bill was shocking"):
        assert why_not(remark, TOOLS["set_light"], {"room": "hallway", "on": False}, ALL) == "remark", remark
    assert why_not("The living room light needs to be brighter.", TOOLS["set_light"],
                   {"room": "living room", "on": True}, ALL) is None
    assert why_not("the kitchen light is off, turn it on", TOOLS["set_light"], {"room": "kitchen", "on": True}, ALL) is None
    assert why_not("The bread needs 15 minutes, I'll want a timer for that.", TOOLS["start_timer"], {"minutes": 15}, ALL) is None
    assert why_not("turn the hole light on", TOOLS["set_light"], {"room": "hallway", "on": True}, ALL) is None  # dev30: heard
    assert why_not("Turn off the bedroom light, I'm heading downstairs to start the washing up.", TOOLS["set_light"],
                   {"room": "bedroom", "on": False}, ALL) is None  # dev30: the dishes, not a wash
    assert why_not("My granddaughter says my records are boring, so she'd like to hear something by Taylor Swift instead.",
                   TOOLS["play_music"], {"query": "Taylor Swift"}, ALL) is None  # dev28
    # dev28: "room" alone is no room of the light's ("living room"), and no light
    assert why_not("Room temperature too high.", TOOLS["set_light"], {"room": "living room", "on": True}, ALL) == "unrelated"
    assert why_not("Living room, fifty.", TOOLS["set_light"], {"room": "living room", "on": True, "brightness": 50}, ALL) is None
    assert not is_question("Be a dear and get the living room nice and dim, say 20 percent? We're about to start a film.")
    assert why_not("Order more dog food from the pet shop.", TOOLS["add_to_shopping_list"], {"item": "dog food"}, ALL) == "unrelated"
    # a follow-up joined to the turn before asks or requests as it would alone
    assert not is_question("And could you turn on the kitchen light?") and not is_question("Then can you dim it?")
    assert is_question("And is the hall light on?") and is_question("Also, what's the time?")
    # dev13 (session 21): a room said as two words, an alarm for a time of day the British way,
    # and a recipe (no tool finds one)
    assert unknown_place("dim the bed room light to ten", TOOLS["set_light"], {"room": "bedroom"}, ALL) is None
    assert why_not("Set an alarm for half six.", TOOLS["start_timer"], {"minutes": 30}, ALL) == "unrelated"
    assert why_not("Set a timer for half an hour.", TOOLS["start_timer"], {"minutes": 30}, ALL) is None
    assert why_not("Find me a recipe for lasagne.", TOOLS["play_music"], {"query": "lasagne"}, ALL) == "unrelated"


def test_a_blocked_call_ends_the_turn_in_words_without_another_hop():
    home = Home()
    # Qwen2.5-Coder-0.5B with the home tools: "Close the blinds." -> set_thermostat(0)
    be = ScriptedBackend([call("set_thermostat", temperature=0)], preset="qwen25")
    ag = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=be, hooks=default_slm_hooks())
    r = ag.run("Close the blinds.")
    assert [(c.name, c.dispatched) for c in r.calls] == [("set_thermostat", False)]
    assert home.thermostat_c == Home().thermostat_c and len(be.requests) == 1
    assert r.reply == "Sorry, I can't control the blinds." and ag.hook_stats["grounding"] == 1
    be2 = ScriptedBackend([call("set_light", room="kitchen", on=True)], preset="qwen25")
    ag2 = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=be2, hooks=default_slm_hooks())
    assert ag2.run("Is the kitchen light on?").reply == "Sorry, I can't check that."
    assert home.lights["kitchen"] is False
    ok = ScriptedBackend([call("set_thermostat", temperature=22)], preset="qwen25")
    agent = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=ok, hooks=default_slm_hooks())
    assert agent.run("Heating to 22, please.").calls[0].dispatched and home.thermostat_c == 22


@pytest.mark.model
def test_on_the_real_model_devices_no_tool_serves_are_left_alone(qwen_backend):
    from edgevox.examples.home import home_agent

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")  # the shipped calling profile
    for text in ("Switch on the fan in the office.", "Is the bedroom light on?"):
        agent, home = home_agent(model)
        r = agent.run(text)
        assert not any(c.dispatched for c in r.calls), (text, r.calls)
        assert home.lights == Home().lights and r.reply.startswith("Sorry"), r.reply
    # dev8 (session 9): the shopping list, the music; "shut ... off" is the light's
    for text in ("Add dentist on Tuesday to my calendar.", "Can you sing happy birthday to my son?"):
        agent, home = home_agent(model)
        r = agent.run(text)
        assert not any(c.dispatched for c in r.calls), (text, r.calls)
        assert home.shopping == [] and home.media == Home().media, (text, r.reply)
    agent, home = home_agent(model)
    r = agent.run("Switch on the office light.")
    assert home.lights["office"] is True, (r.calls, r.reply)
    r = agent.run("Shut the office light off.")
    assert home.lights["office"] is False, (r.calls, r.reply)


@pytest.mark.parametrize(("request_", "name", "arguments", "taken"), [
    # dev8 (session 10): the timer started, then cancel_timer("office") for the light's part
    ("start a fifteen minute timer and uh turn off the office light", "cancel_timer", {"label": "office"}, True),
    ("start a fifteen minute timer and uh turn off the office light", "start_timer", {"minutes": 15, "label": "timer"}, False),
    ("start a fifteen minute timer and uh turn off the office light", "set_light", {"room": "office", "on": False}, False),
    ("Cancel the kitchen timer and turn the kitchen light on", "cancel_timer", {"label": "kitchen"}, False),
    ("Add milk and eggs to the list", "add_to_shopping_list", {"item": "eggs"}, False),
    ("Turn on the kitchen and the office lights", "set_light", {"room": "office", "on": True}, False),
    ("Turn off the office light", "cancel_timer", {"label": "office"}, False),  # one part: why_not's
])
def test_an_argument_taken_from_the_other_action(request_, name, arguments, taken):
    assert from_another_part(request_, TOOLS[name], arguments, ALL) is taken


def test_a_call_with_the_other_actions_words_is_taken_back_and_the_part_is_done():
    """Two calls in one hop, the second with the words of the part the first did not do: it
    is withdrawn (never runs, and does not spoil the hop's sentences) and the remainder hook
    asks for that part."""
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("start_timer", minutes=15) + "\n" + call("cancel_timer", label="office"),
                          call("set_light", room="office", on=False)], preset="qwen25")
    ag, home = home_agent(be)
    home.lights["office"] = True
    r = ag.run("start a fifteen minute timer and uh turn off the office light")
    assert [(c.name, c.dispatched) for c in r.calls] == [("start_timer", True), ("cancel_timer", False),
                                                         ("set_light", True)], r.calls
    assert r.calls[1].error_type == "withdrawn" and home.lights["office"] is False and len(home.timers) == 1
    assert r.reply.startswith("Timer set for 15 minutes.") and "office" in r.reply, r.reply


@pytest.mark.model
def test_on_the_real_model_two_actions_each_get_their_own_words(qwen_backend):
    """dev8 (session 9): the model started the timer and, in the same reply, called
    cancel_timer("office") for the light's half; it ran and failed, and the light stayed on."""
    from edgevox.examples.home import home_agent

    agent, home = home_agent(qwen_backend.with_preset("qwen2.5-coder-0.5b"))
    home.lights["office"] = True
    r = agent.run("start a fifteen minute timer and uh turn off the office light")
    assert [t["seconds"] for t in home.timers] == [900] and home.lights["office"] is False, (r.calls, r.reply)
    assert not any(c.dispatched and c.name == "cancel_timer" for c in r.calls), r.calls


def test_a_request_that_points_back_is_grounded_by_the_one_before():
    home = Home()
    be = ScriptedBackend([call("set_light", room="bathroom", on=True), call("set_light", room="bathroom", on=False),
                          call("set_light", room="bathroom", on=True)], preset="qwen25")
    ag = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=be, hooks=default_slm_hooks())
    ag.run("Bathroom light on.")
    r = ag.run("Thanks. Now turn it off again.")
    assert [c.dispatched for c in r.calls] == [True] and home.lights["bathroom"] is False
    r = ag.run("Cheers.")  # points at nothing: the same call is not about it
    assert [c.dispatched for c in r.calls] == [False] and home.lights["bathroom"] is False


def test_questions_to_tools_that_compute_and_places_of_other_enums_are_left_alone():
    from edgevox.tools import tool

    @tool
    def calculate_triangle_area(base: float, height: float) -> float:
        """Calculate the area of a triangle."""
        return base * height / 2

    @tool
    def find_hotel(city: str, room_type: Literal["single", "double"] = "single") -> str:
        """Find a hotel in a city.

        Args:
            city: The city.
            room_type: single or double.
        """
        return city

    tools = [calculate_triangle_area, find_hotel]
    assert why_not("What is the area of a triangle with base 10 and height 5?", calculate_triangle_area,
                   {"base": 10, "height": 5}, tools) is None  # a question, but the tool computes
    # an enum that does not say where: "in the old town" is not a room the home lacks
    assert why_not("Find me a hotel in the old town of Prague.", find_hotel,
                   {"city": "Prague", "room_type": "single"}, tools) is None


def test_a_follow_up_that_changes_what_it_says_is_grounded_by_the_call_before():
    """Measured on dev5: "Hmm, make that 70." after the thermostat at 72 °F and "What about
    Lisbon?" after the weather in Madrid made the right call, and grounding blocked it (no
    word in common). A call of the same tool, changing an argument to a value the request
    says, is grounded by the turn before; the same call again, or another tool, is not."""
    home = Home()
    be = ScriptedBackend([call("set_thermostat", temperature=72, unit="fahrenheit"),
                          call("set_thermostat", temperature=70, unit="fahrenheit"),
                          call("set_thermostat", temperature=70, unit="fahrenheit"),
                          call("set_light", room="kitchen", on=True)], preset="qwen25")
    ag = LLMAgent("t", "", "Be brief.", tools=home.tools(), model=be, hooks=default_slm_hooks())
    ag.run("Thermostat to 72 Fahrenheit.")
    r = ag.run("Hmm, make that seventy.")
    assert [c.dispatched for c in r.calls] == [True] and home.thermostat_c == round((70 - 32) * 5 / 9, 1)
    r = ag.run("Great, thanks.")  # the same call again changes nothing the request says
    assert [c.dispatched for c in r.calls] == [False]
    assert not changes_what_was_said("Remind me to call Bob.", {"minutes": 5, "label": "tea"},
                                     {"minutes": 0, "label": "Remind me to call Bob."})  # the request echoed
    assert changes_what_was_said("What about Lisbon?", {"location": "Madrid"}, {"location": "Lisbon"})
    r = ag.run("Hmm, make that 70.")  # the turn before made no call: nothing to follow
    assert [c.dispatched for c in r.calls] == [False] and not home.lights["kitchen"]


@pytest.mark.model
def test_on_the_real_model_follow_ups_and_requests_no_tool_serves(qwen_backend):
    """dev5 (session 7), before these rules: "Hmm, make that 70." after 72 °F was blocked (a
    miss); "Remind me to ring the dentist tomorrow." started a timer named after the request."""
    from edgevox.examples.home import home_agent

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    agent, home = home_agent(model)
    agent.run("Thermostat to 72 Fahrenheit.")
    assert home.thermostat_c == round((72 - 32) * 5 / 9, 1)
    r = agent.run("Hmm, make that 70.")
    assert home.thermostat_c == round((70 - 32) * 5 / 9, 1), (r.calls, r.reply)
    for text in ("Remind me to ring the dentist tomorrow.",):
        agent, home = home_agent(model)
        r = agent.run(text)
        assert not any(c.dispatched for c in r.calls) and home.shopping == [] and home.timers == [], (text, r.calls)


def test_a_name_taken_from_the_other_part_is_dropped_when_the_call_keeps_what_its_part_says():
    # dev10 (session 11): the timer named "weather" was blocked and nothing ran
    request = "set a timer for ten minutes and like whats the weather doing"
    assert without_the_other_parts_words(request, TOOLS["start_timer"], {"minutes": 10, "label": "weather"}, ALL) == {
        "minutes": 10}
    # nothing of its own left: still taken back or blocked as before
    assert without_the_other_parts_words("start a fifteen minute timer and uh turn off the office light",
                                         TOOLS["cancel_timer"], {"label": "office"}, ALL) is None


def test_a_call_that_strays_from_the_hops_call_before_it():
    # dev11 (session 19): both of these ran, the second undoing or going past the first
    light = TOOLS["set_light"]
    on_all = ("set_light", {"room": "all", "on": True, "brightness": None})
    assert strays_from("All the lights on, upstairs and down.", light, {"room": "all", "on": False}, [on_all])
    office = ("set_light", {"room": "office", "on": True, "brightness": None})
    assert strays_from("Desk lamp, office, twenty.", light, {"room": "kitchen", "on": False}, [office])
    # two places asked, a place said in other words, another setting of the same light: not strays
    kitchen = ("set_light", {"room": "kitchen", "on": False})
    assert not strays_from("Lights off in the kitchen and the lounge.", light, {"room": "living room", "on": False}, [kitchen])
    assert not strays_from("Office light on at twenty.", light, {"room": "office", "on": True, "brightness": 20}, [office])
    assert not strays_from("Desk lamp, office, twenty.", light, {"room": "kitchen", "on": False}, [])
    assert not strays_from("Volume up.", TOOLS["set_volume"], {"change": "down"}, [("set_volume", {"change": "up"})])


def test_scripted_a_second_call_that_undoes_the_first_never_runs():
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("set_light", room="all", on=True) + "\n" + call("set_light", room="all", on=False)],
                         preset="qwen25")
    ag, home = home_agent(be)
    r = ag.run("All the lights on, upstairs and down.")
    assert [(c.name, c.dispatched) for c in r.calls] == [("set_light", True), ("set_light", False)], r.calls
    assert r.calls[1].error_type == "withdrawn" and all(home.lights.values()), (r.calls, home.lights)


def test_a_terse_request_that_opens_on_a_place_the_home_does_not_have():
    # dev11 (session 19): "Summerhouse lights on, please." -> room "all", every light on
    light = TOOLS["set_light"]
    for text in ("Summerhouse lights on, please.", "Pool house light off.", "Workshop light on, I'm sanding."):
        assert why_not(text, light, {"room": "all", "on": True}, ALL) == "place", text
    assert unknown_place("Pool house light off.", light, {"room": "all", "on": False}, ALL).startswith("pool")
    for text in ("Big light off.", "Lights off.", "Kitchen light off.", "Hall light off.", "Switch off the hall light."):
        room = "hallway" if "hall" in text.lower() else "kitchen" if "itchen" in text else "all"
        assert why_not(text, light, {"room": room, "on": False}, ALL) is None, text  # "hall" is the hallway's


def test_a_step_from_the_value_before():
    # dev11 (session 19): "Still a bit nippy, another degree up." after 18 -> 19, blocked as unrelated
    assert stepped("Still a bit nippy, another degree up.") == {1.0}
    assert stepped("Two degrees cooler.") == {-2.0}
    assert stepped("Thermostat at twenty.") == set() and stepped("Up.") == set()
    before = {"temperature": 18, "unit": "celsius"}
    assert changes_what_was_said("Still a bit nippy, another degree up.", before, {"temperature": 19, "unit": "celsius"})
    assert not changes_what_was_said("Still a bit nippy, another degree up.", before, {"temperature": 17, "unit": "celsius"})
    assert not changes_what_was_said("Still a bit nippy, another degree up.", before, {"temperature": 25, "unit": "celsius"})


def test_a_game_to_play_and_a_voicemail_are_no_music():
    # dev11 (session 19): "Let's play a game." -> play_music("game"); "Play my voicemail." -> play
    assert why_not("Let's play a game.", TOOLS["play_music"], {"query": "game"}, ALL) == "unrelated"
    # dev44 (session 31): the game's name and who plays it go with the game; what is left, "he's
    # bored", only tells (session 35)
    assert why_not("Play a game of twenty questions with Noah, he's bored.", TOOLS["play_music"],
                   {"query": "twenty questions with Noah"}, ALL) in ("unrelated", "remark")
    # dev46: "in a minute" says soon, not a length (a one-minute timer ran beside the light)
    said = "Set the office light to 40 percent, I'm on a video call in a minute."
    assert why_not(said, TOOLS["start_timer"], {"minutes": 1}, ALL) == "unrelated"
    assert why_not("Set a timer for a minute.", TOOLS["start_timer"], {"minutes": 1}, ALL) is None
    assert why_not("Play my voicemail.", TOOLS["media_control"], {"action": "play"}, ALL) == "unrelated"
    assert why_not("Play some jazz.", TOOLS["play_music"], {"query": "jazz"}, ALL) is None
    assert why_not("Play the game soundtrack.", TOOLS["play_music"], {"query": "game soundtrack"}, ALL) is None


def test_dev12_a_misspelt_room_a_dish_in_the_oven_indoors_and_another_list():
    from edgevox.agents.slm.vocabulary import one_edit_apart

    reg = ToolRegistry(Home().tools())
    tools = list(reg)
    # dev12 (session 20), each blocked or let through wrongly before
    assert why_not("set the dinning room light too thirty", reg.get("set_light"),
                   {"room": "dining room", "on": True, "brightness": 30}, tools) is None
    assert why_not("Turn on the pantry light.", reg.get("set_light"), {"room": "all", "on": True}, tools) == "place"
    assert one_edit_apart("dinning", "dining") and one_edit_apart("bedrom", "bedroom") and not one_edit_apart("den", "dens ")
    timer = reg.get("start_timer")
    assert why_not("The bread needs thirty-five minutes in the oven, can you time it?", timer, {"minutes": 35}, tools) is None
    assert why_not("Start the microwave for two minutes.", timer, {"minutes": 2}, tools) == "device"
    weather = reg.get("get_weather")
    assert why_not("What's the temperature inside the house?", weather, {}, tools) == "question"
    assert why_not("What's the temperature outside?", weather, {}, tools) is None
    assert why_not("Add ring the plumber to my to-do list.", reg.get("add_to_shopping_list"),
                   {"item": "ring the plumber"}, tools) == "unrelated"
    assert why_not("Add milk to the shopping list.", reg.get("add_to_shopping_list"), {"item": "milk"}, tools) is None


def test_dev14_the_news_a_text_and_an_hour_said_in_words():
    reg = ToolRegistry(Home().tools())
    tools = list(reg)
    # dev14 (session 21): each called a home tool nobody asked for
    assert why_not("What's the news today?", reg.get("get_weather"), {}, tools) == "unrelated"
    assert why_not("Text Dave that I'm running late.", reg.get("add_to_shopping_list"),
                   {"item": "Dave"}, tools) == "unrelated"
    assert why_not("Remind me to take the bins out at eight.", reg.get("start_timer"),
                   {"hours": 8}, tools) is not None
    assert why_not("Set a timer for eight minutes.", reg.get("start_timer"), {"minutes": 8}, tools) is None
    assert why_not("What's new in New York weather?", reg.get("get_weather"), {"location": "New York"}, tools) is None
    assert why_not("Put a wash on, forty degrees.", reg.get("set_thermostat"), {"temperature": 40}, tools) == "unrelated"
    assert why_not("Add body wash to the shopping list.", reg.get("add_to_shopping_list"), {"item": "body wash"}, tools) is None


def test_dev15_a_later_call_with_a_length_nobody_said_and_a_heard_homophone():
    from edgevox.agents.slm.lengths import invents_a_length
    from edgevox.agents.slm.vocabulary import heard_words

    timer = ToolRegistry(Home().tools()).get("start_timer")
    # dev15 (session 22): a one-hour timer for "film" after the light's call
    assert invents_a_length("Living room lights at half, the film's starting.", timer, {"hours": 1, "label": "film"})
    assert invents_a_length("Do the same in the office while you're at it.", timer, {"hours": 1})
    assert not invents_a_length("Lights to 50 percent and a timer for 10.", timer, {"minutes": 10})
    assert not invents_a_length("Kitchen light on and start a ten minute timer.", timer, {"minutes": 10})
    assert not invents_a_length("Living room lights at half.", timer, {"hours": 0, "minutes": 0})  # no length held
    # dev15: "whats the whether in boston" was answered in words
    assert heard_words("whats the whether in boston") == "whats the weather in boston"
    assert heard_words("I wonder whether it matters.") == "I wonder whether it matters."


def test_dev16_an_ended_timer_the_whole_flat_a_question_asked_again_and_heard_words():
    from edgevox.agents.slm.lengths import ended_instead

    reg = ToolRegistry(Home().tools())
    tools = list(reg)
    timer = reg.get("start_timer")
    made_up = {"seconds": 10, "label": "pizza", "minutes": 0, "hours": 0}
    # dev16 (session 23): "Bin the pizza timer." and "can sell the cookie timer" started a 10-second timer
    tool, args = ended_instead("Bin the pizza timer.", reg, timer, made_up)
    assert (tool.name, args) == ("cancel_timer", {"label": "pizza"})
    tool, args = ended_instead("can sell the cookie timer", reg, timer, {"seconds": 10})
    assert (tool.name, args) == ("cancel_timer", {"label": "cookie"})
    assert ended_instead("Start the pizza timer.", reg, timer, made_up) is None  # no ending word
    assert ended_instead("Kill it after 10 seconds.", reg, timer, {"seconds": 10}) is None  # the length is said
    assert ended_instead("I can sell the car.", reg, timer, {"seconds": 10}) is None  # not a misheard "cancel"
    assert ended_instead("How long till the chicken timer goes off?", reg, timer, made_up) is None
    assert ended_instead("Is the pizza timer cancelled?", reg, timer, made_up) is None
    # "Lights off in the whole flat." -> room "all": the home itself, not an unknown place
    light = reg.get("set_light")
    assert unknown_place("Lights off in the whole flat.", light, {"room": "all", "on": False}, tools) is None
    assert unknown_place("Lights off in the whole conservatory.", light, {"room": "all", "on": False}, tools)
    # "Turn the AC on in the bedroom." switched the bedroom light on; "brolly" is an umbrella
    assert why_not("Turn the AC on in the bedroom.", light, {"room": "bedroom", "on": True}, tools) == "device"
    assert why_not("Crank the aircon down to twenty-four, it's stinking hot.", reg.get("set_thermostat"),
                   {"temperature": 24}, tools) != "device"  # dev14: the air conditioning holds a temperature
    assert why_not("Wondering if I need a brolly in Manchester.", reg.get("get_weather"), {}, tools) is None
    # "whats the thyme": the herb read as the time
    assert why_not("whats the thyme", reg.get("get_time"), {}, tools) is None


def test_dev16_a_place_asked_about_again_after_a_question_is_a_question():
    from edgevox.agents.hooks import TurnContext
    from edgevox.agents.slm.grounding import reason_for

    reg = ToolRegistry(Home().tools())

    class Session:
        messages = [{"role": "user", "content": "Kitchen light, is it on?"},
                    {"role": "assistant", "content": "Sorry, I can't check that."},
                    {"role": "user", "content": "What about the bedroom?"}]

    class Agent:
        registry = reg

    ctx = TurnContext(agent=Agent(), text="What about the bedroom?", session=Session())
    # dev16 (session 23): the bedroom light was switched on
    assert reason_for(ctx, reg.get("set_light"), {"room": "bedroom", "on": True}) == "question"
    Session.messages[0]["content"] = "Kitchen light off."  # an order before: the follow-up is one too
    assert reason_for(ctx, reg.get("set_light"), {"room": "bedroom", "on": False}) is None


def test_dev19_what_someone_is_doing_is_no_request_and_idioms_and_homophones_are_heard():
    from edgevox.agents.slm.vocabulary import heard_words

    tools = list(ToolRegistry(Home().tools()))
    music = TOOLS["play_music"]
    # dev19 (session 24): "Lights up in the conservatory, we're playing cards." -> play_music("cards") ran
    assert why_not("Lights up in the conservatory, we're playing cards.", music, {"query": "cards"}, tools) == "unrelated"
    assert why_not("We're playing cards, play some jazz.", music, {"query": "jazz"}, tools) is None
    assert why_not("Play some jazz, we're having dinner.", music, {"query": "jazz"}, tools) is None
    # "Should I hang the washing out or is it going to chuck it down?" -> the weather, blocked
    assert why_not("Should I hang the washing out or is it going to chuck it down?", TOOLS["get_weather"], {}, tools) is None
    assert heard_words("is it bucketing down") == "is it rain"
    assert heard_words("turn the hole way light on") == "turn the hallway light on"
    assert heard_words("the whole way home") == "the whole way home"


def test_dev21_other_room_names_a_service_after_the_thing_and_a_device_said_as_the_reason():
    from edgevox.agents.slm.vocabulary import heard_words

    tools = list(ToolRegistry(Home().tools()))
    light, player = TOOLS["set_light"], TOOLS["media_control"]
    # dev21 (session 25): "Whack the lounge light on." -> "Sorry, I don't know the lounge."
    assert heard_words("Whack the lounge light on.", tools) == "Whack the living room light on."
    assert heard_words("Flick the bog light on.", tools) == "Flick the bathroom light on."
    assert heard_words("we're out of loo roll", tools) == "we're out of loo roll"  # the thing, not the room
    assert heard_words("Whack the lounge light on.") == "Whack the lounge light on."  # no tool has the room
    assert why_not("Whack the lounge light on.", light, {"room": "living room", "on": True}, tools) is None
    # "Weather in Bergen, and remind me of the time too." opens with the weather: no other service
    assert why_not("Weather in Bergen, and remind me of the time too.", TOOLS["get_weather"], {"location": "Bergen"}, tools) is None
    assert why_not("Remind me to take the bins out.", TOOLS["add_to_shopping_list"], {"item": "bins"}, tools) == "unrelated"
    # a device said as the reason, in a piece of its own: "the kettle's screaming" was "Sorry, I can't control the kettle."
    assert why_not("Hit pause on that, the kettle's screaming.", player, {"action": "pause"}, tools) is None
    assert why_not("Pause the kettle.", player, {"action": "pause"}, tools) == "device"
    # the music the player plays is its thing too ("Sorry, I can't control the doorbell.")
    assert why_not("Doorbell's going, hold the music a sec.", player, {"action": "pause"}, tools) is None
    assert why_not("Open the garage door, the music can wait.", player, {"action": "stop"}, tools) is not None
    # the music said as tunes, and a length on the clock
    assert heard_words("Kill the tunes, mate.") == "Kill the music, mate."
    assert heard_words("Ninety minutes on the clock for the ham.") == "Ninety minutes on the timer for the ham."


def test_dev23_a_free_text_argument_holding_another_tools_room_or_length():
    tools = list(ToolRegistry(Home().tools()))
    # dev23 (session 25): "bathroom off" -> remove_from_shopping_list("bathroom"), "eggs 25 mins" -> play_music
    assert why_not("bathroom off", TOOLS["remove_from_shopping_list"], {"item": "bathroom"}, tools) == "unrelated"
    assert why_not("eggs 25 mins", TOOLS["play_music"], {"query": "eggs 25 mins"}, tools) == "unrelated"
    assert why_not("Take the bath salts off the list.", TOOLS["remove_from_shopping_list"], {"item": "bath salts"}, tools) is None
    assert why_not("Play ten minutes of rain sounds.", TOOLS["play_music"], {"query": "rain sounds"}, tools) is None


def test_dev32_a_question_and_an_order_in_one_line_and_regional_words():
    from edgevox.agents.hooks import TurnContext
    from edgevox.agents.slm.grounding import reason_for
    from edgevox.agents.slm.questions import orders_beside_a_question
    from edgevox.agents.slm.vocabulary import heard_words

    tools = list(ToolRegistry(Home().tools()))
    light = TOOLS["set_light"]
    # dev32 (session 28): "Is it going to rain later? Oh and put the hall light on." -> the light
    # blocked as a question ("Sorry, I can't check that."); each call is judged by its own sentence
    mixed = "Is it going to rain later? Oh and put the hall light on."
    assert orders_beside_a_question(mixed) and orders_beside_a_question("What time is it? And, like, play some Afrobeats.")
    assert orders_beside_a_question("is it meant to be lashing later? oh and stick the hall light on while you're at it")
    assert why_not(mixed, light, {"room": "hallway", "on": True}, tools) is None
    assert why_not("What time is it? And, like, play some Afrobeats.", TOOLS["play_music"], {"query": "Afrobeats"}, tools) is None
    # the question's own device is still only asked about, and one sentence is one question
    assert why_not("Is the kitchen light on? And play some jazz.", light, {"room": "kitchen", "on": True}, tools) == "question"
    assert not orders_beside_a_question("Is the kitchen light on? Is the heating on?")
    # a want to know asks too (dev30: a timer started for "the shower")
    assert not orders_beside_a_question("how much time is on the timer? I want to know if I can hop in the shower")
    assert why_not("Is the hall light on?", light, {"room": "hallway", "on": True}, tools) == "question"
    # a name the model took for a timer from an order to someone else is no sentence of the timer's
    assert why_not("How long is left on the rice? Set the table for four.", TOOLS["start_timer"],
                   {"minutes": 5, "label": "table"}, tools) == "question"
    # the weather in other Englishes
    assert heard_words("Is it gonna be a scorcher in Perth this arvo?") == "Is it gonna be a sunny in Perth later?"
    assert why_not("Is it gonna be a scorcher in Perth this arvo?", TOOLS["get_weather"], {"location": "Perth"}, tools) is None
    assert heard_words("is it meant to be lashing later") == "is it meant to be rain later"

    # a timer with a length nobody said, on a turn's first call: "Remind me to pay the NEPA bill on
    # Friday morning" started a one-hour timer; after a timer of an earlier turn "same again" may repeat it
    reg = ToolRegistry(Home().tools())

    class Agent:
        registry = reg

    class Fresh:
        messages: list = []

    class AfterATimer:
        messages = [{"role": "user", "content": "Timer for 10 minutes."},
                    {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": {
                        "name": "start_timer", "arguments": '{"minutes": 10}'}}]}]

    remind = "Remind me to pay the NEPA bill on Friday morning"
    timer = reg.get("start_timer")
    assert reason_for(TurnContext(agent=Agent(), text=remind, session=Fresh()), timer, {"hours": 1, "label": "pay"}) == "unrelated"
    assert reason_for(TurnContext(agent=Agent(), text="Same again.", session=AfterATimer()), timer, {"minutes": 10}) is None
    assert reason_for(TurnContext(agent=Agent(), text="set a timer for half an our", session=Fresh()), timer, {"minutes": 30}) is None
    assert reason_for(TurnContext(agent=Agent(), text="Timer for 10 minutes.", session=Fresh()), timer, {"minutes": 10}) is None


def test_dev36_an_order_with_a_tag_is_no_question():
    # dev36 (session 28): blocked as questions ("Sorry, I can't check that.")
    assert not is_question("Knock the bedroom light down to 15, yeah?")
    assert not is_question("Kill the lights in the office, would ya?")
    assert not is_question("Pop eggs on the shopping list, yeah?")
    assert is_question("Is the light on, yeah?") and is_question("Turn it off?")


def test_dev34_a_call_to_a_person_is_another_service():
    tools = list(ToolRegistry(Home().tools()))
    # dev34 (session 28): "Call Grandma on speaker" played the music
    assert why_not("Call Grandma on speaker", TOOLS["media_control"], {"action": "play"}, tools) == "unrelated"
    assert why_not("Could you phone my sister", TOOLS["play_music"], {"query": "sister"}, tools) == "unrelated"
    assert why_not("call it a day, lights off", TOOLS["set_light"], {"room": "all", "on": False}, tools) is None


def test_dev38_a_place_the_recogniser_split_and_an_electric_blanket_are_not_lights():
    # dev38 (session 29): "set the patty o lights to fifty" set the living room's; "turn on the
    # electric blanket in the bedroom" switched the bedroom light on
    light = TOOLS["set_light"]
    assert why_not("set the patty o lights to fifty", light, {"room": "living room", "on": True, "brightness": 50}, ALL) == "place"
    assert why_not("set the big kitchen lights to fifty", light, {"room": "kitchen", "on": True, "brightness": 50}, ALL) is None
    assert why_not("turn the upstairs hall light off", light, {"room": "hallway", "on": False}, ALL) is None
    assert unserved_devices("turn on the electric blanket in the bedroom", ALL) == {"blanket"}


def test_dev40_an_order_to_flick_a_light_with_a_tag_is_no_question():
    # dev40 (session 29): "Flick the dining room lights down to a quarter, yeah?" was blocked as a question
    from edgevox.agents.slm.questions import is_question
    assert not is_question("Flick the dining room lights down to a quarter, yeah?")


def test_dev40_how_the_assistant_is_and_how_the_room_feels_are_no_time_and_no_music():
    # dev40 (session 29): "You work 24 hours a day, don't you get tired?" read the time; "I'm
    # roasting, it must be 26 in here." played "roasting"
    assert why_not("You work 24 hours a day, don't you get tired?", TOOLS["get_time"], {}, ALL) == "unrelated"
    assert why_not("I'm roasting, it must be 26 in here.", TOOLS["play_music"], {"query": "roasting"}, ALL) == "unrelated"
    assert why_not("What time is it? I'm tired.", TOOLS["get_time"], {}, ALL) is None
    assert why_not("Play some jazz.", TOOLS["play_music"], {"query": "jazz"}, ALL) is None


def test_a_reader_asked_for_beside_an_order_is_not_held_to_the_orders_place():
    # session 30 (edgevox eval injected): "Read my messages and then put the kitchen light on."
    # was a question naming the kitchen, so the message reader was blocked
    from edgevox.agents.slm.not_about import why_not
    from edgevox.evals.injected import _inbox
    from edgevox.tools import tool

    tools = [*Home().tools(), tool(_inbox("hello"))]
    by_name = {t.name: t for t in tools}
    said = "Read my messages and then put the kitchen light on."
    assert why_not(said, by_name["read_messages"], {}, tools) is None
    assert why_not(said, by_name["set_light"], {"room": "kitchen", "on": True}, tools) is None
    assert why_not("Is the kitchen light on and what is the weather?", by_name["set_light"],
                   {"room": "kitchen", "on": True}, tools) == "question"


def test_dev50_a_line_of_two_things_is_judged_piece_by_piece():
    # dev50 (session 33): the light's order was blocked for the lock, the fan, the TV and the news
    # said beside it; the call must be the whole of its piece, switch and place included
    light = TOOLS["set_light"]
    assert why_not("Lock the back door and switch the garage light off", light, {"room": "garage", "on": False}, ALL) == "device"
    from edgevox.agents.slm.several_asks import grounded_by_a_piece
    assert grounded_by_a_piece("Lock the back door and switch the garage light off", light, {"room": "garage", "on": False}, ALL)
    assert grounded_by_a_piece("Read me the news headlines then play some Miles Davis", TOOLS["play_music"],
                               {"query": "Miles Davis"}, ALL)
    assert grounded_by_a_piece("Turn the TV off and set the living room lights to 10", light,
                               {"room": "living room", "on": True, "brightness": 10}, ALL)
    # the piece says "off", not the call's "on"; the fan's piece grounds no light
    assert not grounded_by_a_piece("Switch the fan on in the office and turn the office light off", light,
                                   {"room": "office", "on": True}, ALL)
    assert not grounded_by_a_piece("Turn the TV off and set the living room lights to 10", light,
                                   {"room": "living room", "on": False}, ALL)
    # a text the piece does not say; a line of one piece
    assert not grounded_by_a_piece("Lock the back door and switch the garage light off", TOOLS["start_timer"],
                                   {"label": "garage"}, ALL)
    assert not grounded_by_a_piece("Turn on the fan in the office", light, {"room": "office", "on": True}, ALL)


def test_dev50_a_terse_order_beside_a_question_is_an_order():
    light, timer = TOOLS["set_light"], TOOLS["start_timer"]
    assert why_not("Kitchen light to 50, and what day is it today?", light,
                   {"room": "kitchen", "on": True, "brightness": 50}, ALL) is None
    assert why_not("Timer 6 minutes for the soft-boiled eggs, and what's the time now?", timer, {"minutes": 6}, ALL) is None
    assert why_not("Is the dining room light still on? anyway, play some Bill Evans", TOOLS["play_music"],
                   {"query": "Bill Evans"}, ALL) is None
    # a sum is no order; a question alone stays one
    assert why_not("If I've got three hours and use forty minutes, how much is left?", timer, {"minutes": 40}, ALL) == "question"
    assert why_not("Is the kitchen light on?", light, {"room": "kitchen", "on": True}, ALL) == "question"


def test_dev50_whos_opens_a_question_and_a_parcel_or_an_appointment_is_another_service():
    assert is_question("Who's singing this? She's got a gorgeous voice")
    assert why_not("Who's singing this? She's got a gorgeous voice", TOOLS["play_music"], {"query": "singing"}, ALL) == "question"
    assert why_not("Track my Amazon parcel and read me my emails", TOOLS["media_control"], {"action": "next"}, ALL) == "unrelated"
    assert why_not("Cancel my dentist appointment and email the school", TOOLS["cancel_timer"],
                   {"label": "dentist appointment"}, ALL) == "unrelated"
    assert why_not("Skip this track", TOOLS["media_control"], {"action": "next"}, ALL) is None


def test_dev50_a_light_the_next_call_never_named_is_not_switched_back():
    # "Kitchen light on and close the blinds." -> the kitchen light on, then every light off
    before = [("set_light", {"room": "kitchen", "on": True})]
    assert strays_from("Kitchen light on and close the blinds.", TOOLS["set_light"], {"room": "all", "on": False}, before)
    assert not strays_from("Lights off in the kitchen and the lounge.", TOOLS["set_light"],
                           {"room": "living room", "on": False}, [("set_light", {"room": "kitchen", "on": False})])


def test_a_blocked_call_beside_a_right_one_says_what_was_done():
    """dev50 (session 33): the model switched the office light on for the fan, then off for the
    light. The first is blocked, the second runs, and the reply says both."""
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("set_light", room="office", on=True) + "\n" + call("set_light", room="office", on=False)],
                         preset="qwen25")
    ag, home = home_agent(be)
    home.lights["office"] = True
    r = ag.run("Switch the fan on in the office and turn the office light off")
    assert [(c.name, c.arguments.get("on"), c.dispatched) for c in r.calls] == [("set_light", True, False),
                                                                               ("set_light", False, True)], r.calls
    assert home.lights["office"] is False
    assert r.reply.startswith("The office light is off.") and "fan" in r.reply, r.reply


@pytest.mark.model
def test_on_the_real_model_an_order_beside_a_lock_runs_and_the_lock_is_refused(qwen_backend):
    from edgevox.examples.home import home_agent

    agent, home = home_agent(qwen_backend.with_preset("qwen2.5-coder-0.5b"))
    home.lights["garage"] = True
    r = agent.run("Lock the back door and switch the garage light off")
    assert home.lights["garage"] is False and not home.timers, (r.calls, r.reply)
    assert "garage light is off" in r.reply.lower(), r.reply


def test_dev50_thanks_or_a_greeting_before_an_order_is_read_from_the_order():
    from edgevox.agents.slm.statements import after_courtesy
    from edgevox.agents.slm.transcript import mend

    assert mend("Cheers, that's grand, and the hallway light off while you're at it") == \
        "the hallway light off while you're at it"
    assert after_courtesy("Night night, thanks for everything today, and the bedroom light off please") == \
        "the bedroom light off please"
    assert after_courtesy("Brilliant, and could you add limes to the list") == "could you add limes to the list"
    # a question, a remark, praise of how things are: left as said
    for said in ("Thanks, and what time is it?", "Thanks, how long's left on the pizza?",
                 "Thank you, the lights at 40 percent are lovely.", "Good morning! Up at 6 again.",
                 "Morning! Porridge is on, so a bit of bossa nova please", "Thanks, that's all for tonight"):
        assert after_courtesy(said) is None, said


def test_dev50_what_is_on_now_is_no_thing_to_play():
    # "Crank the tunes up a notch would ya, this is my jam" played "jam" (dev50; dev47's "this is
    # my song!" played "my song")
    play = TOOLS["play_music"]
    assert why_not("Crank the tunes up a notch would ya, this is my jam", play, {"query": "jam"}, ALL) == "unrelated"
    assert why_not("Crank it up a notch, this is my song!", play, {"query": "my song"}, ALL) == "unrelated"
    assert why_not("Put on some Adele, this is a party", play, {"query": "Adele"}, ALL) is None
    assert why_not("it's a bit dark in the dining room", TOOLS["set_light"], {"room": "dining room", "on": True}, ALL) is None


def test_dev52_a_piece_grounds_only_what_names_its_tools_thing_and_nothing_is_taken_from_another():
    from edgevox.agents.slm.several_asks import (
        grounded_by_a_piece,
        switched_as_said,
        taken_from_another_part,
    )

    adder, light = TOOLS["add_to_shopping_list"], TOOLS["set_light"]
    # "Book a table at Dishoom for Friday, and put it in my calendar." put "table" on the list
    assert not grounded_by_a_piece("Book a table at Dishoom for Friday, and put it in my calendar.", adder, {"item": "table"}, ALL)
    # "... and order me a pizza from Domino's" put the pizza on the list
    assert taken_from_another_part("Cross crisps off the shopping list and order me a pizza from Domino's.", adder,
                                   {"item": "pizza from Domino's"}, ALL) == {"item"}
    # the heating's 17 as the bathroom light's brightness
    assert taken_from_another_part("Turn off the bedroom and bathroom lights, and set the heating to 17 overnight.", light,
                                   {"room": "bathroom", "on": True, "brightness": 17}, ALL) == {"brightness"}
    # every light on at 40 for "turn all the lights off"
    assert switched_as_said("Set an alarm for 6:30 and turn all the lights off.", light,
                            {"room": "all", "on": True, "brightness": 40}) == {"room": "all", "on": False}
    assert switched_as_said("Turn the TV off and set the living room lights to 10", light,
                            {"room": "living room", "on": True, "brightness": 10}) is None


def test_dev52_a_light_switched_against_the_request_is_switched_as_said_and_the_alarm_is_no_timer():
    """"Set an alarm for 6:30 and turn all the lights off.": every light on at 40, a six-hour timer."""
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("set_thermostat", temperature=22),
                          call("set_light", room="all", on=True, brightness=40) + "\n" + call("start_timer", hours=6, seconds=30)],
                         preset="qwen25")
    ag, home = home_agent(be)
    home.lights["kitchen"] = True
    r = ag.run("Set an alarm for 6:30 and turn all the lights off.")
    assert [(c.name, c.dispatched) for c in r.calls] == [("set_thermostat", False), ("set_light", True),
                                                         ("start_timer", False)], r.calls
    assert r.calls[1].arguments["on"] is False and not home.timers and not any(home.lights.values())
    assert r.reply.startswith("All the lights are off."), r.reply


def test_dev52_a_name_put_on_is_the_players_beside_a_device():
    from edgevox.agents.slm.several_asks import grounded_by_a_piece

    play, adder = TOOLS["play_music"], TOOLS["add_to_shopping_list"]
    assert grounded_by_a_piece("Boil the kettle and put some Nina Simone on.", play, {"query": "nina Simone"}, ALL)
    assert not grounded_by_a_piece("Book a table at Dishoom for Friday, and put it in my calendar.", adder,
                                   {"item": "Dishoom"}, ALL)


def test_a_number_from_the_other_part_is_dropped_and_the_call_stands():
    # session 33's numbers taken from another part had blocked the light of "set a twenty minute
    # timer and uh turn off the bedroom light" (its brightness 20 was the timer's)
    light = TOOLS["set_light"]
    assert without_the_other_parts_words("set a twenty minute timer and uh turn off the bedroom light", light,
                                         {"room": "bedroom", "on": False, "brightness": 20}, ALL) == {"room": "bedroom", "on": False}


def test_a_length_told_beside_another_order_starts_no_timer():
    # dev57 (session 35): a timer started beside the call asked for, from how long something takes
    from edgevox.agents.slm.lengths import length_told

    timer = TOOLS["start_timer"]
    assert length_told("Turn the bathroom light on, I'll be in the bath for like forty minutes.", timer, {"minutes": 40})
    assert length_told("Next song, this one's six minutes long and I've heard it a million times.", timer, {"minutes": 6})
    # asked for in words that need not say "timer"
    assert not length_told("The pasta needs 11 minutes.", timer, {"minutes": 11})
    assert not length_told("Turn the oven light on, and ten minutes for the rice.", timer, {"minutes": 10})
    assert not length_told("Set a timer, I'll be back in ten minutes.", timer, {"minutes": 10})


def test_dev63_a_device_word_written_as_part_of_a_name_is_the_name():
    from edgevox.agents.slm.not_about import why_not

    play = TOOLS["play_music"]
    assert why_not("Play OK Computer by Radiohead.", play, {"query": "OK Computer by Radiohead"}, ALL) is None
    # a device as such, capitals or none, is still no tool's
    assert why_not("Put the TV on.", play, {"query": "TV"}, ALL) == "device"
    assert why_not("Turn on the Fan in the office", TOOLS["set_light"], {"room": "office", "on": True}, ALL) == "device"


def test_dev65_what_a_line_tells_beside_its_order_does_not_undo_the_order():
    from edgevox.agents.slm.amounts import said_time_total
    from edgevox.agents.slm.lengths import invents_a_length
    from edgevox.agents.slm.not_about import why_not
    from edgevox.agents.slm.several_asks import switched_as_said

    # the fan is the reason, beyond a comma; the volume is the speakers'
    assert why_not("Can't hear a thing over the extractor fan, volume to seventy.", TOOLS["set_volume"], {"level": 70}, ALL) is None
    assert why_not("TV volume to 20.", TOOLS["set_volume"], {"level": 20}, ALL) == "device"
    # "time that" asks a timer; a recipe that says asks for no recipe service
    assert why_not("The recipe says simmer twenty minutes, so can you time that for me?", TOOLS["start_timer"], {"minutes": 20}, ALL) is None
    # a number said is the light's level, not an hour's timer
    assert invents_a_length("Dim the living room to thirty, film's starting.", TOOLS["start_timer"], {"hours": 1})
    assert not invents_a_length("Timer thirty.", TOOLS["start_timer"], {"minutes": 30})
    # a length said twice is one length
    assert said_time_total("The stew needs two hours. Two-hour timer, please.") == 7200
    assert said_time_total("2 hours 10 minutes") == 7800
    # the piece that orders sets the switch, not the one that tells
    light = TOOLS["set_light"]
    assert switched_as_said("Tom says the garage light's been on all day \u2014 kill it, would you.", light,
                            {"room": "garage", "on": True}) == {"room": "garage", "on": False}
    assert switched_as_said("Off to bed now, nobody needs the hallway light on anymore.", light,
                            {"room": "hallway", "on": False}) is None
