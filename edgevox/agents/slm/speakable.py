"""Speakable reply: what reaches the voice has no markup, reasoning or code fences.

The parser already keeps call markup and ``<think>`` out of ``content``; this hook catches
what is left (stray tags and special tokens, ``` fences, markdown emphasis, unclosed think
blocks) in the final reply and, for ``run_stream``, in the text as it streams.
"""

from __future__ import annotations

from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.speech import has_markup, speech_filter, strip_markup


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
        if not output.content or not has_markup(output.content):
            return None
        return HookResult.replace(output.replace(content=strip_markup(output.content)), reason="markup stripped")
