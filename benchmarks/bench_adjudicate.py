"""Adjudication throughput: snapshots per second, one core.

    python benchmarks/bench_adjudicate.py [--snapshots 2000] [--seed 1] [--repeat 1]

1. ``api.adjudicate_many`` (validation, facts, one grounding per batch, rulings)
   for batch sizes 100, 500 and 1000, in this process;
2. ``mtgcontrol batch`` end to end (a subprocess reading a JSON Lines file and
   writing one ruling per line, ``--workers 1``), for the same batch sizes.

The corpus comes from ``make_corpus.py`` (same seed, same snapshots every run);
every snapshot is judged under CR 2026-08-07.  Prints the best of ``--repeat``
runs (the machine may be shared).  No assertion: figures only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES = "2026-08-07"


def corpus_lines(n: int, seed: int) -> list[str]:
    spec = importlib.util.spec_from_file_location("make_corpus", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import random

    rng = random.Random(seed)
    return [json.dumps(module.Builder(rng, i + 1).build()) for i in range(n)]


def mtgcontrol_command() -> list[str]:
    exe = Path(sys.executable).with_name("mtgcontrol")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mtgcontrol.cli"]


def best(runs: int, func: object) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    from mtgcontrol.engine.api import adjudicate_many

    lines = corpus_lines(args.snapshots, args.seed)
    docs = [json.loads(line) for line in lines]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} core(s), "
          f"Python {platform.python_version()}; corpus: {len(docs)} snapshots "
          f"(make_corpus.py, seed {args.seed}), rules {RULES}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{'batch size':>10}  {'api s':>7}  {'api snap/s':>10}  {'cli s':>7}  "
              f"{'cli snap/s':>10}")
        for size in (100, 500, 1000):
            api = best(args.repeat, lambda size=size: list(adjudicate_many(
                [(d, "bench") for d in docs], RULES, (), size)))
            cmd = [*mtgcontrol_command(), "batch", str(path), "--rules", RULES,
                   "--batch-size", str(size), "--workers", "1", "-o", os.devnull]
            cli = best(args.repeat, lambda cmd=cmd: subprocess.run(
                cmd, check=True, stderr=subprocess.DEVNULL))
            print(f"{size:>10}  {api:>7.2f}  {len(docs) / api:>10.0f}  {cli:>7.2f}  "
                  f"{len(docs) / cli:>10.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
