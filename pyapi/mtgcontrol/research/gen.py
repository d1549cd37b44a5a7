"""The snapshot generator (encodings/generator.lp): answer sets as snapshot/1
documents, and enumeration by size."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import clingo

from ..engine.facts import CONST
from ..engine.solve import parse_atom
from ..engine.vocabulary import object_reading

# ---------------------------------------------------------------------------------
# Generated snapshots


@cache
def generator_text() -> str:
    return (resources.files("mtgcontrol.encodings") / "generator.lp").read_text(encoding="utf-8")


def _ids(kind: str, n: int) -> str:
    return f"{kind}{n}"


# Generated facts that are an object's input fact (vocabulary.INPUTS): written
# back into the object's field the way facts.py reads it (``Input.read``).
OBJECT_INPUTS = {"g_start": "start", "g_face_down": "face_down", "g_entered": "entered",
                 "g_spell_put_by": "spell_put_by", "g_stolen": "spell_control_effect",
                 "g_created": "created", "g_may_cast": "may_cast",
                 "g_put_on_stack": "put_on_stack", "g_copy_of": "copy_of",
                 "g_attached": "attached", "g_source": "source", "g_ability": "ability_kind",
                 "g_face_up": "turned_face_up_at", "g_static_created": "created_by_static",
                 "g_activated": "activated", "g_triggered": "triggered", "g_waiting": "waiting"}
UNCONST = {v: k for k, v in CONST.items()}
TYPE_ORDER = ("artifact", "enchantment", "aura", "creature", "plane", "phenomenon",
              "dungeon", "conspiracy")
EFFECT_FACTS = ("g_static_named", "g_static_of", "g_ets", "g_gives_to", "g_affects",
                "g_ended_at")
EFFECT_ORDER = ("id", "kind", "origin", "source", "player", "objects", "attached",
                "timestamp", "duration", "ended_at")


def _value(kind: str, value: Any) -> Any:
    """A fact's argument as the snapshot writes it (ids ``p1``, ``o2``, ``e3``)."""
    if kind in ("p", "o", "e"):
        return _ids(kind, value)
    return UNCONST.get(value, value) if kind == "c" else value


def _put(obj: dict[str, Any], pred: str, args: list[Any]) -> None:
    """Write an object's input fact ``pred`` (its arguments after O) into ``obj``."""
    reading = object_reading(pred)
    path, fields = reading.path, reading.args
    target = obj
    for key in path[:-1]:
        target = target.setdefault(key, {})
    if reading.flag:
        target[path[-1]] = True
    elif len(fields) == 1 and not fields[0].key:
        target[path[-1]] = _value(fields[0].kind, args[0])
    else:
        target.setdefault(path[-1], {}).update(
            (f.key, _value(f.kind, a)) for f, a in zip(fields, args, strict=True))


@dataclass
class _Model:
    """One answer set of generator.lp, read into a document's parts."""

    players: dict[int, Any] = field(default_factory=dict)
    objects: dict[int, dict[str, Any]] = field(default_factory=dict)
    effects: dict[int, dict[str, Any]] = field(default_factory=dict)
    types: dict[int, list[str]] = field(default_factory=dict)
    now: int | None = None

    def first(self, name: str, args: list[Any]) -> bool:
        """Players, objects, effects, types and now (read before what refers to them)."""
        if name == "g_now":
            self.now = args[0]
        elif name == "g_player":
            self.players[args[0]] = _ids("p", args[0])
        elif name == "g_obj":
            self.objects[args[0]] = {"id": _ids("o", args[0]), "kind": args[1],
                                     "zone": args[2]}
        elif name == "g_effect":
            self.effects[args[0]] = {"id": _ids("e", args[0]), "kind": args[1],
                                     "origin": args[2]}
        elif name == "g_type":
            self.types.setdefault(args[0], []).append(args[1])
        else:
            return False
        return True

    def then(self, name: str, args: list[Any]) -> None:
        """Everything else: players who left, objects' fields, effects' fields."""
        if name in OBJECT_INPUTS:
            _put(self.objects[args[0]], OBJECT_INPUTS[name], args[1:])
        elif name == "g_left":
            self.players[args[0]] = {"id": _ids("p", args[0]), "left_at": args[1]}
        else:
            self.effect(name, args)

    def effect(self, name: str, args: list[Any]) -> None:
        if name not in EFFECT_FACTS:
            return
        eff = self.effects[args[0]]
        if name in ("g_static_named", "g_static_of"):
            eff["source"] = _ids("o", args[1])
            if name == "g_static_of":
                eff["attached"] = True
        elif name == "g_ets":
            eff["timestamp"] = args[1]
        elif name == "g_gives_to":
            eff["player"] = _ids("p", args[1])
        elif name == "g_affects":
            eff.setdefault("slots", {})[args[1]] = _ids("o", args[2])
        else:  # g_ended_at
            eff["duration"] = "end-of-turn"
            eff["ended_at"] = args[1]

    def doc(self) -> dict[str, Any]:
        for n, kinds in self.types.items():
            self.objects[n]["types"] = sorted(kinds, key=TYPE_ORDER.index)
        effect_list = []
        for n in sorted(self.effects):
            eff = self.effects[n]
            slots = eff.pop("slots", None)
            if slots:
                eff["objects"] = [slots[i] for i in sorted(slots)]
                eff.setdefault("source", eff["objects"][0])
            effect_list.append({k: eff[k] for k in EFFECT_ORDER if k in eff})
        object_list = []
        for n in sorted(self.objects):
            obj = self.objects[n]
            first: dict[str, Any] = {k: obj[k] for k in ("id", "kind", "zone", "types")
                                     if k in obj}
            first.update((k, v) for k, v in obj.items() if k not in first)
            object_list.append(first)
        doc: dict[str, Any] = {"players": [self.players[n] for n in sorted(self.players)]}
        if self.now is not None:
            doc["now"] = self.now
        doc["objects"] = object_list
        doc["effects"] = effect_list
        return doc


def model_to_doc(symbols: Iterable[clingo.Symbol]) -> dict[str, Any]:
    """A snapshot/1 document from one answer set of generator.lp."""
    model = _Model()
    rest: list[tuple[str, list[Any]]] = []
    for sym in symbols:
        name, found = parse_atom(str(sym))
        if not model.first(name, list(found)):
            rest.append((name, list(found)))
    for name, args in rest:
        model.then(name, args)
    return model.doc()


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


