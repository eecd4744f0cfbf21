"""The embedded llama.cpp backend on the real Qwen2.5-Coder-0.5B."""

from __future__ import annotations

import json
import shutil
import threading

import pytest

from edgevox.llm import (
    Backend,
    ContextOverflow,
    ModelFileError,
    PresetError,
    TextStream,
    load_model,
)

pytestmark = pytest.mark.model

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}


def test_chat_turn(qwen_backend):
    c = qwen_backend.complete([{"role": "user", "content": "What is the capital of France? One word."}],
                              max_tokens=16, temperature=0)
    assert "paris" in c.text.lower()
    assert c.finish_reason == "stop"
    assert c.usage["prompt_tokens"] > 10
    assert 0 < c.usage["completion_tokens"] <= 16
    assert c.usage["total_tokens"] == c.usage["prompt_tokens"] + c.usage["completion_tokens"]
    assert c.timings["total_s"] > 0


def test_prompt_with_tools_uses_template_layout(qwen_backend):
    prompt = qwen_backend.render([{"role": "user", "content": "weather in Oslo?"}], [WEATHER])
    # Qwen2.5's own template: one JSON line per tool inside <tools></tools>.
    assert "<tools>\n" + json.dumps(WEATHER) + "\n</tools>" in prompt
    assert "<tool_call>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_native_tool_round_trip_renders(qwen_backend):
    msgs = [
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": '{"temp_c": 3}'},
    ]
    prompt = qwen_backend.render(msgs, [WEATHER])
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' in prompt
    assert '<tool_response>\n{"temp_c": 3}\n</tool_response>' in prompt
    c = qwen_backend.complete(msgs, [WEATHER], max_tokens=40, temperature=0)
    assert "3" in c.text


def test_same_seed_same_text(qwen_backend):
    msgs = [{"role": "user", "content": "Invent a name for a cat."}]
    a = qwen_backend.complete(msgs, max_tokens=24, temperature=0.9, seed=42).text
    b = qwen_backend.complete(msgs, max_tokens=24, temperature=0.9, seed=42).text
    others = {qwen_backend.complete(msgs, max_tokens=24, temperature=0.9, seed=s).text for s in (1, 2, 3)}
    assert a == b
    assert len(others | {a}) > 1  # the seed matters: sampling is really random


def test_stop_event_stops_at_once(qwen_backend):
    stop = threading.Event()
    pieces = []
    done = []
    stream = qwen_backend.stream([{"role": "user", "content": "Count from 1 to 200."}],
                                 max_tokens=300, temperature=0, stop_event=stop, on_done=done.append)
    assert isinstance(stream, TextStream) and isinstance(qwen_backend, Backend)
    assert stream.completion is None  # nothing generated yet
    for piece in stream:
        pieces.append(piece)
        if len(pieces) == 3:
            stop.set()
    assert stream.completion is done[0]  # the stream object and the callback agree
    assert done[0].finish_reason == "cancelled"
    assert done[0].usage["completion_tokens"] <= 4  # at most the token already in flight


def test_stop_strings_never_leak(qwen_backend):
    pieces = list(qwen_backend.stream([{"role": "user", "content": "Count from 1 to 20, comma separated."}],
                                      max_tokens=80, temperature=0, stop=["7"]))
    text = "".join(pieces)
    assert "7" not in text and "6" in text


def test_stream_equals_complete(qwen_backend):
    msgs = [{"role": "user", "content": "Name three colours."}]
    streamed = "".join(qwen_backend.stream(msgs, max_tokens=30, temperature=0))
    assert streamed == qwen_backend.complete(msgs, max_tokens=30, temperature=0).text


def test_context_overflow(qwen_backend):
    with pytest.raises(ContextOverflow, match="context window"):
        qwen_backend.complete([{"role": "user", "content": "word " * 5000}], max_tokens=8)


def test_missing_file():
    with pytest.raises(ModelFileError, match="not found"):
        load_model("/nonexistent/model.gguf")


def test_not_a_gguf(tmp_path):
    p = tmp_path / "x.gguf"
    p.write_bytes(b"PK\x03\x04 definitely a zip")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        load_model(str(p))


def test_truncated_file(tmp_path, qwen_path):
    p = tmp_path / "cut.gguf"
    with open(qwen_path, "rb") as src, open(p, "wb") as dst:
        dst.write(src.read(50_000_000))
    with pytest.raises(ModelFileError, match="truncated"):
        load_model(str(p))
    with open(qwen_path, "rb") as src, open(p, "wb") as dst:
        dst.write(src.read(3000))
    with pytest.raises(ModelFileError, match="truncated"):
        load_model(str(p))


def test_unknown_preset(qwen_path):
    with pytest.raises(PresetError, match="unknown preset 'nope'"):
        load_model(str(qwen_path), preset="nope")


def test_unknown_name_is_clear():
    with pytest.raises(ModelFileError, match="neither a registered model"):
        load_model("no-such-model")


def test_threads_share_one_model(qwen_backend):
    msgs = [{"role": "user", "content": "Say OK."}]
    expected = qwen_backend.complete(msgs, max_tokens=6, temperature=0).text
    out: list[str] = []
    threads = [threading.Thread(target=lambda: out.append(
        qwen_backend.complete(msgs, max_tokens=6, temperature=0).text)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert out == [expected] * 3


def test_copy_of_model_loads_with_detected_preset(tmp_path, qwen_path):
    # no preset given: picked from the GGUF's architecture and chat template
    from edgevox.llm.gguf import read_gguf
    from edgevox.llm.presets import detect_preset

    info = read_gguf(qwen_path)
    assert detect_preset(info.architecture, info.chat_template).name == "qwen25"
    assert shutil.disk_usage(tmp_path).free > 0


def test_gguf_header_cut_anywhere_in_the_vocabulary_is_truncated(tmp_path, qwen_path):
    from edgevox.llm import read_gguf

    whole = read_gguf(qwen_path)
    p = tmp_path / "cut.gguf"
    for cut in (4, 23, 2_000_000, whole.data_offset - 1):  # header fields, vocabulary, tensor infos
        with open(qwen_path, "rb") as src, open(p, "wb") as dst:
            dst.write(src.read(cut))
        with pytest.raises(ModelFileError, match="truncated"):
            read_gguf(p)
