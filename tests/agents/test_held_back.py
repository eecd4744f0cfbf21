"""Held back: orders told not to, under a condition or for later are not run now (dev53, session 34)."""

from __future__ import annotations

import pytest

from edgevox.agents.slm.grounding import held_back_call
from edgevox.agents.slm.held_back import (
    FOR_LATER,
    LEFT_AS_IT_IS,
    TOLD_NOT,
    UNDER_A_CONDITION,
    held_pieces,
)
from edgevox.agents.slm.questions import is_question
from edgevox.agents.slm.remarks import asks_nothing
from edgevox.examples.home import Home

TOOLS = Home().tools()
BY_NAME = {t.name: t for t in TOOLS}


@pytest.mark.parametrize(("line", "why"), [
    ("Don't add mince to the list, there's two packs in the freezer.", TOLD_NOT),
    ("Please don't put the heating up, the radiators in here are already roasting.", TOLD_NOT),
    ("No need for a timer, the noodles only take three minutes and I'm standing right here.", TOLD_NOT),
    ("You don't need to take coffee beans off the list, we still haven't bought any.", TOLD_NOT),
    ("Uh, don't go back to the last song, I really didn't like it.", TOLD_NOT),
    ("Leave the bathroom light as it is, Ella's still in the shower.", LEFT_AS_IT_IS),
    ("If the baby starts crying, turn the music right down.", UNDER_A_CONDITION),
    ("Should it get above twenty four in here, drop the thermostat to twenty.", UNDER_A_CONDITION),
    ("If Liam isn't home by ten, switch the hallway light on for him.", UNDER_A_CONDITION),
    ("In forty minutes, switch the bedroom light off.", FOR_LATER),
    ("Tomorrow morning at half six, put the heating up to twenty one.", FOR_LATER),
    ("Later, once I'm in bed, turn the volume down to ten.", UNDER_A_CONDITION),
    ("Turn all the lights off in half an hour.", FOR_LATER),
    # an hour with "p.m.", or after a switch (dev57)
    ("Turn the lights off at eleven, would you.", FOR_LATER),
    ("Put the heating on at five p.m. before we get home.", FOR_LATER),
    # a liking said of someone is a reason, not a thing switched (dev53's follow-up)
    ("And don't turn it off when I go out, the cat likes it on.", TOLD_NOT),
])
def test_a_line_whose_every_order_is_held_back_asks_nothing(line, why):
    assert asks_nothing(line) == why


@pytest.mark.parametrize("line", [
    "Don't forget the oat milk, stick it on the shopping list.",  # a negative that asks
    "Don't leave the garage light burning all night, switch it off.",
    "Why don't you put on some bossa nova?",
    "I don't want the bathroom light on any more, thanks.",  # "any more": it is on, and wanted off
    "Don't touch the lights, just tell me what the weather's doing in Edinburgh.",  # another piece orders
    "Go back a song, don't skip ahead.",
    "Found a bag of pine nuts at the back of the cupboard, so we don't need to buy those after all.",
    # a time that belongs to no order
    "Tomorrow's weather for Lyon.",
    "What's the weather tomorrow in Leeds?",
    "Add butter and flour to the list, I'm baking tomorrow.",
    "Set the office light to 40 percent, I'm on a video call in a minute.",
    "Set a timer to go off in ten minutes.",
    "Set the volume at ten, please.",  # "at ten" here is a level
    "Set the kitchen light at five.",
    "um give me a shout in twenty minutes",
    # manners, not a condition
    "I'd like the heating at twenty-one and a half degrees, if it isn't too much trouble.",
    "Turn the hallway light on when you get a chance.",
    "It'd be nice if the bedroom was brighter.",
])
def test_a_negative_that_asks_manners_and_a_time_beside_the_order_hold_nothing_back(line):
    assert asks_nothing(line) is None


def test_pieces_are_judged_apart():
    pieces = held_pieces("Don't touch the heating, but put the bathroom light on at sixty.")
    assert pieces == [("don't touch the heating", TOLD_NOT), ("put the bathroom light on at sixty", None)]


@pytest.mark.parametrize(("line", "name", "arguments", "held"), [
    ("Keep the heating where it is and play some Chopin.", "set_thermostat", {"temperature": 22}, True),
    ("Keep the heating where it is and play some Chopin.", "play_music", {"query": "Chopin"}, False),
    ("Leave the garage light on but turn the hallway one off.", "set_light", {"room": "garage", "on": True}, True),
    ("Leave the garage light on but turn the hallway one off.", "set_light", {"room": "hallway", "on": False}, False),
    ("Pause it, don't stop it, I'll be right back.", "media_control", {"action": "stop"}, True),
    ("Pause it, don't stop it, I'll be right back.", "media_control", {"action": "pause"}, False),
    ("Don't cancel the laundry timer, start a new one for 45 minutes.", "start_timer", {"minutes": 45}, False),
    ("Don't stop the album, just turn it down a touch.", "set_volume", {"change": "down"}, False),
    ("Don't put any music on, I just want the kitchen light at full.", "set_light",
     {"room": "kitchen", "on": True, "brightness": 100}, False),
])
def test_a_call_only_held_pieces_name_is_blocked(line, name, arguments, held):
    assert (held_back_call(line, BY_NAME[name], arguments, TOOLS) is not None) is held


def test_dont_before_a_verb_orders_and_before_a_subject_asks():
    assert not is_question("Don't forget the oat milk, stick it on the shopping list.")
    assert is_question("Don't you think it's cold in here?")


def _agent(model):
    from edgevox.examples.home import home_agent

    return home_agent(model)


def test_a_held_back_line_is_answered_in_words_on_the_scripted_backend():
    from agent_fakes import ScriptedBackend, call

    from edgevox.agents import LLMAgent, default_slm_hooks

    be = ScriptedBackend([call("add_to_shopping_list", item="mince"), "Added mince."])
    agent = LLMAgent(tools=Home().tools(), model=be, hooks=default_slm_hooks())
    r = agent.run("Don't add mince to the list, there's two packs in the freezer.")
    assert not [c for c in r.calls if c.dispatched and c.ok] and r.reply == "Okay, I'll leave it.", (r.calls, r.reply)


@pytest.mark.model
def test_on_the_real_model_nothing_held_back_runs_and_the_plain_order_does(qwen_backend):
    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    agent, home = _agent(model)
    r = agent.run("Don't add mince to the list, there's two packs in the freezer.")  # mince added, before
    assert home.shopping == [] and not [c for c in r.calls if c.ok], (r.calls, r.reply)
    agent, home = _agent(model)
    lights_before = dict(home.lights)
    r = agent.run("In forty minutes, switch the bedroom light off.")  # switched off at once and a timer, before
    assert home.lights == lights_before and home.timers == [], (r.calls, r.reply)
    assert "later" in r.reply, r.reply
    agent, home = _agent(model)
    thermostat = home.thermostat_c
    r = agent.run("Keep the heating where it is and play some Chopin.")  # the heating set to 22, before
    assert home.thermostat_c == thermostat and "chopin" in str(home.media).lower(), (r.calls, r.reply, home.summary())


def test_a_claim_on_a_line_that_asks_nothing_is_never_retried_as_a_call():
    from agent_fakes import ScriptedBackend, call

    from edgevox.agents import LLMAgent, default_slm_hooks

    # dev53: the reply claimed the light off, and the false-claim retry then switched it off
    be = ScriptedBackend(["I've switched the office light off.", call("set_light", room="office", on=False), "Done."])
    agent = LLMAgent(tools=Home().tools(), model=be, hooks=default_slm_hooks())
    r = agent.run("Jamie said he'd switch the office light off before he leaves.")
    assert not r.calls and r.reply == "Okay.", (r.calls, r.reply)


def test_a_claim_on_a_line_that_only_tells_is_never_retried_as_a_call():
    from agent_fakes import ScriptedBackend, call

    from edgevox.agents import LLMAgent, default_slm_hooks
    from edgevox.agents.slm.remarks import asks_nothing
    from edgevox.agents.slm.telling import only_tells

    # dev56 (session 35): "Ciara said she'd hang it all out, but I'll keep the timer anyway." was claimed,
    # and the retry cancelled it; that line now asks nothing as passed on (session 37), so a line that
    # only tells and is no such remark keeps this path tested
    line = "Dad always kept the timer on the cooker going, even when nothing was in."
    assert only_tells(line) and not asks_nothing(line)
    be = ScriptedBackend(["I've cancelled the timer.", call("cancel_timer"), "Done."])
    agent = LLMAgent(tools=Home().tools(), model=be, hooks=default_slm_hooks())
    r = agent.run(line)
    assert not r.calls and r.reply == "Okay.", (r.calls, r.reply)


def test_a_claim_on_a_line_passed_on_is_never_retried_as_a_call():
    from agent_fakes import ScriptedBackend, call

    from edgevox.agents import LLMAgent, default_slm_hooks
    from edgevox.agents.slm.remarks import asks_nothing

    # dev56: the claim of a cancelled timer, on a line that passes on what Ciara said
    line = "Ciara said she'd hang it all out, but I'll keep the timer anyway."
    assert asks_nothing(line) == "passed on"
    be = ScriptedBackend(["I've cancelled the laundry timer.", call("cancel_timer", label="laundry"), "Done."])
    agent = LLMAgent(tools=Home().tools(), model=be, hooks=default_slm_hooks())
    r = agent.run(line)
    assert not r.calls and "cancelled" not in r.reply, (r.calls, r.reply)
