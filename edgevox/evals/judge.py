"""Judging one turn: what was expected, what the agent actually called, what it said.

Call specs (``expect`` of a turn)::

    {"name": "set_light", "args": {"room": "office", "on": true, "brightness": 100}}
    {"any": [spec, spec, ...]}            # one of these calls

Only the arguments a spec lists are checked (the others may be anything, so optional
arguments are free unless the item cares). An argument's expected value is a literal
(strings compare case- and space-insensitively, numbers numerically) or one of
``{"$contains": "jazz"}`` (substring of the string, either way round for short values),
``{"$in": [a, b]}``, ``{"$gt": n}``, ``{"$lt": n}``. ``duration_s`` on ``start_timer`` is
the length the call asked for, ``hours*3600 + minutes*60 + seconds``, so "2 hour timer."
may be written as hours=2 or minutes=120.

A call *ran* when it was dispatched to the tool (not blocked as an unknown tool or for
invalid arguments, not answered by a hook): the tool function was invoked and may have
changed the home. Verdicts per turn:

* a request: ``right`` (every expected call matched by a distinct call that ran, and no
  other call ran), ``missed`` (no call ran), ``wrong`` (calls ran, not the right ones);
* no tool fits: ``ok`` (no call ran) or ``unwanted`` (at least one call ran);
* ``false_claim`` on any turn: the reply says something was done that no successful call
  of the turn backs, or contradicts what the call did (``edgevox.agents.slm.claims``);
* ``made_up`` on any turn: readings the reply states (a time of day, the weather) that no
  call of the turn read, where a tool reads them (``claims.made_up_readings``).
"""

from __future__ import annotations

import re
from typing import Any

from edgevox.agents.slm.claims import made_up_readings, unbacked

BLOCKED = ("unknown_tool", "invalid_arguments")

#: arguments computed from a call's arguments, by tool name
DERIVED = {
    "start_timer": {"duration_s": lambda a: int(a.get("hours") or 0) * 3600 + int(a.get("minutes") or 0) * 60
                    + int(a.get("seconds") or 0)},
}


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().lower().replace("’", "'"))


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip().rstrip("%"))
        except ValueError:
            return None
    return None


def value_matches(want: Any, got: Any) -> bool:
    """Does an argument value match its expectation (see the module docstring)?"""
    if isinstance(want, dict):
        if "$contains" in want:
            w = _norm(str(want["$contains"]))
            g = _norm(str(got)) if isinstance(got, str) else ""
            return bool(g) and (w in g or (len(g) >= 3 and g in w))
        if "$in" in want:
            return any(value_matches(w, got) for w in want["$in"])
        if "$gt" in want or "$lt" in want:
            g = _num(got)
            if g is None:
                return False
            return ("$gt" not in want or g > want["$gt"]) and ("$lt" not in want or g < want["$lt"])
        raise ValueError(f"unknown matcher {want!r}")
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, (int, float)):
        g = _num(got)
        return g is not None and abs(g - want) < 1e-6
    if isinstance(want, str):
        return isinstance(got, str) and _norm(got) == _norm(want)
    if want is None:
        return got is None
    return want == got


def call_matches(spec: dict[str, Any], name: str, args: dict[str, Any]) -> bool:
    if "any" in spec:
        return any(call_matches(s, name, args) for s in spec["any"])
    if spec["name"] != name:
        return False
    derived = {k: fn(args) for k, fn in DERIVED.get(name, {}).items()}
    for key, want in (spec.get("args") or {}).items():
        if key in derived and key not in args:
            if not value_matches(want, derived[key]):
                return False
        elif key not in args or not value_matches(want, args[key]):
            return False
    return True


def ran(calls: list[Any]) -> list[Any]:
    """The calls whose tool was invoked (see the module docstring)."""
    return [c for c in calls if getattr(c, "dispatched", True) and getattr(c, "error_type", None) not in BLOCKED]


def _assign(expect: list[dict[str, Any]], calls: list[Any]) -> bool:
    """Can every spec be matched by a distinct call? (small sets: plain backtracking)"""
    def go(i: int, used: frozenset[int]) -> bool:
        if i == len(expect):
            return True
        return any(go(i + 1, used | {j}) for j, c in enumerate(calls)
                   if j not in used and call_matches(expect[i], c.name, c.arguments or {}))
    return go(0, frozenset())


def judge_turn(expect: list[dict[str, Any]] | None, calls: list[Any], reply: str,
               registry: Any = None) -> dict[str, Any]:
    """The verdict of one turn: ``{"verdict", "false_claim", "claims", "made_up", "ran"}``."""
    did = ran(calls)
    if expect is None:
        verdict = "unwanted" if did else "ok"
    elif not did:
        verdict = "missed"
    elif len(did) == len(expect) and _assign(expect, did):
        verdict = "right"
    else:
        verdict = "wrong"
    reasons = unbacked(reply, calls, registry)
    made_up = [sentence for _, sentence in made_up_readings(reply, calls, registry)]
    return {"verdict": verdict, "false_claim": bool(reasons), "claims": reasons, "made_up": made_up, "ran": len(did)}
