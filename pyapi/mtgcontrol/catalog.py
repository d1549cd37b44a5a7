"""The rules catalog: supported CR versions and, per version, the rule numbers
this project encodes, their paraphrases and the rule group implementing each.

The catalog is data (``rules/<version>.toml``).  Python only reads it: which
rule groups are in force, and under which number, reaches the encodings as
``number(Version, Group, Number)`` facts.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class CatalogRule:
    number: str
    group: str
    paraphrase: str
    in_extract: bool = True


@dataclass(frozen=True)
class Version:
    name: str  # the effective date, "2026-08-07"
    rules: tuple[CatalogRule, ...]

    @property
    def const(self) -> str:
        """The ASP constant naming this version."""
        return "v" + self.name.replace("-", "_")


class UnknownVersion(ValueError):
    """A requested CR version or date that no supported version answers."""


@cache
def versions() -> tuple[Version, ...]:
    """Every supported version, oldest first."""
    found = []
    for entry in resources.files("mtgcontrol.ruledata").iterdir():
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            rules = tuple(
                CatalogRule(r["number"], r["group"], r["paraphrase"], r.get("in_extract", True))
                for r in data["rule"]
            )
            found.append(Version(data["version"], rules))
    return tuple(sorted(found, key=lambda v: v.name))


def newest() -> Version:
    return versions()[-1]


def resolve(date: str | None) -> Version:
    """The version in force on ``date`` (an exact version or any later date)."""
    if date is None:
        return newest()
    names = ", ".join(v.name for v in versions())
    expected = (f"a supported CR version ({names}) or a later date YYYY-MM-DD, "
                f"got {date!r}")
    try:
        day = dt.date.fromisoformat(date)
    except (TypeError, ValueError):
        raise UnknownVersion(expected) from None
    in_force = [v for v in versions() if dt.date.fromisoformat(v.name) <= day]
    if not in_force:
        raise UnknownVersion(expected + " (no supported version was in force then)")
    return in_force[-1]


@cache
def numbering_facts(version: Version) -> str:
    """``number/3`` facts: the groups in force in ``version`` and their numbers."""
    return "\n".join(
        f'number({version.const},"{r.group}","{r.number}").' for r in version.rules
    )
