"""Impact of two versions against adjudication under one, on a 10,000-snapshot corpus.

    python benchmarks/bench_impact.py [--snapshots 10000] [--seed 2] [--repeat 1]

Times, end to end through the command line (one core each):

* ``mtgcontrol batch CORPUS --rules 2017-04-28`` (one version: validation,
  one grounding per batch of 500, rulings written as JSON Lines);
* ``mtgcontrol impact --from 2017-04-28 --to 2020-11-20 CORPUS`` (both versions
  in one grounding per batch of 500, differences grouped by rule);

and the same two in this process (``api.adjudicate_many`` against
``research.impact_corpus``), with the split of the impact run into validation,
grounding and the rest.  The target is impact / one version <= 1.5.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

from bench_adjudicate import best, corpus_lines, mtgcontrol_command

V1, V2 = "2017-04-28", "2020-11-20"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    import json

    from mtgcontrol import catalog, research
    from mtgcontrol.api import adjudicate_many
    from mtgcontrol.validate import problems

    lines = corpus_lines(args.snapshots, args.seed)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} core(s), "
          f"Python {platform.python_version()}; corpus: {len(lines)} snapshots "
          f"(make_corpus.py, seed {args.seed}); {V1} -> {V2}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        exe = mtgcontrol_command()
        one = best(args.repeat, lambda: subprocess.run(
            [*exe, "batch", str(path), "--rules", V1, "-o", os.devnull], check=True,
            stderr=subprocess.DEVNULL))
        two = best(args.repeat, lambda: subprocess.run(
            [*exe, "impact", "--from", V1, "--to", V2, str(path), "--format", "json"],
            check=True, stdout=subprocess.DEVNULL))
        print(f"cli: batch (one version) {one:.1f} s, impact (two versions) {two:.1f} s, "
              f"ratio {two / one:.2f}", flush=True)

    docs = [json.loads(line) for line in lines]
    one = best(args.repeat, lambda: list(adjudicate_many([(d, "b") for d in docs], V1)))
    numbered = list(enumerate(lines, 1))
    v1, v2 = catalog.resolve(V1), catalog.resolve(V2)
    grounding = [0.0]
    real_solve_views = research._solve_views

    def timed(*a: object) -> object:
        start = time.perf_counter()
        try:
            return real_solve_views(*a)  # type: ignore[arg-type]
        finally:
            grounding[0] += time.perf_counter() - start

    research._solve_views = timed  # type: ignore[assignment]
    report: list[research.ImpactReport] = []
    two = best(args.repeat, lambda: report.append(research.impact_corpus(numbered, v1, v2)))
    research._solve_views = real_solve_views  # type: ignore[assignment]
    start = time.perf_counter()
    for d in docs:
        problems(d, "b")
    validation = time.perf_counter() - start
    r = report[-1]
    print(f"api: adjudicate_many (one version) {one:.1f} s, impact_corpus (two versions) "
          f"{two:.1f} s, ratio {two / one:.2f}")
    print(f"     impact split: validation ~{validation:.1f} s, ground+solve+read "
          f"{grounding[0] / args.repeat:.1f} s, rest "
          f"{two - validation - grounding[0] / args.repeat:.1f} s; "
          f"{r.judged} judged, {len(r.changed_snapshots)} with a difference in meaning, "
          f"{len([k for k in r.kinds.values() if k.category == 'meaning'])} kinds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
