"""A six-tool registry with every parameter shape the grammars must handle."""

from __future__ import annotations

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
        }, "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "set_timer",
        "description": "Start a countdown timer.",
        "parameters": {"type": "object", "properties": {
            "minutes": {"type": "number"},
            "label": {"type": "string"},
            "sound": {"type": "boolean"},
        }, "required": ["minutes"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "add_todo",
        "description": "Add items to a todo list.",
        "parameters": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
        }, "required": ["items"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "send_message",
        "description": "Send a message to a contact.",
        "parameters": {"type": "object", "properties": {
            "to": {"type": "object", "properties": {
                "name": {"type": "string"},
                "phone": {"type": ["string", "null"]},
            }, "required": ["name"], "additionalProperties": False},
            "body": {"type": "string"},
            "urgent": {"type": "boolean"},
        }, "required": ["to", "body"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "play_music",
        "description": "Play music.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"},
            "volume": {"type": "integer", "minimum": 0, "maximum": 100},
            "shuffle": {"type": "boolean"},
            "mode": {"anyOf": [{"type": "string", "enum": ["song", "album"]}, {"type": "null"}]},
        }, "required": [], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "get_time",
        "description": "Current time.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}},
]
