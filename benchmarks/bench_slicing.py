"""Slicing (engine/slicing.py) on and off, alternated in one run: CPU per snapshot.

    python benchmarks/bench_slicing.py [--snapshots 100] [--rounds 2] [--seed 5]
                                       [--realistic] [--batch N] [--new-engines 5]

Each round judges the same distinct snapshots (``make_corpus.py``: mixed 3-12-object
ones, or with ``--realistic`` the 20-object ones) with two warm engines, one slicing
and one grounding every rule, in alternation: one snapshot per grounding (a lone
request, as ``serve`` with few clients and ``adjudicate`` judge), then ``--batch``
per grounding (a batch chunk).  The engines' caches are off, so every snapshot is
ground.  Figures: CPU milliseconds per snapshot (``time.process_time``), the rules
given to clingo per grounding, and whether both engines' rulings are the same bytes
(they must be: a difference is printed and the exit status is 1).  The throughput of
``serve`` and ``batch`` is ``bench_serve.py``'s, run with ``MTGCONTROL_SLICE=0`` and
``=1`` (BENCHMARKS.md).  Last, what a new engine costs (``serve`` and the research
commands build one per proposal, the mutation tests one per mutant): ``--new-engines``
engines, each with a proposal of its own, each judging one lone snapshot: CPU ms from
its construction to its first ruling (the program parsed, its statements read for
slicing, the ruling lens's slicer built, the grounding).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import corpus  # noqa: E402
from clingo import ast  # noqa: E402

from mtgcontrol.engine import Engine  # noqa: E402
from mtgcontrol.engine.api import judge_batch, version_for  # noqa: E402
from mtgcontrol.engine.engine import RULING  # noqa: E402


def judged(engine: Engine, items: list[tuple[dict[str, Any], str]], per: int
           ) -> tuple[float, list[str]]:
    """CPU ms per snapshot judging ``items`` ``per`` to a grounding, and the rulings."""
    out: list[str] = []
    start = time.process_time()
    for i in range(0, len(items), per):
        out.extend(r.to_json() for r in judge_batch(items[i:i + per], None, engine))
    return 1000 * (time.process_time() - start) / len(items), out


def rules_given(engine: Engine, items: list[tuple[dict[str, Any], str]], per: int) -> float:
    """The mean number of rules given to clingo per grounding (comments, #show and
    other directives not counted)."""
    counts = []
    for i in range(0, len(items), per):
        frames = [engine.frame(d, version_for(d, None, n)) for d, n in items[i:i + per]]
        facts = "\n".join(f.facts.replace("(#", f"({s}") for s, f in enumerate(frames))
        counts.append(sum(s.ast_type == ast.ASTType.Rule for s in
                          engine.statements(RULING, facts if engine.slicing else None)))
    return sum(counts) / len(counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--realistic", action="store_true")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--new-engines", type=int, default=5)
    args = parser.parse_args(argv)
    bodies = corpus(args.snapshots, args.seed, args.realistic)
    items = [(json.loads(b), f"line {i + 1}") for i, b in enumerate(bodies)]
    engines = {"whole": Engine(slicing=False, cache_size=0),
               "sliced": Engine(slicing=True, cache_size=0)}
    for engine in engines.values():
        judge_batch(items[-3:], None, engine)  # warm: the program parsed and read
    print(f"{len(items)} snapshots ({'realistic' if args.realistic else 'mixed'}, seed "
          f"{args.seed}); rules per grounding, alone: whole "
          f"{rules_given(engines['whole'], items[:20], 1):.0f}, sliced "
          f"{rules_given(engines['sliced'], items[:20], 1):.0f}; {args.batch} to a "
          f"grounding: sliced {rules_given(engines['sliced'], items, args.batch):.0f}",
          flush=True)
    same = True
    for r in range(1, args.rounds + 1):
        for per in (1, args.batch):
            found = {name: judged(engine, items, per) for name, engine in engines.items()}
            equal = found["whole"][1] == found["sliced"][1]
            same &= equal
            print(f"round {r}, {per} per grounding: whole {found['whole'][0]:.1f} ms CPU "
                  f"per snapshot, sliced {found['sliced'][0]:.1f} ms "
                  f"(x{found['whole'][0] / found['sliced'][0]:.2f}); same bytes: {equal}; "
                  f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    new_engines(items[0], args.new_engines)
    return 0 if same else 1


def new_engines(item: tuple[dict[str, Any], str], n: int) -> None:
    """CPU ms from a new engine (its own proposal: a fact no rule reads) to its first
    ruling of one lone snapshot, for ``n`` engines in turn."""
    spent = []
    for i in range(n):
        start = time.process_time()
        engine = Engine((f"% a proposal of its own\nbenchmark_engine({i}).\n",), cache_size=0)
        judge_batch([item], None, engine)
        spent.append(1000 * (time.process_time() - start))
    if spent:
        print(f"{n} new engines, each with its own proposal, to a first lone ruling: "
              f"{' '.join(f'{ms:.0f}' for ms in spent)} ms CPU", flush=True)


if __name__ == "__main__":
    sys.exit(main())
