"""Forge's game-state format (``forge.ai.GameState``, ``Puzzle``): text -> `GameFile`.

Both dialects are read: current Forge's ``p0``..``p9`` keys and ``P<n>`` player
values, and 2022-era ``human``/``ai`` (``human`` = player 0, ``ai`` = player 1).
Anything the reader cannot take as Forge would raises `Refused` with a code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ZONES = {"battlefield": "battlefield", "play": "battlefield", "hand": "hand",
         "graveyard": "graveyard", "library": "library", "exile": "exile",
         "command": "command", "sideboard": "sideboard"}
ZONE_ORDER = ("battlefield", "hand", "graveyard", "library", "exile", "command", "sideboard")
PLAYER_KEYS = {"life", "counters", "landsplayed", "landsplayedlastturn", "manapool",
               "persistentmana", "numringtemptedyou", "speed"}
STEP_KEYS = ("precast", "putonstack")
GLOBAL_KEYS = {"turn", "activeplayer", "activephase", "activephaseadvance",
               "removesummoningsickness"}
# Modifiers of a zone entry that current Forge reads (GameState.processCardsForZone).
MODIFIERS = {
    "Set", "Art", "Tapped", "SummonSick", "Renowned", "Solved", "Saddled", "Suspected",
    "Monstrous", "PhasedOut", "Counters", "FaceDown", "Transformed", "Modal", "Flipped",
    "Meld", "OnAdventure", "IsCommander", "IsRingBearer", "Id", "AttachedTo", "Attaching",
    "EnchantingPlayer", "Owner", "Ability", "Damage", "ChosenColor", "ChosenType",
    "ChosenType2", "ChosenCards", "MergedCards", "NamedCard", "NamedCard2", "ExecuteScript",
    "RememberedCards", "Imprinting", "ExiledWith", "Attacking", "NoETBTrigs", "Foretold",
    "ForetoldThisTurn", "IsToken", "ClassLevel", "UnlockedRoom", "Sticker", "ChosenNumber",
}
PLAYER_KEY = re.compile(r"p(\d+)([a-z].*)")


class Refused(Exception):
    """A file that cannot be read as Forge reads it: ``code`` and a sentence."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class Entry:
    """One ``Name|Mod|Mod`` entry of a zone list."""

    player: int
    zone: str
    index: int  # 1-based position in its list
    name: str
    mods: list[tuple[str, str | None]]

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.mods)

    def get(self, key: str) -> str | None:
        return next((v for k, v in self.mods if k == key), None)

    @property
    def token(self) -> bool:
        return self.name.startswith(("t:", "T:")) or self.has("IsToken")


@dataclass
class Step:
    """A ``precast`` or ``putonstack`` entry: a setup step Forge runs at load."""

    player: int
    key: str  # precast | putonstack
    index: int
    text: str


@dataclass
class GameFile:
    name: str
    kind: str  # puzzle | dump
    metadata: dict[str, str] = field(default_factory=dict)
    globals: dict[str, str] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    labels: dict[int, str] = field(default_factory=dict)  # 0 -> "human" etc.
    notes: list[str] = field(default_factory=list)


def player_value(text: str, where: str) -> int:
    """A player inside a modifier or target: Human, AI (any case) or P<d>."""
    low = text.strip().lower()
    if low == "human":
        return 0
    if low == "ai":
        return 1
    m = re.fullmatch(r"P(\d)", text.strip())
    if m:
        return int(m.group(1))
    raise Refused("player-name-unknown", f"{where}: expected Human, AI or P<digit>, got "
                                         f"{text!r} (Forge would silently take player 0)")


def split_key(key: str) -> tuple[int, str] | None:
    """``humanhand`` -> (0, "hand"); ``p3life`` -> (3, "life"); None for no player."""
    if key.startswith("human"):
        return 0, key[5:]
    if key.startswith("ai"):
        return 1, key[2:]
    m = PLAYER_KEY.fullmatch(key)
    if m:
        if len(m.group(1)) > 1:
            raise Refused("player-key-ambiguous", f"key {key!r}: Forge reads one digit after "
                                                  "'p', so this is not player "
                                                  f"{int(m.group(1))}")
        return int(m.group(1)), m.group(2)
    return None


def decode(data: bytes, name: str) -> tuple[str, list[str]]:
    """Bytes -> text; a BOM or CR line ends are accepted and noted."""
    notes = []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        notes.append("byte-order-mark")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Refused("not-utf8", f"byte {err.start} is not UTF-8") from None
    if "\r" in text:
        notes.append("crlf-line-ends")
    return text, notes


def parse(data: bytes, name: str) -> GameFile:
    """A puzzle (``[metadata]``/``[state]``) or a dev-mode dump, as Forge reads it."""
    text, notes = decode(data, name)
    lines = text.splitlines()
    sections = {ln.strip().lower() for ln in lines if ln.strip().startswith("[")}
    game = GameFile(name, "puzzle" if "[metadata]" in sections else "dump", notes=notes)
    section = "state" if not sections else None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip().lower()
            continue
        if section == "metadata":
            key, _, value = line.partition(":")
            game.metadata[key.strip()] = value.strip()
        elif section == "state":
            _state_line(game, line, number)
        else:
            game.notes.append(f"outside-section:line {number}")
    if not game.entries and not game.globals and not game.steps:
        raise Refused("empty-file", "no game state (no key=value line in the state)")
    _players(game)
    return game


def _state_line(game: GameFile, line: str, number: int) -> None:
    key, eq, value = line.partition("=")
    if not eq:
        game.notes.append(f"not-key-value:line {number}")
        return
    key = key.strip().lower()
    value = value.strip()
    if key in GLOBAL_KEYS:
        game.globals[key] = value
        return
    if key.startswith("ability"):
        game.notes.append("custom-ability-ignored")
        return
    split = split_key(key)
    if split is None:
        game.notes.append(f"unknown-key:{key}")
        return
    player, rest = split
    game.labels.setdefault(player, key[: len(key) - len(rest)])
    if rest in ZONES:
        zone = ZONES[rest]
        items = [e.strip() for e in value.split(";") if e.strip()]
        for k, item in enumerate(items, 1):
            name, *mods = [p.strip() for p in item.split("|")]
            parsed = []
            for mod in mods:
                if not mod:
                    continue
                mkey, colon, mval = mod.partition(":")
                if mkey not in MODIFIERS:
                    game.notes.append(f"unknown-modifier:{mkey}")
                parsed.append((mkey, mval if colon else None))
            game.entries.append(Entry(player, zone, k, name, parsed))
    elif rest in STEP_KEYS:
        items = [e.strip() for e in value.split(";") if e.strip()]
        game.steps += [Step(player, rest, k, t) for k, t in enumerate(items, 1)]
    elif rest in PLAYER_KEYS:
        pass
    else:
        game.notes.append(f"unknown-key:{key}")


def _players(game: GameFile) -> None:
    seen = set(game.labels)
    if game.kind == "puzzle":  # puzzle mode is one human against one AI
        seen |= {0, 1}
    active = game.globals.get("activeplayer")
    split: tuple[int, str] | None = None
    if active and active.lower() != "none":
        split = split_key(active.lower() + "x")
        if split is None:
            raise Refused("player-name-unknown", f"activeplayer={active!r}: expected human, "
                                                 "ai or p<digit>")
        game.globals["activeplayer"] = f"p{split[0]}"
    game.players = list(range(max(seen) + 1)) if seen else [0]
    if split is not None and split[0] not in game.players:
        raise Refused("player-index-out-of-range", f"activeplayer={active!r} names player "
                                                   f"{split[0]}, but the file has "
                                                   f"{len(game.players)} player(s)")
