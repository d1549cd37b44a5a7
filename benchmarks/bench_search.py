"""Benchmark: verification and impact by search.

Prints, for each target, the CPU time (every worker's: the machine is shared, so
wall time, printed beside it, is inflated by other work, and the load is printed
too), the verdicts or the CR changes found, and whether the target is met:

* verify --rules 2026-08-07 at 3 / 3 / 2: six invariants proved for every size
  (none undecided) within 15 min wall on 2 cores (stated as CPU / 2 when the
  machine is not quiet); ``--dask local`` the same on a local Dask cluster;
  ``--locality``: the locality lemma checked instead (each invariant with its own
  cone), ``--orderings`` the orderings lemma;
* impact --exhaustive on each window of consecutive versions at impact's default
  bounds, together finding every expressible change (research/changes.py), each
  under its own rule;
* ``--proposal``: impact --exhaustive --change docs/proposals/token-owner-entered.lp
  (2026-08-07 against itself) at 2 / 2 / 2 within 2 min CPU;
* ``--observability``: each rule of the newest version switched off
  (``off_number``) changes some ruling that impact --exhaustive --change finds at
  impact's default bounds (the first witness of each, one grounding for all).

    .venv/bin/python benchmarks/bench_search.py --skip-impact [--workers 2] [--dask local] \
        [--time-limit S] [--locality | --orderings] [--verify-bounds 3,3,2] [--all-versions]
    .venv/bin/python benchmarks/bench_search.py --skip-verify [--windows 1,2,3]
    .venv/bin/python benchmarks/bench_search.py --proposal
    .venv/bin/python benchmarks/bench_search.py --observability [--bounds 2,2,2]
    .venv/bin/python benchmarks/bench_search.py --quick    # smaller bounds (a smoke run)
    .venv/bin/python benchmarks/bench_search.py --ground   # grounding size and cost only
    .venv/bin/python benchmarks/bench_search.py --count 3,3,2   # snapshots per size
    .venv/bin/python benchmarks/bench_search.py --sizes one-controller --bounds 3,3,2 \
        --upto 4 [--option=--configuration=crafty ...] [--threads 2] [--all-orderings]
                                     # CPU (and wall) per size of one program's search

``--ground`` prints, for the verify program (2026-08-07, 3 / 5 / 3) and the
impact program (2017-04-28 -> 2020-11-20, 3 / 4 / 2): the CPU time of grounding
and of the first solve (clasp's preprocessing, size 1), the ground rules and
atoms clasp receives, and the peak resident memory so far.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

from mtgcontrol import catalog
from mtgcontrol.engine.proposals import switchable_groups
from mtgcontrol.research import Bounds
from mtgcontrol.research import changes as cr_changes
from mtgcontrol.research.differences import impact_program, impact_search, switch_off_each
from mtgcontrol.research.invariants import builtin_invariants, tagged
from mtgcontrol.research.proofs import MODES, Settings, invariant_program, verify_version
from mtgcontrol.research.solver import SearchProgram


def progress(message: str) -> None:
    print(f"    ... {message}", file=sys.stderr, flush=True)


def ground_figures() -> None:
    """Grounding cost of the two target programs (no search)."""
    v2026 = catalog.resolve("2026-08-07")
    programs = (
        ("verify 2026-08-07", SearchProgram(
            Bounds(3, 5, 3), ((0, v2026.name),), tagged(builtin_invariants()),
            fewest_players=True)),
        ("impact 2017-04-28 -> 2020-11-20", impact_program(
            Bounds(3, 4, 2), catalog.resolve("2017-04-28"), catalog.resolve("2020-11-20"),
            cones=False)))
    for label, program in programs:
        start = time.process_time()
        search = program.ground()
        grounded = time.process_time() - start
        if len(program.slots) == 1:
            search.set_goal(0, len(builtin_invariants()))
        start = time.process_time()
        search.solve(1)
        solved = time.process_time() - start
        lp = search.ctl.statistics["problem"]["lp"]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"{label} at {program.bounds}: grounding {grounded:.1f} s CPU, first solve "
              f"{solved:.1f} s CPU, {lp['rules']:.0f} rules, {lp['atoms']:.0f} atoms, peak RSS "
              f"{rss:.2f} GB")


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
                 rules: str, threads: int, mode: str,
                 orderings: bool = True) -> None:
    """One invariant's search (verify's program, searched as ``mode``: cone,
    snapshot or locality), size by size: CPU, choices, conflicts."""
    chosen = [i for i in builtin_invariants() if i.name == invariant]
    if not chosen:
        raise SystemExit(f"no built-in invariant {invariant!r}")
    start = time.process_time()
    search = invariant_program(bounds, catalog.resolve(rules), chosen[0], mode, threads=threads,
                               options=options, orderings=orderings).ground()
    search.set_goal(0, 1)
    what = "" if orderings else " (every time ordering)"
    print(f"{invariant} {rules} at {bounds} by {mode}{what} {' '.join(options)}: grounding "
          f"{time.process_time() - start:.1f} s CPU", flush=True)
    for size in range(1, upto + 1):
        start, wall = time.process_time(), time.perf_counter()
        solved = search.solve(size)
        stats = search.ctl.statistics["solving"]["solvers"]
        print(f"  size {size} exactly: "
              f"{'counterexample' if solved.sat else 'none (UNSAT)'}, "
              f"{time.process_time() - start:.1f} s CPU, "
              f"{time.perf_counter() - wall:.1f} s wall ({threads} thread(s)), "
              f"{stats['choices']:.0f} choices, {stats['conflicts']:.0f} conflicts", flush=True)


def load() -> str:
    return f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"


def impact_defaults() -> Bounds:
    """impact's default bounds (the command line's with no bound flag: tests/test_research.py)."""
    from mtgcontrol.research.commands import IMPACT_BOUNDS

    return IMPACT_BOUNDS


def verify_figures(args: argparse.Namespace, bounds: Bounds) -> bool:
    versions = catalog.versions() if args.all_versions else [catalog.resolve("2026-08-07")]
    invariants = [i for i in builtin_invariants() if i.cones or not args.locality]
    check = "locality" if args.locality else "orderings" if args.orderings else None
    settings = Settings(threads=args.threads, workers=args.workers, dask=args.dask,
                        limit=args.time_limit)
    start, cpu = time.perf_counter(), time.process_time()
    verdicts = [v for version in versions
                for v in verify_version(bounds, version, invariants, progress=progress,
                                        settings=settings, locality=args.locality,
                                        orderings=args.orderings)]
    wall = time.perf_counter() - start
    total = sum(v.seconds for v in verdicts) + time.process_time() - cpu
    target = 900.0 * len(versions)
    met = wall <= target and all(v.complete for v in verdicts)
    what = f"{check} check" if check else "verify"
    where = f"Dask {args.dask}" if args.dask else f"{args.workers} worker process(es)"
    print(f"{what} {'all versions' if args.all_versions else '2026-08-07'} at {bounds} on "
          f"{where}: {total:.1f} s CPU, {wall:.1f} s wall ({load()}); CPU / 2 cores = "
          f"{total / 2:.1f} s ({'met' if met else 'NOT met'}: {target:.0f} s wall, none "
          "undecided)")
    for v in verdicts:
        print(f"  {v.text()}")
        print("    per size (s CPU): " + ", ".join(
            f"{p['size']}: {p['cpu_seconds']}" for p in v.per_size))
    return met


def impact_figures(args: argparse.Namespace, bounds: Bounds) -> bool:
    windows = [cr_changes.W1, cr_changes.W2, cr_changes.W3]
    found_all: set[str] = set()
    ok = True
    for n in args.windows.split(","):
        v1, v2 = windows[int(n) - 1]
        start = time.perf_counter()
        report = impact_search(bounds, catalog.resolve(v1), catalog.resolve(v2),
                               quiet=False, limit=args.time_limit, workers=1).to_dict()
        seconds = time.perf_counter() - start
        found = cr_changes.found(report)
        found_all |= set(found)
        ok &= report["complete"]
        print(f"impact {v1} -> {v2} at {bounds}: {report['cpu_seconds']:.1f} s CPU, "
              f"{seconds:.1f} s wall ({load()}); {len(report['differences'])} kind(s) in "
              f"meaning, {len(report['citation_only'])} citation only; {report['verdict']}")
        for change in cr_changes.expected(v1, v2):
            kind = found.get(change.id)
            if kind is None and change.details > bounds.details:
                print(f"  {change.id} beyond these bounds (needs {change.details} "
                      f"detail(s)): {change.what}")
            elif kind is None:
                print(f"  {change.id} NOT FOUND: {change.what}")
            else:
                print(f"  {change.id} found (witness size {kind['witness']['size']}): "
                      f"{kind['label']}")
        for line in cr_changes.unexplained(report):
            print(f"  filed under no documented change: {line}")
    wanted = {c.id for c in cr_changes.CHANGES if c.details <= bounds.details
              and str(windows.index(c.window) + 1) in args.windows.split(",")}
    print(f"changes found: {len(found_all)} of {len(wanted)}"
          + ("" if found_all >= wanted else f"; missing {sorted(wanted - found_all)}"))
    return ok and found_all >= wanted


def proposal_figures() -> bool:
    v2026 = catalog.resolve("2026-08-07")
    text = (Path(__file__).resolve().parents[1] / "docs" / "proposals" /
            "token-owner-entered.lp").read_text(encoding="utf-8")
    start = time.perf_counter()
    report = impact_search(Bounds(2, 2, 2), v2026, v2026, (text,), quiet=False, workers=1)
    wall = time.perf_counter() - start
    met = report.exhausted_upto is None and (report.cpu_seconds or 0) <= 120
    print(f"impact --exhaustive --change token-owner-entered.lp at 2 / 2 / 2: "
          f"{report.cpu_seconds:.1f} s CPU, {wall:.1f} s wall ({load()}); "
          f"{len(report.ordered('meaning'))} kind(s) in meaning, "
          f"{len(report.ordered('citation'))} citation only ({'met' if met else 'NOT met'}: "
          "120 s CPU)")
    return met


def observability_figures(bounds: Bounds) -> bool:
    version = catalog.newest()
    groups = [r.group for r in version.rules if r.group in switchable_groups()]
    start, wall = time.process_time(), time.perf_counter()
    found, cpu = switch_off_each(bounds, version, groups, workers=1)
    print(f"observability at {bounds} ({version.name}): {len(groups)} groups, "
          f"{cpu:.1f} s CPU of the search, {time.perf_counter() - wall:.1f} s wall "
          f"({load()})")
    for rule in version.rules:
        if rule.group not in found:
            continue
        seen = found[rule.group]
        said = (seen if isinstance(seen, str) else "NO DIFFERENCE" if seen is None else
                f"{'value' if seen.meaning else 'citation only'}, size {seen.size}")
        print(f"  {rule.number:<10} {said}")
    print(f"  parent CPU {time.process_time() - start:.1f} s")
    return True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ground", action="store_true", help="grounding figures only")
    parser.add_argument("--count", metavar="P,O,E",
                        help="count the generated snapshots per players, objects, effects")
    parser.add_argument("--sizes", metavar="INVARIANT",
                        help="per-size CPU of one built-in invariant's search")
    parser.add_argument("--bounds", default="3,3,2",
                        help="with --sizes and --observability: players,objects,effects")
    parser.add_argument("--upto", type=int, default=4, help="with --sizes: the largest size")
    parser.add_argument("--rules", default="2026-08-07", help="with --sizes: the CR version")
    parser.add_argument("--option", action="append", default=[],
                        help="with --sizes: an extra clingo option (repeatable)")
    parser.add_argument("--mode", choices=MODES, default="cone",
                        help="with --sizes: how the invariant is searched (default: cone)")
    parser.add_argument("--all-orderings", action="store_true",
                        help="with --sizes: every time ordering, not one representative "
                             "per class (the baseline the reduction is measured against)")
    parser.add_argument("--threads", type=int, default=1, help="solver threads per task")
    parser.add_argument("--workers", type=int, default=2, help="verify's worker processes")
    parser.add_argument("--dask", default=None, help="verify on Dask: local or an address")
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument("--skip-impact", action="store_true")
    parser.add_argument("--proposal", action="store_true")
    parser.add_argument("--observability", action="store_true")
    parser.add_argument("--all-versions", action="store_true", help="verify in every version")
    parser.add_argument("--locality", action="store_true",
                        help="check the locality lemma (verify --check-locality) instead")
    parser.add_argument("--orderings", action="store_true",
                        help="check the orderings lemma (verify --check-orderings) instead")
    parser.add_argument("--verify-bounds", default="3,3,2", help="players,objects,effects")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="CPU seconds per invariant and version (verify) or window (impact)")
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
                     args.option, args.rules, args.threads, args.mode, not args.all_orderings)
        return 0
    if args.proposal:
        return 0 if proposal_figures() else 1
    if args.observability:
        bounds = impact_defaults() if args.bounds == "3,3,2" else Bounds(
            *map(int, args.bounds.split(",")))
        return 0 if observability_figures(bounds) else 1
    ok = True
    if not args.skip_verify:
        ok &= verify_figures(args, Bounds(2, 2, 1) if args.quick else Bounds(
            *map(int, args.verify_bounds.split(","))))
    if not args.skip_impact:
        ok &= impact_figures(args, Bounds(2, 2, 1) if args.quick else impact_defaults())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
