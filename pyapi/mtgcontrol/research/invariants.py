"""Invariants: the ASP files verify searches the negation of, and their texts tagged
so that several are searched in one program (each failure names its invariant)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from importlib import resources
from pathlib import Path

import clingo
from clingo import ast

from ..engine.solve import NoRuling
from .solver import search_file


@dataclass(frozen=True)
class Invariant:
    """An ASP file deriving ``fail(S,What,X)`` when the invariant fails.  A header line
    ``% locality: cone [NAME]`` has it searched by cones: the cone NAME of
    search/cone.lp (``dependencies`` when none is named), which `verify
    --check-locality` checks is enough for this invariant."""

    name: str
    summary: str
    text: str

    @property
    def cone(self) -> str | None:
        for line in self.text.splitlines():
            words = line.strip().split()
            if words[:3] == ["%", "locality:", "cone"]:
                return words[3] if len(words) > 3 else "dependencies"
        return None

    @property
    def cones(self) -> bool:
        return self.cone is not None


BUILTIN_ORDER = ("one-controller", "no-controller-elsewhere", "one-owner", "you-defined",
                 "no-open-choice", "no-violation")


def _summary(text: str) -> str:
    first = text.splitlines()[0] if text.strip() else ""
    return first.lstrip("% ").strip().rstrip(".") if first.startswith("%") else ""


def builtin_invariants() -> list[Invariant]:
    root = resources.files("mtgcontrol.encodings") / "invariants"
    found = sorted((p for p in root.iterdir() if p.name.endswith(".lp")), key=lambda p: p.name)
    out = []
    for path in found:
        text = path.read_text(encoding="utf-8")
        out.append(Invariant(path.name[:-3], _summary(text), text))
    return sorted(out, key=lambda i: (BUILTIN_ORDER.index(i.name)
                                      if i.name in BUILTIN_ORDER else 99, i.name))


def load_invariant(path: str | Path) -> Invariant:
    return invariant_of(path, Path(path).read_text(encoding="utf-8"))


def invariant_of(path: str | Path, text: str) -> Invariant:
    """The invariant of a file's ``text`` (already read), named by its file name."""
    name = Path(path).stem
    return Invariant(name, _summary(text) or name, text)


class _Tagged(ast.Transformer):
    """fail(S,What,X) -> ifail(I,S,What,X): invariant I's failures, apart from the others'."""

    def __init__(self, index: int) -> None:
        self.index = index

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        term = node.symbol
        if term.ast_type == ast.ASTType.Function and term.name == "fail" and \
                len(term.arguments) == 3:
            tag = ast.SymbolicTerm(term.location, clingo.Number(self.index))
            return node.update(symbol=ast.Function(term.location, "ifail",
                                                   [tag, *term.arguments], 0))
        return node


def tagged(invariants: Sequence[Invariant], whole: bool = True) -> str:
    """The invariant files as one text, each file's fail/3 tagged with its index (clingo's
    AST, not text substitution), plus (``whole``) the goal: a failure of some invariant
    whose external goal(I) is true (ifail_found/1: which of them fail)."""
    out: list[str] = []

    def add(index: int, stm: ast.AST) -> None:
        out.append(str(_Tagged(index)(stm)))

    for i, inv in enumerate(invariants):
        try:
            ast.parse_string(inv.text, partial(add, i))
        except RuntimeError:
            raise NoRuling(f"the invariant file {inv.name} is not a valid ASP program") from None
    out.append(f"#external goal(I) : I = 0..{len(invariants) - 1}.")
    if whole:
        out.append(search_file("invariant-goal.lp"))
    out.append(search_file("invariant-show.lp"))
    return "\n".join(out)
