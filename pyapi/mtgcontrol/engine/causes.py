"""Minimal causes of violations (``mtgcontrol check --causes``).

For each violation of a snapshot, a minimal set of the snapshot's parts (JSON
paths: an object, one field of an object, an effect, one field of an effect, a
player's ``left_at``, a claim, ...) that still causes it.  The snapshot's facts
(the snapshot's ``Frame``) are split by the part they come from; each part's
facts are made conditional on an external atom ``u(i)``; the engine grounds
them once through the causes lens, which solves with parts switched off one at a
time (deletion-based
minimisation): a part whose removal keeps the violation is dropped for good.
The result is subset-minimal: removing any one remaining part makes the
violation go away.  Players, ``now`` and the version stay.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import clingo

from .. import catalog
from .api import engine_for
from .engine import Frame, Lens
from .facts import default_now
from .ruling import Violation, violation

OBJECT_CORE = ("id", "kind", "zone")
EFFECT_CORE = ("id", "kind", "timestamp")


@dataclass
class Cause:
    violation: Violation
    paths: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.violation.rule, "code": self.violation.code,
                "objects": self.violation.objects, "message": self.violation.message,
                "cause": self.paths}


def _parts(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(JSON path, the document without that part), finest parts first."""
    out: list[tuple[str, dict[str, Any]]] = []

    def without(edit: Any) -> dict[str, Any]:
        other = copy.deepcopy(doc)
        edit(other)
        return other

    for field, core in (("objects", OBJECT_CORE), ("effects", EFFECT_CORE)):
        for i, item in enumerate(doc.get(field, ())):
            for key in item:
                if key not in core:
                    out.append((f"$.{field}[{i}].{key}", without(
                        lambda d, f=field, i=i, key=key: d[f][i].pop(key))))
            out.append((f"$.{field}[{i}]", without(lambda d, f=field, i=i: d[f].pop(i))))
    for k, player in enumerate(doc.get("players", ())):
        if isinstance(player, dict) and "left_at" in player:
            out.append((f"$.players[{k}].left_at",
                        without(lambda d, k=k: d["players"][k].pop("left_at"))))
    for key in ("turns", "options", "claims"):
        if doc.get(key):
            out.append((f"$.{key}", without(lambda d, key=key: d.pop(key))))
    return out


def minimal_causes(doc: dict[str, Any], version: catalog.Version,
                   changes: Sequence[str] = ()) -> list[Cause]:
    """A minimal cause for each violation of a valid snapshot ``doc``."""
    doc = {**doc, "now": doc.get("now", default_now(doc))}
    engine = engine_for(tuple(changes), fast=False)
    frame = engine.frame(doc, version, raw=True)
    full = frame.facts.splitlines()
    owner: dict[str, int] = {}
    paths: list[str] = []
    for path, smaller in _parts(doc):
        kept = set(Frame.of(smaller, version, fast=False, names=frame.names).facts.splitlines())
        mine = [f for f in full if f not in kept and f not in owner]
        if mine:
            for f in mine:
                owner[f] = len(paths)
            paths.append(path)
    # Each part's facts hold while its switch u(i) is on (the lens's externals).
    lines = [f if f not in owner else f"{f[:-1]} :- u({owner[f]})." for f in full]
    switched = replace(frame, facts="\n".join(lines))
    lens = Lens("causes", show="causes", raw=True, symbols=True,
                text="\n".join(f"#external u({i})." for i in range(len(paths))),
                collect=lambda ctl: {0: _minimise(ctl, len(paths))},
                read=lambda f, found: [
                    Cause(violation(n.string, code.name, x.number, y.number, f.names),
                          [paths[i] for i in keep]) for (n, code, x, y), keep in found])
    return engine.judge([switched], lens)[0]


def _minimise(ctl: clingo.Control, parts: int) -> list[tuple[Any, list[int]]]:
    """For each violation (its rule, code and two objects), the parts kept on:
    deletion-based minimisation over the switches of one grounding."""
    switch = [clingo.Function("u", [clingo.Number(i)]) for i in range(parts)]

    def violations(on: set[int]) -> set[clingo.Symbol]:
        for i, sym in enumerate(switch):
            ctl.assign_external(sym, i in on)
        with ctl.solve(yield_=True) as handle:
            model = next(iter(handle))
            return {a for a in model.symbols(shown=True) if a.name == "s_violation"}

    everything = set(range(parts))
    found: list[tuple[Any, list[int]]] = []
    for atom in sorted(violations(everything)):
        keep = set(everything)
        for i in sorted(everything, reverse=True):  # whole objects and effects go first
            if atom in violations(keep - {i}):
                keep.discard(i)
        found.append((tuple(atom.arguments[k] for k in range(1, 5)), sorted(keep)))
    return found
