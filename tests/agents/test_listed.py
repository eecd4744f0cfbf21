"""Several values listed for one argument get one call each; a percent rate becomes a fraction.

Pure logic (which lists a request says, which calls are added), the loop on the scripted
backend (the added calls run and the run-together number never does), and the agent on the
real Qwen2.5-Coder-0.5B with a BFCL-like tool.
"""

from __future__ import annotations

import pytest
from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.listed import fan_out, items_listed_with, run_together
from edgevox.agents.slm.unit_args import fix_percent_rate
from edgevox.tools import Tool, tool


@pytest.mark.parametrize(("request_", "value", "items"), [
    ("Find the factorial of 5,10 and 15.", 15, [5, 10, 15]),
    ("Find the factorial of 5,10 and 15.", 5, [5, 10, 15]),
    ("a loan term of 15, 20 and 30 years", 20, [15, 20, 30]),
    ("for the next 10 years and 20 years", 10, [10, 20]),
    ("the prime factors of the numbers 45, 100, and 150?", 100, [45, 100, 150]),
    ("in Egypt and Turkey from 100 A.D to 1500 A.D.", "Egypt", ["Egypt", "Turkey"]),
    ("the artists Taylor Swift and Maroon 5, with", "Taylor Swift", ["Taylor Swift", "Maroon 5"]),
    ("of human HbA1c, normal hemoglobin, and rat hemoglobin and their 3D models", "normal hemoglobin",
     ["human HbA1c", "normal hemoglobin", "rat hemoglobin"]),
    ("values for navy, purple and maroon?", "maroon", ["navy", "purple", "maroon"]),
    ("in Berlin and Madrid's music stores", "Berlin", ["Berlin", "Madrid"]),
    ("case numbers '67813', '71249' filed", "71249", ["67813", "71249"]),
    ("Add milk, eggs and bread to the shopping list.", "milk", ["milk", "eggs", "bread"]),
])
def test_a_value_said_as_one_item_of_a_list_gives_the_list(request_, value, items):
    assert items_listed_with(request_, value) == items


@pytest.mark.parametrize(("request_", "value"), [
    ("the sum of multiples of 3 and 5 between 1 and 1000", 1),  # a range's ends
    ("the distance between New York and Los Angeles", "New York"),
    ("Compute the Pythagorean Theorem of two side lengths: 3 and 4, 5 and 12.", 4),  # pairs
    ("a room for 2 adults and 1 child", 2),  # two units: two arguments
    ("$30.45 in Chicago, Illinois, $52.33 in Sacramento", "Chicago"),  # a comma alone is no list
    ("a triangle with a base of 10 units and height of 5 units", "units"),  # words going on
    ("Apple Inc. listed on NASDAQ and Microsoft Corporation listed on NYSE", "NASDAQ"),  # two clauses
    ("for Microsoft and Apple. The price of Microsoft's stock.", "Microsoft"),  # also said alone
    ("multiples of 3 and 5; the product of the first five primes", 5),  # also said in words
    ("the hands of a clock at 3:15 and 8:20", 15),  # times are no numbers
    ("Hotels in Paris, France and New York, USA", "Paris"),  # places with their regions
    ("What's the weather in london and the time?", "london"),
])
def test_a_value_not_in_a_list_of_like_items_gives_none(request_, value):
    assert items_listed_with(request_, value) is None


def test_listed_numbers_run_together_are_found_only_when_the_number_is_never_said():
    assert run_together("Find the factorial of 5,10 and 15.", 510) == [5, 10]
    assert run_together("a loan term of 15, 20 and 30 years", 1520) == [15, 20]
    assert run_together("a loan of 1520 for 15, 20 and 30 years", 1520) is None
    assert run_together("Find the factorial of 5,10 and 15.", 15) is None


def _stub(**kw):
    return kw


def _schema(name, props, required):
    return Tool.from_schema({"type": "function", "function": {"name": name, "description": name, "parameters": {
        "type": "object", "properties": props, "required": required}}}, _stub)


def test_each_uncovered_item_gets_a_copy_of_its_call_and_two_lists_every_pairing():
    area = _schema("region_history", {"region": {"type": "string"}, "start_year": {"type": "integer"}},
                   ["region", "start_year"])
    added = fan_out("Christianity in Egypt and Turkey from 100 A.D.", [("region_history", {
        "region": "Egypt", "start_year": 100})], {"region_history": area})
    assert added == [("region_history", {"region": "Turkey", "start_year": 100})]
    wins = _schema("win_pct", {"team": {"type": "string"}, "season": {"type": "integer"}}, ["team", "season"])
    request = "Find the winning percentage of Lakers and Bulls in NBA seasons 2018 and 2020."
    added = fan_out(request, [("win_pct", {"team": "Lakers", "season": 2018}),
                              ("win_pct", {"team": "Bulls", "season": 2020})], {"win_pct": wins})
    assert sorted((a["team"], a["season"]) for _, a in added) == [("Bulls", 2018), ("Lakers", 2020)]
    respectively = request.replace(".", " respectively.")
    assert fan_out(respectively, [("win_pct", {"team": "Lakers", "season": 2018}),
                                  ("win_pct", {"team": "Bulls", "season": 2020})], {"win_pct": wins}) == []


def test_an_item_the_schema_refuses_or_one_call_already_holds_is_not_added():
    light = _schema("set_light", {"room": {"type": "string", "enum": ["kitchen", "bedroom"]}, "on": {"type": "boolean"}},
                    ["room", "on"])
    assert fan_out("Lights off in the kitchen and garage.", [("set_light", {"room": "kitchen", "on": False})],
                   {"set_light": light}) == []  # garage: no member of the enum
    assert fan_out("Lights off in the kitchen and bedroom.", [("set_light", {"room": "kitchen", "on": False})],
                   {"set_light": light}) == [("set_light", {"room": "bedroom", "on": False})]
    gcd = _schema("gcd", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"])
    assert fan_out("The GCD of 96 and 128.", [("gcd", {"a": 96, "b": 128})], {"gcd": gcd}) == []


@pytest.mark.parametrize(("request_", "held", "want"), [
    ("an annual interest rate of 5% for 10 years", 5.0, 0.05),
    ("an annual interest rate of 5% for 10 years", 0.05, None),  # already a fraction
    ("an annual interest rate of 4 percent", 4, 0.04),
])
def test_a_rate_said_in_percent_is_held_as_a_fraction(request_, held, want):
    fv = _schema("future_value", {"annual_interest_rate": {"type": "number", "description": "The annual rate."},
                                  "years": {"type": "integer"}}, ["annual_interest_rate"])
    fixed = fix_percent_rate(request_, fv, {"annual_interest_rate": held, "years": 10})
    assert (fixed or {}).get("annual_interest_rate") == want


def test_a_rate_that_says_it_takes_a_percentage_keeps_the_number():
    fv = _schema("future_value", {"annual_rate": {"type": "number", "description": "The rate as a percentage."}},
                 ["annual_rate"])
    assert fix_percent_rate("at 5% a year", fv, {"annual_rate": 5.0}) is None


def _factorial_agent(script):
    seen = []

    @tool
    def math_factorial(number: int) -> int:
        """Calculate the factorial of a number.

        Args:
            number: The number.
        """
        seen.append(number)
        return 1

    be = ScriptedBackend(script, preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[math_factorial], model=be, hooks=default_slm_hooks(relevance=False), max_tokens=64)
    return agent, seen


def test_the_loop_runs_the_added_calls_and_never_the_number_run_together():
    agent, seen = _factorial_agent(['[{"tool": "math_factorial", "arguments": {"number": 510}}, '
                                    '{"tool": "math_factorial", "arguments": {"number": 15}}]', "Done."])
    r = agent.run("Find the factorial of 5,10 and 15.")
    assert sorted(seen) == [5, 10, 15]
    assert sorted(c.arguments["number"] for c in r.calls if c.ok) == [5, 10, 15]
    assert agent.hook_stats.get("listed_items", 0) >= 1


def test_one_call_said_alone_is_left_alone():
    agent, seen = _factorial_agent([call("math_factorial", number=7), "Done."])
    agent.run("Find the factorial of 7 and tell me how big it is.")
    assert seen == [7]


@pytest.mark.model
def test_the_real_model_gets_a_call_for_each_listed_value(qwen_backend):
    seen = []

    @tool
    def religion_history(region: str, religion: str, start_year: int, end_year: int) -> str:
        """Track the rise and fall of a religion in a region over a span of years.

        Args:
            region: The region, e.g. a country.
            religion: The religion.
            start_year: The first year.
            end_year: The last year.
        """
        seen.append(region)
        return "ok"

    agent = LLMAgent(tools=[religion_history], model=qwen_backend, hooks=default_slm_hooks(), temperature=0.0,
                     max_tokens=96)
    agent.run("I want to know the rise and fall of Christianity in Egypt, Greece and Turkey from 100 A.D to 1500 A.D.")
    assert sorted(seen) == ["Egypt", "Greece", "Turkey"]


def test_the_voice_assistant_switches_every_listed_room_and_leaves_the_shopping_list_to_its_own_hops():
    from edgevox.examples.home import home_agent

    be = ScriptedBackend([call("set_light", room="kitchen", on=False)], preset="qwen2.5-coder-0.5b")
    agent, home = home_agent(be)
    home.lights.update(kitchen=True, bedroom=True)
    r = agent.run("Lights off in the kitchen and the bedroom.")
    assert home.lights["kitchen"] is False and home.lights["bedroom"] is False and len(be.requests) == 1
    assert r.reply == "The kitchen light is off. The bedroom light is off."
    be = ScriptedBackend([call("add_to_shopping_list", item="eggs"), call("add_to_shopping_list", item="flour")],
                         preset="qwen2.5-coder-0.5b")
    agent, home = home_agent(be)
    agent.run("Add eggs and flour to the shopping list.")
    assert home.shopping == ["eggs", "flour"] and len(be.requests) == 2  # one hop per item, as before


def test_a_listed_enum_member_of_several_words_gets_its_own_call():
    from edgevox.agents.slm.listed import fan_out
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    tools = {t.name: t for t in ToolRegistry(Home().tools())}
    kitchen = [("set_light", {"room": "kitchen", "on": False, "brightness": None})]
    # dev12 (session 20): one call, the kitchen's; "dining room" is two words where "kitchen" is one
    for request in ("Kitchen and dining room lights off, please.", "Turn off the lights in the kitchen and the dining room."):
        assert fan_out(request, kitchen, tools) == [("set_light", {"room": "dining room", "on": False, "brightness": None})]
    assert fan_out("Kitchen light off and living room to 40.", kitchen, tools) == []
