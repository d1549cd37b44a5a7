"""Matching the rules of two CR texts across renumbering, stage by stage, and the catalog
and encodings as seen from one file (the stages are described in the package's
docstring)."""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from .. import catalog
from .crtext import CRText, Rule
from .normal import CONTROL_WORD, family, normalise, parents, ratio

SIMILARITY = 0.6
"""Least ``difflib`` ratio for pairing two unmatched rules by their text."""
NUMBER_FLOOR = 0.4
"""Least ratio for pairing two rules by their common number (a number reused for an
unrelated rule is not a match)."""
EVIDENCE_FLOOR = 0.3
"""Least ratio for pairing two rules on cross-reference evidence."""
WORD_SCREEN = 0.45
"""Pairs whose ratio over words is below this are not compared character by character."""

# --- The catalog as seen from one file ------------------------------------------------------

@dataclass(frozen=True)
class Scope:
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
    def of(cls, cr: CRText) -> Scope:
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
        families = frozenset(family(n) for n in numbers)
        return cls(chosen.name if chosen else None, exact, numbers, own, families)

    @property
    def label(self) -> str:
        if self.version is None:
            return "none (numbers of every supported version)"
        return self.version if self.exact else f"{self.version} (nearest older) + any version"

    def group(self, number: str) -> str | None:
        """The catalog group of `number`, else that of its family head (707.10 for 707.10e)."""
        entry = self.numbers.get(number) or self.numbers.get(family(number))
        return entry.group if entry else None

    def why(self, rule: Rule) -> str | None:
        """Why `rule` is an ownership/control rule, or None when it is not."""
        if rule.number in self.numbers:
            return "catalog"
        if family(rule.number) in self.families:
            return "catalog family"
        if CONTROL_WORD.search(rule.text):
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
class Pair:
    old: Rule | None
    new: Rule | None
    how: str = ""
    via: str = ""
    """For a cross-reference match: the matched rule whose reference changed."""
    same_text: bool = False
    """The normalised rule texts are equal (renumbering aside, the rule is the same)."""


@dataclass
class Matching:
    """The pairs found so far and the rules of each side still unmatched."""

    free_old: dict[str, Rule]
    free_new: dict[str, Rule]
    pairs: list[Pair] = field(default_factory=list)

    def take(self, o: Rule, n: Rule, how: str, via: str = "") -> None:
        del self.free_old[o.number], self.free_new[n.number]
        self.pairs.append(Pair(o, n, how, via))


def match(old: CRText, new: CRText, relevant: Callable[[Rule | None, Rule | None], bool],
           groups: tuple[dict[str, catalog.CatalogRule], dict[str, catalog.CatalogRule]]
           ) -> list[Pair]:
    """Pair the rules of `old` and `new`, stage by stage; each stage matches only what the
    earlier ones left; the rules left at the end are unmatched (added or removed)."""
    m = Matching({r.number: r for r in old.rules}, {r.number: r for r in new.rules})
    _match_text(m, old, new)
    _match_catalog_group(m, groups)
    _match_number(m)
    _match_similarity(m, relevant)
    _match_cross_reference(m)
    pairs = m.pairs
    pairs.extend(Pair(o, None) for o in m.free_old.values())
    pairs.extend(Pair(None, n) for n in m.free_new.values())
    for pair in pairs:
        if pair.old is not None and pair.new is not None:
            pair.same_text = normalise(pair.old.text) == normalise(pair.new.text)
    return pairs


def _match_text(m: Matching, old: CRText, new: CRText) -> None:
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
        m: Matching,
        groups: tuple[dict[str, catalog.CatalogRule], dict[str, catalog.CatalogRule]]) -> None:
    """2. The same catalog group (the catalog says they are the same rule)."""
    new_by_group = {entry.group: number for number, entry in groups[1].items()}
    for number, o in list(m.free_old.items()):
        entry = groups[0].get(number)
        target = new_by_group.get(entry.group) if entry else None
        if target is not None and target in m.free_new:
            m.take(o, m.free_new[target], "catalog group")


def _match_number(m: Matching) -> None:
    """3. The same number, when the texts are not unrelated."""
    for number, o in list(m.free_old.items()):
        n = m.free_new.get(number)
        if n is not None and ratio(normalise(o.text), normalise(n.text)) >= NUMBER_FLOOR:
            m.take(o, n, "number")


def _match_similarity(m: Matching,
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
    for _, o_num, n_num in sorted(scored, key=lambda s: (-s[0], catalog.rule_order(s[1]))):
        if o_num in m.free_old and n_num in m.free_new:
            m.take(m.free_old[o_num], m.free_new[n_num], "similarity")


def _match_cross_reference(m: Matching) -> None:
    """5. Cross-reference evidence from the matched pairs: an old reference X that every
    matched pair changed to the same Y (and nothing else to Y) pairs rule X with rule Y."""
    evidence: dict[str, set[str]] = defaultdict(set)
    backwards: dict[str, set[str]] = defaultdict(set)
    witness: dict[str, str] = {}
    for pair in m.pairs:
        assert pair.old is not None and pair.new is not None
        for x, y in reference_changes(pair.old.text, pair.new.text)[0]:
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
        if ratio(normalise(o.text), normalise(n.text)) >= EVIDENCE_FLOOR:
            m.take(o, n, "cross-reference", witness[x])


_REFERENCE = re.compile(r"(?<![\d.])\d{3}(?:\.\d+[a-z]?)?(?![\d])")


def reference_changes(a: str, b: str) -> tuple[list[tuple[str, str]], bool]:
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


def renumbering(pairs: Iterable[Pair], old: CRText) -> tuple[dict[str, str], set[str]]:
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
        for po, pn in zip(parents(pair.old.number), parents(pair.new.number), strict=False):
            derived[po].add(pn)
    parsed = old.by_number
    for number, targets in derived.items():
        if number not in parsed and len(targets) == 1:
            direct.setdefault(number, next(iter(targets)))
    return direct, changed
