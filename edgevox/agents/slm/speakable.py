"""Speakable reply: what reaches the voice has no markup, reasoning or code fences.

The parser already keeps call markup and ``<think>`` out of ``content``; this hook catches
what is left (stray tags and special tokens, ``` fences, markdown emphasis, unclosed think
blocks) in the final reply and, for ``run_stream``, in the text as it streams.
"""

from __future__ import annotations

import re
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.speech import has_markup, speech_filter, strip_markup

#: an exception's class before its message, as a tool's error carries it
_EXCEPTION = re.compile(r"^\W*(?:[A-Za-z_]+\.)*[A-Z][A-Za-z]*(?:Error|Exception):\s*")


class _CleanStream(StreamFilter):
    """The reply's markup filter fed as the text streams (it holds back what could still
    become markup)."""

    def __init__(self) -> None:
        self.filter = speech_filter()

    def feed(self, text: str) -> str:
        return self.filter.feed(text)


class SpeakableReply(Hook):
    keeps_calls = True  # acts on the content, or only when there is no call
    name = "speakable"
    priority = 40
    stream_first = True  # the echo guard's and false-claim holds judge speakable text

    def stream_filter(self, ctx: TurnContext) -> StreamFilter:
        return _CleanStream()

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if not output.content:
            return None
        if _EXCEPTION.search(output.content):
            # a tool's error copied with its class ("ValueError: say how long the timer should run",
            # dev55, after the loop guard asked for words): said as a failure, not as code
            content = _EXCEPTION.sub("", output.content, count=1).strip()
            return HookResult.replace(output.replace(content=ctx.agent.phrases.tool_failed.format(error=content)),
                                      reason="an exception's name said")
        if not has_markup(output.content):
            return None
        return HookResult.replace(output.replace(content=strip_markup(output.content)), reason="markup stripped")
