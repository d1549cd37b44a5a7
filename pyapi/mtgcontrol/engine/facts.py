"""Turn validated snapshots into ASP facts.

No user-supplied string ever becomes program text: every player, object and
effect id is replaced by a small batch-local integer (``Names``), and every other
value written is an integer or a constant from a closed vocabulary that the JSON
Schema enforces (kinds, zones, durations, ...).  Unknown card types are dropped:
no rule here depends on them.  The fact vocabulary is documented in
``docs/predicates.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .vocabulary import INPUTS

# Card types a ruling may depend on (Auras, Equipment, variant cards, ...) or that a
# proposal may want to test; any other type string is dropped.
KNOWN_TYPES = frozenset((
    "creature", "artifact", "enchantment", "aura", "equipment", "fortification", "land",
    "planeswalker", "battle", "instant", "sorcery", "plane", "phenomenon", "vanguard", "scheme",
    "conspiracy", "dungeon"))
# JSON enum value -> ASP constant (only closed vocabularies get here).
CONST = {
    "delayed-triggered": "delayed",
    "planar-deck": "planar_deck",
    "control-player": "control_player",
    "end-of-turn": "end_of_turn",
    "while-source-on-battlefield": "while_source_on_battlefield",
    "while-you-control-source": "while_you_control_source",
    "while-source-tapped": "while_source_tapped",
    "while-attached": "while_attached",
    "while-enchanted": "while_enchanted",
    "until-your-next-turn": "until_your_next_turn",
    "until-end-of-your-next-turn": "until_end_of_your_next_turn",
    "single-planar-deck": "single_planar_deck",
    "individual-planar-decks": "individual_planar_decks",
}


def const(value: str) -> str:
    """ASP constant for a value from one of the schema's closed vocabularies."""
    return CONST.get(value, value)


@dataclass
class Names:
    """Batch-local integer ids for everything a snapshot names (ids start at 1)."""

    ids: dict[tuple[str, str], int] = field(default_factory=dict)
    names: list[tuple[str, str]] = field(default_factory=lambda: [("", "")])

    def of(self, space: str, name: str) -> int:
        key = (space, name)
        num = self.ids.get(key)
        if num is None:
            num = self.ids[key] = len(self.names)
            self.names.append(key)
        return num

    def name(self, num: int) -> str:
        return self.names[num][1]


def default_now(doc: dict[str, Any]) -> int:
    """The spec's default for ``now``: one more than the largest timestamp present."""
    return max(snapshot_times(doc), default=-1) + 1


TIME_KEYS = frozenset(("at", "from", "timestamp", "ended_at", "zone_since", "tapped_since",
                       "turned_face_up_at", "attached_at", "left_at", "out_at", "in_at"))


def snapshot_times(doc: dict[str, Any]) -> set[int]:
    """Every timestamp the snapshot states (under the format's time fields)."""
    found: set[int] = set()
    stack: list[Any] = [doc.get("players", []), doc.get("turns", []),
                        doc.get("objects", []), doc.get("effects", [])]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in TIME_KEYS and isinstance(value, int) and not isinstance(value, bool):
                    found.add(value)
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return found


@dataclass
class Clock:
    """How a snapshot's timestamps are written into the program, and read back.

    The plain clock writes them as they are.  A ranked clock (``Clock.ranked``)
    writes the timestamp of rank ``r`` (0 = earliest) as ``2r+2``: order and
    simultaneity are kept, ``T-1`` (the encodings' "just before T") lands on
    the odd number between two ranks, and -1 (the encodings' "before the game")
    stays below every time.  See docs/engine.md for why this is sound.
    """

    times: list[int] = field(default_factory=list)
    codes: dict[int, int] | None = None

    @classmethod
    def ranked(cls, times: set[int]) -> Clock:
        ordered = sorted(times)
        return cls(ordered, {t: 2 * r + 2 for r, t in enumerate(ordered)})

    def code(self, time: int) -> int:
        return time if self.codes is None else self.codes[time]

    def time(self, code: int) -> int:
        """The snapshot's time for a code the program shows."""
        if self.codes is None or code < 1:
            return code
        if code % 2:
            return self.times[(code - 1) // 2] - 1
        return self.times[(code - 2) // 2]


PLAIN_CLOCK = Clock()


def snapshot_facts(doc: dict[str, Any], s: int | str, version: str, names: Names,
                   clock: Clock = PLAIN_CLOCK,
                   known_types: frozenset[str] = KNOWN_TYPES,
                   provenance: list[str] | None = None) -> str:
    """Facts for one valid snapshot, every atom tagged with the snapshot number ``s``.

    ``known_types``: the card types written (the engine's fast path writes only
    those the program reads).  ``provenance``: filled with the JSON path each fact
    (line) comes from: the finest optional field it rests on, else its item
    (``$.objects[2].entered``, ``$.effects[0].source``, ``$.turns[1]``, ``$``).
    """
    out: list[str] = []
    if provenance is None:
        emit: Emit = out.append
        where: Emit = _nowhere
    else:
        here = ["$"]

        def emit(fact: str) -> None:
            out.append(fact)
            provenance.append(here[0])

        def where(path: str) -> None:
            here[0] = path
    _game_facts(doc, s, version, names, clock, emit, where)
    track = where is not _nowhere
    for i, obj in enumerate(doc.get("objects", [])):
        item = f"$.objects[{i}]" if track else ""
        where(item)
        _object_facts(obj, s, names, clock, known_types, emit, where, item)
    for i, eff in enumerate(doc.get("effects", [])):
        item = f"$.effects[{i}]" if track else ""
        where(item)
        _effect_facts(eff, s, names, clock, emit, where, item)
    _claim_facts(doc, s, names, emit, where)
    return "\n".join(out)


def _nowhere(path: str) -> None:
    """Provenance not asked for (the fast path)."""


Emit = Callable[[str], None]


def _game_facts(doc: dict[str, Any], s: int | str, version: str, names: Names, clock: Clock,
                emit: Emit, where: Emit) -> None:
    """The version, the players (and who left), now, the active player, turns, options."""
    t, pl = clock.code, names.of
    at = _at(where, "$" if where is not _nowhere else "")
    players = [p if isinstance(p, str) else p["id"] for p in doc["players"]]
    emit(f"version({s},{version}).")
    for seat, entry in enumerate(doc["players"]):
        pid = pl("p", players[seat])
        at(f"players[{seat}]")
        emit(f"player({s},{pid},{seat}).")
        if isinstance(entry, dict) and "left_at" in entry:
            at(f"players[{seat}].left_at")
            emit(f"left({s},{pid},{t(entry['left_at'])}).")
    active = doc.get("active_player", players[0])
    now = doc["now"] if "now" in doc else default_now(doc)
    at("")
    emit(f"now({s},{t(now)}).")
    emit(f"active({s},{pl('p', active)}).")
    if doc.get("turns"):
        at("turns")
        emit(f"turns_recorded({s}).")
        for k, turn in enumerate(doc["turns"]):
            at(f"turns[{k}]")
            emit(f"turn({s},{pl('p', turn['player'])},{t(turn['from'])}).")
    else:  # the active player throughout: from -1, "before the game" (never ranked)
        emit(f"turn({s},{pl('p', active)},-1).")
    planechase = (doc.get("options") or {}).get("planechase")
    if planechase:
        at("options.planechase")
        emit(f"option({s},{const(planechase)}).")


def _object_facts(obj: dict[str, Any], s: int | str, names: Names, clock: Clock,
                  known_types: frozenset[str], emit: Emit, where: Emit, item: str) -> None:
    """One object (at JSON path ``item``, "" without provenance): kind and zone, types,
    history fields, abilities."""
    ob = names.of
    at = _at(where, item)
    o = ob("o", obj["id"])
    emit(f"obj({s},{o},{obj['kind']},{obj['zone']}).")
    for k, ty in enumerate(obj.get("types", ())):
        if ty in known_types:
            at(f"types[{k}]")
            emit(f"type({s},{o},{ty}).")
    _fields(OBJECT_FIELDS, obj, f"{s},{o}", names, clock, emit, where, item)
    for j, ab in enumerate(obj.get("abilities", ())):
        a = ob("o", ab["id"])
        at(f"abilities[{j}]")
        emit(f"has_ability({s},{o},{a},{ab['kind']}).")
        if "granted_by" in ab:
            at(f"abilities[{j}].granted_by")
            emit(f"granted_by({s},{a},{ob('o', ab['granted_by'])}).")


def _effect_facts(eff: dict[str, Any], s: int | str, names: Names, clock: Clock,
                  emit: Emit, where: Emit, item: str) -> None:
    """One control effect (at JSON path ``item``, "" without provenance): kind,
    source, timestamp, whom and what it affects, how long."""
    t, pl, ob = clock.code, names.of, names.of
    at = _at(where, item)
    e = names.of("e", eff["id"])
    src = ob("o", eff["source"]) if "source" in eff else 0
    at("source" if src else "")
    emit(f"effect({s},{e},{const(eff['kind'])},{src},{t(eff['timestamp'])}).")
    if "origin" in eff:
        at("origin")
        emit(f"origin({s},{e},{eff['origin']}).")
    at("player" if "player" in eff else "")
    if eff["kind"] == "control-player":
        emit(f"controls_player({s},{e},{pl('p', eff['player'])},"
             f"{pl('p', eff['controlled'])}).")
    elif "player" in eff:
        emit(f"gives_to({s},{e},{pl('p', eff['player'])}).")
    for i, target in enumerate(eff.get("objects", ())):
        at(f"objects[{i}]")
        emit(f"affects({s},{e},{i},{ob('o', target)}).")
    if eff.get("attached"):
        at("attached")
        emit(f"affects_attached({s},{e}).")
    if "duration" in eff:
        at("duration")
        emit(f"duration({s},{e},{const(eff['duration'])}).")
    if "ended_at" in eff:
        at("ended_at")
        emit(f"ended_at({s},{e},{t(eff['ended_at'])}).")


def _at(where: Emit, item: str) -> Emit:
    """``at(key)``: the facts that follow come from ``item``'s field ``key`` ("": the
    item itself); nothing without provenance (``item`` "")."""
    if not item:
        return _nowhere

    def at(key: str) -> None:
        where(f"{item}.{key}" if key else item)
    return at


def _claim_facts(doc: dict[str, Any], s: int | str, names: Names, emit: Emit,
                 where: Emit) -> None:
    at = _at(where, "$" if where is not _nowhere else "")
    for i, claim in enumerate(doc.get("claims", ())):
        at(f"claims[{i}]")
        o = names.of("o", claim["object"])
        for fact in ("owner", "controller"):
            if fact in claim:
                who = claim[fact]
                emit(f"claim({s},{i},{o},{fact},"
                     f"{names.of('p', who) if who is not None else 0}).")


@dataclass(frozen=True)
class Field:
    """An input fact read from one field of an object (vocabulary.INPUTS has its kinds).

    ``path``: the field, inside the object; the fact is written when the field is
    there (a ``flag``: when it is true), with the arguments ``args`` = (key inside
    the field, "" for the field itself; kind: t time, p player, o object, e effect,
    c a constant of the schema's vocabularies, v the value as it is; default).
    ``each``: the field is a list, and these facts are read from each item.
    """

    pred: str
    path: tuple[str, ...]
    args: tuple[tuple[str, str, Any], ...] = ()
    flag: bool = False
    each: tuple[Field, ...] = ()


def field_of(read: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, Any], ...], bool]:
    """``vocabulary.Input.read`` parsed: the field's path, its arguments (key, kind,
    default) and whether it is a flag (``"entered at:t under:p"``)."""
    path, *args = read.split()
    parsed = []
    for arg in args:
        key, _, rest = arg.rpartition(":")
        kind, _, default = rest.partition("=")
        parsed.append((key, kind, default or None))
    return tuple(path.rstrip("!").split(".")), tuple(parsed), path.endswith("!")


def _object_fields() -> tuple[Field, ...]:
    """The history fields of an object, in ``vocabulary.INPUTS`` order (the spec's
    table "History fields, by kind"); a list's items (``phasing[]``) as one Field."""
    table: list[Field] = []
    for entry in INPUTS.values():
        if not entry.read:
            continue
        path, args, flag = field_of(entry.read)
        if path[0].endswith("[]"):
            outer, inner = (path[0][:-2],), Field(entry.pred, path[1:], args, flag)
            if table and table[-1].path == outer:
                table[-1] = replace(table[-1], each=(*table[-1].each, inner))
            else:
                table.append(Field(outer[0], outer, each=(inner,)))
        else:
            table.append(Field(entry.pred, path, args, flag))
    return tuple(table)


OBJECT_FIELDS: tuple[Field, ...] = _object_fields()


def _fields(table: tuple[Field, ...], item: dict[str, Any], head: str, names: Names,
            clock: Clock, emit: Emit, where: Emit = _nowhere, at: str = "") -> None:
    """The facts ``table`` reads from ``item`` (at JSON path ``at``), each starting
    with ``head`` (S,O)."""
    for field_ in table:
        value: Any = item
        for key in field_.path:
            value = value.get(key) if isinstance(value, dict) and key in value else _ABSENT
        if value is _ABSENT or (field_.flag and not value):
            continue
        path = f"{at}.{'.'.join(field_.path)}" if at else ""  # at "": no provenance
        if field_.each:
            for j, entry in enumerate(value):
                _fields(field_.each, entry, head, names, clock, emit, where,
                        f"{path}[{j}]" if at else "")
            continue
        if at:
            where(path)
        args = "".join("," + _arg(kind, value.get(key, default) if key else value, names, clock)
                       for key, kind, default in field_.args)
        emit(f"{field_.pred}({head}{args}).")


_ABSENT = object()


def _arg(kind: str, value: Any, names: Names, clock: Clock) -> str:
    if kind == "t":
        return str(clock.code(value))
    if kind in "poe":
        return str(names.of(kind, value))
    return str(const(value) if kind == "c" else value)
