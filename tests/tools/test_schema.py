"""Schema generation from type hints and docstrings."""

from __future__ import annotations

import enum
import json
import typing
from typing import Annotated, Any, Literal, Optional

import pytest
import typing_extensions
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field

from edgevox.tools import Tool, ToolDefinitionError, tool


def props(t: Tool) -> dict[str, Any]:
    return t.parameters["properties"]


def walk_schemas(node: Any, path: str = "") -> typing.Iterator[tuple[str, dict]]:
    """Every subschema (not property maps, not default/enum values)."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            yield from walk_schemas(node[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, sub in enumerate(node.get(key) or []):
            yield from walk_schemas(sub, f"{path}/{key}/{i}")
    for name, sub in (node.get("properties") or {}).items():
        yield from walk_schemas(sub, f"{path}/properties/{name}")


def assert_flat(schema: dict) -> None:
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    for path, sub in walk_schemas(schema):
        assert "title" not in sub, path
        assert "const" not in sub, path
    Draft202012Validator.check_schema(schema)


# ---------------------------------------------------------------- scalar types


def test_scalars_and_required_list() -> None:
    @tool
    def f(s: str, i: int, x: float, b: bool) -> None:
        """Scalars."""

    p = f.parameters
    assert p["type"] == "object"
    assert p["additionalProperties"] is False
    assert p["required"] == ["s", "i", "x", "b"]
    assert props(f) == {
        "s": {"type": "string"},
        "i": {"type": "integer"},
        "x": {"type": "number"},
        "b": {"type": "boolean"},
    }
    assert list(props(f)) == ["s", "i", "x", "b"], "signature order is kept"


def test_no_parameters_still_has_full_root_shape() -> None:
    @tool
    def ping() -> str:
        return "pong"

    assert ping.parameters == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


def test_defaults_make_optional_and_appear() -> None:
    @tool
    def f(city: str, days: int = 3, units: str = "metric", verbose: bool = False) -> None: ...

    assert f.parameters["required"] == ["city"]
    assert props(f)["days"] == {"type": "integer", "default": 3}
    assert props(f)["units"]["default"] == "metric"
    assert props(f)["verbose"]["default"] is False


def test_list_and_dict_item_types() -> None:
    @tool
    def f(
        tags: list[str], scores: dict[str, float], grid: list[list[int]], anything: list
    ) -> None: ...

    assert props(f)["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props(f)["scores"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props(f)["grid"] == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "integer"}},
    }
    assert props(f)["anything"]["type"] == "array"


def test_optional_and_pipe_none() -> None:
    @tool
    def f(a: Optional[int], b: str | None = None) -> None: ...  # noqa: UP045

    assert props(f)["a"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert props(f)["b"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert f.parameters["required"] == ["a"], "Optional without default stays required"


def test_literal_becomes_enum() -> None:
    @tool
    def f(mode: Literal["fast", "slow"], one: Literal["only"], n: Literal[1, 2, 3] = 2) -> None: ...

    assert props(f)["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props(f)["one"] == {"type": "string", "enum": ["only"]}, "const is rewritten as enum"
    assert props(f)["n"]["enum"] == [1, 2, 3]
    assert props(f)["n"]["default"] == 2


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def test_enum_uses_values_and_default_value() -> None:
    @tool
    def f(unit: Unit, level: Level = Level.LOW) -> None: ...

    assert props(f)["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert props(f)["unit"]["type"] == "string"
    assert props(f)["level"]["enum"] == [1, 2]
    assert props(f)["level"]["type"] == "integer"
    assert props(f)["level"]["default"] == 1
    assert_flat(f.parameters)


class Address(BaseModel):
    """A postal address."""

    street: str
    zip_code: str = Field(description="Postal code")
    title: str = "home"  # a property literally named "title" must survive


class LineItem(BaseModel):
    sku: str
    qty: int = 1
    unit: Unit = Unit.C


class Order(BaseModel):
    customer: str
    ship_to: Address
    items: list[LineItem]
    notes: Optional[list[Address]] = None  # noqa: UP045


def test_nested_pydantic_models_are_inlined() -> None:
    @tool
    def place(order: Order, rush: bool = False) -> None:
        """Place an order.

        Args:
            order: What to ship.
        """

    assert_flat(place.parameters)
    order = props(place)["order"]
    assert order["type"] == "object"
    assert order["description"] == "What to ship.", "docstring beats the class docstring"
    assert order["required"] == ["customer", "ship_to", "items"]
    assert order["additionalProperties"] is False
    ship = order["properties"]["ship_to"]
    assert ship["description"] == "A postal address."
    assert set(ship["properties"]) == {"street", "zip_code", "title"}
    assert ship["properties"]["zip_code"]["description"] == "Postal code"
    item = order["properties"]["items"]["items"]
    assert item["properties"]["qty"] == {"type": "integer", "default": 1}
    assert item["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert item["properties"]["unit"]["default"] == "celsius"
    notes = order["properties"]["notes"]
    assert notes["anyOf"][0]["type"] == "array"
    assert notes["anyOf"][0]["items"]["properties"]["street"] == {"type": "string"}
    assert notes["anyOf"][1] == {"type": "null"}


def test_model_with_extra_allow_stays_open() -> None:
    class Loose(BaseModel):
        model_config = ConfigDict(extra="allow")
        a: int

    @tool
    def f(x: Loose) -> None: ...

    assert props(f)["x"]["additionalProperties"] is True


def test_annotated_constraints_and_field_description() -> None:
    @tool
    def f(n: Annotated[int, Field(ge=1, le=10, description="How many")] = 1) -> None: ...

    assert props(f)["n"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "How many",
        "default": 1,
    }


def test_pydantic_field_as_default() -> None:
    @tool
    def f(q: str = Field("x", description="Query", max_length=5)) -> None: ...

    assert props(f)["q"] == {
        "type": "string",
        "default": "x",
        "description": "Query",
        "maxLength": 5,
    }
    assert f.parameters["required"] == []


# ---------------------------------------------------------------- TypedDicts


class Point(typing.TypedDict):
    x: float
    y: float


class Shape(typing.TypedDict, total=False):
    """A shape."""

    name: typing_extensions.Required[str]
    points: list[Point]


class ExtPoint(typing_extensions.TypedDict):
    x: int
    label: typing_extensions.NotRequired[str]


def test_typing_typeddict_nested_works_on_py311() -> None:
    # pydantic refuses typing.TypedDict before 3.12; the tool layer translates it.
    @tool
    def draw(shape: Shape, origin: Point | None = None) -> None: ...

    assert_flat(draw.parameters)
    shape = props(draw)["shape"]
    assert shape["type"] == "object"
    assert shape["required"] == ["name"]
    assert shape["description"] == "A shape."
    pt = shape["properties"]["points"]["items"]
    assert pt["properties"] == {"x": {"type": "number"}, "y": {"type": "number"}}
    assert pt["required"] == ["x", "y"]
    assert pt["additionalProperties"] is False
    assert props(draw)["origin"]["anyOf"][0]["required"] == ["x", "y"]


def test_typing_extensions_typeddict() -> None:
    @tool
    def f(p: ExtPoint) -> None: ...

    assert props(f)["p"]["required"] == ["x"]
    assert props(f)["p"]["properties"]["label"] == {"type": "string"}


# ---------------------------------------------------------------- descriptions


def test_google_docstring() -> None:
    @tool
    def get_weather(city: str, days: int = 1) -> dict:
        """Get the weather forecast
        for a city.

        Longer text that is not part of the summary.

        Args:
            city (str): City name, e.g. "Paris".
            days: Number of days
                to look ahead.

        Returns:
            A forecast.
        """
        return {}

    assert get_weather.description == "Get the weather forecast for a city."
    assert props(get_weather)["city"]["description"] == 'City name, e.g. "Paris".'
    assert props(get_weather)["days"]["description"] == "Number of days to look ahead."


def test_rest_docstring() -> None:
    @tool
    def convert(amount: float, currency: str) -> float:
        """Convert money.

        :param float amount: How much,
            in the source currency.
        :param currency: ISO code.
        :returns: the converted amount
        """
        return amount

    assert convert.description == "Convert money."
    assert props(convert)["amount"]["description"] == "How much, in the source currency."
    assert props(convert)["currency"]["description"] == "ISO code."


def test_numpy_docstring() -> None:
    @tool
    def area(w: float, h: float) -> float:
        """Rectangle area.

        Parameters
        ----------
        w : float
            Width.
        h : float
            Height.
        """
        return w * h

    assert area.description == "Rectangle area."
    assert props(area)["w"]["description"] == "Width."
    assert props(area)["h"]["description"] == "Height."


def test_decorator_arguments_override() -> None:
    @tool(name="lookup.user", description="Find a user.", timeout=2.5)
    def find(uid: int) -> dict:
        """Ignored summary."""
        return {}

    assert find.name == "lookup.user"
    assert find.description == "Find a user."
    assert find.timeout == 2.5
    assert find.openai_schema() == {
        "type": "function",
        "function": {
            "name": "lookup.user",
            "description": "Find a user.",
            "parameters": find.parameters,
        },
    }
    assert find(3) == {}, "calling the Tool calls the function"
    assert find.__name__ == "find" and find.__wrapped__ is not None


def test_default_timeout_and_async_flag() -> None:
    @tool
    async def slow(x: int) -> int:
        return x

    @tool
    def fast(x: int) -> int:
        return x

    assert slow.is_async and not fast.is_async
    assert slow.timeout == 10.0


def test_pep563_string_annotations_resolve() -> None:
    # this module uses `from __future__ import annotations`: every hint is a string
    @tool
    def f(a: int, b: list[Unit]) -> None: ...

    assert isinstance(f.fn.__annotations__["a"], str)

    assert props(f)["a"] == {"type": "integer"}
    assert props(f)["b"]["items"]["enum"] == ["celsius", "fahrenheit"]


def test_parameter_names_that_clash_with_pydantic() -> None:
    @tool
    def f(schema: str, model_config: int, json: bool = True) -> None: ...

    assert list(props(f)) == ["schema", "model_config", "json"]
    assert f.parameters["required"] == ["schema", "model_config"]


# ---------------------------------------------------------------- refusals


class Node(BaseModel):
    value: int
    children: list[Node] = []


def test_recursive_model_is_refused_clearly() -> None:
    with pytest.raises(ToolDefinitionError, match="recursive"):

        @tool
        def f(tree: Node) -> None: ...


def test_var_args_refused() -> None:
    with pytest.raises(ToolDefinitionError, match=r"\*args"):

        @tool
        def f(*names: str) -> None: ...


def test_unsupported_type_names_parameter() -> None:
    class Opaque:
        pass

    with pytest.raises(ToolDefinitionError, match="'thing'"):

        @tool
        def f(ok: int, thing: Opaque) -> None: ...


def test_bad_name_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        Tool("has space", "", {})


# ---------------------------------------------------------------- from_schema


def test_from_schema_openai_and_bfcl_style() -> None:
    bfcl = {
        "name": "math.factorial",
        "description": "Factorial.",
        "parameters": {
            "type": "dict",
            "properties": {
                "number": {"type": "integer", "description": "n"},
                "scale": {"type": "float"},
                "pair": {"type": "tuple", "items": {"type": "integer"}},
                "opts": {"type": "dict", "properties": {"fast": {"type": "boolean"}}},
                "x": {"type": "any"},
            },
            "required": ["number"],
        },
    }
    t = Tool.from_schema(bfcl)
    assert t.fn is None
    assert t.name == "math.factorial"
    p = t.parameters
    assert p["type"] == "object" and p["additionalProperties"] is False
    assert p["properties"]["scale"] == {"type": "number"}
    assert p["properties"]["pair"]["type"] == "array"
    assert p["properties"]["opts"]["type"] == "object"
    assert "type" not in p["properties"]["x"]
    wrapped = Tool.from_schema({"type": "function", "function": {**bfcl, "name": "f"}})
    assert wrapped.parameters == p
    with pytest.raises(TypeError, match="no function"):
        t(number=3)


def test_from_schema_inlines_refs() -> None:
    spec = {
        "name": "f",
        "parameters": {
            "type": "object",
            "$defs": {
                "P": {"type": "object", "title": "P", "properties": {"a": {"type": "integer"}}}
            },
            "properties": {"p": {"$ref": "#/$defs/P", "description": "a p"}},
            "required": ["p"],
        },
    }
    t = Tool.from_schema(spec)
    assert t.parameters["properties"]["p"] == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "description": "a p",
    }
    assert_flat(t.parameters)


def test_from_schema_rejects_invalid_schema() -> None:
    with pytest.raises(ToolDefinitionError, match="invalid parameter schema"):
        Tool.from_schema(
            {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": 5}}}}
        )
    with pytest.raises(ToolDefinitionError, match="object"):
        Tool.from_schema({"name": "f", "parameters": {"type": "array"}})
    with pytest.raises(ToolDefinitionError, match="name"):
        Tool.from_schema({"parameters": {}})


# ---------------------------------------------------------------- other callables


class Service:
    def __init__(self) -> None:
        self.base = 10

    def add(self, x: int) -> int:
        """Add the base."""
        return x + self.base


class AsyncTripler:
    """Triple a number."""

    async def __call__(self, a: int) -> int:
        return a * 3


def power(base: int, exp: int) -> int:
    """Raise to a power."""
    return base**exp


def test_bound_method_callable_object_and_partial() -> None:
    import functools

    m = Tool.from_function(Service().add)
    assert m.parameters["required"] == ["x"] and m.description == "Add the base."
    assert m(1) == 11
    c = Tool.from_function(AsyncTripler(), name="triple")
    assert c.is_async and c.description == "Triple a number."
    p = Tool.from_function(functools.partial(power, exp=2), name="square")
    assert p.description == "Raise to a power."
    assert p.parameters["required"] == ["base"]
    assert props(p)["exp"]["default"] == 2
