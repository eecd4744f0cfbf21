"""The static grammars/*.gbnf pieces: found, valid, and in sync with the generator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgevox.grammars import GbnfMatcher, builders, static_dir, validate_gbnf
from edgevox.grammars.emit import RuleSet, avoid_rules

REPO = Path(__file__).resolve().parents[2]
PIECES = ["json", "python", "gemma", "think", "reply"]
DEPS = {"python": ["json"], "gemma": ["json"]}


def test_static_dir_finds_the_checkout():
    assert static_dir() == REPO / "grammars"
    assert sorted(p.stem for p in static_dir().glob("*.gbnf")) == sorted(PIECES)


def test_static_dir_prefers_the_wheel_location(tmp_path, monkeypatch):
    pkg = tmp_path / "site" / "edgevox"
    data = pkg / "_data" / "grammars"
    data.mkdir(parents=True)
    (data / "json.gbnf").write_text('json-value ::= "x"\n')
    (pkg / "grammars").mkdir()
    monkeypatch.setattr(builders, "__file__", str(pkg / "grammars" / "builders.py"))
    assert static_dir() == data


def test_static_dir_missing_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(builders, "__file__", str(tmp_path / "edgevox" / "grammars" / "builders.py"))
    with pytest.raises(FileNotFoundError, match="static grammar pieces"):
        static_dir()


@pytest.mark.parametrize("piece", PIECES)
def test_each_piece_is_valid_gbnf(piece):
    text = "".join(builders.static_piece(p) for p in DEPS.get(piece, []) + [piece])
    first = re.search(r"^([a-z-]+) ::=", builders.static_piece(piece), re.M).group(1)
    validate_gbnf(f"root ::= {first}\n{text}")


def _generated(hint: str, forbidden: str) -> list[str]:
    rs = RuleSet()
    avoid_rules(rs, hint, forbidden, followed_by=forbidden)
    return rs.text().splitlines()


@pytest.mark.parametrize("piece,hint,forbidden", [
    ("think", "think-text", "</think>"),
    ("gemma", "gm-text", '<|"|>'),
])
def test_static_automata_match_the_generator(piece, hint, forbidden):
    lines = [ln for ln in builders.static_piece(piece).splitlines() if ln.startswith(hint)]
    assert lines == _generated(hint, forbidden)


def test_json_piece_semantics():
    g = GbnfMatcher("root ::= json-value\n" + builders.static_piece("json"))
    for ok in ['{"a": [1, -2.5e+10, true, null]}', '"\\u00e9\\n"', "0", "-0.5", "[]", "{ }",
               "1.00000000000000000001", '{"a":{"b":{"c":[[]]}}}']:
        assert g.matches(ok), ok
    for bad in ["01", "1.", ".5", '"a\nb"', "{'a': 1}", "[1,]", "NaN", "[1,  2]", "12345678901234567"]:
        assert not g.matches(bad), bad


def test_python_piece_semantics():
    import ast

    text = "root ::= py-value\n" + builders.static_piece("python") + builders.static_piece("json")
    g = GbnfMatcher(text)
    for ok in ['{"a": [1, True, None]}', '"x\\"y"', "-3", "[]"]:
        assert g.matches(ok), ok
        ast.literal_eval(ok)
    for bad in ["true", "null", "'single'", '"\\/"']:
        assert not g.matches(bad), bad


def test_reply_bare_piece():
    g = GbnfMatcher("root ::= reply-bare\n" + builders.static_piece("reply"))
    assert g.matches("Sure, here you go: [1] {2}")
    for bad in ["[x", "{x", " [x", ""]:
        assert not g.matches(bad)
