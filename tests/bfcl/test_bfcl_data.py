"""Fetching, verifying and loading the pinned BFCL data, and the `bfcl fetch` command."""

from __future__ import annotations

import argparse
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from edgevox.bfcl.data import (
    BFCL_VERSION,
    CATEGORIES,
    MANIFEST,
    BfclDataError,
    data_is_ready,
    default_data_dir,
    fetch,
    load_cases,
)
from edgevox.cli import bfcl as cli

# Cases per category in bfcl-eval 2026.3.23 (one JSON object per line).
EXPECTED_COUNTS = {
    "simple_python": 400,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


def _leftovers(parent: Path, name: str) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name != name)


# ------------------------------------------------------------------ fetch
def test_fetch_from_wheel_unpacks_only_the_data_atomically(bfcl_wheel, tmp_path):
    dest = tmp_path / "cache" / BFCL_VERSION
    assert fetch(dest=dest, wheel=bfcl_wheel) == dest
    assert data_is_ready(dest)
    manifest = json.loads((dest / MANIFEST).read_text())
    assert manifest["version"] == BFCL_VERSION and manifest["source"] == str(bfcl_wheel)
    names = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    assert names == set(manifest["files"]) | {MANIFEST}
    assert "BFCL_v4_simple_python.json" in names
    assert "possible_answer/BFCL_v4_parallel.json" in names
    assert not any(n.endswith(".py") or n.startswith(("bfcl_eval", "multi_turn")) for n in names)
    assert _leftovers(dest.parent, dest.name) == []  # no temp dirs left behind
    # A second call is a no-op: nothing is rewritten.
    stamp = (dest / MANIFEST).stat().st_mtime_ns
    assert fetch(dest=dest) == dest
    assert (dest / MANIFEST).stat().st_mtime_ns == stamp


def test_fetch_rejects_a_wheel_with_the_wrong_checksum(bfcl_wheel, tmp_path):
    bad = tmp_path / bfcl_wheel.name
    shutil.copyfile(bfcl_wheel, bad)
    with zipfile.ZipFile(bad, "a") as zf:  # still a valid zip, different bytes
        zf.writestr("bfcl_eval/extra.txt", "tampered")
    dest = tmp_path / "cache" / BFCL_VERSION
    with pytest.raises(BfclDataError, match="expected 3bb6dfa5"):
        fetch(dest=dest, wheel=bad)
    assert not dest.exists()
    assert _leftovers(dest.parent, dest.name) == []


def test_fetch_from_a_data_directory_checks_its_digest(bfcl_data_dir, tmp_path):
    dest = tmp_path / "copy"
    assert fetch(dest=dest, wheel=bfcl_data_dir) == dest
    assert data_is_ready(dest)

    tampered = tmp_path / "tampered"
    shutil.copytree(bfcl_data_dir, tampered)
    path = tampered / "possible_answer" / "BFCL_v4_simple_python.json"
    path.write_text(path.read_text().replace('"base": [10]', '"base": [11]', 1))
    with pytest.raises(BfclDataError, match="does not match bfcl-eval"):
        fetch(dest=tmp_path / "other", wheel=tampered)
    assert not (tmp_path / "other").exists()


def test_fetch_replaces_an_incomplete_cache(bfcl_wheel, tmp_path):
    dest = tmp_path / BFCL_VERSION
    dest.mkdir()
    (dest / "BFCL_v4_simple_python.json").write_text("half written")
    assert not data_is_ready(dest)
    fetch(dest=dest, wheel=bfcl_wheel)
    assert data_is_ready(dest)
    assert len(load_cases("simple_python", dest)) == 400


def test_fetch_errors_are_clear(tmp_path):
    with pytest.raises(BfclDataError, match="does not exist"):
        fetch(dest=tmp_path / "d", wheel=tmp_path / "missing.whl")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(BfclDataError, match="does not contain BFCL data"):
        fetch(dest=tmp_path / "d", wheel=empty)
    junk = tmp_path / "junk.whl"
    junk.write_bytes(b"not a zip")
    with pytest.raises(BfclDataError, match="sha256"):
        fetch(dest=tmp_path / "d", wheel=junk)


def test_default_location_follows_edgevox_home(monkeypatch, tmp_path):
    monkeypatch.setenv("EDGEVOX_HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / "bfcl" / BFCL_VERSION
    with pytest.raises(BfclDataError, match="edgevox bfcl fetch"):
        load_cases("simple_python")


def test_fetch_downloads_with_pip_when_no_wheel_is_given(tmp_path):
    dest = tmp_path / BFCL_VERSION
    fetch(dest=dest)  # what `edgevox bfcl fetch` and setup do; no network is a failure
    assert json.loads((dest / MANIFEST).read_text())["source"] == f"pypi:bfcl-eval=={BFCL_VERSION}"


# ------------------------------------------------------------------ load_cases
def test_case_counts_per_category(bfcl_data_dir):
    assert set(EXPECTED_COUNTS) == set(CATEGORIES)
    counts = {c: len(load_cases(c, bfcl_data_dir)) for c in CATEGORIES}
    assert counts == EXPECTED_COUNTS


def test_case_fields(bfcl_data_dir):
    (first,) = load_cases("simple_python", bfcl_data_dir, limit=1)
    assert first.id == "simple_python_0" and first.category == "simple_python"
    assert first.question == [
        {
            "role": "user",
            "content": "Find the area of a triangle with a base of 10 units and height of 5 units.",
        }
    ]
    assert first.functions[0]["name"] == "calculate_triangle_area"
    assert first.possible_answer == [
        {"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}
    ]
    assert first.tools()[0]["function"]["parameters"]["type"] == "object"

    irrelevant = load_cases("irrelevance", bfcl_data_dir, limit=3)
    assert len(irrelevant) == 3 and all(c.possible_answer is None for c in irrelevant)
    # Some live cases carry a system message; a few live_irrelevance ones a prior exchange.
    roles = {
        tuple(m["role"] for m in c.question) for c in load_cases("live_irrelevance", bfcl_data_dir)
    }
    assert (
        ("user",) in roles
        and ("system", "user") in roles
        and ("user", "assistant", "user") in roles
    )


def test_load_cases_filters_and_aliases(bfcl_data_dir):
    assert [c.id for c in load_cases("simple", bfcl_data_dir, limit=2)] == [
        "simple_python_0",
        "simple_python_1",
    ]
    picked = load_cases("parallel", bfcl_data_dir, ids=["parallel_7", "parallel_3", "nope"])
    assert [c.id for c in picked] == ["parallel_3", "parallel_7"]
    assert load_cases("multiple", bfcl_data_dir, limit=0) == []
    with pytest.raises(ValueError, match="unknown BFCL category 'java'"):
        load_cases("java", bfcl_data_dir)


def test_corrupt_lines_are_reported_with_their_location(bfcl_data_dir, tmp_path):
    shutil.copytree(bfcl_data_dir, tmp_path / "d")
    path = tmp_path / "d" / "BFCL_v4_multiple.json"
    path.write_text(path.read_text().rstrip("\n") + "\n{not json\n")
    with pytest.raises(BfclDataError, match=r"BFCL_v4_multiple\.json:201: invalid JSON"):
        load_cases("multiple", tmp_path / "d")


# ------------------------------------------------------------------ CLI
def test_cli_fetch_prints_the_data_path(bfcl_wheel, tmp_path, capsys):
    dest = tmp_path / "out"
    assert cli.main(["fetch", "--wheel", str(bfcl_wheel), "--dest", str(dest)]) == 0
    out = capsys.readouterr()
    assert out.out.strip().splitlines() == [str(dest)]
    assert cli.main(["fetch", "--data", str(dest), "--dest", str(tmp_path / "o2"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "data": str(tmp_path / "o2"),
        "version": BFCL_VERSION,
    }


def test_cli_fetch_reports_one_error_sentence(tmp_path, capsys):
    assert cli.main(["fetch", "--wheel", str(tmp_path / "nope.whl"), "--dest", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgevox bfcl: ") and "does not exist" in lines[0]


def test_cli_registers_on_the_edgevox_parser():
    parser = argparse.ArgumentParser(prog="edgevox")
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bfcl", "fetch", "--wheel", "w.whl"])
    assert args.command == "bfcl" and args.bfcl_command == "fetch" and args.wheel == "w.whl"
    assert callable(args.func)
    with pytest.raises(SystemExit):
        parser.parse_args(["bfcl", "fetch", "--wheel", "a", "--data", "b"])
