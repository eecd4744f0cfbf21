"""ToolRegistry membership, schemas and fingerprint."""

from __future__ import annotations

import pytest

from edgevox.tools import Tool, ToolDefinitionError, ToolRegistry, tool


@tool
def alpha(x: int) -> int:
    """Alpha."""
    return x


@tool
def beta(name: str, loud: bool = False) -> str:
    """Beta."""
    return name


def gamma(items: list[str]) -> int:
    """Gamma."""
    return len(items)


SPEC = {
    "name": "delta",
    "description": "Delta.",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}


def test_membership_and_order() -> None:
    reg = ToolRegistry([alpha, beta])
    g = reg.add(gamma)  # plain functions are wrapped
    d = reg.add(SPEC)  # so are OpenAI/BFCL dicts
    assert isinstance(g, Tool) and isinstance(d, Tool)
    assert reg.names() == ["alpha", "beta", "gamma", "delta"]
    assert [t.name for t in reg] == reg.names()
    assert "beta" in reg and "zeta" not in reg
    assert len(reg) == 4
    assert reg.get("alpha") is alpha and reg.get("zeta") is None
    assert reg["beta"] is beta
    assert reg.remove("beta") is beta
    assert "beta" not in reg
    with pytest.raises(KeyError):
        reg.remove("beta")


def test_duplicate_names() -> None:
    reg = ToolRegistry([alpha])
    with pytest.raises(ToolDefinitionError, match="already registered"):
        reg.add(alpha)
    other = Tool("alpha", "Other alpha.", {})
    reg.add(other, replace=True)
    assert reg["alpha"] is other


def test_schemas_are_openai_list_and_copies() -> None:
    reg = ToolRegistry([alpha, SPEC])
    schemas = reg.schemas()
    assert schemas[0] == {
        "type": "function",
        "function": {
            "name": "alpha",
            "description": "Alpha.",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "integer"}},
                "required": ["x"],
                "additionalProperties": False,
            },
        },
    }
    assert schemas[1]["function"]["name"] == "delta"
    before = reg.fingerprint
    schemas[0]["function"]["parameters"]["properties"]["x"]["type"] = "string"
    assert reg.fingerprint == before, "mutating the returned list does not touch the registry"


def test_fingerprint_is_order_independent_and_stable() -> None:
    a = ToolRegistry([alpha, beta, gamma, SPEC])
    b = ToolRegistry([SPEC, gamma, beta, alpha])
    assert a.fingerprint == b.fingerprint
    assert len(a.fingerprint) == 64 and int(a.fingerprint, 16) >= 0
    assert a.fingerprint == a.fingerprint
    # same schemas built independently (fresh Tool objects) -> same fingerprint
    c = ToolRegistry([Tool.from_schema(s) for s in a.schemas()])
    assert c.fingerprint == a.fingerprint
    # timeouts and functions are not part of what the model sees
    c.add(Tool.from_schema(alpha.openai_schema(), lambda x: x, timeout=99), replace=True)
    assert c.fingerprint == a.fingerprint


def test_fingerprint_changes_with_any_schema_change() -> None:
    base = ToolRegistry([alpha, beta])
    fps = {base.fingerprint}

    def variant(**changes: object) -> str:
        spec = beta.openai_schema()["function"]
        spec = {**spec, **changes}
        return ToolRegistry([alpha, Tool.from_schema(spec)]).fingerprint

    params = beta.parameters
    fps.add(variant(description="Beta!"))
    fps.add(variant(name="beta2"))
    fps.add(variant(parameters={**params, "required": ["name", "loud"]}))
    fps.add(
        variant(
            parameters={
                **params,
                "properties": {
                    **params["properties"],
                    "loud": {"type": "boolean", "default": True},
                },
            }
        )
    )
    fps.add(
        variant(
            parameters={
                **params,
                "properties": {
                    **params["properties"],
                    "name": {"type": "string", "description": "who"},
                },
            }
        )
    )
    fps.add(ToolRegistry([alpha]).fingerprint)
    fps.add(ToolRegistry([alpha, beta, gamma]).fingerprint)
    fps.add(ToolRegistry().fingerprint)
    assert len(fps) == 9


def test_fingerprint_tracks_add_and_remove() -> None:
    reg = ToolRegistry([alpha])
    fp1 = reg.fingerprint
    reg.add(beta)
    fp2 = reg.fingerprint
    reg.remove("beta")
    assert fp2 != fp1 and reg.fingerprint == fp1


def test_register_rejects_non_tools() -> None:
    with pytest.raises(ToolDefinitionError):
        ToolRegistry([42])  # type: ignore[list-item]
