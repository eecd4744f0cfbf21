"""The relevance gate: sentence embeddings of the registry's requests against generic no-tool lines.

The embedder is the real all-MiniLM-L6-v2 (int8 ONNX through the registry, like every
model); the gate's loop logic runs on the scripted backend, and once on the real model.
"""

from __future__ import annotations

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import default_slm_hooks
from edgevox.agents.slm.relevance import NO_TOOL_LINES, RelevanceGate, ToolIndex, tool_lines
from edgevox.examples.home import Home


@pytest.fixture(scope="module")
def embedder():
    from edgevox.llm.embedding import load_embedder

    return load_embedder()


def test_sentences_are_unit_vectors_and_alike_ones_are_near(embedder):
    v = embedder.embed(["Switch off the lamp in the bedroom.", "Bedroom light off.", "Who wrote Hamlet?"])
    assert v.shape == (3, 384)
    assert abs(float((v * v).sum(1).max()) - 1) < 1e-4
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.3
    again = embedder.embed(["Bedroom light off."])[0]
    assert float(again @ v[1]) > 0.999  # the same text, the same vector (kept)


def test_the_index_is_built_from_the_registry(embedder):
    tools = Home().tools()
    index = ToolIndex(tools, embedder)
    light = next(t for t in tools if t.name == "set_light")
    assert tool_lines(light)[0] == "Lights off in the bedroom." and len(index.names) == len(tools)
    # phrasings that share no word with a tool's examples still find it
    for text, name in [("Kill the lamps in the office.", "set_light"), ("Skip to the next song.", "media_control"),
                       ("Crank up the heat, I'm cold.", "set_thermostat"), ("Wake me in 20 minutes.", "start_timer")]:
        assert index.relevance(text).best[0] == name, text
    for text in ("Tell me a joke.", "Who painted the Mona Lisa?"):
        rel = index.relevance(text)
        assert rel.margin < 0, (text, rel)
    assert index.relevance("Dim the kitchen light to 30 percent.").margin > 0.2
    assert len(NO_TOOL_LINES) >= 40


def test_phrasings_tell_the_gate_which_tool_and_never_reach_the_prompt(embedder):
    from edgevox.tools import ToolDefinitionError, tool

    tools = Home().tools()
    media = next(t for t in tools if t.name == "media_control")
    assert "Unpause the song." in tool_lines(media) and media.phrasings
    with_them = ToolIndex(tools, embedder)
    for t in tools:
        t.phrasings = ()
    without = ToolIndex(tools, embedder)
    # measured on the tuning splits: "Go back a track." sat as near set_volume and play_music
    # as media_control, "Got the time?" below the must-call margin
    for text, name in [("Go back a track.", "media_control"), ("Resume the song.", "media_control"),
                       ("Time, please?", "get_time")]:
        assert with_them.relevance(text).best[0] == name, text
        assert with_them.relevance(text).margin > without.relevance(text).margin, text
    for bad in ("Unpause.", ["ok", ""], [3]):
        with pytest.raises(ToolDefinitionError, match="phrasings must be"):
            tool(name="noop", phrasings=bad)(lambda: None)
    # the model never sees them: the home agent's prompt prefix is the same with and without
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([], preset="qwen2.5-coder-0.5b")
    shipped, _ = home_agent(be)
    bare = Home().tools()
    for t in bare:
        t.phrasings = ()
    from edgevox.agents import LLMAgent

    plain = LLMAgent("vox", "", shipped.instructions, tools=bare, model=be, preset="qwen2.5-coder-0.5b")
    assert shipped.prompt_prefix() == plain.prompt_prefix()


def _gated(script, embedder, **options):
    """A home agent on a scripted backend, with the gate in front of the default hooks."""
    from edgevox.examples.home import home_agent

    be = ScriptedBackend(script, preset="qwen2.5-coder-0.5b")
    agent, home = home_agent(be, hooks=[RelevanceGate(embedder=embedder, **options), *default_slm_hooks(relevance=False)])
    return be, agent, home


class _Broken:
    def embed(self, texts):
        raise OSError("no model here")


def test_the_gate_answers_far_requests_in_words_and_stands_aside_without_a_model(embedder):
    script = ['{"answer": "Why did the lamp go to school? To get brighter."}',
              '{"tool": "set_light", "arguments": {"room": "office", "on": false}}']
    be, agent, home = _gated(script, embedder, answer_below=-0.15)
    r = agent.run("Tell me a joke.")
    assert be.requests[0]["grammar"].strategy == "answer" and r.calls == []  # the answer-only grammar
    assert agent.hook_stats["relevance"] == 1
    r = agent.run("Office lights off.")
    assert be.requests[1]["grammar"].strategy != "answer" and home.lights["office"] is False
    # without embeddings the gate does nothing (and the turn is not failed)
    be, agent, home = _gated([call("set_light", room="office", on=True)], _Broken())
    agent.run("Office light on.")
    assert home.lights["office"] is True and "relevance" not in agent.hook_stats


def test_a_question_whose_nearest_tool_changes_things_is_never_forced_and_any_call_is_blocked(embedder):
    # "How long is left on the timer?" is nearest to start_timer (a setter): it asks about a
    # state no tool reports; the model's call of a reader (get_time) does not run either
    be, agent, home = _gated([call("get_time")], embedder)
    r = agent.run("How long is left on the timer?")
    assert be.requests[0]["grammar"].strategy != "required"  # the must-call decision stood aside
    assert r.calls and not r.calls[0].dispatched and r.reply == "Sorry, I can't check that."
    # as near the thermostat as the weather: a question about the setting (dev3); the
    # model's weather call does not run
    be, agent, home = _gated([call("get_weather")], embedder)
    r = agent.run("What temperature is the house set to?")
    assert r.calls and not r.calls[0].dispatched and r.reply == "Sorry, I can't check that."
    be, agent, home = _gated([call("get_weather")], embedder)
    r = agent.run("How hot is it outside?")  # the weather well ahead of the thermostat: read
    assert r.calls[0].dispatched and r.calls[0].error is None
    be, agent, home = _gated([call("get_time")], embedder)
    r = agent.run("What time is it?")  # a question to the tool that tells it: answered
    assert r.calls[0].dispatched and r.calls[0].error is None
    # dev44 (session 31): the timer within the lead of the clock, but only the clock's thing is said
    be, agent, home = _gated([call("get_time")], embedder)
    r = agent.run("What's the time now? I've completely lost track with this ironing.")
    assert r.calls[0].dispatched and r.calls[0].error is None


def test_a_tool_that_only_tells_is_trusted_nearer_the_no_tool_lines(embedder):
    # dev9 (session 11): no shared word, the weather well ahead of the others by meaning but
    # below the setters' trust threshold -- blocked before
    for text in ("Am I going to get soaked walking the dog later?", "Is it going to bucket down this evening?"):
        be, agent, home = _gated([call("get_weather")], embedder)
        r = agent.run(text)
        assert r.calls[0].dispatched and r.calls[0].error is None, text
    # with the setters' threshold for every tool (the gate before) it was blocked (since session
    # 19's weather phrasings, "wet or dry", the dog walk is near enough for that threshold too;
    # since session 24 "bucket down" is read as rain, a word of the weather's own)
    be, agent, home = _gated([call("get_weather")], embedder)
    assert agent.run("Is it going to be a washout this evening?").calls[0].dispatched
    be, agent, home = _gated([call("get_weather")], embedder, read_trust_above=None)
    r = agent.run("Is it going to be a washout this evening?")
    assert not r.calls[0].dispatched


def test_far_blocks_a_tool_far_from_the_request_by_meaning_and_the_shipped_gate_answers_in_words(embedder):
    be, agent, home = _gated([call("play_music", query="cats")], embedder, answer_below=None, far_below=-0.15)
    r = agent.run("Tell me a joke about cats.")  # the query said verbatim grounds it by words
    assert not r.calls[0].dispatched and home.media["state"] == "stopped"
    be, agent, home = _gated(['{"answer": "Cats have nine lives, so they never fear the punchline."}'],
                             embedder)  # the shipped gate: words only, no call can be made
    r = agent.run("Tell me a joke about cats.")
    assert be.requests[0]["grammar"].strategy == "answer" and r.calls == [] and home.media["state"] == "stopped"
    be, agent, home = _gated([call("play_music", query="jazz")], embedder, far_below=-0.15)
    agent.run("Jazz please.")  # terse, but near the tool's requests
    assert home.media["playing"] == "jazz"


def test_right_after_an_action_only_a_request_clearly_for_one_tool_is_redirected(embedder):
    # dev5 (session 7): "Skip this one, next please." after the music -> cancel_timer("Motown"),
    # blocked; the gate stood aside after any action. Now a wrong tool's turn goes on to the
    # nearest tool when the request alone is clearly for it
    be, agent, home = _gated([call("play_music", query="Motown"), call("cancel_timer", label="Motown"),
                              call("media_control", action="next")], embedder)
    agent.run("Put some Motown on.")
    r = agent.run("Skip this one, next please.")
    assert [(c.name, c.dispatched) for c in r.calls] == [("cancel_timer", False), ("media_control", True)]
    assert be.requests[-1]["grammar"].tool_names == ("media_control",)
    # a line near no tool by itself: no redirect, the call is blocked ("And the office." is
    # near set_light by itself, and FollowUp, before the gate, makes it the light call again)
    be, agent, home = _gated([call("set_light", room="kitchen", on=True), call("start_timer", minutes=5)],
                             embedder)
    agent.run("Kitchen light on.")
    r = agent.run("Lovely, cheers.")
    assert [c.dispatched for c in r.calls] == [False] and len(be.requests) == 2 and home.timers == []


def test_a_question_for_a_reader_right_after_an_action_must_call(embedder):
    # dev36 (session 28): "What's the weather going to be like today?" after a light was switched
    # off was answered "The weather is going to be cloudy." (made up): the gate stood aside
    be, agent, home = _gated([call("set_light", room="bathroom", on=False), call("get_weather")], embedder)
    agent.run("Turn off the bathroom light.")
    r = agent.run("What's the weather going to be like today?")
    assert be.requests[-1]["grammar"].strategy == "required" and [c.name for c in r.calls] == ["get_weather"]
    # an order after an action is left to go on with it
    be, agent, home = _gated([call("set_light", room="bathroom", on=True), call("set_light", room="office", on=True)], embedder)
    agent.run("Bathroom light on.")
    agent.run("And the office.")
    assert be.requests[-1]["grammar"].strategy != "required"


def test_every_agent_with_the_default_hooks_answers_in_words_what_no_tool_is_near(embedder):
    """``default_slm_hooks()`` carries the gate's answer-in-words decision alone (threshold
    of the home splits): on any tool set, a request nearer the generic no-tool lines than to
    every tool's description decodes answer-only; the other decisions stay home's."""
    from edgevox.agents import LLMAgent
    from edgevox.agents.slm.relevance import ANSWER_BELOW
    from edgevox.tools import tool

    @tool
    def calculate_triangle_area(base: float, height: float) -> float:
        """Calculate the area of a triangle from its base and height."""
        return base * height / 2

    hooks = default_slm_hooks()
    gates = [h for h in hooks if isinstance(h, RelevanceGate)]
    assert len(gates) == 1 and gates[0].answer_below == ANSWER_BELOW
    assert gates[0].call_above is gates[0].redirect_above is gates[0].trust_above is None
    gates[0]._embedder = embedder
    be = ScriptedBackend(['{"answer": "Shakespeare."}', call("calculate_triangle_area", base=3, height=4),
                          '{"answer": "It is 6."}'],
                         preset="qwen2.5-coder-0.5b")
    agent = LLMAgent("t", "", "Be brief.", tools=[calculate_triangle_area], model=be, hooks=hooks)
    r = agent.run("Who wrote Hamlet?")
    assert be.requests[0]["grammar"].strategy == "answer" and r.calls == []
    r = agent.run("What's the area of a triangle with base 3 and height 4?")
    assert be.requests[1]["grammar"].strategy != "answer" and r.calls[0].ok
    assert len([h for h in default_slm_hooks(relevance=False) if isinstance(h, RelevanceGate)]) == 0


@pytest.mark.model
def test_on_the_real_model_small_talk_is_left_alone_and_a_near_request_must_call(qwen_backend):
    from edgevox.examples.home import home_agent

    model = qwen_backend.with_preset("qwen2.5-coder-0.5b")
    agent, home = home_agent(model)
    r = agent.run("Tell me a joke.")
    assert not any(c.dispatched for c in r.calls) and r.reply.strip(), (r.calls, r.reply)
    for text in ("What temperature is the house set to?", "How much time is left on the pasta timer?",
                 "Tell me a joke about cats."):
        # state questions no tool answers (went to the weather, the time); a joke that once played "cat"
        agent, home = home_agent(model)
        r = agent.run(text)
        assert not any(c.dispatched for c in r.calls) and r.reply.strip(), (text, r.calls, r.reply)
    agent, home = home_agent(model)
    r = agent.run("Office lights out, please.")
    assert agent.hook_stats.get("relevance") == 1, agent.hook_stats  # near set_light: the hop must call
    ran = [(c.name, c.arguments.get("room"), c.arguments.get("on")) for c in r.calls if c.dispatched]
    assert ran == [("set_light", "office", False)] and home.lights["office"] is False, (r.calls, r.reply)


def test_a_reader_given_a_place_outside_the_home_is_not_a_state_question():
    from edgevox.agents.slm.relevance import reads_a_named_place
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    reg = ToolRegistry(Home().tools())
    weather = reg.get("get_weather")
    # dev7 (session 8): "hot" sounds like the thermostat; the city makes it the weather's
    assert reads_a_named_place("is it going to be hot in phoenix today", weather, {"location": "Phoenix"})
    assert not reads_a_named_place("How warm is it in the bedroom?", weather, {"location": "bedroom"})
    assert not reads_a_named_place("What temperature is the house set to?", weather, {"location": "house"})
    assert not reads_a_named_place("What temperature is the house set to?", weather, {})
    assert not reads_a_named_place("Is it hot in Phoenix?", reg.get("set_thermostat"), {"temperature": 20})


def test_an_order_that_names_a_tools_thing_is_never_made_to_answer_in_words(embedder):
    from edgevox.agents.slm.relevance import commands_a_tool
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    registry = ToolRegistry(Home().tools())
    # dev10 (session 11): nearer "How do I boil an egg?" than any timer request: answered in words
    assert commands_a_tool("Soft-boiled eggs, six and a half minutes, set a timer.", registry)
    assert not commands_a_tool("Just a light bite for me tonight, I think.", registry)
    assert not commands_a_tool("How do I set a timer on my phone?", registry)  # a question
    # dev42 (session 30): answered in words, nearer the no-tool lines than any tool
    assert commands_a_tool("Chuck two 7 Up on the list.", registry)
    assert not commands_a_tool("Put it on my to-do list.", registry)
    # session 13 (the weather/time/timer dicts): the word after the thing was taken for it
    assert commands_a_tool("Set a timer for 12 minutes for the pasta.", registry)
    assert not commands_a_tool("Set the table for four.", registry)
    # dev14 (session 22): the thing and its new state is an order too
    assert commands_a_tool("Right, I'm off to bed, lights out everywhere.", registry)
    assert commands_a_tool("Heating on, please.", registry)
    # dev21 (session 25): a length before the thing ("Start a 7 minute timer labelled soft-boiled
    # eggs." was made to answer in words, and echoed the request)
    assert commands_a_tool("Start a 7 minute timer labelled soft-boiled eggs.", registry)
    assert commands_a_tool("Set a seven minute timer for the eggs.", registry)
    assert not commands_a_tool("How do I start a 7 minute timer?", registry)
    assert not commands_a_tool("I'm off to bed, good night.", registry)
    assert not commands_a_tool("Are the lights off?", registry)  # a question
    be, agent, home = _gated([call("start_timer", minutes=6, seconds=30, label="eggs")], embedder)
    agent.run("Soft-boiled eggs, six and a half minutes, set a timer.")
    assert be.requests[0]["grammar"].strategy != "answer" and [t["seconds"] for t in home.timers] == [390]


def test_a_tools_word_inside_an_idiom_is_never_trusted_by_meaning(embedder):
    # dev10 (session 11): "Can you play dead?" -> play_music("dead") ran, trusted as near the player
    be, agent, home = _gated([call("play_music", query="dead")], embedder)
    r = agent.run("Can you play dead?")
    assert all(not c.dispatched for c in r.calls) and home.media["state"] == "stopped", (r.calls, r.reply)


def test_a_request_one_of_whose_parts_plainly_asks_for_a_tool_is_not_made_to_answer_in_words(embedder):
    """As one text, "What's the capital of France? And will it rain in Lyon today?" sits nearer
    the no-tool lines than any tool (it was answered in words, the weather never read); its
    second part alone is plainly the weather's. A request whose every part is small talk is
    still answered in words."""
    be, agent, home = _gated(['{"answer": "Shakespeare. You are welcome."}', call("get_weather", location="Lyon"),
                              '{"answer": "Paris. Mild in Lyon."}'], embedder)
    r = agent.run("Who wrote Hamlet? Thanks for that.")
    assert be.requests[0]["grammar"].strategy == "answer" and r.calls == []
    index = next(h for h in agent.hooks.hooks if isinstance(h, RelevanceGate)).index(agent.registry)
    text = "What's the capital of France? And will it rain in Lyon today?"
    assert index.relevance(text).margin < 0 <= index.relevance("will it rain in Lyon today").margin
    r = agent.run(text)
    assert be.requests[1]["grammar"].strategy != "answer"
    assert [c.name for c in r.calls if c.ok] == ["get_weather"] and r.calls[0].arguments["location"] == "Lyon"


def test_a_redirect_goes_to_the_tool_the_request_orders_and_never_to_another_service(embedder):
    # dev13 (session 21): "Set a timer for ten minutes for the eggs." -> set_thermostat, blocked,
    # then on to the shopping list (nearest by its embedding: "take the eggs off") to remove eggs
    be, agent, home = _gated([call("set_thermostat", temperature=22), call("start_timer", minutes=10, label="eggs")],
                             embedder)
    r = agent.run("Set a timer for ten minutes for the eggs.")
    assert be.requests[-1]["grammar"].tool_names == ("start_timer",)
    assert [(c.name, c.dispatched) for c in r.calls] == [("set_thermostat", False), ("start_timer", True)]
    # dev13: "Send an email to Priya ..." went on to the weather, which shares "report"; the
    # cab to the shopping list: no tool sends an email or books a cab, the turn ends in words
    for text in ("Send an email to Priya saying the report's done.", "Can you book me a cab to King's Cross?"):
        be, agent, home = _gated([call("media_control", action="stop"), call("get_weather", location="Priya")],
                                 embedder)
        r = agent.run(text)
        assert len(be.requests) == 1 and [c.dispatched for c in r.calls] == [False], text


def test_a_question_whether_the_clock_has_reached_an_hour_asks_the_time():
    from edgevox.agents.slm.relevance import asks_the_hour

    # dev14 (session 23): "Is it gone five yet?" was taken for a timer's state and its clock call blocked
    assert asks_the_hour("Is it gone five yet?") and asks_the_hour("Has it gone ten o'clock?")
    assert asks_the_hour("Is it 5 pm yet?") and asks_the_hour("is it after midnight")
    assert not asks_the_hour("Is it five minutes yet?") and not asks_the_hour("Is it 20?")
    assert not asks_the_hour("Is it 20 degrees?") and not asks_the_hour("Is it one of those days?")
    # dev42 (session 30): "Time check, is it 5 yet?" had its clock call blocked as a state's question
    assert asks_the_hour("Time check, is it 5 yet?") and asks_the_hour("is it six yet")
    assert not asks_the_hour("Is it 20 yet?") and not asks_the_hour("Is it done yet?")


def test_a_state_praised_as_it_is_asks_for_nothing():
    from edgevox.agents.slm.relevance import praises_as_is

    # dev42 (session 30): each made its call again, the number read as an order
    for text in ("Thanks, that 20 minute timer was perfect.", "Thank you, 21 degrees is just right.",
                 "ta, the volume at 30 is spot on", "That's better, thanks.",
                 # dev46 (session 31): what it is good for, or on which
                 "This lo-fi playlist is perfect for studying.", "Adele's voice is unreal on this one."):
        assert praises_as_is(text), text
    for text in ("The music is fine, turn off the kitchen light.", "The kitchen is too dark.", "Is the volume ok?",
                 "Set it to 21, that is perfect.", "The office light is fine but the hallway is too dark.", "22 is good."):
        assert not praises_as_is(text), text


def test_a_request_that_ends_by_taking_itself_back_is_answered_in_words():
    from edgevox.agents.slm.relevance import takes_itself_back
    # dev42 (session 30): "cancel that" after a no takes back; alone it may cancel a timer
    assert takes_itself_back("Kitchen lights to 30, no, cancel that, leave them.")
    assert not takes_itself_back("The 10 minute timer, cancel that.")
    # dev46 (session 31): taken back, and why, by a name's doing or a thing already done
    assert takes_itself_back("Turn the bedroom light... actually no, forget it, Sophie's reading.")
    assert takes_itself_back("Set a timer for, um, hang on, no, the packet says it's ready already.")
    assert not takes_itself_back("Set the kitchen light to 40, no, the bedroom light.")

    # dev18 (session 23): "Set a timer for... no, forget it." cancelled a timer named "no"
    assert takes_itself_back("Set a timer for... no, forget it.")
    assert takes_itself_back("Turn off the kitchen light, actually never mind")
    assert not takes_itself_back("No, forget it.")  # the turn before taken back: follow_up.undo's
    assert not takes_itself_back("Never mind the lights, set a timer for 5 minutes.")


def test_a_request_taken_back_acts_on_nothing_and_says_okay(embedder):
    # session 24: the model had worded it "Sorry, I can't do that."
    be, agent, home = _gated([call("cancel_timer", label="no")], embedder)
    r = agent.run("Set a timer for... no, forget it.")
    assert r.calls == [] and r.reply == "Okay." and be.requests == []


def test_a_thing_said_with_its_length_at_the_start_is_ordered():
    from edgevox.agents.slm.relevance import ordered_tools
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    reg = ToolRegistry(Home().tools())
    # dev30 (session 27): "timer for 7 minutes, soft-boiled eggs" was made to answer in words
    assert "start_timer" in ordered_tools("timer for 7 minutes, soft-boiled eggs", reg)
    assert "start_timer" in ordered_tools("ten minute timer, pasta", reg)
    assert ordered_tools("Timer for 7 minutes?", reg) == set()  # asked
    assert ordered_tools("a 5 minute walk would be nice", reg) == set()


def test_dev40_a_request_said_fine_as_it_is_or_taken_back_with_a_reason():
    # dev40 (session 29): both ran (the volume went up, the bananas went on the list)
    from edgevox.agents.slm.relevance import takes_itself_back
    assert takes_itself_back("turn the volume up two... nah, it's fine as it is")
    assert takes_itself_back("Add 4 bananas to... no, never mind, we've got some.")
    for text in ("Turn it up, it's fine", "Play some jazz, it's okay I'll wait", "Dim the lights, no need to rush", "No, forget it."):
        assert not takes_itself_back(text), text
