"""Minimal causes of violations (``mtgcontrol check --causes``).

For each violation of a snapshot, a minimal set of the snapshot's parts (JSON
paths: an object, one field of an object, an effect, one field of an effect, a
player's ``left_at``, a claim, ...) that still causes it.  The snapshot's facts
(``facts.snapshot_facts``) are split by the part they come from; each part's
facts are made conditional on an external atom ``u(i)``; the program is
grounded once and solved with parts switched off one at a time (deletion-based
minimisation): a part whose removal keeps the violation is dropped for good.
The result is subset-minimal: removing any one remaining part makes the
violation go away.  Players, ``now`` and the version stay.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import clingo

from .. import catalog
from .engine import strip_show
from .facts import Names, default_now, snapshot_facts
from .interrupts import ground
from .ruling import Violation, violation
from .solve import Program

SHOW = "#show s_violation(S,N,C,X,Y) : error(S,G,C,X,Y), cite(S,G,N).\n"
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
    names = Names()
    full = snapshot_facts(doc, 0, version.const, names).splitlines()
    owner: dict[str, int] = {}
    paths: list[str] = []
    for path, smaller in _parts(doc):
        kept = set(snapshot_facts(smaller, 0, version.const, names).splitlines())
        mine = [f for f in full if f not in kept and f not in owner]
        if mine:
            for f in mine:
                owner[f] = len(paths)
            paths.append(path)
    lines = [f if f not in owner else f"{f[:-1]} :- u({owner[f]})." for f in full]
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join((
        strip_show(Program((version,), tuple(changes)).text()),
        "\n".join(f"#external u({i})." for i in range(len(paths))), *lines, SHOW)))
    ground(ctl, [("base", [])])
    switch = [clingo.Function("u", [clingo.Number(i)]) for i in range(len(paths))]

    def violations(on: set[int]) -> set[clingo.Symbol]:
        for i, sym in enumerate(switch):
            ctl.assign_external(sym, i in on)
        with ctl.solve(yield_=True) as handle:
            model = next(iter(handle))
            return {a for a in model.symbols(shown=True) if a.name == "s_violation"}

    everything = set(range(len(paths)))
    causes: list[Cause] = []
    for atom in sorted(violations(everything)):
        keep = set(everything)
        for i in sorted(everything, reverse=True):  # whole objects and effects go first
            if atom in violations(keep - {i}):
                keep.discard(i)
        n, code, x, y = (atom.arguments[k] for k in range(1, 5))
        causes.append(Cause(violation(n.string, code.name, x.number, y.number, names),
                            [paths[i] for i in sorted(keep)]))
    return causes
