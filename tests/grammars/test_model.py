"""On the real Qwen2.5-Coder-0.5B: output under our grammars parses and validates."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from registry import TOOLS

from edgevox.grammars import json_schema_grammar, reply_or_tool_grammar, tool_call_grammar

pytestmark = pytest.mark.model
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
HERMES_CALL = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)


@pytest.fixture(scope="module")
def qwen(qwen_gguf, llama_cpp_module):
    import jinja2

    llm = llama_cpp_module.Llama(str(qwen_gguf), n_ctx=2048, verbose=False, seed=0, n_threads=2)
    env = jinja2.Environment()
    env.filters["tojson"] = lambda x, **_: json.dumps(x, ensure_ascii=False)
    template = env.from_string(llm.metadata["tokenizer.chat_template"])

    def generate(user: str, grammar, max_tokens: int = 96) -> str:
        # The prompt lists three tools and is the same up to the user turn, so llama.cpp
        # reuses its KV cache across tests; the grammars always cover all six tools.
        prompt = template.render(messages=[{"role": "user", "content": user}], tools=TOOLS[:3],
                                 add_generation_prompt=True)
        out = llm.create_completion(prompt, grammar=grammar.compiled(), temperature=0.0,
                                    max_tokens=max_tokens)
        return out["choices"][0]["text"]

    yield generate
    llm.close()


@pytest.mark.parametrize("request_text", [
    "What's the weather in Paris in fahrenheit?",
    "Put milk and eggs on my todo list, priority 2.",
])
def test_required_calls_parse_and_validate(qwen, request_text):
    g = tool_call_grammar(TOOLS, "hermes", parallel_tool_calls=False)
    text = qwen(request_text, g)
    assert g.matches(text), text
    calls = HERMES_CALL.findall(text)
    assert len(calls) == 1, text
    call = json.loads(calls[0])
    assert call["name"] in SCHEMAS
    jsonschema.validate(call["arguments"], SCHEMAS[call["name"]])


def test_small_talk_gets_a_plain_reply(qwen):
    g = reply_or_tool_grammar(TOOLS, "hermes")
    text = qwen("Hi! How are you today?", g, max_tokens=48)
    assert text.strip() and "<tool_call>" not in text
    assert g.is_prefix(text)


def test_structured_output(qwen):
    schema = {"type": "object", "properties": {
        "city": {"type": "string", "maxLength": 40},
        "country": {"type": "string", "maxLength": 40},
        "population_millions": {"type": "number", "minimum": 0},
    }, "required": ["city", "country", "population_millions"], "additionalProperties": False}
    g = json_schema_grammar(schema)
    text = qwen("Give the largest city of Japan as JSON with city, country and population_millions.", g)
    jsonschema.validate(json.loads(text), schema)
