"""A scripted backend for pure loop logic: plays back texts, records what it was asked.

Never the only test of a feature: the loop's features tested here (hops, parallel calls,
failing and timed-out tools, cancellation, sessions, context trimming, max_hops, a failing
safety hook, an early stream close) also run on the real Qwen2.5-Coder-0.5B in
test_agent_model.py. Corners no real model reaches on cue (preset id rules, empty
generations, fuzzed outputs) are tested on this backend only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from edgevox.llm import Completion, ContextOverflow, TextStream, get_preset
from edgevox.llm.template import CHATML, ChatTemplate

Script = str | Callable[[list[dict], Any], str]


class ScriptedBackend:
    """``complete``/``stream``/``render``/``tokenize``/``preset`` over scripted replies.

    Each generation takes the next script entry (a text, or a function of the messages and
    tools returning one). ``delay`` seconds pass between streamed chunks of ``chunk`` chars,
    checking the stop event like the real backend does. Tokens are whitespace words.
    """

    supports_grammar = True

    def __init__(self, script: list[Script], preset: str = "qwen25", *, n_ctx: int = 4096,
                 chunk: int = 3, delay: float = 0.0, repeat_last: bool = False):
        self.script = list(script)
        self.preset = get_preset(preset)
        self.template = ChatTemplate(
            CHATML.replace("{{ m.content }}",
                           "{{ m.content }}{% if m.tool_calls %}{{ m.tool_calls | tojson }}{% endif %}"),
            self.preset)
        self.n_ctx = n_ctx
        self.chunk = chunk
        self.delay = delay
        self.repeat_last = repeat_last
        self.lock = threading.RLock()
        self.requests: list[dict[str, Any]] = []

    def render(self, messages: list[dict], tools: Any = None, add_generation_prompt: bool = True) -> str:
        text = self.template.render(messages, None, add_generation_prompt)
        if tools:
            names = [t["function"]["name"] if "function" in t else t.get("name") for t in tools]
            text = f"<tools>{' '.join(names)}</tools>\n" + text
        return text

    def tokenize(self, text: str) -> list[int]:
        return list(range(len(text.split())))

    def _next(self, messages: list[dict], tools: Any) -> str:
        if not self.script:
            raise AssertionError("the scripted backend ran out of replies")
        entry = self.script[0] if (self.repeat_last and len(self.script) == 1) else self.script.pop(0)
        return entry(messages, tools) if callable(entry) else entry

    def stream(self, messages: list[dict] | None = None, tools: Any = None, *,
               on_done: Callable[[Completion], None] | None = None, **kwargs: Any) -> TextStream:
        return TextStream(lambda done: self._pieces(messages, tools, done, **kwargs), on_done)

    def _pieces(self, messages: list[dict] | None, tools: Any, on_done: Callable[[Completion], None], *,
                max_tokens: int = 256, stop_event: Any = None, grammar: Any = None, prompt: str | None = None,
                **kwargs: Any) -> Iterator[str]:
        prompt = prompt if prompt is not None else self.render(messages or [], tools)
        if len(self.tokenize(prompt)) >= self.n_ctx - 1:
            raise ContextOverflow("prompt too long for the scripted backend")
        self.requests.append({"messages": messages, "tools": tools, "grammar": grammar,
                              "prompt": prompt, "max_tokens": max_tokens, **kwargs})
        text = self._next(messages or [], tools)
        out, finish = "", "stop"
        for i in range(0, len(text), self.chunk):
            if stop_event is not None and stop_event.is_set():
                finish = "cancelled"
                break
            if self.delay:
                time.sleep(self.delay)
            piece = text[i:i + self.chunk]
            out += piece
            yield piece
        on_done(Completion(text=out, finish_reason=finish,
                           usage={"prompt_tokens": len(prompt.split()), "completion_tokens": len(out.split()),
                                  "total_tokens": len(prompt.split()) + len(out.split())}))

    def complete(self, messages: list[dict] | None = None, tools: Any = None, **kwargs: Any) -> Completion:
        done: list[Completion] = []
        for _ in self.stream(messages, tools, on_done=done.append, **kwargs):
            pass
        return done[0]


def call(name: str, **args: Any) -> str:
    """A hermes/qwen25 tool call as the model writes it."""
    import json

    return f'<tool_call>\n{json.dumps({"name": name, "arguments": args})}\n</tool_call>'
