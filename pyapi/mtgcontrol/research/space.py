"""The search space: the generator's vocabulary, derived from the input table.

encodings/generator.lp names each generated fact after the input it is
(``g_entered(O,T,P)`` is ``entered(S,O,T,P)`` without the snapshot number; ids are
the generator's indices).  From ``vocabulary.INPUTS`` this module derives:

* the bridge (``bridge_text``): one rule per input turning ``g_P`` into ``P`` for
  every judged slot, ids and times mapped (search/bridge.lp holds the slots, the
  id ranges and the times of a slot judged with its ordering's representative);
* the events of the time orderings (``generated_text``): each generated fact with
  a time is an event, named by the fact, about the object or effect it belongs to;
* the ``#show`` lines, and the documents written back from an answer set
  (``model_to_doc``), through the same readings ``facts.py`` reads them with.

Every input is generated or excluded here (``EXCLUDED``, ``BY_HAND``) with the
reason, and tests/test_space.py fails when one is neither: a new field cannot
fall outside the search unnoticed.  docs/research.md has the table
(``coverage_table``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import clingo
from clingo import ast as clingo_ast

from ..engine.facts import CONST
from ..engine.vocabulary import INPUTS, RECORDS, Input, Reading

# Inputs bridged by hand (search/bridge.lp): their value is not a generated fact.
BY_HAND = {
    "version": "the slot's CR version (`slot(S,V)`): verify judges one version, impact two, "
               "in one program",
    "now": "just after the last event (the snapshot's default `now`); in a slot judged with "
           "its ordering's representative, just after the representative's last event",
}
# Inputs the generator does not make, and why no verdict loses by it.
EXCLUDED = {
    "claim": "a client's belief checked against the ruling (`claim-contradicts`), not game "
             "state: no rule reads it to decide an owner or controller, and a claim that "
             "contradicts the ruling is a violation by definition, so generating claims "
             "would only make no-violation fail trivially",
    "entered_assumed": "an entry standing in for history its source did not keep is read "
                       "as any entry (110.2, 110.2a): the flag changes only how a reason "
                       "cites it (entry_via/3), never an owner, a controller or a time, so "
                       "every invariant gets the same verdict with it or without",
}

# Ids of the generator's indices, in distinct ranges (bounds are at most 6 each):
# players 1..9, objects 10+O, effects 20+E, abilities listed on object O 30+O.
ID_BASE = {"o": 10, "e": 20, "a": 30}
ID_PREFIX = {"p": "p", "o": "o", "e": "e", "a": "a"}
ABILITY_RECORD = "objects[].abilities[]"


@dataclass(frozen=True)
class Generated:
    """How an input is generated: ``spaces`` one letter per argument after S (``o``
    object, ``a`` ability listed on an object, ``e`` effect, ``p`` player, ``t`` time,
    anything else a value); ``head``: the first argument is the record holding the
    field; ``part``: the argument naming the record the fact is about (None: a fact of
    the whole snapshot)."""

    pred: str
    spaces: str
    head: bool
    part: int | None

    @property
    def name(self) -> str:
        return f"g_{self.pred}"

    @property
    def arity(self) -> int:
        return len(self.spaces)

    def variables(self) -> list[str]:
        return [f"X{i}" for i in range(self.arity)]

    def atom(self, prefix: str = "g_") -> str:
        args = self.variables()
        return f"{prefix}{self.pred}({','.join(args)})" if args else f"{prefix}{self.pred}"

    @property
    def time(self) -> int | None:
        return self.spaces.index("t") if "t" in self.spaces else None

    def event(self) -> str:
        """The name of its event: the input and the record it belongs to
        (``entered(X0)``; every record has one entry of each), or for a fact of the
        whole snapshot (a turn) the fact itself.  Names hold no other value, so the
        generator's comparisons ground over events, not over every value they
        might take."""
        if self.part is None:
            return self.atom("")
        return f"{self.pred}({self.variables()[self.part]})"


def _lists(reading: Reading) -> list[str]:
    """The paths of the lists along ``reading``'s path (``objects[]``, ...)."""
    return [".".join(reading.path[:i + 1]) for i, key in enumerate(reading.path)
            if key.endswith("[]")]


def own_record(reading: Reading) -> bool:
    """The reading reads an entry of a list of records whole (``obj``, ``effect``)."""
    lists = _lists(reading)
    return reading.path[-1].endswith("[]") and lists[-1] in RECORDS


def enclosing_record(reading: Reading) -> str | None:
    """The deepest record holding the field (its first argument's), if any."""
    lists = _lists(reading)
    found = [p for p in (lists[:-1] if own_record(reading) else lists) if p in RECORDS]
    return found[-1] if found else None


def _generated(entry: Input) -> Generated:
    reading = entry.readings[0]
    spaces = list(entry.kinds[1:])
    record = enclosing_record(reading)
    if record == ABILITY_RECORD:
        spaces[0] = "a"
    part = 0 if record else None
    if own_record(reading):
        own = (record is not None) + [a.key for a in reading.args].index("id")
        if _lists(reading)[-1] == ABILITY_RECORD:
            spaces[own] = "a"
        part = 0 if record else own
    return Generated(entry.pred, "".join(spaces), record is not None, part)


@cache
def generated() -> tuple[Generated, ...]:
    """Every generated input, in the table's order."""
    out = []
    for entry in INPUTS.values():
        if entry.pred in EXCLUDED or entry.pred in BY_HAND:
            continue
        g = _generated(entry)
        assert g.arity == entry.arity - 1, entry.pred
        out.append(g)
    return tuple(out)


def _bridge_rule(g: Generated) -> str:
    """``P(S,...) :- slot(S,_), g_P(...), ...``: ids and times mapped for slot S."""
    body = ["slot(S,_)", g.atom()]
    head = ["S"]
    for i, (space, var) in enumerate(zip(g.spaces, g.variables(), strict=True)):
        if space in "oea":
            body.append(f"{'s' + space}id(S,{var},Y{i})")
            head.append(f"Y{i}")
        elif space == "t":
            body.append(f"stime(S,{g.event()},Y{i})")
            head.append(f"Y{i}")
        else:
            head.append(var)
    return f"{g.pred}({','.join(head)}) :- {', '.join(body)}."


def _event_rules(g: Generated) -> list[str]:
    """The event of a generated fact with a time, and the part it is about."""
    if g.time is None:
        return []
    name, time = g.event(), g.variables()[g.time]
    rules = [f"event({name},{time}) :- {g.atom()}."]
    if g.part is not None and g.spaces[g.part] in "oe":
        part = f"{g.spaces[g.part]}({g.variables()[g.part]})"
        rules.append(f"event_part({name},{part}) :- {g.atom()}.")
    return rules


@cache
def generated_text() -> str:
    """What generator.lp needs besides its own text: events, #defined and #show."""
    lines = ["% --- Derived from vocabulary.INPUTS (research/space.py) ---"]
    for g in generated():
        lines.extend(_event_rules(g))
        lines.append(f"#defined {g.name}/{g.arity}.")
    lines.append("#show.")
    lines.extend(f"#show {g.name}/{g.arity}." for g in generated())
    lines.append("#show g_now/1.")
    return "\n".join(lines) + "\n"


@cache
def generator_text() -> str:
    """encodings/generator.lp with the events and #show lines derived here."""
    text = (resources.files("mtgcontrol.encodings") / "generator.lp").read_text(encoding="utf-8")
    return text + "\n" + generated_text()


@cache
def bridge_text() -> str:
    """search/bridge.lp with one rule per generated input."""
    text = (resources.files("mtgcontrol.encodings") / "search" / "bridge.lp").read_text(
        encoding="utf-8")
    rules = "\n".join(_bridge_rule(g) for g in generated())
    return f"{text}\n% --- Derived from vocabulary.INPUTS (research/space.py) ---\n{rules}\n"


def generator_heads(text: str) -> set[tuple[str, int]]:
    """The g_* predicates generator.lp defines (heads of its rules), with arities."""
    found: set[tuple[str, int]] = set()

    def visit(stm: Any) -> None:
        if stm.ast_type != clingo_ast.ASTType.Rule:
            return
        head = stm.head
        atoms = [e.literal.atom for e in head.elements] if hasattr(head, "elements") else \
            [head.atom] if hasattr(head, "atom") else []
        for atom in atoms:
            symbol = getattr(atom, "symbol", None)
            if symbol is None or symbol.ast_type != clingo_ast.ASTType.Function:
                continue
            if symbol.name.startswith("g_"):
                found.add((symbol.name, len(symbol.arguments)))

    clingo_ast.parse_string(text, visit)
    return found


# ---------------------------------------------------------------------------------
# Documents from answer sets


UNCONST = {v: k for k, v in CONST.items()}
TYPE_ORDER = ("artifact", "enchantment", "aura", "creature", "sorcery", "plane", "phenomenon",
              "dungeon", "conspiracy", "vanguard", "scheme")
OBJECT_ORDER = ("id", "kind", "zone", "types")
EFFECT_ORDER = ("id", "kind", "origin", "source", "player", "controlled", "objects", "attached",
                "timestamp", "duration", "ended_at")


def _value(space: str, value: Any) -> Any:
    """A fact's argument as the snapshot writes it (ids ``p1``, ``o2``, ``e3``, ``a1``)."""
    if space in ID_PREFIX:
        return f"{ID_PREFIX[space]}{value}"
    return UNCONST.get(value, value) if isinstance(value, str) else value


@cache
def _by_name() -> dict[str, Generated]:
    return {g.name: g for g in generated()}


def _list_fields() -> set[tuple[str, ...]]:
    """Paths of fields that are lists (a flag on one, ``turns!``, says only that it is
    there: the list's entries are written instead)."""
    return {tuple(k.removesuffix("[]") for k in r.path[:i + 1])
            for e in INPUTS.values() for r in e.readings
            for i, k in enumerate(r.path) if k.endswith("[]")}


class _Doc:
    """A snapshot document built from generated facts, read as ``facts.py`` reads it."""

    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        self.records: dict[str, dict[str, Any]] = {}  # record id -> its entry

    def put(self, g: Generated, args: list[Any]) -> None:
        reading = INPUTS[g.pred].readings[0]
        if reading.flag and reading.path in _LIST_FIELDS:
            return
        values = [_value(s, a) for s, a in zip(g.spaces, args, strict=True)]
        target: Any = self.root
        path = list(reading.path)
        record = enclosing_record(reading)
        if record is not None:  # inside the record the first argument names
            target = self.records[values[0]]
            path, values = path[len(record.split(".")):], values[1:]
        for depth, key in enumerate(path):
            if not key.endswith("[]"):
                if depth == len(path) - 1:
                    self._field(target, key, reading, values)
                    return
                target = target.setdefault(key, {})
                continue
            entries = target.setdefault(key[:-2], [])
            if depth < len(path) - 1:  # a field of a plain list's entry: one entry
                if not entries:
                    entries.append({})
                target = entries[0]
            elif own_record(reading):
                rid = values[[a.key for a in reading.args].index("id")]
                entry = self.records[rid] = {"id": rid}
                entries.append(entry)
                entry.update((a.key, v) for a, v in zip(reading.args, values, strict=True)
                             if a.key and a.key[0] not in "@'")
            else:  # an entry of a plain list, read whole
                pairs = list(zip(reading.args, values, strict=True))
                index = next((v for a, v in pairs if a.key == "@"), None)
                plain = [v for a, v in pairs if not a.key]
                item = plain[0] if plain else {a.key: v for a, v in pairs if a.key != "@"}
                entries.append((index, item) if index is not None else item)

    @staticmethod
    def _field(target: dict[str, Any], key: str, reading: Reading, values: list[Any]) -> None:
        if reading.flag:
            target[key] = True
        elif reading.inside:
            target.setdefault(key, {}).update(
                (a.key, v) for a, v in zip(reading.args, values, strict=True))
        else:  # the field's own value, and keys beside it
            for arg, value in zip(reading.args, values, strict=True):
                target[arg.key or key] = value

    def doc(self) -> dict[str, Any]:
        root = self.root
        doc: dict[str, Any] = {}
        players = sorted(root.get("players", []), key=lambda p: int(p["id"][1:]))
        doc["players"] = [p if len(p) > 1 else p["id"] for p in players]
        if root.get("active_player", "p1") != "p1":
            doc["active_player"] = root["active_player"]
        if root.get("turns"):
            doc["turns"] = sorted(root["turns"], key=lambda t: t["from"])
        for key in ("options", "now"):
            if key in root:
                doc[key] = root[key]
        objects = []
        for obj in sorted(root.get("objects", []), key=lambda o: int(o["id"][1:])):
            if "types" in obj:
                obj["types"] = sorted(obj["types"], key=TYPE_ORDER.index)
            first = {k: obj[k] for k in OBJECT_ORDER if k in obj}
            first.update((k, v) for k, v in obj.items() if k not in first)
            objects.append(first)
        doc["objects"] = objects
        effects = []
        for eff in sorted(root.get("effects", []), key=lambda e: int(e["id"][1:])):
            if "objects" in eff:
                eff["objects"] = [o for _, o in sorted(eff["objects"])]
            effects.append({k: eff[k] for k in EFFECT_ORDER if k in eff})
        doc["effects"] = effects
        return doc


_LIST_FIELDS = _list_fields()


def _argument(sym: clingo.Symbol) -> Any:
    if sym.type == clingo.SymbolType.Number:
        return sym.number
    return sym.string if sym.type == clingo.SymbolType.String else sym.name


def model_to_doc(symbols: Iterable[clingo.Symbol]) -> dict[str, Any]:
    """A snapshot/1 document from one answer set of generator.lp (its g_* atoms):
    records first (players, objects, effects, listed abilities), then their fields."""
    doc = _Doc()
    found: list[tuple[int, Generated, list[Any]]] = []
    for sym in symbols:
        if sym.name == "g_now":
            doc.root["now"] = sym.arguments[0].number
            continue
        g = _by_name().get(sym.name)
        if g is not None:
            reading = INPUTS[g.pred].readings[0]
            rank = 2 if not own_record(reading) else int(g.head)
            found.append((rank, g, [_argument(a) for a in sym.arguments]))
    for _, g, args in sorted(found, key=lambda item: item[0]):
        doc.put(g, args)
    return doc.doc()


def name_of(number: int) -> str:
    """A search id as the documents name it (the ranges of ``ID_BASE``)."""
    for space, base in sorted(ID_BASE.items(), key=lambda item: -item[1]):
        if number > base:
            return f"{ID_PREFIX[space]}{number - base}"
    return f"p{number}" if number else "-"


# ---------------------------------------------------------------------------------
# The coverage table (docs/research.md)


def coverage() -> dict[str, str]:
    """Each input -> ``generated (g_P/N)``, ``bridged by hand: ...`` or ``excluded: ...``."""
    out = {}
    names = {g.pred: g for g in generated()}
    for pred in INPUTS:
        if pred in names:
            out[pred] = f"`{names[pred].name}/{names[pred].arity}`"
        elif pred in BY_HAND:
            out[pred] = f"by hand: {BY_HAND[pred]}"
        else:
            out[pred] = f"excluded: {EXCLUDED[pred]}"
    return out


def documented_predicates(markdown: str) -> set[str]:
    """The input predicates named in the first column of docs/research.md's table."""
    section = markdown.split("### The search space", 1)[-1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| ([^|]*) \|", section, flags=re.M)
    return {pred for row in rows for pred in re.findall(r"`(\w+)/\d+`", row)}
