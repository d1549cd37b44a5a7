"""Batch mode: JSON Lines in, exactly one line out per line in, in order.

Every input line gets an output line: a ruling, or an error record
``{"line": N, "id": ..., "error": [{"path", "expected"}]}`` for a blank line, a line
that is not JSON or not a snapshot, a snapshot over the size limits, one that takes
longer than the time limit, or one whose worker keeps dying.  Lines are judged in
chunks (one grounding each) by worker processes (``workers``), or on a Dask cluster
(``dask_runner``); output is written in input order as chunks complete, so SIGINT or
SIGTERM leave a file of whole lines that ``--resume`` continues.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shlex
import sys
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from ..engine.api import ErrorRecord, InputError, own_id
from ..engine.files import check_outputs
from ..engine.interrupts import Interrupted, interruptible
from ..engine.validate import InputProblem
from .judge import (
    DEFAULT_TIMEOUT,
    DEFAULT_WORKER_MEMORY,
    Settings,
    failed_line,
    judge_lines,
    read_line,
)
from .lines import DEFAULT_MAX_LINE_BYTES, Line, chunks, count_lines, numbered, open_input
from .output import Output, WriteFailed, open_output, whole_lines
from .progress import OK, SOME_ERRORS, USAGE, WRITE_FAILED, Bar, summary
from .workers import REIMPORTED, Pool, WorkersFailed, workers_problem


@dataclass
class Run:
    """A batch run: where from, where to, how."""

    source: str
    target: str | None
    settings: Settings
    workers: int = 1
    timeout: float = DEFAULT_TIMEOUT
    resume: bool = False
    dask: str | None = None
    command: Sequence[str] | None = None
    """The command line as typed, for the how-to-continue message."""
    worker_memory: int = DEFAULT_WORKER_MEMORY
    """Megabytes a worker process may have held by the end of a chunk, else it is replaced."""
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """Longest input line judged; a longer one becomes an error record."""


def run_batch(run: Run) -> int:
    """Judge ``run.source`` into ``run.target``; the exit code (see progress.EXIT_CODES)."""
    _check_paths(run)
    started = time.monotonic()
    stream = open_input(run.source)
    try:
        out = open_output(run.target, run.resume)
    except WriteFailed as err:
        print(f"mtgcontrol: {err}; {run.target} is left as it was", file=sys.stderr)
        return WRITE_FAILED
    finally:
        if "out" not in locals() and stream is not sys.stdin.buffer:
            stream.close()
    judged, errors = out.kept - out.errors, out.errors
    bar = Bar(None, enabled=False)
    try:
        if out.kept:
            check_kept(out.name, numbered(stream, max_bytes=run.max_line_bytes), out.kept)
        read = numbered(stream, max_bytes=run.max_line_bytes, start=out.kept)
        bar = Bar(count_lines(run.source) if sys.stderr.isatty() else None, initial=out.kept)
        with interruptible() as guard, closing(_runner(run)(chunks(
                read, run.settings.batch_size, out.kept))) as results:
            for chunk in results:
                with guard.writing():
                    for is_error, line in chunk:
                        out.write(line)
                        errors += is_error
                        judged += not is_error
                    out.flush()
                bar.update(len(chunk))
        bar.close()
        out.close()
    except Interrupted as stop:
        bar.close()
        out.close()
        print(_stopped(run, out, stop), file=sys.stderr)
        return stop.exit_code
    except WorkersFailed as err:
        print(f"mtgcontrol: {err}", file=sys.stderr)
        return USAGE
    except WriteFailed as err:
        bar.close()
        out.abort()
        print(_write_failed(run, out, err), file=sys.stderr)
        return WRITE_FAILED
    finally:  # whatever stopped the run, the lines written so far stay whole
        bar.close()
        try:
            out.close()
        except WriteFailed:
            out.abort()
        if stream is not sys.stdin.buffer:
            stream.close()
    print(summary(out.lines, judged, errors, time.monotonic() - started, out.kept),
          file=sys.stderr)
    return SOME_ERRORS if errors else OK


def check_kept(target: str, lines: Iterable[Line], kept: int) -> None:
    """Refuse to resume unless each kept output line answers its input line: the same
    line number and id (an error record), the same id and object ids (a ruling)."""
    seen = 0
    loose = Settings(max_objects=2**62, max_effects=2**62)
    for (number, raw), answer in zip(lines, whole_lines(target), strict=False):
        seen = number
        record = json.loads(answer)
        doc = read_line((number, raw), loose)
        ours = doc.id if isinstance(doc, ErrorRecord) else own_id(doc)
        if isinstance(doc, ErrorRecord) or "error" in record:
            same = (record.get("line"), record.get("id")) == (number, ours)
        else:
            objects = doc.get("objects") if isinstance(doc, dict) else None
            ids = [o.get("id") for o in objects if isinstance(o, dict)] \
                if isinstance(objects, list) else []
            same = (record.get("id"), list(record["objects"])) == (ours, ids)
        if not same:
            raise InputError([InputProblem(target, f"line {number}", (
                "an output of this input to --resume, but it answers another snapshot "
                f"(id {json.dumps(record.get('id'))}) than input line {number} (id "
                f"{json.dumps(ours)}); judge into a new file instead"))])
        if number >= kept:
            return
    raise InputError([InputProblem(target, f"line {seen + 1}", (
        f"an output of this input to --resume, but it has {kept} lines and the input "
        f"only {seen}; judge into a new file instead"))])


def _write_failed(run: Run, out: Output, err: WriteFailed) -> str:
    where = f"mtgcontrol: {err}: "
    if out.to_stdout:
        return where + "standard output cannot be resumed"
    args = list(run.command) if run.command is not None else ["batch", run.source, "-o",
                                                               str(run.target)]
    if "--resume" not in args:
        args.append("--resume")
    whole = f"lines 1-{out.complete} of it are whole" if out.complete else "it holds no line"
    return (where + f"{whole}; make room, then continue with: "
            f"{shlex.join(['mtgcontrol', *args])}")


def _check_paths(run: Run) -> None:
    if multiprocessing.current_process().__dict__.get("_inheriting"):
        # A worker process importing a script that calls run_batch at its top level:
        # end it here, before it runs a batch of its own; the parent says why.
        os._exit(REIMPORTED)
    problem = workers_problem(run.workers)
    if problem is not None:
        raise InputError([InputProblem("mtgcontrol", "--workers",
                                       f"{problem}, got {run.workers!r}")])
    if run.resume and run.target in (None, "-"):
        raise InputError([InputProblem("mtgcontrol", "--resume",
                                       "an output file (-o FILE) to continue")])
    check_outputs([run.source], [("-o", run.target)])


def pool(settings: Settings, workers: int = 1, timeout: float = DEFAULT_TIMEOUT,
         worker_memory: int | None = DEFAULT_WORKER_MEMORY) -> Pool:
    """Worker processes judging chunks of lines within the limits of ``settings`` and
    ``timeout`` (seconds of CPU time per snapshot): batch's, and check's."""
    ceiling = None if settings.max_memory is None else settings.max_memory * 2**20
    return Pool(workers, judge_lines, settings, failed_line, timeout=timeout,
                memory_limit=None if worker_memory is None else worker_memory * 2**20,
                ceiling=ceiling)


def _runner(run: Run) -> Any:
    if run.dask is not None:
        from .dask_runner import DaskRunner

        return DaskRunner(run.dask, run.settings, run.workers).run
    return pool(run.settings, run.workers, run.timeout, run.worker_memory).run


def _stopped(run: Run, out: Output, stop: Interrupted) -> str:
    written = f"mtgcontrol: stopped by {stop}: {out.lines} line(s) written to {out.name}"
    if out.to_stdout:
        return (f"{written} (input lines 1-{out.lines}); to continue, run with -o FILE "
                f"--resume (standard output cannot be resumed)")
    args = list(run.command) if run.command is not None else ["batch", run.source, "-o",
                                                               str(run.target)]
    if "--resume" not in args:
        args.append("--resume")
    return f"{written}; to continue: {shlex.join(['mtgcontrol', *args])}"
