"""Hygiene of the rules catalog (rules/catalog.toml) against the encodings,
the scenario files and the CR extracts.

(a) every encoded group's ``asp`` occurs in some encoding; (b) every group the
encodings name (``on(S,"G")`` and other quoted group ids) is a catalog group;
(c) every catalog rule is covered by a scenario under its version; (d) every
number said to be in the extract is a rule line there; (e) no paraphrase occurs
twice; (f) the encodings' group comments start with the catalog paraphrase and
name only catalog groups; (g) the ids of the old-id mapping stay.  Groups marked
``unencoded`` are in scope but not expressible in snapshot/1: they need no
encoding and no scenario.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from crtexts import CR_DIR

from mtgcontrol import catalog, coverage

VERSIONS = catalog.versions()
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
ROOT = Path(__file__).resolve().parents[1]
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.?\s", re.M)


def _ids(version: catalog.Version) -> str:
    return version.name


def _list(lines: list[str]) -> str:
    return "\n  " + "\n  ".join(lines)


@pytest.fixture(scope="module")
def scenario_files() -> list[coverage.ScenarioFile]:
    return coverage.load_scenarios(SCENARIOS)


def test_every_catalog_rule_is_encoded() -> None:
    missing = [f"{v.name} {r.number} (group {r.group})"
               for v in VERSIONS for r in v.rules if not coverage.encodings_of(r.group)]
    assert not missing, (
        "catalog groups whose asp no encoding mentions (in double quotes); add a rule or "
        "citation to encodings/*.lp, or mark the group `unencoded` with a reason:"
        + _list(missing))


def test_every_encoded_group_is_in_the_catalog() -> None:
    groups = {r.group for v in VERSIONS for r in v.rules}
    unknown = [f'"{g}" in {", ".join(files)}'
               for g, files in sorted(coverage.encoded_groups().items()) if g not in groups]
    assert not unknown, ("groups the encodings name (on(S,\"G\") or another quoted group id) "
                         "that no rules/catalog.toml group has as `asp`, so they are never in "
                         "force; add a [[group]] (docs/new-cr-release.md):"
                         + _list(unknown))


def test_unencoded_entries_are_complete_and_not_encoded() -> None:
    rule_groups = {r.group for v in VERSIONS for r in v.rules}
    encoded = coverage.encoded_groups()
    bad = []
    for v in VERSIONS:
        for u in coverage.unencoded(v):
            if not (u.number and u.group and u.paraphrase.strip() and u.reason.strip()):
                bad.append(f"{v.name} {u.number}: needs number, group, paraphrase and reason")
            if u.group in rule_groups:
                bad.append(f"{v.name} {u.number}: group {u.group} is also a [[rule]] group")
            if u.group in encoded:
                bad.append(f"{v.name} {u.number}: group {u.group} is switched on in "
                           f"{', '.join(encoded[u.group])}")
    assert not bad, "unencoded entries:" + _list(bad)


@pytest.mark.parametrize("version", VERSIONS, ids=_ids)
def test_every_catalog_rule_has_a_scenario(version: catalog.Version,
                                           scenario_files: list[coverage.ScenarioFile]) -> None:
    rows = coverage.coverage(version, scenario_files)
    missing = [r.number + (f" (group {r.group})" if r.group != r.number else "")
               for r in rows if not r.scenarios]
    assert not missing, (
        f"catalog rules of {version.name} that no scenario file covers (none lists the number "
        f"in `covers` or cites it in its ruling while running under {version.name}):"
        + _list(missing))


@pytest.mark.parametrize("version", VERSIONS, ids=_ids)
def test_extract_numbers(version: catalog.Version) -> None:
    path = CR_DIR / version.text
    if not path.is_file():
        pytest.skip(f"no CR extract {path}")
    numbers = set(RULE_LINE.findall(path.read_text(encoding="utf-8")))
    missing = [r.number for r in version.rules if r.in_extract and r.number not in numbers]
    missing += [f"{u.number} (unencoded)" for u in coverage.unencoded(version)
                if u.number not in numbers]
    wrongly = [r.number for r in version.rules if not r.in_extract and r.number in numbers]
    assert not missing, f"numbers not found as rule lines in {path.name}:" + _list(missing)
    assert not wrongly, (f"numbers marked in_extract = false but present in {path.name}:"
                         + _list(wrongly))


def test_no_paraphrase_is_repeated() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for g in catalog.groups():
        for v in g.variants:
            seen[" ".join(v.paraphrase.split())].append(v.key)
    repeated = [f"{', '.join(keys)}: {text!r}" for text, keys in seen.items() if len(keys) > 1]
    assert not repeated, "paraphrases given to more than one group or variant:" + _list(repeated)


# A group comment: `% --- [G] text`, continued by the following `%` lines.
TAG = r"\[(\d{3}\.\d+[a-z]?(?:@\d{4}-\d\d-\d\d)?)\]"
HEADER = re.compile(r"^% --- ((?:" + TAG + r"\s*)+)(.*)")


def group_comments() -> list[tuple[str, int, list[str], str]]:
    """(file, line, its leading tags, its text up to the next tag) of every group comment."""
    found = []
    for name, text in coverage.encoding_texts().items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = HEADER.match(line)
            if not m:
                continue
            body = [m.group(m.lastindex)]
            for more in lines[i + 1:]:
                if not more.startswith("%") or more.startswith("% ---"):
                    break
                body.append(more.lstrip("%"))
            rest = re.sub(r"^\([^)]*\)\s*", "", " ".join(" ".join(body).split()))
            found.append((name, i + 1, re.findall(TAG, m.group(1)),
                          re.split(TAG, rest)[0].strip()))
    return found


def test_comment_tags_name_catalog_groups() -> None:
    asps = {v.asp for g in catalog.groups() for v in g.variants}
    unknown = sorted({f"[{tag}] in {name}" for name, text in coverage.encoding_texts().items()
                      for line in text.splitlines() if line.lstrip().startswith("%")
                      for tag in re.findall(TAG, line) if tag not in asps})
    assert not unknown, ("comments in encodings/*.lp name rule groups that rules/catalog.toml "
                         "lacks (add a [[group]] with that asp and its paraphrase):"
                         + _list(unknown))


def test_group_comments_start_with_the_catalog_paraphrase() -> None:
    """A one-group comment `% --- [G] ...` paraphrases G: its text starts with G's catalog
    paraphrase (what follows are notes on the encoding).  A comment naming several groups
    at once is a shared note.  Of several comments of one group, one must start so."""
    texts: dict[str, list[str]] = defaultdict(list)
    for name, line, tags, text in group_comments():
        if len(tags) == 1:
            texts[tags[0]].append(f"{name}:{line}: {text}")
    paraphrase = {v.asp: v.paraphrase for g in catalog.groups() for v in g.variants}
    bad = []
    for asp, comments in sorted(texts.items()):
        if asp not in paraphrase:
            bad.append(f"[{asp}] has no catalog group: " + comments[0])
            continue
        want = " ".join(paraphrase[asp].split()).rstrip(".")
        if not any(c.split(": ", 1)[1].startswith(want) for c in comments):
            bad.append(f"[{asp}] catalog: {paraphrase[asp]!r}\n    comment " + comments[0])
    assert not bad, ("group comments that do not start with their catalog paraphrase "
                     "(one text: change the comment or the catalog):" + _list(bad))


def test_old_ids_stay() -> None:
    """rules/ids-before-13.tsv maps the group ids used before the catalog named groups
    (still the asp strings) to stable ids: those must not change, whatever is renumbered."""
    rows = [line.split("\t") for line in
            (ROOT / "rules" / "ids-before-13.tsv").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    wrong = []
    for old, gid, key in rows:
        found = catalog.by_asp(old)
        if found is None or (found[0].id, found[1].key) != (gid, key):
            wrong.append(f"{old}: recorded {gid} / {key}, catalog "
                         + (f"{found[0].id} / {found[1].key}" if found else "none"))
    assert len(rows) >= 100 and not wrong, "stable ids changed:" + _list(wrong)


def test_dated_numbers_and_lookup() -> None:
    token = catalog.group("token-owner")
    assert token.dated_numbers() == [("2012-10-01", "2020-11-20", "110.5a"),
                                     ("2020-11-20", None, "111.2")]
    assert [v.key for v in token.variants] == ["token-owner", "token-owner@2020-11-20"]
    assert token.variants[1].change and not token.variants[0].change
    # the same number, different groups in different releases
    assert catalog.lookup("2012-10-01", "109.4a")[0].id == "emblem-controller"
    assert catalog.lookup("2026-08-07", "109.4a")[0].id == "mana-ability-controller"
    assert catalog.lookup("2026-08-07", "999.9") is None
    rule = catalog.resolve("2017-04-28").entry("110.5a")
    assert rule is not None and (rule.id, rule.group) == ("token-owner", "110.5a@2017-04-28")


BAD_CATALOGS = {
    "misspelled key": ('[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "108.3" }\n'
                       'asp = "108.3"\nparaphrse = "p"\n', "unknown keys ['paraphrse']"),
    "bad number": ('[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "one" }\n'
                   'asp = "108.3"\nparaphrase = "p"\n', '"YYYY-MM-DD" = "NNN.Nx"'),
    "variant without change": (
        '[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "108.3" }\n'
        '[[group.variant]]\nsince = "2012-10-01"\nasp = "a"\nparaphrase = "p"\n'
        '[[group.variant]]\nsince = "2020-11-20"\nasp = "b"\nparaphrase = "q"\n',
        "`change` must be"),
    "until too early": ('[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "108.3" }\n'
                        'until = "2012-10-01"\nasp = "a"\nparaphrase = "p"\n',
                        "`until` 2012-10-01 must come after"),
    "reused id": ('[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "108.3" }\nasp = "a"\n'
                  'paraphrase = "p"\n[[group]]\nid = "x"\nnumbers = { "2012-10-01" = "108.4" }'
                  '\nasp = "b"\nparaphrase = "q"\n', "group id used twice: x"),
}


@pytest.mark.parametrize("case", sorted(BAD_CATALOGS))
def test_malformed_catalog_is_named(case: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text, message = BAD_CATALOGS[case]
    path = tmp_path / "catalog.toml"
    path.write_text('[[release]]\ndate = "2012-10-01"\ntext = "cr.txt"\n' + text,
                    encoding="utf-8")
    monkeypatch.setenv(catalog.CATALOG_ENV, str(path))
    with pytest.raises(catalog.CatalogError, match=re.escape(message)):
        catalog.versions()


def test_print_catalog_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for v in VERSIONS:
        assert coverage.print_catalog(v, None) == 0
    out = capsys.readouterr().out
    assert "coverage:" in out and "not encodable in snapshot/1" in out


def test_print_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert coverage.print_group("token-owner") == 0
    out = capsys.readouterr().out
    assert "  110.5a   from 2012-10-01 until 2020-11-20\n  111.2    from 2020-11-20\n" in out
    assert 'token-owner@2020-11-20 (since 2020-11-20, encoding group "111.2")' in out
    assert "changed: The token's owner is the player who created it" in out
    assert coverage.print_group("111.2") == 2
    assert "expected a catalog group id" in capsys.readouterr().err


def test_renumbering_table_of_cr_versions_doc_agrees() -> None:
    """docs/cr-versions.md §3: each row's cells are the numbers its encoding groups (in
    backticks) have in the catalog, per version ("—": none; "†": a superseded meaning;
    a family summary like "723.x" is not checked)."""
    text = (ROOT / "docs" / "cr-versions.md").read_text(encoding="utf-8")
    table = text[text.index("## 3. Renumbering table"):text.index("### 3.1")]
    names = [v.name for v in VERSIONS]
    header = next(line for line in table.splitlines() if line.startswith("| concept"))
    assert [c.strip() for c in header.strip("|").split("|")][2:] == names
    wrong, rows = [], 0
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith(("| concept", "| **")):
            continue
        rows += 1
        concept, groups, *cells = (c.strip() for c in line.strip("|").split("|"))
        asps = re.findall(r"`([^`]+)`", groups)
        for name, cell in zip(names, cells, strict=True):
            if cell.endswith(".x"):
                continue
            found = [catalog.by_asp(a) for a in asps]
            want = {g.number(name) for g, v in filter(None, found)
                    if g.variant(name) == v} - {None}
            got = cell.rstrip("†").strip()
            if (set() if got == "—" else {got}) != want:
                wrong.append(f"{concept} [{name}]: table {cell!r}, catalog {sorted(want)}")
    assert rows > 50 and not wrong, "docs/cr-versions.md §3 disagrees with the catalog:" \
        + _list(wrong)
