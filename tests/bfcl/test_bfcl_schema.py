"""BFCL function documents -> OpenAI tool dicts with standard JSON Schema."""

from __future__ import annotations

import json

import pytest
from jsonschema.validators import Draft202012Validator

from edgevox.bfcl.data import CATEGORIES, load_cases
from edgevox.bfcl.schema import BfclSchemaError, name_map, sanitize_name, to_json_schema

DOC = {
    "name": "geo.distance.calculate",
    "description": "Distance between two points.",
    "parameters": {
        "type": "dict",
        "properties": {
            "start": {"type": "tuple", "items": {"type": "float"}, "description": "lat, lon"},
            "unit": {"type": "string", "enum": ["km", "mi"], "default": "km", "optional": True},
            "waypoints": {
                "type": "array",
                "items": {
                    "type": "dict",
                    "properties": {"name": {"type": "string"}, "stop": {"type": "integer"}},
                    "required": ["name"],
                },
            },
            "extra": {"type": "any", "description": "anything"},
            "strict": {"type": "boolean", "default": False},
            "opts": {"type": "dict", "description": "free-form"},
        },
        "required": ["start", "ghost"],
    },
}


def test_types_are_mapped_to_json_schema_and_annotations_kept():
    tool = to_json_schema(DOC)
    assert tool["type"] == "function"
    fn = tool["function"]
    assert fn["name"] == "geo.distance.calculate"
    assert fn["description"] == "Distance between two points."
    params = fn["parameters"]
    assert params["type"] == "object"
    props = params["properties"]
    assert props["start"] == {
        "type": "array",
        "items": {"type": "number"},
        "description": "lat, lon",
    }
    assert props["unit"] == {
        "type": "string",
        "enum": ["km", "mi"],
        "default": "km",
    }  # no 'optional'
    assert props["waypoints"]["items"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "stop": {"type": "integer"}},
        "required": ["name"],
    }
    assert props["extra"] == {"description": "anything"}  # any -> no type constraint
    assert props["strict"] == {"type": "boolean", "default": False}
    assert props["opts"] == {"type": "object", "description": "free-form"}
    assert params["required"] == ["start"]  # 'ghost' names no property
    Draft202012Validator.check_schema(params)
    validator = Draft202012Validator(params)
    assert validator.is_valid({"start": [1.5, 2], "extra": [None], "waypoints": [{"name": "a"}]})
    assert not validator.is_valid({"start": "north"})


def test_sanitized_names_and_mapping_back():
    assert sanitize_name("geo.distance.calculate") == "geo_distance_calculate"
    assert sanitize_name("weird name!") == "weird_name_"
    assert len(sanitize_name("x" * 100)) == 64
    tool = to_json_schema(DOC, sanitize=True)
    assert tool["function"]["name"] == "geo_distance_calculate"
    assert name_map([DOC]) == {"geo_distance_calculate": "geo.distance.calculate"}
    with pytest.raises(BfclSchemaError, match="share the sanitized name"):
        name_map([{"name": "a.b"}, {"name": "a_b"}])


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "HashMap"}}}},
         "unknown BFCL type 'HashMap' at f.parameters.x"),
        ({"name": "f", "parameters": {"type": "string"}}, "must be of type dict/object"),
        ({"name": "f", "parameters": {"type": "dict", "properties": []}}, "'properties'"),
        ({"description": "no name"}, "needs at least a 'name'"),
        ({"name": "", "parameters": {"type": "dict"}}, "non-empty string"),
    ],
)  # fmt: skip
def test_bad_documents_raise_a_clear_error(doc, message):
    with pytest.raises(BfclSchemaError, match=message.replace("(", r"\(").replace(".", r"\.")):
        to_json_schema(doc, sanitize=True)


def test_function_without_parameters_gets_an_empty_object():
    params = to_json_schema({"name": "ping", "description": "Ping."})["function"]["parameters"]
    assert params == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    "category",
    list(CATEGORIES),
)
def test_every_real_function_converts_to_a_valid_schema(category, bfcl_data_dir):
    cases = load_cases(category, bfcl_data_dir)
    checked: set[str] = set()  # live cases share many functions: validate each once
    for case in cases:
        for tool in case.tools(sanitize=True):
            fn = tool["function"]
            assert fn["name"] and len(fn["name"]) <= 64
            assert fn["parameters"]["type"] == "object"
            key = json.dumps(fn, sort_keys=True)
            if key not in checked:
                Draft202012Validator.check_schema(fn["parameters"])
                checked.add(key)
        assert set(case.name_map().values()) == {f["name"] for f in case.functions}
    assert len(checked) >= len(cases) // 10
