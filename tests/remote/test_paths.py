"""Capability probe and the paths it picks (tools, grammar, structured output), on scripted servers."""

from __future__ import annotations

import json

import pytest

from edgevox.grammars import GrammarError, gbnf_grammar
from edgevox.grammars.structured import StructuredOutputInvalid
from edgevox.llm.remote import RemoteBackend
from edgevox.llm.remote.capabilities import PROBE_GRAMMAR, PROBE_WORD
from edgevox.llm.remote.structured import strict_compatible

from .conftest import chat_json, chunk, free_port

MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}]
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
QWEN_LIKE_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                      "{% if tools %}<tools>{{ tools | tojson }}</tools> reply in <tool_call></tool_call>{% endif %}")


def models_route(owner: str, model_id: str = "m"):
    return lambda r: r.json({"object": "list", "data": [{"id": model_id, "owned_by": owner}]})


def chat_route(*, tools: str = "render", grammar_field: str | None = None, reply="hello", calls=None):
    """A chat endpoint that renders/ignores/refuses tools and obeys one grammar field."""

    def handler(r):
        body = r.body
        if "tools" in body and tools == "refuse":
            return r.json({"error": {"message": "tools are not supported"}}, 400)
        grammar = None
        if grammar_field == "structured_outputs":
            grammar = (body.get("structured_outputs") or {}).get("grammar")
        elif grammar_field:
            grammar = body.get(grammar_field)
        if grammar == PROBE_GRAMMAR:
            return r.json(chat_json(PROBE_WORD))
        prompt_tokens = 10 + (40 if "tools" in body and tools == "render" else 0)
        text = reply(body) if callable(reply) else reply
        r.json(chat_json(text, tool_calls=calls, prompt_tokens=prompt_tokens))

    return handler


# -- probe and preset ----------------------------------------------------------------------


def test_llama_cpp_props_give_template_preset_and_context(fake):
    fake.routes[("GET", "/v1/models")] = models_route("llamacpp", "qwen.gguf")
    fake.routes[("GET", "/props")] = lambda r: r.json(
        {"chat_template": QWEN_LIKE_TEMPLATE, "default_generation_settings": {"n_ctx": 8192}})
    b = RemoteBackend(fake.url)
    assert b.preset.name == "qwen25" and b.preset_source == "chat_template"
    caps = b.capabilities()
    assert caps["server"] == "llama.cpp" and caps["has_chat_template"] and b.n_ctx == 8192
    assert b.model_name == "qwen.gguf"
    # render() uses the server's template (no network call of its own)
    n = len(fake.requests)
    assert b.render([{"role": "user", "content": "x"}]).startswith("<|im_start|>user\nx")
    assert len(fake.requests) == n


def test_registered_model_name_gives_its_preset(fake):
    fake.routes[("GET", "/v1/models")] = models_route("me", "/srv/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    b = RemoteBackend(fake.url)
    assert (b.preset.name, b.preset_source) == ("qwen2.5-coder-0.5b", "model_name")  # its calling profile
    assert b.capabilities()["server"] == "llama-cpp-python"


def test_unknown_server_defaults_to_hermes(fake):
    b = RemoteBackend(fake.url)
    assert (b.preset.name, b.preset_source) == ("hermes", "default")
    assert b.n_ctx is None


def test_unreachable_server_still_gives_a_preset():
    b = RemoteBackend(f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    assert b.preset.name == "hermes"
    assert b.model_name is None


def test_explicit_preset_and_model_win(fake):
    b = RemoteBackend(fake.url, model="served-name", preset="mistral", tools_mode="prompt", grammar_mode="none")
    fake.routes[("POST", "/v1/chat/completions")] = chat_route()
    b.complete(MSGS)
    assert b.preset.name == "mistral" and b.preset_source == "explicit"
    assert fake.posts()[0].body["model"] == "served-name"


def test_probe_failure_is_not_cached(fake):
    port = free_port()
    b = RemoteBackend(f"http://127.0.0.1:{port}/v1", max_retries=0, preset="hermes")
    with pytest.raises(Exception, match="failed 1 time"):
        b.probe()
    assert b._caps is None


# -- tools ---------------------------------------------------------------------------------


def test_tools_sent_natively_when_the_server_renders_them(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(tools="render")
    b = RemoteBackend(fake.url, grammar_mode="none")
    c = b.complete(MSGS, [WEATHER])
    assert b.supports_native_tools
    assert c.info["tools_path"] == "native"
    body = fake.posts()[-1].body
    assert body["tools"] == [WEATHER] and body["tool_choice"] == "auto"
    assert len(fake.posts()) == 3  # two tiny probe requests, once, then the real one
    b.complete(MSGS, [WEATHER])
    assert len(fake.posts()) == 4


@pytest.mark.parametrize("behaviour", ["ignore", "refuse"])
def test_tools_go_into_the_prompt_when_ignored_or_refused(fake, behaviour):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(tools=behaviour)
    b = RemoteBackend(fake.url, grammar_mode="none", preset="qwen25")
    c = b.complete(MSGS, [WEATHER])
    assert not b.supports_native_tools
    assert c.info["tools_path"] == "prompt"
    body = fake.posts()[-1].body
    assert "tools" not in body
    system = body["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Be brief.")
    assert '"name": "get_weather"' in system["content"] and "<tool_call>" in system["content"]


def test_prompt_path_folds_earlier_calls_and_results(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(tools="refuse")
    history = [*MSGS,
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                                 "arguments": '{"city": "Paris"}'}}]},
               {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "sunny"}]
    RemoteBackend(fake.url, grammar_mode="none").complete(history, [WEATHER])
    sent = fake.posts()[-1].body["messages"]
    assert {m["role"] for m in sent} <= {"system", "user", "assistant"}
    assert all(set(m) == {"role", "content"} for m in sent)
    assert "get_weather" in sent[-2]["content"] and "sunny" in sent[-1]["content"]


def test_native_history_is_strict_openai_shape(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(tools="render")
    history = [*MSGS,
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    RemoteBackend(fake.url, grammar_mode="none").complete(history, [WEATHER])
    sent = fake.posts()[-1].body["messages"]
    call = sent[2]["tool_calls"][0]
    assert sent[2]["content"] == ""
    assert call == {"id": "c1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def test_llama_cpp_python_gets_earlier_calls_as_wire_text(fake):
    """Its server hands string arguments to the template undecoded: write the call as the model would."""
    fake.routes[("GET", "/v1/models")] = models_route("me")
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(tools="render")
    history = [*MSGS,
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "c1", "type": "function", "function": {"name": "get_weather",
                                                                 "arguments": '{"city": "Paris"}'}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    RemoteBackend(fake.url, grammar_mode="none", preset="qwen25").complete(history, [WEATHER])
    sent = fake.posts()[-1].body["messages"]
    assert "tool_calls" not in sent[2]
    assert sent[2]["content"] == '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    assert sent[3]["role"] == "tool"


def test_structured_tool_calls_are_returned_and_written_as_text(fake):
    calls = [{"id": "call_1", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(reply=None, calls=calls)
    b = RemoteBackend(fake.url, grammar_mode="none", tools_mode="native", preset="qwen25")
    c = b.complete(MSGS, [WEATHER])
    assert c.tool_calls == calls
    assert c.text == '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    assert c.info["tool_calls_in_text"] is True
    from edgevox.parsing import parse_tool_calls

    parsed = parse_tool_calls(c.text, parsers=b.preset.detectors, tools=[WEATHER])
    assert [(x.name, x.arguments) for x in parsed.calls] == [("get_weather", {"city": "Paris"})]
    raw = RemoteBackend(fake.url, grammar_mode="none", tools_mode="native", calls_in_text=False)
    c2 = raw.complete(MSGS, [WEATHER])
    assert c2.text == "" and c2.tool_calls == calls


def test_streamed_tool_call_fragments_are_merged(fake):
    """llama-cpp-python repeats id and name in every fragment; arguments arrive in pieces."""

    def frag(args):
        return [{"index": 0, "id": "call_x", "type": "function",
                 "function": {"name": "get_weather", "arguments": args}}]

    def handler(r):
        r.sse_start()
        for piece in ['{"', 'city', '": "', 'Paris', '"}']:
            r.sse(chunk(tool_calls=frag(piece)))
        r.sse(chunk(finish="tool_calls"))
        r.sse("[DONE]")

    fake.routes[("POST", "/v1/chat/completions")] = handler
    b = RemoteBackend(fake.url, grammar_mode="none", tools_mode="native", preset="hermes")
    done: list = []
    pieces = list(b.stream(MSGS, [WEATHER], on_done=done.append))
    c = done[0]
    assert c.tool_calls == [{"id": "call_x", "type": "function",
                             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    assert pieces == [c.text] and "<tool_call>" in c.text
    assert c.finish_reason == "stop" and c.info["server_finish_reason"] == "tool_calls"


def test_tools_with_grammar_refused_falls_back_to_prompt_tools(fake):
    """llama.cpp's server may refuse a custom grammar together with tools: keep the grammar."""

    def handler(r):
        body = r.body
        if body.get("grammar") == PROBE_GRAMMAR:
            return r.json(chat_json(PROBE_WORD))
        if "tools" in body and "grammar" in body:
            return r.json({"error": {"message": "Cannot use custom grammar constraints with tools."}}, 400)
        r.json(chat_json("yes", prompt_tokens=10 + (40 if "tools" in body else 0)))

    fake.routes[("GET", "/v1/models")] = models_route("llamacpp")
    fake.routes[("POST", "/v1/chat/completions")] = handler
    b = RemoteBackend(fake.url)
    c = b.complete(MSGS, [WEATHER], grammar='root ::= "yes" | "no"')
    assert c.text == "yes"
    assert c.info["tools_path"] == "prompt" and c.info["tools_fallback"] is True
    assert c.info["grammar_path"] == "llama.cpp-grammar"
    assert b.capabilities()["tools_with_grammar"] is False
    n = len(fake.posts())
    c = b.complete(MSGS, [WEATHER], grammar='root ::= "yes" | "no"')
    assert len(fake.posts()) == n + 1 and c.info["tools_path"] == "prompt"
    c = b.complete(MSGS, [WEATHER])  # without a grammar, tools still go natively
    assert c.info["tools_path"] == "native"


# -- grammar -------------------------------------------------------------------------------


@pytest.mark.parametrize("owner,field,path", [
    ("llamacpp", "grammar", "llama.cpp-grammar"),
    ("me", "grammar", "llama.cpp-grammar"),
    ("vllm", "structured_outputs", "vllm-structured"),
    ("vllm", "guided_grammar", "vllm-guided"),
    ("someone", "structured_outputs", "vllm-structured"),
])
def test_grammar_field_found_by_probe(fake, owner, field, path):
    fake.routes[("GET", "/v1/models")] = models_route(owner)
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(grammar_field=field)
    b = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes")
    grammar = 'root ::= "yes" | "no"'
    c = b.complete(MSGS, grammar=grammar)
    assert b.supports_grammar and c.info["grammar_path"] == path
    body = fake.posts()[-1].body
    sent = body["structured_outputs"]["grammar"] if field == "structured_outputs" else body[field]
    assert sent == grammar


def test_server_without_grammar_support_is_recorded(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(grammar_field=None)
    b = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes")
    c = b.complete(MSGS, grammar='root ::= "yes"')
    assert not b.supports_grammar and c.info["grammar_path"] == "none"
    assert len(fake.posts()) == 4  # three probe fields tried once, then the request
    body = fake.posts()[-1].body
    assert not {"grammar", "guided_grammar", "structured_outputs"} & set(body)


def test_invalid_grammar_never_reaches_the_server(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(grammar_field="grammar")
    b = RemoteBackend(fake.url, tools_mode="prompt", grammar_mode="grammar", preset="hermes")
    with pytest.raises(GrammarError):
        b.complete(MSGS, grammar='root ::= ( "a"')
    with pytest.raises(GrammarError):
        b.complete(MSGS, grammar="root ::= x{3,1}")
    assert fake.posts() == []


def test_grammar_object_with_another_root_is_rerooted(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route(grammar_field="grammar")
    b = RemoteBackend(fake.url, tools_mode="prompt", grammar_mode="grammar", preset="hermes")
    b.complete(MSGS, grammar=gbnf_grammar('answer ::= "yes" | "no"', root="answer"))
    sent = fake.posts()[-1].body["grammar"]
    assert sent.rstrip().endswith("root ::= answer")


def test_sampling_fields_follow_the_server_kind(fake):
    fake.routes[("POST", "/v1/chat/completions")] = chat_route()
    RemoteBackend(fake.url, preset="qwen25", tools_mode="prompt", grammar_mode="none").complete(
        MSGS, temperature=0.0, seed=3, stop=["END"], max_tokens=9)
    body = fake.posts()[-1].body
    assert body["temperature"] == 0.0 and body["top_p"] == 0.9 and body["seed"] == 3
    assert body["stop"] == ["END"] and body["max_tokens"] == 9
    assert "top_k" not in body and "repeat_penalty" not in body  # unknown server: OpenAI fields only
    fake.routes[("GET", "/v1/models")] = models_route("vllm")
    RemoteBackend(fake.url, preset="qwen25", tools_mode="prompt", grammar_mode="none").complete(MSGS)
    body = fake.posts()[-1].body
    assert body["top_k"] == 40 and body["repetition_penalty"] == 1.05


def test_raw_prompt_without_messages_uses_completions(fake):
    fake.routes[("POST", "/v1/completions")] = lambda r: r.json(
        {"choices": [{"text": " world", "finish_reason": "length"}], "usage": {"completion_tokens": 1}})
    b = RemoteBackend(fake.url, preset="qwen25", grammar_mode="none")
    c = b.complete(prompt="hello", max_tokens=1)
    assert c.text == " world" and c.finish_reason == "length" and c.info["endpoint"] == "completions"
    assert "<|im_end|>" in fake.posts("/v1/completions")[0].body["stop"]


def test_messages_win_over_a_prerendered_prompt(fake):
    """LLMAgent passes both: the server renders its own template from the messages."""
    fake.routes[("POST", "/v1/chat/completions")] = chat_route()
    b = RemoteBackend(fake.url, preset="hermes", grammar_mode="none", tools_mode="prompt")
    c = b.complete(MSGS, prompt="<|im_start|>ignored")
    assert c.info["endpoint"] == "chat" and fake.posts()[-1].body["messages"] == MSGS


# -- structured output ---------------------------------------------------------------------

CITY = {"type": "object", "properties": {"name": {"type": "string"}, "country": {"type": "string"}},
        "required": ["name", "country"], "additionalProperties": False}
PARIS = '{"name": "Paris", "country": "France"}'


def structured_route(*, json_schema="ok", json_object="ok", prompt_reply=PARIS, native_reply=PARIS):
    """A chat endpoint whose answer depends on the response_format style it gets."""

    def handler(r):
        rf = r.body.get("response_format")
        if rf is None:
            return r.json(chat_json(prompt_reply))
        mode = json_schema if rf["type"] == "json_schema" else json_object
        if mode == "refuse":
            return r.json({"error": {"message": f"response_format {rf['type']} unsupported"}}, 400)
        if mode == "ignore":
            return r.json(chat_json("Sure! Paris is the capital of France."))
        r.json(chat_json(native_reply))

    return handler


def sbackend(url, **kw):
    return RemoteBackend(url, preset="hermes", grammar_mode="none", tools_mode="prompt", **kw)


def test_json_schema_native_path(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route()
    c = sbackend(fake.url).complete(MSGS, response_schema=CITY)
    assert c.parsed == {"name": "Paris", "country": "France"}
    assert c.info["structured_path"] == "response_format:json_schema"
    rf = fake.posts()[-1].body["response_format"]
    assert rf["json_schema"]["strict"] is True and rf["json_schema"]["schema"]["required"] == ["name", "country"]


def test_refused_style_falls_through_to_the_next_and_is_remembered(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(json_schema="refuse")
    b = sbackend(fake.url)
    c = b.complete(MSGS, response_schema=CITY)
    assert c.info["structured_path"] == "response_format:json_object"
    assert [s["outcome"] for s in c.info["structured_log"]] == ["rejected", "ok"]
    assert fake.posts()[-1].body["response_format"] == {"type": "json_object", "schema": CITY}
    n = len(fake.posts())
    b.complete(MSGS, response_schema=CITY)
    assert len(fake.posts()) == n + 1  # json_schema is not tried again


def test_ignored_response_format_falls_back_to_the_prompt(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(json_schema="ignore")
    b = sbackend(fake.url)
    c = b.complete(MSGS, response_schema=CITY)
    assert c.parsed == {"name": "Paris", "country": "France"}
    assert c.info["structured_path"] == "prompt"
    assert [s["outcome"] for s in c.info["structured_log"]] == ["ignored", "ok"]
    last = fake.posts()[-1].body
    assert "response_format" not in last
    assert any("JSON schema" in m["content"] and '"country"' in m["content"] for m in last["messages"])
    assert b.capabilities()["ignored_formats"] == ["json_schema"]


def test_all_styles_refused_goes_to_the_prompt(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(json_schema="refuse", json_object="refuse")
    c = sbackend(fake.url).complete(MSGS, response_schema=CITY)
    assert c.info["structured_path"] == "prompt" and c.parsed["name"] == "Paris"


def test_prompt_path_reply_that_fails_validation_raises(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(
        json_schema="refuse", json_object="refuse", prompt_reply='```json\n{"name": "Paris"}\n```')
    with pytest.raises(StructuredOutputInvalid, match="country"):
        sbackend(fake.url).complete(MSGS, response_schema=CITY)


def test_prompt_path_prose_raises(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(
        json_schema="ignore", prompt_reply="I cannot do JSON today.")
    with pytest.raises(StructuredOutputInvalid, match="not JSON"):
        sbackend(fake.url).complete(MSGS, response_schema=CITY)


def test_native_json_that_breaks_the_schema_is_not_second_guessed(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(native_reply='{"name": 3, "country": "F"}')
    with pytest.raises(StructuredOutputInvalid, match="/name"):
        sbackend(fake.url).complete(MSGS, response_schema=CITY)
    assert len(fake.posts()) == 1


def test_pydantic_class_and_empty_style_list(fake):
    from pydantic import BaseModel

    class City(BaseModel):
        name: str
        country: str

    fake.routes[("POST", "/v1/chat/completions")] = structured_route()
    c = sbackend(fake.url).complete(MSGS, response_schema=City)
    assert isinstance(c.parsed, City) and c.parsed.country == "France"
    rf = fake.posts()[-1].body["response_format"]["json_schema"]
    assert rf["name"] == "City" and rf["strict"] is True
    c = sbackend(fake.url, response_formats=()).complete(MSGS, response_schema=City)
    assert c.info["structured_path"] == "prompt"
    assert "response_format" not in fake.posts()[-1].body


def test_open_schema_is_not_sent_strict(fake):
    fake.routes[("POST", "/v1/chat/completions")] = structured_route(native_reply='{"name": "Paris"}')
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["name"]}
    sbackend(fake.url).complete(MSGS, response_schema=schema)
    assert fake.posts()[-1].body["response_format"]["json_schema"]["strict"] is False


@pytest.mark.parametrize("schema,ok", [
    (CITY, True),
    ({**CITY, "additionalProperties": True}, False),
    ({**CITY, "required": ["name"]}, False),
    ({**CITY, "properties": {**CITY["properties"], "name": {"type": "string", "minLength": 1}}}, False),
    ({**CITY, "properties": {"tags": {"type": "array", "items": {"type": "object", "properties": {}}}},
      "required": ["tags"]}, False),
    ({**CITY, "properties": {"tags": {"type": "array", "items": {
        "type": "object", "properties": {"k": {"enum": ["a", "b"]}}, "required": ["k"],
        "additionalProperties": False}}}, "required": ["tags"]}, True),
    ({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
      "required": ["v"], "additionalProperties": False}, True),
    ({"type": "array", "items": {"type": "string"}}, False),
    ({**CITY, "properties": {"x": {"type": "string", "default": "a"}}, "required": ["x"]}, False),
])
def test_strict_mode_check(schema, ok):
    assert strict_compatible(schema) is ok


def test_structured_output_cancelled_returns_without_parsing(fake):
    import threading

    release, stop = threading.Event(), threading.Event()
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: stop.set() or release.wait(10)
    try:
        c = sbackend(fake.url, timeout=30).complete(MSGS, response_schema=CITY, stop_event=stop)
        assert c.finish_reason == "cancelled" and c.parsed is None
    finally:
        release.set()


def test_response_regex_uses_the_grammar_path(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("42"))
    b = RemoteBackend(fake.url, preset="hermes", tools_mode="prompt", grammar_mode="grammar")
    c = b.complete(MSGS, response_regex=r"\d+")
    assert c.parsed.group(0) == "42"
    assert "grammar" in fake.posts()[-1].body
    assert json.dumps(c.info)  # info stays JSON-friendly for logs


def test_a_refusal_not_caused_by_tools_does_not_disable_them(fake):
    """json_schema refused on a request that also carries native tools: the tools stay native."""

    def handler(r):
        rf = r.body.get("response_format")
        if rf and rf["type"] == "json_schema":
            return r.json({"error": {"message": "response_format json_schema unsupported"}}, 400)
        r.json(chat_json(PARIS, prompt_tokens=10 + (40 if "tools" in r.body else 0)))

    fake.routes[("POST", "/v1/chat/completions")] = handler
    b = RemoteBackend(fake.url, preset="hermes", grammar_mode="none")
    c = b.complete(MSGS, [WEATHER], response_schema=CITY)
    assert c.info["structured_path"] == "response_format:json_object" and c.info["tools_path"] == "native"
    assert b.capabilities()["native_tools"] is True
    assert b.capabilities()["rejected_formats"] == ["json_schema"]
