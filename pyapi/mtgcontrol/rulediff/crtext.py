"""Reading a CR text: its numbered rules, their examples and its effective date
(the input format is described in the package's docstring)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.api import InputError
from ..engine.files import read_input
from ..engine.validate import InputProblem

_RULE_LINE = re.compile(r"(\d{3}\.\d+[a-z]?)\.?\s+(\S.*)")
_EFFECTIVE = re.compile(r"These rules are effective as of ([A-Z][a-z]+ \d{1,2}, \d{4})")
_NAME_DATE = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)")
_END_HEADINGS = frozenset({"glossary", "credits"})


@dataclass(frozen=True)
class Rule:
    """One numbered rule of a CR text."""

    number: str
    text: str
    """The rule line after its number, stripped."""
    examples: tuple[str, ...] = ()
    """Its ``Example:`` lines, in order, each starting with ``Example:``."""
    line: int = 0


@dataclass(frozen=True)
class CRText:
    """A parsed CR text file: its rules in file order, and its effective date."""

    name: str
    version: str | None
    """The effective date ``YYYY-MM-DD``, or None when neither text nor file name says."""
    version_source: str
    """``text``, ``file name`` or ``unknown``."""
    rules: tuple[Rule, ...]

    @property
    def by_number(self) -> dict[str, Rule]:
        return {r.number: r for r in self.rules}


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _effective(text: str, name: str) -> tuple[str | None, str]:
    found = _EFFECTIVE.search(text)
    if found:
        try:
            day = dt.datetime.strptime(found.group(1), "%B %d, %Y").date()
            return day.isoformat(), "text"
        except ValueError:
            pass
    for found in _NAME_DATE.finditer(Path(name).name):
        try:
            return dt.date(*map(int, found.groups())).isoformat(), "file name"
        except ValueError:
            continue
    return None, "unknown"


def parse_cr(text: str, name: str = "<text>") -> CRText:
    """The rules of a CR text (official format or a project extract)."""
    text = text.lstrip("\ufeff")
    rules: dict[str, Rule] = {}
    current: Rule | None = None
    for index, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        if current is not None:
            if line.startswith("Example:"):
                current = replace(current, examples=(*current.examples, line))
                continue
            rules.setdefault(current.number, current)
            current = None
        if line.startswith("#"):
            continue
        found = _RULE_LINE.match(line)
        if found:
            current = Rule(found.group(1), found.group(2).strip(), (), index)
        elif rules and line.lower() in _END_HEADINGS:
            break
    if current is not None:
        rules.setdefault(current.number, current)
    version, source = _effective(text, name)
    return CRText(name, version, source, tuple(rules.values()))


def read_cr(path: str | Path) -> CRText:
    """Read and parse a CR text file; `InputError` if unreadable or without rules."""
    name = str(path)
    data = read_input(path, what="CR text file")
    parsed = parse_cr(_decode(data), name)
    if not parsed.rules:
        raise InputError([InputProblem(
            name, "$", "a Comprehensive Rules text with numbered rules such as "
            "'108.3. The owner of a card ...', found none")])
    return parsed
