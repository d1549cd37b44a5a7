"""Batch mode you can trust: one output line per input line whatever the line holds,
limits, a killed worker, SIGINT/SIGTERM, --resume, .gz, stdin, usage errors."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtgcontrol.cli import main

ROOT = Path(__file__).resolve().parents[1]
SLOW = ROOT / "tests" / "data" / "slow.lp"  # 5 players: seconds; 6 players: forever
EXAMPLES = [json.loads(p.read_text()) for p in sorted((ROOT / "examples").glob("*.json"))]
CLI = [sys.executable, "-m", "mtgcontrol.cli"]
PATIENCE = 240  # seconds; generous, the machine may be loaded


def jsonl(docs: list[dict]) -> str:
    return "".join(json.dumps(d) + "\n" for d in docs)


def with_players(doc: dict, n: int, name: str) -> dict:
    doc = json.loads(json.dumps(doc))
    doc["id"] = name
    doc["players"] = doc["players"] + [f"extra{i}" for i in range(n - len(doc["players"]))]
    return doc


HOSTILE = [
    b"",                                              # blank line
    b"   ",                                           # blank too
    b"[1, 2]",                                        # not an object
    b"42",
    b"{broken",
    b"[" * 2000 + b"]" * 2000,                        # deep nesting
    b'{"id": "deep", "x": ' + b"[" * 100 + b"]" * 100 + b"}",
    b'{"now": ' + b"9" * 5000 + b"}",                 # too many digits for int()
    b'{"id": "\\ud800", "players": []}',              # lone surrogate
    b'{"id": "ok", "players": ["\\udfff"], "objects": [], "effects": []}',
    b"\xef\xbb\xbf{}",                                # a BOM
    '{"id": "x"}'.encode("utf-16"),                   # UTF-16
    b'{"id": "\xff"}',                                # invalid UTF-8
    b'{"now": NaN, "players": []}',
    b'{"id": "a", "id": "b"}',                        # a repeated key
    b'{"id": "no-players", "objects": [], "effects": []}',
]


def run_cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=PATIENCE,
                          **kwargs)  # type: ignore[call-overload]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_input_line_gets_exactly_one_output_line(tmp_path: Path) -> None:
    good = jsonl(EXAMPLES[:2]).encode()
    source = tmp_path / "in.jsonl"
    source.write_bytes(good + b"\n".join(HOSTILE) + b"\n" + good)
    target = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(target), "--batch-size", "3"]) == 1
    out = records(target)
    lines = source.read_bytes().split(b"\n")[:-1]
    assert len(out) == len(lines)
    for number, record in enumerate(out, 1):
        if "error" in record:
            assert record["line"] == number
            assert all(e["path"].startswith("$") and e["expected"] for e in record["error"])
    errors = out[2:-2]
    assert all("error" in r for r in errors)
    assert [r["id"] for r in out[:2]] == [d.get("id") for d in EXAMPLES[:2]]
    assert out[:2] == out[-2:]
    by_kind = {bytes(lines[r["line"] - 1])[:12]: r for r in errors}
    assert "blank" in by_kind[b""]["error"][0]["expected"]
    assert by_kind[b'{"id": "no-p']["id"] == "no-players"
    assert by_kind[b'{"id": "no-p']["error"][0]["path"] == "$.players"
    assert "surrogate" in errors[8]["error"][0]["expected"] and errors[8]["id"] is None
    assert errors[9]["error"][0]["path"] == "$.players[0]" and errors[9]["id"] == "ok"
    assert "byte-order mark" in errors[10]["error"][0]["expected"]
    assert "UTF-16" in errors[11]["error"][0]["expected"]
    assert "UTF-8" in errors[12]["error"][0]["expected"]
    assert "4300 digits" in errors[7]["error"][0]["expected"]
    assert "nested" in errors[5]["error"][0]["expected"]
    assert errors[6]["error"][0]["path"].startswith("$.x[0][0]") and errors[6]["id"] == "deep"
    assert '"id" twice' in errors[14]["error"][0]["expected"]


@pytest.mark.parametrize("text", [line for line in HOSTILE if line.strip()][:13])
def test_adjudicate_reports_hostile_files_without_a_traceback(tmp_path: Path, text: bytes
                                                              ) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(text)
    out = main(["adjudicate", str(bad)])
    assert out == 2


def test_hostile_text_through_the_api_is_an_input_error() -> None:
    from mtgcontrol import InputError, adjudicate

    for text in HOSTILE:
        with pytest.raises(InputError) as caught:
            adjudicate(text if text.strip() else b"{}")
        assert all(p.path.startswith("$") for p in caught.value.problems)
    with pytest.raises(InputError, match="lone surrogates"):
        adjudicate({"id": "\udc80", "players": [], "objects": [], "effects": []})


def test_limits_turn_runaway_inputs_into_error_records(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES))
    target = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(target), "--max-objects", "2",
                 "--max-effects", "1"]) == 1
    for doc, record in zip(EXAMPLES, records(target), strict=True):
        if len(doc["objects"]) > 2 or len(doc["effects"]) > 1:
            paths = [e["path"] for e in record["error"]]
            assert paths == [p for p in ("$.objects", "$.effects") if len(doc[p[2:]]) > (
                2 if p == "$.objects" else 1)]
            assert "--max-" in record["error"][0]["expected"]
        else:
            assert "error" not in record


def test_a_snapshot_over_the_time_limit_becomes_an_error_record(tmp_path: Path) -> None:
    docs = [EXAMPLES[0], with_players(EXAMPLES[0], 6, "forever"), EXAMPLES[1]]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs))
    target = tmp_path / "out.jsonl"
    out = run_cli("batch", str(source), "-o", str(target), "--change", str(SLOW),
                  "--timeout", "8", "--batch-size", "1")
    assert out.returncode == 1, out.stderr
    got = records(target)
    assert got[1] == {"line": 2, "id": "forever", "error": [
        {"path": "$", "expected": "a snapshot judged within the time limit (--timeout 8 s "
                                  "of CPU time)"}]}
    assert "error" not in got[0] and got[2]["id"] == EXAMPLES[1]["id"]


@pytest.mark.parametrize("args", [
    ["--batch-size", "0"], ["--workers", "0"], ["--timeout", "0"], ["--timeout", "x"],
    ["--max-objects", "-1"], ["--resume"]])
def test_bad_flags_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES[:1]))
    out = run_cli("batch", str(source), *args)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""


def test_unreadable_input_and_unwritable_output_exit_2(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES[:1]))
    missing = run_cli("batch", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "nope.jsonl: input: expected a readable file" in \
        missing.stderr and "Traceback" not in missing.stderr
    unwritable = run_cli("batch", str(source), "-o", str(tmp_path / "no" / "out.jsonl"))
    assert unwritable.returncode == 2 and "-o: expected a writable file" in unwritable.stderr
    same = run_cli("batch", str(source), "-o", str(source))
    assert same.returncode == 2 and source.read_text() == jsonl(EXAMPLES[:1])


def test_gz_in_and_out_and_standard_streams(tmp_path: Path) -> None:
    text = jsonl(EXAMPLES) + "{broken\n"
    plain_in, gz_in = tmp_path / "in.jsonl", tmp_path / "in.jsonl.gz"
    plain_in.write_text(text)
    gz_in.write_bytes(gzip.compress(text.encode()))
    assert main(["batch", str(plain_in), "-o", str(tmp_path / "a.jsonl")]) == 1
    assert main(["batch", str(gz_in), "-o", str(tmp_path / "b.jsonl.gz")]) == 1
    expected = (tmp_path / "a.jsonl").read_bytes()
    assert gzip.decompress((tmp_path / "b.jsonl.gz").read_bytes()) == expected
    piped = subprocess.run([*CLI, "batch", "-", "-o", "-"], input=text.encode(),
                           capture_output=True, timeout=PATIENCE)
    assert piped.returncode == 1 and piped.stdout == expected
    assert b"line(s):" in piped.stderr and b"1 error record(s)" in piped.stderr


# --- faults: a killed worker, SIGINT, SIGTERM, resume ----------------------------------------

def fault_input(tmp_path: Path) -> tuple[Path, bytes]:
    """Lines 1-6 quick, line 7 takes seconds (five players), 8-12 quick; and the output of
    an undisturbed run."""
    docs = [*EXAMPLES, with_players(EXAMPLES[1], 5, "slow"), *EXAMPLES[:5]]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs))
    reference = tmp_path / "reference.jsonl"
    assert main(["batch", str(source), "-o", str(reference), "--change", str(SLOW),
                 "--batch-size", "2"]) == 0
    return source, reference.read_bytes()


def start(source: Path, target: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "batch", str(source), "-o", str(target), "--change",
                             str(SLOW), "--batch-size", "2", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_lines(target: Path, n: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline and process.poll() is None:
        if target.exists() and target.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"never got {n} lines (exit {process.poll()})")


def workers(pid: int) -> list[int]:
    """The worker processes of a batch run: spawned by it, or forked by its fork server
    (not multiprocessing's resource tracker)."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        if b"spawn_main" in cmdline:
            found.append(int(child))
        elif b"forkserver" in cmdline:
            found.extend(int(c) for c in Path(
                f"/proc/{child}/task/{child}/children").read_text().split())
    return found


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    return fault_input(tmp_path_factory.mktemp("faults"))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_worker_is_replaced_and_its_lines_judged_again(
        tmp_path: Path, faults: tuple[Path, bytes]) -> None:
    source, reference = faults
    target = tmp_path / "out.jsonl"
    process = start(source, target)
    wait_for_lines(target, 6, process)  # the worker is now on lines 7-8 (seconds)
    (worker,) = workers(process.pid)
    os.kill(worker, signal.SIGKILL)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 0, err
    assert "died (killed by SIGKILL); its 2 line(s) from line 7 are judged again" in err
    assert target.read_bytes() == reference


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_leaves_whole_lines_and_resume_finishes_the_same_file(
        tmp_path: Path, faults: tuple[Path, bytes], signum: int, code: int) -> None:
    source, reference = faults
    target = tmp_path / "out.jsonl"
    process = start(source, target)
    wait_for_lines(target, 6, process)
    process.send_signal(signum)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == code
    message = err.strip().splitlines()
    assert len(message) == 1 and "Traceback" not in err, err
    written = target.read_bytes()
    count = written.count(b"\n")
    assert written.endswith(b"\n") and reference.startswith(written) and 6 <= count < 12
    assert f"{count} line(s) written to {target}; to continue: mtgcontrol batch" in message[0]
    assert message[0].endswith("--resume")
    resumed = run_cli("batch", str(source), "-o", str(target), "--change", str(SLOW),
                      "--batch-size", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"({count} kept from the earlier run)" in resumed.stderr
    assert target.read_bytes() == reference


def test_resume_cuts_a_partial_last_line_and_keeps_gz_files_identical(
        tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES) + "{broken\n" + jsonl(EXAMPLES))
    plain, gz = tmp_path / "ref.jsonl", tmp_path / "ref.jsonl.gz"
    assert main(["batch", str(source), "-o", str(plain), "--batch-size", "4"]) == 1
    assert main(["batch", str(source), "-o", str(gz), "--batch-size", "4"]) == 1
    reference = plain.read_bytes()
    cut = reference[: reference.index(b"\n", 100) + 40]  # 1 whole line and part of one
    target = tmp_path / "out.jsonl"
    target.write_bytes(cut)
    assert main(["batch", str(source), "-o", str(target), "--resume", "--batch-size", "4"]) == 1
    assert target.read_bytes() == reference
    target_gz = tmp_path / "out.jsonl.gz"
    target_gz.write_bytes(gzip.compress(cut)[:-20])  # cut off like a killed writer's
    assert main(["batch", str(source), "-o", str(target_gz), "--resume", "--batch-size", "4"]) == 1
    assert target_gz.read_bytes() == gz.read_bytes()
    done = ["batch", str(source), "-o", str(target), "--resume", "--batch-size", "4"]
    assert main(done) == 1  # nothing left to judge
    assert target.read_bytes() == reference
    other = tmp_path / "other.jsonl"
    other.write_text("not json\n")
    assert main(["batch", str(source), "-o", str(other), "--resume"]) == 2


# --- Dask ------------------------------------------------------------------------------------

def same_bytes_both_ways(tmp_path: Path, copies: int, hostile: int, reference: list[str],
                         other: list[str]) -> None:
    """``batch`` with the ``reference`` options in process and with the ``other``
    options as a command give the same bytes (one line per input line)."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl(EXAMPLES * copies).encode() + b"\n".join(HOSTILE[:hostile]) + b"\n")
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert main(["batch", str(source), "-o", str(first), *reference]) == 1
    out = run_cli("batch", str(source), "-o", str(second), *other)
    assert out.returncode == 1, out.stderr
    assert second.read_bytes() == first.read_bytes()
    assert len(records(second)) == len(EXAMPLES) * copies + hostile


def test_dask_local_cluster_gives_the_bytes_of_a_local_run(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    same_bytes_both_ways(tmp_path, 3, 6, ["--batch-size", "4"],
                         ["--batch-size", "4", "--dask", "local", "--workers", "2"])


def test_an_unreachable_dask_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES[:1]))
    out = run_cli("batch", str(source), "--dask", "tcp://127.0.0.1:9", env={
        **os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert out.returncode == 2 and "no Dask cluster at tcp://127.0.0.1:9" in out.stderr
    assert "Traceback" not in out.stderr


def uneven_judge(lines: list[tuple[int, bytes]], _settings: object) -> list[tuple[bool, str]]:
    """Line 1 is slow, the others quick: chunks finish out of order."""
    time.sleep(1.0 if lines[0][0] == 1 else 0.0)
    return [(False, str(n)) for n, _ in lines]


def test_workers_keep_order_when_chunks_finish_out_of_order() -> None:
    from mtgcontrol.batch.workers import Pool

    pool = Pool(2, uneven_judge, None, lambda line, why: (True, why), timeout=PATIENCE)
    chunks = [[(n, b"")] for n in range(1, 13)]
    assert [r for chunk in pool.run(chunks) for r in chunk] == [
        (False, str(n)) for n in range(1, 13)]


def test_replacing_workers_for_memory_changes_no_byte(tmp_path: Path) -> None:
    """--worker-memory 1: every worker is over the limit after its first chunk, so a
    fresh fork judges each chunk; the output is that of one worker judging one chunk."""
    same_bytes_both_ways(tmp_path, 2, 4, ["--batch-size", "1000"],
                         ["--batch-size", "3", "--workers", "2", "--worker-memory", "1"])

# --- people at a terminal ----------------------------------------------------------------

def test_a_progress_bar_only_on_a_terminal_and_a_summary_always(tmp_path: Path) -> None:
    import fcntl
    import pty
    import struct
    import termios

    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLES * 2))
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen([*CLI, "batch", str(source), "-o", str(tmp_path / "o.jsonl"),
                                "--batch-size", "3"], stderr=follower, stdout=subprocess.PIPE)
    os.close(follower)
    seen = b""
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
    assert process.wait(timeout=PATIENCE) == 0
    os.close(leader)
    assert b"/12" in seen and b"line/s" in seen  # tqdm: count of total, rate
    assert b"12 line(s): 12 judged, 0 error record(s)" in seen
    piped = run_cli("batch", str(source), "-o", str(tmp_path / "p.jsonl"))
    assert piped.stderr.count("\n") == 1 and piped.stderr.startswith("12 line(s): 12 judged")


def test_version_and_exit_codes_in_help() -> None:
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.startswith("mtgcontrol ")
    help_text = " ".join(run_cli("batch", "--help").stdout.split())
    assert "0 every snapshot judged; 1 some lines became error records; 2 usage error" in \
        help_text


def test_check_over_a_corpus_names_file_and_line(tmp_path: Path) -> None:
    claim = json.loads(json.dumps(EXAMPLES[0]))
    claim["id"] = "wrong-claim"
    claim["claims"] = [{"object": "bear", "controller": "alice"}]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(jsonl([EXAMPLES[0], claim]) + "{broken\n")
    out = run_cli("check", str(corpus))
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{corpus}:2 wrong-claim: ")
    assert lines[1].startswith(f"{corpus}:3: $: expected valid JSON")
    assert "1 violation(s); 3 line(s): 2 judged, 1 error record(s)" in out.stderr
    ok = tmp_path / "ok.jsonl"
    ok.write_text(jsonl(EXAMPLES[:1]))
    assert run_cli("check", str(ok)).returncode == 0


LOST_SEMAPHORE = '''
import multiprocessing, multiprocessing.synchronize as sync
from mtgcontrol.batch.workers import PRELOAD

class GoneLock(sync.Lock):
    """Pickles as a semaphore its parent has already dropped."""
    def __getstate__(self):
        handle, kind, maxvalue, _ = super().__getstate__()
        return handle, kind, maxvalue, "/mtgcontrol-test-gone"

def nothing(lock):
    pass

if __name__ == "__main__":
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    child = context.Process(target=nothing, args=(GoneLock(ctx=context),))
    child.start()
    child.join(120)
    print(child.exitcode)
'''


@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork server on this platform")
def test_a_worker_forked_after_its_parent_dropped_its_semaphore_prints_no_traceback(
        tmp_path: Path) -> None:
    """A Dask nanny closed while it restarts a killed worker (a run ending) leaves the fork
    server a child that cannot rebuild its start semaphore; the fork server printed its
    FileNotFoundError traceback on the user's terminal (batch/preload.py silences it)."""
    script = tmp_path / "lost_semaphore.py"
    script.write_text(LOST_SEMAPHORE)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=PATIENCE)
    assert out.stdout.strip() == "1", out  # the child did die of it
    assert out.stderr == "", out.stderr


WARMED = '''
import mtgcontrol.batch.preload
from mtgcontrol.engine import api
from mtgcontrol.engine.engine import RULING

engine = api.engine_for((), api.fast_default())
print(engine._program is not None, engine._slicing is not None
      and RULING.program_key in engine._slicing.slicers)
'''


def test_the_preload_leaves_the_default_engine_read_for_slicing() -> None:
    """Every new batch worker and every Dask partition's child start from the preload's
    state: what it leaves cold, each pays again (reading the program for slicing cost
    each Dask partition ~0.4 s of CPU, 0.73x of --workers 2's efficiency)."""
    out = subprocess.run([sys.executable, "-c", WARMED], capture_output=True, text=True,
                         timeout=PATIENCE, env={**os.environ, "MTGCONTROL_SLICE": "1"})
    assert out.stdout.split() == ["True", "True"], out
