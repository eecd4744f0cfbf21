"""What of a model's text may be spoken: the one markup filter, streaming.

The parser already cuts call markup and think blocks out of a reply's ``content``; what a
model still writes around them (stray tags, special tokens, Mistral's ``[INST]``, an
unclosed ``<think>``, a call opener the parser could not read, code fences, JSON,
markdown) must never reach a speaker. Two callers use the same filter:

- the voice (``edgevox.voice.text``): everything that is not prose goes, code and JSON
  included; markdown is left to the sentence splitter, which sees whole lines;
- the agent's speakable hook (``edgevox.agents.speech``): a fenced block's words stay (a
  small model sometimes fences a plain sentence), JSON stays (the echo guard judges a
  JSON reply), markdown emphasis, headings and bullets go.

Feeding a text whole or in any pieces gives the same output: every decision looks only at
text already received, and what could still turn into markup is held back until it is
decided (``flush`` decides the rest). The call openers come from ``edgevox.formats``.
"""

from __future__ import annotations

import re

from edgevox.formats import call_openers, mistral

_SKIP_TAGS = ("think", "thinking", "reasoning", "reflection", "scratchpad", "tool_call",
              "tool_code", "tool_response", "function_call", "functions", "tools")
_TAG = re.compile(r"</?([A-Za-z][\w:-]*)(\s[^<>]*)?/?>")
# Call openers of every dialect after which nothing is speech, except plain tags the tag
# rule skips to their closing tag (<tool_call>…</tool_call>).
_DROP_REST = tuple(o for o in call_openers()
                   if not ((m := _TAG.fullmatch(o)) and m.group(1) in _SKIP_TAGS))
_SPECIAL = re.compile(r"<\|[^<>|]{1,40}\|>|<[^<>\s]{1,40}\|>")
#: a chat template's role names: right after a special token they are its header
#: (``<|im_start|>system``), not words of the reply
ROLES = ("system", "user", "assistant", "tool", "ipython", "developer")
_ROLE = re.compile(r"[ \t]*(" + "|".join(ROLES) + r")\b")
#: Mistral's control tokens (``[INST]``, ``[/INST]``, …): never words
_BRACKET_TOKENS = tuple(f"[{s}{t}]" for t in mistral.CONTROL for s in ("", "/"))
_MAX_TAG = 64
_TAG_START = re.compile(r"<[/|!]?[\w|:-]*")
_TAG_LIKE = re.compile(r"<[/|A-Za-z!]")
_FENCE_LINE = re.compile(r"```[A-Za-z0-9_+\-]*[ \t]*\n?")
_HEADING = re.compile(r"#{1,6}\s+")


class MarkupFilter:
    """Streaming removal of reasoning, call markup, special tokens, tags, code and JSON.

    ``keep_code``: a fenced block's words stay, only the fences and backticks go.
    ``keep_json``: JSON objects and lists stay. ``markdown``: ``**``/``__`` emphasis,
    ``#`` headings and ``-``/``*`` bullets at a line start go too.
    """

    def __init__(self, *, keep_code: bool = False, keep_json: bool = False, markdown: bool = False) -> None:
        self.keep_code, self.keep_json, self.markdown = keep_code, keep_json, markdown
        self._openers = re.compile(r"[<`{\[*_#-]" if markdown else r"[<`{\[]")
        self._buf = ""
        self._state = "text"   # text | skip_tag | fence | brace | drop
        self._close = ""       # closing marker while in skip_tag
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._line = ""        # output since the last newline (markdown line-start rules)

    def feed(self, piece: str) -> str:
        self._buf += piece
        return self._drain(final=False)

    def flush(self) -> str:
        out = self._drain(final=True)
        self._buf = ""
        return out

    def whole(self, text: str) -> str:
        """``text`` fed at once, then flushed: the one-shot use (of a fresh filter)."""
        return self.feed(text) + self.flush()

    def _put(self, out: list[str], s: str) -> None:
        if s:
            out.append(s)
            if self.markdown:
                k = s.rfind("\n")
                self._line = s[k + 1:] if k >= 0 else self._line + s

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        b = self._buf
        i = 0
        while i < len(b):
            st = self._state
            if st == "drop":
                i = len(b)
                break
            if st == "skip_tag":
                j = b.find(self._close, i)
                if j < 0:
                    # keep a tail that might be the start of the closing marker
                    i = max(i, len(b) - len(self._close) + 1) if not final else len(b)
                    break
                i = j + len(self._close)
                self._state = "text"
                self._put(out, " ")
                continue
            if st == "fence":
                j = b.find("```", i)
                if j < 0:
                    i = max(i, len(b) - 2) if not final else len(b)
                    break
                i = j + 3
                self._state = "text"
                self._put(out, " ")
                continue
            if st == "brace":
                i = self._skip_json(b, i)
                if self._depth == 0:
                    self._state = "text"
                    self._put(out, " ")
                continue
            # text state: copy up to the next character that may start markup
            m = self._openers.search(b, i)
            if m is None:
                self._put(out, b[i:])
                i = len(b)
                break
            self._put(out, b[i:m.start()])
            i = m.start()
            step = self._markup_at(b, i, final)
            if step is None:  # undecidable until more text arrives
                break
            i = step[0]
            self._put(out, step[1])
        self._buf = b[i:]
        return "".join(out)

    def _skip_json(self, b: str, i: int) -> int:
        while i < len(b) and self._depth > 0:
            c = b[i]
            if self._in_str:
                if self._esc:
                    self._esc = False
                elif c == "\\":
                    self._esc = True
                elif c == '"':
                    self._in_str = False
            elif c == '"':
                self._in_str = True
            elif c in "{[":
                self._depth += 1
            elif c in "}]":
                self._depth -= 1
            i += 1
        return i

    def _markup_at(self, b: str, i: int, final: bool) -> tuple[int, str] | None:
        """Decide what markup starts at b[i]; return (next index, replacement) or None."""
        rest = b[i:]
        for marker in _DROP_REST:
            if rest.startswith(marker):
                self._state = "drop"
                return len(b), " "
            if marker.startswith(rest) and not final:
                return None
        c = b[i]
        if c == "`":
            return self._backtick(b, i, rest, final)
        if c == "{":
            if self.keep_json:
                return i + 1, "{"
            self._state, self._depth, self._in_str, self._esc = "brace", 1, False, False
            return i + 1, " "
        if c == "[":
            return self._bracket(i, rest, final)
        if c == "<":
            return self._angle(b, i, rest, final)
        return self._markdown(b, i, rest, final)

    def _backtick(self, b: str, i: int, rest: str, final: bool) -> tuple[int, str] | None:
        if rest.startswith("```"):
            if self.keep_code:  # drop the fence line, keep what it fences
                m = _FENCE_LINE.match(b, i)
                if m.end() == len(b) and not final:
                    return None
                return m.end(), ""
            nl = b.find("\n", i + 3)  # the fence's language tag is part of the fence
            if nl < 0 and not final:
                return None
            self._state = "fence"
            return (nl + 1 if nl >= 0 else len(b)), " "
        if len(rest) < 3 and not final and rest == "`" * len(rest):
            return None
        return i + 1, "" if self.keep_code else "`"

    def _bracket(self, i: int, rest: str, final: bool) -> tuple[int, str] | None:
        for tok in _BRACKET_TOKENS:
            if rest.startswith(tok):
                return i + len(tok), " "
            if tok.startswith(rest) and not final:
                return None
        if not self.keep_json and (rest.startswith("[{") or rest.startswith("[ {")):
            self._state, self._depth, self._in_str, self._esc = "brace", 1, False, False
            return i + 1, " "
        if len(rest) < 3 and not final:
            return None
        return i + 1, "["

    def _angle(self, b: str, i: int, rest: str, final: bool) -> tuple[int, str] | None:
        m = _SPECIAL.match(b, i)
        if m:
            j = m.end()
            role = _ROLE.match(b, j)
            if role and (final or role.end() < len(b)):
                return role.end(), " "
            tail = b[j:].lstrip(" \t")
            if not final and (role or any(r.startswith(tail) for r in ROLES)):
                return None  # a role name may still be arriving (or go on: "systematic")
            return j, " "
        m = _TAG.match(b, i)
        if m:
            name = m.group(1).lower()
            closing = b[i + 1] == "/"
            if not closing and name in _SKIP_TAGS and not m.group(0).endswith("/>"):
                self._state, self._close = "skip_tag", f"</{m.group(1)}>"
            return m.end(), " "
        if _TAG_LIKE.match(rest + "x"):
            if ">" not in rest[:_MAX_TAG] and len(rest) < _MAX_TAG and not final:
                return None  # looks like a tag still arriving
            m = _TAG_START.match(b, i)  # a tag that never closes (cut off): drop its name
            if m:
                return m.end(), " "
        return i + 1, "<"

    def _markdown(self, b: str, i: int, rest: str, final: bool) -> tuple[int, str] | None:
        """``*``, ``_``, ``#`` or ``-`` (only seen with ``markdown``)."""
        c = b[i]
        if len(rest) < 2 and not final:
            return None
        if c in "*_" and rest.startswith(c * 2):
            return i + 2, ""
        at_start = not self._line.strip()
        if c == "#" and not self._line:
            m = _HEADING.match(b, i)
            if m is None:
                if not final and len(rest) <= 6 and rest == "#" * len(rest):
                    return None
                return i + 1, "#"
            if m.end() == len(b) and not final:
                return None  # more blanks may follow
            return m.end(), ""
        if c in "-*" and at_start and rest[1:2].isspace():
            j = i + 1
            while j < len(b) and b[j].isspace():
                j += 1
            if j == len(b) and not final:
                return None
            return j, ""
        return i + 1, c
