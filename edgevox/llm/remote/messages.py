"""Messages and tools in the two shapes a remote server may need.

Native: the OpenAI shape exactly (arguments as a JSON string, content never null --
llama-cpp-python's server rejects a null assistant content). Prompt: for servers that
cannot take `tools`, the tools are described in the system message in the preset's
wire format (the same text the embedded backend uses for `tools_in_prompt` presets),
and earlier calls and results are folded into plain messages the server's template
can render.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from typing import Any

from jinja2.sandbox import ImmutableSandboxedEnvironment

from edgevox.llm.presets import Preset
from edgevox.llm.template import CALL_EXAMPLES, prepare_messages

Message = dict[str, Any]


def as_openai_tool(tool: Any) -> dict:
    """An OpenAI tool dict from a dict, a bare function schema or an object with
    `openai_schema()` (through the one normaliser, ``edgevox.tools.spec``)."""
    from edgevox.tools.spec import as_openai_tool as normalise

    return normalise(tool)


def has_tool_messages(messages: Sequence[Message]) -> bool:
    return any(m.get("role") == "tool" or (m.get("role") == "assistant" and m.get("tool_calls"))
               for m in messages)


def native_messages(messages: Sequence[Message], calls_as_text: str | None = None) -> list[Message]:
    """Messages in strict OpenAI shape: string arguments, ids on calls, no null content.

    calls_as_text (a wire format): write earlier assistant calls into the content the
    way the model itself writes them, instead of a `tool_calls` field. For servers that
    hand the string `arguments` to the chat template undecoded (llama-cpp-python), where
    the model would otherwise see its calls as double-encoded JSON.
    """
    out: list[Message] = []
    for raw in messages:
        if "role" not in raw:
            raise ValueError(f"message without a role: {raw!r}")
        m = dict(raw)
        if m.get("content") is None:
            m["content"] = ""
        if m["role"] == "assistant" and m.get("tool_calls"):
            calls = [normalize_call(c) for c in m["tool_calls"]]
            if calls_as_text:
                del m["tool_calls"]
                text = calls_text(calls, calls_as_text)
                m["content"] = f"{m['content']}\n{text}" if m["content"].strip() else text
            else:
                m["tool_calls"] = calls
        elif "tool_calls" in m and not m["tool_calls"]:
            del m["tool_calls"]
        out.append(m)
    return out


def calls_text(calls: Sequence[dict], wire_format: str) -> str:
    """OpenAI-shape calls written in a preset's wire format ("" if none has JSON arguments)."""
    from edgevox.grammars import render_tool_calls

    pairs = []
    for c in calls:
        fn = c["function"]
        try:
            args = json.loads(fn["arguments"]) if fn["arguments"].strip() else {}
        except ValueError:
            continue  # not JSON: nothing faithful to write
        pairs.append((fn["name"], args if isinstance(args, dict) else {}))
    if not pairs:
        return ""
    try:
        return render_tool_calls(pairs, wire_format)
    except (ValueError, KeyError):
        return render_tool_calls(pairs, "hermes")


def normalize_call(call: dict) -> dict:
    """One call in OpenAI shape: {"id", "type": "function", "function": {"name", "arguments": str}}."""
    fn = call.get("function", call)
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"tool call without a name: {call!r}")
    args = fn.get("arguments", {})
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return {"id": call.get("id") or f"call_{uuid.uuid4().hex[:24]}", "type": "function",
            "function": {"name": name, "arguments": args}}


_ENV = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
_ENV.filters["tojson"] = lambda v, indent=None: json.dumps(v, indent=indent, ensure_ascii=False)


def tools_system_text(tools: Sequence[dict], preset: Preset) -> str:
    """The preset's tool prompt (DEFAULT_TOOL_PROMPT unless it overrides it) for these tools."""
    example = CALL_EXAMPLES.get(preset.wire_format, CALL_EXAMPLES["hermes"])
    return _ENV.from_string(preset.tool_prompt).render(tools=list(tools), call_example=example)


def with_system_text(messages: Sequence[Message], text: str) -> list[Message]:
    """Append text to the system message (or add one first)."""
    msgs = [dict(m) for m in messages]
    if msgs and msgs[0].get("role") == "system":
        first = msgs[0].get("content") or ""
        msgs[0]["content"] = f"{first}\n\n{text}" if first else text
        return msgs
    return [{"role": "system", "content": text}, *msgs]


def prompt_messages(messages: Sequence[Message], tools: Sequence[dict] | None, preset: Preset) -> list[Message]:
    """Messages for a server without tool support: tools in the system text, results folded."""
    synthetic = dataclasses.replace(preset, tool_results="synthetic")
    msgs = prepare_messages(messages, synthetic)
    msgs = [{"role": m["role"], "content": m.get("content") or ""} for m in msgs]
    if tools:
        msgs = with_system_text(msgs, tools_system_text(tools, preset))
    return msgs
