"""Minimal causes of violations (``mtgcontrol check --causes``).

For each violation of a snapshot, a minimal set of the snapshot's parts (JSON
paths: an object, one field of an object, an effect, one field of an effect, a
player's ``left_at``, a claim, ...) that still causes it.  The snapshot's facts
(the snapshot's ``Frame``) are split by the part they come from (the frame's
provenance: the JSON path of each fact); each part's
facts are made conditional on an external atom ``u(i)``; the engine grounds
them once through the causes lens, which solves with parts switched off one at a
time (deletion-based
minimisation): a part whose removal keeps the violation is dropped for good.
The result is subset-minimal: removing any one remaining part makes the
violation go away.  Players, ``now`` and the version stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import clingo

from .. import catalog
from .api import engine_for
from .engine import Lens
from .ruling import Violation, violation
from .vocabulary import INPUTS, RECORDS

# What stays in every cause search: the version, the players, `now`, the active player.
STAYS = frozenset(("version", "player", "now", "active"))


def _layout() -> tuple[dict[str, tuple[frozenset[str], bool]], tuple[str, ...]]:
    """From ``vocabulary.INPUTS``: for each top-level list of records (``objects``),
    the keys its introducing input reads without a default (the core, which is the
    record itself) and whether a record is a part (those lists first); and the
    other top-level fields that are parts (``turns``), in the table's order."""
    records: dict[str, tuple[frozenset[str], bool]] = {}
    others: list[str] = []
    for entry in INPUTS.values():
        for reading in entry.readings:
            top = reading.path[0]
            if top in RECORDS and len(reading.path) == 1:
                core = frozenset(a.key for a in reading.args
                                 if a.default is None and a.key in reading.keys)
                records[top[:-2]] = (core, entry.pred not in STAYS)
            elif top not in RECORDS and entry.pred not in STAYS:
                others.append(top.removesuffix("[]"))
    whole_first = sorted(records.items(), key=lambda kv: not kv[1][1])
    return dict(whole_first), tuple(dict.fromkeys(others))


RECORD_LISTS, OTHER_PARTS = _layout()


@dataclass
class Cause:
    violation: Violation
    paths: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.violation.rule, "code": self.violation.code,
                "objects": self.violation.objects, "message": self.violation.message,
                "cause": self.paths}


def _parts(doc: dict[str, Any]) -> list[str]:
    """The parts (JSON paths) a cause is made of, finest first: each field of a record
    (object, effect) that is not its core, then the record itself; the fields of a
    record that stays (a player's ``left_at``); then turns, options, claims."""
    out: list[str] = []
    for name, (core, whole) in RECORD_LISTS.items():
        for i, item in enumerate(doc.get(name, ())):
            if isinstance(item, dict):
                out.extend(f"$.{name}[{i}].{key}" for key in item if key not in core)
            if whole:
                out.append(f"$.{name}[{i}]")
    out.extend(f"$.{key}" for key in OTHER_PARTS if doc.get(key))
    return out


def part_of(path: str) -> str | None:
    """The part a fact's provenance (``Frame.provenance``) belongs to (None: it stays)."""
    head, _, rest = path[2:].partition(".") if path.startswith("$.") else ("", "", "")
    name, _, index = head.partition("[")
    if name in RECORD_LISTS and index:
        core, whole = RECORD_LISTS[name]
        key = rest.split(".")[0].split("[")[0]
        if key and key not in core:
            return f"$.{head}.{key}"
        return f"$.{head}" if whole else None
    return f"$.{name}" if name in OTHER_PARTS else None


def minimal_causes(doc: dict[str, Any], version: catalog.Version,
                   changes: Sequence[str] = ()) -> list[Cause]:
    """A minimal cause for each violation of a valid snapshot ``doc``."""
    engine = engine_for(tuple(changes), fast=False)
    frame = engine.frame(doc, version, raw=True, provenance=True)
    mine: dict[str, list[int]] = {}
    for line, path in enumerate(frame.provenance):
        part = part_of(path)
        if part is not None:
            mine.setdefault(part, []).append(line)
    paths = [p for p in _parts(doc) if p in mine]
    owner = {line: i for i, p in enumerate(paths) for line in mine[p]}
    # Each part's facts hold while its switch u(i) is on (the lens's externals).
    lines = [f if n not in owner else f"{f[:-1]} :- u({owner[n]})."
             for n, f in enumerate(frame.facts.splitlines())]
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
