"""Render OpenAI-style messages and tools with the model's own chat template.

The template comes from the GGUF (or the preset, for models that ship none) and runs
in jinja2's immutable sandbox: a template is data from a downloaded file, and must not
reach Python internals. Presets without a tool role get their tools described in the
prompt and their tool results folded into a synthetic message.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
from collections.abc import Sequence
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from edgevox.formats import FORMATS
from edgevox.llm.presets import Preset

Message = dict[str, Any]

# Fallback when a GGUF carries no template and its preset names none: ChatML.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

#: How a call looks in each wire format, for a system prompt that describes the tools.
CALL_EXAMPLES = {name: f.prompt_example for name, f in FORMATS.items()}


class TemplateRenderError(ValueError):
    """The chat template failed to render these messages."""


def _raise(message: str) -> None:
    raise TemplateRenderError(f"chat template refused the conversation: {message}")


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False, sort_keys: bool = False) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return _dt.datetime.now().strftime(fmt)


class ChatTemplate:
    """A compiled, sandboxed chat template plus the preset rules around it."""

    def __init__(self, source: str, preset: Preset, bos_token: str = "", eos_token: str = ""):
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                            extensions=["jinja2.ext.loopcontrols"])
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = _strftime_now
        try:
            self._template = env.from_string(source)
        except TemplateError as exc:
            raise TemplateRenderError(f"chat template does not compile: {exc}") from None
        self._tool_prompt = env.from_string(preset.tool_prompt)
        self.source = source
        self.preset = preset
        self.bos_token = bos_token
        self.eos_token = eos_token

    def render(self, messages: Sequence[Message], tools: Sequence[dict] | None = None,
               add_generation_prompt: bool = True) -> str:
        """The prompt text for these messages, in the template's own layout."""
        msgs = prepare_messages(messages, self.preset)
        tool_list = [_as_openai_tool(t) for t in tools] if tools else None
        if tool_list and self.preset.tools_in_prompt:
            msgs = self._describe_tools(msgs, tool_list)
            tool_list = None
        if self.preset.system_in_user:
            msgs = _fold_system(msgs)
        try:
            return self._template.render(
                messages=msgs, tools=tool_list, add_generation_prompt=add_generation_prompt,
                bos_token=self.bos_token, eos_token=self.eos_token,
            )
        except TemplateRenderError:
            raise
        except Exception as exc:  # jinja raises many types from inside templates
            raise TemplateRenderError(f"chat template failed: {type(exc).__name__}: {exc}") from None

    def _describe_tools(self, msgs: list[Message], tools: list[dict]) -> list[Message]:
        text = self._tool_prompt.render(
            tools=tools, call_example=CALL_EXAMPLES.get(self.preset.wire_format, CALL_EXAMPLES["hermes"])
        )
        if msgs and msgs[0]["role"] == "system":
            return [{"role": "system", "content": f"{msgs[0]['content']}\n\n{text}"}, *msgs[1:]]
        return [{"role": "system", "content": text}, *msgs]


def _as_openai_tool(tool: Any) -> dict:
    from edgevox.tools.spec import as_openai_tool  # the one normaliser of tool-like things

    return as_openai_tool(tool)


def _fold_system(msgs: list[Message]) -> list[Message]:
    """Templates with no system role (Gemma): the system text opens the first user turn."""
    if not msgs or msgs[0]["role"] != "system":
        return msgs
    system, rest = msgs[0]["content"], msgs[1:]
    if rest and rest[0]["role"] == "user":
        return [{"role": "user", "content": f"{system}\n\n{rest[0]['content']}"}, *rest[1:]]
    return [{"role": "user", "content": system}, *rest]


def format_synthetic_results(results: Sequence[Message], preset: Preset) -> Message:
    """Fold tool-role messages into one message for templates without a tool role
    (the envelope format writes them as a JSON list of ``{"tool", "id", "result"}``)."""
    if preset.wire_format == "envelope":
        items = json.dumps([{"tool": r.get("name") or "tool", "id": r.get("tool_call_id"),
                             "result": r.get("content", "")} for r in results], ensure_ascii=False)
    else:
        items = "; ".join(
            f"{r.get('name') or 'tool'} -> {json.dumps(r.get('content', ''), ensure_ascii=False)}"
            for r in results
        )
    return {"role": preset.synthetic_role, "content": preset.synthetic_template.format(results=items)}


def prepare_messages(messages: Sequence[Message], preset: Preset) -> list[Message]:
    """Normalise messages for templates: dict arguments, no None content, tool-role fallback.

    Under the envelope format every assistant turn is written as the model must write it:
    calls as ``{"tool": …, "arguments": …}`` (a list for several), words as
    ``{"answer": …}``, whatever the template does with tool calls.
    """
    envelope = preset.wire_format == "envelope"
    out: list[Message] = []
    pending: list[Message] = []
    for raw in messages:
        m = copy.deepcopy(dict(raw))
        if m.get("content") is None:
            m["content"] = ""
        if m["role"] == "assistant" and m.get("tool_calls"):
            for call in m["tool_calls"]:
                fn = call.get("function", call)
                if isinstance(fn.get("arguments"), str):
                    try:
                        fn["arguments"] = json.loads(fn["arguments"])
                    except ValueError:
                        pass
        if m["role"] == "tool" and not preset.native_tool_role:
            pending.append(m)
            continue
        if pending:
            out.append(format_synthetic_results(pending, preset))
            pending = []
        if m["role"] == "assistant" and m.get("tool_calls") and envelope:
            m = {"role": "assistant", "content": _calls_as_envelope(m["tool_calls"])}
        elif m["role"] == "assistant" and m.get("tool_calls") and not preset.native_tool_role:
            m = {"role": "assistant", "content": m["content"] or _calls_as_text(m["tool_calls"])}
        elif m["role"] == "assistant" and envelope:
            m = {**m, "content": _as_answer(m["content"])}
        out.append(m)
    if pending:
        out.append(format_synthetic_results(pending, preset))
    return out


def _calls_as_envelope(calls: list[dict]) -> str:
    objs = []
    for call in calls:
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        objs.append({"tool": fn["name"], "arguments": args if isinstance(args, dict) else {}})
    return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False)


def _as_answer(content: str) -> str:
    """A past reply in words as ``{"answer": …}`` (left alone if it already is an envelope)."""
    try:
        value = json.loads(content)
    except ValueError:
        value = None
    if isinstance(value, dict) and ("answer" in value or "tool" in value):
        return content
    if isinstance(value, list) and value and all(isinstance(v, dict) and "tool" in v for v in value):
        return content
    return json.dumps({"answer": content}, ensure_ascii=False)


def _calls_as_text(calls: list[dict]) -> str:
    parts = []
    for call in calls:
        fn = call.get("function", call)
        parts.append(f"{fn['name']}({json.dumps(fn.get('arguments', {}), ensure_ascii=False)})")
    return "(called " + ", ".join(parts) + ")"
