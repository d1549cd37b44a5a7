"""Objects that phase are derived at their event points only (docs/engine.md,
Grounding item 13): fast path against the plain path (every object at every time
point) on random snapshots where permanents phase out and in (702.26) while
control effects -- steals with durations, control Auras, exchanges -- begin, end
and are attached, and players leave (``make_corpus.phasing_game``; more of them:
``bench_engine.py differential --phasing``).  The scenario files have eight
phasing situations; this widens them."""

from __future__ import annotations

import random

from test_differential import corpus_module, rulings


def test_phasing_objects_agree_with_every_time_point() -> None:
    rng = random.Random(26)
    make = corpus_module()
    docs = [make.phasing_game(rng, n) for n in range(200)]
    fast = rulings(docs, fast=True)
    plain = rulings(docs, fast=False)
    differ = [docs[i]["id"] for i, (a, b) in enumerate(zip(fast, plain, strict=True)) if a != b]
    assert not differ, f"{len(differ)} snapshot(s) differ, e.g. {differ[:5]}"
    # The snapshots are judged, and exercise phasing: most are no error record.
    judged = [r for r in fast if '"objects"' in r]
    assert len(judged) > 150, len(judged)
    assert sum(any("phasing" in o for o in d["objects"]) for d in docs) > 150
