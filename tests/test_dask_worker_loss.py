"""``batch --dask``: a run survives its workers being killed round after round, and a
cluster whose workers cannot load a preload module is one line and exit 2 (the other
Dask cases are in test_dask.py)."""

from __future__ import annotations

import json
import os
import signal
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
    source = corpus(tmp_path / "in.jsonl", 900)  # long enough for three rounds under load
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
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("mtgcontrol: could not start a local Dask cluster"), out.stderr

