"""Echo guard: JSON in a reply (a tool payload, an error object, a half-written call) is
never spoken, and neither is the person's own request said back as the answer to it.

0.5 B models often answer a tool result by repeating it verbatim, or start a reply with a
JSON fragment and then a sentence. The JSON is cut out; if a real sentence remains, that is
the reply. If nothing is left, the first time in a turn the model is asked again for plain
words; if that fails too (or no hop is left) a short spoken summary of the value is said
("Here's what I found: temp c 21, sky sunny.") or, for an error object, a short apology.
Text spoken next to tool calls is cleaned the same way. In ``run_stream`` a generation that
starts like JSON or a code fence is held back until it is decided, and one that turns to
JSON after some words is held from the JSON on, so a dump is never half spoken.

The request echo: measured on Qwen2.5-Coder-0.5B under its envelope profile, the hop that
words a tool's result answered "Turn on the kitchen light." with "Turn on the kitchen
light." (4 of 6 tool turns without ``say=`` in ``bench_voice.py``'s quiet run). After a
call ran, a reply whose words are the request's own (or its first half or more) is not an
answer: it is retried once with a note, then said from the results. While such a reply
streams it is held as long as it still reads like the request (a real answer leaves it
within a word or two).

The copied example: a demonstration's answer in words is for its own topic. Measured on the
home's dev19 (session 24): "Kitchen 60, hallway off." and "Dining room off and bring the living
room up to eighty, we're moving through." each ended, after calls that ran, in "Sorry, I can't
control a fan." -- nobody had named a fan. Such a reply is said from the results instead, or,
with none, as the device the request does name or a plain "Sorry, I can't do that."
"""

from __future__ import annotations

import re
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.slm.devices import device_word
from edgevox.agents.slm.false_claim import from_results
from edgevox.agents.slm.grounding import REPLIES
from edgevox.agents.slm.vocabulary import DEVICES
from edgevox.agents.speech import is_error_payload, json_opens, split_json, summarise

NOTE = "Do not answer with JSON. Tell the user the answer in one short plain sentence."
ECHO_NOTE = "Do not repeat the request. Tell the user in one short sentence what the tool results say."
MIN_WORDS = 3  # prose left after cutting JSON out must be at least a short sentence
_WORD = re.compile(r"\w+")


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def repeats_request(reply: str, request: str) -> bool:
    """Does ``reply`` say the request back: its words in order (case and punctuation aside),
    at least the first half of them, or all of them and then more ("Switch off the light
    in the bedroom and dim the living room light", measured)?"""
    said, asked = _plain(reply), _plain(request)
    if not said or not asked:
        return False
    return (said == asked or said.startswith(asked + " ")
            or (asked.startswith(said + " ") and 2 * len(said.split()) >= len(asked.split())))


def off_topic_answers(request: str, demonstrations: Any) -> list[str]:
    """The demonstrations' answers in words that name a device of their topic (``Demo.topic``:
    "a fan") where ``request`` never names the topic, as plain words. A general refusal
    ("Sorry, I can't do that.", "Sorry, I can't check that.") fits any request and is never
    among them."""
    asked = set(_WORD.findall(request.lower()))
    return [_plain(d.answer) for d in demonstrations
            if d.answer and d.topic & DEVICES & set(_WORD.findall(d.answer.lower())) and not d.topic & asked]


def copies_an_example(reply: str, request: str, demonstrations: Any) -> bool:
    """Is ``reply`` a demonstration's answer in words about a topic ``request`` never names?"""
    said = _plain(reply)
    return bool(said) and said in off_topic_answers(request, demonstrations)


def _looks_like_call(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(v, dict) and "name" in v and ("arguments" in v or "parameters" in v)
                               for v in items)


class _HoldJson(StreamFilter):
    """Holds the whole generation back when its first character is ``{``, ``[`` or a
    backtick, and any other from the point where JSON starts (``json_opens``: the rule
    ``split_json`` cuts by).

    Why the second: the agent says a hop's text as it streams, and what was said is the
    reply even when ``after_llm`` then ends the turn. Found by the agent fuzz: ``Sure!
    {"name": "get_time", "arguments": {"properties": {}}} {"error": "boom", ...}`` (no call
    the parser takes) streamed past a hold that judged only the first character, so with
    no hop left the reply was the whole dump and then "Sorry, I don't have an answer for
    that." Held from the ``{`` on, only "Sure!" is said before the guard's own words, and
    a sentence after the JSON is said once the hook has cut the JSON out.
    """

    def __init__(self) -> None:
        self.buf = ""
        self.state: bool | None = None  # None: undecided, True: pass, False: hold

    def feed(self, text: str) -> str:
        if self.state is False:
            return ""
        self.buf += text
        if self.state is None:
            head = self.buf.lstrip()
            if not head:
                return ""
            self.state = head[0] not in "{[`"
            if not self.state:
                return ""
        i = 0
        while True:
            j = min((k for k in (self.buf.find("{", i), self.buf.find("[", i)) if k != -1), default=-1)
            if j == -1 or not self.buf[j + 1:].strip():  # no opening, or one not yet decided
                out = self.buf[:len(self.buf) if j == -1 else j].rstrip()  # a space waits for what follows
                self.buf = self.buf[len(out):]
                return out
            if json_opens(self.buf, j):
                out, self.buf, self.state = self.buf[:j].rstrip(), "", False
                return out
            i = j + 1


class _HoldRequest(StreamFilter):
    """Holds a reply back while it still reads like the start of the request (and for
    good once it has said the whole request)."""

    def __init__(self, request: str) -> None:
        self.asked = _plain(request)
        self.buf = ""
        self.passing = False

    def feed(self, text: str) -> str:
        if self.passing:
            return text
        self.buf += text
        said = _plain(self.buf)
        if not said or self.asked.startswith(said) or said.startswith(self.asked + " "):
            return ""
        self.passing = True
        out, self.buf = self.buf, ""
        return out


class _HoldExample(StreamFilter):
    """Holds a reply back while it still reads like one of ``answers`` (an example's answer
    about what the request never names: ``copies_an_example``)."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.buf = ""
        self.passing = not answers

    def feed(self, text: str) -> str:
        if self.passing:
            return text
        self.buf += text
        said = _plain(self.buf)
        if not said or any(a.startswith(said) for a in self.answers):
            return ""
        self.passing = True
        out, self.buf = self.buf, ""
        return out


class _Both(StreamFilter):
    def __init__(self, *filters: StreamFilter) -> None:
        self.filters = filters

    def feed(self, text: str) -> str:
        for f in self.filters:
            text = f.feed(text) if text else text
        return text


class EchoGuard(Hook):
    keeps_calls = True  # acts on the content, or only when there is no call
    name = "echo_guard"
    priority = 20

    def stream_filter(self, ctx: TurnContext) -> StreamFilter:
        example = _HoldExample(off_topic_answers(ctx.text, ctx.agent.demonstrations))
        return _Both(_HoldJson(), _HoldRequest(ctx.text), example) if ctx.records else _Both(_HoldJson(), example)

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        content = output.content
        if not output.calls and copies_an_example(content, ctx.text, ctx.agent.demonstrations):
            return HookResult.end(self.instead_of_example(ctx), reason="copied example replaced")
        if not output.calls and ctx.records and repeats_request(content, ctx.text):
            st = ctx.state(self)
            if st.get("echo_retried") or ctx.hops_left <= 0:
                return HookResult.end(from_results(ctx), reason="request echo replaced")
            st["echo_retried"] = True
            return HookResult.replace(output.replace(retry=ECHO_NOTE, fallback=from_results(ctx)),
                                      reason="request echo retry")
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
    def instead_of_example(ctx: TurnContext) -> str:
        """What a copied example's answer is said as: the tools' own sentences for the calls
        that ran (else a summary of the results), or the device the request names."""
        if ok := ctx.successes():
            said = [getattr(ctx.registry.get(r.name), "speak", lambda *_: None)(r.result, r.arguments) for r in ok]
            return " ".join(said) if all(said) else from_results(ctx)
        device = device_word(ctx.text, ctx.registry)
        return REPLIES["unrelated"] if device == "that" else REPLIES["device"].format(device=device)

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
