"""Benchmark: the mutation score of `verify` at its default bounds (tests/mutants/).

Each mutant is a bug planted in the rules (an edit of one encoding, or a proposal
file) with a witness snapshot that shows it is live (tests/test_mutants.py checks
that).  For each, this runs `mtgcontrol verify` with no bound flags -- the newest
version, every built-in invariant -- in a process of its own with the mutant in
force (a copy of the package with the edit made, so verify's worker processes
run it too), and counts it caught when some invariant fails with a counterexample
that reproduces (`--first-failure`: the run stops at the first invariant that
fails).  It prints one line per mutant (caught or not, the size of its witness
and the bounds it needs, CPU seconds of the process, the invariants that failed),
then the score per rule family and in all: caught / live.

    .venv/bin/python benchmarks/bench_mutants.py                 # every mutant
    .venv/bin/python benchmarks/bench_mutants.py --only ID [ID ...]
    .venv/bin/python benchmarks/bench_mutants.py --locality      # survivors: --check-locality too
    .venv/bin/python benchmarks/bench_mutants.py --find ID --bounds 2,2,2,1
        # the smallest counterexample verify finds on mutant ID at those bounds
        # (players, objects, effects, details): how a witness is made

A survivor is either caught by a better search (``--locality`` reruns it with
`verify --check-locality` at its default bounds) or needs bigger bounds than the
defaults (its witness's bounds, in its file, say which).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mutant_set import FAMILIES, Mutant, edited, load_all  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# Where the installed package's parts live in the repository (pyproject.toml's
# package-dir): a mutant's copy of the package is laid out the same way.
PARTS = {"": "pyapi/mtgcontrol", "encodings": "encodings", "ruledata": "rules",
         "examples": "examples"}


def mutated_package(mutant: Mutant | None, where: Path) -> Path:
    """A copy of the package under ``where`` with the mutant's encoding edit made:
    ``PYTHONPATH=where`` puts it in force for `mtgcontrol` and for every worker
    process verify starts (they import the package afresh)."""
    package = where / "mtgcontrol"
    for part, source in PARTS.items():
        shutil.copytree(ROOT / source, package / part, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None and mutant.file is not None:
        path = package / "encodings" / mutant.file
        (path).write_text(edited(mutant, path.read_text(encoding="utf-8")),
                          encoding="utf-8")
    return where


def child(mutant: Mutant | None, argv: list[str]) -> tuple[dict[str, object], float, float]:
    """`mtgcontrol verify ARGV --format json --quiet` with the mutant in force, in a
    process of its own (and its workers): its result, CPU and wall seconds."""
    name = mutant.id if mutant is not None else "none"
    with tempfile.TemporaryDirectory(prefix=f"mtgcontrol-mutant-{name}-") as tmp:
        where = mutated_package(mutant, Path(tmp))
        changes: list[str] = []
        if mutant is not None and mutant.proposal is not None:
            proposal = Path(tmp) / "proposal.lp"
            proposal.write_text(mutant.proposal, encoding="utf-8")
            changes = ["--change", str(proposal)]
        env = {**os.environ, "PYTHONPATH": str(where)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from mtgcontrol.cli import main; "
             "sys.exit(main(sys.argv[1:]))", "verify", *argv, *changes, "--format", "json",
             "--quiet"], capture_output=True, text=True, check=False, env=env, cwd=tmp)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        data = json.loads(done.stdout)
    except ValueError:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["no output"]}, cpu, wall
    failed = [v for v in data["verdicts"] if v["verdict"] == "fails"]
    return {"code": done.returncode, "bounds": data["bounds"],
            "cpu_seconds": data.get("cpu_seconds"),
            "failed": [v["invariant"] for v in failed],
            "caught": any(v.get("reproduced", True) for v in failed),
            "undecided": [v["invariant"] for v in data["verdicts"]
                          if v["verdict"] == "undecided"],
            "counterexamples": [v.get("counterexample") for v in failed],
            "verdicts": {v["invariant"]: v["verdict"] for v in data["verdicts"]}}, cpu, wall


def bounds_text(bounds: dict[str, int]) -> str:
    return "/".join(str(bounds.get(k, 0)) for k in ("players", "objects", "effects", "details"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="ID")
    parser.add_argument("--locality", action="store_true",
                        help="rerun each survivor with verify --check-locality")
    parser.add_argument("--find", metavar="ID")
    parser.add_argument("--bounds", default="2,2,2,1")
    args = parser.parse_args()
    if args.find:
        p, o, e, d = (int(x) for x in args.bounds.split(","))
        mutant = next(m for m in load_all() if m.id == args.find)
        result, cpu, wall = child(mutant, ["--players", str(p), "--objects", str(o),
                                           "--effects", str(e), "--details", str(d),
                                           "--size", str(o + e + d)])
        print(json.dumps(result, indent=1))
        print(f"{cpu:.1f} s CPU, {wall:.1f} s wall")
        return
    mutants = [m for m in load_all() if not args.only or m.id in args.only]
    # An invariant the unmutated rules already fail (a true finding not yet fixed)
    # would "catch" every mutant: only those that hold there count.
    base, base_cpu, _ = child(None, [])
    holding = [name for name in base.get("verdicts", {}) if base["verdicts"][name] == "holds"]
    print(f"{len(mutants)} mutant(s); verify at its default bounds, newest version, "
          f"the built-in invariants that hold on the unmutated rules ({', '.join(holding)}; "
          f"{base.get('cpu_seconds')} s search CPU)")
    invariants = [x for name in holding for x in ("--invariant", str(ROOT / "encodings" /
                                                                    "invariants" / f"{name}.lp"))]
    score: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    total_cpu = 0.0
    for m in mutants:
        # A mutant is caught by its first failing invariant: the run stops there.
        result, _, wall = child(m, ["--first-failure", *invariants])
        # verify's own count (its workers are not this process's children to wait for)
        total_cpu += float(result.get("cpu_seconds") or 0)  # type: ignore[arg-type]
        caught = bool(result.get("caught"))
        score[m.family][0] += caught
        score[m.family][1] += 1
        how = "caught" if caught else "SURVIVED"
        detail = ", ".join(result.get("failed", [])) or result.get("error") or "-"  # type: ignore[arg-type]
        line = (f"{m.id:48} {m.family:7} {m.kind:8} witness {m.size()} "
                f"({bounds_text(m.bounds)})  {how:8} {result.get('cpu_seconds', 0) or 0:6.1f} s "
                f"search CPU {wall:6.1f} s wall  {detail}")
        if not caught and args.locality:
            local, lcpu, _ = child(m, ["--check-locality"])
            line += f"  | --check-locality: {'caught' if local.get('failed') else 'not caught'} " \
                    f"({lcpu:.1f} s CPU)"
        print(line, flush=True)
    print()
    print("mutation score per family (caught / live):")
    for family in FAMILIES:
        if family in score:
            caught, live = score[family]
            print(f"  {family:8} {caught} / {live}")
    caught = sum(c for c, _ in score.values())
    live = sum(n for _, n in score.values())
    print(f"in all: {caught} / {live} caught ({100 * caught / max(live, 1):.0f} %), "
          f"{total_cpu:.0f} s search CPU")


if __name__ == "__main__":
    main()
