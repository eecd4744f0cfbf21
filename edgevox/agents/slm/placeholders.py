"""Placeholder arguments: ``""``, ``"string"``, ``"<value>"``, ``"..."`` are not real values.

A small model that does not know a value copies the schema's type name, an example marker
or nothing at all. A required argument like that is not dispatched: the model gets an error
naming the argument (so it can ask the user); an optional one is simply dropped, because
the tool's default is better than a placeholder.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext

PLACEHOLDERS = frozenset({
    "", "string", "str", "text", "value", "<value>", "<string>", "...", "…", "example",
    "placeholder", "xxx", "todo", "tbd", "n/a", "your_value", "<your_value>", "integer",
    "number", "boolean", "object", "array",
})
_ANGLE = re.compile(r"^(?:<[^<>]{1,40}>|\{[A-Za-z_ ]{1,40}\}|\[[A-Za-z_ ]{1,40}\])$")


def is_placeholder(value: Any, param: str = "", schema: dict | None = None) -> bool:
    """True for a string that stands for a value rather than being one."""
    if not isinstance(value, str):
        return False
    allowed = (schema or {}).get("enum") or ([schema["const"]] if schema and "const" in schema else [])
    if value in allowed:
        return False
    v = value.strip()
    low = v.lower()
    return low in PLACEHOLDERS or bool(_ANGLE.match(v)) or (bool(param) and low == param.lower())


class PlaceholderArgs(Hook):
    name = "placeholder_args"
    priority = 20
    safety = True

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        from edgevox.tools import ToolResult

        if not isinstance(call.arguments, dict):
            return None
        tool = ctx.registry.get(call.name)
        params = (tool.parameters if tool is not None else {}) or {}
        props = params.get("properties") or {}
        required = set(params.get("required") or ())
        bad_required, dropped = [], []
        for key, value in call.arguments.items():
            values = value if isinstance(value, list) and value else [value]
            if not all(is_placeholder(v, key, props.get(key)) for v in values):
                continue
            (bad_required if key in required or tool is None else dropped).append(key)
        if bad_required:
            key = bad_required[0]
            msg = (f"argument {key!r} has the placeholder value {call.arguments[key]!r}, not a real value; "
                   f"use the {key} the user gave, or ask the user for it")
            return HookResult.replace(ToolResult(name=call.name, arguments=call.arguments, ok=False, error=msg,
                                                 error_type="invalid_arguments", call_id=call.id),
                                      reason=f"placeholder {key}")
        if dropped:
            args = {k: v for k, v in call.arguments.items() if k not in dropped}
            return HookResult.replace(dataclasses.replace(call, arguments=args),
                                      reason=f"dropped placeholder optional {', '.join(dropped)}")
        return None
