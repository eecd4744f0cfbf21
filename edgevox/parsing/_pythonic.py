"""Pythonic calls (``[f(a=1), mod.g(b='x')]``) read with ``ast`` as data, never run.

Only ``Call`` nodes whose function is a (dotted) name and whose arguments are keyword
arguments with literal values are accepted; everything else is a rejection with a reason.
"""

from __future__ import annotations

import ast
import warnings

from ._values import literal, scan, split_elements
from .types import Item, RejectedCall, ToolCall


def dotted_name(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def call_item(node: ast.AST, raw: str) -> Item:
    """One element of a call list -> ToolCall or RejectedCall."""
    if not isinstance(node, ast.Call):
        return RejectedCall(None, raw, "list element is not a function call")
    name = dotted_name(node.func)
    if name is None:
        return RejectedCall(None, raw, "function name must be a plain or dotted name")
    if node.args:
        return RejectedCall(name, raw, "positional arguments are not supported; use name=value")
    args = {}
    for kw in node.keywords:
        if kw.arg is None:
            return RejectedCall(name, raw, "**kwargs is not supported")
        if kw.arg in args:
            return RejectedCall(name, raw, f"argument '{kw.arg}' given twice")
        try:
            args[kw.arg] = literal(kw.value)
        except ValueError as e:
            return RejectedCall(name, raw, f"argument '{kw.arg}' is not a literal ({e})")
    return ToolCall(None, name, args)


def quiet_parse(src: str, mode: str) -> ast.AST:
    """``ast.parse`` without the escape-sequence warnings model text would trigger.

    Parsing builds a tree and runs nothing; it raises SyntaxError and friends on bad input.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(src, mode=mode)


def parse_expr(src: str) -> ast.AST | None:
    try:
        return quiet_parse(src, "eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError, TypeError):
        return None


def calls_from_list(text: str, start: int, end: int) -> list[Item] | None:
    """Items of the list ``text[start:end]`` (``[`` at start, ``]`` at end-1 or missing).

    Returns None when it is not a list of calls at all. When the list as a whole does not
    parse, each top-level element is tried on its own so good siblings survive.
    """
    src = text[start:end]
    if not src.rstrip().endswith("]"):
        src = src.rstrip().rstrip(",") + "]"
    node = parse_expr(src)
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts or not any(isinstance(e, ast.Call) for e in node.elts):
            return None
        return [call_item(e, _seg(src, e)) for e in node.elts]
    items: list[Item] = []
    for a, b in split_elements(text, start, end):
        piece = text[a:b].strip()
        el = parse_expr(piece)
        items.append(call_item(el, piece) if el is not None else RejectedCall(_head_name(piece), piece, "malformed call (not valid Python call syntax)"))
    if not any(isinstance(i, ToolCall) for i in items) and not any(i.name for i in items if isinstance(i, RejectedCall)):
        return None
    return items


def calls_from_source(src: str) -> list[Item] | None:
    """Calls in a code body (Gemma 3 ``tool_code``, ``<|python_tag|>``): one call per line,
    or a list of calls; ``print(call)`` wrappers are unwrapped."""
    try:
        tree = quiet_parse(src.strip(), "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError, TypeError):
        return None
    items: list[Item] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr):
            return None
        node = stmt.value
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
            and len(node.args) == 1
            and not node.keywords
        ):
            node = node.args[0]
        elts = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
        for e in elts:
            if not isinstance(e, ast.Call):
                return None
            items.append(call_item(e, _seg(src.strip(), e)))
    return items or None


def _seg(src: str, node: ast.AST) -> str:
    return ast.get_source_segment(src, node) or src


def _head_name(piece: str) -> str | None:
    head = piece.split("(", 1)[0].strip()
    return head if head.replace(".", "").replace("_", "").isalnum() and head[:1].isalpha() else None


def list_extent(text: str, start: int) -> tuple[int, bool]:
    """End of the call list opening at ``text[start]`` and whether its ``]`` was seen.

    When the ``]`` is missing (the reply was cut, or the model forgot it) the list ends
    after the last complete top-level call, or at the end of the text.
    """
    sc = scan(text, start, python=True)
    if sc.end is not None:
        return sc.end, True
    if sc.closes:
        last = sc.closes[-1]
        rest = text[last:].lstrip(" \t\r\n")
        if rest and not rest.startswith(","):
            return last, False  # prose follows the last complete call
    return len(text), False
