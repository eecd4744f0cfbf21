"""Tool-call ids the preset's chat template accepts.

Model-emitted ids are kept verbatim (Mistral's templates check them against the results);
otherwise an id is synthesised in the preset's style: ``mistral9`` = 9 characters of
[A-Za-z0-9] (Mistral templates reject anything else), ``random`` = ``call_`` + 8 hex
digits (OpenAI-like), ``stable`` = ``call_`` + 24 hex digits derived from the turn, the
call's name and arguments (the envelope format: a retried hop that makes the same call
gets the same id, so whatever refers to it -- receipts, tool results -- still pairs up),
``none`` = the template ignores ids; ``call_`` + hex is used so the history still pairs
calls with results.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import string
from collections.abc import Sequence
from typing import Any

_ALNUM = string.ascii_letters + string.digits
MISTRAL9 = re.compile(r"^[A-Za-z0-9]{9}$")


def new_call_id(style: str) -> str:
    """A fresh id in the preset's ``call_ids`` style."""
    if style == "mistral9":
        return "".join(secrets.choice(_ALNUM) for _ in range(9))
    if style == "stable":
        return "call_" + secrets.token_hex(12)
    return "call_" + secrets.token_hex(4)


def stable_call_id(seed: str, name: str, arguments: Any, n: int = 0) -> str:
    """``call_`` + 24 hex digits, the same for the same (seed, name, arguments, n)."""
    key = json.dumps([seed, name, arguments, n], sort_keys=True, ensure_ascii=False, default=repr)
    return "call_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def valid_call_id(call_id: object, style: str) -> bool:
    """Whether an id fits the style (non-Mistral styles accept any short printable id)."""
    if not isinstance(call_id, str) or not call_id:
        return False
    if style == "mistral9":
        return bool(MISTRAL9.match(call_id))
    return len(call_id) <= 64 and call_id.isprintable()


def assign_ids(model_ids: list[str | None], style: str, taken: set[str], *,
               calls: Sequence[tuple[str, Any]] | None = None, seed: str = "") -> list[str]:
    """One id per call: the model's own when present and unused, else a fresh one.

    ``taken`` (ids already used in this conversation) is updated in place. A model id
    that is invalid for a strict style (mistral9) is replaced: the template would
    otherwise refuse the whole history on the next hop. With the ``stable`` style and
    ``calls`` ((name, arguments) per call), fresh ids derive from ``seed`` and the call.
    """
    out = []
    for k, mid in enumerate(model_ids):
        if mid and mid not in taken and (style != "mistral9" or valid_call_id(mid, style)):
            cid = mid
        elif style == "stable" and calls is not None:
            name, args = calls[k]
            n = 0
            cid = stable_call_id(seed, name, args)
            while cid in taken:
                n += 1
                cid = stable_call_id(seed, name, args, n)
        else:
            cid = new_call_id(style)
            while cid in taken:
                cid = new_call_id(style)
        taken.add(cid)
        out.append(cid)
    return out
