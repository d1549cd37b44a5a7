"""What a service worker process runs: jobs of tasks, each task one request's snapshot
(or one line of a ``/batch`` body), judged by the commands' own functions.

A job holds tasks that share their options (CR version, proposals).  The tasks that
need only the ruling -- ``/adjudicate``, ``/check`` and ``/batch`` lines -- are judged
together in one grounding by ``batch.judge.judge_records``, the function of
``mtgcontrol batch`` (one grounding costs a fixed ~0.1 s, so grouping concurrent requests
is what makes the service fast); pages and explanations go through ``present.pages``,
as ``adjudicate --format html`` and ``explain`` do.  So each answer is the bytes the
command line writes for the same snapshot.

Every task gets a `Reply` and no task raises: bad input is a 400 with its error record,
a snapshot the engine cannot judge (memory) a 422, anything else a 500.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from .. import catalog
from ..batch.judge import Settings, failure_record, judge_records, read_line
from ..engine.api import ErrorRecord, InputError, own_id
from ..engine.jsontext import BadJson, read_json
from ..engine.ruling import Ruling
from ..engine.validate import InputProblem

Reply = tuple[int, str]
"""An HTTP status and the body's text."""

JUDGED = frozenset({"ruling", "line", "check"})
"""Task kinds answered from the ruling alone: a job of them is one grounding."""
KINDS = JUDGED | {"page", "explain"}
# The query parameters a command-line option stands for, in error records.
PARAMETERS = {"OBJECT": "object", "--fact": "fact", "--why-not": "why_not",
              "--change": "changes", "--rules": "rules"}
# The beginnings of the error records for a snapshot that could not be judged although
# it is valid (batch.judge, batch.workers): 422, not 400.
UNJUDGED = ("a snapshot judged within", "a snapshot the engine can judge")


@dataclass(frozen=True)
class Options:
    """What a request asks for beside its snapshot; the tasks of one job share them."""

    rules: str | None = None
    changes: tuple[str, ...] = ()
    """Names of the proposals the server was started with (never program text)."""


@dataclass(frozen=True)
class Task:
    """One snapshot to answer: ``kind`` says how (KINDS), ``raw`` is its JSON bytes,
    ``number`` its line in a ``/batch`` body, ``extra`` the kind's own parameters."""

    kind: str
    raw: bytes
    number: int = 1
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.extra).get(key, default)


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker is started with: the server's limits and proposals."""

    proposals: tuple[tuple[str, str], ...] = ()
    """(name, program text) of each proposal file given to ``serve --change``."""
    max_objects: int = 2000
    max_effects: int = 2000
    max_memory: int | None = None
    server: int | None = None
    """The server's process id: a worker whose server is gone ends (see ``watch``)."""

    def judging(self, options: Options) -> Settings:
        texts = dict(self.proposals)
        return Settings(options.rules, tuple(texts[n] for n in options.changes),
                        max_objects=self.max_objects, max_effects=self.max_effects,
                        max_memory=self.max_memory)


def run_job(job: tuple[Options, list[Task]], settings: WorkerSettings) -> list[Reply]:
    """A worker's judge function (batch.workers._serve): one reply per task, in order."""
    if settings.server is not None and not _watching:
        watch(settings.server)
    options, tasks = job
    judging = settings.judging(options)
    replies: list[Reply | None] = [None] * len(tasks)
    together = [i for i, t in enumerate(tasks) if t.kind in JUDGED]
    if together:
        records = judge_records([(tasks[i].number, tasks[i].raw) for i in together], judging)
        for i, record in zip(together, records, strict=True):
            replies[i] = _judged(tasks[i], record, judging)
    for i, task in enumerate(tasks):
        if replies[i] is None:
            replies[i] = _alone(task, judging)
    return replies  # type: ignore[return-value]


_watching: list[int] = []


def watch(server: int) -> None:
    """End this worker once the server process is gone, even in the middle of a
    grounding (a server killed with SIGKILL cannot stop its workers itself)."""
    def look() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    _watching.append(server)
    threading.Thread(target=look, daemon=True, name="mtgcontrol-watch").start()


def error_reply(record: ErrorRecord, status: int | None = None) -> Reply:
    """An error record as a reply: 400 for bad input, else as ``status_of`` says."""
    return (status or status_of(record)), record.to_json() + "\n"


def status_of(record: ErrorRecord) -> int:
    unjudged = any(p.expected.startswith(UNJUDGED) for p in record.problems)
    internal = any("internal error" in p.expected for p in record.problems)
    return 500 if internal else 422 if unjudged else 400


def request_record(task: Task, problems: list[InputProblem]) -> ErrorRecord:
    """An error record about a request's snapshot: its id, no line number; the
    command-line options of the messages named as the query parameters."""
    found = [replace(p, path=PARAMETERS.get(p.path, p.path)) for p in problems]
    return ErrorRecord("snapshot", found, id=snapshot_id(task.raw))


def snapshot_id(raw: bytes) -> str | None:
    """The snapshot's own id, if its text says one (never raises)."""
    try:
        return own_id(read_json(raw))
    except BadJson as err:
        return own_id(err.document)


def failed(task: Task, reason: str, status: int = 422) -> Reply:
    """The reply for a task no worker could answer (time limit, a worker dying: 422; the
    server stopping: 503); a ``/batch`` line's is its error record line."""
    record = ErrorRecord("snapshot", [InputProblem("snapshot", "$", reason)],
                         task.number if task.kind == "line" else None, snapshot_id(task.raw))
    return (status, record.to_json()) if task.kind == "line" else error_reply(record, status)


def _judged(task: Task, record: Ruling | ErrorRecord, settings: Settings) -> Reply:
    if isinstance(record, ErrorRecord):
        if task.kind == "line":
            return status_of(record), record.to_json()
        return error_reply(replace(record, line=None))
    if task.kind == "line":
        return 200, record.to_json()
    if task.kind == "ruling":
        return 200, record.to_json(indent=2) + "\n"
    return _check(task, record, settings)


def _check(task: Task, ruling: Ruling, settings: Settings) -> Reply:
    """``check``'s findings as JSON: the ruling's violations (each with a minimal cause
    with ``causes``, as ``check --causes`` finds it)."""
    violations = ruling.to_dict()["violations"]
    if task.get("causes") and violations:
        from ..engine.causes import minimal_causes

        doc = read_json(task.raw)
        found = {(c.violation.rule, c.violation.code, tuple(c.violation.objects)): c.paths
                 for c in minimal_causes(doc, catalog.resolve(ruling.rules), settings.changes)}
        for v in violations:
            v["causes"] = found.get((v["rule"], v["code"], tuple(v["objects"])), [])
    body = {"id": ruling.id, "rules": ruling.rules, "violations": violations}
    return 200, json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _alone(task: Task, settings: Settings) -> Reply:
    """A page or an explanation: its own grounding through the explain lens."""
    from ..present.lang import language
    from ..present.pages import explain_named, explanation, ruling_page

    doc = read_line((task.number, task.raw), settings)
    if isinstance(doc, ErrorRecord):
        return error_reply(request_record(task, doc.problems))
    lang = task.get("lang", "en")
    try:
        if task.kind == "page":
            return 200, ruling_page([explain_named(doc, "snapshot", settings.rules,
                                                   settings.changes, lang)], language(lang))
        text = explanation((doc, "snapshot"), task.get("object"), task.get("fact"),
                           task.get("why_not"), task.get("format"), settings.rules,
                           settings.changes, lang)
        return 200, text + ("" if task.get("format") == "html" else "\n")
    except InputError as err:
        return error_reply(request_record(task, err.problems))
    except Exception as err:  # noqa: BLE001 - one request's failure, never the worker's
        return error_reply(request_record(task, failure_record("snapshot", err,
                                                               settings).problems))
