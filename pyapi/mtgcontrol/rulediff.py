"""``mtgcontrol rules diff OLD.txt NEW.txt``: the ownership/control rules that changed
between two Comprehensive Rules texts, matched across renumbering, with the encodings
that cite them.  The starting point for updating the encodings to a new CR release.

Input.  The official plain-text CR as Wizards publishes it (intro, contents, numbered
rules, ``Example:`` lines, glossary, credits; UTF-8 or Windows-1252, with or without a
BOM, any line ends), or the project's extracts ``cr-*.txt`` (the same rule lines plus
``#`` comment lines, which are skipped).  A line starting with a rule number
(``108.3.`` or ``108.3a``) followed by a space starts a rule; the ``Example:`` lines
after it belong to it; any other non-blank line ends it.  The contents lines
(``1. Game Concepts``, ``100. General``) have no sub-number and are never rules; parsing
stops at the ``Glossary`` or ``Credits`` heading that follows the rules.  The version is
the date of "These rules are effective as of <Month D, YYYY>." (else a date in the file
name, else unknown).

Which rules are ownership/control rules (`CRITERION`).  A rule is one when, in either
file,

* its number is in the rules catalog (`mtgcontrol.catalog`) of that file's version -- the
  version itself when supported, else the nearest older supported version together with
  the numbers of every supported version;
* or it belongs to the family of a catalog rule: same rule number up to the letter, so
  611.2e counts because 611.2a-c are catalogued, and 701.10c because 701.10a is (a family
  is what the encodings and the extracts treat as a unit);
* or its text (examples aside) mentions control, controls, controlled, controlling,
  controller(s), owner(s), own, owns or owned as a word, so that a new release's new
  control rules are caught.

Matching across renumbering, over all parsed rules, in this order: identical text after
editorial normalisation (same number first when a text occurs more than once); the same
catalog group (the catalogs of both versions file the two numbers under one group, e.g.
613.6c in 2012 and 2017, both 613.7d, though reworded); the same number, when the texts
are at least `NUMBER_FLOOR` similar; the best text similarity
(``difflib`` ratio at least `SIMILARITY`), greedily, among the still unmatched pairs that
involve an ownership/control rule; finally cross-reference evidence: when a matched rule's
reference changes from X to Y (110.2's "see rule 110.5a" becoming "see rule 111.2"),
unmatched X and Y are paired if that evidence is unambiguous and their texts are at least
`EVIDENCE_FLOOR` similar.

Classification of a matched pair: ``changed`` (the rule text differs beyond editorial
normalisation; a compact word diff is shown), ``editorial`` (it differs only by
normalisation: curly/straight quotes, dashes, ellipses, whitespace, "he or she"/"his or
her" to "they"/"their" with the verb agreeing -- or only by cross-references whose
targets were merely renumbered: matched to the cited new number with the same normalised
text), ``examples changed`` (the rule text is the same, the examples are not),
``renumbered`` (the same text under a new number); unmatched rules ``appeared`` or
``disappeared``.  A cross-reference to a rule that is not in both files cannot be checked,
so such a change is ``changed``, with a note saying so.

Catalog edits.  After the report, `mtgcontrol.release` proposes the edits of
``rules/catalog.toml`` the new release needs (renumbered, changed, new, gone), and
``--catalog-draft FILE`` writes the catalog with the mechanical ones applied
(docs/new-cr-release.md).

Encodings.  A reported rule maps to its catalog group(s) (its old number in the old
version's catalog, its new number in the new one's; a rule outside the catalog maps to the
group of its family head when that is catalogued: 707.10e to 707.10); an encoding cites a
group when the group id appears as a double-quoted string (``"613.7m"``) in the code of a
``.lp`` file of the installed package ``mtgcontrol.encodings`` (``%`` comments ignored).
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from . import catalog
from .engine.api import InputError
from .engine.files import read_input
from .engine.validate import InputProblem

__all__ = [
    "CRITERION", "CRText", "Rule", "RuleChange", "RulesDiff",
    "diff_rules", "format_text", "parse_cr", "read_cr",
]

SIMILARITY = 0.6
"""Least ``difflib`` ratio for pairing two unmatched rules by their text."""
NUMBER_FLOOR = 0.4
"""Least ratio for pairing two rules by their common number (a number reused for an
unrelated rule is not a match)."""
EVIDENCE_FLOOR = 0.3
"""Least ratio for pairing two rules on cross-reference evidence."""
WORD_SCREEN = 0.45
"""Pairs whose ratio over words is below this are not compared character by character."""

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

# --- Parsing ------------------------------------------------------------------------------

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


# --- Normalisation --------------------------------------------------------------------------

_QUOTES = str.maketrans({c: '"' for c in "“”„‟″«»"} | {c: "'" for c in "‘’‚‛′`"})
_DASHES = re.compile(r"\s*[‐‑‒–—―−-]+\s*")
_ELLIPSIS = re.compile(r"\.\s*\.\s*\.|…")
_SPACES = re.compile(r"\s+")
_PRONOUNS = (
    (re.compile(r"\bhimself or herself\b"), "themselves"),
    (re.compile(r"\bHimself or herself\b"), "Themselves"),
    (re.compile(r"\bhim or her\b"), "them"),
    (re.compile(r"\bhis or her\b"), "their"),
    (re.compile(r"\bHis or her\b"), "Their"),
)
_HE_OR_SHE = re.compile(r"\b([Hh])e or she(?: (\w+(?:n't)?))?")
_PLURAL = {"is": "are", "has": "have", "does": "do", "was": "were", "isn't": "aren't",
           "doesn't": "don't", "hasn't": "haven't", "wasn't": "weren't", "goes": "go"}
_CONTROL_WORD = re.compile(
    r"\b(?:control(?:s|led|ling|ler|lers)?|owner(?:s)?|own(?:s|ed)?)\b", re.IGNORECASE)


def fold(text: str) -> str:
    """Typography folded: quotes, dashes and hyphens (``once—the``, ``once -- the``,
    ``603.7d–f`` become ``once-the``, ``603.7d-f``), ellipses, whitespace."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _ELLIPSIS.sub(" . . . ", text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text).strip()


def _plural(verb: str) -> str:
    low = verb.lower()
    if low in _PLURAL:
        return _PLURAL[low]
    if len(low) > 4 and low.endswith("ies"):
        return verb[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def _they(found: re.Match[str]) -> str:
    they = "They" if found.group(1) == "H" else "they"
    return f"{they} {_plural(found.group(2))}" if found.group(2) else they


@cache
def normalise(text: str) -> str:
    """`fold` plus the gender-neutral pronoun changes: the editorial normal form."""
    text = fold(text)
    for pattern, plain in _PRONOUNS:
        text = pattern.sub(plain, text)
    return _HE_OR_SHE.sub(_they, text)


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _sort_key(number: str) -> tuple[int, int, str]:
    found = re.fullmatch(r"(\d+)\.(\d+)([a-z]*)", number)
    if found is None:
        return 0, 0, number
    return int(found.group(1)), int(found.group(2)), found.group(3)


def _family(number: str) -> str:
    return number.rstrip("abcdefghijklmnopqrstuvwxyz")


def _parents(number: str) -> list[str]:
    """``720.5a`` -> ``["720.5", "720"]``; ``720.5`` -> ``["720"]``."""
    found = [number.partition(".")[0]]
    if _family(number) != number:
        found.insert(0, _family(number))
    return found


# --- The catalog as seen from one file ------------------------------------------------------

@dataclass(frozen=True)
class _Scope:
    """The catalog numbers that apply to one file's rules."""

    version: str | None
    """The catalog version used (exact or nearest older), or None."""
    exact: bool
    numbers: dict[str, catalog.CatalogRule]
    """Number -> catalog entry, the file's own catalog first."""
    own: dict[str, catalog.CatalogRule]
    """Number -> catalog entry of the version used only."""
    families: frozenset[str]
    """The family heads (numbers up to the letter) of `numbers`."""

    @classmethod
    def of(cls, cr: CRText) -> _Scope:
        chosen: catalog.Version | None = None
        if cr.version is not None:
            try:
                chosen = catalog.resolve(cr.version)
            except catalog.UnknownVersion:
                chosen = None
        exact = chosen is not None and chosen.name == cr.version
        own = {r.number: r for r in chosen.rules} if chosen is not None else {}
        numbers = dict(own)
        if not exact:
            for version in reversed(catalog.versions()):
                for r in version.rules:
                    numbers.setdefault(r.number, r)
        families = frozenset(_family(n) for n in numbers)
        return cls(chosen.name if chosen else None, exact, numbers, own, families)

    @property
    def label(self) -> str:
        if self.version is None:
            return "none (numbers of every supported version)"
        return self.version if self.exact else f"{self.version} (nearest older) + any version"

    def group(self, number: str) -> str | None:
        """The catalog group of `number`, else that of its family head (707.10 for 707.10e)."""
        entry = self.numbers.get(number) or self.numbers.get(_family(number))
        return entry.group if entry else None

    def why(self, rule: Rule) -> str | None:
        """Why `rule` is an ownership/control rule, or None when it is not."""
        if rule.number in self.numbers:
            return "catalog"
        if _family(rule.number) in self.families:
            return "catalog family"
        if _CONTROL_WORD.search(rule.text):
            return "mentions control/owner"
        return None


# --- Encodings ------------------------------------------------------------------------------

_ASP_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|%\*.*?\*%|%[^\n]*', re.DOTALL)


@cache
def citations() -> dict[str, tuple[str, ...]]:
    """Quoted string -> the ``.lp`` files of ``mtgcontrol.encodings`` whose code has it."""
    found: dict[str, set[str]] = defaultdict(set)
    for entry in resources.files("mtgcontrol.encodings").iterdir():
        if not entry.name.endswith(".lp"):
            continue
        for token in _ASP_TOKEN.findall(entry.read_text(encoding="utf-8")):
            if token.startswith('"'):
                found[token[1:-1]].add(entry.name)
    return {key: tuple(sorted(names)) for key, names in found.items()}


# --- Matching -------------------------------------------------------------------------------

@dataclass
class _Pair:
    old: Rule | None
    new: Rule | None
    how: str = ""
    via: str = ""
    """For a cross-reference match: the matched rule whose reference changed."""
    same_text: bool = False
    """The normalised rule texts are equal (renumbering aside, the rule is the same)."""


@dataclass
class _Matching:
    """The pairs found so far and the rules of each side still unmatched."""

    free_old: dict[str, Rule]
    free_new: dict[str, Rule]
    pairs: list[_Pair] = field(default_factory=list)

    def take(self, o: Rule, n: Rule, how: str, via: str = "") -> None:
        del self.free_old[o.number], self.free_new[n.number]
        self.pairs.append(_Pair(o, n, how, via))


def _match(old: CRText, new: CRText, relevant: Callable[[Rule | None, Rule | None], bool],
           groups: tuple[dict[str, catalog.CatalogRule], dict[str, catalog.CatalogRule]]
           ) -> list[_Pair]:
    """Pair the rules of `old` and `new`, stage by stage; each stage matches only what the
    earlier ones left; the rules left at the end are unmatched (added or removed)."""
    m = _Matching({r.number: r for r in old.rules}, {r.number: r for r in new.rules})
    _match_text(m, old, new)
    _match_catalog_group(m, groups)
    _match_number(m)
    _match_similarity(m, relevant)
    _match_cross_reference(m)
    pairs = m.pairs
    pairs.extend(_Pair(o, None) for o in m.free_old.values())
    pairs.extend(_Pair(None, n) for n in m.free_new.values())
    for pair in pairs:
        if pair.old is not None and pair.new is not None:
            pair.same_text = normalise(pair.old.text) == normalise(pair.new.text)
    return pairs


def _match_text(m: _Matching, old: CRText, new: CRText) -> None:
    """1. Identical normalised text; the same number first when a text repeats."""
    by_text: dict[str, list[Rule]] = defaultdict(list)
    for r in new.rules:
        by_text[normalise(r.text)].append(r)
    for o in old.rules:
        candidates = by_text.get(normalise(o.text), [])
        same = [n for n in candidates if n.number == o.number]
        if same:
            candidates.remove(same[0])
            m.take(o, same[0], "text")
    for o in list(m.free_old.values()):
        candidates = by_text.get(normalise(o.text), [])
        if candidates:
            m.take(o, candidates.pop(0), "text")


def _match_catalog_group(
        m: _Matching,
        groups: tuple[dict[str, catalog.CatalogRule], dict[str, catalog.CatalogRule]]) -> None:
    """2. The same catalog group (the catalog says they are the same rule)."""
    new_by_group = {entry.group: number for number, entry in groups[1].items()}
    for number, o in list(m.free_old.items()):
        entry = groups[0].get(number)
        target = new_by_group.get(entry.group) if entry else None
        if target is not None and target in m.free_new:
            m.take(o, m.free_new[target], "catalog group")


def _match_number(m: _Matching) -> None:
    """3. The same number, when the texts are not unrelated."""
    for number, o in list(m.free_old.items()):
        n = m.free_new.get(number)
        if n is not None and _ratio(normalise(o.text), normalise(n.text)) >= NUMBER_FLOOR:
            m.take(o, n, "number")


def _match_similarity(m: _Matching,
                      relevant: Callable[[Rule | None, Rule | None], bool]) -> None:
    """4. Best similarity among the unmatched, greedily (a ratio over words, cheap, screens
    the pairs first: it is never far below the ratio over characters for texts as alike as
    SIMILARITY)."""
    scored: list[tuple[float, str, str]] = []
    words = difflib.SequenceMatcher(None, autojunk=False)
    chars = difflib.SequenceMatcher(None, autojunk=False)
    old_relevant = {number: relevant(o, None) for number, o in m.free_old.items()}
    for n in m.free_new.values():
        b = normalise(n.text)
        words.set_seq2(b.split())
        chars.set_seq2(b)
        new_relevant = relevant(None, n)
        for o in m.free_old.values():
            if not new_relevant and not old_relevant[o.number]:
                continue
            a = normalise(o.text)
            words.set_seq1(a.split())
            if (words.real_quick_ratio() < WORD_SCREEN or words.quick_ratio() < WORD_SCREEN
                    or words.ratio() < WORD_SCREEN):
                continue
            chars.set_seq1(a)
            if chars.quick_ratio() >= SIMILARITY and (ratio := chars.ratio()) >= SIMILARITY:
                scored.append((ratio, o.number, n.number))
    for _, o_num, n_num in sorted(scored, key=lambda s: (-s[0], _sort_key(s[1]))):
        if o_num in m.free_old and n_num in m.free_new:
            m.take(m.free_old[o_num], m.free_new[n_num], "similarity")


def _match_cross_reference(m: _Matching) -> None:
    """5. Cross-reference evidence from the matched pairs: an old reference X that every
    matched pair changed to the same Y (and nothing else to Y) pairs rule X with rule Y."""
    evidence: dict[str, set[str]] = defaultdict(set)
    backwards: dict[str, set[str]] = defaultdict(set)
    witness: dict[str, str] = {}
    for pair in m.pairs:
        assert pair.old is not None and pair.new is not None
        for x, y in _reference_changes(pair.old.text, pair.new.text)[0]:
            evidence[x].add(y)
            backwards[y].add(x)
            witness.setdefault(x, pair.new.number)
    for x, ys in sorted(evidence.items()):
        if len(ys) != 1:
            continue
        (y,) = ys
        if backwards[y] != {x} or x not in m.free_old or y not in m.free_new:
            continue
        o, n = m.free_old[x], m.free_new[y]
        if _ratio(normalise(o.text), normalise(n.text)) >= EVIDENCE_FLOOR:
            m.take(o, n, "cross-reference", witness[x])


_REFERENCE = re.compile(r"(?<![\d.])\d{3}(?:\.\d+[a-z]?)?(?![\d])")


def _reference_changes(a: str, b: str) -> tuple[list[tuple[str, str]], bool]:
    """The cross-reference changes X -> Y between two texts, and whether they are the only
    difference (after normalisation)."""
    ta, tb = normalise(a).split(), normalise(b).split()
    found: list[tuple[str, str]] = []
    only = True
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            only = False
            continue
        for wa, wb in zip(ta[i1:i2], tb[j1:j2], strict=True):
            ra, rb = _REFERENCE.findall(wa), _REFERENCE.findall(wb)
            if len(ra) == 1 and len(rb) == 1 and _REFERENCE.sub("#", wa) == _REFERENCE.sub("#", wb):
                found.append((ra[0], rb[0]))
            else:
                only = False
    return found, only


def _renumbering(pairs: Iterable[_Pair], old: CRText) -> tuple[dict[str, str], set[str]]:
    """Old number -> new number for the rules merely renumbered (same normalised text),
    including parent numbers derived consistently from their children; and the old numbers
    whose rule is matched but changed."""
    direct: dict[str, str] = {}
    changed: set[str] = set()
    derived: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        if pair.old is None or pair.new is None:
            continue
        if not pair.same_text:
            changed.add(pair.old.number)
            continue
        direct[pair.old.number] = pair.new.number
        for po, pn in zip(_parents(pair.old.number), _parents(pair.new.number), strict=False):
            derived[po].add(pn)
    parsed = old.by_number
    for number, targets in derived.items():
        if number not in parsed and len(targets) == 1:
            direct.setdefault(number, next(iter(targets)))
    return direct, changed


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
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def diff_rules(old: CRText, new: CRText) -> RulesDiff:
    """Compare the ownership/control rules of two parsed CR texts."""
    scope_old, scope_new = _Scope.of(old), _Scope.of(new)

    def why(o: Rule | None, n: Rule | None) -> str | None:
        return (o and scope_old.why(o)) or (n and scope_new.why(n)) or None

    pairs = _match(old, new, lambda o, n: why(o, n) is not None,
                   (scope_old.own, scope_new.own))
    renumbered, changed_numbers = _renumbering(pairs, old)
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
            _hash(o.text) if o else None, _hash(n.text) if n else None,
            pair.how or None, reason, note,
            tuple(sorted({found[0].id for g in groups if (found := catalog.by_asp(g))}))))
    changes.sort(key=lambda c: (KINDS.index(c.kind), _sort_key(c.new or c.old or "000.0")))
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


def _classify(pair: _Pair, renumbered: dict[str, str], changed_numbers: set[str],
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
        refs, only = _reference_changes(o.text, n.text)
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
