"""No import circle anywhere in the package, counting imports inside functions too:
neither between modules nor between stages (the folders under ``edgevox/``).

A circle (a imports b, b imports a, however late) means neither module can be read or
tested alone and the import order decides what works; imports must flow one way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import edgevox

ROOT = Path(edgevox.__file__).parent


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ["edgevox", *path.relative_to(ROOT).with_suffix("").parts]
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _targets(node: ast.AST, mod: str, is_pkg: bool, mods: dict) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        if node.level:
            head = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
        else:
            head = node.module or ""
        names = [f"{head}.{a.name}" if f"{head}.{a.name}" in mods else head for a in node.names]
    out = []
    for name in names:
        while name not in mods and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in mods and name != mod:
            out.append(name)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere (``TYPE_CHECKING`` blocks aside)."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for mod, (path, is_pkg) in mods.items():
        deps: set[str] = set()
        todo = list(ast.parse(path.read_text(encoding="utf-8")).body)
        while todo:
            node = todo.pop()
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps.update(_targets(node, mod, is_pkg, mods))
            todo.extend(ast.iter_child_nodes(node))
        graph[mod] = deps
    return graph


def stage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Stage (first component under ``edgevox``: ``llm``, ``grammars``, ``plot``, ...;
    ``edgevox`` for the package itself) -> the other stages its modules import."""
    def stage(mod: str) -> str:
        parts = mod.split(".")
        return parts[1] if len(parts) > 1 else parts[0]

    out: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        out.setdefault(stage(mod), set()).update(stage(d) for d in deps)
    for s, deps in out.items():
        deps.discard(s)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_checker_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "edgevox.llm.constrained.engine_llama" in graph["edgevox.llm.constrained.engines"]


def test_the_stage_graph_sees_a_planted_circle():
    planted = {"edgevox.llm.a": {"edgevox.grammars.b"}, "edgevox.grammars.b": {"edgevox.tools"},
               "edgevox.tools": {"edgevox"}, "edgevox": set(), "edgevox.grammars.c": {"edgevox.llm"},
               "edgevox.llm": {"edgevox.llm.a"}}
    assert cycles(planted) == []  # no circle between modules ...
    assert cycles(stage_graph(planted)) == [["grammars", "llm"]]  # ... but one between stages
    assert "grammars" in stage_graph(import_graph())["llm"]  # the real graph has edges


def test_no_import_circle_in_the_package():
    assert cycles(import_graph()) == []


def test_no_import_circle_between_stages():
    assert cycles(stage_graph(import_graph())) == []
