"""Echo guard: JSON in a reply (a tool payload, an error object, a half-written call) is
never spoken.

0.5 B models often answer a tool result by repeating it verbatim, or start a reply with a
JSON fragment and then a sentence. The JSON is cut out; if a real sentence remains, that is
the reply. If nothing is left, the first time in a turn the model is asked again for plain
words; if that fails too (or no hop is left) a short spoken summary of the value is said
("Here's what I found: temp c 21, sky sunny.") or, for an error object, a short apology.
Text spoken next to tool calls is cleaned the same way. In ``run_stream`` a generation that
starts like JSON or a code fence is held back until it is decided, so a dump is never half
spoken.
"""

from __future__ import annotations

from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.speech import is_error_payload, split_json, summarise

NOTE = "Do not answer with JSON. Tell the user the answer in one short plain sentence."
MIN_WORDS = 3  # prose left after cutting JSON out must be at least a short sentence


def _looks_like_call(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(v, dict) and "name" in v and ("arguments" in v or "parameters" in v)
                               for v in items)


class _HoldJson(StreamFilter):
    """Holds the whole generation back when its first character is ``{``, ``[`` or a backtick."""

    def __init__(self) -> None:
        self.buf = ""
        self.state: bool | None = None  # None: undecided, True: pass, False: hold

    def feed(self, text: str) -> str:
        if self.state is True:
            return text
        if self.state is False:
            return ""
        self.buf += text
        head = self.buf.lstrip()
        if not head:
            return ""
        self.state = head[0] not in "{[`"
        if not self.state:
            return ""
        out, self.buf = self.buf, ""
        return out


class EchoGuard(Hook):
    keeps_calls = True  # acts on the content, or only when there is no call
    name = "echo_guard"
    priority = 20

    def stream_filter(self, ctx: TurnContext) -> StreamFilter:
        return _HoldJson()

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        content = output.content
        if not content.strip() or ("{" not in content and "[" not in content):
            return None
        prose, values = split_json(content)
        if not values:
            return None
        if output.calls or len(prose.split()) >= MIN_WORDS:
            return HookResult.replace(output.replace(content=prose), reason="json cut from reply")
        safe = self.safe_reply(ctx, values)
        st = ctx.state(self)
        if st.get("retried") or ctx.hops_left <= 0:
            return HookResult.end(safe, reason="echo replaced")
        st["retried"] = True
        return HookResult.replace(output.replace(retry=NOTE, fallback=safe), reason="echo retry")

    @staticmethod
    def safe_reply(ctx: TurnContext, values: list[Any]) -> str:
        """A short spoken stand-in for a reply that was only JSON."""
        phrases = ctx.agent.phrases
        value = next((v for v in values if v is not None), None)
        if is_error_payload(value):
            return phrases.tool_failed.format(error="the tool reported an error")
        if value is None or _looks_like_call(value):
            ok = ctx.successes()
            if ok:
                return phrases.found.format(summary=summarise(ok[-1].result))
            return phrases.empty
        return phrases.found.format(summary=summarise(value))
