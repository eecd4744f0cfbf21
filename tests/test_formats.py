"""One dialect, one place: the markers of every tool-call format live in edgevox/formats/
and everything else (parsers, grammars, presets, the speech filter) reads them there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import edgevox
from edgevox.formats import FORMATS, call_openers, trigger_table
from edgevox.grammars import tool_call_grammar
from edgevox.llm.presets import all_presets, get_preset
from edgevox.parsing import parse_tool_calls
from edgevox.voice.text import MarkupFilter

ROOT = Path(edgevox.__file__).parent
#: markers long enough to mean a dialect (a bare "```" or "[" is ordinary markdown/JSON)
MARKERS = sorted({m for f in FORMATS.values() for m in f.literals if len(m) >= 5}, key=len, reverse=True)


def _string_constants(tree: ast.AST):
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            docs.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node


def test_markers_are_written_only_in_edgevox_formats():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.relative_to(ROOT).parts[0] == "formats":
            continue
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {m!r}" for m in MARKERS if m in node.value]
    assert found == []


def test_the_check_sees_a_marker_in_code():
    tree = ast.parse('"""<tool_call> in a docstring is prose"""\nX = "<tool_call>"\n')
    assert [n.value for n in _string_constants(tree)] == ["<tool_call>"]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_parses_and_constrains_its_own_example(name):
    fmt = FORMATS[name]
    result = parse_tool_calls(fmt.example, parsers=(fmt.detector,))
    assert result.calls and result.calls[0].name == "f" and result.calls[0].arguments.get("a") == 1
    assert result.content == "" and not result.rejected
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}, "required": ["a"]}}}]
    if name not in ("pythonic", "tool_code", "envelope"):  # their examples hold more than one call form
        assert tool_call_grammar(tools, name).matches(fmt.example)


@pytest.mark.parametrize("preset", sorted(all_presets()))
def test_presets_name_formats_and_take_their_triggers_from_them(preset):
    p = get_preset(preset)
    assert p.wire_format in FORMATS
    assert p.trigger == trigger_table(p.wire_format)


@pytest.mark.parametrize("opener", call_openers())
def test_the_speech_filter_never_says_a_call(opener):
    f = MarkupFilter()
    spoken = f.feed("Sure, one moment. ") + f.feed(opener + 'x{"a": 1}') + f.feed(" and more") + f.flush()
    assert spoken.split() == ["Sure,", "one", "moment."]
