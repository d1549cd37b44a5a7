"""Scenario files: a snapshot, the ruling expected for it, one line of intent.

The format is in docs/scenarios.md.  ``mismatches`` compares a ruling with the
expectations (only what is written is compared); ``run_paths`` runs folders of
scenario files for ``mtgcontrol test``; the pytest plugin uses the same code.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .api import InputError, adjudicate
from .ruling import Ruling, controller_at

FACTS = ("owner", "controller", "you", "default_controller")


@dataclass
class Scenario:
    path: Path
    intent: str
    versions: list[str | None]
    covers: list[str]
    snapshot: dict[str, Any]
    expect: dict[str, Any]


class ScenarioError(ValueError):
    """A scenario file that cannot be read as one."""


def is_scenario(data: object) -> bool:
    return isinstance(data, dict) and "snapshot" in data and "expect" in data


def load_scenario(path: Path) -> Scenario:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise ScenarioError(f"{path}: not a readable YAML file ({err})") from None
    if not is_scenario(data):
        raise ScenarioError(f"{path}: expected a mapping with `snapshot` and `expect`")
    rules = data.get("rules")
    versions: list[str | None] = [rules] if isinstance(rules, str) else list(rules or [None])
    return Scenario(path, str(data.get("intent", "")), versions,
                    [str(c) for c in data.get("covers", [])], data["snapshot"],
                    data["expect"] or {})


def expectations(scenario: Scenario, version: str) -> dict[str, Any]:
    """The expectations under ``version``: common ones with its ``by_version`` part merged."""
    expect = copy.deepcopy(scenario.expect)
    extra = (expect.pop("by_version", None) or {}).get(version, {})
    for key, value in extra.items():
        if key == "objects":
            for oid, fields in value.items():
                expect.setdefault("objects", {}).setdefault(oid, {}).update(fields)
        else:
            expect[key] = value
    return expect


def run(scenario: Scenario, changes: Sequence[str] = ()) -> Iterator[tuple[str, list[str]]]:
    """Judge the scenario under each of its versions: (version, mismatches)."""
    for wanted in scenario.versions:
        try:
            ruling = adjudicate(scenario.snapshot, rules=wanted, changes=changes)
        except InputError as err:
            yield str(wanted), [f"bad snapshot: {p}" for p in err.problems]
            continue
        yield ruling.rules, mismatches(ruling, expectations(scenario, ruling.rules))


def _same_set(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    return a == b


def _entry_matches(want: dict[str, Any], got: dict[str, Any]) -> bool:
    return all(_same_set(value, got.get(key)) for key, value in want.items())


def mismatches(ruling: Ruling, expect: dict[str, Any]) -> list[str]:
    """Every difference between ``ruling`` and ``expect``, one line each."""
    found: list[str] = []
    got = ruling.to_dict()
    for oid, fields in (expect.get("objects") or {}).items():
        oid = str(oid)
        obj = got["objects"].get(oid)
        if obj is None:
            found.append(f"objects.{oid}: not in the ruling")
            continue
        for fact in FACTS:
            if fact in fields and fields[fact] != obj[fact]:
                found.append(f"objects.{oid}.{fact}: expected {fields[fact]!r}, got {obj[fact]!r}")
        rules = {b["rule"] for b in obj["because"]}
        for rule in fields.get("cites", []):
            if str(rule) not in rules:
                found.append(f"objects.{oid}.cites: {rule} not among {sorted(rules)}")
        vias = [b["via"] for b in obj["because"]]
        for text in fields.get("via", []):
            if not any(str(text) in v for v in vias):
                found.append(f"objects.{oid}.via: no because mentions {text!r}")
        for at, player in (fields.get("controller_at") or {}).items():
            actual = controller_at(obj["history"], int(at))
            if actual != player:
                found.append(f"objects.{oid}.controller_at.{at}: expected {player!r}, "
                             f"got {actual!r}")
    for aid, fields in (expect.get("abilities") or {}).items():
        actual = got["abilities"].get(str(aid), {}).get("may_activate")
        if "may_activate" in fields and fields["may_activate"] != actual:
            found.append(f"abilities.{aid}.may_activate: expected {fields['may_activate']!r}, "
                         f"got {actual!r}")
    for key in ("planar_controller", "controlled_players", "left_game"):
        if key in expect and (expect[key] or None) != (got[key] or None):
            found.append(f"{key}: expected {expect[key]!r}, got {got[key]!r}")
    for key in ("choices", "violations"):
        if key not in expect:
            continue
        wanted = expect[key] or []
        if not wanted and got[key]:
            found.append(f"{key}: expected none, got {json.dumps(got[key], ensure_ascii=False)}")
        for entry in wanted:
            if not any(_entry_matches(entry, g) for g in got[key]):
                found.append(f"{key}: no entry matches {entry!r}; got "
                             f"{json.dumps(got[key], ensure_ascii=False)}")
    return found


def scenario_files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.yaml")) if path.is_dir() else [path])
    return files


def run_paths(paths: Sequence[Path], changes: Sequence[str] = ()) -> int:
    """``mtgcontrol test``: run scenario files, print failures with their diffs."""
    passed = failed = 0
    for path in scenario_files(paths):
        try:
            scenario = load_scenario(path)
        except ScenarioError as err:
            print(f"ERROR {err}")
            failed += 1
            continue
        for version, problems in run(scenario, changes):
            if problems:
                failed += 1
                print(f"FAIL {path} [{version}]: {scenario.intent}")
                for line in problems:
                    print(f"    {line}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

