"""verify by enumeration (generate and test): the reference the search is
compared with at small bounds (tests/test_search.py)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .. import catalog
from ..engine.facts import Names
from . import witnesses
from .gen import Bounds, batches, generate
from .reports import KindReport, VerifyReport
from .views import Key, Kind, judge_one, violation_objects


def _named(key: Key, names: Names, doc: dict[str, Any]) -> set[str]:
    """Objects a violation is about: those it names, and those of the effects it names
    (e.g. 613.7b names two effects with one timestamp on the same object)."""
    found: set[str] = set()
    for v in violation_objects(key):
        space, name = names.names[v]
        if space == "o":
            found.add(name)
            continue
        for eff in doc.get("effects", ()):
            if eff["id"] == name:
                found.update(eff.get("objects", ()))
                if eff.get("attached"):
                    found.update(o["attached_to"] for o in doc["objects"]
                                 if o["id"] == eff.get("source") and "attached_to" in o)
    return found


def _in_play(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {obj["id"]: obj for obj in doc["objects"]
            if obj["zone"] in ("battlefield", "stack") and obj["kind"] != "ability"}


def verify(bounds: Bounds, version: catalog.Version, changes: Sequence[str] = (),
           batch_size: int = 1000) -> VerifyReport:
    report = VerifyReport(version.name, bool(changes), bounds.to_dict())
    start = time.perf_counter()
    for batch in batches(generate(bounds, report.per_size), batch_size):
        views, names = judge_one([doc for _, doc in batch], version, changes)
        for (size, doc), view in zip(batch, views, strict=True):
            seen: set[tuple[str, str, tuple[str, ...]]] = set()
            for oid in _in_play(doc):
                o = names.of("o", oid)
                value, groups = view.facts.get(("controller", o), (None, frozenset()))
                if ("fate", o) in view.facts or ("choice", o, "controller") in view.facts:
                    continue
                count = 0 if value is None else len(value) if isinstance(value, tuple) else 1
                if count != 1:
                    what = "no controller" if count == 0 else "more than one controller"
                    codes = sorted({str(k[1]).replace("_", "-") for k in view.facts
                                    if k[0] == "violation" and oid in _named(k, names, doc)})
                    if codes:  # the rules reject the snapshot itself
                        what += ", with violation " + ", ".join(codes)
                    _note(report.failures, seen, "f", what, view.numbers(groups), size, doc,
                          oid)
            for key, (_fact_value, groups) in view.facts.items():
                if key[0] == "choice":
                    _note(report.choices, seen, "c", f"choice of {key[2]}",
                          view.numbers(groups), size, doc, names.name(key[1]))
                elif key[0] == "violation":
                    subject = ",".join(names.name(v) for v in violation_objects(key))
                    _note(report.violations, seen, "v",
                          f"violation {str(key[1]).replace('_', '-')}",
                          view.numbers(groups), size, doc, subject)
        report.judged += len(batch)
    found = [e.witness for table in (report.failures, report.choices, report.violations)
             for e in table.values() if e.witness is not None]
    witnesses.attach_rulings(found, version.name, changes, "ruling")
    report.seconds = time.perf_counter() - start
    return report


def _note(table: dict[tuple[str, tuple[str, ...]], KindReport],
          seen: set[tuple[str, str, tuple[str, ...]]], tag: str, what: str,
          rules: tuple[str, ...], size: int, doc: dict[str, Any], subject: str) -> None:
    key = (what, rules)
    entry = table.get(key)
    if entry is None:
        entry = table[key] = KindReport(Kind(what, rules, ()), tag)
        entry.witness = witnesses.of_failure(size, subject, doc)
    if (tag, what, rules) not in seen:
        seen.add((tag, what, rules))
        entry.count += 1


