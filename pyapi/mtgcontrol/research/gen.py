"""The snapshot generator (encodings/generator.lp): answer sets as snapshot/1
documents, and enumeration by size."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import clingo

from ..engine.solve import parse_atom

# ---------------------------------------------------------------------------------
# Generated snapshots


@cache
def generator_text() -> str:
    return (resources.files("mtgcontrol.encodings") / "generator.lp").read_text(encoding="utf-8")


def _ids(kind: str, n: int) -> str:
    return f"{kind}{n}"


def model_to_doc(symbols: Iterable[clingo.Symbol]) -> dict[str, Any]:  # noqa: C901 - to split (issue 19)
    """A snapshot/1 document from one answer set of generator.lp."""
    players: dict[int, Any] = {}
    objects: dict[int, dict[str, Any]] = {}
    effects: dict[int, dict[str, Any]] = {}
    types: dict[int, list[str]] = {}
    rest: list[tuple[str, list[Any]]] = []
    now = None
    for sym in symbols:
        name, found = parse_atom(str(sym))
        args: list[Any] = list(found)
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
        first: dict[str, Any] = {k: obj[k] for k in ("id", "kind", "zone", "types") if k in obj}
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


def cell_control(players: int, objects: int, effects: int, late: bool = False
                 ) -> clingo.Control:
    """The generator grounded for exactly that many players, objects and effects,
    set to enumerate every snapshot (one answer set each)."""
    ctl = clingo.Control(["0", "--project", "--warn=none", f"-c np={players}",
                          f"-c no={objects}", f"-c ne={effects}", f"-c late={int(late)}"])
    ctl.add("base", [], generator_text())
    ctl.ground([("base", [])])
    return ctl


def generate(bounds: Bounds, stats: list[dict[str, float]] | None = None, late: bool = False
             ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every generated snapshot within ``bounds``, by increasing size (objects +
    effects), then number of players: (size, document)."""
    low = min(2, bounds.players)
    for size in range(1, bounds.objects + bounds.effects + 1):
        for players in range(low, bounds.players + 1):
            for objects in range(max(1, size - bounds.effects), min(bounds.objects, size) + 1):
                effects = size - objects
                ctl = cell_control(players, objects, effects, late)
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


