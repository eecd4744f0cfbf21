"""Validation levels through the remote backend: the level picks the grammar sent, and a
server that refuses the schema grammar gets the structural one (scripted server: this is
the request logic; the grammars themselves run on the real models in tests/agents)."""

from __future__ import annotations

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
