"""Fuzz every input surface; count what went wrong.

    python benchmarks/fuzz.py [--cases 2000] [--seed 1] [--timeout 60] [--workers 2]
                              [--surfaces snapshots,forge,res,zip,yaml,proposal]
                              [--hostile-cases 1000] [--hang 60]

``snapshots``: N mutated examples through `mtgcontrol batch`; prints the number of cases
per mutation class, then output lines vs input lines, tracebacks (a Python traceback on
stderr, or an "internal error" record), hangs (records of a snapshot over --timeout),
error records whose path is not a JSON path, rulings and input errors.  Writes the
cases to fuzz-cases.jsonl (and the nastiest, one per class and outcome, to
fuzz-nasty.jsonl) in the current folder.

The other surfaces (tests/mutations.py, ``hostile_case``): Forge game files (``forge``),
res folders of card scripts (``res``) and cardsfolder.zip files (``zip``) through
`mtgcontrol import forge`, scenario YAML through `mtgcontrol test`, proposal files through
`mtgcontrol adjudicate --change`.  Each case is a folder of files made from the
project's examples (and the shared Forge puzzles when they are there), with a canary
folder beside it; it runs in a child process that an audit hook watches, and the
parent kills a case that runs longer than --hang seconds of CPU time (ten times as long
in wall-clock time as a backstop).  Per surface: cases, exit codes, tracebacks (an
exception out of the command, "Traceback" or "internal error" on standard error),
hangs, crashes (the child process died in a case, or before its first), escapes (a
file opened in the canary folder or a watched system file, a file written outside the
case's folder, a canary's text in an output), lines of standard error that are not
printable, and the CPU seconds of the slowest case.  The failures are written to
fuzz-failures.jsonl.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mutations import CLASSES, SURFACES, hostile_case, mutate, run_case  # noqa: E402

RESTART_AFTER = 200
"""Cases a child runs before a fresh one takes over (memory stays flat)."""


def snapshots(args: argparse.Namespace) -> bool:
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
    print(f"snapshots: mutation classes ({len(CLASSES)}):", dict(sorted(classes.items())))
    print(f"snapshots: cases {len(cases)}, output lines {len(out)}, exit code "
          f"{run.returncode}, {seconds:.1f} s")
    print(f"snapshots: tracebacks {tracebacks}, hangs {hangs}, error paths not JSON paths "
          f"{bad_paths}, rulings {len(out) - errors}, error records {errors}")
    return len(out) == len(cases) and not tracebacks and not hangs and not bad_paths


def case_rng(seed: int, surface: str, number: int) -> random.Random:
    """Each case its own generator: a case after a hang is the case it would have been."""
    return random.Random(f"{seed}-{surface}-{number}")


def child(surface: str, seed: int, start: int, count: int) -> None:
    """Run cases ``start``.. in this process: "begin N" before each, its outcome after."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as work:
        for number in range(start, start + count):
            case = hostile_case(case_rng(seed, surface, number), surface)
            print(json.dumps({"begin": number}), flush=True)
            outcome = run_case(case, Path(work) / str(number))
            print(json.dumps({"case": number, "applied": case.applied, "code": outcome.code,
                              "traceback": outcome.traceback, "escapes": outcome.escapes,
                              "unprintable": outcome.unprintable[:3],
                              "seconds": round(outcome.seconds, 3)}), flush=True)


def hostile(surface: str, args: argparse.Namespace, failures: list[dict[str, object]]
            ) -> bool:
    """The cases of one surface, in children watched for hangs; prints its figures."""
    counts: collections.Counter[str] = collections.Counter()
    codes: collections.Counter[object] = collections.Counter()
    applied: collections.Counter[str] = collections.Counter()
    slowest = cpu = 0.0
    started = time.perf_counter()
    number = 0
    while number < args.hostile_cases:
        batch = min(RESTART_AFTER, args.hostile_cases - number)
        process = subprocess.Popen(
            [sys.executable, __file__, "--child", surface, str(args.seed), str(number),
             str(batch)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert process.stdout is not None
        current = number
        clock = Clock(process.pid, args.hang)
        for line in _lines(process, clock):
            record = json.loads(line)
            if "begin" in record:
                current = record["begin"]
                clock.restart()
                continue
            number = record["case"] + 1
            clock.started = None  # between two cases
            counts["cases"] += 1
            codes[record["code"]] += 1
            applied.update(record["applied"])
            slowest = max(slowest, record["seconds"])
            cpu += record["seconds"]
            bad = False
            for key in ("traceback", "escapes", "unprintable"):
                if record[key]:
                    counts[key] += 1
                    bad = True
            if record["code"] not in (0, 1, 2):
                counts["other exit codes"] += 1
                bad = True
            if bad:
                failures.append({"surface": surface, "seed": args.seed, **record})
        if process.poll() is None:  # a case that never ended
            process.kill()
            process.wait()
            counts["cases"] += 1
            counts["hangs"] += 1
            failures.append({"surface": surface, "seed": args.seed, "case": current,
                             "hang": True})
            number = current + 1
        elif number == current:  # the child died in a case (or before its first)
            counts["cases"] += 1
            counts["crashes"] += 1
            failures.append({"surface": surface, "seed": args.seed, "case": current,
                             "crash": process.returncode})
            number = current + 1
    seconds = time.perf_counter() - started
    print(f"{surface}: cases {counts['cases']}, exit codes {dict(sorted(codes.items(), key=str))}"
          f", tracebacks {counts['traceback']}, hangs {counts['hangs']}, crashes "
          f"{counts['crashes']}, escapes "
          f"{counts['escapes']}, unprintable stderr {counts['unprintable']}, other exit codes "
          f"{counts['other exit codes']}; CPU {cpu:.1f} s (slowest case {slowest:.2f} s), "
          f"{seconds:.1f} s")
    print(f"{surface}: mutations {dict(sorted(applied.items()))}")
    return not any(counts[k] for k in ("traceback", "hangs", "crashes", "escapes",
                                       "unprintable", "other exit codes"))


class Clock:
    """The time a child's current case has taken: CPU seconds (from /proc; a loaded
    machine does not make a slow case a hang, as batch's --timeout counts), and ten
    times as many wall-clock seconds as a backstop (a case stuck without the CPU)."""

    def __init__(self, pid: int, limit: float) -> None:
        self.pid, self.limit = pid, limit
        self.started: float | None = None  # the child's imports, before its first case
        self.wall = time.monotonic() + 30 + 10 * limit

    def cpu(self) -> float:
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return time.monotonic()  # no /proc: wall-clock time

    def restart(self) -> None:
        self.started, self.wall = self.cpu(), time.monotonic() + 10 * self.limit

    def over(self) -> bool:
        return (self.started is not None and self.cpu() - self.started > self.limit) or \
            time.monotonic() > self.wall


def _lines(process: subprocess.Popen[str], clock: Clock) -> Iterator[str]:
    """The child's lines, until it ends or its current case is over the time limit."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            if clock.over():
                return
            if not selector.select(timeout=0.5):
                continue
            line = process.stdout.readline()
            if not line:
                process.wait()
                return
            yield line


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000, help="snapshot cases")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--surfaces", default=",".join(("snapshots", *SURFACES)))
    parser.add_argument("--hostile-cases", type=int, default=1000,
                        help="cases per surface other than snapshots")
    parser.add_argument("--hang", type=float, default=60,
                        help="CPU seconds after which a case counts as a hang (or ten "
                             "times as many wall-clock seconds)")
    args = parser.parse_args()
    ok = True
    failures: list[dict[str, object]] = []
    for surface in args.surfaces.split(","):
        if surface == "snapshots":
            ok &= snapshots(args)
        else:
            ok &= hostile(surface, args, failures)
    Path("fuzz-failures.jsonl").write_text("".join(json.dumps(f) + "\n" for f in failures))
    print(f"failures written: {len(failures)} (fuzz-failures.jsonl)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
