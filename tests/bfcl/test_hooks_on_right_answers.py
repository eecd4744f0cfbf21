"""The SLM hooks on BFCL's right answers: a rule written for the home assistant must not
block or rewrite a call that BFCL's ground truth says is right.

Each ground-truth call of simple, multiple, parallel, parallel_multiple and the live
categories (3152 calls, their first acceptable value per argument) is put through what
``default_slm_hooks()`` checks before a call runs: grounding's verdict (``why_not``, and
whether a call took its words from another part of a two-action request) and
the argument repairs of ``unit_args`` (units, amounts in words, names, decimals, levels).
Pure logic, ~20 s, no model. Measured in session 7: session 6's "a reader asked about a
place its call leaves out" read "in the form of", "at the center of", "in the next 20
years" as places and blocked 73 right calls that the rules before it let through (parallel:
20 of 200 cases); unit_args swapped the adults and children of two hotel bookings said in one
request (parallel_57); a book search's "title" was filled with a word of the request
(multiple_68). All three are mended; what is left blocked is listed here, and this test
fails when a new rule blocks any other right call or rewrites one into a wrong one (a rewrite
to another value the answer accepts, "Euro" -> "EUR", is no harm).
"""

from __future__ import annotations

from collections import Counter

import pytest

from edgevox.agents.slm.listed import fan_out, run_together
from edgevox.agents.slm.not_about import why_not
from edgevox.agents.slm.several_asks import from_another_part
from edgevox.agents.slm.unit_args import REPAIRS, move_units
from edgevox.bfcl.checker import check_call
from edgevox.bfcl.data import load_cases
from edgevox.bfcl.schema import sanitize_name
from edgevox.tools import Tool

#: right calls grounding blocked before session 6 too, with why (each looked at)
KNOWN_BLOCKED = {
    "multiple_76": "question",  # "... What material options are available?" -> a setter's options
    "parallel_129": "question",
    "parallel_89": "device",  # "... to the Golden Gate Bridge": a gate is a device no tool serves
    "parallel_multiple_92": "unrelated",
    "simple_python_388": "unrelated",  # "Canadian dollars ... US dollars": no word of currency_exchange_convert
    "simple_python_393": "unrelated",
}
#: the live categories' blocked right calls, counted (too many to list; at most this many)
LIVE_BLOCKED_AT_MOST = {"live_simple": 27, "live_multiple": 52, "live_parallel": 3, "live_parallel_multiple": 6}


def _stub(**kwargs):
    return kwargs


def _right_calls(category: str, data_dir):
    for case in load_cases(category, data_dir):
        tools = [Tool.from_schema(t, _stub) for t in case.tools(sanitize=True)]
        by_name = {t.name: t for t in tools}
        request = [m for m in case.question if m.get("role") == "user"][-1]["content"]
        for answer in case.possible_answer or []:
            (name, params), = answer.items()
            args = {k: next(v for v in values if v != "") for k, values in params.items()
                    if any(v != "" for v in values)}
            yield case.id, request, by_name[sanitize_name(name)], args, tools, (case, answer)


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "parallel_multiple",
                                      "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"])
def test_no_hook_rule_blocks_or_rewrites_a_right_call(category, bfcl_data_dir):
    blocked, rewritten, calls = Counter(), [], 0
    for case_id, request, tool, args, tools, (case, answer) in _right_calls(category, bfcl_data_dir):
        calls += 1
        reason = why_not(request, tool, args, tools) or (
            "another part" if from_another_part(request, tool, args, tools) else None)
        if reason is not None:
            blocked[case_id] += 1
            if not category.startswith("live"):
                assert KNOWN_BLOCKED.get(case_id) == reason, (case_id, reason, request[:160])
        repaired = move_units(request, tool, args) or args
        for repair in REPAIRS:
            repaired = repair(request, tool, repaired) or repaired
        (name,) = answer
        if repaired != args and not check_call({"name": name, "arguments": repaired},
                                                next(f for f in case.functions if f["name"] == name), answer).valid:
            rewritten.append((case_id, args, repaired))  # a rewrite to another right answer ("Euro" -> "EUR") is fine
    assert calls > 0 and rewritten == []
    if category.startswith("live"):
        assert sum(blocked.values()) <= LIVE_BLOCKED_AT_MOST[category], blocked


#: right answers the listed-items rule adds a call to, with why (each looked at)
KNOWN_FANNED = {
    "live_multiple_870-182-7": "'the genres Sci-fi and Action': the answer picks one genre, the request lists two",
}


def _right_answers(category: str, data_dir):
    for case in load_cases(category, data_dir):
        tools = {t.name: t for t in (Tool.from_schema(x, _stub) for x in case.tools(sanitize=True))}
        request = [m for m in case.question if m.get("role") == "user"][-1]["content"]
        calls = []
        for answer in case.possible_answer or []:
            (name, params), = answer.items()
            calls.append((sanitize_name(name), {k: next(v for v in values if v != "") for k, values in params.items()
                                                if any(v != "" for v in values)}))
        yield case.id, request, calls, tools


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "parallel_multiple",
                                      "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"])
def test_listed_items_add_nothing_to_a_whole_right_answer(category, bfcl_data_dir):
    """A right answer already calls each listed item: the rule adds no call to it, and withdraws
    none of its numbers as listed ones run together."""
    seen = 0
    for case_id, request, calls, tools in _right_answers(category, bfcl_data_dir):
        seen += 1
        added = fan_out(request, calls, tools)
        assert not added or case_id in KNOWN_FANNED, (case_id, request[:160], added)
        assert not [v for _, args in calls for v in args.values() if run_together(request, v)], case_id
    assert seen > 0

