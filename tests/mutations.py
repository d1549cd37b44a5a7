"""Mutations of the bundled examples, for fuzzing (tests/test_fuzz.py, benchmarks/fuzz.py).

``mutate(rnd)`` returns one input line (bytes, no line end) made from an example by
one to three mutations drawn with ``rnd`` (a ``random.Random``): structural ones on
the parsed snapshot (drop, retype, rename, duplicate, dangle, cycle, inflate) and
textual ones on the JSON text (truncate, bad bytes, BOM, UTF-16, deep nesting,
huge numbers, lone surrogates).  ``CLASSES`` names every kind.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
