"""Nothing lost, nothing hangs: a full disk, two runs on one output, resume on a changed
input, .gz bytes across resume, an endless line."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_batch import (
    CLI,
    EXAMPLES,
    PATIENCE,
    SLOW,
    jsonl,
    wait_for_lines,
    with_players,
    workers,
)

from mtgcontrol.batch import output
from mtgcontrol.cli import main


def corpus(tmp_path: Path, copies: int = 10) -> Path:
    docs = [{**doc, "id": f"{doc.get('id', 'x')}-{i}"} for i in range(copies) for doc in EXAMPLES]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs) + "{broken\n")
    return source


def limited_run(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a child whose files may grow to ``limit`` bytes (RLIMIT_FSIZE:
    a full disk as a process meets it)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=PATIENCE,
                          preexec_fn=cap)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_full_disk_is_one_message_exit_3_and_resume_finishes_the_same_bytes(
        tmp_path: Path, suffix: str) -> None:
    source = corpus(tmp_path, 30)
    reference = tmp_path / f"reference{suffix}"
    assert main(["batch", str(source), "-o", str(reference), "--batch-size", "7"]) == 1
    size = reference.stat().st_size
    target = tmp_path / f"out{suffix}"
    cut = limited_run(size // 2, "batch", str(source), "-o", str(target), "--batch-size", "7")
    assert cut.returncode == 3, cut.stderr
    assert "Traceback" not in cut.stderr and len(cut.stderr.strip().splitlines()) == 1
    assert f"cannot write {target} (File too large): lines 1-" in cut.stderr
    complete = int(cut.stderr.split("lines 1-")[1].split()[0])
    kept = list(output.whole_lines(str(target)))
    assert len(kept) == complete > 0
    whole = list(output.whole_lines(str(reference)))
    assert kept == whole[:complete]
    if suffix == ".jsonl":
        assert target.read_bytes().endswith(b"\n")  # no cut-off line left behind
    assert cut.stderr.strip().endswith("--batch-size 7 --resume")
    assert main(["batch", str(source), "-o", str(target), "--batch-size", "7",
                 "--resume"]) == 1
    assert target.read_bytes() == reference.read_bytes()


def test_a_page_on_a_full_disk_is_one_message_exit_3(tmp_path: Path) -> None:
    source = corpus(tmp_path, 1)
    page, out = tmp_path / "page.html", tmp_path / "out.jsonl.gz"
    assert main(["batch", str(source), "-o", str(out), "--html", str(page)]) == 1
    assert page.stat().st_size > out.stat().st_size + 1000
    run = limited_run(out.stat().st_size + 500, "batch", str(source), "-o", str(out),
                      "--html", str(page))
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("mtgcontrol: cannot write ")


def test_a_second_run_on_the_same_output_refuses_at_once(tmp_path: Path) -> None:
    docs = [*EXAMPLES, with_players(EXAMPLES[1], 5, "slow"), *EXAMPLES]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs))
    target = tmp_path / "out.jsonl"
    first = subprocess.Popen([*CLI, "batch", str(source), "-o", str(target), "--change",
                              str(SLOW), "--batch-size", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_lines(target, 2, first)
        began = time.monotonic()
        second = subprocess.run([*CLI, "batch", str(source), "-o", str(target), "--resume"],
                                capture_output=True, text=True, timeout=PATIENCE)
        assert time.monotonic() - began < 30  # at once: it does not wait for the first
        assert second.returncode == 2, second.stderr
        assert f"process {first.pid} holds it" in second.stderr, second.stderr
        _, err = first.communicate(timeout=PATIENCE)
        assert first.returncode == 0, err
    finally:
        first.kill()
    lines = target.read_text().splitlines()
    assert len(lines) == len(docs)
    assert [json.loads(line)["id"] for line in lines] == [d.get("id") for d in docs]


def test_resume_refuses_an_output_of_another_input(tmp_path: Path) -> None:
    first = corpus(tmp_path, 2)
    target = tmp_path / "out.jsonl"
    assert main(["batch", str(first), "-o", str(target)]) == 1
    text = target.read_bytes()
    half = text[: text.index(b"\n", len(text) // 2) + 1]
    changed = tmp_path / "changed.jsonl"  # as long or longer, other snapshots
    docs = [json.loads(line) for line in first.read_text().splitlines()[:-1]]
    changed.write_text(jsonl(list(reversed(docs)) * 2))
    target.write_bytes(half)
    assert main(["batch", str(changed), "-o", str(target), "--resume"]) == 2
    assert target.read_bytes() == half  # left as it was
    same_ids = tmp_path / "same-ids.jsonl"  # same ids, another snapshot in a line
    swapped = [dict(d) for d in docs]
    swapped[0] = {**docs[1], "id": docs[0]["id"]}
    same_ids.write_text(jsonl(swapped))
    if list(docs[0]["objects"]) != list(docs[1]["objects"]):
        assert main(["batch", str(same_ids), "-o", str(target), "--resume"]) == 2
    snapshots = tmp_path / "snapshots.jsonl.out"  # input snapshots are no earlier output
    snapshots.write_text(jsonl(docs[:3]))
    assert main(["batch", str(first), "-o", str(snapshots), "--resume"]) == 2
    assert main(["batch", str(first), "-o", str(target), "--resume"]) == 1
    assert target.read_bytes() == text


def test_gz_bytes_are_the_same_for_any_chunking_flushes_and_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With flushes mid-member the resumed .gz differed from an undisturbed one's
    (281,062 vs 281,510 bytes): members are now cut by the text alone."""
    monkeypatch.setattr(output, "MEMBER_BYTES", 3000)  # many members from a small corpus
    source = corpus(tmp_path, 4)
    outputs = []
    for size in ("1", "5", "100"):
        target = tmp_path / f"out-{size}.jsonl.gz"
        assert main(["batch", str(source), "-o", str(target), "--batch-size", size]) == 1
        outputs.append(target.read_bytes())
    assert len(set(outputs)) == 1
    reference = outputs[0]
    text = gzip.decompress(reference)
    assert len(text) > 10 * 3000
    for cut in (len(reference) // 3, len(reference) // 2, len(reference) - 30):
        target = tmp_path / "cut.jsonl.gz"
        target.write_bytes(reference[:cut])  # killed while writing
        assert main(["batch", str(source), "-o", str(target), "--resume",
                     "--batch-size", "3"]) == 1
        assert target.read_bytes() == reference
    partial = tmp_path / "partial.jsonl.gz"  # an interrupted run's file: whole members
    lines = text.split(b"\n")[:-1]
    half = b"".join(line + b"\n" for line in lines[: len(lines) // 2])
    partial.write_bytes(gzip.compress(half))  # one member, another cut than ours
    assert main(["batch", str(source), "-o", str(partial), "--resume"]) == 1
    assert partial.read_bytes() == reference


def test_an_endless_line_is_one_error_record_in_flat_memory(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    with source.open("wb") as stream:
        stream.write(json.dumps(EXAMPLES[0]).encode() + b"\n")
        stream.write(b"\0" * (40 * 2**20) + b"\n")  # 40 MiB without a line end
        stream.write(b"[" * (3 * 2**20) + b"\n")
        stream.write(json.dumps(EXAMPLES[1]).encode())
    target = tmp_path / "out.jsonl"
    # Through a fresh parent, so that the peak read below is this run's alone (the test
    # process's RUSAGE_CHILDREN keeps the largest child of every earlier test).
    measure = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")
    run = subprocess.run([sys.executable, "-c", measure, *CLI, "batch", str(source), "-o",
                          str(target), "--max-line-bytes", str(2**20)],
                         capture_output=True, text=True, timeout=PATIENCE)
    assert run.returncode == 1, run.stderr
    records = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(records) == 4 and "error" not in records[0] and "error" not in records[3]
    assert records[1] == {"line": 2, "id": None, "error": [{"path": "$", "expected": (
        f"a line of at most {2**20} bytes (--max-line-bytes), got {40 * 2**20}")}]}
    assert records[2]["error"][0]["expected"].endswith(f"got {3 * 2**20}")
    peak_kib = int(run.stdout.split()[-1])
    assert peak_kib < 400 * 1024, peak_kib  # the 40 MiB line was never held


def test_dev_zero_through_a_pipe_is_one_error_record(tmp_path: Path) -> None:
    zeros = subprocess.Popen(["head", "-c", str(64 * 2**20), "/dev/zero"],
                             stdout=subprocess.PIPE)
    run = subprocess.run([*CLI, "batch", "-"], stdin=zeros.stdout, capture_output=True,
                         text=True, timeout=PATIENCE)
    zeros.wait()
    assert run.returncode == 1, run.stderr
    (line,) = run.stdout.splitlines()
    assert "at most 16777216 bytes (--max-line-bytes), got 67108864" in line
    assert sys.getsizeof(line) < 10_000


# --- signals in any phase ----------------------------------------------------------------------

BIG_VERIFY = ["verify", "--players", "3", "--objects", "5", "--effects", "3", "--quiet"]
"""A search whose grounding alone takes well over a minute on this machine."""


def stop_after(seconds: float, signals: list[int], args: list[str],
               until_gone: bool = False, underway: Path | None = None
               ) -> tuple[int, str, float]:
    """Start the command, wait, send the signals (50 ms apart; with ``until_gone`` the
    last one again every 10 ms until the process is gone); its exit code, standard
    error, and the seconds from the first signal to its end."""
    process = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(seconds)
        if underway is not None:  # past start-up (imports): a batch that wrote its lines
            wait_for_lines(underway, 2, process)  # type: ignore[arg-type]
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        sent = time.monotonic()
        for signum in signals:
            process.send_signal(signum)
            time.sleep(0.05)
        while until_gone and process.poll() is None and time.monotonic() < sent + 30:
            process.send_signal(signals[-1])
            time.sleep(0.01)
        _, err = process.communicate(timeout=PATIENCE)
        return process.returncode, err, time.monotonic() - sent
    finally:
        process.kill()


@pytest.mark.parametrize("signals, code", [([signal.SIGTERM], 143),
                                           ([signal.SIGINT] * 3, 130)])
def test_a_signal_during_a_long_grounding_stops_at_once(signals: list[int], code: int) -> None:
    returncode, err, took = stop_after(6, signals, BIG_VERIFY)
    assert (returncode, err) == (code, f"mtgcontrol: stopped by {signals[0].name}\n")
    assert took < 3  # the grounding alone runs on for a minute or more


def test_repeated_ctrl_c_while_batch_cleans_up_gives_130(tmp_path: Path) -> None:
    docs = [*EXAMPLES, with_players(EXAMPLES[1], 5, "slow"), *EXAMPLES]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs))
    target = tmp_path / "out.jsonl"
    args = ["batch", str(source), "-o", str(target), "--change", str(SLOW),
            "--batch-size", "2", "--workers", "2"]
    returncode, err, took = stop_after(0, [signal.SIGINT], args, until_gone=True,
                                       underway=target)
    assert returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert took < 5
    (message,) = err.splitlines()  # one message: the clean-up was not cut short
    assert message.startswith("mtgcontrol: stopped by SIGINT: "), err
    assert target.read_bytes().endswith(b"\n")


# --- runaway memory ------------------------------------------------------------------------------

def many_effects(n: int) -> dict:
    """One creature stolen back and forth ``n`` times: memory grows with ``n`` (1,000 effects
    are far over a 150 MB ceiling; 300 fit since effects are decided along intervals)."""
    return {"id": f"effects-{n}", "players": ["alice", "bob"], "now": 3 * n + 10,
            "objects": [{"id": "bear", "kind": "card", "zone": "battlefield",
                         "types": ["creature"], "start": {"zone": "library", "player": "alice"},
                         "entered": {"at": 1, "under": "alice"}}] + [
                {"id": f"s{i}", "kind": "card", "zone": "gone", "types": ["sorcery"],
                 "start": {"zone": "library", "player": "bob"},
                 "put_on_stack": {"at": 3 * i + 2, "by": "bob"}} for i in range(n)],
            "effects": [{"id": f"e{i}", "kind": "control", "origin": "resolution",
                         "source": f"s{i}", "player": ["alice", "bob"][i % 2],
                         "objects": ["bear"], "duration": "indefinite",
                         "timestamp": 3 * i + 3} for i in range(n)]}


def test_a_snapshot_over_the_worker_memory_ceiling_is_one_error_record(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl([EXAMPLES[0], many_effects(1000), EXAMPLES[1]]))
    target = tmp_path / "out.jsonl"
    run = subprocess.run([*CLI, "batch", str(source), "-o", str(target), "--max-memory", "150"],
                         capture_output=True, text=True, timeout=PATIENCE)
    assert run.returncode == 1, run.stderr
    first, middle, last = (json.loads(line) for line in target.read_text().splitlines())
    assert "error" not in first and "error" not in last
    assert middle["id"] == "effects-1000"
    # over the limit inside clingo (an allocation fails) or the worker dies of it: both
    # records name the limit and its option
    expected = middle["error"][0]["expected"]
    assert "memory limit" in expected and "150 MB" in expected and "--max-memory" in expected


def test_dev_full_is_exit_3_with_one_message(tmp_path: Path) -> None:
    source = corpus(tmp_path, 1)
    run = subprocess.run([*CLI, "batch", str(source), "-o", "/dev/full"], capture_output=True,
                         text=True, timeout=PATIENCE)
    assert run.returncode == 3, run.stderr
    assert run.stderr.startswith("mtgcontrol: cannot write /dev/full (No space left on device)")
    assert "Traceback" not in run.stderr


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_the_time_limit_counts_cpu_time_not_a_loaded_machine(tmp_path: Path) -> None:
    """A worker held off the CPU (SIGSTOP, as a loaded machine would) for longer than
    --timeout still judges its snapshot: the fuzz run on the shared machine had two
    200-object snapshots turned into "time limit" records by the load alone."""
    docs = [*EXAMPLES, with_players(EXAMPLES[1], 5, "slow"), *EXAMPLES]
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(docs))
    target = tmp_path / "out.jsonl"
    process = subprocess.Popen([*CLI, "batch", str(source), "-o", str(target), "--change",
                                str(SLOW), "--batch-size", "2", "--timeout", "6"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_lines(target, 6, process)  # the worker is now on lines 7-8 (seconds)
        (worker,) = workers(process.pid)
        os.kill(worker, signal.SIGSTOP)
        time.sleep(9)  # 1.5 times the time limit, off the CPU
        with contextlib.suppress(ProcessLookupError):  # killed for the time limit: wrong
            os.kill(worker, signal.SIGCONT)
        _, err = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "slow" in [json.loads(line)["id"] for line in target.read_text().splitlines()]
