"""Validation levels through the remote backend: the level picks the grammar sent, and a
server that refuses the schema grammar gets the structural one (scripted server: this is
the request logic; the grammars themselves run on the real models in tests/agents)."""

from __future__ import annotations

import pytest

from edgevox.llm.remote import RemoteBackend
from edgevox.llm.remote.capabilities import PROBE_GRAMMAR, PROBE_WORD

from .conftest import chat_json, chunk
from .test_paths import MSGS, WEATHER, models_route

BIG = 1500  # a grammar engine with a size limit: the schema grammar is over it


def _limited(r):
    grammar = r.body.get("grammar")
    if grammar == PROBE_GRAMMAR:
        return r.json(chat_json(PROBE_WORD))
    if grammar and len(grammar) > BIG:
        return r.json({"error": {"message": "grammar too large"}}, 400)
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    if r.body.get("stream"):
        r.sse_start()
        r.sse(chunk(text))
        r.sse(chunk(finish="stop"))
        return r.sse("[DONE]")
    r.json(chat_json(text))


def test_levels_pick_the_grammar(fake):
    fake.routes[("GET", "/v1/models")] = models_route("llamacpp")
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("ok"))
    b = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes", grammar_mode="grammar")
    b.complete(MSGS, [WEATHER], validation="none")
    assert "grammar" not in fake.posts()[-1].body
    c = b.complete(MSGS, [WEATHER], validation="structural")
    sent = fake.posts()[-1].body["grammar"]
    assert "any-name" in sent and "get_weather" not in sent and c.info["validation"] == "structural"
    c = b.complete(MSGS, [WEATHER], validation="schema_aware", tool_choice="required")
    assert "get_weather" in fake.posts()[-1].body["grammar"] and c.info["validation"] == "schema_aware"


def test_refused_schema_grammar_falls_back_to_structural(fake):
    fake.routes[("GET", "/v1/models")] = models_route("llamacpp")
    fake.routes[("POST", "/v1/chat/completions")] = _limited
    b = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes")
    c = b.complete(MSGS, [WEATHER] * 1 + [{"type": "function", "function": {
        "name": f"tool_{i}", "parameters": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}}} for i in range(8)],
        validation="schema_aware", tool_choice="required")
    assert c.info["validation"] == "structural" and c.text.startswith("<tool_call>")
    assert b.capabilities()["schema_grammar_refused"]
    assert len(fake.posts()[-1].body["grammar"]) <= BIG
    n = len(fake.posts())
    pieces = list(b.stream(MSGS, [WEATHER], validation="schema_aware", tool_choice="required"))
    assert "".join(pieces) and len(fake.posts()) == n + 1  # learnt: straight to structural
    assert "any-name" in fake.posts()[-1].body["grammar"]


TAG = {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<tool_call>"], "tags": [
    {"begin": '<tool_call>\n{"name": "get_weather", "arguments": ', "end": "}\n</tool_call>",
     "content": {"type": "json_schema", "json_schema": WEATHER["function"]["parameters"]}}]}}


def test_structural_tag_passes_through_to_vllm_and_sglang(fake):
    """A server that runs structural tags itself gets the description as written."""
    for owner in ("vllm", "sglang"):
        fake.routes[("GET", "/v1/models")] = models_route(owner)
        fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("ok"))
        c = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes").complete(MSGS, response_format=TAG)
        body = fake.posts()[-1].body
        assert body["response_format"] == TAG and c.info["grammar_path"] == "response_format:structural_tag"
        assert not any(k in body for k in ("grammar", "structured_outputs", "guided_grammar"))


def test_structural_tag_becomes_gbnf_for_llama_server(fake):
    from edgevox.grammars import GrammarError
    from edgevox.grammars.structural_tag import structural_tag_grammar

    fake.routes[("GET", "/v1/models")] = models_route("llamacpp")
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("ok"))
    b = RemoteBackend(fake.url, tools_mode="prompt", preset="hermes", grammar_mode="grammar")
    c = b.complete(MSGS, [WEATHER], response_format=TAG, validation="schema_aware")
    body = fake.posts()[-1].body
    assert c.text == "ok" and body["grammar"] == structural_tag_grammar(TAG).gbnf and "response_format" not in body
    n = len(fake.posts())
    with pytest.raises(GrammarError, match="format.triggers: must not be empty"):
        b.complete(MSGS, response_format={"type": "structural_tag", "format": {**TAG["format"], "triggers": []}})
    assert len(fake.posts()) == n  # refused before anything was sent
