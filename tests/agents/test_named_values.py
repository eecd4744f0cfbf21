"""Values the request ties to a parameter by name and currencies named in words: the repairs
of ``named_values`` and ``currency`` (pure logic, and the hook in a scripted turn)."""

from __future__ import annotations

from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.currency import currency_code, fix_currency_code
from edgevox.agents.slm.named_values import (
    fix_numbered_order,
    fix_swapped_named,
    name_words,
    said_after_name,
)
from edgevox.tools import Tool

PARK = ("In a park, there is a rectangular playground with a length of 50 meters and a width of 30 meters. "
        "Next to it, there is a square sandbox with a side length of 5 meters.")


def _tool(**props) -> Tool:
    return Tool.from_schema({"name": "t", "description": "A tool.", "parameters": {
        "type": "object", "properties": {k: {"type": v, "description": k} for k, v in props.items()}}},
        lambda **kwargs: kwargs)


def test_numbers_said_after_a_parameters_name():
    assert name_words("netIncome") == name_words("net_income") == ["net", "income"]
    assert said_after_name(PARK, "width") == [30.0]
    assert said_after_name(PARK, "length") == [50.0, 5.0]
    assert said_after_name("their net income was $100,000 in 2019", "net_income") == [100000.0]
    assert said_after_name("a loan term of 15, 20 and 30 years", "loan_term") == [None]  # a list binds nothing
    assert said_after_name("an interest rate of 4%", "interest_rate") == [None]  # a percentage is not the value
    assert said_after_name("x of 3", "x") == []  # too short a name to look for


def test_two_numbers_tied_by_name_are_put_back():
    rect = _tool(width="integer", length="integer")
    # BFCL parallel_multiple_81: width and length swapped
    assert fix_swapped_named(PARK, rect, {"width": 50, "length": 30}) == {"width": 30, "length": 50}
    assert fix_swapped_named(PARK, rect, {"width": 30, "length": 50}) is None  # right already
    # a number the request does not tie to the other name: not ours to move
    assert fix_swapped_named(PARK, rect, {"width": 50, "length": 7}) is None
    assert fix_swapped_named("a rectangle 50 by 30", rect, {"width": 50, "length": 30}) is None
    # BFCL simple_python_10: "base and height as 6cm and 10cm" ties no number to a name
    triangle = _tool(base="integer", height="integer")
    assert fix_swapped_named("its base and height as 6cm and 10cm", triangle, {"base": 6, "height": 10}) is None


def test_a_numbered_pair_follows_the_order_said():
    pair = _tool(city_1="string", city_2="string")
    said = "What's the time difference between Beijing and Tokyo?"
    assert fix_numbered_order(said, pair, {"city_1": "Tokyo", "city_2": "Beijing"}) == {
        "city_1": "Beijing", "city_2": "Tokyo"}
    assert fix_numbered_order(said, pair, {"city_1": "Beijing", "city_2": "Tokyo"}) is None
    assert fix_numbered_order(said, pair, {"city_1": "Osaka", "city_2": "Beijing"}) is None  # one not said
    assert fix_numbered_order("Tokyo to Beijing, then Beijing again", pair,
                              {"city_1": "Beijing", "city_2": "Tokyo"}) is None  # said twice: no order to read
    teams = _tool(team1="string", team2="string")
    assert fix_numbered_order("Lakers against the Celtics", teams, {"team1": "Celtics", "team2": "Lakers"}) == {
        "team1": "Lakers", "team2": "Celtics"}


def test_currencies_named_in_words_become_codes():
    assert [currency_code(v) for v in ("dollars", "US Dollars", "euros", "Japanese Yen", "usd", "pounds",
                                       "Canadian dollars", "Swiss francs", "doubloons")] == [
        "USD", "USD", "EUR", "JPY", "USD", "GBP", "CAD", "CHF", None]
    convert = _tool(amount="number", from_currency="string", to_currency="string")
    # BFCL parallel_multiple_18
    assert fix_currency_code("convert 10 dollars to Euros", convert,
                             {"amount": 10, "from_currency": "dollars", "to_currency": "euros"}) == {
        "amount": 10, "from_currency": "USD", "to_currency": "EUR"}
    assert fix_currency_code("", convert, {"amount": 1, "from_currency": "EUR", "to_currency": "USD"}) is None
    listed = Tool.from_schema({"name": "t", "description": "d", "parameters": {"type": "object", "properties": {
        "currency": {"type": "string", "enum": ["dollars", "euros"]}}}}, lambda **k: k)
    assert fix_currency_code("", listed, {"currency": "dollars"}) is None  # the schema's own values stay
    unit = _tool(unit="string")
    assert fix_currency_code("", unit, {"unit": "pounds"}) is None  # a weight, not money


def test_the_hook_puts_the_code_in_before_the_tool_runs():
    got = []

    def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
        """Convert an amount of money from one currency to another.

        Args:
            amount: How much money.
            from_currency: The currency to convert from.
            to_currency: The currency to convert to.
        """
        got.append((amount, from_currency, to_currency))
        return "9.2"

    be = ScriptedBackend([call("convert_currency", amount=10, from_currency="dollars", to_currency="euros"),
                          "10 dollars is about 9.20 euros."], preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[convert_currency], model=be, hooks=default_slm_hooks(relevance=False), warm=False)
    agent.run("Convert 10 dollars to euros.")
    assert got == [(10, "USD", "EUR")]
