"""The diff of two CR texts: each ownership/control rule classified, with word diffs,
the encodings citing it, and its text report."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import catalog
from .crtext import CRText, Rule
from .matching import SIMILARITY, Pair, Scope, citations, match, reference_changes, renumbering
from .normal import SPACES, fold, normalise, text_hash

CRITERION = (
    "ownership/control rules: number in the rules catalog of the file's version (nearest "
    "older supported version and any version's numbers when unsupported), or in the family "
    "of a catalog rule (same number up to the letter), or text (examples aside) mentioning "
    "control/controller/owner/own as a word"
)
MATCHING = (
    "matched by identical normalised text, then catalog group, then number, then text "
    f"similarity >= {SIMILARITY}, then cross-reference evidence"
)

KINDS = ("changed", "appeared", "disappeared", "examples changed", "editorial", "renumbered")
"""Report order of the classifications."""

# --- Word diffs -------------------------------------------------------------------------------

MAX_RUN = 12
"""Inserted or deleted runs longer than this many words are shortened."""
MAX_HUNKS = 5


def _run(words: Sequence[str]) -> str:
    if len(words) > MAX_RUN:
        words = [*words[:8], "…", *words[-3:]]
    return " ".join(words)


def word_diff(a: str, b: str, context: int = 3) -> list[str]:
    """A compact word diff: one line per hunk, ``[-deleted-]`` and ``{+inserted+}``."""
    ta, tb = fold(a).split(), fold(b).split()
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    if ta == tb:
        return []
    lines: list[str] = []
    groups = list(matcher.get_grouped_opcodes(context))
    for group in groups[:MAX_HUNKS]:
        parts: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                parts.append(" ".join(ta[i1:i2]))
                continue
            if tag in ("delete", "replace"):
                parts.append(f"[-{_run(ta[i1:i2])}-]")
            if tag in ("insert", "replace"):
                parts.append(f"{{+{_run(tb[j1:j2])}+}}")
        line = " ".join(p for p in parts if p)
        if group[0][1] > 0:
            line = "… " + line
        if group[-1][2] < len(ta):
            line += " …"
        lines.append(line)
    if len(groups) > MAX_HUNKS:
        lines.append(f"… ({len(groups) - MAX_HUNKS} more differences)")
    return lines


# --- The diff -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RuleChange:
    """One reported ownership/control rule."""

    kind: str
    """One of `KINDS`."""
    old: str | None
    new: str | None
    summary: str
    """The catalog paraphrase, else the start of the rule text (shortened)."""
    diff: tuple[str, ...] = ()
    """Word diff of the rule text (changed, editorial)."""
    examples_diff: tuple[str, ...] = ()
    """Word diff of the examples, when they differ."""
    encodings: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    """The encoding groups (catalog ``asp``) of its old and new number."""
    old_text_hash: str | None = None
    new_text_hash: str | None = None
    matched_by: str | None = None
    """text, catalog group, number, similarity or cross-reference; None when unmatched."""
    criterion: str = ""
    """Why it is an ownership/control rule: catalog, catalog family, mentions control/owner."""
    note: str = ""
    ids: tuple[str, ...] = ()
    """The stable catalog group ids of `groups`."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "old": self.old, "new": self.new,
                "old_text_hash": self.old_text_hash, "new_text_hash": self.new_text_hash,
                "diff": list(self.diff), "examples_diff": list(self.examples_diff),
                "encodings": list(self.encodings), "groups": list(self.groups),
                "ids": list(self.ids),
                "summary": self.summary, "matched_by": self.matched_by,
                "criterion": self.criterion, "note": self.note}


@dataclass(frozen=True)
class RulesDiff:
    """The result of comparing two CR texts."""

    old: CRText
    new: CRText
    old_catalog: str
    new_catalog: str
    compared: int
    """How many ownership/control rules (pairs or unmatched rules) were compared."""
    changes: tuple[RuleChange, ...] = field(default=())

    def of_kind(self, kind: str) -> list[RuleChange]:
        return [c for c in self.changes if c.kind == kind]


def _shorten(text: str, limit: int) -> str:
    text = SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def diff_rules(old: CRText, new: CRText) -> RulesDiff:
    """Compare the ownership/control rules of two parsed CR texts."""
    scope_old, scope_new = Scope.of(old), Scope.of(new)

    def why(o: Rule | None, n: Rule | None) -> str | None:
        return (o and scope_old.why(o)) or (n and scope_new.why(n)) or None

    pairs = match(old, new, lambda o, n: why(o, n) is not None,
                   (scope_old.own, scope_new.own))
    renumbered, changed_numbers = renumbering(pairs, old)
    cited = citations()
    old_numbers = {r.number for r in old.rules}
    changes: list[RuleChange] = []
    compared = 0
    for pair in pairs:
        o, n = pair.old, pair.new
        reason = why(o, n)
        if reason is None:
            continue
        compared += 1
        kind, note = _classify(pair, renumbered, changed_numbers, old_numbers)
        if kind is None:
            continue
        groups = {g for g in (o and scope_old.group(o.number), n and scope_new.group(n.number))
                  if g}
        encodings = sorted({f for g in groups for f in cited.get(g, ())})
        entry = (scope_new.numbers.get(n.number) if n else None) or \
            (scope_old.numbers.get(o.number) if o else None)
        shown = n if n is not None and kind != "disappeared" else o
        assert shown is not None
        summary = _shorten(entry.paraphrase, 80) if entry else _shorten(shown.text, 60)
        text_diff: list[str] = []
        examples_diff: list[str] = []
        if o is not None and n is not None:
            if kind in ("changed", "editorial"):
                text_diff = word_diff(o.text, n.text)
                if kind == "editorial" and not text_diff and o.text != n.text:
                    note = note or "typography only (quotes, dashes, ellipses, spacing)"
            if o.examples != n.examples:
                examples_diff = word_diff(" ".join(o.examples), " ".join(n.examples))
        changes.append(RuleChange(
            kind, o.number if o else None, n.number if n else None, summary,
            tuple(text_diff), tuple(examples_diff), tuple(encodings), tuple(sorted(groups)),
            text_hash(o.text) if o else None, text_hash(n.text) if n else None,
            pair.how or None, reason, note,
            tuple(sorted({found[0].id for g in groups if (found := catalog.by_asp(g))}))))
    changes.sort(key=lambda c: (KINDS.index(c.kind), catalog.rule_order(c.new or c.old or "000.0")))
    return RulesDiff(old, new, scope_old.label, scope_new.label, compared, tuple(changes))


def _why_unverified(cited: str, renumbered: dict[str, str], changed_numbers: set[str],
                    old_numbers: set[str]) -> str:
    if cited in changed_numbers:
        return " (the cited rule changed)"
    if cited in renumbered:
        return f" (the cited rule became {renumbered[cited]})"
    if cited in old_numbers:
        return " (the cited rule has no match)"
    return " (not checked: the cited rule is not in both files)"


def _classify(pair: Pair, renumbered: dict[str, str], changed_numbers: set[str],
              old_numbers: set[str]) -> tuple[str | None, str]:
    o, n = pair.old, pair.new
    if o is None:
        return "appeared", ""
    if n is None:
        return "disappeared", ""
    note = ""
    if pair.same_text:
        text = "same" if o.text == n.text else "editorial"
    else:
        refs, only = reference_changes(o.text, n.text)
        unverified = [(x, y) for x, y in refs if renumbered.get(x) != y]
        if only and refs and not unverified:
            text = "editorial"
            note = "cross-references follow renumbered rules: " + ", ".join(
                f"{x}→{y}" for x, y in refs)
        else:
            text = "changed"
            if only and refs:
                note = "only cross-references differ: " + ", ".join(
                    f"{x}→{y}" + (_why_unverified(x, renumbered, changed_numbers, old_numbers)
                                  if (x, y) in unverified else "") for x, y in refs)
    if pair.how == "cross-reference":
        note = (note + "; " if note else "") + \
            f"matched through rule {pair.via}, whose reference to {o.number} became {n.number}"
    examples_same = [normalise(e) for e in o.examples] == [normalise(e) for e in n.examples]
    if text == "changed":
        return "changed", note
    if not examples_same:
        return "examples changed", note
    if text == "editorial" or o.examples != n.examples:
        return "editorial", note
    if o.number != n.number:
        return "renumbered", note
    return None, note


# --- Output ---------------------------------------------------------------------------------

def _describe(cr: CRText, scope_label: str) -> str:
    version = cr.version or "unknown"
    if cr.version_source == "file name":
        version += " (from the file name)"
    return f"{cr.name}  (effective {version}; catalog {scope_label})"


def format_text(result: RulesDiff) -> str:
    counts = ", ".join(f"{len(result.of_kind(k))} {k}" for k in KINDS)
    lines = [
        "CR rules diff: ownership/control rules",
        f"old: {_describe(result.old, result.old_catalog)}",
        f"new: {_describe(result.new, result.new_catalog)}",
        f"criterion: {CRITERION}",
        f"matching: {MATCHING}",
        f"{result.compared} ownership/control rules compared: {counts}",
    ]
    if not result.changes:
        lines.append("no differences")
    for kind in KINDS:
        found = result.of_kind(kind)
        if not found:
            continue
        lines += ["", f"{kind} ({len(found)})"]
        for c in found:
            numbers = f"{c.old or '—'} -> {c.new or '—'}"
            lines.append(f"  {numbers:<19} [{', '.join(c.encodings)}]  {c.summary}")
            if c.note:
                lines.append(f"      note: {c.note}")
            lines += [f"      {d}" for d in c.diff]
            lines += [f"      examples: {d}" for d in c.examples_diff]
    return "\n".join(lines)
