"""The rules catalog: the supported CR releases and every ownership/control rule
group once, with its stable id, its paraphrase, the encoding group implementing
it and its rule numbers by date (``rules/catalog.toml``; the format is described
at the top of that file and in docs/new-cr-release.md).

Everything per version is derived here: `versions` are the catalog's releases;
`Version.rules` are the groups in force in a release under the numbers they have
there, which reach the encodings as ``number(Version, Group, Number)`` facts
(`numbering_facts`), so rulings cite each release's own numbers.

API: `versions`, `resolve`, `newest` (Version: name, rules, unencoded, entry(number));
`numbering_facts(version)`; `groups`, `group(id)` (Group: numbers, dated_numbers(),
variants, number(release), variant(release)); `lookup(version, number)` and
`by_asp(asp)` -> (Group, Variant) (Variant: key, since, asp, paraphrase, change).

``MTGCONTROL_CATALOG=FILE.toml`` reads another catalog file instead of the
installed one (a draft for a new release, before reinstalling); each file is
read once per process.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

CATALOG_ENV = "MTGCONTROL_CATALOG"
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_NUMBER = re.compile(r"\d{3}\.\d+[a-z]?")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class CatalogError(ValueError):
    """The catalog file is malformed (names the group and the key)."""


class UnknownVersion(ValueError):
    """A requested CR version or date that no supported version answers."""


@dataclass(frozen=True)
class Release:
    date: str  # the effective date, "2026-08-07"
    text: str  # the CR text extract, "cr-2026-08-07.txt"


@dataclass(frozen=True)
class Variant:
    """One meaning of a group, in force from ``since`` until the group's next variant."""

    key: str  # the group id for its first meaning, "<id>@<since>" for later ones
    since: str
    asp: str  # the encoding group: the string on(S,"...") tests and why/5 atoms carry
    paraphrase: str
    change: str = ""  # what changed against the previous variant (one line)
    unencoded: str = ""  # why it is not expressible in snapshot/1 (then no encoding)


@dataclass(frozen=True)
class Group:
    """A rule group: one rule (or part of one) across releases."""

    id: str
    numbers: tuple[tuple[str, str], ...]  # (from release date, number), oldest first
    until: str | None  # the first release without it
    in_extract: bool
    variants: tuple[Variant, ...]  # oldest first

    def in_force(self, release: str) -> bool:
        return self.numbers[0][0] <= release and (self.until is None or release < self.until)

    def number(self, release: str) -> str | None:
        """Its rule number in ``release`` (None when not in force)."""
        if not self.in_force(release):
            return None
        return [n for since, n in self.numbers if since <= release][-1]

    def variant(self, release: str) -> Variant | None:
        if not self.in_force(release):
            return None
        return [v for v in self.variants if v.since <= release][-1]

    def dated_numbers(self) -> list[tuple[str, str | None, str]]:
        """(from, until or None, number): each number with the releases it holds for."""
        ends = [since for since, _ in self.numbers[1:]] + [self.until]
        return [(since, end, number) for (since, number), end in zip(self.numbers, ends,
                                                                      strict=True)]


@dataclass(frozen=True)
class CatalogRule:
    """A group as one release numbers it."""

    number: str
    group: str  # the encoding group (Variant.asp)
    paraphrase: str
    in_extract: bool = True
    id: str = ""  # the stable group id
    variant: str = ""  # the variant key
    reason: str = ""  # for an unencoded entry: why


@dataclass(frozen=True)
class Version:
    name: str  # the effective date, "2026-08-07"
    rules: tuple[CatalogRule, ...]  # the encoded groups in force
    unencoded: tuple[CatalogRule, ...] = ()  # in scope, not expressible in snapshot/1
    text: str = ""  # the CR text extract's file name

    def __hash__(self) -> int:  # by name: versions key caches and sets per snapshot
        return hash(self.name)

    @property
    def const(self) -> str:
        """The ASP constant naming this version."""
        return "v" + self.name.replace("-", "_")

    def entry(self, number: str) -> CatalogRule | None:
        """The catalog entry (encoded or not) numbered ``number`` in this version."""
        return next((r for r in (*self.rules, *self.unencoded) if r.number == number), None)


# --- reading the catalog --------------------------------------------------------------

def catalog_text() -> tuple[str, str]:
    """(name, text) of the catalog file in use."""
    path = os.environ.get(CATALOG_ENV)
    if path:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    res = resources.files("mtgcontrol.ruledata") / "catalog.toml"
    return "rules/catalog.toml", res.read_text(encoding="utf-8")


def _str(table: dict[str, Any], key: str, where: str, pattern: re.Pattern[str] | None = None,
         required: bool = True) -> str:
    value = table.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip() or (
            pattern is not None and not pattern.fullmatch(value)):
        raise CatalogError(f"{where}: `{key}` must be " + (
            f"a string like {pattern.pattern!r}" if pattern else "a non-empty string")
            + f", got {value!r}")
    return value


def _group(table: dict[str, Any], index: int, releases: list[str]) -> Group:
    where = f"[[group]] #{index + 1}"
    gid = _str(table, "id", where, _ID)
    where = f"group {gid!r}"
    known = {"id", "numbers", "until", "in_extract", "asp", "paraphrase", "unencoded", "variant"}
    if unknown := sorted(set(table) - known):
        raise CatalogError(f"{where}: unknown keys {unknown} (expected {sorted(known)})")
    raw = table.get("numbers")
    if not isinstance(raw, dict) or not raw:
        raise CatalogError(f'{where}: `numbers` must be a table {{ "FROM-DATE" = "NUMBER" }}')
    numbers = []
    for since, number in sorted(raw.items()):
        if not _DATE.fullmatch(since) or not isinstance(number, str) or \
                not _NUMBER.fullmatch(number):
            raise CatalogError(f"{where}: `numbers` entry {since!r} = {number!r} must be "
                               '"YYYY-MM-DD" = "NNN.Nx"')
        numbers.append((since, number))
    until = _str(table, "until", where, _DATE, required=False) or None
    if "variant" in table:
        if "asp" in table or "paraphrase" in table:
            raise CatalogError(f"{where}: give `asp`/`paraphrase` either on the group or on "
                               "each [[group.variant]], not both")
        rows = table["variant"]
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise CatalogError(f"{where}: `variant` must be [[group.variant]] tables")
    else:
        rows = [{"since": numbers[0][0], "asp": table.get("asp"),
                 "paraphrase": table.get("paraphrase"), "unencoded": table.get("unencoded")}]
    variants = []
    for i, row in enumerate(rows):
        vwhere = f"{where} variant #{i + 1}"
        if unknown := sorted(set(row) - {"since", "asp", "paraphrase", "change", "unencoded"}):
            raise CatalogError(f"{vwhere}: unknown keys {unknown}")
        since = _str(row, "since", vwhere, _DATE)
        change = _str(row, "change", vwhere, required=i > 0)
        # a group-level `unencoded` holds for every variant
        unencoded = _str(row, "unencoded", vwhere, required=False) or \
            _str(table, "unencoded", where, required=False)
        variants.append(Variant(gid if i == 0 else f"{gid}@{since}", since,
                                _str(row, "asp", vwhere), _str(row, "paraphrase", vwhere),
                                change, unencoded))
    if variants[0].since != numbers[0][0] or \
            [v.since for v in variants] != sorted({v.since for v in variants}):
        raise CatalogError(f"{where}: the first variant must start with the first `numbers` "
                           "date and the others follow in date order, one per date")
    if until is not None and until <= max(numbers[-1][0], variants[-1].since):
        raise CatalogError(f"{where}: `until` {until} must come after its last number and "
                           "variant dates")
    in_extract = table.get("in_extract", True)
    if not isinstance(in_extract, bool):
        raise CatalogError(f"{where}: `in_extract` must be true or false")
    group = Group(gid, tuple(numbers), until, in_extract, tuple(variants))
    if not any(group.in_force(r) for r in releases):
        raise CatalogError(f"{where}: in force in no release ({', '.join(releases)})")
    return group


def _parse(name: str, text: str) -> tuple[tuple[Release, ...], tuple[Group, ...]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CatalogError(f"{name}: not valid TOML ({err})") from None
    releases = tuple(
        Release(_str(r, "date", f"{name} [[release]]", _DATE),
                _str(r, "text", f"{name} [[release]]")) for r in data.get("release", []))
    if not releases or [r.date for r in releases] != sorted({r.date for r in releases}):
        raise CatalogError(f"{name}: [[release]] entries must exist, in date order, one per date")
    dates = [r.date for r in releases]
    groups = tuple(_group(g, i, dates) for i, g in enumerate(data.get("group", [])))
    for kind, keys in (("group id", [g.id for g in groups]),
                       ("asp", [v.asp for g in groups for v in g.variants])):
        if twice := sorted({k for k in keys if keys.count(k) > 1}):
            raise CatalogError(f"{name}: {kind} used twice: {', '.join(twice)}")
    return releases, groups


@cache
def _load(path: str | None) -> tuple[tuple[Release, ...], tuple[Group, ...]]:
    """The catalog read from ``path`` (None: the installed one), once per process."""
    return _parse(*catalog_text())


def _catalog() -> tuple[tuple[Release, ...], tuple[Group, ...]]:
    return _load(os.environ.get(CATALOG_ENV) or None)


def releases() -> tuple[Release, ...]:
    return _catalog()[0]


def groups() -> tuple[Group, ...]:
    """Every group, in catalog order."""
    return _catalog()[1]


def group(group_id: str) -> Group:
    """The group with stable id ``group_id`` (KeyError if none)."""
    for g in groups():
        if g.id == group_id:
            return g
    raise KeyError(group_id)


def by_asp(asp: str) -> tuple[Group, Variant] | None:
    """The group and variant whose encoding group is ``asp`` (``"110.5a@2017-04-28"``)."""
    for g in groups():
        for v in g.variants:
            if v.asp == asp:
                return g, v
    return None


def lookup(version: str | Version, number: str) -> tuple[Group, Variant] | None:
    """The group and variant numbered ``number`` in ``version`` (a name or a Version)."""
    name = version.name if isinstance(version, Version) else resolve(version).name
    for g in groups():
        if g.number(name) == number:
            variant = g.variant(name)
            assert variant is not None
            return g, variant
    return None


def _version(release: Release, all_groups: tuple[Group, ...]) -> Version:
    rules: list[CatalogRule] = []
    unencoded: list[CatalogRule] = []
    for g in all_groups:
        number, v = g.number(release.date), g.variant(release.date)
        if number is None or v is None:
            continue
        rule = CatalogRule(number, v.asp, v.paraphrase, g.in_extract, g.id, v.key, v.unencoded)
        (unencoded if v.unencoded else rules).append(rule)
    return Version(release.date, tuple(rules), tuple(unencoded), release.text)


@cache
def _versions(path: str | None) -> tuple[Version, ...]:
    found, all_groups = _load(path)
    return tuple(_version(r, all_groups) for r in found)


def versions() -> tuple[Version, ...]:
    """Every supported version (the catalog's releases), oldest first."""
    return _versions(os.environ.get(CATALOG_ENV) or None)


def newest() -> Version:
    return versions()[-1]


def resolve(date: str | None) -> Version:
    """The version in force on ``date`` (an exact version or any later date)."""
    if date is None:
        return newest()
    all_versions = versions()
    for v in all_versions:  # the common case: an exact version name
        if v.name == date:
            return v
    expected = (f"a supported CR version ({', '.join(v.name for v in all_versions)}) or a "
                f"later date YYYY-MM-DD, got {json.dumps(date)}")
    try:
        day = dt.date.fromisoformat(date).isoformat()
    except (TypeError, ValueError):
        raise UnknownVersion(expected) from None
    in_force = [v for v in all_versions if v.name <= day]
    if not in_force:
        raise UnknownVersion(expected + " (no supported version was in force then)")
    return in_force[-1]


@cache
def numbering_facts(version: Version) -> str:
    """``number/3`` facts: the encoded groups in force in ``version`` and their numbers."""
    return "\n".join(
        f'number({version.const},"{r.group}","{r.number}").' for r in version.rules
    )


@cache
def rule_order(number: str) -> tuple[Any, ...]:
    """The sort key of rule numbers, in the CR's order (109.4 < 109.4a < 109.5 < 110.2);
    a group id's variant (``613.1@2017``) after its number's."""
    head, _, tail = number.partition("@")
    parts: list[tuple[int, str]] = []
    for piece in head.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        parts.append((int(digits) if digits else 0, piece[len(digits):]))
    return (tuple(parts), tail)


def renumbered(number: str, old: str | Version, new: str | Version) -> str:
    """``number`` of release ``old`` as release ``new`` numbers the same rule (its groups
    by the catalog); ``number`` itself when the catalog does not say one other number."""
    old_name = old.name if isinstance(old, Version) else resolve(old).name
    new_name = new.name if isinstance(new, Version) else resolve(new).name
    targets = {g.number(new_name) for g in groups() if g.number(old_name) == number}
    targets.discard(None)
    return str(targets.pop()) if len(targets) == 1 else number
