"""Objects that phase are derived at their event points only (docs/engine.md,
Grounding item 13): fast path against the plain path (every object at every time
point) on random snapshots where permanents phase out and in (702.26) while
control effects -- steals with durations, control Auras, exchanges -- begin, end
and are attached, and players leave.  The scenario files have seven phasing
situations; this widens them."""

from __future__ import annotations

import random

from mtgcontrol.engine.api import adjudicate_many

PLAYERS = ("alice", "bob", "carol")
DURATIONS = ("indefinite", "end-of-turn", "while-you-control-source",
             "while-source-on-battlefield", "while-enchanted")


def phasing_snapshot(rng: random.Random, n: int) -> dict:
    """A small game: creatures that may phase, an Aura that may be attached to one
    (and phase with it), steals of them from spells or from a creature."""
    players: list = list(PLAYERS)
    if rng.random() < 0.25:
        players[2] = {"id": "carol", "left_at": rng.randint(10, 30)}
    now = 40
    objects: list[dict] = []
    creatures = [f"c{i}" for i in range(rng.randint(2, 4))]
    for c in creatures:
        owner = PLAYERS[rng.randrange(3)]
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
        owner = PLAYERS[rng.randrange(3)]
        target = rng.choice(creatures)
        at = rng.randint(3, 25)
        objects.append({"id": "aura", "kind": "card", "zone": "battlefield",
                        "types": ["enchantment", "aura"],
                        "start": {"zone": "library", "player": owner},
                        "entered": {"at": at, "under": owner}, "attached_to": target})
        effects.append({"id": "e-aura", "kind": "control", "origin": "static",
                        "source": "aura", "attached": True, "timestamp": at})
    for k in range(rng.randint(1, 4)):
        caster = PLAYERS[rng.randrange(3)]
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
        duration = rng.choice(DURATIONS)
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


def test_phasing_objects_agree_with_every_time_point() -> None:
    rng = random.Random(26)
    docs = [phasing_snapshot(rng, n) for n in range(400)]
    items = [(d, d["id"]) for d in docs]
    fast = [r.to_json() for r in adjudicate_many(items, fast=True)]
    plain = [r.to_json() for r in adjudicate_many(items, fast=False)]
    differ = [docs[i]["id"] for i, (a, b) in enumerate(zip(fast, plain, strict=True)) if a != b]
    assert not differ, f"{len(differ)} snapshot(s) differ, e.g. {differ[:5]}"
    # The snapshots are judged, and exercise phasing: most are no error record.
    judged = [r for r in fast if '"objects"' in r]
    assert len(judged) > 300, len(judged)
    assert sum(any("phasing" in o for o in d["objects"]) for d in docs) > 300
