"""Amount words: "a quarter of an hour", "an hour and a half", "max", "full", "lowest".

Measured on the home evaluation's dev split with Qwen2.5-Coder-0.5B: "a quarter of an
hour" became ``minutes=30``, "Max volume." ``set_volume(change="up")`` with no level, "on
full" a light with no brightness. The model has the right tool and a wrong (or no)
number, because the request says its amount in words. Two kinds of words, both language
facts, read against the tool's schema (never an evaluation's phrasings):

* **Fractions of a time unit** ("half an hour", "three quarters of an hour", "an hour and
  a quarter", "one and a half minutes"): when a tool has numeric parameters named after
  time units (``hours``, ``minutes``, ``seconds``) and the request says exactly one such
  amount, the call's total is set to it, spread over the units it has, largest first.
* **Hours and minutes said without the second unit** ("one hour twenty", "2 hours 15"):
  the number after the hours is minutes.
* **The ends of a range** ("max", "full", "all the way up" / "lowest", "all the way down",
  "mute"): when exactly one
  of the tool's numeric parameters has a range -- the schema's ``minimum``/``maximum``, or
  "A to B" in its description ("Volume in percent, 0 to 100.") -- and the request says no
  number, that parameter is set to the end it names.

* **A level said "to/at N" next to the thing it sets** ("... and put the volume at 30"):
  when the call leaves the one ranged parameter empty (``set_volume(change="up")``) and the
  part of the request that names the tool's target ("volume") says "to/at N" inside the range.
* **A number misheard** ("Thermostat, twenty degrees." -> ``temperature=22``): a tool that
  changes things holds one number the request does not say, and the request says exactly one,
  with no unit the call might convert (minutes, percent) and no half or point: the number said.

Either way the call is changed only when its number differs from the request's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.slips import mend_slips
from edgevox.agents.slm.vocabulary import (
    FILLERS,
    GENERIC,
    WORD,
    boolean_params,
    changes_things,
    enum_of,
    is_number,
    properties,
    stem,
    target_words,
)

#: seconds in a time unit (a parameter's name, singular)
SECONDS = {"hour": 3600, "minute": 60, "second": 1}
_FRACTION = {"half": 0.5, "quarter": 0.25, "quarters": 0.25}
#: number words, each at its value's index (``unit_args`` reads the whole table)
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen").split()
_SMALL = {"a": 1, "an": 1, **{w: n for n, w in enumerate(NUMBER_WORDS) if 1 <= n <= 12}}
_NUM = r"(\d+|" + "|".join(_SMALL) + ")"
_UNIT = r"(hour|minute|second)s?"
_AMOUNTS = [  # (pattern, how to read its groups)
    # "two hours and a half", "an hour and a quarter", "an hour and three quarters", and with no
    # article at all ("Hour and a half on the timer.")
    # (and "make it hour and half", dev26: with no article before the share either)
    (re.compile(rf"(?:\b{_NUM}\s+|\b(?:it|for|to|timer|make)\s+|(?<![\w-])(?<![\w-]\s)){_UNIT}\s+and\s+(?:(an?|three)\s+)?"
                r"(half|quarters?)\b"),
     lambda g: (g[0] or "a", g[3], g[1], g[2])),
    # "one and a half hours"
    (re.compile(rf"\b{_NUM}\s+and\s+an?\s+(half|quarter)\s+{_UNIT}\b"), lambda g: (g[0], g[1], g[2])),
    # "half an hour", "a quarter of an hour", "three quarters of an hour", "half hour"
    (re.compile(rf"\b(?:(a|one|three)\s+)?(half|quarters?)\s+(?:of\s+)?(?:an?\s+)?{_UNIT}\b"),
     lambda g: ("0", g[1], g[2], g[0])),
]
_TOP = frozenset({"max", "maximum", "full", "highest", "loudest", "brightest", "way up"})
_BOTTOM = frozenset({"minimum", "lowest", "quietest", "dimmest", "way down", "mute", "silence"})
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+")
#: "one hour twenty", "2 hours and 15": a number after the hours with no unit of its own
#: a time unit as people say it (a regex alternation): "hours", "min", "secs"
TIME_UNITS = r"hours?|minutes?|mins?|seconds?|secs?"
_HOURS_THEN = re.compile(rf"^\s*(?:and\s+)?(\d+|[a-z]+(?:\s+[a-z]+)?)\b(?!\s*(?:{TIME_UNITS}|percent|%))")


def number_at(words: list[str], i: int, *, articles: bool = True) -> tuple[float, int] | None:
    """The number that starts at ``words[i]`` ("2", "twenty", "twenty five", "an", "a hundred
    and fifty") and how many words it takes; "a"/"an" alone count as one only with
    ``articles`` ("an hour", not "a level")."""
    w = words[i]
    if i + 1 < len(words) and words[i + 1] == "hundred" and (w in ("a", "one") or w in NUMBER_WORDS[2:10]):
        total, k = 100 * (1 if w in ("a", "one") else NUMBER_WORDS.index(w)), i + 2
        k += k < len(words) and words[k] == "and"
        rest = _below_hundred(words, k) if k < len(words) else None
        return (total + rest[0], k - i + rest[1]) if rest and rest[0] < 100 else (float(total), 2)
    return _below_hundred(words, i, articles=articles)


def _below_hundred(words: list[str], i: int, *, articles: bool = False) -> tuple[float, int] | None:
    w = words[i]
    if w[0].isdigit():
        return float(w), 1
    if w in ("a", "an") and articles:
        return 1.0, 1
    if w in NUMBER_WORDS:
        return float(NUMBER_WORDS.index(w)), 1
    if w in TENS:
        if i + 1 < len(words) and words[i + 1] in NUMBER_WORDS[1:10]:
            return float(TENS[w] + NUMBER_WORDS.index(words[i + 1])), 2
        return float(TENS[w]), 1
    return None


def said_numbers(request: str) -> set[float]:
    """Every number the request says, in digits or words ("make that seventy" -> {70.0})."""
    words = TOKEN.findall(request.lower().replace("-", " "))
    return {n[0] for i in range(len(words)) if (n := number_at(words, i, articles=False))}


def numbers_in(words: list[str]) -> list[tuple[int, float, int]]:
    """(index, value, width) of each number of ``words``, in order, each once ("twenty five" is
    25 at one index, not 25 and 5)."""
    out, i = [], 0
    while i < len(words):
        n = number_at(words, i, articles=False)
        if n is None:
            i += 1
            continue
        out.append((i, n[0], n[1]))
        i += n[1]
    return out


def spoken_numbers(request: str) -> list[float]:
    """The numbers the request says, in order, each once ("twenty five" is 25, not 25 and 5)."""
    return [value for _, value, _ in numbers_in(TOKEN.findall(request.lower().replace("-", " ")))]


#: a number after these is the level to reach ("up to 23 degrees"), not a step
_TO_A_LEVEL = frozenset("to at on of say".split())  # "say 30 percent" (dev15) names a level
#: words that say a way to move (a number said with them and a unit is a step)
#: the words of a way up and of a way down ("two degrees warmer", "another notch down")
UP_WORDS = frozenset("up higher warmer hotter more louder brighter".split())
DOWN_WORDS = frozenset("down lower cooler colder less quieter softer dimmer".split())
_WAYS = UP_WORDS | DOWN_WORDS | {"by", "darker"}
#: units a step is said in ("Two degrees cooler.", "ten percent brighter")
_STEP_UNITS = frozenset("degree degrees percent notch notches point points step steps".split())


def said_step(request: str) -> float | None:
    """The one step a request says with its unit and a way ("Two degrees cooler." -> 2, "one
    more degree"), or last after "by" or a way ("drop it by three", "knock it down three"),
    when that is the only number it says; else None."""
    words = TOKEN.findall(request.lower().replace("-", " "))
    if not set(words) & _WAYS:
        return None  # "Thermostat, twenty degrees." is the level
    steps = []
    for i in range(len(words)):
        n = number_at(words, i, articles=False)
        if n is None:
            continue
        after = words[i + n[1]:i + n[1] + 2]
        if after[:1] and after[0] in _WAYS and (after[1:] and after[1] in _STEP_UNITS or not after[1:]):
            steps.append(n[0])  # "one more degree" (dev14), "Bump that up two more." (dev15), whatever comes before it
        elif (i == 0 or (number_at(words, i - 1, articles=False) is None and words[i - 1] not in _TO_A_LEVEL)) and (
                after[:1] and after[0] in _STEP_UNITS or (i > 0 and words[i - 1] in _WAYS and not after)):
            steps.append(n[0])  # "Two degrees cooler.", "drop it by three" (dev13), "Knock it down three." (dev15)
    return steps[0] if len(steps) == 1 and len(spoken_numbers(request)) == 1 else None


#: words that take back the number just said ("thirty, no wait, forty-five", "twenty-four...
#: no, sorry, twenty-two", "fifty, I mean sixty"); at least one of _TAKES_BACK must be among them
_TAKES_BACK = frozenset("no nah nope wait sorry actually mean rather scratch hang say".split())
_CORRECTING = _TAKES_BACK | FILLERS | frozenset("i or make it that hang on let s".split())  # "let's say" (dev21)


def _same_unit_again(words: list[str], end: int, start: int) -> bool:
    """Is the unit said after the first number said again after the next, with only a filler
    between? "a timer for 2 hours, er, 1 hour 40" (dev21) takes the two hours back; "one hour,
    uh, forty minutes" goes on with the length."""
    nxt = numbers_in(words[start:])
    after = start + nxt[0][2] if nxt else start
    return (end < len(words) and words[end] in _UNIT_WORDS and after < len(words)
            and words[after] in _UNIT_WORDS and words[end].rstrip("s") == words[after].rstrip("s"))


#: "..., no, make it two minutes": what comes after takes back every amount said before
#: (a reason may come between: "Volume to 60, no, that'll wake Nana, make it 40.", dev49)
_REDONE = re.compile(r"[,.;]\s*(?:(?:no|nah|sorry|actually|wait|oops)\W+)+(?:[^,.;\d]*[,.;]\s*)?"
                     r"(?:(?:make|call)\s+(?:it|that)|i\s+meant?|change\s+(?:it|that)\s+to)\s+")


def _redone(request: str) -> str | None:
    """"ninety seconds on the timer for the eggs, no, make it two minutes" (dev30: 3 minutes 30
    seconds) -> "on the timer for the eggs two minutes": the amounts before the correction, and
    their units, dropped."""
    m = _REDONE.search(request.lower())
    if m is None or not spoken_numbers(request[m.end():]) or not spoken_numbers(request[:m.start()]):
        return None
    words = TOKEN.findall(request[:m.start()].lower().replace("-", " "))
    drop = {k for i, _, width in numbers_in(words) for k in range(i, i + width)}
    drop |= {k + 1 for k in drop if k + 1 < len(words) and words[k + 1] in _UNIT_WORDS}
    drop |= {k + n for k in drop if words[k + 1:k + 4] == ["and", "a", "half"] for n in (1, 2, 3)}  # "nineteen and a half" (dev61)
    return " ".join([w for k, w in enumerate(words) if k not in drop] + TOKEN.findall(request[m.end():].lower().replace("-", " ")))


#: an amount said to be not meant, after the one that is: "Oops, 20 minutes, not 2 hours." (dev34:
#: a timer of 2 hours 20 minutes)
_NOT_AMOUNT = re.compile(r"\bnot\s+(?:(?:an?|one)\s+(?=hour|minute|second)|(?:\d+(?:\.\d+)?|[a-z]+(?:[\s-][a-z]+)?)\s*)"
                         r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?|degrees?|percent|%)(?!\w)")


#: the words that say the number meant comes next
_MAKE_IT = (["make", "it"], ["make", "that"], ["call", "it"], ["call", "that"])  # "no, call it twenty" (dev61)


#: words that tie the number after them to a new thing, not to the one taken back ("..., no, the
#: oven's on 200")
_TIES = frozenset("to at for and by of from with plus in on off up down".split())


def _said_why_then_redone(between: list[str], last: bool) -> bool:
    """Do the words between two numbers take the first back, say why, then "make it" the second
    ("eighty -- er, no, the baby's asleep upstairs, make it twenty")? When the second number is the
    line's last, it may follow the reason alone ("Heating to twenty-four, ah no, that's mad,
    twenty-two.", "..., hang on, this packet says nine.", dev60), and "too ..." may take the first
    back ("Dim the living room to twenty, hmm, too dark, do thirty-five.", dev60)."""
    lead = [w for w in between[:4] if w not in FILLERS]
    if not (4 <= len(between) <= 14 and lead):
        return False
    if lead[0] in _TAKES_BACK and between[-2:] in _MAKE_IT:
        return True
    return last and (lead[0] in _TAKES_BACK or lead[0] == "too") and between[-1] not in _TIES and between[-1] not in _UNIT_WORDS


def corrected(request: str) -> str | None:
    """``request`` without a number the speaker took back and the words that took it back
    ("Volume to thirty, no wait, forty-five." -> "volume to forty five"; "20 minutes, not 2
    hours" -> "20 minutes"), in lower-case words; None when it takes nothing back."""
    if (redone := _redone(request)) is not None:
        return redone
    said = _NOT_AMOUNT.sub(" ", request.lower())
    words = TOKEN.findall(said.replace("-", " "))  # "twenty's plenty": twenty, s, plenty
    found = numbers_in(words)
    kept = list(words)
    for (i, _, width), (j, _, width_after) in reversed(list(zip(found, found[1:], strict=False))):
        # the unit may come with each number: "5 minutes, no wait, 8 minutes" (dev16; _UNIT_WORDS)
        between = [w for k, w in enumerate(words[i + width:j]) if not (k == 0 and w in _UNIT_WORDS)]
        if between and set(between) <= _CORRECTING and (set(between) & _TAKES_BACK or _same_unit_again(words, i + width, j)
                                                        or between in _MAKE_IT):  # "23, make it 21" (dev49)
            kept = kept[:i] + kept[j:]
        elif _said_why_then_redone(between, last=(last := j == found[-1][0])):
            # "Volume eighty -- er, no, the baby's asleep upstairs, make it twenty." (dev58); the unit
            # said with the first number goes with the second ("eleven minutes -- ..., says nine")
            unit = words[i + width:i + width + 1]
            unsaid = last and unit and unit[0] in _UNIT_WORDS and words[j + width_after:j + width_after + 1] != unit
            kept = kept[:i] + kept[j:j + width_after] + (unit if unsaid else []) + kept[j + width_after:]
    return " ".join(kept) if kept != words or said != request.lower() else None


def fix_unsaid_number(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """A setter's one number that the request does not say, where the request says exactly
    one ("Thermostat, twenty degrees." -> ``temperature=22``), or where the one part of a
    request of several that names the tool's target says one: the number said. Only tools
    that change things: a calculator's number may be worked from the request ("10 %" -> 0.1)."""
    if not changes_things(tool):
        return None
    if (part := own_part(request, tool, arguments)) != request and set(WORD.findall(part.lower())) & (_TOP | _BOTTOM):
        return None  # "kitchen lights to full and the dining room at 50" (dev24): the 50 is the dining room's
    request = heard_numbers(corrected(request) or request)  # a number taken back is not said
    held = [(k, v) for k, v in arguments.items() if is_number(v)]
    said = spoken_numbers(_CLOCK.sub(" ", request))
    if len(said) > 1 and JOIN.search(request):  # "heating to twenty and set a timer for fifteen minutes" (dev12)
        parts = [p for p in JOIN.split(request) if p and {stem(w) for w in WORD.findall(p.lower())} & target_words(tool)]
        if len(parts) == 1:
            return fix_unsaid_number(parts[0], tool, arguments)
    if len(held) != 1 or len(said) != 1 or float(held[0][1]) == said[0] or said_step(request) is not None:
        return None  # "Two degrees cooler." says a step, not the level
    key, _ = held[0]
    number = f"{said[0]:g}"
    schema = properties(tool).get(key)
    bounds = value_range(schema) if schema is not None else None
    # a percent is a rate the call may hold as a fraction ("10 %" -> 0.1), unless the parameter
    # is itself counted up to 100 ("Kitchen lights to sixty, no, wait, eighty percent.", dev15)
    percent = "" if bounds is not None and bounds[0] in (0, 1) and bounds[1] == 100 else "|percent"
    if re.search(rf"\b(?:{TIME_UNITS}|days?|weeks?{percent}|half|quarters?|point)\b|%",
                 request.lower()) or said_shares(request) or any(
            isinstance(v, str) and number in v for v in arguments.values()):
        return None  # a length the call may hold in another unit ("3 minutes" -> 180 s); a share ("two
        # thirds" -> 67: the "two" is not the level); a number of a name
    if schema is None or not _numeric(schema) or (bounds and not bounds[0] <= said[0] <= bounds[1]):
        return None
    if bounds and (end := said_end(request)) is not None and float(held[0][1]) == bounds[end] \
            and not _TO_NUMBER.search(request.lower()):
        return None  # "just mute the thing, it's blasting at like 90" (dev40): the 90 is the level now
    return {**arguments, key: int(said[0]) if float(said[0]).is_integer() else said[0]}


#: a number said as the level to go to ("to 40", "down to like forty"), not the level it is at
_TO_NUMBER = re.compile(rf"\bto\s+(?:(?:like|about|around|roughly)\s+)?(?:\d|(?:{'|'.join([*NUMBER_WORDS[1:], *TENS])})\b)")


def said_hours_minutes(request: str) -> float | None:
    """"one hour twenty" -> 4800 seconds: hours, then a number without a unit (minutes); the
    same a unit down: "a minute thirty" -> 90 (dev42: 30 minutes)."""
    text = request.lower().replace("-", " ")
    for unit, smaller, others in (("hours?", 60, r"minute|min|second|sec"), ("(?:minute|min)s?", 1, r"hour|hr|second|sec")):
        m = re.search(rf"\b{_NUM}\s+{unit}\b,?", text)
        if m is None or re.search(rf"\b(?:{others})s?\b", text):
            continue
        after = _HOURS_THEN.match(text[m.end():])
        words = TOKEN.findall(after.group(1)) if after else []
        then = number_at(words, 0, articles=False) if words else None
        if then is None or not 0 < then[0] < 60:
            continue
        whole = int(m.group(1)) if m.group(1).isdigit() else _SMALL[m.group(1)]
        return (whole * 60 + then[0]) * smaller
    return None
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:to|-|–)\s*(-?\d+(?:\.\d+)?)")


def time_params(tool: Any) -> dict[str, int]:
    """{parameter: seconds per unit} for the tool's numeric parameters named after a time unit."""
    props = properties(tool)
    return {k: SECONDS[k.lower().rstrip("s")] for k, s in props.items()
            if k.lower().rstrip("s") in SECONDS and _numeric(s)}


def declares_number(schema: Any) -> bool:
    """Does the schema's own ``type`` (a name or a list of names) say integer or number?"""
    if not isinstance(schema, Mapping):
        return False
    types = schema.get("type")
    return bool({"integer", "number"} & set(types if isinstance(types, list) else [types]))


def _numeric(schema: Any) -> bool:
    """A number, itself or as one of its ``anyOf`` members (an optional number)."""
    return declares_number(schema) or (isinstance(schema, Mapping)
                                       and any(_numeric(s) for s in schema.get("anyOf") or ()))


def said_seconds(request: str) -> float | None:
    """The one time amount with a fraction the request says, in seconds ("a quarter of an
    hour" -> 900, "an hour and a half" -> 5400), or None (none, or more than one)."""
    text = request.lower().replace("-", " ")
    found = []
    for pattern, read in _AMOUNTS:
        for m in pattern.finditer(text):
            whole, fraction, unit, *times = read(m.groups())
            count = _SMALL.get(times[0], 1) if times and times[0] else 1
            value = (int(whole) if whole.isdigit() else _SMALL[whole]) + count * _FRACTION[fraction]
            found.append((m.span(), value * SECONDS[unit]))
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)  # an amount is read once
    if len(found) != 1 or re.search(rf"\b{_NUM}\s+{_UNIT}\b|\d", text):
        return None  # another amount besides it: not ours to add up
    return found[0][1]


def spread(total: float, units: Mapping[str, int]) -> dict[str, int] | None:
    """``total`` seconds over the unit parameters, largest first (None if it does not fit
    in whole units)."""
    out, left = {}, round(total)
    for key, size in sorted(units.items(), key=lambda kv: -kv[1]):
        out[key], left = divmod(left, size)
    return out if left == 0 else None


#: words before "a"/"an" that make it a share of the unit, not one ("half an hour")
_SHARE_WORDS = frozenset("half quarter third of".split())


#: a time unit said short ("Pizza, 12 min.", dev42: no length read): not in ``SECONDS``, whose
#: keys also name parameters (a "min" parameter is a minimum)
_SHORT_UNIT = {"min": "minute", "hr": "hour", "sec": "second"}


def said_time_total(request: str) -> float | None:
    """Seconds of the lengths said as "N <unit>" ("a hundred and fifty minutes" -> 9000, "2 hours
    10 minutes" -> 7800), when every number the request says is one of them; else None."""
    words = TOKEN.findall(request.lower().replace("-", " "))
    numbers = numbers_in(words)
    lengths = [value * SECONDS[unit] for i, value, width in numbers
               if (unit := _SHORT_UNIT.get(u := (words[i + width] if i + width < len(words) else "").rstrip("s"), u)) in SECONDS]
    if not lengths or len(lengths) != len(numbers):
        return None
    # "an hour and fifteen minutes" (dev13): one of a unit, said with its article; not a share
    # of it ("half an hour", "a quarter of an hour": ``said_seconds`` reads those)
    said_one = [i for i, w in enumerate(words) if w in SECONDS and i > 0 and words[i - 1] in ("a", "an")]
    if any(i > 1 and words[i - 2] in _SHARE_WORDS or words[i + 1:i + 3] in (["and", "a"], ["and", "an"]) for i in said_one):
        return None  # a share besides the lengths ("half an hour and ten minutes"): not a plain total
    # a length said again is one length ("The stew needs two hours. Two-hour timer, please.", dev65: 4 hours)
    return sum(dict.fromkeys(lengths)) + sum(SECONDS[words[i]] for i in said_one)


#: a transcript's homophone of a number right before a time unit ("timer for too hours", "a for
#: minute timer": dev12, session 20; the model read 10 hours and 1 minute)
_HEARD = [(re.compile(rf"\b(?:too|to)\s+(?=(?:{TIME_UNITS})\b)"), "two "),
          (re.compile(rf"\b(?:for|fore)\s+(?=(?:{TIME_UNITS})\b)"), "four "),
          # "set a for our timer" (dev18): "a four hour timer" heard whole; "a for" is said of no other thing
          (re.compile(r"\ba\s+(?:for|fore)\s+(?=our\s+timer\b)"), "a four "),
          # "set a three our timer" (dev13): "hour" heard as "our" right after a number
          (re.compile(r"\b(\d+|" + "|".join([*NUMBER_WORDS[1:], *TENS]) + r")\s+our\b(?=\s+timer\b|\s*[,.!?]?\s*$)"),
           r"\1 hour"),
          # "dim the living room lights two fifty percent", "set the thermostat two twenty" (dev18):
          # "to" heard as "two" before a level in tens
          (re.compile(r"\b(set|dim|turn|put|bring|change|raise|lower|drop|up|down|lights?|lamps?|thermostat|heating"
                      r"|volume|brightness|it|them)\s+two\s+(?=(?:" + "|".join(TENS) + r"|[1-9]\d)\b)"), r"\1 to "),
          (re.compile(r"\bfourty\b"), "forty"), (re.compile(r"\bninty\b"), "ninety"),  # spelt as heard (dev18)
          # a length written short ("Timer 1h30.", "2h15m", "1hr 20", "90m", dev28): its units in words
          (re.compile(r"\b(\d+)\s*(?:h|hrs?)\s*(\d{1,2})\s*(?:m|mins?)?\b"), r"\1 hours \2 minutes"),
          (re.compile(r"\b(\d+)\s*(?:h|hrs?)\b"), r"\1 hours"), (re.compile(r"\b(\d+)\s*m\b"), r"\1 minutes")]


def heard_numbers(request: str) -> str:
    """``request`` with a recogniser's slips mended (``slips.SLIPS``: "twenty too degrees"), a
    homophone of two or four before a time unit read as the number, and of "hour" after a
    number read as the unit."""
    text = mend_slips(request).lower()
    for pattern, number in _HEARD:
        text = pattern.sub(number, text)
    return text


_LENGTH_WORDS = re.compile(rf"\b(?:{TIME_UNITS}|hrs?)\b")
_BARE_LENGTH = frozenset("a an and half quarter quarters of".split())
#: a second thing of the kind said ("another 20 minutes for the potatoes", "a 10 minute one")
_ANOTHER_ONE = re.compile(rf"\b(?:another|timers?)\b|\bone\b(?!\s+(?:{TIME_UNITS}|hrs?|and|half)\b)")


def _bare_length(piece: str) -> bool:
    """Does ``piece`` say a length and nothing else ("30 minutes", "and a half hour")?"""
    return all(w[0].isdigit() or w in NUMBER_WORDS or w in TENS or w in _BARE_LENGTH or _LENGTH_WORDS.fullmatch(w)
               for w in TOKEN.findall(piece.lower()))


def _own_length(request: str, arguments: Mapping[str, Any]) -> str | None:
    """The piece of ``request`` (cut at its joins) that says the call's own length, where
    pieces say two lengths, each with words of its own ("timer 10 minutes for the tea and
    another 20 minutes for the potatoes", dev26: both timers ran 30 minutes): the one piece
    holding the call's free-text value (its label), else None. ``request`` itself when it says
    one length ("1 hour and 30 minutes": the second piece says nothing else; "two minutes and
    thirty seconds for the green tea": no second thing named)."""
    pieces = [p for p in JOIN.split(request) if p.strip() and (_LENGTH_WORDS.search(p.lower()) or (
        _ANOTHER_ONE.search(p.lower()) and spoken_numbers(p)))]  # "... and a garlic bread one for 8" (dev30)
    if len(pieces) < 2 or not any(_ANOTHER_ONE.search(p.lower()) for p in pieces[1:]) or any(map(_bare_length, pieces)):
        return request
    labels = [set(WORD.findall(v.lower())) for v in arguments.values() if isinstance(v, str) and v.strip()]
    named = [p for p in pieces if any(words and words <= set(WORD.findall(p.lower())) for words in labels)]
    return named[0] if len(named) == 1 else None


#: one unit said with "a"/"an" ("an hour"), not a piece of a fraction ("half an hour")
_A_UNIT = re.compile(r"(?<!half\s)(?<!quarter\s)\ban?\s+(hour|minute|second)\b(?!\s+and\s+a)")


def fix_duration(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the duration the request says in words, or None when they hold it
    already (or the request says none we read): a fraction ("an hour and a half"), hours then
    minutes ("one hour twenty"), or lengths each said with its unit ("a hundred and fifty
    minutes" -> 105 minutes before)."""
    request = heard_numbers(corrected(request) or request)  # a length taken back is not said
    units = time_params(tool)
    if (request := _own_length(request, arguments)) is None:
        return None  # two lengths, and the call's is not told apart
    # a fraction, hours then minutes, else every number said as a length with its unit: their sum
    # ("timer for to hours twenty minutes" -> 20 hours 5 seconds, dev14; "to minutes and thirty
    # seconds" -> 30 minutes 30 seconds, dev15)
    total = (said_seconds(request) or said_hours_minutes(request) or said_time_total(request)) if units else None
    if total is None and units and (one := _A_UNIT.sub(r"one \1", request)) != request:
        total = said_time_total(one)  # "Sorry, make it an hour." (dev36: the model's second timer)
    if total is None:
        return None
    held = sum(float(v) * units[k] for k, v in arguments.items()
               if k in units and is_number(v))
    new = spread(total, units)
    if new is None or held == total:
        return None
    return {**{k: v for k, v in arguments.items() if k not in units},
            **{k: v for k, v in new.items() if v or k in arguments}}


def value_range(schema: Any) -> tuple[float, float] | None:
    """(lowest, highest) a numeric parameter allows: its schema's ``minimum``/``maximum``,
    else "A to B" in its description."""
    if not _numeric(schema):
        return None
    parts = [schema, *(s for s in schema.get("anyOf") or () if isinstance(s, Mapping))]
    lo = next((p["minimum"] for p in parts if "minimum" in p), None)
    hi = next((p["maximum"] for p in parts if "maximum" in p), None)
    if lo is None or hi is None:
        m = _RANGE.search(str(schema.get("description") or ""))
        if m is None:
            return None
        lo, hi = (float(m.group(1)) if lo is None else lo), (float(m.group(2)) if hi is None else hi)
    return (lo, hi) if lo < hi else None


def the_ranged_parameter(tool: Any) -> tuple[str, tuple[float, float]] | None:
    """(name, (lowest, highest)) of the tool's one numeric parameter with a range, or None
    when it has none or several (then which one a level means is not ours to guess)."""
    ranged = {k: r for k, s in properties(tool).items() if (r := value_range(s)) is not None}
    return next(iter(ranged.items())) if len(ranged) == 1 else None


#: an end said as a phrase: "right down low" (dev12), "as dim as it'll go" (dev11), "as bright as possible"
_AS_FAR = {"low": "down", "dim": "down", "quiet": "down", "bright": "up", "loud": "up", "high": "up"}
_AS_FAR_AS = re.compile(r"\b(?:right\s+)?down\s+(low)\b|\bas\s+(low|dim|quiet|bright|loud|high)\s+as\s+"
                        r"(?:it(?:'ll|\s+will|\s+can|\s+goes)?(?:\s+go)?|possible|you\s+can)\b")


#: "full" said of a level ("to full", "full brightness", "full blast")
_AT_FULL = re.compile(r"\b(?:to|at|on|up\s+to)\s+full\b|\bfull\s+(?:brightness|volume|blast|power|whack|heat)\b|^\W*full\b"
                      r"|\bfull\W*(?:please\W*)?$")  # "Kitchen lights full." (dev21)


def said_end(request: str) -> int | None:
    """Which end of a range the request names: 1 for the top ("max", "all the way up", "as
    loud as it'll go"), 0 for the bottom ("mute", "lowest"), None for neither or both."""
    low = request.lower()
    words = set(re.findall(r"[a-z]+", low)) | {f"way {m}" for m in re.findall(r"\ball the way (up|down)\b", low)}
    words |= {f"way {_AS_FAR[m.group(1) or m.group(2)]}" for m in _AS_FAR_AS.finditer(low)}
    if not _AT_FULL.search(low):
        words.discard("full")  # "I've got my hands full of laundry" (dev30) is no level
    top, bottom = bool(words & _TOP), bool(words & _BOTTOM)
    return None if top == bottom else 1 if top else 0


def fix_extreme(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the one ranged parameter at the end the call's own part of the
    request names ("max", "lowest"; "kitchen lights to full" of "... and the dining room at
    50", dev24), or None."""
    request = own_part(request, tool, arguments)
    end = said_end(request)
    if end is None or re.search(r"\d", request):
        return None
    if (ranged := the_ranged_parameter(tool)) is None:
        return None
    key, bounds = ranged
    value = bounds[end]
    value = int(value) if float(value).is_integer() else value
    if arguments.get(key) == value:
        return None
    return {**arguments, key: value}


def fix_unsaid_way(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the way up or down that the call's own part of the request says, in
    place of an optional level no part says, on a tool that takes either ("Put on some Taylor
    Swift and turn it up" -> ``set_volume(level=100)``, dev30), or None."""
    part = own_part(request, tool, arguments).lower()
    words = set(WORD.findall(part))
    ways = {1 if w in UP_WORDS else -1 for w in words if w in UP_WORDS | DOWN_WORDS}
    if len(ways) != 1 or spoken_numbers(request) or words & (_TOP | _BOTTOM) or "all the way" in part:
        return None
    props = properties(tool)
    required = set((tool.parameters or {}).get("required") or ())
    levels = [k for k, v in arguments.items() if is_number(v) and not isinstance(v, bool) and k not in required]
    way = "up" if ways.pop() > 0 else "down"
    keys = [k for k, sch in props.items() if {str(v).lower() for v in enum_of(sch)} >= {"up", "down"}]
    if len(levels) != 1 or len(keys) != 1 or arguments.get(keys[0]) == way:
        return None
    return {**{k: v for k, v in arguments.items() if k != levels[0]}, keys[0]: way}


#: where a request joins two actions ("... and put the volume at 30")
JOIN = re.compile(r"\s*(?:,\s*)?\b(?:and then|and also|and(?!\s+an?\s+(?:half|quarter)\b)|then|also|plus)\b\s*|\s*;\s*",
                  re.IGNORECASE)  # not "twenty-one and a half degrees" (dev28: two parts, two calls)


#: a share of a level said in words ("three quarters brightness", "half volume"), not of a time
SHARES = {"half": 0.5, "halfway": 0.5, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75, "a third": 1 / 3,
           "one third": 1 / 3, "two thirds": 2 / 3, "a fifth": 0.2, "one fifth": 0.2, "a tenth": 0.1, "one tenth": 0.1}
_SHARE = re.compile(r"\b(" + "|".join(w.replace(" ", r"\s+") for w in SHARES) + r")\b(?!\s+(?:of\s+)?(?:an?\s+)?"
                    rf"(?:{TIME_UNITS}|days?|weeks?|past|to)\b)")
#: a share said as the level itself ("Volume at half.", "to a fifth", "halfway"), not as a step ("down by half")
_AT_SHARE = re.compile(r"\b(?:(?:at|to)\s+(?:about\s+|around\s+)?(?:" + "|".join(w.replace(" ", r"\s+") for w in SHARES)
                       + r")|halfway)\b")  # "Volume halfway." (dev13): a level, however it is said


def said_shares(request: str) -> list[float]:
    """The shares of a whole the request says ("three quarters" -> 0.75), not of a time."""
    low = " ".join(TOKEN.findall(request.lower().replace("-", " ")))
    return [SHARES[re.sub(r"\s+", " ", m)] for m in _SHARE.findall(low)]


def fix_share(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The one ranged parameter at the share of its top the request says ("Hallway at three
    quarters brightness." -> ``brightness=75``, the model's 3), when the request says no
    number and the call holds one that differs; None otherwise."""
    low = " ".join(TOKEN.findall(request.lower().replace("-", " ")))
    shares = _SHARE.findall(low)
    if len(shares) != 1 or said_numbers(_SHARE.sub(" ", low)) or not changes_things(tool):
        return None
    if (ranged := the_ranged_parameter(tool)) is None:
        return None
    key, (lo, hi) = ranged
    held = arguments.get(key)
    value = round(hi * SHARES[re.sub(r"\s+", " ", shares[0])])
    if held is None and _AT_SHARE.search(low) and lo <= value <= hi:
        # "Volume at half." -> change "down", no level: the level, and no way besides it
        ways = {k for k, sch in properties(tool).items() if {str(v).lower() for v in enum_of(sch)} >= {"up", "down"}}
        return {**{k: (None if k in ways else v) for k, v in arguments.items()}, key: value}
    if not is_number(held) or held == value or not lo <= value <= hi:
        return None
    return {**arguments, key: value}


#: a level said on a scale of its own: "3 out of 10", "seven out of ten"
_OUT_OF = re.compile(rf"\b(\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS[:11])})\s+out\s+of\s+(5|10|five|ten)\b")


def fix_out_of(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The one ranged parameter at the share a level "out of" a scale of its own says ("Set the
    volume to 3 out of 10." -> ``level=30``, dev42: the model's 3), or None."""
    found = _OUT_OF.findall(request.lower())
    if len(found) != 1 or not changes_things(tool) or (ranged := the_ranged_parameter(tool)) is None:
        return None
    said, scale = (float(w) if w[0].isdigit() else NUMBER_WORDS.index(w) for w in found[0])
    key, (lo, hi) = ranged
    value = round(hi * said / scale) if said <= scale else None
    if value is None or not lo <= value <= hi or arguments.get(key) == value or hi == scale:
        return None
    return {**arguments, key: value}


#: words by which a request switches something off (a level said with them may be the old one)
_OFF_WORDS = frozenset("off out kill shut stop disable dark darkness".split())
#: darkness complained of, which wants light, not darkness ("It's way too dark in the office, like
#: 10 percent bright.", dev40: switched off at 10)
_TOO_DARK = re.compile(r"\b(?:too|so|very|really|quite|pretty|bit|rather|getting)\s+dark\b")


def fix_level_switched_off(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """A level the request says, set with the tool's one on/off flag at false ("Take the
    bathroom lamp down to fifteen." -> ``on=False, brightness=15``: the light ends off and the
    reply says so): the flag true, when the request says no word of switching off."""
    flags = boolean_params(tool)
    ranged = the_ranged_parameter(tool)
    if len(flags) != 1 or ranged is None or arguments.get(flags[0]) is not False or not changes_things(tool):
        return None
    key, (lo, _) = ranged
    level = arguments.get(key)
    if not is_number(level) or level <= lo:
        return None
    said = said_numbers(request) | {float(round(ranged[1][1] * share)) for share in said_shares(request)}
    part = _TOO_DARK.sub(" ", own_part(request, tool, arguments).lower())
    if set(WORD.findall(part)) & _OFF_WORDS or float(level) not in said:
        return None
    return {**arguments, flags[0]: True}


_COMMA = re.compile(r"\s*,\s*")


def _chosen_values(tool: Any, arguments: Mapping[str, Any]) -> list[str]:
    """The call's values of its string enum parameters, in lower case (its room, its way)."""
    return [str(v).lower() for k, v in arguments.items()
            if isinstance(v, str) and v.strip() and v in enum_of(properties(tool).get(k))]


def own_part(request: str, tool: Any, arguments: Mapping[str, Any]) -> str:
    """The one piece of ``request`` (cut at its joins and commas) that names the call's own
    enum value ("Kitchen 60" of "Kitchen 60, hallway off." for the kitchen's call); the whole
    request when no piece or several do."""
    chosen = _chosen_values(tool, arguments)
    pieces = [piece for p in JOIN.split(request) for piece in _COMMA.split(p) if piece.strip()]
    named = [piece for piece in pieces if any(f" {v} " in f" {' '.join(WORD.findall(piece.lower()))} " for v in chosen)]
    return named[0] if len(named) == 1 else request


#: a switch parameter's names
_SWITCHES = frozenset({"on", "power", "enabled", "turn_on", "switch_on"})
#: "turn the bedroom light of" (dev12, session 20: a transcript's "of" for "off" at the end; the
#: model switched it on)
_LAST_OF = re.compile(r"\bof\s*(?:,?\s*please)?\s*[.!]*\s*$")
#: ... and inside it: "turn of the hall way light", "turn the lights of in the kitchen" (dev26)
_OF_FOR_OFF = re.compile(r"\bturn\s+of\b(?=\s+(?:the|my|our|all|every|this|that)\b)|\bof\b(?=\s+(?:in|inside|please|now)\b)")


#: words by which a piece of a request switches its own thing off
_PART_OFF = frozenset({"off", "kill"})


def fix_said_off(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The switch at false where the request says "off" and nowhere "on" but the call
    switched on ("Bathroom light off." -> ``on=True``), or where a request of two things says
    "off" or "kill" in the call's own piece and no "on" there ("Kill the kitchen light and pop the
    bedroom one on"); or None."""
    flags = boolean_params(tool)
    if len(flags) != 1 or flags[0].lower() not in _SWITCHES or arguments.get(flags[0]) is not True \
            or not changes_things(tool):
        return None
    words = set(WORD.findall(_OF_FOR_OFF.sub(lambda m: m.group(0).replace("of", "off"), _LAST_OF.sub(" off", request.lower()))))
    part = own_part(request, tool, arguments)
    if part != request and JOIN.search(request):
        # two things asked: the call's own piece says which way ("Kill the kitchen light and pop the
        # bedroom one on, I'm heading up.", dev61: the kitchen light switched on)
        words = set(WORD.findall(part.lower()))
        if not words & _PART_OFF or words & {"on", "up"}:
            return None
    elif "off" not in words or "on" in words or JOIN.search(request):
        return None  # "Kitchen light off and the hallway to 50" asks two things
    ranged = the_ranged_parameter(tool)
    if ranged is not None and is_number(arguments.get(ranged[0])) and float(arguments[ranged[0]]) in said_numbers(request):
        return None  # a level said is a light left on
    return {**arguments, flags[0]: False}


def fix_said_level(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the one ranged parameter the call left empty set to the "to/at N"
    said in the part of the request that names the tool's target or the call's own place, or
    to the one number of a terse part that says nothing else ("Kitchen, 35."), or None."""
    if (ranged := the_ranged_parameter(tool)) is None:
        return None
    key, (lo, hi) = ranged
    if arguments.get(key) is not None:
        return None
    targets = target_words(tool)
    # a part names the call's thing by its target word ("light") or by the call's own place or
    # other enum value ("Bathroom to eighty." -> room "bathroom")
    chosen = _chosen_values(tool, arguments)
    # cut at the joins and the commas: "Kitchen 60, hallway off." (dev19) is a level for the kitchen
    # (each part whole first: "Kitchen, 35." is one)
    parts = JOIN.split(heard_numbers(request))  # "up to fourty" (dev18)
    for part in [piece for p in parts for piece in [p, *(_COMMA.split(p) if "," in p else [])]]:
        said = f" {' '.join(WORD.findall(part))} "
        if not ({stem(w) for w in WORD.findall(part)} & targets or any(f" {v} " in said for v in chosen)
                or ({"up", "down"} & set(chosen) and set(WORD.findall(part)) & (UP_WORDS | DOWN_WORDS))):
            continue  # (a way chosen and a way said: "Louder than that, go to seventy percent.", dev15)
        words = TOKEN.findall(_CLOCK.sub(" ", part).replace("-", " "))  # "at 7 pm" is a time, not a level
        found = [n[0] for i, w in enumerate(words[:-1]) if w in ("to", "at") and (n := number_at(words, i + 1, articles=False))
                 and not set(words[i + 1 + n[1]:i + 2 + n[1]]) & _UNIT_WORDS]
        if not found:  # terse, with no "to" ("Kitchen, 35."): the part's one number, not a step ("up by 20")
            numbers = [(i, n) for i in range(len(words)) if (n := number_at(words, i, articles=False))
                       and (i == 0 or number_at(words, i - 1, articles=False) is None)]
            named = {w for v in chosen for w in WORD.findall(v)} | {"percent"}
            others = [w for w in WORD.findall(part) if w not in GENERIC and w not in FILLERS and w not in named and stem(w) not in targets
                      and not number_at([w], 0, articles=False)]
            if len(numbers) == 1 and not others:  # nothing else said ("... for myself and one other adult")
                i, (value, width) = numbers[0]
                if (words[i - 1] if i else "") not in _NOT_A_LEVEL and not set(words[i + width:i + width + 1]) & _UNIT_WORDS:
                    found = [value]
        if len(found) == 1 and lo <= found[0] <= hi:
            return {**arguments, key: int(found[0]) if float(found[0]).is_integer() else found[0]}
    return None


_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\b\.?|p\.?m\b\.?|o'?clock\b)|\b\d{1,2}:\d{2}\b")
_UNIT_WORDS = frozenset("hour hours minute minutes min mins second seconds degree degrees".split())
#: a number after these is a step or a time, not the level ("up by 20", "for 5", "in 10")
_NOT_A_LEVEL = frozenset("by for in after every than of times".split())
