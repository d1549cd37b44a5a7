"""Write a corpus of realistic random snapshots, one JSON document per line.

    python benchmarks/make_corpus.py N SEED [--bad-lines RATE] > corpus.jsonl
    python benchmarks/make_corpus.py N SEED --objects 20 --effects 8 --players 6  # realistic
    python benchmarks/make_corpus.py N SEED --differential  # bench_engine's differential mix

``realistic(rng, n)`` is the benchmarks' 20-object snapshot: 2-6 players, 0-8
effects (control Auras, steals until end of turn, "for as long as you control"
and "while tapped" steals, exchanges, player control), tokens, copies,
abilities and triggers, and one player who left in a quarter of the games with
three or more players.

Each snapshot has 2-4 players (sometimes one who left the game), 3-12 objects of
mixed kinds (permanents, Auras, tokens, spells, copies, abilities, cards in hidden
zones, emblems, planes) with the history fields ownership and control depend on,
and 0-4 control effects (resolution steals, control Auras, exchanges, player
control).  Every line is a valid snapshot/1 document, except that with
``--bad-lines RATE`` about that fraction of lines is broken on purpose (bad JSON,
missing fields, unknown references), so that error handling is exercised too.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]
VERSIONS = ["2012-10-01", "2017-04-28", "2020-11-20", "2024-11-08", "2026-08-07"]


class Builder:
    """One random snapshot, built event by event in time order."""

    def __init__(self, rng: random.Random, n: int, objects: int | None = None,
                 max_effects: int = 4, max_players: int = 4, exact_effects: bool = False) -> None:
        self.rng = rng
        self.exact_effects = exact_effects
        self.n = n
        self.wanted_objects = objects
        self.max_effects = max_effects
        self.time = rng.randint(0, 3)
        nplayers = rng.choice((2, 2, 2, 3, 3, 4, 5, 6)[:6 + max(0, max_players - 4)])
        self.players: list[str] = NAMES[:nplayers]
        self.objects: list[dict[str, Any]] = []
        self.effects: list[dict[str, Any]] = []
        self.permanents: list[str] = []   # ids of permanents on the battlefield
        self.creatures: list[str] = []
        self.spells: list[str] = []       # cards and copies on the stack
        self.graveyard: list[str] = []    # possible sources of resolved effects
        self.owner: dict[str, str] = {}
        self.under: dict[str, str] = {}

    def tick(self, most: int = 3) -> int:
        self.time += self.rng.randint(1, most)
        return self.time

    def player(self) -> str:
        return self.rng.choice(self.players)

    def other(self, p: str) -> str:
        return self.rng.choice([q for q in self.players if q != p])

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{len(self.objects) + 1}"

    # --- objects -----------------------------------------------------------------
    def permanent(self) -> None:
        oid = self.new_id("c")
        owner = self.player()
        under = owner if self.rng.random() < 0.85 else self.other(owner)
        types = self.rng.choice((["creature"], ["creature"], ["land"], ["artifact"],
                                 ["artifact", "creature"], ["enchantment"], ["planeswalker"]))
        obj = {"id": oid, "kind": "card", "zone": "battlefield", "types": types,
               "start": {"zone": "library", "player": owner},
               "entered": {"at": self.tick(), "under": under}}
        if "land" not in types and self.rng.random() < 0.5:
            obj["entered"]["spell_put_on_stack_by"] = under
        if self.rng.random() < 0.2:
            obj["tapped"] = True
        if "land" in types and self.rng.random() < 0.5:
            obj["abilities"] = [{"id": f"{oid}-mana", "kind": "mana"}]
        self.objects.append(obj)
        self.permanents.append(oid)
        if "creature" in types:
            self.creatures.append(oid)
        self.owner[oid], self.under[oid] = owner, under

    def stolen_spell_permanent(self) -> None:
        if len(self.effects) >= self.max_effects:
            return self.permanent()
        oid = self.new_id("c")
        owner = self.player()
        thief = self.other(owner)
        src = self.new_id("g")
        self.objects.append({"id": src, "kind": "card", "zone": "graveyard",
                             "types": ["instant"], "start": {"zone": "library", "player": thief}})
        eid = f"e{len(self.effects) + 1}"
        self.tick()  # the spell is cast
        stolen = self.tick()
        self.effects.append({"id": eid, "kind": "control", "origin": "resolution",
                             "source": src, "player": thief, "objects": [oid],
                             "timestamp": stolen})
        self.objects.append({"id": oid, "kind": "card", "zone": "battlefield",
                             "types": ["creature"], "start": {"zone": "library", "player": owner},
                             "entered": {"at": self.tick(), "under": thief,
                                         "spell_put_on_stack_by": owner,
                                         "spell_control_effect": eid}})
        self.permanents.append(oid)
        self.creatures.append(oid)
        self.owner[oid], self.under[oid] = owner, thief

    def aura(self) -> None:
        if not self.creatures:
            return self.permanent()
        target = self.rng.choice(self.creatures)
        oid = self.new_id("a")
        owner = self.rng.choice([p for p in self.players if p != self.under[target]])
        at = self.tick()
        self.objects.append({"id": oid, "kind": "card", "zone": "battlefield",
                             "types": ["enchantment", "aura"],
                             "start": {"zone": "library", "player": owner},
                             "entered": {"at": at, "under": owner}, "attached_to": target})
        self.permanents.append(oid)
        self.owner[oid], self.under[oid] = owner, owner
        if len(self.effects) < self.max_effects and self.rng.random() < 0.8:
            self.effects.append({"id": f"e{len(self.effects) + 1}", "kind": "control",
                                 "origin": "static", "source": oid, "attached": True,
                                 "timestamp": at})

    def token(self) -> None:
        oid = self.new_id("t")
        by = self.player()
        under = by if self.rng.random() < 0.85 else self.other(by)
        at = self.tick()
        self.objects.append({"id": oid, "kind": "token", "zone": "battlefield",
                             "types": ["creature"], "created": {"at": at, "by": by},
                             "entered": {"at": at, "under": under}})
        self.permanents.append(oid)
        self.creatures.append(oid)
        self.owner[oid], self.under[oid] = by, under

    def hidden_card(self) -> None:
        oid = self.new_id("h")
        zone = self.rng.choice(("library", "hand", "hand", "graveyard", "exile"))
        owner = self.player()
        self.objects.append({"id": oid, "kind": "card", "zone": zone,
                             "types": [self.rng.choice(("creature", "instant", "sorcery",
                                                        "land"))],
                             "start": {"zone": "library", "player": owner}})
        if zone == "graveyard":
            self.graveyard.append(oid)

    def spell(self) -> None:
        oid = self.new_id("s")
        owner = self.player()
        by = owner if self.rng.random() < 0.9 else self.other(owner)
        self.objects.append({"id": oid, "kind": "card", "zone": "stack",
                             "types": [self.rng.choice(("instant", "sorcery", "creature"))],
                             "start": {"zone": "library", "player": owner},
                             "put_on_stack": {"at": self.tick(), "by": by}})
        self.spells.append(oid)

    def copy(self) -> None:
        if not self.spells:
            return self.spell()
        oid = self.new_id("k")
        by = self.player()
        self.objects.append({"id": oid, "kind": "copy", "zone": "stack", "types": ["instant"],
                             "copy_of": self.rng.choice(self.spells),
                             "put_on_stack": {"at": self.tick(), "by": by}})

    def ability(self) -> None:
        if not self.permanents:
            return self.permanent()
        src = self.rng.choice(self.permanents)
        oid = self.new_id("ab")
        at = self.tick()
        if self.rng.random() < 0.5:
            obj = {"id": oid, "kind": "ability", "zone": "stack", "source": src,
                   "ability": "activated", "activated": {"at": at, "by": self.under[src]}}
        else:
            obj = {"id": oid, "kind": "ability", "zone": "stack", "source": src,
                   "ability": "triggered",
                   "triggered": {"at": at, "source_zone": "battlefield"}}
            if self.rng.random() < 0.3:
                obj["waiting"] = True
        self.objects.append(obj)

    def emblem(self) -> None:
        self.objects.append({"id": self.new_id("em"), "kind": "emblem", "zone": "command",
                             "created": {"at": self.tick(), "by": self.player()}})

    def plane(self) -> None:
        owner = self.player()
        self.objects.append({"id": self.new_id("pl"), "kind": "card", "zone": "command",
                             "types": ["plane"], "start": {"zone": "planar-deck", "player": owner},
                             "turned_face_up_at": self.tick()})

    # --- effects -----------------------------------------------------------------
    def steal(self) -> None:
        if not self.creatures:
            return
        target = self.rng.choice(self.creatures)
        thief = self.other(self.under[target])
        if self.graveyard:
            src = self.rng.choice(self.graveyard)
        elif self.wanted_objects:  # keep the object count exact
            return
        else:
            src = self.new_id("g")
            self.objects.append({"id": src, "kind": "card", "zone": "graveyard",
                                 "types": ["sorcery"],
                                 "start": {"zone": "library", "player": thief}})
            self.graveyard.append(src)
        eff: dict[str, Any] = {"id": f"e{len(self.effects) + 1}", "kind": "control",
                               "origin": "resolution", "source": src, "player": thief,
                               "objects": [target], "timestamp": self.tick()}
        if self.rng.random() < 0.4:
            eff["duration"] = "end-of-turn"
            if self.rng.random() < 0.5:
                eff["ended_at"] = self.tick()
        self.effects.append(eff)

    def steal_while(self) -> None:
        """An activated ability of a permanent: "gain control of target creature for
        as long as you control <source>" (611.2b), or while the source stays."""
        if not self.creatures or not self.permanents:
            return
        src = self.rng.choice(self.permanents)
        target = self.rng.choice([c for c in self.creatures if c != src] or self.creatures)
        duration = self.rng.choice(("while-you-control-source", "while-source-on-battlefield",
                                    "while-source-tapped"))
        eff: dict[str, Any] = {"id": f"e{len(self.effects) + 1}", "kind": "control",
                               "origin": "resolution", "source": src, "objects": [target],
                               "timestamp": self.tick(), "duration": duration}
        if duration == "while-source-tapped":
            for obj in self.objects:
                if obj["id"] == src:
                    obj["tapped"] = True
        self.effects.append(eff)

    def exchange(self) -> None:
        if len(self.permanents) < 2:
            return
        a, b = self.rng.sample(self.permanents, 2)
        self.effects.append({"id": f"e{len(self.effects) + 1}", "kind": "exchange",
                             "origin": "resolution", "source": a, "objects": [a, b],
                             "timestamp": self.tick()})

    def control_player(self) -> None:
        p = self.player()
        self.effects.append({"id": f"e{len(self.effects) + 1}", "kind": "control-player",
                             "source": self.objects[0]["id"], "player": p,
                             "controlled": self.other(p), "timestamp": self.tick(),
                             "duration": "end-of-turn"})

    def _drop_dangling(self) -> None:
        """After trimming to the wanted size: forget ids no longer present."""
        ids = {o["id"] for o in self.objects}
        self.permanents = [o for o in self.permanents if o in ids]
        self.creatures = [o for o in self.creatures if o in ids]
        self.spells = [o for o in self.spells if o in ids]
        self.graveyard = [o for o in self.graveyard if o in ids]
        effects = []
        for eff in self.effects:
            names = [eff.get("source"), *eff.get("objects", [])]
            if all(n is None or n in ids for n in names):
                effects.append(eff)
        kept = {e["id"] for e in effects}
        self.effects = effects
        for obj in self.objects:
            for ref in ("attached_to", "copy_of", "source"):
                if ref in obj and obj[ref] not in ids:
                    del obj[ref]
            ent = obj.get("entered", {})
            if ent.get("spell_control_effect") not in (None, *kept):
                del ent["spell_control_effect"]

    def build(self) -> dict[str, Any]:
        rng = self.rng
        makers = [(self.permanent, 30), (self.aura, 8), (self.token, 10), (self.hidden_card, 15),
                  (self.spell, 8), (self.copy, 4), (self.ability, 10), (self.emblem, 3),
                  (self.stolen_spell_permanent, 3), (self.plane, 2)]
        funcs, weights = zip(*makers, strict=True)
        target = self.wanted_objects or rng.randint(3, 12)
        while len(self.objects) < target:
            rng.choices(funcs, weights)[0]()
        del self.objects[target:]  # makers may add two objects; references stay valid
        self._drop_dangling()
        if self.exact_effects:
            wanted = self.max_effects
        elif self.max_effects != 4:
            wanted = rng.randint(0, self.max_effects)
        else:
            wanted = rng.choice((0, 0, 1, 1, 2, 3, 4))
        tries = 0
        while len(self.effects) < wanted and tries < 10 + 4 * self.max_effects:
            tries += 1
            rng.choices((self.steal, self.exchange, self.control_player, self.steal_while),
                        (6, 2, 1, 2 if self.max_effects != 4 else 0))[0]()
        doc: dict[str, Any] = {"id": f"snap{self.n}", "players": list(self.players),
                               "objects": self.objects, "effects": self.effects}
        active = rng.choice(self.players)
        if active != self.players[0]:
            doc["active_player"] = active
        if len(self.players) > 2 and rng.random() < 0.25:
            leaver = rng.choice([p for p in self.players if p != active])
            seat = self.players.index(leaver)
            doc["players"][seat] = {"id": leaver, "left_at": self.tick()}
        if rng.random() < 0.3:
            doc["rules"] = rng.choice(VERSIONS)
        if rng.random() < 0.5:
            doc["now"] = self.tick()
        return doc


def realistic(rng: random.Random, n: int, objects: int = 20, effects: int = 8) -> dict[str, Any]:
    """One realistic benchmark snapshot (see the module docstring)."""
    return Builder(rng, n, objects, effects, 6).build()


PHASING_PLAYERS = ("alice", "bob", "carol")
PHASING_DURATIONS = ("indefinite", "end-of-turn", "while-you-control-source",
                     "while-source-on-battlefield", "while-enchanted")


def phasing_game(rng: random.Random, n: int) -> dict[str, Any]:
    """A small game for the phasing differential: creatures that may phase, an Aura
    that may be attached to one (and phase with it), steals of them from spells or
    from a creature, an exchange, a player who left."""
    players: list = list(PHASING_PLAYERS)
    if rng.random() < 0.25:
        players[2] = {"id": "carol", "left_at": rng.randint(10, 30)}
    now = 40
    objects: list[dict] = []
    creatures = [f"c{i}" for i in range(rng.randint(2, 4))]
    for c in creatures:
        owner = PHASING_PLAYERS[rng.randrange(3)]
        obj = {"id": c, "kind": "card", "zone": "battlefield", "types": ["creature"],
               "start": {"zone": "library", "player": owner},
               "entered": {"at": rng.randint(1, 12), "under": owner}}
        if rng.random() < 0.6:
            out = rng.randint(2, 30)
            spans = [{"out_at": out, "in_at": out + rng.randint(1, 8)}]
            if rng.random() < 0.3:
                spans = [{"out_at": out}]
            obj["phasing"] = spans
        objects.append(obj)
    effects: list[dict] = []
    if rng.random() < 0.6:
        owner = PHASING_PLAYERS[rng.randrange(3)]
        target = rng.choice(creatures)
        at = rng.randint(3, 25)
        objects.append({"id": "aura", "kind": "card", "zone": "battlefield",
                        "types": ["enchantment", "aura"],
                        "start": {"zone": "library", "player": owner},
                        "entered": {"at": at, "under": owner}, "attached_to": target})
        effects.append({"id": "e-aura", "kind": "control", "origin": "static",
                        "source": "aura", "attached": True, "timestamp": at})
    for k in range(rng.randint(1, 4)):
        caster = PHASING_PLAYERS[rng.randrange(3)]
        spell = f"s{k}"
        ts = rng.randint(3, 35)
        objects.append({"id": spell, "kind": "card", "zone": "graveyard", "types": ["sorcery"],
                        "start": {"zone": "library", "player": caster},
                        "put_on_stack": {"at": ts - 1, "by": caster}})
        source = spell if rng.random() < 0.7 else rng.choice(creatures)
        effect: dict = {"id": f"e{k}", "kind": "control", "origin": "resolution",
                        "source": source, "objects": [rng.choice(creatures)], "timestamp": ts}
        if source == spell or rng.random() < 0.5:
            effect["player"] = caster
        duration = rng.choice(PHASING_DURATIONS)
        if duration != "indefinite":
            effect["duration"] = duration
        if duration == "end-of-turn":
            effect["ended_at"] = ts + rng.randint(1, 6)
        effects.append(effect)
    if rng.random() < 0.3 and len(creatures) >= 2:
        a, b = rng.sample(creatures, 2)
        effects.append({"id": "ex", "kind": "exchange", "origin": "resolution",
                        "source": "s0", "objects": [a, b], "timestamp": rng.randint(5, 35)})
    return {"id": f"phasing{n}", "players": players, "active_player": "alice", "now": now,
            "objects": objects, "effects": effects}


CROWDED_DURATIONS = ("indefinite", "indefinite", "end-of-turn", "while-you-control-source",
                     "while-source-on-battlefield", "while-source-tapped", "while-attached",
                     "while-enchanted", "until-your-next-turn", "until-end-of-your-next-turn")


def crowded_game(rng: random.Random, n: int) -> dict[str, Any]:
    """A game for the many-effects differential: one or two creatures that many
    control effects name -- steals from spells and from permanents (which may
    leave, be tapped, or be stolen themselves), with every duration, some sharing
    a timestamp; control Auras attached to them (some leaving, one face down or
    turned face up); a static effect naming them from a plain permanent; turns
    recorded; sometimes a player who left."""
    players: list = list(PHASING_PLAYERS)
    if rng.random() < 0.2:
        players[2] = {"id": "carol", "left_at": rng.randint(20, 60)}
    now = 80
    game = _Crowd(rng, now)
    creatures = [f"c{i}" for i in range(rng.randint(1, 2))]
    for c in creatures:
        game.permanent(c, rng.randint(1, 5), ["creature"])
    sources = [f"m{i}" for i in range(rng.randint(1, 2))]
    for m in sources:
        extra: dict[str, Any] = {}
        if rng.random() < 0.5:
            extra = {"tapped": rng.random() < 0.7, "tapped_since": rng.randint(6, 50)}
        game.permanent(m, rng.randint(1, 10), ["creature"], **extra)
    game.statics(creatures)
    game.steals(creatures, sources)
    turns = [{"player": PHASING_PLAYERS[i % 3], "from": f} for i, f in enumerate(range(0, now, 9))]
    return {"id": f"crowded{n}", "players": players, "active_player": "alice", "now": now,
            "turns": turns, "objects": game.objects, "effects": game.effects}


class _Crowd:
    """The objects and effects of one crowded game, as they are made."""

    def __init__(self, rng: random.Random, now: int) -> None:
        self.rng, self.now = rng, now
        self.objects: list[dict] = []
        self.effects: list[dict] = []

    def owner(self) -> str:
        return PHASING_PLAYERS[self.rng.randrange(3)]

    def permanent(self, oid: str, at: int, types: list[str], **extra: Any) -> dict:
        who = self.owner()
        obj = {"id": oid, "kind": "card", "zone": "battlefield", "types": types,
               "start": {"zone": "library", "player": who}, "entered": {"at": at, "under": who},
               **extra}
        if self.rng.random() < 0.15:
            obj["zone"] = "graveyard"
            obj["left_battlefield"] = {"at": self.rng.randint(at + 1, self.now - 1)}
            if "attached_to" in obj:
                obj["left_battlefield"]["attached_to"] = obj.pop("attached_to")
        self.objects.append(obj)
        return obj

    def statics(self, creatures: list[str]) -> None:
        """Control Auras on the creatures, and a static effect naming one."""
        rng = self.rng
        for k in range(rng.randint(0, 3)):
            at = rng.randint(3, 60)
            extra: dict[str, Any] = {"attached_to": rng.choice(creatures)}
            if rng.random() < 0.2:
                extra["turned_face_up_at"] = rng.randint(at, 70)
            elif rng.random() < 0.1:
                extra["face_down"] = True
            self.permanent(f"a{k}", at, ["enchantment", "aura"], **extra)
            self.effects.append({"id": f"ea{k}", "kind": "control", "origin": "static",
                                 "source": f"a{k}", "attached": True, "timestamp": at})
        if rng.random() < 0.3:
            at = rng.randint(3, 60)
            self.permanent("lord", at, ["enchantment"])
            self.effects.append({"id": "el", "kind": "control", "origin": "static",
                                 "source": "lord", "objects": [rng.choice(creatures)],
                                 "timestamp": at})

    def steals(self, creatures: list[str], sources: list[str]) -> None:
        """4-24 resolution effects, some sharing a timestamp, with every duration."""
        rng = self.rng
        ts = 4
        for k in range(rng.randint(4, 24)):
            if rng.random() > 0.2:
                ts += rng.randint(1, 3)
            caster = self.owner()
            if rng.random() < 0.7:
                source = f"s{k}"
                self.objects.append({"id": source, "kind": "card", "zone": "graveyard",
                                     "types": ["sorcery"],
                                     "start": {"zone": "library", "player": caster},
                                     "put_on_stack": {"at": ts - 1, "by": caster}})
            else:
                source = rng.choice(sources + creatures)
            effect: dict = {"id": f"e{k}", "kind": "control", "origin": "resolution",
                            "source": source, "objects": [rng.choice(creatures)],
                            "timestamp": ts}
            if source.startswith("s") or rng.random() < 0.5:
                effect["player"] = caster
            duration = rng.choice(CROWDED_DURATIONS)
            if duration != "indefinite":
                effect["duration"] = duration
            if duration == "end-of-turn" or (duration == "indefinite" and rng.random() < 0.2):
                effect["ended_at"] = ts + rng.randint(1, 8)
            self.effects.append(effect)


def broken(rng: random.Random, doc: dict[str, Any]) -> str:
    """A deliberately bad line."""
    how = rng.randrange(4)
    if how == 0:
        return json.dumps(doc)[:-7]                       # truncated JSON
    if how == 1:
        doc["objects"][0].pop("kind", None)               # a required field missing
    elif how == 2:
        doc["effects"].append({"id": "ex", "kind": "control", "origin": "resolution",
                               "source": "nowhere", "player": "zed", "objects": ["ghost"],
                               "timestamp": 1})           # unknown references
    else:
        doc["players"] = "alice"                         # wrong type
    return json.dumps(doc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="number of snapshots")
    parser.add_argument("seed", type=int, help="random seed")
    parser.add_argument("--bad-lines", type=float, default=0.0, metavar="RATE",
                        help="fraction of deliberately invalid lines (default 0)")
    parser.add_argument("--objects", type=int, default=None,
                        help="objects per snapshot (default: 3-12 at random)")
    parser.add_argument("--effects", type=int, default=4,
                        help="at most this many effects (default 4)")
    parser.add_argument("--players", type=int, default=4,
                        help="at most this many players, 2-6 (default 4)")
    parser.add_argument("--differential", action="store_true",
                        help="the differential mix instead: odd lines realistic (20 objects), "
                             "even lines small generated, as `bench_engine.py differential`")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    out = sys.stdout
    if args.differential:
        for i in range(args.n):
            doc = realistic(rng, i) if i % 2 else Builder(rng, i).build()
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")
        return 0
    for i in range(args.n):
        doc = Builder(rng, i + 1, args.objects, args.effects, args.players).build()
        if args.bad_lines and rng.random() < args.bad_lines:
            out.write(broken(rng, doc) + "\n")
        else:
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
