"""Property: dispatch never raises, whatever the model sends as arguments."""

from __future__ import annotations

import enum
import json
from typing import Any, Literal, TypedDict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from edgevox.tools import ToolRegistry, ToolResult, tool


class Mode(enum.Enum):
    A = "a"
    B = "b"


class Inner(BaseModel):
    n: int
    tags: list[str] = []


class Opts(TypedDict):
    fast: bool


@tool
def t_scalars(s: str, i: int, x: float = 1.0, b: bool = False) -> dict:
    return {"s": s, "i": i, "x": x, "b": b}


@tool
def t_nested(inner: Inner, many: list[Inner] | None = None, opts: Opts | None = None) -> int:
    return inner.n + len(many or [])


@tool
def t_choice(mode: Mode, lit: Literal["x", "y"] = "x", m: dict[str, int] | None = None) -> str:
    return f"{mode.value}{lit}"


@tool
def t_raises(i: int = 0) -> float:
    return 1 / i


REG = ToolRegistry([t_scalars, t_nested, t_choice, t_raises])
NAMES = REG.names()
PARAM_NAMES = sorted({p for t in REG for p in t.parameters["properties"]})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=15,
)
keys = st.sampled_from(PARAM_NAMES + ["n", "fast", "zzz"]) | st.text(max_size=8)
# Mostly-right arguments paired with their tool, so success and conversion paths run too.


def maybe(good: st.SearchStrategy) -> st.SearchStrategy:
    return good | json_values


near_valid = st.one_of(
    st.tuples(
        st.just("t_scalars"),
        st.fixed_dictionaries(
            {"s": maybe(st.text(max_size=5)), "i": maybe(st.integers() | st.integers().map(float))},
            optional={"x": maybe(st.floats(allow_nan=False)), "b": maybe(st.booleans())},
        ),
    ),
    st.tuples(
        st.just("t_choice"),
        st.fixed_dictionaries(
            {"mode": maybe(st.sampled_from(["a", "b", "c"]))},
            optional={
                "lit": maybe(st.sampled_from(["x", "y"])),
                "m": maybe(st.dictionaries(st.text(max_size=3), st.integers())),
            },
        ),
    ),
    st.tuples(
        st.just("t_nested"),
        st.fixed_dictionaries(
            {
                "inner": maybe(
                    st.fixed_dictionaries({"n": maybe(st.integers())})
                    | st.builds(lambda n: json.dumps({"n": n}), st.integers())
                )
            },
            optional={
                "many": st.none()
                | st.lists(st.fixed_dictionaries({"n": st.integers()}), max_size=2),
                "opts": maybe(st.fixed_dictionaries({"fast": st.booleans()})),
            },
        ),
    ),
    st.tuples(st.just("t_raises"), st.fixed_dictionaries({"i": maybe(st.integers(-2, 2))})),
)
arguments = (
    st.dictionaries(keys, json_values, max_size=5)
    | json_values
    | st.dictionaries(keys, json_values, max_size=5).map(json.dumps)
    | st.text(max_size=30)
)
calls = near_valid | st.tuples(st.sampled_from(NAMES + ["missing"]), arguments)


def check(r: ToolResult, name: str) -> None:
    assert isinstance(r, ToolResult)
    assert r.name == name
    assert r.ok == (r.error_type is None)
    assert r.error_type in (None, "unknown_tool", "invalid_arguments", "exception", "timeout")
    if not r.ok:
        assert r.error
    assert r.error_type != "timeout"
    json.loads(r.to_model_text())


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=calls)
def test_dispatch_never_raises(call: tuple[str, Any]) -> None:
    name, args = call
    check(REG.dispatch(name, args, timeout=5), name)


@settings(max_examples=60, deadline=None)
@given(batch=st.lists(calls, max_size=4))
def test_dispatch_many_never_raises(batch: list[tuple[str, Any]]) -> None:
    results = REG.dispatch_many(batch, timeout=5)
    assert len(results) == len(batch)
    for (name, _), r in zip(batch, results, strict=True):
        check(r, name)


@settings(max_examples=100, deadline=None)
@given(s=st.text(max_size=10), i=st.integers(), b=st.booleans())
def test_valid_arguments_always_succeed(s: str, i: int, b: bool) -> None:
    r = REG.dispatch("t_scalars", {"s": s, "i": i, "b": b})
    assert r.ok, r.error
    assert r.value == {"s": s, "i": i, "x": 1.0, "b": b}
