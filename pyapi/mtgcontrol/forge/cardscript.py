"""Forge's card-script format (``res/cardsfolder/**.txt``, ``tokenscripts/*.txt``).

A script holds every face of a card (faces after ``ALTERNATE``).  Only what
ownership and control need is read: names, types, ``A:`` abilities, ``S:``
statics and ``SVar:`` texts.  Cards are found by their scripts' ``Name:`` lines
(case-insensitive), as Forge's card database does, never by file name.
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..engine.files import TooLarge, read_bounded
from ..engine.validate import shown
from .gamestate import Refused


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


# Limits of a res folder: a real one (about 31,000 scripts, some tens of MB) is far
# inside them; a hostile one (a zip bomb, a folder of links, a million entries) is
# refused in a second, with the limit it broke.
MAX_SCRIPTS = 100_000
"""Card scripts (files or zip members) at most."""
MAX_SCRIPT_BYTES = 2**20
"""Bytes of one card or token script at most (a real one is a few KB)."""
MAX_CARD_BYTES = 256 * 2**20
"""Bytes of all card scripts together at most (a zip: expanded)."""


class ResError(ValueError):
    """A res folder that cannot be read within the limits; the message says why."""


class CardData:
    """A Forge ``res`` folder: ``cardsfolder/`` or ``cardsfolder.zip``, ``tokenscripts/``.

    Only files inside the folder are read: a link leading out of it is not followed
    (a card script so linked is counted in ``outside``; a token script so named or
    linked is refused), and a token script's name is a file name, never a path."""

    def __init__(self, res: Path) -> None:
        self.res = res
        self.root = res.resolve()
        folder, archive = res / "cardsfolder", res / "cardsfolder.zip"
        if not folder.is_dir() and not archive.is_file():
            raise FileNotFoundError(f"{res}: neither cardsfolder/ nor cardsfolder.zip")
        self._texts: list[tuple[str, str]] = []
        self._bytes = 0
        self.outside: list[str] = []
        """Card scripts not read: links to files outside the res folder."""
        if folder.is_dir():
            self._read_folder(folder)
        else:
            self._read_zip(archive)
        self._tokens = res / "tokenscripts"

    def _add(self, name: str, data: bytes) -> None:
        if len(self._texts) >= MAX_SCRIPTS:
            raise ResError(f"at most {MAX_SCRIPTS} card scripts, got more")
        self._bytes += len(data)
        if self._bytes > MAX_CARD_BYTES:
            raise ResError(f"card scripts of at most {MAX_CARD_BYTES} bytes in all, got more")
        self._texts.append((name, data.decode("utf-8", errors="replace")))

    def _read_folder(self, folder: Path) -> None:
        found = []
        for root, _dirs, names in os.walk(folder):  # links to folders are not entered
            found += [Path(root) / n for n in names if n.endswith(".txt")]
            if len(found) > MAX_SCRIPTS:
                raise ResError(f"at most {MAX_SCRIPTS} card scripts, got more")
        for path in sorted(found):
            if not self.inside(path):
                self.outside.append(str(path.relative_to(self.res)))
                continue
            if not path.is_file():
                continue
            try:
                data = read_bounded(path, MAX_SCRIPT_BYTES)
            except TooLarge:
                raise ResError(f"card scripts of at most {MAX_SCRIPT_BYTES} bytes each, got "
                               f"{shown(str(path.relative_to(self.res)))}") from None
            except OSError as err:
                raise ResError(f"readable card scripts, got "
                               f"{shown(str(path.relative_to(self.res)))} "
                               f"({err.strerror})") from None
            self._add(str(path.relative_to(self.res)), data)

    def _read_zip(self, archive: Path) -> None:
        members, directory = zip_directory(archive)
        if members > MAX_SCRIPTS or directory > MAX_SCRIPTS * DIRECTORY_ENTRY:
            raise ResError(f"a cardsfolder.zip of at most {MAX_SCRIPTS} members, got "
                           f"{members} in a directory of {directory} bytes")
        try:
            with zipfile.ZipFile(archive) as z:
                if len(z.infolist()) > MAX_SCRIPTS:
                    raise ResError(f"a cardsfolder.zip of at most {MAX_SCRIPTS} members, "
                                   f"got {len(z.infolist())}")
                for info in sorted(z.infolist(), key=lambda i: i.filename):
                    if info.is_dir() or not info.filename.endswith(".txt"):
                        continue
                    if info.file_size > MAX_SCRIPT_BYTES:
                        raise ResError(self._big(info.filename))
                    with z.open(info) as member:  # the size in the header may lie
                        data = member.read(MAX_SCRIPT_BYTES + 1)
                    if len(data) > MAX_SCRIPT_BYTES:
                        raise ResError(self._big(info.filename))
                    self._add(info.filename, data)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError,
                NotImplementedError, RuntimeError, ValueError) as err:
            if isinstance(err, ResError):
                raise
            raise ResError(f"a readable cardsfolder.zip ({type(err).__name__}: "
                           f"{shown(str(err))})") from None

    @staticmethod
    def _big(name: str) -> str:
        return (f"card scripts of at most {MAX_SCRIPT_BYTES} bytes each (expanded), got "
                f"{shown(name)}")

    def inside(self, path: Path) -> bool:
        """``path`` (links followed) is in the res folder."""
        return path.resolve().is_relative_to(self.root)

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
        """The token script ``tokenscripts/<script>.txt`` (None: there is none); a name
        that is not a plain file name, or a script linked from outside the res folder,
        is refused."""
        name = script.strip()
        if not TOKEN_NAME.fullmatch(name):
            raise Refused("token-script-name", f"token script {shown(name)}: expected the "
                                               "name of a file in tokenscripts/ (letters, "
                                               "digits, '_', '-')")
        path = self._tokens / f"{name}.txt"
        if not path.is_file():
            return None
        if not self.inside(path):
            raise Refused("token-script-outside", f"tokenscripts/{name}.txt links to a file "
                                                  "outside the res folder: not read")
        try:
            data = read_bounded(path, MAX_SCRIPT_BYTES)
        except TooLarge:
            raise Refused("token-script-too-large", f"tokenscripts/{name}.txt: over "
                                                    f"{MAX_SCRIPT_BYTES} bytes") from None
        except OSError as err:
            raise Refused("token-script-unreadable", f"tokenscripts/{name}.txt: "
                                                     f"{err.strerror}") from None
        return parse_script(data.decode("utf-8", errors="replace"), str(path))


TOKEN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")
"""A token script's name: Forge's are lower-case words joined by '_'."""

EOCD = b"PK\x05\x06"
DIRECTORY_ENTRY = 46 + 256
"""Bytes of a zip directory entry with a name of 256 bytes (a card script's is ~40)."""
ZIP64_LOCATOR = b"PK\x06\x07"


def zip_directory(archive: Path) -> tuple[int, int]:
    """The number of members and the bytes of the central directory that a zip file's
    end record declares, read before the archive is opened (opening reads the entry of
    every member: millions of them in a small hostile file would take minutes); (0, 0)
    when there is no end record (then zipfile refuses the file)."""
    try:
        with open(archive, "rb") as stream:
            stream.seek(0, os.SEEK_END)
            size = stream.tell()
            stream.seek(max(0, size - 22 - 65535))
            tail = stream.read()
            at = tail.rfind(EOCD)
            if at < 0 or len(tail) - at < 22:
                return 0, 0
            count, directory = struct.unpack("<HL", tail[at + 10:at + 16])
            locator = tail.rfind(ZIP64_LOCATOR, 0, at)
            zip64 = locator >= 0 and at - locator == 20
            if zip64 and (count == 0xFFFF or directory == 0xFFFFFFFF):
                offset = struct.unpack("<Q", tail[locator + 8:locator + 16])[0]
                stream.seek(offset + 32)
                count, directory = struct.unpack("<QQ", stream.read(16).ljust(16, b"\0"))
            return int(count), int(directory)
    except (OSError, struct.error, ValueError) as err:
        raise ResError(f"a readable cardsfolder.zip ({getattr(err, 'strerror', None) or err})"
                       ) from None
