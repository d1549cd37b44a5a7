"""The snapshot <-> ASP vocabulary, declared once.

``INPUTS``: for every input predicate (what ``facts.snapshot_facts`` writes), its
argument kinds, the snapshot field (JSON path) it comes from and the CR rule
groups whose encodings read it.  ``OUTPUTS``: for every shown predicate
(encodings/show/ruling.lp, the ruling lens), its argument kinds and the ruling
field it fills.

Argument kinds: ``S`` snapshot number, ``p`` player id, ``o`` object id (objects
and the abilities listed on them), ``e`` effect id, ``t`` time, ``n`` a number,
``c`` a constant of a closed vocabulary, ``r`` a rule number (string), ``v`` a
via argument (its kind is given by the via kind, ``ruling.VIA``), ``x`` a
violation argument (``ruling.OBJECT_ARGS``).  Ids are snapshot-local integers
(0 = none); times are the snapshot's, or their ranks (``facts.Clock``).

Checked against the code by tests/test_vocabulary.py: ``#defined`` in base.lp,
the predicates facts.py emits (over every scenario), the ruling lens's show
file, and the tables of docs/predicates.md.  ``engine.read_atoms`` reads models
back with ``OUTPUTS``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple


class Arg(NamedTuple):
    """One argument of a reading: ``key`` (see ``Input.read``), its kind, its default
    (an ASP term written as it is when the key is absent)."""

    key: str
    kind: str
    default: str | None = None


@dataclass(frozen=True)
class Reading:
    """``Input.read`` parsed: the field's path from the snapshot's root (a segment
    ending in ``[]`` is a list read entry by entry), its arguments, whether it is a
    flag, and the keys that must be absent."""

    pred: str
    path: tuple[str, ...]
    args: tuple[Arg, ...]
    flag: bool = False
    absent: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys of its arguments that name snapshot fields (not ``@``, no constant)."""
        return tuple(a.key for a in self.args if a.key and a.key[0] not in "@'")

    @property
    def inside(self) -> bool:
        """Its keys are inside the field (an object), not beside it: no argument
        reads the field itself."""
        return all(a.key for a in self.args)

    def key_path(self, key: str) -> tuple[str, ...]:
        """The path from the root of the field argument ``key`` reads."""
        return (*(self.path if self.inside else self.path[:-1]), key)


@dataclass(frozen=True)
class Input:
    """An input predicate and how ``facts.snapshot_facts`` reads it from a snapshot.

    ``read``: the field's path from the snapshot's root (``objects[].entered``; a
    segment ending in ``[]``: each entry of a list; a trailing ``!``: a flag,
    written when true), then one argument per token after S and the head:
    ``key:kind[=default]`` (``key`` inside the field when the field is an object,
    else inside the object holding the field; "" the field itself; ``@`` the
    index of the list entry), ``'word`` a constant, and ``-key`` a key that must be
    absent.  The head: the id of the nearest record (``RECORDS``) that holds the
    field.  A fact is written where the field and every argument without a default
    are present; " ; " separates two readings of one predicate.  research.gen
    writes an object's field back from a generated fact with the same text.
    """

    pred: str
    kinds: str  # one letter per argument, S first
    read: str
    groups: tuple[str, ...]  # rule groups whose encodings read it
    note: str = ""  # a default, or where a value that is not a field comes from

    @property
    def arity(self) -> int:
        return len(self.kinds)

    @cached_property
    def readings(self) -> tuple[Reading, ...]:
        return tuple(_reading(self.pred, text) for text in self.read.split(" ; "))

    @property
    def path(self) -> str:
        """The snapshot field(s) it is read from, as a JSON path (with its note)."""
        paths = []
        for r in self.readings:
            field = "$." + ".".join(r.path)
            if r.keys and r.inside:
                field += "." + ", .".join(r.keys)
            elif r.keys:  # a field that is a value: the keys beside it
                field += ", " + ", ".join("$." + ".".join(r.key_path(k)) for k in r.keys)
            paths.append(field)
        return " / ".join(dict.fromkeys(paths)) + (f" ({self.note})" if self.note else "")


def _reading(pred: str, text: str) -> Reading:
    path, *tokens = text.split()
    args, absent = [], []
    for token in tokens:
        if token.startswith("-"):
            absent.append(token[1:])
        elif token.startswith("'"):
            args.append(Arg(token, "'"))
        else:
            key, _, rest = token.rpartition(":")
            kind, _, default = rest.partition("=")
            args.append(Arg(key, kind, default or None))
    return Reading(pred, tuple(path.rstrip("!").split(".")), tuple(args),
                   path.endswith("!"), tuple(absent))


# The lists whose entries are records: a fact read from inside an entry starts
# with the entry's id (of that kind).  A player entry may be its bare id.
RECORDS = {"players[]": "p", "objects[]": "o", "objects[].abilities[]": "o", "effects[]": "e"}
BARE_ID = {"players[]": "id"}


@dataclass(frozen=True)
class Output:
    pred: str
    kinds: str
    field: str  # what it fills in the ruling (ruling.build_ruling)

    @property
    def arity(self) -> int:
        return len(self.kinds)


# Fields of an object that name a player (p), another object (o) or an effect (e),
# as paths inside the object.  validate.py checks each reference.
OBJECT_REFS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("brought_in_by",), "p"), (("legal_owner",), "p"),
    (("start", "player"), "p"), (("entered", "under"), "p"),
    (("entered", "spell_put_on_stack_by"), "p"), (("created", "by"), "p"),
    (("put_on_stack", "by"), "p"), (("activated", "by"), "p"),
    (("attached_to",), "o"), (("copy_of",), "o"), (("source",), "o"),
    (("left_battlefield", "attached_to"), "o"), (("created_by", "object"), "o"),
    (("created_by_static_of", "object"), "o"),
    (("entered", "spell_control_effect"), "e"),
)


def object_refs(kind: str) -> tuple[tuple[str, ...], ...]:
    """The paths of the object fields that name a ``kind`` (p, o or e)."""
    return tuple(path for path, k in OBJECT_REFS if k == kind)


def field_at(obj: dict, path: tuple[str, ...]) -> object:
    """The value at ``path`` inside ``obj`` (None if absent)."""
    value: object = obj
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


_IN = [
    Input("version", "Sc", "rules :v", ("all: on/2",),
          "or --rules: the catalog's constant for that version"),
    Input("player", "Spn", "players[] id:p @:n", ("101.4", "311.5", "800.4p"),
          "an entry may be the bare id; its index is the seat"),
    Input("left", "Spt", "players[].left_at :t", ("800.4a", "800.4b", "800.4c", "800.4d")),
    Input("now", "St", "now :t", ("all: the ruling's moment",),
          "default: 1 + the largest timestamp"),
    Input("active", "Sp", "active_player :p", ("613.7m", "311.5"), "default: the first player"),
    Input("turns_recorded", "S", "turns!", ("723.1",)),
    Input("turn", "Spt", "turns[] player:p from:t", ("613.7m", "311.5", "723.1", "514.2"),
          "none recorded: base.lp gives the active player's turn from -1"),
    Input("option", "Sc", "options.planechase :c", ("108.3a",)),
    Input("obj", "Socc", "objects[] id:o kind:c zone:c", ("108.3", "109.4", "110.2", "112.2")),
    Input("type", "Soc", "objects[].types[] :y", ("301.5d", "303.4e", "311.5", "901.6"),
          "only the types the encodings may read"),
    Input("zone_since", "Sot", "objects[].zone_since :t", ("613.7d", "701.12a")),
    Input("attached", "Soo", "objects[].attached_to :o", ("613.1b", "303.4e")),
    Input("attached_at", "Sot", "objects[].attached_at :t", ("613.7e",)),
    Input("tapped", "So", "objects[].tapped!", ("611.2b",)),
    Input("tapped_since", "Sot", "objects[].tapped_since :t", ("611.2b",)),
    Input("face_down", "So", "objects[].face_down!", ("109.4d", "901.6")),
    Input("turned_face_up_at", "Sot", "objects[].turned_face_up_at :t", ("613.7f", "613.7h")),
    Input("phased_out", "Sot", "objects[].phasing[].out_at :t", ("702.26",)),
    Input("phased_in", "Sot", "objects[].phasing[].in_at :t", ("702.26",)),
    Input("start", "Socp", "objects[].start zone:c player:p", ("108.3", "108.3b", "901.6")),
    Input("brought_in_by", "Sop", "objects[].brought_in_by :p", ("108.3",)),
    Input("legal_owner", "Sop", "objects[].legal_owner :p", ("108.3b",)),
    Input("entered", "Sotp", "objects[].entered at:t under:p", ("110.2", "110.2a", "613.7d")),
    Input("entered_assumed", "So", "objects[].entered.assumed!", ("110.2", "110.2a")),
    Input("spell_put_by", "Sop", "objects[].entered.spell_put_on_stack_by :p", ("110.2b",)),
    Input("spell_control_effect", "Soe", "objects[].entered.spell_control_effect :e",
          ("110.2b",)),
    Input("left_battlefield", "Sot", "objects[].left_battlefield at:t", ("603.10a", "113.8")),
    Input("left_attached", "Soo", "objects[].left_battlefield.attached_to :o", ("613.1b",)),
    Input("created", "Sotp", "objects[].created at:t by:p", ("111.2", "114.2", "112.2a")),
    Input("may_cast", "So", "objects[].created.may_cast!", ("112.2a",)),
    Input("put_on_stack", "Sotp", "objects[].put_on_stack at:t by:p", ("112.2", "707.10")),
    Input("copy_of", "Soo", "objects[].copy_of :o", ("707.10",)),
    Input("source", "Soo", "objects[].source :o", ("603.3a", "113.8", "309.4c")),
    Input("ability_kind", "Soc", "objects[].ability :c", ("113.8", "109.4a", "603.7d", "311.7")),
    Input("activated", "Sotp", "objects[].activated at:t by:p", ("113.8", "405.4", "109.4a")),
    Input("triggered", "Sotc", "objects[].triggered at:t source_zone:v=battlefield",
          ("603.3a", "113.8")),
    Input("waiting", "So", "objects[].waiting!", ("109.4b",)),
    Input("created_by", "Soot", "objects[].created_by object:o at:t", ("603.7d", "603.7e")),
    Input("created_by_static", "Sootc", "objects[].created_by_static_of object:o at:t via:v",
          ("603.7f", "603.7g")),
    Input("has_ability", "Sooc", "objects[].abilities[] id:o kind:c", ("109.5", "301.5d")),
    Input("granted_by", "Soo", "objects[].abilities[].granted_by :o", ("301.5d", "303.4e")),
    Input("effect", "Secot", "effects[] id:e kind:c source:o=0 timestamp:t",
          ("613.1b", "613.7a", "613.7b", "701.12a", "723.1"), "no source: 0"),
    Input("origin", "Sec", "effects[].origin :v", ("611.2c", "613.7a")),
    Input("gives_to", "Sep", "effects[].player :p -controlled", ("613.1b",),
          "not on a control-player effect"),
    Input("controls_player", "Sepp", "effects[].player :p controlled:p", ("723.1a",),
          "a control-player effect"),
    Input("affects", "Seno", "effects[].objects[] @:n :o", ("613.1b", "701.12a")),
    Input("affects_attached", "Se", "effects[].attached!", ("613.1b",)),
    Input("duration", "Sec", "effects[].duration :c", ("611.2a", "611.2b", "723.2")),
    Input("ended_at", "Set", "effects[].ended_at :t", ("611.2a", "514.2", "723.2")),
    Input("claim", "Snocp", "claims[].owner @:n object:o 'owner :p ;"
          " claims[].controller @:n object:o 'controller :p", ("checks",),
          "null: 0, nobody"),
]
INPUTS: dict[str, Input] = {i.pred: i for i in _IN}

# Program inputs that are not snapshot facts (#defined in base.lp too).
PROGRAM_INPUTS = {"number": "catalog: number(Version, Group, Number)",
                  "off": "proposal files: off(Group)",
                  "off_number": "proposal files: off_number(Number)",
                  "slot_number": "proposal files, one slot of a paired search: "
                                 "slot_number(Slot, Group, Number)",
                  "slot_off": "proposal files, one slot: slot_off(Slot, Group)",
                  "slot_off_number": "proposal files, one slot: slot_off_number(Slot, Number)"}
PROGRAM_ARITY = {"number": 3, "off": 1, "off_number": 1,
                 "slot_number": 3, "slot_off": 2, "slot_off_number": 2}

_OUT = [
    Output("owner", "Sop", "objects[o].owner"),
    Output("controller", "Sop", "objects[o].controller"),
    Output("default_controller", "Sop", "objects[o].default_controller"),
    Output("you", "Sop", "objects[o].you / abilities[a].you"),
    Output("may_activate", "Sop", "abilities[a].may_activate"),
    Output("because", "Socrcvv", "objects[o].because / abilities[a].because"),
    Output("planar_controller", "Sp", "planar_controller"),
    Output("controlled_player", "Sppre", "controlled_players"),
    Output("fate", "Socrt", "left_game"),
    Output("choice", "Socprp", "choices"),
    Output("violation", "Srcxx", "violations"),
    Output("internal_error", "Scot", "none: the snapshot's error record (an engine fault)"),
    Output("history_run", "Sotp", "objects[o].history (from T on: controller P, 0 = none)"),
    Output("history_end", "Sot", "objects[o].history (no entry from T on)"),
    Output("history_point", "Sot", "objects[o].history (a 0 entry at T only)"),
    Output("moment", "St", "the time points the history is expanded over"),
]
# Read back without the S column: the kinds of the remaining arguments.
OUTPUTS: dict[str, Output] = {o.pred: Output(o.pred, o.kinds[1:], o.field) for o in _OUT}
SHOWN_ARITY = {o.pred: o.arity for o in _OUT}


def object_reading(pred: str) -> Reading:
    """How an object's input predicate is read, its path taken inside the object:
    ``object_reading("spell_put_by").path`` is ``("entered", "spell_put_on_stack_by")``."""
    (reading,) = INPUTS[pred].readings
    assert reading.path[0] == "objects[]", pred
    return replace(reading, path=reading.path[1:])


def input_field(pred: str) -> str:
    """The field (inside an object) an object's input predicate is read from:
    ``input_field("spell_put_by")`` is ``"entered.spell_put_on_stack_by"``."""
    return ".".join(object_reading(pred).path)


def leaf_fields() -> dict[str, str]:
    """Each input predicate -> the field it is read from, inside its record (or the
    root), cut at its first list (``left`` -> ``left_at``, ``phased_out`` ->
    ``phasing``, ``turns_recorded`` -> ``turns``); ``pred.key`` -> one argument's
    field (``obj.zone`` -> ``zone``).  What explain.lp's leaves name."""
    found: dict[str, str] = {}
    for entry in _IN:
        reading = entry.readings[0]
        path, cut = list(reading.path), False
        while any(key.endswith("[]") for key in path):
            last = max(i for i, key in enumerate(path) if key.endswith("[]"))
            if ".".join(path[:last + 1]) in RECORDS:
                path = path[last + 1:]
                break
            path, cut = path[:last] + [path[last][:-2]], True
        found[entry.pred] = ".".join(path)
        if cut:
            continue
        record = len(reading.path) - len(path)  # the keys of the record's path
        for key in reading.keys:
            found[f"{entry.pred}.{key}"] = ".".join(reading.key_path(key)[record:])
    return found


def defined_lines() -> str:
    """The ``#defined`` lines base.lp must carry: every input and program input."""
    preds = [f"{i.pred}/{i.arity}" for i in _IN]
    preds += [f"{p}/{a}" for p, a in PROGRAM_ARITY.items()]
    return "\n".join(f"#defined {p}." for p in preds)
