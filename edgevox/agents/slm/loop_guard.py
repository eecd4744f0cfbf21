"""Loop guard: the same call (name + arguments) twice in one turn is not run again.

Small models often answer a tool result by calling the same tool again. The repeat is
answered with the earlier result plus a note, and the next generation is steered to a
plain reply (tools not offered), so the turn ends with words instead of a hop budget spent.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.types import ANSWER

NOTE = "Already called with these arguments in this turn; do not call it again. Answer the user from this result."


def call_key(name: str, arguments: Any) -> str:
    try:
        args = json.dumps(arguments or {}, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = repr(arguments)
    return f"{name}\x00{args}"


class LoopGuard(Hook):
    name = "loop_guard"
    priority = 10
    safety = True  # if it cannot check, it must not let a possible loop through

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        from edgevox.tools import ToolResult

        seen: dict[str, str] = ctx.state(self).setdefault("seen", {})
        key = call_key(call.name, call.arguments)
        if key not in seen:
            seen[key] = call.id
            return None
        prev = next((r for r in ctx.results if r.call_id == seen[key]), None)
        if prev is None:  # a duplicate inside one parallel batch
            value: dict[str, Any] = {"repeated_call": True, "note": "Duplicate of another call in this message; see its result."}
        else:
            earlier = prev.value if prev.ok else {"error": prev.error}
            value = {"repeated_call": True, "note": NOTE, "earlier_result": earlier}
            ctx.state(self)["force_reply"] = True
        return HookResult.replace(ToolResult(name=call.name, arguments=call.arguments, ok=True,
                                             value=value, call_id=call.id), reason="repeated call")

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        if not ctx.state(self).pop("force_reply", False) or request.strategy in ("none", ANSWER):
            return None
        # words only, the tools still rendered: "none" would lose the cached prompt prefix
        return HookResult.replace(dataclasses.replace(request, strategy=ANSWER, notes=[*request.notes, ctx.agent.phrases.answer_note]),
                                  reason="reply only after a loop", counted=False)
