"""A GBNF parser that says *no* before llama.cpp crashes.

Why this exists: llama-cpp-python hands a grammar string to llama.cpp unchecked, and
the sampler constructor returns NULL on a bad grammar, which the Python side then
uses -- the process dies. Some grammars are worse: ``x{3,1}`` makes the C++ parser
loop forever and hidden left recursion grows the parse stacks until memory runs out.

The parser follows the documented GBNF syntax and lowers the grammar the way llama.cpp
does (repetitions become helper rules named ``<rule>_<id>``), so the checks that run
on the lowered form -- undefined rules, root, left recursion -- give llama.cpp's
verdict. On top it rejects the two known hang/crash shapes. The lowered rules also
drive the recogniser in :mod:`edgevox.grammars.matcher`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GrammarError", "ParsedGrammar", "parse_gbnf", "validate_gbnf", "MAX_REPETITION"]

#: llama.cpp refuses repetition counts above this (and treats a larger *max* as unbounded).
MAX_REPETITION = 2000
#: Nesting of parentheses we accept; llama.cpp parses groups recursively in C++.
MAX_NESTING = 100
_UINT32_MAX = 2**32 - 1
_UINT64_MAX = 2**64 - 1

# Lowered elements (one per consumed character, or a rule reference):
#   ("c", ((lo, hi), ...), negated)   a character set; "." is ("c", (), True)
#   ("r", rule_id)                    a rule reference
#   ("t", token_id, negated)          a token (``<[id]>`` / ``<text>``), never a character
Element = tuple


class GrammarError(ValueError):
    """A grammar that llama.cpp would reject, crash on, or hang on -- or one we cannot build."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        rule: str | None = None,
    ) -> None:
        self.reason = message
        self.line = line
        self.column = column
        self.rule = rule
        where = []
        if line is not None:
            where.append(f"line {line}, col {column}")
        if rule is not None:
            where.append(f"rule '{rule}'")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


@dataclass(frozen=True)
class ParsedGrammar:
    """The lowered grammar: ``rules[id]`` is a list of alternatives (tuples of elements)."""

    rules: dict[int, list[tuple[Element, ...]]]
    symbols: dict[str, int]
    root: str

    @property
    def names(self) -> dict[int, str]:
        return {v: k for k, v in self.symbols.items()}

    @property
    def root_id(self) -> int:
        return self.symbols[self.root]


def _is_word(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9") or c == "-"


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


_HEX = set("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-"}


class _Parser:
    def __init__(self, text: str, tokenize: Callable[[str], list[int]] | None) -> None:
        if "\x00" in text:
            i = text.index("\x00")
            raise self._error_at(text, i, "NUL character in grammar (llama.cpp would stop reading here)")
        self.text = text
        self.s = text + "\x00"  # sentinel: mirrors the C string end
        self.tokenize = tokenize
        self.symbols: dict[str, int] = {}
        self.rules: dict[int, list[tuple[Element, ...]]] = {}
        self.first_ref: dict[int, tuple[int, str]] = {}  # rule id -> (position, referencing rule)
        self.def_pos: dict[int, int] = {}
        self.depth = 0
        self.current_rule = ""

    # -- errors --------------------------------------------------------------------------

    @staticmethod
    def _error_at(text: str, pos: int, message: str, rule: str | None = None) -> GrammarError:
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return GrammarError(message, line=line, column=col, rule=rule)

    def error(self, pos: int, message: str) -> GrammarError:
        return self._error_at(self.text, pos, message, self.current_rule or None)

    def _show(self, pos: int) -> str:
        rest = self.s[pos:-1]
        if not rest:
            return "end of input"
        snippet = rest.split("\n", 1)[0][:30]
        return repr(snippet)

    # -- symbols -------------------------------------------------------------------------

    def symbol(self, name: str) -> int:
        sid = self.symbols.get(name)
        if sid is None:
            sid = self.symbols[name] = len(self.symbols)
        return sid

    def generate(self, base: str) -> int:
        sid = len(self.symbols)
        self.symbols[f"{base}_{sid}"] = sid
        return sid

    # -- lexical -------------------------------------------------------------------------

    def space(self, i: int, newline_ok: bool) -> int:
        s = self.s
        while True:
            c = s[i]
            if c == " " or c == "\t":
                i += 1
            elif c == "#":
                while s[i] not in ("\r", "\n", "\x00"):
                    i += 1
            elif newline_ok and (c == "\r" or c == "\n"):
                i += 1
            else:
                return i

    def name(self, i: int) -> int:
        j = i
        while _is_word(self.s[j]):
            j += 1
        if j == i:
            raise self.error(i, f"expecting a rule name at {self._show(i)} (names use a-z, A-Z, 0-9 and '-')")
        return j

    def integer(self, i: int) -> tuple[int, int]:
        j = i
        while _is_digit(self.s[j]):
            j += 1
        if j == i:
            raise self.error(i, f"expecting an integer at {self._show(i)}")
        return int(self.s[i:j]), j

    def char(self, i: int) -> tuple[int, int]:
        s = self.s
        c = s[i]
        if c == "\\":
            e = s[i + 1]
            width = {"x": 2, "u": 4, "U": 8}.get(e)
            if width is not None:
                digits = s[i + 2 : i + 2 + width]
                if len(digits) < width or any(d not in _HEX for d in digits):
                    raise self.error(i, f"escape \\{e} needs exactly {width} hex digits")
                return int(digits, 16), i + 2 + width
            if e in _SIMPLE_ESCAPES:
                return ord(_SIMPLE_ESCAPES[e]), i + 2
            shown = "end of input" if e == "\x00" else repr("\\" + e)
            raise self.error(i, f"unknown escape {shown} (allowed: \\x.. \\u.... \\U........ \\t \\r \\n \\\\ \\\" \\[ \\] \\-)")
        if c == "\x00":
            raise self.error(i, "unexpected end of input")
        return ord(c), i + 1

    # -- grammar -------------------------------------------------------------------------

    def parse(self) -> None:
        i = self.space(0, True)
        while self.s[i] != "\x00":
            i = self.rule(i)

    def rule(self, i: int) -> int:
        self.current_rule = ""
        c = self.s[i]
        if c == "|":
            raise self.error(i, "a line may not start with '|' outside parentheses; "
                                "end the previous line with '|' instead")
        if c in '"[(.<':
            raise self.error(i, f"expecting a rule name at {self._show(i)} (outside parentheses "
                                "a newline ends the rule; wrap a multi-line rule in '( ... )')")
        end = self.name(i)
        name = self.s[i:end]
        self.current_rule = name
        j = self.space(end, False)
        rid = self.symbol(name)
        if self.s[j : j + 3] != "::=":
            raise self.error(j, f"expecting '::=' after rule name '{name}', found {self._show(j)}")
        self.def_pos[rid] = i
        j = self.space(j + 3, True)
        j = self.alternates(j, name, rid, nested=False)
        c = self.s[j]
        if c == "\r":
            j += 2 if self.s[j + 1] == "\n" else 1
        elif c == "\n":
            j += 1
        elif c != "\x00":
            hint = ""
            if c == "|" or c == ")":
                hint = " (a new line may follow '|' but may not start with it)" if c == "|" else " (unbalanced ')')"
            raise self.error(j, f"expecting newline or end of rule, found {self._show(j)}{hint}")
        return self.space(j, True)

    def alternates(self, i: int, rule_name: str, rid: int, nested: bool) -> int:
        alts: list[tuple[Element, ...]] = []
        seq: list[Element] = []
        i = self.sequence(i, rule_name, seq, nested)
        alts.append(tuple(seq))
        while self.s[i] == "|":
            i = self.space(i + 1, True)
            seq = []
            i = self.sequence(i, rule_name, seq, nested)
            alts.append(tuple(seq))
        self.rules[rid] = alts
        return i

    def sequence(self, i: int, rule_name: str, out: list[Element], nested: bool) -> int:
        s = self.s
        last = len(out)
        n_prev = 1
        while True:
            c = s[i]
            if c == '"':
                i += 1
                last = len(out)
                n_prev = 1
                while s[i] != '"':
                    if s[i] == "\x00":
                        raise self.error(i, "unexpected end of input inside a string literal")
                    cp, i = self.char(i)
                    out.append(("c", ((cp, cp),), False))
                i = self.space(i + 1, nested)
            elif c == "[":
                start = i
                i += 1
                neg = False
                if s[i] == "^":
                    neg = True
                    i += 1
                last = len(out)
                n_prev = 1
                ranges: list[tuple[int, int]] = []
                while s[i] != "]":
                    if s[i] == "\x00":
                        raise self.error(start, "unterminated character class '['")
                    lo, i = self.char(i)
                    hi = lo
                    if s[i] == "-" and s[i + 1] != "]":
                        if s[i + 1] == "\x00":
                            raise self.error(i, "unexpected end of input in character range")
                        hi, i = self.char(i + 1)
                    ranges.append((lo, hi))
                if ranges:  # llama.cpp emits nothing for "[]" / "[^]"
                    out.append(("c", tuple(ranges), neg))
                i = self.space(i + 1, nested)
            elif c == "<" or c == "!":
                neg = c == "!"
                if neg:
                    i += 1
                tok, i = self.token(i)
                last = len(out)
                n_prev = 1
                out.append(("t", tok, neg))
                i = self.space(i, nested)
            elif _is_word(c):
                end = self.name(i)
                ref = self.symbol(s[i:end])
                self.first_ref.setdefault(ref, (i, rule_name))
                i = self.space(end, nested)
                last = len(out)
                n_prev = 1
                out.append(("r", ref))
            elif c == "(":
                open_pos = i
                self.depth += 1
                if self.depth > MAX_NESTING:
                    raise self.error(i, f"parentheses nested deeper than {MAX_NESTING}")
                i = self.space(i + 1, True)
                n_before = len(self.symbols)
                sub = self.generate(rule_name)
                i = self.alternates(i, rule_name, sub, nested=True)
                n_prev = max(1, len(self.symbols) - n_before)
                last = len(out)
                out.append(("r", sub))
                if s[i] != ")":
                    raise self.error(i, f"expecting ')' to close the group opened at col "
                                        f"{open_pos - (self.text.rfind(chr(10), 0, open_pos) + 1) + 1}, "
                                        f"found {self._show(i)}")
                self.depth -= 1
                i = self.space(i + 1, nested)
            elif c == ".":
                last = len(out)
                n_prev = 1
                out.append(("c", (), True))
                i = self.space(i + 1, nested)
            elif c in "*+?":
                at = i
                i = self.space(i + 1, nested)
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
                n_prev = self.repeat(at, rule_name, out, last, n_prev, lo, hi)
            elif c == "{":
                at = i
                i = self.space(i + 1, nested)
                if not _is_digit(s[i]):
                    raise self.error(i, f"expecting an integer after '{{', found {self._show(i)}")
                lo, i = self.integer(i)
                i = self.space(i, nested)
                hi: int | None
                if s[i] == "}":
                    hi = lo
                    i = self.space(i + 1, nested)
                elif s[i] == ",":
                    i = self.space(i + 1, nested)
                    hi = None
                    if _is_digit(s[i]):
                        hi, i = self.integer(i)
                        i = self.space(i, nested)
                    if s[i] != "}":
                        raise self.error(i, f"expecting '}}' to close the repetition, found {self._show(i)}")
                    i = self.space(i + 1, nested)
                else:
                    raise self.error(i, f"expecting ',' or '}}' in repetition, found {self._show(i)}")
                if lo > _UINT64_MAX or (hi is not None and hi > _UINT64_MAX):
                    raise self.error(at, "repetition count out of range")
                if lo > MAX_REPETITION:
                    raise self.error(at, f"repetition minimum {lo} exceeds llama.cpp's limit of {MAX_REPETITION}")
                if hi is not None and hi < lo:
                    raise self.error(at, f"repetition {{{lo},{hi}}} has max < min (llama.cpp would loop forever)")
                if hi is not None and hi > MAX_REPETITION:
                    hi = None  # llama.cpp silently treats a larger max as "no max"
                n_prev = self.repeat(at, rule_name, out, last, n_prev, lo, hi)
            else:
                return i

    def token(self, i: int) -> tuple[int, int]:
        s = self.s
        if s[i] != "<":
            raise self.error(i, f"expecting '<' after '!', found {self._show(i)}")
        start = i
        i += 1
        if s[i] == "[":
            value, i = self.integer(i + 1)
            if value > _UINT32_MAX:
                raise self.error(start, "token id too large")
            if s[i] != "]":
                raise self.error(i, f"expecting ']' in token id, found {self._show(i)}")
            if s[i + 1] != ">":
                raise self.error(i + 1, f"expecting '>' after token id, found {self._show(i + 1)}")
            return value, i + 2
        end = s.find(">", i)
        if end < 0 or end >= len(self.text):
            raise self.error(start, "expecting '>' to close the token")
        text = s[start : end + 1]
        if self.tokenize is None:
            raise self.error(start, f"token {text} needs a vocabulary to check; pass tokenize= or use <[id]>")
        ids = list(self.tokenize(text))
        if len(ids) != 1:
            raise self.error(start, f"token {text} is not a single token of the vocabulary ({len(ids)} tokens)")
        return int(ids[0]), end + 1

    def repeat(self, at: int, rule_name: str, out: list[Element], last: int, n_prev: int,
               lo: int, hi: int | None) -> int:
        """Lower ``S{lo,hi}`` exactly as llama.cpp does; returns the new rule-count factor."""
        if last == len(out):
            raise self.error(at, "expecting an item before the repetition operator")
        prev = out[last:]
        total = hi if (hi is not None and hi > 0) else (lo if lo > 0 else 1)
        if n_prev * total > MAX_REPETITION:
            raise self.error(at, f"repetition expands to {n_prev * total} rule copies, above llama.cpp's "
                                 f"limit of {MAX_REPETITION}; simplify the repeated item")
        if lo == 0:
            del out[last:]
        else:
            for _ in range(lo - 1):
                out.extend(prev)
        n_opt = 1 if hi is None else hi - lo
        last_rec = -1
        for k in range(n_opt):
            rec_id = self.generate(rule_name)
            rec = list(prev)
            if k > 0 or hi is None:
                rec.append(("r", rec_id if hi is None else last_rec))
            self.rules[rec_id] = [tuple(rec), ()]
            last_rec = rec_id
        if n_opt > 0:
            out.append(("r", last_rec))
        return n_prev * total


def _owner(name: str) -> str:
    """The user-visible rule a lowered helper rule (``<rule>_<id>``) came from."""
    base, sep, num = name.rpartition("_")
    return base if sep and num.isdigit() else name


def _describe(name: str) -> str:
    owner = _owner(name)
    return f"rule '{name}'" if owner == name else f"a group or repetition inside rule '{owner}'"


def _find_cycle(n: int, edges: dict[int, list[int]]) -> int | None:
    """Return a node on a cycle of the directed graph, or None (iterative DFS)."""
    state = [0] * n  # 0 new, 1 in progress, 2 done
    for start in range(n):
        if state[start]:
            continue
        stack = [(start, iter(edges.get(start, ())))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state[nxt] == 1:
                return nxt
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(edges.get(nxt, ()))))
    return None


def _sccs(n: int, edges: dict[int, list[int]]) -> list[int]:
    """Tarjan's strongly connected components, iteratively; returns component id per node."""
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    comp = [-1] * n
    st: list[int] = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, pi = work.pop()
            if pi == 0:
                index[v] = low[v] = counter
                counter += 1
                st.append(v)
                on[v] = True
            succ = edges.get(v, [])
            recursed = False
            while pi < len(succ):
                w = succ[pi]
                pi += 1
                if index[w] < 0:
                    work.append((v, pi))
                    work.append((w, 0))
                    recursed = True
                    break
                if on[w]:
                    low[v] = min(low[v], index[w])
            if recursed:
                continue
            if low[v] == index[v]:
                while True:
                    w = st.pop()
                    on[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return comp


def _check_recursion(p: _Parser, rules: dict[int, list[tuple[Element, ...]]], names: dict[int, str]) -> None:
    n = len(p.symbols)
    # 1. llama.cpp's own check: a rule "may be empty" only if it has a literally empty
    #    alternative; recursion through such leading rules is rejected.
    syn_empty = [any(len(a) == 0 for a in rules.get(r, ())) for r in range(n)]
    edges: dict[int, list[int]] = {}
    for r, alts in rules.items():
        for alt in alts:
            for el in alt:
                if el[0] != "r":
                    break
                edges.setdefault(r, []).append(el[1])
                if not syn_empty[el[1]]:
                    break
    node = _find_cycle(n, edges)
    if node is not None:
        name = names[node]
        raise GrammarError(f"left recursion through {_describe(name)} (llama.cpp rejects left-recursive grammars)",
                           rule=_owner(name))
    # 2. Hidden left recursion: through rules that match empty without an empty
    #    alternative. llama.cpp accepts it, but when the recursive reference is followed
    #    by more symbols its parse stack grows without bound (abort / out of memory).
    nullable = [False] * n
    changed = True
    while changed:
        changed = False
        for r, alts in rules.items():
            if not nullable[r] and any(all(el[0] == "r" and nullable[el[1]] for el in a) for a in alts):
                nullable[r] = changed = True
    tagged: dict[int, list[int]] = {}
    growing: list[tuple[int, int]] = []
    for r, alts in rules.items():
        for alt in alts:
            for k, el in enumerate(alt):
                if el[0] != "r":
                    break
                tagged.setdefault(r, []).append(el[1])
                if k < len(alt) - 1:
                    growing.append((r, el[1]))
                if not nullable[el[1]]:
                    break
    if not growing:
        return
    comp = _sccs(n, tagged)
    for a, b in growing:
        if comp[a] == comp[b]:
            name = names[b]
            raise GrammarError(
                f"hidden left recursion through {_describe(name)}: it can reach itself without consuming "
                "input (via rules that match empty) with more symbols after it; llama.cpp would grow its "
                "parse stack until it runs out of memory",
                rule=_owner(name))


def parse_gbnf(text: str, root: str = "root", *,
               tokenize: Callable[[str], list[int]] | None = None) -> ParsedGrammar:
    """Parse, lower and check a GBNF grammar; raise :class:`GrammarError` if llama.cpp would fail.

    ``tokenize`` (text -> token ids) lets ``<token>`` literals be checked; without it
    they are rejected, since only a vocabulary can tell whether they are one token.
    """
    if not isinstance(text, str):
        raise GrammarError(f"grammar must be a str, not {type(text).__name__}")
    p = _Parser(text, tokenize)
    p.parse()
    p.current_rule = ""
    if not p.rules:
        raise GrammarError("grammar defines no rules")
    names = {v: k for k, v in p.symbols.items()}
    for sid in range(len(p.symbols)):
        if sid not in p.rules:
            pos, by = p.first_ref.get(sid, (0, ""))
            raise p._error_at(text, pos, f"undefined rule '{names[sid]}'", _owner(by) if by else None)
    if root not in p.symbols:
        raise GrammarError(f"grammar has no '{root}' rule (the start symbol)")
    _check_recursion(p, p.rules, names)
    return ParsedGrammar(rules=p.rules, symbols=dict(p.symbols), root=root)


def validate_gbnf(text: str, root: str = "root", *,
                  tokenize: Callable[[str], list[int]] | None = None) -> ParsedGrammar:
    """Raise :class:`GrammarError` (with line/column/rule) for any grammar llama.cpp would
    reject or crash on; return the parsed grammar otherwise."""
    return parse_gbnf(text, root, tokenize=tokenize)
