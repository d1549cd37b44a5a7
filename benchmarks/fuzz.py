"""Fuzz batch mode: N mutated examples through `mtgcontrol batch`; count what went wrong.

    python benchmarks/fuzz.py [--cases 2000] [--seed 1] [--timeout 10] [--workers 2]

Prints the number of cases per mutation class, then: output lines vs input lines,
tracebacks (a Python traceback on stderr, or an "internal error" record), hangs
(records of a snapshot over --timeout), error records whose path is not a JSON path,
rulings and input errors.  Writes the cases to fuzz-cases.jsonl (and the nastiest,
one per class and outcome, to fuzz-nasty.jsonl) in the current folder.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mutations import CLASSES, mutate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    cases = [mutate(rnd) for _ in range(args.cases)]
    source, target = Path("fuzz-cases.jsonl"), Path("fuzz-out.jsonl")
    source.write_bytes(b"".join(line + b"\n" for line, _ in cases))
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "mtgcontrol.cli", "batch", str(source), "-o",
                          str(target), "--timeout", str(args.timeout), "--workers",
                          str(args.workers), "--batch-size", "50"],
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    out = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    classes = collections.Counter(c for _, applied in cases for c in applied)
    tracebacks = run.stderr.count("Traceback")
    hangs = bad_paths = errors = 0
    nasty: dict[tuple[str, str], bytes] = {}
    for (line, applied), record in zip(cases, out, strict=False):
        if "error" not in record:
            continue
        errors += 1
        for problem in record["error"]:
            tracebacks += "internal error" in problem["expected"]
            hangs += "time limit" in problem["expected"]
            bad_paths += not problem["path"].startswith("$")
            nasty.setdefault((applied[-1], problem["expected"][:25]), line)
    Path("fuzz-nasty.jsonl").write_bytes(b"".join(v + b"\n" for v in nasty.values()))
    print(f"mutation classes ({len(CLASSES)}):", dict(sorted(classes.items())))
    print(f"cases {len(cases)}, output lines {len(out)}, exit code {run.returncode}, "
          f"{seconds:.1f} s")
    print(f"tracebacks {tracebacks}, hangs {hangs}, error paths not JSON paths {bad_paths}, "
          f"rulings {len(out) - errors}, error records {errors}")
    ok = len(out) == len(cases) and not tracebacks and not hangs and not bad_paths
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
