"""What translating one Forge game state works on: the report record, the actions a
card script's abilities come to, and the translation's state (read and written by
`steps.Steps` and `translate.Translator`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cardscript import CardData, CardScript
from .gamestate import Entry, GameFile


@dataclass
class Record:
    """The report record of one file."""

    file: str
    kind: str = "puzzle"
    status: str = "imported"
    reason: str | None = None
    players: dict[str, str] = field(default_factory=dict)
    left_out: list[list[str]] = field(default_factory=list)
    withheld: list[list[str]] = field(default_factory=list)
    superseded: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "kind": self.kind, "status": self.status}
        if self.reason is not None:
            out["reason"] = self.reason
        out.update(players=self.players, left_out=self.left_out, withheld=self.withheld,
                   superseded=self.superseded, notes=list(dict.fromkeys(self.notes)),
                   counts=self.counts)
        return out


@dataclass
class Action:
    kind: str  # control | exchange | move | creates | sba | note
    value: str = ""
    params: dict[str, str] = field(default_factory=dict)
    target: tuple[str, str] | None = None  # ("object", id) or ("player", id)
    zones: frozenset[str] = frozenset()  # a zone move's origin zones (snapshot names)


def pid(n: int) -> str:
    return f"p{n}"


class State:
    """The objects, effects and bookkeeping of one translation."""

    def __init__(self, game: GameFile, cards: CardData | None) -> None:
        self.game = game
        self.cards = cards
        self.rec = Record(game.name, game.kind, notes=list(game.notes))
        self.objects: dict[str, dict[str, Any]] = {}
        self.entry: dict[str, Entry] = {}
        self.script: dict[str, tuple[CardScript, bool]] = {}
        self.placed: dict[str, str] = {}  # battlefield/stack object -> the file's controller
        self.owner: dict[str, str] = {}
        self.effects: list[dict[str, Any]] = []
        self.touched: dict[str, list[str]] = {}
        self.sources: dict[str, str] = {}  # effect or move label -> its source object
        self.moved: dict[str, str] = {}
        self.shifted: dict[str, list[str]] = {}  # object -> its zones, moved off the battlefield
        self.picks: list[tuple[frozenset[str], set[str]]] = []  # (zones, players) picked from
        self.sba: set[str] = set()
        self.time = 0

