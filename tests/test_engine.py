"""End-to-end checks of the engine: the spec's example, hostile ids, one answer
set per snapshot, versions, proposals, batch mode and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import clingo
import pytest

from mtgcontrol import InputError, adjudicate, catalog
from mtgcontrol.cli import main
from mtgcontrol.engine.api import version_for
from mtgcontrol.engine.engine import encoding_file
from mtgcontrol.engine.facts import Names, snapshot_facts
from mtgcontrol.engine.solve import RULING_SHOW, Program, shown_texts
from mtgcontrol.scenarios import read_yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())  # the spec's


def all_snapshots() -> list[tuple[str, dict]]:
    examples = sorted((ROOT / "examples").glob("*.json"))
    found = [(str(p), json.loads(p.read_text())) for p in examples]
    for path in sorted((ROOT / "tests" / "scenarios").rglob("*.yaml")):
        data = read_yaml(path.read_text(encoding="utf-8"))
        versions = data.get("rules") or [None]
        for version in [versions] if isinstance(versions, str) else versions:
            found.append((f"{path} [{version}]", dict(data["snapshot"], rules=version)
                          if version else data["snapshot"]))
    return found


def test_spec_example() -> None:
    ruling = adjudicate(EXAMPLE)
    assert ruling.owner("bear") == "alice"
    assert ruling.controller("bear") == "bob"
    assert "613.1b" in {b.rule for b in ruling.because("bear", "controller")}
    assert any(b.via == "effect e1" for b in ruling.because("bear", "controller"))
    assert (ruling.owner("magic"), ruling.controller("magic")) == ("bob", "bob")
    assert {"108.3", "110.2"} <= {b.rule for b in ruling.objects["magic"].because}
    assert ruling.controller("bear", at=5) == "alice"
    assert ruling.violations == [] and ruling.choices == []


HOSTILE = ['a"b', "x).", ":- owner(1,2,3).", "% comment", "line\nbreak", "ünï©ødé 🃏",
           "#show.", "\\", "X" * 10_240, "it's", "} {", "0"]


def rename(doc: object, mapping: dict[str, str]) -> object:
    """Replace every id string in a snapshot (players, objects, effects) by its mapping."""
    if isinstance(doc, dict):
        return {k: rename(v, mapping) for k, v in doc.items()}
    if isinstance(doc, list):
        return [rename(v, mapping) for v in doc]
    if isinstance(doc, str):
        return mapping.get(doc, doc)
    return doc


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_ids_come_back_unchanged(hostile: str) -> None:
    """Any id string gives the same ruling as a plain id, and comes back byte for byte."""
    snapshot = json.loads((ROOT / "examples" / "04-four-player-leave.json").read_text())
    plain = adjudicate(snapshot).to_json()
    ids = ["alice", "bob", "carol", "dave", "angel", "bob-knight", "mind-control",
           "bob-ability", "e-mc", "four-player-leave"]
    mapping = {old: f"{hostile}<{i}>" for i, old in enumerate(ids)}
    ruling = adjudicate(rename(snapshot, mapping))
    assert ruling.left_game[mapping["angel"]] == "exiled"
    assert ruling.owner(mapping["angel"]) == mapping["carol"]
    text = ruling.to_json()
    for old, new in mapping.items():  # the ids come back unchanged, wherever they appear
        text = text.replace(json.dumps(new, ensure_ascii=False)[1:-1], old)
    assert text == plain


def test_program_text_never_contains_user_strings() -> None:
    doc = rename(EXAMPLE, {"bear": 'evil"). #show. %', "alice": "a\nb :- c."})
    text = snapshot_facts(doc, 0, "v2026_08_07", Names())  # type: ignore[arg-type]
    assert "evil" not in text and "#show" not in text and ":-" not in text
    assert all(line.endswith(").") for line in text.splitlines())


def all_facts() -> tuple[list[str], set[catalog.Version]]:
    """The facts of every scenario and example, numbered, and their versions."""
    names = Names()
    facts, versions = [], set()
    for i, (name, doc) in enumerate(all_snapshots()):
        version = version_for(doc, None, name)
        versions.add(version)
        facts.append(snapshot_facts(doc, i, version.const, names))
    return facts, versions


def test_every_snapshot_has_exactly_one_answer_set() -> None:
    """Each snapshot of examples/ and tests/scenarios/ has one answer set (the whole
    batch has one model, so each independent snapshot has exactly one)."""
    facts, versions = all_facts()
    ctl = clingo.Control(["0", "--warn=none"])
    ctl.add("base", [], Program(tuple(versions)).text())
    ctl.add("base", [], "\n".join(facts))
    ctl.ground([("base", [])])
    models = 0
    with ctl.solve(yield_=True) as handle:
        for _ in handle:
            models += 1
    assert models == 1
    assert ctl.statistics["solving"]["solvers"]["choices"] == 0, "not decided by grounding"


def test_shown_texts_are_the_texts_of_the_shown_symbols() -> None:
    """The read-back's one-buffer rendering (solve.shown_texts) gives str() of each
    shown symbol, in the same order, over every scenario and example."""
    facts, versions = all_facts()
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], Program(tuple(versions)).text())
    ctl.add("base", [], encoding_file(f"{RULING_SHOW}.lp"))
    ctl.add("base", [], "\n".join(facts))
    ctl.ground([("base", [])])
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle))
        texts = shown_texts(model)
        assert texts == [str(symbol) for symbol in model.symbols(shown=True)]
    assert len(texts) > 1000 and any('"' in t for t in texts)  # rule numbers are strings


def test_versions_resolve_by_date() -> None:
    assert catalog.resolve("2019-05-01").name == "2017-04-28"
    assert catalog.resolve("2026-08-07").name == "2026-08-07"
    assert catalog.resolve("2030-01-01").name == "2026-08-07"
    with pytest.raises(catalog.UnknownVersion, match="2012-10-01"):
        catalog.resolve("2011-01-01")
    with pytest.raises(catalog.UnknownVersion, match="supported"):
        catalog.resolve("yesterday")


def test_token_owner_changes_with_version_and_cites_its_number() -> None:
    snapshot = json.loads((ROOT / "examples" / "02-token-for-an-opponent.json").read_text())
    old, new = adjudicate(snapshot, rules="2017-04-28"), adjudicate(snapshot, rules="2020-11-20")
    assert (old.owner("saproling"), new.owner("saproling")) == ("bob", "alice")
    assert "110.5a" in {b.rule for b in old.because("saproling", "owner")}
    assert "111.2" in {b.rule for b in new.because("saproling", "owner")}
    assert old.rules == "2017-04-28"


def test_proposal_switches_a_rule_group_off() -> None:
    snapshot = json.loads((ROOT / "examples" / "02-token-for-an-opponent.json").read_text())
    ruling = adjudicate(snapshot, changes=['off("111.2").'])
    assert ruling.owner("saproling") is None
    assert [v.code for v in ruling.violations] == ["no-owner"]
    by_number = adjudicate(snapshot, rules="2017-04-28", changes=['off_number("110.5a").'])
    assert by_number.owner("saproling") is None


def test_bad_input_raises_input_error_with_paths() -> None:
    with pytest.raises(InputError) as err:
        adjudicate({"id": "s9", "players": ["alice"], "objects": [{"id": "c", "kind": "card",
                    "zone": "moon"}], "effects": []})
    assert [(p.snapshot, p.path) for p in err.value.problems] == [("s9", "$.objects[0].zone")]
    with pytest.raises(InputError, match="valid JSON"):
        adjudicate("{not json")


def test_cli_adjudicate_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "examples" / "01-mind-control.json"
    assert main(["adjudicate", str(path)]) == 0
    ruling = json.loads(capsys.readouterr().out)
    assert ruling["objects"]["bear"]["controller"] == "bob"
    assert main(["adjudicate", "--format", "text", str(path)]) == 0
    assert "bear    alice  bob" in capsys.readouterr().out


def test_cli_bad_input_exit_2_one_line_per_problem(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"players": ["alice"], "objects": [
        {"id": "c", "kind": "card", "zone": "battlefield", "entered": {"at": "3", "under": "zed"}}],
        "effects": []}))
    assert main(["adjudicate", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith(f"mtgcontrol: {bad}: $.objects[0].entered") for line in err)
    assert main(["adjudicate", str(tmp_path / "missing.json")]) == 2
    assert "readable file" in capsys.readouterr().err
    assert main(["adjudicate", "--rules", "1999-01-01", str(bad)]) == 2
    assert "2026-08-07" in capsys.readouterr().err


def test_cli_never_shows_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    out = subprocess.run([sys.executable, "-m", "mtgcontrol.cli", "adjudicate", str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"mtgcontrol: {bad}: $: expected valid JSON")


@pytest.mark.parametrize("workers", [1, 2])
def test_batch_keeps_order_and_turns_bad_lines_into_error_records(
        tmp_path: Path, workers: int) -> None:
    good = [json.loads(p.read_text()) for p in sorted((ROOT / "examples").glob("*.json"))]
    lines = [json.dumps(doc) for doc in good]
    lines.insert(2, "{broken")
    lines.insert(4, json.dumps({"id": "no-players", "objects": [], "effects": []}))
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    target = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(target), "--workers", str(workers),
                 "--batch-size", "2"]) == 1  # exit 1: some lines became error records
    out = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(out) == len(lines)
    assert out[2] == {"line": 3, "id": None, "error": [{"path": "$", "expected": out[2][
        "error"][0]["expected"]}]} and "valid JSON" in out[2]["error"][0]["expected"]
    assert out[4]["id"] == "no-players" and out[4]["error"][0]["path"] == "$.players"
    judged = [o for i, o in enumerate(out) if i not in (2, 4)]
    assert [o["id"] for o in judged] == [d.get("id") for d in good]
    assert judged[0]["objects"]["bear"]["controller"] == "bob"


def test_choices_name_chooser_and_outcomes() -> None:
    ruling = adjudicate(ROOT / "examples" / "06-simultaneous-auras-2017.json")
    assert ruling.controller("x") is None
    [choice] = ruling.choices
    assert (choice.object, choice.chooser, choice.rule, choice.outcomes) == (
        "x", "alice", "613.6j", ["alice", "bob"])
    assert adjudicate(ROOT / "examples" / "06-simultaneous-auras-2017.json",
                      rules="2026-08-07").controller("x") == "bob"


def test_broken_or_contradictory_proposals_are_reported(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.lp"
    bad.write_text("off(\"111.2\"")
    example = str(ROOT / "examples" / "02-token-for-an-opponent.json")
    assert main(["adjudicate", "--change", str(bad), example]) == 2
    assert capsys.readouterr().err == (f"mtgcontrol: {bad}: line 2: expected valid ASP (clingo: "
                                       "column 1-2: syntax error, unexpected EOF, expecting ) "
                                       "or ;)\n")
    bad.write_text(":- snap(S).")
    assert main(["adjudicate", "--change", str(bad), example]) == 2
    assert "no answer" in capsys.readouterr().err
    assert main(["adjudicate", "--change", str(tmp_path / "none.lp"), example]) == 2
    assert "readable proposal file" in capsys.readouterr().err


def test_check_reports_claims_that_contradict_the_rules(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    doc["claims"] = [{"object": "bear", "controller": "alice"},
                     {"object": "bear", "owner": "alice"}]
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{path}: 613.1b claim-contradicts: claim #0 about bear: controller \"alice\", "
                   "the rules give \"bob\""]
    assert main(["check", str(ROOT / "examples" / "01-mind-control.json")]) == 0


def test_groundings_bounded_by_weight() -> None:
    """Snapshots are cut into groundings in order, each within the weight bound
    (facts squared) unless it is one snapshot alone, and within the count bound."""
    from mtgcontrol.engine import Engine

    engine = Engine(grounding_size=4, grounding_weight=2_000)
    texts = ["a.\n" * n for n in (10, 20, 40, 50, 10, 10, 10, 10, 10, 3)]
    chunks = engine.groundings(texts)
    assert [t for c in chunks for t in c] == texts
    for chunk in chunks:
        weight = sum((t.count("\n") + 1) ** 2 for t in chunk)
        assert len(chunk) <= 4 and (weight <= 2_000 or len(chunk) == 1)
    assert [len(c) for c in chunks] == [2, 1, 1, 4, 2]
