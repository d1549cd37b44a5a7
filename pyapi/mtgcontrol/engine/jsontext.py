"""Reading JSON text that may be hostile: every way it can be wrong becomes problems.

``read_json(data)`` takes one document as ``bytes`` (a line of a file) or ``str`` and
returns the parsed value, or raises `BadJson` with a list of ``(JSON path, expected)``
pairs.  Caught here, never as a traceback later: invalid UTF-8, UTF-16 text, a
byte-order mark, a blank line, broken JSON, NaN/Infinity (not JSON), repeated keys,
nesting deeper than `MAX_DEPTH`, integers longer than Python converts, and strings
holding lone surrogates (``"\\ud800"``), which no UTF-8 output can carry.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting accepted; a snapshot needs 5 levels, so anything near this is an attack."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

Problem = tuple[str, str]
"""A JSON path (``$.objects[2].id``) and what was expected there."""


class BadJson(ValueError):
    """The text is not a JSON document this program will read."""

    def __init__(self, found: list[Problem], document: Any = None) -> None:
        super().__init__("; ".join(f"{path}: expected {what}" for path, what in found))
        self.problems = found
        self.document = document
        """The parsed value when the text was JSON but unsafe to use, else None."""


def read_json(data: bytes | str) -> Any:
    """Parse one JSON document; raise `BadJson` naming where and what was expected."""
    text = decode(data) if isinstance(data, bytes) else data
    if text.startswith("\ufeff"):
        raise BadJson([("$", "JSON text without a byte-order mark (U+FEFF) at the start; "
                        "save the file as UTF-8 without BOM")])
    if not text.strip():
        raise BadJson([("$", "a JSON document, got a blank line")])
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
    except json.JSONDecodeError as err:
        raise BadJson([("$", f"valid JSON ({err.msg} at line {err.lineno} column {err.colno})")]
                      ) from None
    except _Refused as err:
        raise BadJson([("$", str(err))]) from None
    except RecursionError:
        raise BadJson([("$", f"JSON nested at most {MAX_DEPTH} levels deep, got one nested "
                             "too deeply to read")]) from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise BadJson([("$", f"integers of at most {sys.get_int_max_str_digits()} digits, "
                             "got a longer one")]) from None
    # Lone surrogates can only come from \\uD800-style escapes (or raw ones in a str),
    # and deep nesting needs as many brackets: most lines need no walk at all.
    if _SURROGATE_ESCAPE.search(text) or text.count("[") + text.count("{") >= MAX_DEPTH \
            or (not isinstance(data, bytes) and not _encodable(text)):
        found = unsafe_parts(value)
        if found:
            raise BadJson(found, value)
    return value


def decode(data: bytes) -> str:
    """UTF-8 text; UTF-16, a NUL byte or invalid UTF-8 raise `BadJson`."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data:
        raise BadJson([("$", "UTF-8 text, got UTF-16 (or NUL bytes); re-encode the file "
                             "as UTF-8")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadJson([("$", f"UTF-8 text, got the invalid byte 0x{data[err.start]:02x} at "
                             f"byte {err.start + 1}")]) from None


def unsafe_parts(value: Any) -> list[Problem]:
    """Nesting beyond `MAX_DEPTH` and strings with lone surrogates, by JSON path.

    Works without recursion, so it is safe on any document, parsed or built in Python.
    """
    if not isinstance(value, dict | list):
        return [] if not isinstance(value, str) or _encodable(value) else [
            ("$", f"text without lone surrogates, got {_surrogate(value)}")]
    if _quick_ok(value):
        return []  # the common case, checked fast; paths are only worked out for problems
    found: list[Problem] = []
    stack: list[tuple[Any, str, int]] = [(value, "$", 0)]
    while stack and len(found) < 10:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                found.append((path, f"text without lone surrogates, got {_surrogate(item)}"))
            continue
        if not isinstance(item, dict | list):
            continue
        if depth >= MAX_DEPTH:
            found.append((path, f"JSON nested at most {MAX_DEPTH} levels deep, got deeper"))
            continue
        if isinstance(item, dict):
            for key, sub in reversed(item.items()):
                if isinstance(key, str) and not _encodable(key):
                    found.append((path, f"field names without lone surrogates, got "
                                        f"{_surrogate(key)}"))
                    continue
                stack.append((sub, f"{path}{_segment(key)}", depth + 1))
        else:
            stack.extend((sub, f"{path}[{i}]", depth + 1) for i, sub in reversed(
                list(enumerate(item))))
    found.sort()
    return found


def _quick_ok(value: Any) -> bool:
    """True when nothing is nested too deeply and every string is plain: one fast pass."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        if isinstance(item, dict):
            for key in item:
                if isinstance(key, str) and not key.isascii() and not _encodable(key):
                    return False
            subs: Any = item.values()
        else:
            subs = item
        for sub in subs:
            if isinstance(sub, str):
                if not sub.isascii() and not _encodable(sub):
                    return False
            elif isinstance(sub, dict | list):
                stack.append((sub, depth + 1))
    return True


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(text: str) -> str:
    at = next(i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF)
    return f"\\u{ord(text[at]):04x} at character {at + 1}"


def _segment(key: object) -> str:
    if isinstance(key, str) and key.isidentifier() and key.isascii() and len(key) <= 60:
        return f".{key}"
    shown = json.dumps(str(key)[:60])
    return f"[{shown}]"


class _Refused(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _Refused(f"valid JSON (JSON has no {name}; write a number or null)")


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _Refused(f"an object whose field names are all different, got {json.dumps(twice)} "
                       "twice")
    return result
