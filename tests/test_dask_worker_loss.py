"""``batch --dask``: a real Dask cluster gives the bytes of a local run, survives losing
its workers, starts quietly, and a cluster that cannot start is one line and exit 2."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mtgcontrol.cli import main

psutil = pytest.importorskip("psutil")
pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [json.loads(p.read_text()) for p in sorted((ROOT / "examples").glob("*.json"))]
CLI = [sys.executable, "-m", "mtgcontrol.cli"]
PATIENCE = 300


def corpus(path: Path, lines: int) -> Path:
    docs = []
    for n in range(lines):
        doc = dict(EXAMPLES[n % len(EXAMPLES)])
        doc["id"] = f"snap-{n}"
        docs.append(json.dumps(doc) + "\n")
    path.write_text("".join(docs))
    return path


def local_bytes(source: Path, target: Path) -> bytes:
    assert main(["batch", str(source), "-o", str(target), "--batch-size", "5"]) in (0, 1)
    return target.read_bytes()


def dask_workers(parent: int) -> list[Any]:
    """The worker processes of a LocalCluster started by ``parent``: its descendants
    that run a distributed worker (nanny children), not the resource tracker."""
    try:
        kids = psutil.Process(parent).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for kid in kids:
        try:
            if "multiprocessing" in " ".join(kid.cmdline()) and \
                    "resource_tracker" not in " ".join(kid.cmdline()):
                found.append(kid)
        except psutil.Error:
            pass
    return found


def test_a_run_survives_every_worker_being_killed_again_and_again(tmp_path: Path) -> None:
    """Every original worker killed, then their replacements: same bytes, exit 0."""
    source = corpus(tmp_path / "in.jsonl", 300)
    expected = local_bytes(source, tmp_path / "local.jsonl")
    target = tmp_path / "dask.jsonl"
    proc = subprocess.Popen([*CLI, "batch", str(source), "-o", str(target), "--batch-size",
                             "5", "--dask", "local", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed_rounds, deadline = 0, time.monotonic() + PATIENCE
    seen: set[int] = set()
    while killed_rounds < 3 and proc.poll() is None and time.monotonic() < deadline:
        workers = [w for w in dask_workers(proc.pid) if w.pid not in seen]
        started = target.exists() and target.stat().st_size > 0
        if len(workers) >= 2 and started:
            for worker in workers:
                seen.add(worker.pid)
                worker.send_signal(signal.SIGKILL)
            killed_rounds += 1
        time.sleep(0.3)
    out, err = proc.communicate(timeout=PATIENCE)
    assert killed_rounds == 3, f"the run ended before its workers were killed ({err})"
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert target.read_bytes() == expected


def test_a_cluster_whose_workers_cannot_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    source = corpus(tmp_path / "in.jsonl", 3)
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__PRELOAD": '["no_such_module_mtg"]',
           "DASK_DISTRIBUTED__DEPLOY__LOST_WORKER_TIMEOUT": "5s"}
    out = subprocess.run([*CLI, "batch", str(source), "--dask", "local", "--workers", "1"],
                         capture_output=True, text=True, timeout=PATIENCE, env=env)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mtgcontrol: a local Dask cluster could not"), \
        out.stderr


def test_dask_local_starts_no_dashboard_and_prints_no_library_warnings(tmp_path: Path) -> None:
    source = corpus(tmp_path / "in.jsonl", 20)
    expected = local_bytes(source, tmp_path / "local.jsonl")
    target = tmp_path / "dask.jsonl"
    with socket.socket() as probe:  # the dashboard's default port, if it is free
        free = probe.connect_ex(("127.0.0.1", 8787)) != 0
    out = subprocess.run([*CLI, "batch", str(source), "-o", str(target), "--batch-size", "5",
                          "--dask", "local", "--workers", "2"],
                         capture_output=True, text=True, timeout=PATIENCE)
    assert out.returncode == 0, out.stderr
    assert target.read_bytes() == expected
    assert out.stderr.strip().splitlines()[-1:] == out.stderr.strip().splitlines()
    assert "distributed" not in out.stderr and "dashboard" not in out.stderr.lower()
    if free:
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", 8787)) != 0


def test_a_scheduler_and_a_worker_started_apart_give_the_bytes_of_a_local_run(
        tmp_path: Path) -> None:
    """The README's multi-machine flow on one machine: ``dask scheduler``,
    ``dask worker tcp://...``, then ``mtgcontrol batch --dask tcp://...``."""
    source = corpus(tmp_path / "in.jsonl", 40)
    expected = local_bytes(source, tmp_path / "local.jsonl")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "distributed.cli"]
    scheduler = subprocess.Popen([*dask[:2], "distributed.cli.dask_scheduler", "--host",
                                  "127.0.0.1", "--port", str(port),
                                  "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([*dask[:2], "distributed.cli.dask_worker", address,
                               "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        target = tmp_path / "dask.jsonl"
        out = subprocess.run([*CLI, "batch", str(source), "-o", str(target),
                              "--batch-size", "5", "--dask", address],
                             capture_output=True, text=True, timeout=PATIENCE)
        assert out.returncode == 0, out.stderr
        assert target.read_bytes() == expected
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
