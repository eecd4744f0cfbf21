"""Three small assistant tools as OpenAI-style tool dicts (weather, time, timer).

Why plain dicts: the constrained-decoding tests and benchmarks exercise the grammar and
decoding path on exactly what an OpenAI-compatible client would send, without a registry.
"""

from __future__ import annotations

from typing import Any

WEATHER: dict[str, Any] = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]}}}
TIME: dict[str, Any] = {"type": "function", "function": {
    "name": "get_time", "description": "Current time in a time zone",
    "parameters": {"type": "object", "properties": {
        "timezone": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris"}},
        "required": ["timezone"]}}}
TIMER: dict[str, Any] = {"type": "function", "function": {
    "name": "set_timer", "description": "Start a countdown timer",
    "parameters": {"type": "object", "properties": {
        "minutes": {"type": "integer"}, "label": {"type": "string"}},
        "required": ["minutes"]}}}

TOOLS: list[dict[str, Any]] = [WEATHER, TIME, TIMER]
