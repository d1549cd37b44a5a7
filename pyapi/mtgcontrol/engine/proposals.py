"""Proposal files (``--change FILE.lp``) read with clingo's AST, never edited as text.

* `switchable_groups`: the catalog groups a proposal can switch off: those some rule
  of the encodings reads through ``on(S,G)`` (directly, or through a table such as
  ``variant_rule/3``).  `check_switchable` refuses a proposal whose ``off("G")`` or
  ``off_number("N")`` names a group that no rule reads, instead of letting it
  change nothing in silence.
* `guard_changes`: a proposal applied to some slots of a program only (one side of
  research's paired searches, where both sides share one grounding): its rules
  about a slot get the condition ``proposal_slot(S)``, and what it switches off or
  numbers goes to ``slot_off/2``, ``slot_off_number/2`` and ``slot_number/3``, which
  base.lp reads for that slot only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import clingo
from clingo import ast

from .. import catalog
from .solve import encoding_text
from .validate import InputProblem

SLOT = "ProposalSlot"
"""The variable a guarded rule of a proposal binds to the slot it applies to."""

GROUP_SWITCHES = {"off": "slot_off", "off_number": "slot_off_number"}

UNSWITCHABLE = {
    "613.7": "timestamp order is how layer 2 orders any two control effects (layer2.lp's "
             "order keys, order.lp's walks), and the encodings have no layer 2 without an "
             "order; switch off one of its parts instead (613.7a, 613.7b, 613.7d, 613.7e, "
             "613.7f, 613.7h, 613.7m)",
}
"""Catalog groups no rule reads through on/2, and why (tests/test_research.py checks
that every other group of the catalog can be switched off)."""


class ProposalError(ValueError):
    """A proposal file that cannot be applied as asked."""


def _walk(node: Any) -> Iterator[Any]:
    """Every AST node under ``node`` (itself included)."""
    if isinstance(node, ast.AST):
        yield node
        keys = node.keys()
        for key in keys:
            if key != "location":
                yield from _walk(getattr(node, key))
    elif isinstance(node, (list, tuple)) or type(node).__name__.startswith("AST"):
        for item in node:
            yield from _walk(item)


def _statements(text: str) -> list[Any]:
    found: list[Any] = []
    said: list[str] = []
    try:
        ast.parse_string(text, found.append,
                         logger=lambda _code, message: said.append(message.strip()))
    except RuntimeError:
        where = " ".join(m.replace("<string>:", "line ", 1) for m in said)
        raise ProposalError(f"a valid ASP program ({where or 'clingo could not parse it'})"
                            ) from None
    return found


def _functions(node: Any) -> Iterator[Any]:
    """The atoms (functions of symbolic atoms) under ``node``."""
    for n in _walk(node):
        if n.ast_type == ast.ASTType.SymbolicAtom and \
                n.symbol.ast_type == ast.ASTType.Function:
            yield n.symbol


def _head_atom(rule: Any) -> Any | None:
    head = rule.head
    if head.ast_type == ast.ASTType.Literal and head.atom.ast_type == ast.ASTType.SymbolicAtom \
            and head.atom.symbol.ast_type == ast.ASTType.Function:
        return head.atom.symbol
    return None


# ---------------------------------------------------------------------------------
# Which groups a proposal can switch off


def _strings(term: Any) -> set[str] | None:
    """The strings a term is (a string or a pool of them); None for anything else."""
    if term.ast_type == ast.ASTType.SymbolicTerm and \
            term.symbol.type == clingo.SymbolType.String:
        return {term.symbol.string}
    if term.ast_type == ast.ASTType.Pool:
        out: set[str] = set()
        for item in term.arguments:
            found = _strings(item)
            if found is None:
                return None
            out |= found
        return out
    return None


class _Reads:
    """Which strings reach the group argument of ``on(S,G)`` in the encodings."""

    def __init__(self, rules: list[Any]) -> None:
        self.rules = rules
        self.heads: dict[tuple[str, int], list[tuple[Any, Any]]] = {}
        for rule in rules:
            atom = _head_atom(rule)
            if atom is not None:
                self.heads.setdefault((atom.name, len(atom.arguments)), []).append((rule, atom))
        self.memo: dict[tuple[str, int, int], set[str]] = {}

    def groups(self) -> set[str]:
        out: set[str] = set()
        for rule in self.rules:
            for body in rule.body:
                for atom in _functions(body):
                    if atom.name == "on" and len(atom.arguments) == 2:
                        out |= self.term(rule, atom.arguments[1])
        return out

    def term(self, rule: Any, term: Any) -> set[str]:
        """The strings ``term`` can be in ``rule``: itself, or what binds its variable
        there (a comparison with strings, an atom whose argument it is)."""
        found = _strings(term)
        if found is not None:
            return found
        if term.ast_type != ast.ASTType.Variable:
            return set()
        out: set[str] = set()
        for node in _walk(rule.body):
            if node.ast_type == ast.ASTType.Comparison and node.term.ast_type == \
                    ast.ASTType.Variable and node.term.name == term.name:
                for guard in node.guards:
                    out |= _strings(guard.term) or set()
            if node.ast_type == ast.ASTType.SymbolicAtom and \
                    node.symbol.ast_type == ast.ASTType.Function and node.symbol.name != "on":
                args = node.symbol.arguments
                for i, arg in enumerate(args):
                    if arg.ast_type == ast.ASTType.Variable and arg.name == term.name:
                        out |= self.argument(node.symbol.name, len(args), i)
        return out

    def argument(self, name: str, arity: int, position: int) -> set[str]:
        """The strings argument ``position`` of ``name/arity`` can be, from its rules."""
        key = (name, arity, position)
        if key not in self.memo:
            self.memo[key] = set()  # a cycle adds nothing
            out: set[str] = set()
            for rule, head in self.heads.get((name, arity), ()):
                out |= self.term(rule, head.arguments[position])
            self.memo[key] = out
        return self.memo[key]


@cache
def switchable_groups() -> frozenset[str]:
    """The groups some rule of the encodings reads through ``on(S,G)``: those a
    proposal's ``off`` switches off."""
    rules = [s for s in _statements(encoding_text()) if s.ast_type == ast.ASTType.Rule]
    return frozenset(_Reads(rules).groups())


def named_switches(text: str) -> list[tuple[str, str]]:
    """The ``off("G")`` and ``off_number("N")`` facts and rule heads of a proposal:
    (predicate, string)."""
    out: list[tuple[str, str]] = []
    for statement in _statements(text):
        if statement.ast_type != ast.ASTType.Rule:
            continue
        atom = _head_atom(statement)
        if atom is not None and atom.name in GROUP_SWITCHES and len(atom.arguments) == 1:
            out.extend((atom.name, s) for s in sorted(_strings(atom.arguments[0]) or ()))
    return out


def unswitchable(text: str, versions: Sequence[catalog.Version]) -> list[str]:
    """Why each group a proposal switches off cannot be (empty: all can)."""
    readable = switchable_groups()
    known = {r.group for v in versions for r in v.rules}
    problems: list[str] = []
    for predicate, value in named_switches(text):
        if predicate == "off":
            groups = {value}
            if value not in known and value not in readable:
                problems.append(f'off("{value}"): a rule group of the catalog (mtgcontrol '
                                'rules lists them)')
                continue
        else:
            groups = {r.group for v in versions for r in v.rules if r.number == value}
            if not groups:
                problems.append(f'off_number("{value}"): a rule number of '
                                + ", ".join(v.name for v in versions))
                continue
        for group in sorted(groups - readable):
            reason = UNSWITCHABLE.get(group, "no rule of the encodings reads whether it is in "
                                             "force")
            problems.append(f'{predicate}("{value}"): a group that can be switched off; '
                            f"{group} cannot: {reason}")
    return problems


def check_switchable(changes: Sequence[str], files: Sequence[str]) -> None:
    """Refuse proposal files that do not parse, or that switch off a group the
    encodings cannot switch off (`InputError` naming the file)."""
    from .api import InputError

    problems: list[InputProblem] = []
    for text, name in zip(changes, files, strict=True):
        try:
            found = unswitchable(text, catalog.versions())
        except ProposalError as err:
            found = [str(err)]
        problems.extend(InputProblem(name, "--change", p) for p in found)
    if problems:
        raise InputError(problems)


# ---------------------------------------------------------------------------------
# A proposal applied to some slots only


@cache
def slot_predicates() -> frozenset[tuple[str, int]]:
    """Predicates of the encodings whose first argument is the slot (the variable
    ``S`` by the encodings' convention, docs/predicates.md)."""
    out = set()
    for statement in _statements(encoding_text()):
        for atom in _functions(statement):
            args = atom.arguments
            if args and args[0].ast_type == ast.ASTType.Variable and args[0].name == "S":
                out.add((atom.name, len(args)))
    return frozenset(out)


def _literal(location: Any, name: str, args: list[Any]) -> Any:
    return ast.Literal(location, ast.Sign.NoSign,
                       ast.SymbolicAtom(ast.Function(location, name, args, 0)))


def _guarded(rule: Any) -> Any:
    """One rule of a proposal made to hold for the slots ``proposal_slot/1`` names."""
    loc = rule.location
    slot = ast.Variable(loc, SLOT)
    atom = _head_atom(rule)
    slots = slot_predicates()
    signature = None if atom is None else (atom.name, len(atom.arguments))
    if atom is not None and signature in (("off", 1), ("off_number", 1)):
        head = _literal(loc, GROUP_SWITCHES[atom.name], [slot, *atom.arguments])
        return rule.update(head=head, body=[*rule.body, _literal(loc, "proposal_slot", [slot])])
    if atom is not None and signature == ("number", 3):
        version, group, number = atom.arguments
        head = _literal(loc, "slot_number", [slot, group, number])
        return rule.update(head=head, body=[*rule.body, _literal(loc, "proposal_slot", [slot]),
                                            _literal(loc, "version", [slot, version])])
    if atom is not None:
        if signature in slots:
            return rule.update(body=[*rule.body, _literal(loc, "proposal_slot",
                                                          [atom.arguments[0]])])
        return rule  # a helper of the proposal's own: guarded where a rule reads it
    if rule.head.ast_type == ast.ASTType.Literal and \
            rule.head.atom.ast_type == ast.ASTType.BooleanConstant:  # a constraint
        for literal in rule.body:
            for body_atom in _functions(literal):
                if (body_atom.name, len(body_atom.arguments)) in slots:
                    return rule.update(body=[*rule.body, _literal(
                        loc, "proposal_slot", [body_atom.arguments[0]])])
        return rule
    if any((a.name, len(a.arguments)) in slots for a in _functions(rule.head)):
        raise ProposalError(f"line {loc.begin.line}: a rule whose head is one atom (a "
                            "choice or a disjunction cannot be applied to one side of a "
                            "comparison)")
    return rule


def guard_changes(changes: Sequence[str], slots: Sequence[int]) -> str:
    """The proposals ``changes`` as rules for the slots ``slots`` only."""
    out = [f"proposal_slot({s})." for s in slots]
    out.append("#defined proposal_slot/1.")
    for text in changes:
        for statement in _statements(text):
            if statement.ast_type == ast.ASTType.Program:
                continue
            out.append(str(_guarded(statement)) if statement.ast_type == ast.ASTType.Rule
                       else str(statement))
    return "\n".join(out)
