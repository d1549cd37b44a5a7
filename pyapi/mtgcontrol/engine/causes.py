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


def _parts(doc: dict[str, Any]) -> list[str]:
    """The parts (JSON paths) a cause is made of, finest first: each non-core field of
    an object or effect, then the whole item; players' ``left_at``; turns, options,
    claims."""
    out: list[str] = []
    for field, core in (("objects", OBJECT_CORE), ("effects", EFFECT_CORE)):
        for i, item in enumerate(doc.get(field, ())):
            out.extend(f"$.{field}[{i}].{key}" for key in item if key not in core)
            out.append(f"$.{field}[{i}]")
    for k, player in enumerate(doc.get("players", ())):
        if isinstance(player, dict) and "left_at" in player:
            out.append(f"$.players[{k}].left_at")
    out.extend(f"$.{key}" for key in ("turns", "options", "claims") if doc.get(key))
    return out


def part_of(path: str) -> str | None:
    """The part a fact's provenance (``Frame.provenance``) belongs to (None: it stays)."""
    head, _, rest = path[2:].partition(".") if path.startswith("$.") else ("", "", "")
    name, _, index = head.partition("[")
    if name in ("objects", "effects"):
        key = rest.split(".")[0].split("[")[0]
        core = OBJECT_CORE if name == "objects" else EFFECT_CORE
        return f"$.{head}" if not key or key in core else f"$.{head}.{key}"
    if name == "players":
        return path if rest == "left_at" else None
    return f"$.{name}" if name in ("turns", "options", "claims") else None


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
