"""Unknown tool: a call to a name that is not registered gets the model the real ones.

The parser reports such calls in ``ParseResult.rejected`` (they are never dispatched). The
generation is discarded and the model tries again with a note listing the tools. A note
alone did not move Qwen2.5-Coder-0.5B at temperature 0 (it wrote the same ``set_timer``
call four times), so the retry hop is also steered: if the name is close to a real tool
*and* accepts the arguments the model gave (``set_timer(minutes, label)`` ->
``start_timer``, not the equally similar ``get_time``), that tool is required under grammar;
otherwise tools are not offered, and the model answers in words. Only when no valid call
came with it.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from edgevox.agents.hooks import HookResult, TurnContext
from edgevox.agents.slm.steer import SteersNextHop
from edgevox.agents.speech import split_json, strip_markup

FALLBACK = "Sorry, I can't do that with the tools I have."
CUTOFF = 0.5  # difflib ratio for "the model may have meant this tool"
# JSON-schema words the model copies from the tool list into its arguments (schema echo)
SCHEMA_WORDS = frozenset({"additionalProperties", "properties", "required", "type"})


def _given_keys(raw: str) -> set[str] | None:
    """Argument names of a rejected call's raw JSON, or None if they cannot be read."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    args = obj.get("arguments", obj.get("parameters")) if isinstance(obj, dict) else None
    return set(args) - SCHEMA_WORDS if isinstance(args, dict) else None


def meant_tool(bad: str, raw: str, registry: Any) -> str | None:
    """The registered tool a call to unknown ``bad`` most likely meant, or None.

    Similar name (difflib) and, when the arguments are readable, a schema that has every
    argument given and needs none that is missing.
    """
    keys = _given_keys(raw)
    for name in difflib.get_close_matches(bad, registry.names(), n=3, cutoff=CUTOFF):
        if keys is None:
            return name
        params = registry.get(name).parameters or {}
        props = set(params.get("properties") or ())
        if keys <= props and set(params.get("required") or ()) <= keys:
            return name
    return None


class UnknownToolHint(SteersNextHop):
    keeps_calls = True  # acts on the content, or only when there is no call
    name = "unknown_tool"
    priority = 10

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if output.calls:
            return None
        names = ctx.registry.names()
        unknown = [r for r in output.rejected if r.name and r.name not in names]
        if not unknown:
            return None
        bad = unknown[0].name
        listed = ", ".join(names) or "none"
        meant = meant_tool(bad, unknown[0].raw, ctx.registry)
        if meant:
            note = f"There is no tool named {bad!r}. Did you mean {meant!r}? The available tools are: {listed}."
            self.steer(ctx, ("single", meant))
        else:
            note = f"There is no tool named {bad!r} (the tools are: {listed}). Reply to the user in plain words."
            self.steer(ctx, "none")
        said = strip_markup(split_json(output.content)[0])  # words said next to the bad call
        fallback = said if len(said.split()) >= 3 else FALLBACK
        return HookResult.replace(output.replace(retry=note, fallback=fallback), reason=f"unknown tool {bad}")
