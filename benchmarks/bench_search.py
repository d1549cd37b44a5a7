"""Benchmark: verification and impact by search.

Prints, for each target, the wall and CPU time (the machine is shared: wall time
is inflated by other work), the verdicts or the CR changes found, and whether the
target is met:

* verify --rules 2026-08-07 at cone bound 3 / 3 / 2 (cones and the locality lemma): every invariant
  proved for every cone (or a minimal counterexample) within 120 s wall;
  ``--locality``: the locality lemma checked at 3 / 3 / 2 instead, every version;
  ``--orderings``: the orderings lemma (one time ordering per class) instead;
* impact --exhaustive --from 2017-04-28 --to 2020-11-20 --players 3 --objects 4
  --effects 2 within 120 s, with the token-owner change (B1);
* impact --exhaustive on 2012-10-01 -> 2017-04-28, 2017-04-28 -> 2020-11-20 and
  2020-11-20 -> 2024-11-08 at 3 / 4 / 2, each within 180 s, together finding every
  expressible change (research/changes.py), each under its own rule.

    .venv/bin/python benchmarks/bench_search.py            # the targets
    .venv/bin/python benchmarks/bench_search.py --quick    # smaller bounds (a smoke run)
    .venv/bin/python benchmarks/bench_search.py --skip-impact [--all-versions] \
        [--time-limit S] [--locality | --orderings] [--verify-bounds 3,3,2]
    .venv/bin/python benchmarks/bench_search.py --ground   # grounding size and cost only
    .venv/bin/python benchmarks/bench_search.py --count 3,3,2   # snapshots per size
    .venv/bin/python benchmarks/bench_search.py --sizes one-controller --bounds 3,3,2 \
        --upto 4 [--option=--configuration=crafty ...] [--cumulative] [--threads 2] \
        [--all-orderings]
                                                 # CPU (and wall) per size of one invariant's search

``--ground`` prints, for the verify program (2026-08-07, 3 / 5 / 3) and the
impact program (2017-04-28 -> 2020-11-20, 3 / 4 / 2): the CPU time of grounding
and of the first solve (clasp's preprocessing, size 1), the ground rules and
atoms clasp receives, and the peak resident memory so far.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import clingo

from mtgcontrol import catalog
from mtgcontrol.research import Bounds
from mtgcontrol.research import changes as cr_changes
from mtgcontrol.research.search import (
    DEFAULT_THREADS,
    MODES,
    Search,
    builtin_invariants,
    impact_search,
    invariant_search,
    search_file,
    tagged,
    verify_version,
)


def progress(message: str) -> None:
    print(f"    ... {message}", file=sys.stderr, flush=True)


def ground_figures() -> None:
    """Grounding cost of the two target programs (no search)."""
    programs = (
        ("verify 2026-08-07", Bounds(3, 5, 3), [(0, catalog.resolve("2026-08-07"))],
         tagged(builtin_invariants()), False),
        ("impact 2017-04-28 -> 2020-11-20", Bounds(3, 4, 2),
         [(0, catalog.resolve("2017-04-28")), (1, catalog.resolve("2020-11-20"))],
         search_file("differ.lp"), True))
    for label, bounds, slots, goal, late in programs:
        start = time.process_time()
        search = Search(bounds, slots, goal, late=late, fewest_players=not late)
        grounded = time.process_time() - start
        if not late:
            search.ctl.assign_external(clingo.Function("goal", [clingo.Number(0)]), True)
        start = time.process_time()
        search.solve_at(1)
        solved = time.process_time() - start
        lp = search.ctl.statistics["problem"]["lp"]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"{label} at {bounds}: grounding {grounded:.1f} s CPU, first solve {solved:.1f} s "
              f"CPU, {lp['rules']:.0f} rules, {lp['atoms']:.0f} atoms, peak RSS {rss:.2f} GB")


def count_figures(bounds: Bounds) -> None:
    """How many snapshots the generator makes (exactly p players, o objects, e
    effects; up to renaming), counted by clingo, and the totals per size o + e."""
    from mtgcontrol.research.gen import cell_control

    per_size: dict[int, int] = {}
    for objects in range(1, bounds.objects + 1):
        for effects in range(bounds.effects + 1):
            for players in range(2, bounds.players + 1):
                start = time.process_time()
                ctl = cell_control(players, objects, effects)
                ctl.solve()
                count = int(ctl.statistics["summary"]["models"]["enumerated"])
                per_size[objects + effects] = per_size.get(objects + effects, 0) + count
                print(f"  {players} players, {objects} objects, {effects} effects: {count:,} "
                      f"snapshots ({time.process_time() - start:.1f} s CPU)", flush=True)
    for size, count in sorted(per_size.items()):
        print(f"size {size} (objects + effects): {count:,} snapshots")


def size_figures(invariant: str, bounds: Bounds, upto: int, options: list[str],
                 cumulative: bool, rules: str, threads: int, mode: str,
                 orderings: bool = True) -> None:
    """One invariant's search (verify's program, searched as ``mode``: cone,
    snapshot or locality), size by size: CPU, choices, conflicts."""
    chosen = [i for i in builtin_invariants() if i.name == invariant]
    if not chosen:
        raise SystemExit(f"no built-in invariant {invariant!r}")
    start = time.process_time()
    search = invariant_search(bounds, catalog.resolve(rules), chosen, mode, threads=threads,
                              options=options, orderings=orderings)
    search.ctl.assign_external(clingo.Function("goal", [clingo.Number(0)]), True)
    what = "" if orderings else " (every time ordering)"
    print(f"{invariant} {rules} at {bounds} by {mode}{what} {' '.join(options)}: grounding "
          f"{time.process_time() - start:.1f} s CPU", flush=True)
    for size in range(1, upto + 1):
        start, wall = time.process_time(), time.perf_counter()
        found = search.solve_at(size, exact=not cumulative)
        stats = search.ctl.statistics["solving"]["solvers"]
        print(f"  size {size}{'' if cumulative else ' exactly'}: "
              f"{'counterexample' if found else 'none (UNSAT)'}, "
              f"{time.process_time() - start:.1f} s CPU, "
              f"{time.perf_counter() - wall:.1f} s wall ({threads} thread(s)), "
              f"{stats['choices']:.0f} choices, {stats['conflicts']:.0f} conflicts", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ground", action="store_true", help="grounding figures only")
    parser.add_argument("--count", metavar="P,O,E",
                        help="count the generated snapshots per players, objects, effects")
    parser.add_argument("--sizes", metavar="INVARIANT",
                        help="per-size CPU of one built-in invariant's search")
    parser.add_argument("--bounds", default="3,3,2", help="with --sizes: players,objects,effects")
    parser.add_argument("--upto", type=int, default=4, help="with --sizes: the largest size")
    parser.add_argument("--rules", default="2026-08-07", help="with --sizes: the CR version")
    parser.add_argument("--option", action="append", default=[],
                        help="with --sizes: an extra clingo option (repeatable)")
    parser.add_argument("--mode", choices=MODES, default="cone",
                        help="with --sizes: how the invariant is searched (default: cone)")
    parser.add_argument("--all-orderings", action="store_true",
                        help="with --sizes: every time ordering, not one representative "
                             "per class (the baseline the reduction is measured against)")
    parser.add_argument("--cumulative", action="store_true",
                        help="with --sizes: size k means at most k (as before), not exactly k")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help="solver threads for verify (and --sizes)")
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument("--skip-impact", action="store_true")
    parser.add_argument("--all-versions", action="store_true",
                        help="verify in every version (target: 10 minutes)")
    parser.add_argument("--locality", action="store_true",
                        help="check the locality lemma (verify --check-locality) instead")
    parser.add_argument("--orderings", action="store_true",
                        help="check the orderings lemma (verify --check-orderings) instead")
    parser.add_argument("--verify-bounds", default="3,3,2", help="players,objects,effects")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="per invariant and version (verify) or per window (impact)")
    parser.add_argument("--windows", default="1,2,3", help="which windows (1,2,3)")
    args = parser.parse_args()
    if args.ground:
        ground_figures()
        return 0
    if args.count:
        count_figures(Bounds(*map(int, args.count.split(","))))
        return 0
    if args.sizes:
        size_figures(args.sizes, Bounds(*map(int, args.bounds.split(","))), args.upto,
                     args.option, args.cumulative, args.rules, args.threads, args.mode,
                     not args.all_orderings)
        return 0
    verify_bounds = Bounds(2, 2, 1) if args.quick else Bounds(
        *map(int, args.verify_bounds.split(",")))
    impact_bounds = Bounds(2, 2, 1) if args.quick else Bounds(3, 4, 2)
    ok = True
    if not args.skip_verify:
        versions = catalog.versions() if args.all_versions else [catalog.resolve("2026-08-07")]
        invariants = [i for i in builtin_invariants() if i.cones or not args.locality]
        check = "locality" if args.locality else "orderings" if args.orderings else None
        start, cpu = time.perf_counter(), time.process_time()
        verdicts = [v for version in versions
                    for v in verify_version(verify_bounds, version, invariants,
                                            progress=progress, threads=args.threads,
                                            limit=args.time_limit, locality=args.locality,
                                            orderings=args.orderings)]
        seconds = time.perf_counter() - start
        target = 600 if args.all_versions else 120
        met = seconds <= target and all(v.complete for v in verdicts)
        ok &= met
        what = f"{check} check" if check else "verify"
        print(f"{what} {'all versions' if args.all_versions else '2026-08-07'} at "
              f"{verify_bounds}: {seconds:.1f} s wall, {time.process_time() - cpu:.1f} s CPU "
              f"({args.threads} thread(s)) ({'met' if met else 'NOT met'}: {target} s wall)")
        for v in verdicts:
            print(f"  {v.text()}")
    if args.skip_impact:
        return 0 if ok else 1
    windows = [cr_changes.W1, cr_changes.W2, cr_changes.W3]
    found_all: set[str] = set()
    for n in args.windows.split(","):
        v1, v2 = windows[int(n) - 1]
        start, cpu = time.perf_counter(), time.process_time()
        report = impact_search(impact_bounds, catalog.resolve(v1), catalog.resolve(v2),
                               progress, args.time_limit).to_dict()
        seconds = time.perf_counter() - start
        limit = 180
        found = cr_changes.found(report)
        found_all |= set(found)
        met = seconds <= limit and report["complete"]
        ok &= met
        verdict = "met" if met else "NOT met"
        print(f"impact {v1} -> {v2} at {impact_bounds}: {seconds:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU ({verdict}: {limit} s wall); "
              f"{len(report['differences'])} kind(s) in meaning, "
              f"{len(report['citation_only'])} citation only; {report['verdict']}")
        for change in cr_changes.expected(v1, v2):
            kind = found.get(change.id)
            if kind is None:
                print(f"  {change.id} NOT FOUND: {change.what}")
            else:
                print(f"  {change.id} found (witness size {kind['witness']['size']}): "
                      f"{kind['label']}")
        for line in cr_changes.unexplained(report):
            print(f"  filed under no documented change: {line}")
    wanted = {c.id for c in cr_changes.CHANGES
              if str(windows.index(c.window) + 1) in args.windows.split(",")}
    print(f"changes found: {len(found_all)} of {len(wanted)}"
          + ("" if found_all >= wanted else f"; missing {sorted(wanted - found_all)}"))
    return 0 if ok and found_all >= wanted else 1


if __name__ == "__main__":
    raise SystemExit(main())
