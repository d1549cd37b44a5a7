"""Judging one chunk of input lines, in a worker process or a Dask task: each line
read, checked against the limits and judged; a ruling or an error record per line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..engine.api import ErrorRecord, adjudicate_many, own_id
from ..engine.jsontext import BadJson, read_json
from ..engine.ruling import Ruling
from ..engine.validate import InputProblem
from .lines import Line, LongLine
from .workers import Result

DEFAULT_TIMEOUT = 60.0
"""Seconds a snapshot may take (a chunk taking longer is judged again line by line)."""
DEFAULT_WORKER_MEMORY = 120
"""Megabytes of peak memory after which a worker process is replaced (workers.py): with
two workers the whole process tree stays under 400 MB (BENCHMARKS.md)."""
DEFAULT_MAX_MEMORY = 2048
"""Megabytes of data memory a worker process may hold at any moment (RLIMIT_DATA): over
it, the snapshot being judged becomes an error record (a 2,000-effect snapshot reached
3.2 GB)."""
DEFAULT_MAX_OBJECTS = 2000
DEFAULT_MAX_EFFECTS = 2000


@dataclass(frozen=True)
class Settings:
    """How to judge: what a worker needs (sent to each worker process)."""

    rules: str | None = None
    changes: tuple[str, ...] = ()
    batch_size: int = 100
    max_objects: int = DEFAULT_MAX_OBJECTS
    max_effects: int = DEFAULT_MAX_EFFECTS
    max_memory: int | None = None
    """Megabytes a batch worker may hold (its error records name it); None: no limit."""


def judge_lines(lines: list[Line], settings: Settings) -> list[Result]:
    """Judge numbered input lines: (is an error record, output line) each, in order.

    Never raises: whatever goes wrong with a line becomes its error record.
    """
    return [(isinstance(r, ErrorRecord), r.to_json()) for r in judge_records(lines, settings)]


def judge_records(lines: list[Line], settings: Settings) -> list[Ruling | ErrorRecord]:
    """``judge_lines``'s rulings and error records, before they are written (the service
    writes a ruling as ``adjudicate`` does).  Never raises."""
    out: list[Ruling | ErrorRecord | None] = []
    items: list[tuple[Any, str]] = []
    places: list[tuple[int, int, str | None]] = []  # output index, line number, own id
    for number, raw in lines:
        doc = read_line((number, raw), settings)
        if isinstance(doc, ErrorRecord):
            out.append(doc)
            continue
        places.append((len(out), number, own_id(doc)))
        items.append((doc, f"line {number}"))
        out.append(None)
    for (i, number, oid), result in zip(places, _judge(items, settings), strict=True):
        out[i] = replace(result, line=number, id=oid) if isinstance(result, ErrorRecord) \
            else result
    return out  # type: ignore[return-value]


def read_line(line: tuple[int, bytes | str], settings: Settings) -> Any:
    """A corpus line's JSON document, or its `ErrorRecord` (not JSON, over the limits).

    Every command reading a corpus (batch, check, impact) reads its lines here, so the
    same bad line gets the same message; the snapshot itself is validated when judged.
    """
    number, raw = line
    name = f"line {number}"
    if isinstance(raw, LongLine):
        return ErrorRecord(name, [InputProblem(name, "$", (
            f"a line of at most {raw.limit} bytes (--max-line-bytes), got {raw.length}"))],
            line=number)
    try:
        doc = read_json(raw)
    except BadJson as err:
        oid = own_id(err.document)
        problems = [InputProblem(oid or name, path, what) for path, what in err.problems]
        return ErrorRecord(oid or name, problems, line=number, id=oid)
    found = _over_limits(doc, name, settings)
    if found:
        return ErrorRecord(name, found, line=number, id=own_id(doc))
    return doc


def failed_line(line: Line, expected: str) -> Result:
    """The error record of a line no worker could judge (time limit, dying worker)."""
    number, raw = line
    try:
        oid = own_id(read_json(raw))
    except BadJson as err:
        oid = own_id(err.document)
    name = oid or f"line {number}"
    return True, ErrorRecord(name, [InputProblem(name, "$", expected)], number, oid).to_json()


def _over_limits(doc: Any, name: str, settings: Settings) -> list[InputProblem]:
    found = []
    for field, limit, flag in (("objects", settings.max_objects, "--max-objects"),
                               ("effects", settings.max_effects, "--max-effects")):
        value = doc.get(field) if isinstance(doc, dict) else None
        if isinstance(value, list) and len(value) > limit:
            found.append(InputProblem(own_id(doc) or name, f"$.{field}",
                                      f"at most {limit} {field} ({flag}), got {len(value)}"))
    return found


def _judge(items: list[tuple[Any, str]], settings: Settings) -> list[Ruling | ErrorRecord]:
    """One grounding for the chunk; should it fail, each snapshot alone."""
    if not items:
        return []
    try:
        return list(adjudicate_many(items, settings.rules, settings.changes,
                                    settings.batch_size))
    except Exception as err:  # noqa: BLE001 - a failure must cost one line, not the run
        if len(items) == 1:
            return [failure_record(items[0][1], err, settings)]
    # Each alone, outside the handler: the failed grounding (held by the exception's
    # traceback) is freed first, so its memory does not count against the next one.
    return [r for item in items for r in _judge([item], settings)]


def failure_record(name: str, err: Exception, settings: Settings) -> ErrorRecord:
    """The error record of a snapshot whose judging raised ``err``."""
    if settings.max_memory is not None and (
            isinstance(err, MemoryError) or "bad_alloc" in str(err)):
        return ErrorRecord(name, [InputProblem(name, "$", (
            f"a snapshot judged within the worker memory limit (--max-memory "
            f"{settings.max_memory} MB)"))])
    reason = str(err).strip().splitlines()[0][:300] if str(err).strip() else ""
    return ErrorRecord(name, [InputProblem(name, "$", (
        f"a snapshot the engine can judge, got an internal error "
        f"({type(err).__name__}{': ' + reason if reason else ''})"))])
