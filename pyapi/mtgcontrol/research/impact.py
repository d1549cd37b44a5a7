"""Impact over a corpus, and over every generated snapshot by enumeration
(``--enumerate``; the search is search.py)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from .. import catalog
from ..engine.api import ErrorRecord, own_id
from ..engine.engine import Frame
from ..engine.validate import problems
from . import witnesses
from .gen import Bounds, batches, generate
from .reports import ImpactReport
from .views import Sides, compare, judge_pairs

# ---------------------------------------------------------------------------------
# Impact over a corpus


def impact_corpus(lines: Iterable[tuple[int, bytes | str]], v1: catalog.Version,
                  v2: catalog.Version, changes: Sequence[str] = (),
                  batch_size: int = 500) -> ImpactReport:
    """Judge every valid line under both sides; bad lines become error records, read
    and worded as batch words them (``batch.judge.read_line``)."""
    from ..batch.judge import Settings, read_line

    report = ImpactReport(v1.name, v2.name, bool(changes), "corpus")
    sides = Sides.of(v1, v2, changes)
    start = time.perf_counter()
    settings = Settings()
    batch: list[tuple[int, str | None, dict[str, Any]]] = []

    def flush() -> None:
        pairs, names = judge_pairs([doc for _, _, doc in batch], v1, v2, changes)
        for (number, name, _), (a, b) in zip(batch, pairs, strict=True):
            diffs, renumbered = compare(a, b, sides)
            report.record(diffs, renumbered, number, names, {"line": number, "snapshot": name})
        report.judged += len(batch)
        batch.clear()

    for number, raw in lines:
        doc = read_line((number, raw), settings)
        if isinstance(doc, ErrorRecord):
            report.errors.append(doc.to_dict())
            continue
        found = problems(doc, f"line {number}")
        if found:
            report.errors.append(ErrorRecord(found[0].snapshot, found, number, own_id(doc))
                                 .to_dict())
            continue
        batch.append((number, own_id(doc), doc))
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    report.seconds = time.perf_counter() - start
    return report


def impact_exhaustive(bounds: Bounds, v1: catalog.Version, v2: catalog.Version,
                      changes: Sequence[str] = (), batch_size: int = 1000) -> ImpactReport:
    """One smallest witness per kind of difference over every generated snapshot."""
    report = ImpactReport(v1.name, v2.name, bool(changes), "exhaustive",
                          bounds=bounds.to_dict())
    sides = Sides.of(v1, v2, changes)
    start = time.perf_counter()
    counter = 0
    frames: dict[Any, tuple[Frame | None, Frame | None]] = {}
    for batch in batches(generate(bounds, report.per_size, late=True), batch_size):
        pairs, names = judge_pairs([doc for _, doc in batch], v1, v2, changes)
        for (size, doc), (a, b) in zip(batch, pairs, strict=True):
            counter += 1
            diffs, renumbered = compare(a, b, sides)
            report.record(diffs, renumbered, counter, names)
            for diff in diffs:
                entry = report.kinds[(diff.kind, diff.category)]
                if entry.witness is None:
                    frames[(diff.kind, diff.category)] = (a.frame, b.frame)
                    entry.witness = witnesses.of_difference(size, diff, names, doc)
        report.judged += len(batch)
    witnesses.explain(report, v1, v2, changes, frames)
    report.seconds = time.perf_counter() - start
    return report
