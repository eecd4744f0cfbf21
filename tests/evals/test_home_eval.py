"""The home evaluation: its data set, its judge and its table, and one short real run.

The full evaluation is `edgevox eval home` (an hour or more on two cores); here only what
must hold for its numbers to mean anything: every expected call is one the registry can
make, the split is fixed, the judge and the summary count what happened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from edgevox.evals import EvalDataError, judge_turn, load_items, load_set, split_of
from edgevox.evals.data import NAMED_SPLITS, mixed
from edgevox.evals.home import CLOCK, run_items, summarise, table
from edgevox.evals.judge import DERIVED
from edgevox.examples.home import Home
from edgevox.tools import ToolRegistry


def _specs(expect: Any) -> list[dict]:
    out = []
    for spec in expect or []:
        out += _specs(spec["any"]) if "any" in spec else [spec]
    return out


def test_the_home_set_is_big_enough_and_every_spec_is_a_call_the_registry_can_make():
    items = load_set("home")
    tuning = load_set("home", "dev2")  # the written tuning sets: never part of dev, test or all
    third = load_set("home", "dev3")
    held_out = {t.say.lower() for it in items if it.split == "test" for t in it.turns}
    # dev4 to dev12: the outside set's topics, each written later (sessions 6 to 20, the later ones by
    # helpers that never opened the held-out files) and run once before any change came from it
    seen = {i.id for i in items + tuning + third}
    fresh: list = []
    for name in NAMED_SPLITS[NAMED_SPLITS.index("dev4"):]:
        split = load_set("home", name)
        # 110 items, or 150 turns for a split of conversations (dev36, dev37: 2-4 turns an item)
        assert (len(split) >= 110 or sum(len(it.turns) for it in split) >= 150) and not {i.id for i in split} & seen, name
        assert sum(t.expect is None for it in split for t in it.turns) >= 45, name
        assert not {t.say.lower() for it in split for t in it.turns} & held_out, name  # no test line tuned on
        seen |= {i.id for i in split}
        fresh += split
    fourth = [it for it in fresh if it.split == "dev4"]
    third = third + fourth
    assert len(tuning) >= 40 and len(third) >= 100
    assert sum(t.expect is None for it in third for t in it.turns) >= 60  # mostly lines no tool serves
    assert not {i.id for i in tuning + third} & {i.id for i in items} and not {i.id for i in tuning} & {i.id for i in third}
    tuning = tuning + third + [it for it in fresh if it.split != "dev4"]  # every spec of every split is checked against the registry below
    turns = [t for it in items for t in it.turns]
    assert sum(t.expect is not None for t in turns) >= 250
    assert sum(t.expect is None for t in turns) >= 100
    kinds = {it.kind for it in items}
    assert {"direct", "indirect", "terse", "words", "two", "followup", "unknown_room", "greeting", "thanks",
            "never_mind", "knowledge", "arithmetic", "state_question", "no_device"} <= kinds
    assert any(len(it.turns) > 1 for it in items)
    reg = ToolRegistry(Home(now=CLOCK).tools())
    params = {n: set(reg.get(n).parameters["properties"]) for n in reg.names()}
    for it in items + tuning:
        for turn in it.turns:
            for spec in _specs(turn.expect):
                assert spec["name"] in params, (it.id, spec)
                extra = set(spec.get("args", {})) - params[spec["name"]] - set(DERIVED.get(spec["name"], {}))
                assert not extra, (it.id, extra)


def test_no_example_or_phrasing_of_the_home_tools_is_an_evaluation_utterance():
    import re

    from edgevox.examples.home import Home

    def norm(text):
        return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()

    said = {norm(t.say) for split in ("all", *NAMED_SPLITS) for it in load_set("home", split) for t in it.turns}
    for t in Home().tools():
        for line in [request for request, _ in t.examples] + list(t.phrasings):
            assert norm(line) not in said, (t.name, line)


def test_the_split_is_a_fixed_function_of_the_text_and_both_parts_have_both_kinds():
    items = load_set("home")
    dev, test = load_set("home", "dev"), load_set("home", "test")
    assert len(dev) + len(test) == len(items) and not {i.id for i in dev} & {i.id for i in test}
    assert split_of("Turn on the kitchen light.") == split_of("Turn on the kitchen light.")
    for part in (dev, test):
        assert sum(t.expect is None for it in part for t in it.turns) >= 30
        assert sum(t.expect is not None for it in part for t in it.turns) >= 100
    first = mixed(items)[:40]  # --limit 40 takes a mix, dev first
    assert {it.split for it in first} == {"dev"}
    assert any(it.turns[0].expect is None for it in first) and any(it.turns[0].expect for it in first)


def test_bad_data_names_the_file_and_line(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"id": "a", "turns": [{"say": "hi", "expect": "none"}]}\n{"id": "b", "turns": []}\n')
    with pytest.raises(EvalDataError, match=r"x\.jsonl:2"):
        load_items(f)
    f.write_text('{"id": "a", "turns": [{"say": "hi", "expect": "maybe"}]}\n')
    with pytest.raises(EvalDataError, match="expect"):
        load_items(f)
    with pytest.raises(EvalDataError, match="split"):
        load_set("home", "train")
    f.write_text('{"id": "a", "split": "test", "turns": [{"say": "hi", "expect": "none"}]}\n')
    with pytest.raises(EvalDataError, match="dev2"):  # an item cannot put itself into the held-out split
        load_items(f)


@dataclass
class Rec:  # what the judge reads of a CallRecord
    name: str
    arguments: dict
    error: str | None = None
    error_type: str | None = None
    dispatched: bool = True
    result: Any = field(default=None)


LIGHT_ON = [{"name": "set_light", "args": {"room": "kitchen", "on": True}}]


def test_judge_verdicts():
    assert judge_turn(LIGHT_ON, [Rec("set_light", {"room": "Kitchen ", "on": True, "brightness": 80})],
                      "Done.")["verdict"] == "right"  # unlisted optional arguments are free
    assert judge_turn(LIGHT_ON, [], "Sure.")["verdict"] == "missed"
    assert judge_turn(LIGHT_ON, [Rec("set_light", {"room": "kitchen", "on": False})], "")["verdict"] == "wrong"
    # a call blocked before the tool (unknown tool, invalid arguments) did not run
    blocked = Rec("set_fan", {}, error="no such tool", error_type="unknown_tool")
    assert judge_turn(LIGHT_ON, [blocked], "")["verdict"] == "missed"
    assert judge_turn(None, [blocked], "I can't do that.") == {"verdict": "ok", "false_claim": False, "claims": [],
                                                              "made_up": [], "ran": 0}
    # a call that ran and failed inside the tool still was an action
    assert judge_turn(None, [Rec("set_thermostat", {"temperature": 72}, error="out of range",
                                 error_type="exception")], "")["verdict"] == "unwanted"
    # an extra call makes a right call wrong
    two = [Rec("set_light", {"room": "kitchen", "on": True}), Rec("get_time", {})]
    assert judge_turn(LIGHT_ON, two, "")["verdict"] == "wrong"


def test_judge_matchers_and_derived_timer_length():
    hours = [{"name": "start_timer", "args": {"duration_s": 7200}}]
    assert judge_turn(hours, [Rec("start_timer", {"minutes": 120})], "")["verdict"] == "right"
    assert judge_turn(hours, [Rec("start_timer", {"hours": 2, "label": "x"})], "")["verdict"] == "right"
    assert judge_turn(hours, [Rec("start_timer", {"hours": 1})], "")["verdict"] == "wrong"
    jazz = [{"any": [{"name": "play_music", "args": {"query": {"$contains": "jazz"}}},
                     {"name": "media_control", "args": {"action": {"$in": ["play", "next"]}}}]}]
    assert judge_turn(jazz, [Rec("play_music", {"query": "some smooth Jazz"})], "")["verdict"] == "right"
    assert judge_turn(jazz, [Rec("media_control", {"action": "next"})], "")["verdict"] == "right"
    assert judge_turn(jazz, [Rec("media_control", {"action": "pause"})], "")["verdict"] == "wrong"
    warm = [{"name": "set_thermostat", "args": {"temperature": {"$gt": 20}}}]
    assert judge_turn(warm, [Rec("set_thermostat", {"temperature": "22"})], "")["verdict"] == "right"
    # two expected calls need two distinct matching calls, in any order
    both = [{"name": "set_light", "args": {"room": "kitchen"}}, {"name": "set_light", "args": {"room": "office"}}]
    calls = [Rec("set_light", {"room": "office", "on": True}), Rec("set_light", {"room": "kitchen", "on": True})]
    assert judge_turn(both, calls, "")["verdict"] == "right"
    assert judge_turn(both, calls[:1] * 2, "")["verdict"] == "wrong"


def test_judge_counts_false_claims():
    v = judge_turn(None, [], "I'm setting a timer for 12 minutes.")
    assert v["verdict"] == "ok" and v["false_claim"] and v["claims"]
    v = judge_turn(LIGHT_ON, [Rec("set_light", {"room": "kitchen", "on": True})], "The kitchen light is now off.")
    assert v["verdict"] == "right" and v["false_claim"]


def test_judge_counts_made_up_readings_where_a_tool_reads_them():
    from edgevox.examples.home import Home
    from edgevox.tools import ToolRegistry

    reg = ToolRegistry(Home().tools())
    v = judge_turn([{"name": "get_time"}], [], "The current local time is 10:30 AM.", reg)
    assert v["verdict"] == "missed" and v["made_up"] == ["The current local time is 10:30 AM."] and not v["false_claim"]
    assert judge_turn([{"name": "get_time"}], [Rec("get_time", {})], "It is 10:30.", reg)["made_up"] == []
    rows = [_row("auto", "dev", "none", "ok", 1.0), dict(_row("auto", "dev", "none", "ok", 1.0), made_up=["It is 9 pm."])]
    assert summarise(rows)["made_up"] == 1 and summarise(rows[:1])["made_up"] is None  # older rows: not judged


def _row(policy, split, expect, verdict, latency, claim=False, ran=0):
    return {"policy": policy, "split": split, "expect": expect, "verdict": verdict, "latency_s": latency,
            "false_claim": claim, "ran": ran}


def test_summary_and_table_count_what_the_rows_say():
    rows = [_row("auto", "dev", LIGHT_ON, "right", 1.0, ran=1), _row("auto", "dev", LIGHT_ON, "missed", 2.0),
            _row("auto", "dev", LIGHT_ON, "wrong", 3.0, claim=True, ran=1), _row("auto", "test", LIGHT_ON, "right", 4.0, ran=1),
            _row("auto", "dev", "none", "unwanted", 5.0, ran=2),
            dict(_row("auto", "test", "none", "ok", 6.0), hooks={"false_claim": 1})]
    s = summarise(rows)
    assert (s["requests"], s["no_tool"]) == (4, 2)
    assert (s["right_pct"], s["missed_pct"], s["wrong_pct"]) == (50.0, 25.0, 25.0)
    assert (s["unwanted_pct"], s["unwanted_calls"], s["false_claims"], s["claims_caught"]) == (50.0, 2, 1, 1)
    assert s["p50_s"] == 3.5 and s["p90_s"] == 5.5
    summaries, md = table(rows + [dict(r, policy="required_first_hop") for r in rows])
    assert [(x["policy"], x["split"]) for x in summaries] == [
        ("auto", "dev"), ("auto", "test"), ("auto", "all"),
        ("required_first_hop", "dev"), ("required_first_hop", "test"), ("required_first_hop", "all")]
    assert summaries[1]["unwanted_pct"] == 0.0 and summaries[1]["right_pct"] == 100.0
    assert md.count("\n") == 7 and "| auto | dev | 4 | 33.3 |" in md
    kinds, md = table([dict(r, kind="direct" if r["expect"] != "none" else "thanks") for r in rows], by_kind=True)
    assert [(k["split"], k["turns"]) for k in kinds] == [("direct", 4), ("thanks", 2)] and "| kind |" in md


def test_a_short_real_run_is_judged_on_what_happened(qwen_backend, tmp_path):
    """Four items through the voice agent on the real model; whatever the model did, the
    verdicts must agree with the simulated home's state and the table with the rows."""
    data = tmp_path / "home"
    data.mkdir()
    lines = [
        {"id": "a", "kind": "direct", "turns": [{"say": "Turn on the kitchen light.", "expect": LIGHT_ON}]},
        {"id": "b", "kind": "direct", "turns": [{"say": "Add milk to the shopping list.",
                                                 "expect": [{"name": "add_to_shopping_list",
                                                             "args": {"item": {"$contains": "milk"}}}]}]},
        {"id": "c", "kind": "knowledge", "turns": [{"say": "What is the capital of France?", "expect": "none"}]},
        {"id": "d", "kind": "followup", "turns": [
            {"say": "Set a timer for 10 minutes.", "expect": [{"name": "start_timer", "args": {"duration_s": 600}}]},
            {"say": "Cancel the timer.", "expect": [{"name": "cancel_timer", "args": {}}]}]},
    ]
    (data / "set.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    items = load_set("home", root=data)
    rows = run_items(qwen_backend, items, policy="auto")
    assert [(r["id"], r["turn"]) for r in rows] == [("a", 0), ("b", 0), ("c", 0), ("d", 0), ("d", 1)]
    for r in rows:
        assert r["verdict"] in (("ok", "unwanted") if r["expect"] == "none" else ("right", "missed", "wrong"))
        ran = [c for c in r["calls"] if c["dispatched"]]
        assert r["ran"] <= len(ran) and (r["verdict"] in ("missed", "ok")) == (r["ran"] == 0)
        assert r["latency_s"] > 0 and isinstance(r["reply"], str)
    by = {(r["id"], r["turn"]): r for r in rows}
    # a right light call means the simulated kitchen light is on, and the other way round
    assert (by["a", 0]["verdict"] == "right") == ("lights on: kitchen |" in by["a", 0]["home"])
    assert (by["b", 0]["verdict"] == "right") == ("shopping: milk" in by["b", 0]["home"])
    s = summarise(rows)
    assert s["requests"] == 4 and s["no_tool"] == 1
    assert s["right_pct"] == round(100 * sum(r["verdict"] == "right" for r in rows if r["expect"] != "none") / 4, 1)
    assert s["false_claims"] == sum(r["false_claim"] for r in rows)


def test_agent_options_parse_and_label_the_rows():
    from edgevox.cli.options import parse_options

    assert parse_options(["max_hops=2", "demonstrations=false", "confirm_below=0.5", "instructions=Be brief."]) == {
        "max_hops": 2, "demonstrations": False, "confirm_below": 0.5, "instructions": "Be brief."}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_options(["max_hops"])
    rows = [dict(_row("auto", "dev", "none", "ok", 1.0), options={"max_hops": 2}), _row("auto", "dev", "none", "ok", 1.0)]
    assert [s["policy"] for s in table(rows)[0] if s["split"] == "dev"] == ["auto max_hops=2", "auto"]


def test_the_command_tabulates_earlier_rows_and_refuses_bad_options(tmp_path, capsys):
    from edgevox.cli import main

    rows = [_row("auto", "dev", LIGHT_ON, "right", 1.0, ran=1), _row("auto", "test", "none", "unwanted", 2.0, ran=1)]
    f = tmp_path / "rows.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["eval", "home", "--from", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(s["split"], s["right_pct"], s["unwanted_pct"]) for s in out] == [
        ("dev", 100.0, None), ("test", None, 100.0), ("all", 100.0, 100.0)]
    assert main(["eval", "home", "--set", "max_hops", "--limit", "1"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["eval", "home", "--without-hook", "nope", "--limit", "1"]) == 1
    assert "no default hook named nope" in capsys.readouterr().err
