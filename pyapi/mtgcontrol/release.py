"""The catalog edits a new CR release needs, proposed from ``mtgcontrol rules diff``
(docs/new-cr-release.md), and a draft catalog with the mechanical ones applied.

Each reported rule that is a catalog group in the old release (its number there)
gives at most one edit for the new release ``D``:

* ``number``: the group has a new number (renumbered, or changed and moved):
  ``numbers`` gets ``"D" = "NEW"``;
* ``review``: its text changed: decide whether its meaning changed; if so add a
  ``[[group.variant]]`` since ``D`` (asp, change, paraphrase) and encode it;
* ``until``: it disappeared: ``until = "D"``;
* ``new``: a rule appeared that no group numbers: add a ``[[group]]`` if it is an
  ownership/control rule in scope (encoded, or ``unencoded`` with a reason).

When the new release is already a catalog release, its decisions are made: only
``number`` edits where the catalog disagrees with the diff are proposed (none, for
a correct catalog).  `draft_catalog` applies the ``number`` and ``until`` edits and adds
the ``[[release]]``; ``review`` and ``new`` need a person.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import catalog
from .engine.api import InputError
from .engine.files import write_output
from .engine.validate import InputProblem
from .rulediff import RulesDiff, diff_rules, format_text, read_cr


@dataclass(frozen=True)
class CatalogEdit:
    kind: str  # number, review, until, new
    group: str | None  # the stable group id (None for `new`)
    number: str  # the rule number in the new release (old number for `until`)
    text: str  # what to do, one line
    change: tuple[str | None, str | None] = (None, None)  # the reported rule: (old, new)

    def to_dict(self) -> dict[str, str | None]:
        return {"kind": self.kind, "group": self.group, "number": self.number,
                "text": self.text}


def release_date(result: RulesDiff) -> str:
    """The new text's effective date, or ``NEW`` when it cannot be told."""
    return result.new.version or "NEW"


def _old_group(result: RulesDiff, number: str | None) -> catalog.Group | None:
    if number is None or result.old.version is None:
        return None
    try:
        found = catalog.lookup(result.old.version, number)
    except catalog.UnknownVersion:
        return None
    return found[0] if found else None


def proposed_edits(result: RulesDiff) -> list[CatalogEdit]:
    """The catalog edits the new release needs, in report order."""
    date = release_date(result)
    in_catalog = date in {r.date for r in catalog.releases()}
    edits: list[CatalogEdit] = []
    for change in result.changes:
        group = _old_group(result, change.old)
        pair = (change.old, change.new)
        if change.kind == "appeared":
            assert change.new is not None
            if not in_catalog:
                edits.append(CatalogEdit(
                    "new", None, change.new,
                    f"{change.new} appeared: if it is an ownership/control rule in scope, add a "
                    f'[[group]] with numbers = {{ "{date}" = "{change.new}" }}, id, asp and '
                    "paraphrase (or `unencoded` with the reason)", pair))
            continue
        if group is None:
            continue
        if change.kind == "disappeared":
            if not in_catalog:
                edits.append(CatalogEdit("until", group.id, change.old or "",
                                         f'{group.id}: until = "{date}" ({change.old} is gone)',
                                         pair))
            continue
        assert change.new is not None
        if group.number(date) != change.new:
            edits.append(CatalogEdit(
                "number", group.id, change.new,
                f'{group.id}: numbers += "{date}" = "{change.new}" ({change.old} -> '
                f"{change.new}, {change.kind})", pair))
        if change.kind == "changed" and not in_catalog:
            edits.append(CatalogEdit(
                "review", group.id, change.new,
                f"{group.id}: {change.new} reworded: if the meaning changed, add a "
                f'[[group.variant]] since = "{date}" (asp, change, paraphrase), encode it, '
                "write scenarios", pair))
    return edits


def format_edits(result: RulesDiff, edits: list[CatalogEdit]) -> str:
    date = release_date(result)
    lines = [f"catalog edits for release {date} (rules/catalog.toml, docs/new-cr-release.md)"]
    if date not in {r.date for r in catalog.releases()}:
        lines.append(f'  [[release]] date = "{date}", text = "{Path(result.new.name).name}"')
    lines += [f"  {e.kind:<6}  {e.text}" for e in edits]
    if len(lines) == 1:
        lines.append("  none: the catalog already describes this release")
    elif date in {r.date for r in catalog.releases()}:
        lines.insert(1, "  (a catalog release: only numbers where catalog and diff disagree)")
    return "\n".join(lines)


def draft_catalog(text: str, result: RulesDiff, edits: list[CatalogEdit]) -> str:
    """The catalog ``text`` with the new ``[[release]]`` and the ``number`` and ``until``
    edits applied (``review`` and ``new`` are left to a person)."""
    date = release_date(result)
    if date == "NEW":
        raise ValueError("the new text has no effective date (neither in the text nor in "
                         "the file name): cannot name the release")
    lines = text.split("\n")
    if f'date = "{date}"' not in lines:
        last = max(i for i, line in enumerate(lines) if line.startswith("text = ")
                   and lines[i - 1].startswith("date = "))
        lines[last + 1:last + 1] = ["", "[[release]]", f'date = "{date}"',
                                    f'text = "{Path(result.new.name).name}"']
    for edit in edits:
        if edit.kind not in ("number", "until"):
            continue
        start = lines.index(f'id = "{edit.group}"')
        at = next(i for i in range(start, len(lines)) if lines[i].startswith("numbers = {"))
        if edit.kind == "number":
            lines[at] = re.sub(r"\s*}$", f', "{date}" = "{edit.number}" }}', lines[at])
        else:
            lines.insert(at + 1, f'until = "{date}"')
    return "\n".join(lines)


def format_json(result: RulesDiff) -> str:
    """One record per reported rule, with the catalog edits it calls for."""
    edits = proposed_edits(result)
    return json.dumps([c.to_dict() | {"catalog_edits": [
        e.to_dict() for e in edits if e.change == (c.old, c.new)]} for c in result.changes],
        indent=2, ensure_ascii=False)


def cmd_rules_diff(args: argparse.Namespace) -> int:
    """``mtgcontrol rules diff OLD.txt NEW.txt [--format text|json] [--catalog-draft FILE]``:
    the report, then the catalog edits the new release needs (`mtgcontrol.release`);
    ``--catalog-draft`` writes the catalog with the mechanical ones applied."""
    old, new = read_cr(args.old), read_cr(args.new)
    result = diff_rules(old, new)
    edits = proposed_edits(result)
    if args.format == "json":
        print(format_json(result))
    else:
        print(format_text(result) + "\n\n" + format_edits(result, edits))
    if getattr(args, "catalog_draft", None):
        try:
            draft = draft_catalog(catalog.catalog_text()[1], result, edits)
        except ValueError as err:
            raise InputError([InputProblem(result.new.name, "$", str(err))]) from None
        write_output(args.catalog_draft, draft, "--catalog-draft")
    return 0
