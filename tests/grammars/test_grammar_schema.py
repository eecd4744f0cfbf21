"""Structured output: json_schema_grammar follows the schema (pydantic models included)."""

from __future__ import annotations

import enum
import json
from typing import Literal

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from strategies import from_schema

from edgevox.grammars import GrammarError, json_schema_grammar


class Color(str, enum.Enum):
    red = "red"
    green = "green"


class Address(BaseModel):
    model_config = ConfigDict(extra="forbid")
    street: str
    zip_code: str | None = None


class Person(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=20)
    age: int = Field(ge=0)
    height: float
    tags: list[str] = Field(default_factory=list, max_length=3)
    favourite: Color = Color.red
    kind: Literal["human", "robot"] = "human"
    address: Address | None = None
    scores: dict[str, int] = Field(default_factory=dict)


def test_pydantic_model_class():
    g = json_schema_grammar(Person)
    assert g.strategy == "json_schema" and g.wire_format is None
    ok = Person(name="Ann", age=30, height=1.7, tags=["a"], favourite=Color.green,
                address=Address(street="Main 1"), scores={"x": 3})
    text = json.dumps(ok.model_dump(mode="json"))
    assert g.matches(text)
    assert g.matches(json.dumps({"name": "Bo", "age": 0, "height": 2}))
    for bad in [
        {"name": "", "age": 1, "height": 1.0},                 # minLength
        {"name": "x" * 21, "age": 1, "height": 1.0},           # maxLength
        {"name": "A", "age": -1, "height": 1.0},               # ge=0
        {"name": "A", "age": 1.5, "height": 1.0},              # integer
        {"name": "A", "age": 1},                               # missing required
        {"name": "A", "age": 1, "height": 1, "favourite": "blue"},
        {"name": "A", "age": 1, "height": 1, "tags": ["a", "b", "c", "d"]},
        {"name": "A", "age": 1, "height": 1, "address": {"street": "x", "city": "y"}},
        {"name": "A", "age": 1, "height": 1, "scores": {"x": "high"}},
        {"name": "A", "age": 1, "height": 1, "nickname": "Z"},
    ]:
        assert not g.matches(json.dumps(bad)), bad


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_people_match(data):
    schema = Person.model_json_schema()
    simple = json.loads(json.dumps(schema))
    # "additionalProperties: {integer}" objects: give the strategy plain properties
    simple["properties"]["scores"] = {"type": "object", "properties": {"x": {"type": "integer"}}}
    obj = data.draw(from_schema(simple))
    jsonschema.validate(obj, schema)
    assert json_schema_grammar(Person).matches(json.dumps(obj, ensure_ascii=False))


RECURSIVE = {
    "type": "object",
    "$defs": {"node": {"type": "object", "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
    }, "required": ["value"], "additionalProperties": False}},
    "properties": {"root": {"$ref": "#/$defs/node"}},
    "required": ["root"],
    "additionalProperties": False,
}


def test_recursive_refs():
    g = json_schema_grammar(RECURSIVE)
    assert g.matches('{"root": {"value": 1, "children": [{"value": 2}, {"value": 3, "children": []}]}}')
    assert not g.matches('{"root": {"value": 1, "children": [{"value": "2"}]}}')


@pytest.mark.parametrize("schema,yes,no", [
    ({"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
      "required": ["v"]}, ['{"v": 1}', '{"v": "a"}'], ['{"v": true}']),
    ({"type": "object", "properties": {"v": {"type": ["boolean", "null"]}}, "required": ["v"]},
     ['{"v": true}', '{"v": null}'], ['{"v": 0}']),
    ({"type": "object", "properties": {"v": {"const": {"a": [1, "x"]}}}, "required": ["v"]},
     ['{"v": {"a": [1, "x"]}}', '{"v":{"a":[1,"x"]}}'], ['{"v": {"a": [1]}}']),
    ({"type": "object", "properties": {"v": {"enum": [1, "one", None, True]}}, "required": ["v"]},
     ['{"v": 1}', '{"v": "one"}', '{"v": null}', '{"v": true}'], ['{"v": 2}', '{"v": false}']),
    ({"type": "object", "additionalProperties": {"type": "number"}},
     ['{}', '{"a": 1, "b": 2.5}'], ['{"a": "x"}']),
    ({"type": "object"}, ['{}', '{"a": [1, {"b": null}]}'], ['[]', '1']),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
     ['{"a": "x", "extra": 1}', '{"extra": 1}', '{}'], ['{"a": "x",}', '{"extra"}']),
    ({"type": "object", "properties": {"a": {}}, "required": ["a"]},
     ['{"a": 1}', '{"a": {"any": ["thing"]}}'], ['{}']),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"},
                                            "minItems": 2, "maxItems": 3}}, "required": ["a"]},
     ['{"a": [1, 2]}', '{"a": [1, 2, 3]}'], ['{"a": [1]}', '{"a": [1, 2, 3, 4]}']),
    ({"type": "object", "properties": {"p": {"type": "array", "prefixItems": [
        {"type": "string"}, {"type": "integer"}]}}, "required": ["p"]},
     ['{"p": ["a", 1]}'], ['{"p": [1, "a"]}']),
    ({"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"type": "string"}}, "required": ["b"]}]},
     ['{"a": 1, "b": "x"}'], ['{"a": 1}']),
    ({"type": "object", "properties": {"s": {"type": "string", "format": "date", "pattern": "^x"}},
      "required": ["s"]}, ['{"s": "anything"}'], ['{"s": 1}']),
    ({"type": "object", "properties": {"n": {"type": "number", "nullable": True}}, "required": ["n"]},
     ['{"n": null}', '{"n": 1.5}'], ['{"n": "1"}']),
])
def test_schema_features(schema, yes, no):
    g = json_schema_grammar(schema)
    for s in yes:
        assert g.matches(s), s
    for s in no:
        assert not g.matches(s), s


@pytest.mark.parametrize("schema,msg", [
    ({"type": "array", "items": {"type": "integer"}}, "a scalar at the schema root, got type 'array'"),
    ("not a schema", "JSON schema object"),
    ({"type": "object", "properties": {"a": {"$ref": "http://example.com/x"}}}, "local"),
    ({"type": "object", "properties": {"a": {"type": "integer", "minimum": 0},
                                       "b": {"type": "string", "maxLength": 2, "minLength": 5}}},
     "maxLength"),
    ({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}, "cycle"),
])
def test_bad_schemas(schema, msg):
    with pytest.raises(GrammarError, match=msg):
        json_schema_grammar(schema)


def test_whitespace_is_bounded():
    g = json_schema_grammar({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})
    assert g.matches('{"a": 1}') and g.matches('{ "a":1 }')
    assert not g.matches('{"a":  1}') and not g.matches('{\n"a": 1}')
