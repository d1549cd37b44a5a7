"""The habits of the tools users know: --version, facts to run clingo by hand,
adjudicate -o in any format, a progress bar counting whole lines."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import clingo
import pytest
import yaml
from test_engine import ROOT

from mtgcontrol import adjudicate, catalog
from mtgcontrol.batch.progress import Bar
from mtgcontrol.cli import main
from mtgcontrol.engine import Engine, Frame
from mtgcontrol.engine.solve import ENCODINGS, RULING_SHOW, parse_atom

EXAMPLE = ROOT / "examples" / "01-mind-control.json"


def test_version_names_clingo_and_the_cr_versions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert f"clingo {clingo.__version__}" in out
    names = [v.name for v in catalog.versions()]
    assert f"CR versions: {', '.join(names)} (default {names[-1]})" in out


def hand_run(facts: Path) -> list[tuple[str, tuple[object, ...]]]:
    """clingo run by hand, as docs/predicates.md shows, on a `mtgcontrol facts` file."""
    done = subprocess.run(
        [sys.executable, "-m", "clingo", "--warn=none", "--outf=2",
         *(f"encodings/{name}.lp" for name in (*ENCODINGS, RULING_SHOW)), str(facts)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    models = json.loads(done.stdout)["Call"][0]["Witnesses"]
    assert len(models) == 1
    return sorted((name, args[1:]) for name, args in map(parse_atom, models[0]["Value"]))


def test_the_documented_hand_run_names_the_engines_files_in_order() -> None:
    text = (ROOT / "docs/predicates.md").read_text(encoding="utf-8")
    block = text.split("## Running clingo by hand", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    named = re.findall(r"encodings/([\w/]+)\.lp", block)
    assert named == [*ENCODINGS, RULING_SHOW]


@pytest.mark.parametrize("source", [
    "examples/01-mind-control.json", "examples/04-four-player-leave.json",
    "examples/06-simultaneous-auras-2017.json",
    "tests/scenarios/leaving/008-stack-spells.yaml"])
def test_facts_run_by_hand_give_the_engines_answer(source: str, tmp_path: Path) -> None:
    path = ROOT / source
    doc = yaml.safe_load(path.read_text())
    doc = doc.get("snapshot", doc)
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(doc))
    facts = tmp_path / "facts.lp"
    assert main(["facts", str(snapshot), "--rules", "2017-04-28", "-o", str(facts)]) == 0
    text = facts.read_text()
    assert "version(1,v2017_04_28)." in text and 'number(v2017_04_28,' in text
    frame = Frame.of(doc, catalog.resolve("2017-04-28"), fast=False)
    engine = Engine(fast=False)
    assert hand_run(facts) == sorted(engine.solve([frame.facts])[0])
    # ... and the ruling read back from them is the ruling of adjudicate
    ruling = engine.judge([frame])[0]
    assert adjudicate(doc, rules="2017-04-28").to_json() == ruling.to_json()


def test_facts_never_put_an_id_into_program_text(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(EXAMPLE.read_text())
    doc["players"][0] = "alice\nfail(1). %"
    for obj in doc["objects"]:
        if obj["entered"]["under"] == "alice":
            obj["entered"]["under"] = doc["players"][0]
        obj["start"]["player"] = (doc["players"][0] if obj["start"]["player"] == "alice"
                                  else obj["start"]["player"])
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(doc))
    assert main(["facts", str(snapshot)]) == 0
    out = capsys.readouterr().out
    assert "% 1 = player alice\\nfail(1). %" in out
    assert not any(line.startswith("fail(") for line in out.splitlines())


def test_facts_of_a_bad_snapshot_is_one_error_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": ["alice"], "objects": [{"id": 1}]}')
    assert main(["facts", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() and all(line.startswith(f"mtgcontrol: {bad}: $.")
                                      for line in err.splitlines())


@pytest.mark.parametrize("fmt,check", [
    ("json", lambda text: json.loads(text)["objects"]["bear"]["controller"] == "bob"),
    ("text", lambda text: text.splitlines()[0] == "ruling - under CR 2026-08-07")])
def test_adjudicate_writes_the_format_asked_to_o(fmt: str, check: object, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["adjudicate", "--format", fmt, "-o", str(out), str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == ""
    assert check(out.read_text())  # type: ignore[operator]


def test_progress_counts_whole_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stderr", shown)
    with Bar(12345, enabled=True) as bar:
        bar.update(1234)
        bar._bar.refresh()
    assert "1234/12345" in shown.getvalue()
    assert "k/" not in shown.getvalue()


@pytest.mark.parametrize("argv", [
    ["adjudicate", "BAD"],
    ["adjudicate", "--rules", "1999", str(EXAMPLE)],
    ["explain", str(EXAMPLE), "nothing"],
    ["explain", str(EXAMPLE), "bear", "--lang", "xx"],
    ["explain", str(EXAMPLE), "bear", "--why-not", "zed"],
    ["rules", "--group", "nope"],
    ["check", "--format", "html", "-o", "x.html", "corpus.jsonl"],
])
def test_error_lines_share_one_style(argv: list[str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": ["alice"], "objects": [{"id": "c", "kind": "card"}]}')
    argv = [str(bad) if a == "BAD" else a for a in argv]
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines
    for line in lines:
        assert line.startswith("mtgcontrol: "), line
        where = next((str(f) for f in (bad, EXAMPLE) if str(f) in line), "")
        rest = line.removeprefix(f"mtgcontrol: {where}")
        assert re.match(r"(: )?(\$[.\[\w\]]*|OBJECT|--[a-z-]+|rules)(: | html: )expected ",
                        rest), line
        assert "'" not in line and "None" not in line, line


def test_a_contradicted_claim_says_nobody_not_none(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(EXAMPLE.read_text())
    doc["claims"] = [{"object": "bear", "controller": None}]
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.strip().endswith(
        'claim #0 about bear: controller nobody, the rules give "bob"')


DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)


def test_no_message_has_a_doubled_word() -> None:
    """Every string of the package, every language file and the catalog's paraphrases."""
    found = []
    for path in sorted((ROOT / "pyapi" / "mtgcontrol").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [f"{path}:{node.lineno}: {m.group(0)}"
                          for m in DOUBLED.finditer(node.value)]
    texts = [*(ROOT / "pyapi" / "mtgcontrol" / "present" / "languages").glob("*.toml"),
             ROOT / "rules" / "catalog.toml"]
    for path in texts:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path}:{number}: {m.group(0)}" for m in DOUBLED.finditer(line)]
    assert found == []


SCENARIOS = ROOT / "tests" / "scenarios"


def scenario_copies(tmp_path: Path) -> tuple[Path, Path]:
    one = tmp_path / "treason.yaml"
    one.write_text((SCENARIOS / "leaving" / "001-treason-thief-leaves.yaml").read_text()
                   .replace("25: bob, 33: alice", "25: carol, 33: alice"))
    many = tmp_path / "players.yaml"
    many.write_text((SCENARIOS / "players" / "101-player-control-across-versions.yaml")
                    .read_text().replace('b-bear: {cites: ["714.3"]}',
                                         'b-bear: {cites: ["714.3"], controller: carol}'))
    return one, many


def test_test_update_rewrites_what_no_longer_matches_and_shows_the_diff(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, many = scenario_copies(tmp_path)
    before = one.read_text()
    assert main(["test", str(tmp_path)]) == 1
    assert main(["test", "--update", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"--- {one}" in out and "-            controller_at: {5: alice, 25: carol" in out
    assert "+        b-bear: {cites: ['714.3']}" in out  # only the 2017 part changed
    assert "2 file(s) updated, 0 unchanged" in out
    assert main(["test", str(tmp_path)]) == 0
    after = one.read_text()  # only the expect block was touched
    assert after.split("expect:")[0] == before.split("expect:")[0]
    assert main(["test", "--update", str(tmp_path)]) == 0
    assert "0 file(s) updated, 2 unchanged" in capsys.readouterr().out
    assert one.read_text() == after


def test_test_selects_with_k_and_judges_under_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario_copies(tmp_path)
    assert main(["test", "-k", "TREASON", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "treason.yaml" in out and "players.yaml" not in out and "0 passed, 1 failed" in out
    assert main(["test", "-k", "next-turn effects", str(tmp_path)]) == 1  # by intent
    assert "players.yaml [2017-04-28]" in capsys.readouterr().out
    assert main(["test", "-k", "players", "--rules", "2026-08-07", str(tmp_path)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["test", "-k", "nothing-like-it", str(tmp_path)]) == 2
    assert main(["test", "--rules", "2026-08-07", "--update", str(tmp_path)]) == 2


def test_test_shows_progress_on_a_terminal(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_copies(tmp_path)
    shown = io.StringIO()
    shown.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stderr", shown)
    main(["test", str(tmp_path)])
    assert "0/2 [" in shown.getvalue() and "file/s" in shown.getvalue()


def test_the_quick_subset_names_real_tests_and_leaves_the_slow_ones_out() -> None:
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    assert all((ROOT / path).exists() for path in tasks.QUICK)
    slow = {"test_batch.py", "test_search.py", "test_fuzz.py", "test_pages_browser.py",
            "test_research.py", "test_differential.py", "test_time_invariance.py"}
    assert not slow & {Path(p).name for p in tasks.QUICK}
    assert "tests/test_engine.py" in tasks.QUICK


def test_impact_and_verify_each_state_their_own_search_defaults(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each command declares its own arguments: impact's help names impact's default
    bounds (docs/research.md: 2 players, 2 objects, 1 effect, 1 detail), verify's
    verify's, and neither names the other command."""
    from mtgcontrol.research.commands import IMPACT_BOUNDS, VERIFY_BOUNDS

    for command, other, bounds in (("impact", "verify", IMPACT_BOUNDS),
                                   ("verify", "impact", VERIFY_BOUNDS)):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert f"--players PLAYERS players at most (default {bounds.players})" in text
        assert f"--effects EFFECTS effects at most (default {bounds.effects})" in text
        assert f"default {bounds.details})" in text
        assert other not in text.replace("impact --exhaustive", ""), command
    assert IMPACT_BOUNDS.players == 2 and (IMPACT_BOUNDS.objects, IMPACT_BOUNDS.effects) == (2, 1)


def test_no_command_shares_an_argument_with_another() -> None:
    """No argparse parent: a default set for one command cannot become another's."""
    from mtgcontrol.cli import build_parser

    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    seen: dict[int, str] = {}
    for name, parser in sub.choices.items():
        for action in parser._actions:
            assert seen.setdefault(id(action), name) == name, (name, action.dest)


@pytest.mark.parametrize("argv, line", [
    (["adjudicate", "--format", "xml", "FILE"],
     'mtgcontrol: --format: expected one of json, text, html, got "xml"'),
    (["batch", "FILE", "--batch-size", "many"],
     'mtgcontrol: --batch-size: expected a positive integer, got "many"'),
    (["impact", "--to", "2026-08-07"], "mtgcontrol: --from: expected a value (required by "
                                       "mtgcontrol impact)"),
    (["adjudicate", "FILE", "--nope"], "mtgcontrol: --nope: expected an argument of "
                                       "mtgcontrol adjudicate (mtgcontrol adjudicate --help)"),
    (["check", "FILE", "-o", "x.html"], "mtgcontrol: -o: expected --format html with -o FILE "
                                        "(check writes only its page to a file)"),
    (["frobnicate"], 'mtgcontrol: COMMAND: expected one of adjudicate, facts, explain, batch, '
                     'check, test, rules, impact, verify, import, serve, got "frobnicate"'),
])
def test_usage_errors_are_error_lines_of_the_one_style(
        argv: list[str], line: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(EXAMPLE) if a == "FILE" else a for a in argv])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines() == [line]


def test_test_under_other_rules_reads_the_cited_numbers_as_that_version_numbers_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 2026 scenario citing 113.8 (the 2017 CR's 112.8, catalog group 113.8) passes
    under --rules 2017-04-28; a citation that is wrong under 2017 still fails."""
    scenario = SCENARIOS / "abilities" / "001-activated-own.yaml"
    assert 'cites: ["113.8"]' in scenario.read_text()
    assert main(["test", "--rules", "2017-04-28", str(scenario)]) == 0
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(scenario.read_text().replace('cites: ["113.8"]', 'cites: ["113.6"]'))
    assert main(["test", "--rules", "2017-04-28", str(wrong)]) == 1
    assert "objects.ab.cites: 113.6 not among" in capsys.readouterr().out
    assert catalog.renumbered("113.8", "2026-08-07", "2017-04-28") == "112.8"
    assert catalog.renumbered("999.9", "2026-08-07", "2017-04-28") == "999.9"
