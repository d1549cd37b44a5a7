"""Judging snapshots for research and comparing two rulings fact by fact.

The rule groups behind each cited number are read too, so that a renumbered
rule is told apart from a different one (docs/research.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import clingo

from .. import catalog
from ..engine.engine import Engine, Frame, Lens
from ..engine.facts import Names
from ..engine.ruling import FATES, OBJECT_ARGS
from ..engine.solve import Atom, NoRuling, atoms_by_snapshot, shown_texts
from .solver import switch_off_external, switch_off_text

VALUE_FACTS = ("owner", "controller", "default_controller", "you")
# Facts about an ability, the game and players, and histories: every field of a ruling
# is compared (docs/research.md, "What is compared").
GAME = 0
"""The key of the planar controller (a fact about the game, not an object)."""

Key = tuple[Any, ...]


# ---------------------------------------------------------------------------------
# Views: what a ruling says, fact by fact, with the rule groups it rests on


@dataclass
class View:
    """One snapshot's ruling as comparable facts.

    ``facts[key] = (value, groups)``; keys are ``("owner", o)``,
    ``("controller", o)``, ``("default_controller", o)``, ``("fate", o)``,
    ``("choice", o, fact)`` and ``("violation", code, x, y)`` with batch-local
    integers; ``cite[group]`` is the number the group has in this version.
    """

    facts: dict[Key, tuple[Any, frozenset[str]]] = field(default_factory=dict)
    cite: dict[str, str] = field(default_factory=dict)
    # The frame the view was judged from (a witness's ruling is read over it too).
    frame: Frame | None = field(default=None, compare=False, repr=False)

    def number(self, group: str) -> str:
        return self.cite.get(group, group)

    def numbers(self, groups: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted({self.number(g) for g in groups}, key=catalog.rule_order))


def research_engine(changes: tuple[str, ...] = ()) -> Engine:
    """The engine (every version, ``changes``) research judges with: raw times, no cache."""
    return _research_engine(tuple(changes), catalog.versions())


@cache
def _research_engine(changes: tuple[str, ...], versions: tuple[catalog.Version, ...]
                     ) -> Engine:
    return Engine(changes, fast=False)


# A research lens atom (its arguments after the snapshot) as (key, value, group);
# None: no value or no group.  Value facts, fates and numbers are read apart.
READ: dict[str, Callable[[tuple[Any, ...]], tuple[Key, Any, Any]]] = {
    "rwhy": lambda a: ((a[1], a[0]), None, a[2]),
    "rchoice": lambda a: (("choice", a[0], a[1]), (a[2], a[4]), a[3]),
    "rviol": lambda a: (("violation", a[1], a[2], a[3]), True, a[0]),
    "rmay": lambda a: (("may_activate", a[0]), a[1], a[2]),
    "rplanar": lambda a: (("planar_controller", GAME), a[0], a[1]),
    "rcontrolled": lambda a: (("controlled_player", a[0]), a[1], a[2]),
    "rhist": lambda a: (("history", a[0]), (a[1], a[2]), None),
    "rhend": lambda a: (("history", a[0]), (a[1], None), None),
}


def read_view(frame: Frame, atoms: list[Atom]) -> View:
    """One snapshot's view from the research lens's atoms (show/research.lp)."""
    raw: dict[Key, list[Any]] = {}
    numbers: dict[str, str] = {}

    def add(key: Key, value: Any, group: Any) -> None:
        entry = raw.get(key)
        if entry is None:
            entry = raw[key] = [set(), set()]
        if value is not None:
            entry[0].add(value)
        if group is not None:
            entry[1].add(group)

    for name, args in atoms:
        if name == "rnum":
            group, number = str(args[0]), str(args[1])
            if group not in numbers or \
                    catalog.rule_order(number) < catalog.rule_order(numbers[group]):
                numbers[group] = number
        elif name in VALUE_FACTS:
            add((name, args[0]), args[1], None)
        elif name == "rfate":
            o, fate, group, t = args
            if t <= frame.now:
                add(("fate", o), fate, group)
        elif name in READ:
            add(*READ[name](tuple(args)))
    view = View(cite=numbers, frame=frame)
    for obj in frame.doc.get("objects", ()):
        o = frame.names.of("o", obj["id"])
        for fact in VALUE_FACTS:
            view.facts[(fact, o)] = (None, frozenset())
    for key, (values, groups) in raw.items():
        view.facts[key] = (_freeze(key, values), frozenset(groups))
    return view


# The research lenses: views of one snapshot (RESEARCH), and of both sides of a
# comparison in one grounding, snapshot i as 2i and 2i+1, showing only the value
# facts that differ (PAIRED, lenses/paired.lp).  Every frame in one grounding, in
# order (the pairs are neighbours); the snapshot's own times.
RESEARCH = Lens("research", show="research", read=read_view, raw=True, together=True)
PAIRED = Lens("paired", show="paired", files=("lenses/paired.lp",), read=read_view,
              raw=True, together=True)


def _freeze(key: Key, values: set[Any]) -> Any:
    if not values:
        return None
    if key[0] in ("history", "may_activate"):
        return tuple(sorted(values, key=str))
    if key[0] == "choice":
        choosers = sorted({c for c, _ in values})
        return (tuple(choosers), tuple(sorted({p for _, p in values})))
    if len(values) == 1:
        return next(iter(values))
    return tuple(sorted(values, key=str))


def _frames(docs: Sequence[dict[str, Any]], versions: Sequence[catalog.Version],
            names: Names) -> list[Frame]:
    """Each document under each version in turn, numbered by one ``names``."""
    engine = research_engine()
    return [engine.frame(doc, v, raw=True, names=names) for doc in docs for v in versions]


def judge_pairs(docs: Sequence[dict[str, Any]], v1: catalog.Version, v2: catalog.Version,
                changes: Sequence[str] = ()) -> tuple[list[tuple[View, View]], Names]:
    """Judge valid snapshots under ``v1`` and under ``v2`` with ``changes``.

    Without changes: one grounding, snapshot ``i`` is ``2i`` under ``v1`` and
    ``2i+1`` under ``v2`` (the paired lens).  With changes: one grounding per side
    (one ``Names``).
    """
    names = Names()
    if not changes:
        views = research_engine().judge(_frames(docs, (v1, v2), names), PAIRED)
        return list(zip(views[0::2], views[1::2], strict=True)), names
    before = research_engine().judge(_frames(docs, (v1,), names), RESEARCH)
    after = research_engine(tuple(changes)).judge(_frames(docs, (v2,), names), RESEARCH)
    return list(zip(before, after, strict=True)), names


def judge_one(docs: Sequence[dict[str, Any]], version: catalog.Version,
              changes: Sequence[str] = ()) -> tuple[list[View], Names]:
    """Judge valid snapshots under one version (with ``changes``): one grounding."""
    names = Names()
    return research_engine(tuple(changes)).judge(_frames(docs, (version,), names),
                                                 RESEARCH), names


def judge_switched_off(docs: Sequence[dict[str, Any]], version: catalog.Version,
                       groups: Sequence[str], changes: Sequence[str] = ()
                       ) -> dict[str, list[View]]:
    """Judge valid snapshots under one version (with ``changes``) once per group of
    ``groups`` switched off (``off(G)``, as a proposal would), each group alone: one
    grounding, the switch an external per group (``xoff/1``), one solve per group --
    the views ``judge_one(docs, version, (*changes, 'off("G").'))`` gives."""
    switches = [switch_off_external(g) for g in groups]
    text = switch_off_text(groups)

    def collect(ctl: clingo.Control) -> dict[Any, list[Any]]:
        out: dict[Any, list[Any]] = {}
        previous = None
        for switch in switches:
            if previous is not None:
                ctl.assign_external(previous, False)
            ctl.assign_external(switch, True)
            previous = switch
            with ctl.solve(yield_=True) as handle:
                model = next(iter(handle), None)
                if model is None:
                    raise NoRuling("the rules have no answer with a group switched off")
                for key, atoms in atoms_by_snapshot(shown_texts(model)).items():
                    out.setdefault(key, []).append((switch.arguments[0].string, atoms))
        return out

    def read(frame: Frame, found: list[tuple[str, list[Atom]]]) -> dict[str, View]:
        atoms: dict[str, list[Atom]] = {g: [] for g in groups}
        for group, part in found:  # the snapshot's atoms and its version's
            atoms[group].extend(part)
        return {g: read_view(frame, a) for g, a in atoms.items()}

    lens = Lens("switched-off", show="research", raw=True, together=True, text=text,
                collect=collect, read=read)
    views = research_engine(tuple(changes)).judge(_frames(docs, (version,), Names()), lens)
    return {g: [v[g] for v in views] for g in groups}


# ---------------------------------------------------------------------------------
# Differences


@dataclass(frozen=True)
class Kind:
    """A kind of difference: a fact and the rule numbers cited for it on each side."""

    fact: str
    from_rules: tuple[str, ...]
    to_rules: tuple[str, ...]

    def label(self, v1: str, v2: str) -> str:
        left = ", ".join(self.from_rules) or "-"
        right = ", ".join(self.to_rules) or "-"
        return f"{self.fact}: {left} ({v1}) -> {right} ({v2})"


@dataclass
class Difference:
    kind: Kind
    category: str  # "meaning" (the value differs) or "citation" (another rule, same value)
    key: Key
    before: Any
    after: Any
    cause: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def subject(self, names: Names) -> str:
        """The object (or objects) the fact is about, by the snapshot's ids."""
        if self.key[0] == "violation":
            return ",".join(names.name(v) for v in violation_objects(self.key))
        if self.key[0] == "planar_controller":
            return "-"
        return names.name(self.key[1])


def violation_objects(key: Key) -> list[int]:
    """The objects (or effects) a violation key names (``ruling.OBJECT_ARGS``)."""
    _, code, x, y = key
    return [v for v in (x, y)[:OBJECT_ARGS.get(str(code), 2)] if isinstance(v, int) and v]


def _labels(view: View, groups: frozenset[str], other: View,
            other_groups: frozenset[str]) -> tuple[str, ...]:
    """Rule numbers for a side; a superseded meaning cited under the same number
    as the other side's rule is shown by its group id (``800.4c@2017-04-28``)."""
    theirs = {other.number(g): g for g in other_groups}
    out = set()
    for g in groups:
        n = view.number(g)
        out.add(g if n in theirs and theirs[n] != g and "@" in g else n)
    return tuple(sorted(out, key=catalog.rule_order))


def fact_label(key: Key) -> str:
    if key[0] == "choice":
        return f"choice of {key[2]}"
    if key[0] == "violation":
        return f"violation {str(key[1]).replace('_', '-')}"
    return str(key[0])


@dataclass(frozen=True)
class Sides:
    """The rule groups in force on only one side: what a difference can be due to.

    Groups a proposal invents (cited, but numbered by no catalog) count as the
    proposal's side too.
    """

    only_from: frozenset[str]
    only_to: frozenset[str]
    known_from: frozenset[str]
    known_to: frozenset[str]

    @classmethod
    def of(cls, v1: catalog.Version, v2: catalog.Version, changes: Sequence[str] = ()
           ) -> Sides:
        g1 = frozenset(r.group for r in v1.rules)
        g2 = frozenset(r.group for r in v2.rules)
        text = "\n".join(changes)
        off = set(re.findall(r'\boff\(\s*"([^"]+)"\s*\)', text))
        numbers = set(re.findall(r'\boff_number\(\s*"([^"]+)"\s*\)', text))
        off |= {r.group for r in v2.rules if r.number in numbers}
        on2 = g2 - off
        return cls(g1 - on2, on2 - g1, g1, g2)

    def cause(self, a: View, ga: set[str], b: View, gb: set[str]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        left = {g for g in ga if g in self.only_from or g not in self.known_from}
        right = {g for g in gb if g in self.only_to or g not in self.known_to}
        return (_labels(a, frozenset(left), b, frozenset(right)),
                _labels(b, frozenset(right), a, frozenset(left)))


def _about(view: View, o: int) -> set[str]:
    """Every group cited for object ``o`` (any fact, violations naming it)."""
    found: set[str] = set()
    for key, (_, groups) in view.facts.items():
        if (key[1] == o) if key[0] != "violation" else (o in violation_objects(key)):
            found |= groups
    return found


def compare(a: View, b: View, sides: Sides | None = None
            ) -> tuple[list[Difference], list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    """Differences between two views, and the renumbered citations (same groups).

    With ``sides``, each difference gets a cause: the one-sided rule groups cited
    for its object under either side (else anywhere in the snapshot).
    """
    diffs: list[Difference] = []
    renumbered: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    none: tuple[Any, frozenset[str]] = (None, frozenset())
    for key in a.facts.keys() | b.facts.keys():
        va, ga = a.facts.get(key, none)
        vb, gb = b.facts.get(key, none)
        na, nb = _labels(a, ga, b, gb), _labels(b, gb, a, ga)
        if va != vb:
            diffs.append(Difference(Kind(fact_label(key), na, nb), "meaning", key, va, vb))
        elif ga != gb:
            diffs.append(Difference(Kind(fact_label(key), na, nb), "citation", key, va, vb))
        elif na != nb:
            renumbered.append((fact_label(key), na, nb))
    diffs.sort(key=lambda d: (str(d.key), d.kind.fact))
    if sides is not None and diffs:
        everywhere: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        for diff in diffs:
            subject = diff.key[2] if diff.key[0] == "violation" else diff.key[1]
            cause = sides.cause(a, _about(a, subject), b, _about(b, subject))
            if cause == ((), ()):
                if everywhere is None:
                    all_a = set().union(*(g for _, g in a.facts.values()))
                    all_b = set().union(*(g for _, g in b.facts.values()))
                    everywhere = sides.cause(a, all_a, b, all_b)
                cause = everywhere
            diff.cause = cause
    return diffs, renumbered


def show_value(key: Key, value: Any, names: Names) -> Any:
    """A fact's value by the snapshot's ids (JSON-ready)."""
    if value is None:
        return None
    if key[0] in (*VALUE_FACTS, "planar_controller", "controlled_player"):
        if isinstance(value, tuple):
            return [names.name(v) for v in value]
        return names.name(value)
    if key[0] == "fate":
        return FATES.get(str(value), str(value))
    if key[0] == "may_activate":
        return [names.name(p) for p in value]
    if key[0] == "history":
        return {str(t): (None if p is None else names.name(p))
                for t, p in sorted(value, key=lambda run: run[0])}
    if key[0] == "choice":
        choosers, outcomes = value
        return {"chooser": [names.name(c) for c in choosers],
                "outcomes": [names.name(p) for p in outcomes]}
    return True


