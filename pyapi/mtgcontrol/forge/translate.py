"""One Forge game state -> one ``snapshot/1`` with Forge's view as ``claims``, and a
report record saying what was left out, withheld or superseded (docs/forge.md).

Nothing is guessed: what the file cannot express, or what rests on an order
Forge does not specify, is withheld or left out with a code, or the file is
refused (`Refused`).
"""

from __future__ import annotations

from typing import Any

from .cardscript import CardData, params
from .gamestate import ZONE_ORDER, Entry, GameFile, Refused, player_value
from .model import Record, pid
from .steps import Steps

STATIC_AFFECTED = {"Card.EnchantedBy", "Creature.EnchantedBy", "Permanent.EnchantedBy",
                   "Card.EquippedBy", "Creature.EquippedBy", "Card.AttachedBy"}
STATIC_CONDITIONS = ("IsPresent", "CheckSVar", "Condition", "PlayerTurn")
ATTACHMENTS = {"aura", "equipment", "fortification"}


class Translator(Steps):
    """One game state translated: its objects, then its setup steps (`Steps`), statics
    and the order of what happened."""

    # --- objects -------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        game = self.game
        old = {"human", "ai"} & set(game.labels.values())
        self.rec.players = {pid(n): game.labels.get(n, ("human", "ai")[n] if old and n < 2
                                                    else pid(n)) for n in game.players}
        active = game.globals.get("activeplayer")
        if not active:
            self.rec.notes.append("active-player-unknown")
        if "activephaseadvance" in game.globals:
            self.rec.notes.append("phase-advance-not-simulated")
        if game.kind == "dump":
            self.rec.notes += ["stack-not-recorded", "players-who-lost-not-recorded",
                               "effects-not-recorded"]
        else:
            self.rec.notes.append("sba-not-simulated")
        if any(k.isdigit() for n in game.players for k in [game.labels.get(n, "")[1:]]):
            self.rec.notes.append("dialect-newest")
        entries = sorted(game.entries, key=lambda e: (e.player, ZONE_ORDER.index(e.zone),
                                                      e.index))
        for e in entries:
            self._check_players(e)
        ids = self._ids(entries)
        left = self._left_out(entries, ids)
        for e in entries:
            if ids[id(e)] not in left:
                self._object(e, ids[id(e)])
        self._attachments(entries, ids, left)
        if self.cards is None:
            self._without_cards()
        else:
            self._steps(entries, ids)
            self._settle_moves()
            self._statics()
            self._order()
        return self._snapshot(active)

    def _check_players(self, e: Entry) -> None:
        where = f"{e.name!r} in p{e.player} {e.zone}"
        for key in ("Owner", "EnchantingPlayer", "PhasedOut"):
            value = e.get(key)
            if value:
                n = player_value(value, f"{where}: {key}:")
                if n not in self.game.players:
                    raise Refused("player-index-out-of-range",
                                  f"{where}: {key}:{value} names player {n}, but the file has "
                                  f"{len(self.game.players)} player(s)")
        if e.get("Owner") is not None and e.zone != "battlefield":
            raise Refused("owner-outside-battlefield", f"{where}: Owner: outside the "
                                                       "battlefield would put a card in "
                                                       "another player's zone (400.3)")
        if e.has("MergedCards") or e.has("Meld"):
            raise Refused("merged-or-melded", f"{where}: one permanent made of several cards")

    def _ids(self, entries: list[Entry]) -> dict[int, str]:
        ids: dict[int, str] = {}
        taken: set[str] = set()
        for e in entries:
            number = e.get("Id")
            if number is not None:
                if not number.isdigit():
                    raise Refused("id-invalid", f"{e.name!r}: Id:{number} is not a number")
                oid = f"id{int(number)}"
                if oid in taken:
                    raise Refused("id-duplicate", f"Id:{number} is given twice")
            else:
                oid = f"{pid(e.player)}.{e.zone}.{e.index}"
            taken.add(oid)
            ids[id(e)] = oid
        return ids

    def _left_out(self, entries: list[Entry], ids: dict[int, str]) -> set[str]:
        """The entries not imported: left out, or Forge's effect cards (no object)."""
        left: dict[str, str] = {}
        effects: set[str] = set()
        for e in entries:
            oid = ids[id(e)]
            if e.has("PhasedOut"):
                left[oid] = "phased-out"
            elif e.zone == "command" and e.name.startswith("t:") and \
                    "effect" in _token_types(e.name):
                # Forge's bookkeeping card, as one a setup step's Effect makes (§4)
                effects.add(oid)
                self.rec.notes.append(f"forge-effect-card:{oid}")
            elif e.zone == "command" and not e.has("IsCommander"):
                left[oid] = "command-zone-object-unsupported"
        by_id = {ids[id(e)]: e for e in entries}
        changed = True
        while changed:  # what is attached to a phased-out permanent phases out with it
            changed = False
            for oid, e in by_id.items():
                host = e.get("AttachedTo") or e.get("Attaching")
                if oid not in left and host and left.get(f"id{host}") == "phased-out":
                    left[oid] = "phased-out"
                    changed = True
        for oid, code in left.items():
            self.rec.left_out.append([oid, code])
        return set(left) | effects

    def _object(self, e: Entry, oid: str) -> None:
        named = e.get("Owner")
        owner = pid(player_value(named, "Owner:") if named else e.player)
        obj: dict[str, Any] = {"id": oid, "kind": "token" if e.token else "card",
                               "zone": {"sideboard": "outside"}.get(e.zone, e.zone),
                               "note": e.name}
        types = self._types(e, oid)
        # processCardsForZone turns a FaceDown or Foretold entry face down
        face_down = e.has("FaceDown") or e.has("Foretold")
        if types and not face_down:
            obj["types"] = types
        if e.zone == "battlefield":
            self.time += 1
            obj["entered"] = {"at": self.time, "under": pid(e.player)}
            self.placed[oid] = pid(e.player)
            if e.has("Tapped"):
                obj["tapped"] = True
            if owner != pid(e.player):
                # the file says only whose it is and who holds it: the entry under the
                # holder stands in for a history it does not record
                obj["entered"]["assumed"] = True
                self.rec.notes.append(f"control-cause-not-recorded:{oid}")
        if face_down:
            obj["face_down"] = True
        if e.token:
            obj["created"] = {"at": obj.get("entered", {}).get("at", 0), "by": owner}
        else:
            start = {"command": "command", "sideboard": "sideboard"}.get(e.zone, "library")
            obj["start"] = {"zone": start, "player": owner}
        if e.has("Damage") or "M1M1" in (e.get("Counters") or ""):
            self.sba.add(oid)
        self.owner[oid] = owner
        self.objects[oid] = obj
        self.entry[oid] = e

    def _types(self, e: Entry, oid: str) -> list[str] | None:
        if e.name.startswith("t:"):
            return _token_types(e.name)
        if self.cards is None:
            return None
        if e.name.startswith("T:"):
            script = self.cards.token(e.name[2:])
            what = f"token script {e.name[2:]!r} (tokenscripts/{e.name[2:]}.txt)"
        else:
            script = self.cards.card(e.name)
            what = f"card {e.name!r}"
        if script is None:
            raise Refused("card-unknown", f"{what} ({oid}): no card script has that Name:")
        alternate = any(e.has(k) for k in ("Transformed", "Flipped", "Modal"))
        self.script[oid] = (script, alternate)
        return script.types(alternate)

    def _attachments(self, entries: list[Entry], ids: dict[int, str], left: set[str]) -> None:
        for e in entries:
            oid = ids[id(e)]
            for key in ("ExiledWith", "AttachedTo", "Attaching"):
                ref = e.get(key)
                if ref is None:
                    continue
                target = f"id{ref.strip()}"
                if target not in ids.values():
                    raise Refused("id-unknown", f"{e.name!r} ({oid}): {key}:{ref} names no "
                                                "listed Id")
                if key == "ExiledWith" or oid in left:
                    continue
                if e.zone != "battlefield" or target not in self.objects or \
                        self.entry[target].zone != "battlefield":
                    raise Refused("attachment-off-battlefield",
                                  f"{e.name!r} ({oid}): {key}:{ref}: both must be on the "
                                  "battlefield")
                if target == oid:
                    raise Refused("id-unknown", f"{oid} is attached to itself")
                types = self.objects[oid].get("types")
                if types is not None and not ATTACHMENTS & set(types):
                    # Forge attaches only an Aura, Equipment or Fortification (isAttachment)
                    self.rec.notes.append(f"attachment-ignored-by-forge:{oid}")
                    continue
                self.objects[oid]["attached_to"] = target
            if e.get("EnchantingPlayer") is not None:
                self.rec.notes.append(f"attached-to-player:{oid}")

    def _without_cards(self) -> None:
        for oid in self.placed:
            self.rec.withheld.append([oid, "controller", "needs-card-data"])
        steps = [(f"{pid(e.player)}:ExecuteScript:{e.get('ExecuteScript')}")
                 for e in self.entry.values() if e.get("ExecuteScript")]
        steps += [f"{pid(s.player)}{s.key}:{s.text}" for s in self.game.steps]
        self.rec.left_out += [[s, "needs-card-data"] for s in steps]

    # --- statics, order, claims ------------------------------------------------------

    def _statics(self) -> None:
        for oid in list(self.placed):
            obj = self.objects[oid]
            if obj["zone"] != "battlefield" or obj.get("face_down") or oid not in self.script:
                continue
            for line in self._face(oid).statics:
                p = params(line)
                if "GainControl" not in p or p.get("Mode") != "Continuous":
                    continue
                if p.get("Affected") not in STATIC_AFFECTED or any(
                        k in p for k in STATIC_CONDITIONS):
                    raise Refused("static-control-unsupported",
                                  f"{oid} ({obj['note']}): static {line[:80]!r}")
                eid = f"e{len(self.effects) + 1}"
                self.effects.append({"id": eid, "kind": "control", "origin": "static",
                                     "source": oid, "attached": True,
                                     "timestamp": obj["entered"]["at"],
                                     "note": f"static of {obj['note']}"})
                self.sources[eid] = oid
                if obj.get("attached_to"):
                    self.touched.setdefault(obj["attached_to"], []).append(eid)

    def _order(self) -> None:
        unsure: set[str] = set()
        for oid, labels in self.touched.items():
            if len(labels) > 1:
                self.rec.notes.append(f"order-sensitive:{oid}")
                unsure.add(oid)
        for oid, labels in self.touched.items():
            for label in labels:
                source = self.sources.get(label) or self.sources.get(f"{oid}:{label}")
                if any(other != label for other in self.touched.get(source or "", ())):
                    # its source's own controller or zone is changed by another step
                    self.rec.notes.append(f"order-sensitive:{oid}")
                    unsure.add(oid)
        by_id = {e["id"]: e for e in self.effects}
        for oid in sorted(self.touched):
            if oid in unsure or oid in self.sba:
                continue
            for label in self.touched[oid]:
                if label.startswith("setup move"):
                    self.rec.superseded.append([oid, label])
                    continue
                effect = by_id[label]
                if effect["kind"] == "exchange":
                    a, b = effect["objects"]
                    differs = self.placed[a] != self.placed[b]
                elif effect["origin"] == "static":
                    # a dump's placement is Forge's answer with its statics applied: a
                    # static that disagrees with it is a real disagreement, not superseded
                    differs = self.game.kind == "puzzle" and \
                        self.placed[effect["source"]] != self.placed[oid]
                else:
                    differs = effect["player"] != self.placed[oid]
                if differs:
                    self.rec.superseded.append([oid, label])
        for oid in sorted(unsure):
            self.sba.discard(oid)
            self.rec.withheld.append([oid, "controller", "order-unknown"])

    def _snapshot(self, active: str | None) -> dict[str, Any]:
        claims: list[dict[str, Any]] = []
        withheld = {w[0] for w in self.rec.withheld}
        for oid in sorted(self.sba):
            if oid in self.placed and oid not in withheld:
                self.rec.withheld.append([oid, "controller", "sba-risk"])
                withheld.add(oid)
        for oid, obj in self.objects.items():
            if obj["zone"] == "gone":  # a precast phantom: no claim about it
                continue
            claims.append({"object": oid, "owner": self.owner[oid]})
            if oid in self.placed and oid not in withheld:
                claims.append({"object": oid, "controller": self.placed[oid]})
        game = self.game
        title = game.metadata.get("Name", "")
        doc: dict[str, Any] = {"format": "snapshot/1", "id": game.name,
                               "note": f"forge {game.kind} {game.name}"
                                       + (f": {title}" if title else ""),
                               "players": [pid(n) for n in game.players]}
        if active:
            doc["active_player"] = active
        doc.update(objects=list(self.objects.values()), effects=self.effects, claims=claims)
        self.rec.status = "partial" if self.rec.left_out else "imported"
        self.rec.counts = {
            "objects": len(self.objects), "effects": len(self.effects),
            "owner_claims": sum("owner" in c for c in claims),
            "controller_claims": sum("controller" in c for c in claims),
            "withheld": len(self.rec.withheld),
            "owner_ne_controller": sum(1 for o in self.placed
                                       if self.owner[o] != self.placed[o])}
        return doc


def _token_types(name: str) -> list[str]:
    for part in name[2:].split(","):
        key, _, value = part.partition(":")
        if key.strip() == "Types":
            return [w.lower() for w in value.split("-") if w]
    return []



def translate(game: GameFile, cards: CardData | None) -> tuple[dict[str, Any] | None, Record]:
    """The snapshot (None when refused) and the report record of one parsed file."""
    t = Translator(game, cards)
    try:
        return t.run(), t.rec
    except Refused as err:
        rec = Record(game.name, game.kind, "refused", f"{err.code}: {err.detail}",
                     players=t.rec.players, notes=t.rec.notes)
        return None, rec
