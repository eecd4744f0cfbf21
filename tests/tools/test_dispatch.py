"""ToolRegistry.dispatch / dispatch_many: validation, coercions, failures, timeouts, concurrency."""

from __future__ import annotations

import asyncio
import enum
import json
import threading
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from pydantic import BaseModel, field_validator

from edgevox.tools import Tool, ToolArgumentError, ToolRegistry, ToolResult, tool


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


class Item(BaseModel):
    sku: str
    qty: int = 1

    @field_validator("sku")
    @classmethod
    def sku_upper(cls, v: str) -> str:
        if not v.isupper():
            raise ValueError("sku must be upper case")
        return v


class Order(BaseModel):
    items: list[Item]
    unit: Unit = Unit.C


seen: dict[str, Any] = {}


@tool
def get_weather(city: str, days: int = 1, unit: Unit = Unit.C) -> dict:
    """Weather for a city."""
    seen["weather"] = (city, days, unit)
    return {"city": city, "days": days, "unit": unit}


@tool
def scale(x: float, factor: int = 2) -> float:
    """Multiply."""
    seen["scale"] = (x, factor)
    return x * factor


@tool
def place(order: Order, tags: list[str] | None = None, mode: Literal["std", "rush"] = "std") -> str:
    """Place an order."""
    seen["place"] = (order, tags, mode)
    return f"{len(order.items)} items"


@tool
def fail(msg: str) -> None:
    """Always fails."""
    raise ValueError(msg)


@tool
def positional(a: int, /, b: int = 0) -> int:
    return a - b


def registry() -> ToolRegistry:
    return ToolRegistry([get_weather, scale, place, fail, positional])


def test_success_fills_defaults_and_converts_enums() -> None:
    r = registry().dispatch("get_weather", {"city": "Paris", "unit": "fahrenheit"}, call_id="c1")
    assert r.ok and r.error is None and r.error_type is None
    assert r.call_id == "c1"
    assert r.arguments == {"city": "Paris", "unit": "fahrenheit", "days": 1}
    assert seen["weather"] == ("Paris", 1, Unit.F)
    assert json.loads(r.to_model_text()) == {"city": "Paris", "days": 1, "unit": "fahrenheit"}
    assert r.duration_s >= 0


def test_nested_models_are_built_for_the_function() -> None:
    r = registry().dispatch("place", {"order": {"items": [{"sku": "AB"}, {"sku": "CD", "qty": 3}]}})
    assert r.ok, r.error
    order, tags, mode = seen["place"]
    assert isinstance(order, Order) and isinstance(order.items[1], Item)
    assert order.items[1].qty == 3 and order.unit is Unit.C
    assert (tags, mode) == (None, "std")
    assert r.value == "2 items"


def test_arguments_as_json_string_and_none() -> None:
    reg = registry()
    assert reg.dispatch("get_weather", '{"city": "Rome"}').ok
    r = reg.dispatch("get_weather", None)
    assert r.error_type == "invalid_arguments" and "'city' is a required property" in r.error
    r = reg.dispatch("get_weather", "{not json")
    assert r.error_type == "invalid_arguments" and "not valid JSON" in r.error
    r = reg.dispatch("get_weather", "[1, 2]")
    assert r.error_type == "invalid_arguments" and "must be a JSON object" in r.error


def test_positional_only_parameter() -> None:
    r = registry().dispatch("positional", {"a": 5, "b": 2})
    assert r.ok and r.value == 3


def test_unknown_tool_lists_known_names() -> None:
    r = registry().dispatch("get_wether", {"city": "x"})
    assert not r.ok and r.error_type == "unknown_tool"
    for name in ("get_weather", "scale", "place", "fail"):
        assert name in r.error
    assert json.loads(r.to_model_text())["error_type"] == "unknown_tool"


@pytest.mark.parametrize("value", [True, False])
def test_bool_is_not_an_integer(value: bool) -> None:
    r = registry().dispatch("get_weather", {"city": "x", "days": value})
    assert r.error_type == "invalid_arguments"
    assert "/days" in r.error and "integer" in r.error
    assert "weather" not in seen or seen["weather"][1] is not value


def test_string_is_not_a_number() -> None:
    reg = registry()
    r = reg.dispatch("scale", {"x": "2.5"})
    assert r.error_type == "invalid_arguments" and "/x" in r.error and "number" in r.error
    r = reg.dispatch("get_weather", {"city": "x", "days": "3"})
    assert r.error_type == "invalid_arguments" and "/days" in r.error
    r = reg.dispatch("scale", {"x": True})
    assert r.error_type == "invalid_arguments"


def test_non_integral_float_is_not_an_integer() -> None:
    r = registry().dispatch("get_weather", {"city": "x", "days": 2.5})
    assert r.error_type == "invalid_arguments" and "/days" in r.error


def test_coercion_integral_float_for_integer() -> None:
    r = registry().dispatch("get_weather", {"city": "x", "days": 3.0})
    assert r.ok, r.error
    assert r.arguments["days"] == 3 and type(r.arguments["days"]) is int
    assert seen["weather"][1] == 3 and type(seen["weather"][1]) is int


def test_int_for_number_is_fine() -> None:
    r = registry().dispatch("scale", {"x": 2})
    assert r.ok and r.value == 4.0 and isinstance(seen["scale"][0], float)


def test_coercion_json_string_for_object_and_array() -> None:
    order = json.dumps({"items": [{"sku": "AB", "qty": 2.0}]})
    r = registry().dispatch("place", {"order": order, "tags": '["a", "b"]'})
    assert r.ok, r.error
    assert r.arguments["order"] == {"items": [{"sku": "AB", "qty": 2}], "unit": "celsius"}
    assert r.arguments["tags"] == ["a", "b"]
    assert seen["place"][1] == ["a", "b"] and seen["place"][0].items[0].qty == 2


def test_coercion_does_not_apply_where_strings_are_allowed() -> None:
    @tool
    def f(x: str | dict[str, int]) -> Any:
        return x

    r = ToolRegistry([f]).dispatch("f", {"x": '{"a": 1}'})
    assert r.ok and r.value == '{"a": 1}'
    # a string that decodes to the wrong shape is not coerced: it is an error
    r = registry().dispatch("place", {"order": "[1, 2]"})
    assert r.error_type == "invalid_arguments" and "/order" in r.error


def test_nested_error_pointer_and_extra_property() -> None:
    reg = registry()
    r = reg.dispatch("place", {"order": {"items": [{"sku": "AB"}, {"sku": "CD", "qty": "many"}]}})
    assert r.error_type == "invalid_arguments"
    assert "/order/items/1/qty" in r.error
    r = reg.dispatch("get_weather", {"city": "x", "country": "FR"})
    assert r.error_type == "invalid_arguments" and "country" in r.error
    r = reg.dispatch("place", {"order": {"items": []}, "mode": "slow"})
    assert r.error_type == "invalid_arguments" and "/mode" in r.error


def test_pydantic_validator_failure_is_invalid_arguments() -> None:
    r = registry().dispatch("place", {"order": {"items": [{"sku": "lower"}]}})
    assert r.error_type == "invalid_arguments"
    assert "/order/items/0/sku" in r.error and "upper case" in r.error


def test_validate_raises_with_pointer() -> None:
    reg = registry()
    with pytest.raises(ToolArgumentError) as ei:
        reg.validate("get_weather", {"city": 3})
    assert ei.value.pointer == "/city"
    assert reg.validate("get_weather", {"city": "a"}) == {"city": "a", "days": 1, "unit": "celsius"}


def test_exception_becomes_result_without_traceback() -> None:
    r = registry().dispatch("fail", {"msg": "disk on fire"})
    assert not r.ok and r.error_type == "exception"
    assert r.error == "ValueError: disk on fire"
    assert isinstance(r.exception, ValueError)
    text = r.to_model_text()
    assert "Traceback" not in text and "File " not in text
    assert json.loads(text) == {"error": "ValueError: disk on fire", "error_type": "exception"}


def test_base_exceptions_in_tools_are_caught() -> None:
    @tool
    def quit_() -> None:
        raise SystemExit(3)

    r = ToolRegistry([quit_]).dispatch("quit_", {})
    assert r.error_type == "exception" and "SystemExit" in r.error


def test_sync_timeout_returns_quickly_and_abandons_thread() -> None:
    release, finished = threading.Event(), threading.Event()

    @tool
    def hang() -> str:
        release.wait(30)
        finished.set()
        return "never"

    reg = ToolRegistry([hang])
    try:
        r = reg.dispatch("hang", {}, timeout=0.5)
        # the timeout ended the wait while the tool was still running, not the tool ending
        assert not finished.is_set()
        assert r.error_type == "timeout" and not r.ok
        assert "0.5 s" in r.error
        assert r.duration_s >= 0.45  # never before its deadline
        hung = [t for t in threading.enumerate() if t.name == "edgevox-tool-hang"]
        assert hung and all(t.daemon for t in hung)
    finally:
        release.set()


def test_tool_level_timeout_is_used() -> None:
    release, finished = threading.Event(), threading.Event()

    @tool(timeout=0.2)
    def slowish() -> None:
        release.wait(30)
        finished.set()

    try:
        r = ToolRegistry([slowish]).dispatch("slowish", {})
        assert r.error_type == "timeout" and "0.2 s" in r.error and not finished.is_set()
    finally:
        release.set()


def test_async_tool_success_and_exception() -> None:
    @tool
    async def fetch(url: str, retries: int = 0) -> dict:
        await asyncio.sleep(0.01)
        if url == "bad":
            raise ConnectionError("refused")
        return {"url": url, "retries": retries}

    reg = ToolRegistry([fetch])
    r = reg.dispatch("fetch", {"url": "x"})
    assert r.ok and r.value == {"url": "x", "retries": 0}
    r = reg.dispatch("fetch", {"url": "bad"})
    assert r.error_type == "exception" and r.error == "ConnectionError: refused"


def test_async_timeout_cancels_the_coroutine() -> None:
    cancelled = threading.Event()

    @tool
    async def stall() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    r = ToolRegistry([stall]).dispatch("stall", {}, timeout=0.3)
    assert r.error_type == "timeout" and "0.3 s" in r.error
    assert cancelled.wait(10), "a hung async tool is cancelled, its thread can end"


def test_async_tool_raising_its_own_timeout_error_is_an_exception() -> None:
    @tool
    async def upstream() -> None:
        raise TimeoutError("upstream slow")

    r = ToolRegistry([upstream]).dispatch("upstream", {})
    assert r.error_type == "exception" and "upstream slow" in r.error


def test_dispatch_many_runs_concurrently_in_order() -> None:
    # Both calls must be inside the tool at once to pass the barrier; run one after the
    # other, the first would wait alone until the barrier breaks (an exception result).
    both_in = threading.Barrier(2, timeout=5)
    events: list[str] = []

    @tool
    def nap(tag: str) -> str:
        events.append(f"start {tag}")
        both_in.wait()
        events.append(f"end {tag}")
        return tag

    par = ToolRegistry([nap]).dispatch_many([("nap", {"tag": "a"}), ("nap", {"tag": "b"})])
    assert [(r.value, r.error) for r in par] == [("a", None), ("b", None)]
    assert sorted(events[:2]) == ["start a", "start b"]  # both started before either ended


@dataclass
class Call:
    name: str
    arguments: dict
    id: str | None = None


def test_dispatch_many_mixed_call_shapes_and_failures() -> None:
    reg = registry()
    calls = [
        Call("get_weather", {"city": "a"}, "id-1"),
        {
            "id": "id-2",
            "type": "function",
            "function": {"name": "scale", "arguments": '{"x": 1.5}'},
        },
        {"name": "nope", "arguments": {}, "id": "id-3"},
        ("fail", {"msg": "m"}),
        ("get_weather", {"city": 1}, "id-5"),
    ]
    results = reg.dispatch_many(calls)
    assert [r.call_id for r in results] == ["id-1", "id-2", "id-3", None, "id-5"]
    assert [r.error_type for r in results] == [
        None,
        None,
        "unknown_tool",
        "exception",
        "invalid_arguments",
    ]
    assert results[1].value == 3.0
    assert all(isinstance(r, ToolResult) for r in results)


def test_dispatch_many_each_call_has_its_own_timeout() -> None:
    # ``quick`` can only finish once both hanging calls are running too: every call starts
    # at once, none waits for an earlier one's timeout, and the hung ones still time out.
    all_in = threading.Barrier(3, timeout=5)
    release = threading.Event()

    @tool
    def hang() -> None:
        all_in.wait()
        release.wait(30)

    @tool
    def quick() -> int:
        all_in.wait()
        return 1

    try:
        results = ToolRegistry([hang, quick]).dispatch_many(
            [("hang", {}), ("quick", {}), ("hang", {})], timeout=2.0
        )
        assert [r.error_type for r in results] == ["timeout", None, "timeout"]
        assert results[1].value == 1
    finally:
        release.set()


def test_dispatch_many_stop_cancels_what_is_still_running() -> None:
    gate, answered, stop = threading.Event(), threading.Event(), threading.Event()

    @tool(timeout=30)
    def blocks() -> str:
        """Wait for the gate; stop the dispatch once ``quick`` has answered."""
        answered.wait(10)
        for t in threading.enumerate():  # its worker ends after its result is stored
            if t.name == "edgevox-tool-quick":
                t.join(10)
        stop.set()
        gate.wait(30)
        return "late"

    @tool
    def quick() -> str:
        """Answer at once."""
        answered.set()
        return "now"

    reg = ToolRegistry([blocks, quick])

    try:
        results = reg.dispatch_many([("quick", {}), ("blocks", {}), ("nope", {})], stop=stop)
        # the gate is still shut: only the stop event can have ended the wait
        assert not gate.is_set()
    finally:
        gate.set()
    assert [r.name for r in results] == ["quick", "blocks", "nope"]
    assert results[0].ok and results[0].value == "now"
    assert results[1].error_type == "cancelled" and "cancelled" in results[1].to_model_text()
    assert results[2].error_type == "unknown_tool"


def test_started_call_is_collected_later() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    reg = ToolRegistry([add])

    running = reg.start({"name": "add", "arguments": {"a": 2, "b": 3}, "id": "c1"})
    res = running.wait()
    assert res.ok and res.value == 5 and res.call_id == "c1" and running.done()
    assert running.wait() is res


def test_schema_only_tool_dispatch_and_from_schema_with_function() -> None:
    spec = {
        "name": "add",
        "parameters": {
            "type": "dict",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 0}},
            "required": ["a"],
        },
    }
    reg = ToolRegistry([spec])
    r = reg.dispatch("add", {"a": 1})
    assert r.error_type == "exception" and "no implementation" in r.error
    assert r.arguments == {"a": 1, "b": 0}
    assert reg.dispatch("add", {"a": "1"}).error_type == "invalid_arguments"
    reg.add(Tool.from_schema(spec, lambda a, b: a + b), replace=True)
    r = reg.dispatch("add", {"a": 2.0, "b": 3})
    assert r.ok and r.value == 5 and type(r.value) is int


def test_dispatch_rejects_bad_timeout_from_the_developer() -> None:
    with pytest.raises(ValueError):
        registry().dispatch("scale", {"x": 1}, timeout=0)
