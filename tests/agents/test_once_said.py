"""A number said once, copied into a second call's optional parameter (``slm.once_said``)."""

from __future__ import annotations

from agent_fakes import ScriptedBackend

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.once_said import copies, said_once
from edgevox.tools import tool

REQUEST = ("Work out the magnetic field of a wire carrying 4 amps at 2 m, and the voltage across "
           "3 m in an electric field of 5 N/C.")


def test_only_numbers_said_once_count():
    assert said_once("4 amps at 2 m, then 4 more at 3.5 m; 500,000 volts") == {2.0, 3.5, 500000.0}


def test_a_copy_in_an_optional_parameter_is_found_and_nothing_else():
    required = {"field": {"current", "distance"}, "voltage": {"electric_field", "distance"}}
    calls = [("field", {"current": 4, "distance": 2, "permeability": 5}),
             ("voltage", {"electric_field": 5, "distance": 3})]
    assert copies(REQUEST, calls, required) == [(0, "permeability")]
    # said twice, the same number may be meant twice ("4 amps ... 4 amps")
    assert copies(REQUEST + " Use 5 for both.", calls, required) == []
    # the same parameter in both calls: one value for two calls, not a copy
    assert copies("Convert 5 dollars to euros and to yen.", [("convert", {"amount": 5, "to": "EUR"}),
                                                            ("convert", {"amount": 5, "to": "JPY"})],
                  {"convert": {"amount"}}) == []
    # optional in every call that holds it: no call shows where it belongs
    assert copies(REQUEST, [("field", {"current": 4, "permeability": 5}), ("voltage", {"scale": 5})],
                  {"field": {"current"}, "voltage": set()}) == []


def test_the_agent_drops_the_copy_before_the_calls_run():
    seen = []

    @tool
    def magnetic_field(current: float, distance: float, permeability: float = 1.26e-6) -> float:
        """Calculate the magnetic field around a straight wire."""
        seen.append(("field", current, distance, permeability))
        return 0.0

    @tool
    def voltage_difference(electric_field: float, distance: float) -> float:
        """Calculate the voltage between two points in a uniform electric field."""
        seen.append(("voltage", electric_field, distance))
        return electric_field * distance

    both = ('[{"name": "magnetic_field", "arguments": {"current": 4, "distance": 2, "permeability": 5}}, '
            '{"name": "voltage_difference", "arguments": {"electric_field": 5, "distance": 3}}]')
    be = ScriptedBackend([both, "Done."], preset="qwen2.5-coder-0.5b")
    agent = LLMAgent("t", "", "Be brief.", tools=[magnetic_field, voltage_difference], model=be,
                    hooks=default_slm_hooks(relevance=False))
    r = agent.run(REQUEST)
    assert ("field", 4, 2, 1.26e-6) in seen and ("voltage", 5, 3) in seen
    assert agent.hook_stats["once_said"] == 1 and all(c.ok for c in r.calls)
