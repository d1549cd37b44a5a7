"""Judging snapshots for research and comparing two rulings fact by fact.

The rule groups behind each cited number are read too, so that a renumbered
rule is told apart from a different one (docs/research.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .. import catalog
from ..engine.engine import Engine
from ..engine.facts import Names, default_now, snapshot_facts
from ..engine.ruling import OBJECT_ARGS
from ..engine.solve import Atom

# The output research reads: owners and controllers, the rule groups behind
# `because`, `fate`, `choice` and `violation`, and the numbers of the groups in
# each version (`number/3`, including any a proposal adds; a group a version does
# not number is cited by its id, as show.lp's `cite/3` does).  It replaces the
# `#show` lines of show.lp (which only project the model; every rule of the
# encodings is kept).
RESEARCH_SHOW = """
#show.
#show owner/3.
#show controller/3.
#show default_controller/3.
#show rwhy(S,O,F,G) : why(S,O,F,G,_,_,_), F != you, F != may_activate.
#show rfate(S,O,F,G,T) : fate(S,O,F,G,T).
#show rchoice(S,O,F,C,G,P) : choice(S,O,F,C,G,P).
#show rviol(S,G,C,X,Y) : error(S,G,C,X,Y).
#show rnum(V,G,N) : number(V,G,N).
"""

# When both sides are in one grounding (snapshot i is 2i and 2i+1), the owner,
# controller and default controller of an object, with their rule groups, are
# shown only where the two sides differ (in value or in groups) or cite other
# numbers (renumbered): most facts are the same under both versions, and reading
# them is most of the cost of a comparison.  Groups cited identically on both
# sides are in force on both, so leaving them out changes no cause either.
PAIRED_SHOW = """
#show.
rpartner(S,S+1) :- version(S,_), version(S+1,_), S \\ 2 = 0.
rpartner(T,S) :- rpartner(S,T), S < T.
rval(S,O,owner,P) :- owner(S,O,P).
rval(S,O,controller,P) :- controller(S,O,P).
rval(S,O,default_controller,P) :- default_controller(S,O,P).
rgrp(S,O,F,G) :- why(S,O,F,G,_,_,_), F != you, F != may_activate.
rdiff(S,O,F) :- rval(S,O,F,P), rpartner(S,T), not rval(T,O,F,P).
rdiff(S,O,F) :- rgrp(S,O,F,G), rpartner(S,T), not rgrp(T,O,F,G).
rdiff(T,O,F) :- rdiff(S,O,F), rpartner(S,T).
rnumof(S,G,N) :- rgrp(S,_,_,G), version(S,V), number(V,G,N).
rrenum(S,O,F) :- rgrp(S,O,F,G), rpartner(S,T), rnumof(S,G,N), not rnumof(T,G,N),
    not rdiff(S,O,F).
rrenum(T,O,F) :- rrenum(S,O,F), rpartner(S,T).
rshow(S,O,F) :- rdiff(S,O,F).
rshow(S,O,F) :- rrenum(S,O,F).
#show owner(S,O,P) : owner(S,O,P), rshow(S,O,owner).
#show controller(S,O,P) : controller(S,O,P), rshow(S,O,controller).
#show default_controller(S,O,P) : default_controller(S,O,P), rshow(S,O,default_controller).
#show rwhy(S,O,F,G) : rgrp(S,O,F,G), rshow(S,O,F).
#show rfate(S,O,F,G,T) : fate(S,O,F,G,T).
#show rchoice(S,O,F,C,G,P) : choice(S,O,F,C,G,P).
#show rviol(S,G,C,X,Y) : error(S,G,C,X,Y).
#show rnum(V,G,N) : number(V,G,N).
"""

VALUE_FACTS = ("owner", "controller", "default_controller")
FATES = {"leaves_game": "leaves-game", "exiled": "exiled", "ceases_to_exist": "ceases-to-exist"}

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

    def number(self, group: str) -> str:
        return self.cite.get(group, group)

    def numbers(self, groups: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted({self.number(g) for g in groups}, key=_rule_order))


@cache
def _rule_order(number: str) -> tuple[Any, ...]:
    head, _, rest = number.partition("@")
    parts: list[Any] = []
    for piece in head.replace(".", " ").split():
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append((int(digits) if digits else 0, piece))
    return (*parts, rest)


def research_engine(changes: tuple[str, ...] = (), paired: bool = False) -> Engine:
    """The engine (every version, ``changes``) with show.lp's projection replaced
    (``paired``: by the one that shows only what differs between 2i and 2i+1)."""
    return _research_engine(tuple(changes), paired, catalog.versions())


@cache
def _research_engine(changes: tuple[str, ...], paired: bool,
                     versions: tuple[catalog.Version, ...]) -> Engine:
    return Engine(changes, fast=False, show=PAIRED_SHOW if paired else RESEARCH_SHOW)


def _build_views(found: dict[Any, list[Atom]], nows: dict[int, int],
                 objects: dict[int, list[int]], versions: dict[int, str]) -> dict[int, View]:
    """Views by batch number from one model's shown atoms (``Engine.solve``: by
    their first argument, the batch number, or the version of ``rnum``)."""
    raw: dict[int, dict[Key, list[Any]]] = {}
    numbers: dict[str, dict[str, str]] = {}

    def slot(s: int, key: Key) -> list[Any]:
        entry = raw.setdefault(s, {}).get(key)
        if entry is None:
            entry = raw[s][key] = [set(), set()]
        return entry

    for s, atoms in found.items():
        for name, args in atoms:
            if name == "rnum":
                group, number = str(args[0]), str(args[1])
                known = numbers.setdefault(str(s), {})
                if group not in known or _rule_order(number) < _rule_order(known[group]):
                    known[group] = number
            elif name in VALUE_FACTS:
                slot(s, (name, args[0]))[0].add(args[1])
            elif name == "rwhy":
                slot(s, (args[1], args[0]))[1].add(args[2])
            elif name == "rfate":
                o, fate, group, t = args
                if t <= nows.get(s, t):
                    entry = slot(s, ("fate", o))
                    entry[0].add(fate)
                    entry[1].add(group)
            elif name == "rchoice":
                o, fact, chooser, group, p = args
                entry = slot(s, ("choice", o, fact))
                entry[0].add((chooser, p))
                entry[1].add(group)
            elif name == "rviol":
                group, code, x, y = args
                entry = slot(s, ("violation", code, x, y))
                entry[0].add(True)
                entry[1].add(group)
    return _views_of(raw, numbers, objects, versions)


def _views_of(raw: dict[int, dict[Key, list[Any]]], numbers: dict[str, dict[str, str]],
              objects: dict[int, list[int]], versions: dict[int, str]) -> dict[int, View]:
    """``_build_views``' sets made into views: every object has its value facts."""
    views: dict[int, View] = {}
    for s, objs in objects.items():
        view = View(cite=numbers.get(versions[s], {}))
        for o in objs:
            for fact in VALUE_FACTS:
                view.facts[(fact, o)] = (None, frozenset())
        for key, (values, groups) in raw.get(s, {}).items():
            view.facts[key] = (_freeze(key, values), frozenset(groups))
        views[s] = view
    return views


def _freeze(key: Key, values: set[Any]) -> Any:
    if not values:
        return None
    if key[0] == "choice":
        choosers = sorted({c for c, _ in values})
        return (tuple(choosers), tuple(sorted({p for _, p in values})))
    if len(values) == 1:
        return next(iter(values))
    return tuple(sorted(values, key=str))


@dataclass
class _Batch:
    """Facts of one grounding, and what reading its model needs per batch number."""

    names: Names
    facts: list[str] = field(default_factory=list)
    nows: dict[int, int] = field(default_factory=dict)
    objects: dict[int, list[int]] = field(default_factory=dict)
    versions: dict[int, str] = field(default_factory=dict)

    def add(self, doc: dict[str, Any], s: int, version: catalog.Version) -> None:
        if "now" not in doc:  # computed once here, not again by snapshot_facts
            doc = {**doc, "now": default_now(doc)}
        assert s == len(self.facts), "batch numbers are the positions in the grounding"
        self.facts.append(snapshot_facts(doc, "#", version.const, self.names))
        self.nows[s] = doc["now"]
        self.objects[s] = [self.names.of("o", obj["id"]) for obj in doc.get("objects", ())]
        self.versions[s] = version.const

    def solve(self, changes: Sequence[str] = (), paired: bool = False) -> dict[int, View]:
        found = research_engine(tuple(changes), paired).solve(self.facts)
        return _build_views(found, self.nows, self.objects, self.versions)


def judge_pairs(docs: Sequence[dict[str, Any]], v1: catalog.Version, v2: catalog.Version,
                changes: Sequence[str] = ()) -> tuple[list[tuple[View, View]], Names]:
    """Judge valid snapshots under ``v1`` and under ``v2`` with ``changes``.

    Without changes: one grounding, snapshot ``i`` is ``2i`` under ``v1`` and
    ``2i+1`` under ``v2``.  With changes: one grounding per side (one ``Names``).
    """
    names = Names()
    empty = View()
    if not changes:
        batch = _Batch(names)
        for i, doc in enumerate(docs):
            batch.add(doc, 2 * i, v1)
            batch.add(doc, 2 * i + 1, v2)
        views = batch.solve(paired=True)
        return [(views.get(2 * i, empty), views.get(2 * i + 1, empty))
                for i in range(len(docs))], names
    sides: list[dict[int, View]] = []
    for version, layered in ((v1, ()), (v2, tuple(changes))):
        batch = _Batch(names)
        for i, doc in enumerate(docs):
            batch.add(doc, i, version)
        sides.append(batch.solve(layered))
    return [(sides[0].get(i, empty), sides[1].get(i, empty)) for i in range(len(docs))], names


def judge_one(docs: Sequence[dict[str, Any]], version: catalog.Version,
              changes: Sequence[str] = ()) -> tuple[list[View], Names]:
    """Judge valid snapshots under one version (with ``changes``): one grounding."""
    batch = _Batch(Names())
    for i, doc in enumerate(docs):
        batch.add(doc, i, version)
    views = batch.solve(tuple(changes))
    return [views.get(i, View()) for i in range(len(docs))], batch.names


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
    return tuple(sorted(out, key=_rule_order))


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
    if key[0] in VALUE_FACTS:
        if isinstance(value, tuple):
            return [names.name(v) for v in value]
        return names.name(value)
    if key[0] == "fate":
        return FATES.get(str(value), str(value))
    if key[0] == "choice":
        choosers, outcomes = value
        return {"chooser": [names.name(c) for c in choosers],
                "outcomes": [names.name(p) for p in outcomes]}
    return True


