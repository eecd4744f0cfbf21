"""Reply text for a speaker: markup filter, streaming sentence splitter, normaliser.

Reply text arrives from the agent in arbitrary pieces. Three stages turn it into
sentences Piper can say:

1. `MarkupFilter` (streaming, ``edgevox.parsing.markup``: the one markup filter, shared
   with the agent) removes what must never be spoken: reasoning (`<think>…</think>`, also
   unclosed), tool-call markup (`<tool_call>…`, `<|python_tag|>…`, `[TOOL_CALLS]…`), code
   fences, JSON objects, special tokens and HTML-like tags.
2. `SentenceSplitter` (streaming) emits each sentence as soon as it is certainly complete,
   knowing about abbreviations ("Dr.", "e.g."), decimals ("3.5"), thousands ("1,000"),
   list items and markdown; the first sentence of a reply is cut at a clause when it is
   long, so the first audio starts early. Every decision looks only at text already
   received (never "the buffer happens to end here"), so any split of the same reply
   gives the same sentences.
3. `normalize_for_speech` spells out units and symbols ("21°C", "5 km", "$3.50", "&").
   espeak-ng (inside Piper) already reads digits, times and ordinals well, so this stays
   deliberately small.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from edgevox.parsing.markup import MarkupFilter

__all__ = ["MarkupFilter", "SentenceSplitter", "clean_markdown", "normalize_for_speech", "split_sentences", "strip_markup"]

# ----------------------------------------------------------------------------- markup


def strip_markup(text: str) -> str:
    """One-shot `MarkupFilter` over a complete text."""
    return MarkupFilter().whole(text)


# ----------------------------------------------------------------------------- markdown

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"\bhttps?://\S+|\bwww\.\S+")
_LIST = re.compile(r"^\s*(?:[-*+•◦▪]|\d{1,3}[.)]|[A-Za-z][.)](?=\s))\s+")
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D\u2B00-\u2BFF]")


def clean_markdown(s: str) -> str:
    """Markdown of one sentence/line to plain speakable text."""
    s = _LINK.sub(r"\1", s)
    s = _URL.sub(" ", s)
    s = re.sub(r"^\s*#{1,6}\s*", "", s)
    s = re.sub(r"^\s*>+\s*", "", s)
    s = re.sub(r"^\s*([-*_=])(\s*\1){2,}\s*$", "", s)  # horizontal rule
    s = _LIST.sub("", s)
    s = s.replace("`", "")
    s = re.sub(r"(?<!\w)[*_~]+|[*_~]+(?!\w)", "", s)   # emphasis markers, not snake_case
    s = s.replace("|", " ")
    s = _EMOJI.sub("", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s+([,.;:!?])", r"\1", s)
    s = re.sub(r"<(?=\S)", "", s).strip()  # cleaning can glue a stray "<" to a word
    if s and s[-1].isalnum():
        s += "."
    return s if re.search(r"[A-Za-z0-9]", s) else ""


# ----------------------------------------------------------------------------- splitter

_NEVER_END = {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "e.g", "i.e", "cf",
              "approx", "fig", "dept", "est", "gen", "col", "lt", "sgt", "rev", "ca"}
_MAYBE_END = {"etc", "a.m", "p.m", "inc", "ltd", "co", "corp", "al", "jan", "feb", "mar", "apr",
              "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
_TERMINALS = ".!?…"
_CLOSERS = "\"')]}*_”’»"
_CLAUSE = ",;:"


class SentenceSplitter:
    """Streaming sentence splitter: feed pieces, get complete sentences as soon as they are sure.

    `min_clause_words`: the first sentence is cut at a clause mark (`,;:` or a dash) after
    at least that many words, for early first audio; `max_chars` caps any sentence.
    """

    def __init__(self, min_clause_words: int = 6, max_chars: int = 280, strip: bool = True):
        self.min_clause_words = min_clause_words
        self.max_chars = max_chars
        self._filter = MarkupFilter() if strip else None
        self._buf = ""
        self._pos = 0          # scan position inside _buf
        self.emitted = 0

    def feed(self, piece: str) -> list[str]:
        self._buf += self._filter.feed(piece) if self._filter else piece
        return self._split(final=False)

    def flush(self) -> list[str]:
        if self._filter:
            self._buf += self._filter.flush()
        out = self._split(final=True)
        rest = self._buf
        self._buf, self._pos = "", 0
        return out + self._emit(rest)

    def _emit(self, raw: str) -> list[str]:
        s = clean_markdown(raw)
        if not s:
            return []
        self.emitted += 1
        return [s]

    def _cut(self, end: int) -> list[str]:
        raw, self._buf, self._pos = self._buf[:end], self._buf[end:], 0
        return self._emit(raw)

    def _split(self, final: bool) -> list[str]:
        out: list[str] = []
        while True:
            cut = self._find(final)
            if cut is None:
                return out
            out.extend(self._cut(cut))

    def _find(self, final: bool) -> int | None:
        """Index just past the next certain boundary, or None if none is certain yet."""
        b = self._buf
        i = self._pos
        while i < len(b):
            c = b[i]
            if c == "\n":
                return i + 1
            if c in _TERMINALS:
                j = i
                while j < len(b) and (b[j] in _TERMINALS or b[j] in _CLOSERS):
                    j += 1
                if j == len(b):
                    if final:
                        return None  # the rest is emitted by flush
                    self._pos = i
                    return None  # need to see what follows
                if not b[j].isspace():
                    i = j
                    continue
                if b[i] in "!?…":  # always a sentence end: no need to see what follows
                    return j
                k = j
                while k < len(b) and b[k] in " \t":
                    k += 1
                if k == len(b) and not final:
                    self._pos = i
                    return None
                nxt = b[k] if k < len(b) else ""
                if self._is_boundary(b, i, nxt):
                    return j
                i = j
                continue
            if (c in _CLAUSE or c in "—–") and self.emitted == 0 and self.min_clause_words:
                if i + 1 == len(b):
                    self._pos = i
                    return None
                if b[i + 1].isspace() and (c != "–" or b[i - 1:i] == " ") and \
                        len(_words(b[:i])) >= self.min_clause_words:
                    return i + 1
            if c == "-" and self.emitted == 0 and self.min_clause_words and b[i - 1:i] == " ":
                if i + 1 == len(b):
                    self._pos = i
                    return None
                if b[i + 1] == " " and len(_words(b[:i])) >= self.min_clause_words:
                    return i + 1
            if i >= self.max_chars:
                return _soft_cut(b, self.max_chars)
            i += 1
        self._pos = i
        return None

    def _is_boundary(self, b: str, i: int, nxt: str) -> bool:
        """Is the terminal punctuation at b[i] the end of a sentence, given the next char?"""
        if b[i] in "!?…":
            return True
        if b[i:i + 3] == "...":
            return not nxt.islower()
        line = b[:i].rsplit("\n", 1)[-1]
        if re.fullmatch(r"\s*\d{1,3}", line) or re.fullmatch(r"\s*[A-Za-z]", line):
            return False  # list marker "1." / "a." at the start of a line
        m = re.search(r"([A-Za-z][A-Za-z.]*)$", b[:i])
        word = m.group(1).lower() if m else ""
        if word in _NEVER_END or (word in ("no", "nos") and nxt[:1].isdigit()):
            return False
        if len(word) == 1 and b[i - 1].isupper() and nxt[:1].isupper():
            return False  # an initial: "J. Smith"
        if word in _MAYBE_END or nxt.islower():
            return not nxt.islower() and nxt != ""
        return True


def _words(s: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9']+", s)


def _soft_cut(b: str, limit: int) -> int:
    """Where to cut an over-long sentence: last clause mark, else last space, before limit."""
    head = b[:limit]
    for pat in (r"[,;:]\s", r"\s"):
        ms = list(re.finditer(pat, head))
        if ms:
            return ms[-1].end()
    return limit


def split_sentences(text: str | Iterable[str], **kw) -> list[str]:
    """All sentences of a complete reply (a string or an iterable of pieces)."""
    sp = SentenceSplitter(**kw)
    pieces = [text] if isinstance(text, str) else text
    out: list[str] = []
    for p in pieces:
        out.extend(sp.feed(p))
    return out + sp.flush()


# ----------------------------------------------------------------------------- normaliser

_UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"), "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"), "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"), "mm": ("millimeter", "millimeters"),
    "kg": ("kilogram", "kilograms"), "mg": ("milligram", "milligrams"), "lbs": ("pound", "pounds"),
    "lb": ("pound", "pounds"), "ml": ("milliliter", "milliliters"), "mL": ("milliliter", "milliliters"),
    "kWh": ("kilowatt hour", "kilowatt hours"), "kW": ("kilowatt", "kilowatts"),
    "GB": ("gigabyte", "gigabytes"), "MB": ("megabyte", "megabytes"), "KB": ("kilobyte", "kilobytes"),
    "TB": ("terabyte", "terabytes"), "GHz": ("gigahertz", "gigahertz"), "MHz": ("megahertz", "megahertz"),
    "kHz": ("kilohertz", "kilohertz"), "Hz": ("hertz", "hertz"), "ft": ("foot", "feet"),
    "mi": ("mile", "miles"), "hrs": ("hour", "hours"), "hr": ("hour", "hours"),
    "mins": ("minute", "minutes"), "min": ("minute", "minutes"), "secs": ("second", "seconds"),
    "sec": ("second", "seconds"), "ms": ("millisecond", "milliseconds"),
}
# single letters are only units after a space ("5 m"), never glued on ("1990s", "5G")
_SPACED_UNITS = {"m": ("meter", "meters"), "g": ("gram", "grams"), "s": ("second", "seconds"),
                 "h": ("hour", "hours"), "l": ("liter", "liters"), "L": ("liter", "liters"),
                 "W": ("watt", "watts"), "V": ("volt", "volts")}
_NUM = r"(-?\d+(?:\.\d+)?)"
_CURRENCY = {"$": ("dollar", "dollars", "cent", "cents"), "€": ("euro", "euros", "cent", "cents"),
             "£": ("pound", "pounds", "penny", "pence")}
_ABBREV = [(r"\be\.g\.", "for example"), (r"\bi\.e\.", "that is"), (r"\betc\.", "et cetera"),
           (r"\bvs\.?(?=\s)", "versus"), (r"\bapprox\.", "approximately")]


def _plural(num: str, one: str, many: str) -> str:
    return one if num.lstrip("-") in ("1", "1.0") else many


def normalize_for_speech(s: str) -> str:
    """Spell out units, currency and symbols so Piper says them naturally."""
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)  # twice: 1,000,000
    s = re.sub(_NUM + r"\s?°\s?C\b", r"\1 degrees Celsius", s)
    s = re.sub(_NUM + r"\s?°\s?F\b", r"\1 degrees Fahrenheit", s)
    s = re.sub(_NUM + r"\s?°", r"\1 degrees", s)

    def money(m: re.Match) -> str:
        one, many, c1, cm = _CURRENCY[m.group(1)]
        whole, cents, scale = m.group(2), m.group(3), m.group(4)
        if scale:
            return f"{whole}{'.' + cents if cents else ''} {scale} {many}"
        if whole == "0" and cents and len(cents) == 2:
            return f"{int(cents)} {_plural(str(int(cents)), c1, cm)}"
        text = f"{whole} {_plural(whole, one, many)}"
        if cents and int(cents):
            text += f" {int(cents)}" if len(cents) == 2 else f" point {cents}"
        return text

    s = re.sub(r"([$€£])\s?(\d+)(?:\.(\d+))?(?:\s?(thousand|million|billion|trillion)\b)?", money, s)
    s = re.sub(r"(\d)\s?%", r"\1 percent", s)
    for pat, rep in _ABBREV:
        s = re.sub(pat, rep, s, flags=re.IGNORECASE)
    units = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
    s = re.sub(_NUM + r"\s?(" + units + r")(?![\w/])",
               lambda m: f"{m.group(1)} {_plural(m.group(1), *_UNITS[m.group(2)])}", s)
    s = re.sub(_NUM + r" (" + "|".join(_SPACED_UNITS) + r")(?![\w/'])(?!\.\w)",
               lambda m: f"{m.group(1)} {_plural(m.group(1), *_SPACED_UNITS[m.group(2)])}", s)
    s = re.sub(r"(?<![\d\-:.])(\d{1,3})\s?[–-]\s?(\d{1,3})(?![\d\-:])", r"\1 to \2", s)
    s = re.sub(r"(?<![\w\d])-(\d)", r"minus \1", s)
    s = re.sub(r"#(\d)", r"number \1", s)
    s = re.sub(r"\s*&\s*", " and ", s)
    s = re.sub(r"\s*@\s*", " at ", s)
    s = re.sub(r"(?<=[\d\s])\+(?=[\d\s])", " plus ", s)
    s = re.sub(r"(?<=[\d\s])=(?=[\d\s])", " equals ", s)
    s = re.sub(r"(?<=[\d\s])<(?=[\d\s])", " less than ", s)
    s = re.sub(r"(?<=[\d\s])>(?=[\d\s])", " greater than ", s)
    s = re.sub(r"\b([A-Za-z]{2,})/([A-Za-z]{2,})\b", r"\1 or \2", s)
    s = re.sub(r"[*_~^|\\<>{}\[\]]", " ", s)
    return re.sub(r"\s+", " ", s).strip()
