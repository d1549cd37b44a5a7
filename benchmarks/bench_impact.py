"""Impact of two versions against adjudication under one, on a 10,000-snapshot corpus.

    python benchmarks/bench_impact.py [--snapshots 10000] [--seed 2] [--repeat 2]

Times, end to end through the command line, one core each, alternately
``--repeat`` times (the machine may be shared: a pair of runs next to each
other sees about the same load):

* ``mtgcontrol batch CORPUS --rules 2017-04-28 -o /dev/null`` -- one version:
  validation, one grounding per batch of 500, rulings written as JSON Lines;
* ``mtgcontrol impact --from 2017-04-28 --to 2020-11-20 CORPUS --format json``
  -- both versions in one grounding per batch of 500, differences grouped by
  rule, the JSON report written to /dev/null.

Prints wall and CPU time (user + system of the child) of each run, the best of
each command and their ratio.  Then, once, the split of an in-process impact
run (``research.impact_corpus``) into validation, grounding + reading, and the
rest.  The target is impact / one version <= 1.5.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from bench_adjudicate import corpus_lines, mtgcontrol_command

V1, V2 = "2017-04-28", "2020-11-20"


def timed_run(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)

    from mtgcontrol import catalog, research
    from mtgcontrol.engine import Engine
    from mtgcontrol.engine.validate import problems

    lines = corpus_lines(args.snapshots, args.seed)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} core(s), "
          f"Python {platform.python_version()}; corpus: {len(lines)} snapshots "
          f"(make_corpus.py, seed {args.seed}); {V1} -> {V2}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        exe = mtgcontrol_command()
        one_cmd = [*exe, "batch", str(path), "--rules", V1, "-o", os.devnull]
        two_cmd = [*exe, "impact", "--from", V1, "--to", V2, str(path), "--format", "json"]
        ones, twos = [], []
        for run in range(1, args.repeat + 1):
            ones.append(timed_run(one_cmd))
            twos.append(timed_run(two_cmd))
            print(f"run {run}: batch {ones[-1][0]:.1f} s wall / {ones[-1][1]:.1f} s cpu, "
                  f"impact {twos[-1][0]:.1f} s wall / {twos[-1][1]:.1f} s cpu, "
                  f"ratio {twos[-1][0] / ones[-1][0]:.2f} wall / "
                  f"{twos[-1][1] / ones[-1][1]:.2f} cpu", flush=True)
        best_one = min(w for w, _ in ones), min(c for _, c in ones)
        best_two = min(w for w, _ in twos), min(c for _, c in twos)
        print(f"best: batch (one version) {best_one[0]:.1f} s wall / {best_one[1]:.1f} s cpu, "
              f"impact (two versions) {best_two[0]:.1f} s wall / {best_two[1]:.1f} s cpu; "
              f"ratio {best_two[0] / best_one[0]:.2f} wall / {best_two[1] / best_one[1]:.2f} cpu",
              flush=True)

    docs = [json.loads(line) for line in lines]
    start = time.process_time()
    for doc in docs:
        problems(doc, "bench")
    validation = time.process_time() - start
    grounding = [0.0]
    real_solve = Engine.solve

    def timed(self: Engine, facts: list[str]) -> object:
        begin = time.process_time()
        try:
            return real_solve(self, facts)
        finally:
            grounding[0] += time.process_time() - begin

    Engine.solve = timed  # type: ignore[assignment,method-assign]
    start = time.process_time()
    report = research.impact_corpus(list(enumerate(lines, 1)), catalog.resolve(V1),
                                    catalog.resolve(V2))
    total = time.process_time() - start
    Engine.solve = real_solve  # type: ignore[method-assign]
    print(f"impact in process: {total:.1f} s cpu = validation ~{validation:.1f} s + "
          f"ground, solve and read {grounding[0]:.1f} s + rest "
          f"{total - validation - grounding[0]:.1f} s; {report.judged} judged, "
          f"{len(report.changed_snapshots)} with a difference in meaning, "
          f"{len([k for k in report.kinds.values() if k.category == 'meaning'])} kinds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
