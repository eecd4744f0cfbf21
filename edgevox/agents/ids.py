"""Tool-call ids the preset's chat template accepts.

Model-emitted ids are kept verbatim (Mistral's templates check them against the results);
otherwise an id is synthesised in the preset's style: ``mistral9`` = 9 characters of
[A-Za-z0-9] (Mistral templates reject anything else), ``random`` = ``call_`` + 8 hex
digits (OpenAI-like), ``none`` = the template ignores ids; ``call_`` + hex is used so the
history still pairs calls with results.
"""

from __future__ import annotations

import re
import secrets
import string

_ALNUM = string.ascii_letters + string.digits
MISTRAL9 = re.compile(r"^[A-Za-z0-9]{9}$")


def new_call_id(style: str) -> str:
    """A fresh id in the preset's ``call_ids`` style."""
    if style == "mistral9":
        return "".join(secrets.choice(_ALNUM) for _ in range(9))
    return "call_" + secrets.token_hex(4)


def valid_call_id(call_id: object, style: str) -> bool:
    """Whether an id fits the style (non-Mistral styles accept any short printable id)."""
    if not isinstance(call_id, str) or not call_id:
        return False
    if style == "mistral9":
        return bool(MISTRAL9.match(call_id))
    return len(call_id) <= 64 and call_id.isprintable()


def assign_ids(model_ids: list[str | None], style: str, taken: set[str]) -> list[str]:
    """One id per call: the model's own when present and unused, else a fresh one.

    ``taken`` (ids already used in this conversation) is updated in place. A model id
    that is invalid for a strict style (mistral9) is replaced: the template would
    otherwise refuse the whole history on the next hop.
    """
    out = []
    for mid in model_ids:
        if mid and mid not in taken and (style != "mistral9" or valid_call_id(mid, style)):
            cid = mid
        else:
            cid = new_call_id(style)
            while cid in taken:
                cid = new_call_id(style)
        taken.add(cid)
        out.append(cid)
    return out
