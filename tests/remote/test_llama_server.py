"""Integration: a real llama-cpp-python OpenAI-compatible server with Qwen2.5-Coder-0.5B.

The server runs on 127.0.0.1 as a child process (session fixture `llama_server`, always
killed). Order matters only at the end: the crash test kills and restarts the server.
"""

from __future__ import annotations

import threading

import pytest

from edgevox.llm.remote import RemoteBackend, RemoteUnavailable, StreamInterrupted

pytestmark = pytest.mark.model

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                   "additionalProperties": False}}}
CITY = {"type": "object", "properties": {"name": {"type": "string"}, "country": {"type": "string"}},
        "required": ["name", "country"], "additionalProperties": False}
ASK_CITY = [{"role": "user", "content": "What is the capital of France? Answer as JSON with name and country."}]
COUNT = [{"role": "user", "content": "Count from 1 to 60, separated by commas."}]


@pytest.fixture(scope="module")
def remote(llama_server):
    """One backend for the module: its probe results are cached across tests, as in real use."""
    llama_server.ensure_running()
    return RemoteBackend(llama_server.url, timeout=120, max_retries=2, backoff=0.25)


def test_probe_of_a_real_llama_cpp_python_server(remote):
    caps = remote.capabilities()
    assert caps["server"] == "llama-cpp-python"
    assert caps["models"] and caps["models"][0].endswith(".gguf")
    # the file name is a registered model, so its preset (the model's calling profile) is picked
    assert (remote.preset.name, remote.preset_source) == ("qwen2.5-coder-0.5b", "model_name")
    assert remote.supports_grammar
    assert remote.supports_native_tools  # the GGUF's template renders tools: prompt tokens grow
    caps = remote.capabilities()
    assert caps["grammar_path"] == "llama.cpp-grammar" and caps["native_tools"] is True


def test_grammar_forced_tool_call(remote):
    from edgevox.grammars import single_tool_grammar
    from edgevox.parsing import parse_tool_calls

    grammar = single_tool_grammar(WEATHER, remote.preset.wire_format)
    c = remote.complete([{"role": "user", "content": "How warm is it in Lyon right now?"}], [WEATHER],
                        grammar=grammar, max_tokens=48, temperature=0.0)
    assert c.info["grammar_path"] == "llama.cpp-grammar" and c.info["tools_path"] == "native"
    assert grammar.matches(c.text), c.text
    parsed = parse_tool_calls(c.text, parsers=remote.preset.detectors, tools=[WEATHER])
    assert [call.name for call in parsed.calls] == ["get_weather"]
    assert parsed.calls[0].arguments["city"].lower() == "lyon"


def test_structural_tag_on_a_real_server(remote):
    """llama-cpp-python's server takes no structural tag: the same description goes out as
    GBNF, and the reply is what the description accepts."""
    from edgevox.grammars.structural_tag import structural_tag_grammar, tools_structural_tag
    from edgevox.parsing import parse_tool_calls

    tag = tools_structural_tag([WEATHER], remote.preset.wire_format, tool_choice="required",
                               parallel_tool_calls=False)
    c = remote.complete([{"role": "user", "content": "How warm is it in Lyon right now?"}], [WEATHER],
                        response_format=tag, max_tokens=48, temperature=0.0)
    assert c.info["grammar_path"] == "llama.cpp-grammar"
    assert structural_tag_grammar(tag).matches(c.text), c.text
    parsed = parse_tool_calls(c.text, parsers=remote.preset.detectors, tools=[WEATHER])
    assert [call.name for call in parsed.calls] == ["get_weather"]


def test_grammar_constrains_plain_output(remote):
    c = remote.complete([{"role": "user", "content": "Is the sky green? Answer yes or no."}],
                        grammar='root ::= "yes" | "no"', max_tokens=4, temperature=0.0)
    assert c.text in ("yes", "no") and c.usage["completion_tokens"] >= 1


def test_structured_output_native_path(remote):
    from pydantic import BaseModel

    class City(BaseModel):
        name: str
        country: str

    c = remote.complete(ASK_CITY, response_schema=City, max_tokens=48, temperature=0.0)
    assert isinstance(c.parsed, City) and c.parsed.name == "Paris"
    # llama-cpp-python refuses the json_schema type (as a 500 validation error) and takes json_object+schema
    assert c.info["structured_path"] == "response_format:json_object"
    assert [s["outcome"] for s in c.info["structured_log"]][-1] == "ok"
    assert "json_schema" in remote.capabilities()["rejected_formats"]


def test_structured_output_fallback_path(llama_server):
    """Only the OpenAI json_schema style allowed: the server refuses it, the prompt path answers."""
    b = RemoteBackend(llama_server.url, timeout=120, response_formats=("json_schema",), grammar_mode="none")
    c = b.complete(ASK_CITY, response_schema=CITY, max_tokens=64, temperature=0.0, retries=1)
    assert c.info["structured_path"] == "prompt"
    assert c.info["structured_log"][0]["outcome"] == "rejected"
    assert c.parsed["name"] == "Paris" and set(c.parsed) == {"name", "country"}


ACT_OR_ANSWER = {"oneOf": [
    {"type": "object", "properties": {"tool": {"const": "set_light"}, "room": {"type": "string"}},
     "required": ["tool", "room"], "additionalProperties": False},
    {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
     "additionalProperties": False}]}
ASK_LIGHT = [{"role": "user", "content": "Turn on the kitchen light. Reply as JSON."}]


def test_union_schema_native_and_fallback_paths(llama_server):
    """A oneOf root: sent wrapped as {"value": ...} through response_format and unwrapped
    (said in info), or through the prompt path; either way the matching branch comes back."""
    native = RemoteBackend(llama_server.url, timeout=120, response_formats=("json_object",))
    c = native.complete(ASK_LIGHT, response_schema=ACT_OR_ANSWER, max_tokens=48, temperature=0.0)
    assert c.info["structured_path"] == "response_format:json_object"
    assert c.info["structured_wrapped"]["key"] == "value" and '"value"' in c.info["structured_wrapped"]["raw_text"]
    branch = c.info["schema_branch"]
    assert branch is not None and set(c.parsed) == set(ACT_OR_ANSWER["oneOf"][branch]["required"])
    fallback = RemoteBackend(llama_server.url, timeout=120, response_formats=(), grammar_mode="none")
    ask = [{"role": "user", "content": 'Turn on the kitchen light. Reply as JSON: {"tool": "set_light", '
                                       '"room": ...} to act, {"answer": ...} to talk.'}]
    c = fallback.complete(ask, response_schema=ACT_OR_ANSWER, max_tokens=48, temperature=0.0, retries=1)
    assert c.info["structured_path"] == "prompt"
    branch = c.info["schema_branch"]
    assert branch is not None and set(c.parsed) == set(ACT_OR_ANSWER["oneOf"][branch]["required"])


def test_stream_cancel_then_reuse(remote):
    stop = threading.Event()
    got, done = [], []
    for piece in remote.stream(COUNT, max_tokens=200, temperature=0.0, stop_event=stop, on_done=done.append):
        got.append(piece)
        if len(got) == 4:
            stop.set()
    assert done[0].finish_reason == "cancelled" and len(got) <= 8
    c = remote.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
    assert c.finish_reason in ("stop", "length") and c.text


class RecordingBackend(RemoteBackend):
    """Keeps what each hop sent and got, so the test can see the tool result reach hop two."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hops: list[tuple[list, object]] = []

    def stream(self, messages=None, tools=None, *, on_done=None, **kwargs):
        def record(completion):
            self.hops.append((list(messages or []), completion))
            if on_done:
                on_done(completion)

        return super().stream(messages, tools, on_done=record, **kwargs)


def test_two_hop_agent_turn_with_a_tool(llama_server):
    from edgevox.agents import LLMAgent
    from edgevox.tools import tool

    seen: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city.

        Args:
            city: the city name
        """
        seen.append(city)
        return f"sunny and 21 C in {city}"

    # the template's own hermes format without a profile: its second hop asks for no schema
    # grammar (the registry's profile would keep the envelope's answer-or-call grammar)
    backend = RecordingBackend(llama_server.url, timeout=120, preset="qwen25")
    agent = LLMAgent(tools=[get_weather], model=backend, max_tokens=40, temperature=0.0, seed=1, max_hops=2,
                     tool_choice_policy="required_first_hop")
    result = agent.run("What is the weather in Paris?")
    # hop one: a call forced by the agent's grammar, applied by the server; tools sent natively
    first = backend.hops[0][1]
    assert first.info["tools_path"] == "native" and first.info["grammar_path"] == "llama.cpp-grammar"
    # hop two asks for no schema grammar: the structural default (a reply, or calls that are
    # well formed in the wire format) is what the server applies
    assert backend.hops[1][1].info["validation"] == "structural"
    assert result.calls[0].name == "get_weather" and result.calls[0].arguments == {"city": "Paris"}
    assert result.calls[0].ok and seen[0] == "Paris"
    # hop two: the result went back to the server and the model used it
    assert len(backend.hops) == 2 and result.hops == 2
    sent = backend.hops[1][0]
    assert any(m["role"] == "tool" and "sunny and 21 C in Paris" in m["content"] for m in sent)
    assert "21" in backend.hops[1][1].text
    assert result.stopped_reason in ("reply", "max_hops") and "21" in result.reply
    msgs = agent.session.messages
    assert msgs[0] == {"role": "user", "content": "What is the weather in Paris?"}
    assert msgs[1]["role"] == "assistant" and msgs[1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert msgs[2]["role"] == "tool" and msgs[2]["tool_call_id"] == msgs[1]["tool_calls"][0]["id"]
    assert msgs[-1]["role"] == "assistant" and not msgs[-1].get("tool_calls")


def test_server_killed_mid_stream_then_back(llama_server, remote):
    """Crash mid-reply: a clear error, nothing retried; once the server is back, the same backend works."""
    got, done = [], []
    try:
        with pytest.raises(StreamInterrupted) as err:
            for piece in remote.stream(COUNT, max_tokens=200, temperature=0.0, on_done=done.append):
                got.append(piece)
                if len(got) == 3:
                    llama_server.kill()
        assert done == [] and err.value.partial == "".join(got) and len(got) >= 3
        fast = RemoteBackend(llama_server.url, max_retries=1, backoff=0.05, preset="qwen25")
        with pytest.raises(RemoteUnavailable):
            fast.complete([{"role": "user", "content": "hi"}], max_tokens=2)
    finally:
        llama_server.ensure_running()
    c = remote.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
    assert c.text and c.info["retries"] == 0
    pieces = list(remote.stream([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0))
    assert pieces
