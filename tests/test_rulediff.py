"""`mtgcontrol rules diff`: CR texts parsed in both shapes (official document, project
extract) and encodings, ownership/control rules matched across renumbering and classified,
with the encodings citing them (mtgcontrol.rulediff).  Real data: the CR extracts
(tests/crtexts.py says where)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crtexts import CR_DIR

from mtgcontrol.cli import main
from mtgcontrol.rulediff import (
    CRText,
    RulesDiff,
    diff_rules,
    format_text,
    normalise,
    parse_cr,
    read_cr,
    word_diff,
)

CR = CR_DIR

needs_cr = pytest.mark.skipif(
    not (CR / "cr-2026-08-07.txt").is_file(),
    reason=f"the CR extracts are not at {CR} (the shared folder beside the repository)")


def cr(version: str) -> CRText:
    return read_cr(CR / f"cr-{version}.txt")


def pairs(result: RulesDiff, kind: str) -> set[tuple[str | None, str | None]]:
    return {(c.old, c.new) for c in result.of_kind(kind)}


def shape(text: CRText) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(r.number, r.text, r.examples) for r in text.rules]


# --- 2024-11-08 -> 2026-08-07 -------------------------------------------------------------------

# What `diff` of the two extracts (without the '#' lines) shows, rule by rule, and why each
# is or is not an ownership/control rule (catalog number, catalog family, control/owner word):
CHANGED_2026 = {
    ("112.1", "112.1"),      # "its owner's hand": see rule 701.5 -> 701.6 (Counter, not extracted)
    ("405.4", "405.4"),      # catalog: the controller of a spell is the "person" -> "player"
    ("611.2e", "611.2e"),    # family of 611.2a-c: "is", "has" or "doesn't have" a characteristic
    ("613.7g", "613.7g"),    # family of 613.7: "transforming double-faced" -> "double-faced"
    ("707.10e", "707.10e"),  # family of 707.10: the copy's controller chooses (+ a new example)
    ("707.10g", "707.10g"),  # family of 707.10: "transforming" -> "double-faced"
    ("720.9", "723.9"),      # renumbered and reworded: "An effect may give a player control..."
    ("800.4i", "800.4i"),    # family of 800.4a-d: a sentence about "last turn" added
    ("901.8", "901.8"),      # "controlled by": see rule 701.24 -> 701.31 (not extracted)
}
RENUMBERED_2026 = (
    {("701.10", "701.12")}
    | {(f"701.10{x}", f"701.12{x}") for x in "abcdefgh"}
    | {(f"720.{n}", f"723.{n}") for n in ("1", "1a", "1b", "2", "3", "4", "5", "5a", "5b", "6",
                                          "7", "8")}
)


@pytest.fixture(scope="module")
def diff_2026() -> RulesDiff:
    if not (CR / "cr-2024-11-08.txt").is_file():
        pytest.skip(f"the CR extracts are not at {CR}")
    return diff_rules(cr("2024-11-08"), cr("2026-08-07"))


@needs_cr
def test_2024_to_2026_exact_list(diff_2026: RulesDiff) -> None:
    assert diff_2026.old.version == "2024-11-08" and diff_2026.new.version == "2026-08-07"
    assert pairs(diff_2026, "changed") == CHANGED_2026
    assert pairs(diff_2026, "appeared") == {(None, "613.7n")}
    assert pairs(diff_2026, "disappeared") == set()
    # The Master Thief example now says "this creature"; the rule text is the same.
    assert pairs(diff_2026, "examples changed") == {("611.2b", "611.2b")}
    assert pairs(diff_2026, "editorial") == set()
    assert pairs(diff_2026, "renumbered") == RENUMBERED_2026


@needs_cr
def test_2024_to_2026_leaves_out_what_is_not_ownership_or_control(diff_2026: RulesDiff) -> None:
    reported = {c.new for c in diff_2026.changes} | {c.old for c in diff_2026.changes}
    # 707.12a ("may cast" multiple copies) appeared, and 111.4 / 111.12 (token naming, copies
    # of nonexistent objects) changed only their examples, and 903.3 (commander) changed, but
    # none is catalogued in any version, in a catalogued family, or mentions control/owner.
    assert not reported & {"707.12a", "111.4", "111.12", "903.3"}


@needs_cr
def test_2024_to_2026_details(diff_2026: RulesDiff) -> None:
    by_new = {c.new: c for c in diff_2026.changes}
    assert by_new["405.4"].diff == ("… spell is the [-person-] {+player+} who cast it. …",)
    assert "abilities.lp" in by_new["405.4"].encodings
    assert by_new["405.4"].old_text_hash != by_new["405.4"].new_text_hash
    assert by_new["707.10e"].examples_diff and by_new["707.10e"].examples_diff[0].startswith(
        "{+Example: Frontline Heroism")
    assert "spells.lp" in by_new["707.10e"].encodings  # through its family head 707.10
    assert "not checked" in by_new["112.1"].note and "701.5→701.6" in by_new["112.1"].note
    assert by_new["723.9"].matched_by == "similarity"
    assert by_new["701.12b"].encodings == ("layer2.lp",)  # cites "701.12b"
    assert by_new["723.1a"].encodings == ("players.lp",)
    renumbered = by_new["723.3"]
    assert renumbered.old_text_hash == renumbered.new_text_hash and not renumbered.diff


@needs_cr
def test_text_report_is_grouped_and_short(diff_2026: RulesDiff) -> None:
    report = format_text(diff_2026)
    assert "criterion:" in report and "catalog" in report
    sections = [line for line in report.splitlines() if line and not line.startswith(" ")]
    assert "changed (9)" in sections and "renumbered (21)" in sections
    assert sections.index("changed (9)") < sections.index("appeared (1)") < \
        sections.index("renumbered (21)")
    assert "  720.9 -> 723.9" in report
    assert "      … spell is the [-person-] {+player+} who cast it. …" in report
    # no whole rule texts: every line is short except the word-diff snippets
    assert all(len(line) < 200 for line in report.splitlines() if "[-" not in line
               and "{+" not in line and not line.startswith("criterion"))


# --- 2017-04-28 -> 2020-11-20 -------------------------------------------------------------------

@needs_cr
def test_2017_to_2020_token_rule_is_a_real_change() -> None:
    result = diff_rules(cr("2017-04-28"), cr("2020-11-20"))
    changes = {(c.old, c.new): c for c in result.changes}
    token = changes[("110.5a", "111.2")]
    assert token.kind == "changed"
    assert token.matched_by == "cross-reference"  # 110.2's "see rule 110.5a" became "111.2"
    assert "permanents.lp" in token.encodings
    assert "110.5a@2017-04-28" in token.groups and "111.2" in token.groups
    assert token.ids == ("token-owner",)  # one stable group, two meanings
    # the rule renumbered from 111.2 (spell owner) is the same text
    assert changes[("111.2", "112.2")].kind == "renumbered"
    # a reference that follows a merely renumbered rule is editorial ...
    assert changes[("108.4", "108.4")].kind == "editorial"
    assert "111.2→112.2" in changes[("108.4", "108.4")].note
    # ... one that follows a changed rule is not
    assert changes[("110.2", "110.2")].kind == "changed"
    assert "110.5a→111.2 (the cited rule changed)" in changes[("110.2", "110.2")].note
    # "he or she leaves" -> "they leave" is editorial
    assert changes[("309.5", "309.5")].kind == "editorial"
    # "five" -> "six" exceptions is a change
    assert changes[("109.4", "109.4")].kind == "changed"


@needs_cr
def test_2012_to_2017_catalog_group_matches_a_reworded_rule() -> None:
    result = diff_rules(cr("2012-10-01"), cr("2017-04-28"))
    changes = {(c.old, c.new): c for c in result.changes}
    # both catalogs file 613.6c under 613.7d, though its wording was rewritten
    assert changes[("613.6c", "613.6c")].matched_by == "catalog group"
    assert changes[("613.6c", "613.6c")].kind == "changed"
    # ASCII "once -- the next" and "once—the next" are the same text
    assert changes[("603.7b", "603.7b")].kind == "editorial"
    assert changes[("603.7b", "603.7b")].note.startswith("typography only")


@needs_cr
@pytest.mark.parametrize("version", ["2012-10-01", "2017-04-28", "2024-11-08", "2026-08-07"])
def test_a_file_against_itself_has_no_differences(version: str) -> None:
    result = diff_rules(cr(version), cr(version))
    assert result.changes == () and result.compared > 100
    assert "no differences" in format_text(result)


@needs_cr
def test_unsupported_version_uses_the_nearest_older_catalog() -> None:
    text = (CR / "cr-2026-08-07.txt").read_text(encoding="utf-8")
    future = parse_cr(text.replace("August 7, 2026", "January 1, 2030"), "future.txt")
    assert future.version == "2030-01-01"
    result = diff_rules(cr("2026-08-07"), future)
    assert result.changes == ()
    assert result.new_catalog.startswith("2026-08-07 (nearest older)")
    # the numbers of every supported version count too, so at least as many rules compared
    assert result.compared >= diff_rules(cr("2026-08-07"), cr("2026-08-07")).compared


# --- Parsing ----------------------------------------------------------------------------------

@needs_cr
def test_crlf_windows_1252_bom_variant_parses_the_same(tmp_path: Path) -> None:
    original = (CR / "cr-2026-08-07.txt").read_text(encoding="utf-8")
    variant = tmp_path / "MagicCompRules.txt"
    variant.write_bytes(b"\xef\xbb\xbf" + original.replace("\n", "\r\n").encode("cp1252"))
    parsed, expected = read_cr(variant), cr("2026-08-07")
    assert shape(parsed) == shape(expected)
    assert parsed.version == "2026-08-07"
    assert diff_rules(expected, parsed).changes == ()


FRONT = """\
Magic: The Gathering Comprehensive Rules

These rules are effective as of August 7, 2026.

Introduction

This document is the ultimate authority for Magic: The Gathering competitive game play.

Contents

1. Game Concepts
100. General
108. Cards
2. Parts of a Card
7. Additional Rules
723. Controlling Another Player
9. Casual Variants
Glossary
Credits

1. Game Concepts

100. General

"""

BACK = """\

Glossary

Control, Controller
"Control" is the system that determines who gets to use an object in the game. See rule 108.4.

Example:
Not a rule; the glossary has no examples, and this line must not join the last rule.

Owner
The player who (for purposes of the game) a card, permanent, token, or spell belongs to.

Credits

Magic: The Gathering Original Game Design: Richard Garfield
723.9. Not a rule: everything after the glossary is ignored.

Published by Wizards of the Coast LLC.
"""


@needs_cr
def test_full_document_shape(tmp_path: Path) -> None:
    extract = cr("2026-08-07")
    body = []
    section = ""
    for rule in extract.rules:
        if rule.number[:3] != section:
            section = rule.number[:3]
            body += [f"{section}. Section heading", ""]
        body += [f"{rule.number}{'.' if rule.number[-1].isdigit() else ''} {rule.text}", ""]
        for example in rule.examples:
            body += [example, ""]
    document = tmp_path / "MagicCompRules 20260807.txt"
    document.write_text(FRONT + "\r\n".join(body) + BACK, encoding="utf-8")
    parsed = read_cr(document)
    assert parsed.version == "2026-08-07" and parsed.version_source == "text"
    assert shape(parsed) == shape(extract)
    assert diff_rules(parsed, extract).changes == ()


def test_small_document_parsing() -> None:
    text = ("1. Game Concepts\n100. General\n\n100.1. First rule.\n\nExample: An example.\n"
            "Example: Another.\n100.1a A subrule\n101. Next Section\nExample: orphan\n"
            "# comment\n613.7n. Dotted letter rule.\nGlossary\n100.2. After the glossary.\n")
    parsed = parse_cr(text, "cr-2030-01-02.txt")
    assert shape(parsed) == [("100.1", "First rule.", ("Example: An example.",
                                                       "Example: Another.")),
                             ("100.1a", "A subrule", ()),
                             ("613.7n", "Dotted letter rule.", ())]
    assert parsed.version == "2030-01-02" and parsed.version_source == "file name"


def test_editorial_normalisation() -> None:
    assert normalise("until he or she leaves the game") == normalise("until they leave the game")
    assert normalise("if he or she is still") == normalise("if they are still")
    assert normalise("during his or her turn") == normalise("during their turn")
    assert normalise("control of himself or herself.") == normalise("control of themselves.")
    assert normalise("“this turn.” once—the next") == normalise('"this turn." once -- the next')
    assert normalise("rules 603.7d–f") == normalise("rules 603.7d-f")
    assert normalise("the person who") != normalise("the player who")
    assert word_diff("a b c d e f g", "a b c X e f g") == ["a b c [-d-] {+X+} e f g"]


# --- Command line -------------------------------------------------------------------------------

@needs_cr
def test_cli_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = str(CR / "cr-2024-11-08.txt"), str(CR / "cr-2026-08-07.txt")
    assert main(["rules", "diff", old, new]) == 0
    out = capsys.readouterr().out
    assert "appeared (1)" in out and "613.7n" in out and "720.9 -> 723.9" in out
    assert main(["rules", "diff", old, new, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert isinstance(records, list)
    kinds = {(r["kind"], r["old"], r["new"]) for r in records}
    assert ("appeared", None, "613.7n") in kinds and ("changed", "720.9", "723.9") in kinds
    assert {"kind", "old", "new", "old_text_hash", "new_text_hash", "diff",
            "encodings"} <= set(records[0])


@needs_cr
def test_cli_missing_file_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    assert main(["rules", "diff", str(missing), str(CR / "cr-2026-08-07.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and str(missing) in lines[0] and "readable" in lines[0]


def test_cli_file_without_rules_exits_2(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    empty = tmp_path / "notes.txt"
    empty.write_text("Glossary\nControl\nSee rule 108.4.\n", encoding="utf-8")
    assert main(["rules", "diff", str(empty), str(empty)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "numbered rules" in lines[0]
