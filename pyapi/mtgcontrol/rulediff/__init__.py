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

from .crtext import CRText, Rule, parse_cr, read_cr
from .normal import fold, normalise
from .report import CRITERION, KINDS, RuleChange, RulesDiff, diff_rules, format_text, word_diff

__all__ = [
    "CRITERION", "CRText", "KINDS", "Rule", "RuleChange", "RulesDiff",
    "diff_rules", "fold", "format_text", "normalise", "parse_cr", "read_cr", "word_diff",
]
