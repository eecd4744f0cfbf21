"""Shared data for the parser-chain tests (a plain module: imported by name, not a conftest)."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def _tool(name: str, props: dict) -> dict:
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": {"type": "object", "properties": props}},
    }


STR, INT, NUM, BOOL, ARR, OBJ = ({"type": t} for t in ("string", "integer", "number", "boolean", "array", "object"))

#: The tools most fixtures are parsed against ("tools": "default").
TOOLS = [
    _tool("get_weather", {"city": STR, "days": INT, "unit": STR}),
    _tool("set_timer", {"minutes": NUM, "label": STR, "loud": BOOL, "snooze": STR}),
    _tool("search", {"query": STR, "limit": INT}),
    _tool("send_message", {"to": STR, "text": STR}),
    _tool("play_music", {"artist": STR, "songs": ARR, "options": OBJ, "volume": INT}),
    _tool("turn_on_light", {"room": STR, "brightness": INT, "dimmed": BOOL, "scene": STR}),
]


def load_fixtures() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            out.append((path.stem, case))
    return out


def tools_of(case: dict):
    t = case.get("tools", "default")
    return TOOLS if t == "default" else t


def parsers_of(fmt: str, case: dict) -> tuple[str, ...]:
    return tuple(case.get("parsers") or (fmt,))

