"""Hygiene of the rules catalog (rules/<version>.toml) against the encodings,
the scenario files and the CR extracts.

(a) every catalog rule's group occurs in some encoding; (b) every group the
encodings name (``on(S,"G")`` and other quoted group ids) is a catalog group;
(c) every catalog rule is covered by a scenario under its version; (d) every
number said to be in the extract is a rule line there; (e) one paraphrase per
group.  Entries of ``[[unencoded]]`` are in scope but not expressible in
snapshot/1: they need no encoding and no scenario.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

from mtgcontrol import catalog, coverage

VERSIONS = catalog.versions()
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
CR_DIR = Path(os.environ.get("MTGCONTROL_CR_DIR", "/work/shared/cr"))
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
        "catalog [[rule]] entries whose group no encoding mentions (in double quotes); add a "
        "rule or citation to encodings/*.lp, or move the entry to [[unencoded]] with a reason:"
        + _list(missing))


def test_every_encoded_group_is_in_the_catalog() -> None:
    groups = {r.group for v in VERSIONS for r in v.rules}
    unknown = [f'"{g}" in {", ".join(files)}'
               for g, files in sorted(coverage.encoded_groups().items()) if g not in groups]
    assert not unknown, ("groups the encodings name (on(S,\"G\") or another quoted group id) "
                         "that no catalog [[rule]] entry has, so they are never in force:"
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
    assert not bad, "[[unencoded]] entries:" + _list(bad)


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
    path = CR_DIR / f"cr-{version.name}.txt"
    if not path.is_file():
        pytest.skip(f"no CR extract {path}")
    numbers = set(RULE_LINE.findall(path.read_text(encoding="utf-8")))
    missing = [r.number for r in version.rules if r.in_extract and r.number not in numbers]
    missing += [f"{u.number} ([[unencoded]])" for u in coverage.unencoded(version)
                if u.number not in numbers]
    wrongly = [r.number for r in version.rules if not r.in_extract and r.number in numbers]
    assert not missing, f"numbers not found as rule lines in {path.name}:" + _list(missing)
    assert not wrongly, (f"numbers marked in_extract = false but present in {path.name}:"
                         + _list(wrongly))


def test_one_paraphrase_per_group() -> None:
    seen: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for v in VERSIONS:
        for entry in [*v.rules, *coverage.unencoded(v)]:
            seen[entry.group][entry.paraphrase].append(v.name)
    differing = [f"{group}: " + " | ".join(f"{', '.join(vs)}: {text!r}"
                                            for text, vs in texts.items())
                 for group, texts in sorted(seen.items()) if len(texts) > 1]
    assert not differing, "groups with different paraphrases across versions:" + _list(differing)


def test_print_catalog_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for v in VERSIONS:
        assert coverage.print_catalog(v, None) == 0
    out = capsys.readouterr().out
    assert "coverage:" in out and "not encodable in snapshot/1" in out
