"""Fuzzing: mutated examples give a ruling or input errors naming JSON paths, never a
traceback; a fixed corpus of the nastiest cases found runs through batch; text output
escapes every id it prints; hostile Forge files, res folders and zips, scenario YAML and
proposal files end every command cleanly, reading nothing outside the folders given."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import SURFACES, Case, hostile_case, mutate, run_case

from mtgcontrol import InputError, adjudicate
from mtgcontrol.batch.judge import Settings, judge_lines
from mtgcontrol.cli import main
from mtgcontrol.present.text import ruling_table

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "fuzz-corpus.jsonl"


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_mutated_examples_are_judged_or_rejected_with_json_paths(rnd: random.Random) -> None:
    cases = [mutate(rnd) for _ in range(10)]
    results = judge_lines(list(enumerate((line for line, _ in cases), 1)), Settings())
    for (line, applied), (is_error, text) in zip(cases, results, strict=True):
        record = json.loads(text)
        if not is_error:
            assert set(record) >= {"id", "rules", "objects", "violations"}, applied
            for row in ruling_table(adjudicate(line)).splitlines():
                assert row.isprintable(), (applied, row)  # control characters escaped
            continue
        assert record["error"], applied
        for problem in record["error"]:
            assert problem["path"].startswith("$") and problem["expected"], (applied, problem)
            assert "internal error" not in problem["expected"], (applied, problem)
        with pytest.raises(InputError) as caught:  # the API says the same, never a traceback
            adjudicate(line if line.strip() else b" ")
        for problem in caught.value.problems:
            assert problem.path.startswith("$"), (applied, problem)
            str(problem).encode("utf-8")


def test_the_fixed_corpus_of_nasty_cases_gives_one_record_per_line(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    code = main(["batch", str(CORPUS), "-o", str(target), "--batch-size", "7",
                 "--max-objects", "150"])
    assert code == 1
    lines = CORPUS.read_bytes().split(b"\n")[:-1]
    out = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(out) == len(lines)
    for number, record in enumerate(out, 1):
        if "error" in record:
            assert record["line"] == number
            for problem in record["error"]:
                assert problem["path"].startswith("$"), record
                assert "internal error" not in problem["expected"], record
        else:
            assert set(record) >= {"id", "rules", "objects", "violations"}


def test_text_format_escapes_every_id_it_prints() -> None:
    bad = "e\u001b[31m\u202e"
    doc = {
        "id": f"s{bad}", "players": [f"alice{bad}", {"id": f"bob{bad}", "left_at": 30}],
        "now": 40,
        "objects": [
            {"id": f"bear{bad}", "kind": "card", "zone": "battlefield",
             "start": {"zone": "library", "player": f"alice{bad}"},
             "entered": {"at": 3, "under": f"alice{bad}"},
             "abilities": [{"id": f"pump{bad}", "kind": "activated"}]},
            {"id": f"aura{bad}", "kind": "card", "zone": "battlefield", "types": ["aura"],
             "start": {"zone": "library", "player": f"bob{bad}"},
             "entered": {"at": 10, "under": f"bob{bad}"}, "attached_to": f"bear{bad}"}],
        "effects": [{"id": f"e{bad}", "kind": "control", "origin": "resolution",
                     "source": f"aura{bad}", "player": f"bob{bad}", "objects": [f"bear{bad}"],
                     "timestamp": 12}],
        "claims": [{"object": f"bear{bad}", "controller": f"alice{bad}"}]}
    text = ruling_table(adjudicate(doc))
    assert "left" in text or "exile" in text or ":" in text
    for line in text.splitlines():
        assert line.isprintable(), repr(line)


def test_explain_text_escapes_ids_with_newlines_and_terminal_escapes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = "\n\u001b[2J\r\u009b31m"
    doc = {"id": f"s{bad}", "players": [f"alice{bad}", "bob"], "now": 40,
           "objects": [{"id": f"bear{bad}", "kind": "card", "zone": "battlefield",
                        "start": {"zone": "library", "player": f"alice{bad}"},
                        "entered": {"at": 3, "under": f"alice{bad}"}}],
           "effects": [{"id": f"e{bad}", "kind": "control", "origin": "resolution",
                        "source": f"bear{bad}", "player": "bob", "objects": [f"bear{bad}"],
                        "timestamp": 12}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["explain", str(path), f"bear{bad}", "--why-not", f"alice{bad}"]) == 0
    text = capsys.readouterr().out
    assert "bear\\n\\x1b[2J\\r\\x9b31m" in text
    for line in text.splitlines():
        assert line.isprintable(), repr(line)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.integers(min_value=-(2**70), max_value=2**70) | st.sampled_from(
    [-1, 0, 10**9, 10**9 + 1, 2**31 - 1, 2**31, 2**63, -(2**63) - 1, 10**4000, 10**5000]))
def test_any_integer_as_a_timestamp_is_judged_or_refused_with_its_path(value: int) -> None:
    doc = {"id": "n", "players": ["alice", "bob"], "now": value, "objects": [
        {"id": "tok", "kind": "token", "zone": "battlefield", "created": {"at": 0, "by": "bob"},
         "entered": {"at": 0, "under": "alice"}}], "effects": []}
    if 0 <= value <= 10**9:
        assert adjudicate(doc).to_json()  # the JSON writer takes whatever validation let in
        return
    with pytest.raises(InputError) as caught:
        adjudicate(doc)
    (problem,) = caught.value.problems
    assert problem.path == "$.now" and "from 0 to 1000000000" in problem.expected
    if value.bit_length() > 14000:
        return  # more digits than JSON text can be turned into here
    line = json.dumps(doc).encode()
    ((is_error, text),) = judge_lines([(1, line)], Settings())
    assert is_error and json.loads(text)["error"][0]["path"] in ("$", "$.now")


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet=st.characters(codec="utf-8", categories=["Cc", "Cf", "Zl", "Zp",
                                                                 "Ll"]),
               min_size=1, max_size=12))
def test_ids_with_control_characters_are_escaped_in_text(name: str) -> None:
    doc = {"id": name, "players": [f"a{name}", "bob"], "objects": [
        {"id": f"t{name}", "kind": "token", "zone": "battlefield",
         "created": {"at": 5, "by": "bob"}, "entered": {"at": 5, "under": f"a{name}"}}],
        "effects": []}
    try:
        ruling = adjudicate(doc)
    except InputError as err:  # e.g. a lone surrogate or a blank id: refused by name
        for problem in err.problems:
            assert problem.path.startswith("$")
        return
    for row in ruling_table(ruling).splitlines():
        assert row.isprintable(), row


# --- Hostile files: Forge game files, res folders and zips, scenario YAML, proposals --------

@pytest.mark.parametrize("surface", SURFACES)
def test_hostile_files_end_cleanly_without_escaping(surface: str, tmp_path: Path) -> None:
    """A few cases of each surface (benchmarks/fuzz.py runs thousands): each command ends
    with exit 0, 1 or 2, no traceback, every line of standard error printable, and no
    file opened outside the folders given or written outside the case's folder."""
    for number in range(6):
        case = hostile_case(random.Random(f"suite-{surface}-{number}"), surface)
        outcome = run_case(case, tmp_path / str(number))
        assert not outcome.bad, (case.applied, outcome)
        assert outcome.seconds < 30, (case.applied, outcome.seconds)


def test_the_hostile_file_checker_catches_what_it_looks_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run_case itself: an escape, an exception and an unprintable line are each seen."""
    reads_outside = Case("forge", ["reads the canary"], args=[
        "adjudicate", "{case}/../outside/secret.yaml"])
    outcome = run_case(reads_outside, tmp_path / "a")
    assert any("outside/secret.yaml" in e for e in outcome.escapes), outcome
    writes_outside = Case("proposal", ["writes beside"], files={"e.json": b"{}"}, args=[
        "adjudicate", str(ROOT / "examples" / "01-mind-control.json"), "-o",
        "{case}/../beside.json"])
    assert any("(writing)" in e for e in run_case(writes_outside, tmp_path / "b").escapes)

    def crash(_args: list[str]) -> int:
        raise KeyError("boom")

    monkeypatch.setattr("mtgcontrol.cli.main", crash)
    assert run_case(Case("yaml", ["crash"], args=["test"]), tmp_path / "c").traceback == \
        "KeyError: 'boom'"

    def shout(_args: list[str]) -> int:
        print("a\x1b[2Jb", file=sys.stderr)
        return 2

    monkeypatch.setattr("mtgcontrol.cli.main", shout)
    assert run_case(Case("yaml", ["shout"], args=["test"]), tmp_path / "d").unprintable == \
        ["a\x1b[2Jb"]
