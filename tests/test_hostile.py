"""Hostile files, outputs and signals, round two: every command ends cleanly on every bad
input.  One test (or a few) per failure found in the fault audit of 878e7cb: a signal
while check judges, a res folder that is no zip or a zip bomb, oversized Forge files, a
token name leading out of the res folder, names with terminal escapes, memory errors
under a ulimit, outputs that would overwrite inputs, --update through a link, a YAML
"billion laughs", check's time limit and --workers' cap, check --format html without -o,
a proposal's syntax error, and run_batch at the top level of a script."""

from __future__ import annotations

import io
import json
import resource
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from test_batch import CLI, EXAMPLES, PATIENCE, SLOW, jsonl, with_players

from mtgcontrol.batch.judge import Settings
from mtgcontrol.batch.run import Run, run_batch
from mtgcontrol.cli import main
from mtgcontrol.engine.api import InputError
from mtgcontrol.engine.interrupts import Interrupted

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "01-mind-control.json"
PUZZLE = "[metadata]\nName:fixture\n[state]\nactiveplayer=human\n"
BEAR = "Name:Test Bear\nTypes:Creature Bear\nPT:2/2\n"


def res_folder(tmp_path: Path, zipped: bytes | None = None) -> Path:
    """A Forge res folder with one card script (or, given ``zipped``, that
    cardsfolder.zip) and an empty tokenscripts/."""
    res = tmp_path / "res"
    (res / "tokenscripts").mkdir(parents=True)
    if zipped is None:
        (res / "cardsfolder" / "t").mkdir(parents=True)
        (res / "cardsfolder" / "t" / "test_bear.txt").write_text(BEAR)
    else:
        (res / "cardsfolder.zip").write_bytes(zipped)
    return res


def puzzle(tmp_path: Path, battlefield: str, name: str = "p.pzl") -> Path:
    path = tmp_path / name
    path.write_text(PUZZLE + f"humanbattlefield={battlefield}\n")
    return path


def imported(tmp_path: Path, *args: str) -> tuple[int, list[dict]]:
    report = tmp_path / "report.json"
    code = main(["import", "forge", *args, "-o", str(tmp_path / "out.jsonl"),
                 "--report", str(report)])
    return code, json.loads(report.read_text()) if report.exists() else []


# --- 1. a signal while check judges a line ---------------------------------------------------

def test_sigterm_while_check_judges_a_line_is_exit_143_not_an_error_record(
        tmp_path: Path) -> None:
    """878e7cb: the signal became the line's error record, then the next lines were
    judged and the exit was 1."""
    source = tmp_path / "slow.jsonl"
    docs = [with_players(EXAMPLES[1], 5, f"slow{i}") for i in range(12)]
    for i, doc in enumerate(docs):  # twelve snapshots, not one judged twelve times
        doc["now"] = doc.get("now", 20) + i
    source.write_text(jsonl(docs))
    process = subprocess.Popen([*CLI, "check", str(source), "--change", str(SLOW)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(6)  # imports done, judging the first slow lines
        assert process.poll() is None
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 143, (out, err)
    assert time.monotonic() - sent < 10
    assert "time limit" not in out and "internal error" not in out and "Interrupted" not in out
    assert err.strip().endswith("mtgcontrol: stopped by SIGTERM")


def test_a_signal_inside_a_clingo_callback_stays_a_stop() -> None:
    """clingo re-raises a callback's exception as ``type(err)(err)``; a stop during
    verify's parse of its invariants was a ValueError traceback and exit 1."""
    from clingo import ast

    def stop(_statement: object) -> None:
        raise Interrupted(signal.SIGTERM)

    with pytest.raises(Interrupted) as raised:
        ast.parse_string("a. b.", stop)
    assert raised.value.exit_code == 143 and str(raised.value) == "SIGTERM"


# --- 2. res folders that are no zip, zip bombs, no size limits --------------------------------

def test_a_cardsfolder_zip_that_is_no_zip_is_one_usage_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = res_folder(tmp_path, b"this is not a zip file\n" * 10)
    code = main(["import", "forge", str(puzzle(tmp_path, "Test Bear")), "--forge-res",
                 str(res)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ('mtgcontrol: --forge-res: expected a Forge res folder with a readable '
                   'cardsfolder.zip (BadZipFile: "File is not a zip file")\n')


def bomb(size: int, declared: int | None = None) -> bytes:
    """A zip of one card script of ``size`` zero bytes (a few KB compressed); with
    ``declared``, its headers claim that size instead (a lying zip)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z, \
            z.open("t/test_bear.txt", "w") as member:
        member.write(BEAR.encode())
        block = b"\0" * 2**20
        for _ in range(size // 2**20):
            member.write(block)
    data = buffer.getvalue()
    if declared is not None:  # patch the sizes in the local and the central header
        real = (size // 2**20 * 2**20 + len(BEAR)).to_bytes(4, "little")
        data = data.replace(real, declared.to_bytes(4, "little"))
    return data


@pytest.mark.parametrize("declared", [None, 64])
def test_a_zip_bomb_is_refused_in_a_moment(tmp_path: Path, declared: int | None,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """878e7cb read the whole member (a 1 GiB one: 2 GB and 51 s); a member over 1 MiB
    expanded is refused, and one whose header lies is read no further than it says."""
    res = res_folder(tmp_path, bomb(64 * 2**20, declared))
    started = time.process_time()
    code = main(["import", "forge", str(puzzle(tmp_path, "Test Bear")), "--forge-res",
                 str(res)])
    assert time.process_time() - started < 5
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t/test_bear.txt" in err, err
    if declared is None:
        assert "at most 1048576 bytes each (expanded)" in err
    else:  # zipfile reads no further than the header says, then finds the CRC wrong
        assert "a readable cardsfolder.zip (BadZipFile: " in err


def test_a_zip_of_too_many_members_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("mtgcontrol.forge.cardscript.MAX_SCRIPTS", 5)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(6):
            z.writestr(f"t/card{i}.txt", f"Name:Card {i}\nTypes:Creature\n")
    res = res_folder(tmp_path, buffer.getvalue())
    assert main(["import", "forge", str(puzzle(tmp_path, "Card 1")), "--forge-res",
                 str(res)]) == 2
    assert "a cardsfolder.zip of at most 5 members, got 6" in capsys.readouterr().err


def test_too_many_cards_or_bytes_in_a_forge_file_are_refused_at_once(tmp_path: Path) -> None:
    """878e7cb: a 20,000-card puzzle with --html reached 7.6 GB; a 140 MB one-line puzzle
    gave no result in 300 s."""
    many = puzzle(tmp_path, ";".join(["Test Bear"] * 2001), "many.pzl")
    huge = puzzle(tmp_path, ";".join(["Test Bear|Tapped"] * 80_000), "huge.pzl")
    assert huge.stat().st_size > 2**20
    res = res_folder(tmp_path)
    started = time.process_time()
    code, records = imported(tmp_path, str(many), str(huge), "--forge-res", str(res),
                             "--html", str(tmp_path / "page.html"))
    assert time.process_time() - started < 10
    assert code == 1
    assert [(r["file"], r["status"], r["reason"]) for r in records] == [
        ("many.pzl", "refused", "too-many-cards: 2001 cards, at most 2000 (--max-cards)"),
        ("huge.pzl", "refused", "file-too-large: over 1048576 bytes")]
    code, records = imported(tmp_path, str(many), "--forge-res", str(res), "--max-cards",
                             "2001")
    assert records[0]["status"] == "imported"


# --- 3. path traversal by a token name; names printed raw ------------------------------------

@pytest.mark.parametrize("name", ["../../secret", "../cardsfolder/t/test_bear", "/etc/hostname",
                                  "..", "a/b"])
def test_a_token_name_never_leads_out_of_tokenscripts(tmp_path: Path, name: str) -> None:
    res = res_folder(tmp_path)
    (tmp_path / "secret.txt").write_text("Name:Secret\nTypes:Creature Canary\n")
    code, (record,) = imported(tmp_path, str(puzzle(tmp_path, f"T:{name}")), "--forge-res",
                               str(res))
    assert code == 1
    assert record["status"] == "refused"
    assert record["reason"].startswith("token-script-name: token script "), record
    assert "canary" not in (tmp_path / "out.jsonl").read_text()


def test_a_token_script_linked_from_outside_is_not_read(tmp_path: Path) -> None:
    res = res_folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("Name:Secret\nTypes:Creature Canary\n")
    (res / "tokenscripts" / "c_1_1_canary.txt").symlink_to(secret)
    code, (record,) = imported(tmp_path, str(puzzle(tmp_path, "T:c_1_1_canary")),
                               "--forge-res", str(res))
    assert record["reason"].startswith("token-script-outside:"), record
    assert "anary" not in (tmp_path / "out.jsonl").read_text()


def test_files_linked_out_of_a_given_folder_are_refused_not_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    outside = puzzle(tmp_path, "t:Name:Canary,P:1,T:1,Types:Creature-Canary", "outside.pzl")
    (folder / "linked.pzl").symlink_to(outside)
    puzzle(folder, "t:Name:Bear,P:1,T:1,Types:Creature", "own.pzl")
    code, records = imported(tmp_path, str(folder))
    assert [(r["file"], r["status"]) for r in records] == [("linked.pzl", "refused"),
                                                          ("own.pzl", "imported")]
    assert records[0]["reason"] == f"link-outside-folder: a link to a file outside {folder}: " \
                                   "not read"
    assert "anary" not in (tmp_path / "out.jsonl").read_text()


def test_a_refused_files_name_is_printed_escaped(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    (folder / "a\x1b[2J\rb\u202e.pzl").write_text("")  # empty: refused
    assert main(["import", "forge", str(folder), "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "a\\x1b[2J\\rb\\u202e.pzl: refused: empty-file" in err
    assert all(line.isprintable() for line in err.splitlines())


# --- 4. MemoryError under a ulimit ------------------------------------------------------------

@pytest.mark.parametrize("args", [["adjudicate", "/dev/zero"], ["facts", "/dev/zero"],
                                  ["explain", "/dev/zero", "x"], ["check", "/dev/zero"]])
def test_dev_zero_under_a_memory_limit_is_one_line_exit_2(args: list[str]) -> None:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 10**9, 2 * 10**9))

    run = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=PATIENCE,
                         preexec_fn=cap)
    assert (run.returncode, run.stderr) == (
        2, "mtgcontrol: /dev/zero: $: expected a file of at most 16777216 bytes, got more\n")


def test_a_memory_error_anywhere_is_one_line_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def exhausted(*_args: object, **_kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("mtgcontrol.cli.commands.adjudicate_many", exhausted)
    assert main(["adjudicate", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtgcontrol: out of memory: ") and err.count("\n") == 1


# --- 5. outputs that would overwrite inputs; a full disk ---------------------------------------

def writers(tmp_path: Path) -> list[tuple[list[str], Path]]:
    """Each command with an output option, pointed at one of its own inputs."""
    snapshot = tmp_path / "ex.json"
    snapshot.write_bytes(EXAMPLE.read_bytes())
    corpus = tmp_path / "in.jsonl"
    corpus.write_text(jsonl(EXAMPLES[:2]))
    change = tmp_path / "change.lp"
    change.write_text("% nothing\n")
    game = puzzle(tmp_path, "t:Name:Bear,P:1,T:1,Types:Creature")
    link = tmp_path / "link.json"
    link.symlink_to(snapshot)
    cr = tmp_path / "cr.txt"
    cr.write_text("108.3. The owner of a card is the player who started the game with it.\n")
    return [
        (["adjudicate", str(snapshot), "--format", "html", "-o", str(snapshot)], snapshot),
        (["adjudicate", str(snapshot), "-o", str(link)], snapshot),
        (["adjudicate", str(link), "--change", str(change), "-o", str(change)], change),
        (["facts", str(snapshot), "-o", str(snapshot)], snapshot),
        (["explain", str(snapshot), "bear", "-o", str(snapshot)], snapshot),
        (["explain", str(snapshot), "bear", "--format", "html", "-o", str(link)], snapshot),
        (["check", str(snapshot), "--format", "html", "-o", str(snapshot)], snapshot),
        (["batch", str(corpus), "-o", str(corpus)], corpus),
        (["batch", str(corpus), "-o", str(tmp_path / "out.jsonl"), "--html", str(corpus)],
         corpus),
        (["impact", "--from", "2017-04-28", "--to", "2020-11-20", str(corpus), "--format",
          "html", "-o", str(corpus)], corpus),
        (["verify", "--invariant", str(change), "--format", "html", "-o", str(change)], change),
        (["rules", "diff", str(cr), str(cr), "--catalog-draft", str(cr)], cr),
        (["import", "forge", str(game), "-o", str(game)], game),
        (["import", "forge", str(tmp_path), "--report", str(game)], game),
        (["import", "forge", str(game), "--html", str(game)], game),
    ]


def test_no_command_overwrites_its_own_input(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """878e7cb: adjudicate, explain, check and import forge overwrote their input (exit
    0); only batch refused."""
    for args, victim in writers(tmp_path):
        before = victim.read_bytes()
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert "expected an output other than the input" in err, (args, err)
        assert victim.read_bytes() == before, args


def test_two_outputs_of_one_command_are_two_files(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    game = puzzle(tmp_path, "t:Name:Bear,P:1,T:1,Types:Creature")
    out = tmp_path / "out.jsonl"
    assert main(["import", "forge", str(game), "-o", str(out), "--report", str(out)]) == 2
    assert capsys.readouterr().err == ("mtgcontrol: --report: expected an output other "
                                       "than -o's file\n")
    assert not out.exists()


def fsize_run(limit: int, *args: str, cwd: Path | None = None
              ) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=PATIENCE,
                          preexec_fn=cap, cwd=cwd)


def test_a_full_disk_under_import_forge_is_exit_3_naming_the_file(tmp_path: Path) -> None:
    """878e7cb: exit 2 and "None: -o/--report"; the earlier report is left whole."""
    game = puzzle(tmp_path, "t:Name:Bear,P:1,T:1,Types:Creature")
    report = tmp_path / "report.json"
    report.write_text("[] # the earlier report\n")
    run = fsize_run(200, "import", "forge", str(game), "--report", str(report))
    assert run.returncode == 3, run.stderr
    assert run.stderr.splitlines()[-1] == f"mtgcontrol: cannot write {report} (File too large)"
    assert report.read_text() == "[] # the earlier report\n"
    assert not list(tmp_path.glob(".*.part"))  # no part file left behind


@pytest.mark.parametrize("args", [["adjudicate", str(EXAMPLE), "--format", "html"],
                                  ["explain", str(EXAMPLE), "bear", "--format", "html"],
                                  ["check", str(EXAMPLE), "--format", "html"]])
def test_a_page_on_a_full_disk_names_its_file(tmp_path: Path, args: list[str]) -> None:
    page = tmp_path / "page.html"
    run = fsize_run(4000, *args, "-o", str(page))
    assert run.returncode == 3, run.stderr
    assert run.stderr == f"mtgcontrol: cannot write {page} (File too large)\n"
    assert not page.exists()


# --- 6. test --update through a link ----------------------------------------------------------

def test_update_never_writes_through_a_link_out_of_the_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "tests" / "scenarios" / "ownership" / "001-library-card-in-hand.yaml"
            ).read_text()
    wrong = text.replace("owner: alice", "owner: bob")
    assert wrong != text
    outside, folder = tmp_path / "elsewhere.yaml", tmp_path / "scenarios"
    outside.write_text(wrong)
    folder.mkdir()
    (folder / "linked.yaml").symlink_to(outside)
    (folder / "own.yaml").write_text(wrong)
    assert main(["test", str(folder), "--update"]) == 1
    out = capsys.readouterr().out
    assert f"{folder / 'linked.yaml'}: $: expected a file inside {folder} (not updated: it " \
           f"links to {outside})\n" in out
    assert outside.read_text() == wrong  # untouched
    assert (folder / "own.yaml").read_text() != wrong  # the folder's own file is updated
    assert main(["test", str(folder / "own.yaml")]) == 0


# --- 7. YAML billion laughs ---------------------------------------------------------------------

def laughs(depth: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, depth)]
    return "\n".join([*lines, f"intent: *a{depth - 1}", "snapshot: *a3", "expect: {}"]) + "\n"


@pytest.mark.parametrize("text", [laughs(), "intent: &x [*x]\nsnapshot: {}\nexpect: {}\n",
                                  "intent: " + "[" * 5000 + "]" * 5000 + "\n",
                                  "intent: x\nsnapshot: {now: !!timestamp 2001}\nexpect: {}\n",
                                  "intent: x\nsnapshot: {now: !!timestamp 2001-13-45}\n"],
                         ids=["billion-laughs", "self-reference", "deep", "tagged-timestamp",
                              "tagged-bad-date"])
def test_a_hostile_scenario_file_is_one_error_in_a_moment(tmp_path: Path, text: str) -> None:
    """878e7cb: 550 bytes of aliases ran for over 60 s and 1.3 GB."""
    assert len(text) < 11_000
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    run = subprocess.run([*CLI, "test", str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(f"{path}: $: expected a readable YAML file ("), run.stdout
    assert run.stdout.endswith("0 passed, 1 failed\n") and not run.stderr


# --- 8. check's time limit; the cap on --workers ------------------------------------------------

def test_check_has_a_time_limit_per_line(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """878e7cb: no limit (one 1,500-effect line ran 533 s)."""
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl([EXAMPLES[0], with_players(EXAMPLES[1], 6, "forever"), EXAMPLES[2]]))
    started = time.monotonic()
    assert main(["check", str(source), "--change", str(SLOW), "--timeout", "2"]) == 1
    assert time.monotonic() - started < 120  # 6 players never end (tests/data/slow.lp)
    out = capsys.readouterr().out
    assert out == (f"{source}:2 forever: $: expected a snapshot judged within the time limit "
                   "(--timeout 2 s of CPU time)\n")


def test_workers_are_capped(tmp_path: Path) -> None:
    """878e7cb: --workers 300 forked 296 processes; --workers 99999 judged nothing in 60 s."""
    from mtgcontrol.batch.workers import MAX_WORKERS

    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES[:1]))
    for count in ("300", "99999"):
        run = subprocess.run([*CLI, "batch", str(source), "--workers", count],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and not run.stdout
        assert run.stderr.splitlines()[-1] == (
            f"mtgcontrol: --workers: expected an integer from 1 to "
            f"{MAX_WORKERS} (4 per core), got \"{count}\"")
    with pytest.raises(InputError, match="--workers: expected an integer from 1 to"):
        run_batch(Run(str(source), None, Settings(), workers=MAX_WORKERS + 1))


# --- 9. a page without -o -----------------------------------------------------------------------

@pytest.mark.parametrize("command", [["check", str(EXAMPLE)], ["adjudicate", str(EXAMPLE)],
                                     ["explain", str(EXAMPLE), "bear"],
                                     ["verify", "--players", "1", "--objects", "1"]])
def test_every_page_command_without_o_says_so_in_one_line(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """878e7cb: check --format html without -o ended in a TypeError traceback."""
    assert main([*command, "--format", "html"]) == 2
    assert capsys.readouterr().err == ("mtgcontrol: -o: expected an output file for "
                                       "--format html (-o FILE)\n")


# --- 10. a proposal file with a syntax error --------------------------------------------------

@pytest.mark.parametrize("text, line, message", [
    ('off("111.2").\nfoo(X :- bar.\n', 2, "column 7-9: syntax error, unexpected :-"),
    ("\n\np(X) :- q.\n", 3, "column 1-11: unsafe variables in: p(X):-[#inc_base];q. 'X' is "
                           "unsafe"),
    ('#include "/etc/hostname".\n', 1, "a program without #include"),
    ("#script (python)\nimport os\n#end.\n", 1, "a program without #script"),
    (b"p(\xff).\n", None, "a proposal file in UTF-8, got byte 2 that is not"),
])
def test_a_bad_proposal_file_is_named_with_its_line_and_clingos_message(
        tmp_path: Path, text: str | bytes, line: int | None, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """878e7cb: "could not be grounded (a proposal file's error?): " and nothing more."""
    change = tmp_path / "bad.lp"
    change.write_bytes(text if isinstance(text, bytes) else text.encode())
    for command in (["adjudicate", str(EXAMPLE)], ["check", str(EXAMPLE)],
                    ["impact", "--from", "2024-11-08", "--to", "2026-08-07", "--exhaustive"]):
        assert main([*command, "--change", str(change)]) == 2
        err = capsys.readouterr().err
        where = f"line {line}" if line else "--change"
        assert err.startswith(f"mtgcontrol: {change}: {where}: expected "), err
        assert message in err and err.count("\n") == 1, err


def test_the_api_checks_a_proposal_text_too() -> None:
    from mtgcontrol import adjudicate

    with pytest.raises(InputError) as caught:
        adjudicate(EXAMPLE, changes=["foo(X :- ."])
    (problem,) = caught.value.problems
    assert (problem.snapshot, problem.path) == ("change 1", "line 1")
    assert "syntax error" in problem.expected


# --- 11. run_batch at the top level of a script --------------------------------------------------

SCRIPT = """\
print("the script runs")
from mtgcontrol.batch.judge import Settings
from mtgcontrol.batch.run import Run, run_batch
print("exit code", run_batch(Run("in.jsonl", "out.jsonl.gz", Settings(batch_size=200),
                                 workers=2)))
"""


def test_run_batch_at_the_top_level_of_a_script_fails_clearly(tmp_path: Path) -> None:
    """878e7cb: the script ran three times, with two multiprocessing RuntimeErrors."""
    (tmp_path / "in.jsonl").write_text(jsonl(EXAMPLES))
    (tmp_path / "script.py").write_text(SCRIPT)
    run = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=PATIENCE)
    assert "Traceback" not in run.stderr and "RuntimeError" not in run.stderr, run.stderr
    assert run.stdout.endswith("exit code 2\n")
    assert run.stderr == ('mtgcontrol: run_batch was called again by a worker process as it '
                          'imported your script (worker processes import the main script): '
                          'call it under `if __name__ == "__main__":` (README, Python API)\n')
    guarded = SCRIPT.replace('print("exit code"', 'if __name__ == "__main__":\n    print('
                             '"exit code"')
    (tmp_path / "guarded.py").write_text(guarded)
    run = subprocess.run([sys.executable, "guarded.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=PATIENCE)
    assert run.stdout.endswith("exit code 0\n"), run.stderr
    assert len((tmp_path / "out.jsonl.gz").read_bytes()) > 100


def test_the_readme_guards_run_batch() -> None:
    readme = (ROOT / "README.md").read_text()
    at = readme.index("run_batch(Run(")
    assert 'if __name__ == "__main__":' in readme[at - 200:at]

