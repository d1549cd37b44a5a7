"""List and classify the lines where two batch outputs of the same input differ.

    python benchmarks/compare_rulings.py INPUT.jsonl REFERENCE.out.jsonl NEW.out.jsonl

For a differential run (`mtgcontrol batch INPUT -o NEW` against a reference
output of another commit): one line per differing line number with the ruling
keys that differ and the classes of the snapshot that can explain it, then a
count per class.  A class names the rules change that can reach such a
snapshot (the rules changes that changed rulings); a line
no class explains is `UNEXPLAINED`, and the exit code is 1 when there is one.
Reads the three files line by line, side by side (flat memory).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from itertools import zip_longest
from typing import Any

NEXT_TURN = {"until-your-next-turn", "until-end-of-your-next-turn"}


def _left(doc: dict[str, Any]) -> dict[str, int]:
    return {p["id"]: p["left_at"] for p in doc.get("players", []) if isinstance(p, dict)}


def classes(doc: dict[str, Any], ruling: dict[str, Any]) -> list[str]:
    """The rules changes that can reach this snapshot (empty: none can)."""
    objects = {o["id"]: o for o in doc.get("objects", [])}
    effects = doc.get("effects", [])
    phasing = {o for o, obj in objects.items() if obj.get("phasing")}
    found = []
    if phasing and any(obj.get("abilities") for obj in objects.values()):
        found.append("1 phasing: who may activate, \"you\"")
    if phasing and any(e.get("kind") == "exchange" for e in effects):
        found.append("2 phasing: exchange with a phased-out half")
    if any(e.get("duration") in NEXT_TURN for e in effects):
        found.append("3 \"your\" next turn: the resolving spell's controller")
    version = ruling.get("rules", "")
    if version in ("2012-10-01", "2017-04-28") and any(
            objects[o].get("kind") == "token" for o in phasing):
        found.append("4 phased-out token ceases to exist (110.5f, 2012/2017)")
    left = _left(doc)
    if version == "2012-10-01" and any(
            (obj.get("entered", {}).get("under") in left
             and obj["entered"]["at"] >= left[obj["entered"]["under"]])
            or (obj.get("put_on_stack", {}).get("by") in left
                and obj["put_on_stack"]["at"] >= left[obj["put_on_stack"]["by"]])
            for obj in objects.values()):
        found.append("5 2012 800.4b: entered under a player who had left")
    if has_dependency_cycle(objects, effects):
        found.append("6 dependency loop (613.8b) and its citations")
    if phasing and not found:
        found.append("phasing: citations (702.24 in 2012, 702.26e, \"you\")")
    return found


def affected(effect: dict[str, Any], objects: dict[str, Any]) -> set[str]:
    """The objects a control effect names, or the one its source is attached to."""
    if effect.get("attached"):
        return {objects.get(effect.get("source"), {}).get("attached_to")} - {None}
    return set(effect.get("objects", []))


def has_dependency_cycle(objects: dict[str, Any], effects: list[dict[str, Any]]) -> bool:
    """Whether static control effects depend on each other round (613.8b): E depends
    on F when F affects E's source."""
    static = [e for e in effects if e.get("origin") == "static"]
    after = {e["id"]: [f["id"] for f in static if e.get("source") in affected(f, objects)]
             for e in static}

    def returns(start: str) -> bool:
        todo, reached = list(after[start]), set()
        while todo:
            node = todo.pop()
            if node == start:
                return True
            if node not in reached:
                reached.add(node)
                todo.extend(after[node])
        return False

    return any(returns(e) for e in after)


def differing_keys(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """The paths (two levels deep) where two rulings differ."""
    if isinstance(a, dict) and isinstance(b, dict) and path.count("/") < 2:
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                yield from differing_keys(a.get(key), b.get(key), f"{path}/{key}")
    elif a != b:
        yield path or "/"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tally: Counter[str] = Counter()
    unexplained = 0
    with open(argv[0], encoding="utf-8") as src, open(argv[1], encoding="utf-8") as ref, \
            open(argv[2], encoding="utf-8") as new:
        for number, (line, old, now) in enumerate(zip_longest(src, ref, new), start=1):
            if old == now:
                continue
            if line is None or old is None or now is None:
                print(f"line {number}: the files have different lengths")
                return 1
            doc, ruling_old, ruling_new = json.loads(line), json.loads(old), json.loads(now)
            if "error" in ruling_old or "error" in ruling_new:  # judged on one side only
                found = ["UNEXPLAINED: an error record on one side (the input format changed?)"]
            else:
                found = classes(doc, ruling_new) or ["UNEXPLAINED"]
            unexplained += found[0].startswith("UNEXPLAINED")
            tally.update(found)
            keys = ", ".join(differing_keys(ruling_old, ruling_new))
            print(f"line {number} ({doc.get('id')}, {ruling_new.get('rules')}): {keys}")
            print("    " + "; ".join(found))
    for name, count in sorted(tally.items()):
        print(f"{count:6d}  {name}")
    print(f"{unexplained} unexplained")
    return 1 if unexplained else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
