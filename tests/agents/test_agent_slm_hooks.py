"""Each SLM safety hook on crafted outputs and on outputs the real Qwen2.5-Coder-0.5B wrote.

The ``QWEN_*`` strings are verbatim generations of Qwen2.5-Coder-0.5B-Instruct Q4_K_M
(temperature 0, preset qwen25, the tools of conftest.py) recorded while building the agent;
test_agent_model.py runs the live model into the loop guard, unknown-tool, arg-shape and
speakable situations; the placeholder and echo guards are tested on recorded outputs only.
"""

from __future__ import annotations

import pytest
from agent_fakes import ScriptedBackend, call
from agent_tools import get_stock, get_time, get_weather, set_lights

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm import is_placeholder, schema_hint
from edgevox.agents.speech import json_payload, split_json, strip_markup
from edgevox.tools import tool

# After a get_time result, without the answer note: the model "calls" again, echoing schema.
QWEN_TIME_RECALL = ('{"name": "get_time", "arguments": {"type": "object", "properties": '
                    '{"type": "string", "value": "14:05"}}}\n{"name": "')
# After a get_weather result: the same call again plus the result echoed as JSON.
QWEN_WEATHER_RECALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"temp_c":21, "sky":"sunny"}'
# Tools not offered, after a get_time result: a call with an argument the tool does not take.
QWEN_TIME_BAD_ARGS = '{"name": "get_time", "arguments": {"time": "14:05"}}'
# After set_lights returned "ok": the result echoed, then a sentence.
QWEN_ECHO_THEN_PROSE = '{"response": "ok"} The kitchen lights are already turned on.'
# A tool schema echoed and cut off by max_tokens.
QWEN_SCHEMA_ECHO = ('{"name": "set_lights", "arguments": {"type": "object", "properties": {"room": '
                    '{"description": "Room name.", "type": "string"}, "on": {"description": "True to switch on')
# Small talk, as it should be.
QWEN_JOKE = "Sure, here's a joke for you:\n\nWhy did the tomato turn red?\n\nBecause it saw the salad dressing!"


def make(script, tools=(get_time, get_weather, set_lights), **kw):
    be = ScriptedBackend(script, preset=kw.pop("preset", "qwen25"))
    return LLMAgent("t", "", "Be brief.", tools=list(tools), model=be, hooks=default_slm_hooks(), **kw), be


# -- loop guard ----------------------------------------------------------------------------


def test_loop_guard_crafted_same_call_twice():
    ag, be = make([call("get_time"), call("get_time"), "It is 14:05."])
    r = ag.run("time?")
    assert r.reply == "It is 14:05."
    assert [c.dispatched for c in r.calls] == [True, False]
    assert r.calls[1].result["earlier_result"] == "14:05"
    # the next hop may only answer, and still renders the tools: the cached prompt prefix stays
    assert "<tools>" in be.requests[2]["prompt"]
    assert ag.hook_stats == {"loop_guard": 1}


def test_loop_guard_on_real_recall():
    ag, be = make([call("get_weather", city="Paris"), QWEN_WEATHER_RECALL, "It is sunny in Paris."])
    r = ag.run("What's the weather in Paris?")
    assert [c.dispatched for c in r.calls] == [True, False]
    assert r.reply == "It is sunny in Paris."
    assert ag.hook_stats["loop_guard"] == 1


def test_loop_guard_duplicate_inside_one_message():
    ag, _ = make([call("get_weather", city="Rome") * 2, "Sunny."])
    r = ag.run("weather in Rome")
    assert [c.dispatched for c in r.calls] == [True, False]
    assert "Duplicate" in r.calls[1].result["note"]


def test_different_arguments_are_not_a_loop():
    ag, _ = make([call("get_weather", city="Paris"), call("get_weather", city="Rome"), "Both sunny."])
    r = ag.run("Paris then Rome")
    assert all(c.dispatched for c in r.calls) and "loop_guard" not in ag.hook_stats


# -- placeholder arguments -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "string", "<value>", "value", "...", "example", "<city>", "city"])
def test_placeholder_required_argument_is_not_dispatched(value):
    ran = []

    @tool
    def weather(city: str) -> str:
        """Weather.

        Args:
            city: City.
        """
        ran.append(city)
        return "sunny"

    ag, be = make([call("weather", city=value), "Which city do you mean?"], tools=[weather])
    r = ag.run("weather?")
    assert ran == [] and r.calls[0].dispatched is False
    assert "'city'" in r.calls[0].error and r.calls[0].error_type == "invalid_arguments"
    assert "placeholder" in be.requests[1]["prompt"]
    assert r.reply == "Which city do you mean?" and ag.hook_stats["placeholder_args"] == 1


def test_placeholder_optional_argument_is_dropped_and_enum_values_kept():
    got = []

    @tool
    def forecast(city: str, unit: str = "c", mode: str | None = None) -> str:
        """Forecast.

        Args:
            city: City.
            unit: Unit.
            mode: Mode.
        """
        got.append((city, unit, mode))
        return "ok"

    ag, _ = make([call("forecast", city="Oslo", unit="string", mode="..."), "Done."], tools=[forecast])
    ag.run("forecast")
    assert got == [("Oslo", "c", None)]
    assert is_placeholder("value") and not is_placeholder("value", "x", {"enum": ["value", "other"]})
    assert not is_placeholder("Paris", "city") and not is_placeholder(0) and not is_placeholder("San <3")


# -- unknown tool ----------------------------------------------------------------------------


def test_unknown_tool_far_from_any_real_one_gets_a_words_only_retry():
    ag, be = make([call("book_flight", to="Rome"), "Sorry, I can't book flights."])
    r = ag.run("book me a flight")
    prompt = be.requests[1]["prompt"]
    assert "no tool named 'book_flight'" in prompt and "get_time, get_weather, set_lights" in prompt
    assert "<tools>" not in prompt  # the retry may only answer in words
    assert r.calls == [] and r.reply == "Sorry, I can't book flights." and ag.hook_stats["unknown_tool"] == 1
    assert "book_flight" not in str(ag.session.messages)  # the rejected generation is not kept


def test_unknown_tool_close_to_a_real_one_requires_it_on_retry():
    # Qwen2.5-Coder-0.5B wrote this four times in a row for "Set a 5 minute timer."
    real = '{"name": "set_timer", "arguments": {"minutes": 5, "label": "pasta"}}'
    from edgevox.examples.home import Home

    ag, be = make([real, call("start_timer", minutes=5, label="pasta"), "Timer started."], tools=Home().tools())
    r = ag.run("Set a 5 minute timer.")
    assert "Did you mean 'start_timer'?" in be.requests[1]["prompt"]
    g = be.requests[1]["grammar"]
    assert g is not None and g.strategy == "single" and "start_timer" in g.gbnf and "set_light" not in g.gbnf
    # the home tools speak their own results (say=): the retried call's sentence is the reply
    assert [c.name for c in r.calls] == ["start_timer"] and r.reply == "Timer set for 5 minutes."


def test_unknown_tool_ignores_schema_words_echoed_into_the_arguments():
    # seen on Qwen2.5-Coder-0.5B with the 11-tool home: the schema's additionalProperties
    # copied into the arguments must not hide that start_timer takes the rest
    from edgevox.agents.slm.unknown_tool import meant_tool
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    raw = '{"name": "set_timer", "arguments": {"minutes": 5, "additionalProperties": false}}'
    assert meant_tool("set_timer", raw, ToolRegistry(Home().tools())) == "start_timer"
    assert meant_tool("set_timer", '{"name": "set_timer", "arguments": {"city": "Rome"}}',
                      ToolRegistry(Home().tools())) is None


def test_unknown_tool_with_no_hops_left_says_so():
    ag, _ = make([call("book_flight", to="Rome")], max_hops=1)
    r = ag.run("book me a flight")
    assert r.reply == "Sorry, I can't do that with the tools I have."


# -- echo guard ------------------------------------------------------------------------------


def test_echo_guard_crafted_result_dump_retried_then_summarised():
    ag, be = make([call("get_weather", city="Paris"), '{"city":"Paris","temp_c":21,"sky":"sunny"}',
                   '```json\n{"city": "Paris", "temp_c": 21}\n```'])
    stream = ag.run_stream("weather in Paris?")
    spoken = "".join(p for p in stream if isinstance(p, str))
    r = stream.result
    assert "{" not in spoken and "{" not in r.reply
    assert r.reply == "Here's what I found: city Paris, temp c 21."
    assert "Do not answer with JSON" in be.requests[2]["prompt"]
    assert ag.hook_stats["echo_guard"] == 2


def test_echo_guard_error_json_becomes_apology():
    ag, _ = make(['{"error":"stock service unreachable","error_type":"exception"}'], max_hops=1)
    r = ag.run("stock?")
    assert r.reply.startswith("Sorry, that didn't work") and "error_type" not in r.reply


def test_echo_guard_on_real_echo_then_prose():
    ag, _ = make([call("set_lights", room="kitchen", on=True), QWEN_ECHO_THEN_PROSE])
    r = ag.run("Turn on the kitchen lights")
    assert r.reply == "The kitchen lights are already turned on."
    assert ag.hook_stats["echo_guard"] == 1


def test_echo_guard_on_real_truncated_schema_echo():
    ag, _ = make([call("set_lights", room="kitchen", on=True), QWEN_SCHEMA_ECHO, QWEN_SCHEMA_ECHO])
    r = ag.run("Turn on the kitchen lights")
    assert r.reply == "Here's what I found: lights in the kitchen are on."
    assert "{" not in r.reply


def test_echo_guard_cuts_json_spoken_next_to_calls():
    ag, _ = make([QWEN_TIME_RECALL.split("\n")[0] + "\n" + call("get_time"), "It is 14:05."])
    r = ag.run("time")
    assert r.reply == "It is 14:05." and ag.session.messages[1]["content"] == ""


# bench_voice's quiet run (envelope profile, tools without say=): the hop after a
# successful call said the request back as its answer.
QWEN_REQUEST_ECHO = "Turn on the kitchen light."


def test_echo_guard_request_said_back_is_held_retried_and_answered():
    ag, be = make([call("set_lights", room="kitchen", on=True), QWEN_REQUEST_ECHO + " And the hall one too.",
                   "The kitchen light is on now."])
    stream = ag.run_stream("Turn on the kitchen light.")
    spoken = "".join(p for p in stream if isinstance(p, str))
    r = stream.result
    assert "Turn on" not in spoken and r.reply == "The kitchen light is on now." == spoken.strip()
    assert "Do not repeat the request" in be.requests[2]["prompt"]
    assert ag.hook_stats["echo_guard"] == 1


def test_echo_guard_request_echoed_twice_is_said_from_the_results():
    ag, _ = make([call("set_lights", room="kitchen", on=True), "turn on the kitchen light", QWEN_REQUEST_ECHO])
    r = ag.run("Turn on the kitchen light.")
    assert r.reply.startswith("Done: set lights:") and "kitchen" in r.reply
    assert ag.hook_stats["echo_guard"] == 2


def test_a_reply_like_the_request_without_a_call_or_diverging_is_kept():
    from edgevox.agents.slm.echo_guard import repeats_request

    ag, _ = make(["Hello there!"])
    assert ag.run("Hello there!").reply == "Hello there!"  # no call ran: a greeting back is fine
    ag, _ = make([call("set_lights", room="kitchen", on=True), "Turned on the kitchen light."])
    assert ag.run("Turn on the kitchen light.").reply == "Turned on the kitchen light."
    assert repeats_request("Start a timer", "Start a timer for 10 minutes.")
    assert not repeats_request("Start", "Start a timer for 10 minutes.")
    assert not repeats_request("Turned on the kitchen light now.", "Turn on the kitchen light.")
    # the whole request and then more (measured: a demonstration's second action added)
    assert repeats_request("Switch off the light in the bedroom and dim the living room light to 40 percent.",
                           "Switch off the light in the bedroom.")


def test_prose_is_not_an_echo():
    ag, _ = make([QWEN_JOKE, "unused"])
    assert ag.run("tell me a joke").reply == QWEN_JOKE
    assert set(ag.hook_stats) <= {"relevance"}  # only the answer-only gate may act: a joke is no tool's
    assert split_json("It is 5 [approx] now {not json}") == ("It is 5 [approx] now {not json}", [])
    assert json_payload("I like {curly} braces") is None


# -- argument shape ----------------------------------------------------------------------------


def test_arg_shape_hint_then_success():
    ag, be = make([call("get_weather", town="Paris"), call("get_weather", city="Paris"), "Sunny in Paris."])
    r = ag.run("weather in Paris")
    assert r.calls[0].error_type == "invalid_arguments" and r.calls[1].result["city"] == "Paris"
    assert "get_weather expects: city (string, required)" in be.requests[1]["prompt"]
    assert ag.hook_stats["arg_shape"] == 1 and r.reply == "Sunny in Paris."


def test_arg_shape_second_failure_ends_politely():
    ag, be = make([call("get_weather", town="Paris"), call("get_weather", place="Paris"), "never"])
    r = ag.run("weather in Paris")
    assert r.stopped_reason == "hook" and r.reply.startswith("Sorry, I couldn't work out the details for get weather")
    assert len(be.requests) == 2


def test_arg_shape_on_real_bad_args():
    ag, be = make([call("get_time"), QWEN_TIME_BAD_ARGS, "It is 14:05."])
    r = ag.run("What time is it?")
    assert r.calls[1].error_type == "invalid_arguments"
    assert "get_time takes no arguments" in be.requests[2]["prompt"]
    assert r.reply == "It is 14:05."


def test_schema_hint_text():
    params = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 1},
                                               "unit": {"enum": ["c", "f"]},
                                               "tags": {"type": "array", "items": {"type": "string"}}},
              "required": ["city"]}
    assert schema_hint("w", params) == ('w expects: city (string, required); days (integer, optional, default 1); '
                                        'unit (one of "c", "f", optional); tags (array of string, optional). '
                                        'Use exactly these names and types.')


# -- speakable -------------------------------------------------------------------------------


def test_speakable_crafted_markup_stripped_in_reply_and_stream():
    text = "<think>the user wants time</think>**It is** `14:05`.<|im_end|> ```python\nNice day!\n```"
    ag, _ = make([call("get_time"), text])  # the time read first: a time said with no call is made up
    stream = ag.run_stream("time?")
    spoken = "".join(p for p in stream if isinstance(p, str))
    for s in (spoken, stream.result.reply):
        assert "<" not in s and "`" not in s and "*" not in s and "think" not in s
    assert stream.result.reply == "It is 14:05. Nice day!"
    assert " ".join(spoken.split()) == "It is 14:05. Nice day!"
    assert ag.hook_stats == {"speakable": 1}


def test_an_exception_copied_from_a_tool_error_is_said_as_a_failure():
    # dev55 (session 34): after the loop guard asked for words the model said the tool's error whole
    ag, _ = make([call("get_time"), "ValueError: say how long the timer should run"])
    r = ag.run("time")
    assert r.reply == "Sorry, that didn't work: say how long the timer should run", r.reply


def test_speakable_on_real_outputs():
    assert strip_markup(QWEN_JOKE) == QWEN_JOKE  # clean prose is left alone
    ag, _ = make([call("get_time"), "<tool_call>\n</tool_call>The time is 14:05.</tool_call>"])
    r = ag.run("time")
    assert r.reply == "The time is 14:05."


def test_hook_stats_count_each_hook_by_name():
    ag, _ = make([call("get_time"), call("get_time"), '{"time": "14:05"}', "It is 14:05."])
    ag.run("time?")
    assert ag.hook_stats == {"loop_guard": 1, "echo_guard": 1}


def test_arg_shape_forces_the_tool_under_grammar_only_for_shape_errors():
    from edgevox.examples.home import Home

    # extra keys (Qwen's schema echo): the retry is required to be a well-formed get_time call
    ag, be = make(['{"name": "get_time", "arguments": {"properties": {}, "required": []}}',
                   call("get_time"), "It is noon."], tools=Home().tools())
    r = ag.run("What time is it?")
    g = be.requests[1]["grammar"]
    assert g is not None and g.strategy == "single" and "get_time" in g.gbnf
    assert r.calls[1].ok and r.reply == ag.registry.get("get_time").speak(r.calls[1].result)  # its say=
    # a value outside the enum: no grammar (it would make the model pick some other room)
    ag, be = make([call("set_light", room="attic", on=True), "There is no attic light."], tools=Home().tools())
    r = ag.run("Turn on the light in the attic.")
    assert be.requests[1]["grammar"].validation == "structural"  # the default, no schema
    assert "what went wrong" in be.requests[1]["prompt"]  # the failed-call note, not the answer note
    assert "using the tool results above" not in be.requests[1]["prompt"]


def test_runtime_note_read_back_is_not_spoken():
    # Qwen2.5-Coder-0.5B read a note back verbatim while the notes were being tuned
    ag, _ = make([call("get_stock", symbol="ACME"),
                  "Now tell the user in one short sentence what went wrong. The stock service is down."],
                 tools=[get_stock])
    r = ag.run("ACME price?")
    assert r.reply == "The stock service is down." and ag.loop_stats["note_echoes"] == 1


def test_echo_guard_an_examples_answer_about_what_nobody_named_is_said_from_the_results():
    from edgevox.agents.slm.echo_guard import EchoGuard, copies_an_example
    from edgevox.examples.home import home_agent

    # dev19 (session 24): after calls that ran, "Sorry, I can't control a fan." -- no fan named
    fan = "Sorry, I can't control a fan."
    both = ('[{"tool": "set_light", "arguments": {"room": "living room", "on": true, "brightness": 80}}, '
            '{"tool": "cancel_timer", "arguments": {}}]')
    agent, home = home_agent(ScriptedBackend([both, fan], preset="qwen2.5-coder-0.5b"), hooks=[EchoGuard()],
                             demonstrations=True)
    r = agent.run("Bring the living room up to eighty.")
    assert home.brightness["living room"] == 80 and r.reply == "The living room light is on at 80 percent."
    agent, _ = home_agent(ScriptedBackend([fan], preset="qwen2.5-coder-0.5b"), hooks=[EchoGuard()], demonstrations=True)
    assert agent.run("Close the blinds in the lounge.").reply == "Sorry, I can't control the blinds."
    agent, _ = home_agent(ScriptedBackend([fan], preset="qwen2.5-coder-0.5b"), hooks=[EchoGuard()], demonstrations=True)
    assert agent.run("Turn on the ceiling fan.").reply == fan  # its own topic: kept
    demos = agent.demonstrations
    assert copies_an_example("Sorry, I can't control a fan!", "Kitchen 60, hallway off.", demos)
    assert not copies_an_example("Okay.", "Kitchen 60, hallway off.", demos)  # no topic: any request's
    # a general refusal names no topic of its own: it may answer any request
    assert not copies_an_example("Sorry, I can't do that.", "Book me a taxi.", demos)
    assert not copies_an_example("Sorry, I can't check that.", "Is the garage door open?", demos)
