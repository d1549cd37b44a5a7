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

from dataclasses import dataclass


@dataclass(frozen=True)
class Input:
    pred: str
    kinds: str  # one letter per argument, S first
    path: str  # the snapshot field(s), JSON path
    groups: tuple[str, ...]  # rule groups whose encodings read it
    # How facts.py writes it from one object, for an object's field: the field's
    # path inside the object ("phasing[].out_at": from each item of a list; a
    # trailing "!": a flag, written when true), then one "key:kind[=default]" per
    # argument after S,O ("" key: the field itself).  research.gen writes the
    # field back from a generated fact with the same text.
    read: str = ""

    @property
    def arity(self) -> int:
        return len(self.kinds)


def _object_input(pred: str, kinds: str, read: str, groups: tuple[str, ...]) -> Input:
    """An object's field as an input: its JSON path follows from ``read`` (the field's
    path inside the object, then the keys of its arguments)."""
    head, *args = read.split()
    keys = [key for key, _, _ in (a.partition(":") for a in args) if key]
    path = "$.objects[]." + head.rstrip("!") + (
        "." + ", .".join(keys) if keys else "")
    return Input(pred, kinds, path, groups, read)


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
    Input("version", "Sc", "$.rules (or --rules)", ("all: on/2",)),
    Input("player", "Spn", "$.players[i] / $.players[i].id", ("101.4", "311.5", "800.4p")),
    Input("left", "Spt", "$.players[i].left_at", ("800.4a", "800.4b", "800.4c", "800.4d")),
    Input("now", "St", "$.now (default: 1 + largest timestamp)", ("all: the ruling's moment",)),
    Input("active", "Sp", "$.active_player (default: the first player)",
          ("613.7m", "311.5")),
    Input("turn", "Spt", "$.turns[].player, .from (default: $.active_player from -1)",
          ("613.7m", "311.5", "723.1", "514.2")),
    Input("turns_recorded", "S", "$.turns", ("723.1",)),
    Input("option", "Sc", "$.options.planechase", ("108.3a",)),
    Input("obj", "Socc", "$.objects[].id, .kind, .zone", ("108.3", "109.4", "110.2", "112.2")),
    Input("type", "Soc", "$.objects[].types[]", ("301.5d", "303.4e", "311.5", "901.6")),
    _object_input("zone_since", "Sot", "zone_since :t", ("613.7d", "701.12a")),
    _object_input("attached", "Soo", "attached_to :o", ("613.1b", "303.4e")),
    _object_input("attached_at", "Sot", "attached_at :t", ("613.7e",)),
    _object_input("tapped", "So", "tapped!", ("611.2b",)),
    _object_input("tapped_since", "Sot", "tapped_since :t", ("611.2b",)),
    _object_input("face_down", "So", "face_down!", ("109.4d", "901.6")),
    _object_input("turned_face_up_at", "Sot", "turned_face_up_at :t", ("613.7f", "613.7h")),
    _object_input("phased_out", "Sot", "phasing[].out_at :t", ("702.26",)),
    _object_input("phased_in", "Sot", "phasing[].in_at :t", ("702.26",)),
    _object_input("start", "Socp", "start zone:c player:p", ("108.3", "108.3b", "901.6")),
    _object_input("brought_in_by", "Sop", "brought_in_by :p", ("108.3",)),
    _object_input("legal_owner", "Sop", "legal_owner :p", ("108.3b",)),
    _object_input("entered", "Sotp", "entered at:t under:p", ("110.2", "110.2a", "613.7d")),
    _object_input("spell_put_by", "Sop", "entered.spell_put_on_stack_by :p", ("110.2b",)),
    _object_input("spell_control_effect", "Soe", "entered.spell_control_effect :e", ("110.2b",)),
    _object_input("left_battlefield", "Sot", "left_battlefield at:t", ("603.10a", "113.8")),
    _object_input("left_attached", "Soo", "left_battlefield.attached_to :o", ("613.1b",)),
    _object_input("created", "Sotp", "created at:t by:p", ("111.2", "114.2", "112.2a")),
    _object_input("may_cast", "So", "created.may_cast!", ("112.2a",)),
    _object_input("put_on_stack", "Sotp", "put_on_stack at:t by:p", ("112.2", "707.10")),
    _object_input("copy_of", "Soo", "copy_of :o", ("707.10",)),
    _object_input("source", "Soo", "source :o", ("603.3a", "113.8", "309.4c")),
    _object_input("ability_kind", "Soc", "ability :c", ("113.8", "109.4a", "603.7d", "311.7")),
    _object_input("activated", "Sotp", "activated at:t by:p", ("113.8", "405.4", "109.4a")),
    _object_input("triggered", "Sotc", "triggered at:t source_zone:v=battlefield",
                  ("603.3a", "113.8")),
    _object_input("waiting", "So", "waiting!", ("109.4b",)),
    _object_input("created_by", "Soot", "created_by object:o at:t", ("603.7d", "603.7e")),
    _object_input("created_by_static", "Sootc", "created_by_static_of object:o at:t via:v",
                  ("603.7f", "603.7g")),
    Input("has_ability", "Sooc", "$.objects[].abilities[].id, .kind", ("109.5", "301.5d")),
    Input("granted_by", "Soo", "$.objects[].abilities[].granted_by", ("301.5d", "303.4e")),
    Input("effect", "Secot", "$.effects[].id, .kind, .source, .timestamp",
          ("613.1b", "613.7a", "613.7b", "701.12a", "723.1")),
    Input("origin", "Sec", "$.effects[].origin", ("611.2c", "613.7a")),
    Input("gives_to", "Sep", "$.effects[].player", ("613.1b",)),
    Input("affects", "Seno", "$.effects[].objects[i]", ("613.1b", "701.12a")),
    Input("affects_attached", "Se", "$.effects[].attached", ("613.1b",)),
    Input("duration", "Sec", "$.effects[].duration", ("611.2a", "611.2b", "723.2")),
    Input("ended_at", "Set", "$.effects[].ended_at", ("611.2a", "514.2", "723.2")),
    Input("controls_player", "Sepp", "$.effects[].player, .controlled (control-player)",
          ("723.1a",)),
    Input("claim", "Snocp", "$.claims[i].object, .owner / .controller", ("checks",)),
]
INPUTS: dict[str, Input] = {i.pred: i for i in _IN}

# Program inputs that are not snapshot facts (#defined in base.lp too).
PROGRAM_INPUTS = {"number": "catalog: number(Version, Group, Number)",
                  "off": "proposal files: off(Group)",
                  "off_number": "proposal files: off_number(Number)"}
PROGRAM_ARITY = {"number": 3, "off": 1, "off_number": 1}

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
    Output("history_run", "Sotp", "objects[o].history (from T on: controller P, 0 = none)"),
    Output("history_end", "Sot", "objects[o].history (no entry from T on)"),
    Output("history_point", "Sot", "objects[o].history (a 0 entry at T only)"),
    Output("moment", "St", "the time points the history is expanded over"),
]
# Read back without the S column: the kinds of the remaining arguments.
OUTPUTS: dict[str, Output] = {o.pred: Output(o.pred, o.kinds[1:], o.field) for o in _OUT}
SHOWN_ARITY = {o.pred: o.arity for o in _OUT}


def input_field(pred: str) -> str:
    """The field (inside an object) an object's input predicate is read from:
    ``input_field("spell_put_by")`` is ``"entered.spell_put_on_stack_by"``."""
    return INPUTS[pred].read.split()[0].rstrip("!")


def defined_lines() -> str:
    """The ``#defined`` lines base.lp must carry: every input and program input."""
    preds = [f"{i.pred}/{i.arity}" for i in _IN]
    preds += [f"{p}/{a}" for p, a in PROGRAM_ARITY.items()]
    return "\n".join(f"#defined {p}." for p in preds)
