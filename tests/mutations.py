"""Mutations of the bundled examples, for fuzzing (tests/test_fuzz.py, benchmarks/fuzz.py).

``mutate(rnd)`` returns one input line (bytes, no line end) made from an example by
one to three mutations drawn with ``rnd`` (a ``random.Random``): structural ones on
the parsed snapshot (drop, retype, rename, duplicate, dangle, cycle, inflate) and
textual ones on the JSON text (truncate, bad bytes, BOM, UTF-16, deep nesting,
huge numbers, lone surrogates).  ``CLASSES`` names every kind.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import sys
import time
import zipfile
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXAMPLES = [json.loads(p.read_text()) for p in sorted(
    (Path(__file__).resolve().parents[1] / "examples").glob("*.json"))]

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 2**31, 2**63, 10**9, 10**9 + 1, -(10**12), "", " ", "x" * 5000,
    "\u0000", "\u202e", "\U0001f600", "a\nb", [], {}, [[]], {"id": "x"}, ["alice", "alice"],
    "alice", "bob", "bear", "e1", "battlefield", "stack", "static", "resolution"]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, sub in value.items():
            found.extend(_paths(sub, (*path, key)))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            found.extend(_paths(sub, (*path, i)))
    return found


def _parent(doc: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    for step in path[:-1]:
        doc = doc[step]
    return doc, path[-1]


def _some_path(doc: Any, rnd: random.Random) -> tuple[Any, ...]:
    paths = [p for p in _paths(doc) if p]
    return rnd.choice(paths)


def drop(doc: Any, rnd: random.Random) -> Any:
    parent, key = _parent(doc, _some_path(doc, rnd))
    del parent[key]
    return doc


def retype(doc: Any, rnd: random.Random) -> Any:
    parent, key = _parent(doc, _some_path(doc, rnd))
    parent[key] = copy.deepcopy(rnd.choice(ODD_VALUES))
    return doc


def rename(doc: Any, rnd: random.Random) -> Any:
    dicts = [p for p in _paths(doc) if isinstance(_at(doc, p), dict) and _at(doc, p)]
    target = _at(doc, rnd.choice(dicts))
    key = rnd.choice(list(target))
    target[key + rnd.choice(["_", "s", "X"]) if rnd.random() < 0.5 else key[:-1] or "?"] = \
        target.pop(key)
    return doc


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def duplicate(doc: Any, rnd: random.Random) -> Any:
    lists = [p for p in _paths(doc) if isinstance(_at(doc, p), list) and _at(doc, p)]
    if lists:
        target = _at(doc, rnd.choice(lists))
        target.append(copy.deepcopy(rnd.choice(target)))
    return doc


def _ids(doc: Any) -> list[str]:
    found = []
    for section in ("players", "objects", "effects"):
        for entry in doc.get(section, []) if isinstance(doc, dict) else []:
            if isinstance(entry, str):
                found.append(entry)
            elif isinstance(entry, dict) and isinstance(entry.get("id"), str):
                found.append(entry["id"])
    return found


def dangle(doc: Any, rnd: random.Random) -> Any:
    """Point a reference at another (or no) id."""
    ids = _ids(doc) + ["ghost", ""]
    strings = [p for p in _paths(doc) if p and isinstance(_at(doc, p), str)]
    if strings:
        parent, key = _parent(doc, rnd.choice(strings))
        parent[key] = rnd.choice(ids)
    return doc


def cycle(doc: Any, rnd: random.Random) -> Any:
    """Attach objects to each other in a ring, or make copies of each other."""
    objects = [o for o in doc.get("objects", []) if isinstance(o, dict) and "id" in o]
    field = rnd.choice(["attached_to", "copy_of", "source"])
    for obj, nxt in zip(objects, objects[1:] + objects[:1], strict=True):
        obj[field] = nxt["id"]
    return doc


def same_times(doc: Any, rnd: random.Random) -> Any:
    """Every timestamp the same (or all far apart)."""
    value = rnd.choice([0, 5, 10**9])
    for path in _paths(doc):
        if path and path[-1] in ("at", "timestamp", "from", "now", "left_at", "zone_since",
                                 "ended_at", "attached_at", "tapped_since", "turned_face_up_at"):
            parent, key = _parent(doc, path)
            parent[key] = value if rnd.random() < 0.7 else rnd.randrange(10**9)
    return doc


def inflate(doc: Any, rnd: random.Random) -> Any:
    """Many copies of the objects and effects (new ids)."""
    n = rnd.choice([10, 50, 200])
    for section in ("objects", "effects"):
        items = doc.get(section)
        if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
            for k in range(n):
                extra = copy.deepcopy(rnd.choice(items))
                extra["id"] = f"{extra.get('id')}-{k}"
                items.append(extra)
    return doc


def leave(doc: Any, rnd: random.Random) -> Any:
    """A player leaves (or all do)."""
    players = doc.get("players")
    if isinstance(players, list):
        for i, p in enumerate(players):
            if isinstance(p, str) and (rnd.random() < 0.5 or i == 0):
                players[i] = {"id": p, "left_at": rnd.choice([0, 1, 15, 10**9])}
    return doc


BOUNDARY_INTEGERS = [-1, 0, 1, 2**31 - 1, 2**31, 10**9, 10**9 + 1, 2**53 + 1, 2**63 - 1,
                     2**63, 2**64, -(2**63) - 1, 10**30, 10**4000]


def bounds(doc: Any, rnd: random.Random) -> Any:
    """An integer at or over a bound (32/64 bits, the timestamp range, 4000 digits) where
    an integer is (a timestamp), else anywhere."""
    found = [p for p in _paths(doc) if isinstance(_at(doc, p), int)
             and not isinstance(_at(doc, p), bool)]
    parent, key = _parent(doc, rnd.choice(found) if found else _some_path(doc, rnd))
    parent[key] = rnd.choice(BOUNDARY_INTEGERS)
    return doc


CONTROL = ["\u001b[31m", "\u001b]0;title\u0007", "\n", "\r", "\t", "\u0000", "\u009b2J",
           "\u202e", "\u200b", "\u007f"]


def control_chars(doc: Any, rnd: random.Random) -> Any:
    """A control character (a terminal escape, a newline, NUL, a C1 CSI) in a string:
    an id, a reference to one, or any other text."""
    found = [p for p in _paths(doc) if isinstance(_at(doc, p), str)]
    parent, key = _parent(doc, rnd.choice(found) if found else _some_path(doc, rnd))
    value = parent[key] if isinstance(parent[key], str) else ""
    at = rnd.randint(0, len(value))
    parent[key] = value[:at] + rnd.choice(CONTROL) + value[at:]
    return doc


STRUCTURAL: list[Callable[[Any, random.Random], Any]] = [
    drop, retype, rename, duplicate, dangle, cycle, same_times, inflate, leave, bounds,
    control_chars]


def truncate(text: bytes, rnd: random.Random) -> bytes:
    return text[: rnd.randrange(len(text))]


def bad_bytes(text: bytes, rnd: random.Random) -> bytes:
    at = rnd.randrange(len(text))
    return text[:at] + rnd.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x1b[2J"]) \
        + text[at:]


def bom(text: bytes, _rnd: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + text


def utf16(text: bytes, rnd: random.Random) -> bytes:
    return text.decode("utf-8", "replace").encode(rnd.choice(["utf-16", "utf-16-le"]))


def deep(text: bytes, rnd: random.Random) -> bytes:
    n = rnd.choice([65, 500, 5000, 100000])
    at = text.rindex(b"}")
    return text[:at] + b', "deep": ' + b"[" * n + b"]" * n + text[at:]


def huge_number(text: bytes, rnd: random.Random) -> bytes:
    digits = rnd.choice([20, 400, 4301, 20000])
    number = b"9" * digits if rnd.random() < 0.7 else b"1e" + b"9" * min(digits, 400)
    return text.replace(b'"now": ', b'"now": ' + number + b", \"was\": ", 1) \
        if b'"now": ' in text else text.replace(b"{", b'{"now": ' + number + b", ", 1)


def surrogate(text: bytes, rnd: random.Random) -> bytes:
    escape = rnd.choice([b"\\ud800", b"\\udfff", b"\\ud83d", b"\\u0000", b"\\u202e"])
    return text.replace(b'"id": "', b'"id": "' + escape, 1)


def constants(text: bytes, rnd: random.Random) -> bytes:
    return text.replace(b"10", rnd.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999"]), 1)


def repeat_key(text: bytes, _rnd: random.Random) -> bytes:
    return text.replace(b'"players": ', b'"players": [], "players": ', 1)


def not_an_object(text: bytes, rnd: random.Random) -> bytes:
    return rnd.choice([b"[" + text + b"]", b"null", b'"snapshot"', b"", b"   ", b"{}"])


TEXTUAL: list[Callable[[bytes, random.Random], bytes]] = [
    truncate, bad_bytes, bom, utf16, deep, huge_number, surrogate, constants, repeat_key,
    not_an_object]

CLASSES = [f.__name__ for f in STRUCTURAL] + [f.__name__ for f in TEXTUAL]


def mutate(rnd: random.Random) -> tuple[bytes, list[str]]:
    """One mutated example as a JSON Lines line, and the mutations applied."""
    doc = copy.deepcopy(rnd.choice(EXAMPLES))
    applied = []
    for _ in range(rnd.randint(1, 3)):
        if rnd.random() < 0.7:
            step = rnd.choice(STRUCTURAL)
            try:
                doc = step(doc, rnd)
            except (IndexError, KeyError, TypeError, AttributeError):
                continue  # the mutation does not apply to what earlier ones left
            applied.append(step.__name__)
        else:
            applied.append("text")
            break
    text = json.dumps(doc).encode()
    if applied and applied[-1] == "text":
        step_t = rnd.choice(TEXTUAL)
        applied[-1] = step_t.__name__
        text = step_t(text, rnd)
    return text.replace(b"\n", b" "), applied


# --- Hostile files: Forge game files, res folders and zips, scenario YAML, proposals --------
#
# ``hostile_case(rnd, surface)`` makes one case: the files of a folder (mutated from the
# project's own examples, scenarios and proposals, the shared Forge puzzles when they are
# there, and small card scripts written here) and the command line to run on them.
# ``run_case`` runs it in this process, with an audit hook watching every file opened,
# and says what went wrong: an exception out of the command (a traceback), an exit code
# other than 0, 1 or 2, an unprintable line on standard error, or an escape: a file
# opened outside the case's folder and the folders given (a canary folder beside it holds
# files the mutations point at), or a file written anywhere else.


ROOT = Path(__file__).resolve().parents[1]
SHARED_FORGE = ROOT.parent / "shared" / "forge"
SURFACES = ("forge", "res", "zip", "yaml", "proposal")

CANARY = "Canary"
"""A word only the canary files hold: it must never reach an output."""
CANARY_FILES = {
    "secret.txt": f"Name:Secret {CANARY}\nTypes:Creature {CANARY}\nPT:1/1\n",
    "secret.pzl": (f"[metadata]\nName:{CANARY}\n[state]\nhumanbattlefield="
                   f"t:Name:{CANARY},P:1,T:1,Types:Creature-{CANARY}\n"),
    "secret.yaml": "intent: " + CANARY + "\nsnapshot: {players: [a]}\nexpect: {}\n",
    "secret.lp": f"{CANARY.lower()}_included.\n",
}
OUTSIDE_TARGETS = ["../outside/secret", "../../outside/secret", "../../../outside/secret",
                   "/etc/hostname", "/etc/passwd", "..", ".", "./x", "a/b", "~root", "%2e%2e/x",
                   "c_1_1\x00x", "\\..\\..\\secret", "../" * 12 + "etc/hostname", ""]
WATCHED = ("/etc/hostname", "/etc/passwd")

CARDS = {  # our own small card scripts, in Forge's format
    "test_bear": "Name:Test Bear\nManaCost:1 G\nTypes:Creature Bear\nPT:2/2\n",
    "test_leash": ("Name:Test Leash\nManaCost:3 U U\nTypes:Enchantment Aura\nK:Enchant creature\n"
                   "A:SP$ Attach | Cost$ 3 U U | ValidTgts$ Creature | AILogic$ GainControl\n"
                   "S:Mode$ Continuous | Affected$ Creature.EnchantedBy | GainControl$ You\n"),
    "test_steal": ("Name:Test Steal\nManaCost:2 R\nTypes:Sorcery\n"
                   "A:SP$ GainControl | ValidTgts$ Creature | LoseControl$ EOT\n"),
    "test_swap": ("Name:Test Swap\nManaCost:2 U\nTypes:Sorcery\n"
                  "A:SP$ ExchangeControl | ValidTgts$ Permanent | TgtPrompt$ Select two | "
                  "TargetMin$ 2 | TargetMax$ 2\n"),
    "test_forest": "Name:Test Forest\nTypes:Basic Land Forest\n",
}
TOKENS = {"c_1_1_a_thopter": "Name:Thopter Token\nTypes:Artifact Creature Thopter\nPT:1/1\n"}
OWN_PUZZLE = ("[metadata]\nName:fixture\nGoal:Win\n[state]\nturn=1\nactiveplayer=human\n"
              "humanlife=20\nailife=20\n"
              "humanbattlefield=Test Bear|Id:1;Test Forest;Test Leash|AttachedTo:2;"
              "T:c_1_1_a_thopter\n"
              "aibattlefield=Test Bear|Id:2;Test Forest|Tapped\n"
              "humanhand=Test Steal;Test Swap\naigraveyard=Test Bear\n"
              "humanprecast=Test Steal->2\n")
OWN_DUMP = ("turn=3\nactiveplayer=p1\np0life=20\np1life=20\n"
            "p0battlefield=Test Bear|Set:M19|Art:1|Owner:P1;Test Forest|Set:M19|Art:1\n"
            "p1battlefield=Test Leash|Set:M19|Art:1|AttachedTo:1;Test Bear|Set:M19|Art:1|Id:1\n"
            "p1hand=Test Steal|Set:M19|Art:1\n")


@dataclass
class Link:
    """A symbolic link to ``target`` (relative to the link's folder, or absolute)."""

    target: str


@dataclass
class Case:
    surface: str
    applied: list[str]
    files: dict[str, bytes | Link] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    """The command line; "{case}" stands for the case's folder."""
    read_outside: bool = False
    """Reading through a link out of the folder is allowed (``test`` follows links)."""


def _seeds_forge() -> list[str]:
    texts = [OWN_PUZZLE, OWN_DUMP]
    if SHARED_FORGE.is_dir():
        texts += [p.read_text(encoding="utf-8", errors="replace")
                  for p in sorted((SHARED_FORGE / "puzzles").glob("*.pzl"))]
    return texts


def _forge_res(case: Case, shared: bool) -> str:
    """The --forge-res of a case: the shared Forge folder (given as is) or our own."""
    if shared and SHARED_FORGE.is_dir():
        return str(SHARED_FORGE)
    for name, text in CARDS.items():
        case.files[f"res/cardsfolder/t/{name}.txt"] = text.encode()
    for name, text in TOKENS.items():
        case.files[f"res/tokenscripts/{name}.txt"] = text.encode()
    return "{case}/res"


def _entries(text: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every zone entry of a game text."""
    found = []
    for n, line in enumerate(text.split("\n")):
        key, eq, value = line.partition("=")
        if eq and any(key.strip().lower().endswith(z) for z in
                      ("battlefield", "hand", "graveyard", "library", "exile", "command")):
            at = len(key) + 1
            for part in value.split(";"):
                found.append((n, at, at + len(part)))
                at += len(part) + 1
    return found


def _edit_entry(text: str, rnd: random.Random, edit: Callable[[str], str]) -> str:
    entries = _entries(text)
    if not entries:
        return text + "\nhumanbattlefield=" + edit("Test Bear")
    n, start, end = rnd.choice(entries)
    lines = text.split("\n")
    lines[n] = lines[n][:start] + edit(lines[n][start:end]) + lines[n][end:]
    return "\n".join(lines)


ODD_MODIFIERS = ["Id:99999999999999999999999", "Id:-1", "Id:1", "AttachedTo:-5", "AttachedTo:1",
                 "Owner:P9", "Owner:carol", "Owner:", "Counters:P1P1=99999999999999",
                 "ExecuteScript:", "ExecuteScript:Nope->7", "ExecuteScript:X->human",
                 "Meld", "IsToken", "FaceDown", "Transformed", "PhasedOut:P8", "Attaching:3",
                 "EnchantingPlayer:ai", "Damage:x", "Ability:Nothing", "|", "||:", "Set:\x1b[2J"]
ODD_LINES = ["p10battlefield=Test Bear", "activeplayer=p9", "activeplayer=carol",
             "p9life=x", "abilityX=DB$ GainControl", "[weird]", "human=", "=", "=x",
             "humanbattlefield", "humanprecast=Test Steal->99", "aiputonstack=Test Steal",
             "humanprecast=Test Swap->1,2", "p0battlefield=Test Bear", "turn=-1",
             "activephaseadvance=END", "humanexile=" + ";" * 500, "ailibrary=t:,,,,"]


def _with_line(text: str, rnd: random.Random, choices: list[str]) -> str:
    lines = text.split("\n")
    lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(choices))
    return "\n".join(lines)


def _with_bytes(text: str, rnd: random.Random, choices: list[bytes]) -> bytes:
    raw = text.encode("utf-8", "surrogatepass")
    at = rnd.randrange(len(raw) + 1)
    return raw[:at] + rnd.choice(choices) + raw[at:]


def _cut(text: str, rnd: random.Random) -> str:
    return text[: rnd.randrange(len(text) + 1)]


def forge_text(text: str, rnd: random.Random) -> tuple[str | bytes, list[str]]:
    """One game file text mutated one to three times."""
    applied: list[str] = []
    data: str | bytes = text
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.choice(["traversal", "control", "modifier", "line", "inflate", "drop",
                           "truncate", "bytes", "crlf", "dialect", "swap"])
        applied.append(kind)
        if isinstance(data, bytes):
            break
        if kind == "traversal":
            target = rnd.choice(OUTSIDE_TARGETS)
            data = _edit_entry(data, rnd, lambda _e, t=target: rnd.choice(["T:", "t:"]) + t)
        elif kind == "control":
            data = _edit_entry(data, rnd, lambda e: e + rnd.choice(CONTROL))
        elif kind == "modifier":
            data = _edit_entry(data, rnd, lambda e: e + "|" + rnd.choice(ODD_MODIFIERS))
        elif kind == "line":
            data = _with_line(data, rnd, ODD_LINES)
        elif kind == "inflate":
            n = rnd.choice([10, 200, 2100, 30_000])
            data = _edit_entry(data, rnd, lambda e, n=n: ";".join([e] * n))
        elif kind == "drop":
            lines = data.split("\n")
            del lines[rnd.randrange(len(lines))]
            data = "\n".join(lines)
        elif kind == "truncate":
            data = _cut(data, rnd)
        elif kind == "bytes":
            data = _with_bytes(data, rnd, [b"\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"\r",
                                           b"\x1b[2J", os.urandom(64)])
        elif kind == "crlf":
            data = data.replace("\n", "\r\n")
        elif kind == "dialect":
            data = data.replace("human", "p0").replace("ai", "p1")
        else:  # swap two entries' players
            data = data.replace("humanbattlefield", "tmp").replace(
                "aibattlefield", "humanbattlefield").replace("tmp", "aibattlefield")
    return data, applied


def forge_case(rnd: random.Random) -> Case:
    case = Case("forge", [])
    seeds = _seeds_forge()
    for k in range(rnd.randint(1, 3)):
        text, applied = forge_text(rnd.choice(seeds), rnd)
        case.applied += applied
        case.files[f"games/g{k}.pzl"] = text if isinstance(text, bytes) else text.encode()
    roll = rnd.random()
    if roll < 0.1:
        case.files["games/linked.pzl"] = Link("../../outside/secret.pzl")
        case.applied.append("link-out")
    elif roll < 0.15:
        case.files["games/huge.pzl"] = b"[state]\nhumanbattlefield=" + b"Test Bear;" * 200_000
        case.applied.append("huge-file")
    res = _forge_res(case, shared=rnd.random() < 0.5)
    case.args = ["import", "forge", "{case}/games", "--forge-res", res, "-o",
                 "{case}/out.jsonl", "--report", "{case}/report.json"]
    if rnd.random() < 0.1:
        case.args += ["--html", "{case}/page.html"]
    return case


def res_case(rnd: random.Random) -> Case:
    """A res folder (cardsfolder/) with mutated, linked, oversized or odd card scripts."""
    case = Case("res", [])
    _forge_res(case, shared=False)
    scripts = [k for k in case.files if k.startswith("res/cardsfolder/")]
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.choice(["bad-utf8", "huge", "link-out", "dir-link-out", "no-name",
                           "same-name", "control-name", "is-folder", "many", "token-link-out",
                           "token-huge", "empty", "binary"])
        case.applied.append(kind)
        victim = rnd.choice(scripts)
        if kind == "bad-utf8":
            case.files[victim] = b"Name:Test \xff\xfe Bear\nTypes:Creature\xc3\n"
        elif kind == "huge":
            case.files[victim] = b"Name:Test Bear\nTypes:Creature\n" + b"#" * (2**20 + 10)
        elif kind == "link-out":
            case.files[victim] = Link("../../../outside/secret.txt")
        elif kind == "dir-link-out":
            case.files["res/cardsfolder/z"] = Link("../../outside")
        elif kind == "no-name":
            case.files[victim] = b"Types:Creature\nPT:1/1\n"
        elif kind == "same-name":
            case.files["res/cardsfolder/t/copy.txt"] = CARDS["test_bear"].replace(
                "Bear", "Bear\nName:Test Leash").encode()
        elif kind == "control-name":
            case.files[victim] = ("Name:Test Bear" + rnd.choice(CONTROL) +
                                  "\nTypes:Creature\n").encode()
        elif kind == "is-folder":
            case.files["res/cardsfolder/t/folder.txt/inner.txt"] = b"Name:Inner\n"
        elif kind == "many":
            for i in range(rnd.choice([50, 500])):
                case.files[f"res/cardsfolder/m/c{i}.txt"] = f"Name:Card {i}\n".encode()
        elif kind == "token-link-out":
            case.files["res/tokenscripts/c_1_1_a_thopter.txt"] = Link("../../outside/secret.txt")
        elif kind == "token-huge":
            case.files["res/tokenscripts/c_1_1_a_thopter.txt"] = b"Name:T\n" + b"x" * 2**21
        elif kind == "empty":
            case.files[victim] = b""
        else:
            case.files[victim] = os.urandom(300)
    case.files["games/own.pzl"] = OWN_PUZZLE.encode()
    case.files["games/dump.txt"] = OWN_DUMP.encode()
    case.args = ["import", "forge", "{case}/games", "--forge-res", "{case}/res", "-o",
                 "{case}/out.jsonl", "--report", "{case}/report.json"]
    return case


def _zip(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as z:
        for name, data in members:
            z.writestr(name, data)
    return buffer.getvalue()


def _flagged(data: bytes, offset: int, value: bytes, every: bool = True) -> bytes:
    """``data`` with ``value`` written at ``offset`` of each (or the first) central entry."""
    out = bytearray(data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        out[at + offset:at + offset + len(value)] = value
        at = out.find(b"PK\x01\x02", at + 4) if every else -1
    return bytes(out)


def _lying(members: list[tuple[str, bytes]]) -> bytes:
    size = 3 * 2**20
    data = _zip([*members, ("t/liar.txt", b"\0" * size)])
    return data.replace(size.to_bytes(4, "little"), (100).to_bytes(4, "little"))


def _with_directories(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("t/", b"")
        z.writestr("t/dir.txt/", b"")
        for name, body in members:
            z.writestr(name, body)
    return buffer.getvalue()


def _fake_count(data: bytes) -> bytes:
    at = data.rfind(b"PK\x05\x06")
    return data[:at + 8] + b"\xff\xff\xff\xff" + data[at + 12:]


ZIPS: dict[str, Callable[[list[tuple[str, bytes]], random.Random], bytes]] = {
    "ok": lambda m, _r: _zip(m),
    "not-zip": lambda _m, r: r.choice([b"", b"PK", b"not a zip\n" * 50, os.urandom(2000)]),
    "truncated": lambda m, r: _zip(m)[: r.randrange(len(_zip(m)))],
    "bomb": lambda m, r: _zip([*m, ("t/bomb.txt", b"\0" * r.choice([2**20 + 1, 8 * 2**20]))]),
    "lying-size": lambda m, _r: _lying(m),
    "many": lambda m, r: _zip([*m, *((f"m/c{i}.txt", f"Name:Card {i}\n".encode())
                                      for i in range(r.choice([100, 3000])))]),
    "traversal-names": lambda m, _r: _zip([
        *m, ("../../outside/secret.txt", b"Name:Secret\n"), ("/etc/hostname.txt", b"Name:H\n"),
        ("a\x1b[2J.txt", b"Name:Esc\n")]),
    "encrypted-flag": lambda m, _r: _flagged(_zip(m), 8, b"\x01"),
    "unknown-method": lambda m, _r: _flagged(_zip(m), 10, (99).to_bytes(2, "little"), False),
    "empty": lambda _m, _r: _zip([]),
    "directories": lambda m, _r: _with_directories(m),
    "bad-crc": lambda m, _r: _zip(m).replace(b"Test Bear", b"Tast Bear", 1),
    "fake-count": lambda m, _r: _fake_count(_zip(m)),
    "nested": lambda m, _r: _zip([*m, ("inner.zip", _zip(m))]),
    "garbage-tail": lambda m, r: _zip(m) + os.urandom(r.choice([10, 70_000])),
}


def zip_case(rnd: random.Random) -> Case:
    """A res folder whose cardsfolder.zip is broken, a bomb, lying, huge or odd."""
    kind = rnd.choice(sorted(ZIPS))
    case = Case("zip", [kind])
    members = [(f"t/{k}.txt", v.encode()) for k, v in CARDS.items()]
    case.files["res/cardsfolder.zip"] = ZIPS[kind](members, rnd)
    case.files["res/tokenscripts/c_1_1_a_thopter.txt"] = TOKENS["c_1_1_a_thopter"].encode()
    case.files["games/own.pzl"] = OWN_PUZZLE.encode()
    case.args = ["import", "forge", "{case}/games", "--forge-res", "{case}/res", "-o",
                 "{case}/out.jsonl", "--report", "{case}/report.json"]
    return case


def _seeds_yaml() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in
            sorted((ROOT / "tests" / "scenarios").rglob("*.yaml"))]


def laughs(depth: int, width: int) -> str:
    """A YAML "billion laughs": ``width`` ** ``depth`` values from a few hundred bytes."""
    lines = [f"l0: &l0 [{','.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{','.join([f'*l{i - 1}'] * width)}]" for i in range(1, depth)]
    return "\n".join(lines) + "\n"


YAML_TEXTS = ["!!python/object/apply:os.system ['touch ../outside/pwned']",
              "!!python/name:os.system", "!!binary aGVsbG8=", "!!set {a, b}",
              "!!timestamp 2001-12-14", "!foo bar", "9" * 5000, "1e999", ".inf", ".nan",
              "0x" + "f" * 40, "~", "[]", "{}", "'\u202e\x1b'", '"\\ud800"', "&a [*a]",
              "*undefined", "? [complex, key]\n: value"]


def yaml_text(text: str, rnd: random.Random) -> tuple[bytes, list[str]]:
    applied: list[str] = []
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.choice(["laughs", "self", "deep", "odd-value", "structure", "truncate",
                           "bytes", "duplicate-key", "documents", "tabs", "not-mapping"])
        applied.append(kind)
        if kind == "laughs":
            depth, width = rnd.choice([(9, 9), (6, 10), (20, 2), (3, 5), (40, 2)])
            text = laughs(depth, width) + text.replace("intent:", f"intent: *l{depth - 1}\n"
                                                       "x_intent:", 1)
        elif kind == "self":
            text = text.replace("snapshot:", "x: &me {a: *me}\nsnapshot:", 1) \
                if rnd.random() < 0.3 else text.replace("expect:", "expect: &me [*me]\nx:", 1)
        elif kind == "deep":
            n = rnd.choice([100, 1000, 20_000, 200_000])
            text = text.replace("intent:", "deep: " + "[" * n + "]" * n + "\nintent:", 1)
        elif kind == "odd-value":
            lines = text.split("\n")
            candidates = [i for i, line in enumerate(lines) if ": " in line]
            if candidates:
                i = rnd.choice(candidates)
                key = lines[i].split(": ", 1)[0]
                lines[i] = f"{key}: {rnd.choice(YAML_TEXTS)}"
            text = "\n".join(lines)
        elif kind == "structure":
            try:
                data = yaml.safe_load(text)
                snapshot = data["snapshot"]
                data["snapshot"] = rnd.choice(STRUCTURAL)(snapshot, rnd)
                text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError, RecursionError,
                    yaml.YAMLError):
                continue
        elif kind == "truncate":
            text = _cut(text, rnd)
        elif kind == "bytes":
            return _with_bytes(text, rnd, [b"\xff", b"\x00", b"\xef\xbb\xbf", b"\x1b[2J",
                                           b"\xed\xa0\x80"]), applied
        elif kind == "duplicate-key":
            text = text + "\nintent: again\n"
        elif kind == "documents":
            text = text + "\n---\n" + text
        elif kind == "tabs":
            text = text.replace("  ", "\t", 1)
        else:
            text = rnd.choice(["- a\n- b\n", "just text\n", "", "null\n", "42\n"])
    return text.encode("utf-8", "surrogatepass"), applied


def yaml_case(rnd: random.Random) -> Case:
    case = Case("yaml", [], read_outside=True)
    seeds = _seeds_yaml()
    for k in range(rnd.randint(1, 3)):
        data, applied = yaml_text(rnd.choice(seeds), rnd)
        case.applied += applied
        case.files[f"scenarios/s{k}.yaml"] = data
    if rnd.random() < 0.15:
        case.files["scenarios/linked.yaml"] = Link("../../outside/secret.yaml")
        case.applied.append("link-out")
    case.args = ["test", "{case}/scenarios"] + (["--update"] if rnd.random() < 0.3 else [])
    return case


PROPOSAL_TOKENS = [":-", ".", "(", ")", "not ", "#count{", "X", '"', "%*", "*%", "#const n=",
                   "#show ", "#program p(t).", "#external e.", "1..3", "&", "@f(1)", "|", ";",
                   ":~", "#minimize{", "#heuristic", "\\", "\u202e", "\x00", "#theory",
                   "#defined q/1.", "#edge", "#project", "#include", "#script"]
INJECTIONS = ['#include "../outside/secret.lp".', '#include "/etc/hostname".',
              "#include <incmode>.", "#script (python)\nimport os\nos.system('touch x')\n#end.",
              "#script (lua)\nos.execute('touch x')\n#end.", "p(X) :- q.", ":- .",
              "p(@f(1)).", 'off("108.3").', "#const x=1.", "#show p/1.", "q :- not q."]


def proposal_text(text: str, rnd: random.Random) -> tuple[bytes, list[str]]:
    applied: list[str] = []
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.choice(["token", "inject", "truncate", "bytes", "comment", "empty"])
        applied.append(kind)
        if kind == "token":
            at = rnd.randrange(len(text) + 1)
            text = text[:at] + rnd.choice(PROPOSAL_TOKENS) + text[at:]
        elif kind == "inject":
            text = _with_line(text, rnd, INJECTIONS)
        elif kind == "truncate":
            text = _cut(text, rnd)
        elif kind == "bytes":
            return _with_bytes(text, rnd, [b"\xff", b"\xc3", b"\xef\xbb\xbf"]), applied
        elif kind == "comment":
            text = text.replace("%", "%*", 1)
        else:
            text = ""
    return text.encode("utf-8", "surrogatepass"), applied


def proposal_case(rnd: random.Random) -> Case:
    case = Case("proposal", [])
    seeds = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / "proposals")
                                                           .glob("*.lp"))]
    data, case.applied = proposal_text(rnd.choice(seeds), rnd)
    case.files["p.lp"] = data
    example = rnd.choice(sorted((ROOT / "examples").glob("*.json")))
    case.files["snapshot.json"] = example.read_bytes()
    case.args = ["adjudicate", "{case}/snapshot.json", "--change", "{case}/p.lp"]
    return case


MAKERS: dict[str, Callable[[random.Random], Case]] = {
    "forge": forge_case, "res": res_case, "zip": zip_case, "yaml": yaml_case,
    "proposal": proposal_case}


def hostile_case(rnd: random.Random, surface: str) -> Case:
    return MAKERS[surface](rnd)


@dataclass
class Outcome:
    """What running one case gave."""

    code: int | None = None
    traceback: str = ""
    """The exception that escaped the command, if one did."""
    escapes: list[str] = field(default_factory=list)
    unprintable: list[str] = field(default_factory=list)
    seconds: float = 0.0
    stderr: str = ""

    @property
    def bad(self) -> bool:
        return bool(self.traceback or self.escapes or self.unprintable
                    or self.code not in (0, 1, 2))


class Watch:
    """An audit hook (installed once per process) that, while armed, notes every file
    opened or listed in the canary folder (or a watched system file), and every file
    written, renamed or removed outside the case's folder."""

    installed: Watch | None = None

    def __init__(self) -> None:
        self.armed = False
        self.case = ""
        self.outside = ""
        self.read_outside = False
        self.found: list[str] = []

    @classmethod
    def get(cls) -> Watch:
        if cls.installed is None:
            cls.installed = cls()
            sys.addaudithook(cls.installed.hook)
        return cls.installed

    def hook(self, event: str, args: tuple[object, ...]) -> None:
        if not self.armed or event not in ("open", "os.listdir", "os.scandir", "os.rename",
                                           "os.remove", "os.chmod"):
            return
        self.armed = False  # the hook's own work is not watched
        try:
            path = args[0] if event != "os.rename" else args[1]
            if isinstance(path, int) or path is None:
                return
            real = os.path.realpath(os.fsdecode(path))  # type: ignore[arg-type]
            writing = event in ("os.rename", "os.remove", "os.chmod") or (
                event == "open" and _writes(args))
            if writing and not real.startswith(self.case):
                self.found.append(f"{event} {real} (writing)")
            elif real in WATCHED or (real.startswith(self.outside) and not self.read_outside):
                self.found.append(f"{event} {real}")
        finally:
            self.armed = True


def _writes(args: tuple[object, ...]) -> bool:
    mode, flags = (args + (None, None))[1:3]
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def materialize(case: Case, root: Path) -> Path:
    """The case's files under ``root/case``, the canary files under ``root/outside``."""
    outside, folder = root / "outside", root / "case"
    outside.mkdir(parents=True, exist_ok=True)
    for name, text in CANARY_FILES.items():
        (outside / name).write_text(text)
    folder.mkdir(parents=True)
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        else:
            path.write_bytes(content)
    for name in ("games", "scenarios"):
        (folder / name).mkdir(exist_ok=True)
    return folder


def run_case(case: Case, root: Path) -> Outcome:
    """Run ``case`` in this process in a fresh folder ``root``; what went wrong."""
    from mtgcontrol.cli import main

    folder = materialize(case, root)
    outside = root / "outside"
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    watch = Watch.get()
    watch.case = str(folder.resolve()) + os.sep
    watch.outside = str(outside.resolve()) + os.sep
    watch.read_outside = case.read_outside
    watch.found = []
    out, err = io.StringIO(), io.StringIO()
    outcome = Outcome()
    args = [a.replace("{case}", str(folder)) for a in case.args]
    started = time.process_time()
    watch.armed = True
    try:
        with redirect_stdout(out), redirect_stderr(err):
            outcome.code = main(args)
    except SystemExit as stop:  # argparse
        outcome.code = stop.code if isinstance(stop.code, int) else 2
    except BaseException as exc:  # noqa: BLE001 - what the fuzzer looks for
        outcome.traceback = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        watch.armed = False
    outcome.seconds = time.process_time() - started
    outcome.escapes = list(watch.found)
    after = {p.name: p.read_bytes() for p in outside.iterdir()}
    if after != before:
        outcome.escapes.append(f"the canary folder changed: {sorted(set(after) ^ set(before))}")
    written = out.getvalue() + "".join(
        p.read_text(errors="replace") for p in folder.glob("out*") if p.is_file())
    if CANARY in written and case.surface != "yaml":
        outcome.escapes.append("a canary file's text reached the output")
    outcome.stderr = err.getvalue()
    outcome.unprintable = [line for line in outcome.stderr.splitlines()
                           if not line.isprintable()]
    if "Traceback" in outcome.stderr or "internal error" in outcome.stderr:
        outcome.traceback = outcome.traceback or outcome.stderr[-300:]
    return outcome
