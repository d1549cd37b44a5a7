"""The setup steps of a Forge game state (precast, put on stack, execute script): the
card scripts' abilities turned into effects, moves and notes, or withheld."""

from __future__ import annotations

import re
from typing import Any

from .cardscript import CardScript, Face, api, params
from .gamestate import Entry, Refused, Step
from .model import Action, State, pid

DURATIONS = {"": "indefinite", "EOT": "end-of-turn", "LeavesPlay": "while-source-on-battlefield",
             "LoseControl": "while-you-control-source",
             "LeavesPlay,LoseControl": "while-you-control-source",
             "LoseControl,LeavesPlay": "while-you-control-source"}
SOURCE_BOUND = {"while-source-on-battlefield", "while-you-control-source"}
# APIs that change no owner, no controller and no zone.
NO_CONTROL = {"Pump", "PumpAll", "Animate", "AnimateAll", "PutCounter", "PutCounterAll",
              "Cleanup", "Scry", "GainLife", "LoseLife", "Debuff",
              "ChooseCard", "ChooseType", "ChooseColor", "ChooseNumber", "ChoosePlayer",
              "NameCard", "Tap", "Untap", "TapAll", "UntapAll", "Reveal", "RevealHand",
              "Shuffle", "PeekAndReveal", "StoreSVar", "RemoveCounter", "Regenerate",
              "Protection", "ProtectionAll"}
# APIs that move cards a player picks, or the top of a library, between zones: the
# zones they move from, and the parameter (with its default) naming where to.
ZONE_MOVERS: dict[str, tuple[str, dict[str, str]]] = {
    "Dig": ("Library", {"DestinationZone": "Hand", "DestinationZone2": "Library"}),
    "Mill": ("Library", {"Destination": "Graveyard"}), "Surveil": ("Library", {"": "Graveyard"}),
    "Discard": ("Hand", {"": "Graveyard"}), "Draw": ("Library", {"": "Hand"})}
MAKERS = {"Token", "CopyPermanent", "Amass", "Investigate", "Incubate"}
# Forge's zones that hold hidden information (ZoneType: Hand, Library true;
# Graveyard, Exile false), as 400.2 says: graveyard and exile are public.
HIDDEN = {"Hand", "Library"}
MOVE_TO = {"Exile": "exile", "Graveyard": "graveyard", "Hand": "hand", "Library": "library"}


class Steps(State):
    # --- setup steps -----------------------------------------------------------------

    def _steps(self, entries: list[Entry], ids: dict[int, str]) -> None:
        scripted = [(ids[id(e)], e) for e in entries
                    if e.get("ExecuteScript") and ids[id(e)] in self.objects]
        if len(scripted) > 1:
            self.rec.notes.append("execute-script-order-unspecified")
        for oid, e in scripted:
            name, target = _split_target(e.get("ExecuteScript") or "")
            label = f"{oid} ExecuteScript:{name}"
            if name.isdigit() or name.startswith("KW#"):
                raise Refused("sa-index-unsupported", f"{label}: an ability by index or keyword")
            face = self._face(oid)
            custom = name.startswith("CustomScript:")
            if not custom and self._face_down_script(oid, label):
                continue
            if not custom and name not in face.svars:
                raise Refused("svar-unknown", f"{label}: the card has no SVar {name!r}")
            self.time += 1
            text = name[len("CustomScript:"):] if custom else _undefine(face.svars[name], target)
            actions = self._actions(face, text, self._target(target, label), label)
            self._apply(actions, oid, self._controller_of(oid), label, phantom=False)
        for step in (s for s in self.game.steps if s.key == "precast"):
            self._precast(step)
        for step in (s for s in self.game.steps if s.key == "putonstack"):
            self._putonstack(step)

    def _face_down_script(self, oid: str, label: str) -> bool:
        """A face-down card has no SVars (its state is CardUtil.getFaceDownCharacteristic):
        Forge's executeScript finds none to run, prints an error and does nothing."""
        if self.objects[oid].get("face_down"):
            self.rec.notes.append(f"face-down-no-script:{label}")
            return True
        return False

    def _face(self, oid: str) -> Face:
        if self.objects[oid].get("face_down"):
            return Face()  # the face-down state: no abilities, no SVars
        if oid not in self.script:
            raise Refused("svar-unknown", f"{oid} has no card script (a t: token) to run")
        script, alternate = self.script[oid]
        return script.face(alternate)

    def _controller_of(self, oid: str) -> str:
        return self.placed.get(oid, self.owner[oid])

    def _target(self, text: str | None, label: str) -> tuple[str, str] | None:
        if text is None:
            return None
        if text.strip().isdigit():
            oid = f"id{int(text)}"
            if oid not in self.objects:
                raise Refused("id-unknown", f"{label}: target ->{text} names no listed Id")
            return ("object", oid)
        low = text.strip().lower()
        m = re.fullmatch(r"p(\d)", low)
        n = 0 if low == "human" else 1 if low == "ai" else int(m.group(1)) if m else None
        if n is None or n not in self.game.players:
            raise Refused("target-unknown", f"{label}: target ->{text} is no listed Id or "
                                            "player")
        return ("player", pid(n))

    def _precast(self, step: Step) -> None:
        spec, target_text = _split_target(step.text)
        label = f"{pid(step.player)}precast:{step.text}"
        activator = pid(step.player)
        if spec.isdigit():
            raise Refused("cast-of-listed-card-unsupported", f"{label}: Forge resolves the "
                                                             "card without moving it")
        m = re.fullmatch(r"(\d+):(.+)", spec)
        host: str | None = None
        if m:
            host = f"id{int(m.group(1))}"
            if host not in self.objects:
                raise Refused("id-unknown", f"{label}: no listed Id {m.group(1)}")
            face, rest = self._face(host), m.group(2).strip()
            activator = self._controller_of(host)
            if rest.isdigit() and self.objects[host].get("face_down"):
                raise Refused("sa-index-unsupported", f"{label}: an ability by index of a "
                                                      "face-down card")
            if rest and not rest.startswith("CustomScript:") and \
                    self._face_down_script(host, label):
                return
        else:
            name, _, rest = spec.partition(":")
            name = name.replace("^", ":")  # Forge's marker for a name holding ':'
            script = self.cards.card(name) if self.cards else None
            if script is None:
                raise Refused("card-unknown", f"{label}: no card script has Name: {name!r}")
            # the whole spell of the face named (an adventure, a back face), as
            # precastSpellFromCard casts it; an SVar of the card as it is made
            face, rest = (script.faces[0] if rest else _named_face(script, name)), rest.strip()
        target = self._target(target_text, label)
        self.time += 1
        if rest.startswith("CustomScript:"):
            actions = self._actions(face, rest[len("CustomScript:"):], target, label)
        elif rest.isdigit():
            actions = self._candidates(face, target, label)
        elif rest:
            if rest not in face.svars:
                raise Refused("svar-unknown", f"{label}: the card has no SVar {rest!r}")
            actions = self._actions(face, _undefine(face.svars[rest], target_text), target,
                                    label)
        else:
            actions = self._whole_spell(face, target, label)
        if host is None and any(a.kind in ("control", "exchange") for a in actions):
            host = f"{pid(step.player)}.precast.{step.index}"
            self.objects[host] = {"id": host, "kind": "card", "zone": "gone",
                                  "note": f"precast {spec}",
                                  "start": {"zone": "library", "player": activator},
                                  "put_on_stack": {"at": self.time, "by": activator}}
            self.owner[host] = activator
            self._apply(actions, host, activator, label, phantom=True)
        else:
            self._apply(actions, host or label, activator, label, phantom=False)

    def _putonstack(self, step: Step) -> None:
        label = f"{pid(step.player)}putonstack:{step.text}"
        spec, target = _split_target(step.text)
        if ":" in spec or target is not None:
            raise Refused("putonstack-ability-unsupported", f"{label}: an ability or a "
                                                            "targeted spell on the stack")
        self.time += 1
        by = pid(step.player)
        if spec.isdigit():
            oid = f"id{int(spec)}"
            if oid not in self.objects:
                raise Refused("id-unknown", f"{label}: no listed Id {spec}")
            if self.objects[oid]["zone"] == "battlefield":
                raise Refused("putonstack-from-battlefield", f"{label}: {oid} is on the "
                                                             "battlefield")
            obj = self.objects[oid]
            obj["zone"] = "stack"
        else:
            name = spec.replace("^", ":")
            script = self.cards.card(name) if self.cards is not None else None
            if script is None:
                raise Refused("card-unknown", f"{label}: no card script has Name: {name!r}")
            oid = f"{by}.putonstack.{step.index}"
            obj = {"id": oid, "kind": "card", "zone": "stack", "note": spec,
                   "start": {"zone": "library", "player": by}}
            # the spell's characteristics: the face named, or the card in one piece
            face = _named_face(script, name)
            types = face.types if face.name.lower() == name.strip().lower() else \
                script.types(False)
            if types:
                obj["types"] = types
            self.objects[oid] = obj
            self.owner[oid] = by
        obj["put_on_stack"] = {"at": self.time, "by": by}
        self.placed[oid] = by

    def _whole_spell(self, face: Face, target: tuple[str, str] | None,
                     label: str) -> list[Action]:
        spell = next((a for a in face.abilities if "SP" in params(a)), None)
        permanent = not ({"instant", "sorcery"} & set(face.types))
        if spell is None or api(params(spell)) == "Attach":
            if not permanent:
                raise Refused("spell-unknown", f"{label}: no SP$ line in the card script")
            if any("GainControl$" in s for s in face.statics):
                raise Refused("setup-api-unsupported:permanent-with-control-static",
                              f"{label}: a permanent with a control static enters at load")
            return [Action("creates", f"{face.name} (resolved permanent spell)")]
        return self._actions(face, spell, target, label)

    def _candidates(self, face: Face, target: tuple[str, str] | None,
                    label: str) -> list[Action]:
        """An ability by index into Forge's runtime list: every candidate must be harmless."""
        texts = face.abilities[:]
        actions: list[Action] = []
        try:
            if not ({"instant", "sorcery"} & set(face.types)):
                actions += self._whole_spell(face, target, label)
            for text in texts:
                actions += self._actions(face, text, target, label)
        except Refused as err:
            raise Refused("sa-index-unsupported", f"{label}: an ability by index, and one "
                                                  f"candidate is not importable ({err})") from None
        for action in actions:  # which candidate runs is unknown: its object may move
            if action.kind == "shift":
                action.kind = "pick"
        risky = [a for a in actions if a.kind in ("control", "exchange", "move")]
        if risky:
            raise Refused("sa-index-unsupported", f"{label}: an ability by index, and a "
                                                  f"candidate would {risky[0].kind} an object")
        self.rec.notes.append(f"ability-index-all-candidates-harmless:{label}")
        return actions

    def _actions(self, face: Face, text: str, target: tuple[str, str] | None,
                 label: str) -> list[Action]:
        """The actions of an ability and its SubAbility$ chain."""
        out: list[Action] = []
        seen: set[str] = set()
        while True:
            p = params(text)
            action = self._action(face, p, target, label)
            action.target = target
            out.append(action)
            sub = p.get("SubAbility")
            if not sub or sub in seen or len(seen) > 50:
                return out
            seen.add(sub)
            if sub not in face.svars:
                raise Refused("svar-unknown", f"{label}: SubAbility$ {sub} is no SVar")
            text = face.svars[sub]

    def _action(self, face: Face, p: dict[str, str], target: tuple[str, str] | None,
                label: str) -> Action:
        kind = api(p) or "?"
        if kind == "GainControl":
            return Action("control", kind, p)
        if kind == "ExchangeControl":
            return Action("exchange", kind, p)
        if kind == "ChangeZone":
            origin = {z.strip() for z in p.get("Origin", "").split(",") if z.strip()}
            dest = p.get("Destination", "")
            if origin == {"Battlefield"} and dest in MOVE_TO:
                return Action("move", MOVE_TO[dest], p)
            # Defined$ ChosenCard, ChangeType$ (a search) or Hidden$: a player picks
            chosen = "ChangeType" in p or "Hidden" in p or p.get("Defined", "Targeted") not in (
                "Targeted", "ParentTarget", "Self")
            return self._zone_action(kind, origin, {dest}, p, chosen, label)
        if kind == "ChangeZoneAll" and "Battlefield" not in p.get("Origin", ""):
            origin = {z.strip() for z in p.get("Origin", "").split(",") if z.strip()}
            return self._zone_action(kind, origin, {p.get("Destination", "")}, p, True, label)
        if kind in ZONE_MOVERS:
            source, to = ZONE_MOVERS[kind]
            dests = {p.get(key) or default for key, default in to.items()}
            return self._zone_action(kind, {p.get("SourceZone", source)}, dests, p, True, label)
        if kind in MAKERS or (kind == "Effect" and p.get("Name", "").startswith("Emblem")):
            return Action("creates", kind)
        if kind == "Effect":
            for name in p.get("StaticAbilities", "").split(","):
                if "GainControl$" in face.svars.get(name.strip(), ""):
                    raise Refused("setup-api-unsupported:Effect",
                                  f"{label}: an effect with a control static")
            # Forge's bookkeeping card in the command zone, as when one is listed (§4)
            return Action("note", f"forge-effect-card:{label}")
        if kind in ("Pump", "PutCounter") and (
                p.get("NumDef", "").startswith("-") or p.get("CounterType") == "M1M1"):
            return Action("sba", kind, p)
        if kind in NO_CONTROL:
            return Action("note", f"ignored-no-control:{kind}")
        raise Refused(f"setup-api-unsupported:{kind}", f"{label}: API {kind} is not read")

    def _zone_action(self, kind: str, origin: set[str], dests: set[str], p: dict[str, str],
                     chosen: bool, label: str) -> Action:
        """A move between zones off the battlefield: nothing to import between hidden
        zones (hand, library); into or out of a public one (graveyard, exile), the
        object moves (``shift``) or, picked at load, may have moved (``pick``)."""
        zones = origin | dests
        if "Battlefield" in dests:
            raise Refused(f"setup-api-unsupported:{kind}", f"{label}: onto the battlefield")
        if zones and zones <= HIDDEN:
            return Action("note", f"ignored-zone-move:{kind}")
        if not origin or not zones <= set(MOVE_TO):
            raise Refused(f"setup-api-unsupported:{kind}", f"{label}: {kind} from "
                                                           f"{sorted(origin)} to {sorted(dests)}")
        return Action("pick" if chosen else "shift", ",".join(sorted(MOVE_TO[d] for d in dests)),
                      p, zones=frozenset(MOVE_TO[z] for z in origin))

    def _apply(self, actions: list[Action], host: str, activator: str, label: str,
               phantom: bool) -> None:
        for action in actions:
            if action.kind == "note":
                self.rec.notes.append(action.value)
            elif action.kind == "creates":
                if [label, "setup-creates-objects"] not in self.rec.left_out:
                    self.rec.left_out.append([label, "setup-creates-objects"])
            elif action.kind == "sba":
                target = self._defined(action, host, label, required=False)
                if target:
                    self.sba.add(target)
            elif action.kind == "move":
                self._move(self._defined(action, host, label), action.value, host)
            elif action.kind == "shift" and (oid := self._defined(action, host, label,
                                                                  required=False)):
                self._shift(oid, action, label)
            elif action.kind in ("shift", "pick"):
                self.picks.append((action.zones, self._players(action, activator)))
            else:
                self._control(action, host, activator, label, phantom)

    def _defined(self, action: Action, host: str, label: str, required: bool = True,
                 defined: str | None = None) -> str | None:
        """The one listed object an ability acts on: its target, or itself."""
        defined = defined or action.params.get("Defined", "Targeted")
        target = action.target
        if defined == "Self" and host in self.objects:
            return host
        if defined in ("Targeted", "ParentTarget") and target and target[0] == "object":
            return target[1]
        if not required:
            return None
        raise Refused("setup-targets-unresolved", f"{label}: the ability's object "
                                                  f"(Defined$ {defined}) is no listed object")

    def _players(self, action: Action, activator: str) -> set[str]:
        """Whose zones a pick looks in: the targeted player, the activating player for
        ``You``, else every player."""
        if action.target and action.target[0] == "player":
            return {action.target[1]}
        if (action.params.get("DefinedPlayer") or action.params.get("Defined")) == "You":
            return {activator}
        return {pid(n) for n in self.game.players}

    def _shift(self, oid: str, action: Action, label: str) -> None:
        """The one listed object a move off the battlefield acts on goes to its zone."""
        obj = self.objects[oid]
        if obj["zone"] not in action.zones:
            raise Refused("setup-targets-unresolved", f"{label}: {oid} is in the {obj['zone']}, "
                                                      f"not in {sorted(action.zones)}")
        self.shifted.setdefault(oid, [obj["zone"]]).append(action.value)
        obj["zone"] = action.value

    def _settle_moves(self) -> None:
        """Leave out every object a pick at load may have moved (its zones at any step
        against the pick's zones and players: ExecuteScript's order is unspecified), and
        every object moved twice off the battlefield."""
        gone: dict[str, str] = {}
        for oid, obj in self.objects.items():
            was = set(self.shifted.get(oid, [obj["zone"]]))
            if any(was & picked and self.owner[oid] in players
                   for picked, players in self.picks):
                gone[oid] = "setup-choice-unknown"
            elif len(self.shifted.get(oid, ())) > 2:
                gone[oid] = "order-unknown"
        for oid in sorted(gone):
            if {"entered", "put_on_stack"} & set(self.objects[oid]):
                raise Refused("setup-choice-unresolved", f"{oid} is or was on the battlefield "
                                                         "or the stack, and a pick at load may "
                                                         "have moved it")
            del self.objects[oid]
            self.rec.left_out.append([oid, gone[oid]])
        for oid, zones in self.shifted.items():
            if oid not in gone:
                self.rec.notes.append(f"setup-move:{oid}:{'>'.join(zones)}")

    def _move(self, oid: str | None, zone: str, host: str) -> None:
        assert oid is not None
        obj = self.objects[oid]
        if obj["zone"] != "battlefield":
            raise Refused("setup-targets-unresolved", f"{oid} is not on the battlefield")
        if "attached_to" in obj or any(o.get("attached_to") == oid
                                       for o in self.objects.values()):
            raise Refused("setup-move-with-attachments", f"{oid} moves at load with an "
                                                         "attachment (state-based actions "
                                                         "are not simulated)")
        obj["zone"] = zone
        obj.pop("tapped", None)
        obj["left_battlefield"] = {"at": self.time}
        label = f"setup move to {zone}"
        self.moved[oid] = label
        self.touched.setdefault(oid, []).append(label)
        self.sources[f"{oid}:{label}"] = host

    def _control(self, action: Action, host: str, activator: str, label: str,
                 phantom: bool) -> None:
        p = action.params
        lose = ",".join(sorted(x.strip() for x in p.get("LoseControl", "").split(",")
                               if x.strip()))
        lose = {"LeavesPlay,LoseControl": "LeavesPlay,LoseControl"}.get(lose, lose)
        duration = DURATIONS.get(lose)
        if duration is None or "Duration" in p:
            raise Refused(f"duration-unsupported:{p.get('LoseControl') or p.get('Duration')}",
                          f"{label}: no snapshot duration says the same")
        if duration in SOURCE_BOUND and (phantom or host not in self.objects
                                         or self.objects[host]["zone"] != "battlefield"):
            raise Refused(f"duration-unsupported:{p.get('LoseControl')}",
                          f"{label}: the source is not on the battlefield")
        eid = f"e{len(self.effects) + 1}"
        effect: dict[str, Any] = {"id": eid, "kind": "", "source": host,
                                  "timestamp": self.time, "note": label}
        if action.kind == "exchange":
            if p.get("Defined") != "Self" or host not in self.placed:
                raise Refused("exchange-targets-unresolved", f"{label}: both objects of the "
                                                             "exchange must be listed")
            other = self._defined(action, host, label, defined="Targeted")
            assert other is not None
            effect.update(kind="exchange", objects=[host, other])
        else:
            if any(k in p for k in ("AllValid", "Defined")) and p.get("Defined") not in (
                    None, "Targeted"):
                raise Refused("setup-targets-unresolved", f"{label}: GainControl of "
                                                          "objects the file does not name")
            target = self._defined(action, host, label, defined="Targeted")
            assert target is not None
            new = p.get("NewController")
            player = activator
            current = action.target
            if new in ("Targeted", "TargetedPlayer") and current and current[0] == "player":
                player = current[1]
            elif new not in (None, "You"):
                raise Refused("new-controller-unsupported", f"{label}: NewController$ {new}")
            effect.update(kind="control", origin="resolution", player=player,
                          objects=[target])
        if duration != "indefinite":
            effect["duration"] = duration
        for oid in effect["objects"]:
            if self.objects[oid]["zone"] != "battlefield":
                raise Refused("setup-targets-unresolved", f"{label}: {oid} is not on the "
                                                          "battlefield")
            self.touched.setdefault(oid, []).append(eid)
        self.sources[eid] = host
        self.effects.append(effect)


def _undefine(svar: str, target: str | None) -> str:
    """As Forge's ``executeScript``: with a ``->T`` target, an SVar's own ``Defined$`` is
    turned off so that the ability acts on the target instead."""
    return svar.replace("| Defined$", "| Undefined$") if target is not None else svar


def _named_face(script: CardScript, name: str) -> Face:
    """The face of a card named ``name`` (Forge precasts an alternate face by its name),
    else its main face."""
    return next((f for f in script.faces if f.name.lower() == name.strip().lower()),
                script.faces[0])


def _split_target(text: str) -> tuple[str, str | None]:
    spec, arrow, target = text.rpartition("->") if "->" in text else (text, "", "")
    return spec.strip(), (target.strip() if arrow else None)

