"""The snapshot generator (encodings/generator.lp): answer sets as snapshot/1
documents, and enumeration by size."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import clingo

from .space import generator_text, model_to_doc


@dataclass(frozen=True)
class Bounds:
    """How much a searched snapshot may hold: players, objects, effects, history
    details (generator.lp's detail/1: a turn entry, a second player leaving,
    phasing, ...), and in all (``size``: objects + effects + details; by default
    objects + effects, so details take the place of parts)."""

    players: int
    objects: int
    effects: int
    details: int = 0
    size: int | None = None

    @property
    def max_size(self) -> int:
        parts = self.objects + self.effects
        return parts if self.size is None else min(self.size, parts + self.details)

    def details_text(self) -> str:
        """``, ≤ 1 details`` when details are searched."""
        return f", ≤ {self.details} details" if self.details else ""

    def to_dict(self) -> dict[str, int]:
        out = {"players": self.players, "objects": self.objects, "effects": self.effects}
        if self.details or self.size is not None:
            out.update(details=self.details, size=self.max_size)
        return out


def cell_control(players: int, objects: int, effects: int, late: bool = False,
                 details: int = 0) -> clingo.Control:
    """The generator grounded for exactly that many players, objects and effects (and
    up to ``details`` details), set to enumerate every snapshot (one answer set each)."""
    ctl = clingo.Control(["0", "--project", "--warn=none", f"-c np={players}",
                          f"-c no={objects}", f"-c ne={effects}", f"-c nd={details}",
                          f"-c late={int(late)}"])
    ctl.add("base", [], generator_text())
    ctl.ground([("base", [])])
    return ctl


def generate(bounds: Bounds, stats: list[dict[str, float]] | None = None, late: bool = False
             ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every generated snapshot within ``bounds``, by increasing size (objects +
    effects; each with up to ``bounds.details`` details), then number of players:
    (size, document)."""
    low = min(2, bounds.players)
    for size in range(1, bounds.objects + bounds.effects + 1):
        for players in range(low, bounds.players + 1):
            for objects in range(max(1, size - bounds.effects), min(bounds.objects, size) + 1):
                effects = size - objects
                ctl = cell_control(players, objects, effects, late, bounds.details)
                count = 0
                with ctl.solve(yield_=True) as handle:
                    for model in handle:
                        count += 1
                        yield size, model_to_doc(model.symbols(shown=True))
                if stats is not None:
                    stats.append({"size": size, "players": players, "objects": objects,
                                  "effects": effects, "snapshots": count})


def batches(items: Iterator[tuple[int, dict[str, Any]]], size: int
             ) -> Iterator[list[tuple[int, dict[str, Any]]]]:
    batch: list[tuple[int, dict[str, Any]]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


