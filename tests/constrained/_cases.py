"""Tools, schemas and prompts shared by the constrained-decoding tests."""

from edgevox.examples.clock_weather import TIME, WEATHER

TOOLS = [WEATHER, TIME]

PERSON = {"type": "object", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer"},
    "city": {"type": "string"}}, "required": ["name", "age"]}
