"""ToolResult.to_model_text / to_dict."""

from __future__ import annotations

import datetime
import enum
import json
from dataclasses import dataclass

from pydantic import BaseModel

from edgevox.tools import ToolResult


class Color(enum.Enum):
    RED = "red"


class Reading(BaseModel):
    t: datetime.datetime
    c: Color


@dataclass
class Box:
    w: int
    tags: tuple[str, ...]


class Opaque:
    def __str__(self) -> str:
        return "<opaque thing>"


def ok(value: object) -> ToolResult:
    return ToolResult(name="t", arguments={}, ok=True, value=value)


def test_compact_json_for_plain_values() -> None:
    assert (
        ok({"a": [1, 2.5, None, True], "b": "é"}).to_model_text()
        == '{"a":[1,2.5,null,true],"b":"é"}'
    )
    assert ok("sunny").to_model_text() == '"sunny"'
    assert ok(None).to_model_text() == "null"


def test_non_json_values_fall_back() -> None:
    when = datetime.datetime(2024, 5, 1, 12, 0)
    text = ok(
        {
            "r": Reading(t=when, c=Color.RED),
            "box": Box(2, ("x",)),
            "o": Opaque(),
            "s": {3},
            "nan": float("nan"),
        }
    ).to_model_text()
    data = json.loads(text)
    assert data["r"] == {"t": "2024-05-01T12:00:00", "c": "red"}
    assert data["box"] == {"w": 2, "tags": ["x"]}
    assert data["o"] == "<opaque thing>"
    assert data["s"] == [3]
    assert data["nan"] == "nan"
    assert json.loads(ok(Opaque()).to_model_text()) == "<opaque thing>"


def test_long_results_truncated_with_note_and_still_json() -> None:
    big = {"rows": [{"id": i, "text": "x" * 50} for i in range(500)]}
    full = len(json.dumps(big, separators=(",", ":")))
    for bound in (2000, 300, 120):
        text = ok(big).to_model_text(max_chars=bound)
        assert len(text) <= bound
        data = json.loads(text)
        assert data["truncated"].startswith('{"rows":[{"id":0')
        assert "truncated" in data["note"] and str(full) in data["note"]
    assert len(ok(big).to_model_text()) <= 2000, "default bound"


def test_error_text() -> None:
    r = ToolResult(
        name="t",
        arguments={},
        ok=False,
        error="ValueError: bad",
        error_type="exception",
        call_id="c",
    )
    assert json.loads(r.to_model_text()) == {"error": "ValueError: bad", "error_type": "exception"}


def test_to_dict_is_json_able() -> None:
    r = ToolResult(
        name="t",
        arguments={"when": datetime.date(2024, 1, 2)},
        ok=True,
        value=Box(1, ()),
        duration_s=0.5,
        call_id="x",
    )
    d = json.loads(json.dumps(r.to_dict()))
    assert d == {
        "name": "t",
        "arguments": {"when": "2024-01-02"},
        "ok": True,
        "value": {"w": 1, "tags": []},
        "error": None,
        "error_type": None,
        "duration_s": 0.5,
        "call_id": "x",
    }
