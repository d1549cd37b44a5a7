"""Only the order of times matters: a metamorphic test of the rule encodings.

Every time in a snapshot (each field the snapshot schema types as a timestamp)
is multiplied by 10 and shifted by a constant; the plain path
(``adjudicate_many(..., fast=False)``: raw times, no ranks, no splitting) must
rule the same.  Rulings are compared with their times mapped back: a history
entry at a scaled time u is the controller at the original time
floor((u - shift) / 10) (a point "just before T", T-1, maps back to the
original T-1), times named in texts likewise; everything else must be equal.
Scaling opens gaps between time points that the original has none of (the
point just before an exchange no longer coincides with an earlier event), so
a rule that is founded only when two time points are adjacent fails here.
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from importlib import resources
from typing import Any

import pytest
from test_differential import corpus_module
from test_engine import all_snapshots

from mtgcontrol.engine.api import adjudicate_many
from mtgcontrol.engine.facts import default_now
from mtgcontrol.engine.ruling import controller_at

SCALE = 10
SHIFTS = (31, 1003)  # no scaled time is a small count in a text
NUMBER = re.compile(r"(?<![\w.-])\d+(?![\w-]|\.\d)")  # not in ids nor rule numbers


@cache
def time_fields() -> frozenset[str]:
    """The snapshot fields whose values are timestamps, read off the schema."""
    schema = json.loads(resources.files("mtgcontrol").joinpath(
        "schema", "snapshot.schema.json").read_text(encoding="utf-8"))
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in (node.get("properties") or {}).items():
                if value == {"$ref": "#/$defs/timestamp"}:
                    found.add(key)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert {"timestamp", "at", "now", "from", "left_at"} <= found
    return frozenset(found)


def rescale(doc: Any, shift: int) -> Any:
    """The same snapshot with every time t replaced by SCALE * t + shift."""
    if isinstance(doc, dict):
        return {k: SCALE * v + shift if k in time_fields() and isinstance(v, int)
                and not isinstance(v, bool) else rescale(v, shift) for k, v in doc.items()}
    if isinstance(doc, list):
        return [rescale(v, shift) for v in doc]
    return doc


def with_now(doc: dict[str, Any]) -> dict[str, Any]:
    """``now`` made explicit (its default, 1 + the largest time, is not scale-free)."""
    return doc if "now" in doc else dict(doc, now=default_now(doc))


def back(value: Any, times: dict[int, int]) -> Any:
    """A ruling with the times in its texts mapped back by ``times`` (histories apart)."""
    if isinstance(value, dict):
        return {k: v if k == "rule" else back(v, times) for k, v in value.items()
                if k != "history"}
    if isinstance(value, list):
        return [back(v, times) for v in value]
    if isinstance(value, str):
        return NUMBER.sub(lambda m: str(times.get(int(m.group()), m.group())), value)
    return value


def times_of(doc: Any) -> set[int]:
    if isinstance(doc, dict):
        return {v for k, v in doc.items() if k in time_fields() and isinstance(v, int)} | {
            t for v in doc.values() for t in times_of(v)}
    if isinstance(doc, list):
        return {t for v in doc for t in times_of(v)}
    return set()


def history_differences(orig: dict, scaled: dict, shift: int) -> list[str]:
    """Where a scaled history tells another controller than the original one.

    Every scaled entry is checked against the original at the time it maps
    back to, and every original entry against the scaled entries it stands for.
    A negative key (-1: from the start of the game, before any time point) is
    not a time and stays as it is."""
    def up(t: int) -> int:
        return t if t < 0 else SCALE * t + shift

    def down(u: int) -> int:
        return u if u < 0 else (u - shift) // SCALE

    out = []
    for name, obj in orig.get("objects", {}).items():
        h = {int(t): p for t, p in obj.get("history", {}).items()}
        g = {int(t): p for t, p in scaled.get("objects", {}).get(name, {}).get("history",
                                                                              {}).items()}
        # an original time point t is the scaled point up(t) or, when it is only
        # the point just before t + 1, up(t + 1) - 1: compare with those present
        out += [f"{name} at {t}: {p} vs {g[u]}" for t, p in sorted(h.items())
                for u in (up(t), up(t + 1) - 1) if u in g and g[u] != p]
        out += [f"{name} at scaled {u}: {p} vs {controller_at(h, down(u))}"
                for u, p in sorted(g.items()) if controller_at(h, down(u)) != p]
    return out


def differences(docs: list[tuple[str, dict]], shift: int) -> list[str]:
    """Names of the snapshots whose plain-path ruling changes when times are rescaled."""
    docs = [(name, with_now(doc)) for name, doc in docs]
    plain = [json.loads(r.to_json()) for r in
             adjudicate_many([(d, n) for n, d in docs], fast=False)]
    scaled = [json.loads(r.to_json()) for r in
              adjudicate_many([(rescale(d, shift), n) for n, d in docs], fast=False)]
    out = []
    for (name, doc), a, b in zip(docs, plain, scaled, strict=True):
        history = history_differences(a, b, shift)
        times = times_of(doc)  # each scaled time and the point just before it, mapped back
        mapped = {SCALE * t + shift - d: t - d for t in times for d in (0, 1)}
        if history or back(a, {}) != back(b, mapped):
            out.append(f"{name}: {history[:3] or 'texts or facts differ'}")
    return out


def test_rescale_touches_every_time() -> None:
    doc = {"now": 5, "players": ["a", {"id": "b", "left_at": 3}],
           "turns": [{"player": "a", "from": 1}],
           "objects": [{"id": "x", "entered": {"at": 2, "under": "a"}, "tapped": True}],
           "effects": [{"id": "e", "timestamp": 4, "ended_at": 5}]}
    assert rescale(doc, 7) == {
        "now": 57, "players": ["a", {"id": "b", "left_at": 37}],
        "turns": [{"player": "a", "from": 17}],
        "objects": [{"id": "x", "entered": {"at": 27, "under": "a"}, "tapped": True}],
        "effects": [{"id": "e", "timestamp": 47, "ended_at": 57}]}


@pytest.mark.parametrize("shift", SHIFTS)
def test_scenarios_rule_the_same_at_every_time_scale(shift: int) -> None:
    differ = differences(all_snapshots(), shift)
    assert not differ, f"{len(differ)} differ: {differ[:5]}"


@pytest.mark.parametrize("shift", SHIFTS)
def test_generated_snapshots_rule_the_same_at_every_time_scale(shift: int) -> None:
    make = corpus_module()
    rng = random.Random(10 + shift)
    docs = [make.Builder(rng, i).build() for i in range(200)]
    docs += [make.realistic(rng, 200 + i) for i in range(60)]
    docs += [make.realistic(rng, 260 + i, objects=10, effects=14) for i in range(60)]
    differ = differences([(d["id"], d) for d in docs], shift)
    assert not differ, f"{len(differ)} differ: {differ[:5]}"
