"""Impact over a corpus, and over every generated snapshot by enumeration
(``--enumerate``; the search is search.py)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from .. import catalog
from ..engine.api import ErrorRecord, own_id
from ..engine.engine import RULING, Frame
from ..engine.validate import problems
from .gen import Bounds, _batches, generate
from .reports import ImpactReport, witness_record
from .views import Sides, compare, judge_pairs, research_engine

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
    for batch in _batches(generate(bounds, report.per_size, late=True), batch_size):
        pairs, names = judge_pairs([doc for _, doc in batch], v1, v2, changes)
        for (size, doc), (a, b) in zip(batch, pairs, strict=True):
            counter += 1
            diffs, renumbered = compare(a, b, sides)
            report.record(diffs, renumbered, counter, names)
            for diff in diffs:
                entry = report.kinds[(diff.kind, diff.category)]
                if entry.witness is None:
                    frames[(diff.kind, diff.category)] = (a.frame, b.frame)
                    entry.witness = witness_record(size, diff, names, doc)
        report.judged += len(batch)
    _explain_witnesses(report, v1, v2, changes, frames)
    report.seconds = time.perf_counter() - start
    return report


def _ruling_part(ruling: Any, object_id: str) -> dict[str, Any]:
    """What a ruling says about one object, with its `because`, fate, choices, violations."""
    data = ruling.to_dict()
    out: dict[str, Any] = {}
    obj = data["objects"].get(object_id)
    if obj is not None:
        out = {k: obj[k] for k in ("owner", "controller", "default_controller")}
        out["because"] = [f"{b['rule']} {b['fact']}: {b['via']}" for b in obj["because"]
                          if b["fact"] != "you"]
    if object_id in data["left_game"]:
        out["left_game"] = data["left_game"][object_id]
    choices = [c for c in data["choices"] if c["object"] == object_id]
    if choices:
        out["choices"] = choices
    if data["violations"]:
        out["violations"] = [f"{v['rule']} {v['code']}: {v['message']}"
                             for v in data["violations"]]
    return out


def _explain_witnesses(report: ImpactReport, v1: catalog.Version, v2: catalog.Version,
                       changes: Sequence[str],
                       frames: dict[Any, tuple[Frame | None, Frame | None]] | None = None
                       ) -> None:
    """The witnesses' rulings under both sides: the ruling lens over the frames their
    views were judged from (``frames``, by kind), or over frames made here."""
    frames = frames or {}
    kinds = [(key, e.witness) for key, e in report.kinds.items() if e.witness is not None]
    witnesses = [w for _, w in kinds]
    _attach_rulings(witnesses, v1.name, (), "ruling_from",
                    [frames.get(key, (None, None))[0] for key, _ in kinds])
    _attach_rulings(witnesses, v2.name, changes, "ruling_to",
                    [frames.get(key, (None, None))[1] for key, _ in kinds])


def _attach_rulings(witnesses: list[dict[str, Any]], version: str, changes: Sequence[str],
                    slot: str, frames: Sequence[Frame | None] = ()) -> None:
    """Each witness's ruling (the ruling lens) over its frame, where it has one."""
    engine = research_engine(tuple(changes))
    todo: list[tuple[dict[str, Any], Frame]] = []
    for i, w in enumerate(witnesses):
        if w["snapshot"].get("id") != "witness":
            w["snapshot"] = {"id": "witness", **w["snapshot"]}
        found = problems(w["snapshot"], "witness")
        if found:  # a generator bug: say so in the report
            w[slot] = {"violations": [f"invalid snapshot: {p}" for p in found]}
            continue
        frame = frames[i] if i < len(frames) else None
        todo.append((w, frame or engine.frame(w["snapshot"], catalog.resolve(version),
                                              raw=True)))
    rulings = engine.judge([f for _, f in todo], RULING) if todo else []
    for (w, _), ruling in zip(todo, rulings, strict=True):
        w[slot] = _ruling_part(ruling, w["object"].split(",")[0])
