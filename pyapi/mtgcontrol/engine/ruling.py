"""Rulings as Python objects, built from the atoms the encodings show.

Nothing here decides a rules question: each field is copied from a shown atom
(owner/3, controller/3, because/7, ...), with batch-local integers turned back
into the snapshot's own ids.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .facts import PLAIN_CLOCK, Clock, Names, snapshot_now
from .solve import Atom
from .validate import shown
from .vocabulary import input_field

FATES = {"leaves_game": "leaves-game", "exiled": "exiled", "ceases_to_exist": "ceases-to-exist"}

# How each kind of `via` reads; argument kinds: p player, o object, e effect,
# t time, z zone, f fate, n number.
VIA: dict[str, tuple[str, str, str]] = {
    "start": ("began the game in {b}'s {a}", "z", "p"),
    "brought_in": ("brought into the game by {a}", "p", "n"),
    "legal_owner": ("legal owner {a}", "p", "n"),
    "entered": ("entered the battlefield at {a} under {b}", "t", "p"),
    "entered_assumed": ("assumed to have entered the battlefield at {a} under {b}: the snapshot "
                        "records only that it is there under {b}, not how it came", "t", "p"),
    "created": ("created at {a} by {b}", "t", "p"),
    "stack": ("put on the stack at {a} by {b}", "t", "p"),
    "card_owner": ("the owner of its card", "n", "n"),
    "effect": ("effect {a}", "e", "n"),
    "latest_of": ("effect {a} has the latest timestamp of the {b} that apply", "e", "n"),
    "never_began": ("effect {a} never began: at {b} its player did not control its source",
                    "e", "t"),
    "ended_for_good": ("effect {a} ended for good when its player lost control of its source",
                       "e", "n"),
    "overridden": ("effect {a} applies but is overridden by effect {b}", "e", "e"),
    "you_of_source": ("effect {a}: its source is controlled by {b}", "e", "p"),
    "you_when_applied": ("effect {a}: its source was controlled by {b} when it was applied, "
                         "in a dependency loop's timestamp order", "e", "p"),
    "turn_owner": ("effect {a} lasts until {b}'s next turn or its end: \"your\" is the "
                   "controller of its source as it began", "e", "p"),
    "source_controlled_by": ("effect {a}: who controls its source is itself set by effect {b}",
                             "e", "e"),
    "loop_first_applied": ("effect {a} was in a dependency loop whose first effect in "
                           "timestamp order, {b}, was applied first; then {a} was no longer "
                           "in a loop and waited for the effects it depends on", "e", "e"),
    "loop_timestamp_order": ("effect {a} is in a dependency loop: the loop's effects apply in "
                             "timestamp order, and no dependency makes it wait", "e", "n"),
    "loop_ignores_outside": ("effect {a} is in a dependency loop, so it is applied at its place in "
                             "timestamp order although it also depends on effect {b}, from "
                             "outside the loop", "e", "e"),
    "fixed_at": ("effect {a} fixed its objects and player when it began at {b}", "e", "t"),
    "face_up": ("effect {a}: its source was turned face up at {b}, a new timestamp", "e", "t"),
    "exchange": ("exchange {a}", "e", "n"),
    "began_while_phased_out": ("effect {a} began while it was phased out (since {b}): it is "
                               "not among the objects the effect affects", "e", "t"),
    "exchange_phased_out": ("exchange {a} did not happen: {b} was phased out as it resolved",
                            "e", "o"),
    "phased_out": ("phased out at {a}: treated as though it does not exist", "t", "n"),
    "phased_token_ceased": ("phased out at {a}: a phased-out token ceases to exist", "t", "n"),
    "phased_with_ceased_token": ("phased out with {a}, a token that ceased to exist at {b}: it "
                                 "would phase in only with that token", "o", "t"),
    "object_phased_out": ("{a} phased out at {b}: treated as though it does not exist",
                          "o", "t"),
    "arrived_after_leaving": ("put onto the battlefield or the stack at {a} under {b}, who had "
                              "already left the game: this version stops only a token", "t", "p"),
    "none": ("not on the battlefield or the stack", "n", "n"),
    "fate": ("{a} at {b}", "f", "t"),
    "choice": ("an open choice for {a}", "p", "n"),
    "owner": ("its owner {a}", "p", "n"),
    "controller": ("its controller {a}", "p", "n"),
    "object": ("the object it is on, {a}", "o", "n"),
    "activated": ("activated at {a} by {b}", "t", "p"),
    "source_controller": ("its source {a} as controlled at {b}", "o", "t"),
    "source_owner": ("its source {a} had no controller at {b}: its owner", "o", "t"),
    "resolved_by": ("created by {a}, as it resolved at {b}", "o", "t"),
    "static_source": ("created through a static ability of {a} at {b}", "o", "t"),
    "static_source_owner": ("created through a static ability of {a} (no controller) at {b}",
                            "o", "t"),
    "planar_controller": ("planar controller {a}", "p", "n"),
    "object_controller": ("controller of {a}", "o", "n"),
    "object_owner": ("owner of {a}", "o", "n"),
}

MESSAGES: dict[str, str] = {
    "same_timestamp": "effects {x} and {y} have the same timestamp on the same object",
    "no_player": "effect {x} names no player and the controller of its source {y} "
                 "at its timestamp cannot be derived",
    "no_controller": "{x} is in the game but no controller can be derived "
                     "(a dependency loop among control effects, or a missing record)",
    "no_owner": "no owner can be derived for {x}",
    "two_owners": "{x} would have more than one owner",
    "no_entry": "{x} is on the battlefield without `entered`",
    "no_caster": "{x} is on the stack without `put_on_stack`",
    "no_origin": "ability {x} has no record of how it arose",
    "creator_unknown": "the controller of {y}, which created {x}, cannot be derived",
    "after_leaving": "{x} involves {y} after {y} left the game",
    "spell_caster_unknown": "{x} came from a stolen spell but `"
                            + input_field("spell_put_by").rpartition(".")[2] + "` is missing",
    "claim_contradicts": "claim #{y} about {x} contradicts the rules",
    "lki_unknown": "{x} needs the last known information of {y} (where it was and under "
                   "whose control), which the snapshot does not record: `entered`, and "
                   "`left_battlefield` for an object that left",
}


# How many of a violation's two arguments are objects or effects (the rest are
# players or claim numbers, named in the message).
OBJECT_ARGS = {"after_leaving": 1, "claim_contradicts": 1, "spell_caster_unknown": 1,
               "no_controller": 1, "no_owner": 1, "two_owners": 1, "no_entry": 1,
               "no_caster": 1, "no_origin": 1}


@dataclass
class Because:
    rule: str
    fact: str
    via: str


@dataclass
class ObjectRuling:
    owner: str | None = None
    controller: str | None = None
    you: str | None = None
    default_controller: str | None = None
    because: list[Because] = field(default_factory=list)
    history: dict[int, str | None] = field(default_factory=dict)


@dataclass
class Choice:
    object: str
    fact: str
    chooser: str
    rule: str
    outcomes: list[str]


@dataclass
class Violation:
    rule: str
    code: str
    objects: list[str]
    message: str


@dataclass
class Ruling:
    id: str | None
    rules: str
    objects: dict[str, ObjectRuling] = field(default_factory=dict)
    abilities: dict[str, dict[str, Any]] = field(default_factory=dict)
    planar_controller: str | None = None
    controlled_players: dict[str, str] = field(default_factory=dict)
    left_game: dict[str, str] = field(default_factory=dict)
    choices: list[Choice] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    def owner(self, object_id: str) -> str | None:
        return self.objects[object_id].owner

    def controller(self, object_id: str, at: int | None = None) -> str | None:
        """The controller now, or at timestamp ``at`` (None when it had none)."""
        obj = self.objects[object_id]
        if at is None:
            return obj.controller
        return controller_at(obj.history, at)

    def you(self, object_id: str) -> str | None:
        return self.objects[object_id].you

    def may_activate(self, ability_id: str) -> str | None:
        return self.abilities.get(ability_id, {}).get("may_activate")

    def because(self, object_id: str, fact: str) -> list[Because]:
        return [b for b in self.objects[object_id].because if b.fact == fact]

    def to_dict(self) -> dict[str, Any]:
        """The ruling as plain data (the same as ``dataclasses.asdict``, faster)."""
        return {
            "id": self.id, "rules": self.rules,
            "objects": {k: {"owner": o.owner, "controller": o.controller, "you": o.you,
                            "default_controller": o.default_controller,
                            "because": [{"rule": b.rule, "fact": b.fact, "via": b.via}
                                        for b in o.because],
                            "history": dict(o.history)}
                        for k, o in self.objects.items()},
            "abilities": {k: {**v, "because": [dict(b) for b in v.get("because", [])]}
                          for k, v in self.abilities.items()},
            "planar_controller": self.planar_controller,
            "controlled_players": dict(self.controlled_players),
            "left_game": dict(self.left_game),
            "choices": [{"object": c.object, "fact": c.fact, "chooser": c.chooser,
                         "rule": c.rule, "outcomes": list(c.outcomes)} for c in self.choices],
            "violations": [{"rule": v.rule, "code": v.code, "objects": list(v.objects),
                            "message": v.message} for v in self.violations],
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def _repr_html_(self) -> str:
        """Jupyter shows the ruling's HTML page inline (``notebook_view``)."""
        return notebook_html(self)


# Pages are drawn by the presentation layer, which the engine does not import: the
# package registers its notebook view here (mtgcontrol/__init__.py).
notebook_view: Callable[[Any], str] | None = None


def notebook_html(shown: Any) -> str:
    """A ruling's (or an explanation's) page for Jupyter, by the registered view."""
    if notebook_view is None:
        return "<pre>" + html.escape(json.dumps(shown.to_dict(), indent=2)) + "</pre>"
    return notebook_view(shown)


def _render(kind: str, value: object, names: Names, clock: Clock = PLAIN_CLOCK) -> str:
    if kind in "poe" and isinstance(value, int):
        return names.name(value) if value else "nobody"
    if kind == "t" and isinstance(value, int):
        return str(clock.time(value))
    if kind == "z":
        return str(value).replace("_", "-")
    if kind == "f":
        return FATES.get(str(value), str(value))
    return str(value)


def via_text(kind: str, a: object, b: object, names: Names, clock: Clock = PLAIN_CLOCK) -> str:
    template, ka, kb = VIA.get(kind, (kind + " {a} {b}", "n", "n"))
    return template.format(a=_render(ka, a, names, clock), b=_render(kb, b, names, clock))


# The canonical order of a `because` list: by fact, then rule number, then via.
FACT_ORDER = {"owner": 0, "controller": 1, "you": 2, "default_controller": 3, "may_activate": 4}


def because_order(item: Because) -> tuple[int, str, str, str]:
    return FACT_ORDER.get(item.fact, 9), item.fact, item.rule, item.via


class EngineFault(RuntimeError):
    """The encodings derived a state their rules cannot reach (``internal_error/4`` of
    checks.lp): a fault of the engine, not a property of the snapshot."""


def build_ruling(doc: dict[str, Any], version: str, atoms: list[Atom], names: Names,
                 clock: Clock = PLAIN_CLOCK) -> Ruling:
    """The ruling for one snapshot from its shown atoms (in any order).

    Lists come out in a canonical order that does not depend on the atoms'
    order or on the integers ids and times were written as (docs/engine.md):
    ``because`` by (fact, rule, via); ``left_game`` and ``objects`` in the
    snapshot's object order; ``choices`` by (object order, fact, chooser, rule)
    with sorted outcomes; ``violations`` by (rule, code, objects, message).
    Histories are expanded over the snapshot's time points (``moment/2``).
    """
    reader = _RulingReader(doc, version, names, clock)
    for pred, args in atoms:
        if (read := reader.READ.get(pred)) is not None:  # a proposal may show more
            read(reader, *args)
    return reader.finish()


class _RulingReader:
    """The atoms of one snapshot read into its ruling (``build_ruling``)."""

    def __init__(self, doc: dict[str, Any], version: str, names: Names, clock: Clock) -> None:
        self.doc, self.names, self.clock = doc, names, clock
        self.ruling = ruling = Ruling(id=doc.get("id"), rules=version)
        ruling._snapshot = doc  # type: ignore[attr-defined]  # for _repr_html_; not a field
        self.order: dict[str, int] = {}
        for obj in doc.get("objects", []):
            ruling.objects[obj["id"]] = ObjectRuling()
            self.order[obj["id"]] = len(self.order)
            for ab in obj.get("abilities", ()):
                ruling.abilities[ab["id"]] = {"may_activate": None, "you": None, "because": []}
        self.name, self.when = names.name, clock.time
        self.now = snapshot_now(doc)
        self.choices: dict[tuple[str, str, str, str], list[str]] = {}
        self.claims: list[tuple[Violation, int]] = []
        self.left: dict[str, str] = {}
        self.ability_because: dict[str, list[Because]] = {}
        self.controlled: dict[str, str] = {}
        self.runs: dict[int, dict[int, list[str]]] = {}
        self.ends: dict[int, set[int]] = {}
        self.points: dict[int, set[int]] = {}
        self.shown_moments: set[int] = set()
        self.vias: dict[tuple[Any, Any, Any], str] = {}  # a via's text, once per snapshot

    def value(self, o: int, p: int, *, pred: str) -> None:
        objects, name = self.ruling.objects, self.name
        if name(o) in objects:
            setattr(objects[name(o)], pred, name(p))
        else:  # an ability listed on an object: only "you" is derived for it
            self.ruling.abilities[name(o)][pred] = name(p)

    def because(self, o: int, fact: Any, rule: Any, kind: Any, x: Any, y: Any) -> None:
        if (via := self.vias.get((kind, x, y))) is None:
            via = self.vias[kind, x, y] = via_text(str(kind), x, y, self.names, self.clock)
        item = Because(str(rule), str(fact), via)
        if self.name(o) not in self.ruling.objects:
            self.ability_because.setdefault(self.name(o), []).append(item)
        else:
            self.ruling.objects[self.name(o)].because.append(item)

    def may_activate(self, a: int, p: int) -> None:
        self.ruling.abilities[self.name(a)]["may_activate"] = self.name(p)

    def history_run(self, o: int, t: int, p: int) -> None:
        self.runs.setdefault(o, {}).setdefault(self.when(t), []).append(
            self.name(p) if p else "")

    def history_end(self, o: int, t: int) -> None:
        self.ends.setdefault(o, set()).add(self.when(t))

    def history_point(self, o: int, t: int) -> None:
        self.points.setdefault(o, set()).add(self.when(t))

    def moment(self, t: int) -> None:
        self.shown_moments.add(self.when(t))

    def planar_controller(self, p: int) -> None:
        self.ruling.planar_controller = self.name(p)

    def controlled_player(self, q: int, p: int, *_rest: Any) -> None:
        self.controlled[self.name(q)] = self.name(p)

    def fate(self, o: int, fate: Any, _rule: Any, t: int) -> None:
        if self.when(t) <= self.now:
            self.left[self.name(o)] = FATES[fate]

    def choice(self, o: int, fact: Any, chooser: int, rule: Any, p: int) -> None:
        key = (self.name(o), str(fact), self.name(chooser), str(rule))
        self.choices.setdefault(key, []).append(self.name(p))

    def internal_error(self, code: Any, o: int, t: int) -> None:
        raise EngineFault(f"internal error {code} on {self.name(o)!r} at time {self.when(t)}: "
                          "the engine reached a state its rules cannot (an engine fault, not a "
                          "rules violation of the snapshot; please report it with the snapshot)")

    def violation(self, rule: str, code: str, x: int, y: int) -> None:
        self.ruling.violations.append(violation(rule, code, x, y, self.names, self.clock))
        if code == "claim_contradicts":
            self.claims.append((self.ruling.violations[-1], y))

    READ: dict[str, Callable[..., None]] = {
        "owner": partial(value, pred="owner"), "controller": partial(value, pred="controller"),
        "default_controller": partial(value, pred="default_controller"),
        "you": partial(value, pred="you"), "because": because, "may_activate": may_activate,
        "history_run": history_run, "history_end": history_end,
        "history_point": history_point, "moment": moment,
        "planar_controller": planar_controller, "controlled_player": controlled_player,
        "fate": fate, "choice": choice, "violation": violation, "internal_error": internal_error}

    def finish(self) -> Ruling:
        """Claims worded, every list in its canonical order, histories expanded."""
        ruling, order, name = self.ruling, self.order, self.name
        for v, number in self.claims:  # once every fact is in, say what each claim got wrong
            v.message = claim_message(self.doc["claims"][number], number, ruling)
        ruling.violations.sort(key=lambda v: (v.rule, v.code, v.objects, v.message))
        choices = self.choices
        for key in sorted(choices, key=lambda k: (order.get(k[0], len(order)), k)):
            ruling.choices.append(Choice(*key, sorted(set(choices[key]))))
        left = self.left
        ruling.left_game = {o: left[o] for o in sorted(left, key=lambda o: (order.get(o, 0), o))}
        seats = {p if isinstance(p, str) else p["id"]: i
                 for i, p in enumerate(self.doc["players"])}
        controlled = self.controlled
        ruling.controlled_players = {q: controlled[q] for q in sorted(
            controlled, key=lambda q: (seats.get(q, 0), q))}
        over = sorted(self.shown_moments)
        for o in sorted(self.runs.keys() | self.points.keys()):
            ruling.objects[name(o)].history = expand_history(
                over, self.runs.get(o, {}), self.ends.get(o, set()), self.points.get(o, set()))
        for obj in ruling.objects.values():
            obj.because.sort(key=because_order)
        for ab, items in self.ability_because.items():
            items.sort(key=because_order)
            ruling.abilities[ab]["because"] = [vars(b).copy() for b in items]
        return ruling


def expand_history(moments: Sequence[int], runs: dict[int, list[str]], ends: set[int],
                   points: set[int]) -> dict[int, str | None]:
    """An object's history at every time point from its run-length form (ruling.lp).

    A run gives the controllers from its moment on (a controller counts over a
    0 entry), until the next run or end; a point is a 0 entry at one moment.
    """
    history: dict[int, str | None] = {}
    current: list[str] | None = None
    for t in moments:
        if t in runs:
            current = runs[t]
        elif t in ends:
            current = None
        if current is not None:
            history[t] = max(current) or None
        elif t in points:
            history[t] = None
    return history


def violation(rule: str, code: str, x: int, y: int, names: Names,
              clock: Clock = PLAIN_CLOCK) -> Violation:
    """A violation from ``violation(S,Rule,Code,X,Y)``; X and Y as the code says."""
    ids = [names.name(v) for v in (x, y)[:OBJECT_ARGS.get(code, 2)] if v]
    shown_y = str(y) if code == "claim_contradicts" else _render("o", y, names, clock)
    message = MESSAGES.get(code, code).format(x=_render("o", x, names, clock), y=shown_y)
    return Violation(str(rule), code.replace("_", "-"), ids, message)


def claim_message(claim: dict[str, Any], number: int, ruling: Ruling) -> str:
    """Say what a contradicted claim said and what the rules derive instead."""
    obj = ruling.objects.get(claim["object"])
    parts = [f"{fact} {_player(claim[fact])}, the rules give {_player(getattr(obj, fact))}"
             for fact in ("owner", "controller") if fact in claim and obj
             and claim[fact] != getattr(obj, fact)]
    return f"claim #{number} about {claim['object']}: " + "; ".join(parts)


def _player(who: str | None) -> str:
    """A player in a message: the id as JSON shows it, or "nobody"."""
    return "nobody" if who is None else shown(who)


def controller_at(history: dict[int, str | None], at: int) -> str | None:
    """The controller at any moment: control changes only at the recorded time points."""
    before = [t for t in history if t <= at]
    return history[max(before)] if before else None


