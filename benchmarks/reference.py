"""A plain-Python reference adjudicator of the simplest subset, for benchmarks only.

    python benchmarks/reference.py corpus.jsonl > out.jsonl

Owners (a card's starting player, or who brought it in; a token's, emblem's or
copy's creator or caster), default controllers (who it entered under, who put
it on the stack) and the latest control effect naming a player.  Nothing else
(no Auras' "you", durations, exchanges, leaving players, versions): it is the
floor the engine's rate is compared with (BENCHMARKS.md), not a rules engine.
It reads and writes JSON Lines like ``mtgcontrol batch``.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any


def owner(obj: dict[str, Any]) -> str | None:
    if "brought_in_by" in obj:
        return obj["brought_in_by"]
    if "start" in obj:
        return obj["start"]["player"]
    for field in ("created", "put_on_stack"):
        if field in obj:
            return obj[field]["by"]
    return None


def default_controller(obj: dict[str, Any]) -> str | None:
    zone = obj["zone"]
    if zone == "battlefield" and "entered" in obj:
        return obj["entered"]["under"]
    if zone == "stack" and "put_on_stack" in obj:
        return obj["put_on_stack"]["by"]
    if obj["kind"] == "emblem" and "created" in obj:
        return obj["created"]["by"]
    if obj["kind"] == "ability" and "activated" in obj:
        return obj["activated"]["by"]
    return None


def judge(doc: dict[str, Any]) -> dict[str, Any]:
    latest: dict[str, tuple[int, str]] = {}
    for eff in doc.get("effects", []):
        if eff["kind"] == "control" and "player" in eff:
            for target in eff.get("objects", ()):
                if target not in latest or latest[target][0] <= eff["timestamp"]:
                    latest[target] = (eff["timestamp"], eff["player"])
    objects = {}
    for obj in doc["objects"]:
        dflt = default_controller(obj)
        ctrl = latest[obj["id"]][1] if dflt is not None and obj["id"] in latest else dflt
        objects[obj["id"]] = {"owner": owner(obj), "controller": ctrl,
                              "default_controller": dflt}
    return {"id": doc.get("id"), "objects": objects}


def run(source: IO[str], out: IO[str]) -> int:
    n = 0
    for line in source:
        if line.strip():
            out.write(json.dumps(judge(json.loads(line))) + "\n")
            n += 1
    return n


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        run(f, sys.stdout)
