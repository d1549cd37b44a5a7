"""The README's table of exit codes, every row run: each command is made to end with each
code its row gives (0, 1, 2, 3, and 130/143 from SIGINT and SIGTERM), and the table and
these cases name the same commands and codes, so neither can drift."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_batch import CLI, EXAMPLES, PATIENCE, jsonl

from mtgcontrol.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "01-mind-control.json")
SCENARIO = ROOT / "tests" / "scenarios" / "ownership" / "001-library-card-in-hand.yaml"
PUZZLE = "[metadata]\nName:x\n[state]\nhumanbattlefield=t:Name:Bear,P:1,T:1,Types:Creature\n"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_table() -> dict[str, set[int]]:
    """Command -> the exit codes its row of the README's table gives (a "—" gives none)."""
    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    header = [c.strip() for c in next(line for line in section.splitlines()
                                      if line.startswith("| command")).split("|")[1:-1]]
    table = {}
    for row in rows:
        cells = [c.strip() for c in row.split("|")[1:-1]]
        codes: set[int] = set()
        for name, cell in zip(header[1:], cells[1:], strict=True):
            if cell != "—":
                codes |= {int(c) for c in re.findall(r"\d+", name)}
        table[cells[0].strip("`")] = codes
    return table


# --- what makes each command end with each code -------------------------------------------------

Setup = Callable[[Path], list[str]]


def files(tmp: Path) -> dict[str, Path]:
    """The inputs the cases use, written into ``tmp``."""
    found = {"good": tmp / "good.jsonl", "broken": tmp / "broken.jsonl",
             "claims": tmp / "claims.json", "failing": tmp / "failing.yaml",
             "puzzle": tmp / "p.pzl", "empty": tmp / "empty.pzl",
             "always": tmp / "always.lp", "cr": tmp / "cr.txt"}
    found["good"].write_text(jsonl(EXAMPLES[:2]))
    found["broken"].write_text(jsonl(EXAMPLES[:2]) + "{broken\n")
    doc = json.loads(Path(EXAMPLE).read_text())
    doc["claims"] = [{"object": "bear", "controller": "alice"}]  # the rules say bob
    found["claims"].write_text(json.dumps(doc))
    found["failing"].write_text(SCENARIO.read_text().replace("owner: alice", "owner: bob"))
    found["puzzle"].write_text(PUZZLE)
    found["empty"].write_text("")
    found["always"].write_text("% every object fails\nfail(S,always,O) :- obj(S,O,_,_).\n")
    found["cr"].write_text((ROOT.parent / "shared" / "cr" / "cr-2024-11-08.txt").read_text()
                           if (ROOT.parent / "shared" / "cr").is_dir() else
                           "108.3. The owner of a card is the player who started with it.\n")
    return found


def f(name: str) -> Callable[[Path], str]:
    return lambda tmp: str(files(tmp)[name])


VERIFY_SMALL = ["--players", "1", "--objects", "1", "--effects", "0", "--quiet"]

IN_PROCESS: dict[tuple[str, int], Setup] = {
    ("adjudicate", 0): lambda t: ["adjudicate", EXAMPLE],
    ("adjudicate", 2): lambda t: ["adjudicate", str(ROOT / "examples" / "invalid" / "bad.json")],
    ("facts", 0): lambda t: ["facts", EXAMPLE],
    ("facts", 2): lambda t: ["facts", str(t / "missing.json")],
    ("explain", 0): lambda t: ["explain", EXAMPLE, "bear"],
    ("explain", 2): lambda t: ["explain", EXAMPLE, "no-such-object"],
    ("batch", 0): lambda t: ["batch", f("good")(t), "-o", str(t / "out.jsonl")],
    ("batch", 1): lambda t: ["batch", f("broken")(t), "-o", str(t / "out.jsonl")],
    ("batch", 2): lambda t: ["batch", f("good")(t), "--batch-size", "0"],
    ("check", 0): lambda t: ["check", EXAMPLE],
    ("check", 1): lambda t: ["check", f("claims")(t)],
    ("check", 2): lambda t: ["check", str(t / "missing.json")],
    ("test", 0): lambda t: ["test", str(SCENARIO)],
    ("test", 1): lambda t: ["test", f("failing")(t)],
    ("test", 2): lambda t: ["test", str(t / "no-such-folder")],
    ("rules", 0): lambda t: ["rules"],
    ("rules", 2): lambda t: ["rules", "--version", "1900-01-01"],
    ("impact", 0): lambda t: ["impact", "--from", "2017-04-28", "--to", "2020-11-20",
                              f("good")(t)],
    ("impact", 1): lambda t: ["impact", "--from", "2017-04-28", "--to", "2020-11-20",
                              f("broken")(t)],
    ("impact", 2): lambda t: ["impact", "--from", "1900-01-01", "--to", "2020-11-20",
                              f("good")(t)],
    ("verify", 0): lambda t: ["verify", *VERIFY_SMALL],
    ("verify", 1): lambda t: ["verify", *VERIFY_SMALL, "--invariant", f("always")(t)],
    ("verify", 2): lambda t: ["verify", "--players", "9"],
    ("import forge", 0): lambda t: ["import", "forge", f("puzzle")(t), "-o", str(t / "o.jsonl")],
    ("import forge", 1): lambda t: ["import", "forge", f("empty")(t), "-o", str(t / "o.jsonl")],
    ("import forge", 2): lambda t: ["import", "forge", f("puzzle")(t), "--forge-res",
                                    str(t / "no-res")],
    ("serve", 2): lambda t: ["serve", "--port", "0", "--change", str(t / "missing.lp")],
}

# Exit 3: an output that cannot be written to the end (/dev/full: no space left), or
# standard output on a full disk; test --update under a file size limit.
FULL: dict[str, Setup] = {
    "adjudicate": lambda t: ["adjudicate", EXAMPLE, "-o", "/dev/full"],
    "facts": lambda t: ["facts", EXAMPLE, "-o", "/dev/full"],
    "explain": lambda t: ["explain", EXAMPLE, "bear", "--format", "html", "-o", "/dev/full"],
    "batch": lambda t: ["batch", f("good")(t), "-o", "/dev/full"],
    "check": lambda t: ["check", EXAMPLE, "--format", "html", "-o", "/dev/full"],
    "test": lambda t: ["test", f("failing")(t), "--update"],
    "rules": lambda t: ["rules"],
    "impact": lambda t: ["impact", "--from", "2017-04-28", "--to", "2020-11-20",
                         f("good")(t), "--format", "html", "-o", "/dev/full"],
    "verify": lambda t: ["verify", *VERIFY_SMALL, "--format", "html", "-o", "/dev/full"],
    "import forge": lambda t: ["import", "forge", f("puzzle")(t), "-o", "/dev/full"],
}

# 130/143: the command is waiting on an input that is a named pipe (in its open or read)
# when the signal comes; verify and impact also in the middle of a long search.
FIFO = "{fifo}"
WAITING: dict[str, list[str]] = {
    "adjudicate": ["adjudicate", FIFO],
    "facts": ["facts", FIFO],
    "explain": ["explain", FIFO, "bear"],
    "batch": ["batch", FIFO, "-o", "{tmp}/out.jsonl"],
    "check": ["check", FIFO + ".jsonl"],
    "test": ["test", FIFO + ".yaml"],
    "rules": ["rules", "diff", FIFO, "{cr}"],
    "impact": ["impact", "--from", "2017-04-28", "--to", "2020-11-20", FIFO],
    "verify": ["verify", "--invariant", FIFO + ".lp"],
    "import forge": ["import", "forge", FIFO + ".pzl"],
}
SEARCHING = {
    "verify": ["verify", "--players", "3", "--objects", "5", "--effects", "3", "--quiet"],
    "impact": ["impact", "--exhaustive", "--from", "2012-10-01", "--to", "2026-08-07",
               "--players", "3", "--objects", "4", "--effects", "3", "--quiet"],
}


# serve writes no file (no 3); it is stopped once it listens.
LISTENING = {"serve"}


def test_the_readme_table_names_every_command_and_these_cases_every_row() -> None:
    table = readme_table()
    assert set(table) == set(WAITING) | LISTENING == set(FULL) | LISTENING
    cases = {(c, code) for c, code in IN_PROCESS} | {(c, 3) for c in FULL} | {
        (c, s) for c in (*WAITING, *LISTENING) for s in (130, 143)}
    assert cases == {(c, code) for c, codes in table.items() for code in codes}


@pytest.mark.parametrize("command, code", sorted(IN_PROCESS))
def test_a_command_ends_with_its_code(command: str, code: int, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    try:
        assert main(IN_PROCESS[command, code](tmp_path)) == code
    except SystemExit as stop:  # argparse's usage errors
        assert stop.code == code == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 2:  # one line says why, in the one style
        assert err.startswith("mtgcontrol: "), (out, err)


def _fsize(limit: int) -> Callable[[], None]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return cap


@pytest.mark.parametrize("command", sorted(FULL))
def test_an_output_that_cannot_be_written_is_exit_3(command: str, tmp_path: Path) -> None:
    args = FULL[command](tmp_path)
    with open("/dev/full", "w") as full:
        run = subprocess.run([*CLI, *args], stdout=full if command == "rules" else
                             subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             timeout=PATIENCE,
                             preexec_fn=_fsize(100) if command == "test" else None)
    assert run.returncode == 3, run.stderr
    last = run.stderr.splitlines()[-1]
    assert last.startswith("mtgcontrol: cannot write ") and "Traceback" not in run.stderr, \
        run.stderr
    if command == "test":
        assert last.endswith("failing.yaml (File too large)")


def _stop(args: list[str], signum: int, tmp: Path, fifo: Path | None) -> tuple[int, str, float]:
    """Start the command; once it waits on the named pipe (or, without one, after a few
    seconds), send the signal; its exit code, standard error and how long it took."""
    process = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    writer = None
    try:
        deadline = time.monotonic() + PATIENCE
        if fifo is None:
            time.sleep(4)
        while fifo is not None and writer is None and time.monotonic() < deadline:
            try:  # succeeds once the command has the pipe open for reading
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                time.sleep(0.05)
        time.sleep(0.2)  # in its read
        assert process.poll() is None
        sent = time.monotonic()
        process.send_signal(signum)
        _, err = process.communicate(timeout=PATIENCE)
        return process.returncode, err, time.monotonic() - sent
    finally:
        process.kill()
        if writer is not None:
            with contextlib.suppress(OSError):
                os.close(writer)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(WAITING))
def test_a_signal_stops_every_command_with_130_or_143(command: str, signum: int,
                                                      tmp_path: Path) -> None:
    args = WAITING[command]
    fifo = tmp_path / ("in" + next((s for s in (".jsonl", ".yaml", ".lp", ".pzl")
                                    if any(a.startswith(FIFO + s) for a in args)), ""))
    os.mkfifo(fifo)
    cr = files(tmp_path)["cr"]
    args = [a.replace(FIFO + fifo.suffix if fifo.suffix else FIFO, str(fifo))
            .replace("{tmp}", str(tmp_path)).replace("{cr}", str(cr)) for a in args]
    code, err, took = _stop(args, signum, tmp_path, fifo)
    assert (code, err) == (128 + signum, f"mtgcontrol: stopped by {signum.name}\n")
    assert took < 5


@pytest.mark.parametrize("command", sorted(SEARCHING))
def test_a_signal_stops_a_long_search_within_seconds(command: str, tmp_path: Path) -> None:
    """The promise of the table for verify and impact: stopped in the middle of a
    search (its grounding included) within a few seconds."""
    code, err, took = _stop(SEARCHING[command], signal.SIGTERM, tmp_path, None)
    assert (code, err) == (143, "mtgcontrol: stopped by SIGTERM\n")
    assert took < 5


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_serve_with_130_or_143(signum: int) -> None:
    pytest.importorskip("uvicorn")
    from serving import start

    served = start(workers=1)
    try:
        sent = time.monotonic()
        code = served.stop(signum)
        took = time.monotonic() - sent
        while "stopped by" not in "".join(served.said) and time.monotonic() < sent + 5:
            time.sleep(0.05)  # the last line, read by its thread
    finally:
        served.process.kill()
    assert code == 128 + signum and took < 5, (code, took, served.said)
    assert "Traceback" not in "".join(served.said)
    assert served.said[-1] == f"mtgcontrol: stopped by {signal.Signals(signum).name}\n", \
        served.said
