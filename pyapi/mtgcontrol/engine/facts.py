"""Turn validated snapshots into ASP facts.

No user-supplied string ever becomes program text: every player, object and
effect id is replaced by a small batch-local integer (``Names``), and every other
value written is an integer or a constant from a closed vocabulary that the JSON
Schema enforces (kinds, zones, durations, ...).  Unknown card types are dropped:
no rule here depends on them.  The fact vocabulary is documented in
``docs/predicates.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .vocabulary import BARE_ID, INPUTS, RECORDS, Arg, Reading

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


def snapshot_now(doc: dict[str, Any]) -> int:
    """The snapshot's ``now``, or its default."""
    now = doc.get(NOW)
    return now if isinstance(now, int) else default_now(doc)


def snapshot_times(doc: dict[str, Any]) -> set[int]:
    """Every timestamp the snapshot states (every field ``vocabulary.INPUTS`` reads
    as a time, ``now`` included)."""
    found: set[int] = set()
    _times(TIME_TREE, doc, found)
    return found


def _times(tree: dict[str, Any], item: Any, found: set[int]) -> None:
    if not isinstance(item, dict):
        return
    for key, value in item.items():
        sub = tree.get(key, _ABSENT)
        if sub is None:
            if isinstance(value, int) and not isinstance(value, bool):
                found.add(value)
        elif sub is _ABSENT:
            continue
        elif isinstance(value, list):
            for entry in value:
                _times(sub, entry, found)
        else:
            _times(sub, value, found)


def _time_paths() -> tuple[tuple[str, ...], ...]:
    """The path of every field read as a time (``:t``), from the root."""
    found: list[tuple[str, ...]] = []
    for entry in INPUTS.values():
        for reading in entry.readings:
            found.extend(reading.key_path(arg.key) if arg.key else reading.path
                         for arg in reading.args if arg.kind == "t")
    return tuple(dict.fromkeys(found))


TIME_PATHS = _time_paths()


def _time_tree() -> dict[str, Any]:
    """``TIME_PATHS`` as nested keys (None: a time; a list's entries are walked)."""
    tree: dict[str, Any] = {}
    for path in TIME_PATHS:
        level = tree
        for key in path[:-1]:
            level = level.setdefault(key.removesuffix("[]"), {})
        level[path[-1]] = None
    return tree


TIME_TREE = _time_tree()
NOW = INPUTS["now"].readings[0].path[0]
ACTIVE = INPUTS["active"].readings[0].path[0]
VERSION = INPUTS["version"].readings[0].path[0]
PLAYERS = INPUTS["player"].readings[0].path[0]


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
                   provenance: list[str] | None = None, now: int | None = None) -> str:
    """Facts for one valid snapshot, every atom tagged with the snapshot number ``s``,
    read as ``vocabulary.INPUTS`` says (``READINGS``, in the table's order).

    ``version``: the version's constant (the snapshot's ``rules`` resolved, or
    ``--rules``); ``now`` and ``active_player`` get their defaults here.
    ``known_types``: the card types written (the engine's fast path writes only
    those the program reads).  ``provenance``: filled with the JSON path each fact
    (line) comes from: its field (``$.objects[2].entered``, ``$.turns[1]``), a list
    entry read whole resting on its first optional argument present
    (``$.effects[0].source``); a default's is ``$``.  ``now``: the snapshot's
    ``now`` when the caller has it (``snapshot_now``).
    """
    root = {**doc, VERSION: version,  # or --rules
            NOW: snapshot_now(doc) if now is None else now,
            ACTIVE: doc[ACTIVE] if ACTIVE in doc else first_player(doc)}
    out: list[str] = []
    reader = _Reader(f"{s}", names, clock, known_types, out, provenance,
                     frozenset(key for key in (VERSION, NOW, ACTIVE) if key not in doc))
    reader.read(READINGS, root, "", "", 0, "$" if provenance is not None else "")
    return "\n".join(out)


@dataclass(frozen=True)
class Field:
    """A reading (``vocabulary.Reading``) placed in the tree ``snapshot_facts`` walks:
    ``path`` the keys from the enclosing entry (or the root) to the field; a list
    (``each``: what is read from each entry; ``record``: the kind of its entries' ids,
    "" when they are no records; ``bare``: the key a bare entry stands for)."""

    pred: str
    path: tuple[str, ...]
    args: tuple[Arg, ...] = ()
    flag: bool = False
    absent: tuple[str, ...] = ()
    each: tuple[Field, ...] = ()
    record: str = ""
    bare: str = ""
    index: Index | None = None  # of ``each``


@dataclass(frozen=True)
class Index:
    """The fields of one level by their first key (an object has a few of its thirty
    fields: only those are looked at), and those that read the entry itself."""

    whole: tuple[int, ...]
    by_key: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, fields: tuple[Field, ...]) -> Index:
        by_key: dict[str, list[int]] = {}
        for i, f in enumerate(fields):
            if f.path:
                by_key.setdefault(f.path[0], []).append(i)
        return cls(tuple(i for i, f in enumerate(fields) if not f.path),
                   {k: tuple(v) for k, v in by_key.items()})

    def present(self, fields: tuple[Field, ...], item: Any) -> list[Field]:
        """The fields whose first key ``item`` has, or that read it whole, in order."""
        if not isinstance(item, dict):
            return list(fields)
        found = list(self.whole)
        by_key = self.by_key
        for key in item:
            if key in by_key:
                found.extend(by_key[key])
        found.sort()
        return [fields[i] for i in found]


def _tree() -> tuple[Field, ...]:
    """Every reading of ``INPUTS``, in the table's order, consecutive readings of one
    list's entries merged under it (so each entry is read once, in order)."""
    top: list[Field] = []
    for entry in INPUTS.values():
        for reading in entry.readings:
            _place(top, reading, reading.path, "")
    return _indexed(tuple(top))


def _indexed(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    return tuple(replace(f, each=_indexed(f.each), index=Index.of(_indexed(f.each)))
                 if f.each else f for f in fields)


def _place(level: list[Field], reading: Reading, path: tuple[str, ...], above: str) -> None:
    """Put ``reading`` (``path``: what is left of its path) into ``level``."""
    lists = [i for i, key in enumerate(path) if key.endswith("[]")]
    if not lists:
        level.append(Field(reading.pred, path, reading.args, reading.flag, reading.absent))
        return
    i = lists[0]
    key = ".".join(path[:i + 1])
    where = f"{above}.{key}" if above else key
    inner: list[Field] = []
    last = level[-1] if level else None
    if last is not None and last.pred == "" and last.path == (*path[:i], path[i][:-2]):
        inner = list(last.each)
        level.pop()
    _place(inner, reading, path[i + 1:], where)
    level.append(Field("", (*path[:i], path[i][:-2]), each=tuple(inner),
                       record=RECORDS.get(where, ""), bare=BARE_ID.get(where, "")))


READINGS: tuple[Field, ...] = _tree()
READINGS_INDEX = Index.of(READINGS)
_ABSENT = object()


@dataclass
class _Reader:
    """Writes the facts of a tree of ``Field`` for one snapshot."""

    s: str
    names: Names
    clock: Clock
    known_types: frozenset[str]
    out: list[str]
    provenance: list[str] | None
    defaulted: frozenset[str]  # root keys given by their default (provenance "$")

    def read(self, fields: tuple[Field, ...], item: dict[str, Any], outer: str, head: str,
             index: int, at: str, where: Index = READINGS_INDEX) -> None:
        """The facts of ``fields`` read from ``item`` (the list entry ``index``, or the
        root; at JSON path ``at``, "" without provenance): ``outer`` is the head of a
        fact read from the item itself, ``head`` of one read from inside it."""
        for f in where.present(fields, item):
            value: Any = item
            for key in f.path:
                value = value.get(key, _ABSENT) if isinstance(value, dict) else _ABSENT
            if value is _ABSENT or (f.flag and not value):
                continue
            path = ""
            if at:
                path = at if not f.path or (at == "$" and f.path[0] in self.defaulted) \
                    else f"{at}.{'.'.join(f.path)}"
            if f.each:
                for j, entry in enumerate(value):
                    entry = _bare(entry, f.bare) if f.bare else entry
                    inner = f"{self.s},{self.names.of(f.record, entry['id'])}" \
                        if f.record else head
                    self.read(f.each, entry, head, inner, j, f"{path}[{j}]" if at else "",
                              f.index or Index.of(f.each))
                continue
            self.fact(f, value, item, outer if not f.path else head, index, path)

    def fact(self, f: Field, value: Any, item: dict[str, Any], head: str, index: int,
             path: str) -> None:
        """One fact of ``f`` (``value`` the field's, ``item`` holding it), if its
        arguments are there."""
        keys = value if isinstance(value, dict) else item
        if f.absent and any(key in keys for key in f.absent):
            return
        args = [head or self.s]
        for key, kind, default in f.args:
            if kind == "'":
                args.append(key[1:])
            elif key == "@":
                args.append(str(index))
            elif not key or key in keys:
                term = self.term(kind, keys[key] if key else value)
                if term is None:
                    return
                args.append(term)
            elif default is not None:
                args.append(default)
            else:
                return
        if path and not f.path:  # a list entry read whole: its first optional field there
            path = next((f"{path}.{a.key}" for a in f.args
                         if a.default is not None and a.key in keys), path)
        self.out.append(f"{f.pred}({','.join(args)}).")
        if self.provenance is not None:
            self.provenance.append(path or "$")

    def term(self, kind: str, value: Any) -> str | None:
        if kind == "t":
            return str(self.clock.code(value))
        if kind in "poe":
            return "0" if value is None else str(self.names.of(kind, value))
        if kind == "y":
            return value if value in self.known_types else None
        return str(CONST.get(value, value) if kind == "c" else value)


def first_player(doc: dict[str, Any]) -> str:
    """The id of the first player (the default active player)."""
    key = BARE_ID[PLAYERS]
    return str(_bare(doc[PLAYERS.removesuffix("[]")][0], key)[key])


def _bare(entry: Any, key: str) -> Any:
    """A list entry that may be written as its bare ``key`` (a player's id)."""
    return {key: entry} if isinstance(entry, str) else entry
