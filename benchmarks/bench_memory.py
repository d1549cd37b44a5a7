"""Memory of `mtgcontrol batch` on large snapshots: the peak of the largest process and
of the whole process tree, sampled from /proc every 0.1 s (Linux).

    python benchmarks/bench_memory.py [--snapshots 40] [--objects 200] [--seed 1]
        [-- BATCH OPTIONS...]

The corpus comes from ``make_corpus.py`` (``--objects`` per snapshot, 8 effects, 4
players).  Every run judges the same lines with ``--workers 1`` plus the options given
after ``--``; it prints wall time, CPU time of the tree and the two peaks.  No
assertion: figures only (the machine may be shared: compare runs made back to back).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def _corpus(path: Path, snapshots: int, objects: int, seed: int) -> None:
    spec = importlib.util.spec_from_file_location("make_corpus", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(seed)
    with path.open("w") as out:
        for n in range(1, snapshots + 1):
            doc = module.Builder(rng, n, objects=objects, max_effects=8, max_players=4).build()
            out.write(json.dumps(doc) + "\n")


def _tree(root: int) -> dict[int, tuple[int, int]]:
    """pid -> (resident bytes, CPU ticks) for ``root`` and every descendant."""
    stats: dict[int, tuple[int, int, int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # fields[1] = ppid, [11]/[12] = utime/stime, [21] = rss pages
            stats[int(entry)] = (int(fields[1]), int(fields[21]) * PAGE,
                                 int(fields[11]) + int(fields[12]))
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            found[pid] = stats[pid][1:]
            todo.extend(p for p, (parent, _, _) in stats.items() if parent == pid)
    return found


def measure(source: Path, options: list[str]) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "mtgcontrol.cli", "batch", str(source), "-o",
                   str(Path(tmp) / "out.jsonl"), "--workers", "1", *options]
        start = time.monotonic()
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        largest = total = 0
        cpu: dict[int, int] = {}
        while process.poll() is None:
            tree = _tree(process.pid)
            largest = max([largest, *(rss for rss, _ in tree.values())])
            total = max(total, sum(rss for rss, _ in tree.values()))
            cpu.update({pid: ticks for pid, (_, ticks) in tree.items()})
            time.sleep(0.1)
        wall = time.monotonic() - start
        err = process.stderr.read() if process.stderr else ""
    summary = err.strip().splitlines()[-1] if err.strip() else "?"
    seconds = sum(cpu.values()) / TICKS
    return (f"{' '.join(options) or '(defaults)':<22} wall {wall:6.1f} s  cpu {seconds:6.1f} s  "
            f"largest process {largest / 2**20:6.0f} MB  tree {total / 2**20:6.0f} MB  "
            f"[{summary}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=40)
    parser.add_argument("--objects", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("options", nargs="*", help="batch options (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "corpus.jsonl"
        _corpus(source, args.snapshots, args.objects, args.seed)
        size = source.stat().st_size
        print(f"{args.snapshots} snapshots of {args.objects} objects, {size / 2**20:.1f} MB "
              f"({size // args.snapshots} bytes a line)")
        print(measure(source, args.options))


if __name__ == "__main__":
    main()
