"""Argument shape: a call rejected by schema validation gets one retry with a hint.

The hint is built from the tool's JSON schema (each argument with its type, whether it is
required, its allowed values and default) and appended to the validation error the model
sees. When the error is only about shape — arguments the tool does not take, or a value of
the wrong JSON type — the retry hop also requires that tool under grammar, so the retry is
well formed (Qwen2.5-Coder-0.5B otherwise repeats ``get_time({"properties": {}})``). A value
outside an enum or a missing required argument is *not* forced: the grammar would make the
model invent one (a room the user did not name); the model is left to say what went wrong.
A second invalid call of the same tool in the turn ends it with a short spoken apology.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from edgevox.agents.hooks import HookResult, TurnContext
from edgevox.agents.slm.steer import SteersNextHop

GIVE_UP = "Sorry, I couldn't work out the details for {what}. Could you say it again with the details?"
SHAPE_ONLY = {"additionalProperties", "type"}  # errors a grammar fixes without guessing values


def describe_type(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"][:8])
    t = schema.get("type")
    if isinstance(t, list):
        t = " or ".join(str(x) for x in t)
    if t == "array":
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return f"array of {describe_type(items)}" if items else "array"
    if not t and "anyOf" in schema:
        return " or ".join(describe_type(s) for s in schema["anyOf"] if isinstance(s, dict))
    return str(t or "any value")


def schema_hint(name: str, parameters: dict[str, Any] | None) -> str:
    """``get_weather`` expects: city (string, required); days (integer, optional, default 1)."""
    props = (parameters or {}).get("properties") or {}
    if not props:
        return f"{name} takes no arguments: call it with {{}}."
    required = set((parameters or {}).get("required") or ())
    parts = []
    for key, sch in props.items():
        sch = sch if isinstance(sch, dict) else {}
        bits = [describe_type(sch), "required" if key in required else "optional"]
        if "default" in sch:
            bits.append(f"default {json.dumps(sch['default'], ensure_ascii=False)}")
        parts.append(f"{key} ({', '.join(bits)})")
    return f"{name} expects: " + "; ".join(parts) + ". Use exactly these names and types."


def shape_only(parameters: dict[str, Any] | None, arguments: Any) -> bool:
    """True when every schema error in ``arguments`` is an extra key or a wrong JSON type."""
    from jsonschema import Draft202012Validator

    if not isinstance(arguments, dict):
        return True
    try:
        errors = list(Draft202012Validator(parameters or {"type": "object"}).iter_errors(arguments))
    except Exception:  # an odd schema: do not force anything
        return False
    return bool(errors) and all(e.validator in SHAPE_ONLY for e in errors)


class ArgShapeHint(SteersNextHop):
    name = "arg_shape"
    steer_reason = "grammar retry"
    priority = 30

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        if result.ok or result.error_type != "invalid_arguments":
            return None
        tries = ctx.state(self).setdefault("tries", {})
        tries[result.name] = tries.get(result.name, 0) + 1
        if tries[result.name] > 1:
            return HookResult.end(GIVE_UP.format(what=result.name.replace("_", " ")),
                                  reason=f"second invalid call of {result.name}")
        tool = ctx.registry.get(result.name)
        params = tool.parameters if tool is not None else None
        if tool is not None and shape_only(params, result.arguments):
            self.steer(ctx, ("single", result.name))
        hint = schema_hint(result.name, params)
        err = (result.error or "invalid arguments").rstrip(".")
        return HookResult.replace(dataclasses.replace(result, error=f"{err}. {hint}"), reason="schema hint")
