"""Text helpers for what gets spoken: strip markup, spot JSON dumps, say a value aloud."""

from __future__ import annotations

import json
import re
from typing import Any

from edgevox.parsing.markup import MarkupFilter

_SPACES = re.compile(r"[ \t]+")
_BLANKS = re.compile(r"\n{3,}")


def speech_filter() -> MarkupFilter:
    """The markup filter for an agent's reply (the one the voice uses, with a fenced
    sentence's words, JSON and markdown handled for a reply): feed it streamed text."""
    return MarkupFilter(keep_code=True, keep_json=True, markdown=True)


def clean_markup(text: str) -> str:
    """Remove think blocks, tags, special tokens, call markup the parser left, code fences
    and markdown; keep the words (inside a fence too: a model sometimes fences a plain
    sentence) and whitespace. The one-shot use of :func:`speech_filter`."""
    return speech_filter().whole(text) if text else ""


def strip_markup(text: str) -> str:
    """``clean_markup`` plus tidy whitespace: the text a TTS should read.

    Whole-JSON replies are the echo guard's business, not this function's.
    """
    out = _SPACES.sub(" ", clean_markup(text))
    out = _BLANKS.sub("\n\n", out)
    return "\n".join(line.strip() for line in out.splitlines()).strip()


def has_markup(text: str) -> bool:
    """True when ``strip_markup`` would change more than whitespace."""
    return _norm(strip_markup(text)) != _norm(text)


def _norm(text: str) -> str:
    return " ".join(text.split())


_JSONISH_CHARS = set('{}[]":,')


def json_payload(text: str) -> Any | None:
    """The JSON value a reply consists of (fences allowed), or None if it is prose.

    "Mostly JSON": the reply, without fences, decodes as a JSON object/array, or more
    than half of its characters sit inside one ``{…}``/``[…]`` block that decodes.
    """
    s = text.strip()
    if not s:
        return None
    s = re.sub(r"^```[A-Za-z0-9_]*\s*|\s*```$", "", s).strip()
    for candidate in (s, _largest_block(s)):
        if not candidate:
            continue
        if candidate is not s and len(candidate) < 0.5 * len(s):
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, (dict, list)) and value:
            return value
    return None


_DECODER = json.JSONDecoder()
_FENCE_LINE = re.compile(r"```[A-Za-z0-9_]*")


def json_opens(text: str, i: int) -> bool:
    """Whether ``text[i]`` opens JSON rather than prose (``{"…``, ``{}``, ``[{``, ``["`` …).
    The echo guard's stream hold judges a streamed ``{``/``[`` by the same rule as
    :func:`split_json`, so what it holds back is what the reply has cut out."""
    rest = text[i + 1:i + 40].lstrip()
    if text[i] == "{":
        return rest[:1] in ('"', "}")
    return rest[:1] in ('{', '"', "[", "]")


def split_json(text: str) -> tuple[str, list[Any]]:
    """Cut JSON objects/arrays out of a reply: (the prose left, the values removed).

    A block that does not decode (cut off by the token limit) is removed to the end of the
    text and reported as None. Code fences around JSON go with it.
    """
    s = _FENCE_LINE.sub("", text)
    prose: list[str] = []
    values: list[Any] = []
    i, n = 0, len(s)
    while i < n:
        starts = [j for j in (s.find("{", i), s.find("[", i)) if j != -1]
        if not starts:
            prose.append(s[i:])
            break
        j = min(starts)
        if not json_opens(s, j):
            prose.append(s[i:j + 1])
            i = j + 1
            continue
        prose.append(s[i:j])
        try:
            value, end = _DECODER.raw_decode(s, j)
        except ValueError:
            values.append(None)
            break
        values.append(value)
        i = end
    return " ".join("".join(prose).split()), values


def _largest_block(s: str) -> str | None:
    starts = [i for i in (s.find("{"), s.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    close = "}" if s[start] == "{" else "]"
    end = s.rfind(close)
    return s[start:end + 1] if end > start else None


def is_error_payload(value: Any) -> bool:
    """A tool-error JSON as the tools package writes it (``{"error": …, "error_type": …}``)."""
    return isinstance(value, dict) and "error" in value and ("error_type" in value or len(value) <= 2)


def summarise(value: Any, limit: int = 160) -> str:
    """A tool value said aloud: ``{"temp_c": 21, "sky": "sunny"}`` -> "temp c 21, sky sunny"."""
    text = _say(value, depth=0)
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;")
        text = cut + " and more"
    return text or "nothing"


def _say(value: Any, depth: int) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value
    if depth >= 2:
        return ""
    if isinstance(value, dict):
        parts = []
        for k, v in list(value.items())[:5]:
            said = _say(v, depth + 1)
            if said:
                parts.append(f"{str(k).replace('_', ' ')} {said}")
        return ", ".join(parts)
    if isinstance(value, (list, tuple)):
        parts = [p for p in (_say(v, depth + 1) for v in list(value)[:4]) if p]
        return "; ".join(parts)
    return str(value)


_OPENER = r"(?:(?:sure|yes|yeah|of course|certainly|absolutely|ok(?:ay)?|great|alright)[,!.]?\s+)?"
#: "I can help" with nothing after it, or only words that point back at the request ("with
#: that", "you solve these equations"); "I can help with timers and lights." says something
_OFFER = (r"(?:i\s+can\s+help|i(?:'d|\s+would)\s+be\s+(?:happy|glad)\s+to\s+help|i(?:'ll|\s+will)\s+help"
          r"|let\s+me\s+help)(?:(?:\s+[\w']+){0,8}?\s+(?:that|this|these|those|it|them)(?:\s+[\w']+){0,3})?\s*[.!]"
          r"|here\s+(?:is|are)\b[^.!?:]*:")
_EMPTY_PROMISE = re.compile(rf"^\s*{_OPENER}(?:{_OFFER})\s*$", re.IGNORECASE)


def empty_promise(text: str) -> bool:
    """Whether a reply only promises help and gives none: "Sure, I can help with that.",
    "Sure, here are the areas of the shapes:" with nothing after the colon.

    Why: measured on BFCL parallel/parallel_multiple 50-99 (Qwen2.5-Coder-0.5B, the agent's
    envelope), 7 of the 100 requests, all needing calls, got such a reply and no call -- the model
    meant to act and wrote nothing to act on. A reply that asks something back ("Sure, what
    would you like?") or says anything more is not one.
    """
    return bool(_EMPTY_PROMISE.match(text or ""))
