"""A function written as a definition where a parameter wants the expression alone.

Measured through the agent on BFCL multiple 0-99 (session 16): "Find the integral of the
function f(x) = 3x^2 from 1 to 2." -> ``calculate_integral(func="f(x) = 3x^2")``, where the
tool (and the answer) takes ``"3x^2"``. The model copies the request's words, definition
and all. A string parameter that its name or description calls a function or an expression,
holding ``f(x) = <expression>``, gets the expression. Nothing else is touched: an equation
("x^2 - 4 = 0") does not start with a function's name and its variable, and a parameter
named for an equation is left alone (BFCL keeps ``"y=x**2"`` as a right answer for one).
No BFCL right answer holds the ``f(x) =`` form (checked by
``tests/bfcl/test_hooks_on_right_answers.py``).
"""

from __future__ import annotations

import re
from typing import Any

from edgevox.agents.slm.vocabulary import properties

#: "f(x) = 3x^2", "g(t)=t**2": a function's name, its one variable, "=", the expression
_DEFINITION = re.compile(r"^\s*[A-Za-z]\w{0,3}\s*\(\s*[A-Za-z]\s*\)\s*=\s*(?P<expr>\S.*?)\s*$", re.DOTALL)
#: what a parameter for an expression is called, by its name or its description's words
_FOR_EXPRESSION = re.compile(r"\b(?:func|function|expression|formula|polynomial)s?\b|^f$")


def wants_expression(name: str, schema: Any) -> bool:
    """Whether a parameter holds a function's expression (its name or description says so)."""
    if not isinstance(schema, dict) or schema.get("type") not in (None, "string"):
        return False
    words = f"{name.replace('_', ' ')} {schema.get('description') or ''}".lower().strip()
    return "equation" not in name.lower() and bool(_FOR_EXPRESSION.search(words))


def fix_function_definition(text: str, tool: Any, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with ``f(x) = <expr>`` cut to ``<expr>`` in expression parameters (None:
    nothing to cut). ``text`` (the request) is not needed: the definition is the call's own."""
    fixed = dict(arguments)
    for key, schema in properties(tool).items():
        value = fixed.get(key)
        if isinstance(value, str) and wants_expression(key, schema):
            match = _DEFINITION.match(value)
            if match:
                fixed[key] = match.group("expr")
    return fixed if fixed != arguments else None
