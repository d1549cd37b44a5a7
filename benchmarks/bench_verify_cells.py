"""Benchmark: where default `verify`'s search CPU goes -- per cone searched, size and
cell (objects, effects, details), from each task's own CPU.

    .venv/bin/python benchmarks/bench_verify_cells.py [--workers N] [--size K]

Runs the six built-in invariants at verify's default bounds (newest version; ``--size``
another size cap), ``--workers`` processes (default 2), and prints the verdicts, the
search CPU of the run (verify's ``cpu_seconds``) and one line per (cone, invariants
searched together, size, cell), the costliest first.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import defaultdict
from typing import Any

from mtgcontrol import catalog
from mtgcontrol.research import proofs
from mtgcontrol.research.commands import VERIFY_BOUNDS
from mtgcontrol.research.invariants import builtin_invariants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--size", type=int, default=None)
    args = parser.parse_args()
    bounds = VERIFY_BOUNDS if args.size is None else dataclasses.replace(VERIFY_BOUNDS,
                                                                         size=args.size)
    tasks: dict[int, tuple[str | None, int, int, tuple[int, ...], float]] = {}
    record = proofs._record

    def traced(track: Any, task: proofs.CubeTask, result: Any, goal: int = 0) -> None:
        if task.number not in tasks and not isinstance(result, proofs.Failure):
            tasks[task.number] = (track.verdict.cone, len(task.members), task.size,
                                  task.cell, result.cpu)
        record(track, task, result, goal)

    proofs._record = traced
    verdicts = proofs.verify_all(bounds, [catalog.versions()[-1]], builtin_invariants(),
                                 settings=proofs.Settings(workers=args.workers))
    for v in verdicts:
        print(f"{v.invariant.name:24} {v.word():9} cone {v.cone}")
    print(f"search CPU {sum(v.seconds for v in verdicts):.1f} s "
          f"({bounds.to_dict()}, {args.workers} workers)")
    cost: dict[tuple[Any, ...], float] = defaultdict(float)
    for cone, members, size, cell, cpu in tasks.values():
        cost[(cone, members, size, cell)] += cpu
    for (cone, members, size, cell), cpu in sorted(cost.items(), key=lambda kv: -kv[1]):
        print(f"  {cone or '-':13} x{members}  size {size}  cell {cell}  {cpu:6.2f} s")


if __name__ == "__main__":
    main()
