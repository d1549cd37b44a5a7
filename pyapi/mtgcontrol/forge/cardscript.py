"""Forge's card-script format (``res/cardsfolder/**.txt``, ``tokenscripts/*.txt``).

A script holds every face of a card (faces after ``ALTERNATE``).  Only what
ownership and control need is read: names, types, ``A:`` abilities, ``S:``
statics and ``SVar:`` texts.  Cards are found by their scripts' ``Name:`` lines
(case-insensitive), as Forge's card database does, never by file name.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path


def params(text: str) -> dict[str, str]:
    """``DB$ GainControl | LoseControl$ EOT`` -> {"DB": "GainControl", "LoseControl": "EOT"}."""
    out: dict[str, str] = {}
    for part in text.split("|"):
        key, dollar, value = part.partition("$")
        if dollar:
            out.setdefault(key.strip(), value.strip())
    return out


def api(p: dict[str, str]) -> str | None:
    """The ability's API (``GainControl``), from its ``AB$``/``SP$``/``DB$`` key."""
    return p.get("AB") or p.get("SP") or p.get("DB")


@dataclass
class Face:
    name: str = ""
    types: list[str] = field(default_factory=list)
    abilities: list[str] = field(default_factory=list)  # A: lines
    statics: list[str] = field(default_factory=list)  # S: lines
    svars: dict[str, str] = field(default_factory=dict)


@dataclass
class CardScript:
    source: str
    faces: list[Face]
    alternate_mode: str | None = None

    def face(self, alternate: bool) -> Face:
        return self.faces[1] if alternate and len(self.faces) > 1 else self.faces[0]

    def types(self, alternate: bool) -> list[str]:
        """Lower-cased type words; a split card in one piece has both halves' types."""
        if self.alternate_mode == "Split" and not alternate:
            words = [w for f in self.faces for w in f.types]
            return list(dict.fromkeys(words))
        return self.face(alternate).types


def parse_script(text: str, source: str) -> CardScript:
    faces = [Face()]
    mode = None
    for raw in text.splitlines():
        line = raw.strip()
        if line == "ALTERNATE":
            faces.append(Face())
            continue
        key, colon, value = line.partition(":")
        if not colon:
            continue
        face = faces[-1]
        if key == "Name":
            face.name = value.strip()
        elif key == "Types":
            face.types = [w.lower() for w in value.split()]
        elif key == "A":
            face.abilities.append(value.strip())
        elif key == "S":
            face.statics.append(value.strip())
        elif key == "SVar":
            name, _, body = value.partition(":")
            face.svars[name.strip()] = body.strip()
        elif key == "AlternateMode":
            mode = value.strip()
    return CardScript(source, faces, mode)


class CardData:
    """A Forge ``res`` folder: ``cardsfolder/`` or ``cardsfolder.zip``, ``tokenscripts/``."""

    def __init__(self, res: Path) -> None:
        self.res = res
        folder, archive = res / "cardsfolder", res / "cardsfolder.zip"
        if not folder.is_dir() and not archive.is_file():
            raise FileNotFoundError(f"{res}: neither cardsfolder/ nor cardsfolder.zip")
        self._texts: list[tuple[str, str]] = []
        if folder.is_dir():
            for path in sorted(folder.rglob("*.txt")):
                self._texts.append((str(path.relative_to(res)),
                                    path.read_text(encoding="utf-8", errors="replace")))
        else:
            with zipfile.ZipFile(archive) as z:
                for info in sorted(z.infolist(), key=lambda i: i.filename):
                    if info.filename.endswith(".txt"):
                        self._texts.append((info.filename, z.read(info).decode(
                            "utf-8", errors="replace")))
        self._tokens = res / "tokenscripts"

    @cached_property
    def _index(self) -> dict[str, int]:
        index: dict[str, int] = {}
        for n, (_, text) in enumerate(self._texts):
            names = [ln[5:].strip() for ln in text.splitlines() if ln.startswith("Name:")]
            split = "AlternateMode:Split" in text
            keys = names + ([" // ".join(names)] if split and len(names) > 1 else [])
            for key in keys:
                index.setdefault(key.lower(), n)
        return index

    def card(self, name: str) -> CardScript | None:
        n = self._index.get(name.strip().lower())
        if n is None:
            return None
        return parse_script(self._texts[n][1], self._texts[n][0])

    def token(self, script: str) -> CardScript | None:
        path = self._tokens / f"{script.strip()}.txt"
        if not path.is_file():
            return None
        return parse_script(path.read_text(encoding="utf-8", errors="replace"), str(path))
