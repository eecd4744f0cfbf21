"""The first acting hop's calls written again in the model's own layout (json_fenced).

Which calls are taken (pure logic), the loop on a scripted backend (what the second
generation is shown and under which grammar, when it runs at all), and the real agent on
a BFCL case whose calls the envelope alone gets wrong (tests/bfcl/test_agent_engine.py).
"""

from __future__ import annotations

import copy
import json

from agent_fakes import ScriptedBackend

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.own_layout import LIST_INSTRUCTIONS, chosen, makes_up, may_rewrite, said
from edgevox.parsing.types import ToolCall
from edgevox.tools import tool


class TwoLayoutBackend(ScriptedBackend):
    """The scripted backend, also under a second preset (sharing its script and records),
    as ``LlamaBackend.with_preset`` shares the loaded model."""

    def with_preset(self, preset: str) -> TwoLayoutBackend:
        from edgevox.llm import get_preset

        other = copy.copy(self)
        other.preset = get_preset(preset)
        return other


def envelope(*calls: tuple[str, dict]) -> str:
    items = [{"tool": n, "arguments": a} for n, a in calls]
    return json.dumps(items[0] if len(items) == 1 else items)


def fenced(*calls: tuple[str, dict]) -> str:
    return "```json\n" + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + "\n```"


def tc(name: str, **args) -> ToolCall:
    return ToolCall(None, name, args)


def test_own_calls_are_taken_when_they_keep_the_envelopes_tools():
    env = [tc("fall_time", height=10)]
    more = [tc("fall_time", height=10), tc("fall_time", height=20), tc("fall_time", height=30)]
    assert chosen(env, more) == more  # the count is the own layout's
    assert chosen(env, []) == env  # it answered in words: the envelope decided to act
    other = [tc("triangle_area", base=3, height=4)]
    assert chosen(env, other) == env  # a different tool: the envelope's choice stands
    added = [tc("fall_time", height=10), tc("triangle_area", base=3, height=4)]
    assert chosen(env, added) == env  # asked about one thing, a second tool is not added
    two = [tc("fall_time", height=10), tc("triangle_area", base=3, height=4)]
    three = [*two, tc("unit_price", item="tea")]
    assert chosen(two, three) == three  # the envelope itself saw several things asked
    assert chosen(env, added, lambda: {"triangle_area"}) == added  # ... unless the request plainly asks for it
    assert chosen(env, added, lambda: {"unit_price"}) == env
    assert chosen([], more) == more  # the envelope meant to act and wrote no call


def test_whether_the_request_is_asked_about_is_only_computed_when_a_tool_is_added():
    asked = []
    env = [tc("fall_time", height=10)]
    chosen(env, [tc("fall_time", height=10), tc("fall_time", height=20)], lambda: asked.append(1) or set())
    assert asked == []  # embeddings are not free: no added tool, no question
    chosen(env, [tc("fall_time", height=10), tc("triangle_area", base=3, height=4)], lambda: asked.append(1) or set())
    assert asked == [1]


seen: list[tuple] = []


@tool
def fall_time(height: float) -> str:
    """How long an object dropped from rest takes to reach the ground.

    Args:
        height: The height it falls from, in meters.
    """
    seen.append(("fall", height))
    return "ok"


@tool
def triangle_area(base: float, height: float) -> str:
    """The area of a triangle.

    Args:
        base: The base.
        height: The height.
    """
    seen.append(("area", base, height))
    return "ok"


def _agent(script, tools=(fall_time, triangle_area), **kw):
    be = TwoLayoutBackend(script, preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=list(tools), model=be, hooks=default_slm_hooks(relevance=False), warm=False, **kw)
    return be, agent


def test_the_second_generation_sees_the_list_instructions_and_no_demonstrations():
    seen.clear()
    be, agent = _agent([envelope(("fall_time", {"height": 10})),
                        fenced(*[("fall_time", {"height": h}) for h in (10, 25, 40)]),
                        '{"answer": "About 1.4, 2.3 and 2.9 seconds."}'])
    assert may_rewrite(agent)
    r = agent.run("A stone falls from 10 m, a second from 25 m, a third from 40 m. How long does each take?")
    assert seen == [("fall", 10), ("fall", 25), ("fall", 40)] and agent.loop_stats["own_layout_calls"] == 1
    first, own = be.requests[0], be.requests[1]
    assert own["messages"][0] == {"role": "system", "content": LIST_INSTRUCTIONS}
    assert [m["role"] for m in own["messages"]] == ["system", "user"]  # no demonstration turns
    assert len(first["messages"]) > 2  # the envelope's hop had them
    assert own["grammar"].wire_format == "json_fenced" and first["grammar"].wire_format == "envelope"
    assert r.reply == "About 1.4, 2.3 and 2.9 seconds."


def test_no_second_generation_for_answers_tools_with_examples_or_later_hops():
    seen.clear()
    be, agent = _agent(['{"answer": "Hello!"}'])
    agent.run("Hi there.")
    assert len(be.requests) == 1  # answered in words: nothing to write again

    @tool(examples=[("How long does a drop from 5 m take?", {"height": 5})])
    def drop_time(height: float) -> str:
        """How long a drop takes.

        Args:
            height: The height in meters.
        """
        seen.append(("drop", height))
        return "ok"

    be, agent = _agent([envelope(("drop_time", {"height": 5})), '{"answer": "One second."}'], tools=[drop_time])
    assert not may_rewrite(agent)  # the author's own examples teach the calls: left as they are
    agent.run("How long does a drop from 5 m take?")
    assert len(be.requests) == 2 and seen == [("drop", 5)]  # the call, then the answer


def test_which_values_the_request_says():
    words = set("sort this list of names in ascending order search for divorce law specialists".split())
    assert said("asc", words) and said("Divorce", words) and said("law firms", words)  # one word is enough
    assert said("Marriage", words) is False and said("of the", words) is False  # linking words say nothing
    assert said(["divorce", "names"], words) and said(["divorce", "Criminal"], words) is False
    assert said(3, words) is None and said(True, words) is None and said([1, 2], words) is None
    # a code is converted from a name said, as a number is worked out: not judged
    assert said("en", words) is None and said("USD", words) is None and said(["en", "fr"], words) is None
    assert said("pop", words) is False and said("Marriage", words) is False


def test_own_calls_that_make_up_what_the_envelope_kept_to_the_request_are_not_taken():
    # BFCL multiple_58: "divorce" said; the own layout split it into two made-up expertises
    request = "Search for divorce law specialists in Los Angeles"
    env = [tc("lawyer_search", location="Los Angeles", expertise="divorce")]
    split = [tc("lawyer_search", location="Los Angeles", expertise="Marriage"),
             tc("lawyer_search", location="Los Angeles", expertise="Criminal")]
    assert makes_up(request, env, split)
    # multiple_54: a parameter the envelope left out, given values the request never names
    request = "Find out the historical dividend payments of Apple Inc for last five years."
    env = [tc("dividend_data", company="Apple Inc", years=5)]
    assert makes_up(request, env, [tc("dividend_data", company="Apple Inc", years=5, frequency="quarterly"),
                                   tc("dividend_data", company="Apple Inc", years=5, frequency="annually")])
    assert not makes_up(request + " Quarterly, please.", env,  # one of them said: kept
                        [tc("dividend_data", company="Apple Inc", years=5, frequency="quarterly")])
    assert not makes_up(request, env, [tc("dividend_data", company="Apple", years=5)])  # the envelope's value
    # (Apple Inc) is no better said than the own layout's: only what the request says counts
    assert not makes_up("The circumference of a circle of radius 4 inches.", [tc("circumference", radius=4)],
                        [tc("circumference", radius=4, unit="cm")])  # a unit: the unit repair's to set
    assert not makes_up("A circle of radius 4 inches.", [tc("area", radius=4)], [tc("area", radius=4, toUnit="cm")])
    # live_parallel_multiple_4-3-0: "en" for "in English" is a code, not a made-up value
    assert not makes_up("The latest news for Paris in English.", [tc("news", location="Paris")],
                        [tc("news", location="Paris", language="en")])
    assert makes_up("Find a garden club in Boston.", [tc("clubs", city="Boston")],
                    [tc("clubs", city="Boston", community="Rotary")])  # "community" names no unit
    assert not makes_up("Falls from 10, 20 and 30 m.", [tc("fall_time", height=10)],
                        [tc("fall_time", height=h) for h in (10, 20, 30)])  # numbers are not judged


def test_own_calls_that_make_up_values_leave_the_envelopes_call():
    seen.clear()
    be, agent = _agent([envelope(("fall_on", {"height": 10})),
                        fenced(("fall_on", {"height": 10, "planet": "Mars"})),
                        '{"answer": "About 1.4 seconds."}'], tools=(fall_on,))
    agent.run("How long does a fall from 10 m take?")
    assert seen == [("fall", 10, None)] and agent.loop_stats.get("own_layout_made_up") == 1


@tool
def fall_on(height: float, planet: str | None = None) -> str:
    """How long an object dropped from rest takes to reach the ground.

    Args:
        height: The height it falls from, in meters.
        planet: Where it falls; the Earth if not given.
    """
    seen.append(("fall", height, planet))
    return "ok"


def test_a_second_tool_the_envelope_did_not_call_is_not_added():
    seen.clear()
    be, agent = _agent([envelope(("fall_time", {"height": 10})),
                        fenced(("fall_time", {"height": 10}), ("triangle_area", {"base": 3, "height": 4})),
                        '{"answer": "About 1.4 seconds."}'])
    agent.run("How long does a fall from 10 m take?")
    assert seen == [("fall", 10)] and "own_layout_calls" not in agent.loop_stats


def test_a_reply_that_only_promises_help_is_written_again_as_calls():
    seen.clear()
    be, agent = _agent(['{"answer": "Sure, I can help with that."}',
                        fenced(("fall_time", {"height": 10}), ("fall_time", {"height": 20})),
                        '{"answer": "About 1.4 and 2 seconds."}'])
    r = agent.run("A stone falls from 10 m and another from 20 m. How long does each take?")
    assert seen == [("fall", 10), ("fall", 20)] and agent.loop_stats["own_layout_calls"] == 1
    assert agent.loop_stats["own_layout_undecided"] == 1
    assert "About 1.4 and 2 seconds." in r.reply
    seen.clear()  # an empty reply is undecided too (before: the empty-reply retry)
    be, agent = _agent(['{"answer": ""}', fenced(("fall_time", {"height": 10})), '{"answer": "About 1.4 seconds."}'])
    agent.run("How long does a fall from 10 m take?")
    assert seen == [("fall", 10)] and agent.loop_stats["own_layout_calls"] == 1


def test_a_promise_the_own_layout_answers_in_words_or_a_real_answer_stays_words():
    seen.clear()
    be, agent = _agent(['{"answer": "Sure, I can help with that."}', "I cannot compute that."])
    r = agent.run("How long does a fall from 10 m take?")
    assert seen == [] and len(be.requests) == 2 and r.reply == "Sure, I can help with that."
    be, agent = _agent(['{"answer": "Sure, which height?"}'])
    agent.run("How long does a fall take?")
    assert seen == [] and len(be.requests) == 1  # a question back is an answer: nothing written again


def test_a_failed_own_generation_leaves_the_envelopes_calls():
    seen.clear()

    def broken(messages, tools):
        raise RuntimeError("the backend failed")

    be, agent = _agent([envelope(("fall_time", {"height": 10})), broken, '{"answer": "About 1.4 seconds."}'])
    r = agent.run("How long does a fall from 10 m take?")
    assert seen == [("fall", 10)] and agent.loop_stats["own_layout_failures"] == 1 and r.reply


def test_the_home_assistant_is_never_rewritten():
    from edgevox.examples.home import home_agent

    be = TwoLayoutBackend([], preset="qwen2.5-coder-0.5b")
    agent, _ = home_agent(be)
    assert agent.own_layout is not None and not may_rewrite(agent)  # every home tool has examples


def test_which_replies_only_promise_help():
    from edgevox.agents.speech import empty_promise

    promises = ["Sure, I can help with that.", "Yes, I can help you solve these equations.", "Sure, I can help.",
                "I'd be happy to help with this!", "Let me help you with those calculations.",
                "Sure, here are the areas of the shapes you have chosen for your worksheet:"]  # BFCL 50-99
    answers = ["Sure, what would you like?", "Sure, I can help with that. What do you need?",
               "I can help with timers and lights.", "Here is a joke: why did the chicken cross the road?",
               "The vase is 24 centimeters tall.", ""]
    assert [empty_promise(t) for t in promises] == [True] * len(promises)
    assert [empty_promise(t) for t in answers] == [False] * len(answers)


def test_a_story_answered_in_words_gets_the_calls_its_sentences_ask_for():
    # session 17 (BFCL parallel_multiple stories answered with a made-up result): the first hop
    # answered a request of several sentences in words; the own layout writes the calls, and only
    # those of tools a sentence plainly asks for are taken (here the area, not the made-up fall)
    seen.clear()
    be = TwoLayoutBackend(['{"answer": "It is 12 square meters."}',
                           fenced(("triangle_area", {"base": 6, "height": 4}), ("fall_time", {"height": 4})),
                           '{"answer": "The area is 12 square meters."}'], preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[fall_time, triangle_area], model=be, hooks=default_slm_hooks(), warm=False)
    r = agent.run("Imagine you are painting a wall shaped like a triangle. Its base is 6 m and its height "
                  "4 m. What is the area of a triangle with a base of 6 and a height of 4?")
    assert seen == [("area", 6, 4)] and agent.loop_stats["own_layout_story"] == 1, (seen, agent.loop_stats)
    assert r.reply == "The area is 12 square meters."
    seen.clear()
    be = TwoLayoutBackend(['{"answer": "Triangles have three sides."}'], preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[fall_time, triangle_area], model=be, hooks=default_slm_hooks(), warm=False)
    r = agent.run("What is the area of a triangle?")  # one sentence: the answer in words stands
    assert len(be.requests) == 1 and not seen and r.reply == "Triangles have three sides."


STORY = ("Imagine you are painting a wall shaped like a triangle. Its base is 6 m and its height "
         "4 m. What is the area of a triangle with a base of 6 and a height of 4?")


def _streamed(text: str, script: list[str]) -> tuple[list, object]:
    """The pieces a streamed turn yields (text and call events), and its result."""
    be = TwoLayoutBackend(script, preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[fall_time, triangle_area], model=be, hooks=default_slm_hooks(), warm=False)
    stream = agent.run_stream(text)
    pieces = list(stream)
    return pieces, stream.result


def test_a_streamed_story_never_says_the_made_up_words_its_calls_replace(monkeypatch):
    # session 19: the words of a story's first hop are held until the hop ends (the own layout
    # may still replace them with calls), so a streamed turn, like ``run``, never says them
    from edgevox.agents import own_layout

    script = ['{"answer": "It is 12 square meters."}', fenced(("triangle_area", {"base": 6, "height": 4})),
              '{"answer": "The area is 12 square meters."}']
    seen.clear()
    pieces, result = _streamed(STORY, script)
    said = "".join(p for p in pieces if isinstance(p, str))
    assert seen == [("area", 6, 4)] and "It is 12" not in said, pieces
    assert said.strip() == result.reply == "The area is 12 square meters."
    # the same story with no call taken: the held words are said whole, once
    seen.clear()
    pieces, result = _streamed(STORY, ['{"answer": "It is 12 square meters."}', "I cannot help."])
    said = "".join(p for p in pieces if isinstance(p, str))
    assert not seen and said.strip() == result.reply == "It is 12 square meters.", pieces
    # without holding them, the made-up words are streamed before the call replaces them
    monkeypatch.setattr(own_layout, "may_drop_words", lambda agent, request, ctx: False)
    seen.clear()
    pieces, result = _streamed(STORY, script)
    said = "".join(p for p in pieces if isinstance(p, str))
    assert seen == [("area", 6, 4)] and "It is 12" in said, pieces


def test_only_a_story_that_asks_for_a_lookup_holds_its_words():
    # a request of one sentence is never replaced by the story path: its answer is said sentence
    # by sentence as it is decoded; a story's is said once the hop has ended
    answer = '{"answer": "Triangles have three sides. Their angles add up to 180 degrees."}'
    pieces, _ = _streamed("What is the area of a triangle?", [answer])
    assert [p for p in pieces if isinstance(p, str)] == ["Triangles have three sides.", " ",
                                                         "Their angles add up to 180 degrees."]
    pieces, result = _streamed(STORY, [answer, "I cannot help."])
    assert [p for p in pieces if isinstance(p, str)] == [result.reply], pieces
