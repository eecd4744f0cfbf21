"""Confidence of a call, and asking before acting.

The decoding loop reports, for the first sampled tokens of a generation, the
log-probability of the chosen token and of the best other token the grammar allowed
(``Completion.info["decisions"]``). A call's **confidence** is the smallest of those
margins over the tokens that chose it: from the start of the reply (answer in words or
call?) through the end of its name (which tool?). Tokens the grammar forced are not
choices and do not count; steps inside the arguments do not either.

Below the agent's ``confirm_below`` threshold -- or always, for ``@tool(confirm=True)`` --
the call is not run: the agent asks a one-line question and keeps the call pending in
the session; a yes next turn runs it, a no drops it, anything else drops it and is
handled as a new request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["call_confidences", "question_for", "yes_or_no", "PENDING_KEY"]

#: where a session keeps the calls waiting for the user's yes or no
PENDING_KEY = "pending_calls"

_YES = re.compile(r"^(yes|yeah|yep|yup|sure|ok|okay|please|please do|do it|go ahead|correct|right|"
                  r"that's right|affirmative|absolutely|of course)\b", re.IGNORECASE)
_NO = re.compile(r"^(no|nope|nah|don't|do not|cancel|stop|never ?mind|forget it|not now|wrong)\b",
                 re.IGNORECASE)


def call_confidences(text: str, names: Sequence[str], decisions: Sequence[Mapping[str, Any]] | None
                     ) -> list[float | None]:
    """The confidence of each call (by name, in order) written in ``text``: the smallest
    chosen-minus-best-alternative log-probability among the sampled tokens that chose it --
    for the first call everything from the start of the reply through its name (answer or
    call, then which tool), for later ones the tokens of their name. None when nothing was
    measured (no decisions reported, the name is not in the text, or every token was forced)."""
    out: list[float | None] = []
    if not decisions:
        return [None] * len(names)
    cursor = 0
    for name in names:
        at = text.find(name, cursor)
        if at < 0:
            out.append(None)
            continue
        end = at + len(name)
        start = 0 if cursor == 0 else max(cursor, at - 2)  # a token may carry the opening quote
        margins = [float(d["logprob"]) - float(d["alt_logprob"]) for d in decisions
                   if start <= int(d["at"]) < end]
        out.append(min(margins) if margins else None)
        cursor = end
    return out


def yes_or_no(text: str) -> bool | None:
    """True for a yes, False for a no, None when the words are neither."""
    words = text.strip().strip(".!?,").strip()
    if _NO.match(words):
        return False
    if _YES.match(words):
        return True
    return None


def question_for(tool: Any, name: str, arguments: Mapping[str, Any], description: str = "") -> str:
    """The one-line question asked before running a call.

    ``@tool(confirm="Unlock the {door} door?")`` words it itself; otherwise it is made of
    the tool's description and the arguments: "Do you want me to: turn the light in a room
    on or off (room kitchen, on yes)?"
    """
    custom = getattr(tool, "confirm", None)
    if isinstance(custom, str) and custom.strip():
        try:
            return custom.format_map({k: _spoken(v) for k, v in arguments.items()})
        except (KeyError, IndexError, ValueError):
            pass  # a field the call did not fill: fall back to the generic question
    text = (description or getattr(tool, "description", "") or name.replace("_", " ")).strip()
    from edgevox.agents.demonstrations import first_sentence

    first = first_sentence(text).rstrip(".!? ")
    first = first[:1].lower() + first[1:]
    spelled = ", ".join(f"{k.replace('_', ' ')} {_spoken(v)}" for k, v in arguments.items() if v is not None)
    return f"Do you want me to {first}" + (f" ({spelled})" if spelled else "") + "?"


def _spoken(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_spoken(v) for v in value)
    return str(value)
