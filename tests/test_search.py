"""Verification by search (search.py): proofs within bounds, minimal counterexamples
that reproduce, user invariants, impact as one search, minimal causes (causes.py)."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time
from contextlib import redirect_stdout
from functools import cache
from importlib import resources
from pathlib import Path

import clingo
import pytest

from mtgcontrol import catalog, research
from mtgcontrol.cli import main
from mtgcontrol.engine.causes import minimal_causes
from mtgcontrol.research import Bounds, impact_exhaustive
from mtgcontrol.research.changes import W1, W2, W3
from mtgcontrol.research.differences import impact_search
from mtgcontrol.research.gen import cell_control, generator_text, model_to_doc
from mtgcontrol.research.invariants import Invariant, builtin_invariants, load_invariant
from mtgcontrol.research.proofs import WITHIN, Settings, verify_one, verify_version
from mtgcontrol.research.solver import search_file

V2017, V2020, V2026 = (catalog.resolve(v) for v in ("2017-04-28", "2020-11-20", "2026-08-07"))
INVARIANTS = {i.name: i for i in builtin_invariants()}
INVARIANT_DIR = Path(str(resources.files("mtgcontrol.encodings") / "invariants"))


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_builtin_invariants_are_the_documented_six() -> None:
    assert list(INVARIANTS) == ["one-controller", "no-controller-elsewhere", "one-owner",
                                "you-defined", "no-open-choice", "no-violation"]
    assert all(i.summary for i in INVARIANTS.values())


def test_an_invariant_that_holds() -> None:
    verdict = verify_one(Bounds(2, 2, 1), V2026, INVARIANTS["one-owner"])
    assert verdict.holds and verdict.counterexample is None
    assert verdict.mode == "cone" and verdict.text().startswith(
        "2026-08-07 one-owner (Exactly one owner for every card, token, copy and emblem): "
        "holds for every owner cone up to 3 objects + effects (≤ 2 objects, ≤ 1 effects; 2 players)"
        ", so every snapshot whose cones are within that")


def test_a_token_that_ceased_to_exist_as_it_phased_out_is_no_permanent() -> None:
    """2012/2017 (110.5f): a phased-out token ceases to exist; a snapshot may still list
    it, phased in again later, without a controller.  That is no permanent left without
    one: one-controller holds with one phasing detail (it failed at size 2)."""
    verdict = verify_one(Bounds(2, 1, 0, details=1, size=2), V2017, INVARIANTS["one-controller"])
    assert verdict.holds, verdict.counterexample


def test_a_minimal_counterexample_that_adjudicate_reproduces(tmp_path: Path) -> None:
    # Before 2024 a may-cast copy of a card (112.2a) has no owner: size 1 is the minimum.
    verdict = verify_one(Bounds(2, 2, 1), V2020, INVARIANTS["one-owner"])
    assert not verdict.holds and verdict.size == 1 and verdict.reproduced
    assert verdict.failures == [{"what": "no_owner", "object": "o1"}]
    doc = verdict.counterexample
    assert doc is not None and len(doc["objects"]) == 1 and not doc["effects"]
    path = tmp_path / "counterexample.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out = run_cli("adjudicate", str(path))
    ruling = json.loads(out)
    assert code == 0 and ruling["objects"]["o1"]["owner"] is None
    assert any(v["code"] == "no-owner" for v in ruling["violations"])
    # The same snapshot under 2026-08-07 has its owner: the gap was closed.
    code, out = run_cli("adjudicate", "--rules", "2026-08-07", str(path))
    assert json.loads(out)["objects"]["o1"]["owner"] == doc["objects"][0]["created"]["by"]


def test_a_user_invariant_file(tmp_path: Path) -> None:
    path = tmp_path / "no-stolen-spell.lp"
    path.write_text("% No permanent spell is stolen.\n"
                    "fail(S,stolen,O) :- spell_put_by(S,O,P), entered(S,O,_,Q), P != Q.\n",
                    encoding="utf-8")
    invariant = load_invariant(path)
    assert invariant.name == "no-stolen-spell" and invariant.summary == \
        "No permanent spell is stolen"
    # One search (the command's, at 2 / 2 / 1 without details): the API's is the same
    # program, and verify_one is run by the tests above and below.
    code, out = run_cli("verify", "--rules", "2026-08-07", "--players", "2", "--objects", "2",
                        "--effects", "1", "--details", "0", "--invariant", str(path),
                        "--quiet", "--format", "json")
    data = json.loads(out)
    assert code == 1 and [v["invariant"] for v in data["verdicts"]] == ["no-stolen-spell"]
    (verdict,) = data["verdicts"]
    assert verdict["holds"] is False and verdict["size"] == 3 and verdict["reproduced"] is True
    assert verdict["summary"] == "No permanent spell is stolen"
    assert any("spell_put_on_stack_by" in o.get("entered", {})
               for o in verdict["counterexample"]["objects"])


def test_verdicts_do_not_depend_on_the_number_of_threads_or_workers() -> None:
    """Proofs split over threads and worker processes end in an order that depends on
    timing; the parts of the space are the same, and the counterexamples printed come
    from a one-thread search of their size, so the same."""
    def verdicts(threads: str) -> list[dict[str, object]]:
        code, out = run_cli("verify", "--all-versions", "--players", "2", "--objects", "2",
                            "--effects", "0", "--details", "0", "--threads", threads,
                            "--workers", threads,
                            "--quiet", "--format", "json")
        assert code == 1
        found = json.loads(out)["verdicts"]
        for v in found:
            for key in ("cpu_seconds", "wall_seconds", "per_size"):
                v.pop(key)
        return found

    one = verdicts("1")
    assert sum(not v["holds"] for v in one) == 9 and all(
        v["reproduced"] for v in one if not v["holds"])
    assert verdicts("2") == one
    # The fewest players, then nobody leaving (a leaver is {"id", "left_at"}): every
    # counterexample here has one without (e.g. a may-cast copy of a card, no owner).
    owner = next(v for v in one if v["invariant"] == "one-owner")
    assert owner["counterexample"]["players"] == ["p1", "p2"]
    assert all(isinstance(p, str) for v in one if not v["holds"]
               for p in v["counterexample"]["players"])
    with pytest.raises(SystemExit) as usage:  # argparse: a usage error
        main(["verify", "--threads", "0", "--quiet"])
    assert usage.value.code == 2


def test_a_time_limit_leaves_an_undecided_verdict_with_the_sizes_proved(tmp_path: Path) -> None:
    """At 3 / 3 / 2 the size-4 proof takes minutes of CPU: 2 s of CPU (every worker's,
    whatever the load) stop before; the limit may be passed by what the workers were
    grounding when it came."""
    start = time.perf_counter()
    code, out = run_cli("verify", "--players", "3", "--objects", "3", "--effects", "2",
                        "--invariant", str(INVARIANT_DIR / "one-controller.lp"),
                        "--threads", "1", "--time-limit", "2", "--quiet", "--format", "json")
    assert time.perf_counter() - start < 120
    verdict = json.loads(out)["verdicts"][0]
    assert code == 1 and verdict["holds"] is None and "counterexample" not in verdict
    assert 0 <= verdict["proved_upto"] < 4 and verdict["cpu_seconds"] < 30
    code, out = run_cli("verify", "--players", "3", "--objects", "3", "--effects", "2",
                        "--invariant", str(INVARIANT_DIR / "one-controller.lp"),
                        "--threads", "1", "--time-limit", "2", "--quiet")
    assert code == 1 and "one-controller (Exactly one controller for each permanent and " \
        "spell): undecided beyond size" in out and "FAILED" not in out
    assert re.search(r"\nundecided beyond size \d \(0 of 1 hold, 1 undecided \(time limit\); "
                     r"[\d.]+ s CPU\)$", out)
    page = tmp_path / "verify.html"
    assert main(["verify", "--players", "3", "--objects", "3", "--effects", "2",
                 "--invariant", str(INVARIANT_DIR / "one-controller.lp"), "--time-limit", "1",
                 "--threads", "1", "--quiet", "--format", "html", "-o", str(page)]) == 1
    assert "undecided within the time limit" in page.read_text()
    with pytest.raises(SystemExit) as usage:  # argparse: a usage error
        main(["verify", "--time-limit", "0", "--quiet"])
    assert usage.value.code == 2


def test_a_time_limit_stops_impact_with_the_kinds_found_so_far() -> None:
    """impact 2017 -> 2020 at 3 / 4 / 2 runs minutes: stopped after 3 s, the report says
    up to which size it was exhaustive; a search that ends in time is complete."""
    code, out = run_cli("impact", "--exhaustive", "--from", "2017-04-28", "--to", "2020-11-20",
                        "--players", "3", "--objects", "4", "--effects", "2",
                        "--time-limit", "3", "--quiet", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["complete"] is False and 0 <= report["exhausted_upto"] < 6
    # its grounding alone takes 20 s of CPU: the worker is killed 1 s past the budget
    assert report["cpu_seconds"] < 10
    code, out = run_cli("impact", "--exhaustive", "--from", "2017-04-28", "--to", "2020-11-20",
                        "--players", "3", "--objects", "4", "--effects", "2",
                        "--time-limit", "1", "--quiet")
    assert code == 0 and "INCOMPLETE: stopped by the time limit while searching size" in out
    assert re.search(r"\nundecided beyond size \d: .* \(time limit\)$", out)
    # A limit that is not reached changes nothing but the report's timings.
    def kinds(*limit: str) -> dict[str, object]:
        code, out = run_cli("impact", "--exhaustive", "--from", "2017-04-28", "--to",
                            "2020-11-20", "--players", "2", "--objects", "2", "--effects", "0",
                            *limit, "--quiet", "--format", "json")
        report = json.loads(out)
        assert code == 0 and report["complete"] is True
        return {"differences": report["differences"], "citation_only": report["citation_only"],
                "sizes": [p["size"] for p in report["per_size"]]}

    limited = kinds("--time-limit", "600")
    assert limited == kinds() and 2 in limited["sizes"]
    assert main(["impact", "--from", "2017-04-28", "--to", "2020-11-20", "--time-limit", "5",
                 "-"]) == 2


SIGNALLED = {
    # verify: the size-3 proof of one-controller at 3 / 3 / 2 takes minutes of CPU
    "verify": (["verify", "--players", "3", "--objects", "3", "--effects", "2",
                "--invariant", str(INVARIANT_DIR / "one-controller.lp")],
               "searching cones with 3 object(s)"),
    # the first tasks: their programs are being grounded in the workers
    "grounding": (["verify", "--players", "3", "--objects", "5", "--effects", "3"],
                  "searching cones with 1 object(s)"),
    # impact 2017 -> 2020 at 3 / 4 / 2 runs minutes, in one worker process
    "impact": (["impact", "--exhaustive", "--from", "2017-04-28", "--to", "2020-11-20",
                "--players", "3", "--objects", "4", "--effects", "2"],
               "searching cones with 1 object(s)"),
}


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("phase", sorted(SIGNALLED))
def test_a_signal_stops_a_search_at_once(phase: str, signum: int, code: int) -> None:
    """The searches run in worker processes; the parent, which only waits for them,
    handles the signal at once and kills them, in any phase (grounding included)."""
    argv, wait_for = SIGNALLED[phase]
    process = subprocess.Popen([sys.executable, "-m", "mtgcontrol.cli", *argv],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:  # progress: wait until the phase runs
        if wait_for in line:
            break
    time.sleep(1)
    children = psutil_children(process.pid)
    assert children, "the search runs in worker processes"
    sent = time.perf_counter()
    process.send_signal(signum)
    _, err = process.communicate(timeout=240)
    assert process.returncode == code and "Traceback" not in err
    assert time.perf_counter() - sent < 10  # the proofs and groundings take minutes
    deadline = time.perf_counter() + 5  # the fork server sees its parent gone
    while [c for c in children if _alive(c)] and time.perf_counter() < deadline:
        time.sleep(0.1)
    assert not [c for c in children if _alive(c)], "every worker process is gone"


def psutil_children(pid: int) -> list[int]:
    """The process's descendants (Linux /proc)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid == parent:
                    found.append(int(entry.name))
                    todo.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_broken_invariant_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.lp"
    path.write_text("fail(S,x,O) :- obj(S,O,_,_)\n", encoding="utf-8")
    assert main(["verify", "--invariant", str(path), "--players", "2", "--objects", "1",
                 "--effects", "0", "--quiet"]) == 2


def test_all_versions_table() -> None:
    code, out = run_cli("verify", "--all-versions", "--players", "2", "--objects", "1",
                        "--effects", "0", "--quiet")
    assert code == 1  # 2012-2020: the may-cast copy of a card has no owner
    header = next(line for line in out.splitlines() if line.startswith("invariant"))
    assert all(v.name in header for v in catalog.versions())
    row = next(line for line in out.splitlines() if line.startswith("one-owner"))
    assert row.count("fails, size 1") == 3 and row.count("holds") == 2


@pytest.mark.parametrize("bounds", [Bounds(2, 1, 1), Bounds(2, 2, 0)])
def test_search_matches_enumeration(bounds: Bounds) -> None:
    """At small bounds the search finds the same kinds, with witnesses of the same size."""
    for v1, v2 in ((V2017, V2020), (V2020, V2026)):
        enumerated = impact_exhaustive(bounds, v1, v2)
        searched = impact_search(bounds, v1, v2)
        assert not searched.errors

        def found(report: research.ImpactReport) -> set[tuple[object, ...]]:
            return {(k, c, r.witness["size"]) for (k, c), r in report.kinds.items()
                    if r.witness is not None}

        assert found(searched) == found(enumerated)
    # verify: the same verdict on one controller for every permanent and spell
    for version in (V2017, V2026):
        old = research.verify(bounds, version)
        new = verify_one(bounds, version, INVARIANTS["one-controller"])
        assert old.ok() == new.holds


def test_search_impact_finds_the_token_owner_change() -> None:
    report = impact_search(Bounds(2, 1, 0), V2017, V2020)
    kinds = {(r.kind.fact, r.kind.from_rules, r.kind.to_rules): r
             for r in report.kinds.values() if r.category == "meaning"}
    witness = kinds[("owner", ("110.5a",), ("111.2",))].witness
    assert witness is not None and witness["size"] == 1
    assert witness["snapshot"]["objects"][0]["kind"] == "token"
    assert not impact_search(Bounds(2, 1, 1), V2026, V2026).kinds


def test_check_names_minimal_causes(tmp_path: Path) -> None:
    doc = {"players": ["alice", {"id": "bob", "left_at": 10}, "carol"], "now": 14,
           "objects": [{"id": "tok", "kind": "token", "zone": "battlefield",
                        "types": ["creature"], "created": {"at": 12, "by": "alice"},
                        "entered": {"at": 12, "under": "bob"}},
                       {"id": "bear", "kind": "card", "zone": "battlefield",
                        "types": ["creature"], "start": {"zone": "library", "player": "carol"},
                        "entered": {"at": 3, "under": "carol"}}],
           "effects": []}
    causes = minimal_causes(doc, V2026)
    assert [(c.violation.code, c.paths) for c in causes] == [
        ("after-leaving", ["$.objects[0].entered", "$.players[1].left_at"])]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out = run_cli("check", "--causes", str(path))
    assert code == 1
    assert "minimal cause: $.objects[0].entered, $.players[1].left_at" in out


# Changes of docs/cr-versions.md §4 each window's search finds, at the smallest bounds
# that hold their witnesses (the rest need bigger snapshots: A3 and B4 have witnesses of
# size 4; the benchmark, benchmarks/bench_search.py, searches the windows at 3 players,
# 4 objects, 2 effects).  Every other difference found there must be explained too.
WINDOW_BOUNDS = [
    (W1, Bounds(2, 2, 0), {"A1", "A2", "A5", "A6"}),
    # B2: a stolen card + its source.  B3 needs size 4 (scenario leaving/321): the
    # size-3 witness found before began a no-player effect as its source arrived.
    (W2, Bounds(2, 2, 1), {"B1", "B2", "B5"}),
    (W2, Bounds(2, 2, 0, details=1), {"B1", "B5", "B9"}),  # B9: a token that phases out
    (W3, Bounds(2, 2, 0), {"C2", "C4"}),
]


@pytest.mark.parametrize("window, bounds, wanted", WINDOW_BOUNDS)
def test_window_finds_its_changes_each_under_its_rule(
        window: tuple[str, str], bounds: Bounds, wanted: set[str]) -> None:
    from mtgcontrol.research import changes as cr_changes

    report = impact_search(bounds, *(catalog.resolve(v) for v in window)).to_dict()
    assert set(cr_changes.found(report)) >= wanted
    assert not report.get("errors")
    assert cr_changes.unexplained(report) == []


def test_a_face_up_difference_is_filed_under_the_face_up_rule() -> None:
    """613.7f (613.6e in 2017) decides the order: the ruling cites it, so the cause
    from citations is that group, and the counterfactual attribution (switching
    it off changes the controller) files it there too."""
    from mtgcontrol.research.differences import attribute
    from mtgcontrol.research.views import Sides, compare, judge_pairs

    v2012 = catalog.resolve("2012-10-01")
    doc = {"players": ["p1", "p2"], "now": 4, "objects": [
        {"id": "o1", "kind": "card", "zone": "battlefield", "types": ["creature"],
         "start": {"zone": "library", "player": "p1"}, "entered": {"at": 1, "under": "p1"},
         "turned_face_up_at": 3},
        {"id": "o2", "kind": "card", "zone": "battlefield", "types": ["creature"],
         "start": {"zone": "library", "player": "p2"}, "entered": {"at": 1, "under": "p2"}}],
        "effects": [
        {"id": "e1", "kind": "control", "origin": "static", "source": "o1", "objects": ["o2"],
         "timestamp": 1},
        {"id": "e2", "kind": "control", "origin": "resolution", "source": "o2", "player": "p2",
         "objects": ["o2"], "timestamp": 2}]}
    sides = Sides.of(v2012, V2017)
    pairs, names = judge_pairs([doc], v2012, V2017)
    diffs = [compare(a, b, sides)[0] for a, b in pairs]
    # the controller, and with it "you" and the history of control (every field of a
    # ruling is compared)
    assert sorted(d.key[0] for d in diffs[0]) == ["controller", "history", "you"]
    assert {d.cause for d in diffs[0]} == {((), ("613.6e",))}  # cited by the 2017 ruling
    attribute([doc], diffs, pairs, v2012, V2017, sides)
    diff = next(d for d in diffs[0] if d.key[0] == "controller")
    assert {d.cause for d in diffs[0]} == {((), ("613.6e",))}
    assert (names.name(diff.before), names.name(diff.after)) == ("p2", "p1")


def test_groups_switched_off_in_one_grounding_judge_as_proposals_apart() -> None:
    """attribute switches each one-sided group off in turn over one grounding (an
    external per group): group by group, the views a proposal ``off("G").`` gives,
    judged apart -- and the switch does something (a view changes)."""
    from mtgcontrol.research.views import judge_one, judge_switched_off

    token = {"players": ["p1", {"id": "p2", "left_at": 3}], "now": 4, "objects": [
        {"id": "t", "kind": "token", "zone": "battlefield", "types": ["creature"],
         "created": {"at": 1, "by": "p1"}, "entered": {"at": 1, "under": "p2"}},
        {"id": "c", "kind": "card", "zone": "battlefield", "types": ["creature"],
         "start": {"zone": "library", "player": "p1"}, "entered": {"at": 2, "under": "p1"}}],
        "effects": [{"id": "e1", "kind": "control", "origin": "resolution", "source": "c",
                     "player": "p2", "objects": ["c"], "timestamp": 2}]}
    docs = [token, {**token, "players": ["p1", "p2"], "now": 3}]
    groups = ["111.2", "110.2b", "800.4c", "613.1b"]
    switched = judge_switched_off(docs, V2026, groups)
    plain, _ = judge_one(docs, V2026)
    changed = 0
    for group in groups:
        apart, _ = judge_one(docs, V2026, (f'off("{group}").',))
        assert [(v.facts, v.cite) for v in switched[group]] == \
            [(v.facts, v.cite) for v in apart], group
        changed += [v.facts for v in apart] != [v.facts for v in plain]
    assert changed >= 2


# ---------------------------------------------------------------------------------
# The generator's time domain


@cache  # tests count some cells of the same program (a worker's repeats are free)
def _count(program: str, cell: tuple[int, ...], *options: str) -> int:
    players, objects, effects, *details = cell
    ctl = clingo.Control(["0", "--project", "--warn=none", f"-c np={players}",
                          f"-c no={objects}", f"-c ne={effects}",
                          f"-c nd={details[0] if details else 0}", *options])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    ctl.solve()
    return int(ctl.statistics["summary"]["models"]["enumerated"])


@pytest.mark.parametrize("cell", [(2, 1, 0), (2, 2, 0), (2, 1, 1), (3, 2, 0), (2, 1, 2),
                                  (2, 1, 0, 1), (3, 1, 0, 2)])
def test_the_time_domain_holds_every_event(cell: tuple[int, ...]) -> None:
    # The same definition of a snapshot with a generous time domain (14 points:
    # times have no gaps, so more points than events add nothing) counts the same
    # snapshots, with details (players, objects, effects, details) too.  A domain
    # of objects + 2 x effects + 1 once gave 568 of 600 at 2/2/0.
    text = generator_text()
    domain = re.findall(r"^time\(1\.\..*\)\.$", text, flags=re.M)
    assert len(domain) == 1
    generous = text.replace(domain[0], "time(1..14).")
    assert _count(text, cell) == _count(generous, cell)


@pytest.mark.parametrize("cell", [(2, 1, 1, 0), (2, 2, 0, 0), (2, 1, 0, 1)])
def test_a_cell_grounded_with_its_own_details_makes_the_same_snapshots(
        cell: tuple[int, int, int, int]) -> None:
    # verify grounds the snapshots of exactly d details with nd = d (its time domain,
    # no detail choices) and the search's details bound as search_details: the same
    # snapshots as the grounding with the search's bound (2 here).  Without
    # search_details a cell of no details would lose "until end of turn".
    players, objects, effects, details = cell
    exact = generator_text() + f"\n:- n_size(N), N != {objects + effects + details}."
    whole = _count(exact, (players, objects, effects, 2))
    assert _count(exact, cell, "-c search_details=2") == whole
    if details == 0 and effects:
        assert _count(exact, cell) < whole


@pytest.mark.parametrize("cell", [(1, 1), (2, 0), (1, 2)])
def test_an_impact_cell_grounded_with_its_own_bounds_makes_the_same_snapshots(
        cell: tuple[int, int]) -> None:
    # impact grounds each cell (objects, effects) with its own bounds (a smaller time
    # domain), with late entries: the same snapshots as its bounds' grounding (2 / 2 / 2)
    # holds with exactly that many objects and effects.
    objects, effects = cell
    exact = generator_text() + (f"\n:- not n_objects({objects}).\n"
                                f":- not n_effects({effects}).")
    options = ("-c exact=0", "-c late=1")
    whole = _count(exact, (2, 2, 2), *options)
    assert whole > 0 and _count(exact, (2, objects, effects), *options) == whole


def test_a_copy_that_entered_then_a_trigger_then_a_leaving_is_generated() -> None:
    # Four events for two objects: put on the stack at 1, entered at 2, a delayed
    # trigger created through the copy's static ability at 3, a player left at 4.
    ctl = cell_control(2, 2, 0)
    found = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            doc = model_to_doc(model.symbols(shown=True))
            copy, trigger = doc["objects"]
            if copy.get("put_on_stack", {}).get("at") == 1 and \
                    copy.get("entered", {}).get("at") == 2 and \
                    trigger.get("created_by_static_of", {}).get("at") == 3 and \
                    any(isinstance(p, dict) and p["left_at"] == 4 for p in doc["players"]):
                found.append(doc)
    assert found and all(d["now"] == 5 for d in found)


# ---------------------------------------------------------------------------------
# Cones and the locality lemma


@pytest.mark.parametrize("bounds", ["2,2,0", "2,1,1"])
def test_the_locality_lemma_holds_for_every_cone_invariant_in_every_version(
        bounds: str) -> None:
    players, objects, effects = bounds.split(",")
    # One worker: the suite already keeps every core busy, and two workers would
    # ground some programs twice (orderings: 44 s of CPU against 35 s).
    code, out = run_cli("verify", "--check-locality", "--all-versions", "--players", players,
                        "--objects", objects, "--effects", effects, "--details", "0",
                        "--workers", "1", "--quiet", "--format", "json")
    data = json.loads(out)
    cones = [i.name for i in INVARIANTS.values() if i.cones]
    assert code == 0 and data["check"] == "locality" and len(cones) == 6
    assert [(v["rules"], v["invariant"]) for v in data["verdicts"]] == [
        (version.name, name) for version in catalog.versions() for name in cones]
    assert all(v["holds"] and v["searched"] == "locality" for v in data["verdicts"])


STOLEN = "fail(S,stolen,O) :- controller(S,O,P), owner(S,O,Q), P != Q.\n"


def test_a_cone_that_misses_a_dependency_is_found() -> None:
    # The planted cone "broken" of search/cone.lp: an object does not depend on the
    # control effects on it, so the cone of a permanent leaves out the effect that
    # gives it to another player: "controlled by its owner" fails in the snapshot and
    # holds in the cone.  With the dependencies cone the lemma holds.
    broken = Invariant("controlled-by-owner", "Controlled by its owner",
                       "% locality: cone broken\n" + STOLEN)
    assert broken.cone == "broken"
    verdict = verify_version(Bounds(2, 1, 1), V2026, [broken], locality=True)[0]
    assert verdict.word() == "fails" and verdict.size == 2
    # (the facts that differ between the snapshot and its cone are listed too)
    assert {"what": "failure stolen differs", "object": "o1"} in (verdict.failures or [])
    sound = Invariant("controlled-by-owner", "Controlled by its owner",
                      "% locality: cone\n" + STOLEN)
    assert verify_version(Bounds(2, 1, 1), V2026, [sound], locality=True)[0].holds


def _cone_outside(extra: str = "") -> bool:
    """Is there a generated snapshot (3 objects, 2 effects, 1 detail; not only connected
    ones) with an edge of a cone K that is neither a requires/2 edge nor an edge of the
    cone WITHIN[K] that verify searches K's invariants in?"""
    ctl = clingo.Control(["--warn=none", "-c np=2", "-c no=3", "-c ne=2", "-c nd=1",
                          "-c exact=0", "-c connected=0"])
    within = " ".join(f"within({k},{c})." for k, c in WITHIN.items())
    ctl.add("base", [], "\n".join((generator_text(), search_file("cone.lp"), within, extra,
        "outside :- within(K,C), cone_edge(K,X,Y), not cone_edge(C,X,Y), not requires(X,Y).",
        ":- not outside.")))
    ctl.ground([("base", [])])
    return bool(ctl.solve().satisfiable)


def test_a_smaller_cone_searched_within_a_larger_one_is_inside_it() -> None:
    # Each cone of WITHIN is inside the one its invariants are searched by, so a
    # snapshot that is the smaller cone of its root is the larger cone of it too
    # (docs/research.md, "One search for every cone kind").  The check can fail: an
    # owner edge from what a copy copies to the copy is no dependency.
    assert WITHIN == {"owner": "dependencies", "structure": "dependencies"}
    assert not _cone_outside()
    assert _cone_outside("cone_edge(owner,o(X),o(A)) :- g_copy_of(A,X).")


def test_cones_and_whole_snapshots_give_the_same_verdicts() -> None:
    """The search by cones against the search over every connected snapshot, at 2/2/1:
    the same verdicts and the same smallest counterexample sizes, for the built-in
    invariants and two that fail at size 2, one at an object listed after its
    dependency (an ability after its source), one at a permanent with its effect."""
    extra = [Invariant("no-activated", "No activated ability",
                       "% locality: cone\nfail(S,activated,A) :- ability_kind(S,A,activated)."),
             Invariant("no-stolen", "No stolen spell",
                       "% locality: cone\n"
                       "fail(S,stolen,O) :- spell_put_by(S,O,P), entered(S,O,_,Q), P != Q.")]
    cones = [*INVARIANTS.values(), *extra]
    whole = [Invariant(i.name, i.summary, re.sub(r"^% locality: cone.*$", "", i.text,
                                                  flags=re.M))
             for i in cones]
    assert all(i.cones for i in cones) and not any(i.cones for i in whole)
    # (one version: that each version's rules are local is the locality lemma's test)
    by_cones = verify_version(Bounds(2, 2, 1), V2026, cones)
    by_snapshots = verify_version(Bounds(2, 2, 1), V2026, whole)
    assert [(v.mode, v.word(), v.size) for v in by_cones] == \
        [("cone", v.word(), v.size) for v in by_snapshots]
    assert [v.size for v in by_cones[-2:]] == [2, 3]  # a stolen spell: its effect's source too
    assert all(v.reproduced for v in by_cones if v.word() == "fails")


# ---------------------------------------------------------------------------------
# Time orderings: one representative per class


def test_one_ordering_per_class_is_fewer_snapshots() -> None:
    # 2 players, 2 objects (unconnected too): 6,437 of the 9,753 orderings are
    # representatives; one object and one effect: 596 of 920 (e.g. the object
    # entering before the effect's timestamp or at it is one class); one object
    # alone keeps all 398 (every pair of its events and the leaving is compared).
    text = generator_text()
    assert text.count("#const orderings = 0.") == 1
    reduced = text.replace("#const orderings = 0.", "#const orderings = 1.")
    loose = text.replace("#const connected = 1.", "#const connected = 0.")
    assert _count(reduced.replace("#const connected = 1.", "#const connected = 0."),
                  (2, 2, 0)) == 6437 < _count(loose, (2, 2, 0)) == 9753
    assert _count(reduced, (2, 1, 1)) == 596 < _count(text, (2, 1, 1)) == 920
    assert _count(reduced, (2, 1, 0)) == _count(text, (2, 1, 0)) == 398


def test_the_orderings_lemma_holds_for_every_invariant_in_every_version() -> None:
    code, out = run_cli("verify", "--check-orderings", "--all-versions", "--players", "2",
                        "--objects", "1", "--effects", "1", "--details", "0", "--quiet",
                        "--workers", "1", "--format", "json")  # one worker: as above
    data = json.loads(out)
    assert code == 0 and data["check"] == "orderings"
    assert [(v["rules"], v["invariant"]) for v in data["verdicts"]] == [
        (version.name, name) for version in catalog.versions() for name in INVARIANTS]
    assert all(v["holds"] and v["searched"] == "orderings" for v in data["verdicts"])


@pytest.mark.parametrize("version, bounds", [(V2017, (2, 2, 0)), (V2026, (2, 1, 2))])
def test_the_orderings_lemma_holds_at_two_parts(version: catalog.Version,
                                                bounds: tuple[int, int, int]) -> None:
    # The facts are compared whatever the invariant, so one invariant checks them.
    verdict = verify_version(Bounds(*bounds), version, [INVARIANTS["one-controller"]],
                             orderings=True)[0]
    assert verdict.mode == "orderings" and verdict.holds


def test_an_ordering_reduction_that_forgets_a_comparison_is_found() -> None:
    # Two effects on one object not compared: a "representative" may tie their
    # timestamps (two resolution effects at one time: a 613.7b violation).
    lines = ("order_near(e(E),e(F)) :- effect_on(E,O), effect_on(F,O), E != F.",
             "compared(V,W) :- effect_on(E,O), effect_on(F,O), E != F, event_part(V,e(E)),\n"
             "    event_part(W,e(F)), V != W.")
    text = generator_text()
    assert all(line in text for line in lines)
    for line in lines:
        text = text.replace(line, "")
    verdict = verify_version(Bounds(2, 1, 2), V2026, [INVARIANTS["one-controller"]],
                             settings=Settings(generator=text), orderings=True)[0]
    assert verdict.word() == "fails" and verdict.size == 3
    assert any("same_timestamp" in f["what"] for f in verdict.failures or ())


def test_a_proposal_is_searched_not_enumerated() -> None:
    """verify --change and impact --exhaustive --change run the search: the proposal on
    its slot only (impact's --to side), with the same verdicts as the enumeration and a
    CPU time limit."""
    off = 'off("111.2").'  # 2026: a token is owned by its creator; without it, by nobody
    verdict = verify_one(Bounds(2, 1, 0), V2026, INVARIANTS["one-owner"], (off,))
    assert verdict.word() == "fails" and verdict.size == 1 and verdict.reproduced
    assert verdict.counterexample is not None
    assert [o["kind"] for o in verdict.counterexample["objects"]] == ["token"]  # type: ignore[index,union-attr]
    # The enumeration (the reference) sees the same: a no-owner violation.
    assert ('violation no-owner', ('108.3',)) in research.verify(
        Bounds(2, 1, 0), V2026, (off,)).violations
    assert verify_one(Bounds(2, 1, 0), V2026, INVARIANTS["one-owner"]).holds
    report = impact_search(Bounds(2, 1, 0), V2026, V2026, (off,))
    assert report.proposal and report.exhausted_upto is None
    assert ("owner", ("111.2",), ()) in {(r.kind.fact, r.kind.from_rules, r.kind.to_rules)
                                         for r in report.kinds.values()}
    stopped = impact_search(Bounds(2, 2, 2), V2026, V2026, (off,), limit=0.01)
    assert stopped.exhausted_upto is not None and stopped.cpu_seconds is not None


def test_an_engine_fault_in_a_witness_is_reported_not_raised() -> None:
    """A proposal that makes the engine reach a state its rules cannot (internal_error)
    on the side it changes: each witness's ruling there says so; the report is whole."""
    faulty = 'off("111.2").\ninternal_error(S,planted,O,T) :- obj(S,O,_,_), now(S,T).\n'
    report = impact_search(Bounds(2, 1, 0), V2026, V2026, (faulty,)).to_dict()
    assert report["differences"]
    for kind in report["differences"]:
        (said,) = kind["witness"]["ruling_to"]["violations"]
        assert said.startswith("engine fault: internal error planted on 'o1'"), said
        assert "engine fault" not in json.dumps(kind["witness"]["ruling_from"])


def test_the_rules_answer_every_snapshot_and_a_planted_constraint_is_found(
        tmp_path: Path) -> None:
    """A snapshot the rules have no answer for would satisfy every invariant vacuously:
    ``verify --check-answers`` counts the snapshots generated and those answered."""
    code, out = run_cli("verify", "--check-answers", "--all-versions", "--players", "2",
                        "--objects", "1", "--effects", "1", "--details", "0", "--format",
                        "json")
    report = json.loads(out)
    assert code == 0 and report["check"] == "answers" and len(report["versions"]) == 5
    assert all(v["holds"] and v["generated"] == v["answered"] > 1000
               for v in report["versions"])
    planted = tmp_path / "planted.lp"
    planted.write_text(":- obj(S,O,token,battlefield), owner(S,O,P).\n")
    code, out = run_cli("verify", "--check-answers", "--players", "2", "--objects", "1",
                        "--effects", "1", "--details", "0", "--change", str(planted))
    assert code == 1 and "NO ANSWER for 252 of 1414 snapshots" in out
    witness = json.loads(out.split("e.g. ", 1)[1])
    assert [o["kind"] for o in witness["objects"]] == ["token"]
    assert witness["objects"][0]["zone"] == "battlefield"
