"""Scenario files can fail: the schema catches misspelled keys and unknown ids, a
broken file is an error, an empty run is an error, and a changed expectation
makes its scenario fail (mutation test).  Also: for every scenario, each
object's `history` agrees with its `controller` at `now`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mtgcontrol import adjudicate_many
from mtgcontrol.engine.facts import default_now
from mtgcontrol.engine.ruling import Ruling, controller_at
from mtgcontrol.scenarios import (
    Scenario,
    ScenarioError,
    expectations,
    load_scenario,
    mismatches,
    run_paths,
)

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
BASE = SCENARIOS / "layer2" / "001-treason-basic.yaml"


def _base() -> dict:
    return yaml.safe_load(BASE.read_text(encoding="utf-8"))


def _write(folder: Path, name: str, data: dict | str) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return path


def _first_object(data: dict) -> str:
    return next(iter(data["expect"]["objects"]))


def _misspell_fact(data: dict) -> None:
    fields = data["expect"]["objects"][_first_object(data)]
    fields["contoller"] = fields.pop("controller")


def _misspell_expect(data: dict) -> None:
    data["expcet"] = data.pop("expect")


def _unknown_object(data: dict) -> None:
    data["expect"]["objects"]["no-such-object"] = {"controller": None}


def _unknown_player(data: dict) -> None:
    data["expect"]["objects"][_first_object(data)]["controller"] = "mallory"


def _unknown_violation_object(data: dict) -> None:
    data["expect"]["violations"] = [{"code": "no-controller", "objects": ["ghost"]}]


def _misspell_snapshot_key(data: dict) -> None:
    data["snapshot"]["objects"][0]["contoller"] = "alice"


def _unquoted_date(data: dict) -> None:
    import datetime
    data["rules"] = [datetime.date(2026, 8, 7)]


def _misspell_top(data: dict) -> None:
    data["intnet"] = data.pop("intent")


BROKEN = {"misspelled-fact": (_misspell_fact, "\"contoller\""),
          "misspelled-expect": (_misspell_expect, "\"expcet\""),
          "unknown-object": (_unknown_object, "\"no-such-object\" is not an object id"),
          "unknown-player": (_unknown_player, "\"mallory\" is not a player"),
          "unknown-violation-object": (_unknown_violation_object, "\"ghost\""),
          "misspelled-snapshot-key": (_misspell_snapshot_key, "contoller"),
          "unquoted-date": (_unquoted_date, "$.rules"),
          "misspelled-intent": (_misspell_top, "\"intnet\"")}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_scenario_file_is_rejected_with_a_clear_message(tmp_path: Path,
                                                                 case: str) -> None:
    change, words = BROKEN[case]
    data = _base()
    change(data)
    path = _write(tmp_path, f"{case}.yaml", data)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(path) in str(err.value) and words in str(err.value)
    assert run_paths([tmp_path]) == 1


def test_unreadable_yaml_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "broken.yaml", "intent: x\nsnapshot: {players: [a\nexpect: {}\n")
    assert run_paths([tmp_path]) == 1
    assert "broken.yaml: $: expected a readable YAML file (" in capsys.readouterr().out


def test_a_run_with_no_scenario_files_fails(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert run_paths([tmp_path]) == 2
    assert run_paths([tmp_path / "missing"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"mtgcontrol: {tmp_path}: expected scenario files (*.yaml)",
        f"mtgcontrol: {tmp_path / 'missing'}: expected a scenario file or folder (no such "
        "file or folder)"]


def test_pytest_collects_broken_scenario_files_as_errors(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    data = _base()
    _misspell_expect(data)
    _write(folder, "a-misspelled.yaml", data)
    _write(folder, "b-broken.yaml", "intent: [\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-p", "mtgcontrol.pytest_plugin", str(folder)],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode != 0
    assert "2 errors" in result.stdout and "\"expcet\"" in result.stdout


def test_mutation_one_changed_expectation_fails(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A copy of a passing scenario with one expected controller changed must fail."""
    data = _base()
    assert run_paths([_write(tmp_path, "original.yaml", data)]) == 0
    oid = _first_object(data)
    players = [p if isinstance(p, str) else p["id"] for p in data["snapshot"]["players"]]
    right = data["expect"]["objects"][oid]["controller"]
    data["expect"]["objects"][oid]["controller"] = next(p for p in players if p != right)
    mutant = _write(tmp_path, "mutant.yaml", data)
    capsys.readouterr()
    assert run_paths([mutant]) == 1
    assert f"objects.{oid}.controller: expected" in capsys.readouterr().out


def _scenarios() -> list[Path]:
    return sorted(SCENARIOS.rglob("*.yaml"))


@pytest.fixture(scope="module")
def judged() -> list[tuple[Path, Scenario, Ruling]]:
    """Every scenario under each of its versions, judged in one batch."""
    cases = [(path, load_scenario(path)) for path in _scenarios()]
    items, where = [], []
    for path, scenario in cases:
        for version in scenario.versions:
            doc = dict(scenario.snapshot, rules=version) if version else scenario.snapshot
            items.append((doc, str(path)))
            where.append((path, scenario))
    rulings = list(adjudicate_many(items))
    assert all(isinstance(r, Ruling) for r in rulings)
    return [(p, s, r) for (p, s), r in zip(where, rulings, strict=True)]  # type: ignore[misc]


def test_mutation_every_controller_expectation_can_fail(
        judged: list[tuple[Path, Scenario, Ruling]]) -> None:
    """For every scenario file, changing its first expected controller to another
    player (or to null) makes it fail under each of its versions."""
    survivors, mutated = [], 0
    for path, scenario, ruling in judged:
        expect = expectations(scenario, ruling.rules)
        target = next((oid for oid, f in (expect.get("objects") or {}).items()
                       if "controller" in f), None)
        if target is None:
            continue
        players = [p if isinstance(p, str) else p["id"] for p in scenario.snapshot["players"]]
        right = expect["objects"][target]["controller"]
        expect["objects"][target] = dict(expect["objects"][target],
                                         controller=next(p for p in [*players, None]
                                                         if p != right))
        mutated += 1
        if not mismatches(ruling, expect):
            survivors.append(f"{path.name} [{ruling.rules}]")
    assert mutated > 300
    assert not survivors, f"mutants that still pass: {survivors}"


def test_history_agrees_with_controller(judged: list[tuple[Path, Scenario, Ruling]]) -> None:
    """Every object's history, read at `now`, gives its controller."""
    disagree = []
    for path, scenario, ruling in judged:
        now = scenario.snapshot.get("now", default_now(scenario.snapshot))
        for oid, obj in ruling.objects.items():
            if obj.history and controller_at(obj.history, now) != obj.controller:
                disagree.append(f"{path.name} [{ruling.rules}] {oid}: history "
                                f"{obj.history}, controller {obj.controller}")
    assert not disagree, "\n".join(disagree)
