"""Several values listed for one argument: one call for each.

Measured through the agent on BFCL parallel 0-49 with Qwen2.5-Coder-0.5B (session 12): 31
of 50 cases failed, 20 of them with too few calls, and in 9 of those the request lists the
values of one argument and the model called for the first alone ("the protein sequence of
human HbA1c, normal hemoglobin, and rat hemoglobin" -> one call; "in Egypt and Turkey";
"near Berlin and Paris"; "for the next 10 years and 20 years"), or ran two listed numbers
together ("the factorial of 5,10 and 15" -> ``number=510`` and 15). The same holds for a
home: "Lights off in the kitchen and bedroom." is two calls of one tool.

The rule, read from the request and the calls the model made, nothing else: when a call's
plain value (a string or a number, not an array) is said in the request as one item of a
list -- "A, B and C", "A and B", "10, 20 and 30 years", "'X', 'Y' and 'Z'" --, each item of
that list held by no call of the same tool gets a copy of that call with the item in its
place. When two arguments of one tool are listed ("Lakers and Bulls in seasons 2018 and
2020"), every pairing is called, unless the request says "respectively" (then the i-th item
goes with the i-th). A list needs an "and" (or quotes): "Chicago, Illinois" is one place, not
two. "Between 1 and 1000" names a range's ends, not items. A value said alone anywhere else
in the request, or in two different lists, is left alone: which part the call is for is not
ours to say. An item must be like the value it stands beside: the same number of words for
lower-case words (and the clause ends after the last), a run of capitalised words for a name, a
number (with the same unit word, if any) for a number; an enum parameter takes only its
members. Each added call is checked against the tool's schema and goes through the other hooks
like any call. ``tests/bfcl/test_hooks_on_right_answers.py`` runs the rule on every BFCL right
answer: it adds nothing to them (one live_multiple answer excepted, listed there).

A number that is two or more listed numbers run together, said nowhere in the request
(``510`` from "5,10 and 15"), is withdrawn before it runs; the listed items are called
instead.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from edgevox.agents.demonstrations import VERBS
from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.amounts import said_numbers
from edgevox.agents.slm.vocabulary import CHANGERS, enum_of, is_number, properties

__all__ = ["ListedItems", "fan_out", "items_listed_with", "run_together"]

#: at most this many calls added to one hop
MAX_ADDED = 6
#: what may join two items of a list (a comma alone does not make a list: "Chicago, Illinois")
_SEP = re.compile(r"\s*(?:,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*)", re.IGNORECASE)
_AND = re.compile(r"\band\b|&")
#: the words before a range's first end ("between 1 and 1000", "between x values of 2 and 5")
_RANGE_HEAD = re.compile(r"\bbetween\s+(?:\S+\s+){0,3}$", re.IGNORECASE)
#: a number as written: thousands with commas ("400,000"), decimals, a currency sign before; not
#: part of a time, a date or a code ("3:15", "2020-12-25", "1/2")
_NUMBER = re.compile(r"(?<![\w.:/-])\$?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?(?!\w|\.\d|:\d|/\d|-\d)")
#: what may stand between two listed numbers: a unit word or %, then a join ("10 years and 20")
_NUMBER_GAP = re.compile(r"\s*(%|[A-Za-z]+\.?)?\s*(,\s*(?:and\s+|&\s*)?|and\s+|&\s*)\$?", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s*(%|[A-Za-z]+)")
#: a name: capitalised words or numbers, joined by "of"/"de"/"the" ("Treaty of Paris", "Maroon 5")
_NAME_WORD = r"[A-Z0-9][\w.'&-]*"
_NAME = re.compile(_NAME_WORD + r"(?:\s+(?:(?:of|de|the)\s+)?" + _NAME_WORD + r")*")
_NAME_AT_END = re.compile(r"(" + _NAME_WORD + r"(?:\s+(?:(?:of|de|the)\s+)?" + _NAME_WORD + r")*)$")
_ARTICLE = re.compile(r"(?:the|a|an)\s+", re.IGNORECASE)
_QUOTED = re.compile(r"(['\"])([^'\"]{1,80})\1")
_QUOTED_AT_END = re.compile(r"(['\"])([^'\"]{1,80})\1$")
#: words that never start an item of a list of things ("in london and the time" is no list)
_NOT_AN_ITEM = frozenset("""
the a an its their his her my our your it i i'm i'd i'll i've you we they he she this that these those
what which who how when where why also then get find give show tell check calculate do does is are was be
can could would will please in on at for from with by to of under over through into about as than
""".split()) | VERBS | CHANGERS
#: what may follow the last item of a list of plain words: the end of the clause, or a place it
#: goes to ("milk, eggs and bread to the list"); not "of" ("a base of 10 units and height of 5")
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:!?)]|(?:and|or|to|in|on|into|onto|from|for|at)\b)")


def _number_value(match: re.Match[str]) -> float:
    return float(match.group(1).replace(",", "") + (match.group(2) or ""))


def _number_list_at(request: str, numbers: list[re.Match[str]], at: int) -> list[float] | None:
    """The listed numbers the ``at``-th number of the request is one of, or None."""

    def joins(a: int) -> tuple[str | None, bool] | None:
        """How numbers ``a`` and ``a + 1`` are joined: (the unit word between, by "and"), or None."""
        gap = _NUMBER_GAP.fullmatch(request, numbers[a].end(), numbers[a + 1].start())
        if gap is None:
            return None
        word = (gap.group(1) or "").lower().rstrip(".") or None
        if word is not None:  # "10 years and 20 years": the next number takes the same unit
            after = _WORD_AFTER.match(request, numbers[a + 1].end())
            if after is None or after.group(1).lower().rstrip("s") != word.rstrip("s"):
                return None
        return word, bool(_AND.search(gap.group(2)))

    lo = hi = at
    joined_by_and = False
    while not joined_by_and and hi + 1 < len(numbers) and (j := joins(hi)):
        hi += 1
        joined_by_and = j[1]  # the item after "and" ends the list
    while lo > 0 and (j := joins(lo - 1)) and (not j[1] or (lo == hi and not joined_by_and)):
        lo -= 1  # "5, 10 and 15" seen from 10 or 15
        joined_by_and |= j[1]
    if lo > 0 and joins(lo - 1):
        return None  # "3 and 4, 5 and 12": pairs, each one call's arguments
    if hi == lo or not joined_by_and or _RANGE_HEAD.search(request, 0, numbers[lo].start()):
        return None
    return [_number_value(numbers[i]) for i in range(lo, hi + 1)]


def _number_list(request: str, value: float) -> list[float] | None:
    """The listed numbers ``value`` is one of ("10, 20 and 30 years" -> [10, 20, 30]); None when
    the request says it alone anywhere, or in two different lists."""
    if value in said_numbers(re.sub(r"\d", " ", request)):
        return None  # said in words too ("multiples of 3 and 5 ... the first five primes")
    numbers = list(_NUMBER.finditer(request))
    found = [_number_list_at(request, numbers, i) for i, m in enumerate(numbers) if _number_value(m) == value]
    lists = {frozenset(got) if got else None for got in found}
    return found[0] if len(lists) == 1 and None not in lists else None


def _words_pattern(width: int) -> str:
    """``width`` plain words, the first lower-case ("normal hemoglobin", "rat hemoglobin")."""
    return r"[a-z][\w'-]*(?:\s+\w[\w'-]*)" + "{" + str(width - 1) + "}"


def _item_after(request: str, pos: int, shape: str, width: int, members: Sequence[Any] = ()
                ) -> tuple[str, int] | None:
    """The item that starts at ``pos``, shaped like the value beside it, and where it ends."""
    if shape == "quoted":
        m = _QUOTED.match(request, pos)
        return (m.group(2), m.end()) if m else None
    for member in sorted((x for x in members if isinstance(x, str) and x.strip()), key=len, reverse=True):
        m = re.compile(rf"{re.escape(member)}\b", re.IGNORECASE).match(request, pos)
        if m is not None:  # a member of the enum, however many words ("Kitchen and dining room lights", dev12)
            return member, m.end()
    if shape in ("name", "number name"):
        m = _NAME.match(request, pos)
        if m is None or len(m.group(0).split()) > width + 2 or m.group(0).lower() in _NOT_AN_ITEM or (
                shape == "name" and not m.group(0)[0].isupper()):
            return None
        if re.match(r",\s*[A-Z]", request[m.end():]):
            return None  # "Paris, France and New York, USA": places with their regions, not a list of names
        return re.sub(r"'s$", "", m.group(0).rstrip(".")), m.end()
    m = re.compile(_words_pattern(width)).match(request, pos)
    if m is None or any(w.lower() in _NOT_AN_ITEM for w in m.group(0).split()):
        return None
    if not _CLAUSE_END.match(request, m.end()) and not any(
            isinstance(x, str) and x.lower() == m.group(0).lower() for x in members):
        return None  # "a base of 10 units and height of 5": plain words go on past the item
    return m.group(0), m.end()


def _item_before(request: str, end: int, shape: str, width: int) -> str | None:
    """The item that ends at ``end`` (for a value said after the list's first item)."""
    head = request[:end]
    if shape == "quoted":
        m = _QUOTED_AT_END.search(head)
        return m.group(2) if m else None
    if shape in ("name", "number name"):
        m = _NAME_AT_END.search(head)
        ok = m and len(m.group(1).split()) <= width + 2 and (shape != "name" or m.group(1)[0].isupper())
        return m.group(1) if ok else None
    m = re.search(r"(?<![\w'-])(" + _words_pattern(width) + ")$", head)
    if m is None or any(w.lower() in _NOT_AN_ITEM for w in m.group(1).split()):
        return None
    return m.group(1)


def _words(text: str, n: int) -> list[str]:
    """The first ``n`` words of ``text`` (the last ``-n`` when negative), lower-cased."""
    words = re.findall(r"[\w']+", text.lower())
    return words[:n] if n > 0 else words[n:]


def _string_list_at(request: str, start: int, end: int, members: Sequence[Any]) -> list[str] | None:
    """The list whose item the request says at ``start:end``, or None."""
    value = request[start:end]
    quoted = start > 0 and end < len(request) and request[start - 1] in "'\"" and request[end] == request[start - 1]
    shape = ("quoted" if quoted else "name" if value[:1].isupper() else "number name" if value[:1].isdigit()
             else "words")
    width = len(value.split())
    if quoted:
        start, end = start - 1, end + 1
    items, joined_by_and, pos = [value], False, end
    article = shape == "words" and re.search(r"\b(?:the|a|an)\s+$", request[:start], re.IGNORECASE)
    while not joined_by_and:  # to the right; the item after "and" ends the list
        sep = _SEP.match(request, pos)
        if sep is None or sep.end() == pos:
            break
        at = sep.end()
        if article and _ARTICLE.match(request, at):  # "the kitchen and the bedroom"
            at = _ARTICLE.match(request, at).end()
        item = _item_after(request, at, shape, width, members)
        if item is None:
            break
        after = _words(request[item[1]:], 2)
        if after and after == _words(request[:start], -2):
            break  # "Apple Inc. listed on NASDAQ and Microsoft listed on NYSE": two clauses, not a list
        items.append(item[0])
        pos = item[1]
        joined_by_and = bool(_AND.search(sep.group(0)))
    first = start
    while True:  # to the left: over commas, or over "and" from the last item ("Lincoln and Washington")
        last = len(items) == 1 and not joined_by_and and (
            shape != "words" or _CLAUSE_END.match(request, end) is not None)  # "2 players and strategy based"
        before = re.search(r"\s*,\s*(?:and\s+)?$|\s+and\s+$" if last else r"\s*,\s*$", request[:first])
        item = _item_before(request, before.start(), shape, width) if before else None
        if item is None:
            break
        items.insert(0, item)
        joined_by_and |= "and" in before.group(0)
        first = before.start() - len(item) - (2 if shape == "quoted" else 0)
    if len(items) < 2 or not (joined_by_and or shape == "quoted") or _RANGE_HEAD.search(request, 0, first):
        return None
    return items


def _string_list(request: str, value: str, members: Sequence[Any] = ()) -> list[str] | None:
    """The listed items ``value`` is one of ("Egypt and Turkey" -> ["Egypt", "Turkey"]); None
    when it is said alone (anywhere), or in two different lists."""
    value = value.strip()
    if not value or "," in value or len(value) > 80:
        return None
    found = [_string_list_at(request, m.start(), m.end(), members)
             for m in re.finditer(r"(?<![\w])" + re.escape(value) + r"(?![\w])", request, re.IGNORECASE)]
    # "Neutron and Proton ... a Proton and Neutron" is one list; "for Microsoft and Apple ... Microsoft's
    # stocks" says the value alone too, and which part the call is for is not ours to say
    lists = {frozenset(x.lower() for x in got) if got else None for got in found}
    return found[0] if len(lists) == 1 and None not in lists else None


def items_listed_with(request: str, value: Any, members: Sequence[Any] = ()) -> list[Any] | None:
    """The items of the list the request says ``value`` in, or None when it says it alone
    (``members``: the parameter's enum, whose members may stand anywhere in a sentence)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return _number_list(request, float(value))
    if isinstance(value, str):
        return _string_list(request, value, members)
    return None


def run_together(request: str, value: Any) -> list[float] | None:
    """The listed numbers a call's number is written from ("5,10 and 15" -> 510 is [5, 10]),
    when the request says that number nowhere; else None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 10:
        return None
    numbers = [_number_value(m) for m in _NUMBER.finditer(request)]
    if float(value) in numbers:
        return None
    listed = next((got for n in numbers if (got := _number_list(request, n))), None)  # the request's first list
    if listed is None:
        return None
    for a, b in itertools.combinations(range(len(listed) + 1), 2):
        part = listed[a:b]
        if len(part) >= 2 and all(float(x).is_integer() for x in part) and \
                "".join(str(int(x)) for x in part) == str(value):
            return part
    return None


def _holds(value: Any, item: Any) -> bool:
    """Whether an argument value (nested lists and dicts too) holds the item."""
    if isinstance(value, Mapping):
        return any(_holds(v, item) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds(v, item) for v in value)
    if isinstance(item, (int, float)):
        return is_number(value) and float(value) == float(item)
    if isinstance(value, str) and isinstance(item, str):
        a, b = value.lower().strip(" ."), item.lower().strip(" .")
        return bool(a) and (a == b or b in a or a in b)
    return False


def _typed(schema: Any, anchor: Any, item: Any) -> Any:
    """An item as the parameter takes it: an enum member (else None), an int where the value was."""
    members = enum_of(schema)
    if isinstance(item, str):
        if members:
            return next((m for m in members if isinstance(m, str) and m.lower() == item.lower()), None)
        return item
    if isinstance(anchor, int) and float(item).is_integer():
        return int(item)
    return item


def _lists_of(request: str, own: Sequence[Mapping[str, Any]], schemas: Mapping[str, Any]
              ) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """{argument: (its listed items, typed for it; the call that said one)} for one tool's calls."""
    lists: dict[str, tuple[list[Any], dict[str, Any]]] = {}
    for args in own:
        for key, value in args.items():
            if key in lists or key not in schemas:
                continue
            items = items_listed_with(request, value, enum_of(schemas[key]))
            if items is None:
                together = run_together(request, value)
                items = _number_list(request, together[0]) if together else None
            if items is None:
                continue
            typed = [_typed(schemas[key], value, x) for x in items]
            if None in typed or any(sum(_holds(a, x) for x in typed) >= 2 for a in own):
                continue  # "the GCD of 96 and 128": the list is one call's arguments
            lists[key] = (typed, dict(args))
    return lists


def _combos(lists: Mapping[str, tuple[list[Any], Any]], respectively: bool) -> list[dict[str, Any]]:
    """The argument values each call should hold: every pairing of the lists, or item i with item
    i when the request says "respectively" (none when those lists differ in length)."""
    keys = list(lists)
    columns = [lists[k][0] for k in keys]
    if respectively and len(keys) > 1:
        rows = list(zip(*columns, strict=True)) if len({len(c) for c in columns}) == 1 else []
    else:
        rows = list(itertools.product(*columns))
    return [dict(zip(keys, row, strict=True)) for row in rows]


def fan_out(request: str, calls: Sequence[tuple[str, Mapping[str, Any]]], tools: Mapping[str, Any]
            ) -> list[tuple[str, dict[str, Any]]]:
    """The calls to add so that each listed item has its own (see the module docstring)."""
    added: list[tuple[str, dict[str, Any]]] = []
    respectively = bool(re.search(r"\brespectively\b", request, re.IGNORECASE))
    for name in dict.fromkeys(n for n, _ in calls):
        tool = tools.get(name)
        own = [dict(a) for n, a in calls if n == name and isinstance(a, Mapping)]
        lists = _lists_of(request, own, properties(tool)) if tool is not None else {}
        if not lists:
            continue
        base = next(iter(lists.values()))[1]
        for combo in _combos(lists, respectively):
            if any(all(_holds(args.get(k), v) for k, v in combo.items()) for args in own):
                continue
            if len(combo) == 1 and any(_holds(args, next(iter(combo.values()))) for args in own):
                continue  # held under another argument ("between 1 and 1000": both ends in one call)
            candidate = {**base, **combo}
            try:
                tool.validate(candidate)
            except Exception:  # noqa: BLE001 -- an item the schema refuses is not added
                continue
            own.append(candidate)
            added.append((name, candidate))
            if len(added) >= MAX_ADDED:
                return added
    return added


class ListedItems(Hook):
    """One call per listed item (see the module docstring): adds calls after the generation,
    withdraws a number run together from listed ones before it runs."""

    name = "listed_items"
    priority = 12
    keeps_calls = True  # only adds calls: what the model wrote may start early

    def __init__(self, *, leave: frozenset[str] = frozenset(), **kw: Any):
        """``leave``: tools whose listed items another hook adds its own way (the voice
        assistant's shopping list: one hop per item, ``slm.wants``)."""
        super().__init__(**kw)
        self.leave = leave

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if not output.calls or output.retry or ctx.successes() or not len(ctx.registry):
            return None  # the turn's first hop that acts: later hops are other hooks' (one item each)
        from edgevox.parsing import ToolCall

        calls = [(c.name, c.arguments) for c in output.calls if c.name not in self.leave]
        tools = {n: ctx.registry.get(n) for n, _ in calls}
        added = fan_out(ctx.text, calls, tools)
        if not added:
            return None
        more = [ToolCall(None, n, a) for n, a in added]
        return HookResult.replace(output.replace(calls=[*output.calls, *more]),
                                  reason=f"{len(more)} more listed item(s)")

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        if not isinstance(call.arguments, dict):
            return None
        for key, value in call.arguments.items():
            part = run_together(ctx.text, value)
            if part:
                from edgevox.tools.result import ToolResult

                note = f"{key}={value} runs together {' and '.join(f'{x:g}' for x in part)}, said as a list"
                withdrawn = ToolResult(name=call.name, arguments=call.arguments, ok=False, error=note,
                                       error_type="withdrawn", call_id=call.id)
                return HookResult.replace(withdrawn, reason="listed numbers run together")
        return None
