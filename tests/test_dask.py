"""``batch --dask``: real Dask clusters (LocalCluster, or a scheduler and a worker started
as their own processes on 127.0.0.1) give the bytes of a local run, survive the loss of
their workers (one after another, or all of them round after round), fail cleanly when
they cannot start, and stay quiet.  (tests/conftest.py keeps these tests on one xdist
worker: one local cluster at a time.)"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_batch import CLI, EXAMPLES, HOSTILE, PATIENCE, SLOW, jsonl, with_players

from mtgcontrol.batch import dask_runner
from mtgcontrol.batch.dask_runner import DaskRunner
from mtgcontrol.batch.judge import Settings, judge_lines
from mtgcontrol.batch.workers import WorkersFailed
from mtgcontrol.cli import main

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")


def corpus(tmp_path: Path, copies: int, hostile: int = 4, slow: int = 0) -> Path:
    """The examples ``copies`` times, then ``slow`` lines that take seconds each under
    SLOWLY (five players), then ``hostile`` lines."""
    slow_docs = [with_players(EXAMPLES[1], 5, f"slow{i}") for i in range(slow)]
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl(EXAMPLES * copies + slow_docs).encode()
                       + b"\n".join(HOSTILE[:hostile]) + b"\n")
    return source


# Workers forked warm judge the examples at hundreds of lines a second: a run that must
# still be going when a test kills its workers ends on slow lines.  Those come after the
# chunks the runner keeps in flight at first (dask_runner.IN_FLIGHT_PER_WORKER per worker),
# so they are not even submitted before the first kill.
SLOWLY = ["--change", str(SLOW)]


def reference(tmp_path: Path, source: Path, batch_size: int, *extra: str) -> bytes:
    """The output of the same input judged by local worker processes."""
    target = tmp_path / "reference.jsonl"
    assert main(["batch", str(source), "-o", str(target), "--batch-size", str(batch_size),
                 "--workers", "2", *extra]) == 1
    return target.read_bytes()


def lines_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def dask_workers(pid: int) -> list[psutil.Process]:
    """The Dask worker processes a run started: spawned by its nannies, or forked by the
    fork server it started (not the server itself, nor the short-lived children a worker
    forks to judge each partition in)."""
    servers = {server.pid for server in fork_servers(pid)}
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if child.ppid() in servers or (child.ppid() == pid
                                           and "spawn_main" in " ".join(child.cmdline())):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def fork_servers(pid: int) -> list[psutil.Process]:
    """The fork server a run started for its Dask workers (when the platform has one)."""
    found = []
    for child in psutil.Process(pid).children():
        try:
            if "forkserver" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def wait_until(condition: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended ({proc.returncode}) before {what}: "
                                 f"{proc.stderr.read() if proc.stderr else ''}")
        assert time.monotonic() < deadline, f"no {what} within {PATIENCE} s"
        time.sleep(0.05)


StartDaskBatch = Callable[[Path, Path, int], subprocess.Popen]


@pytest.fixture
def start_dask_batch() -> Iterator[StartDaskBatch]:
    """``start_dask_batch(source, target, batch_size)``: ``batch --dask local --workers 2``
    (with SLOWLY) started, returned once both workers run and a first chunk is written; a
    run still going when the test ends is killed."""
    runs: list[subprocess.Popen] = []

    def start(source: Path, target: Path, batch_size: int) -> subprocess.Popen:
        proc = subprocess.Popen([*CLI, "batch", str(source), "-o", str(target), "--batch-size",
                                 str(batch_size), "--dask", "local", "--workers", "2",
                                 *SLOWLY], stderr=subprocess.PIPE, text=True)
        runs.append(proc)
        wait_until(lambda: len(dask_workers(proc.pid)) == 2 and lines_in(target) >= batch_size,
                   proc, "two workers and a first chunk")
        return proc

    yield start
    for proc in runs:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_every_original_worker_killed_one_after_another_loses_nothing(
        tmp_path: Path, start_dask_batch: StartDaskBatch) -> None:
    """Each of the two first workers is killed mid-run; their replacements (the nannies
    restart them) judge the rest, settings included, and the bytes are a local run's."""
    source = corpus(tmp_path, 5, slow=4)  # 30 quick lines, then 4 slow ones (lines 31-34)
    expected = reference(tmp_path, source, 2, *SLOWLY)
    target = tmp_path / "dask.jsonl"
    proc = start_dask_batch(source, target, 2)
    originals = dask_workers(proc.pid)
    for number, worker in enumerate(originals):
        wait_until(lambda n=number: lines_in(target) >= 2 + 8 * n, proc, "more lines")
        worker.kill()
    _, stderr = proc.communicate(timeout=PATIENCE)
    assert not any(w.is_running() for w in originals)
    assert proc.returncode == 1, stderr  # the hostile lines are error records
    assert "Traceback" not in stderr and "CancelledError" not in stderr, stderr
    assert target.read_bytes() == expected


def test_a_run_survives_every_worker_being_killed_again_and_again(
        tmp_path: Path, start_dask_batch: StartDaskBatch) -> None:
    """Both workers killed at once, then both replacements, then theirs with the fork
    server that forks them (nannies whose restart then fails leave the cluster without
    workers: the run once waited forever there): the run ends by itself with every line
    judged, the bytes of a local run and one summary line."""
    source = corpus(tmp_path, 8, slow=6)  # 48 quick lines, then 6 slow ones (lines 49-54)
    expected = reference(tmp_path, source, 5, *SLOWLY)
    target = tmp_path / "dask.jsonl"
    proc = start_dask_batch(source, target, 5)
    killed: set[int] = set()
    servers_killed = 0
    for last in (False, False, True):
        # Replacements come back one at a time; each round kills what runs then.
        wait_until(lambda: any(w.pid not in killed for w in dask_workers(proc.pid)), proc,
                   "a new worker")
        servers = fork_servers(proc.pid) if last else []
        for worker in dask_workers(proc.pid) + servers:
            killed.add(worker.pid)
            worker.kill()
        servers_killed += len(servers)
    _, stderr = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 1, stderr  # the hostile lines are error records
    assert target.read_bytes() == expected
    assert len(stderr.strip().splitlines()) == 1, stderr  # the summary; no traceback
    if sys.platform == "linux":  # where multiprocessing forks workers from a fork server
        assert servers_killed, "the last round found no fork server to kill"


@pytest.mark.parametrize("preload", [
    "die_at_start.py",  # the worker process exits as it starts
    "no_such_module_mtg",  # the worker cannot import its preload module
])
def test_a_cluster_whose_workers_cannot_start_is_one_line_and_exit_2(
        tmp_path: Path, preload: str) -> None:
    source = corpus(tmp_path, 1, 0)
    if preload.endswith(".py"):
        (tmp_path / preload).write_text("import os\nos._exit(3)\n")
        preload = str(tmp_path / preload)
    out = subprocess.run([*CLI, "batch", str(source), "--dask", "local", "--workers", "2"],
                         capture_output=True, text=True, timeout=PATIENCE, env={
                             **os.environ, "DASK_DISTRIBUTED__WORKER__PRELOAD": f"['{preload}']",
                             "DASK_DISTRIBUTED__DEPLOY__LOST_WORKER_TIMEOUT": "5s"})
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("mtgcontrol: could not start a local Dask cluster"), out.stderr


def test_dask_local_starts_no_dashboard_and_prints_no_library_warnings(
        tmp_path: Path, start_dask_batch: StartDaskBatch) -> None:
    source = corpus(tmp_path, 8, slow=4)  # the run is still going when a worker dies
    expected = reference(tmp_path, source, 3, *SLOWLY)
    target = tmp_path / "dask.jsonl"
    # a run with a worker killed is the one where Dask has most to warn about
    proc = start_dask_batch(source, target, 3)
    for worker in dask_workers(proc.pid)[:1]:
        worker.kill()
    listening = {port for p in [psutil.Process(proc.pid), *psutil.Process(
        proc.pid).children(recursive=True)] for port in listening_ports(p)}
    assert proc.poll() is None and listening  # the ports of a running cluster were read
    _, stderr = proc.communicate(timeout=PATIENCE)
    assert 8787 not in listening  # Dask's dashboard port
    assert proc.returncode == 1, stderr
    assert target.read_bytes() == expected
    assert stderr.strip().splitlines() == [stderr.strip().splitlines()[-1]], stderr  # summary
    assert "distributed" not in stderr and "Warning" not in stderr, stderr


def listening_ports(process: psutil.Process) -> set[int]:
    """The TCP ports ``process`` listens on; none if it has ended meanwhile (a worker
    judges each partition in a short-lived child forked from it)."""
    try:
        return {c.laddr.port for c in process.net_connections("tcp")
                if c.status == psutil.CONN_LISTEN}
    except psutil.NoSuchProcess:
        return set()


def run_losing_every_worker(runner: DaskRunner, close_workers: Callable[[], None],
                            lines: list[bytes]) -> list[Any]:
    """``runner`` judging ``lines`` two at a time; every worker of its cluster closed for
    good (``close_workers``) once the first chunks are out: what it yielded, or the
    exception that ended it (a run that does not end within PATIENCE fails the test)."""
    ended: list[Any] = []

    def chunks() -> Iterator[list[tuple[int, bytes]]]:
        for start in range(0, len(lines), 2):
            if start == 4:
                close_workers()
            yield list(enumerate(lines[start:start + 2], start + 1))

    def judge() -> None:
        try:
            ended.extend(runner.run(chunks()))
        except Exception as err:  # noqa: BLE001 - the test looks at it
            ended.append(err)

    thread = threading.Thread(target=judge, daemon=True)  # daemon: a hang cannot hold pytest
    thread.start()
    thread.join(PATIENCE)
    assert not thread.is_alive(), f"the run still waits for its lost workers after {PATIENCE} s"
    return ended


@pytest.fixture
def no_worker_patience(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_runner, "WAIT_FOR_WORKERS", 5.0)
    monkeypatch.setattr(dask_runner, "POLL", 0.5)


LINES = [json.dumps(doc).encode() for doc in EXAMPLES] * 2


@pytest.mark.usefixtures("no_worker_patience")
def test_a_local_cluster_left_without_workers_gets_new_ones() -> None:
    """Nannies that gave up (closed: as when their fork server died while they restarted
    a killed worker) leave no worker; the run used to wait for one forever."""
    runner = DaskRunner("local", Settings(batch_size=2), 2)

    def close_nannies() -> None:
        for nanny in list(runner._cluster.workers.values()):
            runner._cluster.sync(nanny.close)

    ended = run_losing_every_worker(runner, close_nannies, LINES)
    assert [line for chunk in ended for _, line in chunk] == \
        [line for _, line in judge_lines(list(enumerate(LINES, 1)), Settings(batch_size=2))]
    assert runner._revivals < dask_runner.REVIVALS


@pytest.mark.usefixtures("no_worker_patience")
def test_a_remote_cluster_left_without_workers_ends_the_run_with_one_message() -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        runner = DaskRunner(cluster.scheduler_address, Settings(batch_size=2))

        def close_workers() -> None:
            for worker in list(cluster.workers.values()):
                cluster.sync(worker.close)

        ended = run_losing_every_worker(runner, close_workers, LINES)
    assert isinstance(ended[-1], WorkersFailed), ended
    assert str(ended[-1]).startswith("the Dask cluster has had no worker for 5 s"), ended[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_readme_multi_machine_flow_on_one_machine(tmp_path: Path) -> None:
    """``dask scheduler``, ``dask worker tcp://...`` and ``batch --dask tcp://...`` as three
    processes (127.0.0.1 only): the bytes of a local run."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("no dask command line")
    source = corpus(tmp_path, 3, 6)
    expected = reference(tmp_path, source, 4)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = (tmp_path / "scheduler.log").open("w"), (tmp_path / "worker.log").open("w")
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                                  str(port), "--no-dashboard"], stderr=logs[0], cwd=tmp_path)
    worker = subprocess.Popen([str(dask), "worker", address, "--nthreads", "1", "--host",
                               "127.0.0.1", "--no-dashboard"], stderr=logs[1], cwd=tmp_path)
    try:
        target = tmp_path / "dask.jsonl"
        out = subprocess.run([*CLI, "batch", str(source), "-o", str(target), "--batch-size",
                              "4", "--dask", address], capture_output=True, text=True,
                             timeout=PATIENCE)
        assert out.returncode == 1, out.stderr
        assert target.read_bytes() == expected
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()


def test_verify_on_dask_gives_the_verdicts_of_local_workers() -> None:
    """`verify --dask local` proves the same parts of the space on a local Dask cluster:
    the same verdicts and counterexamples as local worker processes (2020-11-20 has
    counterexamples of size 1: the may-cast copy of a card without an owner)."""
    import io
    from contextlib import redirect_stdout

    def verdicts(*where: str) -> list[dict[str, object]]:
        out = io.StringIO()
        with redirect_stdout(out):
            code = main(["verify", "--rules", "2020-11-20", "--players", "2", "--objects", "1",
                         "--effects", "1", "--details", "0", "--quiet", "--format", "json",
                         *where])
        assert code == 1
        found = json.loads(out.getvalue())["verdicts"]
        for v in found:
            assert v["cpu_seconds"] > 0
            for key in ("cpu_seconds", "wall_seconds", "per_size"):
                v.pop(key)
        return found

    local = verdicts("--workers", "2")
    assert [v["verdict"] for v in local].count("fails") == 3
    assert verdicts("--dask", "local", "--workers", "2") == local
