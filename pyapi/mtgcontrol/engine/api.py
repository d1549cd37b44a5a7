"""The Python API: load, validate, judge.

``adjudicate`` judges one snapshot; ``adjudicate_many`` judges many in batches
(one grounding per batch), keeping their order, and turns each bad snapshot
into an error record instead of stopping.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .. import catalog
from .engine import Engine, Frame
from .files import read_input
from .jsontext import BadJson, read_json, unsafe_parts
from .ruling import EngineFault, Ruling
from .validate import InputError, InputProblem, problems, snapshot_name


@dataclass
class ErrorRecord:
    """What batch mode reports for a snapshot it could not judge.

    ``snapshot`` is the name used in messages (the id, else e.g. "line 3"); ``id`` is
    the snapshot's own id when it has one; ``line`` the input line number in batch.
    As JSON: ``{"line": 3, "id": null, "error": [{"path": "$.players", "expected": ...}]}``
    (``line`` only when known).
    """

    snapshot: str
    problems: list[InputProblem]
    line: int | None = None
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        head: dict[str, Any] = {} if self.line is None else {"line": self.line}
        return {**head, "id": self.id, "error": [
            {"path": p.path, "expected": p.expected} for p in self.problems]}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def own_id(doc: object) -> str | None:
    """The snapshot's ``id`` when it is a non-empty string (never raises)."""
    name = snapshot_name(doc, "")
    return name if name and not unsafe_parts(name) else None


def load_snapshot(snapshot: Any) -> tuple[Any, str]:
    """A snapshot given as a dict, a path, JSON text or bytes; and a name for messages."""
    if isinstance(snapshot, dict):
        return snapshot, "snapshot"
    if isinstance(snapshot, bytes):
        return parse_json(snapshot, "snapshot"), "snapshot"
    if isinstance(snapshot, Path) or (isinstance(snapshot, str) and not snapshot.lstrip()
                                      .startswith(("{", "["))):
        path = Path(snapshot)
        return parse_json(read_input(path), str(path)), str(path)
    if isinstance(snapshot, str):
        return parse_json(snapshot, "snapshot"), "snapshot"
    return snapshot, "snapshot"


def parse_json(text: str | bytes, name: str) -> Any:
    """One JSON document (text, or bytes that must be UTF-8); hostile input -> `InputError`.

    Deep nesting, huge integers, lone surrogates, NaN, repeated keys, a BOM, UTF-16 or
    invalid UTF-8 each give a problem with a JSON path (see ``jsontext``), never a
    traceback.
    """
    try:
        return read_json(text)
    except BadJson as err:
        raise InputError([InputProblem(name, path, what) for path, what in err.problems]
                         ) from None


def version_for(doc: dict[str, Any], rules: str | None, name: str) -> catalog.Version:
    """The CR version to apply: the caller's choice, else the snapshot's ``rules``."""
    wanted = rules if rules is not None else doc.get("rules")
    try:
        return catalog.resolve(wanted)
    except catalog.UnknownVersion as err:
        where = "rules" if rules is not None else "$.rules"
        raise InputError([InputProblem(name, where, str(err))]) from None


def adjudicate(snapshot: Any, rules: str | None = None, changes: Sequence[str] = ()) -> Ruling:
    """Judge one snapshot (a dict, a path or JSON text) under CR version ``rules``."""
    doc, fallback = load_snapshot(snapshot)
    result = next(adjudicate_many([(doc, fallback)], rules, changes))
    if isinstance(result, ErrorRecord):
        raise InputError(result.problems)
    return result


def adjudicate_many(items: Iterable[tuple[Any, str]], rules: str | None = None,
                    changes: Sequence[str] = (), batch_size: int = 500,
                    fast: bool | None = None) -> Iterator[Ruling | ErrorRecord]:
    """Judge ``(document, fallback name)`` pairs in order, ``batch_size`` per grounding.

    ``fast=False`` (or the environment variable ``MTGCONTROL_FAST=0``) judges
    without the engine's fast paths; the rulings are the same bytes.
    """
    engine = engine_for(tuple(changes), fast_default() if fast is None else fast)
    batch: list[tuple[Any, str]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= batch_size:
            yield from judge_batch(batch, rules, engine)
            batch = []
    if batch:
        yield from judge_batch(batch, rules, engine)


def fast_default() -> bool:
    return os.environ.get("MTGCONTROL_FAST", "1") != "0"


def engine_for(changes: tuple[str, ...], fast: bool) -> Engine:
    """One engine per rule set and mode, loaded once per process (and per catalog: a
    draft catalog, ``MTGCONTROL_CATALOG``, brings its own versions)."""
    return _engine(changes, fast, catalog.versions())


@cache
def _engine(changes: tuple[str, ...], fast: bool, versions: tuple[catalog.Version, ...]
            ) -> Engine:
    return Engine(changes, fast=fast)


def judge_batch(items: Sequence[tuple[Any, str]], rules: str | None,
                engine: Engine) -> list[Ruling | ErrorRecord]:
    """One grounding for a batch; invalid snapshots become error records."""
    results: list[Ruling | ErrorRecord | None] = [None] * len(items)
    judged: list[int] = []
    frames: list[Frame] = []
    for i, (doc, fallback) in enumerate(items):
        start = time.process_time()
        found = problems(doc, fallback)
        name = snapshot_name(doc, fallback)
        if not found:
            try:
                version = version_for(doc, rules, name)
            except InputError as err:
                found = err.problems
        engine.phases.validate += time.process_time() - start
        if found:
            results[i] = ErrorRecord(name, found, id=own_id(doc))
            continue
        frames.append(engine.frame(doc, version))
        judged.append(i)
    if judged:
        for i, ruling in zip(judged, engine.judge_each(frames), strict=True):
            if isinstance(ruling, EngineFault):
                name = snapshot_name(*items[i])
                results[i] = ErrorRecord(name, [InputProblem(name, "$", str(ruling))],
                                         id=own_id(items[i][0]))
            else:
                results[i] = ruling
    return [r for r in results if r is not None]
