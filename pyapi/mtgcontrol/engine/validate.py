"""Input validation for snapshots (format version 1).

`problems(doc, name)` checks a parsed JSON document in two stages:

1. the JSON Schema ``mtgcontrol/schema/snapshot.schema.json`` (shapes, field names, enums,
   kind-specific required and forbidden fields);
2. only if the schema passes, referential checks: unique ids, every referenced player, object
   and effect exists, no object attached to itself, ``turns`` in increasing ``from`` order.

Every problem names the snapshot, a JSON path (``$.objects[2].entered.under``) and what was
expected, in plain words, including what was found. Values are shown as JSON, cut after
60 characters, with invisible characters escaped, so a hostile id cannot flood or break a
message. `problems` never raises: any input, however wrong, yields a list of problems.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.validators import extend

from .jsontext import unsafe_parts
from .vocabulary import field_at, object_refs

PLAYER_REFS = object_refs("p")
OBJECT_REFS = object_refs("o")

__all__ = ["InputError", "InputProblem", "positive_int", "problems", "snapshot_name"]

SHOWN_CHARS = 60
"""Strings longer than this are cut (with an ellipsis) when shown in a message."""

Path = tuple[str | int, ...]
"""A JSON path as segments: ``int`` is a list index, ``str`` a field name."""


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with a snapshot."""

    snapshot: str
    """The snapshot's name: its ``id`` if it has one, else the name the caller gave."""
    path: str
    """JSON path of the offending value (or of the missing field), e.g. ``$.objects[2].zone``."""
    expected: str
    """What was expected, in plain words, including what was found."""

    def __str__(self) -> str:
        return f"{_show_name(self.snapshot)}: {self.path}: expected {self.expected}"


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (a bad value is a usage error, exit 2)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown(text)}")
    return value


class InputError(ValueError):
    """A snapshot (or another input) that does not follow its format; ``problems`` says
    where and why."""

    def __init__(self, found: list[InputProblem]) -> None:
        super().__init__("\n".join(str(p) for p in found))
        self.problems = found


def snapshot_name(doc: object, fallback: str) -> str:
    """The snapshot's ``id`` when it is a non-empty string, else `fallback`."""
    try:
        if isinstance(doc, dict):
            name = doc.get("id")
            if isinstance(name, str) and name:
                return name
    except Exception:  # a hostile mapping; the fallback is always safe
        pass
    return fallback


def problems(doc: object, fallback_name: str) -> list[InputProblem]:
    """Everything wrong with `doc` as a version-1 snapshot; ``[]`` when it is valid."""
    name = snapshot_name(doc, fallback_name)
    unsafe = unsafe_parts(doc)  # lone surrogates and deep nesting, before any recursion
    if unsafe:
        return [InputProblem(name, path, expected) for path, expected in unsafe]
    try:
        # The compiled schema (jsonschema-rs) says "valid" a hundred times faster;
        # only a document it rejects (or one with a float, which it takes for an
        # integer) goes through jsonschema, whose errors the messages are made from.
        found = [] if _quick_valid(doc) else list(_schema_problems(doc))
        if not found and isinstance(doc, dict):
            found = list(_reference_problems(doc))
    except RecursionError:
        found = [((), "a JSON document of reasonable depth, got one nested too deeply to check")]
    except Exception as exc:  # never raise on input; report instead
        found = [
            (
                (),
                f"a JSON document the validator can read, got one it failed on "
                f"({type(exc).__name__})",
            )
        ]
    found.sort(key=lambda item: _path_key(item[0]))
    result: list[InputProblem] = []
    seen: set[tuple[str, str]] = set()
    for path, expected in found:
        shown = _format_path(path)
        if (shown, expected) not in seen:
            seen.add((shown, expected))
            result.append(InputProblem(name, shown, expected))
    return result


# --------------------------------------------------------------------------------------------
# Showing values and paths


def _escape_invisible(text: str) -> str:
    """Escape characters that are not printable (control, format, separators, surrogates)."""
    out: list[str] = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)


def _show_str(value: str) -> str:
    shown = _escape_invisible(json.dumps(value[:SHOWN_CHARS], ensure_ascii=False))
    if len(value) > SHOWN_CHARS:
        shown += f"… ({len(value)} characters)"
    return shown


def _show(value: object) -> str:
    """A short JSON-like rendering of `value` for a message."""
    if isinstance(value, str):
        return _show_str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            digits = str(value)
        except ValueError:  # more digits than Python will convert
            return "a very large integer"
        return digits if len(digits) <= SHOWN_CHARS else f"{digits[:SHOWN_CHARS]}…"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, list | tuple):
        return f"a list of {_count(len(value), 'item')}"
    if isinstance(value, Mapping):
        return "an object"
    return _escape_invisible(f"a Python {type(value).__name__}"[: SHOWN_CHARS + 9])


shown = _show
"""``_show`` for other modules' messages: a value as JSON shows it, never a Python repr."""


def _describe(value: object) -> str:
    """Like `_show`, naming the JSON type where the value alone could mislead."""
    if isinstance(value, str):
        return f"the string {_show_str(value)}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        shown = _show(value)
        return shown if shown.startswith("a ") else f"the number {shown}"
    return _show(value)


def _show_name(name: str) -> str:
    """The snapshot name as shown at the start of a message."""
    if name and len(name) <= 4 * SHOWN_CHARS and name.isprintable() and name == name.strip():
        return name
    return _show_str(name)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _format_path(path: Path) -> str:
    parts = ["$"]
    for segment in path:
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif len(segment) <= SHOWN_CHARS and _IDENTIFIER.fullmatch(segment):
            parts.append(f".{segment}")
        else:
            parts.append(f"[{_show_str(segment)}]")
    return "".join(parts)


def _path_key(path: Path) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, s, "") if isinstance(s, int) else (1, 0, s) for s in path)


def _key_segment(key: object) -> str:
    """A mapping key as a path segment (JSON keys are strings; a Python caller may pass others)."""
    return key if isinstance(key, str) else _show(key)


# --------------------------------------------------------------------------------------------
# Stage 1: JSON Schema


def _is_integer(_checker: object, instance: object) -> bool:
    # JSON Schema calls 3.0 an integer; a timestamp must be written as one.
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


_INT32 = (-(2**31), 2**31 - 1)


@cache
def _compiled() -> Any:
    return jsonschema_rs.validator_for(json.loads(_schema_text()))


def _quick_valid(doc: object) -> bool:
    """True when the compiled schema (jsonschema-rs) accepts ``doc`` and it holds no float
    and no integer outside 32 bits (jsonschema-rs passes an integer too long for 64 bits
    whatever its bounds; jsonschema compares Python integers exactly).

    Only a True answer is trusted; anything else goes through jsonschema, which decides.
    """
    try:
        if not _compiled().is_valid(doc):
            return False
    except Exception:  # noqa: BLE001 - a Python value it cannot read: the full check decides
        return False
    stack: list[object] = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, float) or (isinstance(item, int)
                                       and not _INT32[0] <= item <= _INT32[1]):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _schema_text() -> str:
    return resources.files("mtgcontrol.schema").joinpath("snapshot.schema.json").read_text(
        encoding="utf-8")


@cache
def _validator() -> Any:
    schema = json.loads(_schema_text())
    _Validator.check_schema(schema)
    return _Validator(schema)


def _schema_problems(doc: object) -> Iterator[tuple[Path, str]]:
    for error in _validator().iter_errors(_tamed(doc)):
        yield from _convert(error)


class _Huge(int):
    """An integer too long to print (jsonschema's messages print the instance)."""

    def __repr__(self) -> str:
        try:
            return int.__repr__(self)
        except ValueError:  # more digits than Python will convert
            return "a very large integer"

    __str__ = __repr__


def _tamed(value: object) -> object:
    """``value`` with every integer outside 64 bits made a `_Huge` (a copy if any is)."""
    if isinstance(value, int) and not isinstance(value, bool) and \
            not -(2**63) <= value < 2**63:
        return _Huge(value)
    if isinstance(value, dict):
        tamed = {k: _tamed(v) for k, v in value.items()}
        return value if all(tamed[k] is v for k, v in value.items()) else tamed
    if isinstance(value, list):
        items = [_tamed(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a JSON object",
    "null": "null",
}


def _type_phrase(schema: Mapping[str, Any]) -> str:
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    kinds = schema.get("type")
    names = [kinds] if isinstance(kinds, str) else list(kinds or [])
    words: list[str] = []
    for kind in names:
        if kind == "string" and schema.get("minLength") == 1:
            words.append("a non-empty string")
        elif kind == "integer" and "minimum" in schema and "maximum" in schema:
            words.append(f"an integer from {schema['minimum']} to {schema['maximum']}")
        elif kind == "integer" and "minimum" in schema:
            words.append(f"an integer >= {schema['minimum']}")
        else:
            words.append(_TYPE_WORDS.get(kind, kind))
    return " or ".join(words)


def _shape(schema: object) -> str:
    """What `schema` accepts, in plain words."""
    if not isinstance(schema, Mapping):
        return "nothing here" if schema is False else "a value"
    if "x-expected" in schema:
        return str(schema["x-expected"])
    phrase = _type_phrase(schema)
    title = schema.get("title")
    if title and phrase:
        return f"{title} ({phrase})"
    return str(title or phrase or "a valid value")


def _because(schema: object) -> str:
    if isinstance(schema, Mapping) and "x-because" in schema:
        return str(schema["x-because"])
    return ""


def _convert(error: ValidationError) -> Iterator[tuple[Path, str]]:
    """Rewrite one jsonschema error into (path, expected) pairs."""
    path: Path = tuple(error.absolute_path)
    keyword = error.validator
    schema = error.schema
    instance = error.instance

    if keyword == "required":
        because = _because(schema)
        for field in error.validator_value:
            if isinstance(instance, Mapping) and field not in instance:
                what = (
                    f'the field "{field}" (required for {because})'
                    if because
                    else f'the required field "{field}"'
                )
                yield (*path, field), f"{what}, but it is missing"
    elif keyword == "additionalProperties":
        allowed = list(schema.get("properties", {})) if isinstance(schema, Mapping) else []
        for key in instance if isinstance(instance, Mapping) else ():
            if key not in allowed:
                yield (*path, _key_segment(key)), _unknown_field(key, allowed)
    elif keyword in ("oneOf", "anyOf"):
        yield from _convert_alternatives(error, path)
    elif keyword in ("minItems", "maxItems"):
        n = len(instance) if isinstance(instance, list) else 0
        yield path, f"{_items_shape(schema)}, got {_count(n, 'item')}"
    elif keyword == "uniqueItems":
        yield _repeated_item(path, schema, instance)
    elif keyword in ("type", "minLength", "minimum", "maximum", "pattern"):
        yield path, f"{_shape(schema)}, got {_describe(instance)}"
    else:  # enum, const, not, the false schema, anything else
        yield path, f"{_shape(schema)}, got {_show(instance)}"


def _unknown_field(key: object, allowed: list[str]) -> str:
    if isinstance(key, str):
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        if close:
            return f'a known field, got unknown field {_show(key)} (did you mean "{close[0]}"?)'
    return f"a known field (one of {', '.join(allowed)}), got unknown field {_show(key)}"


def _items_shape(schema: object) -> str:
    if isinstance(schema, Mapping):
        if "x-expected" in schema:
            return str(schema["x-expected"])
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None and low == high:
            return f"a list of exactly {_count(low, 'item')}"
        if high is not None:
            return f"a list of at most {_count(high, 'item')}"
        if low is not None:
            return f"a list of at least {_count(low, 'item')}"
    return "a list"


def _repeated_item(path: Path, schema: object, instance: object) -> tuple[Path, str]:
    if isinstance(instance, list):
        for j, item in enumerate(instance):
            for earlier in instance[:j]:
                if type(earlier) is type(item) and earlier == item:
                    return (*path, j), f"{_shape(schema)}, got {_show(item)} more than once"
    return path, f"{_shape(schema)}, got a repeated item"


def _convert_alternatives(error: ValidationError, path: Path) -> Iterator[tuple[Path, str]]:
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    instance = error.instance
    exactly_one = error.validator == "oneOf"

    # Alternatives that only require one field or another: {"required": [...]} each.
    if branches and all(isinstance(b, Mapping) and set(b) == {"required"} for b in branches):
        fields = [field for b in branches for field in b["required"]]
        present = [f for f in fields if isinstance(instance, Mapping) and f in instance]
        listed = " or ".join(f'"{f}"' for f in fields)
        how_many = "exactly one" if exactly_one else "at least one"
        because = _because(error.schema)
        where = f" (for {because})" if because else ""
        if len(present) > 1:
            found = "got " + " and ".join(f'"{f}"' for f in present)
        else:
            found = "found neither" if len(fields) == 2 else "found none"
        yield path, f"{how_many} of the fields {listed}{where}, {found}"
        return

    per_branch: dict[int, list[ValidationError]] = {i: [] for i in range(len(branches))}
    for sub in error.context or []:
        index = sub.relative_schema_path[0] if sub.relative_schema_path else None
        if isinstance(index, int) and index in per_branch:
            per_branch[index].append(sub)
    fitting = [
        i
        for i, errors in per_branch.items()
        if errors and not any(e.validator == "type" and not e.relative_path for e in errors)
    ]
    if not error.context:  # several alternatives matched where exactly one may
        yield path, f"{_shape(error.schema)} (exactly one form), got {_show(instance)}"
    elif len(fitting) == 1:
        for sub in per_branch[fitting[0]]:
            yield from _convert(sub)
    elif not fitting:
        yield path, f"{_shape(error.schema)}, got {_describe(instance)}"
    else:
        chosen = best_match(error.context)
        if chosen is None:
            yield path, f"{_shape(error.schema)}, got {_describe(instance)}"
        else:
            yield from _convert(chosen)


# --------------------------------------------------------------------------------------------
# Stage 2: references (the document already matches the schema)


@dataclass
class _Ids:
    """The first place of each player, object and effect id; the checks of a reference."""

    players: dict[str, Path] = field(default_factory=dict)
    objects: dict[str, Path] = field(default_factory=dict)
    effects: dict[str, Path] = field(default_factory=dict)

    def player(self, value: object, where: Path) -> Iterator[tuple[Path, str]]:
        if isinstance(value, str) and value not in self.players:
            yield where, f"a player id listed in $.players, got {_show(value)}"

    def object(self, value: object, where: Path) -> Iterator[tuple[Path, str]]:
        if isinstance(value, str) and value not in self.objects:
            yield where, f"an object id listed in $.objects, got {_show(value)}"


def _reference_problems(doc: dict[str, Any]) -> Iterator[tuple[Path, str]]:
    """Ids given twice, references to ids nobody lists, times out of order."""
    ids = _Ids()
    yield from _unique(
        ((entry, ("players", i)) if isinstance(entry, str) else (entry["id"], ("players", i, "id"))
         for i, entry in enumerate(doc["players"])),
        "player id", ids.players)
    yield from _unique(((obj["id"], ("objects", i, "id")) for i, obj in enumerate(doc["objects"])),
                       "object id", ids.objects)
    yield from _unique(((eff["id"], ("effects", i, "id")) for i, eff in enumerate(doc["effects"])),
                       "effect id", ids.effects)
    if "active_player" in doc:
        yield from ids.player(doc["active_player"], ("active_player",))
    yield from _turn_problems(doc.get("turns", []), ids)
    abilities: dict[str, Path] = {}
    for i, obj in enumerate(doc["objects"]):
        yield from _object_problems(obj, ("objects", i), ids, abilities)
    for i, eff in enumerate(doc["effects"]):
        yield from _effect_problems(eff, ("effects", i), ids)
    for i, claim in enumerate(doc.get("claims", [])):
        here: Path = ("claims", i)
        yield from ids.object(claim["object"], (*here, "object"))
        for name in ("controller", "owner"):
            if claim.get(name) is not None:
                yield from ids.player(claim[name], (*here, name))


def _unique(entries: Iterator[tuple[str, Path]], what: str,
            first: dict[str, Path]) -> Iterator[tuple[Path, str]]:
    """An id met again; `first` collects the first place of each id."""
    for value, where in entries:
        if value in first:
            yield where, _again(what, value, first[value])
        else:
            first[value] = where


def _turn_problems(turns: list[dict[str, Any]], ids: _Ids) -> Iterator[tuple[Path, str]]:
    """Each turn's player is listed; turns start in time order."""
    previous: tuple[int, Path] | None = None
    for i, turn in enumerate(turns):
        yield from ids.player(turn["player"], ("turns", i, "player"))
        if previous is not None and turn["from"] <= previous[0]:
            yield (
                ("turns", i, "from"),
                (
                    f"a time later than the previous turn's start ({previous[0]} at "
                    f"{_format_path(previous[1])}; turns are listed in time order), "
                    f"got {turn['from']}"
                ),
            )
        previous = (turn["from"], ("turns", i, "from"))


_SELF_REFERENCES = (
    (("attached_to",), "be attached to itself"),
    (("left_battlefield", "attached_to"), "have been attached to itself"),
    (("copy_of",), "be a copy of itself"),
)


def _object_problems(obj: dict[str, Any], here: Path, ids: _Ids,
                     abilities: dict[str, Path]) -> Iterator[tuple[Path, str]]:
    """One object's references, phasing times and ability ids (`abilities` collects the
    first place of each ability id across objects)."""
    for fields in PLAYER_REFS:  # the reference fields of vocabulary.OBJECT_REFS
        if fields[0] in obj and (value := field_at(obj, fields)) is not None:
            yield from ids.player(value, (*here, *fields))
    for fields in OBJECT_REFS:
        if fields[0] in obj and (value := field_at(obj, fields)) is not None:
            yield from ids.object(value, (*here, *fields))
    for fields, verb in _SELF_REFERENCES:
        value = obj.get(fields[0])
        if len(fields) == 2 and isinstance(value, dict):
            value = value.get(fields[1])
        if value == obj["id"]:
            yield (
                (*here, *fields),
                (f"the id of another object (an object cannot {verb}), got {_show(value)}"),
            )
    yield from _phasing_order(obj.get("phasing", []), here)
    control_effect = obj.get("entered", {}).get("spell_control_effect")
    if control_effect is not None and control_effect not in ids.effects:
        yield (
            (*here, "entered", "spell_control_effect"),
            (f"an effect id listed in $.effects, got {_show(control_effect)}"),
        )
    for j, ability in enumerate(obj.get("abilities", [])):
        yield from _ability_problems(ability, (*here, "abilities", j), ids, abilities)


def _ability_problems(ability: dict[str, Any], here: Path, ids: _Ids,
                      abilities: dict[str, Path]) -> Iterator[tuple[Path, str]]:
    """An ability id is unique and no object's id; its granting object is listed."""
    where_id: Path = (*here, "id")
    aid = ability["id"]
    if aid in ids.objects:
        yield (
            where_id,
            (
                f"an ability id different from every object id, got {_show(aid)} "
                f"(the id of the object at {_format_path(ids.objects[aid][:-1])})"
            ),
        )
    elif aid in abilities:
        yield where_id, _again("ability id", aid, abilities[aid])
    else:
        abilities[aid] = where_id
    if "granted_by" in ability:
        yield from ids.object(ability["granted_by"], (*here, "granted_by"))


def _effect_problems(eff: dict[str, Any], here: Path, ids: _Ids) -> Iterator[tuple[Path, str]]:
    """An effect's source, objects and players are listed."""
    yield from ids.object(eff["source"], (*here, "source"))
    for j, target in enumerate(eff.get("objects", [])):
        yield from ids.object(target, (*here, "objects", j))
    for name in ("player", "controlled"):
        if name in eff:
            yield from ids.player(eff[name], (*here, name))


def _again(what: str, value: str, first: Path) -> str:
    return f"a unique {what}, got {_show(value)} again (first at {_format_path(first)})"


def _phasing_order(phasing: list[dict], here: Path) -> Iterator[tuple[Path, str]]:
    """``phasing`` (702.26): out, in, out, ... strictly in time order; only the last entry
    may lack ``in_at`` (the permanent is phased out now)."""
    last: tuple[int, Path] | None = None
    for j, phase in enumerate(phasing):
        for key in ("out_at", "in_at"):
            if key not in phase:
                if j + 1 < len(phasing):
                    yield ((*here, "phasing", j),
                           "an \"in_at\" time (only the last entry may be still phased out), "
                           f"got {_show(phase)}")
                continue
            where: Path = (*here, "phasing", j, key)
            if last is not None and phase[key] <= last[0]:
                yield (where, f"a time later than {last[0]} at {_format_path(last[1])} "
                              f"(phasing is listed in time order), got {phase[key]}")
            last = (phase[key], where)
