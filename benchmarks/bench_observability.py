"""Benchmark and check: observability of every rule within impact's default bounds.

Switched off one at a time (a proposal `off(G)`, as `impact --exhaustive --change`
layers it), each rule group of the newest version that a proposal can switch off
must change some ruling -- a value, or the rules cited -- at 2 players, 2 objects,
1 effect and no history detail (a part of impact's default space, which adds one
detail), except the rules docs/research.md lists under "Rules no small snapshot
exercises", each with its reason; and each of those must change nothing there.
The suite checks the listed rules in a smaller space in seconds
(tests/test_research.py); this is the exact check, minutes of CPU.  It prints the
rules changing values, only citations, nothing, the CPU seconds, and exits 1 when
the search and the docs disagree.

    .venv/bin/python benchmarks/bench_observability.py             # the table's bounds
    .venv/bin/python benchmarks/bench_observability.py --bounds 2,1,1
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mtgcontrol import catalog
from mtgcontrol.engine.proposals import switchable_groups
from mtgcontrol.research.differences import Observed, switch_off_each
from mtgcontrol.research.gen import Bounds

DOCS = Path(__file__).resolve().parents[1] / "docs" / "research.md"
TABLE_BOUNDS = Bounds(2, 2, 1)
"""The space of the docs' table: impact's default space without its history detail
(every rule observed here is observed by impact at its defaults too)."""


def documented() -> dict[str, str]:
    """The rule numbers docs/research.md lists as changing nothing at the defaults,
    each with the reason it gives."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("#### Rules no small snapshot exercises", 1)[1].split("\n#", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `")]
    return {row[1].strip().strip("`"): row[2].strip() for row in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bounds", help="players,objects,effects (default 2,2,1: the table's)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    bounds = TABLE_BOUNDS if args.bounds is None else Bounds(
        *(int(x) for x in args.bounds.split(",")))
    version = catalog.newest()
    rules = {r.group: r.number for r in version.rules if r.group in switchable_groups()}
    start = time.perf_counter()
    found, cpu = switch_off_each(bounds, version, sorted(rules), workers=args.workers)
    wall = time.perf_counter() - start
    values = sorted(rules[g] for g, s in found.items() if isinstance(s, Observed) and s.meaning)
    cited = sorted(rules[g] for g, s in found.items()
                   if isinstance(s, Observed) and not s.meaning)
    silent = {rules[g] for g, s in found.items() if s is None}
    stopped = sorted(rules[g] for g, s in found.items() if isinstance(s, str))
    print(f"{version.name} at {bounds.to_dict()}: {len(rules)} rules switched off one at a "
          f"time; {cpu:.1f} s CPU, {wall:.1f} s wall")
    print(f"  change a value ({len(values)}): {' '.join(values)}")
    print(f"  change only citations ({len(cited)}): {' '.join(cited)}")
    print(f"  change nothing ({len(silent)}): {' '.join(sorted(silent))}")
    if stopped:
        print(f"  stopped ({len(stopped)}): {' '.join(stopped)}")
    listed = set(documented())
    if args.bounds is not None:
        ok = listed <= silent
        print(f"listed in docs/research.md and observed here: {sorted(listed - silent)}")
    else:
        ok = listed == silent and not stopped
        print(f"unlisted but changing nothing: {sorted(silent - listed)}; listed but "
              f"observed: {sorted(listed - silent)}")
    print("docs and search agree" if ok else "docs and search DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
