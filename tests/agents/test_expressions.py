"""A function written as a definition ("f(x) = 3x^2") where a parameter wants the expression
alone: ``expressions.fix_function_definition`` (pure logic, and the hook in a scripted turn)."""

from __future__ import annotations

from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.agents.slm.expressions import fix_function_definition, wants_expression
from edgevox.tools import Tool

INTEGRAL = Tool.from_schema({"name": "calculate_integral", "description": "Calculate the definite integral.",
                             "parameters": {"type": "object", "properties": {
                                 "func": {"type": "string", "description": "The function to integrate."},
                                 "equation": {"type": "string", "description": "An equation to solve."},
                                 "label": {"type": "string", "description": "A name for the result."},
                                 "a": {"type": "integer", "description": "Lower bound."}}}},
                            lambda **kwargs: kwargs)


def test_which_parameters_hold_an_expression():
    assert wants_expression("func", {"type": "string", "description": "The function to integrate."})
    assert wants_expression("f", {"type": "string"})
    assert wants_expression("expr", {"type": "string", "description": "The polynomial expression."})
    assert not wants_expression("equation", {"type": "string", "description": "The function's equation."})
    assert not wants_expression("label", {"type": "string", "description": "A name."})
    assert not wants_expression("func", {"type": "integer"})


def test_a_definition_is_cut_to_its_expression():
    # BFCL multiple_33: "Find the integral of the function f(x) = 3x^2 from 1 to 2."
    assert fix_function_definition("", INTEGRAL, {"func": "f(x) = 3x^2", "a": 1}) == {"func": "3x^2", "a": 1}
    assert fix_function_definition("", INTEGRAL, {"func": "g(t)=t**2 + 1"}) == {"func": "t**2 + 1"}


def test_what_is_not_a_definition_is_left_alone():
    assert fix_function_definition("", INTEGRAL, {"func": "3x^2"}) is None
    assert fix_function_definition("", INTEGRAL, {"func": "x^2 - 4 = 0"}) is None  # an equation
    assert fix_function_definition("", INTEGRAL, {"equation": "f(x) = 0"}) is None  # its parameter wants it
    assert fix_function_definition("", INTEGRAL, {"label": "f(x) = 3x^2"}) is None  # not an expression's place
    assert fix_function_definition("", INTEGRAL, {"func": "f(x) = "}) is None  # nothing after the "="


def test_the_hook_cuts_the_definition_before_the_call_runs():
    got = []

    def calculate_integral(func: str, a: int, b: int) -> str:
        """Calculate the definite integral of a function.

        Args:
            func: The function to integrate.
            a: The lower bound.
            b: The upper bound.
        """
        got.append((func, a, b))
        return "7"

    be = ScriptedBackend([call("calculate_integral", func="f(x) = 3x^2", a=1, b=2), "It is 7."],
                         preset="qwen2.5-coder-0.5b")
    agent = LLMAgent(tools=[calculate_integral], model=be, hooks=default_slm_hooks(relevance=False), warm=False)
    agent.run("Find the integral of the function f(x) = 3x^2 from 1 to 2.")
    assert got == [("3x^2", 1, 2)]
