"""The package's import graph: no circles, and no arrow from a lower layer to a higher.

The graph is read from the source with ``ast`` (every ``import``, also those inside
functions): an edge ``a -> b`` for each module ``b`` of the package that ``a`` names.
``LAYERS`` is the order, lowest first; a module belongs to the first layer whose
name is the module or one of its packages.  Within a layer modules may import
each other as long as there is no circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pyapi" / "mtgcontrol"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("mtgcontrol.catalog", "mtgcontrol.schema"),
    ("mtgcontrol.engine",),
    ("mtgcontrol.batch",),
    ("mtgcontrol.present",),
    ("mtgcontrol.research",),
    ("mtgcontrol.forge",),
    ("mtgcontrol.coverage", "mtgcontrol.rulediff", "mtgcontrol.release",
     "mtgcontrol.scenarios", "mtgcontrol.pytest_plugin"),
    ("mtgcontrol.serve",),
    ("mtgcontrol.cli", "mtgcontrol"),
)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every module of the package."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from p import m`` names ``p.m``
    when ``m`` is a module, else ``p``)."""
    mods = modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package[:len(package) - node.level + 1]
                    base = ".".join([*up, node.module] if node.module else up)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            else:
                continue
            edges.update(t for t in targets if t in mods and t != name)
        graph[name] = edges
    return graph


def layer(module: str) -> int:
    for rank, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names if n != "mtgcontrol"):
            return rank
    if module == "mtgcontrol":
        return len(LAYERS) - 1
    raise AssertionError(f"{module} is in no layer of LAYERS: add it")


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer(module)


def test_no_import_circles() -> None:
    assert circles(import_graph()) == []


def test_no_arrow_runs_up() -> None:
    up = sorted(f"{a} -> {b}" for a, edges in import_graph().items() for b in edges
                if layer(b) > layer(a))
    assert up == []


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_circles_are_found(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(edges) == expected


def test_no_private_name_crosses_a_module() -> None:
    """A name with a leading underscore is its module's own: no other module of the
    package imports it (a name two modules need is public, in the lower one)."""
    crossing = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                     .startswith("mtgcontrol")):
                crossing += [f"{name}: {a.name}" for a in node.names
                             if a.name.startswith("_") and not a.name.startswith("__")]
    assert crossing == []


MAX_LINES = 700


def test_no_module_is_over_700_lines() -> None:
    """Small modules with one job: a module past this has more than one, to split."""
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
