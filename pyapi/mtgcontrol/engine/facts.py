"""Turn validated snapshots into ASP facts.

No user-supplied string ever becomes program text: every player, object and
effect id is replaced by a small batch-local integer (``Names``), and every other
value written is an integer or a constant from a closed vocabulary that the JSON
Schema enforces (kinds, zones, durations, ...).  Unknown card types are dropped:
no rule here depends on them.  The fact vocabulary is documented in
``docs/predicates.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
                   known_types: frozenset[str] = KNOWN_TYPES) -> str:
    """Facts for one valid snapshot, every atom tagged with the snapshot number ``s``.

    ``known_types``: the card types written (the engine's fast path writes only
    those the program reads).
    """
    t = clock.code
    out: list[str] = []
    emit = out.append
    pl = names.of
    ob = names.of

    players = [p if isinstance(p, str) else p["id"] for p in doc["players"]]
    emit(f"version({s},{version}).")
    for seat, entry in enumerate(doc["players"]):
        pid = pl("p", players[seat])
        emit(f"player({s},{pid},{seat}).")
        if isinstance(entry, dict) and "left_at" in entry:
            emit(f"left({s},{pid},{t(entry['left_at'])}).")
    active = doc.get("active_player", players[0])
    now = doc["now"] if "now" in doc else default_now(doc)
    emit(f"now({s},{t(now)}).")
    emit(f"active({s},{pl('p', active)}).")
    if doc.get("turns"):
        emit(f"turns_recorded({s}).")
        for turn in doc["turns"]:
            emit(f"turn({s},{pl('p', turn['player'])},{t(turn['from'])}).")
    else:  # the active player throughout: from -1, "before the game" (never ranked)
        emit(f"turn({s},{pl('p', active)},-1).")
    planechase = (doc.get("options") or {}).get("planechase")
    if planechase:
        emit(f"option({s},{const(planechase)}).")

    for obj in doc.get("objects", []):
        o = ob("o", obj["id"])
        emit(f"obj({s},{o},{obj['kind']},{obj['zone']}).")
        for ty in obj.get("types", ()):
            if ty in known_types:
                emit(f"type({s},{o},{ty}).")
        _object_history(obj, s, o, names, emit, t)
        for ab in obj.get("abilities", ()):
            a = ob("o", ab["id"])
            emit(f"has_ability({s},{o},{a},{ab['kind']}).")
            if "granted_by" in ab:
                emit(f"granted_by({s},{a},{ob('o', ab['granted_by'])}).")

    for eff in doc.get("effects", []):
        e = names.of("e", eff["id"])
        src = ob("o", eff["source"]) if "source" in eff else 0
        emit(f"effect({s},{e},{const(eff['kind'])},{src},{t(eff['timestamp'])}).")
        if "origin" in eff:
            emit(f"origin({s},{e},{eff['origin']}).")
        if eff["kind"] == "control-player":
            emit(f"controls_player({s},{e},{pl('p', eff['player'])},"
                 f"{pl('p', eff['controlled'])}).")
        elif "player" in eff:
            emit(f"gives_to({s},{e},{pl('p', eff['player'])}).")
        for i, target in enumerate(eff.get("objects", ())):
            emit(f"affects({s},{e},{i},{ob('o', target)}).")
        if eff.get("attached"):
            emit(f"affects_attached({s},{e}).")
        if "duration" in eff:
            emit(f"duration({s},{e},{const(eff['duration'])}).")
        if "ended_at" in eff:
            emit(f"ended_at({s},{e},{t(eff['ended_at'])}).")

    for i, claim in enumerate(doc.get("claims", ())):
        o = ob("o", claim["object"])
        for fact in ("owner", "controller"):
            if fact in claim:
                who = claim[fact]
                emit(f"claim({s},{i},{o},{fact},{pl('p', who) if who is not None else 0}).")
    return "\n".join(out)


def _object_history(obj: dict[str, Any], s: int | str, o: int, names: Names, emit: Any,
                    t: Any) -> None:
    """History fields of one object (see the spec's table "History fields, by kind")."""
    p = names.of
    if "zone_since" in obj:
        emit(f"zone_since({s},{o},{t(obj['zone_since'])}).")
    if "attached_to" in obj:
        emit(f"attached({s},{o},{p('o', obj['attached_to'])}).")
    if "attached_at" in obj:
        emit(f"attached_at({s},{o},{t(obj['attached_at'])}).")
    if obj.get("tapped"):
        emit(f"tapped({s},{o}).")
    if "tapped_since" in obj:
        emit(f"tapped_since({s},{o},{t(obj['tapped_since'])}).")
    if obj.get("face_down"):
        emit(f"face_down({s},{o}).")
    if "turned_face_up_at" in obj:
        emit(f"turned_face_up_at({s},{o},{t(obj['turned_face_up_at'])}).")
    for phase in obj.get("phasing", ()):
        emit(f"phased_out({s},{o},{t(phase['out_at'])}).")
        if "in_at" in phase:
            emit(f"phased_in({s},{o},{t(phase['in_at'])}).")
    if "start" in obj:
        st = obj["start"]
        emit(f"start({s},{o},{const(st['zone'])},{p('p', st['player'])}).")
    if "brought_in_by" in obj:
        emit(f"brought_in_by({s},{o},{p('p', obj['brought_in_by'])}).")
    if "legal_owner" in obj:
        emit(f"legal_owner({s},{o},{p('p', obj['legal_owner'])}).")
    if "entered" in obj:
        ent = obj["entered"]
        emit(f"entered({s},{o},{t(ent['at'])},{p('p', ent['under'])}).")
        if "spell_put_on_stack_by" in ent:
            emit(f"spell_put_by({s},{o},{p('p', ent['spell_put_on_stack_by'])}).")
        if "spell_control_effect" in ent:
            emit(f"spell_control_effect({s},{o},{p('e', ent['spell_control_effect'])}).")
    if "left_battlefield" in obj:
        lb = obj["left_battlefield"]
        emit(f"left_battlefield({s},{o},{t(lb['at'])}).")
        if "attached_to" in lb:
            emit(f"left_attached({s},{o},{p('o', lb['attached_to'])}).")
    if "created" in obj:
        cr = obj["created"]
        emit(f"created({s},{o},{t(cr['at'])},{p('p', cr['by'])}).")
        if cr.get("may_cast"):
            emit(f"may_cast({s},{o}).")
    if "put_on_stack" in obj:
        ps = obj["put_on_stack"]
        emit(f"put_on_stack({s},{o},{t(ps['at'])},{p('p', ps['by'])}).")
    if "copy_of" in obj:
        emit(f"copy_of({s},{o},{p('o', obj['copy_of'])}).")
    if "source" in obj:
        emit(f"source({s},{o},{p('o', obj['source'])}).")
    if "ability" in obj:
        emit(f"ability_kind({s},{o},{const(obj['ability'])}).")
    if "activated" in obj:
        ac = obj["activated"]
        emit(f"activated({s},{o},{t(ac['at'])},{p('p', ac['by'])}).")
    if "triggered" in obj:
        tr = obj["triggered"]
        emit(f"triggered({s},{o},{t(tr['at'])},{tr.get('source_zone', 'battlefield')}).")
    if obj.get("waiting"):
        emit(f"waiting({s},{o}).")
    if "created_by" in obj:
        cb = obj["created_by"]
        emit(f"created_by({s},{o},{p('o', cb['object'])},{t(cb['at'])}).")
    if "created_by_static_of" in obj:
        cb = obj["created_by_static_of"]
        emit(f"created_by_static({s},{o},{p('o', cb['object'])},{t(cb['at'])},{cb['via']}).")
