"""Research tools: what a rules change changes (``impact``) and what a version
guarantees (``verify``).

``impact`` judges snapshots under two CR versions (or a version and a proposal
layered over it) and reports every object whose owner, controller, default
controller, fate on leaving, open choices or violations differ, grouped by the
rule numbers cited for that fact under each side.  The snapshots come from a
corpus (JSON Lines) or, with ``--exhaustive``, from ``encodings/generator.lp``:
every small snapshot within the bounds, enumerated by size, so the first
snapshot that shows a kind of difference is a smallest witness of it.

``verify`` judges the generated snapshots under one version and reports, each
with a smallest witness, permanents and spells without exactly one controller,
choices the rules leave to players, and violations.

Judging uses the engine of ``adjudicate``: ``facts.snapshot_facts``, the
encodings with ``solve.Program``, one grounding per batch.  Without a proposal
both versions are judged in the same grounding (snapshot ``i`` is batch number
``2i`` under the first version and ``2i+1`` under the second, one ``Names`` for
both); a proposal is global to a grounding, so with ``--change`` each side gets
its own grounding.  A few extra ``#show`` lines expose the rule *groups* behind
the cited numbers, so that a renumbered rule is told apart from a different one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import clingo

from . import catalog
from .api import ErrorRecord, InputError, adjudicate_many, parse_json
from .facts import Names, default_now, snapshot_facts
from .ruling import OBJECT_ARGS
from .solve import NoRuling, Program
from .validate import problems

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


@cache
def research_program(program: Program, paired: bool = False) -> str:
    """The program text of ``program`` with show.lp's projection replaced
    (``paired``: by the one that shows only what differs between 2i and 2i+1)."""
    kept: list[str] = []
    skipping = False
    for line in program.text().splitlines():
        if skipping or line.lstrip().startswith("#show"):
            skipping = not line.rstrip().endswith(".")
            continue
        kept.append(line)
    kept.append(PAIRED_SHOW if paired else RESEARCH_SHOW)
    return "\n".join(kept)


def _value(text: str) -> Any:
    if text[0] == '"':
        return text[1:-1]
    if text[0] == "-" or text.isdigit():
        return int(text)
    return text


def _build_views(symbols: Iterable[clingo.Symbol], nows: dict[int, int],
                 objects: dict[int, list[int]], versions: dict[int, str]) -> dict[int, View]:
    """Views by batch number from one model's shown atoms."""
    raw: dict[int, dict[Key, list[Any]]] = {}
    numbers: dict[str, dict[str, str]] = {}

    def slot(s: int, key: Key) -> list[Any]:
        entry = raw.setdefault(s, {}).get(key)
        if entry is None:
            entry = raw[s][key] = [set(), set()]
        return entry

    for sym in symbols:
        name, _, rest = str(sym).partition("(")
        args = [_value(a) for a in rest[:-1].split(",")]
        s = args[0]
        if name == "rnum":
            group, number = args[1], args[2]
            known = numbers.setdefault(s, {})
            if group not in known or _rule_order(number) < _rule_order(known[group]):
                known[group] = number
        elif name in VALUE_FACTS:
            slot(s, (name, args[1]))[0].add(args[2])
        elif name == "rwhy":
            slot(s, (args[2], args[1]))[1].add(args[3])
        elif name == "rfate":
            _, o, fate, group, t = args
            if t <= nows.get(s, t):
                entry = slot(s, ("fate", o))
                entry[0].add(fate)
                entry[1].add(group)
        elif name == "rchoice":
            _, o, fact, chooser, group, p = args
            entry = slot(s, ("choice", o, fact))
            entry[0].add((chooser, p))
            entry[1].add(group)
        elif name == "rviol":
            _, group, code, x, y = args
            entry = slot(s, ("violation", code, x, y))
            entry[0].add(True)
            entry[1].add(group)
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


def _solve_views(program: Program, facts: Sequence[str], nows: dict[int, int],
                 objects: dict[int, list[int]], versions: dict[int, str],
                 paired: bool = False) -> dict[int, View]:
    """Ground and solve one batch (the engine of ``solve.solve``), read views."""
    messages: list[str] = []
    ctl = clingo.Control(["--warn=none"], logger=lambda _code, text: messages.append(text))
    try:
        ctl.add("base", [], research_program(program, paired))
        ctl.add("base", [], "\n".join(facts))
        ctl.ground([("base", [])])
    except RuntimeError:
        raise NoRuling("the program could not be grounded (a proposal file's error?): "
                       + " ".join(m.strip() for m in messages)) from None
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle), None)
        if model is None:
            raise NoRuling("the rules have no answer for this batch: a proposal file's "
                           "constraint rules out every ruling (use error/5 atoms instead)")
        return _build_views(model.symbols(shown=True), nows, objects, versions)


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
        self.facts.append(snapshot_facts(doc, s, version.const, self.names))
        self.nows[s] = doc["now"]
        self.objects[s] = [self.names.of("o", obj["id"]) for obj in doc.get("objects", ())]
        self.versions[s] = version.const

    def solve(self, program: Program, paired: bool = False) -> dict[int, View]:
        return _solve_views(program, self.facts, self.nows, self.objects, self.versions,
                            paired)


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
        views = batch.solve(Program(tuple(sorted({v1, v2}, key=lambda v: v.name))),
                            paired=True)
        return [(views.get(2 * i, empty), views.get(2 * i + 1, empty))
                for i in range(len(docs))], names
    sides: list[dict[int, View]] = []
    for version, layered in ((v1, ()), (v2, tuple(changes))):
        batch = _Batch(names)
        for i, doc in enumerate(docs):
            batch.add(doc, i, version)
        sides.append(batch.solve(Program((version,), layered)))
    return [(sides[0].get(i, empty), sides[1].get(i, empty)) for i in range(len(docs))], names


def judge_one(docs: Sequence[dict[str, Any]], version: catalog.Version,
              changes: Sequence[str] = ()) -> tuple[list[View], Names]:
    """Judge valid snapshots under one version (with ``changes``): one grounding."""
    batch = _Batch(Names())
    for i, doc in enumerate(docs):
        batch.add(doc, i, version)
    views = batch.solve(Program((version,), tuple(changes)))
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


# ---------------------------------------------------------------------------------
# Reports


Cause = tuple[tuple[str, ...], tuple[str, ...]]


def cause_label(cause: Cause, v1: str, v2: str) -> str:
    left = ", ".join(cause[0]) or "no one-sided rule cited"
    right = ", ".join(cause[1]) or "no one-sided rule cited"
    return f"{left} ({v1}) -> {right} ({v2})"


@dataclass
class Tally:
    """How many distinct snapshots; they arrive one after the other, so a set is not needed."""

    count: int = 0
    last: Any = None

    def add(self, snapshot: Any) -> None:
        if snapshot != self.last:
            self.count += 1
            self.last = snapshot

    def __len__(self) -> int:
        return self.count


@dataclass
class KindReport:
    kind: Kind
    category: str
    count: int = 0                 # facts (object, fact) that differ this way
    snapshots: Tally = field(default_factory=Tally)
    causes: dict[Cause, int] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    witness: dict[str, Any] | None = None


@dataclass
class ImpactReport:
    from_version: str
    to_version: str
    proposal: bool
    mode: str
    judged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    kinds: dict[tuple[Kind, str], KindReport] = field(default_factory=dict)
    causes: dict[tuple[str, Cause], Tally] = field(default_factory=dict)
    renumbered: dict[tuple[str, tuple[str, ...], tuple[str, ...]], int] = field(
        default_factory=dict)
    changed_snapshots: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    bounds: dict[str, int] = field(default_factory=dict)
    per_size: list[dict[str, int]] = field(default_factory=list)

    def to_side(self) -> str:
        return self.to_version + (" + proposal" if self.proposal else "")

    def record(self, diffs: list[Difference], renumbered: Iterable[Any], snapshot: Any,
               names: Names, item: dict[str, Any] | None = None) -> None:
        """Count one snapshot's differences; ``item`` (corpus mode) names the snapshot."""
        for diff in diffs:
            entry = self.kinds.get((diff.kind, diff.category))
            if entry is None:
                entry = self.kinds[(diff.kind, diff.category)] = KindReport(
                    diff.kind, diff.category)
            entry.count += 1
            entry.snapshots.add(snapshot)
            entry.causes[diff.cause] = entry.causes.get(diff.cause, 0) + 1
            self.causes.setdefault((diff.category, diff.cause), Tally()).add(snapshot)
            if item is not None:
                entry.items.append({**item, "object": diff.subject(names),
                                    "from": show_value(diff.key, diff.before, names),
                                    "to": show_value(diff.key, diff.after, names)})
            if diff.category == "meaning":
                self.changed_snapshots.add(snapshot)
        for key in renumbered:
            self.renumbered[key] = self.renumbered.get(key, 0) + 1

    def ordered(self, category: str) -> list[KindReport]:
        return sorted((r for r in self.kinds.values() if r.category == category),
                      key=lambda r: (r.kind.fact, r.kind.from_rules, r.kind.to_rules))

    def main_cause(self, r: KindReport) -> Cause:
        if r.witness is not None:
            return tuple(tuple(x) for x in r.witness["cause"])  # type: ignore[return-value]
        return max(r.causes.items(), key=lambda kv: (kv[1], kv[0]))[0]

    def to_dict(self) -> dict[str, Any]:
        v1, v2 = self.from_version, self.to_side()
        out: dict[str, Any] = {
            "from": self.from_version, "to": self.to_version, "proposal": self.proposal,
            "mode": self.mode, "snapshots": self.judged,
            "changed_snapshots": len(self.changed_snapshots), "seconds": round(self.seconds, 2)}
        if self.bounds:
            out["bounds"] = self.bounds
            out["per_size"] = self.per_size
        if self.mode == "corpus" or self.errors:
            out["errors"] = self.errors
        for category, title in (("meaning", "differences"), ("citation", "citation_only")):
            out[title] = [self._kind_dict(r) for r in self.ordered(category)]
            out[f"{title}_by_cause"] = [
                {"from_rules": list(cause[0]), "to_rules": list(cause[1]),
                 "label": cause_label(cause, v1, v2), "snapshots": len(snaps)}
                for (cat, cause), snaps in sorted(self.causes.items(),
                                                  key=lambda kv: -len(kv[1]))
                if cat == category]
        out["renumbered"] = [
            {"fact": fact, "from_rules": list(a), "to_rules": list(b), "count": n}
            for (fact, a, b), n in sorted(self.renumbered.items())]
        return out

    def _kind_dict(self, r: KindReport) -> dict[str, Any]:
        v1, v2 = self.from_version, self.to_side()
        d: dict[str, Any] = {
            "fact": r.kind.fact, "from_rules": list(r.kind.from_rules),
            "to_rules": list(r.kind.to_rules), "label": r.kind.label(v1, v2),
            "count": r.count, "snapshots": len(r.snapshots),
            "causes": [{"from_rules": list(c[0]), "to_rules": list(c[1]),
                        "label": cause_label(c, v1, v2), "count": n}
                       for c, n in sorted(r.causes.items(), key=lambda kv: -kv[1])]}
        if self.mode == "corpus":
            d["items"] = r.items
        if r.witness is not None:
            d["witness"] = r.witness
        return d


# ---------------------------------------------------------------------------------
# Impact over a corpus


def _numbered(stream: Iterable[bytes]) -> Iterator[tuple[int, str | None]]:
    """Non-blank lines with their numbers; None for a line that is not UTF-8."""
    for number, raw in enumerate(stream, 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            yield number, None
            continue
        if line.strip():
            yield number, line


def impact_corpus(lines: Iterable[tuple[int, str | None]], v1: catalog.Version,
                  v2: catalog.Version, changes: Sequence[str] = (),
                  batch_size: int = 500) -> ImpactReport:
    """Judge every valid line under both sides; bad lines become error records."""
    report = ImpactReport(v1.name, v2.name, bool(changes), "corpus")
    sides = Sides.of(v1, v2, changes)
    start = time.perf_counter()
    batch: list[tuple[int, str | None, dict[str, Any]]] = []

    def flush() -> None:
        pairs, names = judge_pairs([doc for _, _, doc in batch], v1, v2, changes)
        for (number, name, _), (a, b) in zip(batch, pairs, strict=True):
            diffs, renumbered = compare(a, b, sides)
            report.record(diffs, renumbered, number, names, {"line": number, "snapshot": name})
        report.judged += len(batch)
        batch.clear()

    for number, line in lines:
        where = f"line {number}"
        if line is None:
            report.errors.append({"id": where, "line": number, "error": [
                {"path": "$", "expected": "a line of UTF-8 text"}]})
            continue
        try:
            doc = parse_json(line, where)
        except InputError as err:
            report.errors.append(_error(where, number, err.problems))
            continue
        found = problems(doc, where)
        if found:
            report.errors.append(_error(where, number, found))
            continue
        name = doc.get("id") if isinstance(doc.get("id"), str) else None
        batch.append((number, name, doc))
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    report.seconds = time.perf_counter() - start
    return report


def _error(name: str, line: int, found: Sequence[Any]) -> dict[str, Any]:
    return {"id": found[0].snapshot if found else name, "line": line,
            "error": [{"path": p.path, "expected": p.expected} for p in found]}


# ---------------------------------------------------------------------------------
# Generated snapshots


@cache
def generator_text() -> str:
    return (resources.files("mtgcontrol.encodings") / "generator.lp").read_text(encoding="utf-8")


def _ids(kind: str, n: int) -> str:
    return f"{kind}{n}"


def model_to_doc(symbols: Iterable[clingo.Symbol]) -> dict[str, Any]:
    """A snapshot/1 document from one answer set of generator.lp."""
    players: dict[int, Any] = {}
    objects: dict[int, dict[str, Any]] = {}
    effects: dict[int, dict[str, Any]] = {}
    types: dict[int, list[str]] = {}
    rest: list[tuple[str, list[Any]]] = []
    now = None
    for sym in symbols:
        name, _, inner = str(sym).partition("(")
        args = [_value(a) for a in inner[:-1].split(",")]
        if name == "g_now":
            now = args[0]
        elif name == "g_player":
            players[args[0]] = _ids("p", args[0])
        elif name == "g_obj":
            objects[args[0]] = {"id": _ids("o", args[0]), "kind": args[1], "zone": args[2]}
        elif name == "g_effect":
            effects[args[0]] = {"id": _ids("e", args[0]), "kind": args[1], "origin": args[2]}
        elif name == "g_type":
            types.setdefault(args[0], []).append(args[1])
        else:
            rest.append((name, args))
    p, o = (lambda n: _ids("p", n)), (lambda n: _ids("o", n))
    for name, args in rest:
        if name == "g_left":
            players[args[0]] = {"id": p(args[0]), "left_at": args[1]}
        elif name == "g_start":
            objects[args[0]]["start"] = {"zone": args[1].replace("_", "-"), "player": p(args[2])}
        elif name == "g_face_down":
            objects[args[0]]["face_down"] = True
        elif name == "g_entered":
            objects[args[0]].setdefault("entered", {}).update(at=args[1], under=p(args[2]))
        elif name == "g_spell_put_by":
            objects[args[0]].setdefault("entered", {})["spell_put_on_stack_by"] = p(args[1])
        elif name == "g_stolen":
            objects[args[0]].setdefault("entered", {})["spell_control_effect"] = \
                _ids("e", args[1])
        elif name == "g_created":
            objects[args[0]].setdefault("created", {}).update(at=args[1], by=p(args[2]))
        elif name == "g_may_cast":
            objects[args[0]].setdefault("created", {})["may_cast"] = True
        elif name == "g_put_on_stack":
            objects[args[0]]["put_on_stack"] = {"at": args[1], "by": p(args[2])}
        elif name == "g_copy_of":
            objects[args[0]]["copy_of"] = o(args[1])
        elif name == "g_attached":
            objects[args[0]]["attached_to"] = o(args[1])
        elif name == "g_source":
            objects[args[0]]["source"] = o(args[1])
        elif name == "g_ability":
            objects[args[0]]["ability"] = "delayed-triggered" if args[1] == "delayed" \
                else args[1]
        elif name == "g_face_up":
            objects[args[0]]["turned_face_up_at"] = args[1]
        elif name == "g_static_created":
            objects[args[0]]["created_by_static_of"] = {"object": o(args[1]), "at": args[2],
                                                        "via": args[3]}
        elif name == "g_static_named":
            effects[args[0]]["source"] = o(args[1])
        elif name == "g_activated":
            objects[args[0]]["activated"] = {"at": args[1], "by": p(args[2])}
        elif name == "g_triggered":
            objects[args[0]]["triggered"] = {"at": args[1], "source_zone": args[2]}
        elif name == "g_waiting":
            objects[args[0]]["waiting"] = True
        elif name == "g_ets":
            effects[args[0]]["timestamp"] = args[1]
        elif name == "g_gives_to":
            effects[args[0]]["player"] = p(args[1])
        elif name == "g_affects":
            effects[args[0]].setdefault("slots", {})[args[1]] = o(args[2])
        elif name == "g_static_of":
            effects[args[0]]["source"] = o(args[1])
            effects[args[0]]["attached"] = True
        elif name == "g_ended_at":
            effects[args[0]]["duration"] = "end-of-turn"
            effects[args[0]]["ended_at"] = args[1]
    for n, kinds in types.items():
        order = ("artifact", "enchantment", "aura", "creature", "plane", "phenomenon",
                 "dungeon", "conspiracy")
        objects[n]["types"] = sorted(kinds, key=order.index)
    effect_list = []
    for n in sorted(effects):
        eff = effects[n]
        slots = eff.pop("slots", None)
        if slots:
            eff["objects"] = [slots[i] for i in sorted(slots)]
            eff.setdefault("source", eff["objects"][0])
        ordered = {k: eff[k] for k in ("id", "kind", "origin", "source", "player", "objects",
                                       "attached", "timestamp", "duration", "ended_at")
                   if k in eff}
        effect_list.append(ordered)
    object_list = []
    for n in sorted(objects):
        obj = objects[n]
        first = {k: obj[k] for k in ("id", "kind", "zone", "types") if k in obj}
        first.update((k, v) for k, v in obj.items() if k not in first)
        object_list.append(first)
    doc: dict[str, Any] = {"players": [players[n] for n in sorted(players)]}
    if now is not None:
        doc["now"] = now
    doc["objects"] = object_list
    doc["effects"] = effect_list
    return doc


@dataclass(frozen=True)
class Bounds:
    players: int
    objects: int
    effects: int

    def to_dict(self) -> dict[str, int]:
        return {"players": self.players, "objects": self.objects, "effects": self.effects}


def generate(bounds: Bounds, stats: list[dict[str, int]] | None = None, late: bool = False
             ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every generated snapshot within ``bounds``, by increasing size (objects +
    effects), then number of players: (size, document)."""
    low = min(2, bounds.players)
    for size in range(1, bounds.objects + bounds.effects + 1):
        for players in range(low, bounds.players + 1):
            for objects in range(max(1, size - bounds.effects), min(bounds.objects, size) + 1):
                effects = size - objects
                ctl = clingo.Control(["0", "--project", "--warn=none", f"-c np={players}",
                                      f"-c no={objects}", f"-c ne={effects}",
                                      f"-c late={int(late)}"])
                ctl.add("base", [], generator_text())
                ctl.ground([("base", [])])
                count = 0
                with ctl.solve(yield_=True) as handle:
                    for model in handle:
                        count += 1
                        yield size, model_to_doc(model.symbols(shown=True))
                if stats is not None:
                    stats.append({"size": size, "players": players, "objects": objects,
                                  "effects": effects, "snapshots": count})


def _batches(items: Iterator[tuple[int, dict[str, Any]]], size: int
             ) -> Iterator[list[tuple[int, dict[str, Any]]]]:
    batch: list[tuple[int, dict[str, Any]]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def impact_exhaustive(bounds: Bounds, v1: catalog.Version, v2: catalog.Version,
                      changes: Sequence[str] = (), batch_size: int = 1000) -> ImpactReport:
    """One smallest witness per kind of difference over every generated snapshot."""
    report = ImpactReport(v1.name, v2.name, bool(changes), "exhaustive",
                          bounds=bounds.to_dict())
    sides = Sides.of(v1, v2, changes)
    start = time.perf_counter()
    counter = 0
    for batch in _batches(generate(bounds, report.per_size, late=True), batch_size):
        pairs, names = judge_pairs([doc for _, doc in batch], v1, v2, changes)
        for (size, doc), (a, b) in zip(batch, pairs, strict=True):
            counter += 1
            diffs, renumbered = compare(a, b, sides)
            report.record(diffs, renumbered, counter, names)
            for diff in diffs:
                entry = report.kinds[(diff.kind, diff.category)]
                if entry.witness is None:
                    entry.witness = {"size": size, "object": diff.subject(names),
                                     "snapshot": doc,
                                     "from": show_value(diff.key, diff.before, names),
                                     "to": show_value(diff.key, diff.after, names),
                                     "cause": [list(diff.cause[0]), list(diff.cause[1])]}
        report.judged += len(batch)
    _explain_witnesses(report, v1, v2, changes)
    report.seconds = time.perf_counter() - start
    return report


def _ruling_part(ruling: Any, object_id: str) -> dict[str, Any]:
    """What a ruling says about one object, with its `because`, fate, choices, violations."""
    data = ruling.to_dict()
    out: dict[str, Any] = {}
    obj = data["objects"].get(object_id)
    if obj is not None:
        out = {k: obj[k] for k in ("owner", "controller", "default_controller")}
        out["because"] = [f"{b['rule']} {b['fact']}: {b['via']}" for b in obj["because"]
                          if b["fact"] != "you"]
    if object_id in data["left_game"]:
        out["left_game"] = data["left_game"][object_id]
    choices = [c for c in data["choices"] if c["object"] == object_id]
    if choices:
        out["choices"] = choices
    if data["violations"]:
        out["violations"] = [f"{v['rule']} {v['code']}: {v['message']}"
                             for v in data["violations"]]
    return out


def _explain_witnesses(report: ImpactReport, v1: catalog.Version, v2: catalog.Version,
                       changes: Sequence[str]) -> None:
    """Judge the witnesses with the public API under both sides (one batch each)."""
    witnesses = [e.witness for e in report.kinds.values() if e.witness is not None]
    _attach_rulings(witnesses, v1.name, (), "ruling_from")
    _attach_rulings(witnesses, v2.name, changes, "ruling_to")


def _attach_rulings(witnesses: list[dict[str, Any]], version: str, changes: Sequence[str],
                    slot: str) -> None:
    for w in witnesses:
        if w["snapshot"].get("id") != "witness":
            w["snapshot"] = {"id": "witness", **w["snapshot"]}
    items = [(w["snapshot"], "witness") for w in witnesses]
    for w, ruling in zip(witnesses, adjudicate_many(items, version, changes, batch_size=1000),
                         strict=True):
        if isinstance(ruling, ErrorRecord):  # a generator bug: say so in the report
            w[slot] = {"violations": [f"invalid snapshot: {p}" for p in ruling.problems]}
        else:
            w[slot] = _ruling_part(ruling, w["object"].split(",")[0])


# ---------------------------------------------------------------------------------
# Verify


@dataclass
class VerifyReport:
    version: str
    proposal: bool
    bounds: dict[str, int]
    judged: int = 0
    seconds: float = 0.0
    failures: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    choices: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    violations: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    per_size: list[dict[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def section(table: dict[tuple[str, tuple[str, ...]], KindReport]) -> list[dict[str, Any]]:
            return [{"what": what, "rules": list(rules), "snapshots": r.count,
                     "witness": r.witness} for (what, rules), r in sorted(table.items())]

        return {"rules": self.version, "proposal": self.proposal, "bounds": self.bounds,
                "snapshots": self.judged, "seconds": round(self.seconds, 2),
                "per_size": self.per_size, "ok": self.ok(),
                "controller_failures": section(self.failures),
                "choices": section(self.choices), "violations": section(self.violations)}

    def counterexamples(self) -> list[tuple[str, tuple[str, ...]]]:
        """Failures the rules do not explain by a violation of the snapshot itself."""
        return [key for key in self.failures if "with violation" not in key[0]]

    def ok(self) -> bool:
        return not self.counterexamples()


def _named(key: Key, names: Names, doc: dict[str, Any]) -> set[str]:
    """Objects a violation is about: those it names, and those of the effects it names
    (e.g. 613.7b names two effects with one timestamp on the same object)."""
    found: set[str] = set()
    for v in violation_objects(key):
        space, name = names.names[v]
        if space == "o":
            found.add(name)
            continue
        for eff in doc.get("effects", ()):
            if eff["id"] == name:
                found.update(eff.get("objects", ()))
                if eff.get("attached"):
                    found.update(o["attached_to"] for o in doc["objects"]
                                 if o["id"] == eff.get("source") and "attached_to" in o)
    return found


def _in_play(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {obj["id"]: obj for obj in doc["objects"]
            if obj["zone"] in ("battlefield", "stack") and obj["kind"] != "ability"}


def verify(bounds: Bounds, version: catalog.Version, changes: Sequence[str] = (),
           batch_size: int = 1000) -> VerifyReport:
    report = VerifyReport(version.name, bool(changes), bounds.to_dict())
    start = time.perf_counter()
    for batch in _batches(generate(bounds, report.per_size), batch_size):
        views, names = judge_one([doc for _, doc in batch], version, changes)
        for (size, doc), view in zip(batch, views, strict=True):
            seen: set[tuple[str, str, tuple[str, ...]]] = set()
            for oid in _in_play(doc):
                o = names.of("o", oid)
                value, groups = view.facts.get(("controller", o), (None, frozenset()))
                if ("fate", o) in view.facts or ("choice", o, "controller") in view.facts:
                    continue
                count = 0 if value is None else len(value) if isinstance(value, tuple) else 1
                if count != 1:
                    what = "no controller" if count == 0 else "more than one controller"
                    codes = sorted({str(k[1]).replace("_", "-") for k in view.facts
                                    if k[0] == "violation" and oid in _named(k, names, doc)})
                    if codes:  # the rules reject the snapshot itself
                        what += ", with violation " + ", ".join(codes)
                    _note(report.failures, seen, "f", what, view.numbers(groups), size, doc,
                          oid)
            for key, (_fact_value, groups) in view.facts.items():
                if key[0] == "choice":
                    _note(report.choices, seen, "c", f"choice of {key[2]}",
                          view.numbers(groups), size, doc, names.name(key[1]))
                elif key[0] == "violation":
                    subject = ",".join(names.name(v) for v in violation_objects(key))
                    _note(report.violations, seen, "v",
                          f"violation {str(key[1]).replace('_', '-')}",
                          view.numbers(groups), size, doc, subject)
        report.judged += len(batch)
    witnesses = [e.witness for table in (report.failures, report.choices, report.violations)
                 for e in table.values() if e.witness is not None]
    _attach_rulings(witnesses, version.name, changes, "ruling")
    report.seconds = time.perf_counter() - start
    return report


def _note(table: dict[tuple[str, tuple[str, ...]], KindReport],
          seen: set[tuple[str, str, tuple[str, ...]]], tag: str, what: str,
          rules: tuple[str, ...], size: int, doc: dict[str, Any], subject: str) -> None:
    key = (what, rules)
    entry = table.get(key)
    if entry is None:
        entry = table[key] = KindReport(Kind(what, rules, ()), tag)
        entry.witness = {"size": size, "object": subject, "snapshot": doc}
    if (tag, what, rules) not in seen:
        seen.add((tag, what, rules))
        entry.count += 1


# ---------------------------------------------------------------------------------
# Text output


def _compact(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(", ", ": "), ensure_ascii=False)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if value is True:
        return "yes"
    if isinstance(value, list):
        return " and ".join(value)
    if isinstance(value, dict):
        return f"{'/'.join(value['chooser'])} chooses: {' or '.join(value['outcomes'])}"
    return str(value)


def _ruling_lines(label: str, part: dict[str, Any], indent: str = "      ") -> list[str]:
    lines = [f"{indent}{label}: owner {_show(part.get('owner'))}, controller "
             f"{_show(part.get('controller'))}, default controller "
             f"{_show(part.get('default_controller'))}"
             + (f", {part['left_game']}" if "left_game" in part else "")]
    lines.extend(f"{indent}  because {b}" for b in part.get("because", ()))
    lines.extend(f"{indent}  choice: {c['chooser']} decides the {c['fact']}: "
                 f"{' or '.join(c['outcomes'])} ({c['rule']})" for c in part.get("choices", ()))
    lines.extend(f"{indent}  violation {v}" for v in part.get("violations", ()))
    return lines


def impact_text(report: ImpactReport, limit: int = 10) -> str:
    v1, v2 = report.from_version, report.to_side()
    out = [f"impact {v1} -> {v2} ({report.mode}): {report.judged} snapshot(s) judged in "
           f"{report.seconds:.1f} s, {len(report.changed_snapshots)} with a difference in "
           "meaning"]
    if report.bounds:
        b = report.bounds
        out.append(f"bounds: up to {b['players']} player(s), {b['objects']} object(s), "
                   f"{b['effects']} effect(s); smallest witness per kind of difference")
    if report.mode == "corpus":
        out.append(f"{len(report.errors)} line(s) could not be judged")
        for err in report.errors[:limit]:
            first = err["error"][0] if err["error"] else {"path": "$", "expected": "?"}
            name = f" ({err['id']})" if err["id"] != f"line {err['line']}" else ""
            out.append(f"  line {err['line']}{name}: {first['path']}: expected "
                       f"{first['expected']}")
        if len(report.errors) > limit:
            out.append(f"  ... and {len(report.errors) - limit} more")
    for category, title in (("meaning", "Differences in meaning"),
                            ("citation", "Same facts, another rule cited")):
        kinds = report.ordered(category)
        by_cause: dict[Cause, list[KindReport]] = {}
        for r in kinds:
            by_cause.setdefault(report.main_cause(r), []).append(r)
        out.append("")
        out.append(f"{title}: {len(kinds)} kind(s), by the rule change responsible "
                   "(one-sided rules cited for the object)")
        for cause, group in sorted(by_cause.items(), key=lambda kv: (
                -len(report.causes.get((category, kv[0]), Tally())), kv[0])):
            snaps = len(report.causes.get((category, cause), Tally()))
            out.append(f"== {cause_label(cause, v1, v2)}: {snaps} snapshot(s)")
            for r in group:
                out.extend(_kind_lines(report, r, limit))
    renumbered = report.renumbered
    out.append("")
    out.append(f"Renumbered only (same facts, same rules, other numbers): "
               f"{sum(renumbered.values())} citation(s)")
    pairs: set[tuple[str, str]] = set()
    for (_fact, a, b) in renumbered:
        pairs |= {(x, y) for x, y in zip(a, b, strict=False) if x != y}
    if pairs:
        out.append("  " + ", ".join(f"{a} -> {b}" for (a, b) in sorted(pairs)))
    return "\n".join(out)


def _kind_lines(report: ImpactReport, r: KindReport, limit: int) -> list[str]:
    v1, v2 = report.from_version, report.to_side()
    out = [f"  * {r.kind.label(v1, v2)}  [{r.count} fact(s) in {len(r.snapshots)} snapshot(s)]"]
    for item in r.items[:limit]:
        name = f"line {item['line']}" + (f" ({item['snapshot']})" if item["snapshot"] else "")
        out.append(f"      {name} {item['object']}: {_show(item['from'])} -> "
                   f"{_show(item['to'])}")
    if len(r.items) > limit:
        out.append(f"      ... and {len(r.items) - limit} more (--format json lists all)")
    w = r.witness
    if w:
        out.append(f"      witness (size {w['size']}), {w['object']}: {_show(w['from'])} -> "
                   f"{_show(w['to'])}")
        out.append(f"      snapshot: {_compact(w['snapshot'])}")
        out.extend(_ruling_lines(v1, w["ruling_from"]))
        out.extend(_ruling_lines(v2, w["ruling_to"]))
    return out


def verify_text(report: VerifyReport) -> str:
    b = report.bounds
    out = [f"verify {report.version}{' + proposal' if report.proposal else ''}: "
           f"{report.judged} snapshot(s) with up to {b['players']} player(s), {b['objects']} "
           f"object(s), {b['effects']} effect(s), judged in {report.seconds:.1f} s"]
    for title, table in (("Permanents or spells without exactly one controller (a "
                          "violation naming the object means the rules reject the snapshot)",
                          report.failures),
                         ("Choices left to players", report.choices),
                         ("Violations", report.violations)):
        out.append("")
        out.append(f"{title}: {len(table)} kind(s)")
        for (what, rules), entry in sorted(table.items()):
            w = entry.witness
            assert w is not None
            out.append(f"* {what} ({', '.join(rules) or 'no rule cited'})  "
                       f"[{entry.count} snapshot(s)]")
            out.append(f"    witness (size {w['size']}), object {w['object']}")
            out.append(f"    snapshot: {_compact(w['snapshot'])}")
            out.extend(_ruling_lines(report.version, w["ruling"]))
    out.append("")
    if report.ok():
        out.append("OK: every permanent and spell has exactly one controller"
                   + (" (except in snapshots the rules reject with a violation)"
                      if report.failures else ""))
    else:
        out.append(f"FAILED: {len(report.counterexamples())} kind(s) of permanent or spell "
                   "with no controller or more than one, and no violation to explain it")
    return "\n".join(out)


# ---------------------------------------------------------------------------------
# Commands


def _bounds(args: argparse.Namespace) -> Bounds:
    for name in ("players", "objects", "effects"):
        value = getattr(args, name)
        low = 1 if name != "effects" else 0
        if not isinstance(value, int) or not low <= value <= 6:
            raise InputError([_usage(f"--{name}", f"an integer from {low} to 6, got {value}")])
    return Bounds(args.players, args.objects, args.effects)


def _usage(where: str, expected: str) -> Any:
    from .validate import InputProblem

    return InputProblem("mtgcontrol", where, expected)


def _progress(args: argparse.Namespace) -> Any:
    if getattr(args, "quiet", False):
        return None
    return lambda message: print(f"  ... {message}", file=sys.stderr, flush=True)


def cmd_impact(args: argparse.Namespace, changes: tuple[str, ...]) -> int:
    v1 = catalog.resolve(args.from_version)
    v2 = catalog.resolve(args.to_version)
    if args.batch_size < 1:
        raise InputError([_usage("--batch-size", f"a positive integer, got {args.batch_size}")])
    if args.exhaustive:
        if args.corpus is not None:
            raise InputError([_usage("CORPUS.jsonl", "no corpus with --exhaustive")])
        if args.enumerate or changes:
            # A proposal is global to a grounding, so with --change the two sides
            # cannot share one search program: generate and test instead.
            report = impact_exhaustive(_bounds(args), v1, v2, changes,
                                       batch_size=max(args.batch_size, 1000))
        else:
            from .search import impact_search

            report = impact_search(_bounds(args), v1, v2, _progress(args))
    else:
        if args.enumerate:
            raise InputError([_usage("--enumerate", "only with --exhaustive")])
        if args.corpus is None:
            raise InputError([_usage("CORPUS.jsonl", "a corpus file (or '-'), or --exhaustive")])
        try:
            stream = sys.stdin.buffer if args.corpus == "-" else open(  # noqa: SIM115
                args.corpus, "rb")
        except OSError as err:
            raise InputError([_usage(args.corpus, f"a readable file ({err.strerror})")]) from None
        try:
            report = impact_corpus(_numbered(stream), v1, v2, changes, args.batch_size)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(impact_text(report))
    return 0


def cmd_verify(args: argparse.Namespace, changes: tuple[str, ...]) -> int:
    from .search import builtin_invariants, load_invariant, verdicts_text, verify_all

    if args.all_versions and args.rules is not None:
        raise InputError([_usage("--all-versions", "either --rules or --all-versions")])
    versions = catalog.versions() if args.all_versions else [catalog.resolve(args.rules)]
    invariants = []
    for path in args.invariant:
        try:
            invariants.append(load_invariant(path))
        except OSError as err:
            raise InputError([_usage(path, f"a readable invariant file ({err.strerror})")]
                             ) from None
    verdicts = verify_all(_bounds(args), versions, invariants or builtin_invariants(), changes,
                          _progress(args))
    if args.format == "json":
        print(json.dumps({"bounds": _bounds(args).to_dict(), "proposal": bool(changes),
                          "verdicts": [v.to_dict() for v in verdicts]},
                         indent=2, ensure_ascii=False))
    else:
        print(verdicts_text(verdicts, table=args.all_versions))
    return 0 if all(v.holds for v in verdicts) else 1
